"""A code cell's result below it: a print's output in a plain fence a few lines of prose under the code that printed
it (a book chapter's ``print(query_2)`` then "the output is:" and ```` ``` ```` / ``tensor([0.4306, 1.4551])``), or a
Jupyter cell exported to Markdown whose last line echoes a bare name (``weights1``), then its ``Out[313]:`` prompt
and the result indented. The result is the tensor the name gives (``notations.identifier_tensor``), one row of it
where the name ends in a 1-based number (``query_2``: row 2, the second token's query) and one cell where a scalar's
name ends in two (``attn_score_22``: row 2, column 2). Judged only where most of its numbers agree: a name may say
weights where the code computed something else (``attn_weights_2_tmp = attn_scores_2 / attn_scores_2.sum()``, a
notebook's dot products kept in ``weights1``), and such a result is left unread (heldout16's translated chapter and
notebook printed their steps so)."""

from __future__ import annotations

import re

import numpy as np

from .comment_prints import PRINT_LINE

PROSE_REACH = 12  # lines of prose between the code and its output fence, at most
_ECHO = re.compile(r"^[ \t]*(?P<name>[A-Za-z_]\w*)[ \t]*$")
_OUTPUT_INFOS = ("", "text", "output", "console", "out")
# after a cell: its ``Out[313]:`` prompt (bold or not) alone on a line, then the result indented by four spaces
_OUT_PROMPT = re.compile(r"[ \t]*\n(?:[ \t]*\n)*[ \t]*(?:\*\*)?Out[ \t]?\[[ \t]*\d*[ \t]*\][ \t]*:(?:\*\*)?[ \t]*\n"
                         r"(?:[ \t]*\n)*(?P<body>(?:(?: {4}|\t)[^\n]*(?:\n|$))+)")
_NUM = r"[-−]?\d+(?:\.\d+)?(?:e[-+]?\d+)?"
_SCALAR = re.compile(r"^[ \t]*+(?:[^\n\[\]]*?:[ \t]*)?(?:tensor|array)\([ \t]*(?P<num>" + _NUM + r")[ \t]*\)[ \t]*$")
_ROW = re.compile(r"\[(?P<body>[^\[\]\n]*)\]")
_INDEX = re.compile(r"_(?P<k>\d{1,2})$")


def _result(text: str, end: int, nxt) -> tuple[int, int, bool] | None:
    """(start, end, echoed) of the result below a python fence ending at ``end``: the indented block after an
    ``Out[n]:`` prompt right below it (a cell's echo), or the next fence ``nxt`` (a plain one) within
    ``PROSE_REACH`` lines of prose, no heading between (a print's output)."""
    m = _OUT_PROMPT.match(text, end)
    if m is not None:
        return m.start("body"), m.end("body"), True
    if nxt is None or nxt[2].strip().lower() not in _OUTPUT_INFOS:
        return None
    between = text[end:nxt[0]]
    if between.count("\n") > PROSE_REACH + 1 or re.search(r"^[ \t>]*#", between, re.M):
        return None
    return nxt[4], nxt[5], False


def _name(code: str, echoed: bool) -> str | None:
    """The name a cell shows: the one ``print(.., name)`` of its code; for an echoed result, a last line that is a
    bare name (and no print)."""
    from .notations import _PRINTED_NAME

    prints = list(PRINT_LINE.finditer(code))
    if echoed:
        lines = [ln for ln in code.split("\n") if ln.strip() and not ln.lstrip().startswith("#")]
        m = _ECHO.match(lines[-1]) if lines and not prints else None
        return m.group("name") if m else None
    if len(prints) != 1:
        return None
    printed = _PRINTED_NAME.search(prints[0].group("args"))
    return printed.group("name") if printed else None


def print_outputs(text: str, trace, hits: dict, foreign: list) -> None:
    """Form: a python fence, then its result (``_result``): a scalar, one list (a row where the name ends in ``_N``)
    or a matrix (the whole tensor, a name without such a number); judged by majority where no reader judged it."""
    if "```" not in text or ("print(" not in text and "Out" not in text):
        return
    from . import human
    from .notations import identifier_tensor
    from .program import fences

    spans = fences(text)
    for k, (_, end, info, code, _, _) in enumerate(spans):
        if not info.lower().startswith("py"):
            continue
        found = _result(text, end, spans[k + 1] if k + 1 < len(spans) else None)
        name = _name(code, found[2]) if found else None
        named = identifier_tensor(name) if name else None
        if named is None:
            continue
        c0, c1, _ = found
        body = text[c0:c1]
        exp = human._expected(trace, named, human.head_at(text, c0))
        if exp is None or exp.ndim != 2:
            continue
        index = _INDEX.search(name)
        scalar = _SCALAR.match(body.strip("\n")) if "\n" not in body.strip("\n") else None
        if scalar is not None:
            k2 = index.group("k") if index else ""
            if len(k2) != 2:
                continue
            r, c = int(k2[0]) - 1, int(k2[1]) - 1
            if not (0 <= r < exp.shape[0] and 0 <= c < exp.shape[1]):
                continue
            cells = human._cells(scalar.group("num"), c0 + body.index(scalar.group("num"), body.index("(")))
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
