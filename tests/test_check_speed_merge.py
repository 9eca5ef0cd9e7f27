"""``check._merge_human`` walks only the lines whose numbers differ from the Checker's records there (or hold an
undecided record), the others compared as whole lines (issue 12): its records must be those of the plain merge
(``test_check_forms_speed.ref_merge``: every number walked in Python) on generated notes, records and hits:
lines with and without records, records missing, extra, reordered or undecided, repeated magnitudes, signs
and percentages, hits on any number, program code."""

from __future__ import annotations

import copy
import random

import pytest
from test_check_forms_speed import ref_merge

import attnwalk.check as C
from attnwalk.check import human, source
from attnwalk.check.checker import NumRec

WORDS = ["x", "Head 0:", "=", "≈", "|", "row", "$$", "&", "\\\\", "s_{1}", "W^2", "step 1.", "(", ")", ","]
NUMBERS = ["0.5", "-0.5", "−0.25", "0.25", "1", "2", "12", "50%", "-3", "0.5", "0.125", "1.0", "7"]


def generated(rng: random.Random) -> tuple[str, list[NumRec], dict]:
    lines, recs = [], []
    for _ in range(rng.randint(1, 40)):
        if rng.random() < 0.08:
            lines.append(rng.choice(("```python", "```text")) + "\nx = [0.5, 1]\n```")
            continue
        items = [rng.choice(NUMBERS if rng.random() < 0.6 else WORDS) for _ in range(rng.randint(0, 10))]
        lines.append(" ".join(items))
        line = len("\n".join(lines).split("\n"))
        numbers = [x for x in items if x in NUMBERS]
        mode = rng.random()
        if mode < 0.45:  # the Checker read every number of the line
            read = numbers
        elif mode < 0.6:  # none
            read = []
        elif mode < 0.75:  # some
            read = [x for x in numbers if rng.random() < 0.6]
        elif mode < 0.85:  # in another order
            read = rng.sample(numbers, len(numbers))
        else:  # one it read that the scan does not see (or another's text)
            read = numbers + [rng.choice(NUMBERS)]
        for x in read:
            rec = NumRec(line, x.replace("−", "-"))
            kind = rng.random()
            if kind < 0.7:
                rec.checks.append((rng.random() < 0.9, "label", "0.5"))
            elif kind < 0.8:
                rec.operand = True
            recs.append(rec)
    body = "\n".join(lines) + "\n"
    starts, _ = human._numbers(body)
    hits = {at: human.Hit(0, "", rng.random() < 0.7, "hand", "0.5", rng.choice((None, "0.50")))
            for at in starts if rng.random() < 0.3}
    return body, recs, hits


def fields(recs: list[NumRec]) -> list:
    return [(r.line, r.text, r.checks, r.operand, r.fix) for r in recs]


@pytest.mark.parametrize("seed", range(300))
def test_merge_gives_the_plain_merge_s_records(seed, monkeypatch):
    rng = random.Random(seed)
    body, recs, hits = generated(rng)
    monkeypatch.setattr(human, "find", lambda text, trace, failed: hits)
    source.forget()
    want = fields(ref_merge(body, None, copy.deepcopy(recs), []))
    got = fields(C._merge_human(body, None, copy.deepcopy(recs), []))
    assert got == want


def test_records_out_of_line_order_walk_every_line(monkeypatch):
    """Records not by line (the Checker gives them so): the merge walks every line, as the plain one."""
    body = "0.5 1\n0.25\n"
    recs = [NumRec(2, "0.25"), NumRec(1, "0.5")]
    for r in recs:
        r.checks.append((True, "label", "x"))
    monkeypatch.setattr(human, "find", lambda text, trace, failed: {})
    source.forget()
    assert C._unsettled([1, 2, 3], ["0.5", "1", "2"], [1, 3, 2], ["0.5", "2", "1"], set()) == ([0, 1, 2], [0, 1, 2])
    assert C._unsettled([1, 2, 3], ["0.5", "1", "2"], [1, 2, 3], ["0.5", "1", "3"], set()) == ([2], [2])
    assert C._unsettled([1, 2, 3], ["0.5", "1", "2"], [1, 2, 3], ["0.5", "1", "2"], {2}) == ([1], [1])
    got = fields(C._merge_human(body, None, copy.deepcopy(recs), []))
    assert got == fields(ref_merge(body, None, copy.deepcopy(recs), []))
