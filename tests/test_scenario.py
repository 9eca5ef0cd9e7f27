"""Scenario files: loading, the shipped examples, flags overriding them, bad files (one line, exit 2)."""

import json
from pathlib import Path

import numpy as np
import pytest

from attnwalk.cli import main
from attnwalk.errors import ConfigError
from attnwalk.scenario import load_scenario

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples" / "scenarios").glob("*.toml"))


def run(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_four_scenarios_ship():
    names = {p.name for p in EXAMPLES}
    assert {"hand-2x2.toml", "toi-di-hoc-causal.toml", "mha-seed-002.toml", "cross-attention.toml"} <= names


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_every_shipped_scenario_renders(capsys, path):
    code, out, err = run(capsys, "render", "--scenario", path)
    assert code == 0 and err == "", err
    assert out.startswith("---\n") and "```python" in out


def test_hand_2x2_shows_exact_weights_and_outputs(capsys):
    code, out, _ = run(capsys, "render", "--scenario", ROOT / "examples/scenarios/hand-2x2.toml")
    assert code == 0
    assert r"α(p0→p0) = $\frac{1}{2 + 2 e}$ ≈ 0.134471" in out
    assert r"α(p3→p1) = $\frac{e^{4}}{2 + 2 e^{4}}$ ≈ 0.491007" in out
    assert "| Out(p0) | 0.268941 | 2.000000 |" in out and "| Out(p3) | 0.017986 | 2.000000 |" in out
    assert "0.134366" not in out  # seed 004's misprint


def test_flags_override_the_scenario(capsys):
    path = ROOT / "examples/scenarios/hand-2x2.toml"
    code, out, _ = run(capsys, "render", "--scenario", path, "--lang", "en", "--decimals", "3", "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["config"]["lang"] == "en" and data["config"]["decimals"] == 3
    assert data["config"]["x"] == [[1, 0, 1, 2], [2, 1, 0, 2], [3, 0, 1, 2], [4, 1, 0, 2]]
    np.testing.assert_allclose(np.array(data["tensors"]["attn"]["data"])[0, 0, 0, 0], 1 / (2 + 2 * np.e), rtol=1e-15)
    code, out, _ = run(capsys, "render", "--scenario", path, "--lang", "en")
    assert "# Scaled dot-product attention — a worked example" in out
    assert "α(p0→p0) = $\\frac{1}{2 + 2 e}$ ≈ 0.134471" in out
    code, out, _ = run(capsys, "render", "--scenario", ROOT / "examples/scenarios/toi-di-hoc-causal.toml",
                       "--mask-fill", "-inf", "--format", "json")
    assert json.loads(out)["config"]["mask_fill"] == "-inf"


def test_load_scenario_returns_the_options(tmp_path):
    p = tmp_path / "s.toml"
    p.write_text('variant = "sdpa"\nkv-tokens = 5\nmask = "padding:2"\nmask_fill = -1e9\n', encoding="utf-8")
    assert load_scenario(p) == {"variant": "sdpa", "kv_tokens": 5, "mask": "padding:2", "mask_fill": -1e9}
    p.write_text('variant = "sdpa"\nmask_fill = -inf\n', encoding="utf-8")
    assert load_scenario(p)["mask_fill"] == float("-inf")


BAD = [
    ('variant = "sdpa"\ncolour = 3\n', "unknown key 'colour'; allowed: variant"),
    ('variant = "sdpa"\nmask = "future"\n', "key mask: got 'future'; allowed: none, causal, padding:K"),
    ('variant = "sdpa"\nmask_fill = -5\n', "key mask_fill: got -5; allowed: -inf, -1e9, -10000"),
    ('variant = "sdpa"\nq = [[1, 2], [3]]\n', "q: row 1 has 1 values, row 0 has 2"),
    ('variant = "sdpa"\nsource = "columns"\nx = [[1, 2, 3]]\nq_cols = [7]\n', "q_cols: got [7]; allowed"),
    ('variant = "sdpa"\nh = 3\n', "key h: h applies to --variant yolo only, not sdpa"),
    ('variant = "transformer"\n', "key variant: got 'transformer'; allowed: yolo, sdpa, mha"),
    ('variant = "sdpa"\nheads = [1\n', "not valid TOML"),
    ('[inputs]\nx = 1\n', "unknown key 'inputs'"),
]


@pytest.mark.parametrize("text,message", BAD)
def test_bad_scenario_is_one_line_naming_the_key(tmp_path, capsys, text, message):
    p = tmp_path / "bad.toml"
    p.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load_scenario(p)
    assert err.value.option == "--scenario" and message in str(err.value), str(err.value)
    code, out, err_text = run(capsys, "render", "--scenario", p)
    assert code == 2 and out == ""
    assert err_text.count("\n") == 1 and "Traceback" not in err_text and "--scenario: bad.toml: " in err_text
    assert message in err_text


def test_missing_scenario_file(capsys, tmp_path):
    code, out, err = run(capsys, "render", "--scenario", tmp_path / "nope.toml")
    assert code == 2 and out == "" and err.count("\n") == 1 and "--scenario: cannot read" in err


def test_flag_contradicting_a_table_is_one_line(capsys):
    code, out, err = run(capsys, "render", "--scenario", ROOT / "examples/scenarios/hand-2x2.toml", "--tokens", "3")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "--tokens: got 3 but table x has 4 rows; allowed: 4" in err


@pytest.mark.parametrize("args,needle", [
    (["--variant", "sdpa", "--mask", "diagonal"], "--mask: got 'diagonal'"),
    (["--variant", "sdpa", "--mask-fill", "-1"], "--mask-fill: got '-1'; allowed: -inf, -1e9, -10000"),
    (["--variant", "sdpa", "--tokens", "0"], "--tokens: got 0; allowed: an integer from 1"),
    (["--variant", "mha", "--kv-tokens", "4"], "--kv-tokens: kv_tokens applies to --variant sdpa only, not mha"),
    (["--variant", "sdpa", "--pe-on", "o"], "--pe-on: pe_on applies to --variant yolo only, not sdpa"),
    (["--mask", "causal"], "--mask: mask applies to --variant sdpa | mha only, not yolo"),
    (["--variant", "mha", "--dim", "6", "--heads", "4"], "--heads: got 4, which does not divide"),
])
def test_bad_sequence_flags_exit_2_with_one_line(capsys, args, needle):
    code, out, err = run(capsys, "render", *args)
    assert code == 2 and out == "" and err.count("\n") == 1 and needle in err, err


@pytest.mark.parametrize("args", [
    ["--variant", "sdpa", "--tokens", "4", "--mask", "causal", "--mask-fill", "-1e9", "--seed", "3"],
    ["--variant", "sdpa", "--source", "project", "--tokens", "3", "--kv-tokens", "2", "--init-std", "0.5"],
    ["--variant", "sdpa", "--source", "columns", "--dim", "5", "--heads", "1", "--lang", "en"],
    ["--variant", "mha", "--tokens", "3", "--dim", "6", "--heads", "3", "--mask", "padding:1", "--input", "normal"],
])
def test_the_command_printed_in_a_note_reproduces_it(capsys, args):
    code, out, _ = run(capsys, "render", *args)
    assert code == 0
    command = next(line for line in out.splitlines() if line.startswith("> attnwalk render"))[2:]
    code, again, _ = run(capsys, *command.split()[1:])
    assert code == 0 and again == out
