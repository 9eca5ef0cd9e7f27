"""The bulk paths of the checker give the per-cell path's verdicts, number for number (issue 12).

Two shortcuts read matrices of plain numbers: ``expr.tokenize`` makes a matrix body one "plain" token
whose cells ``Parser.matrix`` reads from the text in one pass, and ``Checker._compare_many`` runs the
float-first test of a matrix's or list's cells in NumPy. With both switched off (``per_cell``) every
cell is a token, parsed and compared on its own, as before issue 12. Both ways must give the same
records (line, text, status, labels, expected values, fixes) on notes with planted wrong numbers,
numbers a hair from their rounding boundary, negative zero, truncated and elided cells; and the
tokenizer and parser must give the same tokens and trees for hostile matrix bodies.
"""

from __future__ import annotations

import random
import re
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest
from conftest import record_fields

from attnwalk.api import walk
from attnwalk.check import check_text, checker, expr
from attnwalk.check.expr import expand, parse_chain, token_count, tokenize
from attnwalk.render import render
from attnwalk.scenario import load_scenario

ROOT = Path(__file__).resolve().parent.parent
NEVER = re.compile(r"(?!)")  # a regex that matches nowhere: no matrix body is ever "plain"


@contextmanager
def per_cell():
    """Both bulk paths off: every matrix cell tokenized, parsed and compared one by one."""
    saved = expr._PLAIN_RUN, checker.BULK_MIN
    expr._PLAIN_RUN, checker.BULK_MIN = NEVER, 10**9
    try:
        yield
    finally:
        expr._PLAIN_RUN, checker.BULK_MIN = saved


@contextmanager
def node_cells():
    """Plain matrices still one token, but checked through their cells' nodes (``_leaves``, ``_align``,
    ``_compare_many``) instead of the columns of ``Checker._check_plain``."""
    saved = checker.PLAIN_COLUMNS
    checker.PLAIN_COLUMNS = False
    try:
        yield
    finally:
        checker.PLAIN_COLUMNS = saved


def records(text: str, options: dict | None = None) -> list:
    return record_fields(check_text(text, options))


def assert_same(text: str, options: dict | None = None) -> list:
    fast = records(text, options)
    with per_cell():
        slow = records(text, options)
    with node_cells():
        nodes = records(text, options)
    assert len(fast) == len(slow) == len(nodes)
    for a, b, c in zip(fast, slow, nodes):
        assert a == b == c
    return fast


# ---------------------------------------------------------------- tokens and trees


def _reference_tokens(text: str) -> list[tuple]:
    """The tokenizer as it was before issue 12: one token per _TOKEN_RE match, blanks dropped."""
    out = []
    for m in expr._TOKEN_RE.finditer(text):
        kind = m.lastgroup
        if kind == "ws":
            continue
        if kind in ("num", "trunc"):
            out.append(("num", m.group("num"), m.start(), m.end(), kind == "trunc"))
        else:
            out.append((kind, m.group(), m.start(), m.end(), False))
    return out


def _expanded(text: str) -> list:
    toks = tokenize(text)
    k = 0
    while k < len(toks):
        if toks[k].kind == "plain":
            expand(toks, k, text)
        k += 1
    return toks


BODIES = ["1 & 2 ⏎ 3 & 4", "-0.5 & 0.25 ⏎\n-1 & 2 ⏎\n", "1 -2", "1 - 2", "1\n-2", "- 1 & 2", "1.2.3 & 4",
          "1. & 2", "0.1234… & 2", "1 & ⋯ & 3", "⏎ ⏎ 1", "", "   ", "1e-5 & 2", "-0.0000 & 0.0000", "--1", "1 & -",
          "12 & 3.5 ⏎ -0 & 7", "1 &  & 2", "x & 1", "1 ⏎ 2 ⏎", "0.12345 & -0.12345"]


def _texts(rng: random.Random, n: int) -> list[str]:
    out = []
    for _ in range(n):
        parts = []
        for _ in range(rng.randint(1, 4)):
            pre = rng.choice(["S_0 = ", "X[:,0,:,:] =\n", "", "A = ", "1 + ", "f(", "⟦", "P = "])
            body = rng.choice(BODIES) if rng.random() < 0.5 else " & ".join(
                rng.choice(["0.1", "-2", "3.25", "-0.0001", "7"]) for _ in range(rng.randint(0, 5)))
            post = rng.choice(["⟧", "⟧ = 3", "⟧\n= ⟦1 & 2⟧", "", "⟧ ⟧", "⟧ · ⟦1⟧ ≈ 2"])
            parts.append(pre + "⟦" + body + post)
        out.append(rng.choice([" ", "\n", " = "]).join(parts))
    return out + ["⟦" + b + "⟧" for b in BODIES]


def _tree(node) -> tuple:
    if node is None:
        return None
    num = (node.num.text, node.num.pos, node.num.truncated) if node.num is not None else None
    return (node.kind, node.op, node.name, node.start, node.end, num, tuple(_tree(a) for a in node.args))


def _parse(text: str, toks: list, i: int, budget: int | None):
    b = None if budget is None else [budget]
    res = parse_chain(text, toks, i, None, frozenset({"x"}), b)
    if res is None:
        return None, b
    exprs, rels, j = res
    # the next token by position: a compact list and an expanded one index it differently
    return ([_tree(e) for e in exprs], rels, toks[j].pos if j < len(toks) else None), b


def test_tokens_expand_to_the_reference():
    for text in _texts(random.Random(1), 400):
        toks = tokenize(text)
        assert token_count(toks) == len(_reference_tokens(text))
        assert [(t.kind, t.text, t.pos, t.end, t.trunc) for t in _expanded(text)] == _reference_tokens(text), text


def test_plain_bodies_are_only_plain_matrices():
    assert [t.kind for t in tokenize("S = ⟦1 & -2 ⏎\n3 & 4⟧")] == ["ident", "rel", "open", "plain", "close"]
    for body in ("1 -2", "1.2.3", "0.1…", "1 & ⋯", "1e-5", "x", "--1", "- 1", "", "   "):
        assert "plain" not in [t.kind for t in tokenize("⟦" + body + "⟧")], body


@pytest.mark.parametrize("budget", [None, 0, 3, 10, 1000])
def test_parse_trees_and_budgets_match_the_token_path(budget):
    for text in _texts(random.Random(2), 300):
        compact = tokenize(text)
        full = _expanded(text)
        for pos in sorted({t.pos for t in full}):
            i_full = next(k for k, t in enumerate(full) if t.pos == pos)
            compact = tokenize(text)  # parsing may expand tokens of the list it is given: start afresh
            hits = [k for k, t in enumerate(compact) if t.pos == pos and t.kind != "plain"]
            if not hits:
                continue  # inside a plain body: nothing starts a parse there until it is expanded
            got, b_got = _parse(text, compact, hits[0], budget)
            with per_cell():
                want, b_want = _parse(text, _expanded(text), i_full, budget)
            assert got == want, (text, pos)
            assert b_got == b_want, (text, pos)


# ---------------------------------------------------------------- whole notes


def _note(**opts) -> str:
    t = walk(**opts)
    return render(t, "md", t.config["lang"])


MATRIX = re.compile(r"\\begin\{bmatrix\}(.*?)\\end\{bmatrix\}", re.S)
CELL = re.compile(r"-?\d+\.\d+")


def plant(text: str, rng: random.Random) -> str:
    """Change cells of the note's matrices: a wrong last digit, a hair from the rounding boundary
    (digits appended: x.xxxx5, x.xxxx49999), the sign flipped, negative zero, a truncated number
    (``0.1234…``), an elided row (``\\cdots``) and an extra blank."""
    def cell(m):
        s = m.group(0)
        kind = rng.randrange(12)
        if kind == 0:
            return s[:-1] + str((int(s[-1]) + rng.choice((1, 9))) % 10)
        if kind == 1:
            return s + "5"
        if kind == 2:
            return s + "49999"
        if kind == 3:
            return s[1:] if s.startswith("-") else "-" + s
        if kind == 4:
            return "-0.0000"
        if kind == 5 and rng.random() < 0.3:
            return s + "…"
        return s

    def matrix(m):
        body = m.group(1)
        if rng.random() < 0.5:
            return m.group(0)
        if rng.random() < 0.1:
            body = body.replace(" & ", " & \\cdots & ", 1)
        return "\\begin{bmatrix}" + CELL.sub(cell, body) + "\\end{bmatrix}"

    return MATRIX.sub(matrix, text)


NOTE_OPTS = [dict(h=4, w=4, dim=8, heads=2, input="normal"),
             dict(h=3, w=3, heads=2, seed=42, pe_on="o", lang="en"),
             dict(variant="sdpa", tokens=5, mask="causal")]


@pytest.mark.parametrize("opts", NOTE_OPTS, ids=["yolo4x4", "yolo3x3", "sdpa"])
def test_same_records_with_planted_numbers(opts):
    text = _note(**opts)
    recs = assert_same(text)
    assert sum(r[2] == "verified" for r in recs) > 100 and not any(r[2] == "wrong" for r in recs)
    rng = random.Random(3)
    wrong = 0
    for _ in range(3):
        planted = plant(text, rng)
        recs = assert_same(planted)
        wrong += sum(r[2] == "wrong" for r in recs)
    assert wrong > 20  # the planted numbers are found, the same way on both paths


def test_boundary_cells_both_ways():
    """Cells set to their expected value ± exactly half a unit of the 4th decimal, ± a hair: on the
    boundary the exact test decides (0.12345 at 4 decimals may be 0.1234 or 0.1235)."""
    text = _note(h=3, w=3, heads=2, seed=42, pe_on="o")
    t = walk(h=3, w=3, heads=2, seed=42, pe_on="o")
    a = np.asarray(t["attn"])[0, 0]  # head 0's attention matrix, as "A_0 =" prints it
    deltas = (5e-5, -5e-5, 5.0000001e-5, -4.9999999e-5, 0.0)
    body = " \\\\\n".join(" & ".join(f"{v + deltas[j % 5]:.4f}" for j, v in enumerate(row)) for row in a)
    extra = f"\n$$\nA_0 =\n\\begin{{bmatrix}}\n{body}\n\\end{{bmatrix}}\n$$\n"
    recs = assert_same(text + extra)
    assert any(r[2] == "wrong" for r in recs) and any(r[2] == "verified" for r in recs)


HAND = [(ROOT / "examples/handwritten/000_1990ceb7e4aac7cb.md", dict(h=3, w=3, heads=2, seed=42, pe_on="o")),
        (ROOT / "examples/handwritten/004_2311b208f99d33c7.md", "examples/scenarios/hand-2x2.toml")]


@pytest.mark.parametrize("path,options", HAND, ids=["seed000", "seed004"])
def test_same_records_on_hand_written_notes(path, options):
    """Hand-written notes (float32 allowance, not strict) with their own wrong numbers."""
    if isinstance(options, str):
        options = load_scenario(ROOT / options)
    recs = assert_same(path.read_text(encoding="utf-8"), options)
    assert any(r[2] == "wrong" for r in recs)
    planted = plant(path.read_text(encoding="utf-8"), random.Random(4))
    assert_same(planted, options)


def test_close_strict_is_the_exact_verdict():
    """``bounds.close_strict`` (integers) against ``checker._close`` (Fractions) on decimals on, a hair
    inside and a hair outside half a unit of their last digit, 0 to 20 decimals, negative zero."""
    from fractions import Fraction

    from attnwalk.check import bounds
    from attnwalk.check.checker import _close
    from attnwalk.check.expr import Num

    rng = random.Random(5)
    seen = set()
    for _ in range(50_000):
        e = rng.choice([rng.uniform(-3, 3), rng.uniform(-1e-3, 1e-3), float(rng.randint(-5, 5)), 0.0, -0.0])
        d = rng.randint(1, 20)
        p = Fraction(e) + Fraction(rng.choice([0, 1, -1]), 2 * 10**d) + Fraction(rng.randint(-2, 2),
                                                                                  10 ** (d + rng.randint(0, 25)))
        q = round(p * 10**d)
        neg = q < 0 or (q == 0 and rng.random() < 0.3)
        text = f"{abs(q) // 10**d}.{abs(q) % 10**d:0{d}d}"
        want = _close(Fraction(text) * (-1 if neg else 1), Num(text, 0), e, 0.0, True)
        assert bounds.close_strict(text, neg, d, e) == want, (text, neg, e)
        seen.add(want)
    assert seen == {True, False}


def test_decimal_numbers_are_number_re_matches_with_a_point():
    """The reader's last pass (numbers nobody used) finds NUMBER_RE's decimals with a regex of its own."""
    rng = random.Random(7)
    alpha = list("0123456789....…ab -_x\n") + ["...", "1.5", "12"]
    for _ in range(50_000):
        t = "".join(rng.choice(alpha) for _ in range(rng.randint(0, 25)))
        want = [(m.start(1), m.group(1), m.group(2)) for m in expr.NUMBER_RE.finditer(t) if "." in m.group(1)]
        assert [(m.start(1), m.group(1), m.group(2)) for m in checker._DECIMAL_RE.finditer(t)] == want, t


def test_decimal_numbers_in_a_window_are_number_re_matches_with_a_point():
    """``_decimals`` searches a window of a text (outside the plain bodies already recorded): what NUMBER_RE
    finds there with a point, the characters before the window seen by the lookbehind as NUMBER_RE sees them
    (``(?<![\\w.])``: ``a1.5`` is no number even when the window starts at the 1)."""
    rng = random.Random(11)
    alpha = list("0123456789....…ab -_x\n&⟦⟧é٣") + ["...", "1.5", "12", "0.0625"]
    for _ in range(50_000):
        t = "".join(rng.choice(alpha) for _ in range(rng.randint(0, 30)))
        lo = rng.randint(0, len(t))
        hi = rng.randint(lo, len(t))
        want = [(m.start(1), m.group(1), m.group(2)) for m in expr.NUMBER_RE.finditer(t, lo, hi) if "." in m.group(1)]
        got = [(m.start(1), m.group(1), m.group(2)) for m in checker._DECIMAL_RE.finditer(t, lo, hi)]
        assert got == want, (t, lo, hi)


def test_plain_matrix_rows_made_when_read():
    """A plain matrix's node (``PlainMat``) makes its rows only when ``args`` is read; they are the rows
    the token path builds, and ``cells`` lists the same numbers, positions and signs row by row."""
    seen = 0
    for text in _texts(random.Random(8), 300):
        toks = tokenize(text)
        for k, t in enumerate(toks):
            if t.kind != "plain":
                continue
            res = parse_chain(text, toks, k - 1, None, frozenset(), [10**6])
            node = res[0][0] if res else None
            if not isinstance(node, expr.PlainMat):
                continue
            assert not node.built and node.is_value
            texts, starts, negs, rows = node.cells()
            with per_cell():
                full = _expanded(text)
                i = next(j for j, u in enumerate(full) if u.pos == toks[k - 1].pos)
                want = parse_chain(text, full, i, None, frozenset(), [10**6])[0][0]
            assert _tree(node) == _tree(want), text  # reading args builds them
            assert node.built
            assert [len(r.args) for r in node.args] == rows
            flat = [c for r in node.args for c in r.args]
            assert [(c.args[0] if c.kind == "neg" else c).num.text for c in flat] == texts
            assert [(c.args[0] if c.kind == "neg" else c).num.pos for c in flat] == starts
            assert [c.kind == "neg" for c in flat] == negs
            seen += 1
            break
    assert seen > 50


def _normalize_reference(text: str) -> str:
    """``normalize`` as it was before issue 12: every substitution a regex, tried on every text (after the rows of
    an ``aligned`` block are read as continuing relations: ``expr._aligned_rows``)."""
    out = expr._aligned_rows(text) if "&" in text and expr._ALIGN_ENV.search(text) else text
    for pat, rep, _ in expr._SUBS:
        out = pat.sub(rep, out)
    return out


def test_normalize_is_every_substitution_in_order():
    """``normalize`` skips a substitution when the text lacks its command's name and replaces fixed
    strings with str.replace: the same text as all substitutions applied in order, on every note's
    paragraphs and on random soups of LaTeX commands, prefixes of them and their neighbours."""
    texts = []
    for p in sorted((ROOT / "examples").rglob("*.md")) + sorted((ROOT / "tests/corpus").rglob("*.md")):
        texts += p.read_text(encoding="utf-8").split("\n\n")
    parts = [r"\text{a}", r"\textbf{b}", r"\hat{S}", r"\hat S", r"\widetilde{S}", r"\begin{bmatrix}", r"\end{pmatrix}",
             r"\begin{aligned}", r"\approx", r"\cdot", r"\cdotp", r"\times", r"\div", r"\left(", r"\right)", r"\bigg",
             r"\Bigl", r"\,", r"\;", r"\!", r"\:", "\\ ", r"\qquad", r"\quad", r"\cdots", r"\ldots", r"\dots",
             r"\vdots", r"\ddots", r"\exp", r"\expo", r"\ln", r"\log", r"\max", r"\min", r"\sqrt{2}",
             r"\frac{1}{2}", r"\alpha", r"\infty", r"\to", r"\top", r"\rightarrow", r"\pi", r"\pix", r"\sum",
             r"\epsilon", r"\varepsilon", r"\vert", "\\\\", "->", "_{ab}", "^{2}", "**x**", "a ** b", "−", "–", "²",
             "³", "$", "`", "x", " ", "\n", "\\", "{", "}", "\\le\\leftft", "S", "l", "e", "ft", "te", "xt", "-", ">",
             "*", "_", "^"]
    rng = random.Random(9)
    texts += ["".join(rng.choice(parts) for _ in range(rng.randint(1, 14))) for _ in range(30_000)]
    for t in texts:
        assert expr.normalize(t) == _normalize_reference(t), t


def test_tokens_read_in_windows(monkeypatch):
    """The tokenizer reads long texts a window at a time, cut after a comma or a newline: with windows of
    a few characters, the same tokens as _TOKEN_RE's matches (blanks dropped)."""
    monkeypatch.setattr(expr, "_WINDOW", 7)
    rng = random.Random(10)
    alpha = list("0123456789.,\n \tab…x&⏎-=[]()") + ["...", "1.5", "ồ", "  ", "e-3"]
    for _ in range(20_000):
        text = "".join(rng.choice(alpha) for _ in range(rng.randint(0, 80)))
        toks: list = []
        expr._tokens(text, 0, len(text), toks)
        assert [(t.kind, t.text, t.pos, t.end, t.trunc) for t in toks] == _reference_tokens(text), text


def test_plain_body_counts_its_tokens():
    """A plain body's token count (``_body_count``: C-level scans) is the number of _BODY_TOK's matches."""
    rng = random.Random(11)
    for text in _texts(rng, 400) + ["⟦" + "0.25 & -1 ⏎\n" * 50 + "7⟧"]:
        for m in expr._PLAIN_RUN.finditer(text):
            a, b = m.span(1)
            assert expr._body_count(text, a, b) == len(expr._BODY_TOK.findall(text, a, b)), text


def test_a_minus_after_a_number_is_the_regex_it_replaces():
    """``expr.neg_after_num`` (blanks taken out, then a minus glued to a digit) answers as ``_NEG_AFTER_NUM.search``
    (a digit, blanks, a minus) on random windows of random texts: plain bodies' characters, other blanks and
    digits (a newline between the digit and the minus is no difference)."""
    rng = random.Random(13)
    alpha = list("0123456789 \t\t  --&⏎\n.ab٣") + ["0.0625", " -", "-0.5", "&   -"]
    seen = set()
    for _ in range(50_000):
        t = "".join(rng.choice(alpha) for _ in range(rng.randint(0, 30)))
        a = rng.randint(0, len(t))
        b = rng.randint(a, len(t))
        want = expr._NEG_AFTER_NUM.search(t, a, b) is not None
        assert expr.neg_after_num(t, a, b) == want, (t, a, b)
        seen.add(want)
    assert seen == {True, False}
