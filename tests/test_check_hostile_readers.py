"""Hostile notes for heldout13's readers (check.commas, sheets, brackets, rowsums, unscaled, numbered_rows, the ≒
relation and ``_given_dk``): linear work, no crash, and no right number called wrong.

Work is asserted as in test_check_hostile_speed: function calls (``sys.setprofile``, the same on every machine) for
twice the items at most ~2x, and CPU time (best of three) for four times the items far below the 16x of a quadratic
reader. The invariants' expected values are computed here from each setup by NumPy in float64 (softmax of the
scaled scores, no engine), as torch computes them.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hostile import assert_calls_linear, assert_cpu_linear, run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attnwalk.check import _given_dk, check_text

OPTS = dict(h=3, w=3, heads=2, seed=42, pe_on="o")
# heldout13's forum answer (decimal commas): X W_Q, X W_K, X W_V, d_k = 2
FORUM = dict(variant="sdpa", source="project", heads=1, scale="sqrt_dk", weight_layout="in_out",
             x=[[1, 0], [0, 1], [1, 1]], w_q=[[1, 0], [1, 1]], w_k=[[0, 1], [1, 0]], w_v=[[1, 2], [0, 1]])
# heldout13's spreadsheet: Q = K = V, d_k = 2
SHEET = dict(variant="sdpa", source="direct", heads=1, scale="sqrt_dk", q=[[1, 2], [2, 1], [0, 1], [1, 0]],
             k=[[1, 2], [2, 1], [0, 1], [1, 0]], v=[[1, 2], [2, 1], [0, 1], [1, 0]])
# heldout13's Unicode bracket note: two heads of width 2
BRACKETS = dict(variant="sdpa", source="direct", heads=2, scale="sqrt_dk", q=[[1, 0, 2, 1], [0, 1, 1, 0]],
                k=[[1, 1, 0, 1], [0, 1, 1, 1]], v=[[1, 0, 0, 2], [0, 1, 2, 0]])

UNSCALED_LINE = "Hàng 3: e^1 ≈ 2,7183; e^2 ≈ 7,3891; e^3 ≈ 20,0855. Tổng ≈ 30,1929.\n"

# name -> (build(k) -> text with k items, its setup)
CASES = {
    # many tops on a line and one close at its end; tops over rows of middle pieces (each top searched its line
    # and every row below to the end: quadratic before)
    "bracket_tops_one_close": (lambda k: "⎡1 " * k + "⎤\n", OPTS),
    "bracket_tops_over_rows": (lambda k: "⎡" * k + "1⎤\n" + ("⎢" * k + "1⎥\n") * 20, OPTS),
    "brackets_side_by_side": (lambda k: "Q = ⎡1 0⎤ " * k + "\n" + "    ⎣0 1⎦ " * k + "\n", OPTS),
    "bracket_bottoms_only": (lambda k: "⎣1⎦ " * k + "\n" + "⎡1⎤\n", OPTS),
    # a line whose exponents print a raw score row, many times (each exponent's record was looked for among all)
    "unscaled_lines": (lambda k: UNSCALED_LINE * k, FORUM),
    "comma_lists": (lambda k: "[0,2483; 0,2483; 0,5035] " * k + "\n", FORUM),
    "comma_lines": (lambda k: "e^0,7071 ≈ 2,0281\n" * k, FORUM),
    "comma_run": (lambda k: "1,11" * k + "\n" + "0,25 0,25 0,25\n", FORUM),
    "comma_one_digit": (lambda k: "0,25 0,25 0,25;" + " 1,5" * k + "\n" + "2,5\n" * k, FORUM),
    "row_sum_list": (lambda k: "The row sums are " + ", ".join(["1.5"] * k) + "\n", OPTS),
    "row_sum_phrases": (lambda k: "the rows sum to " * k + "\n", OPTS),
    "row_sum_spaces": (lambda k: "row sums: 1.5" + " " * k + "and\n", OPTS),
    "sheet_rows": (lambda k: "| | A | B | C |\n|---|---|---|---|\n| **1** | e^score | x | y |\n"
                   + "| **2** | t | 0.5 | 0.5 |\n" * k, OPTS),
    "sheet_tables": (lambda k: "| | A | B | C |\n|---|---|---|---|\n| **1** | weight | x | y |\n"
                     "| **2** | t | 0.5 | 0.5 |\n\n" * k, OPTS),
    "sheet_wide": (lambda k: "| | " + " | ".join("ABCDEFGHIJKLMNOPQRSTUVWXYZ") + " |\n|---|\n| **1** | e^x |"
                   + " 0.5 |" * k + "\n", OPTS),
    "numbered_rows_no_newline": (lambda k: "token 1 " * k, OPTS),
    "numbered_rows_forms": (lambda k: "Token 1's output is (0.5, 0.5) " * k + "\n", OPTS),
    "approx_signs": (lambda k: "e^1.0 ≒ 2.718 ≃ " * k + "\n", OPTS),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_work_grows_linearly(name):
    assert_calls_linear(*CASES[name])


@pytest.mark.parametrize("name", ["bracket_tops_one_close", "bracket_tops_over_rows", "unscaled_lines",
                                  "comma_lists", "comma_one_digit", "sheet_wide", "numbered_rows_no_newline",
                                  "row_sum_spaces"])
def test_time_grows_linearly(name):
    """Work inside one builtin call (a slice, ``str.find``, ``str.count``) is invisible to the call count."""
    assert_cpu_linear(*CASES[name])


@pytest.mark.parametrize("name", sorted(set(CASES) - {"unscaled_lines", "comma_lines"}))
def test_no_hostile_note_has_a_wrong_number(name):
    """Nothing in these notes claims a value of its setup's trace (the setups' values below are not printed)."""
    build, opts = CASES[name]
    report = check_text(build(200), opts)
    assert report.wrong == []


def _forum_values() -> dict[str, np.ndarray]:
    x, wq, wk, wv = (np.array(FORUM[n], dtype=np.float64) for n in ("x", "w_q", "w_k", "w_v"))
    s = (x @ wq) @ (x @ wk).T / math.sqrt(2)
    e = np.exp(s)
    return {"scaled": s, "exp": e, "attn": e / e.sum(-1, keepdims=True), "out": e / e.sum(-1, keepdims=True) @ (x @ wv)}


def test_a_repeated_unscaled_line_is_judged_as_the_line_alone():
    """Row 3's exponents 1, 2, 3 are its raw scores: the scaled ones are 0.7071, 1.4142, 2.1213 (NumPy here), so
    e^2, e^3, their exponentials and the row's sum are wrong (e^1 rounds ŝ = 0.7071 at its precision: its e^1 is
    arithmetic of a right operand) on every copy of the line, with the same expected
    values."""
    s = _forum_values()["scaled"][2]
    one, many = check_text(UNSCALED_LINE, FORUM), check_text(UNSCALED_LINE * 300, FORUM)
    assert len(many.wrong) == 300 * len(one.wrong) and len(many.verified) == 300 * len(one.verified)
    want = {"2": f"{s[1]:.0f}", "3": f"{s[2]:.0f}",
            "7,3891": f"{math.exp(s[1]):.4f}".replace(".", ","), "20,0855": f"{math.exp(s[2]):.4f}".replace(".", ","),
            "30,1929": f"{sum(map(math.exp, s)):.4f}".replace(".", ",")}  # the row's sum of e^ŝ
    for r in many.wrong:
        assert r.failure()[1] == want[r.text], (r.text, r.failure())
    assert {r.text for r in many.wrong} == set(want)


# (note, the one stderr line's words where the note is refused; None: checked, no traceback)
JUNK = [
    "⎡" * 5000 + "\n" + "⎢" * 5000 + "\n⎣",
    "⎣0 1⎦\n⎡1 0⎤\n⎢",
    "Q¹ = ⎡nan inf⎤\n     ⎣1e999 -0⎦\n",
    "Q = ⎡1 0⎤\r\n    ⎣0 1⎦\r\n",
    "| | A | B |\n|---|---|\n| **1** | e^score | x |\n| **2** | t | nan |\n| **3** | t | 1e999 |\n",
    "| | A | B | C |\r\n|---|---|---|\r\n| **1** | weight | a | b |\r\n| **2** | t | 0.5 | 0.5 |\r\n",
    "| | A |\n|\n| **1** |\n| **2** | |\n",
    "| | " + " | ".join("ABCDEFGHIJKLMNOPQRSTUVWXYZ") * 3 + " |\n|---|\n| **1** | e^x | 1 |\n",
    "0,1111 " + "9" * 5000 + ",99 0,25 0,25;\x00[0,5; 0,5]\n",
    "the row sums are " + ", ".join(["9" * 400] * 9) + "\n",
    "the rows sum to nan, inf and -inf\n",
    "Token " + "9" * 400 + "'s output is (0.5, 0.5)\nToken 0's output is (1e999, 0.5)\n",
    "e^1 ≒ 2.718; e^2 ≃ 7.389; e^999 ≒ inf\r" * 50,
    "\ufeff\u200b⎡\x00⎤\n⎣\x01⎦\n≒≃\n| **1** | e^ |\n",
]


@pytest.mark.parametrize("note", JUNK, ids=range(len(JUNK)))
def test_check_reads_junk_for_the_new_readers_without_a_traceback(tmp_path, note):
    (tmp_path / "n.md").write_text(note, encoding="utf-8", newline="")
    (tmp_path / "s.toml").write_text('variant = "sdpa"\nsource = "direct"\nheads = 2\nscale = "sqrt_dk"\n'
                                     f'q = {BRACKETS["q"]}\nk = {BRACKETS["k"]}\nv = {BRACKETS["v"]}\n')
    answer = run_cli(["check", "--scenario", "s.toml", "n.md"], cwd=tmp_path)
    assert "Traceback" not in answer.err, answer.err
    assert answer.code in (0, 1), (answer.code, answer.err)  # the note is no bad input: checked, its numbers judged
    assert answer.err_lines == [], answer.err


@pytest.mark.parametrize("scale", ["1e-200", "1e-160", "1e149", "1e-5", "2"])
def test_a_scale_far_from_one_names_no_d_k_and_crashes_nothing(tmp_path, scale):
    """Given scores scaled by 1e-200: its d_k (1e400) is past float64 (squared to 0.0, then 1 / 0.0 raised a
    ZeroDivisionError, a traceback); a scale of 1e149 or 2 names a d_k below 1, not a whole one. None named:
    the note's d_k = 4 is not understood, not called wrong."""
    (tmp_path / "s.toml").write_text(f'variant = "sdpa"\nsource = "scores"\nscale = {scale}\n'
                                     'scores = [[2.0, 1.0, 0.2]]\nv = [[1, 0], [0, 1], [1, 1]]\n')
    (tmp_path / "n.md").write_text("d_k = 4\ns = (2.0, 1.0, 0.2)\n", encoding="utf-8")
    answer = run_cli(["check", "--scenario", "s.toml", "n.md"], cwd=tmp_path)
    assert "Traceback" not in answer.err, answer.err
    assert answer.code == 0, (answer.code, answer.out, answer.err)
    assert _given_dk(float(scale)) is None


@pytest.mark.parametrize("scale, dk", [(0.5, 4), (1 / math.sqrt(2), 2), (0.125, 64), (2.0 ** -25, 2 ** 50)])
def test_given_dk_of_a_whole_d_k(scale, dk):
    assert _given_dk(scale) == dk


def _fmt(v: float, dec: int, comma: bool) -> str:
    out = f"{v:.{dec}f}"
    return out.replace(".", ",") if comma else out


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dec=st.integers(2, 4), rows=st.permutations(range(3)), planted=st.none() | st.integers(0, 8),
       kind=st.sampled_from(["attn", "out"]))
def test_a_note_of_decimal_commas_gets_the_verdicts_of_the_note_with_points(dec, rows, planted, kind):
    """The weights (or outputs) of the forum setup as ``[a; b; c]`` rows with decimal commas, and the same rows
    with points and list commas: the same verdicts; every right number verified, a planted one (+0.1) wrong."""
    want = _forum_values()[kind]
    lines, planted_text = [], None
    for n, r in enumerate(rows):
        vals = [float(v) for v in want[r]]
        if planted is not None and planted // 3 == n and planted % 3 < len(vals):
            vals[planted % 3] += 0.1
            planted_text = _fmt(vals[planted % 3], dec, False)
        lines.append((r, vals))
    name = "weights" if kind == "attn" else "output"

    def note(comma: bool) -> str:
        sep = "; " if comma else ", "
        return "".join(f"The {name} of token {r + 1} is [{sep.join(_fmt(v, dec, comma) for v in vals)}].\n"
                       for r, vals in lines)

    with_commas, with_points = check_text(note(True), FORUM), check_text(note(False), FORUM)

    def verdicts(report):
        return sorted([(r.line, r.text.replace(",", "."), s) for s, recs in
                       (("ok", report.verified), ("wrong", report.wrong), ("?", report.unknown)) for r in recs])

    assert verdicts(with_commas) == verdicts(with_points)
    judged = verdicts(with_points)
    assert [t for _, t, s in judged if s == "wrong"] == ([planted_text] if planted_text else [])
    assert sum(s == "ok" for _, _, s in judged) == sum(len(vals) for _, vals in lines) - (planted_text is not None)


def _sheet_values() -> tuple[np.ndarray, np.ndarray]:
    q = np.array(SHEET["q"], dtype=np.float64)
    e = np.exp(q @ q.T / math.sqrt(2))
    return e, e / e.sum(-1, keepdims=True)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dec=st.integers(2, 4), sum_at=st.integers(0, 4), weights_first=st.booleans(),
       planted=st.none() | st.tuples(st.integers(0, 3), st.integers(0, 4)))
def test_a_sheet_verifies_its_numbers_wherever_its_sum_column_and_blocks_stand(dec, sum_at, weights_first, planted):
    """heldout13's sheet: the e^score block with its row-sum column at any place among the columns, the weights
    block before or after it: every right number verified, a planted one (+0.5 in e^score, its sum column
    included) wrong."""
    e, w = _sheet_values()
    toks = ["The", "cat", "sat", "down"]
    cols = [[f"{v:.{dec}f}" for v in row] for row in e]
    sums = [f"{v:.{dec}f}" for v in e.sum(-1)]
    planted_text = None
    if planted is not None:
        r, j = planted
        if j == 4:
            sums[r] = planted_text = f"{e[r].sum() + 0.5:.{dec}f}"
        else:
            cols[r][j] = planted_text = f"{e[r, j] + 0.5:.{dec}f}"

    def block(first: int, corner: str, heads: list[str], rows: list[list[str]]) -> list[str]:
        letters = "ABCDEFG"[:len(heads) + 1]
        return (["| | " + " | ".join(letters) + " |", "|" + "---|" * (len(heads) + 2),
                 f"| **{first}** | {corner} | " + " | ".join(heads) + " |"]
                + [f"| **{first + 1 + i}** | {toks[i]} | " + " | ".join(row) + " |" for i, row in enumerate(rows)])

    heads = toks[:sum_at] + ["row sum"] + toks[sum_at:]
    exp_rows = [row[:sum_at] + [s] + row[sum_at:] for row, s in zip(cols, sums)]
    blocks = [block(1, "e^score", heads, exp_rows),
              block(7, "weight", toks, [[f"{v:.{dec}f}" for v in row] for row in w])]
    text = "\n\n".join("\n".join(b) for b in (blocks[::-1] if weights_first else blocks)) + "\n"
    report = check_text(text, SHEET)
    assert [r.text for r in report.wrong] == ([planted_text] if planted_text else [])
    assert len(report.verified) == 4 * 5 + 4 * 4 - (1 if planted_text else 0)


def _bracket_values() -> dict[str, np.ndarray]:
    q, k, v = (np.array(BRACKETS[n], dtype=np.float64) for n in "qkv")
    out = {}
    for h in range(2):
        sl = slice(2 * h, 2 * h + 2)
        s = q[:, sl] @ k[:, sl].T / math.sqrt(2)
        a = np.exp(s) / np.exp(s).sum(-1, keepdims=True)
        out[f"A{'¹²'[h]}"], out[f"O{'¹²'[h]}"] = a, a @ v[:, sl]
    return out


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(order=st.permutations(["A¹", "O¹", "A²", "O²"]), gaps=st.lists(st.integers(1, 9), min_size=4, max_size=4),
       dec=st.integers(3, 4), planted=st.none() | st.integers(0, 15))
def test_bracket_matrices_side_by_side_in_any_order_are_each_judged(order, gaps, dec, planted):
    """Each head's weights and output as bracket matrices on one pair of lines, in any order and spacing: every
    right number verified, a planted one (+0.25) wrong."""
    vals = _bracket_values()
    top, bottom, planted_text = "", "", None
    for n, (label, gap) in enumerate(zip(order, gaps)):
        m = [[f"{x:.{dec}f}" for x in row] for row in vals[label]]
        if planted is not None and planted // 4 == n:
            r, j = divmod(planted % 4, 2)
            m[r][j] = planted_text = f"{vals[label][r, j] + 0.25:.{dec}f}"
        width = max(len(c) for row in m for c in row)
        cells = [" ".join(c.ljust(width) for c in row) for row in m]
        pad = " " * gap
        top += f"{label} = ⎡{cells[0]}⎤" + pad
        bottom += " " * len(f"{label} = ") + f"⎣{cells[1]}⎦" + pad
    report = check_text(top + "\n" + bottom + "\n", BRACKETS)
    assert [r.text for r in report.wrong] == ([planted_text] if planted_text else [])
    assert len(report.verified) == 16 - (1 if planted_text else 0)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(joins=st.lists(st.sampled_from([", ", "; ", " and ", ", and ", " , "]), min_size=3, max_size=3),
       phrase=st.sampled_from(["The row sums are", "the rows sum to", "Row sums:"]), dec=st.integers(2, 4),
       planted=st.none() | st.integers(0, 3))
def test_row_sums_in_prose_are_judged_whatever_joins_them(joins, phrase, dec, planted):
    """The spreadsheet setup's four row sums of e^ŝ in one prose list, joined any way: each verified, a planted
    one (+1) wrong."""
    sums = [float(v) for v in _sheet_values()[0].sum(-1)]
    printed = [f"{v:.{dec}f}" for v in sums]
    if planted is not None:
        printed[planted] = f"{sums[planted] + 1:.{dec}f}"
    text = phrase + " " + printed[0] + "".join(j + p for j, p in zip(joins, printed[1:])) + ".\n"
    report = check_text(text, SHEET)
    assert [r.text for r in report.wrong] == ([printed[planted]] if planted is not None else [])
    assert len(report.verified) == 4 - (planted is not None)


@pytest.mark.parametrize("text, wrong", [
    ("The attention weights: the rows sum to 1.000, 1.000, 1.000 and 1.000.\n", []),
    ("The row sums are 1, 1, 1 and 1 (each row of A is a distribution).\n", []),
    ("Softmax weights, row sums: 1.00, 1.00, 0.90, 1.00\n", ["0.90"]),
    ("The row sums are 57.374, 57.374, 13.826 and 9.169.\n", ["13.826"]),  # e^ŝ's: row 3's is 9.169
])
def test_a_list_of_the_weights_row_sums_is_judged_as_those(text, wrong):
    """Softmax rows sum to 1 (NumPy: 1 within 1e-15 on the sheet setup): a prose list of 1s after ``the rows sum
    to`` states the weights' sums, and was called wrong as the sums of e^ŝ (57.374, 57.374, 9.169, 9.169)."""
    e, w = _sheet_values()
    assert np.allclose(w.sum(-1), 1.0, atol=1e-15) and f"{e[2].sum():.3f}" == "9.169"
    report = check_text(text, SHEET)
    assert [r.text for r in report.wrong] == wrong
    assert len(report.verified) == 4 - len(wrong)


# three tokens whose weights and outputs are both 3 x 3: a corner that names both is read as the one it agrees with
SQUARE = dict(variant="sdpa", source="direct", heads=1, scale="sqrt_dk", q=[[1, 2, 0], [2, 1, 1], [0, 1, 2]],
              k=[[1, 2, 0], [2, 1, 1], [0, 1, 2]], v=[[1, 2, 0], [2, 1, 1], [0, 1, 2]])


def _square_values() -> dict[str, np.ndarray]:
    x = np.array(SQUARE["q"], dtype=np.float64)
    s = x @ x.T / math.sqrt(3)
    w = np.exp(s) / np.exp(s).sum(-1, keepdims=True)
    return {"scaled": s, "exp": np.exp(s), "attn": w, "out": w @ x, "x": x}


@pytest.mark.parametrize("corner, kind", [
    ("weighted sum", "out"), ("weighted output", "out"), ("weights × V", "out"), ("attention output", "out"),
    ("context (weights · V)", "out"), ("prob × V", "out"), ("e^score / sum", "attn"), ("exp(score) / row sum", "attn"),
    ("softmax(score)", "attn"), ("score / √3", "scaled"), ("e^score", "exp"), ("weight", "attn"), ("output", "out"),
])
@pytest.mark.parametrize("planted", [False, True])
def test_a_sheet_block_whose_corner_names_two_tensors_is_read_as_the_one_it_prints(corner, kind, planted):
    """A corner such as ``weighted sum`` holds the weights' word and the output's: the block was read as the first
    tensor of ``SHEET_CORNERS`` its words name, and nine right outputs called wrong weights (NumPy's values)."""
    m = _square_values()[kind]
    printed = [[f"{x:.3f}" for x in row] for row in m]
    if planted:
        printed[1][2] = f"{m[1, 2] + 0.25:.3f}"
    rows = ["| | A | B | C | D |", "|---|---|---|---|---|", f"| **1** | {corner} | a | b | c |"]
    rows += [f"| **{i + 2}** | t{i} | " + " | ".join(r) + " |" for i, r in enumerate(printed)]
    report = check_text("\n".join(rows) + "\n", SQUARE)
    assert [r.text for r in report.wrong] == ([printed[1][2]] if planted else [])
    assert len(report.verified) == 9 - planted


def test_a_sheet_of_a_projections_weights_is_no_tensor_of_the_trace():
    """``W_Q weights``: the weights of a projection, not the attention weights (nine numbers called wrong before)."""
    rows = ["| | A | B | C | D |", "|---|---|---|---|---|", "| **1** | W_Q weights | a | b | c |"]
    rows += [f"| **{i + 2}** | t{i} | " + " | ".join(f"{x:.3f}" for x in r) + " |"
             for i, r in enumerate(_square_values()["x"] * 0.37)]
    report = check_text("\n".join(rows) + "\n", SQUARE)
    assert report.wrong == [] and report.verified == []


@pytest.mark.parametrize("label, key", [
    ("Kết quả O² = ", "O²"), ("Trọng số A² = ", "A²"), ("Attention weights A² = ", "A²"), ("A²V² = ", "O²"),
    ("Output of head 2: O² = ", "O²"), ("Step 3. A² = ", "A²"), ("Q²K²ᵀ/√2 → softmax → A² = ", "A²"),
    ("O² = A²V² = ", "O²"), ("P² = ", "A²"), ("Z² = ", "O²"),
])
@pytest.mark.parametrize("planted", [False, True])
def test_a_bracket_matrix_is_named_by_the_name_its_equals_sign_follows(label, key, planted):
    """The first capital of a label named the matrix: the K of ``Kết quả O² =`` (the keys), the T of ``Trọng số``
    (nothing), Q²K²ᵀ of ``Q²K²ᵀ/√2 → softmax → A² =`` (four right weights called wrong scaled scores); a product
    written ``A²V²`` is the output. Head 2's values (V² is no identity: O² is not A²), from NumPy."""
    m = _bracket_values()[key]
    printed = [[f"{x:.4f}" for x in row] for row in m]
    if planted:
        printed[1][0] = f"{m[1, 0] + 0.25:.4f}"
    cells = [" ".join(row) for row in printed]
    report = check_text(f"{label}⎡{cells[0]}⎤\n" + " " * len(label) + f"⎣{cells[1]}⎦\n", BRACKETS)
    assert [r.text for r in report.wrong] == ([printed[1][0]] if planted else [])
    assert len(report.verified) == 4 - planted


@pytest.mark.parametrize("before, k", [("Padding sits at position 0.\n", 2), ("", 2), ("Token 0 is the BOS.\n", 1),
                                       ("The first word is word 0.\n", 2)])
def test_a_numbered_row_counts_from_0_only_where_its_own_word_names_a_row_0(before, k):
    """``position 0`` of a padding made every ``Token 2`` of the note row 2 (two right outputs called wrong); only
    ``token 0`` says the note counts its tokens from 0. Row 1 of the sheet setup's output, from NumPy."""
    e, w = _sheet_values()
    out = w[1] @ np.array(SHEET["v"], dtype=np.float64)
    report = check_text(before + f"Token {k}'s output is ({out[0]:.3f}, {out[1]:.3f})\n", SHEET)
    assert report.wrong == []
    assert [r.text for r in report.verified if r.line == before.count(chr(10)) + 1][-2:] == [f"{v:.3f}" for v in out]


FORUM_ROW2 = "Hàng 2: e^0,7071 ≈ 2,0281; e^0,7071 ≈ 2,0281; e^1,4142 ≈ 4,1133.\n"


@pytest.mark.parametrize("line, right", [
    ("e^0,5 ≈ {e05}\n", 1),  # e^0.5 = 1.6487: was read e^0 and a list 5, 1.6487 (called wrong, 5.0000)
    ("z1 = [0,6; 2,0]\n", 2),  # the output's row 1 at one decimal: 0.5989, 2.0000
])
def test_a_one_digit_decimal_comma_on_a_line_of_decimal_commas_is_a_decimal(line, right):
    """On a note of decimal commas, ``0,5`` beside ``1,6487`` (or in a list of semicolons) is 0.5, as the same note
    with points reads it; the values from NumPy (math.exp, the forum setup's output)."""
    text = FORUM_ROW2 + line.format(e05=f"{math.exp(0.5):.4f}".replace(".", ","))
    with_commas = check_text(text, FORUM)
    with_points = check_text(text.replace(",", ".").replace(";", ","), FORUM)
    assert with_commas.wrong == [] and with_points.wrong == []
    points = sorted(r.text for r in with_points.verified)
    assert sorted(r.text.replace(",", ".") for r in with_commas.verified) == points
    assert sum(r.line == 2 for r in with_commas.verified) >= right


def test_a_one_digit_decimal_comma_in_prose_or_code_of_a_comma_note_is_left():
    """``Thời gian: 1,5 giây`` and ``[[1,0],[0,1]]`` (no exponent, no semicolon beside) are not read as 1.5, 1.0."""
    from attnwalk.check.commas import as_points

    body, changed = as_points(FORUM_ROW2 + "Thời gian: 1,5 giây.\n```python\nW = [[1,0],[0,1]]\n```\ne^{0,5}; [1,0]\n")
    assert "1,5 giây" in body and "[[1,0],[0,1]]" in body and body.endswith("e^{0.5}; [1,0]\n")
    assert changed == {1: {"0.7071", "2.0281", "1.4142", "4.1133"}, 6: {"0.5"}}


@pytest.mark.parametrize("before, wrong", [
    ("For comparison, the raw scores of row 3 give:\n", 0), ("Had we skipped the √d_k:\n", 0),
    ("With the raw scores instead:\n", 0), ("Row 3, before dividing by √2:\n", 0), ("Hàng 3 (so sánh):\n", 0),
    ("Hàng 3:\n", 4),  # the forum's mistake: e^ŝ of row 3 is e^0.7071.., e^1.4142.., e^2.1213..
])
def test_exponentials_of_a_raw_score_row_shown_on_purpose_are_left_as_they_are(before, wrong):
    """``e^1 ≈ 2.7183; e^2 ≈ 7.3891; e^3 ≈ 20.0855`` (right arithmetic: math.exp) after words that show the raw scores'
    exponentials on purpose is no claim about e^ŝ; the same line after a bare row name is (√d_k forgotten)."""
    assert [f"{math.exp(k):.4f}" for k in (1, 2, 3)] == ["2.7183", "7.3891", "20.0855"]
    report = check_text(before + "e^1 ≈ 2.7183; e^2 ≈ 7.3891; e^3 ≈ 20.0855\n", FORUM)
    assert len(report.wrong) == wrong and len(report.verified) == 6 - wrong


def _bracket_sheet(m: np.ndarray) -> str:
    rows = ["| | A | B | C |", "|---|---|---|---|", "| **1** | weight | a | b |"]
    return "\n".join(rows + [f"| **{i + 2}** | t{i} | " + " | ".join(f"{x:.3f}" for x in r) + " |"
                             for i, r in enumerate(m)]) + "\n"


@pytest.mark.parametrize("planted", [False, True])
def test_a_sheet_under_a_head_is_that_heads(planted):
    """Two heads' weights under ``## Head 1`` and ``## Head 2`` (counted from 1): each block is its head's, not
    head 0's (head 2's four right weights were called wrong). NumPy's weights of the bracket setup."""
    v = _bracket_values()
    a2 = v["A²"].copy()
    if planted:
        a2[0, 1] += 0.25
    report = check_text("## Head 1\n\n" + _bracket_sheet(v["A¹"]) + "\n## Head 2\n\n" + _bracket_sheet(a2), BRACKETS)
    assert [r.text for r in report.wrong] == ([f"{a2[0, 1]:.3f}"] if planted else [])
    assert len(report.verified) == 8 - planted
    # a head named alone (``## Head 2``, no head 1: counted from 0) that the setup lacks: left, not head 0's
    assert check_text("## Head 2\n\n" + _bracket_sheet(v["A²"]), BRACKETS).wrong == []


@pytest.mark.parametrize("planted", [False, True])
def test_a_numbered_row_under_a_head_counted_from_1_is_that_heads(planted):
    """``Head 1: Token 1's weights are (..)`` in a note of heads 1 and 2: head 1 is the first head (its two right
    weights were judged as the second head's and called wrong). NumPy's weights of the bracket setup."""
    v = _bracket_values()
    a1, a2 = v["A¹"][0].copy(), v["A²"][0].copy()
    if planted:
        a2[1] += 0.25
    row = ", ".join
    text = (f"Head 1: Token 1's weights are ({row(f'{x:.4f}' for x in a1)})\n\n"
            f"Head 2: Token 1's weights are ({row(f'{x:.4f}' for x in a2)})\n")
    report = check_text(text, BRACKETS)
    assert [r.text for r in report.wrong] == ([f"{a2[1]:.4f}"] if planted else [])
    assert sorted(r.text for r in report.verified if r.text not in ("1", "2")) == sorted(
        f"{x:.4f}" for x in [*a1, *a2][: 4 - planted])


HELDOUT13 = sorted(p for p in (Path(__file__).parent / "corpus" / "heldout13").glob("*.md") if p.stem != "FIRST_RUN")


def _verdicts(report) -> list[tuple[int, str, str]]:
    return sorted((r.line, r.text, s) for s, recs in (("ok", report.verified), ("wrong", report.wrong),
                                                       ("?", report.unknown)) for r in recs)


@pytest.mark.parametrize("path", HELDOUT13, ids=lambda p: p.stem)
def test_a_heldout13_note_gets_its_verdicts_with_japanese_approx_signs_and_crlf_line_ends(path, tmp_path):
    """≈ written ≒ or ≃ (read as ≈, one character for one) and the note saved with CRLF or CR line ends (read as
    LF by check_file): every number keeps its line, text and verdict."""
    import tomllib

    from attnwalk.check import check_file

    opts = tomllib.loads(path.with_suffix(".toml").read_text(encoding="utf-8"))
    text = path.read_text(encoding="utf-8")
    want = _verdicts(check_text(text, opts))
    assert want and _verdicts(check_text(text.replace("≈", "≒"), opts)) == want
    assert _verdicts(check_text(text.replace("≈", "≃"), opts)) == want
    for end in ("\r\n", "\r"):
        (tmp_path / "n.md").write_bytes(text.replace("\n", end).encode("utf-8"))
        assert _verdicts(check_file(tmp_path / "n.md", opts)) == want, repr(end)
