"""``attnwalk check`` on numbers published as code: the literal assignments of a note's ``python`` blocks
(``X = np.array([[..]])``, ``W_Q = torch.tensor(..)``, ``weights = [[..]]``) are judged against the tensor their
name names, at the characters the AST places them; computed values, loops, random data and names of nothing stay
silent. Expected values: torch (float64), printed with Python's correctly rounded format."""

from __future__ import annotations

import ast
import json

import pytest

from attnwalk.check import check_file, check_text
from attnwalk.check.program import literals, python_blocks, tensors_named

torch = pytest.importorskip("torch", reason="expected values come from torch; pip install torch (CI does)")

# A projected example, weights as (in, out): Q = X @ W_Q. Exact binary decimals, so the inputs print as given.
SCENARIO = {"variant": "sdpa", "source": "project", "weight_layout": "in_out", "heads": 1,
            "x": [[1.0, 0.5], [-0.5, 2.0], [0.25, -1.0]], "w_q": [[0.5, -1.0], [1.5, 0.25]],
            "w_k": [[1.0, 0.5], [-0.5, 1.0]], "w_v": [[2.0, 0.001], [0.5, -1.0]]}


def _truth() -> dict:
    """Every tensor of the example as torch computes it."""
    t = {n: torch.tensor(SCENARIO[n], dtype=torch.float64) for n in ("x", "w_q", "w_k", "w_v")}
    q, k, v = (t["x"] @ t[w] for w in ("w_q", "w_k", "w_v"))
    s = q @ k.T
    ss = s / 2 ** 0.5
    a = torch.softmax(ss, dim=-1)
    return {"x": t["x"], "w_q": t["w_q"], "w_v": t["w_v"], "q": q, "k": k, "v": v, "scores": s, "scaled": ss,
            "attn": a, "out": a @ v}


def _rows(m, dec: int = 4, comments: bool = False) -> str:
    """A matrix as a nested list literal, one row a line (a ``# t=i`` comment after each)."""
    rows = []
    for i, r in enumerate(m.tolist()):
        rows.append("    [" + ", ".join(f"{x:.{dec}f}" for x in r) + "]," + (f"  # t={i}" if comments else ""))
    return "[\n" + "\n".join(rows) + "\n]"


def _note(truth: dict) -> str:
    """A note whose numbers are all in code: inputs, weights, projections, scores, weights and outputs."""
    return "\n".join([
        "# Atención paso a paso", "",
        "```python",
        "import numpy as np",
        "import torch", "",
        f"X = np.array({_rows(truth['x'], 2, comments=True)})",
        f"W_Q = np.array({_rows(truth['w_q'], 2)}, dtype=np.float64)",
        f"W_V = torch.tensor({_rows(truth['w_v'], 3)}, requires_grad=False)",
        "```", "",
        "Las proyecciones:", "",
        "```python",
        f"Q = torch.tensor({_rows(truth['q'])})",
        f"K = {_rows(truth['k'])}",
        "d_k = 2",
        "scaled_scores = Q @ K.T / np.sqrt(d_k)  # computed first, then listed",
        f"scaled_scores = np.array({_rows(truth['scaled'])})",
        f"attention_weights = np.array({_rows(truth['attn'], comments=True)})",
        f"output = np.asarray({_rows(truth['out'])})",
        "```", ""])


def _literal_numbers(text: str) -> int:
    return sum(len(nums) for _, content, _ in python_blocks(text)
               for _, _, nums in literals(content, ast.parse(content)))


def test_right_literals_are_verified_and_code_around_them_is_silent():
    text = _note(_truth())
    report = check_text(text, SCENARIO)
    assert report.wrong == [] and report.unknown == []
    # every number of every literal, and nothing else of the code (d_k = 2, the comments' t=0, np.float64)
    assert len(report.verified) == _literal_numbers(text) == 6 + 4 + 4 + 6 + 6 + 9 + 9 + 6


def test_a_wrong_digit_is_found_at_its_line_and_column_and_fix_rewrites_only_it(tmp_path):
    truth = _truth()
    right = _note(truth)
    w = f"{float(truth['attn'][1, 2]):.4f}"
    o = f"{float(truth['out'][2, 0]):.4f}"
    bad_w = w[:-1] + str((int(w[-1]) + 3) % 10)
    bad_o = "-" + o if not o.startswith("-") else o[1:]  # a sign lost or added
    lines = right.split("\n")
    lw = next(i for i, ln in enumerate(lines) if ln.startswith("attention_weights")) + 2  # row 1
    lo = next(i for i, ln in enumerate(lines) if ln.startswith("output")) + 3  # row 2
    assert lines[lw].count(w) == 1 and lines[lo].count(o) == 1
    lines[lw] = lines[lw].replace(w, bad_w)
    lines[lo] = lines[lo].replace("[" + o, "[" + bad_o)
    wrong_text = "\n".join(lines)
    # and K made up rather than computed (as heldout9's TLOB document does): every number of it wrong
    made_up = truth["k"] * 1.5 + 0.125
    wrong_text = wrong_text.replace(f"K = {_rows(truth['k'])}", f"K = {_rows(made_up)}")
    lk = next(i for i, ln in enumerate(lines) if ln.startswith("K = ")) + 1
    expect_k = [(lk + 1 + i, f"{float(made_up[i, j]):.4f}", f"{float(truth['k'][i, j]):.4f}")
                for i in range(3) for j in range(2)]
    assert all(a != b for _, a, b in expect_k)
    report = check_text(wrong_text, SCENARIO)
    assert sorted((r.line, r.text, r.failure()[1]) for r in report.wrong) == sorted(
        [(lw + 1, bad_w, w), (lo + 1, bad_o, o)] + expect_k)
    # the AST's place of each number is its place in the note: line and column
    _, content, starts = python_blocks(wrong_text)[1]
    found = {t: (ln, col) for _, _, nums in literals(content, ast.parse(content)) for t, ln, col in nums}
    at = starts[found[bad_w][0]] + found[bad_w][1]
    assert wrong_text[at:at + len(bad_w)] == bad_w and wrong_text.count("\n", 0, at) == lw
    note = tmp_path / "nota.md"
    note.write_text(wrong_text, encoding="utf-8")
    fixed = check_file(note, SCENARIO, fix="write")
    assert note.read_text(encoding="utf-8") == right  # only those characters changed
    assert fixed.wrong == [] and check_text(right, SCENARIO).wrong == []


def test_a_made_up_matrix_named_in_code_is_wrong_throughout_unless_another_example_works_there():
    """``Scores = np.array([..])`` whose every number differs from torch's (a note that wrote plausible numbers
    instead of computing them) is wrong number by number: the name says which tensor it is. The same literal in
    a section whose code gives other inputs (another example's X) gets no verdict."""
    truth = _truth()
    made_up = truth["scores"] * 0.5 + 0.25
    text = f"# Uno\n\n```python\nScores = np.array({_rows(made_up)})\n```\n"
    report = check_text(text, SCENARIO)
    assert sorted((r.line, r.text, r.failure()[1]) for r in report.wrong) == sorted(
        (5 + i, f"{float(made_up[i, j]):.4f}", f"{float(truth['scores'][i, j]):.4f}")
        for i in range(3) for j in range(3))
    other = truth["x"] * 2 + 1
    text = (f"# Uno\n\n```python\nX = np.array({_rows(truth['x'], 2)})\n```\n\n# Otro ejemplo\n\n```python\n"
            f"X = np.array({_rows(other, 2)})\nScores = np.array({_rows(made_up)})\n```\n")
    report = check_text(text, SCENARIO)
    assert report.wrong == [] and len(report.verified) == 6  # the first X


def test_negative_numbers_and_exponents_are_read_as_printed():
    """``1e-3`` is 0.001 to its one significant digit, ``-5e-1`` is -0.5; a wrong exponent is found and fixed in
    the note's own notation."""
    good = "```python\nW_V = np.array([[2.0, 1e-3], [5e-1, -1e0]])\nX = [[1, 5e-1], [-5e-1, 2], [0.25, -1]]\n```\n"
    report = check_text(good, SCENARIO)
    assert (len(report.verified), report.wrong, report.unknown) == (10, [], [])
    bad = good.replace("1e-3", "2e-3")
    report = check_text(bad, SCENARIO)
    assert [(r.line, r.text, r.failure()[1]) for r in report.wrong] == [(2, "2e-3", "0.001")]
    from attnwalk.check.fix import fixed_text

    again = fixed_text(bad, lambda t: check_text(t, SCENARIO))
    assert again == bad.replace("2e-3", "1e-03") and check_text(again, SCENARIO).wrong == []


def test_names_the_vocabulary_does_not_know_stay_silent():
    truth = _truth()
    for name in ("foo", "exp_values", "sum_exp", "q1", "grad_Q", "a"):
        text = f"```python\n{name} = np.array({_rows(truth['attn'] + 0.25)})\n```\n"
        report = check_text(text, SCENARIO)
        assert report.recs == [], name
    assert tensors_named("exp_values") == [] and tensors_named("attention_weights") == ["attn"]
    assert tensors_named("ESPERADO_SCORES_ESCALADOS") == ["scores_scaled"] and tensors_named("self.W_q") == ["w_q"]


def test_code_that_computes_loops_or_draws_random_data_stays_silent():
    truth = _truth()
    wrong = _rows(truth["q"] + 1)  # a literal of the right shape, every number wrong
    programs = [
        "Q = X @ W_Q\nK = X @ W_K\nscores = Q @ K.T / np.sqrt(2)\nweights = scores.softmax(-1)\n",
        "torch.manual_seed(0)\nQ = torch.randn(3, 2)\nK = torch.randn(3, 2)\n",
        f"for step in range(3):\n    Q = np.array({wrong})\n",
        f"Q = np.array({wrong})\nQ = Q @ W_Q  # the literal was X, not Q\n",
        f"Q = np.array({wrong})\nQ[0] = 0\n",
        f"Q = np.array({wrong}).T\n",
        f"Q = np.array({wrong}, ndmin=3)\n",
        "Q = np.array([[1.0, 2.0, 3.0]])\n",  # a shape that is no tensor's
    ]
    for code in programs:
        report = check_text(f"```python\n{code}```\n", SCENARIO)
        assert report.recs == [], code


def test_a_literal_after_its_computation_is_judged_and_one_before_a_reassignment_is_not():
    truth = _truth()
    text = f"```python\nscores = Q @ K.T\nscores = np.array({_rows(truth['scores'] + 0.5)})\n```\n"
    report = check_text(text, SCENARIO)
    assert len(report.wrong) == 9 and {r.failure()[0] for r in report.wrong} == {"scores"}
    text = f"```python\nscores = np.array({_rows(truth['scores'] + 0.5)})\nscores = scores / 2\n```\n"
    assert check_text(text, SCENARIO).recs == []


def test_a_notebook_code_cell_with_a_literal_is_checked_and_fixed_in_its_source(tmp_path):
    truth = _truth()
    w = [f"{x:.4f}" for x in truth["attn"][0].tolist()]
    bad = w[:2] + [w[2][:-1] + str((int(w[2][-1]) + 5) % 10)]
    src = [f"X = np.array({truth['x'].tolist()!r})\n", "# los pesos, fila t=0\n",
           f"weights = np.array([[{', '.join(bad)}],\n"]
    src += [f"                    [{', '.join(f'{x:.4f}' for x in row)}],\n" for row in truth["attn"][1:].tolist()]
    src[-1] = src[-1].rstrip(",\n") + "])\n"
    made_up = truth["k"] + 0.5  # K written, not computed (from the X above): every number wrong
    src += [f"K = torch.tensor({made_up.tolist()!r})"]
    nb = {"cells": [{"cell_type": "code", "execution_count": 1, "id": "c1", "metadata": {}, "outputs": [],
                     "source": src}], "metadata": {"attnwalk": SCENARIO}, "nbformat": 4, "nbformat_minor": 5}
    raw = json.dumps(nb, indent=1, sort_keys=True) + "\n"
    path = tmp_path / "pesos.ipynb"
    path.write_text(raw, encoding="utf-8")
    report = check_file(path)
    line = next(i for i, ln in enumerate(raw.split("\n"), 1) if bad[2] in ln)
    k_line = next(i for i, ln in enumerate(raw.split("\n"), 1) if "K = torch.tensor" in ln)
    assert [(r.line, r.text, r.failure()[1]) for r in report.wrong] == [(line, bad[2], w[2])] + [
        (k_line, repr(x), f"{y:.{len(repr(x).split('.')[1])}f}")
        for x, y in zip(made_up.reshape(-1).tolist(), truth["k"].reshape(-1).tolist())]
    assert len(report.verified) == 6 + 8
    check_file(path, fix="write")
    fixed = json.loads(path.read_text(encoding="utf-8"))["cells"][0]["source"]
    assert fixed[2] == src[2].replace(bad[2], w[2]) and fixed[:2] + fixed[3:-1] == src[:2] + src[3:-1]
    assert check_file(path).wrong == []


def test_blockquoted_and_non_ascii_lines_place_numbers_exactly():
    truth = _truth()
    q = [f"{x:.4f}" for x in truth["q"].reshape(-1).tolist()]
    bad = q[3][:-1] + str((int(q[3][-1]) + 1) % 10)
    text = ("> ```python\n> nota = 'проекции'; Q = np.array([[" + ", ".join(q[:2]) + "], [" + q[2] + ", " + bad
            + "], [" + ", ".join(q[4:]) + "]])\n> ```\n")
    report = check_text(text, SCENARIO)
    assert [(r.line, r.text, r.failure()[1]) for r in report.wrong] == [(2, bad, q[3])]
    from attnwalk.check.fix import fixed_text

    assert fixed_text(text, lambda t: check_text(t, SCENARIO)) == text.replace(bad, q[3])


def test_a_block_the_parser_cannot_take_is_no_traceback():
    """``ast.parse`` raises MemoryError on 100,000 nested minus signs and RecursionError on a 200,000-term sum:
    such a block is no program (read as text), never a crash."""
    for code in ("x = " + "-" * 100000 + "1", "x = 1" + "+1" * 200000):
        report = check_text(f"```python\n{code}\n```\n", SCENARIO)
        assert report.wrong == []


def _torch_print(m, dec: int = 4) -> str:
    rows = ["[" + ", ".join(f"{x:.{dec}f}" for x in r) + "]" for r in m.tolist()]
    return "tensor([" + ",\n        ".join(rows) + "])"


def test_printed_arrays_after_a_block_are_what_its_prints_name():
    """``print(scores)`` then ``print(K.shape)``: the output fence's one tensor is the scores (the line above it
    names K: read so, its right numbers were called wrong); a planted digit there is the scores' wrong number."""
    truth = _truth()
    s = truth["scores"]
    bad = f"{float(s[1, 1]):.4f}"
    worse = bad[:-1] + str((int(bad[-1]) + 2) % 10)
    out = _torch_print(s)
    assert out.count(bad) == 1
    text = ("```python\nscores = Q @ K.T\nprint(scores)\nprint(K.shape)\n```\n\n```text\n"
            + out.replace(bad, worse) + "\ntorch.Size([3, 2])\n```\n")
    report = check_text(text, SCENARIO)
    assert [(r.line, r.text, r.failure()) for r in report.wrong] == [(9, worse, ("scores", bad))]
    assert len(report.verified) == 8
    # a notebook's echo of the last bare name, printed by NumPy with no label anywhere near it
    w = truth["attn"]
    arr = "array([" + ",\n       ".join("[" + ", ".join(f"{x:.4f}" for x in r) + "]" for r in w.tolist()) + "])"
    text = f"```python\nattention_weights = softmax(scaled_scores)\nattention_weights\n```\n\n```\n{arr}\n```\n"
    report = check_text(text, SCENARIO)
    assert (len(report.verified), report.wrong) == (9, [])
    # two prints, one output of two tensors: each is its own; a loop's prints are left alone
    assert all(abs(a - b) > 1e-3 for a, b in zip(w.reshape(-1).tolist(), w.roll(1, 1).reshape(-1).tolist()))
    text = (f"```python\nprint(Q)\nprint(attention_weights)\n```\n\n```text\n{_torch_print(truth['q'])}\n"
            f"{_torch_print(w.roll(1, 1))}\n```\n")  # made up: each row rotated, summing to 1 still
    report = check_text(text, SCENARIO)
    assert len(report.verified) == 6 and len(report.wrong) == 9
    assert {r.failure()[0] for r in report.wrong} == {"attn"}


def test_another_examples_code_and_functions_that_print_stay_silent():
    """A unit test with its own inputs (X unlike the scenario's) and the expected output of those: no verdict on
    its output, though the next code comment would end another example's section. A function that prints what
    it is given: its output is not read as its parameter's name (``x``)."""
    truth = _truth()
    other = truth["x"] * 3
    for head, indent in (("", ""), ("def test_attention():\n", "    ")):
        text = (f"# Prueba\n\n```python\n{head}{indent}# inputs\n{indent}X = np.array({_rows(other, 2)})\n"
                f"{indent}# expected\n{indent}expected_output = np.array({_rows(truth['out'] + 1)})\n```\n")
        assert check_text(text, SCENARIO).wrong == [], head
    text = (f"```python\ndef show(x):\n    print(x)\n\nshow(Q)\n```\n\n```text\n{_torch_print(truth['q'])}\n```\n")
    report = check_text(text, SCENARIO)
    assert report.wrong == [] and not any(r.checks and r.checks[0][1] == "x" for r in report.recs)


def test_a_row_assigned_by_index_is_that_row():
    """``weights[1] = [..]`` is row 1 of the weights (0-based, as Python counts): a wrong digit there is found as
    that row's; ``Q[0] = [..]`` right is verified; a whole Q changed by such a row afterwards is no longer judged,
    nor a row assigned again."""
    truth = _truth()
    q, w = truth["q"], truth["attn"]
    row = [f"{x:.4f}" for x in w[1].tolist()]
    bad = row[2][:-1] + str((int(row[2][-1]) + 4) % 10)
    right0 = ", ".join(f"{x:.4f}" for x in q[0].tolist())
    text = (f"```python\nQ = np.zeros((3, 2))\nQ[0] = [{right0}]\nweights = np.zeros((3, 3))\n"
            f"weights[1] = np.array([{row[0]}, {row[1]}, {bad}])\n```\n")
    report = check_text(text, SCENARIO)
    assert [(r.line, r.text, r.failure()) for r in report.wrong] == [(5, bad, ("attn[1]", row[2]))]
    assert [(r.line, r.text) for r in report.verified] == [(3, t) for t in right0.split(", ")] + [
        (5, row[0]), (5, row[1])]
    text = f"```python\nQ = np.array({_rows(q + 1)})\nQ[0] = [{right0}]\nQ[0] = [9.0, 9.0]\n```\n"
    assert check_text(text, SCENARIO).recs == []


def test_weights_whose_rows_do_not_sum_to_one_are_not_sure_to_be_the_attention():
    """``weights = [[..]]`` holding projection weights (rows summing to anything) in a note whose attention matrix
    has the same shape: not called wrong as attention weights; made-up rows that do sum to 1 are."""
    truth = _truth()
    proj = [[0.5, -1.0, 2.0], [1.5, 0.25, 0.0], [0.125, 0.75, -0.5]]
    text = "```python\nweights = np.array(" + repr(proj) + ")\n```\n"
    assert check_text(text, SCENARIO).recs == []
    made_up = [[0.5, 0.25, 0.25], [0.2, 0.3, 0.5], [0.1, 0.1, 0.8]]
    text = "```python\nweights = np.array(" + repr(made_up) + ")\n```\n"
    report = check_text(text, SCENARIO)
    a = truth["attn"].reshape(-1).tolist()
    assert sorted(r.failure()[1] for r in report.wrong) == sorted(
        f"{y:.{len(repr(x).split('.')[1])}f}" for x, y in zip(sum(made_up, []), a)
        if abs(x - y) > 0.5 * 10 ** -len(repr(x).split(".")[1]))
    assert len(report.wrong) >= 8


def test_one_reader_of_identifiers_the_lenient_one_past_the_strict_one():
    from attnwalk.check.notations import identifier_tensor

    # names the strict reader reads as one tensor are that tensor for the printed-name reader too (each was None
    # there before: no phrase, a tie between "scaled" and "scores", a letter)
    for name, tensor in [("scaled_scores", "scores_scaled"), ("S", "scores"), ("A", "attn"), ("O", "out"),
                         ("W_out", "w_out"), ("attn_matrix", "attn"), ("dot_product", "scores"), ("w_qkv", "w_qkv")]:
        assert tensors_named(name) == [tensor] and identifier_tensor(name) == tensor, name
    # past it, the longest phrase, digits and other words allowed: a printed name, not a literal to judge
    for name, tensor in [("context_value4", "out"), ("attn_scores_softmax", "attn"), ("attention_weights_raw", "attn")]:
        assert tensors_named(name) != [tensor] and identifier_tensor(name) == tensor, name
