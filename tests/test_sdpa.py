"""sdpa: every recorded tensor equals PyTorch (float64), masks, fill values, cross-attention."""

import json
import math

import numpy as np
import pytest
from conftest import assert_close_f64, assert_markdown_safe

import attnwalk
from attnwalk.errors import ConfigError

torch = pytest.importorskip("torch", reason="torch is not installed on this machine: pip install torch==2.13.0")
F = torch.nn.functional

FILLS = {"-inf": float("-inf"), "-1e9": -1e9, "-10000": -10000.0}


def torch_keep(mask: str, n: int, m: int):
    """The keep-matrix as PyTorch users build it (True = attend)."""
    if mask == "causal":
        return torch.ones(n, m, dtype=torch.bool).tril()
    keep = torch.ones(n, m, dtype=torch.bool)
    if mask.startswith("padding:"):
        pad = int(mask.split(":")[1])
        if pad:
            keep[:, m - pad:] = False
    return keep


def torch_inputs(opts: dict):
    """q, k, v (B, L, width) as a PyTorch user draws them for these options (float64)."""
    torch.manual_seed(opts.get("seed", 42))
    B, n = opts.get("batch", 1), opts.get("tokens", 3)
    m, D = opts.get("kv_tokens", n), opts.get("dim", 4)
    kind = opts.get("input", "randint")

    def rand(*shape):
        if kind == "randint":
            return torch.randint(-4, 5, shape).double()
        return torch.randn(*shape).double()

    source = opts.get("source", "direct")
    if source == "direct":
        return rand(B, n, D), rand(B, m, D), rand(B, m, D)
    std = opts.get("init_std", 0.02)
    w_q, w_k, w_v = (torch.empty(D, D).normal_(0, std).double() for _ in range(3))
    x = rand(B, n, D)
    x_kv = rand(B, m, D) if m != n else x
    return x @ w_q.T, x_kv @ w_k.T, x_kv @ w_v.T


def heads_split(t, h):
    B, n, w = t.shape
    return t.view(B, n, h, w // h).transpose(1, 2)


CASES = [
    dict(tokens=3, dim=4, heads=2, seed=42),
    dict(tokens=4, dim=6, heads=3, seed=7, mask="causal"),
    dict(tokens=4, dim=4, heads=1, seed=3, mask="causal", mask_fill="-1e9"),
    dict(tokens=5, dim=4, heads=2, seed=1, mask="padding:2", mask_fill="-10000", input="normal"),
    dict(tokens=3, kv_tokens=5, dim=4, heads=2, seed=11, mask="padding:1"),
    dict(tokens=5, kv_tokens=3, dim=4, heads=2, seed=12, mask="causal", input="normal"),
    dict(tokens=4, dim=8, heads=2, seed=5, source="project", init_std=0.5, mask="causal"),
    dict(tokens=3, kv_tokens=4, dim=4, heads=1, seed=6, source="project", init_std=0.3, batch=2),
    dict(tokens=20, dim=8, heads=2, seed=9, input="normal", mask="causal", batch=2),
]


@pytest.mark.parametrize("opts", CASES)
def test_every_tensor_equals_pytorch(opts):
    trace = attnwalk.walk(variant="sdpa", **opts)
    h = opts["heads"]
    q, k, v = (heads_split(t, h) for t in torch_inputs(opts))
    n, m = q.shape[2], k.shape[2]
    d_k = q.shape[-1]
    scores = q @ k.transpose(-2, -1)
    scaled = scores / math.sqrt(d_k)
    mask = opts.get("mask", "none")
    fill = FILLS[opts.get("mask_fill", "-inf")]
    keep = torch_keep(mask, n, m)
    masked = scaled.masked_fill(~keep, fill)
    attn = masked.softmax(dim=-1)
    ref = dict(q=q, k=k, v=v, scores=scores, scores_scaled=scaled, attn=attn, o=attn @ v)
    if mask != "none":
        ref["scores_masked"] = masked
        assert np.array_equal(trace["mask"], keep.double().numpy())
    else:
        assert "mask" not in trace and "scores_masked" not in trace
    for name, want in ref.items():
        got = trace[name]
        if name == "scores_masked":
            assert np.array_equal(np.isinf(got), np.isinf(want.numpy()))
            got, want = np.where(np.isinf(got), 0, got), torch.where(want.isinf(), 0, want)
        assert_close_f64(got, want.numpy(), name)
    B = q.shape[0]
    assert_close_f64(trace["out"], (attn @ v).transpose(1, 2).reshape(B, n, -1).numpy(), "out")
    # The fused PyTorch op agrees: a boolean attn_mask means *keep* in F.scaled_dot_product_attention.
    if fill == float("-inf"):
        fused = F.scaled_dot_product_attention(q, k, v, attn_mask=keep if mask != "none" else None)
        assert_close_f64(trace["o"], fused.numpy(), "o vs F.scaled_dot_product_attention")
    if mask == "causal" and n == m:
        fused = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        if fill == float("-inf"):
            assert_close_f64(trace["o"], fused.numpy(), "o vs is_causal=True")
    np.testing.assert_allclose(trace["attn"].sum(-1), 1.0, rtol=0, atol=1e-14)
    np.testing.assert_allclose(trace["row_sum"], np.exp(trace["scores_masked" if mask != "none" else "scores_scaled"]
                                                        - trace["row_max"][..., None]).sum(-1), rtol=1e-15)


def test_causal_mask_hides_the_future_and_its_matrix_is_lower_triangular():
    t = attnwalk.walk(variant="sdpa", tokens=4, mask="causal", seed=2)
    assert np.array_equal(t["mask"], np.tril(np.ones((4, 4))))
    assert np.all(t["attn"][..., np.triu_indices(4, 1)[0], np.triu_indices(4, 1)[1]] == 0)
    assert np.all(t["attn"][:, :, 0, 0] == 1.0)  # the first token sees only itself


def test_fill_values_agree_except_on_a_fully_masked_row():
    base = dict(variant="sdpa", tokens=3, dim=4, heads=2, seed=4, mask="padding:1")
    a = {f: attnwalk.walk(mask_fill=f, **base)["attn"] for f in FILLS}
    # exp(-10000 - max) underflows to exactly 0 in float64, as exp(-1e9) and exp(-inf) do.
    assert np.array_equal(a["-inf"], a["-1e9"]) and np.array_equal(a["-inf"], a["-10000"])
    assert np.all(a["-inf"][..., -1] == 0)


@pytest.mark.parametrize("fill", list(FILLS))
def test_fully_masked_rows_follow_the_documented_policy(fill):
    """Every key padded: −inf -> weights 0 and output 0 (as F.sdpa); a finite fill -> uniform 1/M."""
    t = attnwalk.walk(variant="sdpa", tokens=2, kv_tokens=3, mask="padding:3", mask_fill=fill, seed=8)
    q, k, v = (torch.tensor(t[n]) for n in ("q", "k", "v"))
    keep = torch.zeros(2, 3, dtype=torch.bool)
    if fill == "-inf":
        assert np.all(t["attn"] == 0) and np.all(t["o"] == 0)
        assert not np.isnan(t["attn"]).any()
        fused = F.scaled_dot_product_attention(q, k, v, attn_mask=keep)
        assert_close_f64(t["o"], fused.numpy(), "fully masked vs F.sdpa")
        # nn.MultiheadAttention-style softmax gives NaN here: our policy differs and says so.
        assert torch.isnan((q @ k.transpose(-2, -1)).masked_fill(~keep, float("-inf")).softmax(-1)).all()
    else:
        np.testing.assert_allclose(t["attn"], 1 / 3, rtol=0, atol=1e-15)
        ref = (q @ k.transpose(-2, -1) / math.sqrt(2)).masked_fill(~keep, FILLS[fill]).softmax(-1) @ v
        assert_close_f64(t["o"], ref.numpy(), "uniform")


def test_cross_attention_shapes():
    t = attnwalk.walk(variant="sdpa", tokens=2, kv_tokens=5, dim=6, heads=3, seed=1)
    assert t["q"].shape == (1, 3, 2, 2) and t["k"].shape == (1, 3, 5, 2) and t["v"].shape == (1, 3, 5, 2)
    assert t["attn"].shape == (1, 3, 2, 5) and t["o"].shape == (1, 3, 2, 2) and t["out"].shape == (1, 2, 6)
    assert t.derived["cross"] and not attnwalk.walk(variant="sdpa", tokens=3).derived["cross"]


def test_columns_of_a_table_follow_seed_004():
    x = [[1, 0, 1, 2], [2, 1, 0, 2], [3, 0, 1, 2], [4, 1, 0, 2]]
    t = attnwalk.walk(variant="sdpa", source="columns", x=x, heads=1, q_cols=[0], k_cols=["c1"], v_cols=[2, 3])
    xt = torch.tensor(x, dtype=torch.float64)
    o = F.scaled_dot_product_attention(xt[None, None, :, :1], xt[None, None, :, 1:2], xt[None, None, :, 2:])
    assert_close_f64(t["o"], o.numpy(), "o")
    # The closed form of α(p0→p0): 1 / (2 + 2e) = 0.134471 (seed 004 printed 0.134366).
    assert abs(t["attn"][0, 0, 0, 0] - 1 / (2 + 2 * math.e)) < 1e-16
    assert round(t["attn"][0, 0, 0, 0], 6) == 0.134471


def test_given_weights_in_project_mode():
    w = [[1, 0], [0, 1]]
    t = attnwalk.walk(variant="sdpa", source="project", x=[[1, 2], [3, 4]], dim=2, heads=1, w_q=w, w_k=w,
                      w_v=[[0, 1], [1, 0]])
    x = torch.tensor([[1.0, 2], [3, 4]], dtype=torch.float64)[None, None]
    o = F.scaled_dot_product_attention(x, x, x.flip(-1))
    assert_close_f64(t["o"], o.numpy(), "o")
    assert t.derived["exact"]


BAD = [
    (dict(mask="causal:2"), "--mask", "allowed: none, causal, padding:K"),
    (dict(mask="padding:9", tokens=3), "--mask", "K from 0 to 3"),
    (dict(mask_fill="-5"), "--mask-fill", "allowed: -inf, -1e9, -10000"),
    (dict(heads=3), "--heads", "allowed: 1, 2, 4"),
    (dict(h=4), "--h", "applies to --variant yolo only"),
    (dict(source="x"), "--source", "allowed: direct, columns, project"),
    (dict(q=[[1, 2], [3]]), "--scenario", "q: row 1 has 1 values"),
    (dict(q=[[1, "a"]]), "--scenario", "q: row 0, column 1"),
    (dict(x=[[1, 2, 3]]), "--scenario", "x applies to source = columns | project only"),
    (dict(source="columns", x=[[1, 2, 3]], q_cols=[5]), "--scenario", "q_cols"),
    (dict(tokens=4, q=[[1, 2]]), "--tokens", "table q has 1 rows"),
    (dict(labels=["a"]), "--scenario", "labels: got ['a']; allowed: a list of 3"),
]


@pytest.mark.parametrize("opts,option,allowed", BAD)
def test_bad_options_name_the_option_and_what_is_allowed(opts, option, allowed):
    with pytest.raises(ConfigError) as err:
        attnwalk.walk(variant="sdpa", **opts)
    assert err.value.option == option and allowed in str(err.value), str(err.value)
    assert "\n" not in str(err.value)


def test_yolo_config_is_unchanged_by_the_sequence_fields():
    from attnwalk.config import make_config

    assert list(make_config().to_dict()) == ["variant", "h", "w", "dim", "heads", "attn_ratio", "batch", "seed",
                                             "input", "init_std", "rng", "pe_on", "lang", "decimals"]
    with pytest.raises(ConfigError, match="--mask: mask applies to --variant sdpa | mha only"):
        make_config(mask="causal")


# ---------------------------------------------------------------------------------------------
# The walkthrough: printed numbers are PyTorch's, LaTeX is clean, both languages, snippet runs.

import contextlib  # noqa: E402
import io  # noqa: E402
import re  # noqa: E402
import shutil  # noqa: E402
from pathlib import Path  # noqa: E402

from test_render_yolo import assert_printed_matches, displays  # noqa: E402

from attnwalk.render import render  # noqa: E402

RENDER_CASES = [
    dict(source="columns", x=[[1, 0, 1, 2], [2, 1, 0, 2], [3, 0, 1, 2], [4, 1, 0, 2]], heads=1, decimals=6),
    dict(tokens=3, dim=4, heads=2, seed=42, mask="causal", mask_fill="-10000", labels=["Tôi", "đi", "học"]),
    dict(tokens=2, kv_tokens=3, dim=4, heads=2, seed=11, mask="padding:3"),
    dict(tokens=4, dim=4, heads=2, seed=5, source="project", init_std=0.5, mask="causal", mask_fill="-1e9"),
    dict(tokens=20, dim=8, heads=2, seed=9, input="normal", mask="padding:2", decimals=5),
    dict(tokens=3, kv_tokens=4, dim=4, heads=1, seed=6, source="columns", batch=2),
]


def expected_sdpa(opts: dict) -> dict:
    """Label -> PyTorch's value (batch 0) for every matrix the sdpa notes print."""
    t = attnwalk.walk(variant="sdpa", **opts)
    if "x" in opts or opts.get("source") == "columns":
        x = torch.tensor(t["x"])
        x_kv = torch.tensor(t["x_kv"]) if "x_kv" in t else x
        qc, kc, vc = (list(t.config[k]) for k in ("q_cols", "k_cols", "v_cols"))
        q, k, v = x[..., qc], x_kv[..., kc], x_kv[..., vc]
    else:
        q, k, v = torch_inputs(opts)
    h = t.config["heads"]
    q, k, v = (heads_split(a, h) for a in (q, k, v))
    scaled = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    mask = t.config["mask"]
    keep = torch_keep(mask, q.shape[2], k.shape[2])
    masked = scaled.masked_fill(~keep, FILLS[t.config["mask_fill"]])
    attn = torch.nan_to_num(masked.softmax(-1), nan=0.0)
    exp = {"M": keep.double()} if mask != "none" else {}
    pairs = [("Q", q), ("K", k), ("V", v), ("S", q @ k.transpose(-2, -1)), ("A", attn), ("O", attn @ v)]
    if q.shape[-1] != 1:  # with d_k = 1 the note says Ŝ = S and prints no second copy
        pairs.append((r"\hat{S}", scaled))
    for i in range(h):
        for lab, val in pairs:
            exp[f"{lab}_{i}"] = val[0, i].numpy()
        if t.config["mask_fill"] != "-inf":
            exp[rf"\tilde{{S}}_{i}"] = masked[0, i].numpy()
    return exp


@pytest.mark.parametrize("opts", RENDER_CASES)
@pytest.mark.parametrize("lang", ["vi", "en"])
def test_every_printed_matrix_is_pytorchs_value_correctly_rounded(opts, lang):
    md = render(attnwalk.walk(variant="sdpa", lang=lang, **opts), "md", lang)
    shown = displays(md)
    expected = expected_sdpa(opts)
    checked = 0
    for lab, cells in shown.items():
        if lab in expected:
            checked += assert_printed_matches(cells, expected[lab], lab)
    assert set(expected) <= set(shown), set(expected) - set(shown)
    assert checked > 20


@pytest.mark.parametrize("opts", RENDER_CASES)
def test_both_languages_print_the_same_math_and_vietnamese_is_vietnamese(opts):
    vi = render(attnwalk.walk(variant="sdpa", lang="vi", **opts), "md", "vi")
    en = render(attnwalk.walk(variant="sdpa", lang="en", **opts), "md", "en")
    assert displays(vi) == displays(en)
    body = vi.split("---", 2)[2]
    assert "Bước 1 — Độ tương đồng" in body and "Ý nghĩa" in body and "Tái tạo bằng PyTorch" in body
    assert "Step" not in body and "Step 1 — Similarities" in en
    if "mask" in opts:
        assert "**giữ**" in vi and "**bỏ**" in vi and "**keep**" in en and "**drop**" in en
        assert "Quy ước của attnwalk" in vi and "attnwalk's policy" in en


@pytest.mark.parametrize("opts", RENDER_CASES)
@pytest.mark.parametrize("lang", ["vi", "en"])
def test_latex_is_markdown_safe_and_bytes_deterministic(opts, lang):
    md = render(attnwalk.walk(variant="sdpa", lang=lang, **opts), "md", lang)
    assert_markdown_safe(md)
    assert md == render(attnwalk.walk(variant="sdpa", lang=lang, **opts), "md", lang)


@pytest.mark.parametrize("opts", RENDER_CASES + [dict(tokens=2, kv_tokens=3, mask="padding:3", mask_fill="-1e9")])
def test_pytorch_snippet_in_the_note_reproduces_the_trace(opts):
    trace = attnwalk.walk(variant="sdpa", **opts)
    md = render(trace, "md", "en")
    code = re.findall(r"```python\n(.*?)```", md, re.S)[-1]
    ns = {}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(code, "<snippet>", "exec"), ns)
    np.testing.assert_allclose(ns["attn"].numpy(), trace["attn"], rtol=0, atol=1e-13)
    np.testing.assert_allclose(ns["out"].numpy(), trace["out"], rtol=0, atol=1e-13)


ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.skipif(shutil.which("node") is None or not (ROOT / ".ci/node/node_modules/katex").is_dir(),
                    reason="KaTeX is not installed here: run `npm install --prefix .ci/node katex@0.16` (CI does)")
def test_every_formula_of_sequence_notes_parses_in_katex():
    from test_katex import formulas, katex_errors

    items = []
    for lang in ("vi", "en"):
        for opts in RENDER_CASES:
            items += formulas(render(attnwalk.walk(variant="sdpa", lang=lang, **opts), "md", lang))
        for opts in (dict(tokens=3, mask="causal"), dict(tokens=20, dim=32, heads=4, input="normal")):
            items += formulas(render(attnwalk.walk(variant="mha", lang=lang, **opts), "md", lang))
    assert len(items) > 200
    errors = katex_errors(items)
    assert not errors, "\n".join(errors[:10])


def test_json_trace_of_causal_sdpa_equals_pytorch(capsys):
    from attnwalk.cli import main

    code = main(["render", "--variant", "sdpa", "--tokens", "5", "--dim", "6", "--heads", "3", "--mask", "causal",
                 "--seed", "3", "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["config"]["mask"] == "causal"
    T = {n: np.array(t["data"], dtype=np.float64).reshape(t["shape"]) for n, t in data["tensors"].items()}
    q, k, v = (heads_split(a, 3) for a in torch_inputs(dict(tokens=5, dim=6, seed=3)))
    assert_close_f64(T["q"], q.numpy(), "q")
    keep = torch.ones(5, 5, dtype=torch.bool).tril()
    assert_close_f64(T["o"], F.scaled_dot_product_attention(q, k, v, is_causal=True).numpy(), "o")
    assert_close_f64(T["attn"], (q @ k.transpose(-2, -1) / math.sqrt(2)).masked_fill(~keep, float("-inf"))
                     .softmax(-1).numpy(), "attn")
    assert np.isneginf(T["scores_masked"][..., 0, 1:]).all()  # -inf survives the JSON round trip



from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 6), m=st.integers(1, 6), heads=st.sampled_from([1, 2]), d=st.integers(1, 3),
       mask=st.sampled_from(["none", "causal", "padding"]), fill=st.sampled_from(list(FILLS)),
       seed=st.integers(0, 2**32 - 1), kind=st.sampled_from(["randint", "normal"]))
def test_any_sequence_config_equals_pytorch(n, m, heads, d, mask, fill, seed, kind):
    if mask == "padding":
        mask = f"padding:{seed % (m + 1)}"
    opts = dict(tokens=n, kv_tokens=m, dim=heads * d, heads=heads, mask=mask, mask_fill=fill, seed=seed, input=kind)
    t = attnwalk.walk(variant="sdpa", **opts)
    q, k, v = (heads_split(a, heads) for a in torch_inputs(opts))
    keep = torch_keep(mask, n, m)
    attn = (q @ k.transpose(-2, -1) / math.sqrt(d)).masked_fill(~keep, FILLS[fill]).softmax(-1)
    attn = torch.nan_to_num(attn, nan=0.0)  # the documented policy for rows with no key left
    assert_close_f64(t["attn"], attn.numpy(), "attn")
    assert_close_f64(t["o"], (attn @ v).numpy(), "o")
    if fill == "-inf":
        fused = F.scaled_dot_product_attention(q, k, v, attn_mask=keep if mask != "none" else None)
        assert_close_f64(t["o"], fused.numpy(), "o vs F.sdpa")
    sums = t["attn"].sum(-1)
    empty = ~keep.numpy().any(-1)
    np.testing.assert_allclose(sums[..., ~empty], 1.0, atol=1e-14)
    np.testing.assert_allclose(sums[..., empty], 0.0 if fill == "-inf" else 1.0, atol=1e-14)


@pytest.mark.parametrize("lang", ["vi", "en"])
def test_columns_source_with_a_wide_table_prints_the_input_as_a_matrix(lang):
    """Tables wider than 8 channels are not printed as Markdown tables; the matrix stands in."""
    from attnwalk.render import render

    trace = attnwalk.walk(variant="sdpa", tokens=3, kv_tokens=5, dim=16, heads=1, source="columns", lang=lang)
    md = render(trace, "md", lang)
    assert "$$\nX =\n\\begin{bmatrix}\n" in md and "$$\nX_{kv} =\n\\begin{bmatrix}\n" in md
    first_row = md.split("$$\nX =\n\\begin{bmatrix}\n")[1].splitlines()[0]
    assert [int(c) for c in first_row.rstrip(" \\").split(" & ")] == trace["x"][0, 0].astype(int).tolist()
