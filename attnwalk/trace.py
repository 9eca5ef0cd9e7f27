"""The record of one forward pass: ordered, named steps (DESIGN §4).

Each step holds a float64 array in PyTorch's layout, the meaning of each axis and a
formula key the templates use to explain it. Names are a stable API: see README.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class Step:
    name: str
    data: np.ndarray
    axes: tuple[str, ...]
    formula: str

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.data.shape)


@dataclass
class Trace:
    config: dict
    derived: dict
    steps: dict[str, Step] = field(default_factory=dict)
    # Results derived from the steps (closed forms), shared by with_config copies: computed once per note.
    memo: dict = field(default_factory=dict, repr=False, compare=False)

    def with_config(self, **changes) -> Trace:
        """The same steps under a config with ``changes`` (e.g. another ``lang``): no recomputation."""
        return Trace(config={**self.config, **changes}, derived=self.derived, steps=self.steps, memo=self.memo)

    def memoized(self, key, compute):
        """``compute()`` once per trace (and its with_config copies), then the stored result."""
        if key not in self.memo:
            self.memo[key] = compute()
        return self.memo[key]

    def record(self, name: str, data, axes: tuple[str, ...], formula: str) -> np.ndarray:
        """Store ``data`` as float64 under ``name``; return the stored array.

        Copied when it could alias: a view (q, k, v of qkv), a non-float64 or non-contiguous
        array, or an input/weight (the caller's own array). A fresh array the engine just
        computed is stored as is: copying it would cost as much as computing it.
        """
        if _owned_result(data, formula):
            arr = data
        else:
            arr = np.array(data, dtype=np.float64, copy=True)
        if arr.ndim != len(axes):
            raise ValueError(f"step {name}: {arr.ndim} axes but {len(axes)} axis names")
        self.steps[name] = Step(name, arr, tuple(axes), formula)
        return arr

    def __getitem__(self, name: str) -> np.ndarray:
        return self.steps[name].data

    def __contains__(self, name: str) -> bool:
        return name in self.steps

    def names(self) -> list[str]:
        return list(self.steps)

    def to_dict(self) -> dict:
        return {
            "config": self.config,
            "derived": self.derived,
            "tensors": {
                s.name: {"shape": list(s.shape), "axes": list(s.axes), "formula": s.formula, "data": _json_data(s.data)}
                for s in self.steps.values()
            },
        }

    def to_json(self) -> str:
        """Deterministic, strict JSON: shortest round-trip floats, keys in step order, and
        non-finite values (a -inf mask fill) as the strings "-inf", "inf", "nan"."""
        return "".join(self.json_chunks())

    def json_chunks(self, workers: int = 1):
        """``to_json`` piece by piece (one block of rows at a time), so a large trace streams
        to a file without the whole text in memory. Compact separators: json's C encoder.
        With ``workers`` > 1, large tensors are encoded by that many forked processes (float
        formatting is most of the cost); the pieces come back in order, so the bytes are the same."""
        dumps = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode
        yield '{"config":' + dumps(self.config) + ',"derived":' + dumps(self.derived) + ',"tensors":{'
        pool = _encoder_pool(self, workers)
        try:
            for i, s in enumerate(self.steps.values()):
                head = {"shape": list(s.shape), "axes": list(s.axes), "formula": s.formula}
                yield ("," if i else "") + dumps(s.name) + ":" + dumps(head)[:-1] + ',"data":'
                if pool is not None and s.data.ndim > 1 and s.data.size > _PARALLEL_JSON_MIN:
                    pieces = list(_row_block_pieces(s.name, s.data.shape))
                    done = iter(pool.map(_encode_rows, [p for p in pieces if not isinstance(p, str)]))
                    for p in pieces:
                        yield p if isinstance(p, str) else next(done)
                else:
                    yield from _json_array(s.data, dumps)
                yield "}"
        finally:
            if pool is not None:
                pool.shutdown()
        yield "}}\n"

    def write_npz(self, fh) -> None:
        """NumPy's ``.npz`` container: every tensor under its name, plus ``config`` (the config
        as JSON text) and ``meta`` (JSON: derived values, axes and formula of each tensor), both
        0-d unicode arrays, so ``np.load(path)`` needs no pickle. Uncompressed, with fixed zip
        timestamps, so the same trace gives the same bytes."""
        import zipfile

        meta = {"derived": self.derived,
                "tensors": {s.name: {"axes": list(s.axes), "formula": s.formula} for s in self.steps.values()}}
        entries = [(s.name, s.data) for s in self.steps.values()]
        entries += [("config", np.array(json.dumps(self.config, ensure_ascii=False))),
                    ("meta", np.array(json.dumps(meta, ensure_ascii=False)))]
        with zipfile.ZipFile(fh, "w", zipfile.ZIP_STORED, allowZip64=True) as zf:
            for name, arr in entries:
                info = zipfile.ZipInfo(name + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
                with zf.open(info, "w", force_zip64=True) as out:
                    np.lib.format.write_array(out, arr, allow_pickle=False)

    @classmethod
    def from_npz(cls, path) -> Trace:
        """The trace ``write_npz`` stored (``Trace.from_npz(path)[name]`` is each tensor)."""
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
            t = cls(config=json.loads(str(z["config"])), derived=meta["derived"])
            for name, s in meta["tensors"].items():
                t.record(name, z[name], tuple(s["axes"]), s["formula"])
        return t

    @classmethod
    def from_dict(cls, d: dict) -> Trace:
        t = cls(config=d["config"], derived=d.get("derived", {}))
        for name, s in d["tensors"].items():
            data = np.asarray(s["data"], dtype=np.float64).reshape(s["shape"])
            t.record(name, data, tuple(s.get("axes", ())), s.get("formula", ""))
        return t


def _owned_result(data, formula: str) -> bool:
    """True for a float64 C-contiguous array that owns its memory and is not an input: safe to keep."""
    return (isinstance(data, np.ndarray) and data.dtype == np.float64 and data.base is None
            and data.flags.c_contiguous and data.flags.writeable and formula not in ("input", "weight"))


_PARALLEL_JSON_MIN = 1 << 20  # elements: smaller tensors are encoded in this process
_FORKED: Trace | None = None  # the trace forked encoder processes read (inherited, not pickled)


def _encoder_pool(trace: Trace, workers: int):
    """A pool of forked processes sharing ``trace``, or None when not worth it or not possible."""
    global _FORKED
    import multiprocessing as mp

    big = sum(s.data.size for s in trace.steps.values() if s.data.size > _PARALLEL_JSON_MIN)
    if workers < 2 or not big or "fork" not in mp.get_all_start_methods():
        return None
    from concurrent.futures import ProcessPoolExecutor

    _FORKED = trace
    return ProcessPoolExecutor(workers, mp_context=mp.get_context("fork"))


def _row_block_pieces(name: str, shape: tuple[int, ...], index: tuple[int, ...] = (), rows: int = 256):
    """The JSON of a tensor as literal brackets and (name, index, lo, hi) row-block jobs, in order."""
    yield "["
    if len(shape) - len(index) == 2:
        for lo in range(0, shape[len(index)], rows):
            yield ("," if lo else "")
            yield (name, index, lo, min(lo + rows, shape[len(index)]))
    else:
        for i in range(shape[len(index)]):
            yield ("," if i else "")
            yield from _row_block_pieces(name, shape, index + (i,), rows)
    yield "]"


def _encode_rows(job) -> str:
    """The comma-separated JSON rows lo..hi of one matrix of a forked trace's tensor."""
    name, index, lo, hi = job
    dumps = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode
    return dumps(_json_data(_FORKED[name][index][lo:hi]))[1:-1]


def _json_array(a: np.ndarray, dumps, rows: int = 4096):
    """The nested-list JSON of ``a``, in pieces of at most ``rows`` rows of its last axis."""
    if a.ndim <= 1 or a.size <= rows * max(1, a.shape[-1]):
        yield dumps(_json_data(a))
        return
    yield "["
    for i, sub in enumerate(a):
        if i:
            yield ","
        yield from _json_array(sub, dumps, rows)
    yield "]"


def _json_data(a: np.ndarray):
    """Nested lists of floats; non-finite values as strings (NumPy reads them back as floats)."""
    data = a.tolist()
    return data if np.isfinite(a).all() else _replace_nonfinite(data)


def _replace_nonfinite(x):
    if isinstance(x, list):
        return [_replace_nonfinite(v) for v in x]
    if np.isfinite(x):
        return x
    return "nan" if np.isnan(x) else ("inf" if x > 0 else "-inf")
