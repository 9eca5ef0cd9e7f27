"""The fast paths of issue 12, part 4, rounds 4 and 5 give the general path's records.

``Checker._labelled_values`` reads a strict text that is nothing but labelled values (a paragraph of
``X[:,0,:,:] = ⟦..⟧`` matrices, a table cell ``A_0[2, 15] = 0.0628`` or ``A_0[2, 15] / A_0[2, 12] ≈ 1.009``)
without tokens, building the chain the token walk would build; ``Checker._dot_lines`` does the same for a
strict code text of worked dot products (``O_0[0, 0] = (a)(b) + (c)(d) + … = t``); ``Checker._flush_plain``
decides a strict note's plain matrices together at the end of the reading. With all of them switched off
(``walk_only``), every text goes through ``tokenize``/``parse_chain`` and each matrix is decided as it is
read; both ways must
give the same records, field by field (line, text, status, operand, fix, each check's verdict, label and
expected value), on generated notes with planted wrong numbers, on look-alike texts that are not quite
that shape, and where a chain raises.
"""

from __future__ import annotations

import random
import re
from contextlib import contextmanager

import pytest
from conftest import record_fields

from attnwalk.api import walk
from attnwalk.check import check_text, checker
from attnwalk.render import render


@contextmanager
def walk_only():
    """The fast paths off: every text of a note read by the token walk, each plain matrix decided when it is
    read (``checker.DEFER_PLAIN``) rather than with all the note's others at the end."""
    saved = checker.LABELLED_BLOCKS, checker.DEFER_PLAIN, checker.CODE_LINES, checker.SKIP_WORDS
    checker.LABELLED_BLOCKS = checker.DEFER_PLAIN = checker.CODE_LINES = checker.SKIP_WORDS = False
    try:
        yield
    finally:
        checker.LABELLED_BLOCKS, checker.DEFER_PLAIN, checker.CODE_LINES, checker.SKIP_WORDS = saved


def records(text: str, options: dict | None = None) -> list:
    return record_fields(check_text(text, options))


def both(text: str, options: dict | None = None) -> list:
    got = records(text, options)
    with walk_only():
        want = records(text, options)
    assert got == want
    return got


def _planted(text: str, rng: random.Random, k: int) -> str:
    """``text`` (after its front matter) with k of its decimals off in the last digit, a few of them signs
    flipped, truncated (``…``) or pushed to the rounding boundary (a fifth digit 5)."""
    head = text.index("\n---\n") + 5
    body = text[head:]
    nums = list(re.finditer(r"(?<![\w.])-?\d+\.\d+(?![\d.])", body))
    edits = {}
    for m in rng.sample(nums, min(k, len(nums))):
        s = m.group()
        how = rng.random()
        if how < 0.6:
            s = s[:-1] + str((int(s[-1]) + rng.choice([1, 9])) % 10)
        elif how < 0.75:
            s = s[1:] if s.startswith("-") else "-" + s
        elif how < 0.9:
            s = s + "5"
        else:
            s = s + "…"
        edits[m.start()] = (m.end(), s)
    out, at = [], 0
    for start in sorted(edits):
        end, s = edits[start]
        out += [body[at:start], s]
        at = end
    return text[:head] + "".join(out) + body[at:]


NOTES = [dict(h=4, w=4, heads=2, dim=8, seed=42, input="normal"), dict(h=3, w=3, heads=2, dim=4, seed=1),
         dict(h=3, w=3, heads=2, dim=4, seed=7, decimals=6, lang="en"), dict(variant="sdpa", tokens=5, seed=2),
         dict(variant="mha", tokens=3, dim=4, heads=2, seed=5), dict(h=2, w=3, heads=1, dim=2, seed=3, lang="en")]


@pytest.mark.parametrize("opts", NOTES, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_same_records_with_planted_numbers(opts):
    t = walk(**opts)
    note = render(t, "md", t.config["lang"])
    calls = []
    saved = checker.Checker._labelled_values

    def counted(self, nt):
        out = saved(self, nt)
        calls.append(out)
        return out

    checker.Checker._labelled_values = counted
    try:
        both(note)
    finally:
        checker.Checker._labelled_values = saved
    assert calls.count(True) >= 5  # the fast path is taken (matrices at least)
    for seed in range(4):
        got = both(_planted(note, random.Random(seed), 5 + 12 * seed))
        assert any(r[2] == "wrong" for r in got)


# Texts near the fast path's shape: each either read by it or left to the walk, the same records either way.
LOOK_ALIKES = [
    "A_0[0, 1] = 0.0626", "A_0[0, 1] = -0.0626", "A_0[0, 1] = - 0.0626", "A_0[0, 1] =\n0.0626",
    "A_0[0, 1]\n= 0.0626", "A_0[0, 1] = 0.0626…", "A_0[0, 1] = 0.0626...", "A_0[0, 1] = 0.06", "A_0[0, 1] = 1e-2",
    "A_0[0, 1] = 0.0626.", "A_0[0, 1] = 0.0626%", "A_0[0, 1] = 0.0626 e", "A_0[0, 1] = 2e", "A_0[0, 1] == 0.0626",
    "A_0[0, 1] ≈ 0.0626", "A_0[0, 1] =≈ 0.0626", "A_0[0, 1] = 0.0626, A_0[0, 2] = 0.0620",
    "A_0[0, 1] = 0.0626 A_0[0, 2] = 0.0620", "A_0[0, 1] = 0.0626,", "A_0[0, 1] = 0.0626 (rounded)",
    "A_0[0, 1] / A_0[0, 2] ≈ 1.01", "A_0[0, 1] / A_0[0, 2] ≈ 0.5", "A_0[0, 1] // A_0[0, 2] ≈ 1",
    "A_0[0, 1] /\nA_0[0, 2] ≈ 1.01", "A_0[0, 1] / A_0[0, 2]\n≈ 1.01", "A_0[0, 1] / 2 ≈ 0.0313",
    "A_0[0, 1] / (A_0[0, 2]) ≈ 1.01", "A_0[0, 1] * A_0[0, 2] ≈ 0.0039", "A_0[0, 1]^2 = 0.0039",
    "S_0[0, 0] = -0.0027", "S_0[0, :] = -0.0027", "Ŝ_0[1, 2] = 0.0001", "exp = 0.5", "e = 2.7183", "N = 16",
    "Head 0: A_0[0, 1] = 0.0626", "H = 4", "A_0 = ⟦ 0.1 & 0.2 ⏎ 0.3 & 0.4 ⟧", "S_0[0, 0] = 0.0626 = 0.0626",
    "A_0[0, 1] = 0.0626 ⟦", "A_0[0, 1]=0.0626", "A_0[0,1]=0.0626,A_0[0,2]=0.0620", "x A_0[0, 1] = 0.0626",
    "A_0[0, 1] = 0.0626\n\nA_0[0, 2] = 0.0620",
]


def _table(cells: list[str]) -> str:
    rows = "\n".join(f"| p{k} | `{c}` |" for k, c in enumerate(cells))
    return "| query | value |\n|---|---|\n" + rows.replace("\n", " ").replace("| p", "\n| p")[1:] + "\n"


def test_look_alike_texts_both_ways():
    t = walk(h=4, w=4, heads=2, dim=8, seed=42, input="normal")
    note = render(t, "md", t.config["lang"])
    paras = "\n\n".join(x.replace("⟦", "$$\n\\begin{bmatrix}").replace("⟧", "\\end{bmatrix}\n$$")
                        .replace(" ⏎ ", " \\\\\n") for x in LOOK_ALIKES)
    cells = _table([x.replace("\n", " ") for x in LOOK_ALIKES if "⟦" not in x and "|" not in x])
    got = both(note + "\n\n" + paras + "\n\n" + cells)
    assert sum(r[2] == "wrong" for r in got) >= 3  # 0.06, 0.5, the planted ratios: judged, both ways


MATRIX_FORMS = [
    "$$\nO[:,0,:,:] =\n\\begin{bmatrix}\n1 & 2 \\\\\n3 & 4 \\\\\n\\end{bmatrix}\n$$",  # wrong shape
    "$$\nA_0 =\n\\begin{bmatrix}\n0.0623 & -0.0626 \\\\\n\\end{bmatrix}\n$$",  # a row of a bigger matrix
    "$$\nA_0 =\n\\begin{bmatrix}\n0.0623 & \\cdots & 0.0631 \\\\\n\\end{bmatrix}\n$$",  # an elision: no plain body
    "$$\nA_0 =\n\\begin{bmatrix}\n0.1 -0.2 \\\\\n\\end{bmatrix}\n$$",  # "1 -2": a difference, not two cells
    "$$\nA_0 \\approx\n\\begin{bmatrix}\n0.0623 \\\\\n\\end{bmatrix}\n,\\quad\nB =\n\\begin{bmatrix}\n1\\\\\n"
    "\\end{bmatrix}\n$$",
    "$$\nP =\n\\begin{bmatrix}\n0.1 & 0.2 \\\\\n\\end{bmatrix}\n$$",  # a binding, not a label
    "$$\nS_0 =\n\\begin{bmatrix}\n\\end{bmatrix}\n$$", "$$\nS_0 = S_1 =\n\\begin{bmatrix}\n1 \\\\\n\\end{bmatrix}\n$$",
]


def test_matrix_paragraphs_near_the_shape_both_ways():
    t = walk(h=2, w=2, heads=1, dim=2, seed=3)
    note = render(t, "md", t.config["lang"])
    caption = "Hàng 0 của $A_0$:\n\n$$\nA_0 =\n\\begin{bmatrix}\n0.0623 & -0.0626 \\\\\n\\end{bmatrix}\n$$\n"
    both(note + "\n\n" + "\n\n".join(MATRIX_FORMS) + "\nMa trận chú ý:\n\n" + MATRIX_FORMS[1] + "\n\n" + caption)


def test_a_chain_that_raises_goes_on_as_the_walk_does():
    """A chain of the fast path that raises (as ``_text`` catches it: ValueError, ArithmeticError, ...) hands the
    rest of the text to the token walk from the token after that label, with the atoms already read spent."""
    t = walk(h=3, w=3, heads=2, dim=4, seed=1)
    note = render(t, "md", t.config["lang"])
    with raising("_check_plain", ("W_pe[1]", "X[:,2")):
        got = both(note)
    assert got != records(note)  # the planted error changed something, the same way on both paths


@contextmanager
def raising(name: str, labels: tuple[str, ...]):
    """``Checker.<name>(ref, ...)`` raising a planted ValueError for the labels starting with ``labels``."""
    saved = getattr(checker.Checker, name)

    def flaky(self, ref, *args):
        if ref.text.startswith(labels):
            raise ValueError("planted")
        return saved(self, ref, *args)

    setattr(checker.Checker, name, flaky)
    try:
        yield
    finally:
        setattr(checker.Checker, name, saved)


@contextmanager
def counting(name: str):
    """The answers of ``Checker.<name>`` (a fast path) while the block runs."""
    calls: list = []
    saved = getattr(checker.Checker, name)

    def counted(self, nt):
        out = saved(self, nt)
        calls.append(out)
        return out

    setattr(checker.Checker, name, counted)
    try:
        yield calls
    finally:
        setattr(checker.Checker, name, saved)


@pytest.mark.parametrize("opts", NOTES, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_dot_lines_same_records_with_planted_numbers(opts):
    """Every note kind (yolo's conv channels, scores and weighted sums of V; sdpa's and mha's scores and
    outputs): the code texts of worked dot products read without tokens, the same records as the walk's,
    with wrong factors, partial results and results planted."""
    t = walk(**opts)
    note = render(t, "md", t.config["lang"])
    with counting("_dot_lines") as calls:
        both(note)
    if t.config.get("variant", "yolo") == "yolo":
        assert calls.count(True) >= 2  # the fast path is taken (the conv channel and O blocks at least)
    for seed in range(4):
        got = both(_planted(note, random.Random(100 + seed), 8 + 16 * seed))
        assert any(r[2] == "wrong" for r in got)


# Code texts near ``_dot_lines``'s shape: each either read by it or left to the walk, the same records either way.
DOT_LOOK_ALIKES = [
    "S_0[0, 1] = (0.09606147)(0.02789059) + (0.00288159)(-0.00120681) = 0.00267573",
    "S_0[0, 1] = (0.09606147)(0.02789059) + (0.00288159)(-0.00120681) = 0.00267574",
    "S_0[0, 1] = (0.09606147) (0.02789059) + (0.00288159)(-0.00120681) = 0.00267573",
    "S_0[0, 1] = (0.09606147)(0.02789059) + (0.00288159)(- 0.00120681) = 0.00267573",
    "S_0[0, 1] = (0.09606147)(0.02789059)\n          + (0.00288159)(-0.00120681)\n          = 0.00267573",
    "S_0[0, 1] = (0.09606147)(0.02789059)\n          +(0.00288159)(-0.00120681)\n          = 0.00267573",
    "S_0[0, 1] = (0.09606147)(0.02789059) +\n(0.00288159)(-0.00120681) = 0.00267573",
    "S_0[0, 1] = (0.09606147)(0.02789059)\n\n          + (0.00288159)(-0.00120681)\n\n= 0.00267573",
    "S_0[0, 1] = (0.09606147)(0.02789059) - (0.00288159)(0.00120681) = 0.00267573",
    "S_0[0, 1] = (0.09606147)(0.02789059) + (0.00288159)(-0.00120681) = 0.00267573 (rounded)",
    "S_0[0, 1] = (0.09606147)(0.02789059) + (0.00288159)(-0.00120681) = 0.00267573…",
    "S_0[0, 1] = (0.09606147)(0.02789059) + (0.00288159)(-0.00120681) = 2.67573e-3",
    "S_0[0, 1] = (0.09606147)(0.02789059) + (0.00288159)(-0.00120681) ≈ 0.0027",
    "S_0[0, 1] == (0.09606147)(0.02789059) + (0.00288159)(-0.00120681) = 0.00267573",
    "S_0[0, 1] = (0.09606147)(0.02789059) + (0.00288159)(-0.00120681) = -0.00267573",
    "S_0[0, 1] = (0.09606147)(0.02789059) + (0.00288159)(-0.00120681) = 0.00267573\n= 0.0027",
    "S_0[0, 1] = (0.09606147)(0.02789059) + (0.00288159)(-0.00120681)",
    "S_0[0, 1] = (0.09606147)(0.02789059) = 0.00267573",
    "S_0[0, 1] = (0.09606147)(0.02789059)(2) + (0.00288159)(-0.00120681) = 0.00267573",
    "S_0[0, 1]=(0.09606147)(0.02789059)+(0.00288159)(-0.00120681)=0.00267573",
    "S_0[0, 1] = (0.09606147)(0.02789059) + (0.00288159)(-0.00120681) = 0.00267573\nS_0[0, 2] = 1",
    "S_0[0, 1] = (0.09606147)(0.02789059) + (0.00288159)(-0.00120681) = 0.00267573\n...",
    "x S_0[0, 1] = (0.09606147)(0.02789059) + (0.00288159)(-0.00120681) = 0.00267573",
    "S_0[0, 1] = (0.0960)(0.0279) + (0.0029)(-0.0012) = 0.0027\nO_0[0, 0] = (0.5)(0.5) + (0.5)(0.5) = 0.5",
    "O_0[0, 0] = (0.06233123)(-0.04385388) + (0.06257049)(0.00618536) = -0.0065",
    "N = (1)(2) + (3)(4) = 14", "exp = (1)(2) + (3)(4) = 14", "Head 0 = (1)(2) + (3)(4) = 14",
    "m = (1)(2) + (3)(4) = 14", "Z = (1)(2) + (3)(4) = 14", "(1)(2) + (3)(4) = 14",
    "S_0[0, 1] = (1e-2)(2) + (3)(4) = 12.02", "S_0[0, 1] = (1…)(2) + (3)(4) = 14",
]


def test_dot_lines_look_alikes_both_ways():
    t = walk(h=4, w=4, heads=2, dim=8, seed=42, input="normal")
    note = render(t, "md", t.config["lang"])
    blocks = "\n\n".join(f"```\n{x}\n```" for x in DOT_LOOK_ALIKES)
    with counting("_dot_lines") as calls:
        got = both(note + "\n\n" + blocks + "\n")
    assert calls.count(True) >= 8  # the note's own and the look-alikes of the exact shape
    assert any(r[2] == "wrong" for r in got)  # the planted 0.00267574: judged, both ways


def test_a_dot_line_that_raises_goes_on_as_the_walk_does():
    """A dot statement whose chain raises hands the rest of the code text to the token walk from the token after
    its label, with the atoms already read spent (as ``_labelled_values`` does)."""
    t = walk(h=3, w=3, heads=2, dim=4, seed=1)
    note = render(t, "md", t.config["lang"])
    with raising("_dot_sums", ("O_0[1", "QKV[:,0")), counting("_dot_lines") as calls:
        got = both(note)
    assert any(type(c) is tuple for c in calls)  # the fast path met the planted error
    assert got != records(note)  # the planted error changed something, the same way on both paths


@pytest.mark.parametrize("opts", NOTES, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_pixel_channel_is_the_loop_it_replaces(opts):
    """``TraceView.pixel_channel(name, d, n, h)`` (a dot product's second vector, read at once) holds exactly
    ``[pixel_vec(name, j, h)[d] for j in range(n)]`` wherever that loop gives n values, and fewer values or the same
    error where it raises (``_dot_vectors`` gives up either way)."""
    import numpy as np

    from attnwalk.check.labels import TraceView

    t = walk(**opts)
    v = TraceView(t, True)
    tried = 0
    for name in ("x", "q", "k", "v", "o"):
        if name not in t:
            continue
        for h in range(3):
            for d in range(6):
                for n in (1, 2, 5, 9, 16, 40):
                    try:
                        want = np.array([v.pixel_vec(name, j, h)[d] for j in range(n)], dtype=float)
                    except (KeyError, IndexError, TypeError):
                        want = None
                    try:
                        got = v.pixel_channel(name, d, n, h)
                    except (KeyError, IndexError, TypeError):
                        got = None
                    if want is not None:
                        tried += 1
                        assert got is not None and got.dtype == want.dtype and np.array_equal(got, want)
                    else:
                        assert got is None or len(got) < n
    assert tried >= 20


def test_dot_lines_long_statements_both_ways():
    """A dot statement of thousands of terms (its sum a tree as deep: the worked-sum readers raise RecursionError
    on it) and one continued over as many lines: the same records as the walk's, read or handed back."""
    t = walk(h=3, w=3, heads=2, dim=4, seed=1)
    note = render(t, "md", t.config["lang"])
    for n in (3, 1500):
        one = "O_0[0, 0] = " + " + ".join("(0.1)(-0.2)" for _ in range(n)) + " = 0.5\nO_0[0, 1] = (0.1)(0.2) = 0.02"
        lines = "S_0[0, 1] = " + "\n  + ".join("(0.1)(-0.2)" for _ in range(n)) + "\n  = -0.06"
        with counting("_dot_lines") as calls:
            both(note + f"\n\n```\n{one}\n```\n\n```\n{lines}\n```\n")
        assert len(calls) >= 2


# ---------------------------------------------------------------- round 6: the token walk's words passed over first


@contextmanager
def walk_every_token():
    """``checker.SKIP_WORDS`` off (the other fast paths on): the token walk tests each token in turn."""
    saved = checker.SKIP_WORDS
    checker.SKIP_WORDS = False
    try:
        yield
    finally:
        checker.SKIP_WORDS = saved


def both_walks(text: str, options: dict | None = None) -> list:
    got = records(text, options)
    with walk_every_token():
        want = records(text, options)
    assert got == want
    return got


# Prose around the words the walk must not pass over: functions, constants, the config's symbols, items, bound
# matrices, labels in words' clothing, and words that only look like them
PROSE = [
    "Ở đây exp(0.5) ≈ 1.6487 và max là 0.0633, e ≈ 2.7183, scale = 1/√2 ≈ 0.7071, dim = 8 nên N = 16.",
    "Head 0: trọng số lớn nhất là A_0[14, 2] = 0.0633, Head 1: A_1[12, 15] = 0.0632 (so với 1 / 16 ≈ 0.0625).",
    "Dim 1: [0.1, 0.2] và P = ⟦ 0.1 & 0.2 ⏎ 0.3 & 0.4 ⟧ rồi P ≈ 0.5; sqrt(4) = 2, int(4 * 0.5) = 2.",
    "Exp(1) = 2.7183, EXP = 3, expo = 1, maxima = 2, e2 = 3, π ≈ 3.1416, pi ≈ 3.14, inf = 0, ∞ = 1.",
    "key_dim = int(head_dim * attn_ratio) = int(4 * 0.5) = 2, head_dim = dim // num_heads = 8 // 2 = 4.",
    "Trọng số A_0[0, 15] / A_0[0, 2] ≈ 1.018 và A_0[0, 15] = 0.0631; ratio = 1.018 (x = 0.0631).",
    "softmax(dim=-1) = 0.5, chunk(3, dim=-1) = 1; tổng = 15.847 và sum = 1.0000, total: 2.",
]


def _walk_is_every_token(note: str, per: int) -> None:
    """The note's records, and those of two copies with ``per`` and ``2 * per`` wrong numbers planted, are the
    records of ``_at`` asked at every token; each has numbers verified, each planted copy numbers wrong."""
    for k in range(3):
        text = note if k == 0 else _planted(note, random.Random(k), per * k)
        got = records(text)
        with every_token_asked():
            want = records(text)
        assert got == want
        assert any(r[2] == "verified" for r in got)
        if k:
            assert any(r[2] == "wrong" for r in got)


@pytest.mark.parametrize("opts", NOTES[:4], ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_skip_words_same_records_with_planted_numbers(opts):
    t = walk(**opts)
    note = render(t, "md", t.config["lang"]) + "\n\n" + "\n\n".join(
        x.replace("⟦", "$$\n\\begin{bmatrix}").replace("⟧", "\\end{bmatrix}\n$$").replace(" ⏎ ", " \\\\\n")
        for x in PROSE)
    memo = []
    saved = checker.Checker.run

    def run(self, segs):
        out = saved(self, segs)
        memo.append(dict(self.skip_memo))
        return out

    checker.Checker.run = run
    try:
        got = records(note)
        with walk_every_token():
            records(note)
    finally:
        checker.Checker.run = saved
    # the shortcut is taken (words found passed over, functions and labels not), and only when switched on
    assert sum(memo[0].values()) > 100 and memo[0][("ident", "exp")] is False and memo[0][("ident", "A_0")] is False
    assert memo[1] == {}
    assert both_walks(note) == got
    assert any(r[2] == "verified" for r in got)
    for seed in range(3):
        got = both_walks(_planted(note, random.Random(seed), 6 + 15 * seed))
        assert any(r[2] == "wrong" for r in got)


def test_skip_words_a_claim_that_raises_goes_on_as_the_walk_does():
    """A claim whose check raises inside ``_at`` (caught by ``_text``): the walk goes on from the next token, both
    ways, and the tokens a claim read are not asked again."""
    t = walk(h=4, w=4, heads=2, dim=8, seed=42, input="normal")
    note = render(t, "md", t.config["lang"]) + "\n\n" + "\n\n".join(PROSE)
    with raising("_check_value", ("A_0[14", "A_1[12", "A_0[0, 15]")):
        got = both_walks(note)
    assert got != records(note)  # the planted error changed something, the same way both ways


def test_skip_words_hand_written_notes_unchanged():
    """A hand-written note (not strict: no words passed over by their first character) reads the same either way,
    as do the real notes' planted copies."""
    from pathlib import Path

    from attnwalk.scenario import load_scenario

    root = Path(__file__).resolve().parent / "corpus" / "real"
    paths = sorted(root.glob("*.md"))
    assert len(paths) >= 10
    for k, p in enumerate(paths):
        text = p.read_text(encoding="utf-8")
        opts = load_scenario(str(p.with_suffix(".toml")))
        both_walks(text, dict(opts))
        both_walks(_planted("\n---\n" + text, random.Random(k), 4)[5:], dict(opts))  # (no front matter)


def test_lines_of_is_bisect_right():
    """``check._lines_of`` (the merge's line of each number, by NumPy's search) is ``bisect_right`` over the line
    starts: offsets at a line's start, on a newline, past the end, none at all, and those of a real note."""
    from bisect import bisect_right
    from pathlib import Path

    from attnwalk.check import _lines_of, human

    rng = random.Random(3)
    for _ in range(300):
        text = "".join(rng.choice(["\n", "a", "1.5", " ", "\n\n"]) for _ in range(rng.randint(0, 60)))
        starts = human._line_starts(text)
        offsets = sorted(rng.randint(0, len(text) + 2) for _ in range(rng.randint(0, 20)))
        assert _lines_of(starts, offsets) == [bisect_right(starts, at) for at in offsets]
    note = (Path(__file__).resolve().parent / "corpus" / "real").glob("*.md").__next__().read_text(encoding="utf-8")
    starts, offsets = human._line_starts(note), human._numbers(note)[0]
    got = _lines_of(starts, offsets)
    assert got == [bisect_right(starts, at) for at in offsets] and all(type(x) is int for x in got)


@contextmanager
def every_token_asked():
    """No word of prose passed over at all (``Checker.active`` None): ``_at`` asked at every token, the reference
    of both shortcuts that pass words over (by their first character, and ``SKIP_WORDS``'s memo of them)."""
    saved = checker.Checker.__init__

    def init(self, *args, **kwargs):
        saved(self, *args, **kwargs)
        self.active = None

    checker.Checker.__init__ = init
    try:
        yield
    finally:
        checker.Checker.__init__ = saved


# Worked-softmax context words (``_ctx_label``: m, m_i, tổng, sum, total, out_c<n>) among prose words that only
# start like them (mức, số, tổngx, summary, totals, m_ij, mass, out_cx, expo), after a row is named (Hàng / Row)
CONTEXT_PROSE = [
    "Hàng 3: m = 0.0104 rồi mức m_i = 0.0104, m_ij = 2, mass = 3; tổng = 15.8473 và tổngx = 1, số sum = 15.8473,"
    " summary = 2, total: 15.8473, total = 15.8473, totals = 4, out_c0 = 0.0123, out_cx = 1, expo = 2, exp = 1.",
    "Row 2: Tổng ≈ 15.85 and Sum = 15.847, Total = 15.8, m = max = 0.0104, sum_j = 1, o = 2, e = 3, s = 4, t = 5.",
    "Kiểm tra: tổng = 1.0000; Check: sum ≈ 1 và Hàng 0 của S_0: [0.1, 0.2] nên m = 0.2, trọng số tổng = 1.",
    "Ultralytics B = ⟦ 0.1 & 0.2 ⏎ 0.3 & 0.4 ⟧, PX = ⟦ 0.1 & 0.2 ⟧, Pa = ⟦ 1 ⟧ and Z= ⟦ 0.5 ⟧; Conv2d = 2, BN = 1.",
]


@pytest.mark.parametrize("opts", NOTES[:4], ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_words_passed_over_are_words_that_start_nothing(opts):
    """The walk passes over the words ``Checker._starts_nothing`` names (a context word is a whole token, so the
    prose words that merely start like one are passed over too): the records of ``_at`` asked at every token, with
    the config's symbols, context words and their look-alikes, and planted wrong numbers."""
    t = walk(**opts)
    note = render(t, "md", t.config["lang"]) + "\n\n" + "\n\n".join(PROSE + CONTEXT_PROSE) + "\n\n```\n" + \
        "\n".join(CONTEXT_PROSE) + "\n```\n"
    _walk_is_every_token(note, per=8)


@pytest.mark.parametrize("lang", ["en", "vi"])
def test_words_passed_over_with_output_columns(lang):
    """``out_c2`` names an output column where the config has ``v_cols`` (the hand-2x2 course note): a context word
    by its prefix, never passed over; the records of ``_at`` asked at every token, with planted wrong numbers."""
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "examples" / "notes" / f"hand-2x2.{lang}.md"
    note = path.read_text(encoding="utf-8") + "\n\nRow 1: out_c2 = 0.5, out_c3 = 2, out_c9 = 1, out_cx = 1, m = 1.\n"
    _walk_is_every_token(note, per=6)
