"""Exact mode: closed forms of an sdpa walkthrough whose inputs are exact (sympy).

When no value comes from a normal draw (tables, integer draws, column selections, weights
given as tables: ``derived["exact"]``), every score is an algebraic number and every weight
a quotient of sums of exponentials, e.g. α(p0→p0) = 1/(2 + 2e). This module rebuilds q, k, v
as rationals from the trace's config (tables as typed: 0.1 is 1/10, "1/3" is 1/3) or from
its integer draws, and computes scores, weights and outputs symbolically. sympy is imported
here only, so renders that do not need closed forms never load it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .engine.sdpa import keep_mask
from .trace import Trace


def _frac(v) -> Fraction:
    """A table entry as the rational the user wrote: 0.1 -> 1/10, "1/3" -> 1/3, 2 -> 2."""
    if isinstance(v, float):
        return Fraction(repr(v))
    return Fraction(v)


def _exact(trace: Trace, name: str) -> list[list[Fraction]]:
    """Batch 0 of input ``name`` (rows = tokens) as rationals: the typed table, else the integer draw."""
    table = trace.config.get(name)
    if table is not None:
        return [[_frac(v) for v in row] for row in table]
    data = trace[name] if name in trace else None
    if data is None:
        raise KeyError(name)
    if data.ndim == 4:  # q, k, v (B, heads, L, d): batch 0, heads side by side
        data = data[0].transpose(1, 0, 2).reshape(data.shape[2], -1)
    elif data.ndim == 3:
        data = data[0]
    if not np.all(np.mod(data, 1) == 0):
        raise ValueError(f"{name}: not exact")
    return [[Fraction(int(v)) for v in row] for row in data]


def _matmul_t(x: list[list[Fraction]], w: list[list[Fraction]]) -> list[list[Fraction]]:
    """x · wᵀ (Linear layout (out, in))."""
    return [[sum((a * b for a, b in zip(row, wrow)), Fraction(0)) for wrow in w] for row in x]


def exact_qkv(trace: Trace) -> tuple[list, list, list]:
    """q, k, v of batch 0 as lists of rational rows (all heads side by side)."""
    cfg = trace.config
    source = cfg.get("source", "direct")
    if source == "direct":
        return _exact(trace, "q"), _exact(trace, "k"), _exact(trace, "v")
    x = _exact(trace, "x")
    x_kv = _exact(trace, "x_kv") if (cfg.get("x_kv") is not None or "x_kv" in trace) else x
    if source == "columns":
        pick = lambda t, cols: [[row[c] for c in cols] for row in t]  # noqa: E731
        return pick(x, cfg["q_cols"]), pick(x_kv, cfg["k_cols"]), pick(x_kv, cfg["v_cols"])
    w_q, w_k, w_v = (_exact(trace, n) for n in ("w_q", "w_k", "w_v"))
    return _matmul_t(x, w_q), _matmul_t(x_kv, w_k), _matmul_t(x_kv, w_v)


@dataclass(frozen=True)
class Form:
    """A closed form num/den, kept apart so it prints as written: 1/(2 + 2e), not 1/(2(1 + e))."""

    num: object
    den: object

    @property
    def expr(self):
        return self.num / self.den

    def tex(self) -> str:
        if self.den == 1:
            return _tex(self.num)
        return rf"\frac{{{_tex(self.num)}}}{{{_tex(self.den)}}}"

    def text(self) -> str:
        if self.den == 1:
            return _text(self.num)
        num, den = _text(self.num), _text(self.den)
        wrap = lambda s: s if re.fullmatch(r"[\w.]+", s) else f"({s})"  # noqa: E731
        return f"{wrap(num)}/{wrap(den)}"

    def value(self, digits: int = 30) -> float:
        return float(self.expr.evalf(digits))


@dataclass
class ClosedForms:
    """Per head h (batch 0): scaled[h][i][j] (sympy), den[h][i] (sympy), attn[h][i][j], o[h][i][c] (Form)."""

    scaled: list
    den: list
    attn: list
    o: list


def closed_forms(trace: Trace, rows: int | None = None, vanish: bool = False) -> ClosedForms:
    """Closed forms of batch 0, every head; only the first ``rows`` query rows when given.

    ``vanish``: a masked term exp(fill) with a finite fill (e^{-10000}) is dropped from a row that
    keeps some key, for display: it is below 10^{-4342}, far under any printed digit, and keeping it
    makes unreadable nested fractions. The decimals are unchanged (the engine's values are printed).
    """
    import sympy as sp

    cfg, d = trace.config, trace.derived
    heads, d_k, d_v = cfg["heads"], d["d_k"], d["d_v"]
    q, k, v = exact_qkv(trace)
    n, m = len(q), len(k)
    keep = keep_mask(cfg.get("mask", "none"), n, m)
    fill = {"-inf": None, "-1e9": sp.Integer(-(10**9)), "-10000": sp.Integer(-10000)}[cfg.get("mask_fill", "-inf")]
    scale = 1 / sp.sqrt(d_k) if cfg.get("scale", "sqrt_dk") == "sqrt_dk" else \
        sp.Integer(1) if cfg["scale"] == "none" else sp.Rational(str(cfg["scale"]))
    R = lambda f: sp.Rational(f.numerator, f.denominator)  # noqa: E731
    out = ClosedForms([], [], [], [])
    for h in range(heads):
        qs, ks = slice(h * d_k, (h + 1) * d_k), slice(h * d_k, (h + 1) * d_k)
        vs = slice(h * d_v, (h + 1) * d_v)
        scaled = [[R(sum((a * b for a, b in zip(q[i][qs], k[j][ks])), Fraction(0))) * scale for j in range(m)]
                  for i in range(n)]
        attn_h, o_h, den_h = [], [], []
        for i in range(n if rows is None else min(rows, n)):
            drop = vanish and fill is not None and keep[i].any()
            logits = [scaled[i][j] if keep[i, j] else (None if drop else fill) for j in range(m)]
            terms = [sp.exp(s) if s is not None else sp.Integer(0) for s in logits]
            den = sp.Add(*terms)
            den_h.append(den)
            if den == 0:  # every key dropped with fill -inf: the documented all-zero row
                attn_h.append([Form(sp.Integer(0), sp.Integer(1))] * m)
                o_h.append([Form(sp.Integer(0), sp.Integer(1))] * d_v)
                continue
            attn_h.append([Form(t, den) if t != 0 else Form(t, sp.Integer(1)) for t in terms])
            o_h.append([_tidy(sp, sp.Add(*(t * R(v[j][vs][c]) for j, t in enumerate(terms))), den)
                        for c in range(d_v)])
        out.scaled.append(scaled)
        out.den.append(den_h)
        out.attn.append(attn_h)
        out.o.append(o_h)
    return out


MAX_CANCEL_EXPONENT = 64


def _tidy(sp, num, den) -> Form:
    """num/den, cancelled when that shortens it without new exponentials (2/(2 + 2e) -> 1/(1 + e))."""
    if num == 0:
        return Form(num, sp.Integer(1))
    # cancel() works on polynomials in e: exp(-10000) from a finite mask fill would make it a
    # polynomial of degree 10000 (minutes of work). Such factors are cancelled as opaque symbols.
    huge = {a: sp.Dummy() for a in (num.atoms(sp.exp) | den.atoms(sp.exp))
            if a.args[0].is_number and abs(a.args[0]) > MAX_CANCEL_EXPONENT}
    try:
        c = sp.cancel((num / den).xreplace(huge)).xreplace({d: a for a, d in huge.items()})
    except Exception:  # pragma: no cover - cancel gives up on some algebraic forms
        return Form(num, den)
    atoms = lambda e: set(e.atoms(sp.exp)) | ({sp.E} if e.has(sp.E) else set())  # noqa: E731
    if sp.count_ops(c) <= sp.count_ops(num) + sp.count_ops(den) and atoms(c) <= atoms(num) | atoms(den):
        cn, cd = sp.fraction(c)
        return Form(cn, cd)
    return Form(num, den)


def _tex(expr) -> str:
    """LaTeX of a closed form, Markdown-safe (no ``\\,``; ``\\left( \\right)`` kept)."""
    import sympy as sp

    s = sp.latex(expr)
    return s.replace(r"\,", " ").replace(r"\;", " ")


def _text(expr) -> str:
    """A closed form as plain text for code blocks: 1/(2 + 2*e), exp(1/2)."""
    import sympy as sp

    return re.sub(r"\bE\b", "e", sp.sstr(expr))


def tex(expr) -> str:
    """LaTeX of a sympy expression or a Form."""
    return expr.tex() if isinstance(expr, Form) else _tex(expr)


def text(expr) -> str:
    """Plain text of a sympy expression or a Form."""
    return expr.text() if isinstance(expr, Form) else _text(expr)


def value(expr, digits: int = 30) -> float:
    return expr.value(digits) if isinstance(expr, Form) else float(expr.evalf(digits))


def output_functions(trace: Trace) -> list | None:
    """Head 0's output columns as functions of a scalar query q (d_k = 1, no mask), or None.

    With one query channel, S[i, j] = q_i · K[j], so O[i, c] = Σ_j e^{q K_j s} V[j, c] / Σ_j e^{q K_j s}
    for one function of q: hand-2x2's out_c2 is 1/(1 + e^q). Returns [(column, sympy expr in q)].
    """
    import sympy as sp

    cfg, d = trace.config, trace.derived
    if d["d_k"] != 1 or cfg.get("mask", "none") != "none":
        return None
    _q, k, v = exact_qkv(trace)
    q = sp.Symbol("q")
    R = lambda f: sp.Rational(f.numerator, f.denominator)  # noqa: E731
    terms = [sp.exp(q * R(row[0])) for row in k]
    den = sp.Add(*terms)
    out = []
    for c in range(d["d_v"]):
        f = sp.simplify(sp.Add(*(t * R(v[j][c]) for j, t in enumerate(terms))) / den)
        out.append((c, f))
    return out
