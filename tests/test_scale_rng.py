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
