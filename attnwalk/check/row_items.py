"""List items that each print one row, named by a row symbol and its number: ``- q5: 0, 1.4, 1.4, 2.8, 0`` under a
heading ``### Scaled by 1/√2`` (a query's row of the tensor the heading names), ``- o4 ≈ (0.96, 0.91)`` (token 4's
output). Slides and cheat sheets print rows so (heldout15's reveal.js deck). Numbered from 1 unless an item of the
symbol is numbered 0; the items under one heading are judged together, only where most of their numbers agree."""

from __future__ import annotations

import re
from bisect import bisect_left

from ..notation import ROW_ITEM_OUTPUTS, ROW_ITEM_QUERIES
from .indices import index_int

_NUM = r"[-−]?\d+(?:\.\d+)?"
_ITEM = re.compile(r"^[ \t]*[-*+][ \t]+\$?(?P<sym>[" + "".join(ROW_ITEM_OUTPUTS + ROW_ITEM_QUERIES)
                   + r"])_?\{?(?P<k>\d+)\}?\$?[ \t]*(?::|=|≈|\\approx)[ \t]*\$?[ \t]*[\[(]?(?P<body>" + _NUM
                   + r"(?:[ \t]*,[ \t]*" + _NUM + r")+)[\])]?[ \t]*\$?[ \t]*$", re.M)
_HEADING = re.compile(r"^[ \t]*#{1,6}[ \t]+(?P<title>[^\n]*)$", re.M)
# what the rows of a query may be, named by a heading
_QUERY_ROWS = ("scores", "scores_scaled", "exp", "attn")


def row_items(text: str, trace, hits: dict, foreign: list) -> None:
    """Form: the items of ``_ITEM`` grouped by the heading above them (``human.tensors_of`` of its title for a query's
    rows, the output for ``o``), each item judged as its row (head of its place) where no reader judged it, when more
    than half the group's numbers agree."""
    if "- " not in text and "* " not in text:
        return
    items = list(_ITEM.finditer(text))
    if not items:
        return
    from . import human

    heads = [(m.start(), m.group("title")) for m in _HEADING.finditer(text)]
    starts = [a for a, _ in heads]
    zero = {m.group("sym") for m in items if m.group("k") == "0"}
    groups: dict = {}
    for m in items:
        k = bisect_left(starts, m.start()) - 1  # the last heading above the item (a search: many headings, many items)
        title = heads[k] if k >= 0 else (-1, "")
        groups.setdefault((title, m.group("sym")), []).append(m)
    for ((_, title), sym), ms in groups.items():
        if sym in ROW_ITEM_OUTPUTS:
            name = "out"
        else:
            names = [n for n in human.tensors_of(title) if n in _QUERY_ROWS]
            if not names:
                continue
            name = names[0]
        judged = []
        for m in ms:
            base = m.start("body")
            cells = human._cells(m.group("body").replace(",", " "), base)
            if not cells or any(c.start in hits for c in cells):
                continue
            exp = human._expected(trace, name, human.head_at(text, m.start()))
            row = index_int(m.group("k")) - (sym not in zero)
            if exp is None or exp.ndim != 2 or not 0 <= row < exp.shape[0] or exp.shape[1] != len(cells):
                continue
            res = human._judge(cells, exp[row], f"{name}[{row}]", text, gated=False)
            judged += zip(cells, res or [])
        if judged and sum(h.ok for _, h in judged) * 2 > len(judged):
            for c, h in judged:
                hits[c.start] = h
