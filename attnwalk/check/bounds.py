"""Float-first verdicts with rigorous error bounds (issue 12): exact arithmetic only near a boundary.

Every comparison of the checker has an exact reference (``Fraction`` for printed values, sympy and
mpmath intervals for arithmetic claims, in ``checker``). Here the same question is answered in
float64 together with a bound on the float error; when the answer is farther from the decision
boundary than that bound, it is the exact answer, and ``None`` (undecided) sends the caller to the
exact path. ``tests/test_check_speed_equiv.py`` compares both paths on every note we have.

An enclosure is ``(lo, hi, err)``: floats within ``err`` of the ends of the interval the exact path
computes (mpmath at 40 digits, whose own rounding is far below the float terms added at each step).
"""

from __future__ import annotations

import math
from fractions import Fraction

U = 2.0**-53  # unit roundoff of float64
TINY = 1e-300  # absolute slack that covers underflow and subnormal rounding
F32 = 2.0**-22  # float32 allowance of hand-written notes (the exact path's F32_REL)
LIBM = 2.0**-50  # exp, log, pow of the C library: within a few ulps (glibc: < 1 ulp)
_HALF = [float(Fraction(1, 2 * 10**d)) for d in range(64)]  # half a unit of the last digit, rounded
_UNIT = [float(Fraction(1, 10**d)) for d in range(64)]


class Fallback(Exception):
    """The float path cannot decide (or mirror) this claim: use the exact path."""


# ---------------------------------------------------------------- printed values


def close(text: str, neg: bool, decimals: int | None, truncated: bool, expected: float, scale: float,
          strict: bool) -> bool | None:
    """Is the printed ``text`` within half a unit of its last digit (plus float32 rounding unless
    ``strict``) of ``expected``? ``None`` when too near the boundary for float64 to tell."""
    if truncated or not math.isfinite(expected):
        return None
    try:
        p = float(text)
    except (ValueError, OverflowError):
        return None
    if not math.isfinite(p) or (decimals is not None and decimals >= len(_HALF)):
        return None
    if neg:
        p = -p
    h = _HALF[decimals] if decimals is not None else 0.5
    t = h + (0.0 if strict else F32 * max(abs(expected), scale))
    m = t - abs(p - expected)
    # parsing p (|p|·2U), the subtraction (|p|+|e|)·U, the tolerance (t·2U), the final rounding
    err = 4 * U * (abs(p) + abs(expected) + t) + TINY
    if m > err:
        return True
    if m < -err:
        return False
    return None


# ---------------------------------------------------------------- arithmetic claims


def _up(x: float) -> float:
    return abs(x) * 2 * U + TINY


def _num(node, max_digits: int, max_exponent: int):
    n = node.num
    text = n.text
    if len(text) > max_digits or n.truncated:
        raise Fallback
    low = text.lower()
    if "e" in low and abs(int(low.split("e")[1])) > max_exponent:
        raise Fallback
    d = n.decimals
    if d is not None and d >= len(_HALF):
        raise Fallback
    v = float(text)
    if not math.isfinite(v):
        raise Fallback
    h = _HALF[d] if d is not None else 0.0
    lo, hi = v - h, v + h
    return (lo, hi, (abs(v) + h) * 4 * U + TINY)


def _ivmul(a, b):
    al, ah, ea = a
    bl, bh, eb = b
    ps = (al * bl, al * bh, ah * bl, ah * bh)
    lo, hi = min(ps), max(ps)
    ma, mb = max(abs(al), abs(ah)), max(abs(bl), abs(bh))
    return (lo, hi, ma * eb + mb * ea + ea * eb + max(abs(lo), abs(hi)) * 2 * U + TINY)


def _ivdiv(a, b):
    bl, bh, eb = b
    m = min(abs(bl), abs(bh))
    if not (bl > eb or bh < -eb) or eb > m * 1e-6:  # a divisor that is (or may be) near 0: exact path
        raise Fallback
    r = (1.0 / bh, 1.0 / bl, eb / (m * (m - eb)) + (1.0 / m) * 2 * U + TINY)
    return _ivmul(a, r)


def _monotone(f, a, rel_in):
    """An increasing libm function of an enclosure; ``rel_in`` bounds |f'(x)|·err / |f(x)|."""
    lo, hi, e = a
    flo, fhi = f(lo), f(hi)
    return (flo, fhi, max(abs(flo), abs(fhi)) * (rel_in + LIBM) + TINY)


def _exp(a):
    lo, hi, e = a
    if not (-700.0 < lo - e and hi + e < 400.0) or e > 1e-3:  # near the exact path's bounds, or underflow
        raise Fallback
    return _monotone(math.exp, a, e * 1.002)


def _log(a):
    lo, hi, e = a
    if not lo - e > 0 or e > lo * 1e-3:
        raise Fallback
    flo, fhi = math.log(lo), math.log(hi)
    # |log(x ± e) - log(x)| <= e / (x - e); libm error relative to the result
    return (flo, fhi, e / (lo - e) + max(abs(flo), abs(fhi)) * LIBM + TINY)


def _sqrt(a):
    lo, hi, e = a
    if not lo - e > 0 or e > lo * 1e-3:
        raise Fallback
    slo, shi = math.sqrt(lo), math.sqrt(hi)  # correctly rounded (IEEE 754)
    return (slo, shi, e / math.sqrt(lo - e) + shi * 2 * U + TINY)


def _ipow(a, n: int):
    """A positive enclosure to a small integer power (monotone there)."""
    lo, hi, e = a
    if not lo - e > 0 or n == 0 or abs(n) > 64:
        raise Fallback
    r = e / (lo - e)
    if abs(n) * r > 1e-3:
        raise Fallback
    try:
        plo, phi = math.pow(lo, n), math.pow(hi, n)
    except OverflowError:
        raise Fallback from None
    if n < 0:
        plo, phi = phi, plo
    if not (math.isfinite(plo) and math.isfinite(phi)):
        raise Fallback
    return (plo, phi, max(plo, phi) * (1.05 * abs(n) * r + LIBM) + TINY)


def _bc(op, a, b):
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            raise Fallback
        return [_bc(op, x, y) for x, y in zip(a, b)]
    if isinstance(a, list):
        return [_bc(op, x, b) for x in a]
    if isinstance(b, list):
        return [_bc(op, a, y) for y in b]
    return op(a, b)


def _add(a, b):
    lo, hi = a[0] + b[0], a[1] + b[1]
    return (lo, hi, a[2] + b[2] + max(abs(lo), abs(hi)) * 2 * U + TINY)


def _sub(a, b):
    lo, hi = a[0] - b[1], a[1] - b[0]
    return (lo, hi, a[2] + b[2] + max(abs(lo), abs(hi)) * 2 * U + TINY)


def _neg(a):
    return [_neg(x) for x in a] if isinstance(a, list) else (-a[1], -a[0], a[2])


_E = (math.e, math.e, math.e * 2 * U)
_PI = (math.pi, math.pi, math.pi * 2 * U)


def enclose(node, env, max_digits: int, max_exponent: int):
    """Float enclosure(s) of ``node`` (nested lists for lists and matrices), mirroring ``expr.evaluate``
    in interval mode; raises Fallback wherever that path might raise or behave otherwise."""
    k = node.kind
    if k == "num":
        return _num(node, max_digits, max_exponent)
    if k == "paren":
        return enclose(node.args[0], env, max_digits, max_exponent)
    if k == "neg":
        return _neg(enclose(node.args[0], env, max_digits, max_exponent))
    if k == "const":
        if node.name == "e":
            return _E
        if node.name in ("π", "pi"):
            return _PI
        raise Fallback
    if k in ("sym", "label"):
        if node.name not in env:
            raise Fallback
        try:
            f = float(env[node.name])
        except (TypeError, ValueError, OverflowError):
            raise Fallback from None
        if not math.isfinite(f):
            raise Fallback
        return (f, f, abs(f) * 2 * U + TINY)
    if k in ("list", "row", "mat"):
        if any(a.kind == "ell" for a in node.args):
            raise Fallback
        return [enclose(a, env, max_digits, max_exponent) for a in node.args]
    if k == "func":
        arg = enclose(node.args[0], env, max_digits, max_exponent)
        if isinstance(arg, list):
            raise Fallback
        if node.name == "exp":
            return _exp(arg)
        if node.name == "sqrt":
            return _sqrt(arg)
        if node.name in ("log", "ln"):
            return _log(arg)
        raise Fallback
    if k == "bin":
        op = node.op
        if op == "^":
            return _power(node, env, max_digits, max_exponent)
        a = enclose(node.args[0], env, max_digits, max_exponent)
        b = enclose(node.args[1], env, max_digits, max_exponent)
        if op == "+":
            return _bc(_add, a, b)
        if op == "-":
            return _bc(_sub, a, b)
        if op == "*":
            return _bc(_ivmul, a, b)
        if op == "/":
            return _bc(_ivdiv, a, b)
    raise Fallback


def _power(node, env, max_digits, max_exponent):
    base, ex = node.args
    if base.kind == "const" and base.name == "e":  # e^x: the exponential
        x = enclose(ex, env, max_digits, max_exponent)
        if isinstance(x, list) or not (-max_exponent < x[0] - x[2] and x[1] + x[2] < max_exponent):
            raise Fallback
        return _exp(x)
    if ex.kind != "num" or ex.num.decimals is not None or "e" in ex.num.text.lower() or len(ex.num.text) > 3:
        raise Fallback  # only small literal integer exponents: x^2, (a)^3
    n = int(ex.num.text)
    a = enclose(base, env, max_digits, max_exponent)
    if isinstance(a, list) or max(abs(a[0]), abs(a[1])) + a[2] > 1e300:
        raise Fallback
    return _ipow(a, n)


def overlap(a, b, strict: bool) -> bool | None:
    """The exact path's ``_overlap`` on enclosures: do the two sides meet, with the slack for float64
    rounding of the engine (2^-45 of the magnitude) and float32 for hand notes (2^-22 of the result)?"""
    al, ah, ea = a
    bl, bh, eb = b
    if not all(map(math.isfinite, (al, ah, ea, bl, bh, eb))):
        return None
    mag = max(abs(al), abs(ah), abs(bl), abs(bh), 1.0)
    slack = mag * 2.0**-45
    if not strict:
        slack += max(abs(bl), abs(bh)) * F32
    g1 = bh + slack - al
    g2 = ah - bl + slack
    e_in = max(ea, eb)
    err = ea + eb + e_in * (2.0**-45 + F32) + (abs(bh) + abs(al) + abs(ah) + abs(bl) + 2 * slack) * 4 * U + TINY
    if g1 > err and g2 > err:
        return True
    if g1 < -err or g2 < -err:
        return False
    return None
