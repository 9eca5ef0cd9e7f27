"""A coding challenge's test case: ``Input:`` then Q, K and V as matrices on one line, then ``Expected:`` and the
output matrix (heldout17's challenge page: ``[[1,2],[3,4]] [[5,6],[7,8]] [[9,10],[11,12]]Expected:`` /
``[[2.5,3.5],[6.5,7.5]]Test Case 2``, the words run on to the matrices). The case whose three inputs are the
scenario's Q, K and V, cell for cell, is the scenario's: its inputs are judged as Q, K, V and its expected matrix as
the output. Another case (other inputs) is another example and is not read. The words are
``notation.TEST_CASE_INPUT_WORDS`` and ``TEST_CASE_OUTPUT_WORDS``."""

from __future__ import annotations

import re

import numpy as np

from ..notation import TEST_CASE_INPUT_WORDS, TEST_CASE_OUTPUT_WORDS


def _words(words) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


_MATRIX = r"\[\s*\[[^\[\]]*\](?:[\s,]*\[[^\[\]]*\])*\s*\]"  # (one class between rows: no backtracking)
_CASE = re.compile(r"(?<![\w])(?:" + _words(TEST_CASE_INPUT_WORDS) + r")\s*:\s*(?P<inputs>(?:" + _MATRIX +
                   r"[ \t,;]*){3})\s*(?:" + _words(TEST_CASE_OUTPUT_WORDS) + r")\s*:\s*(?P<out>" + _MATRIX + ")",
                   re.I)
_ROW = re.compile(r"\[([^\[\]]*)\]")


def _rows(text: str, start: int, end: int) -> list[list] | None:
    """The rows of the matrix ``text[start:end]`` as cells (number, offset), or None where one is not numbers."""
    from . import human

    rows = []
    for m in _ROW.finditer(text, start, end):
        cells = human._cells(m.group(1).replace(",", " "), m.start(1))
        if not cells:
            return None
        rows.append(cells)
    return rows if rows and len({len(r) for r in rows}) == 1 else None


def challenge_cases(text: str, trace, hits: dict, foreign: list) -> None:
    """Form: a test case's three input matrices and its expected one (see the module), read where no reader judged
    them and where the inputs are the scenario's Q, K, V exactly."""
    if "[[" not in text or ":" not in text:
        return
    from . import human

    for m in _CASE.finditer(text):
        mats = [(a.start(), a.end()) for a in re.finditer(_MATRIX, m.group("inputs"))]
        if len(mats) != 3:
            continue
        base = m.start("inputs")
        inputs = [_rows(text, base + a, base + b) for a, b in mats]
        out = _rows(text, m.start("out"), m.end("out"))
        if any(r is None for r in inputs) or out is None:
            continue
        exps = [human._expected(trace, name, 0) for name in ("q", "k", "v")]
        if any(e is None or e.shape != (len(r), len(r[0])) for e, r in zip(exps, inputs)):
            continue
        if not all(np.array_equal(np.array([[human._value(c.text)[0] for c in row] for row in r]), e)
                   for r, e in zip(inputs, exps)):
            continue  # another case's inputs: another example
        flat = [[c for row in r for c in row] for r in inputs + [out]]  # Q's, K's, V's and the output's cells
        if any(c.start in hits for cells in flat for c in cells):
            continue
        want = human._expected(trace, "out", 0)
        if want is None or want.shape != (len(out), len(out[0])):
            continue
        for name, cells, e in zip(("q", "k", "v", "out"), flat, exps + [want]):
            for c, h in zip(cells, human._judge(cells, e, name, text, gated=False) or []):
                hits[c.start] = h
