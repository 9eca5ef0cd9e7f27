"""Exponentials of printed scores: ``**Row 1:** $\\exp(0)=1.000$, $\\exp(2.828)=16.952$, $\\exp(1.414)=4.114$``.

Where the exponents of one line are, in order, one row of the scores a softmax takes (each the correctly rounded
value of its cell), each exponential is a claim about that cell's e^ŝ too, not only arithmetic of its rounded
operand: the printed value is right when it rounds either (e^√2 = 4.1133 and exp(1.414) = 4.1123 both stand for
4.114's cell), and a value wrong both ways is fixed to the tensor's (e^(2√2) = 16.919, where the printed operand's
exp(2.828) = 16.913). Run by ``check._check_text`` on the records after every reader.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

import numpy as np

from ..notation import EXP_SUM_PHRASES
from ..numfmt import fmt
from . import human
from .expr import MAX_EXPONENT
from .notations import ROW_REACH, _mag, _records_at, exp_rows, exp_terms, rounds_either

_POWER_OF_TEN = re.compile(r"\s*(?:×|\\times|\*|·|⋅|\\cdot)\s*10\b")


# ``2.718 + 1.648 + 1.105 = 5.471``: a sum of printed terms, its total after the relation
_SUM = re.compile(r"(?<![\w.])(?P<terms>\d+(?:\.\d+)?(?:[ \t]*\+[ \t]*\d+(?:\.\d+)?)+)[ \t]*(?:=|≈|\\approx)[ \t]*"
                  r"(?P<total>\d+(?:\.\d+)?)(?![\w]|\.\d)")
_TERM = re.compile(r"\d+(?:\.\d+)?")
# the terms of such a sum alone: every start of ``_SUM`` inside one run of terms shares its end, and its relation
_TERMS = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?:[ \t]*\+[ \t]*\d+(?:\.\d+)?)+")
# ``.., exp(0.4503) = 1.5688, which sum\nto 5.4696``: a phrase saying the sum, no digit and one line end before it
_OPERATOR = re.compile(r"[ \t]*[-+*/×·−]")  # (a number the start of an expression: no total)
_SAID = re.compile(r"[^\d\n]{0,12}(?:\n[^\d\n]{0,12})?(?<![\w])(?:" + "|".join(
    re.escape(p).replace(r"\ ", r"\s+") for p in sorted(EXP_SUM_PHRASES, key=len, reverse=True))
    + r")[ \t]*+\n?[ \t]*+\$?[ \t]*+(?:\*\*)?(?P<total>\d+(?:\.\d+)?)(?![\w]|\.\d)", re.I)


def tensor_exponentials(body: str, trace, recs: list) -> list:
    """The wrong records of the values of ``exp(a) = v`` on a line whose exponents name a row of the scores (two
    exponentials at least: one alone names no place) judged again: right where the value rounds its cell's e^ŝ (the
    operand printed rounded), else wrong with that value as the fix. A right record stays as it is (its operand's
    arithmetic holds, which a reader may check against the rounded operand it prints). A value with no verdict of
    its own (an operand only: ``e^1.0 ≈ 2.718 · e^0.5 ≈ 1.648 · ..``, items parted by a middle dot the expression
    reader takes for a product) is judged the same way, its own arithmetic the other reading. Then the sum below
    that restates the values (``restated_sum``)."""
    rows = list(exp_rows(body, trace)) if exp_terms(body) else []
    if not rows:  # (most notes have no such line, and no record is looked at)
        return recs
    record = _records_at(body, recs)
    for terms, head, cand, r, cols in rows:
        row = human._expected(trace, cand, head)[r]
        values = []  # (printed value, its fix or None, label) of each exponential, in order
        for t, j in zip(terms, cols):
            e, label = float(np.exp(row[j])), f"e^{cand}[{r}, {j}]"
            rec = record(t.start("v"), _mag(t.group("v")))
            if rec is not None:
                _judge(rec, e, label, float(t.group("x").replace("−", "-").replace("–", "-")),
                       _POWER_OF_TEN.match(body, t.end("v")) is not None)
            values.append((t.group("v"), rec.fix[0] if rec is not None and rec.status == "wrong" and rec.fix else None,
                           label))
        restated_sum(body, terms[-1].end(), values, float(np.exp(row[cols]).sum()), f"Σ e^{cand}[{r}]", record)
    return recs


def _judge(rec, e: float, label: str, x: float, mantissa: bool) -> None:
    """``rec``, the value of ``exp(x) = v`` whose cell's e^ŝ is ``e``, judged by ``tensor_exponentials``' rule.
    ``mantissa``: the value is that of ``7.5×10^9``, not the number printed: a record with no verdict is left so."""
    _, dec = human._value(rec.text)
    shown = fmt(e, max(dec, 0))
    if not rec.checks:  # no claim of its own was read: e^x of its printed operand, or its cell's e^ŝ
        if not mantissa and not rounds_either(rec.text, e, math.exp(x) if abs(x) <= MAX_EXPONENT else None):
            rec.checks, rec.fix = [(False, label, shown)], (shown, "label")
        return
    if rec.status != "wrong":
        return
    # (its operand's arithmetic already failed: the record is wrong by the arithmetic reader)
    if rounds_either(rec.text, e, None):
        rec.checks = [(True, lab, exp) for _, lab, exp in rec.checks] + [(True, label, shown)]
        rec.fix = None
    else:
        rec.checks = [(False, label, shown)] + rec.checks  # the report's expected value is the one --fix writes
        rec.fix = (shown, "label")


def restated_sum(body: str, end: int, values: list, total: float, label: str, record) -> None:
    """The sum of a row of exponentials ending at ``end``: ``.., exp(0.4503) = 1.5688, which sum to 5.4696`` (a phrase
    of ``notation.EXP_SUM_PHRASES`` right after the row, no number between), or ``2.718 + 1.648 + 1.105 + 0.607 + 1.350
    = 7.419`` on the first line below the row (within ``ROW_REACH``) whose terms restate its values, in order, digit for
    digit (every such sum of that line): each term is right or wrong as the value it restates (and fixed the same).
    The total is the row's sum of e^ŝ, right where it rounds that or the arithmetic of right terms (the convention on
    results of printed arithmetic), else fixed to the row's sum (the sum's arithmetic reader alone would fix it to the
    terms as printed, a wrong one among them)."""
    printed = [_mag(v) for v, _, _ in values]
    said = _SAID.match(body, end)
    if said is not None:
        after = said.start("total")
        line = body[after:body.find("\n", after) % (len(body) + 1)]
        m = _SUM.match(line)  # ``which sum to 2.028+1.000+1.640=4.668``: the sum written out after the phrase
        if m is None and not _OPERATOR.match(body, said.end()):
            _judge_total(record(after), total, label, printed, values)
        if m is None:
            return
        candidates = [(after, line)]
    else:
        at = end + len(body[end:].split("\n", 1)[0]) + 1
        candidates = []
        for line in body[end:].split("\n", ROW_REACH + 1)[1:ROW_REACH + 1]:
            candidates.append((at, line))
            at += len(line) + 1
    for at, line in candidates:
        # every such sum of the line: a GitBook export prints each formula three times (rendered, source, rendered)
        found = [m for m in _sums(line) if _TERM.findall(m.group("terms")) == printed]
        for m in found:
            base = at + m.start("terms")
            for t, (_, fixed, lab) in zip(_TERM.finditer(m.group("terms")), values):
                rec = record(base + t.start())
                if fixed is not None and rec is not None and rec.fix != (fixed, "label"):
                    rec.checks, rec.fix = [(False, lab, fixed)] + rec.checks, (fixed, "label")
            _judge_total(record(at + m.start("total")), total, label, printed, values)
        if found:
            return


def _sums(line: str):
    """``_SUM.finditer(line)``, each run of terms tried once: where its first start finds no relation after the run,
    no later start inside it does (each term's end is forced, so all end where the run ends), and ``finditer`` tried
    them all (``1 + 1 + .. + 1`` with no total: quadratic in the terms)."""
    at = 0
    while (run := _TERMS.search(line, at)) is not None:
        m = _SUM.match(line, run.start())
        if m is not None:
            yield m
        at = m.end() if m is not None else run.end()


def _judge_total(rec, total: float, label: str, printed: list, values: list) -> None:
    """``rec``, a row's printed sum of exponentials, judged as ``restated_sum`` says."""
    if rec is None:
        return
    right = all(f is None for _, f, _ in values)
    _, dec = human._value(rec.text)
    shown = fmt(total, max(dec, 0))
    if rounds_either(rec.text, total, float(sum(map(Fraction, printed))) if right else None):
        if rec.status == "wrong":  # (the arithmetic of the printed terms failed: the row's sum holds)
            rec.checks, rec.fix = [(True, lab, exp) for _, lab, exp in rec.checks] + [(True, label, shown)], None
        return
    rec.checks, rec.fix = [(False, label, shown)] + rec.checks, (shown, "label")
