"""A seed-notation label, a formula, then the matrix: ``O_2 = A_2 V = [[0.9920, 0.8560], ..]`` and the heads'
concatenation ``O = [O_1 | O_2] = [[..]]`` (heldout15's multi-query post). In a chain ``X = formula = matrix`` the
matrix is X whatever the formula says; the claim reader stops at a formula it cannot parse (``A_2 V``), so such a
matrix stayed unread.

- ``X_h`` with a head subscript: that head's tensor of the letter (``notation.CHAIN_HEAD_SYMBOLS``), the head counted
  from 1 where the note counts its heads so (``head_subscripts.one_based_label_heads``);
- the unsubscripted letter of the output whose formula concatenates the heads' outputs (``[O_1 | O_2]``,
  ``concat(O_1, O_2)``): the merged output, every head side by side.

Judged as ``human.best_reading`` reads a labelled matrix (a word's kin, the scaled scores for ``S``, only where most
numbers agree), where no reader judged its numbers.
"""

from __future__ import annotations

import re

from ..notation import CHAIN_HEAD_SYMBOLS

_SYM = "|".join(map(re.escape, sorted(CHAIN_HEAD_SYMBOLS)))
# the label, the formula (no "=", no matrix; a bracketed concatenation allowed), then the matrix's "[["
_CHAIN = re.compile(r"(?m)^[ \t>$]*(?P<sym>" + _SYM + r")(?:_\{?(?P<h>\d)\}?)?[ \t]*=[ \t]*"
                    r"(?P<formula>\[[^\[\]=\n]{1,60}\]|[^\[\]=\n]{1,60}?)[ \t]*=[ \t]*(?=\[[ \t]*\[)")
_CONCAT = re.compile(r"^(?:\[|concat\(|\\?left\[)?[ \t]*(?P<a>[A-Za-z])_\{?\d\}?(?:[ \t]*(?:\||,|\\vert|;)[ \t]*"
                     r"(?P=a)_\{?\d\}?)+[ \t]*(?:\]|\)|\\?right\])?$")


def label_chains(text: str, trace, hits: dict, foreign: list) -> None:
    """Form: each ``X_h = formula = [[..]]`` (module doc) judged as X of head h; ``O = [O_1 | O_2] = [[..]]`` as the
    merged output."""
    if "[[" not in text and "[ [" not in text:
        return
    found = list(_CHAIN.finditer(text))
    if not found:
        return
    from . import human
    from .forms import in_any
    from .head_subscripts import one_based_label_heads

    blocks = {b.start: b for b in human.bracket_blocks(text)}
    first = one_based_label_heads(text)
    for m in found:
        b = blocks.get(m.end())
        if b is None:
            continue
        cells = [c for row in b.rows for c in row]
        if any(c.start in hits for c in cells):
            continue
        name, head = CHAIN_HEAD_SYMBOLS[m.group("sym")], None
        if m.group("h") is not None:
            head = int(m.group("h")) - first
        else:
            concat = _CONCAT.match(m.group("formula").strip())
            if concat is None or concat.group("a") != m.group("sym") or name != "o":
                continue
            name = "out"  # the heads' outputs side by side: the merged output
        shaped = []
        for cand in human._candidates(name, trace):
            step = trace.steps.get(cand)
            if head is not None and (step is None or "head" not in step.axes or head < 0):
                continue  # a head's tensor: only a trace that keeps heads apart
            exp = human._expected(trace, cand, 0 if head is None else head)
            if exp is not None and exp.ndim == 2 and exp.shape == (len(b.rows), len(b.rows[0])):
                shaped.append((cand, exp))
        res = human.best_reading(cells, shaped, [name], text, sure=len(shaped) == 1 and not in_any(m.start(), foreign))
        for c, h in zip(cells, res or []):
            hits[c.start] = h
