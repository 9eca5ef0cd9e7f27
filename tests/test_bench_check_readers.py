"""benchmarks/run.py's accounting of a check by reader (issue 12, part 4, eleventh round): ``numbers_by_reader``
counts every record of a check once, by the reader that made it, and ``block_path_bound`` (a check with its plain
matrices decided at no cost) gives the real check's verdicts and leaves the Checker as it found it. No timing is
asserted: the bound's figures are the benchmark's to print."""

from __future__ import annotations

import importlib.util
import re
from functools import cache
from pathlib import Path

import pytest

from attnwalk.api import walk
from attnwalk.check import check_text, checker
from attnwalk.render import render


@cache
def bench():
    """benchmarks/run.py, loaded by path (the folder is no package)."""
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "run.py"
    spec = importlib.util.spec_from_file_location("run_bench", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@cache
def note(planted: bool) -> str:
    """The benchmark's kind of note (yolo 4x4, 16x16 matrices, a smaller config for speed); ``planted``: the last
    digit of the first cell of every plain matrix of 4 decimals changed (a wrong number in each)."""
    t = walk(h=3, w=3, heads=2, dim=4, seed=42, input="normal")
    text = render(t, "md", t.config["lang"])
    if not planted:
        return text

    def plant(m: re.Match) -> str:
        cell = m.group(2)
        return m.group(1) + cell[:-1] + str((int(cell[-1]) + 3) % 10)
    return re.sub(r"(\\begin\{bmatrix\}\n-?)(\d+\.\d{4})(?= &)", plant, text)


def bmatrix_numbers(text: str) -> int:
    """The numbers printed inside the note's \\begin{bmatrix}..\\end{bmatrix} bodies (counted from the text)."""
    bodies = re.findall(r"\\begin\{bmatrix\}(.*?)\\end\{bmatrix\}", text, re.S)
    return sum(len(re.findall(r"\d+(?:\.\d+)?", b)) for b in bodies)


@pytest.mark.parametrize("planted", [False, True])
def test_every_record_counted_once(planted):
    text = note(planted)
    report = check_text(text)
    counts = bench().numbers_by_reader(text)
    assert "elsewhere in the Checker" not in counts  # every record of the Checker made by a reader it names
    assert sum(n for n, _ in counts.values()) == len(report.recs)  # each once: none counted by two readers
    assert sum(v for _, v in counts.values()) == len(report.verified)
    made, verified = counts["plain matrices"]
    # the plain matrices' records are cells of the note's matrices, most of them (a matrix no label names,
    # or with fewer than BULK_MIN cells, is read elsewhere)
    assert 0.5 * bmatrix_numbers(text) < made <= bmatrix_numbers(text)
    if planted:
        assert report.wrong and made - verified == len(report.wrong)  # each planted cell is a plain matrix's
    else:
        assert not report.wrong and made == verified


@pytest.mark.parametrize("planted", [False, True])
def test_block_path_bound_keeps_verdicts_and_restores_the_checker(planted):
    text = note(planted)
    before = [(r.line, r.text, r.status) for r in check_text(text).recs]
    assert ("wrong" in {s for _, _, s in before}) is planted
    saved = checker.Checker._check_plain, checker.Checker._flush_plain, checker.Checker.run
    real, free = bench().block_path_bound(text, 1)  # asserts the free check's verdicts are the real one's
    assert real > 0 and free > 0
    assert (checker.Checker._check_plain, checker.Checker._flush_plain, checker.Checker.run) == saved
    assert [(r.line, r.text, r.status) for r in check_text(text).recs] == before
