"""The reader's shortcuts of issue 12 (part 4, round 3) give what the general paths give, record for record.

* ``Parser._plain_item``: a list item that is one printed number is made without ``expr``'s five calls;
  the trees, the next token and the atoms left must be those of the general parser (budgets included).
* ``Checker._text`` reads a strict note's text without a relation (=, ≈, :) without tokens.
* ``_number_cell``: a table cell that is one printed number becomes its node without tokens.
* ``_near_passes`` / ``_new_passes``: matrices and lists whose cells pass (clearly, or a hair from the
  boundary, or at 16 decimals) are recorded in bulk.

Each shortcut can be switched off (``general``); a note with planted wrong numbers, numbers at the
rounding boundary (0.12345 printed at 4 decimals), negative zero and truncated numbers must give the
same records (line, text, status, labels, expected values, fixes) both ways.
"""

from __future__ import annotations

import random
import re
from contextlib import contextmanager

import pytest
from conftest import record_fields

from attnwalk.api import walk
from attnwalk.check import check_text, checker, expr
from attnwalk.check.expr import parse_chain, tokenize
from attnwalk.render import render


@contextmanager
def general():
    """Every shortcut off: lists parsed item by item, relation-free texts tokenized, cells that
    ``close_many`` does not pass clearly compared one by one, passes recorded one by one."""
    saved = (expr.Parser._plain_item, checker._REL_CHAR, checker._near_passes, checker._new_passes,
             checker._number_cell)
    expr.Parser._plain_item = lambda self, close: None
    checker._number_cell = lambda cell: None
    checker._REL_CHAR = re.compile(r"(?s).|\Z")  # every text "has a relation": the token path

    def passes_one_by_one(recs, keys, lines, signs, texts, decimals, expected, label):
        for key, ln, sign, text, d, e in zip(keys, lines, signs, texts, decimals, expected):
            recs[key] = checker.NumRec(ln, sign + text, [(True, label, checker.Shown(e, d or 0, text, sign))])

    checker._near_passes = lambda ok, *a: None
    checker._new_passes = passes_one_by_one
    try:
        yield
    finally:
        (expr.Parser._plain_item, checker._REL_CHAR, checker._near_passes, checker._new_passes,
         checker._number_cell) = saved


def records(text: str, options: dict | None = None) -> list:
    return record_fields(check_text(text, options))


def _tree(node) -> tuple | None:
    if node is None:
        return None
    num = (node.num.text, node.num.pos, node.num.truncated) if node.num is not None else None
    return (node.kind, node.op, node.name, node.start, node.end, num, tuple(_tree(a) for a in node.args))


ITEMS = ["0.25", "-0.25", "1", "-0", "16.778…", "2.5...", "3e-2", "x", "1 + 2", "-1 - 2", "(0.5)", "[1, 2]",
         "- 3", "\n0.5", "0.5\n", "e", "2e", "√2", "0.5)(0.25", "", " ", "-", "1 2", "0.1234,"]


def _list_texts(rng: random.Random, n: int) -> list[str]:
    out = []
    for _ in range(n):
        op, cl = rng.choice([("[", "]"), ("(", ")"), ("[", ")"), ("(", "]")])
        body = ", ".join(rng.choice(ITEMS) for _ in range(rng.randint(0, 6)))
        out.append(rng.choice(["", "x = ", "S_0[0, :] = ", "f"]) + op + body + rng.choice([cl, cl + " = 1", ""])
                   + rng.choice(["", " ≈ [0.5, -0.25]", ", 3", cl]))
    return out


@pytest.mark.parametrize("budget", [None, 3, 10**6])
def test_plain_items_parse_as_the_general_parser(budget):
    for text in _list_texts(random.Random(5), 1500):
        toks = tokenize(text)
        for i in range(len(toks)):
            b1 = None if budget is None else [budget]
            got = parse_chain(text, list(toks), i, None, frozenset({"x"}), b1)
            with general():
                b2 = None if budget is None else [budget]
                want = parse_chain(text, list(toks), i, None, frozenset({"x"}), b2)
            if want is None or got is None:
                assert got is None and want is None, text
            else:
                assert [_tree(e) for e in got[0]] == [_tree(e) for e in want[0]], text
                assert got[1:] == want[1:], text
            assert b1 == b2, text


def _planted(text: str, rng: random.Random, k: int) -> str:
    """``text`` with k of its decimals off by one in the last digit, and a few turned into boundary cases."""
    nums = [m for m in re.finditer(r"(?<![\w.])-?\d+\.\d+(?![\d.])", text)]
    chars = list(text)
    for m in rng.sample(nums, min(k, len(nums))):
        last = m.end() - 1
        chars[last] = str((int(chars[last]) + rng.choice([1, 9])) % 10)
    return "".join(chars)


NOTES = [dict(h=3, w=3, heads=2, dim=4, seed=1), dict(h=4, w=4, heads=2, dim=8, seed=3, input="normal"),
         dict(variant="sdpa", tokens=4, seed=2), dict(variant="mha", tokens=3, dim=4, heads=2, seed=5),
         dict(h=3, w=3, heads=2, dim=4, seed=7, decimals=6, lang="en")]


@pytest.mark.parametrize("opts", NOTES, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_same_records_with_planted_numbers(opts):
    t = walk(**opts)
    note = render(t, "md", t.config["lang"])
    for seed in range(3):
        text = _planted(note, random.Random(seed), 4 + 6 * seed)
        got = records(text)
        with general():
            want = records(text)
        assert got == want
        assert any(r[2] == "wrong" for r in got) or seed == 0


def test_boundary_cells_and_signs_both_ways():
    """Matrices, lists and prose whose numbers sit at the rounding boundary (0.12345 printed at 4
    decimals), print a negative zero, an input's 16 decimals, or end in an ellipsis."""
    t = walk(h=3, w=3, heads=2, dim=4, seed=1, input="normal")
    base = render(t, "md", t.config["lang"])
    extra = "\n\n".join([
        "$$\nS_0 =\n\\begin{bmatrix}\n0.1235 & -0.0000 & 0.1234 \\\\\n0.12345 & -0.12345 & 0.0 \\\\\n"
        "1 & 2 & 3 \\\\\n\\end{bmatrix}\n$$",
        "```\nŜ_0[0, :] = [0.12345, -0.0000, 16.778…, 2.5..., -0.1234567890123456, 0.5, 0.25, 0.125, 1]\n```",
        "The weights 0.1234 and -0.0000 and 16.778… appear in prose without any relation.",
        "| a | b |\n|---|---|\n| 0.12345 | -0.0000 |\n| 16.778… | 2 |",
        "| pixel | c0 | c1 | c2 | c3 |\n|---|---|---|---|---|\n| p0 | 0.12345 | -0.0000 | 16.778… | - 2 |\n"
        "| p1 | 1e-3 | +0.5 | 0.5... | -0.1234567890123456 |",
    ])
    text = base + "\n\n" + extra + "\n"
    got = records(text)
    with general():
        want = records(text)
    assert got == want
    texts = {r[1] for r in got}
    assert {"0.12345", "-0.0000", "16.778…"} <= texts


def test_relation_free_texts_are_read_only_in_strict_notes():
    """A hand-written note (not strict) keeps the token path for relation-free texts (hand-written
    labels are recorded there), and its records are those of the general path too."""
    text = ("---\nconfig: {variant: sdpa, tokens: 3, seed: 2}\n---\n\n"
            "Here s_12 is 0.5 and α_01 0.25 before anything.\n\ns_12 = 0.5\n\n| x | 0.5 |\n|---|---|\n| y | 1.5 |\n")
    got = records(text)
    with general():
        want = records(text)
    assert got == want


def test_parse_index_is_the_regex_it_replaces():
    """``labels._parse_index`` tests an entry with ``str.isdecimal`` instead of ``re.fullmatch(r"-?\\d+")``:
    the same tuples on every entry of a soup of digits (ASCII and not), signs, blanks and symbols."""
    from attnwalk.check.labels import _parse_index

    def reference(s: str):
        out = []
        for part in s.split(","):
            part = part.strip()
            if part == ":":
                out.append(None)
            elif re.fullmatch(r"-?\d+", part):
                out.append(int(part))
            else:
                return None
        return tuple(out)

    rng = random.Random(12)
    alpha = list("0123456789-:, \t\n") + ["١", "٢", "²", "½", "i", "x", "--", "+", "1.5", "𝟙"]
    for _ in range(20_000):
        s = "".join(rng.choice(alpha) for _ in range(rng.randint(0, 8)))
        assert _parse_index(s) == reference(s), s
