"""A list the line names scores, then on the next line its softmax (notations._scores_then_softmax): ``Raw scores:
[..]`` / ``After softmax: [..]`` and, since heldout16's chapter, ``scores = [2.0, 1.0, 0.1]`` then ``softmax(scores) ≈
[0.659, 0.242, 0.099]`` (a rounded result after ≈). An arithmetic claim on the printed list, whatever the config;
every expected value is torch's softmax of that list, in float64."""

import pytest
from conftest import rounded as _r

from attnwalk.check import check_text

torch = pytest.importorskip("torch", reason="torch is not installed on this machine: pip install torch==2.13.0")

OPTS = {"variant": "sdpa", "source": "direct", "heads": 1, "scale": "sqrt_dk", "q": [[1, 0], [0, 1]],
        "k": [[1, 0], [0, 1]], "v": [[1, 0], [0, 1]]}


def _softmax(row, digits):
    return _r(torch.softmax(torch.tensor(row, dtype=torch.float64), -1).tolist(), digits)


def test_the_torch_values_the_texts_print():
    assert _softmax([2.0, 1.0, 0.1], 3) == ["0.659", "0.242", "0.099"]


@pytest.mark.parametrize("sign", ["≈", "=", "\\approx"])
def test_a_softmax_of_the_named_list_after_approx_is_judged_on_the_printed_scores(sign):
    """``softmax(scores) ≈ [..]`` under ``scores = [2.0, 1.0, 0.1]``: verified; a slip (0.424 for 0.242) is found
    with torch's value."""
    p = _softmax([2.0, 1.0, 0.1], 3)
    text = f"```\nscores = [2.0, 1.0, 0.1]\nsoftmax(scores) {sign} [{', '.join(p)}]\n```\n"
    r = check_text(text, OPTS)
    assert not r.wrong and [x.status for x in r.recs if x.line == 3] == ["verified"] * 3
    slipped = text.replace("0.242", "0.424")
    assert [(x.text, x.failure()[1]) for x in check_text(slipped, OPTS).wrong] == [("0.424", "0.242")]
