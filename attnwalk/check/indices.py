"""A note's digits read as numbers whatever their length: an index, head or row number as an int, a printed decimal
as its exact Fraction.

``int()`` refuses a string of more than 4300 digits (Python's guard against quadratic conversions), so a hostile
note's ``Token 99..9`` or ``S[99..9, 0]`` raised a ValueError out of check (a traceback). No tensor has 10**18 rows:
a number past that is read as 10**18, out of range as the number itself is, and every smaller one as it is.
"""

from __future__ import annotations

from fractions import Fraction

BEYOND = 10**18  # past every axis of every trace
LONGEST = 4000  # significant digits of a printed decimal read exactly (int() refuses past 4300)
PAST_FLOATS = 400  # a power of ten past every float's magnitude (10**308)


def index_int(digits: str) -> int:
    """``int(digits)`` for a run of digits (leading zeros allowed), ``BEYOND`` where it is larger."""
    significant = digits.lstrip("0")
    return int(significant or "0") if len(significant) <= 18 else BEYOND


def decimal_fraction(text: str) -> Fraction:
    """``Fraction(text)`` of a printed number (digits and a point, or e-notation), whatever its length: past
    ``LONGEST`` significant digits, its first ``LONGEST`` at their place, a power of ten past 10**PAST_FLOATS read as
    that (past every float either way: no verdict against a tensor's value changes)."""
    if len(text) <= LONGEST or "e" in text or "E" in text:
        return Fraction(text)
    whole, _, frac = text.partition(".")
    digits = (whole + frac).lstrip("0")
    exp = -len(frac)  # the value is int(digits) * 10**exp
    kept = digits.rstrip("0")
    exp += len(digits) - len(kept)
    if len(kept) > LONGEST:
        exp += len(kept) - LONGEST
        kept = kept[:LONGEST]
    exp = min(exp, PAST_FLOATS)
    return Fraction(int(kept or "0") * 10 ** max(exp, 0), 10 ** max(-exp, 0))
