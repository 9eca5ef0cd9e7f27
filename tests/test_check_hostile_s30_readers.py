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
from hostile import assert_calls_linear, assert_cli_reads_junk, assert_cpu_linear, assert_grows_linearly, check_cpu
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from attnwalk.check import check_text

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



def test_a_scalar_times_a_list_of_thousands_labels_each_result_in_linear_work():
    """``0.2291 × [0.5, .., 0.5] = [0.5, .., 0.5]`` of k numbers each: every one of the k results' checks labelled
    with its side collapsed whole (checker._snippet: 1.49 s at k = 4,800, 7.5 times k = 1,200's); the label is made
    from the side's first words only, the same label."""
    build, opts = CASES["weighted_long_lists"]
    check_text(build(10), opts)
    assert_grows_linearly(lambda k: check_cpu(build(k), opts), 1200, 9600, bound=16)



@settings(max_examples=300, deadline=None)
@given(parts=st.lists(st.sampled_from(["a", "1", ".", "×", " ", "\t", "\n", "\u00a0", "\u2003", "\x1c", "\x85", "  ",
                                        "x" * 30]), max_size=40),
       cut=st.tuples(st.integers(0, 400), st.integers(0, 400)))
def test_a_checks_label_is_its_side_collapsed_and_cut(parts, cut):
    """The label from the side's first words is the whole side's text, blanks (Unicode's too) collapsed to one space,
    cut to 45 characters and "..." past 48."""
    from types import SimpleNamespace

    from attnwalk.check.checker import _snippet

    text = "".join(parts)
    start, end = sorted(min(c, len(text)) for c in cut)
    whole = " ".join(text[start:end].split())
    want = whole if len(whole) <= 48 else whole[:45] + "..."
    assert _snippet(text, SimpleNamespace(start=start, end=end)) == want


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


# ---------------------------------------------------------------- each reader's form, right as printed

LC = {"variant": "sdpa", "source": "direct", "heads": 2, "scale": "sqrt_dk",  # tests/test_check_label_chains.py's
      "q": [[1, 0, 0, 1], [0, 1, 1, 1], [1, 1, 2, 0]], "k": [[1, 0, 1, 0], [1, 1, 1, 1], [0, 2, 0, 2]],
      "v": [[1, 2, 1, 0], [3, 0, 0, 2], [0, 1, 1, 1]]}


def _mat(m, dec: int = 4) -> str:
    return "[" + ", ".join(_list(r, dec) for r in m) + "]"


def _forms() -> dict[str, tuple[str, dict]]:
    """Each reader's form as a note prints it, every number right (NumPy's values), with its setup."""
    one, two, lc = _sdpa(ONE), [_sdpa(TWO, h) for h in range(2)], [_sdpa(LC, h) for h in range(2)]
    ch = _sdpa(CH)
    x = np.array(SHINY)
    e = [math.exp(x[0] @ x[j]) for j in range(3)]
    case = ("Test Case 1\n\nInput:\n[[1,0],[0,1]] [[1,0],[0,1]] [[1,2],[3,4]]Expected:\n"
            + _mat(ch["out"], 5).replace(" ", "") + "Test Case 2\n")
    weighted = "".join(f"* Weighted embedding of \"{n}\":\n\n    {_f(ASH[1, j])} × {_list(x[j], 2)} = "
                       f"{_list(ASH[1, j] * x[j])}\n\n" for j, n in enumerate(("Hello", "shiny", "sun")))
    words = ("Tôi", "yêu", "mèo")
    card = "".join(f"Cloze\tHead {h + 1}, scaled scores: row 1 = {_list(two[h]['scaled'][0])}, row 2 = "
                   f"{_list(two[h]['scaled'][1])}\n" for h in range(2))
    chains = (f"## Head 1\n\n    O_1 = A_1 V = {_mat(lc[0]['out'])}\n\n## Head 2\n\n    O_2 = A_2 V = "
              f"{_mat(lc[1]['out'])}\n\n## Concatenate\n\n    O = [O_1 | O_2] = {_mat(lc[0]['merged'])}\n")
    unscaled = np.exp([1, 2, 0]) / np.exp([1, 2, 0]).sum()
    return {
        "equal_numbers": (f"e{_f(x[0] @ x[0])}e{_f(x[0] @ x[1])}e{_f(x[0] @ x[2])}="
                          + "=".join(_f(v) for v in e) + "\n\nsum = " + " + ".join(_f(v) for v in e)
                          + f" = {_f(sum(float(_f(v)) for v in e))}\n", SH),
        "exact_inputs": (f"- Hello: 0.34×0.53 + 0.22×0.34 + 0.54×0.98 = {_f(x[0] @ x[1], 3)}\n", SH),
        "challenge_cases": (case, CH),
        "open_brackets": (f"w = {_f(ASH[1, 0])} × \\[0.34, 0.22, 0.54] = \\{_list(ASH[1, 0] * x[0])}\n", SH),
        "starred_envs": (f"\\begin{{align\\*}} e^{{{_f(x[0] @ x[1])}}} &= {_f(math.exp(round(x[0] @ x[1], 4)))} \\\\ "
                         f"e^{{{_f(x[0] @ x[2])}}} &= {_f(math.exp(round(x[0] @ x[2], 4)))} \\end{{align\\*}}\n", SH),
        "weighted_rows": (weighted, SH),
        "declared_rows": (DECLARED + "## Softmax\n\nTrọng số của từng hàng:\n\n"
                          + "".join(f"- *{w}*: {_list(r)[1:-1]}\n" for w, r in zip(words, one["attn"])), ONE),
        "worked_rows": (DECLARED + f"Lấy hàng của token *yêu* làm ví dụ:\n\n- Tổng: 3 số mũ\n- Trọng số: "
                        f"{_list(one['attn'][1])[1:-1]}\n", ONE),
        "label_chains": (chains, LC),
        "line_rows": (card, TWO),
        "raw_softmax": (f"Với từ thứ hai, nếu tính tay từ hàng điểm `[1, 2, 0]` thì softmax cho "
                        f"`{_list(one['attn'][1])}`.\n", ONE),
        "tf_constant": ("```python\nQ = tf.constant(" + _mat(x, 2) + ")\n```\n", SH),
        "softmax_approx": (f"scores = [1, 2, 0]\nsoftmax(scores) ≈ {_list(unscaled)}\n", ONE),
    }


FORMS = _forms()
# the numbers each form's reader judges (hand-counted from the forms above): all verified, none wrong
JUDGED = {"equal_numbers": 4, "exact_inputs": 1, "challenge_cases": 16, "open_brackets": 4, "starred_envs": 2,
          "weighted_rows": 12, "declared_rows": 9, "worked_rows": 3, "label_chains": 24, "line_rows": 8,
          "raw_softmax": 6, "tf_constant": 9, "softmax_approx": 3}


def _verdicts(report) -> list[tuple[str, str]]:
    """(printed number, status) of every number judged, in order."""
    return [(r.text, r.status) for r in report.recs if r.status != "unknown"]


@pytest.mark.parametrize("name", sorted(FORMS))
def test_each_form_is_right_as_printed(name):
    """With NumPy's values (float64, as torch), nothing wrong, at least the numbers the reader reads verified."""
    text, opts = FORMS[name]
    report = check_text(text, opts)
    assert report.wrong == [], [(r.text, r.failure()) for r in report.wrong]
    assert sum(s == "verified" for _, s in _verdicts(report)) >= JUDGED[name], _verdicts(report)


def _fix(text: str, opts: dict) -> str:
    from attnwalk.check.fix import fixed_text

    return fixed_text(text, lambda t: check_text(t, opts))


def _decimals(text: str) -> list[tuple[int, int]]:
    import re

    return [(m.start(), m.end()) for m in re.finditer(r"(?<![\w.])\d+\.\d+(?![\d.])", text)]


def _plant(text: str, which: int, delta: int) -> str:
    """``text`` with its ``which``-th decimal's last digit moved by ``delta``."""
    spans = _decimals(text)
    a, b = spans[which % len(spans)]
    num = text[a:b]
    d = len(num.split(".")[1])
    moved = Fraction(num) + Fraction(delta, 10**d)
    return text[:a] + f"{float(abs(moved)):.{d}f}" + text[b:]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(FORMS)), which=st.integers(0, 60), delta=st.sampled_from([1, 3, 9, 30, 500, -7]))
def test_fix_twice_is_fix_once(name, which, delta):
    """Each reader's form with one decimal moved: a second ``--fix`` changes nothing, and the fixed note has no wrong
    number --fix could write."""
    text, opts = FORMS[name]
    planted = _plant(text, which, delta)
    once = _fix(planted, opts)
    assert _fix(once, opts) == once
    assert [r.text for r in check_text(once, opts).wrong if r.fix is not None] == []


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(FORMS)), which=st.none() | st.integers(0, 60), delta=st.sampled_from([1, 9, 500]),
       ends=st.sampled_from(["\r\n", "\r"]))
def test_a_note_and_its_copy_with_other_line_ends_get_the_same_verdicts(name, which, delta, ends):
    """The same form (one decimal moved, or none) with CRLF or CR line ends: the same verdicts, number by number."""
    text, opts = FORMS[name]
    if which is not None:
        text = _plant(text, which, delta)
    want = _verdicts(check_text(text, opts))
    assert _verdicts(check_text(text.replace("\n", ends), opts)) == want


# ---------------------------------------------------------------- invariants of equal_numbers and exact_inputs

_CHAIN_NUMBERS = ["0.5", "0.50", "0.5001", "0.4999", "2.1902", "3.8839", "0.2"]


def _disagree(a: str, b: str) -> bool:
    """Two printed decimals whose half-unit intervals do not meet (none of _CHAIN_NUMBERS' pairs is near the edge)."""
    half = lambda s: Fraction(1, 2 * 10 ** len(s.split(".")[1]))  # noqa: E731
    return abs(Fraction(a) - Fraction(b)) > half(a) + half(b)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(nums=st.lists(st.sampled_from(_CHAIN_NUMBERS), min_size=2, max_size=5),
       blanks=st.lists(st.sampled_from(["", " ", "\t", "   ", " \t "]), min_size=10, max_size=10))
def test_a_chain_of_bare_numbers_is_judged_alike_whatever_the_blanks(nums, blanks):
    """``x = a = b = c`` with any blanks (none, spaces, tabs) around each ``=``: the verdicts of the chain written with
    one space. Two numbers are one claim (the second wrong where the two disagree); three or more that disagree are
    results of several equations run together: nothing wrong (equal_numbers)."""
    spaced = "x = " + " = ".join(nums) + "\n"
    text = "x" + blanks[0] + "=" + blanks[1] + nums[0]
    for i, n in enumerate(nums[1:]):
        text += blanks[(2 * i + 2) % 10] + "=" + blanks[(2 * i + 3) % 10] + n
    got = check_text(text + "\n", SH)
    assert _verdicts(got) == _verdicts(check_text(spaced, SH))
    wrong = [r.text for r in got.wrong]
    if len(nums) == 2:
        assert wrong == ([nums[1]] if _disagree(nums[0], nums[1]) else [])
    else:
        assert wrong == []


_CELLS = sorted({c for row in SHINY for c in row})


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pairs=st.lists(st.tuples(st.sampled_from(_CELLS), st.sampled_from(_CELLS)), min_size=1, max_size=3),
       shift=st.integers(-12, 12), off=st.booleans(), at=st.integers(0, 5))
def test_an_operand_equal_to_a_given_input_is_exact_and_one_a_digit_off_is_not(pairs, shift, off, at):
    """``a×b + c×d = R`` of the scenario's given cells (two decimals): the sum is exact, so R (three decimals) is
    right only within half a unit of its last digit of it. One operand a digit off (0.01 more, no given cell): every
    operand is a rounded number, and R is right within the interval of the products of [a ± 0.005] (hand-derived,
    in Fractions)."""
    flat = [x for p in pairs for x in p]
    if off:
        k = at % len(flat)
        flat[k] = round(flat[k] + 0.01, 2)
        assume(flat[k] not in _CELLS)
    exact = sum(Fraction(str(a)) * Fraction(str(b)) for a, b in zip(flat[::2], flat[1::2]))
    r = round(exact, 3) + Fraction(shift, 4000)  # steps of a quarter unit: some right, some wrong
    printed = f"{float(r):.3f}"
    rv, half = Fraction(printed), Fraction(1, 2000)
    if off:
        h = Fraction(1, 200)
        lo = sum((Fraction(str(a)) - h) * (Fraction(str(b)) - h) for a, b in zip(flat[::2], flat[1::2]))
        hi = sum((Fraction(str(a)) + h) * (Fraction(str(b)) + h) for a, b in zip(flat[::2], flat[1::2]))
    else:
        lo = hi = exact
    margin = min(abs(rv - half - hi), abs(rv + half - lo))
    assume(margin > Fraction(1, 10**6))  # (away from the edge, where float32's allowance decides)
    right = rv - half <= hi and rv + half >= lo
    text = "t: " + " + ".join(f"{a}×{b}" for a, b in zip(flat[::2], flat[1::2])) + f" = {printed}\n"
    report = check_text(text, SH)
    assert [r.text for r in report.wrong] == ([] if right else [printed]), (text, float(exact))



# inputs whose weights all round to 0.50 (0.4975, 0.5025; 0.4974, 0.5026), an input's value
HALVES = {"variant": "sdpa", "source": "direct", "heads": 1, "scale": "none", "q": [[0.5, 0.1], [0.52, 0.1]],
          "k": [[0.5, 0.1], [0.52, 0.1]], "v": [[0.5, 0.1], [0.52, 0.1]]}


def test_a_weight_rounded_to_an_inputs_value_keeps_its_rounding():
    """``0.50 × 0.5 = 0.2488``: the weight 0.4975 printed 0.50 times the value 0.5 is torch's 0.24875 (NumPy, float64:
    0.2488); 0.50 equals the input 0.5, but a factor a weight rounds to is no given input: the side keeps its
    rounding, and no weight-times-value product of the note is called wrong (before: "expected 0.2500", the exact
    arithmetic of 0.5 × 0.5). A sum of inputs alone is still exact (``0.52 + 0.1 = 0.63`` is 0.62), and so is an
    exponent (``e^{0.1} = 1.10``: 1.11)."""
    a, v = _sdpa(HALVES)["attn"], np.array(HALVES["v"])
    assert {_f(w, 2) for w in a.reshape(-1)} == {"0.50"}
    assert _f(a[0, 0] * v[0, 0]) == "0.2488"
    lines = "".join(f"{_f(a[i, j], 2)} × {v[j, d]} = {_f(a[i, j] * v[j, d])}\n"
                    for i in range(2) for j in range(2) for d in range(2))
    assert check_text(lines, HALVES).wrong == []
    assert [(r.text, r.failure()[1]) for r in check_text("0.52 + 0.1 = 0.63\n", HALVES).wrong] == [("0.63", "0.62")]
    assert f"{math.exp(0.1):.2f}" == "1.11"
    assert [r.text for r in check_text("e^{0.1} = 1.10\n", HALVES).wrong] == ["1.10"]


# ---------------------------------------------------------------- junk: no crash, no traceback, no warning

BIG = "9" * 5000  # past int()'s 4300 digits
ZEROS = "0" * 5000
# hostile notes of the readers' forms: numbers of thousands of digits, NaN and inf, empty cells, ragged matrices,
# unclosed brackets, BOM, NUL, CR
JUNK = [
    (f"e0.7842e{BIG}=2.1902=nan=inf\nx = 1e999 = inf = -inf\n= = =\n0.5 = = 0.5\nx = 0.{ZEROS}1 = 0 = {BIG}\n", SH),
    (f"- Hello: 0.34×{BIG} + 0.22×0.34 = 0.{ZEROS}1\n- Hello: 0.34×0.53 + nan×0.34 = inf\n- 0.34×0.53 = 1e999\n", SH),
    (f"Input: [[{BIG},0],[0,1]] [[1,0],[0,1]] [[1,2],[3,4]] Expected: [[nan,inf],[1e999,]]\n"
     "Input: [[]] [[]] [[]] Expected: [[]]\nInput: [[1,0],[0,1]] [[1,0],[0,1]] [[1,2],[3,4]] Expected: [[1],[1,2]]\n"
     "Input: [[1,0],[0,1]] [[1,0],[0,1]] [[1,2],[3,4]] Expected: [[1e999,1],[nan,0]]\n", CH),
    ("\\[\\[0.5, \\[nan, 0.5]\n\\[" + BIG + ", 0.5]\n\\begin{align\\*}\\end{align\\*}\\begin{\\*}\n\\[, ]\n", SH),
    ("0.2291 × [1e999, 0.22, 0.54] = [1, 1, 1]\n0.4063 × [0.53, 0.34, 0.98] = [0.2153, 0.1381, 0.3981]\n"
     f"weights: [1e{BIG}, 0, 0]\nweights: [1e-{BIG}, 0, 1]\n", SH),
    (f"{BIG} × [0.34, 0.22, 0.54] = [inf, nan, 0.1]\n0.4063 × [0.53, 0.34, 0.98] = [0.2153, , ]\n"
     f"1e999 × [0.29, 0.54, 0.93] = [1, 1, 1]\n0.4063 × [0.53, 0.34, 0.98] = [0.{ZEROS}1, 0, {BIG}]\n", SH),
    (f"{BIG} token: *a*, *b*, *c*\n3 token: *Tôi*, *yêu*, *mèo*\n- *Tôi*: {BIG}, nan, inf\n- *yêu*: 0.{ZEROS}1, 0.5, "
     "0.1\nLấy hàng của token *mèo*:\n- Trọng số: , , \n- Trọng số: 1e999, 0, 0\n", ONE),
    ("3 token: *Tôi*, *yêu*, *mèo*\n| α | Tôi | yêu | mèo |\n|---|---|---|---|\n| Tôi | nan | inf | |\n| yêu |\n"
     f"| mèo | {BIG} | 0.{ZEROS}1 | -0 |\n\"mèo\" dành {BIG}% sự chú ý cho chính nó\n", ONE),
    (f"O_{BIG} = A V = [[0.5, 0.5]]\nO_9 = A_9 V = [[nan]]\nO = [O_1 | O_2] = [[inf, 1e999, 0.5, 0.5], [0.5]]\n"
     "O_1 = A_1 V = [[]]\nS_0 = x = [[1, 2], [3]]\n", LC),
    (f"Head 1, weights: row {BIG} = [0.5, 0.5], row 0 = [nan, inf], row 999 = [0.5, 0.5]\n"
     f"Head {BIG}, scaled scores: row 1 = [1e999, 0], row 2 = [0.{ZEROS}1, 1]\n", TWO),
    (f"từ hàng [{BIG}, 2, 0] thì softmax cho [nan, inf, 0.5]\ntừ hàng [1, 2, 0] thì softmax cho [1e999, 0, 0]\n"
     "từ hàng [1, 2, 0] thì softmax cho [0.5, 0.5]\n", ONE),
    ("```python\nx = tf.constant([[nan, inf], [1e999, " + BIG + "]])\nQ = tf.constant([[0.34, 0.22]], [[\n"
     "K = tf.convert_to_tensor(" + "[" * 200 + ")\nV = tf.constant(" + "[" * 5000 + "1" + "]" * 5000 + ")\n"
     "W_Q = tf.constant([" + "-" * 5000 + "1])\n```\n", SH),
    (f"scores = [{BIG}, 1e999, nan]\nsoftmax(scores) ≈ [1, 0, 0]\nscores = []\nsoftmax(scores) ≈ []\n"
     "scores = [1, 2, 0]\nsoftmax(scores) \\approx [0.5, nan, inf]\n", ONE),
    ("\ufeffCâu có 3 token:\x00 *Tôi*, *yêu*, *mèo*\r\n- *yêu*: 0.2840, 0.5760, 0.1400\r- *Tôi*: 0.4011\x00, "
     "0.1978, 0.4011\r\nInput:\x00 [[1,0]] [[1]] [[1]]\r\nExpected: [[\x00]]\r\n", ONE),
]


@pytest.mark.parametrize("i", range(len(JUNK)))
def test_the_readers_read_junk_without_a_traceback_or_a_warning(i):
    """In the API, warnings as errors: no exception, and no reader of hand-written notation failed (a bug note)."""
    import warnings

    note, opts = JUNK[i]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        report = check_text(note, opts)
    assert not [n for n in report.notes if "failed" in str(n)], report.notes


def _toml(opts: dict) -> str:
    """``opts`` as a scenario file (strings quoted, lists as written)."""
    return "".join(f'{k} = "{v}"\n' if isinstance(v, str) else f"{k} = {v}\n" for k, v in opts.items())


@pytest.mark.parametrize("i", range(len(JUNK)))
def test_check_and_fix_read_junk_without_a_traceback(tmp_path, i):
    """Through the CLI: checked (exit 0 or 1: the note is no bad input), nothing on stderr; ``--fix`` writes a note
    that checks clean or leaves it as it was, and nothing else in the folder."""
    note, opts = JUNK[i]
    assert_cli_reads_junk(tmp_path, note, _toml(opts))


def test_a_note_of_invalid_utf8_among_the_forms_is_one_clear_line(tmp_path):
    """Bytes that are no UTF-8 (``\\xff``) inside a declared-token note: exit 2, one line naming the file, no
    traceback, and ``--fix`` writes nothing."""
    from hostile import assert_untouched, run_cli, snapshot

    (tmp_path / "s.toml").write_text(_toml(ONE))
    (tmp_path / "n.md").write_bytes(FORMS["declared_rows"][0].encode() + b"\xff\xfe 0.5\n")
    before = snapshot(tmp_path)
    for args in (["check"], ["check", "--fix"]):
        answer = run_cli([*args, "--scenario", "s.toml", "n.md"], cwd=tmp_path)
        assert "Traceback" not in answer.err and answer.code == 2, (answer.code, answer.err)
        assert len(answer.err_lines) == 1 and "n.md" in answer.err, answer.err
    assert_untouched(tmp_path, before)
