"""The sixteenth held-out round (tests/corpus/heldout16): eight real public notes check had never seen (seven pages,
en/vi), back to real notes after three synthetic rounds: MDX lessons with a ``hero:`` front matter whose printed
results are ``#`` comments (``# tensor([[2.2000, 3.2000],``, a matrix with ``Pos 0`` row labels), a NumPy script's
e-notation comments, a Jupyter export, a React widget's data of two examples, a book chapter's Vietnamese translation.
Measured once before any change (FIRST_RUN.md: 5 of 19 wrong numbers found, 2 right numbers called wrong). Here: the
pages' setups recomputed with torch, and the readers widened for what the first run misread or missed, each on
hand-made texts whose values come from torch.

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

from attnwalk.check import check_text
from attnwalk.check.object_examples import literal_input_starts
from attnwalk.scenario import load_scenario

torch = pytest.importorskip("torch", reason="torch is not installed on this machine: pip install torch==2.13.0")

CORPUS = Path(__file__).resolve().parent / "corpus"
HELDOUT16 = CORPUS / "heldout16"

truth, bench = heldout_tools()


def _scenario(name: str) -> dict:
    return truth.load(HELDOUT16, name)[2]


def _opts(name: str) -> dict:
    return load_scenario(HELDOUT16 / f"{name}.toml")


def _verdicts(text: str, opts: dict) -> list[tuple[str, str]]:
    """(printed number, status) of every number check judged in ``text`` under ``opts``."""
    return [(r.text, r.status) for r in check_text(text, opts).recs if r.status != "unknown"]


def _wrong(text: str, opts: dict) -> list[tuple[str, str]]:
    """(printed, expected) of every number check calls wrong in ``text``."""
    return [(r.text, r.failure()[1]) for r in check_text(text, opts).wrong]


# ---------------------------------------------------------------- the pages' setups, by torch


def test_the_lessons_printed_output_is_not_its_weights_times_v():
    """weights [[0.5, 0.3, 0.2], [0.1, 0.7, 0.2], [0.4, 0.3, 0.3]] @ V [[1, 2], [3, 4], [5, 6]] is [[2.4, 3.4], [3.2,
    4.2], [2.8, 3.8]] (torch); the lesson prints [[2.2, 3.2], [2.8, 3.8], [2.6, 3.6]], and its own hand row [2.4, 3.4].
    The scenario's scores ln(w) give back the weights under softmax."""
    sc = _scenario("en_mdx_hero_weights_times_v_print_comment")
    w = torch.softmax(_t(sc["scores"]), -1)
    assert torch.allclose(w, _t([[0.5, 0.3, 0.2], [0.1, 0.7, 0.2], [0.4, 0.3, 0.3]]), atol=1e-15)
    assert [_r(r, 1) for r in (w @ _t(sc["v"])).tolist()] == [["2.4", "3.4"], ["3.2", "4.2"], ["2.8", "3.8"]]


def test_the_lessons_attention_matrix_of_its_q_and_k():
    """softmax(QKᵀ/√4) of the example's Q, K: rows (0.5065, 0.1863, 0.3072), (0.1863, 0.5065, 0.3072), (1/3, 1/3,
    1/3): at one decimal the printed first row is right, the second (0.1, 0.7, 0.2) and the third's 0.4 are not."""
    sc = _scenario("en_mdx_hero_scores_matrix_in_comment")
    a = torch.softmax(_t(sc["q"]) @ _t(sc["k"]).T / 2, -1)
    assert [_r(r, 4) for r in a.tolist()] == [["0.5065", "0.1863", "0.3072"], ["0.1863", "0.5065", "0.3072"],
                                              ["0.3333", "0.3333", "0.3333"]]


def test_the_widgets_softmax_is_not_the_softmax_of_its_dot_products():
    """q · k of the widget's first example is its printed dot products; their softmax is (0.13, 0.21, 0.22, 0.14,
    0.13, 0.18), not the printed (0.08, 0.23, 0.24, 0.1, 0.08, 0.27); the second example's (0.98, 0.45, 0.85, 0.2,
    0.53) give (0.28, 0.17, 0.25, 0.13, 0.18), not (0.33, 0.12, 0.29, 0.06, 0.2)."""
    sc = _scenario("en_react_widget_examples_dot_products_softmax")
    s = (_t(sc["q"]) @ _t(sc["k"]).T)[0]
    assert _r(s.tolist(), 2) == ["0.19", "0.68", "0.73", "0.26", "0.19", "0.55"]
    assert _r(torch.softmax(s, -1).tolist(), 2) == ["0.13", "0.21", "0.22", "0.14", "0.13", "0.18"]
    s2 = _t([0.6, 0.7]) @ _t([[0.7, 0.8], [0.4, 0.3], [0.6, 0.7], [0.1, 0.2], [0.3, 0.5]]).T
    assert _r(s2.tolist(), 2) == ["0.98", "0.45", "0.85", "0.20", "0.53"]
    assert _r(torch.softmax(s2, -1).tolist(), 2) == ["0.28", "0.17", "0.25", "0.13", "0.18"]


def test_the_translated_chapters_weights_drawn_by_torch_rand():
    """torch.manual_seed(123), three torch.rand(3, 2): the scenario's W; with the chapter's six inputs, q(2) = (0.4306,
    1.4551), ω22 = 1.8524, the weights of x(2) over √2 and z(2) = (0.3061, 0.8210) as the chapter prints them."""
    sc = _scenario("vi_book_translation_trainable_weights_torch_rand")
    torch.manual_seed(123)
    assert all(torch.equal(torch.rand(3, 2).double(), _t(sc[w])) for w in ("w_q", "w_k", "w_v"))
    x = _t(sc["x"])
    q, k, v = x @ _t(sc["w_q"]), x @ _t(sc["w_k"]), x @ _t(sc["w_v"])
    assert _r(q[1].tolist(), 4) == ["0.4306", "1.4551"] and f"{float(q[1] @ k[1]):.4f}" == "1.8524"
    a = torch.softmax(q[1] @ k.T / math.sqrt(2), -1)
    assert _r(a.tolist(), 4) == ["0.1500", "0.2264", "0.2199", "0.1311", "0.0906", "0.1820"]
    assert _r((a @ v).tolist(), 4) == ["0.3061", "0.8210"]


# ---------------------------------------------------------------- the readers widened for this round's first run

def _direct(q, k, v, scale: str = "sqrt_dk") -> dict:
    return {"variant": "sdpa", "source": "direct", "heads": 1, "scale": scale, "q": q, "k": k, "v": v}


def test_a_print_pasted_as_comments_after_an_array_head():
    """``print(output)`` then ``# tensor([[..],`` / ``#         [..]])``: the output (torch's A @ V of a 3 x 2 setup)
    is verified; a slip in one cell is wrong. ``# array([[..`` reads so too. (Before: comments starting with
    ``tensor(`` were not read.)"""
    q, k, v = [[1, 0], [0, 1], [1, 1]], [[1, 0], [0, 1], [1, 1]], [[1, 2], [3, 4], [5, 7]]
    out = torch.softmax(_t(q) @ _t(k).T / math.sqrt(2), -1) @ _t(v)
    rows = [_r(r, 4) for r in out.tolist()]
    assert rows[1] == ["3.4067", "4.8078"]
    body = "\n".join(f"# {'tensor([' if i == 0 else '        '}[{', '.join(r)}]{'])' if i == 2 else ','}"
                     for i, r in enumerate(rows))
    text = f"```python\noutput = attn_weights @ V\nprint(output)\n{body}\n```\n"
    opts = _direct(q, k, v)
    assert _verdicts(text, opts) == [(t, "verified") for r in rows for t in r]
    assert _wrong(text.replace("4.8078", "4.8087"), opts) == [("4.8087", "4.8078")]
    assert _wrong(text.replace("# tensor(", "# array("), opts) == []
    assert len(_verdicts(text.replace("# tensor(", "# array("), opts)) == 6


def test_a_print_pasted_as_comments_with_row_labels_under_column_names():
    """``print(attn_matrix)`` then a comment of column names and rows led by a label and followed by a caption
    (``# Pos 1  [0.1,   0.7,   0.2],   ← ..``): torch's weights of Q = K (3 x 4) over √4, at one decimal, are verified
    and the lesson's (0.1, 0.7, 0.2) row is wrong."""
    q = [[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0], [1.0, 1.0, 0.0, 0.0]]
    k = [[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0], [0.5, 0.5, 0.5, 0.5]]
    a = torch.softmax(_t(q) @ _t(k).T / 2, -1)
    rows = [_r(r, 1) for r in a.tolist()]
    assert rows == [["0.5", "0.2", "0.3"], ["0.2", "0.5", "0.3"], ["0.3", "0.3", "0.3"]]

    def note(rs):
        lines = [f"# Pos {i} {'[[' if i == 0 else ' ['}{',   '.join(r)}]{']' if i == 2 else ','}   ← caption {i}"
                 for i, r in enumerate(rs)]
        return ("```python\nattn_matrix = torch.softmax(Q @ K.T / (d ** 0.5), dim=-1)\nprint(attn_matrix)\n"
                "#        Pos 0  Pos 1  Pos 2\n" + "\n".join(lines) + "\n```\n")

    opts = _direct(q, k, k)
    assert _verdicts(note(rows), opts) == [(t, "verified") for r in rows for t in r]
    slip = [rows[0], ["0.1", "0.7", "0.2"], rows[2]]
    assert _wrong(note(slip), opts) == [("0.1", "0.2"), ("0.7", "0.5"), ("0.2", "0.3")]


def test_comments_that_are_no_print_of_a_tensor_stay_unread():
    """A print of a name that gives no tensor, or comments of prose with a list, are left to the other readers."""
    opts = _direct([[1, 0], [0, 1]], [[1, 0], [0, 1]], [[1, 0], [0, 1]])
    assert _verdicts("```python\nprint(config)\n# tensor([[9.0, 9.0],\n#         [9.0, 9.0]])\n```\n", opts) == []
    assert _verdicts("```python\nprint(output.shape)\n# shape is [2, 2] here\n```\n", opts) == []


def _widget(examples: list[dict]) -> str:
    def lst(xs):
        return "[" + ", ".join(xs) + "]"
    objs = []
    for ex in examples:
        objs.append("  {\n" + f"    queries: {lst(ex['q'])},\n    dotProducts: {lst(ex['s'])},\n"
                    f"    softmax: {lst(ex['a'])},\n" + "  },")
    return "```tsx\nconst EXAMPLES = [\n" + "\n".join(objs) + "\n];\n```\n"


def test_an_object_literals_softmax_is_the_softmax_of_its_score_list():
    """A widget's second example (not the scenario's): its ``softmax`` list is judged as the softmax of the
    ``dotProducts`` list above it in its object (torch: softmax(0.98, 0.45, 0.85, 0.2, 0.53) = (0.28, 0.17, 0.25,
    0.13, 0.18)); the widget's own (0.33, 0.12, 0.29, 0.06, 0.2) is wrong where it differs. The second example's query
    is another example's, not the scenario's: not called wrong (before: 0.6, 0.7 judged as q = (0.8, 0.3))."""
    sc = _scenario("en_react_widget_examples_dot_products_softmax")
    opts = _opts("en_react_widget_examples_dot_products_softmax")
    s1 = (_t(sc["q"]) @ _t(sc["k"]).T)[0]
    first = {"q": ["0.8", "0.3"], "s": _r(s1.tolist(), 2), "a": _r(torch.softmax(s1, -1).tolist(), 2)}
    s2 = [0.98, 0.45, 0.85, 0.2, 0.53]
    right = _r(torch.softmax(_t(s2), -1).tolist(), 2)
    second = {"q": ["0.6", "0.7"], "s": [str(x) for x in s2], "a": right}
    got = check_text(_widget([first, second]), opts)
    assert not got.wrong
    assert [r.text for r in got.recs if r.status == "verified"][-5:] == right
    second["a"] = ["0.33", "0.12", "0.29", "0.06", "0.2"]
    assert _wrong(_widget([first, second]), opts) == [("0.33", "0.28"), ("0.12", "0.17"), ("0.29", "0.25"),
                                                      ("0.06", "0.13")]


def test_an_object_literals_softmax_over_the_square_root_of_its_querys_width():
    """The weights of scaled scores (torch's softmax of s / √2, the object's query having two entries) are right as
    such; a list that is neither softmax(s) nor softmax(s / √2) is wrong."""
    opts = _opts("en_react_widget_examples_dot_products_softmax")
    s2 = [0.98, 0.45, 0.85, 0.2, 0.53]
    scaled = _r(torch.softmax(_t(s2) / math.sqrt(2), -1).tolist(), 2)
    assert scaled != _r(torch.softmax(_t(s2), -1).tolist(), 2)
    second = {"q": ["0.6", "0.7"], "s": [str(x) for x in s2], "a": scaled}
    first = {"q": ["0.8", "0.3"], "s": ["0.19", "0.68", "0.73", "0.26", "0.19", "0.55"],
             "a": ["0.13", "0.21", "0.22", "0.14", "0.13", "0.18"]}
    assert _wrong(_widget([first, second]), opts) == []
    second["a"] = ["0.20"] * 5
    # torch: softmax(s) = (0.28, 0.17, 0.25, 0.13, 0.18), softmax(s / √2) = (0.26, 0.18, 0.23, 0.15, 0.19)
    assert _r(torch.softmax(_t(s2), -1).tolist(), 2) == ["0.28", "0.17", "0.25", "0.13", "0.18"]
    assert scaled == ["0.26", "0.18", "0.23", "0.15", "0.19"]
    assert [t for t, _ in _wrong(_widget([first, second]), opts)] == ["0.20"] * 5


def test_an_input_of_another_object_starts_another_example():
    """``queries: [0.6, 0.7]`` where the scenario's q is (0.8, 0.3) is another example's input; the scenario's own
    ``queries: [0.8, 0.3]`` is not."""
    opts = _opts("en_react_widget_examples_dot_products_softmax")
    from attnwalk.api import walk

    trace = walk(**opts)
    text = "const A = [\n  {\n    queries: [0.8, 0.3],\n  },\n  {\n    queries: [0.6, 0.7],\n  },\n];\n"
    assert literal_input_starts(text, trace) == [text.index("    queries: [0.6")]


def _chapter(code: str, prose: str, output: str) -> str:
    return f"```python\n{code}\n```\n\n{prose}\n\n```\n{output}\n```\n"


def test_a_prints_output_fence_below_its_code_is_the_printed_variables_row():
    """``print(attn_scores_2)`` then a line of prose and a plain fence ``tensor([..])``: row 2 of QKᵀ (torch's, of the
    chapter's seed-123 weights) is verified; a slip in one of its six numbers is wrong; ``attn_score_22``'s scalar
    ``tensor(1.8524)`` is the cell (2, 2). (Before: unread, the prose naming no tensor.)"""
    name = "vi_book_translation_trainable_weights_torch_rand"
    sc = _scenario(name)
    x = _t(sc["x"])
    s = (x @ _t(sc["w_q"])) @ (x @ _t(sc["w_k"])).T
    row = _r(s[1].tolist(), 4)
    assert row == ["1.2705", "1.8524", "1.8111", "1.0795", "0.5577", "1.5440"]
    text = _chapter("attn_scores_2 = query_2 @ keys.T\nprint(attn_scores_2)", "Kết quả là:",
                    f"tensor([{', '.join(row)}])")
    assert _verdicts(text, _opts(name)) == [(t, "verified") for t in row]
    assert _wrong(text.replace("1.8111", "1.8119"), _opts(name)) == [("1.8119", "1.8111")]
    scalar = _chapter("attn_score_22 = query_2.dot(keys_2)\nprint(attn_score_22)", "Kết quả là:",
                      f"tensor({row[1]})")
    assert _verdicts(scalar, _opts(name)) == [("1.8524", "verified")]


def test_a_prints_output_that_its_name_misnames_stays_unread():
    """``attn_weights_2_tmp = attn_scores_2 / attn_scores_2.sum()``: the name says weights, the values are the scores
    over their sum (torch: 0.1455, 0.2278, ..), not the softmax (0.1385, 0.2379, ..): most disagree, left unread; two
    prints in the cell, or a heading between code and output, are not read either."""
    name = "vi_book_translation_simplified_attention_blockquote"
    x = _t(_scenario(name)["q"])
    s = (x @ x.T)[1]
    tmp = _r((s / s.sum()).tolist(), 4)
    assert tmp[:2] == ["0.1455", "0.2278"] and _r(torch.softmax(s, -1).tolist(), 4)[:2] == ["0.1385", "0.2379"]
    text = _chapter("attn_weights_2_tmp = attn_scores_2 / attn_scores_2.sum()\nprint(attn_weights_2_tmp)",
                    "Kết quả:", f"tensor([{', '.join(tmp)}])")
    assert _verdicts(text, _opts(name)) == []
    right = _r(torch.softmax(s, -1).tolist(), 4)
    ok = _chapter("print(attn_weights_2)", "Kết quả:", f"tensor([{', '.join(right)}])")
    assert len(_verdicts(ok, _opts(name))) == 6
    assert _verdicts(ok.replace("print(attn_weights_2)", "print(attn_weights_2)\nprint(1)"), _opts(name)) == []
    assert _verdicts(ok.replace("Kết quả:", "## Phần sau"), _opts(name)) == []


def test_a_jupyter_cells_echo_under_its_out_prompt_is_the_echoed_variable():
    """A cell ending in a bare name, then ``Out[313]:`` and the result indented: the tensor the name gives. The
    notebook's softmax of its given scores (torch: 0.2391, 0.3943, 0.1862, 0.1804) is verified; its echo of the dot
    products it keeps in ``weights1`` (the name says weights) disagrees with the weights and stays unread. (Before:
    neither was read.)"""
    name = "en_notebook_sentence_embeddings_bank_dot_softmax"
    s = _t(_scenario(name)["scores"])[0]
    a = _r(torch.softmax(s, -1).tolist(), 4)
    assert a == ["0.2391", "0.3943", "0.1862", "0.1804"]

    def cell(n, code, out):
        return f"In [{n}]:\n\n```python\n{code}\n```\n\nOut[{n}]:\n\n    tensor([{', '.join(out)}])\n\n"

    scores = cell(312, "weights1 = torch.tensor([0.4996, 1.0, 0.2495, 0.2183])\nweights1", _r(s.tolist(), 4))
    soft = cell(313, "# normalise\nweights1 = torch.softmax(weights1, dim=0)\nweights1", a)
    assert _verdicts(scores + soft, _opts(name)) == [(t, "verified") for t in a]
    assert _verdicts(soft.replace("\nweights1\n```", "\nweights1.sum()\n```"), _opts(name)) == []


def test_an_object_literals_softmax_within_the_rounding_of_its_printed_scores():
    """Scores printed at one decimal, ``[1.0, 0.0]``: the softmax of scores within their rounding runs from σ(0.9) =
    0.7109 to σ(1.1) = 0.7503 (torch), so 0.74 is right though softmax(1.0, 0.0) = 0.7311; 0.80 is wrong."""
    opts = _opts("en_react_widget_examples_dot_products_softmax")
    lo, hi = (torch.sigmoid(_t([d]))[0].item() for d in (0.9, 1.1))
    assert (f"{lo:.4f}", f"{hi:.4f}", f"{torch.softmax(_t([1.0, 0.0]), -1)[0].item():.4f}") == ("0.7109", "0.7503",
                                                                                                "0.7311")
    text = "```tsx\nconst EXAMPLES = [\n  {\n    dotProducts: [1.0, 0.0],\n    softmax: [{a}, {b}],\n  },\n];\n```\n"
    assert _wrong(text.replace("{a}", "0.74").replace("{b}", "0.26"), opts) == []
    assert _verdicts(text.replace("{a}", "0.74").replace("{b}", "0.26"), opts) == [("0.74", "verified"),
                                                                                   ("0.26", "verified")]
    assert [t for t, _ in _wrong(text.replace("{a}", "0.80").replace("{b}", "0.20"), opts)] == ["0.80", "0.20"]
