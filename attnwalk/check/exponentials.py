"""Exponentials of printed scores: ``**Row 1:** $\\exp(0)=1.000$, $\\exp(2.828)=16.952$, $\\exp(1.414)=4.114$``.

Where the exponents of one line are, in order, one row of the scores a softmax takes (each the correctly rounded
value of its cell), each exponential is a claim about that cell's e^ŝ too, not only arithmetic of its rounded
operand: the printed value is right when it rounds either (e^√2 = 4.1133 and exp(1.414) = 4.1123 both stand for
4.114's cell), and a value wrong both ways is fixed to the tensor's (e^(2√2) = 16.919, where the printed operand's
exp(2.828) = 16.913). Run by ``check._check_text`` on the records after every reader.
"""

from __future__ import annotations

import numpy as np

from ..numfmt import fmt
from . import human
from .notations import _any_wrong, _mag, _records_at, exp_rows, exp_terms, rounds_either


def exponential_terms(body: str, trace) -> list[tuple[int, str, float, str]]:
    """(offset, printed value, e^ŝ of its cell, label) of each ``exp(a) = v`` on a line whose exponents name a row
    of the scores (two exponentials at least: one alone names no place)."""
    out = []
    for terms, head, cand, r, cols in exp_rows(body, trace):
        row = human._expected(trace, cand, head)[r]
        for t, j in zip(terms, cols):
            out.append((t.start("v"), t.group("v"), float(np.exp(row[j])), f"e^{cand}[{r}, {j}]"))
    return out


def tensor_exponentials(body: str, trace, recs: list) -> list:
    """The wrong records of ``exponential_terms``'s values judged again: right where the value rounds its cell's
    e^ŝ (the operand printed rounded), else wrong with that value as the fix. A right record stays as it is (its
    operand's arithmetic holds, which a reader may check against the rounded operand it prints)."""
    terms = exponential_terms(body, trace) if exp_terms(body) else []
    if not terms or not _any_wrong(recs):  # (the terms first: most notes have none, and no record is looked at)
        return recs
    record = _records_at(body, recs)
    for pos, printed, e, label in terms:
        rec = record(pos, _mag(printed))
        if rec is None or rec.status != "wrong":
            continue
        _, dec = human._value(rec.text)
        shown = fmt(e, max(dec, 0))
        # (its operand's arithmetic already failed: the record is wrong by the arithmetic reader)
        if rounds_either(rec.text, e, None):
            rec.checks = [(True, lab, exp) for _, lab, exp in rec.checks] + [(True, label, shown)]
            rec.fix = None
        else:
            rec.checks = [(False, label, shown)] + rec.checks  # the report's expected value is the one --fix writes
            rec.fix = (shown, "label")
    return recs
