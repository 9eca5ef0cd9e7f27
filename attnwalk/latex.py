"""Matrices and vectors as Markdown-safe LaTeX (DESIGN §6).

One matrix row per line, each ending in ``\\\\``; ``bmatrix``; large matrices elided with
``\\cdots``/``\\vdots``/``\\ddots`` while the trace keeps every value.
"""

from __future__ import annotations

import numpy as np

from .numfmt import fmt

FULL_LIMIT = 16  # print in full up to 16 x 16
HEAD, TAIL = 6, 2  # when elided: the first 6 and last 2 rows/columns


def _keep(n: int) -> list[int | None]:
    """Indices to show along an axis of length n; None marks the elision."""
    if n <= FULL_LIMIT:
        return list(range(n))
    return list(range(HEAD)) + [None] + list(range(n - TAIL, n))


def bmatrix(m: np.ndarray, decimals: int, cell=None) -> str:
    """A 2-D array as ``\\begin{bmatrix} ... \\end{bmatrix}`` with one row per line."""
    m = np.atleast_2d(m)
    cell = cell or (lambda v: fmt(v, decimals))
    rows, cols = _keep(m.shape[0]), _keep(m.shape[1])
    lines = []
    for i in rows:
        if i is None:
            lines.append(" & ".join(r"\ddots" if j is None else r"\vdots" for j in cols) + r" \\")
            continue
        lines.append(" & ".join(r"\cdots" if j is None else cell(m[i, j]) for j in cols) + r" \\")
    return "\\begin{bmatrix}\n" + "\n".join(lines) + "\n\\end{bmatrix}"


def is_elided(m: np.ndarray) -> bool:
    m = np.atleast_2d(m)
    return max(m.shape) > FULL_LIMIT
