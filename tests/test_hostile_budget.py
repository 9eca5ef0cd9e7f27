"""The memory guard: a walkthrough's memory is estimated from its config alone, refused before
anything is allocated when over the budget (--max-memory, ATTNWALK_MAX_MEMORY) or over what the
process can have, and the estimate is close to the real peak (tracemalloc counts NumPy's buffers)."""

from __future__ import annotations

import json
import re

import pytest
from hostile import assert_clean, assert_untouched, run_cli, run_python, snapshot

from attnwalk.budget import estimate, human
from attnwalk.config import make_config

# Medium walkthroughs: tens to hundreds of MB, a few seconds each.
MEDIUM = [
    dict(h=32, w=32, dim=32, heads=4),
    dict(h=24, w=24, dim=16, heads=4, batch=2),
    dict(variant="sdpa", tokens=512, kv_tokens=700, dim=32, heads=4, mask="causal"),
    dict(variant="mha", tokens=600, dim=64, heads=8),
]

PEAK = """
import json, sys, tracemalloc
from attnwalk.api import walk
from attnwalk.render import export, render
opts, fmt, out = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3]
tracemalloc.start()
trace = walk(**opts)
if fmt == "md":
    render(trace, "md", "en")
else:
    export(trace, fmt, out)
print(tracemalloc.get_traced_memory()[1])
"""


@pytest.mark.parametrize("fmt", ["md", "json"])
@pytest.mark.parametrize("opts", MEDIUM, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_estimate_is_close_to_the_real_peak(tmp_path, opts, fmt):
    """The estimate covers the peak of computing and writing the walkthrough (an estimate below it
    would let the engine exceed the budget) and is not more than twice it (a guard that refuses
    what would fit is no better)."""
    code = PEAK.replace("sys.argv[1]", repr(json.dumps(opts))).replace("sys.argv[2]", repr(fmt)).replace(
        "sys.argv[3]", repr(str(tmp_path / f"out.{fmt}")))
    answer = run_python(code, timeout=300)
    assert answer.code == 0, answer.err
    peak = int(answer.out)
    need = estimate(make_config(**opts), fmt)
    assert peak <= 1.1 * need, (human(peak), human(need))
    assert need <= 2 * peak, (human(peak), human(need))


BIG = ["--h", "64", "--w", "64", "--dim", "64", "--heads", "16"]  # about 13 GiB


@pytest.mark.parametrize("command", ["render", "crosscheck"])
def test_refusal_names_the_estimate_and_allocates_nothing(tmp_path, command):
    """Under an address-space limit far below the request, the line still comes (nothing was
    allocated) and holds the estimate, the budget and the largest tensor."""
    if command == "crosscheck":
        pytest.importorskip("torch", reason="crosscheck needs torch (installed by .ci/run)")
    before = snapshot(tmp_path)
    answer = run_cli([command, *BIG, *(["-o", "n.md"] if command == "render" else [])], cwd=tmp_path,
                     memory=(12 if command == "crosscheck" else 1) * 2**30)
    line = assert_clean(answer, "--max-memory")
    cfg = make_config(h=64, w=64, dim=64, heads=16)
    need = estimate(cfg, crosscheck=command == "crosscheck")
    assert f"needs about {human(need)}" in line
    assert "at most 2 GiB" in line and "scores alone is 1 x 16 x 4096 x 4096" in line
    assert_untouched(tmp_path, before)


def test_budget_above_what_the_process_may_have_is_refused_up_front(tmp_path):
    """--max-memory 1T does not let a 13 GiB walkthrough start in a 1 GiB process: it would die
    half-way (MemoryError) or be killed by the kernel without a word."""
    answer = run_cli(["render", *BIG, "--max-memory", "1T", "-o", "n.md"], cwd=tmp_path, memory=2**30)
    line = assert_clean(answer, "--max-memory")
    assert "ulimit -v" in line and f"needs about {human(estimate(make_config(h=64, w=64, dim=64, heads=16)))}" in line
    assert list(tmp_path.iterdir()) == []


def test_out_of_memory_within_the_budget_is_one_line(monkeypatch, capsys, tmp_path):
    """Other jobs can take the memory the budget counted on: MemoryError is one line, exit 2, no file."""
    import attnwalk.api
    from attnwalk.cli import main

    def starved(**_):
        raise MemoryError

    monkeypatch.setattr(attnwalk.api, "walk", starved)
    code = main(["render", "-o", str(tmp_path / "n.md")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and err.startswith("attnwalk: error: --max-memory: out of memory")
    assert "allowed:" in err and list(tmp_path.iterdir()) == []


SMALL_BUT_OVER = dict(h=16, w=16, dim=8, heads=4)  # about 4 MiB: over a 1M budget


def test_environment_budget_applies_to_every_command(tmp_path, monkeypatch):
    need = human(estimate(make_config(**SMALL_BUT_OVER)))
    monkeypatch.setenv("ATTNWALK_MAX_MEMORY", "1M")
    note = tmp_path / "n.md"
    note.write_text("---\nconfig: " + json.dumps({"variant": "yolo", **SMALL_BUT_OVER}) + "\n---\n\n1.0\n")
    (tmp_path / "course.toml").write_text('[[walkthrough]]\nname = "a"\noptions = { h = 16, w = 16, dim = 8, '
                                          'heads = 4 }\noutput = "{name}.md"\n')
    before = snapshot(tmp_path)
    for args in (["render", "--h", "16", "--w", "16", "--dim", "8", "--heads", "4"], ["check", "n.md"],
                 ["build", "course.toml"]):
        line = assert_clean(run_cli(args, cwd=tmp_path), "--max-memory")
        assert f"needs about {need}" in line and "at most 1 MiB" in line
    assert_untouched(tmp_path, before)
    # the option wins over the environment
    answer = run_cli(["render", "--h", "16", "--w", "16", "--dim", "8", "--heads", "4", "--max-memory", "64M"],
                     cwd=tmp_path)
    assert answer.code == 0, answer.err


@pytest.mark.parametrize("value", ["1", "lots", "-1G", "1e9", "2P", "nan", " "])
def test_bad_environment_budget_is_named(tmp_path, monkeypatch, value):
    monkeypatch.setenv("ATTNWALK_MAX_MEMORY", value)
    line = assert_clean(run_cli(["render", "--h", "2", "--w", "2"], cwd=tmp_path), "ATTNWALK_MAX_MEMORY")
    assert re.search(r"allowed: a size such as 512M", line)


def test_empty_environment_budget_is_the_default(tmp_path, monkeypatch):
    monkeypatch.setenv("ATTNWALK_MAX_MEMORY", "")
    assert run_cli(["render", "--h", "2", "--w", "2"], cwd=tmp_path).code == 0
