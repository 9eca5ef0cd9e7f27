"""The fourteenth held-out round (tests/corpus/heldout14): eight notes check had never seen, written for the round in
notations no earlier round holds (a softmax temperature τ, index notation S_ij, cross-attention in column vectors,
einsum in row vectors with percentages, torch prints with grad_fn, reStructuredText, AsciiDoc with e-notation, an Anki
deck with its second head on separate cards), each with its own small setup computed with torch and mistakes planted
as people make them; measured once before any change (FIRST_RUN.md: 14 of 74 wrong numbers found, 3 right numbers
called wrong). Here: the notes' setups recomputed with torch, and the readers widened for what the first run missed
or misread, each on hand-made texts whose values come from torch.

The truth is torch's: tests/corpus/heldout/truth.py recomputes each claimed tensor from the note's scenario tables
(never through attnwalk's engine), and a number is wrong when it is off by more than half a unit of its last printed
digit (DESIGN §7, widened by float32 rounding).
"""

from pathlib import Path

import pytest
from conftest import heldout_tools
from conftest import rounded as _r
from conftest import torch64 as _t
from conftest import torch_sdpa as _sdpa

from attnwalk.check import check_text
from attnwalk.check.markup_tables import markup_blocks
from attnwalk.scenario import load_scenario

torch = pytest.importorskip("torch", reason="torch is not installed on this machine: pip install torch==2.13.0")

CORPUS = Path(__file__).resolve().parent / "corpus"
HELDOUT14 = CORPUS / "heldout14"

truth, bench = heldout_tools()


def _scenario(name: str) -> dict:
    return truth.load(HELDOUT14, name)[2]


def _opts(name: str) -> dict:
    return load_scenario(HELDOUT14 / f"{name}.toml")


def _verdicts(text: str, name: str) -> list[tuple[str, str]]:
    """(printed number, status) of every number check judged in ``text`` under the note ``name``'s scenario."""
    return [(r.text, r.status) for r in check_text(text, _opts(name)).recs if r.status != "unknown"]


# ---------------------------------------------------------------- the notes' setups, by torch


def test_the_lectures_third_row_forgot_its_temperature():
    """Q = [[2,0],[0,2],[1,1]], K = [[1,0],[0,1],[1,1]], τ = 2: row 3's scores (1, 1, 2) / τ give weights
    [0.2741, 0.2741, 0.4519] (torch); the lecture's [0.2119, 0.2119, 0.5761] is softmax(1, 1, 2), τ forgotten; the
    row's e^(s/τ) add to 6.0157 (the lecture: 6.0175)."""
    sc = _scenario("vi_lecture_temperature_tau_weight_matrix")
    assert sc["scale"] == 1 / 2
    s = _t(sc["q"]) @ _t(sc["k"]).T
    a = torch.softmax(s * sc["scale"], -1)
    assert _r(a[2].tolist(), 4) == ["0.2741", "0.2741", "0.4519"]
    assert _r(torch.softmax(s[2], -1).tolist(), 4) == ["0.2119", "0.2119", "0.5761"]
    assert f"{torch.exp(s[2] * sc['scale']).sum().item():.4f}" == "6.0157"


def test_the_exam_solutions_s23_and_row_sum():
    """S = QKᵀ = [[1,3,4],[0,1,2],[2,3,2]]: S_23 = 2 (the solution's matrix copies S_32 = 3); row 2's e^ŝ add to
    7.1414 (the solution: 7.1441); z_3 = (0.4965, 0.7517) (the final answer swaps and slips: 0.7536, 0.4966)."""
    sc = _scenario("vi_exam_solution_index_notation_sums")
    s, a, out = _sdpa(sc["q"], sc["k"], sc["v"])
    assert (_t(sc["q"]) @ _t(sc["k"]).T).tolist() == [[1, 3, 4], [0, 1, 2], [2, 3, 2]]
    assert f"{torch.exp(s[1]).sum().item():.4f}" == "7.1414"
    assert _r(out[2].tolist(), 4) == ["0.4965", "0.7517"]


def test_the_cross_attentions_second_step():
    """Two decoder queries (1, 2), (2, 0) over keys (1,0), (0,1), (2,1), / √2: step 2's weights are (0.1867, 0.0454,
    0.7679) and its context vector (0.9546, 0.8133); the notes compute c_2 with step 1's weights (0.8216, 0.9121)."""
    sc = _scenario("vi_cross_attention_column_vectors_kt")
    s, a, out = _sdpa(sc["q"], sc["k"], sc["v"])
    assert _r(a[1].tolist(), 4) == ["0.1867", "0.0454", "0.7679"]
    assert _r(out.flatten().tolist(), 4) == ["0.8216", "0.9121", "0.9546", "0.8133"]


def test_the_anki_decks_second_head_is_scaled_by_root_two():
    """Head 2 (columns 3-4): scores [[0,2],[1,2]] / √2 give weights [0.1956, 0.8044] for token 1 (torch); the deck
    divides by √d_model = 2 and prints [0.2689, 0.7311]."""
    sc = _scenario("en_anki_cloze_cards_second_head_separately")
    q, k, v = (_t(sc[n])[:, 2:] for n in ("q", "k", "v"))
    s, a, out = _sdpa(q, k, v)
    assert (q @ k.T).tolist() == [[0, 2], [1, 2]]
    assert _r(a[0].tolist(), 4) == ["0.1956", "0.8044"]
    assert _r(torch.softmax(q @ k.T / 2, -1)[0].tolist(), 4) == ["0.2689", "0.7311"]


def test_the_asciidoc_weights_in_e_notation():
    """Scores / √4: row 1's weights are 9.8057e-01, 1.4742e-03, 1.7960e-02 (the page: 1.4742e-02) and its e^ŝ add
    to 678.3241 (the page: 678.3341)."""
    sc = _scenario("en_asciidoc_tables_scientific_notation")
    s, a, _ = _sdpa(sc["q"], sc["k"], sc["v"])
    assert [f"{x:.4e}" for x in a[0].tolist()] == ["9.8057e-01", "1.4742e-03", "1.7960e-02"]
    assert f"{torch.exp(s[0]).sum().item():.4f}" == "678.3241"


# ---------------------------------------------------------------- the readers widened for this round's first run


def test_a_distribution_that_is_another_rows_weights_is_not_the_softmax_of_the_tuple_above():
    """``e_1 = (0.7071, 1.4142, 2.8284)`` (row 1's scaled scores), then ``\\alpha_1 = (..)`` and ``\\alpha_2 = (0.1867,
    0.0454, 0.7679)``: α_1 is the softmax of e_1 and verified; α_2 is row 2's weights (torch), never judged as the
    softmax of e_1 (before: three right numbers called wrong)."""
    name = "vi_cross_attention_column_vectors_kt"
    sc = _scenario(name)
    s, a, _ = _sdpa(sc["q"], sc["k"], sc["v"])
    e1, a1, a2 = (", ".join(_r(x, 4)) for x in (s[0].tolist(), a[0].tolist(), a[1].tolist()))
    assert (e1, a2) == ("0.7071, 1.4142, 2.8284", "0.1867, 0.0454, 0.7679")
    text = f"- $e_1 = ({e1})$\n\n- $\\alpha_1 = ({a1})^\\top$\n- $\\alpha_2 = ({a2})^\\top$\n"
    got = _verdicts(text, name)
    assert ("0.1867", "wrong") not in got and all(st == "verified" for _, st in got)
    assert [t for t, _ in got if t in a1.split(", ")] == a1.split(", ")
    # a wrong α_1 under e_1 (its first two weights swapped) is still found
    w = a1.split(", ")
    bad = text.replace(a1, ", ".join([w[1], w[0], w[2]]))
    assert [t for t, st in _verdicts(bad, name) if st == "wrong"] == [w[1], w[0]]


def _rst_grid(rows: list[list[str]], names: list[str], head: list[str]) -> str:
    border = "+-------+" + "--------+" * len(head)
    lines = [border, "|       | " + " | ".join(h.ljust(6) for h in head) + " |", border.replace("-", "=")]
    for n, row in zip(names, rows):
        lines += ["| " + n.ljust(5) + " | " + " | ".join(row) + " |", border]
    return "\n".join(lines)


def test_a_restructuredtext_grid_table_is_read_as_the_markdown_table_it_renders_as():
    """Q, K, V of the Sphinx page, / √3: the weights [[0.2645, 0.2645, 0.4711], [0.3904, 0.3904, 0.2192], [0.4711,
    0.2645, 0.2645]] (torch) in a grid table under "Attention weights" are verified; the third row printed as the
    first is wrong (expected 0.4711, 0.2645)."""
    name = "en_sphinx_rst_list_table_grid_table"
    sc = _scenario(name)
    _, a, _ = _sdpa(sc["q"], sc["k"], sc["v"])
    rows = [_r(r, 4) for r in a.tolist()]
    assert rows == [["0.2645", "0.2645", "0.4711"], ["0.3904", "0.3904", "0.2192"], ["0.4711", "0.2645", "0.2645"]]
    names = ["the", "cat", "sat"]
    text = "Attention weights:\n\n" + _rst_grid(rows, names, names) + "\n"
    got = _verdicts(text, name)
    assert len(got) == 9 and all(st == "verified" for _, st in got)
    bad = "Attention weights:\n\n" + _rst_grid([rows[0], rows[1], rows[0]], names, names) + "\n"
    r = check_text(bad, _opts(name))
    assert sorted((x.text, x.failure()[1]) for x in r.wrong) == [("0.2645", "0.4711"), ("0.4711", "0.2645")]


def test_an_asciidoc_table_in_e_notation_is_read():
    """AsciiDoc ``|===`` rows ``| q1 | 9.8057e-01 | ..`` (no closing bar) under ".Attention weights": torch's weights
    in e-notation are verified, the exponent slip 1.4742e-02 is wrong (expected 1.4742e-03)."""
    name = "en_asciidoc_tables_scientific_notation"
    sc = _scenario(name)
    _, a, _ = _sdpa(sc["q"], sc["k"], sc["v"])
    rows = [[f"{x:.4e}" for x in r] for r in a.tolist()]
    assert rows[0][1] == "1.4742e-03"
    body = "\n".join(f"| q{i + 1} | " + " | ".join(r) for i, r in enumerate(rows))
    text = f'.Attention weights\n[cols="1,3*>",options="header"]\n|===\n| | k1 | k2 | k3\n{body}\n|===\n'
    got = _verdicts(text, name)
    assert len(got) == 9 and all(st == "verified" for _, st in got)
    r = check_text(text.replace("1.4742e-03", "1.4742e-02"), _opts(name))
    assert [x.text for x in r.wrong] == ["1.4742e-02"]


def test_a_restructuredtext_list_table_one_cell_a_line_is_read():
    """``.. list-table:: Scaled scores`` with one ``- 0.5774`` cell a line: torch's QKᵀ/√3 is verified; a wrong number
    in one cell (2.0000, a slip) is wrong (expected 0.5774)."""
    name = "en_sphinx_rst_list_table_grid_table"
    sc = _scenario(name)
    s, _, _ = _sdpa(sc["q"], sc["k"], sc["v"])
    rows = [_r(r, 4) for r in s.tolist()]
    assert rows[2] == ["1.1547", "0.5774", "0.5774"]
    lines = [".. list-table:: Scaled scores", "   :header-rows: 1", "", "   * -",
             "     - the", "     - cat", "     - sat"]
    for n, row in zip(["the", "cat", "sat"], rows):
        lines += [f"   * - {n}"] + [f"     - {x}" for x in row]
    text = "\n".join(lines) + "\n"
    got = _verdicts(text, name)
    assert len(got) == 9 and all(st == "verified" for _, st in got)
    slip = text.replace("sat\n     - 1.1547\n     - 0.5774\n", "sat\n     - 1.1547\n     - 2.0000\n")
    r = check_text(slip, _opts(name))
    assert [(x.text, x.failure()[1]) for x in r.wrong] == [("2.0000", "0.5774")]


def test_markup_tables_are_no_tables_without_their_fences():
    """A Markdown page with ``+`` arithmetic or a ``|`` in prose holds no reStructuredText or AsciiDoc table."""
    assert markup_blocks("1 + 2 = 3 and |x| = 4\n") == []
    assert markup_blocks("+---+---+\n| a | b |\n+---+---+\n") == []  # a grid table of words: no row of numbers


def _lecture_exp_table(rows: list[list[str]], sums: list[str]) -> str:
    lines = ["| $e^{s_{ij}/\\tau}$ | Tôi | yêu | mèo | Tổng |", "|---|---|---|---|---|"]
    for n, r, t in zip(["Tôi", "yêu", "mèo"], rows, sums):
        lines.append(f"| **{n}** | " + " | ".join(r) + f" | {t} |")
    return "\n".join(lines) + "\n"


def test_a_table_of_exponentials_with_a_sum_column():
    """The lecture's e^(s/τ) (τ = 2) with a ``Tổng`` column: torch's [[2.7183, 1, 2.7183], [1, 2.7183, 2.7183],
    [1.6487, 1.6487, 2.7183]] and sums 6.4366, 6.4366, 6.0157 are verified; 6.0175 (digits swapped) is wrong; a sum
    that is the arithmetic of the row's right printed terms is right (docs/course.md)."""
    name = "vi_lecture_temperature_tau_weight_matrix"
    sc = _scenario(name)
    e = torch.exp(_t(sc["q"]) @ _t(sc["k"]).T * sc["scale"])
    rows = [_r(r, 4) for r in e.tolist()]
    sums = _r(e.sum(-1).tolist(), 4)
    assert sums == ["6.4366", "6.4366", "6.0157"]
    got = _verdicts(_lecture_exp_table(rows, sums), name)
    assert len(got) == 12 and all(st == "verified" for _, st in got)
    r = check_text(_lecture_exp_table(rows, sums[:2] + ["6.0175"]), _opts(name))
    assert [(x.text, x.failure()[1]) for x in r.wrong] == [("6.0175", "6.0157")]
    # at one decimal, row 3 prints 1.6 + 1.6 + 2.7 = 5.9 where torch's sum is 6.0157: 5.9 is right as the
    # arithmetic of its right printed terms, 6.0 as torch's sum; 6.1 is neither
    one = [_r(r, 1) for r in e.tolist()]
    assert one[2] == ["1.6", "1.6", "2.7"]
    for total, status in (("5.9", "verified"), ("6.0", "verified"), ("6.1", "wrong")):
        got = _verdicts(_lecture_exp_table(one, ["6.4", "6.4", total]), name)
        assert got[-1] == (total, status)


def test_a_sum_column_needs_its_header_word_and_the_exponentials():
    """Without a sum word ending the header, or with rows that are not e^ŝ, no number of the table is judged as a
    row sum."""
    name = "vi_lecture_temperature_tau_weight_matrix"
    sc = _scenario(name)
    e = torch.exp(_t(sc["q"]) @ _t(sc["k"]).T * sc["scale"])
    rows = [_r(r, 4) for r in e.tolist()]
    sums = _r(e.sum(-1).tolist(), 4)
    plain = _lecture_exp_table(rows, sums).replace("Tổng", "Khác")
    assert all(lab != "row sum of e^ŝ" for r in check_text(plain, _opts(name)).recs for lab in
               [c[1] for c in r.checks])
    other = _lecture_exp_table([["7.0000", "8.0000", "9.0000"]] * 3, ["24.0000"] * 3)
    assert _verdicts(other, name) == []


def test_a_table_of_weights_in_percent_with_a_sum_column():
    """X W (row vectors), / √2: the weights in percent [[29.2, 41.6, 29.2], [16.9, 48.8, 34.3], [10.8, 44.6, 44.6]]
    (torch) and their ``tổng`` 100.0% are verified; 29.4% is wrong (expected 29.2%), and so is the row's 100.2%, the
    sum of a wrong term (torch 100%)."""
    name = "vi_colab_einsum_row_vectors_percent"
    sc = _scenario(name)
    x = _t(sc["x"])
    _, a, _ = _sdpa(*(x @ _t(sc[w]) for w in ("w_q", "w_k", "w_v")))
    rows = [_r([100 * v for v in r], 1) for r in a.tolist()]
    assert rows == [["29.2", "41.6", "29.2"], ["16.9", "48.8", "34.3"], ["10.8", "44.6", "44.6"]]

    def table(rows, sums):
        lines = ["| token | → anh | → yêu | → em | tổng |", "|---|---|---|---|---|"]
        for n, r, t in zip(["anh", "yêu", "em"], rows, sums):
            lines.append(f"| {n} | " + " | ".join(v + "%" for v in r) + f" | {t}% |")
        return "\n".join(lines) + "\n"

    got = _verdicts(table(rows, ["100.0", "100.0", "100.0"]), name)
    assert len(got) == 12 and all(st == "verified" for _, st in got)
    bad = [["29.2", "41.6", "29.4"]] + rows[1:]
    r = check_text(table(bad, ["100.2", "100.0", "100.0"]), _opts(name))
    assert [x.text for x in r.wrong] == ["29.4", "100.2"]


def _torch_print(rows: list[list[str]]) -> list[str]:
    return [("tensor([[" if i == 0 else "        [") + ", ".join(r) + ("]," if i < len(rows) - 1 else
                                                                        "]], dtype=torch.float64)")
            for i, r in enumerate(rows)]


def test_one_print_of_several_arrays_prints_each_in_turn():
    """``print(Q, K, A.round(decimals=4), sep='\\n')`` then three torch prints: the i-th is the i-th value (torch's Q,
    K and weights of the Colab setup, verified); a wrong weight among them is wrong. Before, a print of several
    values was not read at all."""
    name = "vi_colab_einsum_row_vectors_percent"
    sc = _scenario(name)
    x = _t(sc["x"])
    q, k, v = (x @ _t(sc[w]) for w in ("w_q", "w_k", "w_v"))
    _, a, _ = _sdpa(q, k, v)
    out = (_torch_print([_r(r, 4) for r in q.tolist()]) + _torch_print([_r(r, 4) for r in k.tolist()])
           + _torch_print([_r(r, 4) for r in a.tolist()]))
    assert out[-3] == "tensor([[0.2920, 0.4159, 0.2920],"
    code = ["```python", "Q, K, V = X @ W_Q, X @ W_K, X @ W_V", "A = torch.softmax(Q @ K.T / math.sqrt(2), dim=-1)",
            "print(Q, K, A.round(decimals=4), sep='\\n')", "```", "", "```"]
    text = "\n".join(code + out + ["```"]) + "\n"
    got = _verdicts(text, name)
    assert len(got) == 6 + 6 + 9 and all(st == "verified" for _, st in got)
    r = check_text(text.replace("[0.2920, 0.4159, 0.2920]", "[0.2920, 0.4195, 0.2920]"), _opts(name))
    assert [(x.text, x.failure()[1]) for x in r.wrong] == [("0.4195", "0.4159")]


def test_a_print_with_text_between_its_values_is_not_read_in_turn():
    """``print("Q:", Q, sep='\\n')`` prints a string too: not read as values in turn (as before)."""
    import ast

    from attnwalk.check.program import _arrays_apart

    call = ast.parse("print(Q, K, sep='\\n')").body[0].value
    assert _arrays_apart(call)
    for src in ("print('Q:', Q, sep='\\n')", "print(Q, K, file=f)", "print(Q)", "print(*xs)"):
        assert not _arrays_apart(ast.parse(src).body[0].value)


def test_an_outputs_tuple_named_z_i_is_that_tokens_output_row():
    """``$z_1 = (0.6943, 0.9257)$, $z_2 = (0.7160, 0.8600)$, $z_3 = (0.4965, 0.7517)$`` (torch's outputs of the exam's
    setup) are verified; the final answer's swapped ``z_3 = (0.7517, 0.4965)`` is wrong (expected 0.4965, 0.7517)."""
    name = "vi_exam_solution_index_notation_sums"
    sc = _scenario(name)
    _, _, out = _sdpa(sc["q"], sc["k"], sc["v"])
    z = [_r(r, 4) for r in out.tolist()]
    assert z == [["0.6943", "0.9257"], ["0.7160", "0.8600"], ["0.4965", "0.7517"]]
    text = "**Đáp số:** " + ", ".join(f"$z_{i + 1} = ({r[0]}, {r[1]})$" for i, r in enumerate(z)) + ".\n"
    got = _verdicts(text, name)
    assert len(got) == 6 and all(st == "verified" for _, st in got)
    r = check_text(text.replace("(0.4965, 0.7517)", "(0.7517, 0.4965)"), _opts(name))
    assert [(x.text, x.failure()[1]) for x in r.wrong] == [("0.7517", "0.4965"), ("0.4965", "0.7517")]


def test_a_z_that_names_no_output_is_left_unread():
    """Where most of the note's ``z_i = (..)`` numbers are not the outputs (a z for something else: here the
    scores' rows, torch's QKᵀ/√2), none is judged."""
    name = "vi_exam_solution_index_notation_sums"
    sc = _scenario(name)
    s, _, _ = _sdpa(sc["q"], sc["k"], sc["v"])
    text = ", ".join(f"$z_{i + 1} = ({', '.join(_r(r[:2], 4))})$" for i, r in enumerate(s.tolist())) + "\n"
    assert text.startswith("$z_1 = (0.7071, 2.1213)$")
    assert _verdicts(text, name) == []


def test_an_output_row_in_a_listing_named_z2_is_read():
    """A listing's ``z1 = [..]``, ``z2 = [..]``, ``z3 = [..]`` (the AsciiDoc page's outputs, torch's): verified; the
    swapped ``z2 = [0.5481, 0.7259]`` is wrong (expected 0.7259, 0.5481)."""
    name = "en_asciidoc_tables_scientific_notation"
    sc = _scenario(name)
    s, a, _ = _sdpa(sc["q"], sc["k"], sc["v"])
    out = a @ _t(sc["v"])
    z = [_r(r, 4) for r in out.tolist()]
    assert z[1] == ["0.7259", "0.5481"]
    text = "----\n" + "\n".join(f"z{i + 1} = [{r[0]}, {r[1]}]" for i, r in enumerate(z)) + "\n----\n"
    got = _verdicts(text, name)
    assert len(got) == 6 and all(st == "verified" for _, st in got)
    r = check_text(text.replace("[0.7259, 0.5481]", "[0.5481, 0.7259]"), _opts(name))
    assert [(x.text, x.failure()[1]) for x in r.wrong] == [("0.5481", "0.7259"), ("0.7259", "0.5481")]
