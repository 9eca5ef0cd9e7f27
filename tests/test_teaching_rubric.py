"""The teaching rubric, held on every committed note in both languages: (1) every step states its
formula and (2) its shape, (4) a sanity check whose shapes are the trace's, (7) the PyTorch snippet
runs and prints the note's numbers, (8) check finds no wrong number; and no line is wider than a
page column."""

import contextlib
import io
import re
from pathlib import Path

import numpy as np
import pytest

from attnwalk.api import walk
from attnwalk.check import check_file, resolve

REPO = Path(__file__).resolve().parent.parent
NOTES = REPO / "examples" / "notes"
ALL = sorted({p.name.split(".")[0] for p in NOTES.glob("*.md")})
LANGS = ["vi", "en"]
PAGE = 100  # characters of a page column: code and display-math lines must fit

STEP = {"en": r"Step \d", "vi": r"Bước \d"}
SHAPE = {"en": r"\b[Ss]hapes?\b", "vi": r"\b[Kk]ích thước\b"}
CHECK = {"en": "Quick check", "vi": "Kiểm tra nhanh"}
REPRO = {"en": "Reproduce it in PyTorch", "vi": "Tái tạo bằng PyTorch"}
# steps that are not titled "Step N" in the yolo notes (they follow "Step 3" in the module's order)
EXTRA_STEPS = {"en": ("Scale", "Row-wise softmax"), "vi": ("Scale", "Softmax theo hàng")}


def text(name: str, lang: str) -> str:
    return (NOTES / f"{name}.{lang}.md").read_text(encoding="utf-8")


def sections(md: str) -> dict[str, str]:
    """``## N. Title`` -> the section's text (title line first)."""
    out = {}
    for s in re.split(r"^## ", md, flags=re.M)[1:]:
        title = re.sub(r"^\d+\.\s*", "", s.splitlines()[0])
        out[title] = s
    return out


def trace_of(md: str):
    opts, weights, _, _ = resolve(md)
    return walk(weights=weights, **opts)


def matrices(md: str) -> dict[str, np.ndarray]:
    """Every display matrix ``label = \\begin{bmatrix} ... \\end{bmatrix}`` that is not elided (also
    several side by side in one display, each label on its own line)."""
    out = {}
    for m in re.finditer(r"^([^\n$]+?) =\n\\begin\{bmatrix\}\n(.*?)\\end\{bmatrix\}", md, re.M | re.S):
        body = m.group(2)
        if "cdots" in body or "vdots" in body:
            continue
        rows = [r.strip().rstrip("\\").strip() for r in body.strip().splitlines()]
        out[m.group(1).strip()] = np.array([[float(c) for c in r.split("&")] for r in rows])
    return out


# ------------------------------------------------------------------ (1) + (2) formula and shape per step

@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("lang", LANGS)
def test_every_step_states_its_formula_and_its_shape(name, lang):
    secs = sections(text(name, lang))
    steps = {t: s for t, s in secs.items() if re.match(STEP[lang], t) or t in EXTRA_STEPS[lang]}
    assert len(steps) >= 4, list(secs)
    for title, s in steps.items():
        assert "$$\n" in s, f"no display formula in {title!r}"
        assert re.search(SHAPE[lang], s), f"no shape in {title!r}"


# ------------------------------------------------------------------ (4) sanity check: the shapes are the trace's

@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("lang", LANGS)
def test_quick_check_lists_the_traces_shapes_and_says_rows_sum_to_one(name, lang):
    md = text(name, lang)
    s = next(v for k, v in sections(md).items() if k.startswith(CHECK[lang]))
    t = trace_of(md)
    rows = re.findall(r"^\| (`[^|]+`) \| \(([\d, ]+)\) \|", s, re.M)
    assert len(rows) >= 4
    named = set()
    for names, shape in rows:
        for n in re.findall(r"`(\w+)`", names):
            assert tuple(t[n].shape) == tuple(int(x) for x in shape.split(",")), (n, shape)
            named.add(n)
    assert {"q", "k", "v", "attn", "out"} <= named
    assert re.search(r"sums to 1|có tổng bằng 1", s)
    np.testing.assert_allclose(t["attn"].sum(-1)[t["attn"].sum(-1) > 0], 1.0, rtol=0, atol=1e-12)


# ------------------------------------------------------------------ (7) the snippet prints the note's numbers

def _snippet(md: str, lang: str) -> str:
    s = sections(md)[REPRO[lang]]
    m = re.search(r"```python\n(.*?)```", s, re.S)
    assert m, "no python snippet"
    return m.group(1)


def _expected_print(name: str, mats: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """What the snippet prints, from the note's own matrices: head 0's weights (yolo: row 0) and the
    output (yolo: channel 0 of Out; sdpa: the heads' O side by side; mha: Out)."""
    if name.startswith("yolo"):
        return mats["A_0"][0], mats[r"\text{Out}[:,0,:,:]"]
    if r"\text{Out}" in mats:  # mha prints every head's weights
        return np.vstack([mats[k] for k in sorted(k for k in mats if re.fullmatch(r"A_\d+", k))]), mats[r"\text{Out}"]
    heads = sorted(k for k in mats if re.fullmatch(r"O_\d+", k))
    return mats["A_0"], np.hstack([mats[h] for h in heads])


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("lang", LANGS)
def test_pytorch_snippet_runs_and_prints_the_notes_numbers(name, lang):
    torch = pytest.importorskip("torch", reason="the snippet needs PyTorch (CI installs the CPU build)")
    md = text(name, lang)
    code = _snippet(md, lang)
    buf = io.StringIO()
    ns: dict = {}
    with contextlib.redirect_stdout(buf), torch.random.fork_rng():
        exec(compile(code, f"<{name}.{lang} snippet>", "exec"), ns)
    printed = np.array([float(x) for x in re.findall(r"-?\d+\.\d+(?:e[-+]\d+)?", buf.getvalue())])
    mats = matrices(md)
    if name.startswith("yolo") and "A_0" not in mats:  # a large map: its weights are printed elided
        _snippet_matches_elided_weights(ns, printed, md, mats)
        return
    a0, out = _expected_print(name, mats)
    want = np.concatenate([a0.ravel(), out.ravel()])
    assert printed.shape == want.shape, buf.getvalue()
    # the snippet prints at the note's precision, never in scientific notation: the very digits the note shows
    dec = trace_of(md).config["decimals"]
    assert "e-" not in buf.getvalue() and "e+" not in buf.getvalue()
    np.testing.assert_allclose(printed, want, rtol=0, atol=1e-12)
    # and the tensors themselves, at the note's precision: every head's weights, the whole output
    attn = ns["attn"].detach().numpy()
    for h in range(attn.shape[1]):
        np.testing.assert_allclose(attn[0, h], mats[f"A_{h}"], rtol=0, atol=0.5 * 10.0 ** -dec + 1e-12)
    if not name.startswith("yolo"):
        np.testing.assert_allclose(ns["out"].detach().numpy()[0], out, rtol=0, atol=0.5 * 10.0 ** -dec + 1e-12)
    else:
        o = ns["out"].detach().numpy()[0]
        for c in range(o.shape[0]):
            np.testing.assert_allclose(o[c], mats[rf"\text{{Out}}[:,{c},:,:]"], rtol=0,
                                       atol=0.5 * 10.0 ** -dec + 1e-12)


def elided_matrices(md: str) -> dict[str, np.ndarray]:
    """Every elided display matrix: its printed cells, the rows and columns left out dropped (the
    first 6 and the last 2 of each axis are printed, as ``attnwalk.latex`` elides)."""
    out = {}
    for m in re.finditer(r"^([^\n$]+?) =\n\\begin\{bmatrix\}\n(.*?)\\end\{bmatrix\}", md, re.M | re.S):
        body = m.group(2)
        if "cdots" not in body and "vdots" not in body:
            continue
        rows = [r.strip().rstrip("\\").strip() for r in body.strip().splitlines() if "vdots" not in r]
        out[m.group(1).strip()] = np.array([[float(c) for c in r.split("&") if "cdots" not in c] for r in rows])
    return out


def _kept(n: int) -> list[int]:
    return list(range(n)) if n <= 16 else list(range(6)) + [n - 2, n - 1]


def _snippet_matches_elided_weights(ns: dict, printed: np.ndarray, md: str, mats: dict) -> None:
    """A large yolo note: the snippet prints row 0 of head 0's weights (N values) and channel 0 of Out;
    the note prints the weights elided. Every printed cell must be the snippet's number, and every
    whole matrix the note prints (Out's channels) the snippet's tensor."""
    dec = trace_of(md).config["decimals"]
    tol = 0.5 * 10.0 ** -dec + 1e-12
    attn = ns["attn"].detach().numpy()[0]
    n = attn.shape[-1]
    shown = elided_matrices(md)
    assert printed.shape == (n + ns["out"].shape[-2] * ns["out"].shape[-1],)
    kept = _kept(n)
    np.testing.assert_allclose(printed[:n][kept], shown["A_0"][0], rtol=0, atol=1e-12)  # the note's digits
    for h in range(attn.shape[0]):
        np.testing.assert_allclose(attn[h][np.ix_(kept, kept)], shown[f"A_{h}"], rtol=0, atol=tol)
    o = ns["out"].detach().numpy()[0]
    np.testing.assert_allclose(printed[n:], np.round(o[0].ravel(), dec), rtol=0, atol=1e-12)
    for c in range(o.shape[0]):
        np.testing.assert_allclose(o[c], mats[rf"\text{{Out}}[:,{c},:,:]"], rtol=0, atol=tol)


# ------------------------------------------------------------------ (8) zero wrong numbers

@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("lang", LANGS)
def test_check_finds_no_wrong_number(name, lang):
    rep = check_file(NOTES / f"{name}.{lang}.md")
    assert rep.wrong == [] and len(rep.verified) >= 200


# ------------------------------------------------------------------ less scrolling: a page column

@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("lang", LANGS)
def test_no_code_or_display_math_line_is_wider_than_a_page_column(name, lang):
    md = text(name, lang)
    body = md.split("\n---\n", 1)[1]  # the front matter holds the weights on long lines
    in_code = in_math = False
    for line in body.splitlines():
        if line.startswith("```"):
            in_code = not in_code
            continue
        if line.strip() == "$$":
            in_math = not in_math
            continue
        if in_math and re.fullmatch(r".*&.*\\\\", line.strip()):
            # a matrix row renders its cells with about two characters between columns
            cells = [c.strip() for c in line.strip()[:-2].split("&")]
            assert sum(map(len, cells)) + 2 * (len(cells) - 1) <= PAGE, line
        elif in_code or in_math:
            assert len(line) <= PAGE, line


@pytest.mark.parametrize("name", ALL)
def test_vi_formulas_carry_no_english_words(name):
    """The vi notes' math says "nếu ... ngược lại" in prose around a cases formula, not English \\text{}."""
    vi = text(name, "vi")
    words = re.findall(r"\\text\{([^}]*)\}", vi)
    english = [w for w in words if re.search(r"\b(?:where|else|if|otherwise|and|for)\b", w)]
    assert english == []
    if "masked_fill" in vi:
        assert "Nếu $M[i, j] = 1$ thì giữ nguyên điểm, ngược lại" in vi


# ------------------------------------------------------------------ less scrolling: small matrices side by side

def test_side_by_side_fits_a_page_column_or_stays_stacked():
    from attnwalk.latex import bmatrix
    from attnwalk.views.layout import matrix_width, side_by_side

    small = bmatrix(np.array([[1.5, -2.25], [0.0, 3.0]]), 4)  # widest row "1.5000 & -2.2500": 6 + 7 + 2
    assert matrix_width(small) == 6 + 7 + 2 + 2
    assert side_by_side([("Q_0", small), ("K_0", small), ("V_0", small)])  # 3 * (2 + 3 + 17) + 2 * 4 = 74
    wide = bmatrix(np.full((2, 8), -1.2345), 4)  # 8 * 7 + 14 + 2 = 72 each: two do not fit in 100
    assert not side_by_side([("Q_0", wide), ("K_0", wide)])
    assert not side_by_side([("Q_0", small)])  # one matrix: nothing to put beside it
    elided = bmatrix(np.zeros((20, 20)), 4)
    assert not side_by_side([("Q_0", small), ("K_0", elided)])


@pytest.mark.parametrize("name", ["hand-2x2", "sdpa-causal-toi-di-hoc"])
@pytest.mark.parametrize("lang", LANGS)
def test_q_k_v_side_by_side_and_check_reads_each_label(name, lang, tmp_path):
    md = text(name, lang)
    m = re.search(r"^\$\$\nQ_0 =\n\\begin\{bmatrix\}\n.*?\\end\{bmatrix\}\n,\\quad\nK_0 =\n.*?,\\quad\nV_0 =\n.*?\$\$",
                  md, re.M | re.S)
    assert m, "Q, K, V in one display"
    block = m.group(0)
    start = md[:m.start()].count("\n") + 1
    rep = check_file(NOTES / f"{name}.{lang}.md")
    in_block = {r.line for r in rep.verified if start <= r.line < start + block.count("\n")}
    rows = [n for n, ln in enumerate(block.split("\n"), start) if ln.endswith("\\\\")]
    assert set(rows) <= in_block  # every matrix row of Q, K and V is read and verified
    for label in ("Q_0", "K_0", "V_0"):
        # change the first number of that matrix: reported wrong on its line
        i = block.index(label + " =\n")
        row = block.index("\n", block.index("\\begin{bmatrix}", i)) + 1
        num = re.match(r"-?\d+(?:\.\d+)?", block[row:])
        bad = str(int(num.group(0)) + 3) if "." not in num.group(0) else num.group(0)[:-1] + "9"
        if bad == num.group(0):
            bad = num.group(0)[:-1] + "1"
        new = md[:m.start() + row] + bad + md[m.start() + row + num.end():]
        p = tmp_path / f"{name}.{lang}.md"
        p.write_text(new, encoding="utf-8")
        line = start + block[:row].count("\n")
        assert line in {r.line for r in check_file(p).wrong}, label


# ------------------------------------------------------------------ the "halve the scale" exercise says what happens

@pytest.mark.parametrize("variant", ["sdpa", "mha"])
@pytest.mark.parametrize("scale", ["sqrt_dk", "none", 0.25])
@pytest.mark.parametrize("lang", LANGS)
def test_halved_scale_exercise_matches_the_notes_scale(variant, scale, lang):
    from attnwalk.check import check_text
    from attnwalk.render import render

    t = walk(variant=variant, tokens=3, scale=scale, lang=lang)
    md = render(t, "md", lang)
    ex = md[md.index("## " + ("Exercises" if lang == "en" else "Bài tập")):]
    q = re.search(r"^\d+\. .*(?:four times|gấp bốn).*$", ex, re.M).group(0)
    if scale == "sqrt_dk":
        assert r"$1/\sqrt{d_k}$" in q and ("halves" in q or "giảm một nửa" in q)
        assert "change nothing" not in q and "không thay đổi gì" not in q
    else:
        # a fixed scale does not depend on d_k: the exercise halves the multiplier itself
        assert "change nothing" in q or "không thay đổi gì" in q
        if scale == 0.25:
            assert "`0.25 / 2 = 0.125`" in q
    rep = check_text(md)
    assert rep.failure_lines() == []
    # the answer: the halved row's weights are the softmax of half the scaled scores (hand-derived here)
    r = int(re.search(r"query (p\d+)", q).group(1)[1:])
    half = t["scores_scaled"][0, 0, r] / 2
    w = np.exp(half - half.max()) / np.exp(half - half.max()).sum()
    dec = t.config["decimals"]
    for x in w:
        assert f"≈ {x:.{dec}f}" in ex
    if scale == 0.25:  # a wrong halved multiplier is reported
        bad = md.replace("`0.25 / 2 = 0.125`", "`0.25 / 2 = 0.135`")
        assert any("0.135" in f for f in check_text(bad).failure_lines())


def test_a_row_left_with_one_key_has_closed_form_one():
    """Causal p0 keeps only itself: e^s / e^s is written 1, and the denominator is on the masked S̃."""
    for lang in LANGS:
        md = text("sdpa-causal-toi-di-hoc", lang)
        assert "- α(p0→p0) = $1$ ≈ 1.0000" in md
        assert not re.search(r"α\(p\d→p\d\) = \$\\frac\{([^$]+)\}\{\1\}\$", md)  # no x/x anywhere
        assert r"\exp(\tilde{S}_0[0, k])" in md


def test_channel_maps_are_grouped_into_lines_that_fit():
    from attnwalk.latex import bmatrix
    from attnwalk.views.layout import rows

    m = {"label": "O[:,0,:,:]", "tex": bmatrix(np.full((3, 3), -0.1234), 4)}  # 10 + 3 + (21 + 4 + 2) = 40
    assert [len(r) for r in rows([m] * 5)] == [2, 2, 1]  # two: 40 + 4 + 40 = 84; three: 128 > 100
    big = {"label": "O[:,0,:,:]", "tex": bmatrix(np.full((3, 12), -0.1234), 4)}
    assert [len(r) for r in rows([big, m, m])] == [1, 2]  # a wide map stands alone; order is kept
    assert rows([]) == []


@pytest.mark.parametrize("lang", LANGS)
def test_yolo_channel_maps_side_by_side_are_read_by_check(lang, tmp_path):
    md = text("yolo-3x3-seed42", lang)
    m = re.search(r"^O\[:,0,:,:\] =\n\\begin\{bmatrix\}\n.*?\\end\{bmatrix\}\n,\\quad\n"
                  r"O\[:,1,:,:\] =\n\\begin\{bmatrix\}\n(-?\d+\.\d+)", md, re.M | re.S)
    assert m, "O's channel maps side by side"
    line = md[:m.start(1)].count("\n") + 1
    rep = check_file(NOTES / f"yolo-3x3-seed42.{lang}.md")
    assert line in {r.line for r in rep.verified}
    num = m.group(1)
    bad = md[:m.start(1)] + num[:-1] + str((int(num[-1]) + 5) % 10) + md[m.end(1):]
    p = tmp_path / f"yolo-3x3-seed42.{lang}.md"
    p.write_text(bad, encoding="utf-8")
    assert line in {r.line for r in check_file(p).wrong}


@pytest.mark.parametrize("name", ["yolo-3x3-seed42", "yolo-3x3-seed42-module", "mha-seed-002"])
@pytest.mark.parametrize("lang", LANGS)
def test_weights_are_folded_and_still_checked(name, lang):
    md = text(name, lang)
    s = next(v for k, v in sections(md).items() if k.startswith(("Weights", "Trọng số")))
    folded = s[s.index("<details markdown=\"1\">"):s.index("</details>")]
    labels = re.findall(r"^(W_\{\w+\}(?:\[\d\])?) =$", folded, re.M)
    assert len(labels) >= 2, labels  # every weight matrix sits inside the fold
    assert not re.search(r"^W_\{\w+\}(?:\[\d\])? =$", s.replace(folded, ""), re.M)
    start = md.index(folded)
    first, last = md[:start].count("\n") + 1, md[:start + len(folded)].count("\n") + 1
    rep = check_file(NOTES / f"{name}.{lang}.md")
    assert len([r for r in rep.verified if first <= r.line <= last]) >= 20


@pytest.mark.parametrize("lang", LANGS)
def test_mha_heads_side_by_side(lang):
    """Each head's Q, K, V on one line, and the heads' S, Ŝ, O side by side (they fit a page column)."""
    md = text("mha-seed-002", lang)
    for a, b in (("Q_0", "K_0"), ("K_0", "V_0"), ("S_0", "S_1"), (r"\hat{S}_0", r"\hat{S}_1"), ("O_0", "O_1")):
        pair = rf"^{re.escape(a)} =\n\\begin\{{bmatrix\}}\n[^$]*?\\end\{{bmatrix\}}\n,\\quad\n{re.escape(b)} =$"
        assert re.search(pair, md, re.M), (a, b)


# ------------------------------------------------------------------ long rows (views/elide.py) still teach

LONG_NOTES = {  # a committed course note and rendered ones, each with rows of 64 keys
    "yolo-8x8-seed42": None,
    "sdpa-64": dict(variant="sdpa", tokens=64, dim=8, heads=2),
    "mha-64-causal": dict(variant="mha", tokens=64, dim=8, heads=2, mask="causal"),
}
WORKED_SOFTMAX = {"en": ("Row-wise softmax", "Step 3", "Step 4"), "vi": ("Softmax theo hàng", "Bước 3", "Bước 4")}
SANITY = {"en": "Check: this row sums (before rounding) to ", "vi": "Kiểm tra: tổng hàng này (trước khi làm tròn) là "}


def _long_note(name: str, lang: str) -> str:
    if LONG_NOTES[name] is None:
        return text(name, lang)
    from attnwalk.render import render_markdown

    return render_markdown(walk(**LONG_NOTES[name], lang=lang), lang)


@pytest.mark.parametrize("name", list(LONG_NOTES))
@pytest.mark.parametrize("lang", LANGS)
def test_a_long_row_is_still_worked_by_hand_with_its_sanity_check(name, lang):
    """With 64 keys the worked softmax still shows real exponentials (each one exp(ŝ - m) of the numbers
    printed beside it), the sum of the printed numbers, the row-sums-to-one check, and says what was
    left out and where every value is (the JSON/NPZ trace)."""
    md = _long_note(name, lang)
    sec = next(s for t, s in sections(md).items() if "softmax" in t.lower() and t.startswith(WORKED_SOFTMAX[lang]))
    code = re.search(r"```\n(.*?)```", sec, re.S).group(1)
    m = float(re.search(r"^m = max = (-?\d+\.\d+)", code, re.M).group(1))
    exps = re.findall(r"^exp\((-?\d+\.\d+) - (-?\d+\.\d+)\) = (\d+\.\d+)", code, re.M)
    assert len(exps) >= 3
    for a, mm, e in exps:
        places = len(e.split(".")[1])
        assert float(mm) == m
        # the printed operands carry their rounding: exp'(x) * 1e-places at most
        assert abs(np.exp(float(a) - m) - float(e)) <= 0.5 * 10.0**-places + 1e-7 * np.exp(float(a) - m) * 2
    assert "…" in code and len(code.splitlines()) <= 20
    total = re.search(r"^\s+= (\d+\.\d+)\n(?!\s+[+=])", code, re.M)
    assert total, code
    s = re.search(re.escape(SANITY[lang]) + r"(\d+\.\d+)", sec)
    assert s and abs(float(s.group(1)) - 1) <= 1e-12
    assert "--format json" in sec and "--format npz" in sec


def test_the_large_course_notes_intuition_is_computed_from_its_numbers():
    """The yolo 8x8 note's "what it means" calls its weights not uniform from the range it prints, which
    is the trace's: the largest and smallest weight against 1/N."""
    for lang in LANGS:
        md = text("yolo-8x8-seed42", lang)
        tr = trace_of(md)
        attn = tr["attn"][0]
        word = {"en": r"\*\*not uniform\*\* \(from (\d\.\d+) to (\d\.\d+), against the uniform (\d\.\d+)\)",
                "vi": r"\*\*không đều\*\* \(từ (\d\.\d+) đến (\d\.\d+), so với mức đều (\d\.\d+)\)"}[lang]
        m = re.search(word, md)
        assert m, lang
        lo, hi, uni = map(float, m.groups())
        assert abs(lo - attn.min()) <= 5e-5 and abs(hi - attn.max()) <= 5e-5 and abs(uni - 1 / 64) <= 5e-5
        assert hi - lo >= 0.5 * uni  # the reason it is called not uniform
