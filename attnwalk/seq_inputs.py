"""Inputs and weights of the sequence variants (sdpa, mha): from the scenario's tables, else drawn.

One stream seeded with ``cfg.seed`` (``torch.manual_seed(seed)`` by default, DESIGN §3) draws,
in this order, whatever the scenario does not give:

- sdpa, source ``direct``: q, k, v (each ``(B, L, width)``, as ``--input`` says);
- sdpa, source ``columns``: x, then x_kv (only for cross-attention);
- sdpa, source ``scores``: nothing (the scores table, and v when given);
- sdpa, source ``project``: w_q, w_k, w_v (``normal_(0, init_std)``, Linear layout (out, in)),
  then x, then x_kv (only for cross-attention);
- mha: w_qkv (3D, D), b_qkv (3D), w_out (D, D), b_out (D) (``normal_(0, init_std)`` each,
  biases only with ``bias = true``; without, they are zeros and no draw is made), then x.

With ``rng = "numpy-legacy"`` (``np.random.seed(seed)``, values kept float64) the order is the
note's: sdpa ``project`` draws x (and x_kv) first, then each weight as
``np.random.randn(d_model, width) * init_std`` (``np.random.rand`` with ``weight_init = "uniform"``;
the ``X @ W`` layout, transposed to (out, in) here); every other case keeps the order above,
``normal`` being ``np.random.randn(*shape)`` and ``randint`` ``np.random.randint(-4, 5, size=shape)``.

Random inputs: ``ramp`` = 1, 2, 3, ... in (B, L, width) order; ``randint`` =
``torch.randint(-4, 5, shape)``; ``normal`` = ``torch.randn(shape)``.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from .config import RANDINT_HIGH, RANDINT_LOW, Config
from .rng import make_stream


def table_array(table) -> np.ndarray:
    """A scenario table (ints, floats, "p/q" strings) as a float64 array (1, rows, cols)."""
    return np.array([[float(Fraction(v)) if isinstance(v, str) else float(v) for v in row] for row in table],
                    dtype=np.float64)[None]


def _random(cfg: Config, stream, shape: tuple[int, ...]) -> np.ndarray:
    if cfg.input == "ramp":
        return np.arange(1, int(np.prod(shape)) + 1, dtype=np.float64).reshape(shape)
    if cfg.input == "normal":
        return stream.normal(shape, 0.0, 1.0).astype(np.float64)
    if cfg.input == "uniform":  # np.random.rand (numpy-legacy only, checked by config)
        return stream.uniform(shape)
    return stream.randint(shape, RANDINT_LOW, RANDINT_HIGH).astype(np.float64)


def weight_shapes(cfg: Config) -> dict[str, tuple[int, ...]]:
    """The weights of ``cfg``'s variant in PyTorch layout, in draw order."""
    d = cfg.derived
    if cfg.variant == "mha":
        D = d["d_model"]
        return {"w_qkv": (3 * D, D), "b_qkv": (3 * D,), "w_out": (D, D), "b_out": (D,)}
    if cfg.source == "project":
        D = d["d_model"]
        return {"w_q": (d["qk_width"], D), "w_k": (d["qk_width"], D), "w_v": (d["v_width"], D)}
    return {}


def draw(cfg: Config) -> dict[str, np.ndarray]:
    """Every input and weight the engine needs, by trace name (weights first, in draw order)."""
    stream = make_stream(cfg.rng, cfg.seed)
    out: dict[str, np.ndarray] = {}
    inputs: dict[str, np.ndarray] = {}
    inputs_first = cfg.rng == "numpy-legacy" and cfg.variant == "sdpa" and cfg.source == "project"
    if inputs_first:  # x = randn(...); W_Q = randn(d_model, d_k); ...: the hand-written order
        _draw_inputs(cfg, stream, inputs)
    for name, shape in weight_shapes(cfg).items():
        given = getattr(cfg, name, None) if cfg.variant == "sdpa" else None
        if given is not None:
            out[name] = table_array(given)[0]
            if cfg.weight_layout == "in_out":  # printed for X @ W: back to nn.Linear's (out, in)
                out[name] = out[name].T.copy()
        elif name.startswith("b_") and not cfg.bias:
            out[name] = np.zeros(shape)
        elif inputs_first and cfg.weight_init == "uniform":  # W = np.random.rand(d_model, width) * init_std
            out[name] = (stream.uniform(shape[::-1]) * cfg.init_std).T.copy()
        elif inputs_first:
            out[name] = stream.normal(shape[::-1], 0.0, cfg.init_std).T.copy()
        else:
            out[name] = stream.normal(shape, 0.0, cfg.init_std).astype(np.float64)
    if not inputs_first:
        _draw_inputs(cfg, stream, inputs)
    return out | inputs


def _draw_inputs(cfg: Config, stream, out: dict[str, np.ndarray]) -> None:
    """The scores, q/k/v or x (and x_kv) into ``out``: from the scenario's tables, else drawn."""
    d = cfg.derived
    B, n, m = cfg.batch, d["n"], d["m"]

    def get(name: str, rows: int, width: int) -> np.ndarray:
        given = getattr(cfg, name)
        return table_array(given) if given is not None else _random(cfg, stream, (B, rows, width))

    if cfg.variant == "sdpa" and cfg.source == "scores":  # given scores (and v): nothing to draw
        out["scores"] = table_array(cfg.scores)
        if cfg.v is not None:
            out["v"] = table_array(cfg.v)
        return
    if cfg.variant == "sdpa" and cfg.source == "direct":
        out["q"] = get("q", n, d["qk_width"])
        out["k"] = get("k", m, d["qk_width"])
        out["v"] = get("v", m, d["v_width"])
        return
    out["x"] = get("x", n, d["d_model"])
    if cfg.variant == "sdpa" and d["cross"]:
        out["x_kv"] = get("x_kv", m, d["d_model"])
