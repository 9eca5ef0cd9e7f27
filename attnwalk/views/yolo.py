"""The view model of the yolo walkthrough (batch 0, worked row: head 0, query 0)."""

from __future__ import annotations

import numpy as np

from .. import __version__
from ..config import Config
from ..frontmatter import front_matter
from ..latex import bmatrix, is_elided
from ..notation import label, plain
from ..numfmt import fmt, fmt_list
from ..trace import Trace
from . import elide, intuition
from .exercises import SUM, wrap_list, wrap_sum, yolo_exercises
from .layout import rows

MAX_TABLE_POSITIONS = 16  # the pixel table (one row per position) up to 16 positions
MAX_ROLE_ROWS = 64  # the qkv channel-role table in full up to 64 channels (dim 32), then each role's ends


def cli_command(cfg: dict) -> str:
    """The ``attnwalk render`` command that reproduces this walkthrough."""
    defaults = Config().to_dict()
    always = ("h", "w", "heads", "seed")
    parts = ["attnwalk render"]
    for key in ("h", "w", "dim", "heads", "attn_ratio", "batch", "seed", "input", "init_std", "rng", "pe_on",
                "decimals", "lang"):
        if key in always or cfg[key] != defaults[key] or key == "lang":
            val = f"{cfg[key]:g}" if isinstance(cfg[key], float) else cfg[key]
            parts.append(f"--{key.replace('_', '-')} {val}")
    return " ".join(parts)


def build(trace: Trace) -> dict:
    cfg, d = trace.config, trace.derived
    dec = cfg["decimals"]
    B, C, H, W = trace["x"].shape
    N, heads, kd, hd = H * W, cfg["heads"], d["key_dim"], d["head_dim"]
    # Worked-by-hand arithmetic prints its operands at a working precision 4 places finer
    # than the matrices, so that redoing the sum by hand gives the printed result.
    wp = min(dec + 4, 15)
    f = lambda v: fmt(v, dec)  # noqa: E731
    fw = lambda v: fmt(v, wp)  # noqa: E731
    mat = lambda a: bmatrix(a, dec)  # noqa: E731
    lab = lambda name, **ix: label(name, B, **ix)  # noqa: E731
    b = 0

    def channel_maps(name: str, tensor: str, channels: list[int]) -> list[dict]:
        return rows([{"c": c, "label": lab(name, b=0, c=c), "tex": mat(trace[tensor][b, c])} for c in channels])

    x = trace["x"]
    chans = elide.channels(C)
    qkv_chans = elide.channels(d["qkv_channels"])
    per_head = 2 * kd + hd
    roles = []
    for ch in range(d["qkv_channels"]):
        h, r = divmod(ch, per_head)
        role, idx = ("q", r) if r < kd else ("k", r - kd) if r < 2 * kd else ("v", r - 2 * kd)
        roles.append({"channel": ch, "head": h, "role": role, "index": idx})
    if len(roles) > MAX_ROLE_ROWS:
        roles = _roles_shown(roles, heads, kd, hd)

    # Worked 1x1 conv: QKV channel 0 at pixel p0.
    w_qkv = trace["w_qkv"][:, :, 0, 0]
    xd = lambda v: _num(v, dec)  # noqa: E731
    xw = lambda v: _num(v, wp)  # noqa: E731
    qkv_terms = [f"({fw(w_qkv[0, c])})({xw(x[b, c, 0, 0])})" for c in range(C)]

    # Worked score row: head 0, query 0.
    q, k, v = trace["q"][b], trace["k"][b], trace["v"][b]
    i, h0 = 0, 0
    s_row = trace["scores"][b, h0, i]
    s_terms = []
    for j in range(min(N, 3)):
        s_terms.append({
            "j": j,
            "expr": " + ".join(f"({fw(q[h0, dd, i])})({fw(k[h0, dd, j])})" for dd in range(kd)),
            "value": fw(s_row[j]),
        })

    ss_row = trace["scores_scaled"][b, h0, i]
    e_row = trace.row("exp", b, h0, i)  # one row: exp stays a recipe (engine/softmax.py)
    a_row = trace["attn"][b, h0, i]
    attn = trace["attn"][b]
    row_sums = attn.sum(axis=-1)

    heads_view = []
    for h in range(heads):
        heads_view.append({
            "h": h,
            "q_label": lab("q", h=h), "q_tex": mat(q[h]),
            "k_label": lab("k", h=h), "k_tex": mat(k[h]),
            "v_label": lab("v", h=h), "v_tex": mat(v[h]),
            "s_label": lab("scores", h=h), "s_tex": mat(trace["scores"][b, h]),
            "ss_label": lab("scores_scaled", h=h), "ss_tex": mat(trace["scores_scaled"][b, h]),
            "a_label": lab("attn", h=h), "a_tex": mat(attn[h]),
            "row_sum_min": fmt(row_sums[h].min(), 12), "row_sum_max": fmt(row_sums[h].max(), 12),
            # a short map lists every row's sum (as sdpa and mha do); a long one prints the smallest and the
            # largest, said in words when both round to 1 (a range "[1.0…0, 1.0…0]" reads as a typo)
            "row_sums": None if elide.is_long(N) else fmt_list(row_sums[h], 12),
            "row_sums_one": fmt(row_sums[h].min(), 12) == fmt(row_sums[h].max(), 12) == fmt(1.0, 12),
            "a_max": f(attn[h].max()), "a_min": f(attn[h].min()),
            "s_first_row": fmt_list(trace["scores"][b, h, 0], dec),
            "q_first": f(q[h, 0, 0]),
        })

    n_terms = N if N <= 16 else 3
    # Worked O column: head 0, position 0: O_0[:, 0] = sum_j A_0[0, j] V_0[:, j].
    o_terms = [{"d": dd, "terms": [f"({fw(a_row[j])})({fw(v[h0, dd, j])})" for j in range(n_terms)],
                "value": f(trace["o"][b, dd, 0, 0])} for dd in range(hd)]

    # Worked PE value: channel 0, pixel (0, 0): 3x3 window of the zero-padded input.
    pe_src = trace["v"][b].reshape(C, H, W) if cfg["pe_on"] == "v" else trace["o"][b]
    padded = np.pad(pe_src[0], 1)
    window = padded[0:3, 0:3]
    kernel = trace["w_pe"][0, 0]

    uniform = 1.0 / N
    spread = float(attn.max() - attn.min())
    pe_vi = "PE trên V (như module)" if cfg["pe_on"] == "v" else "PE trên O (như các ghi chú gốc)"
    pe_en = "PE on V (the module)" if cfg["pe_on"] == "v" else "PE on O (the seed notes)"
    heads_en = f"{heads} head" + ("s" if heads > 1 else "")
    title = {"vi": f"Attention trong YOLO — ví dụ số {H}×{W}, {heads} head, seed {cfg['seed']}, {pe_vi}",
             "en": f"Attention in YOLO — a worked {H}×{W} example, {heads_en}, seed {cfg['seed']}, {pe_en}"
             }[cfg["lang"]]
    pos = [f"p{p}" for p in range(N)]
    favs = [intuition.favourites(attn[h], pos, pos, dec) for h in range(heads)]
    why = {
        "uniform": intuition.closeness_to_uniform(attn, dec),
        "favs": [{"h": h, "rows": favs[h], "same": intuition.same_favourite(favs[h]),
                  "least": intuition.same_least(favs[h]), "span": intuition.preference_span(favs[h]),
                  "kd1": intuition.one_dim_keys(q[h, 0], k[h, 0], dec) if kd == 1 else None} for h in range(heads)],
        "heads": intuition.heads_differ(attn, pos, pos, dec),
        "pe": intuition.relative_size(trace["pe"][b], trace["o"][b], dec),
        "saturated": [dict(r, h=h) for h in range(heads)
                      if (r := intuition.saturation(attn[h], trace["scores_scaled"][b, h], dec))],
    }
    # most rows saturated on a ramp input: the cause is the input's size (1 .. C*H*W), not the module
    ramp = cfg["input"] == "ramp" and sum(r["rows"] for r in why["saturated"]) * 2 > heads * N
    why["ramp"] = intuition.input_size(trace["x"][b], trace["scores_scaled"][b], dec) if ramp else None
    # channel 0 of O (head 0, dimension 0) averages row 0 of V_0: its range against V's (a sanity check)
    o_range = intuition.averaged_range(v[0, 0], trace["o"][b, 0].reshape(-1), dec,
                                       near=bool(why["uniform"]) and why["uniform"][0]["near"])
    if o_range:
        o_range.update(o_lo_at=divmod(o_range["o_lo"], W), o_hi_at=divmod(o_range["o_hi"], W))
    if N == 1:  # one position: every softmax is of one score, so A = [1] and O = V; nothing to compare
        why.update(uniform=[], favs=[], heads=None, saturated=[], ramp=None)
    from .course import locate

    course = locate(cfg)
    return {
        "front_matter": front_matter(trace, title),
        "version": __version__,
        "command": cli_command(cfg) + (course or {}).get("files", ""), "course": course,
        "cfg": cfg, "d": d, "dec": dec, "why": why, "o_range": o_range, "exercises": yolo_exercises(trace, wp),
        "B": B, "C": C, "H": H, "W": W, "N": N, "heads": heads, "key_dim": kd, "head_dim": hd,
        "scale": _scale_str(kd, d["scale"], dec), "scale_is_one": kd == 1,
        "nh_kd": d["nh_kd"], "qkv_channels": d["qkv_channels"], "per_head": per_head,
        "attn_ratio": f"{cfg['attn_ratio']:g}", "init_std": f"{cfg['init_std']:g}",
        "channels_elided": len(chans) < C, "qkv_channels_elided": len(qkv_chans) < d["qkv_channels"],
        "positions": [f"p{p}" for p in range(N)],
        "pixel_table": _pixel_table(x[b], dec) if N <= MAX_TABLE_POSITIONS and C <= elide.MAX_CHANNELS_SHOWN else None,
        "x_maps": rows([{"c": c, "label": lab("x", b=0, c=c), "tex": bmatrix(x[b, c], dec, cell=xd)}
                        for c in chans]),
        "w_qkv_tex": mat(w_qkv), "w_qkv_elided": is_elided(w_qkv),
        "w_proj_tex": mat(trace["w_proj"][:, :, 0, 0]),
        "w_pe": rows([{"c": c, "label": label("w_pe", c=c), "tex": mat(trace["w_pe"][c, 0])} for c in chans]),
        "biases_zero": all(not trace[n].any() for n in ("b_qkv", "b_proj", "b_pe")),
        "qkv_maps": channel_maps("qkv", "qkv", qkv_chans),
        "roles": roles,
        "qkv_worked": {"terms": " + ".join(qkv_terms), "value": f(trace["qkv"][b, 0, 0, 0]),
                       "label": plain(lab("qkv", b=0, c=0)).replace(",:,:]", ",0,0]"),
                       "lines": elide.channel_sum(plain(lab("qkv", b=0, c=0)).replace(",:,:]", ",0,0]"), w_qkv[0],
                                                  x[b, :, 0, 0], fw, xw, wp, f(trace["qkv"][b, 0, 0, 0]))},
        "heads_view": heads_view,
        "worked": {
            "h": h0, "i": i, "kd1": kd == 1,
            "wp": wp,
            "q_i": fw(q[h0, 0, i]), "k_row": fmt_list(k[h0, 0], wp),
            "s_row": fmt_list(s_row, wp), "s_terms": s_terms, "s_row_elided": N > 3,
            "long": elide.is_long(N),
            # a long row: its first terms, its largest and its last, the others summed (views/elide.py)
            "exp_lines": elide.exp_lines([fw(x) for x in ss_row], e_row, fw(trace["row_max"][b, h0, i]), wp,
                                         fw(trace["row_sum"][b, h0, i]), SUM[cfg["lang"]])
            if elide.is_long(N) else None,
            "ss_row": fmt_list(ss_row, wp), "row_max": fw(trace["row_max"][b, h0, i]),
            "argmax": int(np.argmax(ss_row)),
            "exp_terms": [{"j": j, "s": fw(ss_row[j]), "e": fw(e_row[j])} for j in range(N)],
            "exp_row": fmt_list(e_row, wp), "row_sum": fw(trace["row_sum"][b, h0, i]),
            "a_row": fmt_list(a_row, dec),
            "a_row_sum": fmt(a_row.sum(), 12),
            "o_terms": o_terms, "o_elided": n_terms < N,
            "o_lines": [elide.weighted_sum(f"O_{h0}[{dd}, {i}]", a_row, v[h0, dd], fw, fw, wp,
                                           f(trace["o"][b, dd, 0, 0])) for dd in elide.channels(hd)]
            if elide.is_long(N) else None,
            "s_lines": _row_lines(plain(lab("scores_row", h=h0, i=i)), elide.short([fw(x) for x in s_row]),
                                  prefix=f"{fw(q[h0, 0, i])} * ",
                                  operands=elide.short([fw(x) for x in k[h0, 0]]) if kd == 1 else None),
            "ss_lines": wrap_list(plain(lab("scores_scaled_row", h=h0, i=i)) + " = ",
                                  elide.short([fw(x) for x in ss_row])),
            "a_lines": _row_lines(plain(lab("attn_row", h=h0, i=i)), elide.short([fmt(x, dec) for x in a_row]),
                                  operands=elide.short([fw(x) for x in e_row]),
                                  suffix=f" / {fw(trace['row_sum'][b, h0, i])}"),
            "exp_label": plain(lab("exp_row", h=h0, i=i)), "a_label": plain(lab("attn_row", h=h0, i=i)),
            "s_label": plain(lab("scores_row", h=h0, i=i)), "ss_label": plain(lab("scores_scaled_row", h=h0, i=i)),
        },
        "o_maps": channel_maps("o", "o", chans),
        "pe_maps": channel_maps("pe", "pe", chans),
        "o_pe_maps": channel_maps("o_pe", "o_pe", chans),
        "out_maps": channel_maps("out", "out", chans),
        "pe_worked": {"window": bmatrix(window, wp), "kernel": bmatrix(kernel, wp),
                      "value": f(trace["pe"][b, 0, 0, 0]), "label": lab("pe", b=0, c=0).replace(",:,:]", ",0,0]"),
                      "src": "V" if cfg["pe_on"] == "v" else "O",
                      "lines": wrap_sum(plain(lab("pe", b=0, c=0).replace(",:,:]", ",0,0]")),
                                        [f"({fw(window[a, c])})({fw(kernel[a, c])})"
                                         for a in range(3) for c in range(3)],
                                        f(trace["pe"][b, 0, 0, 0]))},
        "summary": {
            "uniform": f(uniform), "attn_max": f(attn.max()), "attn_min": f(attn.min()),
            "near_uniform": spread < 0.5 * uniform,
            "out_absmax": f(np.abs(trace["out"][b]).max()),
        },
    }


def _roles_shown(roles: list[dict], heads: int, kd: int, hd: int) -> list[dict]:
    """The channel-role table of a wide qkv: the first and last channel of each role (q, k, v) of the
    first and the last head, ``None`` where channels are left out, so the interleaving still shows."""
    size = {"q": kd, "k": kd, "v": hd}
    keep = [r for r in roles if r["head"] in (0, heads - 1) and r["index"] in (0, size[r["role"]] - 1)]
    out: list[dict | None] = []
    for r in keep:
        if out and out[-1] is not None and r["channel"] > out[-1]["channel"] + 1:
            out.append(None)
        elif not out and r["channel"] > 0:
            out.append(None)
        out.append(r)
    return out


def _row_lines(lab: str, values: list[str], operands: list[str] | None = None, prefix: str = "",
               suffix: str = "") -> list[str]:
    """A worked row: ``lab = prefix[operands]suffix`` then ``= [values]`` under it (or ``lab = [values]``
    alone without operands), each list wrapped to a page column."""
    if operands is None:
        return wrap_list(f"{lab} = ", values)
    return wrap_list(f"{lab} = {prefix}", operands, suffix) + wrap_list(" " * len(lab) + " = ", values)


def _num(v: float, decimals: int) -> str:
    """An input value: an integer (ramp, randint) without decimals, as a reader types it; a drawn real (normal)
    at ``decimals`` like every other tensor, since its exact float32 value is no easier to read than to draw."""
    v = float(v)
    return str(int(v)) if v.is_integer() else fmt(v, decimals)


def _scale_str(kd: int, scale: float, dec: int) -> str:
    return "1" if kd == 1 else fmt(scale, dec)


def _pixel_table(xb: np.ndarray, dec: int) -> dict:
    C, H, W = xb.shape
    flat = xb.reshape(C, H * W)
    return {"header": [f"c{c}" for c in range(C)],
            "rows": [{"p": f"p{p}", "rc": (p // W, p % W), "vals": [_num(flat[c, p], dec) for c in range(C)]}
                     for p in range(H * W)]}
