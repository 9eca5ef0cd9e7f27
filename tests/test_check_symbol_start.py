"""``human.symbol_at_word_start``: the class-first regex (a speed form) finds exactly what the lookbehind-first
alternation it replaced finds, on random texts and on every note of the corpus and the course."""

import random
import re
from pathlib import Path

import pytest

from attnwalk.check import column_sums, tuple_rows
from attnwalk.check.human import symbol_at_word_start

ROOT = Path(__file__).resolve().parents[1]
NOTES = sorted((ROOT / "tests" / "corpus").rglob("*.md")) + sorted((ROOT / "examples" / "notes").glob("*.md"))


def _as_it_was(symbols) -> str:
    return r"(?<![\w\\])(?P<sym>" + "|".join(map(re.escape, sorted(symbols))) + ")"


def _pairs():
    """(the module's pattern, the same pattern with its symbol group written as it was)."""
    out = []
    for rx, symbols in ((column_sums._HEAD, column_sums.COLUMN_SUM_SYMBOLS),
                        (tuple_rows._ROW, tuple_rows.TUPLE_ROW_SYMBOLS)):
        head = symbol_at_word_start(symbols)
        assert rx.pattern.startswith(head)  # the modules build their patterns on it
        out.append((rx, re.compile(_as_it_was(symbols) + rx.pattern[len(head):])))
    return out


def _found(rx, text):
    return [(m.span(), m.groupdict()) for m in rx.finditer(text)]


def test_the_class_first_form_finds_what_the_alternation_found_on_random_texts():
    rng = random.Random(7)
    alphabet = list("czeZCEab_\\{}0123 =≈()[],.$\t\n") + ["\\approx", "z_1 = (", "e_{2} ≈ [", "c_3 = ", "\\c", "xz"]
    for _ in range(20000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        for new, old in _pairs():
            assert _found(new, text) == _found(old, text), text


@pytest.mark.parametrize("note", NOTES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_class_first_form_finds_what_the_alternation_found_on_every_note(note):
    text = note.read_text(encoding="utf-8")
    for new, old in _pairs():
        assert _found(new, text) == _found(old, text)


def test_a_symbol_longer_than_one_letter_keeps_the_alternation():
    rx = re.compile(symbol_at_word_start({"z", "ctx"}) + "_1")
    assert [m.group("sym") for m in rx.finditer("ctx_1 z_1 actx_1 \\z_1 z_1")] == ["ctx", "z", "z"]
