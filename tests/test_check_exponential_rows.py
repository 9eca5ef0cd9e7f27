"""A row of exponentials of printed scores (check/exponentials.py): a value no claim of its own reads, and the sum
below that restates the row's values, each judged as torch's e^ŝ and Σ e^ŝ, so that ``--fix`` mends the term before
the sum (heldout13's thread: ``e^0.5 ≈ 1.648`` and ``2.718 + 1.648 + .. = 7.419`` fixed to 7.428, a sum of a wrong
term, where torch's row sum is 7.4286). Hand-made texts; every expected value is torch's, in float64."""

import math

import pytest
from conftest import rounded as _r
from conftest import torch64 as _t

from attnwalk.check import check_file, check_text

torch = pytest.importorskip("torch", reason="torch is not installed on this machine: pip install torch==2.13.0")

# two query rows of given scores, softmaxed × 1/2 (÷ √d_k, d_k = 4)
OPTS = {"variant": "sdpa", "source": "scores", "scale": 0.5, "scores": [[1.2, 0.4, -0.6], [0.8, 2.0, 0.0]],
        "v": [[1, 0], [0, 1], [1, 1]]}


def _exp_rows():
    """(e^ŝ rows, Σ e^ŝ per row) as torch computes them: no maximum subtracted, as a hand calculation writes them."""
    e = torch.exp(_t(OPTS["scores"]) * OPTS["scale"])
    return e, e.sum(-1)


def test_the_torch_values_the_texts_print():
    e, total = _exp_rows()
    assert _r(e[0].tolist(), 3) == ["1.822", "1.221", "0.741"]
    assert _r(e[1].tolist(), 3) == ["1.492", "2.718", "1.000"]
    assert _r(total.tolist(), 3) == ["3.784", "5.210"]
    # the printed terms of row 2 add to 5.210 too; a term printed one unit low (2.717) makes them 5.209
    assert f"{1.492 + 2.718 + 1.000:.3f}" == "5.210" and f"{1.492 + 2.717 + 1.000:.3f}" == "5.209"


def test_a_row_of_exponentials_parted_by_a_middle_dot_is_judged_value_by_value():
    """``e^0.4 ≈ 1.492 · e^1.0 ≈ 2.717 · e^0.0 ≈ 1.000``: the expression reader takes ``1.492 · e^1.0`` for a product
    and reads no claim of 2.717 of its own; as a value of the row of exponentials it is e^ŝ[1, 1] = 2.7183 (torch),
    wrong at its printed digits, fixed to 2.718. The same row printed right is verified throughout."""
    e, _ = _exp_rows()
    wrong = check_text("Row 2: e^0.4 ≈ 1.492 · e^1.0 ≈ 2.717 · e^0.0 ≈ 1.000\n", OPTS)
    assert [(r.text, r.failure()[1], r.fix) for r in wrong.wrong] == [("2.717", f"{e[1, 1]:.3f}", ("2.718", "label"))]
    right = check_text("Row 2: e^0.4 ≈ 1.492 · e^1.0 ≈ 2.718 · e^0.0 ≈ 1.000\n", OPTS)
    assert not right.wrong and {r.text for r in right.recs if r.status == "verified"} >= {"1.492", "2.718", "1.000"}


def test_a_value_rounding_its_printed_exponent_stays_right():
    """The convention on results of printed arithmetic: ``e^0.6 ≈ 1.822`` where ŝ is 0.6 exactly; and a value that
    rounds e^ of its printed, rounded exponent but not torch's e^ŝ is right too (e^0.20 = 1.2214, printed 1.221)."""
    text = "e^0.6 ≈ 1.822 · e^0.2 ≈ 1.221 · e^(−0.3) ≈ 0.741\n"
    assert not check_text(text, OPTS).wrong


def test_the_sum_below_restates_the_row_a_wrong_term_and_its_total_are_judged_as_torchs():
    """``1.492 + 2.717 + 1.000 = 5.209`` under the row: the arithmetic reader alone verifies 5.209 (the printed
    terms do add to it) and --fix would keep the wrong 2.717. Restating the row, its 2.717 is e^ŝ[1, 1] (2.718) and
    5.209 is Σ e^ŝ[1] = 5.2100 (torch): both wrong, each fixed to torch's."""
    e, total = _exp_rows()
    text = "Row 2: e^0.4 ≈ 1.492 · e^1.0 ≈ 2.717 · e^0.0 ≈ 1.000\n\nSum: 1.492 + 2.717 + 1.000 = 5.209\n"
    r = check_text(text, OPTS)
    assert [(x.line, x.text, x.failure()[1]) for x in r.wrong] == [
        (1, "2.717", f"{e[1, 1]:.3f}"), (3, "2.717", f"{e[1, 1]:.3f}"), (3, "5.209", f"{total[1]:.3f}")]


def test_fix_mends_the_term_and_the_sum_at_once(tmp_path):
    """One ``--fix`` leaves a clean note whose every number is torch's: the term first, the sum its row's."""
    e, total = _exp_rows()
    note = tmp_path / "n.md"
    note.write_text("Row 2: e^0.4 ≈ 1.492 · e^1.0 ≈ 2.717 · e^0.0 ≈ 1.000\n\nSum: 1.492 + 2.717 + 1.000 = 5.209\n",
                    encoding="utf-8")
    report = check_file(note, OPTS, fix="write")
    assert not report.wrong
    want = _r([e[1, 0], e[1, 1], e[1, 2]], 3)
    assert note.read_text(encoding="utf-8") == (f"Row 2: e^0.4 ≈ {want[0]} · e^1.0 ≈ {want[1]} · e^0.0 ≈ {want[2]}\n\n"
                                                f"Sum: {' + '.join(want)} = {total[1]:.3f}\n")


def test_a_total_rounding_the_rows_sum_is_right_where_the_printed_terms_add_to_another():
    """Row 1's terms 1.822 + 1.221 + 0.741 add to 3.784, torch's Σ e^ŝ is 3.7837: 3.784 is right both ways. Exact
    hand-derived: the terms at two places, 1.82 + 1.22 + 0.74 = 3.78, under a total at three places, 3.784 (torch's
    sum, not the terms' arithmetic): right by the convention, not wrong by the arithmetic reader."""
    _, total = _exp_rows()
    assert f"{total[0]:.3f}" == "3.784" and f"{1.82 + 1.22 + 0.74:.3f}" == "3.780"
    text = "Row 1: e^0.6 ≈ 1.82, e^0.2 ≈ 1.22, e^-0.3 ≈ 0.74\nso 1.82 + 1.22 + 0.74 ≈ 3.784\n"
    r = check_text(text, OPTS)
    assert not r.wrong and [x.status for x in r.recs if x.text == "3.784"] == ["verified"]


def test_a_sum_whose_terms_restate_no_row_is_left_to_the_arithmetic_reader():
    """Terms that are not the row's printed values (another order) are no restatement: only the arithmetic of the
    printed terms judges the total (1.000 + 2.717 + 1.492 = 5.209, right as arithmetic)."""
    text = "Row 2: e^0.4 ≈ 1.492 · e^1.0 ≈ 2.717 · e^0.0 ≈ 1.000\n\nSum: 1.000 + 2.717 + 1.492 = 5.209\n"
    r = check_text(text, OPTS)
    assert [(x.line, x.text) for x in r.wrong] == [(1, "2.717")]


def test_the_mantissa_of_a_power_of_ten_is_no_value():
    """``e^{22.627}≈7.5×10^9`` (heldout11's Chinese note): the 7.5 is no exponential; a row whose values are such
    products gets no verdict on the mantissa. Exact: e^(16√2) = 6.7137e9."""
    assert f"{math.exp(16 * math.sqrt(2)):.4e}" == "6.7137e+09"
    opts = {"variant": "sdpa", "source": "scores", "scale": 1.0, "scores": [[2 * math.sqrt(2), 16 * math.sqrt(2)]],
            "v": [[1, 0], [0, 1]]}
    r = check_text("e^{2.828}≈16.91, e^{22.627}≈7.5×10^9\n", opts)
    assert [x.status for x in r.recs if x.text == "7.5"] == ["unknown"]


def test_a_phrase_after_the_row_states_its_sum():
    """``exp(0.6) = 1.8221, exp(0.2) = 1.2214, exp(-0.3) = 0.7408, which sum to 3.7843`` (heldout15's Keras page: a
    digit slip, 5.4696 for 5.4669): the number after the phrase is Σ e^ŝ[0] (torch 3.78433), wrong where it rounds
    neither that nor the sum of the right printed values, fixed to torch's."""
    e, total = _exp_rows()
    assert _r(e[0].tolist(), 4) == ["1.8221", "1.2214", "0.7408"] and f"{total[0]:.4f}" == "3.7843"
    row = "Row 1 by hand: exp(0.6) = 1.8221, exp(0.2) = 1.2214, exp(-0.3) = 0.7408, which sum\nto {}, and so on.\n"
    assert not check_text(row.format("3.7843"), OPTS).wrong
    r = check_text(row.format("3.7834"), OPTS)
    assert [(x.text, x.failure()[1], x.fix) for x in r.wrong] == [("3.7834", f"{total[0]:.4f}", ("3.7843", "label"))]


def test_a_phrase_followed_by_the_sum_written_out_is_no_total_of_its_own():
    """``which sum to 1.822+1.221+0.741=3.784`` (heldout10's textbook): the number after the phrase is the first term
    of the sum written out, not the total; the terms restate the row and the total adds them (3.784, torch 3.7843):
    nothing wrong. With a term slipped (1.221 -> 1.212) the terms no longer restate the row: the arithmetic reader
    judges 3.784 against 1.822+1.212+0.741 = 3.775 (exact)."""
    row = "exp(0.6)≈1.822, exp(0.2)≈1.221, exp(-0.3)≈0.741, which sum to 1.822+{}+0.741={}.\n"
    assert not check_text(row.format("1.221", "3.784"), OPTS).wrong
    assert [(x.text, x.failure()[1]) for x in check_text(row.format("1.212", "3.784"), OPTS).wrong] == [
        ("3.784", "3.775")]


def test_the_row_sum_named_after_the_row():
    """``e^{0.4} ≈ 1.4918 against e^{1.0} ≈ 2.7183 and e^{0.0} ≈ 1.0000, so the row sum is 5.2110`` (heldout14's
    AsciiDoc page: a digit slip, 678.3341 for 678.3241): Σ e^ŝ[1] is 5.2101 (torch): 5.2110 is wrong, 5.2101 right."""
    _, total = _exp_rows()
    assert f"{total[1]:.4f}" == "5.2101"
    row = ("For row 2: $e^{{0.4}} \\approx 1.4918$ against $e^{{1.0}} \\approx 2.7183$ and "
           "$e^{{0.0}} \\approx 1.0000$, "
           "so the row sum is {}.\n")
    assert not check_text(row.format("5.2101"), OPTS).wrong
    assert [(x.text, x.failure()[1]) for x in check_text(row.format("5.2110"), OPTS).wrong] == [("5.2110", "5.2101")]
