"""√d_k forgotten in one row: ``e^1 ≈ 2,7183; e^2 ≈ 7,3891; e^3 ≈ 20,0855`` where the softmax takes that row of the
scores divided by √d_k (``[0,7071; 1,4142; 2,1213]``). The exponents print a row of the raw scores QKᵀ and no row of
the scaled ones: each is a claim about the scaled score of its place (wrong where it does not round it) and its
exponential one about e^ŝ (wrong where its exponent is), not only arithmetic of the printed exponent, which the reader
verified. Lines that show the unscaled softmax on purpose (``notation.UNSCALED_WORDS`` on the line or the two above)
are left as they are (heldout13's Vietnamese forum answer).
"""

from __future__ import annotations

import re
from bisect import bisect_right

import numpy as np

from ..notation import UNSCALED_WORDS
from ..numfmt import fmt
from . import human
from .notations import _EXP_TERM, _records_at


def _prints_a_row(cells: list, mat) -> bool:
    """Whether ``cells`` print, in order, the finite cells of a row of ``mat``, each within its rounding."""
    if mat is None or mat.ndim != 2:
        return False
    for row in mat:
        finite = row[np.isfinite(row) & (np.abs(row) < 1e4)]
        if len(finite) == len(cells) and all(human._near(*human._value(c.text), float(e), 0.0)
                                             for c, e in zip(cells, finite)):
            return True
    return False


_ANY_NUMBER = re.compile(r"(?<![\w.])[-−–]?\d+(?:\.\d+)?(?![\w.]\d|\d)")


def _exponent_record(body: str, slots: dict, pos: int, text: str):
    """The record of the exponent printed at ``pos`` (after ``^``, where ``human._numbers`` reads none): the k-th
    record of its line and text (``slots``: the records by line and text), k its occurrences before it on the line
    (or the k-th operand record, k its exponents before it); None where the records do not pair with the occurrences
    so."""
    starts = human._line_starts(body)
    line = bisect_right(starts, pos)  # (1-based: the number of line starts at or before pos)
    ls, le = starts[line - 1], body.find("\n", pos)
    seen = [m.start() for m in _ANY_NUMBER.finditer(body, ls, len(body) if le < 0 else le) if m.group() == text]
    slot = slots.get((line, text), [])
    if pos in seen and len(slot) == len(seen):
        return slot[seen.index(pos)]
    # (a label's number on the line, ``Hàng 3``, is recorded after the reader's own: the exponents alone, each an
    # operand of its exponential)
    exponents = [p for p in seen if body[p - 1] in "^{("]
    operands = [r for r in slot if r.operand]
    return operands[exponents.index(pos)] if pos in exponents and len(operands) == len(exponents) else None


def _raw_row(cells: list, trace, head: int) -> int | None:
    """The one row of the raw scores whose finite cells ``cells`` print in order, each within its rounding."""
    mat = human._expected(trace, "scores", head)
    if mat is None or mat.ndim != 2:
        return None
    rows = [r for r in range(mat.shape[0]) if len(cells) == mat.shape[1]
            and all(human._near(*human._value(c.text), float(mat[r, j]), 0.0) for j, c in enumerate(cells))]
    return rows[0] if len(rows) == 1 else None


def unscaled_exponentials(body: str, trace, recs: list) -> list:
    """The records of the exponents and exponentials of each line of two ``e^x = v`` at least whose exponents are a
    raw score row but no row the softmax takes: a failing check (the scaled score, e^ŝ) on each that does not round
    its value, with that value as its fix. Run by ``check._check_text`` after the other passes."""
    scale = trace.derived.get("scale")
    if scale is None or float(scale) == 1.0 or _EXP_TERM.search(body) is None:
        return recs
    by_line: dict[int, list] = {}
    for m in _EXP_TERM.finditer(body):
        by_line.setdefault(body.rfind("\n", 0, m.start()) + 1, []).append(m)
    record = slots = None
    for start, terms in by_line.items():
        if len(terms) < 2:
            continue
        above = body.rfind("\n", 0, max(body.rfind("\n", 0, max(start - 1, 0)), 0)) + 1
        context = body[above:body.find("\n", terms[-1].end()) % (len(body) + 1)].lower()
        if any(w in context for w in UNSCALED_WORDS):
            continue
        cells = [human.Cell(t.group("x").replace("−", "-").replace("–", "-"), t.start("x")) for t in terms]
        head = human.head_at(body, terms[0].start())
        if any(_prints_a_row(cells, human._expected(trace, cand, head)) for cand in ("scores_scaled", "scores_masked")):
            continue  # the exponents print a row the softmax takes
        r = _raw_row(cells, trace, head)
        scaled = human._expected(trace, "scores_masked" if "scores_masked" in trace.steps else "scores_scaled", head)
        if r is None or scaled is None or scaled.ndim != 2:
            continue
        if record is None:  # (once a note: each exponent's record looked up by its line and text)
            record, slots = _records_at(body, recs), {}
            for rec in recs:
                slots.setdefault((rec.line, rec.text), []).append(rec)
        for j, t in enumerate(terms):
            s = float(scaled[r, j])
            if not np.isfinite(s):
                continue
            x, v = _exponent_record(body, slots, t.start("x"), t.group("x")), record(t.start("v"))
            if human._near(*human._value(t.group("x")), s, 0.0):
                continue  # the exponent rounds its scaled score: its exponential is arithmetic of a right operand
            # no fix: ŝ at the exponent's own precision (``e^1`` for 1.4142) would make the line arithmetic of another
            # exponent, and e^ŝ beside an unchanged exponent false arithmetic; the line is left to its author
            _, dec = human._value(t.group("x"))
            if x is not None:  # (None: its record not told apart from a label's number of the line)
                x.checks = [(False, f"scores_scaled[{r}, {j}]", fmt(s, max(dec, 0)))] + x.checks
            if v is not None and not human._near(*human._value(v.text), float(np.exp(s)), 0.0):
                _, dec = human._value(v.text)
                v.checks = [(False, f"e^scores_scaled[{r}, {j}]", fmt(float(np.exp(s)), max(dec, 0)))] + v.checks
    return recs
