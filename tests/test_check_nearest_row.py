"""The one choice of the weights row printed coefficients restate (``notations._nearest_row``), shared by the
readers of weighted sums written term by term (``rounded_weight_sums``) and entry by entry
(``entrywise_weighted_sums``): hand-made weights, the expected rows derived by hand."""

import numpy as np

from attnwalk.check.notations import _nearest_row

ATTN = np.array([[0.5, 0.25, 0.25],
                 [0.5, 0.25, 0.25],  # the same row as query 0 (two queries attending alike)
                 [0.125, 0.375, 0.5],
                 [0.125, 0.625, 0.25]])


def test_the_row_within_the_coefficients_rounding_is_chosen():
    assert _nearest_row(ATTN, [0, 1, 2], np.array([0.13, 0.38, 0.5]), ["0.13", "0.38", "0.50"]) == 2
    # 0.02 off at two places: beyond 0.01 (and one unit of the last digit, 0.01): no row
    assert _nearest_row(ATTN, [0, 1, 2], np.array([0.15, 0.4, 0.5]), ["0.15", "0.40", "0.50"]) is None
    # one decimal: one unit of it (0.1) is the reach
    assert _nearest_row(ATTN, [0, 1, 2], np.array([0.1, 0.6, 0.3]), ["0.1", "0.6", "0.3"]) == 3


def test_two_equal_rows_are_one_reading_and_two_different_equally_near_rows_none():
    assert _nearest_row(ATTN, [0, 1, 2], np.array([0.5, 0.25, 0.25]), ["0.5", "0.25", "0.25"]) == 0
    # two different rows exactly as near (0.0625, within the reach of one decimal, 0.1): no reading
    tied = np.array([[0.4375, 0.5625], [0.5625, 0.4375]])
    assert _nearest_row(tied, [0, 1], np.array([0.5, 0.5]), ["0.5", "0.5"]) is None
    # the same rows once more, one of them twice: still two readings
    assert _nearest_row(tied[[0, 0, 1]], [0, 1], np.array([0.5, 0.5]), ["0.5", "0.5"]) is None
