"""Hostile input on session 30's reading rules (check/expr.py's opaque formula ended at a comma and a blank,
check/notations.py's result on the list item below a weighted sum, its right values verified, and its exponentials
of an aligned row, check/exponentials.py's every sum restating them,
check/weighted_rows.py's products summed entry by entry below them, check/restated_scores.py): a note of k repeated
pieces, all on one line or one a line, costs a check linear work (tests/hostile.py's bounds: the calls at twice the
size, the CPU at four times)."""

from __future__ import annotations

import pytest
from hostile import assert_calls_linear, assert_cpu_linear

HELLO = [[0.34, 0.22, 0.54], [0.53, 0.34, 0.98], [0.29, 0.54, 0.93]]
DIRECT = {"variant": "sdpa", "source": "direct", "heads": 1, "scale": "none", "q": HELLO, "k": HELLO, "v": HELLO}
SUM = "   - = 0.233×[0.34, 0.22, 0.54] + 0.401×[0.53, 0.34, 0.98] + 0.366×[0.29, 0.54, 0.93]\n"

PRODUCTS = ("- 0.2291 × [0.34, 0.22, 0.54] = [0.0779, 0.0504, 0.1237]\n"
            "- 0.4064 × [0.53, 0.34, 0.98] = [0.2156, 0.1382, 0.3983]\n"
            "- 0.3645 × [0.29, 0.54, 0.93] = [0.1057, 0.1972, 0.3390]\n")
ENTRY_SUM = "[0.0779+0.2156+0.1057, 0.0504+0.1382+0.1972, 0.1237+0.3983+0.3390]=[0.3992,0.3858,0.8610] "

SCORES = ("- Hello: 0.34×0.53 + 0.22×0.34 + 0.54×0.98 = 0.775\n"
          "- shiny: 0.53×0.53 + 0.34×0.34 + 0.98×0.98 = 1.317\n"
          "- sun: 0.29×0.53 + 0.54×0.34 + 0.93×0.98 = 1.225\n")
EXPS = ("- exp(0.775) = 2.170\n- exp(1.317) = 3.732\n- exp(1.225) = 3.405\n- Sum = 9.307\n"
        "- Weights: [0.233, 0.401, 0.366]\n")

CASES = {
    "comma_names_one_line": (lambda k: "exp(1.4142) = x, y = -0, " * k + "\n", DIRECT),
    "comma_names_lines": (lambda k: "exp(1.4142) = x, y = -0\n" * k, DIRECT),
    "comma_blanks": (lambda k: "exp(1.4142) = x" + ", " * k + "y = -0\n", DIRECT),
    "opaque_commas": (lambda k: "s = Σ_a,b " + "P[a,b] · " * k + "= 2 + 3 = 6\n", DIRECT),
    "integer_results": (lambda k: "7 / 2 = 4, " * k + "\n", DIRECT),
    "item_steps": (lambda k: (SUM + "   - = [0.399, 0.386, 0.861]\n") * k, DIRECT),
    "item_results": (lambda k: SUM + "   - = [0.399, 0.386, 0.861]\n" * k, DIRECT),
    "item_marks": (lambda k: SUM + "   " + "- " * k + "= [0.399, 0.386, 0.861]\n", DIRECT),
    "aligned_exps": (lambda k: "e^{0.7842} &= 2.1902 \\\\ e^{1.3569} &= 3.8841 \\\\ " * k + "\n", DIRECT),
    "aligned_blanks": (lambda k: "e^{0.7842}" + " " * k + "&" + " " * k + "x\n", DIRECT),
    "restated_sums": (lambda k: "e^{0.7842} &= 2.1902, e^{1.3569} &= 3.8841, e^{1.2487} &= 3.4858\n"
                      + "2.1902 + 3.8841 + 3.4858 = 9.5601, " * k + "\n", DIRECT),
    "summed_below": (lambda k: PRODUCTS + ENTRY_SUM * k + "\n", DIRECT),
    "summed_below_lines": (lambda k: PRODUCTS + (ENTRY_SUM + "\n") * k, DIRECT),
    "summed_below_products": (lambda k: PRODUCTS * k + ENTRY_SUM + "\n", DIRECT),
    "restated_scores_runs": (lambda k: SCORES + EXPS * k, DIRECT),
    "restated_scores_many": (lambda k: SCORES * k + EXPS * k, DIRECT),
    "restated_scores_one_line": (lambda k: SCORES + "exp(0.775) = 2.170, " * k + "\n- Sum = 9.307\n", DIRECT),
}


@pytest.mark.parametrize("name", list(CASES))
def test_calls_grow_linearly(name):
    assert_calls_linear(*CASES[name])


@pytest.mark.parametrize("name", list(CASES))
def test_cpu_grows_linearly(name):
    assert_cpu_linear(*CASES[name])
