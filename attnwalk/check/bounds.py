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
from decimal import Decimal
from fractions import Fraction

from .expr import MAX_DIGITS, MAX_EXPONENT, MIN_EXP_ARG, left_spine
from .indices import LONGEST, decimal_fraction, decimal_parts

U = 2.0**-53  # unit roundoff of float64
TINY = 1e-300  # absolute slack that covers underflow and subnormal rounding
F32 = 2.0**-22  # float32 allowance of hand-written notes (the exact path's F32_REL)
LIBM = 2.0**-50  # exp, log, pow of the C library: within a few ulps (glibc: < 1 ulp)
_HALF = [float(Fraction(1, 2 * 10**d)) for d in range(64)]  # half a unit of the last digit, rounded
_UNIT = [float(Fraction(1, 10**d)) for d in range(64)]
DOUBLE_PLACES = 1074  # a double is a multiple of 2**-1074: its exact decimal expansion ends within so many decimals
_HALF_ARRAY = None  # _HALF as a NumPy array, made on first use (render never imports NumPy's checks)


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


def close_strict(text: str, neg: bool, decimals: int, expected: float) -> bool:
    """The exact verdict ``checker._close`` gives a printed decimal (not truncated) of a strict note:
    |p − e| ≤ ½·10^−d, in integers (p = D/10^d, e = num/den with den a power of two), without the
    Fractions: for numbers printed with more digits than float64 can judge (an input's 16 decimals)."""
    num, den = expected.as_integer_ratio()
    if len(text) > LONGEST:  # (past int()'s 4300 digits: the exact value of its first ones)
        if decimals >= DOUBLE_PLACES and "e" not in text and "E" not in text:
            return _equal(text, neg, expected)
        p = decimal_fraction(text)
        return 2 * abs((-p if neg else p) - Fraction(num, den)) * 10**decimals <= 1
    digits = int(text.replace(".", ""))
    return 2 * abs((-digits if neg else digits) * den - num * 10**decimals) <= den


def _equal(text: str, neg: bool, expected: float) -> bool:
    """``close_strict`` of a decimal printed to ``DOUBLE_PLACES`` decimals or more: the printed value and the double
    (whose exact expansion ends by then) are both multiples of a unit of the last printed digit, so they lie within
    half of one only where they are equal. Compared as digits and a power of ten: the Fractions' 10**decimals made
    a million-digit decimal cost 0.3 s, and four times as many digits 2.8 s."""
    kept, exp = decimal_parts(text)
    if not kept or expected == 0:
        return not kept and expected == 0
    sign, digits, at = Decimal(expected).as_tuple()  # (the double's exact decimal expansion)
    sig = "".join(map(str, digits)).rstrip("0")
    return neg == bool(sign) and sig == kept and at + len(digits) - len(sig) == exp


def close_many(texts: list[str], neg: list[bool], decimals: list, truncated: list[bool], expected: list[float],
               scale: float, strict: bool):
    """``close`` of many printed numbers at once (a matrix's cells), in NumPy: a boolean array, True
    where ``close`` returns True. False means "not clearly close" (wrong, or too near the boundary):
    the caller asks ``close`` and the exact path about those one by one."""
    import numpy as np

    global _HALF_ARRAY
    if _HALF_ARRAY is None:
        _HALF_ARRAY = np.array(_HALF)
    n = len(texts)
    e = np.array(expected, dtype=float)
    try:
        p = np.array(texts, dtype=float)
    except (ValueError, OverflowError):
        return np.zeros(n, dtype=bool)
    if None not in decimals and not any(truncated):  # decimals all (a matrix's cells): the same, in NumPy
        d = np.array(decimals, dtype=np.intp)
        usable = d < len(_HALF)
        h = np.where(usable, _HALF_ARRAY[np.minimum(d, len(_HALF) - 1)], 0.0)
    else:
        usable = [not tr and (d is None or d < len(_HALF)) for d, tr in zip(decimals, truncated)]
        h = np.array([(_HALF[d] if d is not None else 0.5) if ok else 0.0 for d, ok in zip(decimals, usable)])
    p = np.where(np.array(neg, dtype=bool), -p, p)
    with np.errstate(invalid="ignore", over="ignore"):
        ae = np.abs(e)
        t = h + (0.0 if strict else F32 * np.maximum(ae, scale))
        m = t - np.abs(p - e)
        err = 4 * U * (np.abs(p) + ae + t) + TINY  # as in ``close``
        return (m > err) & np.isfinite(p) & np.isfinite(e) & np.array(usable, dtype=bool)


# ---------------------------------------------------------------- arithmetic claims


def _up(x: float) -> float:
    return abs(x) * 2 * U + TINY


def _num(node, point: bool):
    n = node.num
    text = n.text
    low = text.lower()
    if len(text) > MAX_DIGITS or ("e" in low and abs(int(low.split("e")[1])) > MAX_EXPONENT):
        raise Skip  # out of range: the exact path never evaluates it
    if n.truncated and not point:
        raise Fallback
    d = n.decimals
    if d is not None and d >= len(_HALF):
        raise Fallback
    v = float(text)
    if not math.isfinite(v):
        raise Fallback
    h = _HALF[d] if d is not None and not point and not n.given else 0.0  # a given input is exact (exact_inputs)
    if d is None and len(text) <= 15 and text.isdigit():
        return (v, v, 0.0)  # an integer below 10^15: exact in float
    lo, hi = v - h, v + h
    return (lo, hi, (abs(v) + h) * 4 * U + TINY)


def _exact_op(a, b, f):
    """Two exact points: their float result, with error 0 when it is exact (``dim * 0.5``), else None."""
    if a[2] == 0.0 == b[2] and a[0] == a[1] and b[0] == b[1]:
        r = f(a[0], b[0])
        if math.isfinite(r) and Fraction(r) == f(Fraction(a[0]), Fraction(b[0])):
            return (r, r, 0.0)
    return None


def _ivmul(a, b):
    al, ah, ea = a
    bl, bh, eb = b
    if ea == 0.0 == eb and (p := _exact_op(a, b, lambda x, y: x * y)):
        return p
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
    if e > 1e-3 or not (MIN_EXP_ARG < lo - e and hi + e < MAX_EXPONENT):  # near the exact path's bounds
        raise Fallback
    if hi + e < -700.0:  # the exact value and interval lie in (0, e^-700), below TINY
        return (0.0, 0.0, TINY)
    if lo - e < -700.0:  # float exp underflows there: its error bound would not hold
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


def _pow(a, b):
    """x^y for a clearly positive base: monotone in x and in y, so the range is the hull of the
    corners (what mpmath's exp(y·log x) encloses); |d ln(x^y)| <= |y|·dx/x + |ln x|·dy."""
    xl, xh, ex = a
    yl, yh, ey = b
    if not xl - ex > 0 or ex > xl * 1e-3:
        raise Fallback
    ln = max(abs(math.log(xl - ex)), abs(math.log(xh + ex))) * 1.01 + TINY
    rel = max(abs(yl), abs(yh)) * ex / (xl - ex) + ln * (ey + ey)
    if rel > 1e-3:
        raise Fallback
    try:
        ps = (math.pow(xl, yl), math.pow(xl, yh), math.pow(xh, yl), math.pow(xh, yh))
    except OverflowError:
        raise Fallback from None
    lo, hi = min(ps), max(ps)
    if not math.isfinite(hi):
        raise Fallback
    return (lo, hi, hi * (rel * 1.002 + LIBM) + TINY)


def _bc(op, a, b):
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            raise Skip
        return [_bc(op, x, y) for x, y in zip(a, b)]
    if isinstance(a, list):
        return [_bc(op, x, b) for x in a]
    if isinstance(b, list):
        return [_bc(op, a, y) for y in b]
    return op(a, b)


def _add(a, b):
    if a[2] == 0.0 == b[2] and (p := _exact_op(a, b, lambda x, y: x + y)):
        return p
    lo, hi = a[0] + b[0], a[1] + b[1]
    return (lo, hi, a[2] + b[2] + max(abs(lo), abs(hi)) * 2 * U + TINY)


def _sub(a, b):
    if a[2] == 0.0 == b[2] and (p := _exact_op(a, b, lambda x, y: x - y)):
        return p
    lo, hi = a[0] - b[1], a[1] - b[0]
    return (lo, hi, a[2] + b[2] + max(abs(lo), abs(hi)) * 2 * U + TINY)


def _neg(a):
    return [_neg(x) for x in a] if isinstance(a, list) else (-a[1], -a[0], a[2])


_E = (math.e, math.e, math.e * 2 * U)
_PI = (math.pi, math.pi, math.pi * 2 * U)


class Skip(Exception):
    """The exact path certainly raises on this expression (an elision, an unknown name, a formula it
    cannot read): it checks nothing there, and neither does the float path."""


class PointOnly(Exception):
    """The exact path's interval evaluation gives up here (``//``, ``int`` of a wide interval) and it
    uses the exact value instead: so does the float path (``claim``)."""


def claim(node, env):
    """Float enclosure(s) of the interval the exact path (``checker._interval``) computes for
    ``node``; raises Skip where it raises, Fallback where the float path cannot be sure."""
    try:
        return _enc(node, env)
    except PointOnly:
        return _as_point(_rat(node, env))


def _as_point(q):
    if isinstance(q, list):
        return [_as_point(x) for x in q]
    f = float(q)  # the exact path's point is q to 40 digits: far inside |f|·2U
    return (f, f, abs(f) * 2 * U + TINY)


def _rat(node, env):
    """The exact value where it is rational (config lines: ``dim // num_heads``, ``int(4 * 0.5)``),
    as ``expr.evaluate`` computes it; Fallback where it is not (exp, sqrt: the sympy path)."""
    k = node.kind
    if k == "num":
        _num(node, True)  # the same range checks
        return Fraction(node.num.text)
    if k == "paren":
        return _rat(node.args[0], env)
    if k == "neg":
        v = _rat(node.args[0], env)
        return _bc(lambda x, _: -x, v, 0)
    if k == "const":
        if node.name == "∞":
            raise Skip
        raise Fallback
    if k in ("sym", "label"):
        if node.name not in env:
            raise Skip
        return Fraction(env[node.name])
    if k in ("list", "row"):
        if any(a.kind == "ell" for a in node.args):
            raise Skip
        return [_rat(a, env) for a in node.args]
    if k == "mat":
        return [_rat(a, env) for a in node.args]
    if k == "func":
        arg = _rat(node.args[0], env)
        if isinstance(arg, list) and node.name not in ("max", "min"):
            raise Skip
        if node.name == "int" and not isinstance(arg, list):
            return Fraction(math.floor(arg) if arg >= 0 else math.ceil(arg))
        if node.name in ("exp", "sqrt", "log", "ln", "int"):
            raise Fallback
        raise Skip
    if k == "bin" and node.op in ("+", "-"):
        first, steps = left_spine(node)  # a long sum: a loop, left to right, as the recursion would go
        acc = _rat(first, env)
        for op, right in steps:
            acc = _bc((lambda x, y: x + y) if op == "+" else (lambda x, y: x - y), acc, _rat(right, env))
        return acc
    if k == "bin":
        op = node.op
        if op not in ("+", "-", "*", "/", "//", "^"):
            raise Skip
        a, b = _rat(node.args[0], env), _rat(node.args[1], env)
        if op in ("/", "//") and _has_zero(b):
            raise Skip  # the exact path: "division by zero", not evaluated
        if op == "+":
            return _bc(lambda x, y: x + y, a, b)
        if op == "-":
            return _bc(lambda x, y: x - y, a, b)
        if op == "*":
            return _bc(lambda x, y: x * y, a, b)
        if op == "/":
            return _bc(lambda x, y: x / y, a, b)
        if op == "//":
            return _bc(lambda x, y: Fraction(math.floor(x / y)), a, b)
        if isinstance(a, list) or isinstance(b, list) or b.denominator != 1 or abs(b) > 64 or a <= 0 \
                or a > 10**300:
            raise Fallback
        return a ** int(b)
    raise Skip


def _has_zero(v) -> bool:
    return any(_has_zero(x) for x in v) if isinstance(v, list) else v == 0


def _floor_sure(lo: float, hi: float, e: float, f) -> float:
    a, b = f(lo - e), f(hi + e)
    if a != b:
        raise Fallback
    return float(a)


def _enc(node, env):
    """``expr.evaluate`` in interval mode, in float enclosures."""
    k = node.kind
    if k == "num":
        return _num(node, False)
    if k == "paren":
        return _enc(node.args[0], env)
    if k == "neg":
        return _neg(_enc(node.args[0], env))
    if k == "const":
        if node.name == "∞":
            raise Skip
        return _E if node.name == "e" else _PI
    if k in ("sym", "label"):
        if node.name not in env:
            raise Skip
        try:
            q = env[node.name]
            f = float(q)
        except (TypeError, ValueError, OverflowError):
            raise Fallback from None
        if not math.isfinite(f):
            raise Fallback
        # f == q, for a Fraction (what names hold) by the two lowest-terms ratios (not Fraction.__eq__'s from_float)
        exact = f.as_integer_ratio() == (q.numerator, q.denominator) if type(q) is Fraction else f == q
        return (f, f, 0.0 if exact else abs(f) * 2 * U + TINY)  # labels hold floats: exact
    if k in ("list", "row"):
        if any(a.kind == "ell" for a in node.args):
            raise Skip
        return [_enc(a, env) for a in node.args]
    if k == "mat":
        return [_enc(a, env) for a in node.args]
    if k == "func":
        arg = _enc(node.args[0], env)
        if isinstance(arg, list) and node.name not in ("max", "min"):
            raise Skip
        if node.name == "exp":
            return _exp(arg)
        if node.name == "sqrt":
            return _sqrt(arg)
        if node.name in ("log", "ln"):
            return _log(arg)
        if node.name == "int" and not isinstance(arg, list):
            return _int(arg)
        if node.name == "int":
            raise Fallback
        raise Skip
    if k == "bin" and node.op in ("+", "-"):
        first, steps = left_spine(node)  # a long sum: a loop, left to right, as the recursion would go
        acc = _enc(first, env)
        for op, right in steps:
            acc = _bc(_add if op == "+" else _sub, acc, _enc(right, env))
        return acc
    if k == "bin":
        op = node.op
        if op not in ("+", "-", "*", "/", "//", "^"):
            raise Skip
        if op == "^" and node.args[0].kind == "const" and node.args[0].name == "e":
            x = _enc(node.args[1], env)  # e^x: the exponential
            if isinstance(x, list) or not (-MAX_EXPONENT < x[0] - x[2] and x[1] + x[2] < MAX_EXPONENT):
                raise Fallback
            return _exp(x)
        a = _enc(node.args[0], env)
        b = _enc(node.args[1], env)
        if op == "+":
            return _bc(_add, a, b)
        if op == "-":
            return _bc(_sub, a, b)
        if op == "*":
            return _bc(_ivmul, a, b)
        if op == "/":
            return _bc(_ivdiv, a, b)
        if op == "//":
            raise PointOnly
        if isinstance(a, list) or isinstance(b, list):
            raise Fallback
        if not (-MAX_EXPONENT < b[0] - b[2] and b[1] + b[2] < MAX_EXPONENT) or max(abs(a[0]), abs(a[1])) + a[2] > 1e300:
            raise Fallback  # near the exact path's bounds on powers
        return _pow(a, b)
    raise Skip


def _point(v: float):
    return (v, v, 0.0)


def _int(a):
    """mpmath's interval int(): the floor of a point (or of an interval within one integer), else
    the exact path gives up on the interval (PointOnly)."""
    lo, hi, e = a
    if math.trunc(lo + e) < math.trunc(hi - e):  # int(a) != int(b): the interval path gives up
        raise PointOnly
    _floor_sure(lo, hi, e, math.trunc)  # int(a) == int(b) for sure
    return _point(_floor_sure(lo, lo, e, math.floor))


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
