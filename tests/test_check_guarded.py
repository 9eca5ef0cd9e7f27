"""Readers of hand-written notation run guarded: a reader that raises (a bug in attnwalk, never the note's
fault) loses only its own verdicts, and the report says so in a note. heldout5's ``V₀`` once made one
reader raise, and the whole note silently lost every hand-written verdict."""

from __future__ import annotations

from pathlib import Path

import pytest

from attnwalk.check import check_file, forms, human
from attnwalk.scenario import load_scenario

ROOT = Path(__file__).resolve().parent.parent
FAILED = "a reader of hand-written notation failed"
SEED_OPTS = dict(h=3, w=3, heads=2, seed=42, pe_on="o")


def _notes() -> list[tuple[Path, dict | None]]:
    out: list[tuple[Path, dict | None]] = [(p, None) for p in sorted((ROOT / "examples/notes").glob("*.md"))]
    hand2 = load_scenario(ROOT / "examples/scenarios/hand-2x2.toml")
    out += [(p, hand2 if p.name.startswith("004_") else SEED_OPTS)
            for p in sorted((ROOT / "examples/handwritten").glob("*.md"))]
    out += [(p, load_scenario(p.with_suffix(".toml"))) for p in sorted((ROOT / "tests/corpus").rglob("*.md"))
            if p.with_suffix(".toml").exists()]
    return out


def _verdicts(report) -> list[tuple]:
    return [(r.line, r.text, r.status, tuple(str(c[1]) for c in r.checks)) for r in report.recs]


def test_no_reader_fails_on_any_note_we_have():
    """Every note of the course, the hand-written seeds and every corpus note (real and held out) is read
    without a reader raising: such a failure only shows as numbers left unread, so it is asserted here."""
    notes = _notes()
    assert len(notes) >= 90
    failures = [f"{p.relative_to(ROOT)}: {text}" for p, opts in notes
                for _, text in check_file(p, opts).notes if FAILED in text]
    assert failures == []


NOTE = ROOT / "tests/corpus/heldout5/de_notebook_causal_mask_pandas.md"


def _boom(*args):
    raise ValueError("planted")


def _adds_then_raises(text, trace, hits, foreign):
    hits[next(iter(hits))] = None  # overwrite a verdict another reader gave, add one, then fail: both undone
    hits[-1] = None
    raise IndexError("planted")


@pytest.mark.parametrize("bad", [_boom, _adds_then_raises])
def test_a_failing_reader_loses_only_its_own_verdicts(monkeypatch, bad):
    opts = load_scenario(NOTE.with_suffix(".toml"))
    before = check_file(NOTE, opts)
    assert before.verified and not [t for _, t in before.notes if FAILED in t]
    monkeypatch.setattr(forms, "AFTER_FORMS", [forms.AFTER_FORMS[0], bad, *forms.AFTER_FORMS[1:]])
    after = check_file(NOTE, opts)
    assert _verdicts(after) == _verdicts(before)
    said = [t for _, t in after.notes if FAILED in t]
    assert len(said) == 1 and bad.__name__ in said[0] and "planted" in said[0]


def test_a_failing_block_reader_keeps_the_forms_verdicts(monkeypatch):
    """The matrices and lists stage raising: the forms after it still judge what they read (this note's
    weights as coefficients of its values, among others)."""
    note = ROOT / "tests/corpus/heldout2/zh_illustrated_self_attention_rounded.md"
    text, trace = note.read_text(encoding="utf-8"), _trace(load_scenario(note.with_suffix(".toml")))
    every = human.find(text, trace)
    monkeypatch.setattr(human, "_blocks_and_lists", _boom)
    failed: list[str] = []
    hits = human.find(text, trace, failed)
    assert failed == ["_boom: ValueError: planted"]
    assert 0 < len(hits) < len(every)


def _trace(opts):
    from attnwalk.api import walk

    return walk(**opts)
