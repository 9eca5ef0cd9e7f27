"""The readers widened for what the held-out rounds missed, called directly on small notes; expected values from
torch (float64), never from attnwalk's engine."""

import pytest

from attnwalk.api import walk
from attnwalk.check import check_text, forms

torch = pytest.importorskip("torch", reason="torch is not installed on this machine: pip install torch==2.13.0")


def _softmax(row):
    return torch.softmax(torch.tensor(row, dtype=torch.float64), dim=-1).tolist()


GIVEN = {"variant": "sdpa", "source": "scores", "heads": 1, "scale": "none", "scores": [[1.0, 2.0, 3.0]]}


def test_a_tuple_of_weights_below_the_scores_tuple_is_their_softmax():
    """heldout7's Korean lesson: ``\\mathbf{z} = (1, 2, 3)`` then ``\\mathbf{p} \\approx (0.09, 0.24, 0.66)``:
    softmax([1, 2, 3]) = [0.0900, 0.2447, 0.6652] (torch), so 0.66 is wrong (0.67) and the others right."""
    p = _softmax([1, 2, 3])
    assert [f"{x:.2f}" for x in p] == ["0.09", "0.24", "0.67"]
    note = "**예:** $\\mathbf{z} = (1, 2, 3)$\n- 합 ≈ 30.2\n- $\\mathbf{p} \\approx (0.09, 0.24, 0.66)$\n"
    hits = {}
    forms.softmax_tuples(note, walk(**GIVEN), hits, [])
    assert sorted((h.text, h.ok, h.expected) for h in hits.values()) == [
        ("0.09", True, "0.09"), ("0.24", True, "0.24"), ("0.66", False, "0.67")]
    assert [(r.line, r.text, r.fix[0]) for r in check_text(note, GIVEN).wrong] == [(3, "0.66", "0.67")]


def test_tuples_that_are_not_the_traces_scores_and_their_softmax_stay_unread():
    """Two distributions (a lesson on KL divergence), a tuple that is no row of the scores, a tuple that is no
    distribution, or one further than TUPLE_REACH lines below: nothing judged."""
    trace = walk(**GIVEN)
    for note in ("$p = (0.2, 0.3, 0.5)$ and $q \\approx (0.1, 0.2, 0.7)$\n",
                 "$z = (1, 2, 4)$\n$p \\approx (0.09, 0.24, 0.66)$\n",
                 "$z = (1, 2, 3)$\n$y = (0.5, 0.9, 0.66)$\n",
                 "$z = (1, 2, 3)$\n" + "text\n" * (forms.TUPLE_REACH + 1) + "$p \\approx (0.09, 0.24, 0.66)$\n"):
        hits = {}
        forms.softmax_tuples(note, trace, hits, [])
        assert hits == {}, note
