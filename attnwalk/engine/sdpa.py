"""Scaled dot-product attention, read top to bottom (DESIGN §2, sdpa).

Layouts follow PyTorch's ``F.scaled_dot_product_attention``: q (B, heads, Lq, d_k),
k (B, heads, Lk, d_k), v (B, heads, Lk, d_v); scores, attn (B, heads, Lq, Lk) with row i =
query i, column j = key j; o = attn · v (B, heads, Lq, d_v); out = o with the heads merged,
(B, Lq, heads·d_v) (``b h n d -> b n (h d)``).

Masks (``mask``, recorded as (Lq, Lk) with 1 = the key is kept, 0 = dropped) replace the
dropped scores by the fill value (``masked_fill``, as the seed notes do). Policy for a query
whose keys are all dropped: with fill −inf the softmax would be 0/0 = NaN; attnwalk gives that
row all-zero weights (so its output is the zero vector), exactly what
``F.scaled_dot_product_attention`` returns in torch 2.x. ``nn.MultiheadAttention`` returns NaN
there. With a finite fill every score of the row equals the fill, so the row is uniform, 1/Lk.
"""

from __future__ import annotations

import numpy as np

from ..config import MASK_FILL_VALUES, Config
from ..trace import Trace
from . import pages
from .softmax import record_softmax

SEQ = ("batch", "token", "channel")
HEADS = ("batch", "head")


def keep_mask(mask: str, n: int, m: int) -> np.ndarray:
    """The (Lq, Lk) keep-matrix of a mask option: True where query i may look at key j."""
    keep = np.ones((n, m), dtype=bool)
    if mask == "causal":
        keep = np.tril(keep)  # query i sees keys j <= i (PyTorch's is_causal, top-left aligned)
    elif mask.startswith("padding:"):
        pad = int(mask.split(":")[1])
        if pad:
            keep[:, m - pad:] = False  # the last `pad` keys are padding
    return keep


def split_heads(t: np.ndarray, heads: int) -> np.ndarray:
    """``b n (h d) -> b h n d``."""
    B, n, width = t.shape
    return t.reshape(B, n, heads, width // heads).transpose(0, 2, 1, 3)


def merge_heads(t: np.ndarray) -> np.ndarray:
    """``b h n d -> b n (h d)``."""
    B, h, n, d = t.shape
    return t.transpose(0, 2, 1, 3).reshape(B, n, h * d)


def attend(t: Trace, cfg: Config, q: np.ndarray | None, k: np.ndarray | None, v: np.ndarray | None,
           given_scores: np.ndarray | None = None) -> np.ndarray | None:
    """Record scores ... o for head-split q, k, v (or given scores); return o (B, heads, Lq, d_v), or None
    when there is no v (source = "scores" without a v table)."""
    d = cfg.derived
    if given_scores is None:
        scores = t.record("scores", q @ np.swapaxes(k, -2, -1), HEADS + ("query", "key"), "q_kt")
    else:
        scores = t.record("scores", given_scores, HEADS + ("query", "key"), "given")
    scaled = t.record("scores_scaled", scores * d["scale"], HEADS + ("query", "key"), "scale")
    if cfg.mask == "none":
        attn = record_softmax(t, scaled, HEADS + ("query",))
    else:
        keep = keep_mask(cfg.mask, d["n"], d["m"])
        t.record("mask", keep.astype(np.float64), ("query", "key"), "mask_keep")
        fill = MASK_FILL_VALUES[cfg.mask_fill]
        masked = t.record("scores_masked", np.where(keep, scaled, fill), HEADS + ("query", "key"), "masked_fill")
        if keep.any(axis=-1).all() or np.isfinite(fill):
            attn = record_softmax(t, masked, HEADS + ("query",))
        else:
            attn = _softmax_empty_rows_zero(t, masked)
    if v is None:
        return None
    return t.record("o", attn @ v, HEADS + ("query", "channel"), "attn_v")


def _softmax_empty_rows_zero(t: Trace, s: np.ndarray) -> np.ndarray:
    """Softmax where a row of only −inf gives weights 0 (its max is −inf, its sum 0)."""
    axes = HEADS + ("query",)
    row_max = t.record("row_max", s.max(axis=-1), axes, "row_max")
    shift = np.where(np.isfinite(row_max), row_max, 0.0)
    e = t.record("exp", np.exp(s - shift[..., None]), axes + ("key",), "exp")
    row_sum = t.record("row_sum", e.sum(axis=-1), axes, "row_sum")
    safe = np.where(row_sum > 0, row_sum, 1.0)
    return t.record("attn", e / safe[..., None], axes + ("key",), "softmax_empty_rows_zero")


@pages.forward_scope
def forward(cfg: Config, inputs: dict[str, np.ndarray]) -> Trace:
    d = cfg.derived
    t = Trace(config=cfg.to_dict(), derived=dict(d))
    heads = cfg.heads
    if cfg.source == "scores":  # given scores (one head) and optionally v
        v = t.record("v", split_heads(inputs["v"], 1), HEADS + ("token", "channel"), "v_given") \
            if "v" in inputs else None
        o = attend(t, cfg, None, None, v, inputs["scores"][:, None])
        if o is not None:
            t.record("out", merge_heads(o), SEQ, "merge_heads")
        return t
    if cfg.source == "direct":
        q_flat, k_flat, v_flat = (inputs[n] for n in ("q", "k", "v"))
    else:
        for name in ("w_q", "w_k", "w_v"):
            if name in inputs:
                t.record(name, inputs[name], ("out_channel", "in_channel"), "weight")
        x = t.record("x", inputs["x"], SEQ, "input")
        x_kv = t.record("x_kv", inputs["x_kv"], SEQ, "input") if "x_kv" in inputs else x
        if cfg.source == "columns":
            q_flat, k_flat, v_flat = x[..., list(cfg.q_cols)], x_kv[..., list(cfg.k_cols)], x_kv[..., list(cfg.v_cols)]
        else:
            q_flat, k_flat, v_flat = x @ t["w_q"].T, x_kv @ t["w_k"].T, x_kv @ t["w_v"].T
    q = t.record("q", split_heads(q_flat, heads), HEADS + ("token", "channel"), f"q_{cfg.source}")
    k = t.record("k", split_heads(k_flat, heads), HEADS + ("token", "channel"), f"k_{cfg.source}")
    v = t.record("v", split_heads(v_flat, heads), HEADS + ("token", "channel"), f"v_{cfg.source}")
    o = attend(t, cfg, q, k, v)
    t.record("out", merge_heads(o), SEQ, "merge_heads")
    return t
