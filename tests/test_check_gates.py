"""The gates of the hand-written forms are conservative (issue 12, item 4): a gated form's verdicts are the form's own.

``check.gates`` skips a form where its gate says its trigger is absent. Checked three ways: (1) the character classes
behind the gates cover every letter ``re.IGNORECASE`` folds onto a word's letter (all of Unicode); (2) on random
texts of the forms' pieces (words in every case, folded letters, vectors, tabs, line breaks), a gate that says no
means the form's own patterns match nowhere; (3) ``human.find`` gives the same verdicts with the gates and without
them on every note we ship and test (the held-out corpus too), on planted copies, and on texts that mix two notes'
lines.
"""

from __future__ import annotations

import random
import re
import sys

import pytest
from test_check_forms_speed import NOTES, planted

import attnwalk.check as C
from attnwalk.check import forms, gates, human, notations, numbered_rows, sum_columns
from attnwalk.check.forms import AFTER_FORMS
from attnwalk.notation import NUMBERED_ROW_WORDS


def test_every_gated_form_is_registered():
    assert {numbered_rows.numbered_rows, notations.named_output_rows, sum_columns.sum_column_tables} <= set(gates.GATES)
    assert set(gates.GATES) <= set(AFTER_FORMS) | set(forms.BLOCK_FORMS)


@pytest.mark.parametrize("words", [NUMBERED_ROW_WORDS, notations._OUTPUT_WORDS])
def test_the_lowered_note_finds_every_case_insensitive_word(words):
    """Every character re's IGNORECASE matches with a letter of ``words`` is either lowered by ``str.lower`` onto
    that letter, or one ``words_before_digit`` refuses to answer for (a note holding it opens the gate)."""
    letters = {c for w in words for c in w.lower()}
    rx = re.compile("(?i)[" + re.escape("".join(sorted(letters))) + "]")
    odd = set(gates._odd(tuple(words)))
    for x in map(chr, range(sys.maxunicode + 1)):
        if rx.fullmatch(x) is not None:
            assert len(x.lower()) != 1 or x.lower() in letters or x in odd, hex(ord(x))


ROW_PARTS = ["token", "Token", "TOKEN", "toKen", "word", "WORD", "query", "Query", "position", "Position", "từ", "Từ",
             "TỪ", "vị trí", "Vị Trí", "VỊ TRÍ", "output", "Output", "OUTPUT", "đầu ra", "Đầu ra", "ĐẦU RA", "kết quả",
             "Kết Quả", "输出", "ſ", "ı", "İ", "K", "s", "head", " ", " ", "\t", "\n", "0", "2", "3", "١", ".", "'s",
             "’s", " is ", " = ", ": ", "≈", " là ", " of ", " for ", " của ", "the ", "[", "]", "(", ")", ", ", ";",
             "1.5", "-0.25", "x", "$"]


def _texts(n: int, seed: int) -> list[str]:
    rnd = random.Random(seed)
    return ["".join(rnd.choice(ROW_PARTS) for _ in range(rnd.randint(0, 30))) for _ in range(n)]


def test_a_closed_gate_means_no_match_of_the_forms_patterns():
    closed = {"rows": 0, "outputs": 0}
    shapes = ["Token 3's output is (0.599, 0.802)", "the output for token 2 is [1.14, 1.0, 0.5]",
              "đầu ra của TỪ 2 là [1, 2]", "WORD\t1 = (1; 2)", "output 2", "OUTPUT3", "Kết quả 1", "输出 1", "İtem 2",
              "the output for poſition 1 is [1, 2]", "position 10 is [1, 2]\nposition 1", "đầu ra 0"]
    for text in _texts(30000, 3) + shapes:
        text = (text + "\n")[:-1]  # a fresh object: the per-text scans are the text's own
        if not numbered_rows.may_match(text):
            closed["rows"] += 1
            assert not any(rx.search(text) for rx in numbered_rows._FORMS), text
        if not notations.named_output_rows_gate(text):
            closed["outputs"] += 1
            assert notations._OUTPUT_N.search(text) is None, text
    assert min(closed.values()) > 1000  # (the gates do close on most random texts)


_CAPTURED: dict = {}


def _bodies() -> list[tuple[str, str, object]]:
    """(name, body, trace) of every note as ``human.find`` is asked about it in a check."""
    if not _CAPTURED:
        find = human.find

        current = [""]

        def capture(body, trace, failed=None):
            _CAPTURED[current[0]] = (body, trace)
            return find(body, trace, failed)

        human.find = capture
        try:
            for current[0], text, opts in NOTES:
                C.check_text(text, opts)
        finally:
            human.find = find
    return [(name, *_CAPTURED[name]) for name, _, _ in NOTES if name in _CAPTURED]


def _verdicts(body: str, trace, on: bool) -> tuple:
    gates.ON = on
    try:
        body = (body + "\n")[:-1]  # a fresh object: no scan of the other run reused
        failed: list[str] = []
        hits = human.find(body, trace, failed)
    finally:
        gates.ON = True
    return sorted((k, h.line, h.text, h.ok, str(h.label), str(h.expected), h.fix) for k, h in hits.items()), failed


def _alone(form, text: str, trace) -> list:
    """The verdicts ``form`` gives alone, where no other reader judged a number (the most it can add); for a block
    form, the offsets and labels of its blocks."""
    if form in forms.BLOCK_FORMS:
        return sorted((b.start, str(b.label), [c.start for r in b.rows for c in r])
                      for b in getattr(form, "__wrapped__", form)(text))
    hits: dict = {}
    form(text, trace, hits, forms.foreign_sections(text, trace))
    return sorted(hits)


def _same_alone(text: str, trace, found: set) -> None:
    """Each gated form, run alone on ``text``, finds nothing where its gate is closed."""
    for form, test in gates.GATES.items():
        got = _alone(form, text, trace)
        if got:
            found.add(form.__name__)
        if not test((text + "\n")[:-1]):
            assert got == [], form.__name__


def test_the_gated_forms_judge_every_note_as_without_gates():
    opened, closed, found = set(), set(), set()
    for name, body, trace in _bodies():
        for k in range(2):
            text = body if k == 0 else planted(body, k)
            assert _verdicts(text, trace, True) == _verdicts(text, trace, False), name
            _same_alone(text, trace, found)
            for form, test in gates.GATES.items():
                (opened if test(text) else closed).add(form.__name__)
    # each gate both opens and closes on our notes, and each form alone finds numbers in some of them
    assert opened == closed == found == {f.__name__ for f in gates.GATES}


def test_the_gated_forms_judge_mixed_notes_as_without_gates():
    """Two notes' lines interleaved (a form's trigger from one, its numbers from the other), read with the first's
    trace."""
    notes = _bodies()
    rnd = random.Random(5)
    for _ in range(120):
        (_, a, trace), (_, b, _) = rnd.sample(notes, 2)
        la, lb = a.split("\n"), b.split("\n")
        mixed = []
        while la or lb:
            src = la if la and (not lb or rnd.random() < 0.5) else lb
            n = rnd.randint(1, 6)
            mixed.extend(src[:n])
            del src[:n]
        text = "\n".join(mixed)
        assert _verdicts(text, trace, True) == _verdicts(text, trace, False)
        _same_alone(text, trace, set())
