"""Figures of a trace: attention heatmaps per head, yolo's "where does pixel p look", a shape flow.

``specs(trace, lang)`` says which figures a note has (names, alt text, captions) without
matplotlib; ``svg(trace, key, lang)`` draws one with matplotlib, imported only then. SVGs are
byte-identical across runs: no date, a fixed hash salt (fixed ids), text drawn as paths.
"""

from __future__ import annotations

import io
import re

import numpy as np

from .figure_words import WORDS
from .numfmt import fmt

MAX_TICKS = 20  # labelled rows / columns of a heatmap at most
MAX_ANNOTATED = 16  # the largest grid whose "where does p look" panels label every row and column
# Cell numbers are written only where they read at LEGIBLE_PX or more once a phone's column (PHONE_PX, a
# 390 px screen less the page's margins) shrinks the figure to its width: CELL_FONT_PT text in a figure
# at most READABLE_WIDTH_IN wide (text px = pt * PHONE_PX / (width_in * 72) when the figure is shrunk).
PHONE_PX, LEGIBLE_PX, CELL_FONT_PT = 366, 9.0, 8.5
READABLE_WIDTH_IN = CELL_FONT_PT * PHONE_PX / (LEGIBLE_PX * 72)  # 4.8 in
CELL_DECIMALS = 3  # the fewest decimals a heatmap's cells show (its numbers are dropped before these)
LOOK_CELL_IN = 0.55  # a "where does p look" cell holding its pixel's name over its weight
# Past POOL_ABOVE rows or columns a map has more cells than its picture has pixels: drawn cell by cell,
# the picture would drop or average away single strong weights (a saturated row's one weight 1 vanishes
# among 1600 keys), and a masked map would carry a hatched patch per cell (80,000 at N = 400: a 21 MB SVG).
# Such a map is drawn in square blocks of k x k pairs, each coloured with the largest weight it holds.
POOL_ABOVE = 128
LOOK_TICKS = 5  # labelled rows / columns of a large "where does p look" panel at most


def _labels(cfg: dict, n: int, m: int, variant: str, shape: tuple) -> tuple[list[str], list[str]]:
    """Query and key labels: pixels p0.. (yolo), tokens p0../m0.. with their words when given."""
    if variant == "yolo":
        return [f"p{i}" for i in range(n)], [f"p{j}" for j in range(m)]
    cross = m != n or "x_kv" in cfg
    q_words = list(cfg.get("labels") or [])
    k_words = list(cfg.get("kv_labels") or ([] if cross else q_words))
    q = [f"p{i}" + (f" {q_words[i]}" if q_words else "") for i in range(n)]
    k = [(f"m{j}" if cross else f"p{j}") + (f" {k_words[j]}" if k_words else "") for j in range(m)]
    return q, k


def _literal(label: str) -> str:
    """A token's label as matplotlib text shown literally: a ``$`` would start mathtext (``$$`` in a label was a
    ParseException traceback, ``$x^2$`` a formula)."""
    return label.replace("$", r"\$")


def _keep(trace) -> np.ndarray | None:
    """The keep-mask (True = attended) of the queries x keys, or None when nothing is masked."""
    if "mask" not in trace:
        return None
    keep = np.asarray(trace["mask"]) != 0
    return None if keep.all() else keep


def colour_range(trace) -> tuple[float, float]:
    """The smallest and largest unmasked attention weight of image 0 over all heads (every weight when
    the mask keeps no pair at all, e.g. ``padding:K`` with K = every key: there is nothing else to scale by)."""
    a = trace["attn"][0]
    keep = _keep(trace)
    vals = a[:, keep] if keep is not None and keep.any() else a.reshape(a.shape[0], -1)
    return float(vals.min()), float(vals.max())


def _names(cfg: dict, n: int, m: int, variant: str) -> tuple[list[str], list[str]]:
    """Query and key names for the captions' Markdown: p2, or p2 (học) with the word escaped."""
    from .escape import md_text

    q, k = _labels(cfg, n, m, variant, (n, m))
    return ([f"{a} ({md_text(b)})" if b else a for a, _, b in (s.partition(" ") for s in names)]
            for names in (q, k))


def extremes(trace, h: int) -> dict:
    """Where head ``h``'s smallest and largest weight (not masked) lie: (query, key) of the first of each
    in row-major order, and the two weights."""
    a = trace["attn"][0, h]
    keep = _keep(trace)
    ok = np.ones(a.shape, bool) if keep is None else keep
    lo = np.where(ok, a, np.inf).argmin()
    hi = np.where(ok, a, -np.inf).argmax()
    return {"min": divmod(int(lo), a.shape[1]), "max": divmod(int(hi), a.shape[1]),
            "lo": float(a.flat[lo]), "hi": float(a.flat[hi])}


def pool_size(n: int, m: int) -> int:
    """The side k of the blocks a heatmap of n x m weights is drawn in (1: every cell drawn)."""
    return 1 if max(n, m) <= POOL_ABOVE else -(-max(n, m) // POOL_ABOVE)


def pooled(a: np.ndarray, keep: np.ndarray | None, k: int) -> tuple[np.ndarray, np.ndarray | None]:
    """Block maxima of ``a`` over k x k blocks (the last ones partial), over kept cells only, and the
    blocks' keep-mask: a block is masked only when every cell of it is."""
    if k == 1:
        return a, keep
    n, m = a.shape
    bn, bm = -(-n // k), -(-m // k)
    pad = np.full((bn * k, bm * k), -np.inf)
    pad[:n, :m] = a if keep is None else np.where(keep, a, -np.inf)
    top = pad.reshape(bn, k, bm, k).max(axis=(1, 3))
    kept = np.isfinite(top)
    return np.where(kept, top, 0.0), (None if keep is None else kept)


def _masked_runs(keep: np.ndarray) -> list[tuple[int, int, int]]:
    """(row, first column, length) of each run of masked cells in a row, in reading order."""
    runs = []
    for i in range(keep.shape[0]):
        row = np.concatenate(([False], ~keep[i], [False])).astype(np.int8)
        edges = np.flatnonzero(np.diff(row))
        runs += [(i, int(a), int(b - a)) for a, b in zip(edges[::2], edges[1::2])]
    return runs


def specs(trace, lang: str) -> list[dict]:
    """The figures of a note: key, where it goes ("shapes" | "attn"), alt text and caption. A caption
    names the extremes of its head and the colour range in phrases `attnwalk check` verifies."""
    w = WORDS[lang]
    cfg = trace.config
    heads, n, m = trace["attn"].shape[1:]
    lo, hi = colour_range(trace)
    dec = cfg["decimals"]
    rng = {"lo": fmt(lo, dec), "hi": fmt(hi, dec)}
    qn, kn = _names(cfg, n, m, cfg["variant"])
    keep = _keep(trace)
    masked = keep is not None
    none_kept = masked and not keep.any()  # padding over every key: no cell coloured, no number written
    caption_masked = w["all_masked_caption"] if none_kept else w["masked_caption"]
    out = [{"key": "shapes", "place": "shapes", "alt": w["shapes_alt"].format(variant=cfg["variant"],
                                                                              chain=flow_chain(trace, w)),
            "caption": w["shapes_caption"]}]
    for h in range(heads):
        e = extremes(trace, h)
        cap = w["attn_caption"].format(h=h, qmin=qn[e["min"][0]], kmin=kn[e["min"][1]], lo_h=fmt(e["lo"], dec),
                                       qmax=qn[e["max"][0]], kmax=kn[e["max"][1]], hi_h=fmt(e["hi"], dec))
        cap += " " + (caption_masked if masked else w["scale_caption"].format(**rng)
                      + (w["narrow_caption"] if hi - lo < 0.5 else ""))
        k = pool_size(n, m)
        if k > 1:
            cap += " " + w["pooled_caption"].format(n=n, m=m, k=k)
        qlab = _labels(cfg, n, m, cfg["variant"], (n, m))[0]
        shown = heat_decimals(n, m, qlab, dec)
        cells = "" if shown is None or none_kept else w["cells_written"] + (w["cells_fewer"] if shown < dec else "")
        alt = w["attn_alt"].format(h=h, n=n, m=m, cells=cells)
        if n <= ALT_ROWS:
            pairs = ", ".join(w["alt_pair"].format(q=qn[i], k=kn[j], w=fmt(v, dec))
                              for i, j, v in most_weighed(trace, h))
            alt += w["alt_most"].format(pairs=pairs) if pairs else w["alt_none"]
        out.append({"key": f"attn-h{h}", "place": "attn", "alt": alt, "caption": cap})
    if cfg["variant"] == "yolo":
        H, W = trace["x"].shape[2:]
        most = "; ".join(w["look_most"].format(h=h, p=f"p{int(trace['attn'][0, h, 0].argmax())}")
                         for h in range(heads))
        numbers = look_columns(heads, W) > 0
        where = "; ".join(w["look_where"].format(h=h, **_where(trace["attn"][0, h, 0], H, W, w)) for h in range(heads))
        out.append({"key": "look-p0", "place": "attn",
                    "alt": w["look_alt"].format(H=H, W=W, heads=heads, cells=w["look_cells"] if numbers else "",
                                                where=where[0].upper() + where[1:]),
                    "caption": w["look_caption"].format(most=most[0].upper() + most[1:] + ".",
                                                        shown=w["look_shown"] if numbers else "", **rng)})
    return out


ALT_ROWS = 16  # a heatmap's alt text names the key each query weighs most, for up to 16 queries


def most_weighed(trace, h: int) -> list[tuple[int, int, float]]:
    """(query, key, weight) of the key each query of head ``h`` weighs most, every key tied with it at the
    note's decimals too (a causal row's two equal weights are both named): what a sighted reader finds as
    the brightest cell of each row."""
    a, dec = trace["attn"][0, h], trace.config["decimals"]
    keep = _keep(trace)
    out = []
    for i in range(a.shape[0]):
        row = a[i] if keep is None else np.where(keep[i], a[i], -np.inf)
        top = fmt(row.max(), dec)
        out += [(i, int(j), float(a[i, j])) for j in np.flatnonzero(np.isfinite(row)) if fmt(a[i, j], dec) == top]
    return out


def _where(row: np.ndarray, H: int, W: int, w: dict) -> dict:
    """Where on the H x W grid a pixel's attention row is largest and smallest: the pixels and their place
    in words (top / middle / bottom row, left / centre / right column, by thirds of the grid)."""
    out = {}
    for key, k in (("max", int(row.argmax())), ("min", int(row.argmin()))):
        r, c = divmod(k, W)
        out["p" + key] = f"p{k}"
        out["at_" + key] = w["place"].format(row=w["rows3"][3 * r // H], col=w["cols3"][3 * c // W])
    return out


def svg(trace, key: str, lang: str) -> str:
    """One figure of ``specs`` as SVG text (deterministic bytes)."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure

    w = WORDS[lang]
    rc = {"svg.hashsalt": "attnwalk", "svg.fonttype": "path", "font.family": "DejaVu Sans", "font.size": 9,
          "image.cmap": "viridis", "axes.unicode_minus": True}
    with matplotlib.rc_context(rc):
        fig = Figure(layout=None if key == "shapes" else "constrained")
        if key == "shapes":
            _draw_shapes(fig, trace, w)
        elif key.startswith("attn-h"):
            _draw_heatmap(fig, trace, int(key[len("attn-h"):]), w)
        elif key == "look-p0":
            _draw_look(fig, trace, 0, w)
        else:
            raise KeyError(f"figure {key!r}")
        buf = io.StringIO()
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": "attnwalk", "Title": key})
    return buf.getvalue()


def luminance(rgb) -> float:
    """WCAG's relative luminance of an sRGB colour (components in 0..1)."""
    c = np.asarray(rgb[:3], float)
    return float(np.dot([0.2126, 0.7152, 0.0722], np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)))


def text_colour(rgb) -> str:
    """Black or white, whichever contrasts more with a cell of colour ``rgb``: at least 4.58:1 either way
    (the two contrasts are equal at luminance 0.179). viridis' middle teal took white at 4.0:1 when the
    choice was by the weight's side of the colour range's middle."""
    return "black" if luminance(rgb) > 0.179 else "white"


def _annotate(ax, a: np.ndarray, lo: float, hi: float, decimals: int, size: float, skip=None,
              names: list[str] | None = None) -> None:
    """Write each value in its cell (under its name when ``names``, row-major, are given), in black or
    white by the cell's colour."""
    from matplotlib.colors import Normalize

    cmap, norm = matplotlib_cmap(), Normalize(lo, hi)
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            if skip is not None and skip[i, j]:
                continue
            text = fmt(a[i, j], decimals)
            if names is not None:
                text = f"{names[i * a.shape[1] + j]}\n{text}"
            ax.text(j, i, text, ha="center", va="center", fontsize=size,
                    color=text_colour(cmap(norm(a[i, j]))))


def _draw_heatmap(fig, trace, h: int, w: dict) -> None:
    a = trace["attn"][0, h]
    n, m = a.shape
    lo, hi = colour_range(trace)
    if hi <= lo:
        lo, hi = lo - 0.5, hi + 0.5
    qlab, klab = _labels(trace.config, n, m, trace.config["variant"], a.shape)
    digits = heat_decimals(n, m, qlab, trace.config["decimals"])
    numbers = digits is not None
    if numbers:  # as narrow as its cells allow, the colour bar below: a phone shrinks it the least
        # the title is centred over the cells: with fewer cells than its width it needs room on its right too
        title = len(re.sub(r"[${}_]", "", w["attn_title"].format(h=h)))
        width = max(heat_width(m, qlab, digits), 0.65 + 0.065 * max(map(len, qlab)) + 0.085 * title + 0.2)
        fig.set_size_inches(width, 1.05 + cell_inches(digits) * n + _xlabel_height(klab, m))
    else:  # no room per cell needed: a smaller figure keeps its labels legible on a phone
        fig.set_size_inches(min(1.6 + 0.38 * m + 1.0, 5.5), min(1.2 + 0.38 * n, 4.5))
    ax = fig.add_subplot()
    keep = _keep(trace)
    k = pool_size(n, m)
    img, img_keep = pooled(a, keep, k)
    shown = np.ma.masked_array(img, mask=~img_keep) if img_keep is not None else img
    cmap = matplotlib_cmap()
    # a pooled image spans the cells' own coordinates, so ticks and labels still name queries and keys
    extent = None if k == 1 else (-0.5, img.shape[1] * k - 0.5, img.shape[0] * k - 0.5, -0.5)
    im = ax.imshow(shown, cmap=cmap, vmin=lo, vmax=hi, aspect="equal", interpolation="nearest", extent=extent)
    if k > 1:
        ax.set_xlim(-0.5, m - 0.5)
        ax.set_ylim(n - 0.5, -0.5)
    if keep is not None:  # masked cells: light grey with a hatch, no number
        from matplotlib.patches import Rectangle

        if k == 1 and max(n, m) <= 16:  # cell by cell, each with its border
            cells = [(i, j, 1) for i, j in zip(*np.nonzero(~keep))]
        else:  # one patch per run of masked cells (or blocks) in a row: a causal map has one per row
            cells = [(i * k, j * k, length * k) for i, j, length in _masked_runs(img_keep)]
        for i, j, length in cells:
            ax.add_patch(Rectangle((j - 0.5, i - 0.5), min(length, m - j), min(k, n - i), facecolor="#e0e0e0",
                                   edgecolor="#888888", hatch="///", linewidth=0.5))
    if numbers:
        _annotate(ax, a, lo, hi, digits, CELL_FONT_PT, skip=None if keep is None else ~keep)
    # past MAX_TICKS rows or columns, every k-th one is labelled (81 labels would print on each other)
    xs, ys = range(0, m, -(-m // MAX_TICKS)), range(0, n, -(-n // MAX_TICKS))
    ax.set_xticks(xs, [_literal(klab[j]) for j in xs], rotation=90 if m > 9 or any(len(s) > 4 for s in klab) else 0)
    ax.set_yticks(ys, [_literal(qlab[i]) for i in ys])
    ax.set_xlabel(w["keys"])
    ax.set_ylabel(w["queries"])
    ax.set_title(w["attn_title"].format(h=h))
    bar = fig.colorbar(im, ax=ax, shrink=0.9, label=w["weight"], **({"location": "bottom"} if numbers else {}))
    if numbers:  # a horizontal bar has room for a few tick labels only
        from matplotlib.ticker import MaxNLocator

        bar.ax.xaxis.set_major_locator(MaxNLocator(4))


def _xlabel_height(klab: list[str], m: int) -> float:
    """Inches below the cells for the key labels: one line, or the longest label set upright."""
    return 0.75 + (0.075 * max(map(len, klab)) if m > 9 or any(len(s) > 4 for s in klab) else 0.15)


def cell_inches(decimals: int) -> float:
    """A heatmap cell's side: room for "0." and ``decimals`` digits at CELL_FONT_PT (DejaVu Sans' digits are
    0.636 em wide, its point 0.318 em), plus a margin."""
    return max(((decimals + 1) * 0.636 + 0.318) * CELL_FONT_PT / 72 + 0.08, 0.42)


def heat_width(m: int, qlab: list[str], decimals: int) -> float:
    """Width in inches of a heatmap with numbers in its m columns: query labels, cells, a margin."""
    return 0.65 + 0.065 * max(map(len, qlab)) + cell_inches(decimals) * m + 0.2


def heat_decimals(n: int, m: int, qlab: list[str], decimals: int) -> int | None:
    """The decimals a heatmap's cells show: the note's where the map still reads at LEGIBLE_PX on a phone (so
    a cell shows the very number of the text's matrix), else CELL_DECIMALS, else None (no numbers)."""
    if max(n, m) > 16:
        return None
    return next((d for d in (decimals, CELL_DECIMALS) if d <= decimals and heat_width(m, qlab, d) <= READABLE_WIDTH_IN),
                None)


def matplotlib_cmap():
    """viridis (colour-blind safe, monotone in lightness) with masked cells drawn light grey."""
    import matplotlib

    return matplotlib.colormaps["viridis"].with_extremes(bad="#e0e0e0")


def _draw_look(fig, trace, p: int, w: dict) -> None:
    a = trace["attn"][0]
    heads = a.shape[0]
    H, W = trace["x"].shape[2:]
    lo, hi = colour_range(trace)
    if hi <= lo:
        lo, hi = lo - 0.5, hi + 0.5
    cols = look_columns(heads, W)
    numbers = cols > 0
    if numbers:  # each cell its pixel's name over its weight, legible on a phone; the colour bar below
        rows = -(-heads // cols)
        fig.set_size_inches(cols * (LOOK_CELL_IN * W + 0.6) + 0.2, rows * (LOOK_CELL_IN * H + 0.95) + 0.75)
    else:
        # without numbers the panels sit two to a row at a phone's width, so that their titles, ticks and axis
        # labels read on it: one row of three or four (a 12 x 12 map's 4 heads) set 7 pt titles at ~4 px on a
        # phone, each running into the next (teaching audit #50); a desktop page shows the figure at its size
        cols = min(heads, 2)
        rows = -(-heads // cols)
        cell = min(0.3, ((READABLE_WIDTH_IN - 0.2) / cols - 0.6) / W)
        fig.set_size_inches(cols * (cell * W + 0.6) + 0.2, rows * (cell * H + 0.95) + 0.75)
    # past MAX_ANNOTATED rows or columns a panel labels every k-th one (40 labels printed on each other)
    step = 1 if max(H, W) <= MAX_ANNOTATED else -(-max(H, W) // LOOK_TICKS)
    if not numbers and max(H, W) > 10 and cell < 0.16:
        step = max(step, 2)  # two-digit labels in cells narrower than them ran together: "1011" for 10, 11
    axes = fig.subplots(rows, cols, squeeze=False)
    from matplotlib.patches import Rectangle

    im = None
    for h in range(rows * cols):
        ax = axes[h // cols][h % cols]
        if h >= heads:
            ax.set_axis_off()
            continue
        grid = a[h, p].reshape(H, W)
        im = ax.imshow(grid, cmap=matplotlib_cmap(), vmin=lo, vmax=hi, interpolation="nearest")
        if numbers:
            _annotate(ax, grid, lo, hi, 3, CELL_FONT_PT, names=[f"p{k}" for k in range(H * W)])
        r, c = divmod(p, W)
        ax.add_patch(Rectangle((c - 0.5, r - 0.5), 1, 1, fill=False, edgecolor="#ff00ff", linewidth=2.5))
        ax.set_xticks(range(0, W, step))
        ax.set_yticks(range(0, H, step))
        ax.set_xlabel(w["col"])
        ax.set_ylabel(w["row"])
        ax.set_title(w["look_title"].format(h=h, p=p))
    bar = fig.colorbar(im, ax=axes, shrink=0.9, label=w["weight"], location="bottom")
    from matplotlib.ticker import MaxNLocator

    bar.ax.xaxis.set_major_locator(MaxNLocator(4))


def look_columns(heads: int, W: int) -> int:
    """Panels per row of a "where does p look" figure whose cells write their pixel and weight legibly on
    a phone (the most that fit READABLE_WIDTH_IN, at most 4), or 0 when not even one panel fits."""
    fits = [c for c in range(1, min(heads, 4) + 1) if c * (LOOK_CELL_IN * W + 0.6) + 0.2 <= READABLE_WIDTH_IN]
    return max(fits, default=0)


def flow_chain(trace, w: dict) -> str:
    """The shape flow's tensors in words, row by row: "x → qkv → q, k, v → S → …" (a row repeated by a view,
    qkv before and after its reshape, is named once)."""
    rows = [", ".join(name for name, _ in boxes) for boxes, _ in flow(trace, w)]
    return " → ".join(r for i, r in enumerate(rows) if i == 0 or r != rows[i - 1])


def flow(trace, w: dict) -> list[tuple[list[tuple[str, tuple]], str]]:
    """The variant's shape flow: rows of (name, shape) boxes, each with the operation leading to it."""
    s = {name: trace.steps[name].shape for name in trace.names()}
    cfg, d = trace.config, trace.derived
    v = cfg["variant"]
    if v == "yolo":
        B, C, H, W = s["x"]
        heads, kd, hd = cfg["heads"], d["key_dim"], d["head_dim"]
        pe = "PE(V)" if cfg.get("pe_on", "v") == "v" else "PE(O)"
        return [
            ([("x", s["x"])], ""),
            ([("qkv", s["qkv"])], w["conv1x1"].format(a=C, b=s["qkv"][1])),
            ([("qkv", (B, heads, 2 * kd + hd, H * W))], "view"),
            ([("q", s["q"]), ("k", s["k"]), ("v", s["v"])], w["split"]),
            ([("S", s["scores"])], "S = Qᵀ K · scale"),
            ([("A", s["attn"])], w["softmax"]),
            ([("O", s["o"])], "O = V Aᵀ, view"),
            ([("O'", s["o_pe"])], f"+ {pe} (3×3 depthwise)"),
            ([("Out", s["out"])], w["conv1x1"].format(a=C, b=s["out"][1])),
        ]
    rows: list = []
    if "x" in s and v == "mha":
        rows += [([("x", s["x"])], ""), ([("qkv", s["qkv"])], "Linear"),
                 ([("q", s["q"]), ("k", s["k"]), ("v", s["v"])], w["chunk"])]
    elif "x" in s:
        src = [("x", s["x"])] + ([("x_kv", s["x_kv"])] if "x_kv" in s else [])
        rows += [(src, ""), ([("q", s["q"]), ("k", s["k"]), ("v", s["v"])],
                            w["project"] if cfg.get("source") == "project" else w["columns"])]
    elif "q" in s:
        rows += [([("q", s["q"]), ("k", s["k"]), ("v", s["v"])], "")]
    if "q" in s:
        rows.append(([("S", s["scores"])], "S = Q Kᵀ · scale"))
    else:  # sdpa source = "scores": the scores are given (no q, k), v only when the note goes on to O
        rows.append(([("S", s["scores"])] + ([("v", s["v"])] if "v" in s else []), ""))
    if "scores_masked" in s:
        rows.append(([(w["s_masked"], s["scores_masked"])], w["mask"]))
    rows.append(([("A", s["attn"])], w["softmax"]))
    if "o" not in s:
        return rows
    rows.append(([("O", s["o"])], "O = A V"))
    if v == "mha":
        rows.append(([(w["o_merged"], s["o_merged"])], w["merge"]))
        rows.append(([("Out", s["out"])], "Linear"))
    else:
        rows.append(([("Out", s["out"])], w["merge"]))
    return rows


SHAPES_FONT_PT = 9.5  # the shape flow's labels: read at >= 8 px once a 390 px phone shrinks the figure


def feeds(src: str, dst: str, sources: set[str]) -> bool:
    """Whether box ``src`` of a row is an operand of box ``dst`` of the next row (``sources``: the names in
    ``src``'s row): V is no operand of the scores or the softmax (it goes on to O = A V), and in
    cross-attention Q comes from x only, K and V from x_kv only."""
    if src == "v":
        return dst.startswith("O")
    if "x_kv" in sources:
        return (src == "x") == (dst == "q")
    return True


def edges(rows: list) -> tuple[list[tuple[int, int, int]], list[tuple[int, int, int, int]]]:
    """The arrows of a shape flow: (row, box, box of the next row) for each operand, and (row, box, later row,
    box) for an operand used further down (V, carried past S and A to O)."""
    arrows, carried = [], []
    for r in range(1, len(rows)):
        prev, boxes = [n for n, _ in rows[r - 1][0]], [n for n, _ in rows[r][0]]
        for i, src in enumerate(prev):
            used = [j for j, dst in enumerate(boxes) if feeds(src, dst, set(prev))]
            arrows += [(r - 1, i, j) for j in used]
            if not used and src == "v":  # the first later box that takes V
                later = next(((r2, j) for r2 in range(r, len(rows)) for j, (n, _) in enumerate(rows[r2][0])
                              if feeds(src, n, set(prev))), None)
                if later:
                    carried.append((r - 1, i, *later))
    return arrows, carried


def _draw_shapes(fig, trace, w: dict) -> None:
    from matplotlib.patches import FancyBboxPatch

    rows = flow(trace, w)
    # As narrow as the widest row of boxes plus the operation labels, so that a phone's column
    # shrinks it the least (each box holds its name over its shape, which halves its width); the
    # labels sit just right of the boxes, level with the arrow they name.
    box_w, box_h, gap, pitch, size = 1.0, 0.5, 0.12, 0.8, SHAPES_FONT_PT
    longest = max(len(", ".join(map(str, shape))) + 2 for boxes, _ in rows for _, shape in boxes)
    op_len = max(len(line) for _, op in rows for line in op.split("\n"))  # a long operation is set on 2 lines
    box_w = max(box_w, 0.08 * longest + 0.15)  # a large note's shape, (1, 256, 40, 40), still fits its box
    widest = max(len(boxes) for boxes, _ in rows)
    centre = 0.1 + widest * (box_w + gap) / 2
    label_x = centre + widest * (box_w + gap) / 2 + 0.1
    width = label_x + 0.08 * op_len + 0.2
    height = pitch * len(rows) + 0.3
    fig.set_size_inches(width, height)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, width)
    ax.set_ylim(0, height)
    ax.set_axis_off()
    centres = []
    for r, (boxes, _) in enumerate(rows):
        y = height - 0.4 - pitch * r
        xs = [centre + (k - (len(boxes) - 1) / 2) * (box_w + gap) for k in range(len(boxes))]
        for x, (name, shape) in zip(xs, boxes):
            ax.add_patch(FancyBboxPatch((x - box_w / 2, y - box_h / 2), box_w, box_h,
                                        boxstyle="round,pad=0.02", facecolor="#e8f1fa", edgecolor="#3b6ea5"))
            ax.text(x, y, f"{name}\n({', '.join(map(str, shape))})", ha="center", va="center", fontsize=size,
                    linespacing=1.3)
        centres.append((xs, y))
    arrow = {"arrowstyle": "->", "color": "#555555", "linewidth": 0.8}
    arrows, carried = edges(rows)
    for r, i, j in arrows:
        (xa, ya), (xb, yb) = centres[r], centres[r + 1]
        ax.annotate("", xy=(xb[j], yb + box_h / 2 + 0.02), xytext=(xa[i], ya - box_h / 2 - 0.02), arrowprops=arrow)
    for r, i, r2, j in carried:  # down past the rows between (their boxes lie left of it), then into the box's side
        (xa, ya), (xb, yb) = centres[r], centres[r2]
        ax.plot([xa[i], xa[i]], [ya - box_h / 2 - 0.02, yb], color="#555555", linewidth=0.8)
        ax.annotate("", xy=(xb[j] + box_w / 2 + 0.02, yb), xytext=(xa[i], yb), arrowprops=arrow)
    for r in range(1, len(rows)):
        ax.text(label_x, (centres[r - 1][1] + centres[r][1]) / 2, rows[r][1], ha="left", va="center",
                fontsize=size, color="#333333")
