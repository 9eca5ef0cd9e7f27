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
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=1, allow_nan=False) + "\n"

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
