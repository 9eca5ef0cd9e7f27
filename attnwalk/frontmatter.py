"""YAML front matter of a generated note: version, complete config, weights (DESIGN §3, §7).

Written by hand as JSON-style flow values (valid YAML 1.2), so rendering needs no YAML
library; the weights are stored as shortest float32 reprs, so a note can be recomputed
from the file alone even if a random stream changed.
"""

from __future__ import annotations

import json

import numpy as np

from . import __version__
from .trace import Trace

MAX_STORED_WEIGHTS = 4096  # past this many values the weights stay in the JSON trace only


def _f32(v: float) -> str:
    return np.format_float_positional(np.float32(v), unique=True, trim="-")


def front_matter(trace: Trace, title: str) -> str:
    lines = ["---", f"title: {json.dumps(title, ensure_ascii=False)}", f"generator: attnwalk {__version__}"]
    lines.append("config: " + json.dumps(trace.config, ensure_ascii=False))
    names = [n for n, step in trace.steps.items() if step.formula == "weight"]
    total = sum(trace[n].size for n in names)
    if total <= MAX_STORED_WEIGHTS:
        lines.append("weights:")
        for n in names:
            data = ", ".join(_f32(v) for v in trace[n].reshape(-1))
            lines.append(f"  {n}: {{shape: {list(trace[n].shape)}, data: [{data}]}}")
    lines.append("---")
    return "\n".join(lines)
