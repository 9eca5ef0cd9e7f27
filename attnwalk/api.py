"""The Python entry point: ``walk(**options) -> Trace``."""

from __future__ import annotations

import numpy as np

from .config import make_config
from .inputs import draw
from .trace import Trace


def walk(*, x=None, weights: dict | None = None, **options) -> Trace:
    """Run one variant on the options of ``Config`` and return its Trace.

    ``x`` (B, C, H, W) and ``weights`` (any of w_qkv, b_qkv, w_proj, b_proj, w_pe, b_pe in
    PyTorch layout) replace the seeded ones when given; their shapes must match the config.
    """
    cfg = make_config(**options)
    drawn_w, drawn_x = draw(cfg)
    if weights:
        for name, value in weights.items():
            if name not in drawn_w:
                raise ValueError(f"weights: unknown name {name!r}; allowed: {', '.join(drawn_w)}")
            value = np.asarray(value, dtype=np.float64)
            if value.shape != drawn_w[name].shape:
                raise ValueError(f"weights[{name!r}]: shape {value.shape}, expected {drawn_w[name].shape}")
            drawn_w[name] = value
    if x is not None:
        x = np.asarray(x, dtype=np.float64)
        if x.shape != drawn_x.shape:
            raise ValueError(f"x: shape {x.shape}, expected {drawn_x.shape}")
        drawn_x = x
    from .engine import yolo

    return yolo.forward(cfg, drawn_w, drawn_x)
