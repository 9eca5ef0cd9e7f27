"""The tenth held-out round (tests/corpus/heldout10): eight real public notes check had never seen (three English, two
Korean, one French, one Turkish, one Chinese), measured once before any change (FIRST_RUN.md: 7 of 45 wrong numbers
found, 8 right numbers called wrong). Here: the notes' own setups recomputed with torch, the numbers torch proves wrong
in them, and the hand arithmetic behind the misses and false positives FIRST_RUN.md explains (derived with torch or
exactly), so that a reader widened for them is judged against these values.

The truth is torch's: tests/corpus/heldout/truth.py recomputes each claimed tensor from the note's scenario tables
(never through attnwalk's engine), and a number is wrong when it is off by more than half a unit of its last printed
digit (DESIGN §7, widened by float32 rounding).
"""

import math
import re
from fractions import Fraction
from pathlib import Path

import pytest
from conftest import heldout_tools, reader_hits
from conftest import rounded as _r
from conftest import torch64 as _t
from conftest import torch_sdpa as _sdpa

from attnwalk.check import notations

torch = pytest.importorskip("torch", reason="torch is not installed on this machine: pip install torch==2.13.0")

CORPUS = Path(__file__).resolve().parent / "corpus"
HELDOUT10 = CORPUS / "heldout10"

truth, bench = heldout_tools()


def test_the_weights_of_one_over_root_two_and_zero_round_to_0670_from_the_printed_arguments_too():
    """softmax([1/√2, 0]) = [e^(1/√2), 1] / (e^(1/√2) + 1) = [0.66976, 0.33024]: 0.670, 0.330 (the English lesson and
    the Korean note print 0.669, 0.331). From the printed arguments, 0.707 within its rounding and 0 exact, the first
    weight is σ(x) for x in [0.7065, 0.7075]: [0.66963, 0.66985], every value of which rounds to 0.670, so 0.669 is
    wrong for the note's own arguments as well (|0.669 − σ| > 0.0005 + σ'(0.707) · 0.0005 = 0.0005 + 0.00011)."""
    e = math.exp(1 / math.sqrt(2))
    _, a, out = _sdpa([[1, 0], [0, 1]], [[1, 0], [0, 1]], [[1, 0], [0, 1]])
    assert a[0].tolist() == pytest.approx([e / (e + 1), 1 / (e + 1)], abs=1e-15)
    assert _r(a[0].tolist(), 3) == ["0.670", "0.330"] == _r(out[0].tolist(), 3)
    sigma = [1 / (1 + math.exp(-x)) for x in (0.7065, 0.7075)]
    assert _r(sigma, 3) == ["0.670", "0.670"]
    assert 0.669 < sigma[0] - 0.0005  # below every value a rounding of 0.707 gives


def test_the_korean_notes_output_row_and_its_own_slip():
    """Q = [[1, 0], [0, 1]], K = [[1, 1], [0, 1]], V = [[1, 2], [9, 8]]: QKᵀ = [[1, 0], [1, 1]]; output row 0 =
    0.66976 · [1, 2] + 0.33024 · [9, 8] = [3.6419, 3.9814] (the note: 3.648, 4.316; its own 0.669 · 2 + 0.331 · 8 is
    3.986, so 4.316 is a slip besides the rounding); row 1 = [5, 5] (weights 1/2, 1/2)."""
    q, k, v = [[1, 0], [0, 1]], [[1, 1], [0, 1]], [[1, 2], [9, 8]]
    assert (_t(q) @ _t(k).T).tolist() == [[1, 0], [1, 1]]
    _, a, out = _sdpa(q, k, v)
    assert _r(out[0].tolist(), 3) == ["3.642", "3.981"]
    assert out[1].tolist() == pytest.approx([5.0, 5.0], abs=1e-15)
    assert 0.669 * 2 + 0.331 * 8 == pytest.approx(3.986)


def test_the_korean_course_exponentials_are_right_and_its_output_is_not():
    """Q = K = [[1,0,1,0], [0,1,0,1], [1,1,0,0]], V = [[1..4], [5..8], [9..12]], d_k = 4: row 0 of the scores is
    [2, 0, 1], / 2 = [1, 0, 0.5]; exp([1, 0, 0.5]) = [e, 1, √e] = [2.718, 1, 1.649] (the note's 2.72, 1, 1.65: right),
    sum 5.367; weights [0.5065, 0.1863, 0.3072]; V[i, j] = 4i + j + 1, so output column j is Σ_i a_i (4i + 1) + j =
    4.2029 + j (the weights sum to 1): [4.2, 5.2, 6.2, 7.2] (the note: 4.2, 5.3, 6.4, 7.6)."""
    q = [[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 0, 0]]
    v = [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]
    s, a, out = _sdpa(q, q, v)
    assert s[0].tolist() == [1.0, 0.0, 0.5]
    assert _r(torch.exp(s[0]).tolist(), 2) == ["2.72", "1.00", "1.65"]
    assert _r([torch.exp(s[0]).sum().item()], 2) == ["5.37"]
    assert _r(a[0].tolist(), 2) == ["0.51", "0.19", "0.31"]
    assert _r(out[0].tolist(), 1) == ["4.2", "5.2", "6.2", "7.2"]


def test_the_turkish_comments_weights_and_outputs():
    """Q = [[1, 0], [0, 1], [1, 1]], K = [[1, 0], [0, 1], [0.5, 0.5]], V = [[10, 0], [0, 10], [5, 5]]: the third query
    scores [1, 1, 1] / √2 = 0.71 each (the comment: 0.50, 0.50, 0.71), so its weights are 1/3 each (0.30, 0.30, 0.40)
    and its output [5, 5] (4.5, 4.5); row 0's weights e^(1/√2), 1, e^(1/(2√2)) over their sum: [0.46, 0.22, 0.32]
    (0.44, 0.22, 0.34), output [6.2, 3.8] (5.7, 3.9)."""
    s, a, out = _sdpa([[1, 0], [0, 1], [1, 1]], [[1, 0], [0, 1], [0.5, 0.5]], [[10, 0], [0, 10], [5, 5]])
    assert _r(s[2].tolist(), 2) == ["0.71", "0.71", "0.71"]
    assert a[2].tolist() == pytest.approx([1 / 3] * 3, abs=1e-15)
    assert out[2].tolist() == pytest.approx([5.0, 5.0], abs=1e-14)
    assert _r(a[0].tolist(), 2) == ["0.46", "0.22", "0.32"]
    assert _r(out[0].tolist(), 1) == ["6.2", "3.8"] and _r(out[1].tolist(), 1) == ["3.8", "6.2"]


def test_the_french_output_from_a_rounded_weight():
    """Q = I, K = [[1, 0], [1, 1]], V = [[2, 0], [0, 4]]: row 1's weights softmax([0, 1/√2]) = [0.33024, 0.66976], its
    output [0.6605, 2.6791]: 0.660, 2.679; the chapter's 2.680 is its rounded weight 0.670 times 4."""
    _, a, out = _sdpa([[1, 0], [0, 1]], [[1, 0], [1, 1]], [[2, 0], [0, 4]])
    assert _r(a[1].tolist(), 3) == ["0.330", "0.670"]
    assert _r(out[1].tolist(), 3) == ["0.660", "2.679"]
    assert out[0].tolist() == pytest.approx([1.0, 2.0], abs=1e-15)
    assert 0.670 * 4 == pytest.approx(2.680)


def test_the_textbook_row_sum_and_its_unscaled_weights():
    """q = [1, 0] against keys [1, 0], [0, 1], [0.7, 0.7]: scores [1, 0, 0.7] / √2; their exponentials sum to
    e^(1/√2) + 1 + e^(0.7/√2) = 4.66857 (the note's 2.028 + 1.000 + 1.640 = 4.668 adds rounded addends); the
    weights [0.434, 0.214, 0.351] and output [0.680, 0.460] are right; unscaled, softmax([1, 0, 0.7]) = [0.474,
    0.174, 0.351]."""
    k = [[1.0, 0.0], [0.0, 1.0], [0.7, 0.7]]
    s, a, out = _sdpa([[1.0, 0.0]], k, k)
    assert _r([torch.exp(s[0]).sum().item()], 3) == ["4.669"]
    assert math.exp(1 / math.sqrt(2)) + 1 + math.exp(0.7 / math.sqrt(2)) == pytest.approx(4.66857, abs=1e-5)
    assert _r(a[0].tolist(), 3) == ["0.434", "0.214", "0.351"]
    assert _r(out[0].tolist(), 3) == ["0.680", "0.460"]
    assert _r(torch.softmax(_t([1.0, 0.0, 0.7]), -1).tolist(), 3) == ["0.474", "0.174", "0.351"]


def test_the_codex_one_query_over_four_tokens():
    """q = x₃ = (1, 1) against (1, 0), (0, 1), (1, 1), (−1, 1): scores [1, 1, 2, 0] / √2; exponentials sum to
    2 e^(1/√2) + e^√2 + 1 = 9.169; weights [0.221, 0.221, 0.449, 0.109]; output (0.561, 0.779): all right."""
    x = [[1, 0], [0, 1], [1, 1], [-1, 1]]
    s, a, out = _sdpa([[1, 1]], x, x)
    assert _r([torch.exp(s[0]).sum().item()], 3) == ["9.169"]
    assert _r(a[0].tolist(), 3) == ["0.221", "0.221", "0.449", "0.109"]
    assert _r(out[0].tolist(), 3) == ["0.561", "0.779"]


# ---------------------------------------------------------------- the readers added after the first run

COURSE = HELDOUT10 / "ko_lecture_day43_hand_calculation.toml"  # Q = K 3 × 4, V 3 × 4: its exponentials above
CAT = HELDOUT10 / "ko_obsidian_note_the_cat.toml"  # Q, K, V 2 × 2: test_the_korean_notes_output_row_and_its_own_slip


def _exponentials(text: str) -> list[tuple[str, bool, str]]:
    return [(h.text, h.ok, h.expected) for h in reader_hits(notations.exponential_calls, text, COURSE)]


def test_an_exponential_of_a_list_is_judged_entry_by_entry():
    """``exp([1, 0, 0.5]) = [2.72, 1, 1.65]``: e = 2.71828, e^0 = 1, √e = 1.64872, each within the rounding of its
    printed digits (right); 2.71 and 1.80 are not (wrong: e^1 is exact, 1.80 > e^0.55); the arguments' own rounding
    counts, an integer exact: exp(0.707) lies
    in [e^0.7065, e^0.7075] = [2.02689, 2.02892], so 2.029 is right for the printed 0.707 while e^(1/√2) = 2.02811."""
    assert [(t, ok) for t, ok, _ in _exponentials("exp([1, 0, 0.5]) = [2.72, 1, 1.65]\n")] == [
        ("2.72", True), ("1", True), ("1.65", True)]
    assert _exponentials("np.exp([1, 0, 0.5]) ≈ [2.71, 1, 1.80]\n") == [
        ("2.71", False, "2.72"), ("1", True, "1"), ("1.80", False, "1.65")]
    # 0.5 printed with one decimal stands for [0.45, 0.55]: e^0.45 = 1.568 .. e^0.55 = 1.733 (1.64 is within)
    assert _exponentials("exp([1, 0, 0.5]) = [2.72, 1, 1.64]\n")[2][:2] == ("1.64", True)
    lo, hi = math.exp(0.7065), math.exp(0.7075)
    assert lo - 0.0005 <= 2.029 <= hi + 0.0005 and f"{math.exp(1 / math.sqrt(2)):.3f}" == "2.028"
    assert [(t, ok) for t, ok, _ in _exponentials("exp([0.707, 0]) = [2.029, 1.000]\n")] == [
        ("2.029", True), ("1.000", True)]
    assert [(t, ok) for t, ok, _ in _exponentials("exp([0.707, 0]) = [2.031, 1.000]\n")] == [
        ("2.031", False), ("1.000", True)]


def test_an_exponential_list_of_another_length_or_words_is_left_unread():
    for text in ("exp([1, 0, 0.5]) = [2.72, 1]\n", "exp([a, 0, 0.5]) = [2.72, 1, 1.65]\n",
                 "softmax([1, 0, 0.5]) = [0.51, 0.19, 0.31]\n", "myexp([1, 0]) = [3, 4]\n"):
        assert _exponentials(text) == [], text


def test_the_korean_courses_exponentials_are_no_weights_row():
    """Under a softmax heading and after ``scores = [2, 0, 1]``, ``exp([1, 0, 0.5]) = [2.72, 1, 1.65]`` is the
    exponentials (right), not the weights row 0 ([0.51, 0.19, 0.31]) the heading would make it."""
    from attnwalk.check import check_text
    from attnwalk.scenario import load_scenario

    text = ("scores = [2, 0, 1]\n\n**3단계: Softmax**:\n```\nexp([1, 0, 0.5]) = [2.72, 1, 1.65]\nsum = 5.37\n\n"
            "softmax = [0.51, 0.19, 0.31]\n```\n")
    report = check_text(text, load_scenario(COURSE))
    assert not report.wrong
    assert {(r.line, r.text) for r in report.verified} >= {(5, "2.72"), (5, "1"), (5, "1.65")}


def test_a_factor_of_a_written_out_product_is_none_of_its_results():
    """``QK^\\top = [Q] [K^\\top] = [S]`` and ``[0.5,0.5] \\cdot [V] = [5.0, 5.0]`` under an "attention output" label:
    Q = [[1, 0], [0, 1]] is no reading of the scores [[1, 0], [1, 1]] (three of four cells agree), V = [[1, 2], [9, 8]]
    none of the output [[3.642, 3.981], [5, 5]]; the result matrix S is the scores (right)."""
    from attnwalk.check import check_text, notations
    from attnwalk.scenario import load_scenario

    text = ("$QK^\\top = \\begin{bmatrix} 1 & 0 \\\\ 0 & 1 \\end{bmatrix} \\begin{bmatrix} 1 & 0 \\\\ 1 & 1 "
            "\\end{bmatrix} = \\begin{bmatrix} 1 & 0 \\\\ 1 & 1 \\end{bmatrix}$\n\n\"cat\"의 attention output:\n"
            "$$[0.5,0.5] \\cdot \\begin{bmatrix} 1 & 2 \\\\ 9 & 8 \\end{bmatrix} = [5.0, 5.0]$$\n")
    begins = [m.start() for m in re.finditer(r"\\begin", text)]
    assert [notations.product_factor(text, b) for b in begins] == [True, True, False, True]
    assert not check_text(text, load_scenario(CAT)).wrong
    # the same matrix as the whole right side (no factor) is read as the scores, its 0 where they hold 1 wrong
    alone = check_text("$QK^\\top = \\begin{bmatrix} 1 & 0 \\\\ 0 & 1 \\end{bmatrix}$\n", load_scenario(CAT))
    assert [(r.line, r.text) for r in alone.wrong] == [(1, "0")]


def test_a_factor_named_for_itself_is_still_read():
    """``attention_weights @ Values`` above ``[A] \\times [V] = [O]`` (tests/corpus/real/en_studying_bmatrix): the
    weights factor is read as the weights (a wrong row is wrong), only the products' results are no reading of it."""
    from attnwalk.check import check_text
    from attnwalk.scenario import load_scenario

    e = math.exp(1 / math.sqrt(2))
    text = ("`out = attention_weights @ Values`\n\n$$\n\\begin{bmatrix}\n0.669 & 0.331 \\\\\n0.5 & 0.5\n"
            "\\end{bmatrix}\n\\times\n\\begin{bmatrix}\n1 & 2 \\\\\n9 & 8\n\\end{bmatrix}\n$$\n")
    report = check_text(text, load_scenario(CAT))
    assert f"{e / (e + 1):.3f}" == "0.670"
    assert [(r.line, r.text) for r in report.wrong] == [(5, "0.669"), (5, "0.331")]


FRENCH = HELDOUT10 / "fr_course_obsidian_lost_row_breaks.toml"  # Q = I, K = [[1, 0], [1, 1]], V = [[2, 0], [0, 4]]


def test_a_matrix_whose_label_ends_the_line_above_is_read_transposed_where_it_says_so():
    """``K^T =`` on its own line above the matrix (heldout10's French chapter): Kᵀ = [[1, 1], [0, 1]] is K read
    transposed (right), as on the label's own line; before, its 1 and 0 of row 2 were judged as K's (wrong)."""
    from attnwalk.check import check_text
    from attnwalk.scenario import load_scenario

    k = _t([[1, 0], [1, 1]])
    assert k.T.tolist() == [[1, 1], [0, 1]]
    for text in ("$$\nK^T =\n\\begin{bmatrix}\n1 & 1 \\\\\n0 & 1\n\\end{bmatrix}\n$$\n",
                 "$$\nK^T = \\begin{bmatrix}\n1 & 1 \\\\\n0 & 1\n\\end{bmatrix}\n$$\n"):
        report = check_text(text, load_scenario(FRENCH))
        assert not report.wrong and len(report.verified) == 4, text
    wrong = check_text("$$\nK^T =\n\\begin{bmatrix}\n1 & 0 \\\\\n1 & 1\n\\end{bmatrix}\n$$\n", load_scenario(FRENCH))
    assert [(r.line, r.text) for r in wrong.wrong] == [(4, "0"), (5, "1")]  # K as it stands is no Kᵀ


def test_a_lone_backslash_row_break_may_have_blanks_after_it():
    """``0.707 & 0.707 \\`` then two blanks, as the Obsidian export stores ``\\\\`` (heldout10's French chapter): the
    rows are read as the scaled scores QKᵀ/√2 = [[1/√2, 1/√2], [0, 1/√2]] (right); ``0 & 0.708`` would be wrong."""
    from attnwalk.check import check_text
    from attnwalk.scenario import load_scenario

    s, _, _ = _sdpa([[1, 0], [0, 1]], [[1, 0], [1, 1]], [[2, 0], [0, 4]])
    assert _r(s.reshape(-1).tolist(), 3) == ["0.707", "0.707", "0.000", "0.707"]

    def text(row):
        return ("$$\n\\frac{QK^T}{\\sqrt{2}} =  \n\\begin{bmatrix}  \n0.707 & 0.707 \\  \n" + row
                + "  \n\\end{bmatrix}  \n$$\n")

    right = check_text(text("0 & 0.707"), load_scenario(FRENCH))
    assert not right.wrong and sorted(r.text for r in right.verified if r.line > 2) == ["0", "0.707", "0.707", "0.707"]
    wrong = check_text(text("0 & 0.708"), load_scenario(FRENCH))
    assert [(r.line, r.text) for r in wrong.wrong] == [(5, "0.708")]


TURKISH = HELDOUT10 / "tr_course_numpy_printed_comments.toml"  # test_the_turkish_comments_weights_and_outputs


def _printed(text: str) -> list[tuple[str, bool]]:
    return [(h.text, h.ok) for h in reader_hits(notations.commented_print_results, text, TURKISH)]


def test_a_printed_variables_commented_result_is_that_tensor():
    """``print("Ağırlıklar:\\n", weights.round(3))`` then ``# [[0.44, 0.22, 0.34], ...`` a row a line: the weights,
    torch's [[0.46, 0.22, 0.32], [0.22, 0.46, 0.32], [1/3, 1/3, 1/3]] (so 0.22 right twice, the rest wrong); the same
    rows as torch prints them are right; ``np.round(output, 2)`` names the output ([6.15, 3.85] ...)."""
    _, a, out = _sdpa([[1, 0], [0, 1], [1, 1]], [[1, 0], [0, 1], [0.5, 0.5]], [[10, 0], [0, 10], [5, 5]])
    rows = [_r(r, 2) for r in a.tolist()]
    assert rows == [["0.46", "0.22", "0.32"], ["0.22", "0.46", "0.32"], ["0.33", "0.33", "0.33"]]
    note = ("print(\"Ağırlıklar:\\n\", weights.round(3))\n# [[0.44, 0.22, 0.34],    Q1: V1'e en çok dikkat\n"
            "#  [0.22, 0.44, 0.34],    Q2\n#  [0.30, 0.30, 0.40]]    Q3\n")
    assert [ok for _, ok in _printed(note)] == [False, True, False, True, False, False, False, False, False]
    right = "print(weights)\n# [[" + ", ".join(rows[0]) + "],\n#  [" + ", ".join(rows[1]) + "],\n#  [" + \
        ", ".join(rows[2]) + "]]\n"
    assert all(ok for _, ok in _printed(right)) and len(_printed(right)) == 9
    outs = [_r(r, 2) for r in out.tolist()]
    assert outs[0] == ["6.15", "3.85"]
    text = "print(np.round(output, 2))\n# [[6.15 3.85]\n#  [3.85 6.15]\n#  [5.00 5.00]]\n"
    assert _printed(text) == [(t, True) for t in ("6.15", "3.85", "3.85", "6.15", "5.00", "5.00")]


def test_a_commented_result_under_a_print_of_no_tensor_is_left_unread():
    for text in ("print(len(x))\n# [3, 2]\n", "print(d_k)\n# [[0.44, 0.22, 0.34]]\n",
                 "print(weights)\n\n# [[0.44, 0.22, 0.34]]\n", "print(weights)\n# [[0.44, 0.22], [0.1]]\n"):
        assert _printed(text) == [], text


def _softmax_call(text: str) -> list[tuple[str, bool]]:
    return [(h.text, h.ok) for h in reader_hits(notations.softmax_calls, text, CAT)]


def test_a_softmax_call_allows_what_its_arguments_rounding_gives_and_no_more():
    """softmax([0.707, 0]): the first weight is σ(x), x in [0.7065, 0.7075] (the 0 exact): [0.66963, 0.66985], so
    0.670 is right and 0.669 wrong (before, a slack of h/2 = 0.00025 for any weight let 0.669 pass); with one decimal,
    softmax([0.7, 0]): x in [0.65, 0.75], σ from 0.65701 to 0.67918, so 0.679 is right and 0.681 wrong."""
    sigma = lambda x: 1 / (1 + math.exp(-x))  # noqa: E731 - the first weight of softmax([x, 0])
    assert f"{sigma(0.7065):.5f}" == "0.66963" and f"{sigma(0.7075):.5f}" == "0.66985"
    assert _softmax_call("softmax([0.707, 0]) ≈ [0.669, 0.331]\n") == [("0.669", False), ("0.331", False)]
    assert _softmax_call("softmax([0.707, 0]) ≈ [0.670, 0.330]\n") == [("0.670", True), ("0.330", True)]
    assert f"{sigma(0.65):.5f}" == "0.65701" and f"{sigma(0.75):.5f}" == "0.67918"
    assert _softmax_call("softmax([0.7, 0]) = [0.679, 0.321]\n") == [("0.679", True), ("0.321", True)]
    assert _softmax_call("softmax([0.7, 0]) = [0.681, 0.319]\n") == [("0.681", False), ("0.319", False)]


def test_weights_written_right_before_their_value_rows_and_the_result_indented_below():
    """``output = 0.51[1,2,3,4] + 0.19[5,6,7,8] + 0.31[9,10,11,12]`` then ``       ≈ [4.2, 5.3, 6.4, 7.6]`` (heldout10's
    Korean course): the terms are the rounded weights of row 0 times V's rows, the indented line the output row
    0, torch's [4.2029, 5.2029, 6.2029, 7.2029]. The indented line is also the result of the terms' printed
    arithmetic, whose weights round torch's (docs/course.md, results of printed arithmetic): 0.51·2 + 0.19·6 +
    0.31·10 = 5.26 makes 5.3 right; 6.4 and 7.6 are neither (6.27, 7.28), and --fix writes that arithmetic, 6.3, 7.3,
    so the fixed line is arithmetically true."""
    from attnwalk.check import check_text
    from attnwalk.check.fix import fixed_text
    from attnwalk.scenario import load_scenario

    q = [[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 0, 0]]
    _, _, out = _sdpa(q, q, [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]])
    _, a, out = _sdpa(q, q, [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]])
    assert _r(out[0].tolist(), 1) == ["4.2", "5.2", "6.2", "7.2"] and _r(a[0].tolist(), 2) == ["0.51", "0.19", "0.31"]
    exact = [Fraction("0.51") * (1 + d) + Fraction("0.19") * (5 + d) + Fraction("0.31") * (9 + d) for d in range(4)]
    assert [str(float(x)) for x in exact] == ["4.25", "5.26", "6.27", "7.28"]
    note = ("```\noutput = 0.51[1,2,3,4] + 0.19[5,6,7,8] + 0.31[9,10,11,12]\n       ≈ [4.2, 5.3, 6.4, 7.6]\n```\n")
    opts = load_scenario(COURSE)
    assert [(r.line, r.text) for r in check_text(note, opts).wrong] == [(3, "6.4"), (3, "7.6")]
    assert "≈ [4.2, 5.3, 6.3, 7.3]" in fixed_text(note, lambda t: check_text(t, opts))
    # not indented, a lone ``≈ [..]`` below may be anything else: left as it was
    assert not check_text(note.replace("       ≈", "≈"), opts).wrong


LESSON = HELDOUT10 / "en_lesson_self_attention_by_hand.toml"  # Q = K = V = I (2 × 2)


def test_a_two_number_list_quoted_again_in_prose_restates_the_judged_one():
    """``weights_1 = softmax([0.707, 0]) ≈ [0.669, 0.331]`` judged (wrong: torch 0.670, 0.330), then ``You should see
    approximately `[0.669, 0.331]` `` further down (heldout10's lesson): the quote restates it, verdict for verdict;
    two numbers of fewer than three decimals (``[0.5, 0.5]``, ``[1, 0]``) recur as other things and are not taken so."""
    from attnwalk.check import check_text
    from attnwalk.scenario import load_scenario

    opts = load_scenario(LESSON)
    note = ("```\nweights_1 = softmax([0.707, 0]) ≈ [0.669, 0.331]\n```\n\n" + "Some prose.\n\n" * 10
            + "You should see approximately `[0.669, 0.331]`, matching the hand-worked example.\n")
    assert [(r.line, r.text) for r in check_text(note, opts).wrong] == [
        (2, "0.669"), (2, "0.331"), (25, "0.669"), (25, "0.331")]
    right = note.replace("0.669", "0.670").replace("0.331", "0.330")
    report = check_text(right, opts)
    assert not report.wrong and {(r.line, r.text) for r in report.verified} >= {(25, "0.670"), (25, "0.330")}
    short = ("```\nweights_2 = softmax([0.707, 0.707]) ≈ [0.5, 0.5]\n```\n\nThen `[0.5, 0.5]` again.\n")
    assert not [r for r in check_text(short, opts).recs if r.line == 5 and r.checks]


def test_a_weights_row_times_v_written_out_entry_by_entry_is_the_output_row():
    """``[0.669 \\cdot 1 + 0.331 \\cdot 9,\\ 0.669 \\cdot 2 + 0.331 \\cdot 8] = [3.648,\\ 4.316]`` (heldout10's Korean
    note; V = [[1, 2], [9, 8]]): the coefficients are weights row 0 rounded, [0.66976, 0.33024] (0.669 and 0.331 are
    off in the last digit: wrong), the list after ``=`` output row 0, [3.6419, 3.9814]: 3.648 and 4.316 wrong (the
    arithmetic of the wrong weights excuses neither), and --fix writes the arithmetic of the fixed weights, 0.670·1 +
    0.330·9 = 3.640 and 0.670·2 + 0.330·8 = 3.980, so the fixed line is arithmetically true (docs/course.md)."""
    from attnwalk.check import check_text
    from attnwalk.check.fix import fixed_text
    from attnwalk.scenario import load_scenario

    opts = load_scenario(CAT)
    note = ("$$[0.669 \\cdot 1 + 0.331 \\cdot 9,\\ 0.669 \\cdot 2 + 0.331 \\cdot 8] = [3.648,\\ 4.316]$$\n")
    wrong = sorted(r.text for r in check_text(note, opts).wrong)
    assert wrong == sorted(["0.669", "0.331", "0.669", "0.331", "3.648", "4.316"])
    fixed = fixed_text(note, lambda t: check_text(t, opts))
    assert fixed.endswith("= [3.640,\\ 3.980]$$\n") and "0.670 \\cdot 2 + 0.330 \\cdot 8" in fixed
    assert not check_text(fixed, opts).wrong
    assert not check_text(fixed, opts).wrong
    # other values than V's columns are no such sum: left to the arithmetic reader (right arithmetic)
    other = "$$[0.669 \\cdot 3 + 0.331 \\cdot 9,\\ 0.669 \\cdot 2 + 0.331 \\cdot 8] = [4.986,\\ 3.986]$$\n"
    assert not check_text(other, opts).wrong
