"""A print's output in a plain fence below the code that printed it, a few lines of prose between (a book chapter's
``print(query_2)`` then "the output is:" and ```` ``` ```` / ``tensor([0.4306, 1.4551])``): the tensor the printed
variable's name gives (``notations.identifier_tensor``), one row of it where the name ends in a 1-based number
(``query_2``: row 2, the second token's query) and one cell where a scalar's name ends in two (``attn_score_22``:
row 2, column 2). Judged only where most of its numbers agree: a name may say weights where the code computed
something else (``attn_weights_2_tmp = attn_scores_2 / attn_scores_2.sum()``), and such a print is left unread
(heldout16's translated chapter printed its steps so)."""

from __future__ import annotations

import re

import numpy as np

PROSE_REACH = 12  # lines of prose between the code and its output, at most
_PRINT = re.compile(r"^[ \t]*print\((?P<args>[^\n]*)\)[ \t]*(?:#[^\n]*)?$", re.M)
_OUTPUT_INFOS = ("", "text", "output", "console", "out")
_NUM = r"[-−]?\d+(?:\.\d+)?(?:e[-+]?\d+)?"
_SCALAR = re.compile(r"^[ \t]*(?:[^\n\[\]]*?:[ \t]*)?(?:tensor|array)\([ \t]*(?P<num>" + _NUM + r")[ \t]*\)[ \t]*$")
_ROW = re.compile(r"\[(?P<body>[^\[\]\n]*)\]")
_INDEX = re.compile(r"_(?P<k>\d{1,2})$")


def print_outputs(text: str, trace, hits: dict, foreign: list) -> None:
    """Form: a python fence with one ``print(.., name)``, then within ``PROSE_REACH`` lines of prose (no heading, no
    other fence) a plain fence of what it printed: a scalar, one list (a row where the name ends in ``_N``) or a
    matrix (the whole tensor, a name without a number); judged by majority where no reader judged it."""
    if "print(" not in text or "```" not in text:
        return
    from . import human
    from .notations import _PRINTED_NAME, identifier_tensor
    from .program import fences

    spans = fences(text)
    for (_, a1, info, code, _, _), (b0, _, out_info, _, c0, c1) in zip(spans, spans[1:]):
        if not info.lower().startswith("py") or out_info.strip().lower() not in _OUTPUT_INFOS:
            continue
        between = text[a1:b0]
        if between.count("\n") > PROSE_REACH + 1 or re.search(r"^[ \t>]*#", between, re.M):
            continue
        prints = list(_PRINT.finditer(code))
        if len(prints) != 1:
            continue
        printed = _PRINTED_NAME.search(prints[0].group("args"))
        name = printed.group("name") if printed else None
        named = identifier_tensor(name) if name else None
        if named is None:
            continue
        index = _INDEX.search(name)
        body = text[c0:c1]
        scalar = _SCALAR.match(body.strip("\n")) if "\n" not in body.strip("\n") else None
        head = human.head_at(text, b0)
        exp = human._expected(trace, named, head)
        if exp is None or exp.ndim != 2:
            continue
        if scalar is not None:
            k = index.group("k") if index else ""
            if len(k) != 2:
                continue
            r, c = int(k[0]) - 1, int(k[1]) - 1
            if not (0 <= r < exp.shape[0] and 0 <= c < exp.shape[1]):
                continue
            at = c0 + body.index(scalar.group("num"), body.index("("))
            cells = human._cells(scalar.group("num"), at)
            want, where = np.array([exp[r, c]]), f"{named}[{r}, {c}]"
        else:
            rows = [human._cells(m.group("body").replace(",", " "), c0 + m.start("body")) for m in _ROW.finditer(body)]
            if not rows or not all(rows) or len({len(x) for x in rows}) != 1:
                continue
            cells = [x for row in rows for x in row]
            if len(rows) == 1 and index is not None and len(index.group("k")) == 1:
                r = int(index.group("k")) - 1
                if not 0 <= r < exp.shape[0] or exp.shape[1] != len(cells):
                    continue
                want, where = exp[r], f"{named}[{r}]"
            elif index is None and exp.shape == (len(rows), len(rows[0])):
                want, where = exp, named
            else:
                continue
        if not cells or any(x.start in hits for x in cells):
            continue
        for x, h in zip(cells, human._judge(cells, want, where, text) or []):
            hits[x.start] = h
