"""The softmax of a raw score row named in prose (check/raw_softmax.py): ``từ hàng điểm `[2, 0.5, 2]` thì softmax cho
`[..]``` in a note that divides its scores by √d_k, as heldout15's Jupyter notebook writes it: the list after the word
softmax is that query's weights (the softmax of the row divided by √d_k), the first list its raw scores. Hand-made
texts; every expected value is torch's, in float64."""

import pytest
from conftest import rounded as _r

from attnwalk.check import check_text

torch = pytest.importorskip("torch", reason="torch is not installed on this machine: pip install torch==2.13.0")

Q, K, V = [[1, 0], [0, 1], [1, 1]], [[1, 1], [0, 2], [1, 0]], [[1, 0], [0, 1], [2, 1]]
OPTS = {"variant": "sdpa", "source": "direct", "heads": 1, "scale": "sqrt_dk", "q": Q, "k": K, "v": V}


def _torch():
    """(the raw scores, the weights, the softmax of each raw row without the division), rows printed."""
    raw = torch.tensor(Q, dtype=torch.float64) @ torch.tensor(K, dtype=torch.float64).T
    a = torch.softmax(raw / 2 ** 0.5, -1)
    return raw.tolist(), [_r(r.tolist(), 4) for r in a], [_r(r.tolist(), 4) for r in torch.softmax(raw, -1)]


def _list(row):
    return "[" + ", ".join(row) + "]"


def test_the_torch_values_the_texts_print():
    raw, a, unscaled = _torch()
    assert raw[1] == [1.0, 2.0, 0.0]
    assert a[1] == ["0.2840", "0.5760", "0.1400"]
    assert unscaled[1] == ["0.2447", "0.6652", "0.0900"]


def test_the_softmax_of_a_raw_row_in_prose_is_that_querys_weights():
    """The unscaled softmax of row 2 is found wrong number by number, with torch's weights; the raw row verified;
    the weights themselves verified."""
    _, a, unscaled = _torch()
    text = "Với từ thứ hai, nếu tính tay từ hàng điểm `[1, 2, 0]` thì softmax cho `{}`.\n"
    r = check_text(text.format(_list(unscaled[1])), OPTS)
    assert [(x.text, x.failure()[1]) for x in r.wrong] == list(zip(unscaled[1], a[1]))
    assert [x.text for x in r.verified] == ["1", "2", "0"]
    right = check_text(text.format(_list(a[1])), OPTS)
    assert not right.wrong and sorted(x.text for x in right.verified) == sorted(["1", "2", "0", *a[1]])


def test_an_explicit_call_and_an_unscaled_comparison_stay_as_they_are():
    """``softmax([1, 2, 0]) = [..]`` is arithmetic of its argument (right as printed); a line saying the softmax is
    taken without scaling (``notation.UNSCALED_WORDS``) is a comparison: neither is called wrong."""
    _, _, unscaled = _torch()
    call = f"softmax([1, 2, 0]) = {_list(unscaled[1])}\n"
    assert not check_text(call, OPTS).wrong
    compared = f"Without scaling, the score row [1, 2, 0] gives softmax {_list(unscaled[1])}.\n"
    assert not check_text(compared, OPTS).wrong


def test_a_row_that_is_no_raw_score_row_is_left():
    """A list printing no row of QKᵀ names no query: its softmax is not read as any row's weights."""
    _, _, unscaled = _torch()
    assert not check_text(f"Từ hàng `[3, 1, 1]` thì softmax cho {_list(unscaled[1])}.\n", OPTS).wrong
