"""Hostile notes for session 27's readers (check.clozes, step_lists, column_sums, own_weights, head_subscripts,
latex_tabular, row_items, code_names, the gates and ``human.head_at``): linear work, no crash, and the same verdicts
whatever the note's dress (a tabular or a Markdown table, heads counted from 0 or from 1, clozes or plain numbers).

Work is asserted as in test_check_hostile_speed: function calls (``sys.setprofile``, the same on every machine) for
twice the items at most ~2x, and CPU time (best of three) for four times the items far below the 16x of a quadratic
reader. The expected values are computed here by NumPy in float64 from each setup (softmax of the scaled scores, no
engine), as torch computes them.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hostile import assert_calls_linear, assert_cli_reads_junk, assert_cpu_linear
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attnwalk.check import check_text

# two heads of width 2 (tests/test_check_step_lists.py's setup)
TWO = dict(variant="sdpa", source="direct", heads=2, scale="sqrt_dk", q=[[1, 0, 2, 1], [0, 1, 1, 0]],
           k=[[1, 1, 0, 1], [0, 1, 1, 1]], v=[[1, 0, 0, 2], [0, 1, 2, 0]])
# two queries over three keys (tests/test_check_column_sums.py's setup)
CROSS = dict(variant="sdpa", source="direct", heads=1, scale="sqrt_dk", q=[[1, 2], [2, 0]],
             k=[[1, 0], [0, 1], [2, 1]], v=[[1, 0], [0, 1], [1, 1]])
P = r"\begin{pmatrix} 1 \\ 0 \end{pmatrix}"

# name -> (build(k) -> text with k items, its setup)
CASES = {
    "clozes": (lambda k: "[" + ", ".join(["{{c1::0.6698}}"] * k) + "]\n", TWO),
    "clozes_unclosed": (lambda k: "{{c1::" * k + "\n", TWO),
    # one token's steps under a head named on every line (head_at walked every head's match for each number)
    "step_lists_under_heads": (lambda k: "Head 1, token 1: weights 0.6698 and 0.3302\n" * k, TWO),
    "step_lists_one_line": (lambda k: "token 1: weights 0.6698 and 0.3302, " * k + "\n", TWO),
    "step_lists_long_body": (lambda k: "token 1: weights " + " and ".join(["0.5"] * k) + "x\n", TWO),
    # the terms of one sum on one line (each matrix asked whether its line is a product: the whole line scanned)
    "column_sum_terms": (lambda k: "c_1 = " + " + ".join(["0.5" + P] * k) + "\n", CROSS),
    "column_sums": (lambda k: ("c_1 = 0.5" + P + " + 0.5" + P + " + 0.5" + P + " = " + P + "\n") * k, CROSS),
    "column_sum_open": (lambda k: "c_1 = 0.5\\begin{pmatrix} " * k + "\n", CROSS),
    # a transposed label before a line of matrices (each matrix's label was the whole line before it, searched)
    "matrices_after_a_transpose": (lambda k: "K^T = " + "\\begin{bmatrix} 1 & 2 \\end{bmatrix} " * k + "\n", TWO),
    "lists_after_a_transpose": (lambda k: "K^T = " + "[[1, 2]] " * k + "\n", TWO),
    # claims of a weight on itself: on one line (each searched its sentence from its start), on many lines (each
    # asked every line for a row 0), under heads
    "own_weights_one_line": (lambda k: "token 2 puts 0.5 of its weight on itself, " * k + "\n", TWO),
    "own_weights_lines": (lambda k: "Token 2 puts 0.5 of its weight on itself.\n" * k, TWO),
    "own_weights_heads": (lambda k: "Head 1. Token 2 puts 0.5 of its weight on itself.\n" * k, TWO),
    "own_weights_tokens": (lambda k: "".join(f"token {i} " for i in range(k)) + "puts 0.5 of its weight on itself, "
                           * k + "\n", TWO),
    "head_subscripts": (lambda k: "## Head 1\n" + "S_1 = [[1]]\n" * k, TWO),
    "head_subscript_cue": (lambda k: "divided by sqrt(2),\n" + "  \n" * k + "x\n", TWO),
    # unclosed tabulars (each searched to the note's end for its end)
    "tabular_unclosed": (lambda k: "\\begin{tabular}{cc} a & b \\\\ " * k + "\n", TWO),
    "tabular_unclosed_before_an_end": (lambda k: "\\begin{tabular}{cc} a & b \\\\ " * k + "\\end{tabularx}\n", TWO),
    "tabulars": (lambda k: "\\begin{tabular}{cc} & k1 & k2 \\\\ q1 & 0.5 & 0.5 \\\\ \\end{tabular}\n" * k, TWO),
    "tabular_rows": (lambda k: "\\begin{tabular}{cc} & k1 & k2 \\\\ " + "q1 & 0.5 & 0.5 \\\\ " * k + "\\end{tabular}\n",
                     TWO),
    # row items each under its own heading (each item looked through every heading)
    "row_items_under_headings": (lambda k: "### Scaled scores\n- q1: 0.5, 0.5\n" * k, TWO),
    "row_items": (lambda k: "### Scaled scores\n" + "- q1: 0.5, 0.5\n" * k, TWO),
    "row_item_long": (lambda k: "- q1: " + ", ".join(["1"] * k) + " x\n", TWO),
    "heads_over_items": (lambda k: "## Head 1\n- q1: 0.5, 0.5\n" * k, TWO),
    "code_names": (lambda k: "```python\n" + "S = Q @ K.T\n" * k + "```\n" + "S[0, 0] = 1.0\n" * k, TWO),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_work_grows_linearly(name):
    assert_calls_linear(*CASES[name])


@pytest.mark.parametrize("name", ["tabular_unclosed", "tabular_unclosed_before_an_end", "own_weights_one_line",
                                  "own_weights_lines", "step_lists_under_heads", "row_items_under_headings",
                                  "column_sum_terms", "matrices_after_a_transpose", "lists_after_a_transpose"])
def test_time_grows_linearly(name):
    """Work inside one builtin call (a regex's search to the note's end, ``str.rfind``) is invisible to the call
    count."""
    assert_cpu_linear(*CASES[name])


@pytest.mark.parametrize("name", sorted(set(CASES) - {"step_lists_under_heads", "own_weights_heads"}))
def test_no_hostile_note_has_a_wrong_number(name):
    """Nothing in these notes claims a value of its setup (the 0.5s and 1s are no weights, scores or outputs the
    readers name: no row item's heading names a tensor of two 0.5s, ...)."""
    build, opts = CASES[name]
    assert check_text(build(200), opts).wrong == []


def _heads() -> list[dict[str, np.ndarray]]:
    """Each head of ``TWO``: its scaled scores, e^ŝ, weights and output (NumPy, float64)."""
    q, k, v = (np.array(TWO[n], dtype=np.float64) for n in "qkv")
    out = []
    for h in range(2):
        sl = slice(2 * h, 2 * h + 2)
        s = q[:, sl] @ k[:, sl].T / math.sqrt(2)
        e = np.exp(s)
        a = e / e.sum(-1, keepdims=True)
        out.append({"s": s, "e": e, "a": a, "o": a @ v[:, sl]})
    return out


@pytest.mark.parametrize("note", ["step_lists_under_heads", "own_weights_heads"])
def test_the_hostile_notes_under_heads_judge_head_1_as_the_first(note):
    """``Head 1`` (no head 0) is the first head: token 1's weights 0.6698, 0.3302 (NumPy: 0.66976, 0.33024) are
    right on every line; token 2's weight on itself is 0.5 in that head (NumPy), right too."""
    a = _heads()[0]["a"]
    assert f"{a[0, 0]:.4f}" == "0.6698" and f"{a[0, 1]:.4f}" == "0.3302" and a[1, 1] == pytest.approx(0.5, abs=1e-15)
    build, opts = CASES[note]
    report = check_text(build(200), opts)
    assert report.wrong == [] and len([r for r in report.verified if "." in r.text]) >= 200


BIG = "9" * 5000  # past int()'s 4300 digits
ZEROS = "0" * 5000
# hostile notes of the new readers' shapes: numbers of thousands of digits where an index, a head or a row number
# stands (int() raised out of check: a traceback), NaN and inf, empty cells and clozes, BOM, NUL, CR line ends
JUNK = [
    f"Token {BIG} puts 0.5 of its weight on itself.\n",
    f"Head {BIG}, token 1: weights 0.6698 and 0.3302\n",
    f"Head 1, token {BIG}: weights 0.6698 and 0.3302\n",
    f"Head 1, token {ZEROS}: weights 0.6698 and 0.3302\n",
    f"token 1: weights {BIG} and 0.3302\ntoken 2: e^s = 1e999 and nan, sum inf, weights -0 and 1e-999\n",
    f"### Scaled scores\n- q{BIG}: 0.5, 0.5\n- q{ZEROS}: 0.5, 0.5\n",
    f"### Output\n- o1 ≈ ({BIG}, 0.5)\n- o2 ≈ (nan, inf)\n",
    f"$$c_1 = {BIG}{P} + 0.5{P} = {P}$$\n$$c_{{99}} = 0.5{P} + 0.5{P} = {P}$$\n",
    f"\\begin{{tabular}}{{cc}} & k1 & k2 \\\\ q1 & {BIG} & 0.5 \\\\ q2 & nan & inf \\\\ \\end{{tabular}}\n",
    "\\begin{tabular}{cc} & k1 \\\\ \\hline \\\\ & \\\\ \\end{tabular}\\begin{tabular*}{\\end{tabular*}\n",
    f"{{{{c1::{BIG}}}}} {{{{c2::}}}} {{{{c3::nan::x}}}} {{{{c1::0.5\x00}}}} {{{{c1::\n",
    f"```python\nS = Q @ K.T\n```\nS[{BIG}, 0] = 1.0\nS_{{{ZEROS}, 1}} = 0.5\nS[0, 1] = nan\n",
    f"## Head 1\nQ_{BIG} = [[1, 0]]\nS_1 = [[1e999]]\n## Head 2\n",
    f"Row {BIG}: [0.5, 0.5]\nthe output for token {BIG} is [0.5, 0.5]\nToken {ZEROS}'s output is (0.5, 0.5)\n",
    f'"cat" puts 1e999% of its attention on itself. "dog" puts nan of its weight on itself.\nIn [{BIG}]: x\n',
    "\ufeffHead 1\r\ntoken 1: weights 0.6698 and 0.3302\r\n\x00 token 2: weights \r- q1: 0.5, 0.5\r",
    # a row vector's name and a shape of such numbers (human's row vectors, check.shapes)
    f"q_{BIG} = [0.5, 0.5]\nrow_{ZEROS}1 = [0.5, 0.5]\nThe scores have shape (1, {BIG}, 2).\nq.shape = ({ZEROS}2, 4)\n",
]
SCENARIO = ('variant = "sdpa"\nsource = "direct"\nheads = 2\nscale = "sqrt_dk"\nlabels = ["cat", "dog"]\n'
            f'q = {TWO["q"]}\nk = {TWO["k"]}\nv = {TWO["v"]}\n')


@pytest.mark.parametrize("note", JUNK, ids=range(len(JUNK)))
def test_the_readers_read_junk_without_a_traceback(note):
    """In the API: no exception, and no reader of hand-written notation failed (a bug note in the report)."""
    for opts in ({**TWO, "labels": ["cat", "dog"]}, CROSS):
        report = check_text(note, opts)
        assert not [n for n in report.notes if "failed" in str(n)], report.notes


@pytest.mark.parametrize("note", JUNK, ids=range(len(JUNK)))
def test_check_and_fix_read_junk_without_a_traceback(tmp_path, note):
    """Through the CLI: checked (exit 0 or 1: the note is no bad input), nothing on stderr; ``--fix`` writes a note
    that checks clean or leaves it as it was, and nothing else in the folder."""
    assert_cli_reads_junk(tmp_path, note, SCENARIO)


@pytest.mark.parametrize("digits, value", [("0", 0), ("007", 7), ("999999999999999999", 10**18 - 1),
                                           ("1000000000000000000", 10**18), (BIG, 10**18), (ZEROS, 0),
                                           (ZEROS + "12", 12)])
def test_an_index_of_any_length_is_read(digits, value):
    from attnwalk.check.indices import index_int

    assert index_int(digits) == value


def test_right_numbers_beside_a_huge_index_are_still_verified():
    """A 5000-digit token number names no row (left unread); token 1's weights of head 1 on the next line, NumPy's
    0.6698 and 0.3302, are verified."""
    a = _heads()[0]["a"][0]
    text = f"Head 1, token {BIG}: weights 0.1 and 0.9\nHead 1, token 1: weights {a[0]:.4f} and {a[1]:.4f}\n"
    report = check_text(text, TWO)
    assert report.wrong == [] and [r.text for r in report.verified if r.line == 2][-2:] == ["0.6698", "0.3302"]


def _cross() -> dict[str, np.ndarray]:
    """``CROSS``'s scaled scores, weights and output (NumPy, float64)."""
    q, k, v = (np.array(CROSS[n], dtype=np.float64) for n in "qkv")
    s = q @ k.T / math.sqrt(2)
    a = np.exp(s) / np.exp(s).sum(-1, keepdims=True)
    return {"scaled": s, "attn": a, "out": a @ v}


def _verdicts(report) -> list[tuple[str, str]]:
    """(printed number, status) of each decimal the note prints, in order (no head or index numerals)."""
    return [(r.text, r.status) for r in report.recs if "." in r.text]


_TENSOR = {"attn": ("Attention weights", "k"), "out": ("Output", "d"), "scaled": ("Scaled scores", "k")}


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(sorted(_TENSOR)), dec=st.integers(2, 4), planted=st.none() | st.integers(0, 5),
       rules=st.sampled_from([("\\hline", "\\hline", "\\hline"), ("\\toprule", "\\midrule", "\\bottomrule"),
                              ("", "", "")]), dollars=st.booleans(), star=st.booleans())
def test_a_tabular_and_the_same_markdown_table_get_the_same_verdicts(kind, dec, planted, rules, dollars, star):
    """A LaTeX ``tabular`` (any rules, numbers in ``$..$`` or bare, ``tabular*``) and the Markdown table of the same
    numbers under the same name: the same verdicts; every right number verified, a planted one (+0.25) wrong."""
    m = _cross()[kind]
    cells = [[f"{x:.{dec}f}" for x in row] for row in m]
    planted_text = None
    if planted is not None and planted < m.size:
        i, j = divmod(planted, m.shape[1])
        cells[i][j] = planted_text = f"{m[i, j] + 0.25:.{dec}f}"
    name, col = _TENSOR[kind]
    cols = [f"${col}_{j + 1}$" for j in range(m.shape[1])]
    shown = [[f"${c}$" if dollars else c for c in row] for row in cells]
    env = "tabular*}{\\textwidth" if star else "tabular"
    top, mid, bottom = rules
    tabular = ("\\begin{table}[h]\n\\centering\n\\begin{" + env + "}{|c|" + "c" * m.shape[1] + "|}\n" + top + "\n & "
               + " & ".join(cols) + " \\\\ " + mid + "\n"
               + "".join(f"$q_{i + 1}$ & " + " & ".join(row) + " \\\\\n" for i, row in enumerate(shown))
               + bottom + "\n\\end{" + env.split("}")[0] + "}\n\\caption{" + name + "}\n\\end{table}\n")
    markdown = (name + "\n\n| | " + " | ".join(cols) + " |\n|" + "---|" * (m.shape[1] + 1) + "\n"
                + "".join(f"| $q_{i + 1}$ | " + " | ".join(row) + " |\n" for i, row in enumerate(shown)))
    got = _verdicts(check_text(tabular, CROSS))
    assert got == _verdicts(check_text(markdown, CROSS))
    assert [t for t, s in got if s == "wrong"] == ([planted_text] if planted_text else [])
    assert sum(s == "verified" for _, s in got) == m.size - (planted_text is not None)


def _sections(base: int, token: int, dec: int, planted: int | None) -> tuple[str, str | None]:
    """A note of both heads of ``TWO``, headed ``## Head {base}`` and ``## Head {base + 1}``: each a step list of
    one token (e^s, sum, weights), that token's weight on itself, and its rows of weights as list items. Returns
    the note and the planted number (+0.25 on the ``planted``-th decimal) or None."""
    f = f"{{:.{dec}f}}".format
    parts, n, planted_text = [], 0, None

    def num(x: float) -> str:
        nonlocal n, planted_text
        out = f(x + 0.25) if n == planted else f(x)
        planted_text = out if n == planted else planted_text
        n += 1
        return out

    for h, v in enumerate(_heads()):
        e, a = v["e"][token], v["a"]
        parts.append(f"## Head {base + h}\n\nToken {token + 1}: e^s = {num(e[0])} and {num(e[1])}, sum "
                     f"{num(e.sum())}, weights {num(a[token, 0])} and {num(a[token, 1])}\n\n"
                     f"Token {token + 1} puts {num(a[token, token])} of its weight on itself.\n\n### Weights\n\n"
                     + "".join(f"- q{i + 1}: {num(a[i, 0])}, {num(a[i, 1])}\n" for i in range(2)) + "\n")
    return "".join(parts), planted_text


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(token=st.integers(0, 1), dec=st.integers(3, 4), planted=st.none() | st.integers(0, 19))
def test_heads_counted_from_0_or_from_1_get_the_same_verdicts(token, dec, planted):
    """The same note with its heads numbered 0, 1 and numbered 1, 2 (step_lists, own_weights and row_items each
    place a number by ``human.head_at``): the same verdicts; every right number verified, a planted one wrong. The
    values of each head from NumPy (``_heads``)."""
    zero, planted_text = _sections(0, token, dec, planted)
    one, _ = _sections(1, token, dec, planted)
    got = _verdicts(check_text(zero, TWO))
    assert got == _verdicts(check_text(one, TWO))
    assert [t for t, s in got if s == "wrong"] == ([planted_text] if planted_text else [])
    assert sum(s == "verified" for _, s in got) == 20 - (planted_text is not None)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(base=st.integers(0, 1), token=st.integers(0, 1), dec=st.integers(3, 4), planted=st.none() | st.integers(0, 19),
       clozed=st.lists(st.booleans(), min_size=20, max_size=20), hints=st.booleans())
def test_a_note_of_clozes_gets_the_verdicts_of_its_answers(base, token, dec, planted, clozed, hints):
    """Any of the note's numbers written as Anki clozes (``{{c3::0.6698}}``, a hint or not): the verdicts of the
    note with the answers printed."""
    import re

    plain, _ = _sections(base, token, dec, planted)
    numbers = iter(clozed)

    def cloze(m: re.Match) -> str:
        if not next(numbers, False):
            return m.group()
        return "{{c1::" + m.group() + ("::w}}" if hints else "}}")

    cards = re.sub(r"\d+\.\d+", cloze, plain)
    assert _verdicts(check_text(cards, TWO)) == _verdicts(check_text(plain, TWO))


GATE_PARTS = ["Token 1: ", "token 2 ", "Head 1, ", "Head 2\n", "## Head 1\n", "e^s = ", "sum ", "weights ", " and ",
              ", ", "0.6698", "0.3302", "2.0281", "3.0281", "0.5", "1", "output 2 ", "Token 3's output is ",
              "(0.5, 0.5)", "[0.6698, 0.3302]", " puts ", "of its weight on itself", ". ", "\n", "- q1: ",
              "- o2 ≈ ", "### Weights\n", "\n\n| | k1 | k2 | sum |\n|---|---|---|---|\n| q1 | 2.0281 | 1 | 3.0281 |\n",
              "| q2 | 2.0281 | 2.0281 | 4.0562 |\n",
              "{{c1::", "}}", "c_1 = ", "0.5" + P, " + ", " = ", "$$", "\\begin{tabular}{cc}", " & ", " \\\\ ",
              "\\end{tabular}", "S_1 = [[0.7071, 0]]", "divided by sqrt(2),\n", "ſ", "İ", "TOKEN", "\t"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(parts=st.lists(st.sampled_from(GATE_PARTS), min_size=1, max_size=40))
def test_the_gates_never_change_a_forms_verdicts_on_random_texts(parts):
    """``check.gates`` skips a form where its trigger is absent: on random texts of the new readers' pieces and the
    gated forms' triggers, ``human.find`` gives the same verdicts with the gates as without them."""
    from attnwalk.check import gates, human

    text = "".join(parts)
    trace = _trace(TWO)

    def find(on: bool) -> list:
        gates.ON = on
        try:
            hits = human.find((text + "\n")[:-1], trace, [])  # a fresh object: no scan of the other run reused
        finally:
            gates.ON = True
        return sorted((k, h.text, h.ok, str(h.label), str(h.expected)) for k, h in hits.items())

    assert find(True) == find(False)


_TRACES: dict = {}


def _trace(opts: dict):
    """The trace check reads a note of ``opts`` against (captured from ``human.find``'s call in a check)."""
    from attnwalk.check import human

    key = repr(sorted(opts.items()))
    if key not in _TRACES:
        find = human.find

        def capture(body, trace, failed=None):
            _TRACES[key] = trace
            return find(body, trace, failed)

        human.find = capture
        try:
            check_text("x\n", opts)
        finally:
            human.find = find
    return _TRACES[key]


@pytest.mark.parametrize("base", [0, 1])
@pytest.mark.parametrize("planted", [False, True])
def test_step_lists_of_a_note_counting_its_tokens_from_0(base, planted):
    """``token 0: ..`` then ``token 1: ..``: the note counts from 0, as numbered_rows and own_weights read it; the
    second card is the second row (its four right numbers were called wrong as the first row's). NumPy's values of
    head 0: e^ŝ row 2 = (2.0281, 2.0281), sum 4.0562, weights (0.5, 0.5); a planted weight (+0.25) is wrong."""
    e, a = _heads()[0]["e"], _heads()[0]["a"]
    w = a.copy()
    if planted:
        w[1, 1] += 0.25
    text = "".join(f"token {i + base}: e^s = {e[i, 0]:.4f} and {e[i, 1]:.4f}, sum {e[i].sum():.4f}, weights "
                   f"{w[i, 0]:.4f} and {w[i, 1]:.4f}\n" for i in range(2))
    got = _verdicts(check_text(text, TWO))
    assert [t for t, s in got if s == "wrong"] == ([f"{w[1, 1]:.4f}"] if planted else [])
    assert sum(s == "verified" for _, s in got) == 10 - planted


@pytest.mark.parametrize("base", [0, 1])
@pytest.mark.parametrize("planted", [False, True])
def test_column_sums_of_a_note_counting_its_steps_from_0(base, planted):
    """``c_0 = ..`` then ``c_1 = ..``: the steps count from 0; the second step's right weights and output (NumPy:
    α = (0.1867, 0.0454, 0.7679), c = (0.9546, 0.8133)) were called wrong as the first step's. A planted output
    (+0.25) is wrong."""
    c = _cross()
    out = c["out"].copy()
    if planted:
        out[1, 0] += 0.25
    vec = r"\begin{{pmatrix}} {} \\ {} \end{{pmatrix}}"

    def step(t: int) -> str:
        terms = " + ".join(f"{x:.4f}" + vec.format(*v) for x, v in zip(c["attn"][t], CROSS["v"]))
        return f"$$c_{t + base} = {terms} = " + vec.format(*(f"{y:.4f}" for y in out[t])) + "$$\n"

    got = _verdicts(check_text(step(0) + step(1), CROSS))
    assert [t for t, s in got if s == "wrong"] == ([f"{out[1, 0]:.4f}"] if planted else [])
    assert sum(s == "verified" for _, s in got) == 10 - planted
