"""Cross-check a Trace against PyTorch: rebuild the variant in torch, compare every recorded tensor.

One builder per variant (``BUILDERS``) runs the torch counterpart on the trace's own input and
weights and returns its tensors by trace name; ``compare`` turns both sides into table rows.
torch is imported lazily, here only: ``attnwalk render`` never imports it.

Each tensor is compared twice. *max rel err*: torch runs the whole forward from x and the
weights alone (chained), so the row says what PyTorch computes. *step rel err*: each torch op
runs on the trace's own inputs to that step, so a wrong step fails by itself and is named.
A tensor agrees when both are <= ``RTOL[dtype]``.

Each element's error is divided by the *magnitude of the terms that produced it*
(``yolo_magnitudes``, ``sequence_magnitudes``): |W|·|x| for a convolution or Linear, |q|ᵀ·|k|
for the scores, and from ``exp`` on the softmax amplification ``1 + |s_ij| + |row max|``
(exp turns an absolute error in its argument into a relative error of the same size), floored
at one ulp of the tensor's largest magnitude. A float32 run thus reports its real rounding
error against what float32 can resolve, instead of a tolerance widened until everything passes.
"""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np

from .config import MASK_FILL_VALUES
from .errors import ConfigError

DEVICES = ("cpu", "cuda", "auto")
DTYPES = ("float64", "float32")
REFERENCES = ("explicit", "ultralytics")
# Relative to the magnitude of the terms (see module docstring): ~10^4 ulps of float64, ~100 of float32.
RTOL = {"float64": 1e-12, "float32": 1e-5}
EPS = {"float64": float(np.finfo(np.float64).eps), "float32": float(np.finfo(np.float32).eps)}
TF32_OFF = "off (torch.backends.cuda.matmul.allow_tf32 = False, torch.backends.cudnn.allow_tf32 = False)"
TF32_CPU = "n/a (cpu never uses TF32)"


# ---------------------------------------------------------------- options, torch, device


def check_options(device: str, dtype: str, reference: str) -> None:
    """Reject a bad --device/--dtype/--reference value before torch is even imported."""
    for option, value, allowed in (("--device", device, DEVICES), ("--dtype", dtype, DTYPES),
                                   ("--reference", reference, REFERENCES)):
        if value not in allowed:
            raise ConfigError(option, f"got {value!r}; allowed: {', '.join(allowed)}")


def import_torch():
    """torch, or one clear ConfigError saying it is missing (crosscheck's only hard dependency)."""
    try:
        import torch
    except ImportError:
        raise ConfigError("crosscheck", "PyTorch is not installed; pip install torch (>= 2.1, the CPU "
                                        "build is enough) to compare with it") from None
    return torch


def resolve_device(torch, device: str) -> str:
    """'cpu' or 'cuda' for --device cpu|cuda|auto; cuda without a GPU is an error, not a fallback."""
    has_cuda = bool(torch.cuda.is_available())
    if device == "cuda" and not has_cuda:
        raise ConfigError("--device", "cuda requested but torch.cuda.is_available() is False; allowed: cpu, auto")
    if device == "auto":
        return "cuda" if has_cuda else "cpu"
    return device


@contextmanager
def tf32_off(torch, device: str):
    """Switch TF32 off for CUDA matmul and cudnn convolutions (restored afterwards); yields its state."""
    if device != "cuda":
        yield TF32_CPU
        return
    matmul, cudnn = torch.backends.cuda.matmul, torch.backends.cudnn
    saved = (matmul.allow_tf32, cudnn.allow_tf32)
    matmul.allow_tf32, cudnn.allow_tf32 = False, False
    try:
        yield TF32_OFF
    finally:
        matmul.allow_tf32, cudnn.allow_tf32 = saved


# ---------------------------------------------------------------- comparison


def _errors(ours: np.ndarray, theirs: np.ndarray, magnitude: np.ndarray, eps: float) -> tuple[float, float]:
    """(max abs error, max error relative to each element's magnitude, floored at one ulp of the largest)."""
    if np.isnan(ours).any() or np.isnan(theirs).any():
        return float("nan"), float("nan")  # NaN never agrees, not even with NaN: the row fails
    same = ours == theirs  # equal infinities (a -inf mask fill) agree
    with np.errstate(invalid="ignore"):
        diff = np.where(same, 0.0, np.abs(ours - theirs))
    if diff.size == 0:
        return 0.0, 0.0
    floor = max(eps * float(np.nanmax(magnitude, initial=0.0)), float(np.finfo(np.float64).tiny))
    rel = diff / np.maximum(np.nan_to_num(magnitude, nan=0.0, posinf=np.inf), floor)
    return float(diff.max()), float(rel.max())


def compare(trace, got: dict, magnitudes: dict, dtype: str, prefix: str = "", names=None,
            step: tuple[dict, dict] | None = None) -> list[dict]:
    """One row per tensor name (trace order): shape, max abs/rel error, ok, and a note when not comparable.

    ``step`` = (tensors computed from the trace's own inputs, their magnitudes) adds ``step_rel``;
    a row is ok when both its errors are within RTOL[dtype].
    """
    rows = []
    names = list(trace.names()) if names is None else list(names)
    extra = [n for n in got if n not in trace] if names == list(trace.names()) else []
    for name in names + extra:
        row = {"name": prefix + name, "shape": tuple(trace[name].shape) if name in trace else None,
               "max_abs": None, "max_rel": None, "step_rel": None, "ok": False, "note": ""}
        if name not in trace:
            row["note"] = "computed by torch but not recorded in the trace"
        elif name not in got:
            row["note"] = "no torch counterpart"
        elif tuple(got[name].shape) != row["shape"]:
            row["note"] = f"shape {row['shape']} in the trace, {tuple(got[name].shape)} in torch"
        else:
            mag = magnitudes.get(name, np.abs(trace[name]))
            row["max_abs"], row["max_rel"] = _errors(trace[name], got[name], mag, EPS[dtype])
            if step is not None:
                local, local_mag = step
                row["step_rel"] = _errors(trace[name], local[name], local_mag.get(name, mag), EPS[dtype])[1]
            over = [label for label, err in (("max", row["max_rel"]), ("step", row["step_rel"]))
                    if err is not None and not err <= RTOL[dtype]]
            row["ok"] = not over
            row["note"] = " and ".join(over) + " rel err over tolerance" if over else ""
            if row["max_rel"] != row["max_rel"] or row["step_rel"] != row["step_rel"]:
                row["note"] = "NaN values"
        rows.append(row)
    return rows


def to_numpy(tensors: dict) -> dict[str, np.ndarray]:
    """torch tensors (any device/dtype) -> float64 NumPy arrays, by name."""
    return {name: t.detach().to("cpu").double().numpy() for name, t in tensors.items()}


# ---------------------------------------------------------------- yolo: Ultralytics Attention


_CLASSES: dict = {}


def yolo_attention_class(torch):
    """A torch copy of Ultralytics' ``Attention`` (block.py), same attribute names and layout.

    ``Conv`` is Ultralytics' Conv with act=False: Conv2d(bias=False) -> BatchNorm2d -> Identity.
    """
    if "yolo" in _CLASSES:
        return _CLASSES["yolo"]
    nn = torch.nn

    class Conv(nn.Module):
        def __init__(self, c1, c2, k=1, s=1, g=1):
            super().__init__()
            self.conv = nn.Conv2d(c1, c2, k, s, k // 2, groups=g, bias=False)
            self.bn = nn.BatchNorm2d(c2)
            self.act = nn.Identity()

        def forward(self, x):
            return self.act(self.bn(self.conv(x)))

    class Attention(nn.Module):
        def __init__(self, dim, num_heads=8, attn_ratio=0.5):
            super().__init__()
            self.num_heads = num_heads
            self.head_dim = dim // num_heads
            self.key_dim = int(self.head_dim * attn_ratio)
            self.scale = self.key_dim**-0.5
            nh_kd = self.key_dim * num_heads
            h = dim + nh_kd * 2
            self.qkv = Conv(dim, h, 1)
            self.proj = Conv(dim, dim, 1)
            self.pe = Conv(dim, dim, 3, 1, g=dim)

        def forward(self, x):
            B, C, H, W = x.shape
            N = H * W
            qkv = self.qkv(x)
            q, k, v = qkv.view(B, self.num_heads, self.key_dim * 2 + self.head_dim, N).split(
                [self.key_dim, self.key_dim, self.head_dim], dim=2
            )
            attn = (q.transpose(-2, -1) @ k) * self.scale
            attn = attn.softmax(dim=-1)
            x = (v @ attn.transpose(-2, -1)).view(B, C, H, W) + self.pe(v.reshape(B, C, H, W))
            return self.proj(x)

    _CLASSES["yolo"] = Attention
    return Attention


def load_yolo_weights(torch, module, trace) -> None:
    """Copy w_*/b_* into each Conv+BN so that BN (eval) is the identity plus the trace's bias."""
    for part in ("qkv", "proj", "pe"):
        conv, bn = getattr(module, part).conv, getattr(module, part).bn
        w, b = trace[f"w_{part}"], trace[f"b_{part}"]
        if tuple(conv.weight.shape) != w.shape or tuple(bn.bias.shape) != b.shape:
            raise ValueError(f"{part}: trace w_{part} {w.shape}, b_{part} {b.shape}; module {part}.conv.weight "
                             f"{tuple(conv.weight.shape)}, {part}.bn.bias {tuple(bn.bias.shape)}")
        with torch.no_grad():
            conv.weight.copy_(torch.from_numpy(w))
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0 - bn.eps)  # var + eps = 1: BN divides by exactly sqrt(1)
            bn.weight.fill_(1.0)
            bn.bias.copy_(torch.from_numpy(b))
    module.eval()


def fused_weights(torch, module) -> dict:
    """w_*/b_* as inference sees them: Conv+BN folded the way Ultralytics' fuse_conv_and_bn does."""
    out = {}
    for part in ("qkv", "proj", "pe"):
        conv, bn = getattr(module, part).conv, getattr(module, part).bn
        factor = bn.weight / torch.sqrt(bn.running_var + bn.eps)
        out[f"w_{part}"] = conv.weight * factor.view(-1, 1, 1, 1)
        out[f"b_{part}"] = bn.bias - bn.running_mean * factor
    return out


def yolo_steps(torch, m, x, pe_on: str, feed: dict | None = None) -> dict:
    """Ultralytics ``Attention.forward`` written out step by step on module ``m``, each tensor named.

    With ``feed`` (the trace's tensors in torch), every step reads its inputs from the trace
    instead of from the previous torch step: each op is then checked on its own.
    """
    B, C, H, W = x.shape
    N = H * W
    s = {"x": x}
    get = feed.__getitem__ if feed is not None else s.__getitem__
    s["qkv"] = m.qkv(get("x"))
    s["q"], s["k"], s["v"] = get("qkv").view(B, m.num_heads, m.key_dim * 2 + m.head_dim, N).split(
        [m.key_dim, m.key_dim, m.head_dim], dim=2
    )
    s["scores"] = get("q").transpose(-2, -1) @ get("k")
    s["scores_scaled"] = get("scores") * m.scale
    s["row_max"] = get("scores_scaled").amax(dim=-1)
    s["exp"] = torch.exp(get("scores_scaled") - get("row_max").unsqueeze(-1))
    s["row_sum"] = get("exp").sum(dim=-1)
    s["attn"] = get("scores_scaled").softmax(dim=-1)  # torch's own softmax, not exp / row_sum
    s["o"] = (get("v") @ get("attn").transpose(-2, -1)).view(B, C, H, W)
    s["pe"] = m.pe(get("v").reshape(B, C, H, W) if pe_on == "v" else get("o"))
    s["o_pe"] = get("o") + get("pe")
    s["out"] = m.proj(get("o_pe"))
    return s


def module_outputs(torch, m, x) -> dict:
    """Run ``m(x)`` untouched; forward hooks catch qkv, pe, the input of proj (o_pe) and out."""
    seen, hooks = {}, []

    def keep(name, use_input=False):
        def hook(_module, inputs, output):
            seen[name] = inputs[0] if use_input else output
        return hook

    hooks.append(m.qkv.register_forward_hook(keep("qkv")))
    hooks.append(m.pe.register_forward_hook(keep("pe")))
    hooks.append(m.proj.register_forward_hook(keep("o_pe", use_input=True)))
    try:
        seen["out"] = m(x)
    finally:
        for h in hooks:
            h.remove()
    return seen


def yolo_module(torch, trace, attention_class, device: str, dt):
    """An ``attention_class(dim, num_heads, attn_ratio)`` holding the trace's weights, on device/dtype."""
    cfg = trace.config
    m = attention_class(cfg["dim"], num_heads=cfg["heads"], attn_ratio=cfg["attn_ratio"])
    m = m.to(device=device, dtype=dt)
    load_yolo_weights(torch, m, trace)
    return m


def yolo_magnitudes(trace, band: float | None = None) -> dict[str, np.ndarray]:
    """The magnitude of the terms behind each element, for the relative error (module docstring).

    Products use |a|·|b| (so cancellation is not mistaken for error); from exp on, each element
    carries the softmax amplification. ``band=None``: each step from the trace's own inputs
    (|trace tensors|); a number: the chained run, magnitudes propagated step to step and the
    rounding band that may let another score overtake a row's maximum.
    """
    from .engine.yolo import conv1x1, depthwise3x3

    t, d, chained = trace, trace.derived, band is not None
    B, C, H, W = t["x"].shape
    heads, kd, hd = trace.config["heads"], d["key_dim"], d["head_dim"]
    a = {name: np.abs(t[name]) for name in t.names()}
    m = dict(a)
    src = m if chained else a
    m["qkv"] = conv1x1(src["x"], a["w_qkv"], a["b_qkv"])
    per_head = src["qkv"].reshape(B, heads, 2 * kd + hd, H * W)
    m["q"], m["k"], m["v"] = per_head[:, :, :kd], per_head[:, :, kd : 2 * kd], per_head[:, :, 2 * kd :]
    m["scores"] = np.swapaxes(src["q"], -2, -1) @ src["k"]
    m["scores_scaled"] = src["scores"] * d["scale"]
    m["row_max"] = src["scores_scaled"].max(axis=-1)
    amp = softmax_amplification(t["scores_scaled"], t["row_max"], src["scores_scaled"], src["row_max"], band)
    m["exp"] = t["exp"] * amp
    m["row_sum"] = (m if chained else a)["exp"].sum(axis=-1)
    m["attn"] = t["attn"] * (amp + ((t["exp"] * amp).sum(axis=-1) / t["row_sum"])[..., None])
    m["o"] = (src["v"] @ np.swapaxes(src["attn"], -2, -1)).reshape(B, C, H, W)
    pe_in = src["v"].reshape(B, C, H, W) if trace.config["pe_on"] == "v" else src["o"]
    m["pe"] = depthwise3x3(pe_in, a["w_pe"], a["b_pe"])
    m["o_pe"] = src["o"] + src["pe"]
    m["out"] = conv1x1(src["o_pe"], a["w_proj"], a["b_proj"])
    return m


def softmax_amplification(s, row_max, mag_s, mag_max, band: float | None) -> np.ndarray:
    """Relative error of exp(s_ij - max_i), in units of the rounding of the terms: 1 + |s_ij| + |max_i|.

    The row's maximum gives exp(0) = 1 exactly, in any precision, when both sides start from the
    same scores (``band=None``). In a chained run another score within ``band`` (relative to the
    magnitudes) of the maximum may be the maximum on the torch side, so a near tie keeps the bound.
    """
    bound = mag_s + mag_max[..., None]
    gap = row_max[..., None] - s
    exact = gap == 0
    if band is not None:
        near = (gap <= band * bound).sum(axis=-1, keepdims=True) > 1
        exact &= ~near
    return 1.0 + np.where(exact, 0.0, bound)


def ultralytics_attention_class():
    """The real ``ultralytics.nn.modules.block.Attention``, or one clear ConfigError if not installed."""
    try:
        from ultralytics.nn.modules.block import Attention
    except ImportError:
        raise ConfigError("--reference", "ultralytics requested but the ultralytics package is not installed "
                                         "(pip install ultralytics); allowed: explicit") from None
    return Attention


YOLO_NAMES = ("x", "w_qkv", "b_qkv", "w_proj", "b_proj", "w_pe", "b_pe", "qkv", "q", "k", "v", "scores",
              "scores_scaled", "row_max", "exp", "row_sum", "attn", "o", "pe", "o_pe", "out")


def check_yolo(torch, trace, device: str, dtype: str, reference_class=None) -> list[dict]:
    """Rows for the explicit Ultralytics forward, then (``reference_class`` given) for that real module.

    Each tensor is compared twice: chained (torch from x and the weights only: what PyTorch
    computes) and step by step (each op on the trace's own inputs: names the step that is wrong).
    """
    missing = [name for name in YOLO_NAMES if name not in trace]
    if missing:
        raise ValueError(f"trace lacks {', '.join(missing)}: crosscheck yolo needs all of {', '.join(YOLO_NAMES)}")
    dt = getattr(torch, dtype)
    pe_on = trace.config["pe_on"]
    feed = {name: torch.from_numpy(trace[name]).to(device=device, dtype=dt) for name in trace.names()}
    x = feed["x"]
    with torch.no_grad():
        m = yolo_module(torch, trace, yolo_attention_class(torch), device, dt)
        weights = fused_weights(torch, m)
        chained = to_numpy({**weights, **yolo_steps(torch, m, x, pe_on)})
        step = to_numpy({**weights, **yolo_steps(torch, m, x, pe_on, feed=feed)})
        rows = compare(trace, chained, yolo_magnitudes(trace, band=RTOL[dtype]), dtype,
                       step=(step, yolo_magnitudes(trace)))
        if reference_class is None:
            return rows
        if pe_on != "v":
            raise ConfigError("--reference", "the real module applies pe to v, this trace has --pe-on o; "
                              "allowed with --pe-on o: explicit")
        real = yolo_module(torch, trace, reference_class, device, dt)
        seen = to_numpy(module_outputs(torch, real, x))
        return rows + compare(trace, seen, yolo_magnitudes(trace, band=RTOL[dtype]), dtype,
                              prefix="ultralytics:", names=list(seen))


# ---------------------------------------------------------------- sdpa and mha: sequences



def split_heads(t, heads: int):
    """``b n (h d) -> b h n d`` (torch or NumPy)."""
    B, n, width = t.shape
    t = t.reshape(B, n, heads, width // heads)
    return t.transpose(0, 2, 1, 3) if isinstance(t, np.ndarray) else t.transpose(1, 2)


def merge_heads(t):
    """``b h n d -> b n (h d)`` (torch or NumPy)."""
    B, h, n, d = t.shape
    if isinstance(t, np.ndarray):
        return t.transpose(0, 2, 1, 3).reshape(B, n, h * d)
    return t.transpose(1, 2).reshape(B, n, h * d)


def keep_matrix(torch, mask: str, n: int, m: int, device: str):
    """(Lq, Lk) bool, True = the query may look at the key (``F.scaled_dot_product_attention``'s meaning)."""
    keep = torch.ones(n, m, dtype=torch.bool, device=device)
    if mask == "causal":
        keep = keep.tril()
    elif mask.startswith("padding:") and int(mask.split(":")[1]):
        keep[:, m - int(mask.split(":")[1]):] = False
    return keep


def drops_like_torch(trace) -> bool:
    """True when dropping keys with -inf (SDPA, nn.MultiheadAttention) gives the trace's weights.

    So for no mask, for fill -inf, and for a finite fill whose dropped keys got exactly 0 weight
    in the trace. Not when a query keeps no key (uniform weights), nor when scores lie far below
    a finite fill (a dropped key then outweighs the kept ones: masked_fill is not -inf).
    """
    if "mask" not in trace or trace.config["mask_fill"] == "-inf":
        return True
    return bool((trace["attn"][..., trace["mask"] == 0] == 0).all())


def attend_steps(torch, s: dict, get, cfg: dict, d: dict, use_sdpa: bool) -> None:
    """scores ... o in torch ops (DESIGN §2 sdpa); o by F.scaled_dot_product_attention when ``use_sdpa``."""
    given = cfg["variant"] == "sdpa" and cfg["source"] == "scores"  # the scores are an input: no q, k
    device = get("scores" if given else "q").device
    if not given:
        s["scores"] = get("q") @ get("k").transpose(-2, -1)
    s["scores_scaled"] = get("scores") * d["scale"]
    last, keep = "scores_scaled", None
    if cfg["mask"] != "none":
        keep = keep_matrix(torch, cfg["mask"], d["n"], d["m"], device)
        s["mask"] = keep.to(get("scores").dtype)
        s["scores_masked"] = get("scores_scaled").masked_fill(~keep, MASK_FILL_VALUES[cfg["mask_fill"]])
        last = "scores_masked"
    s["row_max"] = get(last).amax(dim=-1)
    shift = torch.where(torch.isfinite(get("row_max")), get("row_max"), torch.zeros_like(get("row_max")))
    s["exp"] = torch.exp(get(last) - shift.unsqueeze(-1))
    s["row_sum"] = get("exp").sum(dim=-1)
    attn = get(last).softmax(dim=-1)
    if keep is not None and cfg["mask_fill"] == "-inf":  # policy: a row with no key kept weighs 0 (as SDPA)
        attn = attn.masked_fill(~keep.any(dim=-1, keepdim=True), 0.0)
    s["attn"] = attn
    F = torch.nn.functional
    if given and "v" not in s:
        return  # given scores without a v table: the walk ends at the weights
    if use_sdpa and not given:
        s["o"] = F.scaled_dot_product_attention(get("q"), get("k"), get("v"), attn_mask=keep, scale=d["scale"])
    else:
        s["o"] = get("attn") @ get("v")


def sequence_steps(torch, inputs: dict, cfg: dict, d: dict, feed: dict | None = None, use_sdpa: bool = False) -> dict:
    """The sdpa/mha forward in torch, each tensor named as in the trace; ``feed``: step by step."""
    F = torch.nn.functional
    s = dict(inputs)
    get = feed.__getitem__ if feed is not None else s.__getitem__
    heads = cfg["heads"]
    if cfg["variant"] == "mha":
        s["qkv"] = F.linear(get("x"), get("w_qkv"), get("b_qkv"))
        flats = get("qkv").chunk(3, dim=-1)
    elif cfg["source"] == "project":
        x_kv = get("x_kv") if "x_kv" in s else get("x")
        flats = F.linear(get("x"), get("w_q")), F.linear(x_kv, get("w_k")), F.linear(x_kv, get("w_v"))
    elif cfg["source"] == "columns":
        x_kv = get("x_kv") if "x_kv" in s else get("x")
        flats = get("x")[..., list(cfg["q_cols"])], x_kv[..., list(cfg["k_cols"])], x_kv[..., list(cfg["v_cols"])]
    else:
        flats = None  # direct: q, k, v are the inputs
    if flats is not None:
        s["q"], s["k"], s["v"] = (split_heads(t, heads) for t in flats)
    attend_steps(torch, s, get, cfg, d, use_sdpa=use_sdpa and feed is None)
    if cfg["variant"] == "mha":
        s["o_merged"] = merge_heads(get("o"))
        s["out"] = F.linear(get("o_merged"), get("w_out"), get("b_out"))
    elif "o" in s:
        s["out"] = merge_heads(get("o"))
    return s


def sequence_magnitudes(trace, band: float | None = None) -> dict[str, np.ndarray]:
    """``yolo_magnitudes`` for sdpa/mha: |a|·|b| for products, softmax amplification from exp on.

    Masked scores are the fill value itself on both sides (exact), so their magnitude is 0.
    """
    t, cfg, d, chained = trace, trace.config, trace.derived, band is not None
    heads = cfg["heads"]
    a = {name: np.abs(t[name]) for name in t.names()}
    m = dict(a)
    src = m if chained else a
    x_kv = src["x_kv"] if "x_kv" in t else src.get("x")
    if cfg["variant"] == "mha":
        m["qkv"] = src["x"] @ a["w_qkv"].T + a["b_qkv"]
        flats = np.split(src["qkv"], 3, axis=-1)
    elif cfg["source"] == "project":
        flats = src["x"] @ a["w_q"].T, x_kv @ a["w_k"].T, x_kv @ a["w_v"].T
    elif cfg["source"] == "columns":
        flats = src["x"][..., list(cfg["q_cols"])], x_kv[..., list(cfg["k_cols"])], x_kv[..., list(cfg["v_cols"])]
    else:
        flats = None
    if flats is not None:
        m["q"], m["k"], m["v"] = (split_heads(f, heads) for f in flats)
    if not (cfg["variant"] == "sdpa" and cfg["source"] == "scores"):  # given scores: an input, |scores|
        m["scores"] = src["q"] @ np.swapaxes(src["k"], -2, -1)
    m["scores_scaled"] = src["scores"] * d["scale"]
    last = "scores_scaled"
    if "mask" in t:
        m["scores_masked"] = np.where(t["mask"].astype(bool), src["scores_scaled"], 0.0)
        last = "scores_masked"
    m["row_max"] = src[last].max(axis=-1)
    with np.errstate(all="ignore"):  # rows whose keys are all dropped with -inf: max -inf, sum 0
        amp = softmax_amplification(t[last], t["row_max"], src[last], src["row_max"], band)
        m["exp"] = np.nan_to_num(t["exp"] * amp)
        m["row_sum"] = src["exp"].sum(axis=-1)
        ratio = np.nan_to_num((t["exp"] * amp).sum(axis=-1) / t["row_sum"], nan=0.0, posinf=0.0)
        m["attn"] = np.nan_to_num(t["attn"] * (amp + ratio[..., None]))
    if "v" not in t:
        return m  # given scores without a v table
    m["o"] = src["attn"] @ src["v"]
    if cfg["variant"] == "mha":
        m["o_merged"] = merge_heads(src["o"])
        m["out"] = src["o_merged"] @ a["w_out"].T + a["b_out"]
    else:
        m["out"] = merge_heads(src["o"])
    return m


INPUT_NAMES = ("x", "x_kv", "w_q", "w_k", "w_v", "w_qkv", "b_qkv", "w_out", "b_out")


def mha_module(torch, trace, device: str, dt):
    """``nn.MultiheadAttention(D, heads, batch_first=True)`` holding the trace's in_proj/out_proj."""
    D, heads = trace.derived["d_model"], trace.config["heads"]
    m = torch.nn.MultiheadAttention(D, heads, bias=True, batch_first=True).to(device=device, dtype=dt).eval()
    with torch.no_grad():
        for param, name in ((m.in_proj_weight, "w_qkv"), (m.in_proj_bias, "b_qkv"),
                            (m.out_proj.weight, "w_out"), (m.out_proj.bias, "b_out")):
            param.copy_(torch.from_numpy(trace[name]))
    return m


def check_sequence(torch, trace, device: str, dtype: str, reference_class=None) -> list[dict]:
    """sdpa/mha rows: chained (o by F.scaled_dot_product_attention) and step by step; mha adds
    ``nn.MultiheadAttention``'s out and per-head weights when it means what the trace means."""
    dt = getattr(torch, dtype)
    cfg, d = trace.config, trace.derived
    feed = {name: torch.from_numpy(trace[name]).to(device=device, dtype=dt) for name in trace.names()}
    given = {"direct": ("q", "k", "v"), "scores": ("scores", "v")}.get(cfg["source"], ()) \
        if cfg["variant"] == "sdpa" else ()
    inputs = {n: feed[n] for n in INPUT_NAMES + given if n in feed}
    with torch.no_grad():
        alike = drops_like_torch(trace)
        chained = to_numpy(sequence_steps(torch, inputs, cfg, d, use_sdpa=alike))
        step = to_numpy(sequence_steps(torch, inputs, cfg, d, feed=feed))
        chained_mags = sequence_magnitudes(trace, band=RTOL[dtype])
        rows = compare(trace, chained, chained_mags, dtype, step=(step, sequence_magnitudes(trace)))
        keep = keep_matrix(torch, cfg["mask"], d["n"], d["m"], device) if cfg["mask"] != "none" else None
        if cfg["variant"] != "mha" or not alike or not (keep is None or bool(keep.any(dim=-1).all())):
            return rows  # a query with no key kept: NaN in nn.MultiheadAttention, 0 or uniform in the trace
        m = mha_module(torch, trace, device, dt)
        x = feed["x"]
        out, weights = m(x, x, x, need_weights=True, average_attn_weights=False,
                         attn_mask=None if keep is None else ~keep)  # nn.MultiheadAttention: True = drop
        seen = to_numpy({"attn": weights, "out": out})
        return rows + compare(trace, seen, chained_mags, dtype, prefix="nn.MultiheadAttention:", names=list(seen))


# One comparison builder per variant: (torch, trace, device, dtype, reference_class) -> rows.
BUILDERS = {"yolo": check_yolo, "sdpa": check_sequence, "mha": check_sequence}


def describe(trace, reference_class) -> str:
    """What torch ran, for the table's first line."""
    variant = trace.config.get("variant", "yolo")
    if variant == "yolo":
        return "explicit Ultralytics Attention" + (", + ultralytics' Attention" if reference_class else "")
    if variant == "sdpa" and trace.config["source"] == "scores":
        return "explicit torch ops from the given scores" + ("; o = attn @ v" if "v" in trace else "")
    if not drops_like_torch(trace):
        return "explicit torch ops; o = attn @ v, as SDPA's -inf masking differs from this fill here"
    text = "explicit torch ops, o by F.scaled_dot_product_attention"
    if variant == "mha" and ("mask" not in trace or trace["mask"].any(axis=-1).all()):
        text += ", + nn.MultiheadAttention"
    return text


# ---------------------------------------------------------------- entry point and table


def crosscheck(trace, device: str = "cpu", dtype: str = "float64", reference: str = "explicit",
               reference_class=None) -> dict:
    """Compare every tensor of ``trace`` with PyTorch; plain data: header facts, rows, passed.

    ``reference="ultralytics"`` adds rows for the real Ultralytics module; tests pass their own
    ``reference_class`` to exercise that path without installing ultralytics.
    """
    check_options(device, dtype, reference)
    variant = trace.config.get("variant", "yolo")
    if variant not in BUILDERS:
        raise ConfigError("--variant", f"crosscheck for variant {variant} is not available yet; "
                                       f"allowed: {', '.join(BUILDERS)}")
    if reference == "ultralytics" and variant != "yolo":
        raise ConfigError("--reference", f"ultralytics applies to --variant yolo only, not {variant}; "
                                         "allowed: explicit")
    torch = import_torch()
    where = resolve_device(torch, device)
    if reference == "ultralytics" and reference_class is None:
        reference_class = ultralytics_attention_class()
    with tf32_off(torch, where) as tf32:
        rows = BUILDERS[variant](torch, trace, where, dtype, reference_class)
    return {"variant": variant, "device": where, "dtype": dtype, "tf32": tf32, "torch": torch.__version__,
            "reference": describe(trace, reference_class), "rtol": RTOL[dtype], "rows": rows,
            "passed": all(r["ok"] for r in rows)}


def _num(value) -> str:
    return "-" if value is None else ("0" if value == 0 else f"{value:.3g}")


def format_table(result: dict) -> str:
    """Aligned plain text: a header line (device, dtype, TF32), one line per tensor, a verdict line."""
    head = (f"attnwalk crosscheck {result['variant']}: NumPy float64 trace vs PyTorch {result['torch']} "
            f"({result['reference']})\n"
            f"device {result['device']} | dtype {result['dtype']} | TF32 {result['tf32']}\n"
            f"pass: max rel err and step rel err <= {result['rtol']:g}, errors divided by the magnitude of the "
            f"terms behind each element\n"
            f"max: torch from x and the weights alone; step: each torch op on the trace's own inputs\n")
    table = [("tensor", "shape", "max abs err", "max rel err", "step rel err", "verdict")]
    for r in result["rows"]:
        verdict = "ok" if r["ok"] else "FAIL" + (f" ({r['note']})" if r["note"] else "")
        shape = "-" if r["shape"] is None else "(" + ", ".join(map(str, r["shape"])) + ")"
        table.append((r["name"], shape, _num(r["max_abs"]), _num(r["max_rel"]), _num(r["step_rel"]), verdict))
    widths = [max(len(row[i]) for row in table) for i in range(5)]
    lines = ["  ".join(cell.ljust(wd) for cell, wd in zip(row[:5], widths)) + "  " + row[5] for row in table]
    bad = [r["name"] for r in result["rows"] if not r["ok"]]
    n = len(result["rows"])
    foot = (f"PASS: all {n} tensors agree" if not bad else
            f"FAIL: {len(bad)} of {n} tensors disagree, first at {bad[0]}: {', '.join(bad)}")
    return head + "\n".join(line.rstrip() for line in lines) + "\n" + foot + "\n"
