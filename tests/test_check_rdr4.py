"""Session 30's reading fixes on hand-made notes: the general arithmetic reader's claim binding and --fix of a wrong
integer (host3's findings). Expected values from torch (float64) or exact arithmetic, never from attnwalk's engine."""

import pytest

from attnwalk.check import check_text

torch = pytest.importorskip("torch", reason="torch is not installed on this machine: pip install torch==2.13.0")

SDPA = {"variant": "sdpa"}


def _exp(x: float) -> float:
    return torch.exp(torch.tensor(x, dtype=torch.float64)).item()


def _wrong(note: str) -> list:
    return [(r.line, r.text, r.failure()[1], r.fix[0] if r.fix else None) for r in check_text(note, SDPA).wrong]


def _status(note: str) -> dict:
    return {(r.line, r.text): r.status for r in check_text(note, SDPA).recs}


def test_a_result_after_a_comma_and_another_name_is_not_the_claims():
    """``exp(1.4142) = x, y = -0``: -0 is y's value, not exp(1.4142)'s (4.11325, torch): nothing called wrong, -0
    left unjudged; the same exp with its own value before the comma is still judged (4.1133: e^x of an x within
    1.4142's rounding; 4.1233 wrong, fixed to 4.1132)."""
    assert f"{_exp(1.4142):.4f}" == "4.1132" and f"{_exp(1.41425):.4f}" == "4.1134"
    assert _wrong("Ta có exp(1.4142) = x, y = -0 ở đây.\n") == []
    assert _status("Ta có exp(1.4142) = x, y = -0 ở đây.\n")[(1, "-0")] == "unknown"
    assert _status("exp(1.4142) = 4.1133, y = 2\n") == {(1, "1.4142"): "verified", (1, "4.1133"): "verified",
                                                       (1, "2"): "unknown"}
    assert _wrong("exp(1.4142) = 4.1233, y = 2\n") == [(1, "4.1233", "4.1132", "4.1132")]


def test_a_formula_with_a_subscripts_comma_still_binds_its_value():
    """``Σ_a,b P[a,b] · W[a,b] = 2 + 3 = 6``: the subscript's comma (no blank after it) ends nothing, so the value
    after the formula is still the sum's (2 + 3 = 5, exact)."""
    assert _wrong("Then s = Σ_a,b P[a,b] · W[a,b] = 2 + 3 = 6 here.\n") == [(1, "6", "5", "5")]


@pytest.mark.parametrize("note, expected", [
    ("a 2.5 * 1 = 2 b\n", "2.500"),     # 2.5 rounds half to even to 2: the old fix was the printed text
    ("q 7 / 2 = 4 r\n", "3.500"),       # 3.5 to 4: the same
    ("exp(2) = 7\n", "7.389"),          # e² = 7.38906 (torch) rounds to 7
    ("c 0.5 * 1 = 1 d\n", "0.500"),     # the old fix, 0, was wrong again (0 ≠ 0.5)
    ("u 1 / 3 = 1 v\n", "0.333"),
    ("2 - 3 = 1\n", "-1"),              # an exact integer stays an integer
    ("i 2 * 3 = 7000000000000000000001 j\n", "6"),
])
def test_a_wrong_integers_fix_is_the_value_the_report_gives_never_its_own_text(note, expected, tmp_path):
    """An integer after ``=`` claims an exact value: where the value is no integer, the report and --fix give it with
    decimals (it was fixed to the value rounded to units: the printed text itself for 2.5 and 3.5 and e², so --fix
    wrote nothing while check called the number wrong); a second run finds nothing wrong."""
    assert f"{_exp(2.0):.3f}" == "7.389"
    (line, text, shown, fix), = _wrong(note)
    assert shown == fix == expected and fix != text
    fixed = note.replace(f"= {text}", f"= {fix}")
    assert _wrong(fixed) == []


def test_an_integer_after_approx_is_still_rounded_to_units():
    """``10 / 4 ≈ 2`` is right (2.5 to units either way); ``10 / 4 ≈ 4`` is wrong, its fix the units (2, half to even
    of the exact 2.5, which ≈ 2 then verifies)."""
    assert _wrong("10 / 4 ≈ 2\n") == []
    assert _wrong("10 / 4 ≈ 4\n") == [(1, "4", "2", "2")]


HELLO = [[0.34, 0.22, 0.54], [0.53, 0.34, 0.98], [0.29, 0.54, 0.93]]  # "Hello shiny sun!" (heldout17's pages)
DIRECT = {"variant": "sdpa", "source": "direct", "heads": 1, "scale": "none", "q": HELLO, "k": HELLO, "v": HELLO}


def _torch_row1():
    x = torch.tensor(HELLO, dtype=torch.float64)
    a = torch.softmax(x @ x.T, dim=-1)
    return a[1].tolist(), (a @ x)[1].tolist()


STEPS = ("3. Context vector (weighted sum):\n"
         "   - = 0.233×[0.34, 0.22, 0.54] + 0.401×[0.53, 0.34, 0.98] + 0.366×[0.29, 0.54, 0.93]\n"
         "   - = [0.399, 0.386, 0.861]\n")


def test_a_sums_result_on_the_next_list_item_is_the_output_row():
    """A derivation in list items, each opening with ``=``: the item below the weighted sum is its result, query 1's
    output (torch: [0.3990, 0.3854, 0.8610]); 0.386 is wrong both as the tensor and as the arithmetic of the printed
    weights (0.38524), which are wrong themselves; its fix is the arithmetic of the fixed weights (docs/course.md,
    results of printed arithmetic: 0.229×0.22 + 0.406×0.34 + 0.365×0.54 = 0.38552, so the text stays 0.386 and the
    fixed line adds up); the right entries are verified, not left unread."""
    w, o = _torch_row1()
    assert [f"{x:.3f}" for x in w] == ["0.229", "0.406", "0.365"]
    assert [f"{x:.3f}" for x in o] == ["0.399", "0.385", "0.861"]
    assert f"{0.233 * 0.22 + 0.401 * 0.34 + 0.366 * 0.54:.5f}" == "0.38524"
    report = check_text(STEPS, DIRECT)
    at3 = {r.text: (r.status, r.fix) for r in report.recs if r.line == 3}
    assert at3 == {"0.399": ("verified", None), "0.386": ("wrong", ("0.386", "label")),
                   "0.861": ("verified", None)}
    assert f"{0.229 * 0.22 + 0.406 * 0.34 + 0.365 * 0.54:.5f}" == "0.38552"
    assert [(r.line, r.text) for r in report.wrong] == [(2, "0.233"), (2, "0.401"), (2, "0.366"), (3, "0.386")]
    fixed = STEPS.replace("0.233", "0.229").replace("0.401", "0.406").replace("0.366", "0.365")
    assert check_text(fixed, DIRECT).wrong == []
    assert check_text(fixed.replace("0.386", "0.385"), DIRECT).wrong == []  # torch's value: right too


def test_a_list_item_result_below_a_sum_that_is_no_item_step_stays_unread():
    """The same result item under a sum that is not itself an item opening with ``=`` (a heading's sum): a lone
    ``- = [..]`` may be anything, so nothing is read from it."""
    note = STEPS.replace("   - = 0.233", "Context = 0.233")
    assert {r.text: r.status for r in check_text(note, DIRECT).recs if r.line == 3} == {
        "0.399": "unknown", "0.386": "unknown", "0.861": "unknown"}


ALIGN = ("$$\\begin{align*} e^{0.7842} &= 2.1902 \\\\ e^{1.3569} &= 3.8841 \\\\ e^{1.2487} &= 3.4858 "
         "\\end{align*}$$\n\n"
         "Sum: 2.1902 + 3.8841 + 3.4858 = 9.5601, again 2.1902+3.8841+3.4858=9.5601\n")


def test_exponentials_of_an_aligned_score_row_and_every_sum_restating_them():
    """KaTeX's align source ``e^{0.7842} &= 2.1902``: the exponents are query 1's scores (torch: 0.7842, 1.3569,
    1.2487, exact), so each value is e^ŝ of its cell (torch 2.19065, 3.88413, 3.48581) and not only arithmetic of its
    operand: 2.1902 is wrong (fixed to 2.1907). Each sum of the line below that restates the values digit for digit
    is judged, both copies: 2.1902 wrong as the value it restates, and the total 9.5601 (the terms' arithmetic, one
    of them wrong) against torch's row sum 9.5606."""
    x = torch.tensor(HELLO, dtype=torch.float64)
    s = (x @ x.T)[1]
    assert [f"{v:.4f}" for v in s.tolist()] == ["0.7842", "1.3569", "1.2487"]
    assert [f"{v:.4f}" for v in s.exp().tolist()] == ["2.1907", "3.8841", "3.4858"]
    assert f"{s.exp().sum().item():.4f}" == "9.5606"
    report = check_text(ALIGN, DIRECT)
    assert [(r.line, r.text, r.fix[0]) for r in report.wrong] == [
        (1, "2.1902", "2.1907"), (3, "2.1902", "2.1907"), (3, "9.5601", "9.5606"), (3, "2.1902", "2.1907"),
        (3, "9.5601", "9.5606")]
    fixed = ALIGN.replace("2.1902", "2.1907").replace("9.5601", "9.5606")
    assert check_text(fixed, DIRECT).wrong == []


PRODUCTS = ("Weighted embeddings:\n\n"
            "- 0.2291 × [0.34, 0.22, 0.54] = [0.0779, 0.0504, 0.1237]\n"
            "- 0.4064 × [0.53, 0.34, 0.98] = [0.2156, 0.1382, 0.3983]\n"
            "- 0.3645 × [0.29, 0.54, 0.93] = [0.1057, 0.1972, 0.3390]\n\n"
            "Summing: [0.0779 + 0.2156 + 0.1057, \\ 0.0504 + 0.1382 + 0.1972, \\ 0.1237 + 0.3983 + 0.3390] = "
            "[0.3992, 0.3858, 0.8610]\n")


def test_weighted_values_summed_entry_by_entry_below_their_products():
    """Each weight times its value row one a line, then the sums entry by entry and the output row: the terms restate
    the products digit for digit, so each is judged as its weighted value (torch: 0.21532, 0.13813, 0.39814, 0.19688,
    0.33908 for the wrong ones, the weights 0.4064 and 0.3645 being off: 0.40626, 0.36460), and the output row
    against torch's [0.39897, 0.38539, 0.86095] (0.3992 and 0.3858 wrong: their terms hold wrong values)."""
    x = torch.tensor(HELLO, dtype=torch.float64)
    a = torch.softmax(x @ x.T, dim=-1)[1]
    weighted = a[:, None] * x
    assert [f"{w:.4f}" for w in a.tolist()] == ["0.2291", "0.4063", "0.3646"]
    assert [f"{w:.4f}" for w in weighted.T.reshape(-1).tolist()] == [
        "0.0779", "0.2153", "0.1057", "0.0504", "0.1381", "0.1969", "0.1237", "0.3981", "0.3391"]
    assert [f"{o:.4f}" for o in (a @ x).tolist()] == ["0.3990", "0.3854", "0.8610"]
    report = check_text(PRODUCTS, DIRECT)
    at7 = [(r.text, r.status, r.fix[0] if r.fix else None) for r in report.recs if r.line == 7]
    assert at7 == [("0.0779", "verified", None), ("0.2156", "wrong", "0.2153"), ("0.1057", "verified", None),
                   ("0.0504", "verified", None), ("0.1382", "wrong", "0.1381"), ("0.1972", "wrong", "0.1969"),
                   ("0.1237", "verified", None), ("0.3983", "wrong", "0.3981"), ("0.3390", "wrong", "0.3391"),
                   # the sums' fixes: their fixed terms' arithmetic (0.0779 + 0.2153 + 0.1057), right by either
                   ("0.3992", "wrong", "0.3989"), ("0.3858", "wrong", "0.3854"), ("0.8610", "verified", None)]


def test_a_sum_whose_terms_restate_no_products_stays_arithmetic():
    """Terms in another order than the products' keys, or another number among them: the reader reads nothing, and
    the arithmetic reader alone verifies the sums as printed."""
    for note in (PRODUCTS.replace("0.0779 + 0.2156 + 0.1057", "0.2156 + 0.0779 + 0.1057"),
                 PRODUCTS.replace("0.0779 + 0.2156 + 0.1057", "0.0780 + 0.2156 + 0.1056")):
        assert [r.text for r in check_text(note, DIRECT).wrong if r.line == 7] == []


SKILL = ("1. **Attention scores** (dot products with \"shiny\" as query):\n"
         "   - Hello: 0.34×0.53 + 0.22×0.34 + 0.54×0.98 = 0.775\n"
         "   - shiny: 0.53×0.53 + 0.34×0.34 + 0.98×0.98 = 1.317\n"
         "   - sun: 0.29×0.53 + 0.54×0.34 + 0.93×0.98 = 1.225\n\n"
         "2. **Apply softmax** to get weights:\n"
         "   - exp(0.775) = 2.170\n"
         "   - exp(1.317) = 3.732\n"
         "   - exp(1.225) = 3.405\n"
         "   - Sum = 9.307\n"
         "   - Weights: [0.233, 0.401, 0.366]\n")


def test_exponentials_of_scores_found_wrong_above_are_that_rows():
    """The exponents restate the dot products found wrong above (torch's scores of query 1: 0.7842, 1.3569, 1.2487),
    so the run is that row worked on from wrong scores: each exponent wrong as its score, each value wrong as its
    e^s (torch 2.1907, 3.8841, 3.4858; exp(0.775) = 2.1706 is no excuse, its operand being wrong), the sum as
    Σ e^s (9.5606) and the weights as the row's softmax (0.2291, 0.4063, 0.3646)."""
    x = torch.tensor(HELLO, dtype=torch.float64)
    s = (x @ x.T)[1]
    assert [f"{v:.3f}" for v in s.tolist()] == ["0.784", "1.357", "1.249"]
    assert [f"{v:.3f}" for v in s.exp().tolist()] == ["2.191", "3.884", "3.486"]
    assert f"{s.exp().sum().item():.3f}" == "9.561"
    assert [f"{v:.3f}" for v in torch.softmax(s, dim=-1).tolist()] == ["0.229", "0.406", "0.365"]
    report = check_text(SKILL, DIRECT)
    assert [(r.line, r.text, r.fix[0]) for r in report.wrong if r.line >= 6] == [
        (7, "0.775", "0.784"), (7, "2.170", "2.191"), (8, "1.317", "1.357"), (8, "3.732", "3.884"),
        (9, "1.225", "1.249"), (9, "3.405", "3.486"), (10, "9.307", "9.561"), (11, "0.233", "0.229"),
        (11, "0.401", "0.406"), (11, "0.366", "0.365")]
    fixed = SKILL
    for a, b in (("0.775", "0.784"), ("1.317", "1.357"), ("1.225", "1.249"), ("2.170", "2.191"), ("3.732", "3.884"),
                 ("3.405", "3.486"), ("9.307", "9.561"), ("0.233", "0.229"), ("0.401", "0.406"), ("0.366", "0.365")):
        fixed = fixed.replace(a, b)
    assert check_text(fixed, DIRECT).wrong == []


def test_exponentials_of_numbers_not_found_wrong_or_of_no_score_row_stay_arithmetic():
    """Exponents that restate no wrong number (no dot products above), or wrong numbers whose expected values are no
    row of the scores (the products' order changed: no row reads 1.357, 0.784, 1.249 in order), or a run of one
    exponential: the values stay the arithmetic of their printed operands (exp(0.775) = 2.1706 within 0.775's
    rounding), nothing more called wrong."""
    below = SKILL.split("2. ")[1]
    swapped = SKILL.replace("   - Hello: 0.34×0.53 + 0.22×0.34 + 0.54×0.98 = 0.775\n   - shiny: "
                            "0.53×0.53 + 0.34×0.34 + 0.98×0.98 = 1.317\n",
                            "   - shiny: 0.53×0.53 + 0.34×0.34 + 0.98×0.98 = 0.775\n   - Hello: "
                            "0.34×0.53 + 0.22×0.34 + 0.54×0.98 = 1.317\n")
    one = SKILL.replace("   - exp(1.317) = 3.732\n   - exp(1.225) = 3.405\n", "")
    for note in (below, swapped, one):
        report = check_text(note, DIRECT)
        assert not [r for r in report.wrong if "exp(" in note.split("\n")[r.line - 1]], note
