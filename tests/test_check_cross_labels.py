"""Keys and values of a cross-attention's memory (encoder) positions named ``K(m0)``, ``V(m_1)``, and weights
``α(p0 → m2)`` with spaces: read where the trace is a cross-attention (more or fewer keys than queries), never in
a self-attention, where m0, m1, .. name nothing.

The setup (heldout14's cross-attention): two queries q = [[1, 2], [2, 0]] over three keys k = [[1, 0], [0, 1],
[2, 1]], values v = [[1, 0], [0, 1], [1, 1]], d_k = 2. torch: scores k q_t = (1, 2, 4) and (2, 0, 4), / √2, softmax:
α_1 = (0.08804, 0.17836, 0.73360), α_2 = (0.18670, 0.04539, 0.76791).
"""
import pytest

from attnwalk.check import check_text

CROSS = dict(variant="sdpa", source="direct", heads=1, scale="sqrt_dk", q=[[1, 2], [2, 0]],
             k=[[1, 0], [0, 1], [2, 1]], v=[[1, 0], [0, 1], [1, 1]])
SELF = {**CROSS, "q": [[1, 2], [2, 0], [0, 1]]}  # three queries over the same three keys: a self-attention

NOTE = ("Keys and values of the encoder:\n\n- K(m0) = [1, 0]\n- K(m2) = [2, 1]\n- V(m1) = [0, 1]\n- V(m_2) = [1, 1]\n\n"
        "Weights: α(p0 → m1) = 0.1784, α(p1 → m2) = 0.7679\n")


def _verdicts(report) -> list[tuple[int, str, str]]:
    return [(r.line, r.text, r.status) for r in report.recs]


def test_memory_keys_values_and_spaced_weights_are_read_in_a_cross_attention():
    report = check_text(NOTE, CROSS)
    assert report.wrong == []
    assert [(ln, t) for ln, t, s in _verdicts(report) if s == "verified"] == [
        (3, "1"), (3, "0"), (4, "2"), (4, "1"), (5, "0"), (5, "1"), (6, "1"), (6, "1"), (8, "0.1784"), (8, "0.7679")]


@pytest.mark.parametrize(("right", "planted", "found"), [
    ("K(m2) = [2, 1]", "K(m2) = [2, 2]", "2"),  # a key copied wrong (torch: k_3 = (2, 1))
    ("V(m1) = [0, 1]", "V(m1) = [1, 1]", "1"),  # a value of the wrong position (v_2 = (0, 1))
    ("α(p1 → m2) = 0.7679", "α(p1 → m2) = 0.7337", "0.7337"),  # query 2's weight taken from query 1's row
])
def test_a_wrong_memory_number_is_found(right, planted, found):
    report = check_text(NOTE.replace(right, planted), CROSS)
    assert [r.text for r in report.wrong] == [found]


def test_memory_positions_name_nothing_in_a_self_attention():
    report = check_text(NOTE.replace("[2, 1]", "[2, 2]"), SELF)
    assert report.wrong == []
    assert all(s == "unknown" for ln, _, s in _verdicts(report) if ln < 8)


@pytest.mark.parametrize("label", ["Q(m0)", "Out(m1)", "O(m0)", "α(m0 → p1)"])
def test_queries_and_outputs_are_at_no_memory_position(label):
    report = check_text(f"{label} = [1, 2]\n", CROSS)
    assert report.wrong == [] and report.verified == []
