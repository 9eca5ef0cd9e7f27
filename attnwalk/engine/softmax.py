"""Row softmax with its parts recorded: row max, exponentials, row sum (DESIGN §4).

The stages run block by block over rows that fit in cache, on a few threads for large
score matrices (NumPy releases the GIL in its loops). Every stage is elementwise or a
reduction within one row, so the blocking changes no bit of the result.

The forward writes only ``attn`` of the N×N stages it computes (PyTorch's softmax writes its
output alone too): ``scores_scaled`` and ``exp`` are recorded as recipes (``LazyRows``) that
their first read runs, by the same operations on the same values, so the bytes are those the
forward would have written. At N = 4096 each N×N float64 array written is ~131k fresh 4 KiB
pages; not writing two of them is what brings a first forward under PyTorch's
(docs/performance.md).
"""

from __future__ import annotations

import math
import threading

import numpy as np

from ..trace import Trace
from . import pages
from .blas import worker_count

# exp(x) is exactly 0.0 in float64 for x < -746 (below half the smallest subnormal); NumPy
# takes a slow path for such x, so they are set to 0 instead of computed.
EXP_ZERO_BELOW = -746.0
_BLOCK_BYTES = 1 << 18  # rows per block: about 256 KiB of scores, so the stages stay in L2
_PARALLEL_MIN = 1 << 20  # fewer elements than this: one thread (a pool costs more than it saves)
LAZY = True  # False: scores_scaled and exp written by the forward (the engine before; tests compare the two)


def record_softmax(trace: Trace, scores: np.ndarray, row_axes: tuple[str, ...],
                   scale: float | None = None, scaled_axes: tuple[str, ...] | None = None) -> np.ndarray:
    """Softmax over the last axis (keys j) of ``scores``, recording each stage.

    With ``scale``, ``scores * scale`` is recorded first as ``scores_scaled`` (``scaled_axes``)
    and is what the softmax reads. The row max is subtracted before exp (as every real
    implementation does, so that exp never overflows); it cancels in the ratio, so ``attn``
    is the textbook softmax.
    """
    if LAZY:
        return _record_softmax_lazy(trace, scores, row_axes, scale, scaled_axes)
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


def _record_softmax_lazy(trace: Trace, scores: np.ndarray, row_axes: tuple[str, ...],
                         scale: float | None, scaled_axes: tuple[str, ...] | None) -> np.ndarray:
    """``record_softmax`` writing ``attn`` alone: each block of rows is scaled, shifted, exponentiated
    and divided in ``attn``'s own buffer; ``scores_scaled`` and ``exp`` are recorded as recipes."""
    n, nrows = scores.shape[-1], math.prod(scores.shape[:-1])
    rows = scores.reshape(nrows, n)
    row_max = np.empty(scores.shape[:-1])
    row_sum = np.empty(scores.shape[:-1])
    attn = pages.empty(scores.shape)
    flat, rm, rs = attn.reshape(nrows, n), row_max.reshape(-1), row_sum.reshape(-1)
    unsure = []  # blocks whose scaled scores may hold a non-finite value (list.append is atomic)

    def block(lo: int, hi: int) -> None:
        x = flat[lo:hi]
        s = rows[lo:hi] if scale is None else np.multiply(rows[lo:hi], scale, out=x)
        m = np.max(s, axis=-1, out=rm[lo:hi])
        np.subtract(s, m[:, None], out=x)
        low = _exp_inplace(x)
        # A NaN or +inf scaled score makes its row's max non-finite; a -inf one makes min(s - m) -inf.
        if not (low > -np.inf and np.isfinite(m).all()):
            unsure.append(lo)
        total = np.sum(x, axis=-1, out=rs[lo:hi])
        np.divide(x, total[:, None], out=x)

    if n == 0:
        row_max.fill(-np.inf)  # what .max would refuse; no row has a key
        row_sum.fill(0.0)
    else:
        _run_blocks(block, rows.shape[0], n)
    if scale is not None:
        scaled = LazyRows(scores.shape, _scaled_rows(rows, scale), finite=not unsure)
        trace.record("scores_scaled", scaled, scaled_axes or row_axes + ("key",), "scale")
    trace.record("row_max", row_max, row_axes, "row_max")
    # exp is in [0, 1] or NaN (s - m <= 0 for a finite max), so it is finite exactly where the row sums are.
    e = LazyRows(scores.shape, _exp_rows(rows, scale, rm.copy()), finite=bool(np.isfinite(row_sum).all()))
    trace.record("exp", e, row_axes + ("key",), "exp")
    trace.record("row_sum", row_sum, row_axes, "row_sum")
    return trace.record("attn", attn, row_axes + ("key",), "softmax", fresh=True)


def _scaled_rows(rows: np.ndarray, scale: float):
    """``scores * scale`` for rows lo:hi, as the forward computes it."""
    def fill(lo: int, hi: int, out: np.ndarray) -> None:
        np.multiply(rows[lo:hi], scale, out=out)
    return fill


def _exp_rows(rows: np.ndarray, scale: float | None, rm: np.ndarray):
    """``exp(scaled - row_max)`` for rows lo:hi, by the forward's operations in its order."""
    def fill(lo: int, hi: int, out: np.ndarray) -> None:
        s = rows[lo:hi] if scale is None else np.multiply(rows[lo:hi], scale, out=out)
        np.subtract(s, rm[lo:hi, None], out=out)
        _exp_inplace(out)
    return fill


class LazyRows:
    """A recorded N×N stage kept as its recipe: ``fill(lo, hi, out)`` writes rows lo:hi (of the tensor
    seen as (-1, n)) into ``out``. ``materialise()`` computes the whole tensor once (the forward's
    blocks and threads) and keeps it; ``rows`` computes a few rows alone. It holds its inputs (the
    recorded scores and a copy of the row max), so dropping them from the trace changes nothing."""

    def __init__(self, shape: tuple[int, ...], fill, finite: bool = False):
        self.shape, self.finite = tuple(shape), finite
        self._fill, self._array, self._lock = fill, None, threading.Lock()

    def rows(self, lo: int, hi: int) -> np.ndarray:
        if self._array is not None:
            return self._array.reshape(math.prod(self.shape[:-1]), self.shape[-1])[lo:hi].copy()
        out = np.empty((hi - lo, self.shape[-1]))
        with np.errstate(all="ignore"):  # the forward met these values already (and warned, where it was asked to)
            self._fill(lo, hi, out)
        return out

    def __reduce__(self):
        # pickled (or deep-copied) as the tensor itself: a recipe's closures and lock cannot be
        return (np.asarray, (self.materialise(),))

    def materialise(self) -> np.ndarray:
        with self._lock:
            if self._array is None:
                arr = pages.empty(self.shape)
                if arr.size:
                    flat = arr.reshape(math.prod(self.shape[:-1]), self.shape[-1])
                    fill = self._fill

                    def block(lo: int, hi: int) -> None:
                        with np.errstate(all="ignore"):  # per thread: NumPy's error state is thread-local
                            fill(lo, hi, flat[lo:hi])

                    _run_blocks(block, flat.shape[0], flat.shape[1])
                self._array, self._fill = arr, None  # the inputs are no longer needed here
        return self._array


def _exp_inplace(x: np.ndarray) -> float:
    """``x = exp(x)``, with exp computed only where the result is not exactly 0; returns min(x) before
    (0.0 for an empty x)."""
    low = x.min() if x.size else 0.0
    if low < EXP_ZERO_BELOW:
        keep = x >= EXP_ZERO_BELOW
        np.exp(x, out=x, where=keep)
        x[~keep] = 0.0
    else:
        np.exp(x, out=x)
    return low


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
