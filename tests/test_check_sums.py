"""Worked sums are dot products: each factor, partial product and result of a written-out sum is
checked against torch, and ``--fix`` rewrites them together so the line's arithmetic stays true."""

import math

import pytest

from attnwalk.check import check_file, check_text

torch = pytest.importorskip("torch", reason="torch is not installed on this machine: pip install torch==2.13.0")

Q = [[1.0, 2.0], [0.0, 1.0], [1.0, 1.0]]
K = [[0.5, -1.0], [1.0, 0.0], [0.0, 2.0]]
V = [[1.0, 0.0], [0.0, 1.0], [2.0, 2.0]]
OPTS = dict(variant="sdpa", source="direct", heads=1, q=Q, k=K, v=V)


def torch_values():
    q, k, v = (torch.tensor(m, dtype=torch.float64) for m in (Q, K, V))
    scores = q @ k.T
    attn = torch.softmax(scores / math.sqrt(2), dim=-1)
    return scores, attn, attn @ v


def f(x, d=4):
    return f"{float(x):.{d}f}"


def wrong_set(report):
    return sorted((r.line, r.text) for r in report.wrong)


def note_lines():
    """A worked note in several people's spellings, every number right (computed by torch)."""
    s, a, o = torch_values()
    sc = s / math.sqrt(2)
    return [
        "# Worked sums",
        "",
        f"- score(q1,k2) = 1*1 + 2*0 = {f(s[0, 1], 0)}",
        f"- S_0[2, 0] = 1·0.5 + 1·(-1) = {f(s[2, 0], 1)}",
        f"- s_{{01}} = (1·1 + 2·0)/\\sqrt{{2}} = {f(sc[0, 1])}",
        f"- O_0[0, 1] = {f(a[0, 0])}·0 + {f(a[0, 1])}·1 + {f(a[0, 2])}·2"
        f" = 0 + {f(a[0, 1] * 1)} + {f(a[0, 2] * 2)} = {f(o[0, 1])}",
        "",
    ]


def test_right_sums_are_verified_and_nothing_is_wrong():
    report = check_text("\n".join(note_lines()), OPTS)
    assert report.wrong == []
    assert len(report.verified) >= 20


@pytest.mark.parametrize("line, old, new, wrong", [
    # K[1, 1] is 0: the factor is wrong, and so is the line's arithmetic (1·1 + 2·0.5 is not 1)
    (2, "2*0", "2*0.5", ["0.5", "1"]),
    (4, "2·0", "2·0.5", ["0.5", "0.7071"]),
    (5, "·1 +", "·3 +", ["1.8590", "3"]),  # V[1, 1] is 1
    (5, "= 0 + ", "= 0.1 + ", ["0.1", "1.8590"]),  # the partial product A[0, 0]·V[0, 1] is 0
    (5, "= 1.8590", "= 1.8591", ["1.8591"]),  # the result alone
])
def test_one_wrong_operand_product_or_result_is_reported_and_fixed(tmp_path, line, old, new, wrong):
    lines = note_lines()
    assert old in lines[line]
    lines[line] = lines[line].replace(old, new, 1)
    note = tmp_path / "n.md"
    note.write_text("\n".join(lines), encoding="utf-8")
    assert wrong_set(check_file(note, OPTS)) == sorted((line + 1, t) for t in wrong)
    assert check_file(note, OPTS, fix="write").wrong == []
    fixed = note.read_text(encoding="utf-8").split("\n")
    assert len(fixed) == len(lines) and fixed[:line] == lines[:line] and fixed[line + 1:] == lines[line + 1:]


def test_a_wrong_result_and_the_wrong_alphas_are_fixed_together(tmp_path):
    s, a, o = torch_values()
    lines = note_lines()
    # the sum written with weights off in the 3rd decimal: factors, products and result all wrong
    bad = [round(float(x) + 0.002, 4) for x in a[0]]
    lines[5] = (f"- O_0[0, 1] = {bad[0]:.4f}·0 + {bad[1]:.4f}·1 + {bad[2]:.4f}·2"
                f" = 0 + {bad[1]:.4f} + {2 * bad[2]:.4f} = {bad[1] + 2 * bad[2]:.4f}")
    note = tmp_path / "n.md"
    note.write_text("\n".join(lines), encoding="utf-8")
    wrong = wrong_set(check_file(note, OPTS))
    printed = {f"{bad[1]:.4f}", f"{bad[2]:.4f}", f"{2 * bad[2]:.4f}", f"{bad[1] + 2 * bad[2]:.4f}"}
    assert {t for _, t in wrong} == printed - {"0.0000"} | ({f"{bad[0]:.4f}"} - {"0.0000"})
    report = check_file(note, OPTS, fix="write")
    assert report.wrong == []
    fixed = note.read_text(encoding="utf-8").split("\n")
    assert len(fixed) == len(lines)
    assert fixed[5] == (f"- O_0[0, 1] = {f(a[0, 0])}·0 + {f(a[0, 1])}·1 + {f(a[0, 2])}·2"
                        f" = 0 + {f(a[0, 1])} + {f(a[0, 2] * 2)} = {f(o[0, 1])}")


def test_common_factor_form_checks_the_weights_inside():
    """``2 · (α0 + α1 + α2)`` when every V[j, c] is 2: 2 is V, the terms are the weights of the row."""
    opts = dict(OPTS, v=[[2.0, 0.0], [2.0, 1.0], [2.0, 2.0]])
    _, a, _ = torch_values()
    ok = f"- O_0[1, 0] = 2 · ({f(a[1, 0])} + {f(a[1, 1])} + {f(a[1, 2])}) = 2 · 1 = 2.0000"
    assert check_text(ok, opts).wrong == []
    bad = ok.replace(f(a[1, 1]), f(float(a[1, 1]) + 0.01), 1)
    wrong = wrong_set(check_text(bad, opts))
    # the weight, and the line's arithmetic: 2 · (a sum that is not 1) is not 2 · 1
    assert wrong == [(1, f(float(a[1, 1]) + 0.01)), (1, "2.0000")]


def test_a_sum_that_is_not_this_dot_product_reports_nothing():
    """A misread label must not accuse the operands: most of them disagree, so none is judged."""
    text = "- O_0[0, 1] = 0.9·5 + 0.8·7 + 0.7·3 = 12.2"
    report = check_text(text, OPTS)
    assert [r.text for r in report.wrong] == ["12.2"]  # the result is still the label's value
