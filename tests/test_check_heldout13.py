"""The thirteenth held-out round (tests/corpus/heldout13): eight notes check had never seen, written for the round in
styles no earlier round holds (Vietnamese decimal commas with ``;`` lists, Marp slides, Unicode bracket matrices; a
Julia REPL, an R console, a spreadsheet, a social-media thread; a Japanese Zenn article), each with its own small setup
computed with torch and mistakes planted as people make them; measured once before any change (FIRST_RUN.md: 20 of 96
wrong numbers found, 13 right numbers called wrong). Here: the notes' setups recomputed with torch, and the readers
widened for what the first run missed or misread, each on hand-made texts whose values come from torch.

The truth is torch's: tests/corpus/heldout/truth.py recomputes each claimed tensor from the note's scenario tables
(never through attnwalk's engine), and a number is wrong when it is off by more than half a unit of its last printed
digit (DESIGN §7, widened by float32 rounding).
"""

import math
from pathlib import Path

import pytest
from conftest import heldout_tools
from conftest import rounded as _r
from conftest import torch64 as _t
from conftest import torch_sdpa as _sdpa

from attnwalk.check import check_text
from attnwalk.check.brackets import matrices
from attnwalk.check.commas import as_points
from attnwalk.check.sheets import sheet_blocks
from attnwalk.scenario import load_scenario

torch = pytest.importorskip("torch", reason="torch is not installed on this machine: pip install torch==2.13.0")

CORPUS = Path(__file__).resolve().parent / "corpus"
HELDOUT13 = CORPUS / "heldout13"

truth, bench = heldout_tools()


def _scenario(name: str) -> dict:
    return truth.load(HELDOUT13, name)[2]


def _opts(name: str) -> dict:
    return load_scenario(HELDOUT13 / f"{name}.toml")


def _verdicts(text: str, name: str) -> list[tuple[str, str]]:
    """(printed number, status) of every number check judged in ``text`` under the note ``name``'s scenario."""
    return [(r.text, r.status) for r in check_text(text, _opts(name)).recs if r.status != "unknown"]


def test_the_truth_reads_decimal_commas_and_a_unicode_minus():
    """A claim with ``decimal_comma`` and no ``pick`` reads ``0,7071`` whole (four decimals), its ``or_arith``
    operands too; a Unicode minus a claim picks is a minus."""
    line = "Hàng 1: q1·k = [0; 1; 1] → chia √2 → [0; 0,7071; 0,7071]"
    assert truth.printed(line, {"decimal_comma": True, "after": "chia √2 → "}) == ["0", "0,7071", "0,7071"]
    assert truth.published("0,7071", {"decimal_comma": True}) == (0.7071, 4)
    assert truth.published("−0.5", {}) == (-0.5, 1)
    lines = ["e^0,7071 ≈ 2,0281"]
    from collections import Counter

    assert truth._arithmetic("exp({1.0})", lines, Counter(), {"decimal_comma": True}) == pytest.approx(
        math.exp(0.7071))


# ---------------------------------------------------------------- the notes' setups, by torch

def test_the_forum_answers_third_row_is_the_softmax_of_the_unscaled_scores():
    """X W (in, out): Q = [[1,0],[1,1],[2,1]], K = [[0,1],[1,0],[1,1]], V = [[1,2],[0,1],[1,3]]; row 3's scores
    [1, 2, 3] / √2 give [0.1400, 0.2840, 0.5760] (torch), the note's [0.0900, 0.2447, 0.6652] is softmax([1, 2, 3])
    (√d_k forgotten); its z2 = [0.7517, 2.2552] (the note: 0.7518, the sum of its printed terms, and 2.2553)."""
    sc = _scenario("vi_forum_decimal_comma_semicolon_lists")
    x = _t(sc["x"])
    q, k, v = (x @ _t(sc[w]) for w in ("w_q", "w_k", "w_v"))
    s, a, out = _sdpa(q, k, v)
    assert _r(a[2].tolist(), 4) == ["0.1400", "0.2840", "0.5760"]
    assert _r(torch.softmax(_t([1, 2, 3]), -1).tolist(), 4) == ["0.0900", "0.2447", "0.6652"]
    assert _r(out[1].tolist(), 4) == ["0.7517", "2.2552"]
    assert f"{0.2483 + 0.5035:.4f}" == "0.7518"


def test_the_spreadsheets_third_score_row_lost_its_scale():
    """Q = K = V = [[1,2],[2,1],[0,1],[1,0]]: row 3's scaled scores are [1.414, 0.707, 0.707, 0] (the sheet: 2, 1, 1,
    0, the raw ones), its e^ŝ sum 9.169 (the sheet: 13.826 = e^2 + 2e + 1) and its weights [0.449, 0.221, 0.221,
    0.109]; row 1's e^ŝ sum is 57.374."""
    sc = _scenario("en_spreadsheet_cells_exp_formulas")
    s, a, out = _sdpa(sc["q"], sc["k"], sc["v"])
    assert _r(s[2].tolist(), 3) == ["1.414", "0.707", "0.707", "0.000"]
    assert _r(torch.exp(s).sum(-1).tolist(), 3) == ["57.374", "57.374", "9.169", "9.169"]
    assert f"{math.exp(2) + 2 * math.e + 1:.3f}" == "13.826"
    assert _r(a[2].tolist(), 3) == ["0.449", "0.221", "0.221", "0.109"]
    assert _r(out[3].tolist(), 3) == ["1.340", "1.000"]


def test_the_two_heads_notes_second_head():
    """Head 2 (columns 2-3): Q² = [[2,1],[1,0]], K² = [[0,1],[1,1]], V² = [[0,2],[2,0]]: weights [0.1956, 0.8044]
    (the note: 0.1955, 0.8045) and outputs [1.6089, 0.3911], [1.3395, 0.6605] (the note rounds early: 1.3396,
    0.6604)."""
    sc = _scenario("vi_plaintext_unicode_brackets_two_heads")
    q, k, v = (_t(sc[n])[:, 2:] for n in ("q", "k", "v"))
    s, a, out = _sdpa(q, k, v)
    assert _r(a[0].tolist(), 4) == ["0.1956", "0.8044"]
    assert _r(out.flatten().tolist(), 4) == ["1.6089", "0.3911", "1.3395", "0.6605"]


def test_the_threads_scale_is_one_over_root_four():
    """Scores (2, 1, 0.2, −1, 0.6) × 1/2 (÷ √d_k, d_k = 4): weights [0.366, 0.222, 0.149, 0.082, 0.182], output
    [0.678, 0.734] (the note: 0.148, and the output swapped); e^0.5 = 1.6487 (the note: 1.648)."""
    sc = _scenario("en_thread_five_tokens_given_logits")
    assert sc["scale"] == 1 / math.sqrt(4)
    a = torch.softmax(_t(sc["scores"]) * sc["scale"], -1)
    assert _r(a[0].tolist(), 3) == ["0.366", "0.222", "0.149", "0.082", "0.182"]
    assert _r((a @ _t(sc["v"]))[0].tolist(), 3) == ["0.678", "0.734"]
    assert f"{math.exp(0.5):.3f}" == "1.649"


# ---------------------------------------------------------------- the readers widened for this round's first run

FORUM = "vi_forum_decimal_comma_semicolon_lists"


def _forum_torch():
    sc = _scenario(FORUM)
    x = _t(sc["x"])
    return _sdpa(*(x @ _t(sc[w]) for w in ("w_q", "w_k", "w_v")))


def _comma(values, digits=4) -> list[str]:
    return [t.replace(".", ",") for t in _r(values, digits)]


def test_a_note_of_decimal_commas_is_read_with_points_and_reported_with_commas():
    """``e^0,7071 ≈ 2,0281``, ``A ≈ [[..; ..]; [0,2483; 0,2483; 0,5035]; ..]``, ``Z ≈ [[..; ..]; ..]``: torch's
    values written with decimal commas are verified, each reported as printed (``0,2483``); before, ``0,7071 ≈
    2,0281`` was read as ``0, 7071 ≈ 2, 0281`` and its right numbers called wrong."""
    s, a, out = _forum_torch()
    e = _comma(torch.exp(s[1]).tolist())
    w = _comma(a[1].tolist())
    rows = "; ".join("[" + "; ".join(_comma(r)) + "]" for r in a.tolist())
    z = [_comma(row) for row in out.tolist()]
    text = (f"Hàng 2: e^0,7071 ≈ {e[0]}; e^0,7071 ≈ {e[1]}; e^1,4142 ≈ {e[2]}.\n\n"
            f"Ma trận trọng số attention:\n\nA ≈ [{rows}]\n\n"
            f"Kết quả: Z ≈ [[{z[0][0]}; {z[0][1]}]; [{z[1][0]}; {z[1][1]}]; [{z[2][0]}; {z[2][1]}]].\n")
    assert (e, w) == (["2,0281", "2,0281", "4,1133"], ["0,2483", "0,2483", "0,5035"])
    got = _verdicts(text, FORUM)
    assert all(st == "verified" for _, st in got)
    assert {t for t, _ in got} >= {"0,7071", "2,0281", "4,1133", "0,2483", "0,5035", "0,7517", "2,2920"}


def test_a_wrong_number_with_a_decimal_comma_is_fixed_with_a_comma(tmp_path):
    """``A ≈ [[..]; [0,2483; 0,2483; 0,5036]; [..]]``: 0,5036 is wrong (torch 0.50349), expected and --fix written
    ``0,5035``."""
    from attnwalk.check import check_file

    _, a, _ = _forum_torch()
    rows = [_comma(r) for r in a.tolist()]
    assert rows[1] == ["0,2483", "0,2483", "0,5035"]
    rows[1][2] = "0,5036"
    text = "Ma trận trọng số attention:\n\nA ≈ [" + "; ".join("[" + "; ".join(r) + "]" for r in rows) + "]\n"
    r = check_text(text, _opts(FORUM))
    assert [(x.text, x.failure()[1]) for x in r.wrong] == [("0,5036", "0,5035")]
    note = tmp_path / "n.md"
    note.write_text(text, encoding="utf-8")
    check_file(note, _opts(FORUM), fix="write")
    assert note.read_text(encoding="utf-8") == text.replace("0,5036", "0,5035")


def test_only_a_note_of_decimal_commas_is_read_so():
    """A note printing a decimal point anywhere, or fewer than three numbers with a decimal comma, is read as it
    stands; in a note of decimal commas ``[1,0]`` (one digit after the comma) and ``1, 0`` stay lists."""
    mixed = "a = 0,25; b = 0,75; c = 0,33 and d = 0.5\n"
    assert as_points(mixed) == (mixed, {})
    few = "a = 0,25 and [1,0]\n"
    assert as_points(few) == (few, {})
    body, changed = as_points("x = [1,0]; y = [0,25; 0,75]; z = 1, 0; w = 0,333\n")
    assert body == "x = [1,0]; y = [0.25, 0.75]; z = 1, 0; w = 0.333\n"
    assert changed == {1: {"0.25", "0.75", "0.333"}}


def test_the_d_k_of_given_scores_is_the_one_their_scale_names():
    """Given scores × 1/2 (the thread's ÷ √d_k): ``d_k = 4`` and ``√d_k = √4 = 2`` are right, ``d_k = 3`` wrong
    (expected 4); with no scale, d_k is no number of the scenario: not understood (before: compared with 0)."""
    name = "en_thread_five_tokens_given_logits"
    assert 1 / _scenario(name)["scale"] ** 2 == 4
    assert _verdicts("the five keys (d_k = 4)\n", name) == [("4", "verified")]
    assert _verdicts("divide by √d_k = √4 = 2.\n", name) == [("4", "verified"), ("2", "verified")]
    r = check_text("the five keys (d_k = 3)\n", _opts(name))
    assert [(x.text, x.failure()[1]) for x in r.wrong] == [("3", "4")]
    unscaled = {k: v for k, v in _opts(name).items() if k != "scale"}
    assert [x.status for x in check_text("the five keys (d_k = 4)\n", unscaled).recs] == ["unknown"]


def test_a_vietnamese_word_before_a_label_names_no_tensor_by_its_first_letter():
    """``Kết quả: Z ≈ [[..]]``: the label is the output Z (``kết quả``: result), not the keys K of ``Kết``; its
    numbers are judged as torch's output, 0.7518 wrong (torch 0.75174), where before none was judged."""
    _, _, out = _forum_torch()
    z = [_r(row, 4) for row in out.tolist()]
    assert z[1] == ["0.7517", "2.2552"]
    text = f"Kết quả: Z ≈ [[{z[0][0]}, {z[0][1]}], [0.7518, {z[1][1]}], [{z[2][0]}, {z[2][1]}]].\n"
    r = check_text(text, _opts(FORUM))
    assert [(x.text, x.failure()[1]) for x in r.wrong] == [("0.7518", "0.7517")]
    assert len(r.verified) == 5


SHEET = "en_spreadsheet_cells_exp_formulas"


def _sheet_text(exp_rows, sums, weight_rows) -> str:
    head = "| | A | B | C | D | E | F |\n|---|---|---|---|---|---|---|\n"
    out = head + "| **13** | e^score | The | cat | sat | down | row sum |\n"
    out += "".join(f"| **{14 + i}** | t{i} | " + " | ".join(r) + f" | {s} |\n" for i, (r, s) in
                   enumerate(zip(exp_rows, sums)))
    out += "| **19** | weight | The | cat | sat | down | |\n"
    return out + "".join(f"| **{20 + i}** | t{i} | " + " | ".join(r) + " | |\n" for i, r in enumerate(weight_rows))


def test_a_spreadsheets_blocks_are_the_tensors_their_corner_names():
    """Under ``| | A | B | ..`` with the sheet's row numbers first: the ``e^score`` block is e^ŝ (no row maximum
    subtracted), its ``row sum`` column the row sums, the ``weight`` block the attention weights, all torch's;
    a wrong row sum (13.826 for 9.169) and a wrong weight are found with torch's value."""
    sc = _scenario(SHEET)
    s, a, _ = _sdpa(sc["q"], sc["k"], sc["v"])
    e = [_r(r, 3) for r in torch.exp(s).tolist()]
    sums = _r(torch.exp(s).sum(-1).tolist(), 3)
    w = [_r(r, 3) for r in a.tolist()]
    assert (e[0][0], sums[2], w[2][0]) == ("34.313", "9.169", "0.449")
    text = _sheet_text(e, sums, w)
    got = check_text(text, _opts(SHEET))
    assert not got.wrong and len(got.verified) == 16 + 4 + 16
    bad = _sheet_text(e, sums[:2] + ["13.826"] + sums[3:], w[:2] + [["0.534"] + w[2][1:]] + w[3:])
    r = check_text(bad, _opts(SHEET))
    assert [(x.text, x.failure()[1]) for x in r.wrong] == [("13.826", "9.169"), ("0.534", "0.449")]


def test_a_table_without_the_sheets_letters_is_no_sheet():
    """Only a table headed by its column letters (``| | A | B |``) and numbered in its first column is a sheet."""
    sheet = "| | A | B |\n|---|---|---|\n| **1** | x | y |\n| **2** | t | 0.5 |\n"
    assert sheet_blocks(sheet) == [("x", ["y"], [[("0.5", sheet.index("0.5"))]])]
    assert sheet_blocks("| | X | Y |\n|---|---|---|\n| **1** | x | y |\n| **2** | t | 0.5 |\n") == []
    assert sheet_blocks("| | A | B |\n|---|---|---|\n| one | x | y |\n| two | t | 0.5 |\n") == []


TWO_HEADS = "vi_plaintext_unicode_brackets_two_heads"


def test_unicode_bracket_matrices_side_by_side_are_read_by_their_labels():
    """``A² = ⎡..⎤      O² = A²V² = ⎡..⎤`` over ``⎣..⎦`` rows: head 2's weights and output (torch's), the
    superscript naming the head; a wrong cell (0.6604 for torch's 0.6605) is found with torch's value."""
    sc = _scenario(TWO_HEADS)
    q, k, v = (_t(sc[n])[:, 2:] for n in ("q", "k", "v"))
    _, a, out = _sdpa(q, k, v)
    a, o = [_r(r, 4) for r in a.tolist()], [_r(r, 4) for r in out.tolist()]
    assert o[1] == ["1.3395", "0.6605"]
    text = (f"A² = ⎡{a[0][0]} {a[0][1]}⎤      O² = A²V² = ⎡{o[0][0]} {o[0][1]}⎤\n"
            f"     ⎣{a[1][0]} {a[1][1]}⎦                  ⎣{o[1][0]} 0.6604⎦\n")
    assert [lab for lab, _ in matrices(text)] == ["A² = ", "      O² = A²V² = "]
    r = check_text(text, _opts(TWO_HEADS))
    assert [(x.text, x.failure()[1]) for x in r.wrong] == [("0.6604", "0.6605")]
    assert len(r.verified) == 7


def test_a_bracket_matrix_unnamed_on_its_line_is_named_by_the_line_above():
    """``Q (2×4)`` above the matrix at its columns: the whole Q, both heads side by side (torch's inputs); a
    matrix whose top row is not closed below is no matrix."""
    sc = _scenario(TWO_HEADS)
    rows = [" ".join(str(int(x)) for x in r) for r in sc["q"]]
    text = f"Q (2×4)            K (2×4)\n⎡{rows[0]}⎤          ⎡1 1 0 1⎤\n⎣{rows[1]}⎦          ⎣0 1 1 1⎦\n"
    assert [(lab.strip(), len(rs)) for lab, rs in matrices(text)] == [("Q (2×4)", 2), ("K (2×4)", 2)]
    assert {x.status for x in check_text(text, _opts(TWO_HEADS)).recs if x.line > 1} == {"verified"}
    assert matrices("Q = ⎡1 0⎤\nno bottom row\n") == []


def test_every_rows_sum_stated_in_one_prose_list():
    """``The row sums are a, b, c and d``: each the sum of its row's e^ŝ (torch's, no row maximum subtracted), a
    wrong one found with torch's value; a list of another length than the rows is left unread."""
    from attnwalk.check.rowsums import stated_row_sums

    name = "en_rmarkdown_console_row_labels"
    sc = _scenario(name)
    s, _, _ = _sdpa(sc["q"], sc["k"], sc["v"])
    sums = _r(torch.exp(s).sum(-1).tolist(), 4)
    assert sums == ["9.2265", "7.1414", "10.2546"]
    right = f"So the rows sum to {sums[0]}, {sums[1]} and {sums[2]} before normalising.\n"
    assert _verdicts(right, name) == [(t, "verified") for t in sums]
    r = check_text(right.replace("10.2546", "10.2456"), _opts(name))
    assert [(x.text, x.failure()[1]) for x in r.wrong] == [("10.2456", "10.2546")]
    assert [[t for t, _ in nums] for nums in stated_row_sums("The row sums are 1.5; 2 and 3.25.")] == [
        ["1.5", "2", "3.25"]]
    assert _verdicts(f"The row sums are {sums[0]} and {sums[1]}.\n", name) == []


def test_the_japanese_nearly_equal_sign_is_read_as_approximately():
    """``$e^{1.7321} ≒ 5.6522$、$e^{1.1547} ≒ 3.1731$、和 $≒ 8.8253$``: ≒ is ≈, so the exponentials of row 2's scaled
    scores and their sum are judged (torch's e^ŝ: 5.6522, 3.1731, sum 8.8253); a sum that does not add up (8.8235) is
    found with torch's value. Before, ≒ was no relation and nothing on the line was judged."""
    from attnwalk.check.relations import as_approx

    name = "ja_zenn_linear_layout_approx_equal"
    sc = _scenario(name)
    x = _t(sc["x"])
    s, _, _ = _sdpa(*(x @ _t(sc[w]).T for w in ("w_q", "w_k", "w_v")))  # nn.Linear's (out, in): Q = X W_Qᵀ
    e = torch.exp(s[1])
    assert _r(s[1].tolist(), 4) == ["1.7321", "1.1547"]
    assert (_r(e.tolist(), 4), f"{e.sum().item():.4f}") == (["5.6522", "3.1731"], "8.8253")
    line = "- 2 行目：$e^{1.7321} ≒ 5.6522$、$e^{1.1547} ≒ 3.1731$、和 $≒ @$\n"
    assert {st for _, st in _verdicts(line.replace("@", "8.8253"), name)} == {"verified"}
    r = check_text(line.replace("@", "8.8235"), _opts(name))
    assert [(x.text, x.failure()[1]) for x in r.wrong] == [("8.8235", "8.8253")]
    assert as_approx("a ≒ 1, b ≃ 2") == "a ≈ 1, b ≈ 2"


def test_a_row_named_by_its_tokens_number_in_prose():
    """``Token 3's output is (0.599, 0.803)``, ``The output for token 2 is (..)``: torch's output rows 3 and 2
    (numbered from 1): 0.803 is found (torch 0.80222), the rest verified; a note that counts a token 0 numbers from
    0; a vector of another length than the row, or words naming no tensor, stay unread."""
    name = "en_rmarkdown_console_row_labels"
    sc = _scenario(name)
    _, a, out = _sdpa(sc["q"], sc["k"], sc["v"])
    o = [_r(r, 3) for r in out.tolist()]
    assert (o[1], o[2]) == (["0.716", "0.860"], ["0.599", "0.802"])
    r = check_text("Token 3's output is (0.599, 0.803): a little more.\n", _opts(name))
    assert [(x.text, x.failure()[1]) for x in r.wrong] == [("0.803", "0.802")]
    assert _verdicts(f"The output for token 2 is ({o[1][0]}, {o[1][1]}).\n", name) == [
        ("0.716", "verified"), ("0.860", "verified")]
    zero = f"Token 0 comes first. Token 1's output is ({o[1][0]}, {o[1][1]}).\n"
    assert [(x.text, x.status) for x in check_text(zero, _opts(name)).recs if x.text.startswith("0.")] == [
        ("0.716", "verified"), ("0.860", "verified")]
    assert _verdicts("Token 3's output is (0.599, 0.802, 1.0).\n", name) == []
    assert _verdicts("Token 3's colour is (0.599, 0.803).\n", name) == []


def test_exponentials_of_a_raw_score_row_where_the_softmax_scales_them():
    """``e^1 ≈ 2.7183; e^2 ≈ 7.3891; e^3 ≈ 20.0855`` for row 3, whose raw scores are [1, 2, 3] and scaled ones
    [0.7071, 1.4142, 2.1213] (torch): √d_k forgotten. The exponents 2 and 3 are wrong (expected 1 and 2 at their
    precision), their exponentials too (e^ŝ = 4.1133, 8.3421); e^1 stays verified (1 rounds 0.7071). The same line
    marked as the unscaled softmax on purpose (``without scaling``), or a row of the scaled scores, is left as it is.
    No fix is written: ŝ at the exponent's precision (``e^1`` for 1.4142) would make the line another arithmetic."""
    s, _, _ = _forum_torch()
    assert _r(s[2].tolist(), 4) == ["0.7071", "1.4142", "2.1213"]
    assert _r(torch.exp(s[2]).tolist(), 4) == ["2.0281", "4.1133", "8.3421"]
    line = "Hàng 3: e^1 ≈ 2.7183; e^2 ≈ 7.3891; e^3 ≈ 20.0855.\n"
    r = check_text(line, _opts(FORUM))
    assert [(x.text, x.failure()[1]) for x in r.wrong] == [("2", "1"), ("7.3891", "4.1133"), ("3", "2"),
                                                            ("20.0855", "8.3421")]
    assert all(x.fix is None for x in r.wrong)  # --fix leaves the line to its author (see unscaled_exponentials)
    assert not check_text("Without scaling, " + line, _opts(FORUM)).wrong
    scaled = "Hàng 3: e^0.7071 ≈ 2.0281; e^1.4142 ≈ 4.1133; e^2.1213 ≈ 8.3421.\n"
    assert {st for _, st in _verdicts(scaled, FORUM)} == {"verified"}
