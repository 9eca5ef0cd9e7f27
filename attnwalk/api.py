"""The Python entry point: ``walk(**options) -> Trace``."""

from __future__ import annotations

import numpy as np

from .config import make_config
from .errors import ConfigError
from .trace import Trace


def walk(*, x=None, weights: dict | None = None, **options) -> Trace:
    """Run one variant on the options of ``Config`` and return its Trace.

    yolo: ``x`` (B, C, H, W) and ``weights`` (any of w_qkv, b_qkv, w_proj, b_proj, w_pe, b_pe in
    PyTorch layout) replace the seeded ones when given; their shapes must match the config.
    sdpa/mha: ``x`` is the input table (one row per token; the ``x`` option of a scenario) and
    ``weights`` (sdpa: w_q, w_k, w_v; mha: w_qkv, b_qkv, w_out, b_out) replace the drawn ones.
    A trace larger than the memory budget (attnwalk/budget.py) is refused before computing;
    one whose numbers overflow float64 is refused naming the step. Both raise ConfigError.
    """
    from .budget import require
    from .finite import as_real, require_finite

    if weights is not None and not isinstance(weights, dict):
        raise ConfigError("weights", f"got {type(weights).__name__}; allowed: a dict of arrays by name "
                                     "(w_qkv, w_proj, ...)")
    variant = options.get("variant", "yolo")
    with np.errstate(all="ignore"):  # overflow is reported below, once, naming the step
        if variant not in (None, "yolo"):
            if x is not None:
                options["x"] = as_real("x", x, "input values").tolist() if not isinstance(x, (list, tuple)) else x
            cfg = make_config(**options)
            require(cfg)
            trace = _walk_sequence(cfg, weights)
        else:
            from .inputs import draw

            cfg = make_config(**options)
            require(cfg)
            drawn_w, drawn_x = draw(cfg, frozenset(weights or ()))  # given weights: not drawn, only passed over
            if weights:
                _replace(drawn_w, weights)
            if x is not None:
                x = as_real("x", x, "input values")
                if x.shape != drawn_x.shape:
                    raise ConfigError("x", f"shape {x.shape}; allowed: {drawn_x.shape}")
                drawn_x = x
            from .engine import yolo

            trace = yolo.forward(cfg, drawn_w, drawn_x)
    given = bool(weights) or (x is not None and variant in (None, "yolo"))
    tables = x is not None or any(k in options for k in ("x", "x_kv", "q", "k", "v", "w_q", "w_k", "w_v"))
    require_finite(trace, "weights" if given else "--scenario" if tables else "--init-std")
    return trace


def _replace(drawn: dict, weights: dict) -> None:
    from .finite import as_real

    names = [n for n in drawn if n.startswith(("w_", "b_"))]
    for name, value in weights.items():
        if name not in names:
            raise ConfigError("weights", f"unknown name {str(name)[:40]!r}; allowed: {', '.join(names)}")
        value = as_real(f"weights[{name!r}]", value, "weights")
        if value.shape != drawn[name].shape:
            raise ConfigError(f"weights[{name!r}]", f"shape {value.shape}; allowed: {drawn[name].shape}")
        drawn[name] = value


def _walk_sequence(cfg, weights: dict | None) -> Trace:
    from .seq_inputs import draw

    inputs = draw(cfg)
    if weights:
        _replace(inputs, weights)
    if cfg.variant == "sdpa":
        from .engine import sdpa

        return sdpa.forward(cfg, inputs)
    from .engine import mha

    return mha.forward(cfg, inputs)
