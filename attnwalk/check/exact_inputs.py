"""Printed operands that are the note's given inputs are exact: a worked dot product of the embeddings a note gives
(``0.34×0.53 + 0.22×0.34 + 0.54×0.98 = 0.775``) is judged against 0.7842 exactly, not against the interval of its
operands taken as rounded to two decimals (0.7694 .. 0.7990, where 0.775 lay: heldout17's skill file). The inputs
are given exactly (the scenario writes them as printed), as torch's truth takes them. Only a side whose every decimal
is such a cell is exact: its arithmetic is then the tensor's own value. A side with a rounded number among the inputs
(``0.4064 × [0.53, 0.34, 0.98]``, a printed weight) keeps the interval of all its operands, so that a result right by
torch is not called wrong for the arithmetic of a weight rounded otherwise (docs/course.md, results of printed
arithmetic: right by either)."""

from __future__ import annotations

import numpy as np

GIVEN = ("x", "q", "k", "v", "w_q", "w_k", "w_v", "scores")  # the scenario keys whose tables are given as printed


def given_values(config: dict) -> frozenset:
    """The absolute values of the cells of the tables the scenario gives that are no integers (none where its inputs
    are drawn): a rounded intermediate printed ``2.0`` (e^0.71) is no input 2, and an integer is exact already."""
    out: set = set()
    for key in GIVEN:
        table = config.get(key)
        if isinstance(table, (list, tuple)):
            out.update(abs(float(x)) for x in np.asarray(table, dtype=float).reshape(-1) if x != round(x))
    return frozenset(out)


def given_operands(sides, values: frozenset) -> list:
    """The printed decimals of each arithmetic side of ``sides`` whose every decimal is a given input's cell, marked
    exact (``Num.given``) for the claim being judged; the caller unmarks them after it."""
    if not values:
        return []
    marked = []
    for side in sides:
        decimals = [n for n in side.nums() if n.decimals is not None]
        if decimals and all(float(n.value) in values for n in decimals):
            marked += decimals
    for n in marked:
        n.given = True
    return marked
