"""Page layout of display math: whether small matrices fit side by side in one page column.

A rendered matrix is about as wide as its widest row of cells plus two characters between
columns; labels, " = " and the ``,\\quad`` separators add their own width. The estimate is in
characters of a page column (~100), the unit the notes' other width rules use.
"""

from __future__ import annotations

import re

PAGE = 100  # characters of a page column
SEP = 4  # ",\quad" between two matrices, rendered


def matrix_width(tex: str) -> int:
    """Rendered width of a ``bmatrix`` (one row per line): widest row plus the brackets."""
    rows = [r.strip().rstrip("\\").strip() for r in tex.splitlines() if "&" in r or r.strip().endswith("\\\\")]
    widths = [sum(len(c.strip()) for c in r.split("&")) + 2 * r.count("&") for r in rows]
    return max(widths, default=0) + 2


def label_width(label: str) -> int:
    """Rendered width of a LaTeX label: commands and braces take no room."""
    return len(re.sub(r"\\[a-zA-Z]+|[{}_^]", "", label))


def side_by_side(items: list[tuple[str, str]], page: int = PAGE) -> bool:
    """Do these (label, bmatrix) pairs fit on one display line of a page column?"""
    if len(items) < 2 or any("cdots" in t or "vdots" in t for _, t in items):
        return False
    total = sum(label_width(lab) + 3 + matrix_width(tex) for lab, tex in items) + SEP * (len(items) - 1)
    return total <= page


def rows(items: list[dict], page: int = PAGE) -> list[list[dict]]:
    """Maps (dicts with ``label`` and ``tex``) grouped, in order, into display lines that fit a page
    column: each line holds as many as fit side by side (at least one)."""
    out: list[list[dict]] = []
    for it in items:
        if out and side_by_side([(m["label"], m["tex"]) for m in out[-1] + [it]], page):
            out[-1].append(it)
        else:
            out.append([it])
    return out
