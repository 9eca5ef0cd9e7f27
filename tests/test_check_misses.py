"""The held-out rounds' listed misses (heldout8, heldout9 FIRST_RUN.md "What it missed"), each rule called on a small
hand-made text whose values are derived by hand or with torch (never copied from attnwalk's engine).

The setup of most texts is the KTU exam's (tests/corpus/heldout8/en_exam_notes_ktu_three_tokens.toml): X = [[1, 0,
1], [0, 2, 0], [1, 1, 1]], Q = X W_Q = [[2, 0], [0, 2], [2, 1]], K = [[0, 2], [2, 0], [1, 2]], V = [[2, 1], [0, 2],
[2, 2]], so Q Kᵀ = [[0, 4, 2], [4, 0, 4], [2, 4, 4]] and the scaled scores' row 1 is [0, 2√2, √2].
"""

import math

import pytest

from attnwalk.api import walk
from attnwalk.check import check_text, forms, human, notations

torch = pytest.importorskip("torch", reason="torch is not installed on this machine: pip install torch==2.13.0")

KTU = {"variant": "sdpa", "source": "project", "weight_layout": "in_out", "heads": 1,
       "x": [[1, 0, 1], [0, 2, 0], [1, 1, 1]], "w_q": [[1, 0], [0, 1], [1, 0]], "w_k": [[0, 1], [1, 0], [0, 1]],
       "w_v": [[1, 1], [0, 1], [1, 0]]}


def _ktu_torch():
    f = torch.float64
    x = torch.tensor(KTU["x"], dtype=f)
    q, k, v = (x @ torch.tensor(KTU[w], dtype=f) for w in ("w_q", "w_k", "w_v"))
    s = q @ k.T / math.sqrt(2)
    a = torch.softmax(s, -1)
    return s, a, a @ v


def _verdicts(text: str, options: dict = KTU) -> list[tuple[int, str, str, str | None]]:
    """(line, printed, status, fix) of every record of ``text`` checked against ``options``."""
    report = check_text(text, options)
    return [(r.line, r.text, r.status, r.fix and r.fix[0]) for r in report.recs]


# ---------------------------------------------------------------- check.exponentials


def test_the_exponentials_of_a_printed_score_row_are_claims_about_e_to_the_scores():
    """Row 1's exponents 0, 2.828, 1.414 print the scaled scores [0, 2√2, √2] (each rounded): e^(2√2) = 16.919,
    so 16.952 is wrong and --fix writes 16.919, not the printed operand's exp(2.828) = 16.912; e^√2 = 4.1133 and
    exp(1.414) = 4.1123, so 4.114 rounds neither exactly but stays right (the operand's arithmetic holds within its
    rounding: accept either, never a right number called wrong)."""
    s, _, _ = _ktu_torch()
    assert [f"{v:.3f}" for v in s[0].tolist()] == ["0.000", "2.828", "1.414"]
    assert f"{math.exp(2 * math.sqrt(2)):.3f}" == "16.919" and f"{math.exp(2.828):.3f}" == "16.912"
    text = "**Row 1:** $\\exp(0)=1.000$, $\\exp(2.828)=16.952$, $\\exp(1.414)=4.114$\n"
    got = _verdicts(text)
    assert (1, "16.952", "wrong", "16.919") in got
    (failing,) = [r for r in check_text(text, KTU).recs if r.status == "wrong"]
    assert failing.failure() == ("e^scores_scaled[0, 1]", "16.919")  # the report's expected value: the fix's
    assert (1, "4.114", "verified", None) in got
    assert (1, "1.000", "verified", None) in got


def test_an_exponential_whose_line_prints_no_score_row_stays_arithmetic_of_its_operand():
    """2.500 and 0.500 are no cells of the scaled scores: exp(2.500) = 12.182 (the note's 12.300 is wrong as
    arithmetic and fixed to the operand's value), exp(0.500) = 1.649 is right."""
    assert f"{math.exp(2.5):.3f}" == "12.182"
    got = _verdicts("Try: $\\exp(2.500)=12.300$, $\\exp(0.500)=1.649$\n")
    assert (1, "12.300", "wrong", "12.182") in got
    assert (1, "1.649", "verified", None) in got


def test_one_exponential_alone_names_no_cell():
    """``\\exp(2.828)=16.952`` alone on its line: 2.828 rounds two cells of row 1 and 2 (no place named), so it is
    the arithmetic of its operand: fixed to exp(2.828) = 16.912."""
    got = _verdicts("A check: $\\exp(2.828)=16.952$\n")
    assert (1, "16.952", "wrong", "16.912") in got


# ---------------------------------------------------------------- forms._foreign_sections, human._SCALAR_FACTOR

SIDE_BY_SIDE = ("## Inputs\n\n$$\n\\mathbf{W}_{Q} = \\begin{bmatrix} 1 & 0 \\\\ 0 & 1 \\\\ 1 & 0 \\end{bmatrix},\\;\\; "
                "\\mathbf{W}_{K} = \\begin{bmatrix} 0 & 1 \\\\ 1 & 0 \\\\ 0 & 1 \\end{bmatrix},\\;\\; "
                "\\mathbf{W}_{V} = \\begin{bmatrix} 1 & 1 \\\\ 0 & 1 \\\\ 1 & 0 \\end{bmatrix}\n$$\n\n"
                "## Output\n\n$$\n\\boxed{\\mathbf{O} \\approx \\begin{bmatrix} 0.462 & 1.953 \\\\ 1.944 & 1.516 \\\\ "
                "1.108 & 1.892 \\end{bmatrix}}\n$$\n")


def test_matrices_side_by_side_are_each_named_by_the_words_since_the_last_one():
    """``W_Q = [..],\\; W_K = [..]`` on one line: W_K is named by ``W_{K}`` (the words since the last ``\\end{..}``),
    not by the W_Q before it, so it is no other example's W_Q (torch: the note's W's are the scenario's)."""
    trace = walk(**KTU)
    assert forms.foreign_sections(SIDE_BY_SIDE, trace) == []


def test_a_boxed_bold_o_is_judged_as_the_output():
    """Torch's output of the setup: [[0.4642, 1.9546], [1.9426, 1.5144], [1.1084, 1.8916]]: the note's 0.462,
    1.953, 1.944, 1.516 (worked out from its rounded weights) are wrong, 1.108 and 1.892 right."""
    _, _, o = _ktu_torch()
    assert [[f"{v:.3f}" for v in row] for row in o.tolist()] == [["0.464", "1.955"], ["1.943", "1.514"],
                                                                 ["1.108", "1.892"]]
    got = [(t, st, fix) for ln, t, st, fix in _verdicts(SIDE_BY_SIDE) if ln == 10]
    assert got == [("0.462", "wrong", "0.464"), ("1.953", "wrong", "1.955"), ("1.944", "wrong", "1.943"),
                   ("1.516", "wrong", "1.514"), ("1.108", "verified", None), ("1.892", "verified", None)]


SCALED = ("### Stage C — Scale by $1/\\sqrt{d_{k}} = 1/\\sqrt{2}$\n\n$$\n\\mathbf{S}' = \\frac{1}{\\sqrt{2}}"
          "\\begin{bmatrix} 0 & 4 & 2 \\\\ 4 & 0 & 4 \\\\ 2 & 4 & 4 \\end{bmatrix} \\approx \\begin{bmatrix} 0.000 & "
          "2.828 & 1.414 \\\\ 2.828 & 0.000 & 2.828 \\\\ 1.414 & 2.828 & 2.828 \\end{bmatrix}\n$$\n")


def test_a_matrix_after_a_scalar_factor_is_not_named_by_the_heading():
    """``S' = \\frac{1}{\\sqrt{2}} [Q Kᵀ] \\approx [..]``: the first matrix is Q Kᵀ (torch [[0, 4, 2], ...]), a
    factor of the scaled scores the heading names: never judged as them (its 4s are no wrong 2.828s); the second
    is the scaled scores, right."""
    s, _, _ = _ktu_torch()
    assert (s * math.sqrt(2)).round().tolist() == [[0, 4, 2], [4, 0, 4], [2, 4, 4]]
    blocks = human.latex_blocks(SCALED)
    assert not human.tensors_of(blocks[0].label)
    got = _verdicts(SCALED)
    assert [t for _, t, st, _ in got if st == "wrong"] == []
    assert [t for ln, t, st, _ in got if st == "verified" and "." in t] == ["0.000", "2.828", "1.414", "2.828",
                                                                           "0.000", "2.828", "1.414", "2.828", "2.828"]


# ---------------------------------------------------------------- forms.token_rows

ZH = {"variant": "sdpa", "source": "scores", "heads": 1, "scale": "none", "mask": "causal",
      "scores": [[0.5, 0.3, 0.8, 0.2], [0.1, 0.6, 0.4, 0.7], [0.2, 0.9, 0.5, 0.3], [0.3, 0.4, 0.6, 0.8]],
      "v": [[1.0, 0.0, 0.5, 0.2], [0.3, 0.8, 0.1, 0.6], [0.5, 0.4, 0.7, 0.3], [0.0, 0.0, 0.0, 0.0]],
      "kv_labels": ["<s>", "你", "好", "吗"]}


def _zh_torch():
    f = torch.float64
    s = torch.tensor(ZH["scores"], dtype=f).masked_fill(~torch.ones(4, 4, dtype=torch.bool).tril(), float("-inf"))
    a = torch.softmax(s, -1)
    return a, a @ torch.tensor(ZH["v"], dtype=f)


def test_a_row_named_by_its_token_in_quotes_is_that_tokens_row():
    """``"好"的注意力权重：[..]`` (full-width colon) is row 2 of the weights: torch softmax([0.2, 0.9, 0.5]) = [0.2290,
    0.4611, 0.3099, 0] (the note's 0.21, 0.50, 0.29 are wrong, 0.00 right); ``"好"的新向量 = .. = [..]`` is row 2
    of the output, [0.5223, 0.4928, 0.3775, 0.4155], and its coefficients restate the weights above."""
    a, o = _zh_torch()
    assert [f"{v:.2f}" for v in a[2].tolist()] == ["0.23", "0.46", "0.31", "0.00"]
    assert [f"{v:.2f}" for v in o[2].tolist()] == ["0.52", "0.49", "0.38", "0.42"]
    text = ("# \"好\"的注意力权重：[0.21, 0.50, 0.29, 0.00]\n"
            "# \"好\"的新向量 = 0.21×V_<s> + 0.50×V_你 + 0.29×V_好 = [0.51, 0.52, 0.36, 0.43]\n")
    got = [(ln, t, st, fix) for ln, t, st, fix in _verdicts(text, ZH) if st != "unknown"]
    assert got == [(1, "0.21", "wrong", "0.23"), (1, "0.50", "wrong", "0.46"), (1, "0.29", "wrong", "0.31"),
                   (1, "0.00", "verified", None),
                   (2, "0.21", "wrong", "0.23"), (2, "0.50", "wrong", "0.46"), (2, "0.29", "wrong", "0.31"),
                   (2, "0.51", "wrong", "0.52"), (2, "0.52", "wrong", "0.49"), (2, "0.36", "wrong", "0.38"),
                   (2, "0.43", "wrong", "0.42")]
    right = "# \"你\"的注意力权重：[0.38, 0.62, 0.00, 0.00]\n"  # softmax([0.1, 0.6]) = [0.3775, 0.6225]
    assert [f"{v:.2f}" for v in a[1].tolist()] == ["0.38", "0.62", "0.00", "0.00"]
    assert [st for _, _, st, _ in _verdicts(right, ZH)] == ["verified"] * 4


def test_a_quoted_word_that_is_no_token_or_no_tensor_names_no_row():
    """``"cat"`` is no token of the config, ``"好"的例子`` names no tensor: neither list is read."""
    text = ("# \"cat\"的注意力权重：[0.21, 0.50, 0.29, 0.00]\n"
            "# \"好\"的例子：[0.21, 0.50, 0.29, 0.00]\n")
    assert {st for _, _, st, _ in _verdicts(text, ZH)} == {"unknown"}


# ---------------------------------------------------------------- notations.rounded_weight_sums: ``\times``, ``$$``


def test_a_weighted_sum_written_with_times_in_a_display_is_the_output_row_it_restates():
    """``$$0.045 \\times [2, 1] + 0.768 \\times [0, 2] + 0.186 \\times [2, 2] = [0.462, 1.953]$$``: the note's own
    arithmetic of its rounded weights is right (0.090 + 0.372 = 0.462), but the coefficients restate torch's row 1
    of the weights, [0.0454, 0.7679, 0.1867] (0.186 is wrong), and the result its output row, [0.4642, 1.9546]."""
    _, a, o = _ktu_torch()
    assert [f"{v:.3f}" for v in a[0].tolist()] == ["0.045", "0.768", "0.187"]
    assert [f"{v:.3f}" for v in o[0].tolist()] == ["0.464", "1.955"]
    assert 0.045 * 2 + 0.186 * 2 == pytest.approx(0.462)
    text = "$$0.045 \\times [2, 1] + 0.768 \\times [0, 2] + 0.186 \\times [2, 2] = [0.462, 1.953]$$\n"
    got = {(t, st, fix) for _, t, st, fix in _verdicts(text) if "." in t}
    assert got == {("0.045", "verified", None), ("0.768", "verified", None), ("0.186", "wrong", "0.187"),
                   ("0.462", "wrong", "0.464"), ("1.953", "wrong", "1.955")}


# ---------------------------------------------------------------- notations.exponential_sums: displays, masked rows


def test_a_sum_in_its_own_display_below_the_exponentials_is_the_rows_sum_of_e_to_the_scores():
    """Row 3's scaled scores [√2, 2√2, 2√2] as ``e^{..} \\approx ..`` in one display, ``\\text{sum} = ..`` in the
    next: the sum is torch's e^√2 + 2 e^(2√2) = 37.951 (the note's 38.018 is wrong)."""
    s, _, _ = _ktu_torch()
    assert f"{torch.exp(s[2]).sum().item():.3f}" == "37.951"
    text = ("$$\ne^{1.414} \\approx 4.113, \\quad e^{2.828} \\approx 16.919, \\quad e^{2.828} \\approx 16.919\n$$\n\n"
            "$$\n\\text{sum} = 38.018\n$$\n")
    assert (6, "38.018", "wrong", "37.951") in _verdicts(text)


def test_a_sum_below_a_masked_rows_exponentials_adds_the_unmasked_ones():
    """``scores[1,:] = [0.5, 1.5, -inf]``, ``exp(0.5) = .., exp(1.5) = .., exp(-inf) = 0``, ``soma = 6.131``: the sum
    of the unmasked row's e^s is e^0.5 + e^1.5 = 6.1304 (6.131 is wrong; the -inf has no exponential read)."""
    opts = {"variant": "sdpa", "source": "scores", "heads": 1, "scale": "none", "mask": "causal",
            "scores": [[1.0, 2.0, 0.0], [0.5, 1.5, 3.0], [0.2, 0.1, 1.0]]}
    s = torch.tensor(opts["scores"], dtype=torch.float64)
    assert f"{(torch.exp(s[1, :2]).sum()).item():.3f}" == "6.130"
    text = ("```\nscores[1,:] = [0.5, 1.5, -inf]\nexp(0.5) = 1.649, exp(1.5) = 4.482, exp(-inf) = 0\nsoma = 6.131\n"
            "```\n")
    assert (4, "6.131", "wrong", "6.130") in _verdicts(text, opts)


# ---------------------------------------------------------------- notations.bold_letter_matrices: a plain capital


def test_a_matrix_named_by_a_plain_capital_is_its_tensor_where_most_numbers_agree():
    """``A = \\begin{bmatrix}..`` (a plain A, as the Traditional Chinese note names its weights): torch's weights of
    the setup, [[0.0454, 0.7679, 0.1867], [0.4856, 0.0287, 0.4856], [0.1084, 0.4458, 0.4458]]; the note's 0.186 is
    wrong, the 8 others right. A plain capital may name another matrix: where most numbers disagree it is unread."""
    _, a, _ = _ktu_torch()
    assert [[f"{v:.3f}" for v in row] for row in a.tolist()] == [["0.045", "0.768", "0.187"],
                                                                 ["0.486", "0.029", "0.486"],
                                                                 ["0.108", "0.446", "0.446"]]
    text = ("$$\nA = \\begin{bmatrix}\n0.045 & 0.768 & 0.186 \\\\\n0.486 & 0.029 & 0.486 \\\\\n"
            "0.108 & 0.446 & 0.446\n\\end{bmatrix}\n$$\n")
    got = [(t, st, fix) for _, t, st, fix in _verdicts(text) if "." in t]
    assert got == [("0.045", "verified", None), ("0.768", "verified", None), ("0.186", "wrong", "0.187")] + [
        (t, "verified", None) for t in ("0.486", "0.029", "0.486", "0.108", "0.446", "0.446")]
    other = text.replace("0.045 & 0.768 & 0.186", "0.5 & 0.2 & 0.3").replace("0.486 & 0.029 & 0.486", "0.1 & 0.1 & 0.8")
    assert {st for _, t, st, _ in _verdicts(other) if "." in t} == {"unknown"}
    for name in ("AV", "W_A", "K^A"):  # not a letter alone before the relation
        assert {st for _, t, st, _ in _verdicts(text.replace("A =", name + " ="), KTU) if "." in t} == {"unknown"}


# ---------------------------------------------------------------- forms.display_products: factors named by letters

PRODUCT = ("$$\nO = AV = \\begin{bmatrix}\n0.045 & 0.768 & 0.186 \\\\\n0.486 & 0.029 & 0.486 \\\\\n"
           "0.108 & 0.446 & 0.446\n\\end{bmatrix}\n\\begin{bmatrix}\n2 & 1 \\\\\n0 & 2 \\\\\n2 & 2\n"
           "\\end{bmatrix}\n$$\n")


def test_the_factors_of_a_product_named_by_letters_are_those_tensors():
    """``O = AV = [..][..]``: the first factor is the weights (torch's row 1 ends in 0.1867: the note's 0.186 is
    wrong), the second V = X W_V = [[2, 1], [0, 2], [2, 2]] (right)."""
    _, a, _ = _ktu_torch()
    v = torch.tensor(KTU["x"], dtype=torch.float64) @ torch.tensor(KTU["w_v"], dtype=torch.float64)
    assert v.tolist() == [[2, 1], [0, 2], [2, 2]] and f"{a[0, 2].item():.3f}" == "0.187"
    got = [(t, st, fix) for _, t, st, fix in _verdicts(PRODUCT)]
    assert got == [("0.045", "verified", None), ("0.768", "verified", None), ("0.186", "wrong", "0.187")] + [
        (t, "verified", None) for t in ("0.486", "0.029", "0.486", "0.108", "0.446", "0.446", "2", "1", "0", "2",
                                        "2", "2")]


def test_factors_without_as_many_letters_or_transposed_are_left_unread():
    """``O = [..][..]`` (no letters), ``O = AVW = [..][..]`` (three letters, two matrices), ``O = AV^T = ..`` (a
    transposed factor): no factor is named, its numbers stay unread."""
    for label in ("O = ", "O = AVW = ", "O = AV^T = "):
        got = _verdicts(PRODUCT.replace("O = AV = ", label))
        assert {st for _, t, st, _ in got if "." in t} == {"unknown"}, label


def test_a_weighted_sum_closed_by_dollar_and_period_is_the_output_row_it_restates():
    """``$0.045\\cdot[2,1] + 0.768\\cdot[0,2] + 0.186\\cdot[2,2] = .. = [0.462, 1.953]$.``: the sentence's period
    after the closing ``$``; torch's output row 1 is [0.4642, 1.9546]."""
    text = ("**Row 1:** $0.045\\cdot[2,1] + 0.768\\cdot[0,2] + 0.186\\cdot[2,2] = [0.090, 0.045] + [0.000, 1.536] + "
            "[0.372, 0.372] = [0.462, 1.953]$.\n")
    got = {(t, st, fix) for _, t, st, fix in _verdicts(text) if t in ("0.462", "1.953")}
    assert got == {("0.462", "wrong", "0.464"), ("1.953", "wrong", "1.955")}


def test_a_weighted_sum_of_value_columns_restates_the_weights_row():
    """``o_1 = 0.045 \\cdot \\begin{bmatrix}2\\\\1\\end{bmatrix} + ..``: V's rows written as LaTeX columns; the
    coefficients restate torch's weights row 1, [0.0454, 0.7679, 0.1867] (0.186 is wrong), the result is its output
    row [0.4642, 1.9546] (0.462 and 1.953 are wrong)."""
    col = "\\begin{bmatrix}%s\\\\%s\\end{bmatrix}"
    text = ("$$\no_1 = 0.045 \\cdot " + col % (2, 1) + " + 0.768 \\cdot " + col % (0, 2) + " + 0.186 \\cdot "
            + col % (2, 2) + " = \\begin{bmatrix} 0.462 \\\\ 1.953 \\end{bmatrix}\n$$\n")
    got = {(t, st, fix) for _, t, st, fix in _verdicts(text) if st == "wrong"}
    assert got == {("0.186", "wrong", "0.187"), ("0.462", "wrong", "0.464"), ("1.953", "wrong", "1.955")}
    assert notations._vectors_as_lists(col % (2, 1)) == "[" + " " * 14 + "2, 1" + " " * 12 + "]"
    matrix = "\\begin{bmatrix}1 & 0\\\\0 & 1\\end{bmatrix}"  # a matrix is no vector: left as it is
    assert notations._vectors_as_lists(matrix) == matrix


def test_the_factors_of_a_product_named_by_the_formula_on_the_line_above():
    """``### Output $H = A V \\in ..$`` then ``$$H = [..][..]$$``: the letters of the line above name the factors
    (the weights: 0.186 wrong; V right); another name above (``$O = A V$``) names nothing."""
    text = PRODUCT.replace("$$\nO = AV = ", "### Output $H = A V \\in \\mathbb{R}^{3 \\times 2}$\n$$\nH = ")
    got = [(t, st, fix) for _, t, st, fix in _verdicts(text) if "." in t]
    assert got == [("0.045", "verified", None), ("0.768", "verified", None), ("0.186", "wrong", "0.187")] + [
        (t, "verified", None) for t in ("0.486", "0.029", "0.486", "0.108", "0.446", "0.446")]
    other = text.replace("$H = A V", "$O = A V")
    assert {st for _, t, st, _ in _verdicts(other) if "." in t} == {"unknown"}


# ---------------------------------------------------------------- human._own_weight

LE_CHAT = {"variant": "sdpa", "source": "direct", "heads": 1, "scale": "sqrt_dk", "q": [[1, 0], [0, 1], [1, 1]],
           "k": [[1, 0], [0, 1], [1, 1]], "v": [[1, 0], [0, 1], [1, 1]], "labels": ["Le", "chat", "dort"]}


def test_a_tokens_weight_on_itself_said_in_prose():
    """``"dort" accorde .. son attention (0.504) à lui-même``: dort's scores [1, 1, 2] / √2, softmax = [e^(1/√2),
    e^(1/√2), e^√2] / Σ, its own weight 0.5035 (0.504 is wrong, 0.503 right); a sentence naming two tokens, or none,
    names no query."""
    q = torch.tensor(LE_CHAT["q"], dtype=torch.float64)
    a = torch.softmax(q @ q.T / math.sqrt(2), -1)
    assert f"{a[2, 2].item():.4f}" == "0.5035"
    text = "Sans surprise, \"dort\" accorde plus de la moitié de son attention (%s) à lui-même.\n"
    assert [(t, st) for _, t, st, _ in _verdicts(text % "0.504", LE_CHAT)] == [("0.504", "wrong")]
    assert [(t, st) for _, t, st, _ in _verdicts(text % "0.503", LE_CHAT)] == [("0.503", "verified")]
    two = "\"Le\" et \"dort\" donnent (0.504) à lui-même.\n"
    assert [st for _, _, st, _ in _verdicts(two, LE_CHAT)] == ["unknown"]


# ---------------------------------------------------------------- notations.indexed_rows: ``\alpha_1 = [..]``


def test_a_weight_row_named_by_alpha_and_one_subscript():
    """``\\alpha_1 = [..]``: row 1 of the weights (torch [0.0454, 0.7679, 0.1867]: 0.186 wrong), counted from 1
    unless the note names an ``\\alpha_0`` (then ``\\alpha_1`` is row 2, [0.4856, 0.0287, 0.4856])."""
    text = "$$\n\\alpha_1 = [0.045, 0.768, 0.186]\n$$\n"
    assert [(t, st) for _, t, st, _ in _verdicts(text)] == [("0.045", "verified"), ("0.768", "verified"),
                                                          ("0.186", "wrong")]
    zero = "$$\n\\alpha_0 = [0.045, 0.768, 0.187]\n$$\n\n$$\n\\alpha_1 = [0.486, 0.029, 0.486]\n$$\n"
    assert {st for _, t, st, _ in _verdicts(zero) if "." in t} == {"verified"}


# ---------------------------------------------------------------- forms.word_tuples, Russian words

RU = {"variant": "sdpa", "source": "direct", "heads": 1, "scale": "sqrt_dk", "q": [[1, 0]],
      "k": [[1, 0], [0, 1], [1, 1]], "v": [[1, 2], [3, 4], [5, 6]]}


def test_a_tuple_after_a_word_naming_a_one_row_tensor():
    """``→ веса $(0.401, 0.198, 0.401)$``: the one query's weights, softmax([1, 0, 1] / √2) = [0.4011, 0.1978,
    0.4011] (right); ``(0.41, 0.18, 0.41)`` would be mostly wrong: unread (a tuple of another example)."""
    q, k = torch.tensor(RU["q"], dtype=torch.float64), torch.tensor(RU["k"], dtype=torch.float64)
    a = torch.softmax(q @ k.T / math.sqrt(2), -1)
    assert [f"{v:.3f}" for v in a[0].tolist()] == ["0.401", "0.198", "0.401"]
    text = "Softmax: сумма 5.06 → веса $(%s)$.\n"
    got = [(t, st) for _, t, st, _ in _verdicts(text % "0.401, 0.198, 0.401", RU) if t != "5.06"]
    assert got == [("0.401", "verified"), ("0.198", "verified"), ("0.401", "verified")]
    got = [(t, st) for _, t, st, _ in _verdicts(text % "0.41, 0.18, 0.41", RU) if t != "5.06"]
    assert {st for _, st in got} == {"unknown"}
