"""A print's result pasted as comments under it, written as the print writes it: the array's head first
(``# tensor([[2.2000, 3.2000],``, ``# array([[..``; ``notation.REPR_HEADS``), or each row named by a label before it
and a caption after it, under a comment of column names (``#        Pos 0  Pos 1  Pos 2`` then ``# Pos 0 [[0.5,
0.2,   0.3],   ← Position 0 attends to all positions``). The matrix is the tensor the printed variable's name gives
(``print(output)``: the output), as ``notations.commented_print_results`` reads comments that start with ``[``
(heldout16's course lessons printed so)."""

from __future__ import annotations

import re

from ..notation import REPR_HEADS

# a line that is one print call (its arguments, a trailing comment allowed): print_outputs reads the same lines
PRINT_LINE = re.compile(r"^[ \t]*print\((?P<args>[^\n]*)\)[ \t]*(?:#[^\n]*)?$", re.M)
# one comment line: an optional array head or row label, then the row's list (the innermost "[..]") and a caption
# (blanks possessive: three runs of them side by side tried every split of a long one, cubic in its length)
_HEAD = "|".join(re.escape(h) for h in REPR_HEADS)
_ROW_LINE = re.compile(r"[ \t]*+#[ \t]*+(?:(?:" + _HEAD + r")|[A-Za-z][\w]{0,11}(?:[ \t]\d{1,3})?[ \t]++)?[ \t]*+"
                       r"\[*+(?P<body>[^\[\]\n]*+)\](?P<tail>[^\n]*)(?:\n|$)")
# a comment of column names between the print and its rows (no bracket, no decimal)
_HEADER_LINE = re.compile(r"[ \t]*#(?P<names>[^\[\]\n]*)(?:\n|$)")
_DECIMAL = re.compile(r"\d\.\d")


def comment_prints(text: str, trace, hits: dict, foreign: list) -> None:
    """Form: ``print(name)`` then comment lines of one row each, the first led by an array head or every row by a
    label (see the module); read where no reader judged the numbers, as ``notations._sure_judge`` judges a printed
    variable's matrix (one tensor named: a wholly wrong matrix is wrong)."""
    if "print(" not in text or "#" not in text:
        return
    from . import human
    from .notations import _sure_judge, named_prints

    for m, named in named_prints(text, PRINT_LINE):
        at = m.end() + 1
        header = _HEADER_LINE.match(text, at)
        if header is not None and not _DECIMAL.search(header.group("names")) and _ROW_LINE.match(text, header.end()):
            at = header.end()
        rows, led = [], False
        while (c := _ROW_LINE.match(text, at)) is not None and "[" in text[c.start():c.start("body")]:
            prefix = text[c.start():c.start("body")]
            led = led or any(h in prefix for h in REPR_HEADS) or bool(re.search(r"#[ \t]*[A-Za-z]", prefix))
            rows.append(human._cells(c.group("body").replace(",", " "), c.start("body")))
            at = c.end()
        if not led or not rows or not all(rows) or len({len(r) for r in rows}) != 1:
            continue  # (comments that start with "[" are commented_print_results')
        cells = [c for r in rows for c in r]
        if any(c.start in hits for c in cells):
            continue
        res = _sure_judge(cells, [named], (len(rows), len(rows[0])), trace, text, m.start(), foreign)
        for c, h in zip(cells, res or []):
            hits[c.start] = h
