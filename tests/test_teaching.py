"""The notes teach: intuition computed from the numbers, formula and shape at every step, checked
exercises, the real regenerate command, vi/en parity and a course index whose links resolve."""

import re
import shlex
from pathlib import Path

import numpy as np
import pytest

import attnwalk
from attnwalk.check import check_file
from attnwalk.cli import main
from attnwalk.scenario import load_scenario
from attnwalk.views import intuition

REPO = Path(__file__).resolve().parent.parent
NOTES = REPO / "examples" / "notes"
SEQ_NOTES = ["hand-2x2", "sdpa-causal-toi-di-hoc", "sdpa-cross-attention", "mha-seed-002"]
ALL_NOTES = sorted({p.name.split(".")[0] for p in NOTES.glob("*.md")})
ORDER = ["hand-2x2", "sdpa-causal-toi-di-hoc", "sdpa-cross-attention", "mha-seed-002", "yolo-3x3-seed42",
         "yolo-3x3-seed42-module", "yolo-8x8-seed42"]


def note(name: str, lang: str) -> str:
    return (NOTES / f"{name}.{lang}.md").read_text(encoding="utf-8")


# ------------------------------------------------------------------ intuition rules on crafted traces

def test_ties_are_reported_as_ties():
    a = np.array([[0.1, 0.4, 0.1, 0.4], [0.7, 0.1, 0.1, 0.1]])
    names = ["p0", "p1", "p2", "p3"]
    rows = intuition.ties(a, names, names, 4)
    assert rows[0]["ks"] == ["p1", "p3"] and rows[0]["tie"] and rows[0]["w"] == "0.4000"
    assert rows[1]["ks"] == ["p0"] and not rows[1]["tie"]
    # a difference far below the printed precision is still not a tie: weights differ
    b = np.array([[0.5, 0.5 - 1e-9]])
    assert intuition.ties(b, names[:2], names[:2], 4)[0]["ks"] == ["p0"]


def test_tied_keys_with_equal_key_vectors_are_explained():
    k = np.array([[0.0], [1.0], [0.0], [1.0]])
    rows = [{"tie": True, "j": [1, 3]}]
    assert intuition.equal_keys(k, rows, ["p0", "p1", "p2", "p3"]) == [{"ks": ["p1", "p3"], "k": "1"}]
    k2 = np.array([[0.0], [1.0], [0.0], [2.0]])
    assert intuition.equal_keys(k2, rows, ["p0", "p1", "p2", "p3"]) == []


def test_tie_of_different_keys_is_explained_by_equal_scores():
    # q = [1, 0] reads channel 0 only: keys [1, 0] and [1, 5] score 1 alike, [0, 1] scores 0
    q = np.array([[1.0, 0.0]])
    k = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 5.0]])
    s = q @ k.T
    a = np.exp(s) / np.exp(s).sum(-1, keepdims=True)
    names = ["m0", "m1", "m2"]
    rows = intuition.ties(a, ["p0"], names, 4)
    assert rows[0]["ks"] == ["m0", "m2"]
    assert intuition.equal_scores(s, k, rows, names, 4) == [{"q": "p0", "i": 0, "js": [0, 2], "ks": ["m0", "m2"],
                                                            "s": "1"}]
    same = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]])  # identical keys: said by equal_keys instead
    assert intuition.equal_scores(q @ same.T, same, intuition.ties(a, ["p0"], names, 4), names, 4) == []


def test_constant_output_column_needs_a_constant_v_column_and_full_rows():
    v = np.array([[1.0, 2.0], [0.0, 2.0], [1.0, 2.0]])
    a = np.full((2, 3), 1 / 3)
    assert [c["name"] for c in intuition.constant_columns(v, a, ["c2", "c3"], 6)] == ["c3"]
    a_empty = np.array([[1 / 3] * 3, [0.0, 0.0, 0.0]])  # a row with no key left outputs 0, not 2
    assert intuition.constant_columns(v, a_empty, ["c2", "c3"], 6) == []


def test_saturation_is_reported_only_when_a_weight_prints_as_one():
    scaled = np.array([[30.0, 0.0, 1.0], [1.0, 0.0, 0.5]])
    e = np.exp(scaled - scaled.max(-1, keepdims=True))
    a = e / e.sum(-1, keepdims=True)
    keep = np.ones((2, 3))
    rows = intuition.saturated(a, scaled, keep, ["p0", "p1"], ["k0", "k1", "k2"], 4)
    assert [(r["q"], r["k"], r["gap"]) for r in rows] == [("p0", "k0", "29.00")]


def test_mask_effect_single_key_row():
    keep = np.tril(np.ones((3, 3)))
    a = np.array([[1.0, 0, 0], [0.3, 0.7, 0], [0.2, 0.4, 0.4]])
    rows = intuition.mask_effects(keep, a, ["p0", "p1", "p2"], ["p0", "p1", "p2"], 4)
    assert [(r["q"], r["k"], r["masked"]) for r in rows] == [("p0", "p0", ["p1", "p2"])]
    assert intuition.mask_effects(None, a, ["p0"], ["p0"], 4) == []


def test_heads_differ_names_the_largest_gap():
    a = np.array([[[0.8, 0.1, 0.1], [0.4, 0.3, 0.3]], [[0.2, 0.3, 0.5], [0.5, 0.3, 0.2]]])
    names = ["p0", "p1", "p2"]
    d = intuition.heads_differ(a, names[:2], names, 2)
    assert d["n_differ"] == 1 and d["rows"][0]["tops"] == ["p0", "p2"] and not d["rows"][1]["differ"]
    assert (d["gap"]["q"], d["gap"]["k"], d["gap"]["w0"], d["gap"]["w1"]) == ("p0", "p0", "0.80", "0.20")
    assert intuition.heads_differ(a[:1], names[:2], names, 2) is None


def test_output_function_of_hand_2x2_is_one_over_one_plus_e_to_the_q():
    import sympy as sp

    from attnwalk.exact import output_functions

    trace = attnwalk.walk(**load_scenario(REPO / "examples" / "scenarios" / "hand-2x2.toml"))
    (c0, f0), (c1, f1) = output_functions(trace)
    q = sp.Symbol("q")
    assert sp.simplify(f0 - 1 / (1 + sp.exp(q))) == 0
    assert f1 == 2
    # and it reproduces the engine's column at q = 1, 2, 3, 4
    assert np.allclose([float(f0.subs(q, i)) for i in (1, 2, 3, 4)], trace["o"][0, 0, :, 0], rtol=1e-14)


def test_hand_2x2_note_states_the_tie_the_constant_column_and_the_closed_form():
    en = note("hand-2x2", "en")
    assert "α(p0→p1) = α(p0→p3) = 0.365529" in en  # p0 attends p1 and p3 equally
    assert "p1 and p3 have the same key (1)" in en
    assert "Why column 1 of $O_0$ (out_c3) is 2 for every token" in en
    # the constant column is shown whole, as a label check verifies
    assert "every key's value in that column is 2 (`V_0[:, 1] = [2, 2, 2, 2]`)" in en
    assert r"O[i, 0] = \frac{1}{e^{q_i} + 1}" in en and "decreasing" in en
    # the variable the sentence names is the one the formula and the trend use (it said q, then wrote q_i)
    for lang in ("en", "vi"):
        md = note("hand-2x2", lang)
        named = re.search(r"query \$(\w+) = Q_0\[i, 0\]\$", md).group(1)
        formula = re.search(r"^O\[i, 0\] = (.*)$", md, re.M).group(1)
        assert set(re.findall(r"(?<![\\A-Za-z])[a-z](?:_[a-z])?(?![A-Za-z])", formula)) == {"e", named}, formula
        assert re.search(rf"(in|theo) \${named}\$[:,]", md), lang
    assert "| token | out_c2 | out_c3 |" in en


def test_causal_note_says_p0_is_decided_by_the_mask():
    en = note("sdpa-causal-toi-di-hoc", "en")
    assert "`A_0[0, :] = [1.0000, 0.0000, 0.0000]` **because of the mask**" in en
    assert r"\tilde{S}_h[i, j] = \begin{cases} \hat{S}_h[i, j] & M[i, j] = 1 \\ -10000 & M[i, j] = 0 \end{cases}" in en
    assert r"\frac{Q K^T}{\sqrt{d_k}} + M" not in en  # M is the keep matrix, never added


def test_mha_note_reports_saturation_and_head_differences():
    en = note("mha-seed-002", "en")
    assert "the softmax is **saturated**" in en
    assert "The heads differ" in en


@pytest.mark.parametrize("lang", ["vi", "en"])
def test_many_saturated_rows_are_worked_four_then_counted(lang):
    """sdpa, 40 tokens projected with std-1 weights: 36 of 40 rows print weight 1 (counted here from the
    softmax of the recorded scaled scores, redone with NumPy). The first four are worked, the rest are one
    counted line, not 36 lines; check reads every decimal of it right."""
    from attnwalk.check import check_text
    from attnwalk.render import render

    t = attnwalk.walk(variant="sdpa", tokens=40, dim=64, heads=1, input="randint", source="project",
                      init_std=1.0, lang=lang)
    s = t["scores_scaled"][0, 0]
    e = np.exp(s - s.max(axis=1, keepdims=True))
    ones = sum(f"{m:.4f}" == "1.0000" for m in (e / e.sum(axis=1, keepdims=True)).max(axis=1))
    assert ones == 36  # the premise
    md = render(t, "md", lang)
    word = {"vi": "softmax đã **bão hoà**", "en": "the softmax is **saturated**"}[lang]
    assert md.count(word) == 4
    more = {"vi": f"- … và {ones - 4} hàng khác cũng bão hoà như vậy: {ones} trên 40 hàng dồn trọng số 1",
            "en": f"- … and {ones - 4} more rows are saturated in the same way: {ones} of the 40 rows put weight 1"}
    assert more[lang] in md
    assert not check_text(md).wrong


# ------------------------------------------------------------------ formula and shape at every step

@pytest.mark.parametrize("name", SEQ_NOTES)
@pytest.mark.parametrize("lang", ["vi", "en"])
def test_every_step_states_its_formula_and_its_shape(name, lang):
    md = note(name, lang)
    steps = re.split(r"^## ", md, flags=re.M)
    step_word, shape_word = ("Step", "Shape") if lang == "en" else ("Bước", "Kích thước")
    found = [s for s in steps if re.match(rf"\d+\. {step_word} \d", s)]
    assert len(found) >= 4
    for s in found:
        title = s.splitlines()[0]
        assert "$$\n" in s, f"no formula in {title}"
        assert shape_word in s, f"no shape in {title}"


# ------------------------------------------------------------------ exercises

@pytest.mark.parametrize("name", SEQ_NOTES)
def test_exercises_answers_are_verified_and_a_changed_digit_is_wrong(name, tmp_path):
    md = note(name, "en")
    start = md.index("## Exercises")
    ex = md[start:]
    assert 3 <= ex.count("<details markdown=\"1\">") <= 5
    first = md[:start].count("\n") + 1
    report = check_file(NOTES / f"{name}.en.md")
    assert not report.wrong
    in_answers = [r for r in report.verified if r.line >= first]
    assert len(in_answers) >= 10, "the answers' numbers are checked"
    # change one digit of the first answer row: the checker reports it wrong, on that line
    m = re.search(r"^(A_0\[\d+, :\] = \[)(\d+\.\d+)", ex, re.M)
    num = m.group(2)
    bad = num[:-1] + str((int(num[-1]) + 3) % 10)
    changed = md[:start] + ex[:m.start(2)] + bad + ex[m.end(2):]
    p = tmp_path / f"{name}.en.md"
    p.write_text(changed, encoding="utf-8")
    wrong = check_file(p).wrong
    assert wrong and all(r.line >= first for r in wrong)


def test_hand_2x2_works_every_row_with_plain_exponentials_first():
    en = note("hand-2x2", "en")
    plain = en.index("Every row by hand, with plain")
    shifted = en.index("as PyTorch computes it")
    assert plain < shifted
    block = en[plain:shifted]
    for i in range(4):
        assert f"Ŝ_0[{i}, :] = " in block
    assert "exp(2) = 7.3890560989" in block and "α(p1→p0) = 1.0000000000 / 16.7781121979 ≈ 0.059601" in block


# ------------------------------------------------------------------ regenerate command, parity, index

def _command(md: str) -> list[str]:
    m = re.search(r"^> ```bash\n> (attnwalk render .*)\n> ```", md, re.M)
    assert m, "no regenerate command"
    return shlex.split(m.group(1))[1:]


@pytest.mark.parametrize("name", ALL_NOTES)
@pytest.mark.parametrize("lang", ["vi", "en"])
def test_regenerate_command_reproduces_the_note_byte_for_byte(name, lang, monkeypatch, capsys, tmp_path):
    md = note(name, lang)
    args = _command(md)
    assert "SCENARIO.toml" not in args
    monkeypatch.chdir(REPO)
    if "-o" not in args:
        assert main(args) == 0
        assert capsys.readouterr().out == md
        return
    # a note with figures: its command writes the note and its figures; redirect both to tmp_path,
    # keeping their relative layout, and compare what it writes with the committed files
    out = Path(args[args.index("-o") + 1])
    figs = Path(args[args.index("--figures") + 1])
    assert REPO.joinpath(out).read_text(encoding="utf-8") == md
    args[args.index("-o") + 1] = str(tmp_path / out.name)
    args[args.index("--figures") + 1] = str(tmp_path / figs.relative_to(out.parent))
    assert main(args) == 0
    assert (tmp_path / out.name).read_text(encoding="utf-8") == md
    written = sorted(p.name for p in (tmp_path / figs.relative_to(out.parent)).iterdir())
    assert written and all((REPO / figs / f).read_bytes() == (tmp_path / "figures" / f).read_bytes() for f in written)


NUM = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?")


def _numbers(md: str) -> list[str]:
    body = md.split("\n---\n", 1)[1]
    body = re.sub(r"^> ```bash\n.*?\n> ```$", "", body, flags=re.M | re.S)  # the command names its language
    return NUM.findall(body)


@pytest.mark.parametrize("name", ALL_NOTES)
def test_vi_and_en_carry_the_same_numbers_in_the_same_order(name):
    vi, en = _numbers(note(name, "vi")), _numbers(note(name, "en"))
    assert vi == en


def test_course_index_lists_the_notes_in_learning_order_with_links_that_resolve():
    for lang in ("vi", "en"):
        index = (REPO / "examples" / f"index.{lang}.md").read_text(encoding="utf-8")
        links = re.findall(r"\]\(([^)]+\.md)\)", index)
        assert [Path(x).name for x in links] == [f"{n}.{lang}.md" for n in ORDER]
        for x in links:
            assert (REPO / "examples" / x).is_file()
        for term in ("query", "key", "value", "head", "key_dim", "scale", "mask fill", "closed form"):
            assert term in index
    # each note links to its previous and next note, and the index
    for lang in ("vi", "en"):
        for k, name in enumerate(ORDER):
            md = note(name, lang)
            nav = [line for line in md.splitlines() if line.startswith(("Course:", "Khoá học:"))]
            assert len(nav) == 1
            targets = re.findall(r"\]\(([^)]+)\)", nav[0])
            for t in targets:
                assert (NOTES / t).resolve().is_file(), t
            names = [Path(t).name for t in targets]
            if k:
                assert f"{ORDER[k - 1]}.{lang}.md" in names
            if k + 1 < len(ORDER):
                assert f"{ORDER[k + 1]}.{lang}.md" in names


def test_vi_notes_use_the_course_terms():
    for name in ALL_NOTES:
        vi = note(name, "vi")
        assert " rút " not in vi and "chở **nội dung**" not in vi
        snippet = vi[vi.rindex("```python"):]
        snippet = snippet[:snippet.index("\n```\n")]
        for comment in re.findall(r"#\s*(.+)$", snippet, re.M):
            assert not re.search(r"\b(the|a|with|what|returns|keys|padding|attend|so|after)\b", comment), comment


def test_small_defects_are_gone():
    for lang in ("vi", "en"):
        titles = {name: note(name, lang).splitlines()[1] for name in ALL_NOTES}
        assert len(set(titles.values())) == len(titles), "every note has its own title"
        for t in titles.values():
            assert "1 heads" not in t and "(s)" not in t
        yolo = note("yolo-3x3-seed42", lang)
        assert "| 4 | 1 | Q_1[0] |" in yolo and "| 0 | 0 | Q_0[0] |" in yolo  # head 1's channels say head 1
        assert re.search(r"^PE\[:,0,0,0\] = \(-?\d\.\d+\)\(-?\d\.\d+\) \+", yolo, re.M)  # the PE step's products


@pytest.mark.parametrize("name", ALL_NOTES)
def test_worked_sums_fit_a_page_column(name):
    """Worked arithmetic wraps: no line of a worked (non-Python) code block is wider than 80 characters."""
    for lang in ("vi", "en"):
        md = note(name, lang)
        info = None  # the info string of the open fence, None outside a code block
        for line in md.splitlines():
            if line.startswith("```"):
                info = line[3:] if info is None else None
                continue
            if info != "":
                continue  # prose, or a python/bash block
            assert len(line) <= 80, line


def test_constant_column_is_shown_whole_and_checked(tmp_path):
    """`V_0[:, 1] = [2, 2, 2, 2]` in the intuition is a label: a wrong entry there is reported wrong."""
    for lang in ("vi", "en"):
        md = note("hand-2x2", lang)
        line = "`V_0[:, 1] = [2, 2, 2, 2]`"
        assert md.count(line) == 1
        p = tmp_path / f"hand-2x2.{lang}.md"
        p.write_text(md.replace(line, "`V_0[:, 1] = [2, 2, 3, 2]`"), encoding="utf-8")
        wrong = check_file(p).wrong
        assert [r.text for r in wrong] == ["3"]


def _worked_code(md: str) -> str:
    """The lines of a note's worked (non-Python, non-shell) code blocks."""
    out, info = [], None
    for line in md.splitlines():
        if line.startswith("```"):
            info = line[3:] if info is None else None
        elif info == "":
            out.append(line)
    return "\n".join(out)


@pytest.mark.parametrize("name", ALL_NOTES)
def test_worked_lines_speak_the_notes_language_and_stay_readable(name):
    """vi worked lines say "tổng" (one term for the sum of a row, as the prose does), a masked term is
    explained in Vietnamese; no exponent is padded with zeros; a query with a word is never doubly
    parenthesised ("Row 2 (p2 (học))")."""
    vi, en = note(name, "vi"), note(name, "en")
    code = _worked_code(vi)
    assert not re.search(r"\b(sum|total|masked|vanishes)\b", code), name
    if "sum =" in _worked_code(en):
        assert "tổng =" in code
    for md in (vi, en):
        assert not re.search(r"\.0{12,}\)", md)  # exp(-2), never exp(-2.000000000000000)
        assert not re.search(r"\(p\d+ \([^()\n]*\)\)", md)


@pytest.mark.parametrize("lang", ["vi", "en"])
def test_cross_attention_projection_states_its_shapes_and_check_verifies_them(lang, tmp_path):
    """The projection step names every shape (X, X_kv, the weights, each product) and the check table
    lists the inputs and weights; a wrong size in the sentence is reported wrong."""
    md = note("sdpa-cross-attention", lang)
    is_ = "là" if lang == "vi" else "is"
    sentence = (f"$W_Q$ {is_} 2 × 3, $W_K$ {is_} 2 × 3, $W_V$ {is_} 2 × 3. ")
    assert sentence in md
    assert "$K = X_{kv} W_K^T$ " + is_ + " (3 × 3) · (3 × 2) → 3 × 2" in md
    for row in ("| `x_kv` | (1, 3, 3) |", "| `w_q` | (2, 3) |", "| `w_v` | (2, 3) |"):
        assert row in md
    p = tmp_path / f"cross.{lang}.md"
    p.write_text(md.replace("(3 × 3) · (3 × 2) → 3 × 2", "(3 × 3) · (3 × 2) → 3 × 3", 1), encoding="utf-8")
    wrong = check_file(p).wrong
    assert [r.text for r in wrong] == ["3"]


def test_vi_course_terms_one_per_concept():
    """Issue 10 item 8: the usual course terms, the English one in parentheses the first time; "tính tay"
    for working by hand everywhere (never "làm tay")."""
    for name in ALL_NOTES:
        vi = note(name, "vi")
        assert "làm tay" not in vi.lower(), name
        if name.startswith("yolo"):
            for term in ("Tích chập (convolution)", "mã hoá vị trí (positional encoding)", "đổi hình (view)",
                         "Phép chiếu (projection)"):
                assert term in vi, (name, term)
            assert "## 11. Bước 5 — Mã hoá vị trí (positional encoding, PE)" in vi
            assert "xem lại (view)" not in vi and "được view lại" not in vi and "**projection**" not in vi


def test_cross_attention_intuition_says_o_has_a_row_per_query():
    en, vi = note("sdpa-cross-attention", "en"), note("sdpa-cross-attention", "vi")
    assert "so $O_h$ has one row per **query** (2 × 2), not per key" in en
    assert "nên $O_h$ có một hàng cho mỗi **query** (2 × 2)" in vi
    assert "Cross-attention mixes" not in note("hand-2x2", "en")  # self-attention says nothing of it


@pytest.mark.parametrize("lang", ["vi", "en"])
def test_hand_example_trend_names_where_out_c2_starts_and_ends(lang, tmp_path):
    """Seed 004 says where out_c2 goes (p0, Q = 1: ~0.2687; p3, Q = 4: ~0.01798, the smallest); the note's
    decreasing-in-q_i sentence does too: Out(p0) = [1/(1+e), 2] at the smallest query, Out(p3) = [1/(1+e^4), 2]
    at the largest (hand-derived), and `attnwalk check` reads those numbers: a changed digit is wrong."""
    import math

    md = (NOTES / f"hand-2x2.{lang}.md").read_text(encoding="utf-8")
    lo, hi = f"{1 / (1 + math.e):.6f}", f"{1 / (1 + math.e ** 4):.6f}"
    assert (lo, hi) == ("0.268941", "0.017986")
    want = {"en": f"from Out(p0) = [{lo}, 2.000000] at p0, the smallest query, to Out(p3) = [{hi}, 2.000000] "
                  "at p3, the largest",
            "vi": f"từ Out(p0) = [{lo}, 2.000000] ở p0, query nhỏ nhất, đến Out(p3) = [{hi}, 2.000000] ở p3, "
                  "query lớn nhất"}[lang]
    assert want in md
    bad = tmp_path / "bad.md"
    bad.write_text(md.replace(want, want.replace(hi, "0.017987")), encoding="utf-8")
    assert [(r.text, r.checks[0][1]) for r in check_file(str(bad)).wrong] == [("0.017987", "Out(p3)")]


@pytest.mark.parametrize("lang", ["vi", "en"])
def test_masked_closed_forms_drop_the_masked_terms_before_using_them(lang):
    """The causal note's closed forms: the sentence saying the masked e^{-10000} terms are left out comes
    before the denominator written without them (it used to come one sentence after)."""
    md = (NOTES / f"sdpa-causal-toi-di-hoc.{lang}.md").read_text(encoding="utf-8")
    dropped = md.index("$10^{-4000}$")
    used = md.index(r"$\sum_k \exp(\tilde{S}_0[0, k]) = ")
    assert dropped < used
    # the denominator of row 0 (query 0 sees key 0 only) is then the one kept term, e^{Ŝ[0, 0]}
    assert md[used:].startswith(r"$\sum_k \exp(\tilde{S}_0[0, k]) = e^{")


@pytest.mark.parametrize("lang", ["vi", "en"])
def test_one_head_mha_speaks_of_one_head(lang):
    """mha with one head: merging the heads only drops the head axis (O_cat is head 0's O, on the trace),
    and the note says so; it never names a head 1 or says "each head has its own Q, K, V"."""
    from attnwalk.render import render

    trace = attnwalk.walk(variant="mha", tokens=4, heads=1, lang=lang)
    assert np.array_equal(np.asarray(trace["o_merged"])[0], np.asarray(trace["o"])[0, 0])
    md = render(trace, "md", lang)
    assert "head 1" not in md
    assert ("with one head this only drops the head axis" if lang == "en"
            else "với một head, bước này chỉ bỏ trục head") in md
    assert ("Each head has its own" if lang == "en" else "Mỗi head có Q, K, V riêng") not in md


@pytest.mark.parametrize("lang", ["vi", "en"])
def test_a_negative_runner_up_is_subtracted_in_parentheses(lang):
    """sdpa, padding mask: p1's runner-up scaled score is negative, and the gap reads `a - (-b) = c`, not
    `a - -b`; `attnwalk check` still evaluates it (no wrong number)."""
    from attnwalk.check import check_text
    from attnwalk.render import render

    trace = attnwalk.walk(variant="sdpa", tokens=4, mask="padding:1", lang=lang)
    md = render(trace, "md", lang)
    assert " - -" not in md
    gaps = re.findall(r"`(-?\d+\.\d+) - \((-\d+\.\d+)\) = (\d+\.\d+)`", md)
    assert gaps
    for top, second, gap in gaps:
        assert abs(float(top) - float(second) - float(gap)) <= 0.006  # the gap printed with 2 decimals
    assert check_text(md).wrong == []


@pytest.mark.parametrize("lang", ["vi", "en"])
def test_hand_example_sets_the_scores_as_seed_004s_multiplication_table(lang, tmp_path):
    """Seed 004's score table: headers carry each token's value (``Q(p1) = 2``, ``K(p3) = 1``; seed 004's ``Q(p1)=2``
    cannot wrap, and the table scrolled on a 390 px phone in test_html_browser), so S = Q Kᵀ reads
    as the outer product of the columns Q = c0, K = c1 of the scenario's X (hand-derived: every cell is its row
    header times its column header), and `attnwalk check` verifies every number of it: a changed cell is wrong."""
    md = note("hand-2x2", lang)
    x = np.array(load_scenario(REPO / "examples/scenarios/hand-2x2.toml")["x"], dtype=float)
    q, k = x[:, 0], x[:, 1]
    table = re.search(r"^\| \| (K\(p0\) = .*)\|\n\|---.*\n((?:\| Q\(.*\n)+)", md, re.M)
    assert table is not None
    heads = [h.strip() for h in table.group(1).split("|") if h.strip()]
    assert heads == [f"K(p{j}) = {k[j]:g}" for j in range(4)]
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in table.group(2).splitlines()]
    assert [r[0] for r in rows] == [f"Q(p{i}) = {q[i]:g}" for i in range(4)]
    assert [[float(c) for c in r[1:]] for r in rows] == np.outer(q, k).tolist()
    zero = ", ".join(f"p{j}" for j in range(4) if k[j] == 0)
    assert zero == "p0, p2" and f" {zero} " in md[table.end():].split("\n\n")[0]
    rep = check_file(str(NOTES / f"hand-2x2.{lang}.md"))
    lines = {md[:table.start(2)].count("\n") + 1 + i for i in range(4)}
    assert {r.line for r in rep.verified} >= lines and not rep.wrong
    bad = tmp_path / "bad.md"
    bad.write_text(md.replace("| Q(p2) = 3 | 0 | 3 |", "| Q(p2) = 3 | 0 | 4 |"), encoding="utf-8")
    assert [(r.text, str(r.checks[0][1])) for r in check_file(str(bad)).wrong] == [("4", "S[2, 1]")]
