"""Long worked rows shortened for a reader: a few terms that teach, the rest as checked numbers.

A row of more than ``LIMIT`` terms (a softmax over 64 keys, a weighted sum over 1,600 positions) is
worked with its first ``FIRST`` terms; its sum is written with ``…`` for the terms left out, then
with each run left out replaced by its sum beside the largest term and the last, so the printed sum
still adds up (``attnwalk check`` binds the first side's terms to their keys and evaluates the
second). Lists print like the matrices (the first ``HEAD`` values, ``…``, the last ``TAIL``). Rows of
at most ``LIMIT`` terms are printed in full, exactly as before (docs/design.md, "Long rows"). Plain
data in, strings out; the trace keeps every value.
"""

from __future__ import annotations

import numpy as np

from ..latex import FULL_LIMIT, HEAD, TAIL
from ..numfmt import fmt

LIMIT = FULL_LIMIT  # rows, lists and tables of at most 16 terms are printed in full, as matrices are
FIRST = 3  # an elided row works its first three terms (then its largest and its last)
ELL = "…"


def is_long(n: int) -> bool:
    return n > LIMIT


def short(items: list[str]) -> list[str]:
    """Printed values as a matrix row prints them: every one up to ``LIMIT``, else the first ``HEAD``,
    ``…`` and the last ``TAIL``."""
    if not is_long(len(items)):
        return list(items)
    return list(items[:HEAD]) + [ELL] + list(items[-TAIL:])


def shown(n: int, largest: int | None) -> list[int]:
    """The terms a worked row prints: all of them up to ``LIMIT``; else the first ``FIRST``, the largest
    (``largest``, None when the row has none) and the last, in order."""
    if not is_long(n):
        return list(range(n))
    keep = set(range(FIRST)) | {n - 1}
    if largest is not None:
        keep.add(int(largest))
    return sorted(keep)


def gaps(js: list[int], n: int) -> list[tuple[int, int]]:
    """The runs of terms left out between the shown ones ``js``: (a, b) for j = a … b−1."""
    out, prev = [], -1
    for j in list(js) + [n]:
        if j > prev + 1:
            out.append((prev + 1, j))
        prev = j
    return out


def exp_lines(cells: list[str], e: np.ndarray, m: str, wp: int, total: str, sum_word: str,
              notes: dict[int, str] | None = None) -> list[str]:
    """The exponentials of one long row, max subtracted, and their sum.

    The first ``FIRST`` terms are worked ``exp(ŝ - m) = e`` (the checker reads them in key order); the
    sum is written twice: with ``…`` for the terms left out (each printed term stands at its key's
    place, so the checker binds it to ``E_h[i, j]``), then with each run left out replaced by its sum,
    beside the largest term and the last, so the printed numbers add up to the total.
    ``notes``: a comment after some of the first terms (a masked key).
    """
    n = len(cells)
    notes = notes or {}
    lines = [f"exp({cells[j]} - {m}) = {fmt(e[j], wp)}" + (f"   ({notes[j]})" if j in notes else "")
             for j in range(FIRST)]
    lines.append("...")
    largest = int(np.argmax(e)) if np.any(e > 0) else None
    js = shown(n, largest)
    parts = {j: fmt(e[j], wp) for j in js}
    parts.update({a: fmt(e[a:b].sum(), wp) for a, b in gaps(js, n)})
    first = [fmt(e[j], wp) for j in range(FIRST)] + [ELL, fmt(e[n - 1], wp)]
    return lines + chain(sum_word, [first, [parts[j] for j in sorted(parts)]], total)


def chain(head: str, sides: list[list[str]], result: str) -> list[str]:
    """``head = a + b + … = c + d + … = result``, one side per line, wrapped under ``WIDTH`` with
    ``+`` continuations; every side after the first, and the result, starts with ``=`` under the first."""
    from .exercises import WIDTH

    pad = " " * len(head)
    lines: list[str] = []
    for k, terms in enumerate(sides):
        cur = (head if k == 0 else pad) + " = "
        for n, t in enumerate(terms):
            op, t = ("-", t[1:]) if n and t.startswith("-") else ("+", t)  # a + -b printed a - b
            piece = t if n == 0 else f" {op} {t}"
            if n and len(cur) + len(piece) > WIDTH:
                lines.append(cur)
                cur = f"{pad}   {op} {t}"
            else:
                cur += piece
        lines.append(cur)
    return lines + [pad + " = " + result]


def weighted_sum(head: str, a: np.ndarray, v: np.ndarray, fa, fv, wp: int, result: str) -> list[str]:
    """``head = Σ_j a[j]·v[j] = result`` (an output as a weighted sum of values). A long one prints its
    first products and the last with ``...`` between (the checker binds each factor to its key), then
    the products' values with each run left out summed, beside the largest weight's and the last."""
    from .exercises import wrap_sum

    n = len(a)
    terms = [f"({fa(a[j])})({fv(v[j])})" for j in range(n)]
    if not is_long(n):
        return wrap_sum(head, terms, result)
    p = np.asarray(a, dtype=float) * np.asarray(v, dtype=float)
    js = shown(n, int(np.argmax(a)))
    parts = {j: fmt(p[j], wp) for j in js}
    parts.update({s: fmt(p[s:t].sum(), wp) for s, t in gaps(js, n)})
    return chain(head, [terms[:FIRST] + ["...", terms[-1]], [parts[j] for j in sorted(parts)]], result)


def row_text(lab: str, items: list[str]) -> str:
    """What a template prints between ``{lab} = [`` and ``]``: the items joined by ``, `` when they are
    few; a long row shortened (``short``) and wrapped under the first item, as ``wrap_list`` wraps."""
    if not is_long(len(items)):
        return ", ".join(items)
    from .exercises import wrap_list

    text = "\n".join(wrap_list(f"{lab} = ", short(items)))
    return text[len(lab) + 4:-1]


CHANNEL_LIMIT = 64  # a sum over input channels is worked in full up to 64 terms (dim 64), then in short


def channel_sum(head: str, a: np.ndarray, v: np.ndarray, fa, fv, wp: int, result: str) -> list[str]:
    """``head = Σ_c a[c]·v[c] = result`` over input channels (a 1×1 conv at one pixel): in full up to
    ``CHANNEL_LIMIT`` terms; beyond, the first products with ``...`` after them (the checker binds their
    factors to the weights and the input), then their values and the rest of the channels summed."""
    from .exercises import wrap_sum

    n = len(a)
    terms = [f"({fa(a[c])})({fv(v[c])})" for c in range(n)]
    if n <= CHANNEL_LIMIT:
        return wrap_sum(head, terms, result)
    p = np.asarray(a, dtype=float) * np.asarray(v, dtype=float)
    parts = [fmt(p[c], wp) for c in range(FIRST)] + [fmt(p[FIRST:].sum(), wp)]
    return chain(head, [terms[:FIRST] + ["..."], parts], result)


MAX_CHANNELS_SHOWN = 8  # beyond this, the first 4 and the last channel are printed


def channels(n: int) -> list[int]:
    """The channels printed and worked one by one (channel maps, a long row's worked output): all up to
    ``MAX_CHANNELS_SHOWN``, else the first 4 and the last."""
    return list(range(n)) if n <= MAX_CHANNELS_SHOWN else [0, 1, 2, 3, n - 1]
