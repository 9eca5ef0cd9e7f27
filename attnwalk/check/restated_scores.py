"""Exponentials of scores worked out wrong above: ``- Hello: 0.34×0.53 + 0.22×0.34 + 0.54×0.98 = 0.775`` (found wrong
as arithmetic: 0.784), then ``- exp(0.775) = 2.170`` .. ``- Sum = 9.307`` and ``- Weights: [0.233, 0.401, 0.366]``
(heldout17's skill file).

Where each exponent of a run of ``exp(x) = v`` lines restates, digit for digit, a number found wrong above whose
expected values are, in order, one row of the scores (``notations.score_row_named``), the run is that row worked on
from wrong scores: each exponent is judged as its score cell, each value as the cell's e^ŝ, the sum alone on the line
below as the row's Σ e^ŝ and a list of the weights after it (``notation.WEIGHT_LIST_WORDS``) as that row's softmax,
each by the tensor alone (docs/course.md: the arithmetic of a wrong operand excuses nothing). A run whose printed
exponents already name a score row is ``exponentials.tensor_exponentials``'. Run by ``check._check_text`` after it.
"""

from __future__ import annotations

import re
from bisect import bisect_left

import numpy as np

from ..notation import WEIGHT_LIST_WORDS
from ..numfmt import fmt
from . import human
from .notations import _SUM_LINE, ROW_REACH, _mag, _records_at, exp_terms, rounds_either, score_row_named

_WORDS = "|".join(map(re.escape, sorted(WEIGHT_LIST_WORDS, key=len, reverse=True)))
_WEIGHTS = re.compile(r"[ \t]*(?:[-*+][ \t]+)?(?:\*\*)?(?:" + _WORDS + r")(?:\*\*)?[ \t]*(?::|=)[ \t]*"
                      r"\[(?P<body>[^\[\]\n]*)\][ \t.]*$", re.I | re.M)


def restated_score_exponentials(body: str, trace, recs: list) -> list:
    """The records of the runs the module describes, judged again (a run's numbers left as they are elsewhere)."""
    terms = exp_terms(body)
    if len(terms) < 2:
        return recs
    wrong: dict = {}  # a wrong record's magnitude -> [(its line, the value its failing check expects)], by line
    for rec in recs:
        if rec.status == "wrong":
            expected = next((str(e) for ok, _, e in rec.checks if not ok), "")
            wrong.setdefault(_mag(rec.text), []).append((rec.line, expected))
    if not wrong:
        return recs
    starts = human._line_starts(body)
    record = _records_at(body, recs)
    for run in _runs(body, terms):
        line = human.line_of(body, run[0].start())
        restated = [_restated(wrong.get(_mag(t.group("x")), []), line) for t in run]
        if any(e is None for e in restated):
            continue
        head = human.head_at(body, run[0].start())
        printed = [human.Cell(t.group("x").replace("−", "-").replace("–", "-"), t.start("x")) for t in run]
        named = score_row_named([human.Cell(e, t.start("x")) for e, t in zip(restated, run)], trace, head)
        if named is None or score_row_named(printed, trace, head) is not None:
            continue
        cand, r, cols = named
        row = human._expected(trace, cand, head)[r]
        for t, j in zip(run, cols):
            _fail(record(t.start("x"), _mag(t.group("x"))), float(row[j]), f"{cand}[{r}, {j}]")
            _fail(record(t.start("v"), _mag(t.group("v"))), float(np.exp(row[j])), f"e^{cand}[{r}, {j}]")
        exps = np.exp(row[cols])
        at = _below(body, starts, human.line_of(body, run[-1].start()))
        total = _SUM_LINE.match(body, starts[at]) if at is not None else None
        if total is None:
            continue
        _fail(record(total.start("num")), float(exps.sum()), f"Σ e^{cand}[{r}]")
        attn = human._expected(trace, "attn", head)
        at = _below(body, starts, at + 1)
        weights = _WEIGHTS.match(body, starts[at]) if at is not None else None
        if weights is None or attn is None or attn.ndim != 2 or len(cols) != attn.shape[1] or \
                not np.allclose(exps / exps.sum(), attn[r]):
            continue  # (the weights of another tensor's row: a raw row's softmax where the note scales)
        cells = human._cells(weights.group("body").replace(",", " "), weights.start("body"))
        if cells and len(cells) == len(cols):
            for c, j in zip(cells, cols):
                _fail(record(c.start), float(attn[r][j]), f"attn[{r}, {j}]")
    return recs


def _runs(body: str, terms: list) -> list:
    """``terms`` cut into runs on one line or on consecutive lines, two terms at least."""
    runs, last = [], None
    for t in terms:
        line = human.line_of(body, t.start())
        if runs and last is not None and line - last <= 1:
            runs[-1].append(t)
        else:
            runs.append([t])
        last = line
    return [r for r in runs if len(r) >= 2]


def _restated(found: list, line: int) -> str | None:
    """The expected value of the nearest wrong number above ``line`` (within twice ``ROW_REACH``) in ``found``
    ((line, expected value) by line: found by bisection, a note of many equal wrong numbers stays linear)."""
    k = bisect_left(found, (line,)) - 1
    if k < 0 or found[k][0] < line - 2 * ROW_REACH:
        return None
    return found[k][1] or None


def _below(body: str, starts: list, k: int) -> int | None:
    """The 0-based index of the first line from line index ``k`` on that is not blank, within ``ROW_REACH``."""
    for j in range(k, min(k + ROW_REACH, len(starts))):
        end = starts[j + 1] if j + 1 < len(starts) else len(body)
        if body[starts[j]:end].strip():
            return j
    return None


def _fail(rec, value: float, label: str) -> None:
    """``rec`` judged as ``value`` by the tensor alone: a failing check first (its fix the value at the printed
    digits) where it does not round it; a right one no reader judged gets a passing check."""
    if rec is None:
        return
    _, dec = human._value(rec.text)
    shown = fmt(value, max(dec or 0, 0))
    if rounds_either(rec.text, value, None):
        if not rec.checks and not rec.operand:
            rec.checks = [(True, label, shown)]
        return
    rec.checks, rec.fix = [(False, label, shown)] + rec.checks, (shown, "label")
