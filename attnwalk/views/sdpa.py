"""The view model of the sdpa walkthrough (batch 0; every head; one worked query row)."""

from __future__ import annotations

import re
from fractions import Fraction

import numpy as np

from .. import __version__
from ..config import MASK_FILL_VALUES
from ..escape import md_text
from ..frontmatter import front_matter
from ..latex import bmatrix
from ..notation import label, plain
from ..numfmt import fmt, fmt_list
from ..trace import Trace
from . import elide, intuition
from .course import locate
from .exercises import ARG_PLACES, SUM, sequence_exercises, wrap_sum
from .layout import rows, side_by_side

MAX_CLOSED_FORMS = 64  # closed forms listed one by one up to this many weights per note
MAX_ALPHA_TABLE = 12  # the α table (queries x keys) up to 12 x 12
MAX_FORM_CHARS = 120  # closed forms of the outputs are listed when each is at most this long

SATURATED_SHOWN = 4  # saturated rows worked one by one in "what it means"; the rest are counted


def cli_command(cfg: dict, scenario: bool) -> str:
    """The command that reproduces this walkthrough (a scenario file when tables were given)."""
    if scenario:
        return "attnwalk render --scenario SCENARIO.toml"
    parts = ["attnwalk render", f"--variant {cfg['variant']}", f"--tokens {cfg['tokens']}"]
    if cfg["variant"] == "sdpa" and cfg["kv_tokens"] != cfg["tokens"]:
        parts.append(f"--kv-tokens {cfg['kv_tokens']}")
    parts += [f"--dim {cfg['dim']}", f"--heads {cfg['heads']}"]
    if cfg.get("source", "direct") != "direct":
        parts.append(f"--source {cfg['source']}")
    if cfg["mask"] != "none":
        parts += [f"--mask {cfg['mask']}", f"--mask-fill {cfg['mask_fill']}"]
    parts += [f"--seed {cfg['seed']}", f"--input {cfg['input']}"]
    if cfg["init_std"] != 0.02:
        parts.append(f"--init-std {cfg['init_std']:g}")
    if cfg["rng"] != "torch":
        parts.append(f"--rng {cfg['rng']}")
    parts += [f"--decimals {cfg['decimals']}", f"--lang {cfg['lang']}"]
    return " ".join(parts)


def uses_scenario(cfg: dict) -> bool:
    """Whether only a scenario file reproduces ``cfg`` (tables, labels, chosen columns, no biases)."""
    if any(k in cfg for k in ("x", "x_kv", "q", "k", "v", "w_q", "w_k", "w_v", "labels", "kv_labels", "scale")):
        return True
    if cfg.get("source") == "columns":
        defaults = {"q_cols": [0], "k_cols": [1], "v_cols": list(range(2, cfg["dim"]))}
        if any(list(cfg[k]) != v for k, v in defaults.items()):
            return True
    return cfg["variant"] == "mha" and not cfg.get("bias", True)


def exact_cell(v) -> str:
    """An input value as typed: 2, -3, \\frac{1}{3}, 0.1."""
    if isinstance(v, str):
        f = Fraction(v)
        sign = "-" if f < 0 else ""
        return f"{sign}\\frac{{{abs(f.numerator)}}}{{{f.denominator}}}"
    if isinstance(v, float) and not v.is_integer():
        return repr(v)
    return str(int(v))


def plain_cell(v) -> str:
    if isinstance(v, str):
        return v
    if isinstance(v, float) and not v.is_integer():
        return repr(v)
    return str(int(v))


def is_integral(a: np.ndarray) -> bool:
    return bool(np.all(np.isfinite(a)) and np.all(np.mod(a, 1) == 0) and np.abs(a).max(initial=0) < 2**53)


def matrix(a: np.ndarray, dec: int, table=None) -> str:
    """A matrix: inputs as typed (integers without decimals), computed values at ``dec`` places."""
    if table is not None:
        return _rows_tex([[exact_cell(v) for v in row] for row in table])
    if is_integral(a):
        return bmatrix(a, dec, cell=lambda v: str(int(v)))
    return bmatrix(a, dec)


def _rows_tex(rows: list[list[str]]) -> str:
    from ..latex import _keep

    r_idx, c_idx = _keep(len(rows)), _keep(len(rows[0]))
    lines = []
    for i in r_idx:
        if i is None:
            lines.append(" & ".join(r"\ddots" if j is None else r"\vdots" for j in c_idx) + r" \\")
        else:
            lines.append(" & ".join(r"\cdots" if j is None else rows[i][j] for j in c_idx) + r" \\")
    return "\\begin{bmatrix}\n" + "\n".join(lines) + "\n\\end{bmatrix}"


def num(v: float, places: int, integral: bool) -> str:
    return str(int(v)) if integral else fmt(v, places)


def python_table(table) -> str:
    """A scenario table as a Python literal (fractions as divisions: 1/3)."""
    return "[" + ", ".join("[" + ", ".join(plain_cell(v) for v in row) + "]" for row in table) + "]"


def fill_str(fill: str) -> str:
    return {"-inf": "float(\"-inf\")", "-1e9": "-1e9", "-10000": "-10000.0"}[fill]


def fill_tex(fill: str) -> str:
    return {"-inf": r"-\infty", "-1e9": r"-10^{9}", "-10000": "-10000"}[fill]


def token_labels(cfg: dict, n: int, m: int) -> tuple[list[str], list[str], list[str], list[str]]:
    """(query ids, key ids, query words, key words): ids p0, p1, ... (keys of a cross-attention: m0, ...)."""
    cross = cfg["variant"] == "sdpa" and (m != n or "x_kv" in cfg)
    q_ids = [f"p{i}" for i in range(n)]
    k_ids = [f"m{j}" for j in range(m)] if cross else [f"p{j}" for j in range(m)]
    q_words = [md_text(w) for w in cfg.get("labels") or []]  # user text: literal in Markdown
    k_words = [md_text(w) for w in cfg.get("kv_labels") or []] if cross or cfg.get("kv_labels") else q_words
    return q_ids, k_ids, q_words, k_words


def named(ids: list[str], words: list[str]) -> list[str]:
    return [f"{i} ({w})" if words else i for i, w in zip(ids, words or ids)]


def attention_part(trace: Trace, wp_int: bool, worked_i: int) -> dict:
    """Scores ... outputs, per head, shared by the sdpa and mha views."""
    cfg, d = trace.config, trace.derived
    dec = cfg["decimals"]
    wp = min(dec + 4, 15)
    n, m = trace["attn"].shape[-2:]
    heads = cfg["heads"]
    q, k, v = trace["q"][0], trace["k"][0], trace["v"][0]
    masked = "mask" in trace
    q_ids, k_ids, q_words, k_words = token_labels(cfg, n, m)
    ints = is_integral(q) and is_integral(k)
    v_int = is_integral(v)
    fq = lambda x: num(x, wp, ints)  # noqa: E731
    fv = lambda x: num(x, wp, v_int)  # noqa: E731
    scores_int = is_integral(trace["scores"][0])
    heads_view = []
    for h in range(heads):
        a = trace["attn"][0, h]
        heads_view.append({
            "h": h,
            "q_label": label("q", h=h), "q_tex": matrix(q[h], dec),
            "k_label": label("k", h=h), "k_tex": matrix(k[h], dec),
            "v_label": label("v", h=h), "v_tex": matrix(v[h], dec),
            "qkv_side": side_by_side([(label("q", h=h), matrix(q[h], dec)), (label("k", h=h), matrix(k[h], dec)),
                                      (label("v", h=h), matrix(v[h], dec))]),
            "s_label": label("scores", h=h), "s_tex": matrix(trace["scores"][0, h], dec),
            "ss_label": label("scores_scaled", h=h), "ss_tex": bmatrix(trace["scores_scaled"][0, h], dec),
            "sm_label": label("scores_masked", h=h),
            "sm_tex": bmatrix(trace["scores_masked"][0, h], dec, cell=_masked_cell(cfg, dec)) if masked else "",
            "a_label": label("attn", h=h), "a_tex": bmatrix(a, dec),
            "o_label": label("o_h", h=h), "o_tex": bmatrix(trace["o"][0, h], dec),
            "row_sums": fmt_list(a.sum(-1), 12),
            # many queries: the range the row sums lie in, instead of one sum per query
            "row_sum_range": [fmt(a.sum(-1).min(), 12), fmt(a.sum(-1).max(), 12)] if elide.is_long(n) else None,
            "alpha_rows": [{"q": q_ids[i], "vals": [fmt(a[i, j], dec) for j in range(m)]} for i in range(n)]
            if n <= MAX_ALPHA_TABLE and m <= MAX_ALPHA_TABLE else None,
            "favourite": [{"q": named([q_ids[i]], q_words[i:i + 1])[0],
                           "k": named([k_ids[int(np.argmax(a[i]))]], k_words[int(np.argmax(a[i])):][:1])[0],
                           "w": fmt(a[i].max(), dec), "empty": not a[i].any()} for i in range(min(n, 8))],
        })

    # Worked row: head 0, query i.
    h0, i = 0, worked_i
    ss = trace["scores_scaled"][0, h0, i]
    s_masked = trace["scores_masked"][0, h0, i] if masked else ss
    keep = trace["mask"][i] if masked else np.ones(m)
    row_max = trace["row_max"][0, h0, i]
    e = trace.row("exp", 0, h0, i)  # one row: exp stays a recipe (engine/softmax.py)
    s_terms = [{"j": j, "k": k_ids[j],
                "expr": " + ".join(f"({fq(q[h0, i, c])})({fq(k[h0, j, c])})" for c in range(min(q.shape[-1], 8)))
                + (" + ..." if q.shape[-1] > 8 else ""),
                "value": num(trace["scores"][0, h0, i, j], wp, scores_int)} for j in range(min(m, 4))]
    fill = cfg.get("mask_fill", "-inf")
    ss_int = is_integral(np.where(keep > 0, ss, 0))
    fs = lambda x: num(x, wp, ss_int)  # noqa: E731
    exp_terms = []
    for j in range(m):
        s_txt = fs(ss[j]) if keep[j] else fill
        exp_terms.append({"j": j, "k": k_ids[j], "s": s_txt, "kept": bool(keep[j]), "e": fmt(e[j], wp)})
    row_empty = not keep.any()
    long_lines = None
    if elide.is_long(m) and not row_empty:
        # a long row: its first terms, then its sum with the terms left out summed (views/elide.py)
        masked_word = {"vi": "bị che", "en": "masked"}[cfg["lang"]]
        notes = {j: f"{k_ids[j]} {masked_word}" for j in range(elide.FIRST) if not keep[j]}
        long_lines = elide.exp_lines([t["s"] for t in exp_terms], e, fs(row_max), wp,
                                     fmt(trace["row_sum"][0, h0, i], wp), SUM[cfg["lang"]], notes)
    o_terms = [{"c": c, "expr": " + ".join(f"({fmt(trace['attn'][0, h0, i, j], wp)})({fv(v[h0, j, c])})"
                                           for j in range(min(m, 8))) + (" + ..." if m > 8 else ""),
                "value": fmt(trace["o"][0, h0, i, c], dec),
                "lines": wrap_sum(f"{plain(label('o_h', h=h0))}[{i}, {c}]",
                                  [f"({fmt(trace['attn'][0, h0, i, j], wp)})({fv(v[h0, j, c])})"
                                   for j in range(min(m, 8))] + (["..."] if m > 8 else []),
                                  fmt(trace["o"][0, h0, i, c], dec)) if not elide.is_long(m)
                else elide.weighted_sum(f"{plain(label('o_h', h=h0))}[{i}, {c}]", trace["attn"][0, h0, i],
                                        v[h0, :, c], lambda x: fmt(x, wp), fv, wp, fmt(trace["o"][0, h0, i, c], dec))}
               for c in (elide.channels(v.shape[-1]) if elide.is_long(m) else range(v.shape[-1]))]
    fill_value = MASK_FILL_VALUES[fill]
    empty_rows = [q_ids[r] for r in range(n) if masked and not trace["mask"][r].any()]
    keep_all = trace["mask"] if masked else None
    why = {
        "ties": intuition.ties(trace["attn"][0, 0], named(q_ids, q_words), named(k_ids, k_words), dec,
                               q_ids=q_ids, k_ids=k_ids,
                               labels=(lambda i, j: f"A_0[{i}, {j}]") if cfg["variant"] == "mha" else None),
        "saturated": [dict(r, h=h) for h in range(heads) for r in intuition.saturated(
            trace["attn"][0, h], trace["scores_scaled"][0, h], keep_all if masked else np.ones((n, m)),
            named(q_ids, q_words), named(k_ids, k_words), dec)],
        "mask": intuition.mask_effects(keep_all, trace["attn"][0, 0], named(q_ids, q_words),
                                       named(k_ids, k_words), dec, lambda r: plain(label("attn_row", h=0, i=r))),
        "heads": intuition.heads_differ(trace["attn"][0], named(q_ids, q_words), named(k_ids, k_words), dec),
        "constant": [dict(f, h=h) for h in range(heads) for f in intuition.constant_columns(
            v[h], trace["attn"][0, h], out_names(cfg, d["d_v"], h), dec)],
    }
    # past SATURATED_SHOWN rows the list is counted, not written out (a 1600-token note had a line per row)
    why["saturated_more"] = len(why["saturated"]) - SATURATED_SHOWN if len(why["saturated"]) > SATURATED_SHOWN else 0
    why["saturated_rows"] = heads * n
    why["saturated_all"] = len(why["saturated"])
    why["saturated"] = why["saturated"][:SATURATED_SHOWN]
    why["equal_keys"] = intuition.equal_keys(k[0], why["ties"], k_ids)
    why["equal_scores"] = intuition.equal_scores(trace["scores"][0, 0], k[0], why["ties"], named(k_ids, k_words), dec,
                                                 keep_all)
    why["masked_ties"] = intuition.masked_ties(keep_all, why["ties"], dec)
    return {
        "why": why, "exercises": sequence_exercises(trace, i, named(q_ids, q_words), wp, fs, fv),
        "n": n, "m": m, "heads": heads, "d_k": d["d_k"], "d_v": d["d_v"], "wp": wp,
        "scale_str": "1" if d["scale"] == 1 else fmt(d["scale"], dec), "sqrt_dk": _sqrt_str(d["d_k"], dec),
        "scale": scale_view(cfg.get("scale", "sqrt_dk"), d["scale"]),
        "q_ids": q_ids, "k_ids": k_ids, "q_names": named(q_ids, q_words), "k_names": named(k_ids, k_words),
        "q_names_shown": elide.short(named(q_ids, q_words)), "k_names_shown": elide.short(named(k_ids, k_words)),
        "heads_view": heads_view, "masked": masked,
        # padding:K's K (None for other masks): K = 0 masks nothing, K = m masks every pair, and the words differ
        "pad": int(cfg["mask"][len("padding:"):]) if str(cfg.get("mask", "")).startswith("padding:") else None,
        # every head's matrix of one kind, grouped side by side into lines that fit a page column
        "head_rows": {kind: rows([{"label": hv[kind + "_label"], "tex": hv[kind + "_tex"]} for hv in heads_view])
                      for kind in ("s", "ss", "sm", "a", "o")},
        "mask_tex": bmatrix(trace["mask"], 0, cell=lambda x: str(int(x))) if masked else "",
        "fill": fill, "fill_tex": fill_tex(fill), "fill_finite": np.isfinite(fill_value),
        "empty_rows": empty_rows,
        "worked": {
            "h": h0, "i": i, "q": q_ids[i], "q_name": named([q_ids[i]], q_words[i:i + 1])[0],
            "s_terms": s_terms, "s_elided": m > 4,
            "s_label": plain(label("scores_row", h=h0, i=i)),
            "ss_label": plain(label("scores_masked_row" if masked else "scores_scaled_row", h=h0, i=i)),
            "a_label": plain(label("attn_row", h=h0, i=i)),
            "s_row": elide.row_text(plain(label("scores_row", h=h0, i=i)),
                                    [fmt(x, wp) for x in trace["scores"][0, h0, i]] if not scores_int
                                    else [str(int(x)) for x in trace["scores"][0, h0, i]]),
            "ss_row": elide.row_text(plain(label("scores_masked_row" if masked else "scores_scaled_row", h=h0, i=i)),
                                     [fs(x) if keep[j] else fill for j, x in enumerate(s_masked)]),
            "row_max": fs(row_max) if np.isfinite(row_max) else "-inf", "empty": row_empty,
            "exp_terms": exp_terms, "row_sum": fmt(trace["row_sum"][0, h0, i], wp),
            "long": long_lines is not None, "exp_lines": long_lines,
            "a_row": elide.row_text(plain(label("attn_row", h=h0, i=i)),
                                    [fmt(x, dec) for x in trace["attn"][0, h0, i]]),
            "a_row_sum": fmt(trace["attn"][0, h0, i].sum(), 12),
            "o_terms": o_terms, "o_label": plain(label("o_h", h=h0)),
        },
    }


def _masked_cell(cfg: dict, dec: int):
    fill = cfg.get("mask_fill", "-inf")

    def cell(x: float) -> str:
        if x == MASK_FILL_VALUES[fill]:
            return r"-\infty" if fill == "-inf" else str(int(x))  # -1e9 prints as -1000000000: a number
        return fmt(x, dec)
    return cell


def scale_view(scale, value: float) -> dict:
    """How the text writes the scale the numbers use: 1/sqrt(d_k), none, or the given multiplier.

    ``hat``: the scaled scores as TeX (``\\frac{Q K^T}{\\sqrt{d_k}}``, ``Q K^T``, ``Q K^T \\cdot s``);
    ``identity``: the scaled scores equal the scores, so the note shows them once; ``half``: the
    multiplier halved (the exercises' "halve the scale").
    """
    kind = scale if scale in ("sqrt_dk", "none") else "number"
    s = format(float(value), ".12g")
    hat = {"sqrt_dk": r"\frac{Q K^T}{\sqrt{d_k}}", "none": "Q K^T", "number": r"Q K^T \cdot " + s}[kind]
    step = {"sqrt_dk": r"\hat{S}_h = \frac{S_h}{\sqrt{d_k}}", "none": r"\hat{S}_h = S_h",
            "number": r"\hat{S}_h = S_h \cdot " + s}[kind]
    return {"kind": kind, "value": s, "hat": hat, "step": step, "identity": value == 1.0,
            "half": format(float(value) / 2, ".12g")}


def _sqrt_str(d_k: int, dec: int) -> str:
    r = d_k**0.5
    return str(int(r)) if r.is_integer() else fmt(r, dec)


def closed_form_part(trace: Trace) -> dict | None:
    """Closed forms (exact mode), or None. Imports sympy only here."""
    if not trace.derived.get("exact"):
        return None
    from ..exact import closed_forms

    cfg = trace.config
    dec = cfg["decimals"]
    n, m = trace["attn"].shape[-2:]
    q_ids, k_ids, _, _ = token_labels(cfg, n, m)
    heads = cfg["heads"]
    listed = n * m * heads <= MAX_CLOSED_FORMS
    cf = trace.memoized(("closed_forms", listed), lambda: closed_forms(trace, rows=None if listed else 1, vanish=True))
    alphas, outs = [], []
    for h in range(heads):
        for i in range(n):
            for j in range(m):
                if listed or (h == 0 and i == 0):
                    f = cf.attn[h][i][j]
                    one = f.num == f.den  # a row left with one key (its other terms vanished): the weight is 1
                    alphas.append({"h": h, "label": f"α({q_ids[i]}→{k_ids[j]})", "tex": "1" if one else f.tex(),
                                   "text": "1" if one else f.text(),
                                   "value": fmt(trace["attn"][0, h, i, j], dec)})
    d_v = trace.derived["d_v"]
    for i in range(n if listed else 1):
        vals = []
        for h in range(heads):
            for c in range(d_v):
                f = cf.o[h][i][c]
                vals.append({"tex": f.tex(), "text": f.text(), "value": fmt(trace["out"][0, i, h * d_v + c], dec)})
        outs.append({"label": f"Out({q_ids[i]})", "vals": vals})
    if any(len(v["tex"]) > MAX_FORM_CHARS for o in outs for v in o["vals"]):
        outs = []  # long sums of exponentials help nobody: the decimals stand alone
    dens = [(i, den) for i, den in enumerate(cf.den[0]) if den != 0]
    funcs = []
    if heads == 1:
        from ..exact import output_functions, tex

        names = out_names(cfg, trace.derived["d_v"])
        qs = [float(x) for x in trace["q"][0, 0, :, 0]] if trace.derived["d_k"] == 1 else []
        for c, f in output_functions(trace) or []:
            if f.free_symbols:  # a constant column is said by the constant-column rule
                trend = intuition.monotone([float(x) for x in trace["o"][0, 0, :, c]], qs)
                # the symbol q becomes q_i, a whole-word q only (\\sqrt, \\quad keep their q)
                f_tex = re.sub(r"(?<![\\A-Za-z])q(?![A-Za-z])", "q_i", tex(f))
                funcs.append({"name": names[c], "tex": f"O[i, {c}] = {f_tex}", "trend": trend,
                              "ends": _trend_ends(trace, q_ids, dec) if trend else None})
    fill = cfg.get("mask_fill", "-inf")
    vanished = "mask" in trace and fill != "-inf" and bool((trace["mask"] == 0).any())
    return {"alphas": alphas, "outs": outs, "listed": listed, "first": alphas[0], "funcs": funcs,
            "vanished": vanished,
            "den_row": dens[0][0] if dens else None, "den_tex": _den_tex(dens[0][1]) if dens else ""}


def _trend_ends(trace: Trace, q_ids: list[str], dec: int) -> list[dict]:
    """Where a monotone output column starts and ends (seed 004: "p3 has the smallest out_c2, p0 the
    largest"): the token with the smallest query and the one with the largest, each with its output row
    Out(p) as the note's output table prints it (one head: O_0's row)."""
    q = trace["q"][0, 0, :, 0]
    out = trace["out"][0]
    return [{"q": q_ids[i], "row": ", ".join(fmt(v, dec) for v in out[i])}
            for i in (int(q.argmin()), int(q.argmax()))]


def _den_tex(den) -> str:
    from ..exact import tex

    return tex(den)


def out_names(cfg: dict, d_v: int, h: int = 0) -> list[str]:
    """Names of head h's output columns: out_c2, out_c3 when V is the input's columns c2, c3 (as
    seed 004 names them), else the merged channel c{h·d_v + c}."""
    if cfg.get("source") == "columns" and cfg["heads"] == 1:
        return [f"out_c{c}" for c in cfg["v_cols"]]
    return [f"c{h * d_v + c}" for c in range(d_v)]


def out_table(trace: Trace) -> dict:
    """Out(pi): one row per query token, one column per output channel (all heads merged)."""
    cfg = trace.config
    out = trace["out"][0]
    n = out.shape[0]
    q_ids, _, q_words, _ = token_labels(cfg, n, trace["attn"].shape[-1])
    heads = cfg["heads"]
    d_v = out.shape[1] // heads
    rows = [{"p": q_ids[i], "word": q_words[i] if q_words else "", "label": f"Out({q_ids[i]})",
             "vals": [fmt(x, cfg["decimals"]) for x in out[i]]} for i in range(n)]
    if elide.is_long(n):  # many queries: the table prints like a matrix (first rows, a row of …, the last)
        gap = {"p": elide.ELL, "word": "", "label": elide.ELL, "vals": [elide.ELL] * out.shape[1]}
        rows = rows[:elide.HEAD] + [gap] + rows[-elide.TAIL:]
    return {"header": [nm for h in range(heads) for nm in out_names(cfg, d_v, h)], "rows": rows}


def input_table(trace: Trace, name: str, ids: list[str], words: list[str]) -> dict | None:
    cfg = trace.config
    a = trace[name][0]
    if a.shape[0] > 16 or a.shape[1] > 8:
        return None
    table = cfg.get(name)
    cells = [[plain_cell(v) for v in row] for row in table] if table is not None else [
        [str(int(x)) if is_integral(a) else fmt(x, cfg["decimals"]) for x in row] for row in a]
    return {"header": [f"c{c}" for c in range(a.shape[1])],
            "rows": [{"p": ids[i], "word": words[i] if words else "", "vals": cells[i]} for i in range(a.shape[0])]}


def build(trace: Trace) -> dict:
    cfg, d = trace.config, trace.derived
    dec = cfg["decimals"]
    n, m = d["n"], d["m"]
    source = cfg["source"]
    worked_i = n - 1 if cfg["mask"] == "causal" else 0
    att = attention_part(trace, False, worked_i)
    q_ids, k_ids, q_words, k_words = token_labels(cfg, n, m)
    course = locate(cfg)
    view = {
        "version": __version__, "cfg": cfg, "d": d, "dec": dec, "source": source, "course": course,
        "command": ((course or {}).get("command") or cli_command(cfg, uses_scenario(cfg)))
        + (course or {}).get("files", ""),
        "scenario": uses_scenario(cfg) and not (course or {}).get("command"),
        "plain_rows": plain_rows(trace, q_ids, k_ids), "score_table": score_table(trace, q_ids, k_ids),
        "B": trace["q"].shape[0], "cross": d["cross"], "exact": closed_form_part(trace),
        "q_words": q_words, "k_words": k_words,
        "out_table": out_table(trace), "init_std": f"{cfg['init_std']:g}",
        **att,
    }
    # the worked query's output as a weighted sum of the value rows it sees (one head: Out = O)
    keep = trace["mask"][worked_i] if "mask" in trace else np.ones(m, dtype=bool)
    mix = intuition.value_mix(trace["attn"][0, 0, worked_i], trace["v"][0, 0], keep, dec) if cfg["heads"] == 1 else None
    view["mix"] = mix and dict(mix, q=q_ids[worked_i], word=q_words[worked_i] if q_words else "",
                               causal=cfg["mask"] == "causal", last=worked_i == n - 1)
    if source in ("columns", "project"):
        view["x_table"] = input_table(trace, "x", q_ids, q_words)
        view["x_tex"] = matrix(trace["x"][0], dec, cfg.get("x"))
        view["x_kv_table"] = input_table(trace, "x_kv", k_ids, k_words) if "x_kv" in trace else None
        view["x_kv_tex"] = matrix(trace["x_kv"][0], dec, cfg.get("x_kv")) if "x_kv" in trace else ""
    # the check table's rows before q: the inputs (and weights) the note shows, in PyTorch's shapes
    view["input_shapes"] = [(nm, "(" + ", ".join(map(str, trace[nm].shape)) + ")")
                            for nm in ("x", "x_kv", "w_q", "w_k", "w_v")
                            if nm in trace and (nm[0] == "x" and source != "direct" or source == "project")]
    if source == "columns":
        view["cols"] = {k: [f"c{c}" for c in cfg[k]] for k in ("q_cols", "k_cols", "v_cols")}
        view["qkv_rows"] = _qkv_rows(trace, q_ids, k_ids)
    if source == "project":
        view["w"] = [{"name": nm, "label": label(nm), "tex": matrix(trace[nm], dec, cfg.get(nm)),
                      "shape": list(trace[nm].shape), "given": nm in cfg} for nm in ("w_q", "w_k", "w_v")]
        view["w_rows"] = rows(view["w"])  # small weights side by side (views/layout.py)
        view["proj_shapes"] = projection_shapes(trace)
    if source == "direct":
        view["direct_tables"] = [nm for nm in ("q", "k", "v") if nm in cfg]
    view["snippet"] = snippet_sdpa(trace)
    heads_en = f"{cfg['heads']} head" + ("s" if cfg["heads"] > 1 else "")
    kind_vi = ", mask nhân quả (causal)" if cfg["mask"] == "causal" else ", cross-attention" if d["cross"] else ""
    kind_en = ", causal mask" if cfg["mask"] == "causal" else ", cross-attention" if d["cross"] else ""
    title = {"vi": f"Scaled dot-product attention — ví dụ số, {n} query × {m} key, {cfg['heads']} head{kind_vi}",
             "en": f"Scaled dot-product attention — a worked example, {n} queries × {m} keys, {heads_en}{kind_en}"}
    view["title"] = title[cfg["lang"]]
    view["front_matter"] = front_matter(trace, view["title"])
    return view


def projection_shapes(trace: Trace) -> dict:
    """The shapes of the projection step (one image): the inputs, the weights, and each product
    ``(rows × in) · (in × out) → rows × out``."""
    x = trace["x"].shape[-2:]
    xkv = trace["x_kv"].shape[-2:] if "x_kv" in trace else x
    dims = lambda t: " × ".join(map(str, t))  # noqa: E731
    out = {"x": dims(x), "x_kv": dims(xkv) if "x_kv" in trace else None}
    for nm, src in (("w_q", x), ("w_k", xkv), ("w_v", xkv)):
        w = trace[nm].shape
        out[nm] = dims(w)
        out[nm[-1]] = f"({dims(src)}) · ({w[1]} × {w[0]}) → {src[0]} × {w[0]}"
    return out


MAX_PLAIN_SCORE = 10  # the beginner's plain e^k path while every score is at most this (no overflow worry)


def plain_rows(trace: Trace, q_ids: list[str], k_ids: list[str]) -> list[dict] | None:
    """Seed 004's beginner path: every softmax row of head 0 with plain exp(s), no max subtracted.

    Only for small exact notes without a mask (a masked score would need the max subtraction at once).
    """
    if not trace.derived.get("exact") or "mask" in trace:
        return None
    ss = trace["scores_scaled"][0, 0]
    n, m = ss.shape
    if n > 8 or m > 8 or np.abs(ss).max() > MAX_PLAIN_SCORE:
        return None
    dec = trace.config["decimals"]
    wp = min(dec + 4, 15)
    ints = is_integral(ss)
    fs = lambda x: num(x, wp, ints)  # noqa: E731
    rows = []
    for i in range(n):
        e = np.exp(ss[i])
        # a rounded exponent is printed at 15 places and the sum 2 places coarser than the exp terms,
        # so that the checker (which allows for the rounding of printed operands) sees a wrong digit
        tp = wp if ints else wp - 2
        ex = [fmt(x, wp) for x in e]
        arg = fs if ints else (lambda x: fmt(x, 0) if float(x).is_integer() else fmt(x, ARG_PLACES))
        distinct = []
        for j in range(m):
            if arg(ss[i, j]) not in [d[0] for d in distinct]:
                distinct.append((arg(ss[i, j]), ex[j]))
        lines = [f"{plain(label('scores_scaled_row', h=0, i=i))} = [{', '.join(fs(x) for x in ss[i])}]"]
        lines += [f"exp({a}) = {b}" if ints else f"exp({a}) ≈ {b}" for a, b in distinct]
        lines += wrap_sum(SUM[trace.config.get("lang", "en")], ex, fmt(e.sum(), tp))
        total = fmt(e.sum(), tp)
        lines += [f"α({q_ids[i]}→{k_ids[j]}) = {ex[j]} / {total} ≈ {fmt(trace['attn'][0, 0, i, j], dec)}"
                  for j in range(m)]
        rows.append({"i": i, "q": q_ids[i], "lines": lines})
    return rows


def _qkv_rows(trace: Trace, q_ids: list[str], k_ids: list[str]) -> list[dict] | None:
    """Seed 004's table: one row per token with its Q, K and V (heads side by side)."""
    n, m = trace["attn"].shape[-2:]
    if n != m or n > 16:
        return None
    q = trace["q"][0].transpose(1, 0, 2).reshape(n, -1)
    k = trace["k"][0].transpose(1, 0, 2).reshape(m, -1)
    v = trace["v"][0].transpose(1, 0, 2).reshape(m, -1)
    dec = trace.config["decimals"]
    c = lambda x: str(int(x)) if float(x).is_integer() else fmt(x, dec)  # noqa: E731
    vec = lambda r: c(r[0]) if len(r) == 1 else "[" + ", ".join(c(x) for x in r) + "]"  # noqa: E731
    return [{"p": q_ids[i], "q": vec(q[i]), "k": vec(k[i]), "v": vec(v[i])} for i in range(n)]


def score_table(trace: Trace, q_ids: list[str], k_ids: list[str]) -> dict | None:
    """Seed 004's score table for one head with d_k = 1: each header carries its token's value (``Q(p1) = 2``,
    ``K(p3) = 1``: spaced, so a phone can wrap it), so S = Q Kᵀ reads as the multiplication table of Q and K. Only
    for small self-attention notes, no mask (check reads ``K(p3)`` as key p3; a cross-attention key m3 it does not)."""
    q, k, s = trace["q"][0], trace["k"][0], trace["scores"][0]
    if q.shape[0] != 1 or q.shape[-1] != 1 or "mask" in trace or "x_kv" in trace or max(s.shape[-2:]) > 8:
        return None
    dec = trace.config["decimals"]
    c = lambda x: str(int(x)) if float(x).is_integer() else fmt(x, dec)  # noqa: E731
    zero = [k_ids[j] for j in range(len(k_ids)) if k[0, j, 0] == 0]
    return {"keys": [f"K({k_ids[j]}) = {c(k[0, j, 0])}" for j in range(len(k_ids))],
            "rows": [{"q": f"Q({q_ids[i]}) = {c(q[0, i, 0])}", "s": [c(x) for x in s[0, i]]}
                     for i in range(len(q_ids))],
            # keys whose K is 0: their column is 0 for every query (tested against the trace)
            "zero_keys": zero if 0 < len(zero) < len(k_ids) else []}


def snippet_sdpa(trace: Trace) -> dict:
    """What the PyTorch snippet needs: how each of q, k, v (or x, weights) is built."""
    cfg, d = trace.config, trace.derived
    B, n, m = trace["q"].shape[0], d["n"], d["m"]

    def drawn(shape: str) -> str:
        return {"randint": f"torch.randint(-4, 5, ({shape}))", "normal": f"torch.randn({shape})",
                "ramp": f"torch.arange(1, {eval_prod(shape) + 1}).reshape({shape})"}[cfg["input"]]

    lines = []
    seeded = False
    src = cfg["source"]
    need_seed = any(nm not in cfg for nm in (("q", "k", "v") if src == "direct" else ("x",))) or src == "project"
    if need_seed:
        lines.append(f"torch.manual_seed({cfg['seed']})")
        seeded = True
    if src == "project":
        for nm in ("w_q", "w_k", "w_v"):
            if nm in cfg:
                lines.append(f"{nm} = torch.tensor({python_table(cfg[nm])}, dtype=torch.float64)")
            else:
                o, i = trace[nm].shape
                lines.append(f"{nm} = torch.empty({o}, {i}).normal_(0, {cfg['init_std']:g}).double()")
    names = ("q", "k", "v") if src == "direct" else ("x", "x_kv") if "x_kv" in trace else ("x",)
    for nm in names:
        if nm in cfg:
            lines.append(f"{nm} = torch.tensor([{python_table(cfg[nm])}], dtype=torch.float64)")
        else:
            rows = n if nm in ("q", "x") else m
            width = trace[nm].shape[-1] if nm in ("x", "x_kv") else (d["v_width"] if nm == "v" else d["qk_width"])
            lines.append(f"{nm} = {drawn(f'{B}, {rows}, {width}')}.double()")
    if src == "columns":
        kv = "x_kv" if "x_kv" in trace else "x"
        lines.append(f"q, k, v = x[..., {list(cfg['q_cols'])}], {kv}[..., {list(cfg['k_cols'])}], "
                     f"{kv}[..., {list(cfg['v_cols'])}]")
    elif src == "project":
        kv = "x_kv" if "x_kv" in trace else "x"
        lines.append(f"q, k, v = x @ w_q.T, {kv} @ w_k.T, {kv} @ w_v.T")
    mask_lines = []
    vi = cfg["lang"] == "vi"
    attend = "True = được nhìn" if vi else "True = attend"  # comments in the note's language
    if cfg["mask"] == "causal":
        mask_lines.append(f"keep = torch.ones({n}, {m}, dtype=torch.bool).tril()  # {attend}")
    elif cfg["mask"].startswith("padding:"):
        pad = int(cfg["mask"].split(":")[1])
        mask_lines.append(f"keep = torch.ones({n}, {m}, dtype=torch.bool)  # {attend}")
        if pad:
            padding = (f"{pad} key cuối là token đệm" if vi else "the last key is padding" if pad == 1
                       else f"the last {pad} keys are padding")
            mask_lines.append(f"keep[:, {m - pad}:] = False  # {padding}")
    empty = "mask" in trace and not trace["mask"].any(axis=-1).all()
    return {"lines": lines, "seeded": seeded, "mask_lines": mask_lines, "fill": fill_str(cfg["mask_fill"]),
            "masked": cfg["mask"] != "none", "minus_inf": cfg["mask_fill"] == "-inf", "empty_rows": empty,
            "heads": cfg["heads"], "d_k": d["d_k"]}


def eval_prod(shape: str) -> int:
    out = 1
    for s in shape.split(","):
        out *= int(s)
    return out
