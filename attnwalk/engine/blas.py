"""OpenBLAS threads: one for a small note (a second thread costs ~50 ms of start-up on its
own), every CPU again once a problem is large enough to use them."""

from __future__ import annotations

import os
import sys

_MARK = "ATTNWALK_BLAS_NARROWED"  # set when the CLI, not the user, chose one BLAS thread
_SETTERS = ("scipy_openblas_set_num_threads64_", "scipy_openblas_set_num_threads",
            "openblas_set_num_threads64_", "openblas_set_num_threads")
WIDEN_FLOPS = 5e7  # below this, one thread is as fast as two
# OpenBLAS's idle workers spin (sched_yield in a loop) for 2**28 TSC cycles (~0.1 s here) after each
# call before they sleep: after the scores matmul that spinning took a CPU from the softmax threads
# (0.1-0.2 s of CPU per forward at N = 4096). 2**20 cycles (~0.4 ms) still bridges back-to-back calls.
SPIN_TIMEOUT = "20"


def narrow_for_startup() -> None:
    """Before NumPy is imported (the CLI's first act): one OpenBLAS thread and a short spin of its
    idle workers, unless the user chose (OPENBLAS_NUM_THREADS, OPENBLAS_THREAD_TIMEOUT)."""
    if "numpy" in sys.modules:
        return
    os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", SPIN_TIMEOUT)
    if "OPENBLAS_NUM_THREADS" in os.environ:
        return
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    os.environ[_MARK] = "1"


def widen_for(flops: float) -> None:
    """Give BLAS every usable CPU for a problem of ``flops``, if narrow_for_startup narrowed it."""
    if os.environ.get(_MARK) != "1" or flops < WIDEN_FLOPS:
        return
    setter = _openblas_setter()
    if setter is not None:
        setter(worker_count())
    os.environ[_MARK] = "widened"


def _openblas_setter():
    """OpenBLAS's set_num_threads from the library NumPy loaded (found in /proc/self/maps), or None."""
    import ctypes

    try:
        with open("/proc/self/maps", encoding="utf-8") as fh:
            paths = sorted({line.split()[-1] for line in fh if "openblas" in line.lower() and "/" in line})
    except OSError:
        return None
    for path in paths:
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for name in _SETTERS:
            if hasattr(lib, name):
                fn = getattr(lib, name)
                fn.argtypes, fn.restype = [ctypes.c_int], None
                return fn
    return None


def worker_count() -> int:
    """Threads for elementwise stages: the CPUs this process may use (``ATTNWALK_THREADS`` overrides)."""
    env = os.environ.get("ATTNWALK_THREADS")
    if env and env.isdigit() and int(env) > 0:
        return int(env)
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1
