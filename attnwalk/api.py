"""The Python entry point: ``walk(**options) -> Trace``."""

from __future__ import annotations

import numpy as np

from .config import make_config
from .trace import Trace


def walk(*, x=None, weights: dict | None = None, **options) -> Trace:
    """Run one variant on the options of ``Config`` and return its Trace.

    yolo: ``x`` (B, C, H, W) and ``weights`` (any of w_qkv, b_qkv, w_proj, b_proj, w_pe, b_pe in
    PyTorch layout) replace the seeded ones when given; their shapes must match the config.
    sdpa/mha: ``x`` is the input table (one row per token; the ``x`` option of a scenario) and
    ``weights`` (sdpa: w_q, w_k, w_v; mha: w_qkv, b_qkv, w_out, b_out) replace the drawn ones.
    """
    if options.get("variant", "yolo") not in (None, "yolo"):
        return _walk_sequence(x, weights, options)
    from .inputs import draw

    cfg = make_config(**options)
    drawn_w, drawn_x = draw(cfg)
    if weights:
        _replace(drawn_w, weights)
    if x is not None:
        x = np.asarray(x, dtype=np.float64)
        if x.shape != drawn_x.shape:
            raise ValueError(f"x: shape {x.shape}, expected {drawn_x.shape}")
        drawn_x = x
    from .engine import yolo

    return yolo.forward(cfg, drawn_w, drawn_x)


def _replace(drawn: dict, weights: dict) -> None:
    names = [n for n in drawn if n.startswith(("w_", "b_"))]
    for name, value in weights.items():
        if name not in names:
            raise ValueError(f"weights: unknown name {name!r}; allowed: {', '.join(names)}")
        value = np.asarray(value, dtype=np.float64)
        if value.shape != drawn[name].shape:
            raise ValueError(f"weights[{name!r}]: shape {value.shape}, expected {drawn[name].shape}")
        drawn[name] = value


def _walk_sequence(x, weights: dict | None, options: dict) -> Trace:
    from .seq_inputs import draw

    if x is not None:
        options["x"] = x
    cfg = make_config(**options)
    inputs = draw(cfg)
    if weights:
        _replace(inputs, weights)
    if cfg.variant == "sdpa":
        from .engine import sdpa

        return sdpa.forward(cfg, inputs)
    from .engine import mha

    return mha.forward(cfg, inputs)
