"""One token's steps of softmax listed on one line after its number, each under its term: ``Head 2, token 1: e^s =
1.0000 and 2.7183, sum 3.7183, weights 0.2689 and 0.7311`` (heldout14's Anki cards; ``notation.STEP_LIST_TERMS``).
Each list is that token's row of its step (e^s of the scaled scores, their sum, the weights, ..) in the head of its
place; the row and the step known from the words, it is judged whatever its numbers, as ``numbered_rows`` judges
``Token 3's output is (..)``. A sum that restates the addition of its line's right e^s, off torch's in the last
digit, is left unread (results of printed arithmetic, docs/course.md).
"""

from __future__ import annotations

import re

import numpy as np

from ..notation import NUMBERED_ROW_WORDS, STEP_LIST_ANDS, STEP_LIST_TERMS
from .indices import index_int
from .numbered_rows import row_lines, zero_words

_ALT = "|".join
_NUM = r"[-−–]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?"
_JOIN = r"(?:[ \t]*,[ \t]*(?:(?:" + _ALT(STEP_LIST_ANDS) + r")[ \t]+)?|[ \t]+(?:" + _ALT(STEP_LIST_ANDS) + r")[ \t]+)"
_TERM = {t.lower(): name for name, terms in STEP_LIST_TERMS for t in terms}
_STEP = re.compile(r"(?i)(?<![\w^])(?P<term>" + _ALT(map(re.escape, sorted(_TERM, key=len, reverse=True)))
                   + r")[ \t]*(?:=|:|≈|is|are)?[ \t]*(?P<body>" + _NUM + r"(?:" + _JOIN + _NUM + r")*)(?![\w.])")
_LABEL = {"exp_raw": "e^ŝ", "row_sum_raw": "Σ e^ŝ"}  # as a report names them (no maximum subtracted)
_ROW = re.compile(r"(?i)(?<!\w)(?P<w>" + _ALT(map(re.escape, NUMBERED_ROW_WORDS)) + r")[ \t]+(?P<k>\d+)[ \t]*:")


def _row_values(trace, name: str, head: int, row: int):
    """The row ``row`` of step ``name`` in ``head``: e^s and its sum of the scaled scores themselves (no maximum
    subtracted, as a hand calculation takes them); None where the trace has no such row or masks the scores."""
    from .human import _expected

    if name in ("exp_raw", "row_sum_raw"):
        if "mask" in trace.steps:
            return None
        s = _expected(trace, "scores_scaled", head)
        if s is None or s.ndim != 2 or row >= s.shape[0]:
            return None
        e = np.exp(s[row])
        return e if name == "exp_raw" else np.array([e.sum()])
    a = _expected(trace, name, head)
    if a is None or a.ndim != 2 or row >= a.shape[0]:
        return None
    return a[row]


def step_lists(text: str, trace, hits: dict, foreign: list) -> None:
    """Form: a line ``token N:`` followed by ``TERM numbers`` lists (``_STEP``): each the row N (from 1, or from 0
    where the note names a row 0 with the same word, as ``numbered_rows`` reads it) of its step, in the head of its
    place, where no reader judged it."""
    from .human import lowered

    lines = row_lines(text, lowered(text))  # the lines that name a token by its number (a plain search)
    zeros = zero_words(text, lines) if lines else set()
    for ls, le in lines:
        for rm in _ROW.finditer(text, ls, le):
            nxt = _ROW.search(text, rm.end(), le)  # a second token on the line ends this one's lists
            row = index_int(rm.group("k")) - (rm.group("w").lower() not in zeros)
            _one_token(text, trace, hits, foreign, rm, nxt.start() if nxt else le, row)


def _one_token(text: str, trace, hits: dict, foreign: list, rm: re.Match, end: int, row: int) -> None:
    """The lists after ``token N:`` (``rm``) up to ``end``, judged as row ``row`` of their steps."""
    from . import human
    from .forms import in_any

    head = human.head_at(text, rm.start())
    exps = None  # the line's e^s cells and their verdicts
    for m in _STEP.finditer(text, rm.end(), end):
        name = _TERM[m.group("term").lower()]
        body = re.sub(r"[^\d.eE+\-−–]", " ", m.group("body"))  # the joining words and commas as blanks
        cells = human._cells(body, m.start("body"))
        if row < 0 or not cells or any(c.start in hits for c in cells):
            continue
        exp = _row_values(trace, name, head, row)
        if exp is None or len(exp) != len(cells):
            continue
        res = human._judge(cells, exp, f"{_LABEL.get(name, name)}[{row}]", text, gated=in_any(m.start(), foreign))
        if not res:
            continue
        if name == "exp_raw":
            exps = (cells, res)
        if name == "row_sum_raw" and not res[0].ok and _restates(cells[0], exps):
            continue  # the printed addition of right e^s, off torch's by its rounding
        for c, h in zip(cells, res):
            hits[c.start] = h


def _restates(total, exps) -> bool:
    """Whether the printed sum ``total`` is the sum of the line's printed e^s, every one of them right."""
    from .human import _TEXT, _value

    if exps is None or not all(h.ok for h in exps[1]):
        return False
    v, dec = _value(_TEXT(total))
    s = sum(_value(_TEXT(c))[0] for c in exps[0])
    return abs(v - s) <= 0.5 * 10.0 ** -(dec or 0) + 1e-12
