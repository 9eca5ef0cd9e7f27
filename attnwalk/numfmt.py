"""Printing numbers: correctly rounded, never ``-0.0000``, the same everywhere (DESIGN §6)."""

from __future__ import annotations

import math


def fmt(value: float, decimals: int) -> str:
    """``value`` correctly rounded to ``decimals`` places (Python rounds the exact binary value)."""
    v = float(value)
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "-inf" if v < 0 else "inf"
    s = f"{v:.{decimals}f}"
    if s.startswith("-") and s.strip("-0.") == "":
        s = s[1:]  # a negative number that rounds to zero prints as zero
    return s


def fmt_list(values, decimals: int, sep: str = ", ") -> str:
    return sep.join(fmt(v, decimals) for v in values)

