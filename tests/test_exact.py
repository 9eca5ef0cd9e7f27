"""Exact mode: sympy closed forms equal the float64 engine, and the hand example's true values."""

import subprocess
import sys

import numpy as np
import pytest
import sympy as sp

import attnwalk
from attnwalk import exact

HAND = dict(variant="sdpa", source="columns", x=[[1, 0, 1, 2], [2, 1, 0, 2], [3, 0, 1, 2], [4, 1, 0, 2]],
            q_cols=[0], k_cols=[1], v_cols=[2, 3], heads=1, decimals=6)


def test_hand_example_closed_forms_are_the_true_values():
    t = attnwalk.walk(**HAND)
    cf = exact.closed_forms(t)
    e = sp.E
    for i in range(4):
        s = i + 1  # scores of row i: [0, i+1, 0, i+1]
        den = 2 + 2 * sp.exp(s)
        assert sp.simplify(cf.attn[0][i][0].expr - 1 / den) == 0
        assert sp.simplify(cf.attn[0][i][1].expr - sp.exp(s) / den) == 0
        assert sp.simplify(cf.o[0][i][0].expr - 2 / den) == 0 and cf.o[0][i][1].expr == 2
    assert cf.attn[0][0][0].tex() == r"\frac{1}{2 + 2 e}"
    # 1/(2 + 2e) = 0.134471...; seed 004 printed 0.134366 (1/7.436563656 is 0.134471, not 0.134366).
    assert f"{float((1 / (2 + 2 * e)).evalf(30)):.6f}" == "0.134471"
    assert f"{t['attn'][0, 0, 0, 0]:.6f}" == "0.134471"
    assert f"{t['out'][0, 0, 0]:.6f}" == "0.268941"  # seed 004 printed 0.268732


CASES = [
    HAND,
    dict(variant="sdpa", tokens=3, dim=2, heads=1, seed=1, mask="causal", mask_fill="-10000"),
    dict(variant="sdpa", tokens=4, dim=4, heads=2, seed=3, mask="causal", mask_fill="-1e9"),
    dict(variant="sdpa", tokens=2, kv_tokens=3, dim=2, heads=1, q=[["1/2", 1], [0, "-3/4"]],
         k=[[1, 0], [0.1, 2], [-1, 1]], v=[[1, 2, 3], [0, 1, 0], [2, 2, 2]]),
    dict(variant="sdpa", tokens=3, kv_tokens=2, dim=2, heads=1, mask="padding:1", seed=5),
    dict(variant="sdpa", source="project", x=[[1, 2], [0, 1], [2, -1]], dim=2, heads=1,
         w_q=[[1, 0], [1, 1]], w_k=[[0, 1], [1, 0]], w_v=[[2, 0], [0, "1/2"]]),
]


@pytest.mark.parametrize("opts", CASES)
def test_closed_forms_equal_the_float64_engine(opts):
    t = attnwalk.walk(**opts)
    assert t.derived["exact"]
    cf = exact.closed_forms(t)
    heads = t.config["heads"]
    n, m = t["attn"].shape[-2:]
    for h in range(heads):
        for i in range(n):
            for j in range(m):
                want = t["attn"][0, h, i, j]
                assert abs(cf.attn[h][i][j].value() - want) <= 1e-15 + 1e-14 * abs(want), (h, i, j)
                assert abs(float(cf.scaled[h][i][j].evalf(30)) - t["scores_scaled"][0, h, i, j]) <= 1e-13
            for c in range(t["o"].shape[-1]):
                want = t["o"][0, h, i, c]
                assert abs(cf.o[h][i][c].value() - want) <= 1e-14 * max(1, abs(want)), (h, i, c)
            # Rows sum to 1 exactly: the numerators add up to the common denominator.
            assert sp.expand(sp.Add(*(f.num for f in cf.attn[h][i])) - cf.den[h][i]) == 0


def test_fully_masked_row_is_exactly_zero_with_minus_inf():
    t = attnwalk.walk(variant="sdpa", tokens=2, kv_tokens=2, dim=2, heads=1, mask="padding:2", seed=1)
    cf = exact.closed_forms(t)
    assert all(f.expr == 0 for row in cf.attn[0] for f in row) and all(f.expr == 0 for row in cf.o[0] for f in row)


def test_normal_draws_and_mha_are_not_exact():
    assert not attnwalk.walk(variant="sdpa", input="normal").derived["exact"]
    assert not attnwalk.walk(variant="sdpa", source="project").derived["exact"]  # random weights
    assert not attnwalk.walk(variant="mha").derived["exact"]


def test_yolo_and_inexact_renders_never_import_sympy():
    code = ("import sys; from attnwalk.cli import main; main(['render', '--variant', 'sdpa', '--input', 'normal',"
            " '-o', '/dev/null']); main(['render', '--variant', 'mha', '-o', '/dev/null']);"
            " print(sorted(m for m in ('torch', 'sympy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_exact_values_round_like_the_engine():
    t = attnwalk.walk(**HAND)
    cf = exact.closed_forms(t)
    got = np.array([[f.value() for f in row] for row in cf.attn[0]])
    np.testing.assert_allclose(got, t["attn"][0, 0], rtol=0, atol=1e-16)


def test_finite_mask_fill_never_reaches_cancel_with_huge_exponents(monkeypatch):
    """exp(-1e9) from a finite fill must not reach sympy's cancel (a degree-1e9 polynomial in e)."""
    from attnwalk.render import render

    real_cancel = sp.cancel

    def guarded_cancel(expr, *args, **kwargs):
        huge = [a for a in expr.atoms(sp.exp) if a.args[0].is_number and abs(a.args[0]) > 64]
        assert not huge, f"cancel called on {huge}"
        return real_cancel(expr, *args, **kwargs)

    monkeypatch.setattr(sp, "cancel", guarded_cancel)
    for fill in ("-1e9", "-10000"):
        trace = attnwalk.walk(variant="sdpa", tokens=3, dim=4, heads=1, mask="padding:1", mask_fill=fill)
        md = render(trace, "md", "en")
        assert "PyTorch" in md
        forms = exact.closed_forms(trace)
        for i in range(3):
            for c in range(trace["o"].shape[-1]):
                value = float(sp.N(forms.o[0][i][c].expr, 30))
                assert abs(value - trace["o"][0, 0, i, c]) < 1e-12
