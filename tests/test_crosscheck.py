"""attnwalk crosscheck: every recorded tensor against PyTorch, broken engines caught, one-line errors."""

import dataclasses
import subprocess
import sys

import numpy as np
import pytest
from conftest import yolo_options
from hypothesis import given, settings
from hypothesis import strategies as st

import attnwalk
import attnwalk.engine.yolo as yolo_engine
from attnwalk.cli import main
from attnwalk.crosscheck import (
    RTOL,
    crosscheck,
    format_table,
    resolve_device,
    tf32_off,
    yolo_attention_class,
)
from attnwalk.errors import ConfigError
from attnwalk.trace import Trace

torch = pytest.importorskip("torch", reason="torch is not installed on this machine: pip install torch==2.13.0 "
                                            "(attnwalk crosscheck needs it)")

SEED_000 = ["--h", "3", "--w", "3", "--heads", "2", "--seed", "42", "--device", "cpu"]


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def table_rows(out: str) -> dict[str, list[str]]:
    """The table's body as {tensor name: its cells}, read from the printed text."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("tensor "))
    return {line.split()[0]: line.split() for line in lines[start + 1 : -1]}


def failing(result) -> list[str]:
    return [r["name"] for r in result["rows"] if not r["ok"]]


# ---------------------------------------------------------------- done-when cases


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_cli_seed_000_passes_and_its_table_names_every_recorded_tensor(capsys, dtype):
    code, out, err = run(capsys, "crosscheck", *SEED_000, "--dtype", dtype)
    assert code == 0 and err == "", err
    header = out.splitlines()[1]
    assert f"device cpu | dtype {dtype} | TF32 n/a" in header
    rows = table_rows(out)
    names = attnwalk.walk(h=3, w=3, heads=2, seed=42).names()
    assert list(rows) == names
    assert {"x", "qkv", "q", "k", "v", "scores", "scores_scaled", "row_max", "exp", "row_sum", "attn", "o", "pe",
            "o_pe", "out", "w_qkv", "b_qkv", "w_proj", "b_proj", "w_pe", "b_pe"} <= set(rows)
    assert all(cells[-1] == "ok" for cells in rows.values())
    for cells in rows.values():  # max rel err and step rel err columns within the dtype's tolerance
        assert float(cells[-3]) <= RTOL[dtype] and float(cells[-2]) <= RTOL[dtype]
    assert out.splitlines()[-1] == f"PASS: all {len(names)} tensors agree"


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("input", ["ramp", "normal"])
def test_8x8_map_dim_64_heads_4_passes(dtype, input):
    trace = attnwalk.walk(h=8, w=8, dim=64, heads=4, input=input)
    result = crosscheck(trace, dtype=dtype)
    assert result["passed"], format_table(result)
    assert [r["name"] for r in result["rows"]] == trace.names()


def test_float64_errors_are_a_few_ulps_not_just_under_the_tolerance():
    """The verdict is not loose: float64 torch and the engine differ by rounding only (< 1e-14)."""
    result = crosscheck(attnwalk.walk(h=4, w=5, dim=16, heads=4, input="normal", init_std=0.3), dtype="float64")
    assert max(r["max_rel"] for r in result["rows"]) < 1e-14
    assert max(r["step_rel"] for r in result["rows"]) < 1e-14


def test_float32_errors_are_reported_honestly_not_zero():
    """float32 rounding shows up in the table (abs errors > 0) while staying within its tolerance."""
    result = crosscheck(attnwalk.walk(h=4, w=4, dim=8, heads=2, input="normal"), dtype="float32")
    rows = {r["name"]: r for r in result["rows"]}
    assert result["passed"]
    assert rows["qkv"]["max_abs"] > 0 and rows["out"]["max_abs"] > 0
    assert 1e-9 < rows["scores"]["step_rel"] < RTOL["float32"]


# ---------------------------------------------------------------- a grid of shapes (hypothesis)


@settings(max_examples=60, deadline=None)
@given(opts=yolo_options(max_batch=3))
def test_every_tensor_agrees_with_torch_over_a_grid_of_shapes(opts):
    trace = attnwalk.walk(**opts)
    for dtype in ("float64", "float32"):
        result = crosscheck(trace, dtype=dtype)
        assert result["passed"], f"{opts}\n{format_table(result)}"
        assert [r["name"] for r in result["rows"]] == trace.names()
        assert all(r["max_rel"] <= RTOL[dtype] and r["step_rel"] <= RTOL[dtype] for r in result["rows"])


# ---------------------------------------------------------------- broken engines are caught and named


@pytest.mark.parametrize("dtype, size", [("float64", 1e-9), ("float32", 1e-3)])
@pytest.mark.parametrize("name", ["qkv", "q", "scores", "scores_scaled", "row_max", "exp", "row_sum", "attn", "o",
                                  "pe", "o_pe", "out"])
def test_a_perturbed_step_fails_and_is_named_first(name, dtype, size):
    trace = attnwalk.walk(h=3, w=3, heads=2, seed=42, input="normal")
    data = trace[name].copy()  # a copy: q, k, v are views of qkv in the trace
    flat = np.unravel_index(np.argmax(np.abs(data)), data.shape)
    data[flat] += size * max(1.0, abs(data[flat]))
    trace.steps[name] = dataclasses.replace(trace.steps[name], data=data)
    result = crosscheck(trace, dtype=dtype)
    assert not result["passed"]
    assert failing(result)[0] == name
    assert f"first at {name}:" in format_table(result).splitlines()[-1]


def test_a_flipped_pe_kernel_in_the_engine_fails_at_pe(monkeypatch):
    """A real bug: convolution (flipped kernel) where Conv2d cross-correlates; only seen from pe on."""
    original = yolo_engine.depthwise3x3
    monkeypatch.setattr(yolo_engine, "depthwise3x3", lambda x, w, b: original(x, w[..., ::-1, ::-1], b))
    result = crosscheck(attnwalk.walk(h=3, w=4, heads=2, input="normal"), dtype="float32")
    assert failing(result)[0] == "pe"
    assert "qkv" not in failing(result) and "attn" not in failing(result)


def test_attn_instead_of_its_transpose_in_the_engine_fails_at_o(monkeypatch):
    """o = v · attn instead of v · attnᵀ: attn itself is right, the step after it is named."""
    original = yolo_engine.record_softmax
    monkeypatch.setattr(yolo_engine, "record_softmax", lambda *a, **k: np.swapaxes(original(*a, **k), -2, -1))
    result = crosscheck(attnwalk.walk(h=3, w=3, heads=2, seed=42), dtype="float64")
    assert failing(result)[0] == "o" and "attn" not in failing(result)


def test_cli_exits_1_and_names_the_step_when_the_engine_is_broken(capsys, monkeypatch):
    original = yolo_engine.conv1x1
    monkeypatch.setattr(yolo_engine, "conv1x1", lambda x, w, b: original(x, w, b) + 1e-6)
    code, out, err = run(capsys, "crosscheck", *SEED_000)
    assert code == 1 and err == ""
    assert table_rows(out)["qkv"][-1] != "ok"
    assert out.splitlines()[-1].startswith("FAIL: ") and "first at qkv:" in out


def test_a_tensor_torch_does_not_compute_fails_and_a_missing_one_is_named():
    trace = attnwalk.walk(h=2, w=2)
    trace.record("surprise", np.zeros(3), ("i",), "x")
    rows = {r["name"]: r for r in crosscheck(trace)["rows"]}
    assert not rows["surprise"]["ok"] and rows["surprise"]["note"] == "no torch counterpart"
    del trace.steps["row_sum"]
    with pytest.raises(ValueError, match=r"^trace lacks row_sum: crosscheck yolo needs all of x, w_qkv"):
        crosscheck(trace)


# ---------------------------------------------------------------- the module's layout, the real-module path


def test_module_is_laid_out_as_ultralytics_attention():
    m = yolo_attention_class(torch)(64, num_heads=4, attn_ratio=0.5)
    assert (m.head_dim, m.key_dim, m.scale) == (16, 8, 8**-0.5)
    keys = set(m.state_dict())
    for part in ("qkv", "proj", "pe"):
        assert {f"{part}.conv.weight", f"{part}.bn.weight", f"{part}.bn.bias", f"{part}.bn.running_mean",
                f"{part}.bn.running_var"} <= keys
        assert getattr(m, part).conv.bias is None
    assert tuple(m.qkv.conv.weight.shape) == (128, 64, 1, 1)
    assert tuple(m.pe.conv.weight.shape) == (64, 1, 3, 3) and m.pe.conv.groups == 64


def test_reference_path_against_our_own_module_adds_ultralytics_rows():
    trace = attnwalk.walk(h=3, w=4, dim=8, heads=2, input="normal", batch=2)
    result = crosscheck(trace, reference="ultralytics", reference_class=yolo_attention_class(torch))
    assert result["passed"], format_table(result)
    names = [r["name"] for r in result["rows"]]
    assert names[-4:] == ["ultralytics:qkv", "ultralytics:pe", "ultralytics:o_pe", "ultralytics:out"]
    assert result["reference"].endswith("+ ultralytics' Attention")


def test_reference_path_catches_a_module_that_splits_q_k_v_differently():
    """A module with all-q, all-k, all-v channels (not per head) fails at its out, our rows still pass."""
    base = yolo_attention_class(torch)

    class Chunked(base):
        def forward(self, x):
            B, C, H, W = x.shape
            q, k, v = self.qkv(x).split([self.key_dim * self.num_heads] * 2 + [C], dim=1)
            q, k, v = (t.reshape(B, self.num_heads, -1, H * W) for t in (q, k, v))
            attn = ((q.transpose(-2, -1) @ k) * self.scale).softmax(dim=-1)
            x = (v @ attn.transpose(-2, -1)).view(B, C, H, W) + self.pe(v.reshape(B, C, H, W))
            return self.proj(x)

    trace = attnwalk.walk(h=3, w=3, dim=8, heads=2, input="normal")
    result = crosscheck(trace, reference="ultralytics", reference_class=Chunked)
    bad = failing(result)
    assert "ultralytics:out" in bad and "ultralytics:qkv" not in bad
    assert all(not name.startswith(("q", "k", "v", "o", "x")) for name in bad)


def test_reference_ultralytics_with_pe_on_o_is_one_clear_error():
    trace = attnwalk.walk(h=2, w=2, pe_on="o")
    with pytest.raises(ConfigError, match=r"^--reference: the real module applies pe to v"):
        crosscheck(trace, reference="ultralytics", reference_class=yolo_attention_class(torch))


# ---------------------------------------------------------------- options, devices, TF32, errors


def test_tf32_is_switched_off_on_cuda_and_restored():
    # Saved and restored by hand: these flags are properties of torch's backend proxies,
    # which pytest's monkeypatch cannot always undo (it may try delattr on them).
    matmul, cudnn = torch.backends.cuda.matmul, torch.backends.cudnn
    saved = (matmul.allow_tf32, cudnn.allow_tf32)
    try:
        matmul.allow_tf32, cudnn.allow_tf32 = True, True
        with tf32_off(torch, "cuda") as state:
            assert matmul.allow_tf32 is False and cudnn.allow_tf32 is False
            assert state.startswith("off")
        assert matmul.allow_tf32 is True and cudnn.allow_tf32 is True
        with tf32_off(torch, "cpu") as state:
            assert state.startswith("n/a") and cudnn.allow_tf32 is True
    finally:
        matmul.allow_tf32, cudnn.allow_tf32 = saved


def test_auto_device_follows_cuda_availability(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert resolve_device(torch, "auto") == "cpu"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert resolve_device(torch, "auto") == "cuda" and resolve_device(torch, "cpu") == "cpu"


def one_line_error(capsys, *args) -> str:
    code, out, err = run(capsys, "crosscheck", *args)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    return err.strip()


def test_cuda_without_a_gpu_is_one_line_naming_the_option(capsys, monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert one_line_error(capsys, "--device", "cuda") == (
        "attnwalk: error: --device: cuda requested but torch.cuda.is_available() is False; allowed: cpu, auto")


@pytest.mark.parametrize("args, line", [
    (["--dtype", "float16"], "attnwalk: error: --dtype: got 'float16'; allowed: float64, float32"),
    (["--device", "tpu"], "attnwalk: error: --device: got 'tpu'; allowed: cpu, cuda, auto"),
    (["--reference", "timm"], "attnwalk: error: --reference: got 'timm'; allowed: explicit, ultralytics"),
    (["--heads", "3"], "attnwalk: error: --heads: got 3, which does not divide --dim 4; allowed: 1, 2, 4"),
])
def test_bad_options_are_one_line(capsys, args, line):
    assert one_line_error(capsys, *args) == line


def test_ultralytics_not_installed_is_one_line(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "ultralytics", None)  # import fails as if not installed
    line = one_line_error(capsys, "--reference", "ultralytics")
    assert line.startswith("attnwalk: error: --reference: ultralytics requested but the ultralytics package is "
                           "not installed")


def test_torch_not_installed_is_one_line(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)
    line = one_line_error(capsys, *SEED_000)
    assert line.startswith("attnwalk: error: crosscheck: PyTorch is not installed; pip install")


def test_variant_without_a_builder_is_one_clear_error(monkeypatch):
    """A variant added to the engine before its torch counterpart: one line, not a KeyError."""
    trace = Trace(config={"variant": "conv"}, derived={})
    expected = r"^--variant: crosscheck for variant conv is not available yet; allowed: yolo, sdpa, mha$"
    with pytest.raises(ConfigError, match=expected):
        crosscheck(trace)


def test_render_and_importing_crosscheck_never_import_torch():
    code = ("import sys; from attnwalk.cli import main; import attnwalk.crosscheck; "
            "main(['render', '--h', '2', '--w', '2', '-o', sys.argv[1]]); "
            "assert 'torch' not in sys.modules, 'torch imported'")
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run([sys.executable, "-c", code, f"{tmp}/n.md"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


# ---------------------------------------------------------------- sdpa and mha


@st.composite
def sequence_options(draw):
    variant = draw(st.sampled_from(["sdpa", "mha"]))
    heads, head_dim, n = draw(st.sampled_from([1, 2, 4])), draw(st.sampled_from([1, 2, 4])), draw(st.integers(1, 6))
    opts = dict(variant=variant, tokens=n, dim=heads * head_dim, heads=heads, batch=draw(st.integers(1, 2)),
                seed=draw(st.integers(0, 2**32 - 1)), input=draw(st.sampled_from(["ramp", "randint", "normal"])),
                rng=draw(st.sampled_from(["torch", "numpy"])), init_std=draw(st.sampled_from([0.02, 1.0])))
    m = n
    if variant == "sdpa":
        opts["source"] = draw(st.sampled_from(["direct", "columns", "project"]))
        m = opts["kv_tokens"] = draw(st.integers(1, 6))
        if opts["source"] == "columns":
            opts.update(dim=draw(st.integers(3, 6)), heads=1)
    mask = draw(st.sampled_from(["none", "causal", "padding"]))
    opts["mask"] = f"padding:{draw(st.integers(0, m))}" if mask == "padding" else mask
    opts["mask_fill"] = draw(st.sampled_from(["-inf", "-1e9", "-10000"]))
    return opts


@settings(max_examples=60, deadline=None)
@given(opts=sequence_options())
def test_sdpa_and_mha_agree_with_torch_over_a_grid(opts):
    trace = attnwalk.walk(**opts)
    for dtype in ("float64", "float32"):
        result = crosscheck(trace, dtype=dtype)
        assert result["passed"], f"{opts}\n{format_table(result)}"
        names = [r["name"] for r in result["rows"]]
        assert names[: len(trace.names())] == trace.names()
        module_rows = names[len(trace.names()):]
        assert all(n.startswith("nn.MultiheadAttention:") for n in module_rows)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_mha_is_also_compared_with_nn_multiheadattention(capsys, dtype):
    code, out, err = run(capsys, "crosscheck", "--variant", "mha", "--tokens", "4", "--dim", "8", "--heads", "2",
                         "--mask", "causal", "--dtype", dtype)
    assert code == 0, out + err
    rows = table_rows(out)
    assert rows["nn.MultiheadAttention:attn"][-1] == "ok" and rows["nn.MultiheadAttention:out"][-1] == "ok"
    assert {"qkv", "q", "k", "v", "mask", "scores_masked", "attn", "o", "o_merged", "out"} <= set(rows)


def test_sdpa_o_is_checked_against_f_scaled_dot_product_attention(monkeypatch):
    """The chained o comes from F.scaled_dot_product_attention: a wrong SDPA result is seen at o."""
    F = torch.nn.functional
    original = F.scaled_dot_product_attention
    monkeypatch.setattr(F, "scaled_dot_product_attention", lambda *a, **k: original(*a, **k) * 1.001)
    result = crosscheck(attnwalk.walk(variant="sdpa", tokens=3, dim=4, heads=2, mask="causal"))
    assert failing(result)[0] == "o"


def test_bottom_right_causal_mask_in_the_engine_fails_at_mask(monkeypatch):
    """A causal mask aligned bottom-right (Lq != Lk) where PyTorch aligns it top-left: named at mask."""
    import attnwalk.engine.sdpa as sdpa_engine

    original = sdpa_engine.keep_mask
    monkeypatch.setattr(sdpa_engine, "keep_mask", lambda mask, n, m: np.tril(np.ones((n, m), bool), m - n)
                        if mask == "causal" else original(mask, n, m))
    result = crosscheck(attnwalk.walk(variant="sdpa", tokens=3, kv_tokens=5, mask="causal", input="normal"))
    assert failing(result)[0] == "mask"


def test_heads_merged_in_the_wrong_order_fail_at_o_merged(monkeypatch):
    """``b h n d -> b n (d h)`` instead of ``b n (h d)``: the mha step after o is named."""
    import attnwalk.engine.mha as mha_engine

    monkeypatch.setattr(mha_engine, "merge_heads", lambda t: t.transpose(0, 2, 3, 1).reshape(
        t.shape[0], t.shape[2], -1))
    result = crosscheck(attnwalk.walk(variant="mha", tokens=3, dim=4, heads=2, input="normal"), dtype="float32")
    assert failing(result)[0] == "o_merged"


@pytest.mark.parametrize("name", ["scores_masked", "exp", "attn", "o"])
def test_a_perturbed_sdpa_step_fails_and_is_named_first(name):
    trace = attnwalk.walk(variant="sdpa", tokens=4, dim=4, heads=2, mask="padding:1", input="normal")
    data = trace[name].copy()
    data[0, 0, 0, 0] += 1e-3 * max(1.0, abs(data[0, 0, 0, 0]))  # well above float32's resolution
    trace.steps[name] = dataclasses.replace(trace.steps[name], data=data)
    assert failing(crosscheck(trace, dtype="float32"))[0] == name


def test_reference_ultralytics_with_sdpa_is_one_line(capsys):
    assert one_line_error(capsys, "--variant", "sdpa", "--reference", "ultralytics") == (
        "attnwalk: error: --reference: ultralytics applies to --variant yolo only, not sdpa; allowed: explicit")


def test_a_finite_fill_above_the_scores_is_not_compared_with_sdpa_minus_inf():
    """masked_fill(-10000) is not -inf when scores lie far below it: dropped keys then carry weight,
    which SDPA's boolean mask would zero. The trace's semantics are kept; o is attn @ v in torch."""
    trace = attnwalk.walk(variant="sdpa", tokens=11, kv_tokens=8, dim=16, heads=4, batch=2, seed=2973655594,
                          input="ramp", init_std=3.0, source="project", mask="causal", mask_fill="-10000")
    dropped = trace["mask"] == 0
    assert trace["attn"][..., dropped].max() > 0.5  # a dropped key outweighs the kept ones somewhere
    for dtype in ("float64", "float32"):
        result = crosscheck(trace, dtype=dtype)
        assert result["passed"], format_table(result)
        assert "o = attn @ v" in result["reference"]


@pytest.mark.parametrize("mask", ["none", "causal"])
@pytest.mark.parametrize("with_v", [True, False])
def test_given_scores_are_checked_from_the_scores_on(capsys, tmp_path, mask, with_v):
    """source = "scores": torch starts from the given scores (no q, k) and every tensor after them
    agrees; softmax of [[1, 2], [3, 3]] is hand-derivable: [1/(1+e), e/(1+e)] and [1/2, 1/2]."""
    scenario = tmp_path / "s.toml"
    scenario.write_text('variant = "sdpa"\nsource = "scores"\nscores = [[1, 2], [3, 3]]\n'
                        + ('v = [[1, 0], [0, 1]]\n' if with_v else "") + f'mask = "{mask}"\n')
    code, out, err = run(capsys, "crosscheck", "--scenario", str(scenario))
    assert code == 0, out + err
    rows = table_rows(out)
    assert "given scores" in out
    assert ("o" in rows) == with_v and ("out" in rows) == with_v
    assert all(cells[-1] == "ok" for cells in rows.values())
    trace = attnwalk.walk(variant="sdpa", source="scores", scores=[[1, 2], [3, 3]], mask=mask,
                          **({"v": [[1, 0], [0, 1]]} if with_v else {}))
    e = np.e
    want = [[1 / (1 + e), e / (1 + e)], [0.5, 0.5]] if mask == "none" else [[1, 0], [0.5, 0.5]]
    np.testing.assert_allclose(trace["attn"][0, 0], want, rtol=1e-15)


def test_given_scores_perturbed_after_the_input_fail_at_that_step():
    trace = attnwalk.walk(variant="sdpa", source="scores", scores=[[1, 2], [3, 3]], v=[[1, 0], [0, 1]])
    data = trace["attn"].copy()
    data[0, 0, 0, 0] += 1e-6
    trace.steps["attn"] = dataclasses.replace(trace.steps["attn"], data=data)
    assert failing(crosscheck(trace))[0] == "attn"
