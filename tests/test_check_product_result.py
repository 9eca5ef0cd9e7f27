"""``O = AV = [..]``, ``S = QK^T = [..]``: a matrix after a product's letters is the product (a note written by
hand as a user would, its numbers from torch). Before, the whole matrix went unread: the token walk reads no lone
``O`` in prose, and ``product_letters`` knew only the written-out ``[A] [V] = [O]``."""

import pytest
from conftest import rounded, torch64, torch_sdpa

from attnwalk.check import check_text
from attnwalk.check.notations import product_letters

pytest.importorskip("torch", reason="the expected values come from torch (pip install torch)")

Q, K, V = [[1, 0], [0, 1], [1, 1]], [[1, 1], [0, 1], [1, 0]], [[1, 2], [3, 0], [0, 1]]
OPTIONS = {"variant": "sdpa", "source": "direct", "heads": 1, "q": Q, "k": K, "v": V}


def _bmatrix(rows: list[list[str]]) -> str:
    return "\\begin{bmatrix} " + " \\\\ ".join(" & ".join(r) for r in rows) + " \\end{bmatrix}"


def _statuses(text: str) -> list[tuple[str, str, str | None]]:
    rep = check_text(text, dict(OPTIONS))
    return [(r.text, r.status, r.failure()[1] if r.status == "wrong" else None) for r in rep.recs]


def _output_rows(plant: tuple[int, int] | None = None) -> list[list[str]]:
    _, _, out = torch_sdpa(Q, K, V)
    rows = [rounded(r.tolist(), 3) for r in out]
    if plant is not None:
        i, j = plant
        rows[i][j] = f"{float(rows[i][j]) + 0.001:.3f}"  # one unit off in the last printed digit
    return rows


@pytest.mark.parametrize("letters", ["O = AV =", "O = A V =", "Y = AV =", "H = AV ="])
def test_the_matrix_after_the_product_of_the_weights_and_v_is_the_output(letters):
    rows = _output_rows(plant=(2, 1))
    got = _statuses(f"$$\n{letters} {_bmatrix(rows)}\n$$\n")
    assert [s for _, s, _ in got] == ["verified"] * 5 + ["wrong"]
    want = float(torch_sdpa(Q, K, V)[2][2, 1])
    assert got[-1][0] == rows[2][1] and float(got[-1][2]) == pytest.approx(want, abs=5e-4)


@pytest.mark.parametrize("letters", ["S = QK^T =", "S = QK^{\\top} =", "E = QK^T ="])
def test_the_matrix_after_qkt_is_the_raw_scores(letters):
    raw = (torch64(Q) @ torch64(K).T).tolist()
    rows = [[f"{x:.0f}" for x in r] for r in raw]
    rows[2][2] = "2"  # torch: 1
    got = _statuses(f"$$\n{letters} {_bmatrix(rows)}\n$$\n")
    assert [s for _, s, _ in got] == ["verified"] * 8 + ["wrong"]
    assert float(got[-1][2]) == raw[2][2] == 1.0


@pytest.mark.parametrize("text", [
    "O = AV = \\begin{bmatrix} 1 & 0 \\end{bmatrix} \\begin{bmatrix} 1 \\\\ 0 \\end{bmatrix}",  # a factor follows
    "Q = AV = \\begin{bmatrix} 1 & 0 \\end{bmatrix}",  # the left side names another tensor
    "O = AV^T = \\begin{bmatrix} 1 & 0 \\end{bmatrix}",  # no product of the trace
    "O = A^T V = \\begin{bmatrix} 1 & 0 \\end{bmatrix}",
    "O = \\begin{bmatrix} 1 & 0 \\end{bmatrix}",  # no product at all: the checker's own label
])
def test_what_is_not_a_product_result_gets_no_label_from_it(text):
    assert product_letters(text, text.index("\\begin")) is None


# two tokens and d_v = 2: the output is as square as the weights, so only the formula tells them apart
Q2, K2, V2 = [[1, 0], [1, 1]], [[1, 1], [0, 1]], [[2, 0], [0, 4]]
OPTIONS2 = {"variant": "sdpa", "source": "direct", "heads": 1, "q": Q2, "k": K2, "v": V2}


@pytest.mark.parametrize(("formula", "step"), [
    ("O = \\text{softmax}\\left(\\frac{QK^T}{\\sqrt{d_k}}\\right)V =", 2),
    ("\\text{Attention}(Q, K, V) = \\operatorname{softmax}\\left(\\frac{QK^{\\top}}{\\sqrt{d_k}}\\right) V =", 2),
    ("A = \\text{softmax}\\left(\\frac{QK^T}{\\sqrt{d_k}}\\right) =", 1),
    ("S = \\frac{QK^T}{\\sqrt{d_k}} =", 0),
])
def test_the_formula_before_a_matrix_names_it(formula, step):
    want = torch_sdpa(Q2, K2, V2)[step]
    rows = [rounded(r.tolist(), 4) for r in want]
    rows[1][1] = f"{float(rows[1][1]) + 0.0002:.4f}"
    rep = check_text(f"$$\n{formula} {_bmatrix(rows)}\n$$\n", dict(OPTIONS2))
    judged = [r for r in rep.recs if r.text in {c for row in rows for c in row}]
    assert [r.status for r in judged] == ["verified"] * 3 + ["wrong"]
    assert float(judged[-1].failure()[1]) == pytest.approx(float(want[1, 1]), abs=5e-5)
