"""A note's index, head or row number read as an int, whatever its length.

``int()`` refuses a string of more than 4300 digits (Python's guard against quadratic conversions), so a hostile
note's ``Token 99..9`` or ``S[99..9, 0]`` raised a ValueError out of check (a traceback). No tensor has 10**18 rows:
a number past that is read as 10**18, out of range as the number itself is, and every smaller one as it is.
"""

from __future__ import annotations

BEYOND = 10**18  # past every axis of every trace


def index_int(digits: str) -> int:
    """``int(digits)`` for a run of digits (leading zeros allowed), ``BEYOND`` where it is larger."""
    significant = digits.lstrip("0")
    return int(significant or "0") if len(significant) <= 18 else BEYOND
