"""``expr.normalize`` (issue 12, part 4, round 6) finds a long text's LaTeX commands in one scan instead of one
substring test per trigger, and a text without a backslash runs only the substitutions that need none. Both are
shortcuts past substitutions that cannot match, so the result must be every substitution of ``expr._SUBS`` applied
in order, with no shortcut at all: compared on every text of the notes we ship and test, and on random texts made
of the triggers' pieces (joins included: a removal that brings a backslash next to new letters)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from attnwalk.check import expr
from attnwalk.check.source import segments

ROOT = Path(__file__).resolve().parent.parent


def reference(text: str) -> str:
    """Every substitution, in order, on every text: what the triggers only ever skip where nothing matches (after
    the rows of an ``aligned`` block are read as continuing relations: ``expr._aligned_rows``)."""
    out = expr._aligned_rows(text) if "&" in text and expr._ALIGN_ENV.search(text) else text
    for pat, rep, _ in expr._SUBS:
        out = pat.sub(rep, out)
    assert out.count("\n") == text.count("\n")
    return out


def outcome(fn, text: str) -> str:
    try:
        return fn(text)
    except AssertionError:  # a substitution took a newline (``\hat\nS``): both must refuse it
        return "<AssertionError>"


def note_texts():
    paths = sorted((ROOT / "examples").rglob("*.md")) + sorted((ROOT / "tests" / "corpus").rglob("*.md"))
    assert len(paths) > 50
    for p in paths:
        text = p.read_text(encoding="utf-8")
        yield text
        yield from (s.text for s in segments(text) if s.text)


def test_normalize_is_every_substitution_on_real_texts():
    n = long = 0
    for text in note_texts():
        assert outcome(expr.normalize, text) == outcome(reference, text)
        n += 1
        long += "\\" in text and len(text) >= expr._SCAN_FROM
    assert n > 1000 and long > 100  # both ways of finding the triggers were taken


PIECES = [t for _, _, trigger in expr._SUBS for t in trigger] + [
    "{", "}", "{S}", " S", "S", " ", "\n", "x", "a", "Z", "1", "-0.25", "&", "\\", "te", "xt", "\\te", "{x}",
    "_{1}", "\\text{", "\\text{}", "\\text{\\te}", "bmatrix}", "{bmatrix}", "ig", "g", "(", ")", "quad", "\\q", "⏎"]


@pytest.mark.parametrize("seed", range(4))
def test_normalize_is_every_substitution_on_random_texts(seed):
    rng = random.Random(seed)
    for _ in range(20_000):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 14)))
        if rng.random() < 0.3:  # past _SCAN_FROM: the one-scan path
            text = text + "0.1234 & " * (expr._SCAN_FROM // 8) + "".join(rng.choice(PIECES) for _ in range(8))
        assert outcome(expr.normalize, text) == outcome(reference, text), repr(text)


def test_joined_command_is_found_again():
    """``\\\\text{}pi``: removing ``\\text{}`` makes ``\\pi`` of what is left, which a later substitution reads;
    a long text finds it as the short path does."""
    pad = " " * expr._SCAN_FROM
    assert expr.normalize("\\\\text{}pi 1" + pad) == "π 1" + pad
    for text in ("\\te\\text{}xt{y}" + pad, "\\\\big" + "\\bigB" + "ig \\frac{1}{2}" + pad, "\\hat\nS" + pad):
        assert outcome(expr.normalize, text) == outcome(reference, text)
