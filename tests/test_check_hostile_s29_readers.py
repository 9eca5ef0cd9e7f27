"""Hostile input on this session's readers (check/token_words.py, label_chains.py, line_rows.py, raw_softmax.py): a
note of k repeated pieces, all on one line or one a line, costs a check linear work (tests/hostile.py's bounds: the
calls at twice the size, the CPU at four times). A reader that scans a line again for each match on it (the softmax
of a raw row asked its line's context once per word: 5.6 s at 4,000 pieces where 0.26 s without it) fails here."""

from __future__ import annotations

import pytest
from hostile import assert_calls_linear, assert_cpu_linear

ONE = {"variant": "sdpa", "source": "direct", "heads": 1, "scale": "sqrt_dk", "q": [[1, 0], [0, 1], [1, 1]],
       "k": [[1, 1], [0, 2], [1, 0]], "v": [[1, 0], [0, 1], [2, 1]]}
TWO = {"variant": "sdpa", "source": "direct", "heads": 2, "scale": "sqrt_dk", "q": [[1, 0, 0, 1], [0, 1, 1, 1]],
       "k": [[1, 1, 1, 0], [0, 2, 1, 1]], "v": [[1, 0, 2, 1], [0, 1, 0, 3]]}
DECLARED = "Câu có 3 token: *Tôi*, *yêu*, *mèo*.\n\nTrọng số:\n\n"

CASES = {
    "raw_softmax_one_line": (lambda k: "từ hàng [1, 2, 0] thì softmax cho [0.2447, 0.6652, 0.0900] " * k + "\n", ONE),
    "raw_softmax_lines": (lambda k: "từ hàng [1, 2, 0] thì softmax cho [0.2447, 0.6652, 0.0900]\n" * k, ONE),
    "raw_softmax_words": (lambda k: "[1, 2, 0] " + "softmax " * k + "[0.2447, 0.6652, 0.0900]\n", ONE),
    "line_rows_one_line": (lambda k: "Head 1, weights: " + "row 1 = [0.6698, 0.3302], " * k + "\n", TWO),
    "line_rows_lines": (lambda k: "Head 1, weights: row 1 = [0.6698, 0.3302], row 2 = [0.5, 0.5]\n" * k, TWO),
    "declared_rows_items": (lambda k: DECLARED + "- *yêu*: **0.2840**, **0.5760**, **0.1400**\n" * k, ONE),
    "declared_rows_one_line": (lambda k: DECLARED + "từng hàng: " + "yêu = 1, 2, 0; " * k + "\n", ONE),
    "declared_words": (lambda k: "3 token: " + "*a*, " * k + "\n", ONE),
    "label_chains": (lambda k: "Head 1\n" + "O_1 = A_1 V = [[0.6698, 0.3302], [0.5, 0.5]]\n" * k, TWO),
    "label_chain_formula": (lambda k: "O_1 = " + "A_1 " * k + "= [[0.6698, 0.3302], [0.5, 0.5]]\n", TWO),
}


@pytest.mark.parametrize("name", list(CASES))
def test_calls_grow_linearly(name):
    assert_calls_linear(*CASES[name])


@pytest.mark.parametrize("name", list(CASES))
def test_cpu_grows_linearly(name):
    assert_cpu_linear(*CASES[name])
