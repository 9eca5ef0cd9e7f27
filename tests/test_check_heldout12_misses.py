"""Rules widened for the twelfth held-out round's misses (tests/corpus/heldout12/FIRST_RUN.md, "What it missed"), each
on a small hand-made text whose values are torch's (float64), never the engine's: a softmax with the row maximum
subtracted first, its exponentials one per line in an ``aligned`` block and their sum below them."""

import pytest
from conftest import torch64 as _t

from attnwalk.check import check_text

torch = pytest.importorskip("torch", reason="torch is not installed on this machine: pip install torch==2.13.0")

# Q = K, given directly: three tokens, d_k = 2, scores / sqrt(2)
SCENARIO = {"variant": "sdpa", "source": "direct", "heads": 1, "scale": "sqrt_dk",
            "q": [[2, 0], [0, 1], [1, 1]], "k": [[2, 0], [0, 1], [1, 1]], "v": [[1, 0], [0, 1], [2, 2]]}
# the Korean lecture's setup (its row 2's scores are [0.7071, 0.7071, 1.4142])
LECTURE = {**SCENARIO, "q": [[1, 0], [0, 1], [1, 1]], "k": [[1, 0], [0, 1], [1, 1]]}


def _shifted(row: int, scenario: dict = SCENARIO):
    """(the scaled score row, its maximum, e^(s - max), their sum) of torch's scores (Q = K)."""
    q = _t(scenario["q"])
    s = (q @ q.T / 2**0.5)[row]
    top = s.max()
    e = torch.exp(s - top)
    return s.tolist(), float(top), e.tolist(), float(e.sum())


def _aligned(row: int, total: str, scenario: dict = SCENARIO) -> str:
    """An ``aligned`` block as the Korean lecture prints one: e^{s_j - max} = value per line, then the sum."""
    s, top, e, _ = _shifted(row, scenario)
    lines = [f"e^{{{sj:.4f}-{top:.4f}}}&\\approx {ej:.4f}\\\\" for sj, ej in zip(s, e)]
    return "$$\n\\begin{aligned}\n" + "\n".join(lines) + f"\n\\sum &\\approx {total}\\\\\n\\end{{aligned}}\n$$\n"


def _verdicts(report, line: int) -> dict:
    return {"wrong": [r.text for r in report.wrong if r.line == line],
            "verified": [r.text for r in report.verified if r.line == line]}


def test_shifted_exponentials_and_their_sum_are_steps_of_the_softmax():
    """Row 0's scores are [2.8284, 0, 1.4142] (max 2√2): e^(s - max) = [1, 0.0591, 0.2431], sum 1.3022 (torch). Each
    value and the sum are verified; the same sum one digit off in its last place is wrong."""
    _, top, e, total = _shifted(0)
    assert abs(top - 2 * 2**0.5) < 1e-12
    assert abs(total - float(1 + torch.exp(_t(-2 * 2**0.5)) + torch.exp(_t(-(2**0.5))))) < 1e-12
    right = check_text(_aligned(0, f"{total:.4f}"), SCENARIO)
    for line, want in zip((3, 4, 5), e):
        assert f"{want:.4f}" in _verdicts(right, line)["verified"] and not _verdicts(right, line)["wrong"]
    assert _verdicts(right, 6) == {"wrong": [], "verified": [f"{total:.4f}"]}
    off = f"{total + 0.0002:.4f}"
    wrong = check_text(_aligned(0, off), SCENARIO)
    assert _verdicts(wrong, 6) == {"wrong": [off], "verified": []}
    assert not wrong.wrong[1:]  # the sum alone


def test_the_sum_is_torchs_not_the_sum_of_the_rounded_values():
    """Q = K = [[1, 0], [0, 1], [1, 1]]: row 2's scores [0.7071, 0.7071, 1.4142], e^(s - max) = [0.49307, 0.49307, 1],
    sum 1 + 2e^(-1/√2) = 1.98614 (1.9861); the rounded values printed add up to 1.9862, which is wrong."""
    lecture = LECTURE
    *_, total = _shifted(2, lecture)
    assert f"{total:.4f}" == "1.9861" and abs(total - (1 + 2 * float(torch.exp(_t(-(0.5**0.5)))))) < 1e-12
    report = check_text(_aligned(2, "1.9862", lecture), lecture)
    assert _verdicts(check_text(_aligned(2, "1.9861", lecture), lecture), 6) == {"wrong": [], "verified": ["1.9861"]}
    assert _verdicts(report, 6) == {"wrong": ["1.9862"], "verified": []}


def test_exponents_of_no_shifted_row_are_not_read():
    """No false positive: exponents that are no score row minus its maximum (here the maximum printed wrong, and
    exponentials of numbers that are no scores at all) leave the values and the sum below them unjudged: their sum
    9.9999 is no e^(s - max) sum of any row."""
    wrong_max = ("$$\n\\begin{aligned}\ne^{0.7071-1.0000}&\\approx 0.7461\\\\\ne^{0.7071-1.0000}&\\approx 0.7461\\\\\n"
                 "e^{1.4142-1.0000}&\\approx 1.5132\\\\\n\\sum &\\approx 9.9999\\\\\n\\end{aligned}\n$$\n")
    report = check_text(wrong_max, LECTURE)
    assert not report.wrong and "9.9999" in [r.text for r in report.unknown]
    other = ("$$\n\\begin{aligned}\ne^{0.3}&\\approx 1.3499\\\\\ne^{-0.5}&\\approx 0.6065\\\\\n"
             "e^{0}&=1\\\\\n\\sum &\\approx 9.9999\\\\\n\\end{aligned}\n$$\n")
    assert not check_text(other, LECTURE).wrong


def _output_chain(first: str, last: str) -> str:
    """The Korean lecture's row of the output by hand in an ``aligned`` block: each row after the first starts at its
    alignment mark with ``&=``, continuing the relation of the row above."""
    return ("$$\n\\begin{aligned}\n"
            "\\mathbf{o}_0 &= 0.4011\\cdot[1,0] + 0.1978\\cdot[0,1] + 0.4011\\cdot[2,2]\\\\\n"
            f"&= [0.4011,\\ 0] + [0,\\ 0.1978] + [0.8022,\\ 0.8022]\\\\\n&= [{first},\\ {last}]\n"
            "\\end{aligned}\n$$\n")


def test_aligned_rows_continue_the_relation_of_the_row_above():
    """``&= ..`` rows read as one chain: the weighted sum of V's rows by the weights (torch's A[0] = [0.4011, 0.1978,
    0.4011]), the products, and their sum [1.2033, 1.0000] (torch's output row 0: 0.40111 + 2 · 0.40111 = 1.20333,
    0.19777 + 2 · 0.40111 = 1.0000). A last row with 1.2043 is wrong: neither torch's output nor the sum of the printed
    terms (0.4011 + 0.8022 = 1.2033, within their rounding 1.2032 to 1.2034)."""
    q = _t(LECTURE["q"])
    out = torch.softmax(q @ q.T / 2**0.5, -1) @ _t(LECTURE["v"])
    first, last = f"{float(out[0, 0]):.4f}", f"{float(out[0, 1]):.4f}"
    assert (first, last) == ("1.2033", "1.0000")
    right = check_text(_output_chain(first, last), LECTURE)
    assert not right.wrong
    assert {"0.4011", "0.1978", "0.8022"} <= set(_verdicts(right, 4)["verified"])
    assert _verdicts(right, 5)["verified"] == [first, last]
    wrong = check_text(_output_chain("1.2043", last), LECTURE)
    assert [(r.line, r.text) for r in wrong.wrong] == [(5, "1.2043")]


def test_rows_not_starting_with_a_relation_keep_their_row_ends():
    """No false positive: rows of an ``aligned`` block each with its own left side (``e^{0}&=1\\\\`` then
    ``e^{-0.7071}&\\approx 0.4931``) stay separate claims, each right (e^0 = 1, e^(-0.7071) = 0.49307), and are not
    joined into one chain ``1 = e^(-0.7071)``."""
    text = "$$\n\\begin{aligned}\ne^{0}&=1\\\\\ne^{-0.7071}&\\approx 0.4931\n\\end{aligned}\n$$\n"
    assert abs(float(torch.exp(_t(-0.7071))) - 0.4931) < 5e-5
    report = check_text(text, LECTURE)
    assert not report.wrong and "0.4931" in _verdicts(report, 4)["verified"]
