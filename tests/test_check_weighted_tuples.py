"""Weighted sums of value rows written as tuples (``z_3 = 0.2483\\,(1, 0) + 0.5053\\,(0, 1) + .. = (0.4966, 0.7536)``,
``0.2689·(2, 1) + 0.7311·(0, 3) = (0.5378, 2.4622)``: heldout14's exam, lecture and Anki deck), each read with the
values, weights and output of its head (notations.rounded_weight_sums). Hand-made texts; every expected value is
torch's, in float64."""

import pytest
from conftest import rounded as _r
from conftest import torch64 as _t
from conftest import torch_sdpa

from attnwalk.check import check_text

torch = pytest.importorskip("torch", reason="torch is not installed on this machine: pip install torch==2.13.0")

Q, K, V = [[1, 0], [0, 1], [1, 1]], [[1, 1], [0, 2], [1, 0]], [[1, 0], [0, 1], [2, 1]]
ONE = {"variant": "sdpa", "source": "direct", "heads": 1, "scale": "sqrt_dk", "q": Q, "k": K, "v": V}
# two heads of width 2 (columns 1-2, then 3-4), / √2
TWO = {"variant": "sdpa", "source": "direct", "heads": 2, "scale": "sqrt_dk", "q": [[1, 0, 2, 1], [0, 1, 1, 0]],
       "k": [[1, 1, 0, 1], [0, 1, 1, 1]], "v": [[1, 0, 0, 2], [0, 1, 2, 0]]}


def test_the_torch_values_the_texts_print():
    _, a, o = torch_sdpa(Q, K, V)
    assert _r(a[1].tolist(), 4) == ["0.2840", "0.5760", "0.1400"] and _r(o[1].tolist(), 4) == ["0.5641", "0.7160"]
    # the printed weights' own arithmetic: 0.2840·1 + 0.1400·2 = 0.5640 (exact), 0.5760 + 0.1400 = 0.7160
    assert f"{0.2840 + 2 * 0.1400:.4f}" == "0.5640" and f"{0.5760 + 0.1400:.4f}" == "0.7160"
    q, k, v = (_t(TWO[n]) for n in ("q", "k", "v"))
    _, a2, o2 = torch_sdpa(q[:, 2:], k[:, 2:], v[:, 2:])
    assert _r(a2[0].tolist(), 4) == ["0.1956", "0.8044"] and _r(o2[0].tolist(), 4) == ["1.6089", "0.3911"]
    assert f"{2 * 0.8044:.4f}" == "1.6088" and f"{2 * 0.1956:.4f}" == "0.3912"


def test_a_sum_of_tuples_after_a_thin_space_is_read_as_the_weighted_sum():
    """Right as printed: nothing wrong (the results the exact arithmetic of the printed weights, 0.5640 where
    torch's output is 0.5641: right by the convention on results of printed arithmetic; the reader adds failing
    checks only). A weight slipped (0.5670 for 0.5760) is found with torch's weight; the results, whose operands
    now hold a wrong weight, are judged as torch's output row (0.5641, 0.7160): both wrong, each fixed to the
    arithmetic of the fixed weights (0.5640: the line adds up again, and rounds torch's within the convention)."""
    text = "$z_2 = \\sum_j \\alpha_{{2j}} v_j = 0.2840\\,(1, 0) + {}\\,(0, 1) + 0.1400\\,(2, 1) = (0.5640, {})$\n"
    assert not check_text(text.format("0.5760", "0.7160"), ONE).wrong
    slipped = check_text(text.format("0.5670", "0.7070"), ONE)
    assert {(x.text, x.failure()[1], x.fix[0]) for x in slipped.wrong} == {
        ("0.5670", "0.5760", "0.5760"), ("0.7070", "0.7160", "0.7160"), ("0.5640", "0.5641", "0.5640")}
    # 0.5640 is wrong only through the slipped weight: the message gives torch's 0.5641 (test_the_torch_values_the_
    # texts_print) and says so, not "published 0.5640, expected 0.5640"; --fix keeps it, the fixed weights' arithmetic
    label = next(x for x in slipped.wrong if x.text == "0.5640").failure()[0]
    assert label.endswith("right once its wrong operands are fixed")


def test_each_heads_sum_is_read_with_that_heads_values_and_weights():
    """Under ``## Head 2`` the sum's value rows are head 2's (0, 2) and (2, 0) and its weights head 2's: nothing
    wrong as printed; a slipped weight (0.8064) is found with torch's 0.8044, and both results, judged as head 2's
    output (1.6089, 0.3911) once an operand is wrong, are wrong, each fixed to the fixed weights' arithmetic."""
    text = ("## Head 1\n\n$z_1 = 0.6698·(1, 0) + 0.3302·(0, 1) = (0.6698, 0.3302)$\n\n"
            "## Head 2\n\n$z_1 = 0.1956·(0, 2) + {}·(2, 0) = ({}, 0.3912)$\n")
    assert not check_text(text.format("0.8044", "1.6088"), TWO).wrong
    slipped = check_text(text.format("0.8064", "1.6128"), TWO)
    assert {(x.text, x.failure()[1], x.fix[0]) for x in slipped.wrong} == {
        ("0.8064", "0.8044", "0.8044"), ("1.6128", "1.6088", "1.6088"), ("0.3912", "0.3911", "0.3912")}
