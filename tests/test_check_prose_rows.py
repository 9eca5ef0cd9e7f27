"""Rows restated in prose (check/prose_rows.py): ``the outputs are [..], [..] and [..]`` (every row, in order) and
``token 3 attends 0.4176 / 0.2802 / 0.3005`` (one query's weights split by slashes), as heldout15's Keras page restates
its prints. Hand-made texts; every expected value is torch's, in float64."""

import pytest
from conftest import rounded as _r
from conftest import torch_sdpa

from attnwalk.check import check_text

torch = pytest.importorskip("torch", reason="torch is not installed on this machine: pip install torch==2.13.0")

Q, K, V = [[1, 0], [0, 1], [1, 1]], [[1, 1], [0, 2], [1, 0]], [[1, 0], [0, 1], [2, 1]]
OPTS = {"variant": "sdpa", "source": "direct", "heads": 1, "scale": "sqrt_dk", "q": Q, "k": K, "v": V}


def _torch():
    _, a, o = torch_sdpa(Q, K, V)
    return [_r(row.tolist(), 4) for row in a], [_r(row.tolist(), 4) for row in o]


def _vec(row):
    return "[" + ", ".join(row) + "]"


def test_the_torch_values_the_texts_print():
    a, o = _torch()
    assert a == [["0.4011", "0.1978", "0.4011"], ["0.2840", "0.5760", "0.1400"], ["0.4011", "0.4011", "0.1978"]]
    assert o == [["1.2033", "0.5989"], ["0.5641", "0.7160"], ["0.7967", "0.5989"]]


def test_every_output_row_listed_in_prose_is_judged_as_its_row():
    """``the outputs are [..], [..] and [..]``: row i is the i-th vector; a digit slip in the third is found with
    torch's value, and the right list is verified throughout."""
    _, o = _torch()
    right = f"In short, the outputs are {_vec(o[0])}, {_vec(o[1])} and {_vec(o[2])}.\n"
    r = check_text(right, OPTS)
    assert not r.wrong and [x.status for x in r.recs] == ["verified"] * 6
    slipped = right.replace(o[2][0], "0.7697")
    assert [(x.text, x.failure()[1]) for x in check_text(slipped, OPTS).wrong] == [("0.7697", o[2][0])]


def test_a_list_of_fewer_vectors_than_rows_names_no_rows():
    """Two vectors where the output has three rows: which rows they are is not said, so nothing is judged."""
    _, o = _torch()
    r = check_text(f"the outputs are {_vec(o[0])} and {_vec(o[2])}.\n", OPTS)
    assert [x.status for x in r.recs] == ["unknown"] * 4


def test_one_querys_weights_split_by_slashes_after_attends():
    """``token 1 attends a / b / c, token 2 attends d / e / f``: rows 0 and 1 of the weights (numbered from 1, the
    second list across a line end); a planted slip in token 2's second weight is found with torch's value."""
    a, _ = _torch()
    text = f"token 1 attends {' / '.join(a[0])}, token 2 attends {a[1][0]} / {a[1][1]} /\n{a[1][2]}.\n"
    r = check_text(text, OPTS)
    assert not r.wrong and sum(x.status == "verified" for x in r.recs) == 6
    slipped = text.replace(a[1][1], "0.5670")
    assert [(x.text, x.failure()[1]) for x in check_text(slipped, OPTS).wrong] == [("0.5670", a[1][1])]


def test_a_note_naming_a_token_0_counts_its_slashed_rows_from_0():
    """``token 0 attends ..`` in the note: ``token 1`` is the second row (its weights as row 0's would be wrong)."""
    a, _ = _torch()
    text = f"token 0 attends {' / '.join(a[0])}; token 1 attends {' / '.join(a[1])}.\n"
    r = check_text(text, OPTS)
    assert not r.wrong and sum(x.status == "verified" for x in r.recs) == 6
