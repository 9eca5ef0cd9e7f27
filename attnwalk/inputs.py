"""Weights and inputs for a Config: drawn from the seeded stream, or given explicitly."""

from __future__ import annotations

import numpy as np

from .config import RANDINT_HIGH, RANDINT_LOW, Config
from .rng import make_stream


def yolo_weight_shapes(cfg: Config) -> dict[str, tuple[int, ...]]:
    """Fused-conv weights of Ultralytics ``Attention`` in PyTorch layout, in draw order."""
    c, hq = cfg.dim, cfg.derived["qkv_channels"]
    return {"w_qkv": (hq, c, 1, 1), "w_proj": (c, c, 1, 1), "w_pe": (c, 1, 3, 3)}


def draw(cfg: Config, given: frozenset = frozenset()) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Weights (then the input, when random) from one stream seeded with ``cfg.seed``.

    Order as a PyTorch user would write it: ``torch.manual_seed(seed)``; ``normal_(0, std)``
    on w_qkv, w_proj, w_pe; then the input. Biases are zero: a freshly initialised
    BatchNorm folds into a zero bias. ``given``: weights the caller replaces (a note's stored
    ones): the stream passes over their draws (zeros of their shape stand for them), so the input
    after them is the same.
    """
    stream = make_stream(cfg.rng, cfg.seed)
    weights = {}
    for name, shape in yolo_weight_shapes(cfg).items():
        if name in given and hasattr(stream, "skip_normal"):
            stream.skip_normal(shape)
            weights[name] = np.zeros(shape)
        else:
            weights[name] = stream.normal(shape, 0.0, cfg.init_std).astype(np.float64)
        weights["b" + name[1:]] = np.zeros(shape[0])
    x = make_input(cfg, stream)
    return weights, x


def make_input(cfg: Config, stream) -> np.ndarray:
    shape = (cfg.batch, cfg.dim, cfg.h, cfg.w)
    if cfg.input == "ramp":
        return np.arange(1, int(np.prod(shape)) + 1, dtype=np.float64).reshape(shape)
    if cfg.input == "normal":
        return stream.normal(shape, 0.0, 1.0).astype(np.float64)
    if cfg.input == "uniform":  # np.random.rand (numpy-legacy only, checked by config)
        return stream.uniform(shape)
    return stream.randint(shape, RANDINT_LOW, RANDINT_HIGH).astype(np.float64)
