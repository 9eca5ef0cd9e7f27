"""Gates of the hand-written forms (issue 12, item 4): a form whose trigger cannot stand in a note is not run.

A gate is a cheap test of a note's text, conservative by construction: it is False only where the form it guards
cannot match (each gate's docstring, next to its form, says why), so a gated form's verdicts are the form's own
(``tests/test_check_gates.py`` compares them with and without the gates). The dispatch (``forms.blocks``,
``forms.after``) asks each gate once per note; its answer is kept with the note's other per-text scans
(``human._per_text``). Most forms look for a shape that our own walkthroughs never print (a row sum stated in prose,
``output 2``, a table with a sum column), and scanning a 70 kB note for it costs 0.1–0.5 ms each.

Most gates are triggers (``check/triggers.py``: a piece of text every match of the form holds, found by a scan led by
a literal character); its docstring says how to give a new form (a block form or a form after the blocks) its gate.
"""

from __future__ import annotations

import re
from functools import cache

ON = True  # the gates are asked (False: every form runs, the reference the equivalence tests compare with)
GATES: dict = {}  # form -> its gate, ``gate(text) -> bool``


def gate(form, test) -> None:
    """Register ``test`` as the gate of ``form`` (called where the form is registered)."""
    GATES[form] = test


def opens(form, text: str) -> bool:
    """Whether ``form`` may match ``text``: its gate's answer, asked once per text; True for a form without one."""
    test = GATES.get(form) or GATES.get(getattr(form, "__wrapped__", None))  # (a wrapper: the benchmark's timers)
    if test is None or not ON:
        return True
    from .human import _per_text

    table = _per_text(text)
    key = ("gate", test)  # (a tuple: no mark of human._offsets)
    got = table.get(key)
    if got is None:
        got = table[key] = bool(test(text))
    return got


def cased(chars) -> str:
    """Every character that ``re.IGNORECASE`` matches with one of ``chars`` (its lower and upper case, and the
    extra folds of re's own table: ``ſ`` for ``s``, ``ı`` for ``i``, the Kelvin sign for ``k``), as a string for a
    character class: a case-insensitive word's last letter, found by a case-sensitive scan."""
    try:
        from re._casefix import _EXTRA_CASES
    except ImportError:  # (an older or other re: tests/test_check_gates.py checks every class against re itself)
        _EXTRA_CASES = {}
    out = set()
    for c in chars:
        out.add(c)
        for v in (c.lower(), c.upper(), c.casefold()):
            if len(v) == 1:
                out.add(v)
                out.update(map(chr, _EXTRA_CASES.get(ord(v), ())))
    return "".join(sorted(out))


@cache
def _odd(words: tuple) -> tuple:
    """The letters ``re.IGNORECASE`` matches with a letter of ``words`` that ``str.lower`` does not lower onto it."""
    letters = {c for w in words for c in w.lower()}
    return tuple(c for c in cased(letters) if len(c.lower()) != 1 or c.lower() not in letters)


def words_before_digit(text: str, words, gap: str):
    """The offsets in ``text`` where one of ``words`` stands in any case (as ``re.IGNORECASE`` matches it) with
    ``gap`` and a digit after it: found by plain searches of the note's lowered copy (``human.lowered``, shared by the
    readers of phrases), not by a case-insensitive regex tried at every character (~2 ms a 70 kB note). None where
    the lowered copy cannot say so: lowering moved offsets, or the note holds a letter that re folds onto a word's
    letter and ``str.lower`` does not (``ſ``, ``ı``, ``İ``)."""
    from .human import lowered

    low = lowered(text)
    if len(low) != len(text) or any(c in text for c in _odd(tuple(words))):
        return None
    after = re.compile(gap + r"\d")
    found = []
    for w in {w.lower() for w in words}:
        if w[:1] not in low:  # (one character, found ~30x faster than a word of two CJK characters: 输 before 输出)
            continue
        at = low.find(w)
        while at >= 0:
            if after.match(text, at + len(w)) is not None:
                found.append(at)
            at = low.find(w, at + 1)
    return sorted(found)
