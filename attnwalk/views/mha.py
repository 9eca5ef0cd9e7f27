"""The view model of the mha walkthrough (seed 002; batch 0; every head; one worked query row)."""

from __future__ import annotations

from .. import __version__
from ..frontmatter import front_matter
from ..latex import bmatrix
from ..notation import label
from ..numfmt import fmt
from ..trace import Trace
from . import intuition
from .course import locate
from .exercises import wrap_sum
from .sdpa import attention_part, cli_command, input_table, is_integral, matrix, out_table, token_labels, uses_scenario


def build(trace: Trace) -> dict:
    cfg, d = trace.config, trace.derived
    dec = cfg["decimals"]
    wp = min(dec + 4, 15)
    n, D, heads = d["n"], d["d_model"], cfg["heads"]
    worked_i = n - 1 if cfg["mask"] == "causal" else 0
    att = attention_part(trace, False, worked_i)
    q_ids, _, q_words, _ = token_labels(cfg, n, n)
    x = trace["x"][0]
    x_int = is_integral(x)
    w, b = trace["w_qkv"], trace["b_qkv"]
    xs = lambda v: str(int(v)) if x_int else fmt(v, wp)  # noqa: E731
    qkv_terms = " + ".join(f"({xs(x[0, c])})({fmt(w[0, c], wp)})" for c in range(min(D, 16)))
    merged = trace["o_merged"][0]
    w_out, b_out = trace["w_out"], trace["b_out"]
    out_terms = " + ".join(f"({fmt(merged[0, c], wp)})({fmt(w_out[0, c], wp)})" for c in range(min(D, 16)))
    title = {"vi": f"Multi-head attention (Linear qkv) — ví dụ số, {n} token, {heads} head",
             "en": f"Multi-head attention (Linear qkv) — a worked example, {n} tokens, {heads} head"
                   + ("s" if heads > 1 else "")}[cfg["lang"]]
    snippet = {"seed": cfg["seed"], "std": f"{cfg['init_std']:g}", "bias": cfg["bias"], "D": D, "heads": heads,
               "B": trace["x"].shape[0], "n": n, "input": cfg["input"], "x_table": None,
               "mask": cfg["mask"], "pad": int(cfg["mask"].split(":")[1]) if cfg["mask"].startswith("padding") else 0,
               "fill": {"-inf": 'float("-inf")', "-1e9": "-1e9", "-10000": "-10000.0"}[cfg["mask_fill"]],
               "empty_rows": "mask" in trace and not trace["mask"].any(axis=-1).all()}
    if "x" in cfg:
        from .sdpa import python_table

        snippet["x_table"] = python_table(cfg["x"])
    course = locate(cfg)
    return {
        "front_matter": front_matter(trace, title), "title": title, "version": __version__, "course": course,
        "command": ((course or {}).get("command") or cli_command(cfg, uses_scenario(cfg)))
        + (course or {}).get("files", ""),
        "scenario": uses_scenario(cfg) and not (course or {}).get("command"),
        "cfg": cfg, "d": d, "dec": dec, "D": D, "B": trace["x"].shape[0], "init_std": f"{cfg['init_std']:g}",
        "x_table": input_table(trace, "x", q_ids, q_words), "x_tex": matrix(x, dec, cfg.get("x")),
        "w_qkv_tex": bmatrix(w, dec), "w_out_tex": bmatrix(w_out, dec), "b_out_tex": bmatrix(b_out[None], dec),
        "qkv_worked": {"terms": qkv_terms + (" + ..." if D > 16 else ""), "b": fmt(b[0], wp),
                       "value": fmt(trace["qkv"][0, 0, 0], dec),
                       "lines": wrap_sum("QKV[0, 0]", [f"({xs(x[0, c])})({fmt(w[0, c], wp)})"
                                                       for c in range(min(D, 16))]
                                         + (["..."] if D > 16 else []) + [f"({fmt(b[0], wp)})"],
                                         fmt(trace["qkv"][0, 0, 0], dec))},
        # QKV and b_qkv as ``chunk(3, dim=-1)`` cuts them: three blocks of D channels, each narrow enough for a
        # phone where the merged 3D columns were not (teaching audit #17)
        "chunks": [{"name": nm, "label": label(f"{nm.lower()}_seq", b=0),
                    "tex": bmatrix(trace["qkv"][0][:, k * D:(k + 1) * D], dec),
                    "b_label": label(f"b_{nm.lower()}"), "b_tex": bmatrix(b[None, k * D:(k + 1) * D], dec),
                    "cols": f"{k * D}..{(k + 1) * D - 1}"}
                   for k, nm in enumerate("QKV")],
        "merged_label": label("o_merged", b=0), "merged_tex": bmatrix(merged, dec),
        "out_label": label("out_seq", b=0), "out_tex": bmatrix(trace["out"][0], dec),
        "out_worked": {"terms": out_terms + (" + ..." if D > 16 else ""), "b": fmt(b_out[0], wp),
                       "value": fmt(trace["out"][0, 0, 0], dec),
                       "lines": wrap_sum("Out[0, 0]", [f"({fmt(merged[0, c], wp)})({fmt(w_out[0, c], wp)})"
                                                       for c in range(min(D, 16))]
                                         + (["..."] if D > 16 else []) + [f"({fmt(b_out[0], wp)})"],
                                         fmt(trace["out"][0, 0, 0], dec))},
        "out_table": out_table(trace), "snippet": snippet, "exact": None, "q_words": q_words,
        "near_uniform": float(trace["attn"][0].max() - trace["attn"][0].min()) < 0.5 / n,
        # why a row saturates: the init std and the inputs' size make the largest scaled score (audit #36)
        "sat_cause": intuition.input_size(x, trace["scores_scaled"][0], dec) if att["why"]["saturated"] else None,
        **att,
        "wp": wp,
    }
