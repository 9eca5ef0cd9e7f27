"""The yolo engine against a real PyTorch copy of Ultralytics' Attention, and invariants."""

import numpy as np
import pytest
from conftest import assert_close_f64, ultralytics_attention, yolo_options
from hypothesis import given, settings

import attnwalk

torch = pytest.importorskip("torch", reason="torch is not installed on this machine: pip install torch==2.13.0")

COMPARED = ["x", "qkv", "q", "k", "v", "scores", "scores_scaled", "attn", "o", "pe", "o_pe", "out"]


@settings(max_examples=80, deadline=None)
@given(opts=yolo_options())
def test_trace_equals_ultralytics_module_in_float64(opts):
    trace = attnwalk.walk(**opts)
    ref = ultralytics_attention(trace)
    logit = float(np.abs(ref["scores_scaled"]).max())
    for name in COMPARED:
        after_softmax = COMPARED.index(name) >= COMPARED.index("attn")
        assert_close_f64(trace[name], ref[name], name, cond=logit if after_softmax else 1.0)


@pytest.mark.parametrize("seed", [0, 42, 7, 2**40 + 3])
@pytest.mark.parametrize("shape", [dict(h=3, w=3, dim=4, heads=2), dict(h=8, w=8, dim=64, heads=4),
                                   dict(h=1, w=2, dim=2, heads=1), dict(h=2, w=5, dim=6, heads=3, attn_ratio=1.0)])
def test_weights_are_torch_manual_seed_then_normal_in_order_qkv_proj_pe(seed, shape):
    trace = attnwalk.walk(seed=seed, **shape)
    torch.manual_seed(seed)
    for name in ("w_qkv", "w_proj", "w_pe"):
        expected = torch.empty(trace[name].shape).normal_(0, 0.02).numpy()
        assert np.array_equal(trace[name].astype(np.float32), expected), name
        assert np.array_equal(trace[name], expected.astype(np.float64)), name
    for name in ("b_qkv", "b_proj", "b_pe"):
        assert not trace[name].any()


def test_randint_and_normal_inputs_follow_the_weights_in_the_torch_stream():
    for kind, draw in [("randint", lambda s: torch.randint(-4, 5, s)), ("normal", lambda s: torch.randn(s))]:
        trace = attnwalk.walk(h=3, w=4, seed=9, input=kind)
        torch.manual_seed(9)
        for name in ("w_qkv", "w_proj", "w_pe"):
            torch.empty(trace[name].shape).normal_(0, 0.02)
        assert np.array_equal(trace["x"], draw((1, 4, 3, 4)).double().numpy()), kind


def test_ramp_input_is_one_two_three_in_bchw_order():
    x = attnwalk.walk(h=3, w=3, batch=2)["x"]
    assert np.array_equal(x.reshape(-1), np.arange(1, 73))
    assert x[0, 1, 0, 0] == 10 and x[1, 0, 0, 0] == 37


def test_seed_000_example_matches_float32_pytorch_to_the_printed_digit():
    """The 3x3 example of seed 000 as a PyTorch user runs it (float32): we agree to 4 decimals."""
    trace = attnwalk.walk(h=3, w=3, heads=2, seed=42, pe_on="o")
    ref32 = ultralytics_attention(trace, dtype="float32")
    for name in COMPARED:
        # float32 vs float64: far below half a unit of the 4th decimal.
        assert np.abs(trace[name] - ref32[name]).max() < 5e-6, name


@settings(max_examples=40, deadline=None)
@given(opts=yolo_options())
def test_softmax_invariants(opts):
    t = attnwalk.walk(**opts)
    attn, e = t["attn"], t["exp"]
    assert np.all(attn >= 0)
    np.testing.assert_allclose(attn.sum(-1), 1.0, rtol=0, atol=1e-12)
    # exp is taken after subtracting the row max: every row has a 1 and nothing above it.
    assert np.all(e <= 1.0) and np.allclose(e.max(-1), 1.0, rtol=0, atol=0)
    np.testing.assert_allclose(t["row_sum"], e.sum(-1), rtol=1e-15)
    np.testing.assert_allclose(t["row_max"], t["scores_scaled"].max(-1), rtol=0, atol=0)
    np.testing.assert_array_equal(t["o_pe"], t["o"] + t["pe"])


def test_large_scores_do_not_overflow():
    t = attnwalk.walk(h=4, w=4, dim=8, heads=1, init_std=3.0, input="ramp")
    assert np.isfinite(t["scores_scaled"]).all() and np.abs(t["scores_scaled"]).max() > 1000
    assert np.isfinite(t["attn"]).all()
    np.testing.assert_allclose(t["attn"].sum(-1), 1.0, atol=1e-12)


def test_pe_on_v_and_o_differ_only_from_pe_on():
    tv = attnwalk.walk(pe_on="v")
    to = attnwalk.walk(pe_on="o")
    for name in ("qkv", "attn", "o"):
        np.testing.assert_array_equal(tv[name], to[name])
    assert not np.allclose(tv["pe"], to["pe"])


def test_explicit_weights_and_input_replace_the_seeded_ones():
    w = {"w_qkv": np.eye(8, 4).reshape(8, 4, 1, 1), "b_proj": np.arange(4.0)}
    x = np.ones((1, 4, 3, 3))
    t = attnwalk.walk(weights=w, x=x)
    np.testing.assert_array_equal(t["w_qkv"], w["w_qkv"])
    np.testing.assert_array_equal(t["x"], x)
    ref = ultralytics_attention(t)
    assert_close_f64(t["out"], ref["out"], "out")
    with pytest.raises(ValueError, match="w_qkv"):
        attnwalk.walk(weights={"w_qkv": np.zeros((2, 2))})


def test_trace_names_shapes_and_axes_are_the_documented_api():
    t = attnwalk.walk(h=2, w=3, dim=4, heads=2, batch=2)
    expected = {
        "x": (2, 4, 2, 3), "w_qkv": (8, 4, 1, 1), "b_qkv": (8,), "w_proj": (4, 4, 1, 1), "b_proj": (4,),
        "w_pe": (4, 1, 3, 3), "b_pe": (4,), "qkv": (2, 8, 2, 3), "q": (2, 2, 1, 6), "k": (2, 2, 1, 6),
        "v": (2, 2, 2, 6), "scores": (2, 2, 6, 6), "scores_scaled": (2, 2, 6, 6), "row_max": (2, 2, 6),
        "exp": (2, 2, 6, 6), "row_sum": (2, 2, 6), "attn": (2, 2, 6, 6), "o": (2, 4, 2, 3), "pe": (2, 4, 2, 3),
        "o_pe": (2, 4, 2, 3), "out": (2, 4, 2, 3),
    }
    assert t.names() == list(expected)
    for name, shape in expected.items():
        assert t.steps[name].shape == shape, name
        assert len(t.steps[name].axes) == len(shape)
    assert t.steps["attn"].axes == ("batch", "head", "query", "key")


def test_recorded_steps_do_not_alias_each_other():
    t = attnwalk.walk()
    before = t["qkv"].copy()
    t["q"][...] = 123.0
    np.testing.assert_array_equal(t["qkv"], before)


def test_large_trace_on_threads_equals_torch_and_the_unblocked_softmax(monkeypatch):
    # 2 heads x 1024^2 scores: the softmax runs block by block on 2 threads taking blocks as they come
    monkeypatch.setenv("ATTNWALK_THREADS", "2")
    trace = attnwalk.walk(h=32, w=32, dim=32, heads=2, input="normal", seed=3)
    assert trace["scores"].size > 1 << 20
    ref = ultralytics_attention(trace)
    logit = float(np.abs(ref["scores_scaled"]).max())
    for name in COMPARED:
        assert_close_f64(trace[name], ref[name], name, cond=logit if name in COMPARED[7:] else 1.0)
    s = trace["scores"] * trace.derived["scale"]
    e = np.exp(s - s.max(-1, keepdims=True))
    assert np.array_equal(trace["scores_scaled"], s) and np.array_equal(trace["exp"], e)
    assert np.array_equal(trace["attn"], e / e.sum(-1, keepdims=True))  # blocking changes no bit
    v, attn = trace["v"], trace["attn"]
    np.testing.assert_allclose(trace["o"].reshape(v.shape), v @ np.swapaxes(attn, -2, -1), rtol=1e-13, atol=1e-15)
