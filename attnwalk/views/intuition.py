"""Why the numbers come out as they do: facts read off a trace, for the "what it means" section.

Each rule looks at the recorded tensors (batch 0) and returns plain data (names, printed
numbers) that the templates turn into a sentence in their language; a rule that does not
apply returns an empty list. Nothing here is generic prose: every fact is computed.
"""

from __future__ import annotations

import numpy as np

from ..numfmt import fmt
from .elide import HEAD, is_long

TIE_RTOL = 1e-12  # weights this close (relative) are the same weight: equal scores, not rounding luck
MAX_RATIO = 1e3  # a weight ratio beyond this is not printed as a number: the smaller weight is negligible


def _ratio(hi: float, lo: float) -> str | None:
    """``hi / lo`` to 3 places, or None when ``lo`` is 0 or negligible (the ratio would be huge)."""
    return fmt(hi / lo, 3) if lo > 0 and hi / lo <= MAX_RATIO else None


def ties(attn: np.ndarray, q_names: list[str], k_names: list[str], dec: int, rows: int = 8,
         q_ids: list[str] | None = None, k_ids: list[str] | None = None, labels=None) -> list[dict]:
    """Per query row of one head: every key that gets the largest weight (ties kept together).

    ``keys`` has several names when the largest weight is shared, e.g. hand-2x2's p0 attends
    p1 and p3 equally (0.365529 each); ``empty`` marks a row with no key left by the mask.
    """
    out = []
    for i in range(min(attn.shape[0], rows)):
        row = attn[i]
        top = float(row.max())
        if top == 0.0:
            out.append({"q": q_names[i], "ks": [], "w": fmt(0.0, dec), "empty": True, "tie": False})
            continue
        best = [j for j in range(len(row)) if abs(row[j] - top) <= TIE_RTOL * top]
        more = is_long(len(best))  # a tie among many keys: the first few are named, "and others" said
        best = best[:HEAD] if more else best
        out.append({"q": q_names[i], "ks": [k_names[j] for j in best], "w": fmt(top, dec), "empty": False,
                    "more": more,
                    "alphas": [labels(i, j) if labels else f"α({(q_ids or q_names)[i]}→{(k_ids or k_names)[j]})"
                               for j in best],
                    "tie": len(best) > 1, "j": best})
    return out


def equal_keys(k: np.ndarray, row_ties: list[dict], k_names: list[str]) -> list[dict]:
    """Tied keys whose key vectors are identical: the reason for the tie (same K, same score)."""
    out, seen = [], set()
    for t in row_ties:
        if not t.get("tie"):
            continue
        js = tuple(t["j"])
        if js in seen:
            continue
        seen.add(js)
        if all(np.array_equal(k[js[0]], k[j]) for j in js[1:]):
            out.append({"ks": [k_names[j] for j in js], "k": _vec(k[js[0]], 6)})
    return out


def equal_scores(scores: np.ndarray, k: np.ndarray, row_ties: list[dict], k_names: list[str],
                 dec: int, keep: np.ndarray | None = None) -> list[dict]:
    """Ties between keys whose vectors differ: the reason is the dot product, equal for this query
    (e.g. q = [1, 0] reads only channel 0, where m0 and m2 agree). ``scores``: (n, m) raw scores.
    A row with every key masked (``keep``: (n, m), True = kept) is left to :func:`masked_ties`: its
    raw scores differ, the fill value made them equal."""
    out = []
    for i, t in enumerate(row_ties):
        if not t.get("tie") or (keep is not None and not keep[i].any()):
            continue
        js = t["j"]
        if all(np.array_equal(k[js[0]], k[j]) for j in js[1:]):
            continue  # said by equal_keys: the keys themselves are the same
        out.append({"q": t["q"], "i": i, "js": js, "ks": [k_names[j] for j in js],
                    "s": _num(scores[i, js[0]], dec)})
    return out


def masked_ties(keep: np.ndarray | None, row_ties: list[dict], dec: int) -> list[dict]:
    """Ties of a row whose every key is masked with a finite fill (-1e9, -10000): each score was replaced
    by the same value, so the softmax shares the row evenly, 1/m per key, whatever the dot products.
    (With -inf such a row has no weight at all: ``ties`` marks it ``empty``, never a tie.)"""
    if keep is None:
        return []
    m = keep.shape[1]
    return [{"q": t["q"], "m": m, "w": fmt(1.0 / m, dec)} for i, t in enumerate(row_ties)
            if t.get("tie") and not keep[i].any()]


def constant_columns(v: np.ndarray, attn: np.ndarray, names: list[str], dec: int) -> list[dict]:
    """Output columns that equal a constant column of V: every row of A sums to 1, so a weighted
    average of equal values is that value. ``names`` names the output columns of this head."""
    out = []
    if v.shape[0] < 2 or not np.all(attn.sum(-1) > 0):
        return out  # one key says nothing; a row with no key left has output 0, not the constant
    for c in range(v.shape[-1]):
        col = v[:, c]
        if np.all(col == col[0]):
            # the whole column, as a label check reads (V_0[:, 1] = [..]), when it is short enough to show
            out.append({"c": c, "name": names[c], "value": _num(col[0], dec),
                        "column": _vec(col, dec) if len(col) <= 8 else None})
    return out


def saturated(attn: np.ndarray, scaled: np.ndarray, keep: np.ndarray, q_names: list[str], k_names: list[str],
              dec: int) -> list[dict]:
    """Rows whose largest weight prints as exactly 1: the top score leads the others by so much that
    exp(-gap) is below the printed precision. ``gap`` is the lead over the runner-up (kept keys)."""
    out = []
    one = fmt(1.0, dec)
    for i in range(attn.shape[0]):
        kept = np.flatnonzero(keep[i])
        if len(kept) < 2 or fmt(attn[i].max(), dec) != one:
            continue
        s = np.sort(scaled[i, kept])[::-1]
        j = int(kept[np.argmax(scaled[i, kept])])
        gap = float(s[0] - s[1])
        out.append({"q": q_names[i], "k": k_names[j], "i": i, "gap": fmt(gap, max(dec - 2, 1)), "top": fmt(s[0], dec),
                    "second": fmt(s[1], dec), "gap_short": fmt(gap, 1)})
    return out


def saturation(attn: np.ndarray, scaled: np.ndarray, dec: int) -> dict | None:
    """One head's saturated rows (largest weight prints as exactly 1, every key kept), counted, with the
    first one worked: its top scaled score, the runner-up (first of ties) and the lead. Past
    ``ln(2 * 10^dec)`` the lead makes every other weight (at most e^-lead) print as 0.
    ``attn``, ``scaled``: (n, m); None when no row is saturated or a row has a single key."""
    n, m = attn.shape
    if m < 2:
        return None
    one = fmt(1.0, dec)
    top = attn.max(axis=1)
    rows = [i for i in np.flatnonzero(top > 0.5) if fmt(top[i], dec) == one]
    if not rows:
        return None
    i = int(rows[0])
    k = int(np.argmax(scaled[i]))
    j = int(np.argmax(np.where(np.arange(m) == k, -np.inf, scaled[i])))  # the runner-up (first of ties)
    first, second = float(scaled[i, k]), float(scaled[i, j])
    return {"rows": len(rows), "n": n, "all": len(rows) == n, "i": i, "k": k, "j": j,
            "top": fmt(first, dec), "second": fmt(second, dec), "gap": fmt(first - second, max(dec - 2, 1)),
            "minus_second": f"({fmt(second, dec)})" if fmt(second, dec).startswith("-") else fmt(second, dec),
            "w_top": fmt(attn[i, k], dec), "w_second": fmt(attn[i, j], dec), "one": one,
            "about": str(round(np.log(2.0 * 10.0 ** dec)))}  # a whole number: check reads no ln()


def input_size(x: np.ndarray, scaled: np.ndarray, dec: int) -> dict:
    """The largest input value and the scaled score largest in size (head, row, key, value): what a ramp
    input grows to. ``scaled``: (heads, n, m)."""
    h, i, j = (int(t) for t in np.unravel_index(int(np.argmax(np.abs(scaled))), scaled.shape))
    return {"x": _num(float(np.abs(x).max()), dec), "h": h, "i": i, "j": j, "s": fmt(scaled[h, i, j], dec)}


def mask_effects(keep: np.ndarray | None, attn: np.ndarray, q_names: list[str], k_names: list[str],
                 dec: int, row_label=None) -> list[dict]:
    """Rows the mask decides alone: a single key left gets weight 1 because of the mask, not the scores."""
    if keep is None:
        return []
    out = []
    for i in range(keep.shape[0]):
        kept = np.flatnonzero(keep[i])
        if len(kept) == 1:
            j = int(kept[0])
            out.append({"q": q_names[i], "k": k_names[j], "row": ", ".join(fmt(x, dec) for x in attn[i]),
                        "label": row_label(i) if row_label else "",
                        "masked": [k_names[c] for c in range(keep.shape[1]) if not keep[i, c]]})
    return out


def heads_differ(attn: np.ndarray, q_names: list[str], k_names: list[str], dec: int) -> dict | None:
    """How the heads of one batch element differ: each query's strongest key per head, the queries
    where the heads disagree, and the largest gap between two heads' weights for the same pair."""
    heads, n, m = attn.shape
    if heads < 2:
        return None
    rows = []
    for i in range(min(n, 8)):
        tops = [k_names[int(np.argmax(attn[h, i]))] for h in range(heads)]
        rows.append({"q": q_names[i], "tops": tops, "differ": len(set(tops)) > 1})
    # max over heads a of |attn[a] - attn[b]| is max(top - attn[b], attn[b] - bottom), bit for bit; one head b
    # at a time (heads x heads x n x m at once was 8.6 GB at 8 heads, N = 4096): the first largest, as argmax
    top, bottom = attn.max(axis=0), attn.min(axis=0)
    best, (i, j) = -1.0, (0, 0)
    for b in range(heads):
        diff = np.maximum(top - attn[b], attn[b] - bottom)
        k = int(np.argmax(diff))
        if diff.flat[k] > best:
            best, (i, j) = float(diff.flat[k]), np.unravel_index(k, diff.shape)
    pair = np.abs(attn[:, i, j][:, None] - attn[:, i, j][None, :])
    a, b = np.unravel_index(int(np.argmax(pair)), pair.shape)
    a, b = sorted((int(a), int(b)))
    if m < 2 or fmt(attn[a, i, j], dec) == fmt(attn[b, i, j], dec):
        return None  # the heads print the same weights: nothing to tell apart
    return {"rows": rows, "n_differ": sum(r["differ"] for r in rows),
            "gap": {"q": q_names[i], "k": k_names[j], "h0": a, "h1": b, "i": int(i), "j": int(j),
                    "w0": fmt(attn[a, i, j], dec), "w1": fmt(attn[b, i, j], dec)}}


def monotone(values: list[float], keys: list[float]) -> str | None:
    """"decreasing" / "increasing" when ``values`` move strictly one way as ``keys`` grow, else None."""
    order = np.argsort(keys, kind="stable")
    v = np.asarray(values, dtype=float)[order]
    k = np.asarray(keys, dtype=float)[order]
    if len(v) < 3 or np.any(np.diff(k) == 0):
        return None
    d = np.diff(v)
    if np.all(d < 0):
        return "decreasing"
    if np.all(d > 0):
        return "increasing"
    return None


def _num(x: float, dec: int) -> str:
    return str(int(x)) if float(x).is_integer() else fmt(x, dec)


def _vec(r: np.ndarray, dec: int) -> str:
    return _num(r[0], dec) if len(r) == 1 else "[" + ", ".join(_num(x, dec) for x in r) + "]"


def _where(a: np.ndarray, value: float) -> tuple[tuple[int, ...], int]:
    """The first index of ``a`` holding ``value`` (ties within TIE_RTOL kept), in reading order, and how
    many hold it (counted, not listed: weights that underflow to 0 can be millions of ties)."""
    close = np.abs(a - value) <= TIE_RTOL * max(abs(value), 1e-300)
    return tuple(int(x) for x in np.unravel_index(int(np.argmax(close)), a.shape)), int(np.count_nonzero(close))


def closeness_to_uniform(attn: np.ndarray, dec: int) -> list[dict]:
    """Per head: where its smallest and largest weights are, against the uniform 1/N, and which of
    the two lies farther from 1/N (and by how much), so "almost uniform" is a measured claim.

    ``lo``/``hi`` are the first (row, key) holding the extreme; ``n_lo``/``n_hi`` count the places
    sharing it (ties). ``far`` is "max" or "min": the extreme farther from 1/N.
    """
    n = attn.shape[-1]
    u = 1.0 / n
    out = []
    for h in range(attn.shape[0]):
        a = attn[h]
        lo_v, hi_v = float(a.min()), float(a.max())
        (lo, n_lo), (hi, n_hi) = _where(a, lo_v), _where(a, hi_v)
        far = "max" if hi_v - u >= u - lo_v else "min"
        dev = max(hi_v - u, u - lo_v)
        # at a note's few decimals the extremes can print alike ("smallest 0.1, largest 0.1, 0.0 farther"):
        # this sentence then takes the fewest decimals (up to 8) that tell them and the deviation apart
        dd = dec
        while dd < 8 and hi_v - lo_v > TIE_RTOL * hi_v and (fmt(lo_v, dd) == fmt(hi_v, dd) or
                                                            float(fmt(dev, dd)) == 0.0):
            dd += 1
        out.append({"h": h, "n": n, "lo": lo, "hi": hi, "n_lo": n_lo, "n_hi": n_hi,
                    "min": fmt(lo_v, dd), "max": fmt(hi_v, dd), "uniform": fmt(u, dd),
                    "digits": dd if dd > dec else None, "dec": dec,
                    "far": far, "dev": fmt(dev, dd), "ratio": _ratio(hi_v, lo_v),
                    "near": dev < 0.5 * u, "flat": hi_v - lo_v <= TIE_RTOL * hi_v})
    return out


def favourites(attn: np.ndarray, q_names: list[str], k_names: list[str], dec: int, rows: int = 16) -> list[dict]:
    """Per query row of one head: the favoured key (ties kept, as in :func:`ties`), the least
    favoured one, and how many times the favourite's weight is the weakest's."""
    out = []
    for t, i in zip(ties(attn, q_names, k_names, dec, rows=rows), range(min(attn.shape[0], rows))):
        row = attn[i]
        lo = int(np.argmin(row))
        t = dict(t, i=i, lo=lo, low=k_names[lo], w_low=fmt(row[lo], dec),
                 ratio=_ratio(float(row.max()), float(row[lo])))
        out.append(t)
    return out


def same_favourite(favs: list[dict]) -> str | None:
    """The one key every query favours (no ties anywhere), else None."""
    keys = {tuple(f["ks"]) for f in favs}
    if len(keys) == 1 and len(next(iter(keys))) == 1:
        return next(iter(keys))[0]
    return None


def same_least(favs: list[dict]) -> str | None:
    """The one key every query gives its smallest weight (when the row is not flat), else None."""
    lows = {f["low"] for f in favs}
    if len(lows) == 1 and all(f["ratio"] is not None and f["ks"] != [f["low"]] for f in favs):
        return next(iter(lows))
    return None


def preference_span(favs: list[dict]) -> dict | None:
    """The rows where the favourite leads the least favoured key by the largest and the smallest
    factor (the printed ratios), or None when a row has no ratio (a zero weight)."""
    if not favs or any(f["ratio"] is None for f in favs):
        return None
    r = [float(f["ratio"]) for f in favs]
    return {"strong": favs[int(np.argmax(r))], "weak": favs[int(np.argmin(r))]}


def one_dim_keys(q: np.ndarray, k: np.ndarray, dec: int) -> dict | None:
    """key_dim = 1: S[i, j] = q_i k_j, so the row of weights of query i is ordered as K when
    q_i > 0 (reversed when q_i < 0). When every q has one sign, every query favours the same
    key, the one with the largest (q > 0) or smallest (q < 0) K. ``q``, ``k``: (N,) of one head."""
    if np.all(q > 0):
        sign, j = "positive", int(np.argmax(k))
    elif np.all(q < 0):
        sign, j = "negative", int(np.argmin(k))
    else:
        return None
    if _where(k, float(k[j]))[1] > 1:
        return None  # two keys share the extreme K: no single favourite
    lo = int(np.argmin(k)) if sign == "positive" else int(np.argmax(k))
    return {"sign": sign, "j": j, "lo": lo, "extreme": "largest" if sign == "positive" else "smallest",
            "k": fmt(k[j], dec)}


def relative_size(part: np.ndarray, whole: np.ndarray, dec: int) -> dict:
    """How large one added term is next to the other (e.g. PE against O): where each has its
    largest absolute value (channel, row, column), the values there, and their ratio."""
    pi = tuple(int(x) for x in np.unravel_index(int(np.argmax(np.abs(part))), part.shape))
    wi = tuple(int(x) for x in np.unravel_index(int(np.argmax(np.abs(whole))), whole.shape))
    pm, wm = float(np.abs(part[pi])), float(np.abs(whole[wi]))
    return {"part_at": pi, "whole_at": wi, "part": fmt(part[pi], dec), "whole": fmt(whole[wi], dec),
            "part_max": fmt(pm, dec), "whole_max": fmt(wm, dec),
            "part_sign": "-" if part[pi] < 0 else "", "whole_sign": "-" if whole[wi] < 0 else "",
            "ratio": fmt(pm / wm, dec) if wm > 0 else None, "small": wm > 0 and pm < 0.5 * wm}


def averaged_range(v: np.ndarray, o: np.ndarray, dec: int, near: bool, max_terms: int = 9) -> dict | None:
    """O is a weighted average of V with weights >= 0 that sum to 1, so every O of a channel lies
    between the smallest and largest V of that channel: where each extreme is (``v``: (N,) keys,
    ``o``: (N,) queries); when the weights are ``near`` uniform, the ratio of O's spread to V's and,
    when V has at most ``max_terms`` values, V's plain mean written as the sum of its printed values."""
    if len(v) < 2 or float(v.max() - v.min()) == 0.0:
        return None
    v_lo, v_hi, o_lo, o_hi = (int(np.argmin(v)), int(np.argmax(v)), int(np.argmin(o)), int(np.argmax(o)))
    vs = [fmt(x, dec) for x in v]
    out = {"v_lo": v_lo, "v_hi": v_hi, "o_lo": o_lo, "o_hi": o_hi,
           "v_min": vs[v_lo], "v_max": vs[v_hi], "o_min": fmt(o[o_lo], dec), "o_max": fmt(o[o_hi], dec),
           "ratio": None, "mean": None}
    if near:
        ratio = float(o.max() - o.min()) / float(v.max() - v.min())
        out["ratio"] = fmt(ratio, 3)
        if len(v) <= max_terms:
            terms = vs[0] + "".join(f" - {x[1:]}" if x.startswith("-") else f" + {x}" for x in vs[1:])
            out["mean"], out["mean_expr"] = fmt(float(v.mean()), dec), f"({terms}) / {len(v)}"
    return out


def value_mix(a_row: np.ndarray, v: np.ndarray, keep: np.ndarray, dec: int, max_terms: int = 8,
              width: int = 66) -> dict | None:
    """One query's output written as what it is, a weighted sum of the value rows it may see
    (``keep``: its mask row): its weights and V rows as printed, and the output row. None when more
    than ``max_terms`` keys are seen (the sum would not fit a line)."""
    seen = [j for j in range(len(a_row)) if keep[j]]
    if not seen or len(seen) > max_terms:
        return None
    terms = [f"{fmt(a_row[j], dec)} * {_vec(v[j], dec) if len(v[j]) > 1 else '[' + _vec(v[j], dec) + ']'}"
             for j in seen]
    lines = [terms[0]]  # the sum wrapped to a page column (80 characters with its "Out(pi) = " prefix)
    for t in terms[1:]:
        if len(lines[-1]) + 3 + len(t) > width:
            lines.append(t)
        else:
            lines[-1] += " + " + t
    out = a_row[seen] @ v[seen]
    return {"seen": seen, "all": len(seen) == len(a_row), "terms": " + ".join(terms), "lines": lines,
            "out": "[" + ", ".join(fmt(x, dec) for x in out) + "]"}
