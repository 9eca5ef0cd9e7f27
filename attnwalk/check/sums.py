"""Worked sums: a labelled result written as a sum of products is a dot product (issue 8).

``out_c2 = 0.134·1 + 0.366·0 + … = 0.134 + 0 + … = 0.269`` states ``O[i,c] = Σ_j A[i,j]·V[j,c]``;
``score(q1,k2) = 1·0 + 0·1 = 0`` and ``s_01 = (1·0.5 + 2·(-1))/√2`` state
``S[i,j] = Σ_k Q[i,k]·K[j,k]`` (÷ scale). Given the two vectors of the dot product, this module
says what each printed operand must be: the factors of the j-th term are a[j] and b[j], a bare
j-th term is the partial product a[j]·b[j], and ``c · (t_0 + … + t_n)`` takes out a factor that
is the same for every j (``2 · (α_0 + α_1 + …)`` with V[:, c] = 2), so c is that common factor and
the t_j the other vector; ``[1,0] · [0,1]`` writes the two vectors themselves. Plain data in,
plain data out: (node, expected value, label) triples.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from .expr import Node


def strip(e: Node) -> Node:
    while e.kind == "paren":
        e = e.args[0]
    return e


def _terms(e: Node) -> list[Node]:
    e = strip(e)
    if e.kind == "bin" and e.op == "+":
        return _terms(e.args[0]) + _terms(e.args[1])
    return [e]


def _indexed(terms: list[Node], n: int) -> list[tuple[int, Node]] | None:
    """(j, term) for a sum of n terms, one ``…`` standing for those left out; None otherwise."""
    ells = [k for k, t in enumerate(terms) if t.kind == "ell"]
    if not ells:
        return list(enumerate(terms)) if len(terms) == n else None
    p, tail = ells[0], len(terms) - ells[0] - 1
    if len(ells) != 1 or p + tail >= n or p + tail < 1:
        return None
    return list(enumerate(terms[:p])) + [(n - tail + k, t) for k, t in enumerate(terms[p + 1:])]


def _factors(e: Node) -> list[Node] | None:
    e = strip(e)
    if e.kind == "bin" and e.op in ("*", "·", "×"):
        return [strip(e.args[0]), strip(e.args[1])]
    return None


def _printed(e: Node):
    """(Num, sign) of a printed number node (not truncated), else None."""
    e = strip(e)
    sign = 1
    if e.kind == "neg":
        e, sign = strip(e.args[0]), -1
    if e.kind != "num" or e.num is None or e.num.truncated:
        return None
    return e.num, sign


def _value(e: Node) -> tuple[Fraction, int] | None:
    """(published value, decimals) of a printed number node, else None."""
    p = _printed(e)
    return None if p is None else (p[1] * p[0].value, p[0].decimals or 0)


def _is_value(e: Node) -> bool:
    return _printed(e) is not None


def near(e: Node, expected: float) -> bool:
    """Is the printed number ``e`` ``expected`` at its printed precision (float32 slack included)?"""
    return _near(_printed(e), expected)


def _near(p, expected: float) -> bool:
    """``near`` of a number node's ``_printed`` (Num, sign), found once for the several values it is tried
    against (a worked sum's factors, in both orders)."""
    if p is None or not math.isfinite(expected):  # (expected: a float, or NumPy's float64, a float too)
        return False
    num, sign = p
    # float(text) is the correctly rounded value of the digits, as float(Fraction) is; past float's range,
    # the Fraction's OverflowError, as before
    v = float(num.text)
    if not math.isfinite(v):
        v = float(num.value)
    dec = num.decimals or 0
    tol = 0.5 * 10.0 ** (-dec) + 2.0**-22 * max(abs(expected), 1.0)
    return abs(sign * v - expected) <= tol


def _unscaled(e: Node) -> Node:
    """``(Σ …)/√d`` or ``(Σ …)·s``: the sum inside (the scale itself is the arithmetic's to check)."""
    e = strip(e)
    if e.kind == "bin" and e.op == "/" and strip(e.args[0]).kind == "bin":
        return strip(e.args[0])
    return e


def bindings(exprs: list[Node], a: np.ndarray, b: np.ndarray, a_name, b_name, scaled: bool = False,
             result: tuple[Node, float] | None = None):
    """What the operands of the worked sides ``exprs`` of ``Σ_j a[j]·b[j]`` must be.

    Returns (node, expected, label) for every printed operand placed where a factor, a partial
    product or a common factor stands; an empty list when the sides do not have that shape, or
    when fewer than half of those operands agree (then the sum is not this dot product: a misread
    label must never report wrong numbers). A printed ``result`` that is the label's value is
    evidence enough that the sum is this dot product.
    """
    n = len(a)
    out: list[tuple[Node, float, str]] = []
    for e in exprs:
        if _is_value(e):
            continue
        e = _unscaled(e) if scaled else strip(e)
        terms = _indexed(_terms(e), n)
        if terms is not None and n > 1:
            pairs = [(j, t, _factors(t)) for j, t in terms]
            # the order the note writes its factors in: a·b (α·v, q·k) or b·a, the one that fits more
            fits = [0, 0]
            for j, _, f in pairs:
                if f:
                    p0, p1, aj, bj = _printed(f[0]), _printed(f[1]), float(a[j]), float(b[j])
                    fits[0] += _near(p0, aj) + _near(p1, bj)
                    fits[1] += _near(p0, bj) + _near(p1, aj)
            swap = fits[1] > fits[0]
            for j, t, f in pairs:
                if f:
                    fa, fb = (f[1], f[0]) if swap else (f[0], f[1])
                    if _is_value(fa):
                        out.append((fa, float(a[j]), a_name(j)))
                    if _is_value(fb):
                        out.append((fb, float(b[j]), b_name(j)))
                elif _is_value(t):
                    out.append((t, float(a[j] * b[j]), f"{a_name(j)}·{b_name(j)}"))
            continue
        f = _factors(e)
        if not f:
            continue
        if all(x.kind == "list" and len(x.args) == n for x in f):  # [1,0,1,0] · [0,1,0,1]: the two vectors
            for vec, name, lst in ((a, a_name, f[0]), (b, b_name, f[1])):
                out.extend((x, float(vec[j]), name(j)) for j, x in enumerate(lst.args) if _is_value(x))
            continue
        # a factor common to every term taken out: c · (t_0 + … + t_{n-1}), or c · Σ
        for vec, other, vname, oname in ((b, a, b_name, a_name), (a, b, a_name, b_name)):
            if not np.allclose(vec, vec[0], rtol=0, atol=1e-12):
                continue
            for c, rest in ((f[0], f[1]), (f[1], f[0])):
                if not _is_value(c) or not near(c, vec[0]):
                    continue
                inner = _indexed(_terms(rest), n)
                if inner is not None and n > 1 and all(_is_value(t) for _, t in inner):
                    out.append((c, float(vec[0]), vname(0)))
                    out.extend((t, float(other[j]), oname(j)) for j, t in inner)
                    break
                if _is_value(rest):
                    out.append((c, float(vec[0]), vname(0)))
                    out.append((rest, float(np.sum(other)), f"Σ {oname(0)}…{oname(n - 1)}"))
                    break
            else:
                continue
            break
    if not out:
        return []
    if result is not None and near(result[0], result[1]):
        return out
    # one side of the product printed right (V right, the weights off) is evidence enough too
    groups: dict[str, list[bool]] = {}
    for node, e, label in out:
        groups.setdefault(label.split("[")[0] if "·" not in label else "·", []).append(near(node, e))
    if any(len(g) >= 2 and 2 * sum(g) >= len(g) for g in groups.values()):
        return out
    if 2 * sum(near(node, e) for node, e, _ in out) < len(out):
        return []
    return out
