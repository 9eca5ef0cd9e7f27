"""Row softmax with its parts recorded: row max, exponentials, row sum (DESIGN §4).

The stages run block by block over rows that fit in cache, on a few threads for large
score matrices (NumPy releases the GIL in its loops). Every stage is elementwise or a
reduction within one row, so the blocking changes no bit of the result.
"""

from __future__ import annotations

import numpy as np

from ..trace import Trace
from . import pages
from .blas import worker_count

# exp(x) is exactly 0.0 in float64 for x < -746 (below half the smallest subnormal); NumPy
# takes a slow path for such x, so they are set to 0 instead of computed.
EXP_ZERO_BELOW = -746.0
_BLOCK_BYTES = 1 << 18  # rows per block: about 256 KiB of scores, so the stages stay in L2
_PARALLEL_MIN = 1 << 20  # fewer elements than this: one thread (a pool costs more than it saves)


def record_softmax(trace: Trace, scores: np.ndarray, row_axes: tuple[str, ...],
                   scale: float | None = None, scaled_axes: tuple[str, ...] | None = None) -> np.ndarray:
    """Softmax over the last axis (keys j) of ``scores``, recording each stage.

    With ``scale``, ``scores * scale`` is recorded first as ``scores_scaled`` (``scaled_axes``)
    and is what the softmax reads. The row max is subtracted before exp (as every real
    implementation does, so that exp never overflows); it cancels in the ratio, so ``attn``
    is the textbook softmax.
    """
    n = scores.shape[-1]
    rows = scores.reshape(-1, n) if scores.size else scores.reshape(0, n)
    scaled = pages.empty(scores.shape) if scale is not None else None
    row_max = np.empty(scores.shape[:-1])
    e = pages.empty(scores.shape)
    row_sum = np.empty(scores.shape[:-1])
    attn = pages.empty(scores.shape)
    flat = [None if a is None else a.reshape(-1, n) for a in (scaled, e, attn)]
    rm, rs = row_max.reshape(-1), row_sum.reshape(-1)

    def block(lo: int, hi: int) -> None:
        s = rows[lo:hi]
        if scaled is not None:
            s = np.multiply(s, scale, out=flat[0][lo:hi])
        m = np.max(s, axis=-1, out=rm[lo:hi]) if n else rm[lo:hi]
        x = np.subtract(s, m[:, None], out=flat[1][lo:hi])
        _exp_inplace(x)
        total = np.sum(x, axis=-1, out=rs[lo:hi])
        np.divide(x, total[:, None], out=flat[2][lo:hi])

    if n == 0:
        row_max.fill(-np.inf)  # what .max would refuse; no row has a key
        row_sum.fill(0.0)
    else:
        _run_blocks(block, rows.shape[0], n)
    if scaled is not None:
        trace.record("scores_scaled", scaled, scaled_axes or row_axes + ("key",), "scale", fresh=True)
    trace.record("row_max", row_max, row_axes, "row_max")
    trace.record("exp", e, row_axes + ("key",), "exp", fresh=True)
    trace.record("row_sum", row_sum, row_axes, "row_sum")
    return trace.record("attn", attn, row_axes + ("key",), "softmax", fresh=True)


def _exp_inplace(x: np.ndarray) -> None:
    """``x = exp(x)``, with exp computed only where the result is not exactly 0."""
    if x.size and x.min() < EXP_ZERO_BELOW:
        keep = x >= EXP_ZERO_BELOW
        np.exp(x, out=x, where=keep)
        x[~keep] = 0.0
    else:
        np.exp(x, out=x)


def _run_blocks(block, nrows: int, n: int) -> None:
    """Call ``block(lo, hi)`` over row ranges covering ``nrows``, on threads when large."""
    step = max(1, _BLOCK_BYTES // (8 * n))
    ranges = [(lo, min(lo + step, nrows)) for lo in range(0, nrows, step)]
    workers = min(worker_count(), len(ranges))
    if nrows * n < _PARALLEL_MIN or workers < 2:
        for lo, hi in ranges:
            block(lo, hi)
        return
    # Each thread takes the next block from one shared iterator (next() on a list iterator is
    # atomic under the GIL): when another process holds a CPU, the other threads take over its
    # share instead of waiting for it, as fixed shares would.
    todo = iter(ranges)

    def run():
        for lo, hi in todo:
            block(lo, hi)

    from concurrent.futures import ThreadPoolExecutor  # here: a small note runs one thread (~2 ms of start-up)

    with ThreadPoolExecutor(workers) as pool:
        for f in [pool.submit(run) for _ in range(workers)]:
            f.result()
