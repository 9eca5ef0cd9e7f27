"""Ultralytics ``Attention`` (PSABlock / C2PSA), read top to bottom (DESIGN §2, yolo).

Layouts follow PyTorch: x (B, C, H, W); q, k (B, heads, key_dim, N); v (B, heads, head_dim, N);
scores and attn (B, heads, N, N) with row i = query position i, column j = key position j.
"""

from __future__ import annotations

import numpy as np

from ..config import Config
from ..trace import Trace
from . import pages
from .blas import widen_for
from .softmax import record_softmax

IMAGE = ("batch", "channel", "row", "col")
HEADS = ("batch", "head")


def conv1x1(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """1x1 convolution: out[:, o] = sum_c w[o, c] * x[:, c] + b[o], as one BLAS matmul per image."""
    B, C, H, W = x.shape
    out = np.empty((B, w.shape[0], H, W))
    flat = out.reshape(B, w.shape[0], H * W)  # a view: matmul writes straight into ``out``
    np.matmul(w[:, :, 0, 0], x.reshape(B, C, H * W), out=flat)
    flat += b[None, :, None]
    return out


def depthwise3x3(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """3x3 depthwise convolution (groups = C, zero padding 1), as Conv2d cross-correlates."""
    _, _, h, wd = x.shape
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    # out += w·patch tap by tap, each product rounded before it is added (as written out in the
    # walkthrough); one product buffer for the nine taps instead of a fresh array per tap.
    out = np.zeros_like(x)
    prod = np.empty_like(x)
    for di in range(3):
        for dj in range(3):
            np.multiply(w[None, :, 0, di, dj, None, None], padded[:, :, di : di + h, dj : dj + wd], out=prod)
            out += prod
    out += b[None, :, None, None]
    return out


@pages.forward_scope
def forward(cfg: Config, weights: dict[str, np.ndarray], x: np.ndarray) -> Trace:
    d = cfg.derived
    B, C, H, W = x.shape
    N, heads, key_dim, head_dim = H * W, cfg.heads, d["key_dim"], d["head_dim"]
    t = Trace(config=cfg.to_dict(), derived=dict(d))
    widen_for(2.0 * B * N * (N * heads * (key_dim + head_dim) + C * (d["qkv_channels"] + C)))

    x = t.record("x", x, IMAGE, "input")
    for name in ("w_qkv", "b_qkv", "w_proj", "b_proj", "w_pe", "b_pe"):
        axes = ("out_channel",) if name.startswith("b_") else ("out_channel", "in_channel", "kh", "kw")
        t.record(name, weights[name], axes, "weight")

    qkv = t.record("qkv", conv1x1(x, t["w_qkv"], t["b_qkv"]), IMAGE, "conv1x1")
    # Channels are interleaved per head: head 0's [q, k, v], then head 1's [q, k, v], ...
    per_head = qkv.reshape(B, heads, 2 * key_dim + head_dim, N)
    q = t.record("q", per_head[:, :, :key_dim], HEADS + ("key_dim", "pos"), "split")
    k = t.record("k", per_head[:, :, key_dim : 2 * key_dim], HEADS + ("key_dim", "pos"), "split")
    v = t.record("v", per_head[:, :, 2 * key_dim :], HEADS + ("head_dim", "pos"), "split")

    # qᵀ copied contiguous first (small): BLAS then reads both operands by rows (~20% faster at N = 4096).
    scores = np.matmul(np.ascontiguousarray(np.swapaxes(q, -2, -1)), k, out=pages.empty((B, heads, N, N)))
    scores = t.record("scores", scores, HEADS + ("query", "key"), "qt_k", fresh=True)
    attn = record_softmax(t, scores, HEADS + ("query",), scale=d["scale"])

    # o = v · attnᵀ, computed as (attn · vᵀ)ᵀ: BLAS reads attn row by row (twice as fast at
    # N = 4096 as reading it transposed); the small (N, head_dim) result is transposed once.
    o_t = np.matmul(attn, np.swapaxes(v, -2, -1))
    o = np.ascontiguousarray(np.swapaxes(o_t, -2, -1)).reshape(B, C, H, W)  # a new array: not copied again
    o = t.record("o", o, IMAGE, "v_attn_t", fresh=True)
    pe_input = v.reshape(B, C, H, W) if cfg.pe_on == "v" else o
    pe = t.record("pe", depthwise3x3(pe_input, t["w_pe"], t["b_pe"]), IMAGE, f"pe_on_{cfg.pe_on}")
    o_pe = t.record("o_pe", o + pe, IMAGE, "add")
    t.record("out", conv1x1(o_pe, t["w_proj"], t["b_proj"]), IMAGE, "conv1x1")
    return t
