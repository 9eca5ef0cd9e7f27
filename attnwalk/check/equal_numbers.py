"""Two bare numbers on either side of ``=`` that disagree are no claim: rendered math whose left sides vanished runs
several equations' results together (a GitBook export's ``e0.7842e1.3569e1.2487=2.1902=3.8839=3.4858`` is three
exponentials, not one value written three ways), so the last is not judged against the others (heldout17). A
percentage after a fraction (``0.32 = 32%``) is the same value written another way and is left to the readers of
percentages."""

from __future__ import annotations

import re

_PERCENT = re.compile(r"\s*\\?%")


def bare_pair(side, final, text: str) -> bool:
    """Are ``side`` and ``final`` (nodes of one ``=`` chain of ``text``) both a lone printed number, signed or not,
    the last no percentage?"""
    if side.kind not in ("num", "neg") or final.kind not in ("num", "neg"):
        return False
    num = final.num if final.kind == "num" else final.args[0].num
    return num is not None and not _PERCENT.match(text, num.pos + len(num.text))
