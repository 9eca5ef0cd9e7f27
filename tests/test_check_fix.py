"""check --fix / --diff, --format and several files (issue 8)."""

import json
import math
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from attnwalk.check import check_file
from attnwalk.cli import app
from attnwalk.scenario import load_scenario

ROOT = Path(__file__).resolve().parent.parent
SEED000 = ROOT / "examples/handwritten/000_1990ceb7e4aac7cb.md"
SEED004 = ROOT / "examples/handwritten/004_2311b208f99d33c7.md"
OPTS000 = ["--h", "3", "--w", "3", "--heads", "2", "--seed", "42", "--pe-on", "o"]
NUM = re.compile(r"[-−]?\d+(?:\.\d+)?")


def run(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def only_numbers_changed(before: str, after: str) -> bool:
    a, b = before.split("\n"), after.split("\n")
    return len(a) == len(b) and all(NUM.sub("#", x) == NUM.sub("#", y) for x, y in zip(a, b))


def test_fix_seed000_leaves_nothing_wrong_and_changes_only_numbers(tmp_path):
    note = tmp_path / "000.md"
    shutil.copy(SEED000, note)
    before = note.read_text(encoding="utf-8")
    opts = dict(h=3, w=3, heads=2, seed=42, pe_on="o")
    assert len(check_file(note, opts).wrong) > 100  # the seed's published errors
    res = run("check", note, *OPTS000, "--fix")
    after = note.read_text(encoding="utf-8")
    assert res.exit_code == 0, res.output
    assert check_file(note, opts).wrong == []
    assert after != before and only_numbers_changed(before, after)


def test_fix_seed004_changes_only_numbers_and_fixes_the_alphas(tmp_path):
    note = tmp_path / "004.md"
    shutil.copy(SEED004, note)
    before = note.read_text(encoding="utf-8")
    opts = load_scenario(ROOT / "examples/scenarios/hand-2x2.toml")
    n_before = len(check_file(note, opts).wrong)
    run("check", note, "--scenario", ROOT / "examples/scenarios/hand-2x2.toml", "--fix")
    after = note.read_text(encoding="utf-8")
    assert n_before > 40  # the seed's published errors (α off in the 4th decimal, and what follows)
    assert only_numbers_changed(before, after)
    assert "0.134471" in after and "α(p0→p0)" in after
    assert check_file(note, opts).wrong == []
    # the worked output sums now use the right weights, products and results (checked against torch
    # in test_check_sums): out_c2 = α00·1 + α01·0 + α02·1 + α03·0 with α00 = α02 = 1/(2 + 2e)
    a00 = 1 / (2 + 2 * math.e)
    line = f"- out_c2 = {a00:.6f}·1 + {0.5 - a00:.6f}·0 + {a00:.6f}·1 + {0.5 - a00:.6f}·0  "
    assert line in after.split("\n")
    assert f"  = {a00:.6f} + 0 + {a00:.6f} + 0 = **{2 * a00:.6f}**" in after
    assert "2 · (0.134471 + 0.365529 + 0.134471 + 0.365529) = 2 · 1 = **2.000000**" in after


def test_diff_writes_nothing_and_shows_the_fixes(tmp_path):
    note = tmp_path / "000.md"
    shutil.copy(SEED000, note)
    before = note.read_bytes()
    res = run("check", note, *OPTS000, "--diff")
    assert note.read_bytes() == before
    assert res.exit_code == 1
    assert "--- a/" in res.output and re.search(r"^\+.*\d", res.output, re.M)


def test_formats_and_worst_status_over_several_files(tmp_path):
    bad = tmp_path / "bad.md"
    bad.write_bytes(b"\xff\xfe not utf-8")
    note = tmp_path / "000.md"
    shutil.copy(SEED000, note)
    missing = tmp_path / "missing.md"
    res = run("check", bad, note, missing, *OPTS000, "--format", "github")
    assert res.exit_code == 2  # the worst: files that could not be checked
    assert f"::error file={note},line=" in res.output
    assert "not UTF-8" in res.output and "cannot read" in res.output
    res = run("check", note, *OPTS000, "--format", "json")
    data = json.loads(res.output)
    entry = data["files"][0]
    assert res.exit_code == 1 and entry["wrong"] == len(entry["failures"]) > 100
    assert {"line", "label", "published", "expected"} <= set(entry["failures"][0])


@pytest.mark.parametrize("args", [["--format", "xml"], ["--fix", "--diff"]])
def test_bad_check_options_are_one_line(tmp_path, args):
    note = tmp_path / "n.md"
    note.write_text("x\n")
    res = run("check", note, *OPTS000, *args)
    assert res.exit_code == 2
    assert res.output.strip().startswith("attnwalk: error: --") and "allowed:" in res.output
