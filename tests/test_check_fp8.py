"""The rules that fixed heldout8's 35 right numbers called wrong, each called on small hand-made texts, the expected
values derived with torch (never through attnwalk's engine):

- a display line's product: only the matrix alone after the last relation is named by the letter before the first
  ``=``; the factors are left unread (``forms.display_products``);
- a matrix of a computed tensor said to be assumed is left unread (``forms.assumed_matrices``);
- a vector that is an operand of a dot product written out is no row of a matrix (``forms.dot_operand``);
- a tensor label is never carried across a heading (``human._label_text``);
- ``A_{i, j}`` / ``S_{i, j}`` name a 1-based cell, never head i and a number j (``labels.subscript_cell_at``);
- "Row 1 … Row n" count from 1 in a note naming no row 0 (``checker.Checker._context``).
"""

import math

import pytest
from conftest import torch64 as _t

from attnwalk.api import walk
from attnwalk.check import check_text, forms, human

torch = pytest.importorskip("torch", reason="torch is not installed on this machine: pip install torch==2.13.0")

# X (3 x 3) and W (3 x 2, in -> out): Q = X W_Q = [[2, 0], [0, 2], [2, 1]], K = [[0, 2], [2, 0], [1, 2]],
# V = [[2, 1], [0, 2], [2, 2]]
PROJECTED = dict(variant="sdpa", source="project", weight_layout="in_out", heads=1,
                 x=[[1, 0, 1], [0, 2, 0], [1, 1, 1]], w_q=[[1, 0], [0, 1], [1, 0]], w_k=[[0, 1], [1, 0], [0, 1]],
                 w_v=[[1, 1], [0, 1], [1, 0]])
# Q = K = V = three 2-d embeddings, named by token words
WORDS = dict(variant="sdpa", source="direct", heads=1, scale="sqrt_dk", q=[[1, 0], [0, 1], [1, 1]],
             k=[[1, 0], [0, 1], [1, 1]], v=[[1, 0], [0, 1], [1, 1]], labels=["Le", "chat", "dort"])
# two tokens, Q, K, V given
PATCHES = dict(variant="sdpa", source="direct", heads=1, scale="sqrt_dk", q=[[1.0, 1.0], [0.0, 2.0]],
               k=[[1.0, 1.0], [2.0, 0.0]], v=[[10.0, 0.0], [0.0, 10.0]])


def _torch_projected():
    x = _t(PROJECTED["x"])
    q, k, v = (x @ _t(PROJECTED[w]) for w in ("w_q", "w_k", "w_v"))
    a = torch.softmax(q @ k.T / math.sqrt(2), -1)
    return q, k, v, a, a @ v


def _bmatrix(rows) -> str:
    return "\\begin{bmatrix} " + " \\\\ ".join(" & ".join(str(x) for x in r) for r in rows) + " \\end{bmatrix}"


def _read(text: str, opts: dict) -> list[tuple[int, str, bool, str]]:
    """The human reader's verdicts on ``text``: (line, printed, ok, tensor)."""
    hits = human.find(text, walk(**opts))
    return [(h.line, h.text, h.ok, h.label) for _, h in sorted(hits.items())]


def _ints(m) -> list[list[int]]:
    return [[int(x) for x in r] for r in m.tolist()]


# ---------------------------------------------------------------- a product and its result on one display line

def test_only_the_result_of_a_display_product_is_named_by_its_letter():
    """``$$K = X W_K = [X][W_K] = [K]$$``: X agrees with torch's K in 3 of 6 numbers (once read as K, wrongly); now
    only the result is K (all right), a planted 3 for K's 2 is wrong, X and W_K are not read."""
    q, k, v, a, o = _torch_projected()
    x, w_k = PROJECTED["x"], PROJECTED["w_k"]
    assert _ints(k) == [[0, 2], [2, 0], [1, 2]]
    line = f"$$\\mathbf{{K}} = \\mathbf{{X}} \\mathbf{{W}}_K = {_bmatrix(x)} {_bmatrix(w_k)} = {_bmatrix(_ints(k))}$$\n"
    got = _read(line, PROJECTED)
    assert got == [(1, str(n), True, "k") for r in _ints(k) for n in r]
    planted = line.replace(_bmatrix(_ints(k)), _bmatrix([[0, 3], [2, 0], [1, 2]]))
    assert [(t, ok) for _, t, ok, _ in _read(planted, PROJECTED)] == [("0", True), ("3", False), ("2", True),
                                                                     ("0", True), ("1", True), ("2", True)]


def test_a_product_without_a_result_has_its_factors_unread():
    """``$$\\mathbf{H} = [A][V]$$`` under a heading naming the output (torch's weights to 3 decimals, V): neither
    factor is the output (V was read as it, 3 of its 6 numbers wrong). The heading's ``H = A V`` names the factors
    by their letters (forms.display_products): each is read as the weights and V, every number right."""
    _, _, v, a, _ = _torch_projected()
    a3 = [[f"{w:.3f}" for w in r] for r in a.tolist()]
    heading = "### Compute the output $\\mathbf{H} = \\mathbf{A}\\mathbf{V}$\n"
    got = _read(f"{heading}$$\\mathbf{{H}} = {_bmatrix(a3)} {_bmatrix(_ints(v))}$$\n", PROJECTED)
    assert [(ok, label) for *_, ok, label in got] == [(True, "attn")] * 9 + [(True, "v")] * 6
    assert _read(f"### Compute the output\n$$\\mathbf{{H}} = {_bmatrix(a3)} {_bmatrix(_ints(v))}$$\n",
                 PROJECTED) == []  # no letters: neither factor named
    # the factor V alone on its line, named: read as V (the rule is what leaves it unread above)
    assert [ok for *_, ok, _ in _read(f"$$\\mathbf{{V}} = {_bmatrix(_ints(v))}$$\n", PROJECTED)] == [True] * 6


def test_a_chain_names_its_last_matrix_by_the_letter_before_the_first_relation():
    """``Q = X W_Q = [1·1 + 0·0 + 1·1 & ..] = [Q]``: the written-out products are no numbers of a matrix, the result
    is Q (torch: [[2, 0], [0, 2], [2, 1]]), under a heading naming Q, K and V."""
    q = _torch_projected()[0]
    expanded = ("\\begin{bmatrix} 1\\cdot 1 + 0\\cdot 0 + 1\\cdot 1 & 1\\cdot 0 + 0\\cdot 1 + 1\\cdot 0 \\\\ "
                "0\\cdot 1 + 2\\cdot 0 + 0\\cdot 1 & 0\\cdot 0 + 2\\cdot 1 + 0\\cdot 0 \\\\ "
                "1\\cdot 1 + 1\\cdot 0 + 1\\cdot 1 & 1\\cdot 0 + 1\\cdot 1 + 1\\cdot 0 \\end{bmatrix}")
    text = (f"### Compute $\\mathbf{{Q}}, \\mathbf{{K}}, \\mathbf{{V}}$\n\n$$\n"
            f"\\mathbf{{Q}} = \\mathbf{{X}}\\mathbf{{W}}_Q = {expanded} = {_bmatrix(_ints(q))}\n$$\n")
    blocks = forms.display_products(text)
    assert [(b.label.strip(), [[c.text for c in r] for r in b.rows]) for b in blocks] == [
        ("\\mathbf{Q}", [["2", "0"], ["0", "2"], ["2", "1"]])]
    assert {(t, ok, lab) for _, t, ok, lab in _read(text, PROJECTED)} == {("2", True, "q"), ("0", True, "q"),
                                                                          ("1", True, "q")}


def test_several_equations_on_a_display_line_or_a_prose_name_are_no_chain():
    """``W_Q = [..],\\; W_K = [..],\\; W_V = [..]``: three equations (each matrix keeps its own name, read as
    before); ``\\text{Final Output} = [C] @ [W] = [R]``: the factors unread, the result not named by prose."""
    ws = [PROJECTED[w] for w in ("w_q", "w_k", "w_v")]
    three = (f"$$\\mathbf{{W}}_{{Q}} = {_bmatrix(ws[0])},\\;\\; \\mathbf{{W}}_{{K}} = {_bmatrix(ws[1])},\\;\\; "
             f"\\mathbf{{W}}_{{V}} = {_bmatrix(ws[2])}$$\n")
    assert forms.display_products(three) == []
    prose = (f"$$\\text{{Final Output}} = {_bmatrix([[1, 0], [0, 1]])} @ {_bmatrix([[1, 1], [1, 1]])} = "
             f"{_bmatrix([[9, 9], [9, 9]])}$$\n")
    assert [b.label for b in forms.display_products(prose)] == [None, None, ""]


# ---------------------------------------------------------------- a matrix said to be assumed

def test_an_assumed_matrix_of_a_computed_tensor_is_left_unread():
    """Head 2's output assumed (``ধরি output:``, "Suppose the output is", "giả sử", "假设"): 0.60 / 0.40 where torch's
    output is another; without the word the same matrix is judged (wrong), so the word is what leaves it unread."""
    o = _torch_projected()[4]
    assert [f"{x:.2f}" for x in o[0].tolist()] != ["0.60", "0.40"]
    mat = "$$\n" + _bmatrix([[0.60, 0.40], [0.40, 0.60], [0.50, 0.50]]).replace("0.6", "0.60").replace(
        "0.4", "0.40").replace("0.5", "0.50") + "\n$$\n"
    said = _read("The output:\n\n" + mat, PROJECTED)
    assert said and not all(ok for *_, ok, _ in said)
    for caption in ("ধরি output:", "Suppose the output is:", "Giả sử output:", "假设输出:", "Let the output be:"):
        assert _read(caption + "\n\n" + mat, PROJECTED) == [], caption


def test_an_assumed_input_is_the_setup_and_still_read():
    """``Assume the input X = [..]``: the note's own setup (the scenario's X), judged as X."""
    text = f"Assume the input\n\n$$X = {_bmatrix(PROJECTED['x'])}$$\n"
    got = _read(text, PROJECTED)
    assert len(got) == 9 and all(ok and lab == "x" for *_, ok, lab in got)


# ---------------------------------------------------------------- dot products written out

def test_a_dot_products_operands_are_no_rows_of_a_matrix():
    """``[1,0]\\cdot[1,0]=1`` on three lines under K: the query [1, 0] three times is no K (torch's K is [[1, 0],
    [0, 1], [1, 1]]); the same lists without the operator are read as K's rows."""
    dots = ("The first step compares the query with each key by a dot product:\n\n"
            "$$\n[1,0]\\cdot[1,0]=1,\\qquad\n[1,0]\\cdot[0,1]=0,\\qquad\n[1,0]\\cdot[1,1]=1.\n$$\n")
    assert _read(dots, WORDS) == []
    rows = "K = [1, 0]\n[0, 1]\n[1, 1]\n"
    assert [(t, ok) for _, t, ok, _ in _read(rows, WORDS)] == [("1", True), ("0", True), ("0", True), ("1", True),
                                                               ("1", True), ("1", True)]


@pytest.mark.parametrize("line, a, ok", [("[2,0]\\cdot[0,2,1]=0", 0, True), ("[2,0]\\cdot[0,2,1]=0", 10, True),
                                         ("[0.3, 0.6] · [0.8, 0.2]", 0, True), ("[1, 1]^\\top \\cdot q", 0, True),
                                         ("[1,0] ⋅ [1,0] = 1", 8, True), ("K = [1, 0]", 4, False),
                                         ("[1, 0] and [0, 1]", 0, False), ("\\cdots [1, 0]", 7, False)])
def test_dot_operand(line, a, ok):
    b = line.index("]", a) + 1
    assert forms.dot_operand(line, a, b) is ok


# ---------------------------------------------------------------- a label never crosses a heading

def test_a_label_is_not_carried_across_a_heading():
    """The output [0.599, 0.802] of "chat" above ``### Exercise``; the exercise's statement ``"Le"=[1,0]``,
    ``"chat"=[0,1]`` below it is the input, not the output (torch's output row of "Le": [0.6358, 0.3642])."""
    out = torch.softmax(_t(WORDS["q"]) @ _t(WORDS["k"]).T / math.sqrt(2), -1) @ _t(WORDS["v"])
    assert [f"{x:.3f}" for x in out[1].tolist()] == ["0.599", "0.802"]
    above = "The new vector `[0.599, 0.802]` is the output of \"chat\".\n\n"
    statement = 'With the example (`"Le"=[1,0]`, `"chat"=[0,1]`, `"dort"=[1,1]`), compute the row of "dort".\n'
    assert any(not ok for *_, ok, _ in _read(above + statement, WORDS))  # read as the output without the heading
    assert _read(above + "### Exercise 5.3.A\n\n" + statement, WORDS) == []
    # the heading itself still names what follows it
    text = above + "### Attention weights\n\n[[0.1, 0.2], [0.3, 0.4]]\n"
    assert "weights" in human._label_text(text, text.index("[["))
    assert "output" not in human._label_text(text, text.index("[["))


# ---------------------------------------------------------------- a scalar's two subscripts

def test_a_scalars_two_subscripts_name_a_one_based_cell():
    """``S_{1, 1} = 2.0 / 1.414 ≈ 1.414`` (torch: the scaled score 2/√2), ``A_{1, 2} = 0.50`` and ``A_{2, 1}``
    (torch's weights [[0.5, 0.5], [0.8044, 0.1956]]): the subscripts are a 1-based cell, never head 1 and a
    number 1 or 2 (which were judged against 1.000 and 2.000)."""
    a = torch.softmax(_t(PATCHES["q"]) @ _t(PATCHES["k"]).T / math.sqrt(2), -1)
    assert f"{a[0, 1].item():.2f}" == "0.50" and f"{a[1, 0].item():.2f}" == "0.80"
    text = ("$$S_{1, 1} = \\frac{2.0}{1.414} \\approx 1.414$$\n\n$$A_{1, 2} = 0.50, \\quad A_{2, 1} = 0.70$$\n")
    rep = check_text(text, PATCHES)
    judged = {(r.line, r.text): [(ok, lab, str(e)) for ok, lab, e in r.checks if lab in ("S_1, 1", "A_1, 2",
                                                                                         "A_2, 1")]
              for r in rep.verified + rep.wrong}
    assert judged[(1, "1.414")] == [(True, "S_1, 1", "1.414214")]
    assert judged[(3, "0.50")] == [(True, "A_1, 2", "0.50000")]
    assert judged[(3, "0.70")] == [(False, "A_2, 1", "0.80")]
    assert [r.text for r in rep.wrong] == ["0.70"]


def test_a_scalars_subscripts_are_left_unread_where_the_note_counts_from_0():
    """A note with ``s_{0,1}`` somewhere: ``A_{1, 2}`` may be 0-based, so it is not judged (nor its 2 or 1)."""
    rep = check_text("Here $s_{0,1} = 2$.\n\n$$A_{1, 2} = 0.70$$\n", PATCHES)
    assert [r.text for r in rep.wrong] == []
    assert "0.70" in [r.text for r in rep.unknown]


# ---------------------------------------------------------------- rows named from 1

def _row_sums() -> list[str]:
    """The row sums of the exponentials of torch's scaled scores, to 3 decimals."""
    q, k = _torch_projected()[:2]
    return [f"{x:.3f}" for x in torch.exp(q @ k.T / math.sqrt(2)).sum(-1).tolist()]


def test_rows_named_from_1_are_counted_from_1_without_a_row_0():
    """``**Row 1:** … sum = 22.032`` (torch: 1 + e^(2√2) + e^√2 = 22.032, row 0 of the exponentials' sums; row 1's
    is 34.838): judged against row 0's sum; in a note that also names a Row 0, "Row 1" is row 1."""
    sums = _row_sums()
    assert sums == ["22.032", "34.838", "37.951"]
    text = "\n\n".join(f"**Row {i + 1}:** $\\exp(a)=b$, sum $={s}$." for i, s in enumerate(sums)) + "\n"
    rep = check_text(text, PROJECTED)
    assert {r.text for r in rep.verified} >= set(sums) and not rep.wrong
    zero = "**Row 0** is the first token's.\n\n**Row 1:** sum $=22.032$.\n"
    assert [(r.text, r.checks[0][2]) for r in check_text(zero, PROJECTED).wrong] == [("22.032", "34.838")]
