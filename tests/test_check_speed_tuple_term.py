"""``notations._tuple_term`` finds what ``_TUPLE_TERM.search`` finds (a weight times a value row written as a tuple,
``0.2483\\,(1, 0)``, ``0.5053·(0, 1)``), from each "(" after an operator instead of from each digit of a note
(issue 12, part 4: ~2 ms of the benchmark note's check): the same answer on every note we ship and test, on
written cases at the edges (blanks, thin spaces, a text's first characters) and on random texts of the pattern's
pieces."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from attnwalk.check import notations

ROOT = Path(__file__).resolve().parents[1]


def slow(text: str) -> bool:
    return notations._TUPLE_TERM.search(text) is not None


CASES = [
    ("0.2483\\,(1, 0) + 0.5053·(0, 1)", True), ("2 * (1, 2)", True), ("2*(1,2)", True), ("2\t×\t(1, 2)", True),
    ("2\\cdot (1, 2)", True), ("2 \\times(1,2)", True), ("7\\,  (1, 2)", True), ("2 \\,(1, 2)", False),
    ("x\\times(1,2)", False), ("(1, 2)", False), ("\\,(1,2)", False), ("*(1,2)", False), ("2*(1)", False),
    ("2**(1, 2)", False), ("2 *\\,(1, 2)", False), ("2\\\\,(1, 2)", False), ("a2·(1, 2)", True), ("٣·(1, 2)", True),
    ("²·(1, 2)", False), ("ts(1, 2)", False), ("1,(2, 3)", False), ("2 · (1, 2) and 3·(4)", True),
]


@pytest.mark.parametrize("text,found", CASES)
def test_written_cases(text, found):
    assert slow(text) is found  # the case says what the pattern finds
    assert notations._tuple_term(text) is found


def test_every_note():
    paths = [p for folder in ("examples", "tests/corpus") for p in sorted((ROOT / folder).rglob("*.md"))]
    assert len(paths) > 100
    found = 0
    for p in paths:
        text = p.read_text(encoding="utf-8")
        assert notations._tuple_term(text) == slow(text), p
        found += slow(text)
    assert found  # some notes hold such a product (heldout14's exam and Anki cards)


PIECES = ["0", "1", "25", "0.5", ".", " ", "\t", "  ", "*", "×", "·", "\\cdot", "\\times", "\\,", "\\", ",", "(",
          ")", "(1, 2)", "(0.5,1)", "-", "t", "s", "x", "\n", "٣", "²", "cdo", "time"]


def test_random_texts():
    rng = random.Random(12)
    seen = {True: 0, False: 0}
    for _ in range(30000):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 14)))
        want = slow(text)
        assert notations._tuple_term(text) is want, repr(text)
        seen[want] += 1
    assert seen[True] > 200 and seen[False] > 200  # both answers tested many times
