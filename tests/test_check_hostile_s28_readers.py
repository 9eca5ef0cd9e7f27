"""Hostile notes for session 28's readers (check.comment_prints, object_examples, print_outputs, exponentials,
prose_rows, indices and many): linear work, no crash, and the same verdicts whatever the note's dress (a print's
result as ``# tensor(..)`` comments or in an output fence, a restated sum after a phrase or on the line below).

Work is asserted with tests/hostile.py's helpers (function calls at two sizes; CPU time, best of three, in up to three
pairs). The expected values are computed here by NumPy in float64 from the setup (softmax of the scaled scores, no
engine), as torch computes them.
"""

from __future__ import annotations

import math
import os
import re
from pathlib import Path

import numpy as np
import pytest
from hostile import assert_calls_linear, assert_cli_reads_junk, assert_cpu_linear, run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attnwalk.check import check_text

ROOT = Path(__file__).resolve().parent.parent
# two queries over three keys (tests/test_check_column_sums.py's setup)
CROSS = dict(variant="sdpa", source="direct", heads=1, scale="sqrt_dk", q=[[1, 2], [2, 0]],
             k=[[1, 0], [0, 1], [2, 1]], v=[[1, 0], [0, 1], [1, 1]])
SCENARIO = ('variant = "sdpa"\nsource = "direct"\nheads = 1\nscale = "sqrt_dk"\n'
            f'q = {CROSS["q"]}\nk = {CROSS["k"]}\nv = {CROSS["v"]}\n')


def _cross() -> dict[str, np.ndarray]:
    """``CROSS``'s scaled scores, e^ŝ, weights and output (NumPy, float64)."""
    q, k, v = (np.array(CROSS[n], dtype=np.float64) for n in "qkv")
    s = q @ k.T / math.sqrt(2)
    a = np.exp(s) / np.exp(s).sum(-1, keepdims=True)
    return {"scaled": s, "exp": np.exp(s), "attn": a, "out": a @ v}


C = _cross()
# row 1's exponentials, each exponent its scaled score (0.7071, 1.4142, 2.8284), as a note prints them
EXPS = ", ".join(f"exp({x:.4f}) = {e:.4f}" for x, e in zip(C["scaled"][0], C["exp"][0]))
TOTAL = f"{C['exp'][0].sum():.4f}"
TERMS = " + ".join(f"{e:.4f}" for e in C["exp"][0])

# name -> build(k): a text with k items of one reader's form
CASES = {
    # comment_prints: rows of one print, many prints, one long row, blanks and brackets where a row would start
    "comment_rows": lambda k: "print(output)\n# tensor([[0.5, 0.5],\n" + "#  [0.5, 0.5],\n" * k,
    "comment_prints": lambda k: "print(output)\n# tensor([[0.5, 0.5],\n#  [0.5, 0.5]])\n" * k,
    "comment_long_row": lambda k: "print(output)\n# tensor([[" + ", ".join(["0.5"] * k) + "]])\n",
    "comment_labelled_rows": lambda k: "print(output)\n#   Pos 0  Pos 1\n" + "# Pos 0 [[0.5, 0.5],   <- all\n" * k,
    "comment_blanks": lambda k: "print(output)\n#" + " " * k + "x\n",
    "comment_label_blanks": lambda k: "print(output)\n# Pos" + " " * k + "x\n",
    "comment_header_blanks": lambda k: "print(output)\n#" + " " * k + "\n# tensor([[0.5, 0.5]])\n",
    "comment_unclosed": lambda k: "print(output)\n# tensor(" + "[" * k + "\n",
    "comment_print_args": lambda k: "print(" + "output, " * k + "output)\n# tensor([[0.5, 0.5]])\n",
    # print_outputs: fences and their outputs, an Out[n] prompt's long result, blanks, a scalar's long line
    "output_fences": lambda k: ("```python\nprint(output)\n```\n\n```\ntensor([[0.5, 0.5],\n        [0.5, 0.5]])\n"
                                "```\n") * k,
    "output_after_prose": lambda k: ("```python\nprint(output)\n```\n" + "the output is:\n" * 3
                                     + "```\n[[0.5, 0.5]]\n```\n") * k,
    "output_echo_rows": lambda k: "```python\nweights\n```\n\nOut[3]:\n\n" + "    [0.5, 0.5, 0.5],\n" * k,
    "output_prompt_blanks": lambda k: "```python\nweights\n```\n" + " " * k + "x\n",
    "output_blank_lines": lambda k: "```python\nweights\n```\n" + "  \n" * k + "Out[1]:\n    x\n",
    "output_scalar_blanks": lambda k: "```python\nprint(attn_score_11)\n```\n\n```\n" + " " * (4 * k) + "a: x\n```\n",
    "output_scalar_colons": lambda k: "```python\nprint(attn_score_11)\n```\n\n```\n" + "a:" * k + " x\n```\n",
    # exponentials: one long line of them, rows and their sums, blanks after the phrase, a long sum with no total
    "exp_long_line": lambda k: (EXPS + ", ") * k + "\n",
    "exp_sums_said": lambda k: (EXPS + ", which sum to " + TOTAL + "\n") * k,
    "exp_sums_below": lambda k: (EXPS + "\n" + TERMS + " = " + TOTAL + "\n") * k,
    "exp_phrase_blanks": lambda k: EXPS + ", which sum to" + " " * k + "x\n",
    "exp_terms_no_total": lambda k: EXPS + "\n" + " + ".join(["1"] * k) + "\n",
    "exp_terms_bad_total": lambda k: EXPS + "\n" + " + ".join(["1.5"] * k) + " = x\n",
    "exp_sum_lines": lambda k: EXPS + "\n" + "1 + 1 + 1\n" * k,
    # prose_rows: many vectors, many lines, an unclosed vector, many verbs, slashed weights
    "prose_vectors": lambda k: "the outputs are " + ", ".join(["[0.5, 0.5]"] * k) + "\n",
    "prose_lines": lambda k: "the outputs are [0.5, 0.5] and [0.5, 0.5]\n" * k,
    "prose_unclosed": lambda k: "the outputs are [0.5, 0.5], [" + ", ".join(["1"] * k) + "\n",
    "prose_verbs": lambda k: "x are " * k + "[1, 1], [1, 1]\n",
    "prose_slashed": lambda k: "token 1 attends " + " / ".join(["0.5"] * k) + "\n",
    "prose_slashed_lines": lambda k: "token 1 attends 0.5 / 0.5 / 0.5\n" * k,
    "prose_slashed_blanks": lambda k: "token 1 attends 0.5" + " " * k + "x\n",
    # object_examples: a softmax list far from its scores, many in one object, long lists, scores of other lengths
    "object_far_scores": lambda k: ("{\n  dotProducts: [1, 2, 3],\n}\n"
                                    + "{\n  softmax: [0.5, 0.5, 0.5],\n}\n" * (2 * k)),
    "object_one_object": lambda k: "{\n  dotProducts: [1, 2, 3],\n" + "  softmax: [0.5, 0.5, 0.5],\n" * (2 * k) + "}\n",
    "object_long_lists": lambda k: ("{\n  queries: [1, 2],\n  dotProducts: [" + ", ".join(["1"] * 16 * k)
                                    + "],\n  softmax: [" + ", ".join(["0.5"] * 16 * k) + "],\n}\n"),
    "object_other_lengths": lambda k: "{\n  dotProducts: [1, 2],\n" * k + "{\n  softmax: [0.5, 0.5, 0.5],\n}\n" * k,
    # forms.call_arguments: blocks on one line, in a call and not (each scanned back up to 2,000 characters)
    "blocks_on_a_line": lambda k: "[[1, 2]] " * k + "\n",
    "blocks_in_a_call": lambda k: "f(" + "[[1, 2]], " * k + "[[1, 2]])\n",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_work_grows_linearly(name):
    assert_calls_linear(CASES[name], CROSS)


# each was quadratic or cubic inside one regex match or one NumPy call, which the call count does not see
QUADRATIC_BEFORE = ["comment_blanks", "comment_label_blanks", "comment_header_blanks", "exp_phrase_blanks",
                    "exp_terms_no_total", "exp_terms_bad_total", "output_scalar_blanks", "object_far_scores",
                    "object_one_object", "object_other_lengths", "object_long_lists"]


@pytest.mark.parametrize("name", sorted(set(CASES) - set(QUADRATIC_BEFORE)))
def test_time_grows_linearly(name):
    assert_cpu_linear(CASES[name], CROSS)


@pytest.mark.parametrize("name", QUADRATIC_BEFORE)
def test_time_grows_linearly_where_it_did_not(name):
    """``#`` then 2,400 blanks cost comment_prints' row pattern ~20 s (three runs of blanks side by side: every split
    tried), ``which sum to`` then as many ~170 s (exponentials' phrase, the same), a scalar output's blanks and a
    long sum with no total the square of their length (each term a new start), and a widget's softmax lists searched
    back through every entry before them for their scores (and the square of a list's length for its bounds)."""
    assert_cpu_linear(CASES[name], CROSS)


def _verdicts(report) -> list[tuple[str, str]]:
    """(printed number, status) of each decimal the note prints, in order (no head or index numerals)."""
    return [(r.text, r.status) for r in report.recs if "." in r.text]


def _wrong(report) -> list[tuple[str, str | None]]:
    """(printed number, the value --fix writes) of each wrong number."""
    return [(r.text, r.fix[0] if r.fix else None) for r in report.wrong]


# ---------------------------------------------------------------- the same verdicts whatever the dress

_PRINTED = {"output": "out", "attn_weights": "attn", "weights": "attn"}


def _printed_rows(name: str, dec: int, planted: int | None) -> tuple[list[list[str]], str | None]:
    """The rows of the tensor ``name`` prints, ``dec`` decimals, the ``planted``-th number +0.25 (or none)."""
    m = C[_PRINTED[name]]
    rows = [[f"{x:.{dec}f}" for x in row] for row in m]
    if planted is None or planted >= m.size:
        return rows, None
    i, j = divmod(planted, m.shape[1])
    rows[i][j] = f"{m[i, j] + 0.25:.{dec}f}"
    return rows, rows[i][j]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(_PRINTED)), dec=st.integers(3, 4), planted=st.none() | st.integers(0, 5),
       head=st.sampled_from(["tensor(", "array("]), indent=st.sampled_from(["", "    "]), fenced=st.booleans())
def test_a_print_pasted_as_comments_and_in_an_output_fence_gets_the_same_verdicts(name, dec, planted, head, indent,
                                                                                  fenced):
    """``print(output)`` then its result as ``# tensor([[..`` comments (comment_prints) and the same print then the
    result in a plain fence below (print_outputs): the same verdicts; every right number verified, a planted one
    (+0.25) wrong in both."""
    rows, planted_text = _printed_rows(name, dec, planted)
    pad = " " * len(head)
    lines = [head + "[[" + ", ".join(rows[0]) + "],"] + [pad + " [" + ", ".join(r) + "]," for r in rows[1:]]
    lines[-1] = lines[-1][:-1] + "])"
    code = f"{indent}print({name})\n"
    comment = "```python\n" + code + "".join(f"{indent}# {ln}\n" for ln in lines) + "```\n"
    if not fenced:
        comment = code + "".join(f"# {ln}\n" for ln in lines)
    fence = "```python\n" + code + "```\n\nThe output is:\n\n```\n" + "".join(f"{ln}\n" for ln in lines) + "```\n"
    got = _verdicts(check_text(comment, CROSS))
    assert got == _verdicts(check_text(fence, CROSS))
    assert [t for t, s in got if s == "wrong"] == ([planted_text] if planted_text else [])
    assert sum(s == "verified" for _, s in got) == len(rows) * len(rows[0]) - (planted_text is not None)


def _row_with(planted: int | None, delta: float = 0.25) -> tuple[list[str], str]:
    """Row 1's exponentials as printed (4 decimals; the ``planted``-th +``delta``) and their total (torch's)."""
    e = [f"{x:.4f}" for x in C["exp"][0]]
    if planted is not None:
        e[planted] = f"{C['exp'][0][planted] + delta:.4f}"
    return e, TOTAL


def _exp_line(e: list[str]) -> str:
    return ", ".join(f"exp({x:.4f}) = {v}" for x, v in zip(C["scaled"][0], e))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(planted=st.none() | st.integers(0, 2), total_off=st.booleans(), said=st.sampled_from(["which sum to",
       "that add up to", "summing to"]))
def test_a_total_after_a_phrase_and_on_the_line_below_get_the_same_verdicts(planted, total_off, said):
    """A row's exponentials then their total after a phrase (``.., which sum to 23.0602``) or the sum written out on
    the line below (``2.0281 + 4.1133 + 16.9188 = 23.0602``): a planted exponential (+0.25) is wrong with torch's
    value as its fix in both, a total off by 0.1 is wrong in both with torch's Σ e^ŝ (NumPy: 23.0602), and a right
    total is never wrong."""
    e, total = _row_with(planted)
    if total_off:
        total = f"{C['exp'][0].sum() + 0.1:.4f}"
    phrase = check_text(_exp_line(e) + f", {said} {total}\n", CROSS)
    below = check_text(_exp_line(e) + "\n" + " + ".join(e) + f" = {total}\n", CROSS)
    want_exp = [(e[planted], f"{C['exp'][0][planted]:.4f}")] if planted is not None else []
    want_total = [(total, TOTAL)] if total_off else []
    assert _wrong(phrase) == want_exp + want_total
    # below, the restated term is wrong as the value it restates (and fixed alike)
    assert _wrong(below) == want_exp + want_exp + want_total


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(order=st.permutations([0, 1, 2]), total_off=st.booleans())
def test_a_sum_of_the_exponentials_is_judged_alike_whatever_the_order_of_its_terms(order, total_off):
    """The row's three exponentials (right) added on the line below in any order: a right total (23.0602, NumPy's
    Σ e^ŝ) is verified in every order, a total off by 0.1 wrong in every order; no term is ever wrong."""
    e, total = _row_with(None)
    if total_off:
        total = f"{C['exp'][0].sum() + 0.1:.4f}"
    report = check_text(_exp_line(e) + "\n" + " + ".join(e[i] for i in order) + f" = {total}\n", CROSS)
    assert [t for t, _ in _wrong(report)] == ([total] if total_off else [])
    assert [r.status for r in report.recs if r.text == total] == ["wrong" if total_off else "verified"]


def test_the_runs_of_a_sum_are_finditer_s_matches():
    """``exponentials._sums`` tries each run of terms once; its matches are ``_SUM.finditer``'s on texts of sums,
    runs with no total, letters, points and signs (hypothesis below); here a few written out."""
    from attnwalk.check.exponentials import _SUM, _sums

    for line in ["1 + 2 = 3", "x1 + 2 + 3 = 6", "1 + 2.5.3 = 4 + 5 = 9", "1.5 + 2 + 3 = x, 2 + 2 = 4",
                 "a+ 1 + 2 = 3", ".1 + 2 = 3", "1 + 2 ≈ 3 + 4 \\approx 7"]:
        assert [m.span() for m in _sums(line)] == [m.span() for m in _SUM.finditer(line)], line


@settings(max_examples=300, deadline=None)
@given(parts=st.lists(st.sampled_from(["1", "2.5", "0.0", " + ", "+", " = ", "=", "≈", "\\approx", " ", "x", ".",
                                       "12", "-", ",", "e"]), max_size=30))
def test_the_runs_of_a_sum_are_finditer_s_matches_on_random_lines(parts):
    from attnwalk.check.exponentials import _SUM, _sums

    line = "".join(parts)
    assert [m.span() for m in _sums(line)] == [m.span() for m in _SUM.finditer(line)]


@settings(max_examples=200, deadline=None)
@given(s=st.lists(st.floats(-30, 30), min_size=2, max_size=8), dec=st.lists(st.integers(0, 4), min_size=8,
       max_size=8), f=st.sampled_from([1.0, 1 / math.sqrt(2), 0.5]))
def test_a_weight_s_bounds_are_each_the_softmax_of_its_extreme_scores(s, dec, f):
    """``object_examples._bounds`` (every weight at once) against the definition it replaced: weight k least with
    score k half a unit down and every other up, most the other way, each a softmax of its own (NumPy)."""
    from attnwalk.check.object_examples import _bounds

    s = np.array(s)
    units = np.array([0.5 * 10.0 ** -d if d > 0 else 0.0 for d in dec[:len(s)]])

    def softmax(x):
        e = np.exp(x - x.max())
        return e / e.sum()

    lows, highs = _bounds(s, units, f)
    for k in range(len(s)):
        up = -units.copy()
        up[k] = units[k]
        assert lows[k] == pytest.approx(softmax((s - up) * f)[k], rel=1e-12, abs=1e-300)
        assert highs[k] == pytest.approx(softmax((s + up) * f)[k], rel=1e-12, abs=1e-300)


@settings(max_examples=100, deadline=None)
@given(keys=st.lists(st.sampled_from(["dotProducts", "scores", "softmax", "weights", "queries", "values", "{", "}"]),
                     max_size=14), lengths=st.lists(st.integers(2, 3), min_size=14, max_size=14))
def test_the_scores_of_a_softmax_list_are_the_last_of_its_length_in_its_object(keys, lengths):
    """``object_examples._before_in_object`` (one pass) against its definition: for each entry, the last score entry
    of each length before it and the last query entry before it with no brace between."""
    from attnwalk.check.notations import object_literal_lists
    from attnwalk.check.object_examples import _before_in_object, _key
    from attnwalk.notation import EXAMPLE_QUERY_KEYS, EXAMPLE_SCORE_KEYS

    text = "".join(k + "\n" if k in "{}" else f"  {k}: [" + ", ".join(["1"] * n) + "],\n"
                   for k, n in zip(keys, lengths))
    entries = object_literal_lists(text)
    for i, (entry, scores, query) in enumerate(_before_in_object(text, entries)):
        assert entry == entries[i]
        same = [e for e in entries[:i] if not re.search(r"[{}]", text[e[1]:entry[1]])]
        want = {}
        for e in same:
            if _key(e[0]) in EXAMPLE_SCORE_KEYS:
                want[len(e[2])] = e
        assert dict(scores) == want
        assert query == next((e[2] for e in reversed(same) if _key(e[0]) in EXAMPLE_QUERY_KEYS), None)


# ---------------------------------------------------------------- junk: no crash, no traceback, no warning

BIG = "9" * 5000  # past int()'s 4300 digits
ZEROS = "0" * 5000
# hostile notes of the new readers' shapes: numbers of thousands of digits, NaN and inf, empty lists, BOM, NUL, CR
JUNK = [
    f"print(output)\n# tensor([[{BIG}, 0.5],\n#         [nan, inf]])\nprint(output)\n# tensor([[]])\n",
    f"print(attn_weights)\n#   Pos 0  Pos 1\n# Pos {BIG} [[0.5, 0.5, 0.5],  <- x\n# Pos 1 [1e999, -inf, 0.{ZEROS}1]]\n",
    "print(output)\n# tensor([[0.5, 0.5],\r\n#\x00 [0.5, 0.5]])\r\nprint(\n# [[\n",
    f"```python\nprint(attn_score_{BIG})\n```\n\n```\ntensor(0.5)\n```\n```python\nprint(query_2)\n```\n\n```\n"
    f"tensor([{BIG}.5, nan])\n```\n",
    f"```python\nweights\n```\n\nOut[{BIG}]:\n\n    [[1e999, inf, nan],\n    [0.5, 0.5, 0.5]]\n",
    "```python\nprint(attn_score_22)\n```\n```\ntensor(inf)\n```\n```py\nweights\n```\nOut[]:\n\n    \n",
    f"exp({BIG}) = 2.0281, exp(1.4142) = {BIG}.5, exp(2.8284) = inf, which sum to nan\n",
    f"exp(0.7071) = 2.0281, exp(1.4142) = 4.1133, exp(2.8284) = 16.9188\n2.0281 + 4.1133 + 16.9188 = {BIG}\n",
    f"exp(0.7071) = 2.0281, exp(1.4142) = 4.1133, exp(2.8284) = 16.9188, which sum to 0.{ZEROS}1\n"
    f"exp(0.7071) = 2.0281, exp(1.4142) = 4.1133, exp(2.8284) = 16.9188, which sum to {BIG}{BIG}\n",
    "exp(0.7071) = 1e999, exp(1.4142) = nan, exp(2.8284) = inf\r\n1e999 + nan + -0 = inf\r\n",
    f"the outputs are [{BIG}, 0.5], [nan, inf]\ntoken {BIG} attends 0.1 / 0.2 / 0.7\ntoken {ZEROS}1 attends"
    " 0.5 / nan / inf\n",
    "\ufeffthe outputs are [0.5, 0.5] and [0.5, 0.5]\r\ntoken 1 attends 0.1 /\x00 0.2 / 0.7\r",
    f"{{\n  queries: [1, 2],\n  dotProducts: [{BIG}, 1, 2],\n  softmax: [0.5, 0.5, 0.5],\n}}\n"
    "{\n  dotProducts: [1e999, -1e999, nan],\n  softmax: [inf, 0.5, 0.5],\n}\n{\n  scores: [inf, 1],\n"
    "  softmax: [1, 0],\n}\n",
    f"{{\n  dotProducts: [0.{ZEROS}1, 1, 2],\n  softmax: [0.1, 0.2, 0.7],\n}}\n",
    f"softmax([{BIG}, 1]) = [1, 0]\nsoftmax([1e999, 1]) = [1, 0]\nsoftmax([nan, 1]) = [0.5, 0.5]\n",
    "\x00\ufeff\r\n\r\x00{\n  softmax: [\n}\nprint(\x00)\n# tensor(\n```py\n\x00\n```\nOut[1]:\n    \x00\n",
]


@pytest.mark.parametrize("note", JUNK, ids=range(len(JUNK)))
def test_the_readers_read_junk_without_a_traceback_or_a_warning(note):
    """In the API, warnings as errors (a NumPy RuntimeWarning on inf - inf came through it): no exception, and no
    reader of hand-written notation failed (a bug note in the report)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        report = check_text(note, CROSS)
    assert not [n for n in report.notes if "failed" in str(n)], report.notes


def test_a_softmax_of_an_infinite_score_is_judged_by_no_nan():
    """``softmax([1e999, 1]) = [1, 0]``: the printed score is inf in floats, inf - inf a NaN (NumPy warned through
    the API); no softmax is taken of it, and no weight called wrong by a NaN."""
    from hostile import run_python

    code = ("import warnings; warnings.simplefilter('error')\nfrom attnwalk.check import check_text\n"
            f"r = check_text('softmax([1e999, 1]) = [1, 0]\\nsoftmax([nan, 2]) = [0.5, 0.5]\\n', {CROSS!r})\n"
            "print(len(r.wrong), sum('failed' in str(n) for n in r.notes))\n")
    answer = run_python(code)
    assert answer.code == 0 and answer.out.split() == ["0", "0"] and answer.err == "", (answer.out, answer.err)


@pytest.mark.parametrize("note", JUNK, ids=range(len(JUNK)))
def test_check_and_fix_read_junk_without_a_traceback(tmp_path, note):
    """Through the CLI: checked (exit 0 or 1: the note is no bad input), nothing on stderr; ``--fix`` writes a note
    that checks clean or leaves it as it was, and nothing else in the folder."""
    assert_cli_reads_junk(tmp_path, note, SCENARIO)


# every integer of a note's body (past its front matter) replaced: where the readers read an index, a head, a row or
# a position p5 (int() raised past 4300 digits; a position past the note's raised an IndexError in the table reader)
_INT = re.compile(r"(?<![\d.])\d{1,3}(?!\d|\.\d)")


@pytest.mark.parametrize("name", ["hand-2x2.en.md", "mha-seed-002.vi.md", "sdpa-cross-attention.en.md"])
@pytest.mark.parametrize("integer", ["9" * 4400, "0" * 4400 + "1", "9" * 25, "5"])
def test_a_course_note_with_every_integer_replaced_checks_without_a_traceback(name, integer):
    import warnings

    from attnwalk.check import FRONT_RE

    text = (ROOT / "examples" / "notes" / name).read_text(encoding="utf-8")
    head = FRONT_RE.match(text)
    at = head.end() if head else 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        report = check_text(text[:at] + _INT.sub(integer, text[at:]))
    assert not [n for n in report.notes if "failed" in str(n)], report.notes


@pytest.mark.parametrize("name", ["hand-2x2.en.md", "sdpa-cross-attention.en.md"])
@pytest.mark.parametrize("where", ["after", "before"])
def test_a_course_note_with_decimals_of_thousands_of_digits_checks_without_a_traceback(name, where):
    """``0.5`` written ``0.5000..0`` (4,400 zeros: its expected value printed to as many decimals, then read back, hit
    int()'s limit) or ``99..90.5``."""
    from attnwalk.check import FRONT_RE

    text = (ROOT / "examples" / "notes" / name).read_text(encoding="utf-8")
    head = FRONT_RE.match(text)
    at = head.end() if head else 0
    longer = (lambda m: m.group() + "0" * 4400) if where == "after" else (lambda m: "9" * 4400 + m.group())
    report = check_text(text[:at] + re.sub(r"\d+\.\d+", longer, text[at:]))
    assert not [n for n in report.notes if "failed" in str(n)], report.notes


@pytest.mark.parametrize("text, value", [("0.5", "Fraction(1, 2)"), ("12", "12"),
                                         ("0." + "0" * 4400 + "5", "Fraction(5, 10**4401)"),
                                         ("0.5" + "0" * 4400, "Fraction(1, 2)"), ("7" + "0" * 4400, "7*10**400"),
                                         ("1" * 4100, "int('1' * 4000) * 10**100"),
                                         ("9" * 9000, "int('9' * 4000) * 10**400")])
def test_a_decimal_of_any_length_is_read(text, value):
    """Exact up to 4,000 significant digits (trailing zeros are no digits of its own); past that its first 4,000 at
    their place, a power of ten past 10**400 read as 10**400 (past every float either way)."""
    from fractions import Fraction

    from attnwalk.check.indices import decimal_fraction

    assert decimal_fraction(text) == Fraction(eval(value))


# ---------------------------------------------------------------- --fix applied twice is --fix once


def _fix(text: str) -> str:
    from attnwalk.check.fix import fixed_text

    return fixed_text(text, lambda t: check_text(t, CROSS))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(planted=st.lists(st.integers(0, 40), max_size=4, unique=True), delta=st.sampled_from([0.25, 0.003, -0.1]))
def test_fix_twice_is_fix_once(planted, delta):
    """A note of every new reader's forms (a print pasted as comments, a print's output fence, a row of exponentials
    and its sum after a phrase and below, rows in prose, slashed weights, a widget's softmax list), some of its
    numbers off by ``delta``: a second ``--fix`` changes nothing, and the fixed note has no wrong number that --fix
    can mend."""
    def f(x: float) -> str:
        return f"{x:.4f}"

    o, a, e = C["out"], C["attn"], C["exp"][0]
    parts = [
        "```python\nprint(output)\n# tensor([[" + ", ".join(map(f, o[0])) + "],\n#         [" + ", ".join(map(f, o[1]))
        + "]])\n```\n\n",
        "```python\nprint(attn_weights)\n```\n\nThe output is:\n\n```\ntensor([[" + ", ".join(map(f, a[0]))
        + "],\n        [" + ", ".join(map(f, a[1])) + "]])\n```\n\n",
        _exp_line([f(x) for x in e]) + ", which sum to " + f(e.sum()) + "\n\n",
        _exp_line([f(x) for x in e]) + "\n" + " + ".join(map(f, e)) + " = " + f(e.sum()) + "\n\n",
        "In prose, the outputs are [" + ", ".join(map(f, o[0])) + "] and [" + ", ".join(map(f, o[1])) + "].\n\n",
        "Token 2 attends " + " / ".join(map(f, a[1])) + ".\n\n",
        "{\n  dotProducts: [0.7071, 1.4142, 2.8284],\n  softmax: [" + ", ".join(map(f, a[0])) + "],\n}\n",
    ]
    text = "".join(parts)
    numbers = list(re.finditer(r"\d+\.\d{4}", text))
    for k in sorted({p % len(numbers) for p in planted}, reverse=True):
        m = numbers[k]
        text = text[:m.start()] + f(abs(float(m.group()) + delta)) + text[m.end():]
    once = _fix(text)
    assert _fix(once) == once
    assert [r.text for r in check_text(once, CROSS).wrong if r.fix is not None] == []


def test_the_note_of_every_form_is_right_as_printed():
    """The note ``test_fix_twice_is_fix_once`` plants errors in: with none, nothing wrong and --fix changes nothing
    (its numbers NumPy's, rounded)."""
    e = C["exp"][0]
    text = _exp_line([f"{x:.4f}" for x in e]) + ", which sum to " + f"{e.sum():.4f}" + "\n"
    assert check_text(text, CROSS).wrong == [] and _fix(text) == text


# ---------------------------------------------------------------- check of many files: hostile file lists


def _many(tmp_path, args: list[str], threads: str, monkeypatch):
    monkeypatch.setenv("ATTNWALK_THREADS", threads)
    return run_cli(["check", "--scenario", "s.toml", *args], cwd=tmp_path, timeout=120)


def _hostile_files(tmp_path) -> list[str]:
    """A right note, a wrong one, a missing file, a folder, a FIFO, /dev/zero, the right note again, a dangling
    link, a path through a file, an empty file, a note of invalid UTF-8 and one with NUL bytes."""
    a = C["attn"]
    (tmp_path / "s.toml").write_text(SCENARIO)
    (tmp_path / "right.md").write_text("Token 2 attends " + " / ".join(f"{x:.4f}" for x in a[1]) + ".\n")
    (tmp_path / "wrong.md").write_text("Token 2 attends 0.5000 / 0.2500 / 0.2500.\n")
    (tmp_path / "folder").mkdir()
    os.mkfifo(tmp_path / "fifo.md")
    (tmp_path / "dangling.md").symlink_to(tmp_path / "nowhere.md")
    (tmp_path / "empty.md").write_text("")
    (tmp_path / "latin1.md").write_bytes(b"Token 2 attends 0.1867 / 0.0454 / 0.7679 \xe9\xff\n")
    (tmp_path / "nul.md").write_bytes(b"Token 2 attends 0.1867\x00 / 0.0454 / 0.7679\n")
    return ["right.md", "wrong.md", "missing.md", "folder", "fifo.md", "/dev/zero", "right.md", "dangling.md",
            "right.md/child.md", "empty.md", "latin1.md", "nul.md"]


@pytest.mark.parametrize("extra", [[], ["--format", "json"], ["--format", "github", "--show-unknown"]])
def test_many_hostile_files_give_one_process_s_bytes_and_the_worst_status(tmp_path, monkeypatch, extra):
    """Over workers as in one process: the same stdout, stderr and exit status (2: some file could not be checked),
    one error line for each file that cannot be read, no traceback, no hang on the FIFO or /dev/zero."""
    files = _hostile_files(tmp_path)
    one = _many(tmp_path, extra + files, "1", monkeypatch)
    two = _many(tmp_path, extra + files, "2", monkeypatch)
    assert (two.code, two.out, two.err) == (one.code, one.out, one.err)
    assert one.code == 2 and "Traceback" not in one.err
    if not extra:
        # missing, folder, FIFO, /dev/zero, dangling, through a file, invalid UTF-8 (NUL bytes are text)
        assert len(one.err_lines) == 7, one.err
        assert one.out.count("right.md: 3 verified, 0 wrong") == 2 and "wrong.md: " in one.out


def test_thousands_of_files_give_one_process_s_bytes(tmp_path, monkeypatch):
    """1,500 small notes, every tenth wrong and every hundredth missing: one process's bytes and status."""
    a = C["attn"]
    right = "Token 2 attends " + " / ".join(f"{x:.4f}" for x in a[1]) + ".\n"
    (tmp_path / "s.toml").write_text(SCENARIO)
    files = []
    for k in range(1500):
        name = f"n{k:04d}.md"
        if k % 100 != 99:
            (tmp_path / name).write_text(right if k % 10 else right.replace("0.1867", "0.2867"))
        files.append(name)
    one = _many(tmp_path, files, "1", monkeypatch)
    two = _many(tmp_path, files, "2", monkeypatch)
    assert (two.code, two.out, two.err) == (one.code, one.out, one.err)
    assert one.code == 2 and len(one.err_lines) == 15 and one.out.count(" 1 wrong") == 150


def test_files_that_vanish_or_change_after_listing_are_checked_as_they_are_then(tmp_path, capsys, monkeypatch):
    """A file removed, one rewritten with a wrong number and one turned into a folder after the parent listed them
    (when it asks their sizes, before any worker checks them): the output of one process run on the files as they
    are by then, byte for byte."""
    from attnwalk.check import many
    from attnwalk.check.report import finish
    from attnwalk.cli import check_one

    a = C["attn"]
    right = "Token 2 attends " + " / ".join(f"{x:.4f}" for x in a[1]) + ".\n"
    files = [str(tmp_path / f"n{k}.md") for k in range(6)]

    def setup() -> None:
        for path in files:
            if os.path.isdir(path):
                os.rmdir(path)
            with open(path, "w") as out:
                out.write(right)

    def change(path) -> None:
        if path == files[1]:
            os.remove(path)
        elif path == files[2]:
            with open(path, "w") as out:
                out.write(right.replace("0.1867", "0.2867"))
        elif path == files[4]:
            os.remove(path)
            os.mkdir(path)

    def one(path, results):
        return check_one(path, results, options=CROSS, fix=None, format="text", show_unknown=False,
                         skip_no_config=False)

    real = many._size

    def size(path) -> int:  # the parent asks each file's size before handing it to a worker
        change(path)
        return real(path)

    got = {}
    for workers in (0, 2):
        setup()
        if workers == 0:
            for path in files:
                change(path)
        else:
            monkeypatch.setattr(many, "_size", size)
        results: list = []
        code = many.check_all(files, one, results, workers=workers)
        finish("text", results)
        got[workers] = (code, *capsys.readouterr())
    assert got[2] == got[0]
    assert got[0][0] == 2 and got[0][2].count("attnwalk: error:") == 2 and " 1 wrong" in got[0][1]


def _scan_back(text: str, start: int) -> int:
    """The innermost bracket open before ``start`` as ``forms.call_arguments`` found it before (a scan back, closers
    of any kind counted against openers of any kind), -1 where none."""
    depth, i = 0, start - 1
    while i >= 0:
        if text[i] in ")]}":
            depth += 1
        elif text[i] in "([{":
            if depth == 0:
                return i
            depth -= 1
        i -= 1
    return -1


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet="()[]{}x,", max_size=40), starts=st.lists(st.integers(0, 40), max_size=6))
def test_the_bracket_open_before_a_block_is_the_scan_back_s(text, starts):
    from attnwalk.check.forms import open_before

    starts = [min(s, len(text)) for s in starts]
    assert open_before(text, starts) == [_scan_back(text, s) for s in starts]
