"""Rows named by a lower-case letter and a token's subscript, written as tuples: ``$z_1 = (0.6943, 0.9257)$``,
``z_{3} ≈ (0.4965, 0.7517)``, or as a listing's ``z2 = [0.7259, 0.5481]`` (the letters of
``notation.TUPLE_ROW_SYMBOLS``). An exam's final answer lists its outputs so (heldout14's vi exam solution, and the
AsciiDoc page's listing); no reader took such a tuple for a row. Judged only where most of the note's such numbers agree
with the tensor, so that a letter the note uses for something else is left unread."""

from __future__ import annotations

import re

from ..notation import TUPLE_ROW_SYMBOLS
from .human import symbol_at_word_start
from .indices import index_int

_ROW = re.compile(symbol_at_word_start(TUPLE_ROW_SYMBOLS)
                  + r"(?:_\{?(?P<i>\d{1,2})\}?|(?P<j>\d))\$?[ \t]*(?:=|≈|\\approx)[ \t]*\$?[ \t]*"
                  r"(?:\((?P<body>[^()\n]*)\)|\[(?P<list>[^\[\]\n]*)\])")


def tuple_rows(text: str, trace, hits: dict, foreign: list) -> None:
    """Form: each ``z_i = (..)`` judged as row i of the letter's tensor (1-based; 0-based where a ``z_0`` is printed),
    where no reader judged its numbers and most of all such numbers agree."""
    found = list(_ROW.finditer(text))
    if not found:
        return
    from .human import _cells, _expected, _judge, head_at

    first = 0 if any((m.group("i") or m.group("j")) == "0" for m in found) else 1
    judged, agree, seen = [], 0, 0  # the verdicts to write; of all such numbers (judged by others too), those right
    for m in found:
        body = "body" if m.group("body") is not None else "list"
        cells = _cells(m.group(body).replace(",", " ").replace(";", " "), m.start(body))
        if cells and all(c.start in hits for c in cells):  # a row another reader judged: evidence for the letter
            agree, seen = agree + sum(bool(getattr(hits[c.start], "ok", False)) for c in cells), seen + len(cells)
            continue
        exp = _expected(trace, TUPLE_ROW_SYMBOLS[m.group("sym")], head_at(text, m.start()))
        row = index_int(m.group("i") or m.group("j")) - first
        if not cells or any(c.start in hits for c in cells) or exp is None or exp.ndim != 2 or \
                not 0 <= row < exp.shape[0] or exp.shape[1] != len(cells):
            continue
        res = _judge(cells, exp[row], f"{TUPLE_ROW_SYMBOLS[m.group('sym')]}[{row}]", text, gated=False) or []
        judged += list(zip(cells, res))
        agree, seen = agree + sum(h.ok for h in res), seen + len(res)
    if judged and 2 * agree > seen:
        for c, h in judged:
            hits[c.start] = h
