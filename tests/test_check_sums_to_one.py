"""``human.sums_to_one``: the one "rows sum to 1" test of printed numbers (``program._rows_sum_to_one``, the softmax
readers of ``forms`` and ``notations``), each number's rounding derived by hand, exponent notation included."""

from attnwalk.check.human import Cell, _value, sums_to_one
from attnwalk.check.program import _rows_sum_to_one


def _sums(*texts):
    return sums_to_one([_value(t) for t in texts])


def test_rounded_weights_sum_to_one_within_half_a_unit_each():
    assert _sums("0.33", "0.33", "0.33")  # 0.99: 0.01 off, slack 3 x 0.005 = 0.015
    assert not _sums("0.33", "0.33", "0.32")  # 0.98: 0.02 off
    assert _sums("0.3", "0.3", "0.3")  # 0.9: slack 0.15
    assert not _sums("0.30", "0.30", "0.30")  # 0.9 at two places: slack 0.015
    assert _sums("33%", "33%", "34%") and not _sums("30%", "30%", "30%")


def test_exponent_notation_counts_its_places_from_the_exponent():
    assert _sums("5e-1", "5.0E-1") and _sums("2.5e-1", "7.5e-1")
    assert not _sums("2.50e-1", "7.40e-1")  # 0.99, places 3 and 3: slack 0.001
    # 2e1 is 20 to the tens (15..25): a negative number of places, half a unit 5 each; 20 - 18 = 2 within 10
    assert _sums("2e1", "-1.8e1")
    assert not _sums("2.0e1", "-1.80e1")  # one and two places: slack 0.5 + 0.05


def test_program_reads_each_row():
    cells = [Cell(t, k) for k, t in enumerate(["0.25", "0.75", "2e1", "-1.8e1"])]
    assert _rows_sum_to_one(cells, (2, 2))
    cells = [Cell(t, k) for k, t in enumerate(["0.25", "0.75", "0.50", "0.60"])]
    assert not _rows_sum_to_one(cells, (2, 2))
