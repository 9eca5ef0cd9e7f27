"""Memory for the large recorded tensors: 4 KiB pages, and buffers reused from one forward to the next.

At N = 4096 a forward records four N×N tensors (2.1 GB), and on a virtual machine the first
touch of fresh memory is what costs most: the kernel zeroes every page, and when the VM's
balloon reports free 2 MiB blocks to the host (virtio free page reporting), the host has to back
them again. NumPy asks for transparent huge pages on large arrays; those are taken from exactly
such reported blocks, and faulting them in cost 2.5-3 s per GB here against 0.5-1.9 s for 4 KiB
pages (README, Performance). So within a forward the engine allocates with 4 KiB pages, as
PyTorch does, and the N×N stages come from buffers that go back into use once no array refers
to them any more: a second forward of the same size touches no fresh page.

Buffers that no array uses are kept until the next forward (which reuses or drops them) or
``release()``. None of this changes a computed bit.
"""

from __future__ import annotations

import contextlib
import functools
import math
import os
import sys
import threading

import numpy as np

POOL_MIN_BYTES = 1 << 25  # smaller arrays come from malloc as usual: their first touch is cheap
REUSE = True  # False: every large array fresh (the benchmark's "before")
HUGE_PAGES = False  # True: NumPy's default, madvise(MADV_HUGEPAGE) on large arrays

_pool: list[np.ndarray] = []  # 1-D float64 buffers; the arrays handed out are views of them
_lock = threading.Lock()


def _refs(buf) -> int:
    return sys.getrefcount(buf)


# What _refs counts for an object only a list holds (the list, the argument, getrefcount's own: the
# count depends on the Python version); every array on a buffer holds one more.
_SENTINEL = [object()]
_FREE_REFS = _refs(_SENTINEL[0])


def _unused(i: int) -> bool:
    return _refs(_pool[i]) <= _FREE_REFS


def empty(shape: tuple[int, ...]) -> np.ndarray:
    """An uninitialised float64 C-contiguous array of ``shape``, from a reused buffer when large.

    The array is a view of its buffer (``Trace.record(..., fresh=True)`` keeps it as is); its
    buffer is reused once the array and every view of it are gone.
    """
    nbytes = 8 * math.prod(shape)
    if not REUSE or nbytes < POOL_MIN_BYTES:
        return np.empty(shape)
    n = nbytes // 8
    with _lock:
        buf = next((_pool[i] for i in range(len(_pool)) if _pool[i].size == n and _unused(i)), None)
        if buf is None:
            # buffers of another size left by an earlier problem go before this one allocates
            _pool[:] = [_pool[i] for i in range(len(_pool)) if _pool[i].size == n or not _unused(i)]
            with _small_pages():
                buf = np.empty(n)
            _pool.append(buf)
        return buf.reshape(shape)


def release() -> int:
    """Drop every buffer no array uses (its memory goes back to the system); bytes released."""
    with _lock:
        keep, freed = [], 0
        for i in range(len(_pool)):
            if _unused(i):
                freed += _pool[i].nbytes
            else:
                keep.append(_pool[i])
        _pool[:] = keep
    return freed


def retained() -> int:
    """Bytes of buffers kept that no array uses."""
    with _lock:
        return sum(_pool[i].nbytes for i in range(len(_pool)) if _unused(i))


_switch_lock = threading.Lock()
_switch_depth = [0, True]  # forwards inside _small_pages, NumPy's setting before the first


@contextlib.contextmanager
def _small_pages():
    """NumPy's own large allocations with 4 KiB pages for the duration. The switch is process-wide:
    the first of concurrent forwards sets it, the last one restores it."""
    switch = _madvise_switch()
    if switch is None:  # a NumPy without the (private) switch: its own default, nothing to restore
        yield
        return
    with _switch_lock:
        if _switch_depth[0] == 0:
            _switch_depth[1] = switch(HUGE_PAGES)
        _switch_depth[0] += 1
    try:
        yield
    finally:
        with _switch_lock:
            _switch_depth[0] -= 1
            if _switch_depth[0] == 0:
                switch(_switch_depth[1])


def _madvise_switch():
    """NumPy's ``_set_madvise_hugepage`` (private: where this NumPy has it), else None."""
    core = getattr(np, "_core", None) or getattr(np, "core", None)
    return getattr(getattr(core, "multiarray", None), "_set_madvise_hugepage", None)


def forward_scope(fn):
    """Decorate an engine's forward: its allocations on 4 KiB pages; afterwards, every buffer that
    this forward did not reuse and no array uses is released, so at most one forward's worth waits."""
    @functools.wraps(fn)
    def run(*args, **kwargs):
        with _small_pages():
            result = fn(*args, **kwargs)
        release()
        return result
    return run


def _after_fork() -> None:
    # A child starts with a lock no thread of its own holds and no buffers to share (a reused buffer
    # would be copied page by page on its first write).
    global _lock, _switch_lock
    _lock, _switch_lock = threading.Lock(), threading.Lock()
    _pool.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)
