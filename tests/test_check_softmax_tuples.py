"""``softmax(1.414, 0.707, 0.707) = (0.503, 0.248, 0.249)``: math's tuples as a softmax's argument and result (a
blog's prose), judged as the softmax of the printed scores; expected values from torch."""

import pytest

from attnwalk.check import check_text

torch = pytest.importorskip("torch", reason="the expected values come from torch (pip install torch)")

Q, K = [[1, 0], [0, 1], [1, 1]], [[1, 1], [0, 1], [1, 0]]
OPTIONS = {"variant": "sdpa", "source": "direct", "heads": 1, "q": Q, "k": K, "v": [[1, 2], [3, 0], [0, 1]]}


@pytest.mark.parametrize("call", ["\\text{softmax}", "\\operatorname{softmax}", "softmax"])
def test_a_softmax_of_a_tuple_is_judged_as_the_softmax_of_its_printed_scores(call):
    q, k = torch.tensor(Q, dtype=torch.float64), torch.tensor(K, dtype=torch.float64)
    row = (q @ k.T / 2**0.5)[2]
    args = ", ".join(f"{x:.3f}" for x in row.tolist())
    want = torch.softmax(torch.tensor([float(f"{x:.3f}") for x in row.tolist()], dtype=torch.float64), -1)
    shown = [f"{x:.3f}" for x in want.tolist()]
    assert shown == ["0.503", "0.248", "0.248"]
    good = check_text(f"${call}({args}) = ({', '.join(shown)})$\n", dict(OPTIONS))
    assert [r.status for r in good.recs if r.text in shown] == ["verified"] * 3
    bad = check_text(f"${call}({args}) = (0.503, 0.248, 0.249)$\n", dict(OPTIONS))
    assert [(r.text, r.status) for r in bad.recs if r.status == "wrong"] == [("0.249", "wrong")]
