"""The sixth held-out round (tests/corpus/heldout6): eight real public notes check had never seen (seven Spanish, one
Turkish), measured once before any change (FIRST_RUN.md: 21 of 61 wrong numbers found, 2 false positives). Here: no
false positive on any of them, the recall benchmarks/heldout.py prints, the notes' own setups recomputed with torch,
``--fix`` converging to torch's numbers, and each widened reader called directly against values derived by hand
(exact fractions) or with torch.

The truth is torch's: tests/corpus/heldout/truth.py recomputes each claimed tensor from the note's scenario tables
(never through attnwalk's engine), and a number is wrong when it is off by more than half a unit of its last printed
digit (DESIGN §7, widened by float32 rounding).
"""

import math
from fractions import Fraction
from pathlib import Path

import pytest
from conftest import heldout_tools
from conftest import torch64 as _t

from attnwalk.api import walk
from attnwalk.check import check_file, check_text, notations
from attnwalk.scenario import load_scenario

torch = pytest.importorskip("torch", reason="torch is not installed on this machine: pip install torch==2.13.0")

CORPUS = Path(__file__).resolve().parent / "corpus"
HELDOUT6 = CORPUS / "heldout6"
NOTES = sorted(p.stem for p in HELDOUT6.glob("*.md") if p.with_suffix(".toml").exists())

truth, bench = heldout_tools()


def test_the_guides_weights_were_rounded_the_wrong_way():
    """Q = K = V = [[1, 0], [0.5, 0.5], [0, 1]], scores / sqrt(2): frame 1's weights are 0.4555, 0.3199, 0.2246 (the
    guide: 0.47, 0.33, 0.20) and its output [0.6155, 0.3845] (the guide, from its own weights: [0.64, 0.37])."""
    x = _t([[1, 0], [0.5, 0.5], [0, 1]])
    a = torch.softmax(x @ x.T / math.sqrt(2), -1)
    assert [f"{w:.4f}" for w in a[0].tolist()] == ["0.4555", "0.3199", "0.2246"]
    assert [f"{w:.4f}" for w in (a @ x)[0].tolist()] == ["0.6155", "0.3845"]
    assert torch.allclose(a[1], torch.full((3,), 1 / 3, dtype=torch.float64))
    # the guide's output is the sum of its own rounded weights, exactly: consistent with them, wrong for torch
    assert Fraction("0.47") + Fraction("0.33") * Fraction("0.5") == Fraction("0.635")


def test_the_solutions_exponential_and_sums_are_off_in_the_fourth_place():
    """The scaled score is 1/(2 sqrt 2) = 0.353553: its exponential is 1.42412 (the solution: 1.4243), the row sum
    4.45223 (4.4524), the output row [2.72868, 3.72868] (2.7288, 3.7288: the NumPy print it says to expect shows
    2.7287), and the third row exactly [3, 4] (2.9997, 3.9996 from weights rounded to 0.3333)."""
    q, k, v = _t([[1, 0], [0, 1], [1, 1]]), _t([[1, 0], [0, 1], [0.5, 0.5]]), _t([[1, 2], [3, 4], [5, 6]])
    s = q @ k.T / math.sqrt(2)
    assert f"{math.exp(s[0, 2]):.5f}" == "1.42412" and f"{torch.exp(s[0]).sum():.5f}" == "4.45223"
    out = torch.softmax(s, -1) @ v
    assert [f"{x:.5f}" for x in out[0].tolist()] == ["2.72868", "3.72868"]
    assert torch.allclose(out[2], _t([3, 4]))
    wrong = truth.torch_wrong(HELDOUT6, "es_bootcamp_solution_exp_rows")[0]
    assert {(41, "1.4243"), (42, "4.4524"), (89, "2.9997"), (151, "2.7288")} <= set(wrong)


def test_the_logs_softmax_row_and_the_slides_outputs():
    """softmax([1, 2, 0, 1]) = [0.1966, 0.5344, 0.0723, 0.1966] (the log: 0.18, 0.49, 0.07, 0.26), and the slides'
    unscaled softmax of [1, 2] is [0.269, 0.731] (0.3, 0.7: right), so Z's first row is [0.807, 2.193] (0.9, 2.1)."""
    a = torch.softmax(_t([1, 2, 0, 1]), -1)
    assert [f"{w:.4f}" for w in a.tolist()] == ["0.1966", "0.5344", "0.0723", "0.1966"]
    q, k, v = _t([[1, 0, 2], [0, 1, 0]]), _t([[1, 1, 0], [0, 1, 1]]), _t([[3, 0, 0], [0, 3, 0]])
    assert (q @ k.T).tolist() == [[1.0, 2.0], [1.0, 1.0]]
    z = torch.softmax(q @ k.T, -1) @ v
    assert [f"{x:.3f}" for x in z[0].tolist()] == ["0.807", "2.193", "0.000"]
    assert sorted(truth.torch_wrong(HELDOUT6, "es_manim_slides_value_strings")[0]) == [(91, "0.9"), (91, "2.1")]


def test_the_turkish_notes_decimal_commas_are_right():
    """softmax([2.3, -0.7]) = [0.9526, 0.0474]: ``≈ 0,95`` and ``≈ 0,05`` are right (FIRST_RUN's 2 false
    positives: each read as ``0``)."""
    a = torch.softmax(_t([2.3, -0.7]), -1)
    assert [f"{w:.2f}" for w in a.tolist()] == ["0.95", "0.05"]
    assert not truth.torch_wrong(HELDOUT6, "tr_obsidian_logits_decimal_comma")[0]
    report = check_file(HELDOUT6 / "tr_obsidian_logits_decimal_comma.md",
                        load_scenario(HELDOUT6 / "tr_obsidian_logits_decimal_comma.toml"))
    assert not report.wrong and {(15, "0"), (16, "0")} <= {(r.line, r.text) for r in report.verified}


def test_fix_leaves_a_decimal_comma_alone(tmp_path):
    """A wrong ``≈ 0,75`` is reported, but ``--fix`` would rewrite its integer part only (``1,75``): it is left."""
    note = tmp_path / "note.md"
    note.write_text("- Yumurta: $\\frac{9.97}{10.47} ≈ 0,75$\n", encoding="utf-8")
    opts = load_scenario(HELDOUT6 / "tr_obsidian_logits_decimal_comma.toml")
    report = check_file(note, opts, fix="write")
    assert [(r.line, r.text) for r in report.wrong] == [(1, "0")]
    assert note.read_text(encoding="utf-8") == "- Yumurta: $\\frac{9.97}{10.47} ≈ 0,75$\n"


# ---------------------------------------------------------------- the widened readers, called directly

def test_decimal_commas_are_told_from_thousands_and_lists():
    text = "a ≈ 0,95 and %0,24; e^{10} = 22,026 but 1,5 too; [1,0] and (1,2) are lists\n"
    got = notations.decimal_commas(text)
    assert [(text[s:s + len(w)], w, v) for s, w, v in got] == [("0", "0", "0.95"), ("0", "0", "0.24"),
                                                              ("1", "1", "1.5")]
    # a leading 0 is never thousands: ``0,952`` is left to decimal_commas, ``22,026`` stays thousands
    assert notations.thousands_numbers("x ≈ 0,952") == []
    assert notations.thousands_numbers("= 22,026") == [(2, 8, 22026.0)]
    assert notations._arith_value("(9.97)/(10.47)") == Fraction(997, 1047)
    assert notations._arith_value("attn") is None and notations._arith_value("e^(2.3)") is None


def test_a_decimal_comma_is_judged_as_the_whole_number():
    """9.97 / 10.47 = 0.952244... exactly: ``0,95`` is right at two places, ``0,94`` wrong, ``0,952`` right at
    three; before, each was read as ``0`` and called wrong against 1."""
    assert f"{float(Fraction(997, 1047)):.6f}".startswith("0.95224")
    opts = load_scenario(HELDOUT6 / "tr_obsidian_logits_decimal_comma.toml")
    for shown, ok in (("0,95", True), ("0,94", False), ("0,952", True)):
        report = check_text(f"- Yumurta: $\\frac{{9.97}}{{10.47}} ≈ {shown}$\n", opts)
        assert (not report.wrong) == ok, shown
        if not ok:
            assert report.wrong[0].checks == [(False, "(9.97)/(10.47)", "0,95")]


def test_coefficients_restating_a_wrong_printed_row_are_judged_as_that_query():
    """``α ≈ [[0.47, 0.33, 0.20], ...`` then ``z₁ = 0.47·[1,0] + 0.33·[0.5,0.5] + 0.20·[0,1] = [0.64, 0.37]``: the
    coefficients are off by more than rounding from every query's weights, but they restate α's first printed row,
    which check judged as query 1's: so they are query 1's weights (0.46, 0.32, 0.22 to their digits) and the sum
    its output (torch: [0.6155, 0.3845], so 0.62, 0.38)."""
    opts = load_scenario(HELDOUT6 / "es_doc_frames_rounded_softmax.toml")
    text = ("```\nα = softmax(e) ≈ [[0.47, 0.33, 0.20],\n                  [0.33, 0.33, 0.33],\n"
            "                  [0.20, 0.33, 0.47]]\n\n"
            "z₁ = 0.47·[1,0] + 0.33·[0.5,0.5] + 0.20·[0,1] = [0.64, 0.37]\n```\n")
    wrong = {(r.line, r.text): r.checks[-1][2] for r in check_text(text, opts).wrong}
    assert {k: v for k, v in wrong.items() if k[0] == 6} == {(6, "0.47"): "0.46", (6, "0.33"): "0.32",
                                                              (6, "0.20"): "0.22", (6, "0.64"): "0.62",
                                                              (6, "0.37"): "0.38"}
    # a row printed nowhere above: the coefficients stay the note's own assumption, verified as arithmetic
    alone = "```\nz₁ = 0.47·[1,0] + 0.33·[0.5,0.5] + 0.20·[0,1] = [0.64, 0.37]\n```\n"
    assert not check_text(alone, opts).wrong


def test_a_before_after_pair_under_a_softmax_is_its_softmax():
    """``antes:  [0.8, 0.3, 0.1]  -- puntuaciones crudas`` then ``después: [0.57, 0.29, 0.14]``: softmax([0.8, 0.3,
    0.1]) = [0.4755, 0.2884, 0.2361] (torch), so 0.29 is right and 0.57, 0.14 wrong; a pair that does not sum to 1
    (the scores scaled) or with no softmax named nearby is left unread."""
    w = torch.softmax(_t([0.8, 0.3, 0.1]), -1)
    assert [f"{x:.2f}" for x in w.tolist()] == ["0.48", "0.29", "0.24"]
    text = ("Para cada fila, el softmax convierte las puntuaciones:\n\n```\nantes:  [0.8, 0.3, 0.1]  -- puntuaciones "
            "crudas\ndespués: [0.57, 0.29, 0.14]  -- pesos que suman 1\n```\n")
    hits: dict = {}
    notations.softmax_calls(text, None, hits, [])
    assert sorted((h.line, h.text, h.ok, h.fix) for h in hits.values()) == [
        (5, "0.14", False, "0.24"), (5, "0.29", True, None), (5, "0.57", False, "0.48")]
    for other in (text.replace("[0.57, 0.29, 0.14]", "[0.4, 0.15, 0.05]"), text.replace("el softmax convierte", "")):
        hits = {}
        notations.softmax_calls(other, None, hits, [])
        assert hits == {}


def test_a_suma_under_exp_lines_is_the_rows_sum_of_exponentials():
    """``exp(0.7071) = 2.0281`` / ``exp(0.0000) = 1.0000`` / ``exp(0.3536) = 1.4243`` then ``Suma = 4.4524``: the
    exponents are row 0 of the scaled scores (1/sqrt 2, 0, 1/(2 sqrt 2)), so the sum is torch's Σ e^s = 4.45223
    (4.4522 to its digits); the note adds exponentials of rounded scores and is off in the last place."""
    s = _t([[1 / math.sqrt(2), 0.0, 1 / (2 * math.sqrt(2))]])
    assert f"{torch.exp(s).sum():.4f}" == "4.4522"
    opts = load_scenario(HELDOUT6 / "es_bootcamp_solution_exp_rows.toml")
    text = "```\nexp(0.7071) = 2.0281\nexp(0.0000) = 1.0000\nexp(0.3536) = 1.4243\nSuma = 4.4524\n```\n"
    hits: dict = {}
    notations.exponential_sums(text, walk(**opts), hits, [])
    assert [(h.line, h.text, h.ok, h.fix) for h in hits.values()] == [(5, "4.4524", False, "4.4522")]
    hits = {}
    notations.exponential_sums(text.replace("4.4524", "4.4522"), walk(**opts), hits, [])
    assert [(h.line, h.ok) for h in hits.values()] == [(5, True)]
