"""``attnwalk check`` of many files over forked worker processes, as ``build`` renders: each file is checked by one
worker, whose output lines are recorded and written by this process in the order of the arguments, so the bytes
(stdout, stderr, the JSON document) and the exit status are the same as one process's. One process where fork is
missing, where one CPU may be used (``ATTNWALK_THREADS=1``), for fewer than ``MIN_FILES`` files, or inside a
forked process already (a ``build`` or ``check`` worker). A worker that dies or raises costs nothing but time:
its files, and every file after the first not reported, are checked again in this process.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from contextlib import closing

# Fewer files than this: one process. Each worker's first note pays again the regexes and caches one process
# compiles once (~40-60 ms of CPU beyond a warm check); two files would split one cold check and one warm one, a
# gain within that cost. (An estimate: the crossover was not measured; 18 course notes on an idle 2-core machine
# take 0.69 of one process's wall time.)
MIN_FILES = 3

_forked = False  # True in a process forked from this one (a build or check worker): it never forks again


def _mark_forked() -> None:
    global _forked
    _forked = True


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_mark_forked)

# one(path, results) -> status: checks one file, writing its lines to sys.stdout / sys.stderr and its JSON
# entries to ``results``, exactly as the one-process loop does
Check = Callable[[str, list], int]


def workers_for(files: list) -> int:
    """Worker processes for checking ``files``: 0 (this process checks them) or 2+."""
    if _forked or len(files) < MIN_FILES:  # (before the import: multiprocessing costs a one-file check ~6-12 ms)
        return 0
    import multiprocessing as mp

    if "fork" not in mp.get_all_start_methods():
        return 0
    from ..engine.blas import worker_count  # ATTNWALK_THREADS, else the CPUs this process may use

    n = min(worker_count(), len(files))
    return n if n >= 2 else 0


def check_all(files: list, one: Check, results: list, workers: int | None = None) -> int:
    """``one`` over ``files`` (over ``workers`` processes, default ``workers_for``); the worst status."""
    workers = workers_for(files) if workers is None else workers
    if workers < 2:
        return max((one(path, results) for path in files), default=0)
    status, done = 0, 0
    with closing(_in_workers(files, one, workers)) as each:
        while done < len(files):
            try:
                events, entries, code = next(each)
            except Exception:  # noqa: BLE001 - a worker killed, the pool broken: the files left are checked here
                break
            if code is None:  # the worker raised: this process checks it (and raises, as one process would)
                break
            _replay(events)  # (not guarded: a write that fails here fails as one process's would)
            results.extend(entries)
            status = max(status, code)
            done += 1
    for path in files[done:]:
        status = max(status, one(path, results))
    return status


def _in_workers(files: list, one: Check, workers: int):
    """(events, JSON entries, status or None where ``one`` raised) of each file, in the order of ``files``; the
    largest files are handed out first, so that no worker is left with a large one at the end."""
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor

    global _one
    _warm()
    _one = one  # the workers inherit it (a closure cannot be pickled to them)
    by_size = sorted(range(len(files)), key=lambda k: -_size(files[k]))
    with ProcessPoolExecutor(workers, mp_context=mp.get_context("fork")) as pool:
        futures = {k: pool.submit(_recorded, files[k]) for k in by_size}
        try:
            for k in range(len(files)):
                yield futures[k].result()
        finally:
            for f in futures.values():
                f.cancel()


def _size(path) -> int:
    try:
        return os.stat(path).st_size
    except (OSError, ValueError):
        return 0


def _warm() -> None:
    """Import what a check needs (and build its Markdown parser) once, before forking, so that each worker inherits
    it instead of paying for it again (~0.1 s of CPU a worker)."""
    from .. import api  # noqa: F401  (the engine, NumPy)
    from . import checker, expr, forms, human, notations, notebook, program, source  # noqa: F401

    source._parser()  # markdown-it, imported and set up


class _Recorder:
    """A text stream that keeps what is written to it and where it is flushed (None), in order with the other
    stream's (``events``)."""

    def __init__(self, events: list, name: str, real) -> None:
        self.events, self.name, self.real = events, name, real
        self.encoding = getattr(real, "encoding", "utf-8")
        self.errors = getattr(real, "errors", "strict")

    def write(self, text: str) -> int:
        if not isinstance(text, str):  # as a text stream (click probes a stream with b"")
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        self.events.append((self.name, text))
        return len(text)

    def flush(self) -> None:  # replayed where it was called: one process's flushes, so 2>&1 interleaves alike
        self.events.append((self.name, None))

    def isatty(self) -> bool:  # what the stream it stands for says (click strips ANSI styles by it)
        try:
            return self.real.isatty()
        except Exception:  # noqa: BLE001
            return False


_one: Check | None = None  # the check the workers run (set before they are forked)


def _recorded(path) -> tuple[list, list, int | None]:
    """In a worker: ``_one(path, entries)`` with its stdout and stderr lines recorded."""
    events: list[tuple[str, str]] = []
    entries: list = []
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _Recorder(events, "out", out), _Recorder(events, "err", err)
    try:
        code = _one(path, entries)
    except BaseException:  # noqa: BLE001 - reported by this process's own run of the file
        return [], [], None
    finally:
        sys.stdout, sys.stderr = out, err
    return events, entries, code


def _replay(events: list[tuple[str, str | None]]) -> None:
    """The worker's writes and flushes, in order, on this process's streams (stdout stays buffered between them,
    as one process's is: the bytes of ``2>&1`` come in the same order)."""
    for name, text in events:
        stream = sys.stdout if name == "out" else sys.stderr
        if text is None:
            stream.flush()
        else:
            stream.write(text)
