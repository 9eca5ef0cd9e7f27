"""Shared helpers for the tests: a faithful PyTorch copy of Ultralytics' Attention."""

from __future__ import annotations

import functools
import importlib.util
import math
import os
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import settings
from hypothesis import strategies as st

# CI must give the same verdict on every run: Hypothesis draws its examples from a fixed seed
# (HYPOTHESIS_PROFILE=explore switches back to fresh random examples for local bug hunting).
settings.register_profile("ci", derandomize=True, print_blob=True)
settings.register_profile("explore", print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def ultralytics_attention(trace, dtype="float64"):
    """Run Ultralytics ``Attention.forward`` in torch on the trace's input and weights.

    Each conv is laid out as in Ultralytics: Conv2d(bias=False) + BatchNorm2d in eval mode,
    whose statistics make the BN the identity plus the trace's bias (running_var = 1 - eps).
    Returns the intermediates by name, as numpy float64 arrays.
    """
    torch = pytest.importorskip("torch", reason="torch is not installed on this machine: pip install torch==2.13.0")
    nn = torch.nn
    dt = getattr(torch, dtype)
    cfg, d = trace.config, trace.derived
    x = torch.tensor(trace["x"], dtype=dt)
    B, C, H, W = x.shape
    N, heads, kd, hd = H * W, cfg["heads"], d["key_dim"], d["head_dim"]

    def conv_bn(w, b, groups=1):
        w = torch.tensor(w, dtype=dt)
        conv = nn.Conv2d(w.shape[1] * groups, w.shape[0], w.shape[2], padding=w.shape[2] // 2, groups=groups,
                         bias=False).to(dt)
        bn = nn.BatchNorm2d(w.shape[0]).to(dt).eval()
        with torch.no_grad():
            conv.weight.copy_(w)
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0 - bn.eps)
            bn.weight.fill_(1.0)
            bn.bias.copy_(torch.tensor(b, dtype=dt))
        return nn.Sequential(conv, bn)

    qkv_m = conv_bn(trace["w_qkv"], trace["b_qkv"])
    proj_m = conv_bn(trace["w_proj"], trace["b_proj"])
    pe_m = conv_bn(trace["w_pe"], trace["b_pe"], groups=C)
    with torch.no_grad():
        qkv = qkv_m(x)
        q, k, v = qkv.view(B, heads, kd * 2 + hd, N).split([kd, kd, hd], dim=2)
        scores = q.transpose(-2, -1) @ k
        scaled = scores * (kd**-0.5)
        attn = scaled.softmax(dim=-1)
        o = (v @ attn.transpose(-2, -1)).view(B, C, H, W)
        pe = pe_m(v.reshape(B, C, H, W) if cfg["pe_on"] == "v" else o)
        out = proj_m(o + pe)
    got = dict(x=x, qkv=qkv, q=q, k=k, v=v, scores=scores, scores_scaled=scaled, attn=attn, o=o, pe=pe,
               o_pe=o + pe, out=out)
    return {name: t.double().numpy() for name, t in got.items()}


def assert_close_f64(a, b, name="", cond=1.0):
    """float64 agreement: relative to the tensor's scale, a few ulps of accumulated rounding.

    `cond` widens the bound for tensors after a softmax: a logit of size L carries rounding of
    about L*eps into exp(), so downstream errors grow with the largest |logit| (pass it here).
    """
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    assert a.shape == b.shape, f"{name}: shape {a.shape} vs {b.shape}"
    scale = max(float(np.abs(b).max()), 1e-300)
    err = float(np.abs(a - b).max()) / scale if a.size else 0.0
    assert err < 1e-13 * max(1.0, cond), f"{name}: max error {err:.3g} relative to scale {scale:.3g}"


@st.composite
def yolo_options(draw, max_batch: int = 2):
    """Random yolo options: shapes, head counts, ratios (key_dim >= 1), streams, inputs, pe_on."""
    heads = draw(st.sampled_from([1, 2, 4]))
    head_dim = draw(st.sampled_from([1, 2, 4, 8]))
    ratio = draw(st.sampled_from([0.5, 1.0, 0.25, 0.75, 2.0]))
    if int(head_dim * ratio) < 1:
        ratio = 1.0
    return dict(h=draw(st.integers(1, 6)), w=draw(st.integers(1, 6)), dim=heads * head_dim, heads=heads,
                attn_ratio=ratio, batch=draw(st.integers(1, max_batch)), seed=draw(st.integers(0, 2**32 - 1)),
                input=draw(st.sampled_from(["ramp", "randint", "normal"])),
                rng=draw(st.sampled_from(["torch", "numpy"])), pe_on=draw(st.sampled_from(["v", "o"])),
                init_std=draw(st.sampled_from([0.02, 0.5])))


def assert_markdown_safe(md: str) -> None:
    """DESIGN §6 on a rendered note: $$ alone on its line, balanced braces and environments, no
    ``\\{ \\} \\, \\; \\_``, a blank line after each display block, no Vietnamese in
    ``\\text{}``, bmatrix rows ending in ``\\\\``, no ``|`` inside math in tables, no double blank lines."""
    body = md.split("---", 2)[2]
    lines = body.splitlines()
    closing = False
    for n, line in enumerate(lines):
        assert "$$" not in line or line == "$$", line
        if line == "$$":
            # A display block stands alone: text right after its closing $$ would join its paragraph.
            if closing:
                assert n + 1 == len(lines) or lines[n + 1] == "", f"text right after $$ at line {n + 1}"
            closing = not closing
    assert not closing, "unclosed $$"
    prose = re.sub(r"^```.*?^```", "CODE", body, flags=re.M | re.S)
    blocks = re.findall(r"^\$\$\n(.*?)\n\$\$$", prose, re.M | re.S)
    inline = re.findall(r"(?<!\$)\$(?!\$)([^$\n]+)\$", re.sub(r"^\$\$\n.*?\n\$\$$", "", prose, flags=re.M | re.S))
    for tex in blocks + inline:
        for bad in (r"\{", r"\}", r"\,", r"\;", r"\_"):
            assert bad not in tex, (bad, tex)
        assert tex.count("{") == tex.count("}"), tex
        assert tex.count(r"\begin{") == tex.count(r"\end{"), tex
        assert not re.search(r"\\text\{[^}]*[À-ỹ]", tex), f"Vietnamese inside \\text: {tex}"
    for block in blocks:
        if r"\begin{bmatrix}" in block:
            rows = block.split(r"\begin{bmatrix}")[1].split(r"\end{bmatrix}")[0].strip().splitlines()
            assert all(r.endswith(r" \\") for r in rows), block
    for line in prose.splitlines():
        if line.startswith("|"):
            for tex in re.findall(r"\$([^$]+)\$", line):
                assert "|" not in tex
    assert "\n\n\n" not in prose


@functools.cache
def heldout_tools():
    """(truth, bench): tests/corpus/heldout/truth.py (torch's verdicts on a held-out note) and
    benchmarks/heldout.py (the held-out table), loaded once by path: neither folder is a package."""
    spec = importlib.util.spec_from_file_location("heldout_bench", Path(__file__).resolve().parents[1] / "benchmarks"
                                                  / "heldout.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench.truth_module(), bench


def record_fields(report) -> list[tuple]:
    """Every field of a check report's records (line, text, status, operand, fix and each check's verdict, label
    and expected value), for the tests that compare a fast path's report with the path it replaces."""
    return [(r.line, r.text, r.status, r.operand, r.fix, [(ok, str(lab), str(exp)) for ok, lab, exp in r.checks])
            for r in report.recs]


def torch64(rows):
    """``rows`` (nested lists, or a tensor) as a float64 torch tensor: the held-out tests' truth is torch's in float64
    (torch imported here, not at the top: conftest loads where torch is absent too)."""
    import torch

    return rows.to(torch.float64) if isinstance(rows, torch.Tensor) else torch.tensor(rows, dtype=torch.float64)


def rounded(values, digits: int) -> list[str]:
    """Each value printed to ``digits`` decimals, as a note prints it."""
    return [f"{v:.{digits}f}" for v in values]


def torch_sdpa(q, k, v):
    """(scaled scores, weights, output) of one head, in float64, as torch computes them."""
    import torch

    q, k, v = torch64(q), torch64(k), torch64(v)
    s = q @ k.T / math.sqrt(q.shape[-1])
    a = torch.softmax(s, -1)
    return s, a, a @ v


def reader_hits(reader, text: str, scenario) -> list:
    """What one reader of hand-written notation (``reader(text, trace, hits, foreign)``, as ``human.find`` calls it)
    judges in ``text`` under the scenario file ``scenario``: its hits in reading order."""
    from attnwalk.api import walk
    from attnwalk.check import forms
    from attnwalk.scenario import load_scenario

    trace = walk(**load_scenario(scenario))
    hits = {}
    reader(text, trace, hits, forms.foreign_sections(text, trace))
    return [h for _, h in sorted(hits.items())]


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")  # the system's (CI installs Debian's)
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]


def chromium_context(tmp_path_factory):
    """A headless Chromium driven by Playwright, with a fresh profile and an 800 × 1000 viewport: yields its context
    (a module's ``browser`` fixture is ``yield from chromium_context(tmp_path_factory)``)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        # A fresh profile per run; Playwright's persistent-context API is the way to name its folder.
        ctx = p.chromium.launch_persistent_context(str(tmp_path_factory.mktemp("chromium-profile")),
                                                   executable_path=CHROMIUM, args=CHROMIUM_ARGS,
                                                   viewport={"width": 800, "height": 1000})
        yield ctx
        ctx.close()
