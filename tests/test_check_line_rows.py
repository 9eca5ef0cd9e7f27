"""Rows numbered on one line under one tensor's name, judged together (check/line_rows.py): a flash card's ``Head 2,
scaled scores: row 1 = [..], row 2 = [..]`` and ``the output of the layer?  token 1: [..]<br>token 2: [..]``, as
heldout14's Anki deck prints them. Each row alone is too short for the "most agree" gate; the card names its head, its
tensor and its rows. Hand-made two-head texts; every expected value is torch's, in float64."""

import pytest
from conftest import rounded as _r
from conftest import torch_sdpa

from attnwalk.check import check_text

torch = pytest.importorskip("torch", reason="torch is not installed on this machine: pip install torch==2.13.0")

Q = [[1, 0, 1, 1], [0, 1, 0, 2]]
K = [[1, 1, 0, 1], [1, 0, 2, 0]]
V = [[1, 2, 0, 1], [2, 0, 1, 1]]
OPTS = {"variant": "sdpa", "source": "direct", "heads": 2, "scale": "sqrt_dk", "q": Q, "k": K, "v": V}


def _cols(m, h):
    return [row[2 * h:2 * h + 2] for row in m]


def _torch():
    """Each head's scaled scores, printed to 4 decimals; the heads' outputs side by side; head 2's scores halved (a
    card that divided by 2, not √2)."""
    heads = [torch_sdpa(_cols(Q, h), _cols(K, h), _cols(V, h)) for h in range(2)]
    s = [[_r(row.tolist(), 4) for row in t[0]] for t in heads]
    merged = [_r(row.tolist(), 4) for row in torch.cat([heads[0][2], heads[1][2]], dim=1)]
    halved = [_r((row * 2 ** 0.5 / 2).tolist(), 4) for row in heads[1][0]]
    return s, merged, halved


def _vec(row):
    return "[" + ", ".join(row) + "]"


def _card(head, rows):
    return f"Cloze\tHead {head}, scaled scores: row 1 = {_vec(rows[0])}, row 2 = {_vec(rows[1])}\n"


def _judged(report, line):
    return [(x.text, x.status) for x in report.recs if x.line == line and x.status != "unknown"]


def test_the_torch_values_the_texts_print():
    s, merged, halved = _torch()
    assert s[1] == [["0.7071", "1.4142"], ["1.4142", "0.0000"]]
    assert halved == [["0.5000", "1.0000"], ["1.0000", "0.0000"]]
    assert merged == [["1.5000", "1.0000", "0.6698", "1.0000"], ["1.3302", "1.3395", "0.1956", "1.0000"]]


def test_a_cards_rows_mostly_wrong_are_judged_against_the_head_it_names():
    """Head 2's scores divided by 2: three of four numbers wrong, each found with torch's value, the 0 verified
    (alone, each row is too short for the gate: no verdict was given before)."""
    s, _, halved = _torch()
    text = _card(1, s[0]) + _card(2, halved)
    r = check_text(text, OPTS)
    assert [(x.text, x.failure()[1]) for x in r.wrong] == [("0.5000", "0.7071"), ("1.0000", "1.4142"),
                                                           ("1.0000", "1.4142")]
    assert _judged(r, 2)[3] == ("0.0000", "verified")
    right = check_text(_card(1, s[0]) + _card(2, s[1]), OPTS)
    assert not right.wrong and len(_judged(right, 2)) == 4


def test_the_merged_output_by_token_rows_on_one_line():
    """``token 1: [..]<br>token 2: [..]`` under the layer's output: the merged heads' rows; token 2's head-2 half
    copied from token 1 is found with torch's value (its 1.0000 is torch's too), token 1 verified."""
    _, merged, _ = _torch()
    copied = merged[1][:2] + merged[0][2:]
    text = f"Basic\tThe output of the layer?\ttoken 1: {_vec(merged[0])}<br>token 2: {_vec(copied)}\n"
    r = check_text(text, OPTS)
    assert [(x.text, x.failure()[1]) for x in r.wrong] == [("0.6698", "0.1956")]
    assert sum(x.status == "verified" for x in r.recs if "." in x.text) == 7


def test_rows_of_two_names_or_unnamed_rows_stay_unread():
    """A line naming no tensor, or naming two, says not which matrix its rows are: its wrong rows stay unread."""
    _, _, halved = _torch()
    bare = f"Cloze\tHead 2: row 1 = {_vec(halved[0])}, row 2 = {_vec(halved[1])}\n"
    assert not check_text("Head 1\n" + bare, OPTS).wrong
    two = f"Cloze\tHead 2, weights and outputs: row 1 = {_vec(halved[0])}, row 2 = {_vec(halved[1])}\n"
    assert not check_text("Head 1\n" + two, OPTS).wrong
