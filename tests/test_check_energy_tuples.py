"""``e_t = (..)``, the energies (scaled scores) of decoder step t written as a tuple (Bahdanau-style notes,
heldout14's cross-attention notes): row t of the scaled scores (``notation.TUPLE_ROW_SYMBOLS``), judged only where
most of the note's such tuples agree, so that unit vectors named e_1, e_2 are left alone.

The setup: queries q = [[1, 2], [2, 0]] over keys k = [[1, 0], [0, 1], [2, 1]], d_k = 2. torch (float64): k·q_t =
(1, 2, 4) and (2, 0, 4), / √2: e_1 = (0.70711, 1.41421, 2.82843), e_2 = (1.41421, 0, 2.82843).
"""
from attnwalk.check import check_text

CROSS = dict(variant="sdpa", source="direct", heads=1, scale="sqrt_dk", q=[[1, 2], [2, 0]],
             k=[[1, 0], [0, 1], [2, 1]], v=[[1, 0], [0, 1], [1, 1]])


def test_energy_tuples_are_the_scaled_score_rows():
    text = "- $t = 1$: $e_1 = (0.7071, 1.4142, 2.8284)$\n- $t = 2$: $e_2 = (1.4142, 0.0000, {x})$\n"
    right = check_text(text.format(x="2.8284"), CROSS)
    assert right.wrong == [] and len(right.verified) == 6
    forgot = check_text(text.format(x="4.0000"), CROSS)  # √2 forgotten for the third key (4 / 1)
    assert [(r.text, r.failure()[1]) for r in forgot.wrong] == [("4.0000", "2.8284")]


def test_unit_vectors_named_e_are_left_alone():
    report = check_text("Basis: $e_1 = (1, 0, 0)$, $e_2 = (0, 1, 0)$.\n", CROSS)
    assert report.wrong == [] and report.verified == []


def test_rows_below_a_right_second_step_are_not_its_weights():
    """Both steps' energies right, then ``exp(e_1)`` and α_1 below them: neither is step 2's weights (e^ŝ are no
    weights, α_1 is step 1's row; before, rows_after_scores called all six right numbers wrong: attn[1]). torch:
    e^ŝ of step 1 = (2.0281, 4.1133, 16.9188), sum 23.0602; α_1 = (0.0879, 0.1784, 0.7337)."""
    text = ("**Điểm.**\n\n- $t = 1$: $e_1 = (0.7071, 1.4142, 2.8284)$\n- $t = 2$: $e_2 = (1.4142, 0.0000, 2.8284)$\n\n"
            "**Trọng số chú ý** $\\alpha_t = \\mathrm{softmax}(e_t)$:\n\n"
            "- $t = 1$: $\\exp(e_1) = (2.0281, 4.1133, 16.9188)$, tổng $= 23.0602$\n"
            "  $\\alpha_1 = (0.0879, 0.1784, 0.7337)^\\top$\n")
    assert check_text(text, CROSS).wrong == []
    planted = check_text(text.replace("(0.0879, 0.1784, 0.7337)", "(0.0879, 0.1784, 0.7537)"), CROSS)
    assert [r.text for r in planted.wrong] in ([], ["0.7537"])  # not judged as step 2's row either way
