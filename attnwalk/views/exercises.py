"""Exercises on a note's own numbers, with answers ``attnwalk check`` verifies.

Every answer line is either a label the checker reads (``A_0[1, :] = [...]``, ``O_0[1, 0] = ...``)
or an arithmetic claim it evaluates (``1.0000000000 / 5.2974425414 ≈ 0.188770``), so a wrong
digit in an answer is reported like any other wrong number. Questions are worded by the
templates; this module only picks rows and computes the answers (plain strings).
"""

from __future__ import annotations

import numpy as np

from ..notation import label, plain
from ..numfmt import fmt
from . import elide

WIDTH = 78  # code lines wrap before this many characters (a page column)


def wrap_sum(head: str, terms: list[str], tail: str) -> list[str]:
    """``head = t1 + t2 + ...`` wrapped into lines under ``WIDTH``; continuation lines start with
    ``+`` under the first term, the result ``tail`` on its own ``= ...`` line when it does not fit."""
    pad = " " * (len(head) + 1)
    lines, cur = [], head + " = "
    for n, t in enumerate(terms):
        piece = t if n == 0 else " + " + t
        if n and len(cur) + len(piece) > WIDTH:
            lines.append(cur)
            cur = pad + "+ " + t
        else:
            cur += piece
    if len(cur) + len(tail) + 3 <= WIDTH and len(lines) == 0:
        return [cur + " = " + tail]
    lines.append(cur)
    lines.append(pad[:-1] + " = " + tail)
    return lines


def wrap_list(head: str, items: list[str], tail: str = "") -> list[str]:
    """``head[a, b, ...]tail`` wrapped into lines under ``WIDTH``; continuation lines start under
    the first item, so a long row of a worked step stays one readable list."""
    pad = " " * (len(head) + 1)
    lines, cur = [], head + "["
    for n, item in enumerate(items):
        piece = item + ("," if n < len(items) - 1 else "]" + tail)
        if n and len(cur) + 1 + len(piece) > WIDTH:
            lines.append(cur)
            cur = pad + piece
        else:
            cur += ("" if n == 0 else " ") + piece
    return lines + [cur]


ARG_PLACES = 15  # exponents of the exercises' exp(x): fine enough that exp(x) at wp places is exact

# The words inside worked lines, in the note's language (one term per concept: the sum of a row's
# exponentials is "sum" / "tổng" everywhere; `attnwalk check` reads both).
SUM = {"en": "sum", "vi": "tổng"}
VANISHES = {"en": "masked: the term vanishes", "vi": "bị che: số hạng triệt tiêu"}


def softmax_lines(scaled_row: np.ndarray, keep: np.ndarray, fill: str, row_label: str, a_label: str,
                  a_row: np.ndarray, wp: int, dec: int, fs, lang: str = "en") -> list[str]:
    """The max-subtracted softmax of one row, as the worked step prints it; a long row in short
    (views/elide.py)."""
    kept = keep.astype(bool)
    cells = [fs(x) if kept[j] else fill for j, x in enumerate(scaled_row)]
    lines = wrap_list(f"{row_label} = ", elide.short(cells))
    if not kept.any():
        return lines + wrap_list(f"{a_label} = ", elide.short([fmt(x, dec) for x in a_row]))
    m = float(scaled_row[kept].max())
    lines.append(f"m = max = {fs(m)}")
    e = np.where(kept, np.exp(scaled_row - m), 0.0)
    if elide.is_long(len(scaled_row)):
        notes = {j: VANISHES[lang] for j in range(len(e)) if not kept[j]}
        lines += elide.exp_lines(cells, e, fs(m), wp, fmt(e.sum(), wp), SUM[lang], notes)
        return lines + wrap_list(f"{a_label} = ", elide.short([fmt(x, dec) for x in a_row]))
    for j in range(len(scaled_row)):
        if kept[j]:
            lines.append(f"exp({cells[j]} - {fs(m)}) = {fmt(e[j], wp)}")
        else:
            lines.append(f"exp({fill} - {fs(m)}) = {fmt(0.0, wp)}   ({VANISHES[lang]})")
    lines.append(f"{SUM[lang]} = {fmt(e.sum(), wp)}")
    return lines + wrap_list(f"{a_label} = ", [fmt(x, dec) for x in a_row])


def halved_scale(scaled_row: np.ndarray, kept: np.ndarray, a_row: np.ndarray, wp: int,
                 dec: int, total: str = "total") -> tuple[list[str], bool, bool]:
    """One row's weights with its scaled scores halved (d_k four times as large, same dot products):
    the worked lines, whether the row got flatter, and whether it stayed the same. ``total`` names
    the sum: a note whose checker context is a worked row reads "total" as that row's sum."""
    half = scaled_row / 2
    shifted = half - float(half[kept].max())  # minus the row maximum, as the softmax does
    e = np.where(kept, np.exp(shifted), 0.0)
    s = e.sum()
    # each result printed coarser than its operands (exponent 15 places, exp wp, total wp - 3), so
    # that the checker, which allows for the rounding of printed operands, still catches a wrong digit
    js = [j for j in range(len(scaled_row)) if kept[j]]
    tp = wp - 3
    # an exact integer exponent is printed as one (exp(-2), not exp(-2.000000000000000))
    arg = [fmt(x, 0) if float(x).is_integer() else fmt(x, ARG_PLACES) for x in shifted]
    terms = {j: fmt(e[j], wp) for j in js}
    if elide.is_long(len(scaled_row)):
        # a long row: its first terms, its largest and its last; each run left out is one number in the sum
        # (not a tensor of the trace: the sum's claim checks it, at the total's precision)
        js = [j for j in elide.shown(len(e), int(np.argmax(e))) if kept[j]]
        terms = {j: fmt(e[j], wp) for j in js}
        terms.update({a: fmt(e[a:b].sum(), wp) for a, b in elide.gaps(js, len(e)) if e[a:b].any()})
    sc = [f"exp({arg[j]}) ≈ {fmt(e[j], wp)}" for j in js]
    sc += wrap_sum(total, [terms[j] for j in sorted(terms)], fmt(s, tp))
    sc += [f"{fmt(e[j], wp)} / {fmt(s, tp)} ≈ {fmt(e[j] / s, dec)}" for j in js]
    before = float(a_row.max())
    after = float((e / s).max())
    return sc, after < before - 1e-15, abs(after - before) <= 1e-15


def sequence_exercises(trace, worked_i: int, q_ids: list[str], wp: int, fs, fv) -> list[dict]:
    """sdpa/mha: another row of A by hand, its output row, a shifted V column, a halved scale."""
    cfg = trace.config
    dec = cfg["decimals"]
    n, m = trace["attn"].shape[-2:]
    h = 0
    masked = "mask" in trace
    keep = trace["mask"] if masked else np.ones((n, m))
    fill = cfg.get("mask_fill", "-inf")
    # another row than the worked one: the last (or the first, when the last was worked)
    r = n - 1 if worked_i != n - 1 else 0
    if r == worked_i:
        return []
    a = trace["attn"][0, h]
    v = trace["v"][0, h]
    o = trace["o"][0, h]
    row_label = plain(label("scores_masked_row" if masked else "scores_scaled_row", h=h, i=r))
    a_label = plain(label("attn_row", h=h, i=r))
    o_label = plain(label("o_h", h=h))
    out = []
    out.append({"kind": "row", "r": r, "q": q_ids[r], "h": h,
                "lines": softmax_lines(trace["scores_scaled"][0, h, r], keep[r], fill, row_label, a_label, a[r],
                                       wp, dec, fs, cfg.get("lang", "en"))})
    o_lines = []
    for c in range(min(v.shape[-1], 4)):
        o_lines += elide.weighted_sum(f"{o_label}[{r}, {c}]", a[r], v[:, c], lambda x: fmt(x, wp), fv, wp,
                                      fmt(o[r, c], dec))
    out.append({"kind": "out", "r": r, "q": q_ids[r], "h": h, "lines": o_lines})
    long = elide.is_long(m)
    # Shift: add 1 to every value of V's column 0 -> every output of that column rises by exactly 1
    if keep.any(axis=-1).all():
        c = 0
        # operands finer than the result, so that a wrong last digit of the result is caught
        shift = [f"{fmt(o[i, c], wp)} + 1 ≈ {fmt(o[i, c] + 1, dec)}" for i in range(min(n, 4))]
        out.append({"kind": "shift", "c": c, "h": h, "lines": shift})
    # Scale: the scaled scores of row r halved (d_k four times as large, same dot products)
    kept = keep[r].astype(bool)
    if kept.sum() >= 2:
        sc, flatter, same = halved_scale(trace["scores_scaled"][0, h, r], kept, a[r], wp, dec,
                                         total=SUM[cfg.get("lang", "en")])
        out.append({"kind": "scale", "r": r, "q": q_ids[r], "h": h, "lines": sc, "flatter": flatter, "same": same})
    for e in out:
        e["long"] = long
    # the halved-scale answer first: the checker reads later worked rows in the context of "row r"
    return [e for e in out if e["kind"] == "scale"] + [e for e in out if e["kind"] != "scale"]


def yolo_exercises(trace, wp: int) -> list[dict]:
    """yolo: another pixel's row of A_0 by hand, that pixel's output O_0[:, r], the same row with
    the scale halved, and a PE value at the centre pixel (a full 3x3 window, no padding)."""
    cfg = trace.config
    dec = cfg["decimals"]
    b, h = 0, 0
    _, C, H, W = trace["x"].shape
    n = H * W
    if n < 2:
        return []
    r = n - 1  # the worked row is pixel 0: take the last pixel
    a = trace["attn"][b, h]
    v = trace["v"][b, h]  # (head_dim, N)
    ss = trace["scores_scaled"][b, h, r]
    keep = np.ones(n, dtype=bool)
    row_label = plain(label("scores_scaled_row", h=h, i=r))
    a_label = plain(label("attn_row", h=h, i=r))
    out = [{"kind": "row", "r": r, "h": h,
            "lines": softmax_lines(ss, keep, "", row_label, a_label, a[r], wp, dec, lambda x: fmt(x, wp),
                                   cfg.get("lang", "en"))}]
    o_lines = []
    for dd in range(min(v.shape[0], 4)):
        o_lines += elide.weighted_sum(f"O_{h}[{dd}, {r}]", a[r], v[dd], lambda x: fmt(x, wp), lambda x: fmt(x, wp),
                                      wp, fmt(trace["o"][b, h * v.shape[0] + dd].reshape(-1)[r], dec))
    out.append({"kind": "out", "r": r, "h": h, "lines": o_lines})
    sc, flatter, same = halved_scale(ss, keep, a[r], wp, dec, total="Z")
    out.append({"kind": "scale", "r": r, "h": h, "lines": sc, "flatter": flatter, "same": same})
    for e in out:
        e["long"] = elide.is_long(n)
    if H >= 3 and W >= 3:
        y, x = H // 2, W // 2
        src = trace["v"][b].reshape(C, H, W) if cfg["pe_on"] == "v" else trace["o"][b]
        window = src[0, y - 1:y + 2, x - 1:x + 2]
        kernel = trace["w_pe"][0, 0]
        lines = wrap_sum(f"PE[:,0,{y},{x}]", [f"({fmt(window[p, q], wp)})({fmt(kernel[p, q], wp)})"
                                            for p in range(3) for q in range(3)], fmt(trace["pe"][b, 0, y, x], dec))
        out.append({"kind": "pe", "y": y, "x": x, "p": y * W + x, "src": "V" if cfg["pe_on"] == "v" else "O",
                    "lines": lines})
    return out
