"""``rng = "numpy-legacy"`` against real ``np.random.seed`` / ``randn`` calls written out as a
hand-written NumPy note makes them, and the scale a note's text shows (``scale`` key)."""

import numpy as np
import pytest

import attnwalk
from attnwalk.config import RNGS
from attnwalk.errors import ConfigError


def test_rngs_lists_numpy_legacy():
    assert RNGS == ("torch", "numpy", "numpy-legacy")


@pytest.mark.parametrize("seed", [0, 7, 42, 2**32 - 1])
def test_sdpa_direct_draws_q_k_v_in_order(seed):
    np.random.seed(seed)
    q = np.random.randn(3, 4)
    k = np.random.randn(5, 4)
    v = np.random.randn(5, 4)
    t = attnwalk.walk(variant="sdpa", rng="numpy-legacy", seed=seed, input="normal", tokens=3, kv_tokens=5,
                      dim=4, heads=1)
    np.testing.assert_array_equal(t["q"].reshape(q.shape), q)
    np.testing.assert_array_equal(t["k"].reshape(k.shape), k)
    np.testing.assert_array_equal(t["v"].reshape(v.shape), v)
    scores = q @ k.T / np.sqrt(4)
    weights = np.exp(scores - scores.max(1, keepdims=True))
    weights /= weights.sum(1, keepdims=True)
    np.testing.assert_allclose(t["attn"].reshape(weights.shape), weights, rtol=1e-12)


def test_sdpa_direct_randint_and_batch():
    np.random.seed(3)
    q = np.random.randint(-4, 5, size=(2, 3, 4))
    k = np.random.randint(-4, 5, size=(2, 3, 4))
    v = np.random.randint(-4, 5, size=(2, 3, 4))
    t = attnwalk.walk(variant="sdpa", rng="numpy-legacy", seed=3, input="randint", tokens=3, dim=4, batch=2,
                      heads=1)
    for name, want in (("q", q), ("k", k), ("v", v)):
        np.testing.assert_array_equal(t[name].reshape(want.shape), want)


def test_sdpa_project_draws_x_then_w_q_w_k_w_v_as_x_at_w():
    np.random.seed(1)
    x = np.random.randn(3, 4)
    w_q = np.random.randn(4, 4)
    w_k = np.random.randn(4, 4)
    w_v = np.random.randn(4, 4)
    t = attnwalk.walk(variant="sdpa", rng="numpy-legacy", seed=1, input="normal", tokens=3, dim=4,
                      source="project", init_std=1.0, heads=1)
    np.testing.assert_array_equal(t["x"][0], x)
    np.testing.assert_allclose(t["q"].reshape(3, 4), x @ w_q, rtol=1e-12)
    np.testing.assert_allclose(t["k"].reshape(3, 4), x @ w_k, rtol=1e-12)
    np.testing.assert_allclose(t["v"].reshape(3, 4), x @ w_v, rtol=1e-12)
    np.testing.assert_array_equal(t["w_q"], w_q.T)  # the trace keeps nn.Linear's (out, in)


def test_sdpa_project_init_std_scales_randn():
    np.random.seed(5)
    x = np.random.randint(-4, 5, size=(3, 4))
    w_q = np.random.randn(4, 4) * 0.5
    t = attnwalk.walk(variant="sdpa", rng="numpy-legacy", seed=5, tokens=3, dim=4, source="project", init_std=0.5)
    np.testing.assert_array_equal(t["x"][0], x)
    np.testing.assert_array_equal(t["w_q"], w_q.T)


def test_mha_draws_in_its_torch_order_with_randn():
    D, L = 4, 3
    np.random.seed(11)
    w_qkv = np.random.randn(3 * D, D) * 0.3
    b_qkv = np.random.randn(3 * D) * 0.3
    w_out = np.random.randn(D, D) * 0.3
    b_out = np.random.randn(D) * 0.3
    x = np.random.randn(L, D)
    t = attnwalk.walk(variant="mha", rng="numpy-legacy", seed=11, input="normal", tokens=L, dim=D, heads=2,
                      init_std=0.3)
    for name, want in (("w_qkv", w_qkv), ("b_qkv", b_qkv), ("w_out", w_out), ("b_out", b_out)):
        np.testing.assert_array_equal(t[name], want)
    np.testing.assert_array_equal(t["x"][0], x)
    np.testing.assert_allclose(t["qkv"][0], x @ w_qkv.T + b_qkv, rtol=1e-12)


def test_mha_without_bias_draws_no_bias():
    np.random.seed(2)
    w_qkv = np.random.randn(12, 4) * 0.02
    w_out = np.random.randn(4, 4) * 0.02
    x = np.random.randint(-4, 5, size=(3, 4))
    t = attnwalk.walk(variant="mha", rng="numpy-legacy", seed=2, tokens=3, dim=4, heads=2, bias=False)
    np.testing.assert_array_equal(t["w_qkv"], w_qkv)
    np.testing.assert_array_equal(t["w_out"], w_out)
    np.testing.assert_array_equal(t["x"][0], x)


def test_yolo_draws_weights_then_input():
    np.random.seed(4)
    w_qkv = np.random.randn(8, 4, 1, 1) * 0.02
    w_proj = np.random.randn(4, 4, 1, 1) * 0.02
    w_pe = np.random.randn(4, 1, 3, 3) * 0.02
    x = np.random.randn(1, 4, 3, 3)
    t = attnwalk.walk(rng="numpy-legacy", seed=4, input="normal")
    for name, want in (("w_qkv", w_qkv), ("w_proj", w_proj), ("w_pe", w_pe), ("x", x)):
        np.testing.assert_array_equal(t[name], want)


def test_numpy_legacy_seed_must_fit_np_random_seed():
    with pytest.raises(ConfigError) as e:
        attnwalk.walk(variant="sdpa", rng="numpy-legacy", seed=2**32)
    assert "--seed" in str(e.value) and "4294967295" in str(e.value)


def test_cli_rng_help_lists_numpy_legacy():
    from typer.testing import CliRunner

    from attnwalk.cli import app

    out = CliRunner().invoke(app, ["render", "--help"], env={"COLUMNS": "200"}).output
    assert "numpy-legacy" in out


# ------------------------------------------------------------- the scale a note's text shows

SCALES = [("none", 1.0), (0.3, 0.3), (0.125, 0.125), ("sqrt_dk", 0.5)]


def _scale_note(variant: str, scale, lang: str, **extra) -> tuple:
    from attnwalk.render import render

    t = attnwalk.walk(variant=variant, scale=scale, lang=lang, tokens=3, dim=8, heads=2, input="normal", seed=3,
                      **extra)
    return t, render(t, "md", lang)


@pytest.mark.parametrize("lang", ["vi", "en"])
@pytest.mark.parametrize("scale,value", SCALES)
def test_sdpa_text_writes_the_scale_used(scale, value, lang):
    t, md = _scale_note("sdpa", scale, lang)
    assert t.derived["scale"] == value
    # the numbers use that scale: scaled scores are the scores times it (d_k = 4 here)
    np.testing.assert_allclose(t["scores_scaled"], t["scores"] * value, rtol=1e-15)
    formula = next(line for line in md.splitlines() if line.startswith(r"\text{Attention}(Q, K, V)"))
    if scale == "none":
        assert r"\text{softmax}\left(Q K^T\right) V" in formula
        assert r"\sqrt" not in md.split("## 5.")[1].split("## 6.")[0]
        assert "F.scaled_dot_product_attention(q, k, v, scale=1)" in md
    elif scale == "sqrt_dk":
        assert r"\frac{Q K^T}{\sqrt{d_k}}" in formula
        assert "scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)" in md
    else:
        assert rf"\text{{softmax}}\left(Q K^T \cdot {scale}\right) V" in formula
        assert rf"\hat{{S}}_h = S_h \cdot {scale}" in md
        assert f"scale={scale})" in md and r"\sqrt{d_k}" not in formula


@pytest.mark.parametrize("lang", ["vi", "en"])
@pytest.mark.parametrize("scale,value", SCALES)
def test_mha_text_writes_the_scale_used(scale, value, lang):
    t, md = _scale_note("mha", scale, lang)
    np.testing.assert_allclose(t["scores_scaled"], t["scores"] * value, rtol=1e-15)
    if scale == "none":
        assert r"$A_h = \text{softmax}(Q_h K_h^T)$" in md
        assert r"\cdot \text{scale}" not in md and "self.scale = 1.0" in md
    else:
        assert r"$A_h = \text{softmax}(Q_h K_h^T \cdot \text{scale})$" in md
        want = "(dim // num_heads) ** -0.5" if scale == "sqrt_dk" else str(scale)
        assert f"self.scale = {want}\n" in md


@pytest.mark.parametrize("variant", ["sdpa", "mha"])
@pytest.mark.parametrize("lang", ["vi", "en"])
@pytest.mark.parametrize("scale", ["none", 0.3])
def test_scaled_notes_check_clean_and_lint(variant, lang, scale, tmp_path, capsys):
    from attnwalk.cli import main
    from tests.conftest import assert_markdown_safe

    _, md = _scale_note(variant, scale, lang, mask="causal")
    assert_markdown_safe(md)
    path = tmp_path / "note.md"
    path.write_text(md, encoding="utf-8")
    assert main(["check", str(path)]) == 0, capsys.readouterr()
    assert "0 wrong" in capsys.readouterr().out
    from attnwalk.check import check_text

    report = check_text(md)
    assert report.failure_lines() == [] and len(report.verified) > 50


def test_scaled_notes_formulas_parse_in_katex():
    import shutil

    from tests.test_katex import KATEX, formulas, katex_errors

    if shutil.which("node") is None or not KATEX.is_dir():
        pytest.skip("KaTeX is not installed here: run `npm install --prefix .ci/node katex@0.16` (CI does)")
    items = [f for variant in ("sdpa", "mha") for lang in ("vi", "en") for scale in ("none", 0.3, "sqrt_dk")
             for f in formulas(_scale_note(variant, scale, lang, mask="causal")[1])]
    assert len(items) > 100
    errors = katex_errors(items)
    assert not errors, "\n".join(errors[:10])


def test_uniform_input_is_np_random_rand_in_the_note_order():
    """``input = "uniform"``: x = np.random.rand(...), then the weights' randn, as a NumPy note writes it."""
    np.random.seed(7)
    x = np.random.rand(3, 4)
    w_q = np.random.randn(4, 4)
    w_k = np.random.randn(4, 4)
    w_v = np.random.randn(4, 4)
    t = attnwalk.walk(variant="sdpa", rng="numpy-legacy", seed=7, input="uniform", tokens=3, dim=4,
                      source="project", init_std=1.0, heads=1)
    np.testing.assert_array_equal(t["x"][0], x)
    np.testing.assert_allclose(t["q"].reshape(3, 4), x @ w_q, rtol=1e-12)
    np.testing.assert_allclose(t["k"].reshape(3, 4), x @ w_k, rtol=1e-12)
    np.testing.assert_allclose(t["v"].reshape(3, 4), x @ w_v, rtol=1e-12)


def test_uniform_direct_q_k_v_and_yolo_input():
    np.random.seed(0)
    q, k, v = np.random.rand(2, 3), np.random.rand(4, 3), np.random.rand(4, 3)
    t = attnwalk.walk(variant="sdpa", rng="numpy-legacy", seed=0, input="uniform", tokens=2, kv_tokens=4, dim=3,
                      heads=1)
    for name, want in (("q", q), ("k", k), ("v", v)):
        np.testing.assert_array_equal(t[name].reshape(want.shape), want)
    y = attnwalk.walk(rng="numpy-legacy", seed=4, input="uniform")
    assert y["x"].min() >= 0 and y["x"].max() < 1  # rand's [0, 1), drawn after the weights


def test_uniform_needs_numpy_legacy_and_is_not_rendered(tmp_path):
    from typer.testing import CliRunner

    from attnwalk.cli import app

    res = CliRunner().invoke(app, ["render", "--variant", "sdpa", "--input", "uniform"])
    assert res.exit_code == 2 and "needs --rng numpy-legacy" in res.output and "Traceback" not in res.output
    res = CliRunner().invoke(app, ["render", "--variant", "sdpa", "--input", "uniform", "--rng", "numpy-legacy",
                                   "-o", str(tmp_path / "n.md")])
    assert res.exit_code == 2 and "allowed for Markdown" in res.output and not (tmp_path / "n.md").exists()
