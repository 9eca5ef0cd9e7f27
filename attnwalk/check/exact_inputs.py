"""Printed operands that are the note's given inputs are exact: a worked dot product of the embeddings a note gives
(``0.34×0.53 + 0.22×0.34 + 0.54×0.98 = 0.775``) is judged against 0.7842 exactly, not against the interval of its
operands taken as rounded to two decimals (0.7694 .. 0.7990, where 0.775 lay: heldout17's skill file). The inputs
are given exactly (the scenario writes them as printed), as torch's truth takes them. Only a side whose every decimal
is such a cell is exact: its arithmetic is then the tensor's own value. A side with a rounded number among the inputs
(``0.4064 × [0.53, 0.34, 0.98]``, a printed weight) keeps the interval of all its operands, so that a result right by
torch is not called wrong for the arithmetic of a weight rounded otherwise (docs/course.md, results of printed
arithmetic: right by either); so does a side with a factor of a product that a weight rounds to, whatever input it
equals (``0.50 × 0.5 = 0.2488``: the weight 0.4975 printed 0.50, an input's value)."""

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


def weight_values(trace) -> np.ndarray:
    """The trace's attention weights (every head's), sorted: what a printed weight rounds (``rounds_a_weight``)."""
    step = trace.steps.get("attn")
    if step is None:
        return np.empty(0)
    w = np.asarray(step.data, dtype=float).reshape(-1)
    return np.sort(w[np.isfinite(w)])


def rounds_a_weight(value: float, decimals: int, weights: np.ndarray) -> bool:
    """Whether ``value``, printed to ``decimals``, may be an attention weight rounded: a weight within half a unit of
    its last digit (``0.50`` for 0.4975, whatever input cell 0.5 it equals)."""
    i = int(np.searchsorted(weights, value))
    return any(abs(w - value) <= 0.5 * 10.0 ** -decimals * (1 + 1e-9) for w in weights[max(i - 1, 0):i + 1])


def _factors(side) -> set:
    """The ids of the printed numbers of ``side`` that are factors of a product (``0.50`` and ``0.5`` in
    ``0.50 × 0.5``, a sign or parentheses around them allowed): where a weight stands in weighted arithmetic."""
    out, stack = set(), [side]
    while stack:
        node = stack.pop()
        if node.kind == "bin" and node.op == "*":
            for a in node.args:
                while a.kind in ("neg", "paren") and a.args:
                    a = a.args[0]
                if a.kind == "num":
                    out.add(id(a.num))
        stack.extend(a for a in node.args if hasattr(a, "kind"))
    return out


def given_operands(sides, values: frozenset, weights: np.ndarray) -> list:
    """The printed decimals of each arithmetic side of ``sides`` whose every decimal is a given input's cell, and no
    factor of a product one a weight (``weights``, sorted) rounds to, marked exact (``Num.given``) for the claim being
    judged; the caller unmarks them after it. A weight rounded to an input's value (``0.50 × 0.5 = 0.2488``, the
    weight 0.4975) keeps its side's rounding, as a printed weight does; an exponent (``e^{0.1}``) is no weight."""
    if not values:
        return []
    marked = []
    for side in sides:
        decimals = [n for n in side.nums() if n.decimals is not None]
        if not decimals or not all(float(n.value) in values for n in decimals):
            continue
        factors = _factors(side) if weights.size else set()
        if not any(id(n) in factors and rounds_a_weight(float(n.value), n.decimals, weights) for n in decimals):
            marked += decimals
    for n in marked:
        n.given = True
    return marked
