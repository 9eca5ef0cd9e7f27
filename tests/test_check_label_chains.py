"""A seed-notation label, a formula, then the matrix (check/label_chains.py): ``O_2 = A_2 V = [[..]]`` is head 2's
output and ``O = [O_1 | O_2] = [[..]]`` the heads side by side, as heldout15's multi-query post prints them. Hand-made
two-head texts; every expected value is torch's, in float64 (each head's columns of Q, K and V, as
``scaled_dot_product_attention`` splits them)."""

import pytest
from conftest import rounded as _r
from conftest import torch_sdpa

from attnwalk.check import check_text

torch = pytest.importorskip("torch", reason="torch is not installed on this machine: pip install torch==2.13.0")

Q = [[1, 0, 0, 1], [0, 1, 1, 1], [1, 1, 2, 0]]
K = [[1, 0, 1, 0], [1, 1, 1, 1], [0, 2, 0, 2]]
V = [[1, 2, 1, 0], [3, 0, 0, 2], [0, 1, 1, 1]]
OPTS = {"variant": "sdpa", "source": "direct", "heads": 2, "scale": "sqrt_dk", "q": Q, "k": K, "v": V}


def _cols(m, h):
    return [row[2 * h:2 * h + 2] for row in m]


def _torch():
    """(scaled scores, weights, output) of each head, and the heads' outputs side by side, printed to 4 decimals."""
    heads = [torch_sdpa(_cols(Q, h), _cols(K, h), _cols(V, h)) for h in range(2)]
    s, a, o = ([[_r(row.tolist(), 4) for row in t[i]] for t in heads] for i in range(3))
    merged = [_r(row.tolist(), 4) for row in torch.cat([heads[0][2], heads[1][2]], dim=1)]
    return s, a, o, merged


def _mat(rows, indent):
    return "[" + (",\n" + " " * indent).join("[" + ", ".join(r) + "]" for r in rows) + "]"


def _note(o, merged, first=1):
    return (f"## Head {first}\n\n    O_{first} = A_{first} V = {_mat(o[0], 18)}\n\n"
            f"## Head {first + 1}\n\n    O_{first + 1} = A_{first + 1} V = {_mat(o[1], 18)}\n\n"
            f"## Concatenate\n\n    O = [O_{first} | O_{first + 1}] = {_mat(merged, 22)}\n")


def _judged(report):
    return [(x.text, x.status) for x in report.recs if x.status != "unknown"]


def test_the_torch_values_the_texts_print():
    s, a, o, merged = _torch()
    assert o[0] == [["1.6044", "1.0000"], ["0.9920", "0.8560"], ["1.4011", "0.7967"]]
    assert o[1] == [["0.7160", "1.1440"], ["0.5989", "1.2033"], ["0.5542", "1.0000"]]
    assert merged[2] == ["1.4011", "0.7967", "0.5542", "1.0000"]
    assert s[1][2] == ["1.4142", "1.4142", "0.0000"]


def test_each_heads_output_and_their_concatenation_are_read_past_the_formula():
    """Heads numbered 1 and 2: ``O_1``, ``O_2`` are the first and second head's outputs, ``[O_1 | O_2]`` the merged
    output; all 24 numbers verified. Read 0-based, ``O_1`` would be the second head's (every number wrong)."""
    _, _, o, merged = _torch()
    r = check_text(_note(o, merged), OPTS)
    assert not r.wrong and len(_judged(r)) == 24


def test_a_slip_in_a_heads_output_and_a_swapped_pair_in_the_concatenation_are_found():
    """O_2's 1.2033 printed 1.2303, and the concatenation's last row with head 2's pair swapped: each found with
    torch's value, the rest verified."""
    _, _, o, merged = _torch()
    text = _note(o, merged)
    text = text.replace("[0.5989, 1.2033]", "[0.5989, 1.2303]", 1)
    text = text.replace("0.7967, 0.5542, 1.0000]", "0.7967, 1.0000, 0.5542]")
    r = check_text(text, OPTS)
    assert [(x.text, x.failure()[1]) for x in r.wrong] == [("1.2303", "1.2033"), ("1.0000", "0.5542"),
                                                           ("0.5542", "1.0000")]
    assert sum(x.status == "verified" and "." in x.text for x in r.recs) == 21


def test_heads_numbered_from_0_read_o_1_as_the_second_head():
    """``Head 0`` / ``O_0`` in the note: ``O_1 = A_1 V`` is the second head, verified there."""
    _, _, o, merged = _torch()
    r = check_text(_note(o, merged, first=0), OPTS)
    assert not r.wrong and len(_judged(r)) == 24


def test_a_scaled_score_chain_is_read_as_the_scaled_scores():
    """``S_2 = Q_2 K^T / sqrt(2) = [[..]]``: the letter's kin, the scaled scores, where they agree (never the raw
    scores they differ from)."""
    s, _, _, _ = _torch()
    text = f"## Head 1\n\n## Head 2\n\n    S_2 = Q_2 K^T / sqrt(2) = {_mat(s[1], 26)}\n"
    r = check_text(text, OPTS)
    assert not r.wrong and len([x for x in _judged(r) if x[1] == "verified" and "." in x[0]]) == 9


def test_an_unsubscripted_output_of_another_formula_is_left_unread():
    """``O = A V = [[..]]`` in a two-head note names no head and no concatenation: which tensor it is is not said."""
    _, _, o, _ = _torch()
    r = check_text(f"    O = A V = {_mat(o[0], 14)}\n", OPTS)
    assert _judged(r) == []
