"""The yolo walkthrough: its printed numbers are PyTorch's, its LaTeX is clean, both languages agree."""

import contextlib
import io
import re
from decimal import Decimal

import numpy as np
import pytest
from conftest import assert_markdown_safe, ultralytics_attention

import attnwalk
from attnwalk.render import render

BLOCK = re.compile(r"^\$\$\n(?P<body>.*?)\n\$\$$", re.M | re.S)
MATRIX = re.compile(
    r"^(?P<label>[^\n]+) =\n\\begin\{bmatrix\}\n(?P<body>(?:(?!\\end\{bmatrix\}).)*?)\n\\end\{bmatrix\}$",
    re.M | re.S,
)


def displays(md: str) -> dict[str, list[list[str]]]:
    """Every ``LABEL = bmatrix`` of a note's display math (several side by side in one ``$$`` block
    too): label -> rows of printed cells."""
    out = {}
    for block in BLOCK.finditer(md):
        for m in MATRIX.finditer(block["body"]):
            out[m["label"]] = [line.rstrip(" \\").split(" & ") for line in m["body"].splitlines()]
    return out


def expected_matrices(trace, ref) -> dict[str, np.ndarray]:
    """Label -> the PyTorch values it must show (batch 0), for every label the yolo notes print."""
    B = trace["x"].shape[0]
    b = ":" if B == 1 else "0"
    exp = {r"W_{qkv}": trace["w_qkv"][:, :, 0, 0], r"W_{proj}": trace["w_proj"][:, :, 0, 0]}
    for c in range(trace["x"].shape[1]):
        exp[f"X[{b},{c},:,:]"] = ref["x"][0, c]
        exp[f"W_{{pe}}[{c}]"] = trace["w_pe"][c, 0]
        for lab, name in [("O", "o"), (r"\text{PE}", "pe"), ("O'", "o_pe"), (r"\text{Out}", "out")]:
            exp[f"{lab}[{b},{c},:,:]"] = ref[name][0, c]
    for c in range(trace["qkv"].shape[1]):
        exp[rf"\text{{QKV}}[{b},{c},:,:]"] = ref["qkv"][0, c]
    for h in range(trace.config["heads"]):
        sub = str(h) if h < 10 else f"{{{h}}}"
        for lab, name in [("Q", "q"), ("K", "k"), ("V", "v"), ("S", "scores"), (r"\hat{S}", "scores_scaled"),
                          ("A", "attn")]:
            exp[f"{lab}_{sub}"] = ref[name][0, h]
    return exp


def shown_indices(n: int, printed: int) -> list:
    """Indices of the printed cells: all of them, or the first 6, an elision, the last 2."""
    return list(range(n)) if printed == n else list(range(6)) + [None] + list(range(n - 2, n))


def assert_printed_matches(cells: list[list[str]], values: np.ndarray, label: str) -> int:
    """Each printed cell equals the value correctly rounded (or is an elision mark)."""
    values = np.atleast_2d(values)
    n_rows, n_cols = values.shape
    row_idx = shown_indices(n_rows, len(cells))
    checked = 0
    for i, row in zip(row_idx, cells):
        if i is None:
            assert set(row) <= {r"\vdots", r"\ddots"}, label
            continue
        col_idx = shown_indices(n_cols, len(row))
        assert len(col_idx) == len(row), f"{label}: row {i} has {len(row)} cells"
        for j, cell in zip(col_idx, row):
            if j is None:
                assert cell == r"\cdots", label
                continue
            printed = Decimal(cell)
            places = -printed.as_tuple().exponent
            # Correct rounding: within half a unit of the last printed digit (a hair for float64 noise).
            assert abs(float(printed) - values[i, j]) <= 0.5 * 10.0**-places + 1e-12, (label, i, j, cell, values[i, j])
            assert not cell.startswith("-") or float(printed) != 0, f"{label}: negative zero {cell}"
            checked += 1
    return checked


@pytest.mark.parametrize("opts", [
    dict(h=3, w=3, heads=2, seed=42, pe_on="o"),
    dict(h=3, w=3, heads=2, seed=42),
    dict(h=2, w=3, dim=6, heads=3, attn_ratio=1.0, seed=5, input="randint", decimals=3),
    dict(h=5, w=5, dim=8, heads=2, seed=1, input="normal", decimals=5),
    dict(h=2, w=2, dim=4, heads=2, batch=2, seed=3, rng="numpy", decimals=6),
    dict(h=2, w=2, dim=16, heads=4, seed=2),
])
@pytest.mark.parametrize("lang", ["vi", "en"])
def test_every_printed_matrix_is_pytorchs_value_correctly_rounded(opts, lang):
    trace = attnwalk.walk(lang=lang, **opts)
    md = render(trace, "md", lang)
    ref = ultralytics_attention(trace)
    shown = displays(md)
    expected = expected_matrices(trace, ref)
    # the PE worked step: the zero-padded 3x3 window P at p0 of channel 0 of the PE input
    _, C, H, W = ref["o"].shape
    src = ref["v"][0].reshape(C, H, W) if trace.config["pe_on"] == "v" else ref["o"][0]
    expected["P"] = np.pad(src[0], 1)[0:3, 0:3]
    checked = 0
    for label, cells in shown.items():
        assert label in expected, f"unexpected label {label!r}"
        checked += assert_printed_matches(cells, expected[label], label)
    # Everything the note promises is there: heads' matrices and at least the first channels.
    for h in range(opts["heads"]):
        for lab in ("Q", "K", "V", "S", "A"):
            assert f"{lab}_{h}" in shown
    assert checked > 100


def test_seed_000_three_by_three_shows_pytorchs_numbers():
    """The issue's acceptance example, pe on O as the seed notes: a few values PyTorch gives."""
    md = render(attnwalk.walk(h=3, w=3, heads=2, seed=42, pe_on="o"), "md", "vi")
    shown = displays(md)
    assert shown[r"\text{QKV}[:,0,:,:]"][0] == ["-0.5008", "-0.4566", "-0.4124"]
    # Seed 000 prints S_0 row 0 as 0.5751, 0.5971, 0.6192, ...; PyTorch gives 0.5972, 0.6193.
    assert shown["S_0"][0][:3] == ["0.5751", "0.5972", "0.6193"]
    assert shown[r"\text{Out}[:,0,:,:]"][0] == ["0.0283", "0.0288", "0.0288"]


def test_large_maps_are_elided_in_text_but_complete_in_json():
    trace = attnwalk.walk(h=5, w=4, dim=4, heads=2)
    md = render(trace, "md", "en")
    assert r"\cdots" in md and r"\vdots" in md and r"\ddots" in md
    import json

    data = json.loads(render(trace, "json", "en"))
    assert np.array(data["tensors"]["attn"]["data"]).shape == (1, 2, 20, 20)


def test_both_languages_print_the_same_math():
    trace = attnwalk.walk(h=3, w=2, dim=4, heads=2, seed=8)
    vi, en = render(trace, "md", "vi"), render(trace, "md", "en")
    assert displays(vi) == displays(en)
    assert "Bước 3 — Độ tương đồng" in vi and "Ý nghĩa" in vi and "Step 3 — Similarity" in en
    assert "Step" not in vi.split("---", 2)[2]


@pytest.mark.parametrize("lang", ["vi", "en"])
@pytest.mark.parametrize("opts", [dict(), dict(h=5, w=5, dim=8, heads=4, attn_ratio=1.0), dict(pe_on="o", batch=2)])
def test_latex_is_markdown_safe(lang, opts):
    assert_markdown_safe(render(attnwalk.walk(lang=lang, **opts), "md", lang))


def test_rendering_is_deterministic_bytes():
    a = render(attnwalk.walk(seed=3, input="normal"), "md", "vi")
    b = render(attnwalk.walk(seed=3, input="normal"), "md", "vi")
    assert a == b
    assert render(attnwalk.walk(), "json", "vi") == render(attnwalk.walk(), "json", "vi")


@pytest.mark.parametrize("opts", [dict(h=3, w=3, heads=2, seed=42, pe_on="o"),
                                  dict(h=2, w=4, dim=8, heads=2, attn_ratio=1.0, input="randint", seed=11),
                                  dict(h=2, w=2, input="normal", seed=4, batch=2)])
def test_pytorch_snippet_in_the_note_reproduces_the_trace(opts):
    pytest.importorskip("torch", reason="torch is not installed on this machine: pip install torch==2.13.0")
    trace = attnwalk.walk(**opts)
    md = render(trace, "md", "en")
    code = re.findall(r"```python\n(.*?)```", md, re.S)[-1]
    namespace = {}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(code, "<snippet>", "exec"), namespace)
    for name in ("qkv", "attn", "o", "pe", "out"):
        np.testing.assert_allclose(namespace[name].numpy(), trace[name], rtol=0, atol=1e-13, err_msg=name)
