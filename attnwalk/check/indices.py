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


def decimal_parts(text: str) -> tuple[str, int]:
    """The value ``decimal_fraction`` reads from a long printed decimal (digits and a point, no e-notation) as
    (its significant digits, no zeros either end; the power of ten they are multiplied by): the form two such values
    are compared in without building them (``bounds.close_strict``: 10**1000000 is no cheap number)."""
    whole, _, frac = text.partition(".")
    digits = (whole + frac).lstrip("0")
    exp = -len(frac)  # the value is int(digits) * 10**exp
    kept = digits.rstrip("0")
    exp += len(digits) - len(kept)
    if len(kept) > LONGEST:
        exp += len(kept) - LONGEST
        kept = kept[:LONGEST]
        exp += len(kept) - len(kept.rstrip("0"))  # (the first ones may end in zeros: one form for each value)
        kept = kept.rstrip("0")
    return kept, min(exp, PAST_FLOATS)


def decimal_fraction(text: str) -> Fraction:
    """``Fraction(text)`` of a printed number (digits and a point, or e-notation), whatever its length: past
    ``LONGEST`` significant digits, its first ``LONGEST`` at their place, a power of ten past 10**PAST_FLOATS read as
    that (past every float either way: no verdict against a tensor's value changes)."""
    if len(text) <= LONGEST or "e" in text or "E" in text:
        return Fraction(text)
    kept, exp = decimal_parts(text)
    return Fraction(int(kept or "0") * 10 ** max(exp, 0), 10 ** max(-exp, 0))
