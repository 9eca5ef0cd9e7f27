"""Multi-head self-attention with a Linear qkv (seed 002), read top to bottom (DESIGN §2, mha).

x (B, N, D); qkv = x·W_qkvᵀ + b_qkv (B, N, 3D), chunked along the last axis into q, k, v;
heads split ``b n (h d) -> b h n d``; scale (D // heads)^-1/2; softmax over keys (per head,
never averaged); o = attn · v (B, heads, N, d); o_merged ``b h n d -> b n (h d)``;
out = o_merged·W_outᵀ + b_out. Same layout as ``nn.MultiheadAttention``'s in_proj/out_proj.
"""

from __future__ import annotations

import numpy as np

from ..config import Config
from ..trace import Trace
from . import pages
from .sdpa import HEADS, SEQ, attend, merge_heads, split_heads


@pages.forward_scope
def forward(cfg: Config, inputs: dict[str, np.ndarray]) -> Trace:
    t = Trace(config=cfg.to_dict(), derived=dict(cfg.derived))
    for name in ("w_qkv", "b_qkv", "w_out", "b_out"):
        axes = ("out_channel",) if name.startswith("b_") else ("out_channel", "in_channel")
        t.record(name, inputs[name], axes, "weight")
    x = t.record("x", inputs["x"], SEQ, "input")
    qkv = t.record("qkv", x @ t["w_qkv"].T + t["b_qkv"], SEQ, "linear")
    D = cfg.derived["d_model"]
    q = t.record("q", split_heads(qkv[..., :D], cfg.heads), HEADS + ("token", "channel"), "chunk_split")
    k = t.record("k", split_heads(qkv[..., D:2 * D], cfg.heads), HEADS + ("token", "channel"), "chunk_split")
    v = t.record("v", split_heads(qkv[..., 2 * D:], cfg.heads), HEADS + ("token", "channel"), "chunk_split")
    o = attend(t, cfg, q, k, v)
    merged = t.record("o_merged", merge_heads(o), SEQ, "merge_heads")
    t.record("out", merged @ t["w_out"].T + t["b_out"], SEQ, "linear")
    return t
