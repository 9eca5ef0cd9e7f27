"""Hostile notes for session 30's readers of other people's notes (check/equal_numbers.py, exact_inputs.py,
challenge_cases.py, open_brackets.py, weighted_rows.py, token_words.py, label_chains.py, line_rows.py, raw_softmax.py,
``tf.constant`` literals, ``softmax(..) ≈ [..]``): linear work, no crash, no traceback, and invariants of their
verdicts (the blanks of a chain, a given operand against one a digit off, --fix twice, CRLF line ends).

Work is asserted with tests/hostile.py's helpers (function calls at two sizes; CPU time, best of three, in up to three
pairs). Expected values are computed here by NumPy in float64 from each setup (softmax of the scaled scores, no
engine), as torch computes them.
"""

from __future__ import annotations

import math
import time
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
from hostile import assert_calls_linear, assert_cpu_linear, assert_grows_linearly
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

SHINY = [[0.34, 0.22, 0.54], [0.53, 0.34, 0.98], [0.29, 0.54, 0.93]]  # heldout17's "Hello shiny sun!": Q = K = V
SH = {"variant": "sdpa", "source": "direct", "heads": 1, "scale": "none", "q": SHINY, "k": SHINY, "v": SHINY}
# three tokens over two dimensions (tests/test_check_token_words.py's setup)
ONE = {"variant": "sdpa", "source": "direct", "heads": 1, "scale": "sqrt_dk", "q": [[1, 0], [0, 1], [1, 1]],
       "k": [[1, 1], [0, 2], [1, 0]], "v": [[1, 0], [0, 1], [2, 1]]}
# two heads of two dimensions (tests/test_check_line_rows.py's setup)
TWO = {"variant": "sdpa", "source": "direct", "heads": 2, "scale": "sqrt_dk", "q": [[1, 0, 1, 1], [0, 1, 0, 2]],
       "k": [[1, 1, 0, 1], [1, 0, 2, 0]], "v": [[1, 2, 0, 1], [2, 0, 1, 1]]}
# a challenge's test case (tests/test_check_heldout17.py's)
CH = {"variant": "sdpa", "source": "direct", "heads": 1, "scale": "sqrt_dk", "q": [[1, 0], [0, 1]],
      "k": [[1, 0], [0, 1]], "v": [[1, 2], [3, 4]]}


def _sdpa(opts: dict, head: int = 0) -> dict[str, np.ndarray]:
    """Raw scores, weights and output of ``opts``' head ``head`` (NumPy, float64), and every head's output side by
    side."""
    q, k, v = (np.array(opts[n], dtype=np.float64) for n in "qkv")
    d = q.shape[1] // opts["heads"]
    outs = []
    for h in range(opts["heads"]):
        c = slice(h * d, (h + 1) * d)
        raw = q[:, c] @ k[:, c].T
        s = raw / math.sqrt(d) if opts["scale"] == "sqrt_dk" else raw
        a = np.exp(s) / np.exp(s).sum(-1, keepdims=True)
        outs.append({"raw": raw, "scaled": s, "attn": a, "out": a @ v[:, c]})
    return {**outs[head], "merged": np.concatenate([o["out"] for o in outs], axis=1)}


def _f(x, dec: int = 4) -> str:
    return f"{x:.{dec}f}"


def _list(row, dec: int = 4) -> str:
    return "[" + ", ".join(_f(x, dec) for x in row) + "]"


A1 = _sdpa(ONE)["attn"]  # rows 0.4011 0.1978 0.4011 / 0.2840 0.5760 0.1400 / 0.4011 0.4011 0.1978
ASH = _sdpa(SH)["attn"]
DECLARED = "Câu có 3 token: *Tôi*, *yêu*, *mèo*.\n\n"
CASE = "Input: [[1,0],[0,1]] [[1,0],[0,1]] [[1,2],[3,4]] Expected: [[1.66048,2.66048],[2.33952,3.33952]]"
PRODUCT = f"{_f(ASH[1, 0])} × [0.34, 0.22, 0.54] = {_list(ASH[1, 0] * np.array(SHINY[0]))}"
WEIGHTED = ("* Weighted embedding:\n\n" + "".join(f"    {_f(ASH[1, j])} × {_list(SHINY[j], 2)} = "
                                                  f"{_list(ASH[1, j] * np.array(SHINY[j]))}\n\n" for j in range(2)))
TABLE = ("| α | Tôi | yêu | mèo |\n|---|---|---|---|\n"
         + "".join(f"| {w} | " + " | ".join(_f(x) for x in A1[i]) + " |\n" for i, w in enumerate(("Tôi", "yêu", "mèo")))
         + "\n")

# name -> (build(k): a text with k pieces of one reader's form, the setup)
CASES = {
    # equal_numbers: long chains, run-together results, chains that disagree
    "equal_chain": (lambda k: "x = " + "0.5 = " * k + "0.5\n", SH),
    "equal_run_together_line": (lambda k: "e0.7842e1.3569e1.2487=2.1902=3.8839=3.4858 " * k + "\n", SH),
    "equal_run_together_lines": (lambda k: "e0.7842e1.3569e1.2487=2.1902=3.8839=3.4858\n" * k, SH),
    "equal_disagree": (lambda k: "x = " + " = ".join(f"{i}.5" for i in range(k)) + "\n", SH),
    # exact_inputs: a long sum of given operands, many such lines
    "exact_sum": (lambda k: "- Hello: " + " + ".join(["0.34×0.53"] * k) + " = 0.775\n", SH),
    "exact_lines": (lambda k: "- Hello: 0.34×0.53 + 0.22×0.34 + 0.54×0.98 = 0.784\n" * k, SH),
    # challenge_cases: many cases, long rows, many rows, inputs with no expected matrix, blanks and commas
    "challenge_lines": (lambda k: (CASE + "\n") * k, CH),
    "challenge_one_line": (lambda k: (CASE + " ") * k, CH),
    "challenge_long_row": (lambda k: "Input: [[" + ",".join(["1"] * k) + "]] [[1]] [[1]] Expected: [[1]]\n", CH),
    "challenge_many_rows": (lambda k: "Input: [" + ",".join(["[1,0]"] * k) + "] [[1]] [[1]] Expected: [[1]]\n", CH),
    "challenge_inputs_only": (lambda k: "Input: " + "[[1,0],[0,1]] " * k + "\n", CH),
    "challenge_separators": (lambda k: "Input: [[1,0]" + " ," * k + "x\n", CH),
    # open_brackets: escaped lists, a long one, unclosed ones, runs of backslashes, escaped stars
    "open_lists": (lambda k: "\\[0.34, 0.22, 0.54] " * k + "\n", SH),
    "open_long_list": (lambda k: "\\[" + ", ".join(["0.5"] * k) + "]\n", SH),
    "open_unclosed": (lambda k: ("\\[" + "0.5, " * 20) * k + "\n", SH),
    "open_backslashes": (lambda k: "\\[" * k + "0.5, 0.5]\n", SH),
    "starred": (lambda k: "\\begin{align\\*} e^{0.7842} &= 2.1907 \\end{align\\*}\n" * k, SH),
    "starred_unclosed": (lambda k: "\\begin{align\\*" * k + "\n", SH),
    # weighted_rows: groups of products, products on one line, long lists
    "weighted_lines": (lambda k: WEIGHTED * k, SH),
    "weighted_one_line": (lambda k: (PRODUCT + " ") * k + "\n", SH),
    "weighted_long_lists": (lambda k: "0.2291 × [" + ", ".join(["0.5"] * k) + "] = [" + ", ".join(["0.5"] * k)
                            + "]\n", SH),
    # token_words: declarations, worked rows named again and again, square tables, pipes and rules
    "declared_counts": (lambda k: "3 token: a, a, a, " * k + "\n", ONE),
    "declared_row_words": (lambda k: DECLARED + "hàng " * k + "yêu: 1, 2, 0\n", ONE),
    "worked_named_one_line": (lambda k: DECLARED + "Lấy hàng của token *yêu* " * k + "\n"
                              + f"- Trọng số: {_list(A1[1])[1:-1]}\n" * k, ONE),
    "worked_named_lines": (lambda k: DECLARED + ("Lấy hàng của token *yêu*:\n"
                                                 + f"- Trọng số: {_list(A1[1])[1:-1]}\n") * k, ONE),
    "tabled": (lambda k: TABLE * k, ONE),
    "tabled_pipes": (lambda k: "|" * k + "\n|---|---|\n", ONE),
    "tabled_rules": (lambda k: "| a | b |\n" + "|---" * k + "|\n", ONE),
    "tabled_heads": (lambda k: "| α | Tôi | yêu | mèo |\n|---|---|---|---|\n" * k, ONE),
    # label_chains: a long concatenation
    "label_chain_concat": (lambda k: "O = [" + "O_1 | " * 12 + "O_2] = [[0.5, 0.5]]\n" * k, ONE),
    # tf.constant literals, softmax(..) ≈ [..]
    "tf_constant": (lambda k: "```python\n" + "x = tf.constant([[0.34, 0.22, 0.54]])\n" * k + "```\n", SH),
    "tf_long": (lambda k: "```python\nx = tf.constant([[" + ", ".join(["0.5"] * k) + "]])\n```\n", SH),
    "softmax_approx": (lambda k: "scores = [1, 2, 0]\nsoftmax(scores) ≈ [0.2447, 0.6652, 0.0900]\n" * k, ONE),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_work_grows_linearly(name):
    assert_calls_linear(*CASES[name])


@pytest.mark.parametrize("name", sorted(set(CASES) - {"worked_named_one_line"}))
def test_time_grows_linearly(name):
    assert_cpu_linear(*CASES[name])


def test_a_worked_row_named_again_and_again_on_its_line_costs_linear_work():
    """``Lấy hàng của token *yêu*`` k times on one line, then k list items: each naming walked the k items again
    (3.85 times the calls at twice the size, 28.6 s of CPU at k = 2,400); the same word on the same line finds the
    same items, walked once (token_words._worked_rows)."""
    assert_cpu_linear(*CASES["worked_named_one_line"])


def test_the_declared_token_words_are_read_without_copying_the_rest_of_their_line():
    """``3 token: a, a, a, `` k times on one line: each declaration's items were read from a copy of the rest of the
    line (found, its line's end searched again for each): 7.3 times the CPU at four times the size; now linear."""
    from attnwalk.check.token_words import declared

    def cost(k: int) -> float:
        text = "3 token: a, a, a, " * k + "\n"
        start = time.process_time()
        assert declared(text, 3) is None  # (no declaration of three distinct words)
        return time.process_time() - start

    assert_grows_linearly(cost, 10_000, 40_000)


# ---------------------------------------------------------------- a decimal of a million digits


def _strict_by_fractions(text: str, neg: bool, decimals: int, expected: float) -> bool:
    """``close_strict``'s verdict by Fractions: |p − e| ≤ ½·10^−d, p the printed value as ``decimal_fraction``
    reads it."""
    from attnwalk.check.indices import decimal_fraction

    p = decimal_fraction(text)
    return 2 * abs((-p if neg else p) - Fraction(expected)) * 10**decimals <= 1


def test_a_strict_verdict_on_a_million_decimals_costs_linear_work():
    """``0.000..01`` of 500,000 then 4,000,000 zeros judged strictly: 10**decimals and a gcd of numbers of as many
    digits (2.8 s at 4·10^6, nine times the time of a quarter of it); now a comparison of digits, linear."""
    from attnwalk.check.bounds import close_strict

    def cost(n: int) -> float:
        text = "0." + "0" * n + "1"
        start = time.process_time()
        assert close_strict(text, False, n + 1, 0.5) is False
        return time.process_time() - start

    assert_grows_linearly(cost, 500_000, 4_000_000, bound=16)


_DOUBLES = st.sampled_from([0.0, -0.0, 0.5, 0.1, -0.1, 1 / 3, 5e-324, 3 * 2.0**-1074, 1e300, -2.5e-300]) | \
    st.floats(allow_nan=False, allow_infinity=False)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(e=_DOUBLES, extra=st.integers(0, 3000), zeros=st.integers(0, 200), slip=st.none() | st.integers(0, 10**6),
       flip=st.booleans())
def test_a_strict_verdict_past_a_doubles_decimals_is_the_fractions(e, extra, zeros, slip, flip):
    """Past 1,074 decimals (where a double's exact expansion has ended) ``close_strict`` compares digits: the
    verdict of the Fractions on the double's exact expansion printed to 4,001 to 7,000 characters (padded with
    zeros, leading zeros before it, one digit changed, the sign flipped): right exactly where equal."""
    from attnwalk.check.bounds import close_strict

    whole, _, frac = format(Decimal(abs(e)), "f").partition(".")
    frac = frac.ljust(max(len(frac), 1074) + extra, "0")
    whole = "0" * zeros + whole
    if len(whole) + len(frac) < 4001:
        frac = frac.ljust(4001 - len(whole), "0")
    if slip is not None:
        k = slip % len(frac)
        frac = frac[:k] + str((int(frac[k]) + 1) % 10) + frac[k + 1:]
    text, neg = f"{whole}.{frac}", (math.copysign(1, e) < 0) != flip
    want = _strict_by_fractions(text, neg, len(frac), e)
    assert close_strict(text, neg, len(frac), e) is want
    if slip is None and not flip:
        assert want  # the double's own expansion is right

