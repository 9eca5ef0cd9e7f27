"""mha: the trace equals nn.MultiheadAttention and seed 002's module with the same weights (float64)."""

import numpy as np
import pytest
from conftest import assert_close_f64

import attnwalk

torch = pytest.importorskip("torch", reason="torch is not installed on this machine: pip install torch==2.13.0")
nn = torch.nn


class Seed002(nn.Module):
    """Seed 002's MultiHeadAttention, with einops' rearrange written as view/transpose."""

    def __init__(self, dim, num_heads):
        super().__init__()
        self.qkv = nn.Linear(dim, dim * 3)
        self.out = nn.Linear(dim, dim)
        self.num_heads = num_heads
        self.scale = (dim // num_heads) ** -0.5

    def forward(self, x, keep=None):
        b, n, _ = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q, k, v = (t.view(b, n, self.num_heads, -1).transpose(1, 2) for t in (q, k, v))  # b n (h d) -> b h n d
        attn = (q @ k.transpose(-2, -1)) * self.scale
        if keep is not None:
            attn = attn.masked_fill(~keep, float("-inf"))
        attn = attn.softmax(dim=-1)
        out = (attn @ v).transpose(1, 2).reshape(b, n, -1)  # b h n d -> b n (h d)
        return self.out(out), attn, q, k, v


def seeded_module(opts):
    """The weights as the walkthrough's snippet draws them: manual_seed, normal_ in order."""
    D, H, std = opts["dim"], opts["heads"], opts.get("init_std", 0.02)
    m = Seed002(D, H)  # builds (and draws) nn.Linear's default init: seed after it
    torch.manual_seed(opts.get("seed", 42))
    with torch.no_grad():
        for p in (m.qkv.weight, m.qkv.bias, m.out.weight, m.out.bias):
            if p.ndim == 2 or opts.get("bias", True):
                p.normal_(0, std)
            else:
                p.zero_()
    B, n = opts.get("batch", 1), opts["tokens"]
    x = torch.randint(-4, 5, (B, n, D)) if opts.get("input", "randint") == "randint" else torch.randn(B, n, D)
    return m.double(), x.double()


CASES = [
    dict(tokens=3, dim=4, heads=2, seed=42),
    dict(tokens=4, dim=8, heads=2, seed=1, init_std=0.3, mask="causal"),
    dict(tokens=5, dim=6, heads=3, seed=3, init_std=0.5, input="normal", batch=2),
    dict(tokens=3, dim=4, heads=1, seed=4, bias=False, init_std=0.2),
    dict(tokens=6, dim=8, heads=4, seed=5, init_std=0.2, mask="padding:2"),
]


@pytest.mark.parametrize("opts", CASES)
def test_trace_equals_seed_002_module_and_nn_multiheadattention(opts):
    t = attnwalk.walk(variant="mha", **opts)
    m, x = seeded_module(opts)
    assert_close_f64(t["x"], x.numpy(), "x")
    for name, p in (("w_qkv", m.qkv.weight), ("b_qkv", m.qkv.bias), ("w_out", m.out.weight), ("b_out", m.out.bias)):
        assert np.array_equal(t[name], p.detach().numpy()), name  # bit-exact float32 draws
    n = opts["tokens"]
    mask = opts.get("mask", "none")
    keep = None
    if mask == "causal":
        keep = torch.ones(n, n, dtype=torch.bool).tril()
    elif mask.startswith("padding"):
        keep = torch.ones(n, n, dtype=torch.bool)
        keep[:, n - int(mask.split(":")[1]):] = False
    with torch.no_grad():
        out, attn, q, k, v = m(x, keep)
    for name, ref in dict(q=q, k=k, v=v, attn=attn, out=out).items():
        assert_close_f64(t[name], ref.numpy(), name)
    assert t["attn"].shape == (opts.get("batch", 1), opts["heads"], n, n)  # per head, never averaged

    # nn.MultiheadAttention with the same weights; its boolean attn_mask means *drop* (True = masked).
    ref = nn.MultiheadAttention(opts["dim"], opts["heads"], batch_first=True, bias=True).double()
    with torch.no_grad():
        ref.in_proj_weight.copy_(m.qkv.weight)
        ref.in_proj_bias.copy_(m.qkv.bias)
        ref.out_proj.weight.copy_(m.out.weight)
        ref.out_proj.bias.copy_(m.out.bias)
        y, w = ref(x, x, x, attn_mask=None if keep is None else ~keep, need_weights=True,
                   average_attn_weights=False)
    assert_close_f64(t["out"], y.numpy(), "out vs nn.MultiheadAttention")
    assert_close_f64(t["attn"], w.numpy(), "attn vs nn.MultiheadAttention")


def test_trace_names_and_shapes_follow_design():
    t = attnwalk.walk(variant="mha", tokens=3, dim=6, heads=3)
    shapes = {n: t[n].shape for n in t.names()}
    assert shapes == {"w_qkv": (18, 6), "b_qkv": (18,), "w_out": (6, 6), "b_out": (6,), "x": (1, 3, 6),
                      "qkv": (1, 3, 18), "q": (1, 3, 3, 2), "k": (1, 3, 3, 2), "v": (1, 3, 3, 2),
                      "scores": (1, 3, 3, 3), "scores_scaled": (1, 3, 3, 3), "row_max": (1, 3, 3),
                      "exp": (1, 3, 3, 3), "row_sum": (1, 3, 3), "attn": (1, 3, 3, 3), "o": (1, 3, 3, 2),
                      "o_merged": (1, 3, 6), "out": (1, 3, 6)}
    assert t.derived["scale"] == 2**-0.5 and not t.derived["exact"]


def test_mha_rejects_sdpa_only_options():
    from attnwalk.errors import ConfigError

    with pytest.raises(ConfigError, match="--kv-tokens: kv_tokens applies to --variant sdpa only, not mha"):
        attnwalk.walk(variant="mha", kv_tokens=3)
    with pytest.raises(ConfigError, match="--heads"):
        attnwalk.walk(variant="mha", dim=6, heads=4)


# ---------------------------------------------------------------------------------------------
# The walkthrough.

import contextlib  # noqa: E402
import io  # noqa: E402
import re  # noqa: E402

from conftest import assert_markdown_safe  # noqa: E402
from test_render_yolo import assert_printed_matches, displays  # noqa: E402

from attnwalk.render import render  # noqa: E402


@pytest.mark.parametrize("opts", CASES)
@pytest.mark.parametrize("lang", ["vi", "en"])
def test_printed_matrices_are_pytorchs_and_latex_is_clean(opts, lang):
    md = render(attnwalk.walk(variant="mha", lang=lang, **opts), "md", lang)
    assert_markdown_safe(md)
    m, x = seeded_module(opts)
    n = opts["tokens"]
    keep = None
    if opts.get("mask") == "causal":
        keep = torch.ones(n, n, dtype=torch.bool).tril()
    elif opts.get("mask", "none").startswith("padding"):
        keep = torch.ones(n, n, dtype=torch.bool)
        keep[:, n - int(opts["mask"].split(":")[1]):] = False
    with torch.no_grad():
        out, attn, q, k, v = m(x, keep)
        q_all, k_all, v_all = m.qkv(x).chunk(3, dim=-1)  # the module's own cut, before the head split
        # nn.functional.multi_head_attention_forward's packed in-projection: weight and bias cut first
        w_q, w_k, w_v = m.qkv.weight.chunk(3)
        b_q, b_k, b_v = m.qkv.bias.chunk(3)
        for got, w, b in ((q_all, w_q, b_q), (k_all, w_k, b_k), (v_all, w_v, b_v)):
            torch.testing.assert_close(got, nn.functional.linear(x, w, b), rtol=0, atol=1e-12)
    exp = {"X": x[0].numpy(), "W_{qkv}": m.qkv.weight.detach().numpy(), "W_{out}": m.out.weight.detach().numpy(),
           "Q": q_all[0].numpy(), "K": k_all[0].numpy(), "V": v_all[0].numpy(),
           "b_{q}": b_q[None].detach().numpy(), "b_{k}": b_k[None].detach().numpy(),
           "b_{v}": b_v[None].detach().numpy(),
           r"\text{Out}": out[0].numpy(), "O_{cat}": (attn @ v).transpose(1, 2).reshape(x.shape[0], n, -1)[0].numpy()}
    for h in range(opts["heads"]):
        for lab, val in [("Q", q), ("K", k), ("V", v), ("A", attn), ("O", attn @ v)]:
            exp[f"{lab}_{h}"] = val[0, h].numpy()
    shown = displays(md)
    assert set(exp) <= set(shown), set(exp) - set(shown)
    for lab, val in exp.items():
        assert_printed_matches(shown[lab], val, lab)
    other = render(attnwalk.walk(variant="mha", lang="en" if lang == "vi" else "vi", **opts), "md", "vi")
    assert displays(other) == shown
    body = md.split("---", 2)[2]
    if lang == "vi":
        assert "Bước 1 — Sinh QKV" in body and "Step" not in body and "Tái tạo bằng PyTorch" in body
    else:
        assert "Step 1 — QKV from one Linear" in body and "Reproduce it in PyTorch" in body


@pytest.mark.parametrize("opts", CASES)
def test_pytorch_snippet_in_the_note_reproduces_the_trace(opts):
    trace = attnwalk.walk(variant="mha", **opts)
    code = re.findall(r"```python\n(.*?)```", render(trace, "md", "en"), re.S)[-1]
    ns = {}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(code, "<snippet>", "exec"), ns)
    np.testing.assert_allclose(ns["attn"].numpy(), trace["attn"], rtol=0, atol=1e-13)
    np.testing.assert_allclose(ns["out"].numpy(), trace["out"], rtol=0, atol=1e-13)


def test_json_trace_equals_nn_multiheadattention(capsys):
    import json

    from attnwalk.cli import main

    opts = dict(tokens=4, dim=6, heads=2, seed=9, init_std=0.4)
    code = main(["render", "--variant", "mha", "--tokens", "4", "--dim", "6", "--heads", "2", "--seed", "9",
                 "--init-std", "0.4", "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    T = {n: np.array(t["data"], dtype=np.float64).reshape(t["shape"]) for n, t in data["tensors"].items()}
    m, x = seeded_module(opts)
    ref = nn.MultiheadAttention(6, 2, batch_first=True).double()
    with torch.no_grad():
        ref.in_proj_weight.copy_(m.qkv.weight)
        ref.in_proj_bias.copy_(m.qkv.bias)
        ref.out_proj.weight.copy_(m.out.weight)
        ref.out_proj.bias.copy_(m.out.bias)
        y, w = ref(x, x, x, need_weights=True, average_attn_weights=False)
    assert_close_f64(T["out"], y.numpy(), "out")
    assert_close_f64(T["attn"], w.numpy(), "attn")


@pytest.mark.parametrize("opts", [CASES[0], CASES[1], CASES[3]])  # seed 002's, D = 8 causal, no bias
def test_check_verifies_every_number_of_the_qkv_chunks_and_a_changed_digit_is_wrong(opts, tmp_path):
    """Teaching audit #17: Q, K, V and b_q, b_k, b_v printed as ``chunk(3, dim=-1)`` cuts them are read by
    ``attnwalk check``: every printed number is verified as its own block's, and a changed digit in each block is
    called wrong with PyTorch's value (the module's ``qkv(x).chunk(3, dim=-1)``, ``qkv.bias.chunk(3)``)."""
    from attnwalk.check import check_file

    dec = 4
    md = render(attnwalk.walk(variant="mha", lang="en", **opts), "md", "en")
    m, x = seeded_module(opts)
    with torch.no_grad():
        torch_of = dict(zip("QKV", (c[0].numpy() for c in m.qkv(x).chunk(3, dim=-1))))
        torch_of.update(zip(("b_q", "b_k", "b_v"), (c[None].numpy() for c in m.qkv.bias.detach().chunk(3))))
    tex = {"Q": "Q", "K": "K", "V": "V", "b_q": "b_{q}", "b_k": "b_{k}", "b_v": "b_{v}"}
    lines = md.splitlines()
    first_row = {name: lines.index(f"{tex[name]} =") + 3 for name in tex}  # 1-based: "L =", \begin, row 0
    path = tmp_path / "mha.en.md"
    path.write_text(md, encoding="utf-8")
    report = check_file(path)
    assert not report.wrong
    recs = {}
    for r in report.recs:
        recs.setdefault(r.line, []).append(r)
    for name, val in torch_of.items():
        for i, row in enumerate(val):
            got = recs[first_row[name] + i]
            assert [r.text for r in got] == [f"{v:.{dec}f}" for v in row], (name, i)
            assert all(r.status == "verified" and str(r.checks[0][1]) == name for r in got), (name, i)
    # one changed digit in each block: cell (0, 1), its last digit moved by 3
    planted = []
    for name, val in torch_of.items():
        at = first_row[name] - 1
        cells = lines[at].rstrip(" \\").split(" & ")
        cells[1] = cells[1][:-1] + str((int(cells[1][-1]) + 3) % 10)
        lines[at] = " & ".join(cells) + " \\\\"
        cell = f"{name}[1]" if name.startswith("b_") else f"{name}[0, 1]"  # a bias is a vector
        planted.append((first_row[name], cells[1], cell, f"{val[0, 1]:.{dec}f}"))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    wrong = check_file(path).wrong
    assert sorted((r.line, r.text, str(r.failure()[0]), str(r.failure()[1])) for r in wrong) == sorted(planted)
