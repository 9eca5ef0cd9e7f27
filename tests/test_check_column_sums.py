r"""A step's output as a weighted sum of the value column vectors, ``c_t = w_1\begin{pmatrix} .. \end{pmatrix} + .. =
\begin{pmatrix} .. \end{pmatrix}``: the coefficients are step t's weights and the result its output row
(check/column_sums.py), where the vectors are the values in their keys' order.

The setup: queries q = [[1, 2], [2, 0]] over keys k = [[1, 0], [0, 1], [2, 1]], values v = [[1, 0], [0, 1], [1, 1]],
d_k = 2. torch (float64): α_1 = (0.087949, 0.178370, 0.733681), α_2 = (0.186694, 0.045388, 0.767918); outputs
c_1 = (0.821630, 0.912051), c_2 = (0.954612, 0.813306).
"""
from attnwalk.check import check_text

CROSS = dict(variant="sdpa", source="direct", heads=1, scale="sqrt_dk", q=[[1, 2], [2, 0]],
             k=[[1, 0], [0, 1], [2, 1]], v=[[1, 0], [0, 1], [1, 1]])
P = r"\begin{{pmatrix}} {} \\ {} \end{{pmatrix}}"


def _line(t: int, w: tuple, r: tuple, vs=((1, 0), (0, 1), (1, 1))) -> str:
    terms = " + ".join(f"{x}" + P.format(*vec) for x, vec in zip(w, vs))
    return f"$$c_{t} = {terms} = {P.format(*r)}$$\n"


def test_right_steps_are_verified():
    text = _line(1, ("0.0879", "0.1784", "0.7337"), ("0.8216", "0.9121")) + \
        _line(2, ("0.1867", "0.0454", "0.7679"), ("0.9546", "0.8133"))
    report = check_text(text, CROSS)
    assert report.wrong == []
    assert [r.text for r in report.verified if "." in r.text] == [
        "0.0879", "0.1784", "0.7337", "0.8216", "0.9121", "0.1867", "0.0454", "0.7679", "0.9546", "0.8133"]


def test_a_step_computed_with_another_steps_weights_is_wrong():
    report = check_text(_line(2, ("0.0879", "0.1784", "0.7337"), ("0.8216", "0.9121")), CROSS)
    assert [(r.text, r.failure()[1]) for r in report.wrong] == [
        ("0.0879", "0.1867"), ("0.1784", "0.0454"), ("0.7337", "0.7679"), ("0.8216", "0.9546"), ("0.9121", "0.8133")]


def test_a_result_that_rounds_its_printed_arithmetic_is_not_wrong():
    # 0.19·1 + 0.05·0 + 0.77·1 = 0.96 (torch 0.9546 rounds to 0.95): the printed arithmetic of right weights
    report = check_text(_line(2, ("0.19", "0.05", "0.77"), ("0.96", "0.82")), CROSS)
    assert report.wrong == []


def test_vectors_that_are_not_the_values_are_left_alone():
    report = check_text(_line(2, ("0.0879", "0.1784", "0.7337"), ("0.8216", "0.9121"),
                              vs=((1, 0), (1, 1), (0, 1))), CROSS)
    assert report.wrong == [] and [r for r in report.verified if "." in r.text] == []
