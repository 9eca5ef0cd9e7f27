"""The command line: output, files, and one-line errors for bad input."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from attnwalk.cli import main


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_render_prints_the_walkthrough_with_front_matter(capsys):
    code, out, err = run(capsys, "render", "--h", "3", "--w", "3", "--heads", "2", "--seed", "42")
    assert code == 0 and err == ""
    assert out.startswith("---\n") and "\n# Attention trong YOLO" in out
    front = out.split("---\n")[1]
    assert '"pe_on": "v"' in front and "w_qkv: {shape: [8, 4, 1, 1]" in front


def test_render_english_and_json(capsys):
    code, out, _ = run(capsys, "render", "--lang", "en", "--h", "2", "--w", "2")
    assert code == 0 and "# Attention in YOLO" in out
    code, out, _ = run(capsys, "render", "--format", "json", "--h", "2", "--w", "3", "--dim", "6", "--heads", "3",
                       "--attn-ratio", "1")
    data = json.loads(out)
    assert data["config"]["dim"] == 6 and data["config"]["attn_ratio"] == 1.0
    for name in ("x", "w_qkv", "b_qkv", "w_proj", "b_proj", "w_pe", "b_pe", "qkv", "q", "k", "v", "scores",
                 "scores_scaled", "row_max", "exp", "row_sum", "attn", "o", "pe", "o_pe", "out"):
        t = data["tensors"][name]
        assert list(np.array(t["data"]).shape) == t["shape"], name
    assert data["tensors"]["attn"]["shape"] == [1, 3, 6, 6]
    np.testing.assert_allclose(np.array(data["tensors"]["attn"]["data"]).sum(-1), 1.0, atol=1e-12)


def test_output_file_is_written_whole_and_nothing_else(tmp_path, capsys):
    target = tmp_path / "note.md"
    code, out, _ = run(capsys, "render", "-o", str(target))
    assert code == 0 and out == ""
    assert target.read_text(encoding="utf-8").startswith("---\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["note.md"]


BAD = [
    (["--heads", "3"], "--heads", "allowed: 1, 2, 4"),
    (["--lang", "fr"], "--lang", "allowed: vi, en"),
    (["--pe-on", "x"], "--pe-on", "allowed: v, o"),
    (["--rng", "mt"], "--rng", "allowed: torch, numpy"),
    (["--input", "zeros"], "--input", "allowed: ramp, randint, normal"),
    (["--format", "pdf"], "--format", "allowed: md, html, ipynb, json, npz"),
    (["--attn-ratio", "0.1"], "--attn-ratio", "allowed: a ratio >= 0.5"),
    (["--attn-ratio", "-1"], "--attn-ratio", "> 0"),
    (["--h", "0"], "--h", "allowed: an integer from 1"),
    (["--h", "abc"], "--h", "not a valid int"),
    (["--decimals", "99"], "--decimals", "allowed: an integer from 1 to 12"),
    (["--decimals", "0"], "--decimals", "allowed: an integer from 1 to 12"),
    (["--seed", "-1"], "--seed", "allowed: an integer from 0"),
    (["--init-std", "0"], "--init-std", "> 0"),
    (["--h", "100", "--w", "100"], "--h/--w", "at most 4096"),
    (["--bogus"], "--bogus", "No such option"),
]


@pytest.mark.parametrize("args,option,allowed", BAD)
def test_bad_input_is_one_line_naming_the_option(tmp_path, capsys, args, option, allowed):
    target = tmp_path / "note.md"
    code, out, err = run(capsys, "render", *args, "-o", str(target))
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert option in err and allowed in err, err
    assert list(tmp_path.iterdir()) == []  # nothing half-written


def test_unwritable_output_is_one_line(tmp_path, capsys):
    code, _, err = run(capsys, "render", "-o", str(tmp_path / "missing" / "note.md"))
    assert code == 2 and err.count("\n") == 1 and "-o" in err


def test_console_script_has_no_traceback_on_bad_input():
    proc = subprocess.run([sys.executable, "-m", "attnwalk", "render", "--heads", "3"], capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == "attnwalk: error: --heads: got 3, which does not divide --dim 4; allowed: 1, 2, 4\n"


def test_render_path_imports_neither_torch_nor_sympy():
    code = ("import sys, io, contextlib; from attnwalk.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()): main(['render', '--lang', 'en'])\n"
            "print(sorted(m for m in ('torch', 'sympy') if m in sys.modules))")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONSTARTUP"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env).stdout
    assert out.strip() == "[]"


def test_json_is_strict_even_with_minus_inf_mask_fill(capsys):
    code, out, _ = run(capsys, "render", "--format", "json", "--variant", "sdpa", "--tokens", "3", "--mask", "causal",
                       "--mask-fill", "-inf")
    assert code == 0
    data = json.loads(out, parse_constant=lambda c: pytest.fail(f"non-standard JSON constant {c}"))
    masked = np.asarray(data["tensors"]["scores_masked"]["data"], dtype=np.float64)
    assert np.isneginf(masked[0, 0, 0, 1:]).all()
    from attnwalk.trace import Trace

    back = Trace.from_dict(data)
    assert np.isneginf(back["scores_masked"]).sum() == np.isneginf(masked).sum()


def test_version_is_the_installed_distributions(capsys):
    from importlib.metadata import version

    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"attnwalk {version('attnwalk')}\n"
