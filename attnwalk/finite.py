"""Non-finite numbers: refuse them in inputs, and find the first step where a trace overflows."""

from __future__ import annotations

import numpy as np

from .errors import ConfigError

# Steps where -inf is by design (a -inf mask fill and what follows from it) rather than overflow.
MASKED_STEPS = ("scores_masked", "scores_masked_raw", "row_max")


def as_real(option: str, value, what: str = "values") -> np.ndarray:
    """``value`` as a finite float64 array; complex, non-numeric and non-finite input refused."""
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError, OverflowError) as err:
        raise ConfigError(option, f"not an array of numbers ({err}); allowed: finite real {what}") from None
    if arr.dtype.kind == "c":
        raise ConfigError(option, f"complex {what}; allowed: finite real {what}")
    if arr.dtype.kind not in "biuf":
        raise ConfigError(option, f"got dtype {arr.dtype}; allowed: finite real {what}")
    try:
        arr = arr.astype(np.float64)
    except OverflowError:
        raise ConfigError(option, f"a value overflows float64; allowed: finite real {what}") from None
    if not np.isfinite(arr).all():
        bad = tuple(int(i) for i in np.argwhere(~np.isfinite(arr))[0])
        raise ConfigError(option, f"{arr[bad]} at index {list(bad)}; allowed: finite real {what}")
    return arr


def first_overflow(trace) -> tuple[str, tuple[int, ...], float] | None:
    """(step, index, value) of the first non-finite value the trace records, else None.

    A -inf mask fill is by design: in the masked scores, the -inf are skipped there.
    """
    for name, step in trace.steps.items():
        if getattr(step, "lazy", False) and step.finite:
            continue  # a stage the engine kept as a recipe and saw finite: not computed just to look
        data = step.data
        bad = ~np.isfinite(data)
        if name in MASKED_STEPS:
            bad &= ~np.isneginf(data)
        if bad.any():
            index = tuple(int(i) for i in np.argwhere(bad)[0])
            return name, index, float(data[index])
    return None


def require_finite(trace, option: str) -> None:
    """ConfigError naming the step where the numbers stopped being finite (overflow)."""
    found = first_overflow(trace)
    if found is None:
        return
    name, index, value = found
    formula = trace.steps[name].formula
    raise ConfigError(option, f"the numbers overflow float64 at step {name} ({formula}), index {list(index)}: "
                              f"{value}; allowed: inputs and weights small enough that every step stays finite "
                              "(below about 1e150 in magnitude)")
