"""Row softmax with its parts recorded: row max, exponentials, row sum (DESIGN §4)."""

from __future__ import annotations

import numpy as np

from ..trace import Trace


def record_softmax(trace: Trace, scores: np.ndarray, row_axes: tuple[str, ...]) -> np.ndarray:
    """Softmax over the last axis (keys j) of ``scores``, recording each stage.

    The row max is subtracted before exp (as every real implementation does, so that exp
    never overflows); it cancels in the ratio, so ``attn`` is the textbook softmax.
    """
    row_max = trace.record("row_max", scores.max(axis=-1), row_axes, "row_max")
    e = trace.record("exp", np.exp(scores - row_max[..., None]), row_axes + ("key",), "exp")
    row_sum = trace.record("row_sum", e.sum(axis=-1), row_axes, "row_sum")
    return trace.record("attn", e / row_sum[..., None], row_axes + ("key",), "softmax")
