"""Three or more bare numbers joined by ``=`` that disagree are no claim: rendered math whose left sides vanished runs
several equations' results together (a GitBook export's ``e0.7842e1.3569e1.2487=2.1902=3.8839=3.4858`` is three
exponentials, not one value written three ways), so the last is not judged against the others (heldout17). Two
(``0.5001 = 0.5``) stay a claim, and a percentage after a fraction (``0.32 = 32%``) is left to the readers of
percentages."""

from __future__ import annotations

import re

_PERCENT = re.compile(r"\s*\\?%")


def _bare(node) -> bool:
    return node.kind in ("num", "neg")


def run_together(exprs, text: str) -> bool:
    """Is the chain ``exprs`` (its nodes, the result last) three or more lone printed numbers at its end, signed or
    not, the last no percentage?"""
    if len(exprs) < 3 or not all(_bare(e) for e in exprs[-3:]):
        return False
    final = exprs[-1]
    num = final.num if final.kind == "num" else final.args[0].num
    return num is not None and not _PERCENT.match(text, num.pos + len(num.text))
