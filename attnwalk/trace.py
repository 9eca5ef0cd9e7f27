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
    """One recorded tensor. ``data`` may be given as a recipe (an object with ``shape``, ``finite``,
    ``materialise()`` and ``rows(lo, hi)``, engine/softmax.py's ``LazyRows``): the forward then does not
    write that tensor, and its first read computes it, bit for bit what the forward would have written."""

    name: str
    data: np.ndarray
    axes: tuple[str, ...]
    formula: str

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.__dict__["_data"].shape)  # a recipe knows its shape: nothing computed

    @property
    def lazy(self) -> bool:
        """True while the tensor is a recipe not yet computed."""
        return not isinstance(self.__dict__["_data"], np.ndarray)

    @property
    def finite(self) -> bool:
        """True when the engine vouches that every value is finite without the tensor being computed
        (a recipe that saw its values on the way: finite.first_overflow need not compute it)."""
        return bool(getattr(self.__dict__["_data"], "finite", False))

    def row(self, index: tuple[int, ...]) -> np.ndarray:
        """``data[index]`` for an index of every axis but the last: one row, computed alone while the
        tensor is a recipe (a note shows one row of exp), the same bytes as the whole tensor's row."""
        d = self.__dict__["_data"]
        if isinstance(d, np.ndarray):
            return d[tuple(index)]
        dims = d.shape[:-1]
        if len(index) != len(dims) or not all(-n <= int(i) < n for i, n in zip(index, dims)):
            raise IndexError(f"step {self.name}: row index {tuple(index)} for shape {d.shape}")
        flat = int(np.ravel_multi_index(tuple(int(i) % n for i, n in zip(index, dims)), dims))
        return d.rows(flat, flat + 1)[0]


def _step_data(step: Step) -> np.ndarray:
    d = step.__dict__["_data"]
    if not isinstance(d, np.ndarray):
        d = d.materialise()  # computed once (the recipe keeps its result), then kept here as any step
        step.__dict__["_data"] = d
    return d


def _set_step_data(step: Step, value) -> None:
    step.__dict__["_data"] = value  # only the dataclass's own __init__ sets it (the class is frozen)


# ``data`` is a property over the stored array or recipe, so every reader (trace[name], step.data,
# dataclasses.replace, exports) sees an ndarray; set after @dataclass, which made it an __init__ field.
Step.data = property(_step_data, _set_step_data, doc="The tensor (float64, PyTorch layout), computed on first read.")


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

    def record(self, name: str, data, axes: tuple[str, ...], formula: str, fresh: bool = False) -> np.ndarray:
        """Store ``data`` as float64 under ``name``; return the stored array (or recipe, as given).

        Copied when it could alias: a view (q, k, v of qkv), a non-float64 or non-contiguous
        array, or an input/weight (the caller's own array). A fresh array the engine just
        computed is stored as is: copying it would cost as much as computing it. ``fresh``:
        the engine vouches that ``data`` is its own new array although it is a view (a
        reused buffer, engine/pages.py).
        """
        if not isinstance(data, np.ndarray) and hasattr(data, "materialise"):
            arr = data  # a recipe (Step): computed on first read
        elif _owned_result(data, formula, fresh):
            arr = data
        else:
            arr = np.array(data, dtype=np.float64, copy=True)
        if len(arr.shape) != len(axes):
            raise ValueError(f"step {name}: {len(arr.shape)} axes but {len(axes)} axis names")
        self.steps[name] = Step(name, arr, tuple(axes), formula)
        return arr

    def row(self, name: str, *index: int) -> np.ndarray:
        """``self[name][index]`` (index: every axis but the last) without computing the whole tensor
        where the engine kept it as a recipe (Step.row)."""
        return self.steps[name].row(index)

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
        return b"".join(self.json_chunks()).decode("utf-8")

    def json_chunks(self):
        """``to_json`` as UTF-8 bytes, piece by piece (a block of rows at a time), so a large
        trace streams to a file without the whole text in memory. orjson formats the floats
        (the shortest text that reads back as the same float64, ~20x faster than json's
        encoder); it is a required dependency, so the bytes never depend on what is installed."""
        yield b'{"config":' + _dumps_checked(self.config) + b',"derived":' + _dumps_checked(self.derived)
        yield b',"tensors":{'
        for i, s in enumerate(self.steps.values()):
            head = {"shape": list(s.shape), "axes": list(s.axes), "formula": s.formula}
            yield (b"," if i else b"") + _dumps(s.name) + b":" + _dumps(head)[:-1] + b',"data":'
            yield from _json_array(s.data)
            yield b"}"
        yield b"}}\n"

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


def _owned_result(data, formula: str, fresh: bool = False) -> bool:
    """True for a float64 C-contiguous array that owns its memory (or is vouched ``fresh``) and is
    not an input: safe to keep."""
    return (isinstance(data, np.ndarray) and data.dtype == np.float64 and (fresh or data.base is None)
            and data.flags.c_contiguous and data.flags.writeable and formula not in ("input", "weight"))


_JSON_BLOCK = 1 << 16  # values per encoded piece: ~1.3 MB of text


def _dumps(obj) -> bytes:
    import orjson  # imported on first use: a Markdown render never needs it

    return orjson.dumps(obj, option=orjson.OPT_SERIALIZE_NUMPY)


def _dumps_checked(obj) -> bytes:
    """``_dumps`` of config-like data, refusing NaN and infinities (orjson would write null)."""
    def walk(x):
        if isinstance(x, float) and not np.isfinite(x):
            raise ValueError(f"non-finite value {x!r} in trace metadata: not valid JSON")
        for v in (x.values() if isinstance(x, dict) else x if isinstance(x, (list, tuple)) else ()):
            walk(v)
    walk(obj)
    return _dumps(obj)


def _json_array(a: np.ndarray):
    """The nested-list JSON of ``a`` (bytes), in pieces of about ``_JSON_BLOCK`` values."""
    if a.ndim == 0:
        yield _dumps(_json_data(a))
        return
    if a.ndim == 1 or a.size <= _JSON_BLOCK:
        yield _json_block(a)
        return
    if a.ndim > 2:
        yield b"["
        for i, sub in enumerate(a):
            if i:
                yield b","
            yield from _json_array(sub)
        yield b"]"
        return
    rows = max(1, _JSON_BLOCK // max(1, a.shape[1]))
    yield b"["
    for lo in range(0, a.shape[0], rows):
        yield (b"," if lo else b"") + _json_block(a[lo : lo + rows])[1:-1]
    yield b"]"


def _json_block(a: np.ndarray) -> bytes:
    """JSON of a whole (small) array: straight from NumPy's buffer when every value is finite."""
    if np.isfinite(a).all():
        return _dumps(np.ascontiguousarray(a, dtype=np.float64))
    return _dumps(_json_data(a))


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
