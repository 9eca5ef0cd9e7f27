"""The yolo notes' computed intuition and exercises: the rules on crafted arrays (hand-derived
expected values), and every number they print read and verified by ``attnwalk check``."""

import math
import re
from pathlib import Path

import numpy as np
import pytest

from attnwalk.api import walk
from attnwalk.check import check_file, check_text
from attnwalk.render import render
from attnwalk.views import intuition

REPO = Path(__file__).resolve().parent.parent
NOTES = REPO / "examples" / "notes"
YOLO_NOTES = ["yolo-3x3-seed42", "yolo-3x3-seed42-module"]


# ------------------------------------------------------------------ rules on crafted arrays

def test_closeness_to_uniform_names_the_extremes_and_the_farther_one():
    # N = 4, 1/N = 0.25; head 0: min 0.1 at (1, 0), max 0.4 at (0, 3): 0.4 - 0.25 = 0.15 > 0.25 - 0.1 = 0.15?
    # no: equal distances; take max 0.45 so the largest is farther (0.20 against 0.15)
    a0 = np.array([[0.15, 0.2, 0.2, 0.45], [0.1, 0.3, 0.3, 0.3]])
    # head 1: min 0.05 (twice: a tie), max 0.3: the smallest is farther (0.20 against 0.05)
    a1 = np.array([[0.05, 0.3, 0.3, 0.35], [0.05, 0.3, 0.35, 0.3]])
    u0, u1 = intuition.closeness_to_uniform(np.stack([a0, a1]), 4)
    assert (u0["lo"], u0["hi"], u0["min"], u0["max"], u0["uniform"]) == ((1, 0), (0, 3), "0.1000", "0.4500", "0.2500")
    assert (u0["far"], u0["dev"], u0["ratio"], u0["n_lo"], u0["n_hi"]) == ("max", "0.2000", "4.500", 1, 1)
    assert not u0["near"]  # 0.20 is not below half of 1/4 = 0.125
    assert (u1["lo"], u1["n_lo"], u1["hi"], u1["n_hi"]) == ((0, 0), 2, (0, 3), 2)  # ties counted, first kept
    assert (u1["far"], u1["dev"], u1["ratio"]) == ("min", "0.2000", "7.000")


def test_closeness_to_uniform_near_and_flat():
    near = np.array([[[0.24, 0.26, 0.25, 0.25]]])  # farthest 0.01 from 1/4, well within 0.125
    (u,) = intuition.closeness_to_uniform(near, 4)
    assert u["near"] and not u["flat"] and u["dev"] == "0.0100" and u["ratio"] == "1.083"  # 0.26 / 0.24
    flat = np.full((1, 3, 3), 1 / 3)
    (f,) = intuition.closeness_to_uniform(flat, 4)
    assert f["flat"] and f["near"] and f["n_lo"] == 9 and f["dev"] == "0.0000" and f["ratio"] == "1.000"


def test_favourites_ties_least_and_preference_span():
    names = ["p0", "p1", "p2"]
    a = np.array([[0.2, 0.3, 0.5], [0.1, 0.45, 0.45], [0.25, 0.25, 0.5]])
    favs = intuition.favourites(a, names, names, 4)
    assert [f["ks"] for f in favs] == [["p2"], ["p1", "p2"], ["p2"]]  # row 1: a tie, both kept
    assert [f["low"] for f in favs] == ["p0", "p0", "p0"]  # argmin: first of a tie (row 2)
    assert [f["ratio"] for f in favs] == ["2.500", "4.500", "2.000"]  # 0.5/0.2, 0.45/0.1, 0.5/0.25
    assert intuition.same_favourite(favs) is None  # the tie in row 1 breaks "every query favours"
    assert intuition.same_least(favs) == "p0"
    span = intuition.preference_span(favs)
    assert span["strong"]["q"] == "p1" and span["weak"]["q"] == "p2"
    favs2 = intuition.favourites(a[[0, 2]], names[:2], names, 4)
    assert intuition.same_favourite(favs2) == "p2"
    zero = intuition.favourites(np.array([[0.0, 1.0]]), ["p0"], ["p0", "p1"], 4)
    assert zero[0]["ratio"] is None and intuition.preference_span(zero) is None


def test_one_dim_keys_ordering_and_its_closed_form():
    k = np.array([0.5, -1.0, 2.0, 0.0])
    assert intuition.one_dim_keys(np.array([0.3, 1.2, 0.7, 2.0]), k, 4) == {
        "sign": "positive", "j": 2, "lo": 1, "extreme": "largest", "k": "2.0000"}
    assert intuition.one_dim_keys(np.array([-0.3, -1.0, -2.0, -0.1]), k, 4)["j"] == 1  # smallest K wins
    assert intuition.one_dim_keys(np.array([0.3, -1.0, 0.2, 0.1]), k, 4) is None  # mixed signs
    assert intuition.one_dim_keys(np.ones(4), np.array([1.0, 2.0, 2.0, 0.0]), 4) is None  # two largest K
    # the claim the note prints: A[i, j] / A[i, l] = exp(q_i (k_j - k_l)) for key_dim = 1, scale 1
    q = np.array([0.3, 1.2, 0.7, 2.0])
    s = np.outer(q, k)
    a = np.exp(s) / np.exp(s).sum(-1, keepdims=True)
    for i in range(4):
        assert a[i, 2] / a[i, 1] == pytest.approx(math.exp(q[i] * (2.0 - -1.0)), rel=1e-12)
        assert int(np.argmax(a[i])) == 2


def test_heads_gap_names_the_pair_with_the_largest_difference():
    names = ["p0", "p1", "p2"]
    # row 0: gaps 0.2, 0.05, 0.15 between the heads -> (p0, p0); row 1 identical in both heads
    attn = np.array([[[0.6, 0.3, 0.1], [0.2, 0.5, 0.3]], [[0.4, 0.35, 0.25], [0.2, 0.5, 0.3]]])
    d = intuition.heads_differ(attn, names[:2], names, 4)
    assert d["gap"] == {"q": "p0", "k": "p0", "h0": 0, "h1": 1, "i": 0, "j": 0, "w0": "0.6000", "w1": "0.4000"}
    assert d["n_differ"] == 0 and d["rows"][0]["tops"] == ["p0", "p0"]
    attn[1, 1] = [0.3, 0.2, 0.5]  # now row 1's favourites differ: p1 in head 0, p2 in head 1
    d = intuition.heads_differ(attn, names[:2], names, 4)
    assert d["n_differ"] == 1 and d["rows"][1]["tops"] == ["p1", "p2"]
    same = np.stack([attn[0], attn[0]])
    assert intuition.heads_differ(same, names, names, 4) is None  # nothing to tell apart


def test_pe_against_o_finds_the_places_and_the_signed_ratio():
    o = np.zeros((2, 2, 2))
    o[1, 0, 1] = -2.5  # the largest |O|, negative
    o[0, 1, 1] = 1.0
    pe = np.zeros((2, 2, 2))
    pe[0, 1, 0] = 0.5  # the largest |PE|, positive
    pe[1, 1, 1] = -0.25
    r = intuition.relative_size(pe, o, 4)
    assert (r["part_at"], r["whole_at"], r["part"], r["whole"]) == ((0, 1, 0), (1, 0, 1), "0.5000", "-2.5000")
    assert (r["part_sign"], r["whole_sign"], r["ratio"], r["small"]) == ("", "-", "0.2000", True)  # 0.5 / 2.5
    big = intuition.relative_size(o, pe, 4)  # O against PE: 2.5 / 0.5 = 5
    assert big["ratio"] == "5.0000" and not big["small"] and big["part_sign"] == "-"


# ------------------------------------------------------------------ the notes: every number read and right

def _section(md: str, title: str) -> tuple[int, int]:
    """First and last line (1-based) of the ``## N. title`` section."""
    lines = md.split("\n")
    start = next(n for n, ln in enumerate(lines, 1) if re.match(rf"## \d+\. {title}", ln))
    end = next((n for n, ln in enumerate(lines, 1) if n > start and ln.startswith("## ")), len(lines) + 1)
    return start, end - 1


WHY = {"en": "What it means", "vi": "Ý nghĩa"}


def _mutate(md: str, line: int, k: int) -> tuple[str, str]:
    """Change the last digit of the k-th decimal number on ``line``."""
    lines = md.split("\n")
    ms = list(re.finditer(r"(?<![\w.])\d+\.\d+", lines[line - 1]))
    m = ms[k % len(ms)]
    s = m.group(0)
    lines[line - 1] = lines[line - 1][:m.start()] + s[:-1] + str((int(s[-1]) + 3) % 10) + lines[line - 1][m.end():]
    return "\n".join(lines), s


@pytest.mark.parametrize("name", YOLO_NOTES)
@pytest.mark.parametrize("lang", ["vi", "en"])
def test_intuition_numbers_are_all_verified_and_a_changed_digit_is_wrong(name, lang, tmp_path):
    path = NOTES / f"{name}.{lang}.md"
    md = path.read_text(encoding="utf-8")
    a, b = _section(md, WHY[lang])
    rep = check_file(path)
    assert not rep.wrong
    unread = [(u.line, u.text) for u in rep.unknown if a <= u.line <= b and "." in u.text]
    assert unread == [], unread
    verified = [r for r in rep.verified if a <= r.line <= b]
    assert len(verified) >= 30
    # every line of the section that carries a decimal: a changed digit there is reported on that line
    lines = sorted({r.line for r in verified})
    for k in (0, 1, 2):
        text = md
        for n in lines:
            text, _ = _mutate(text, n, k)
        p = tmp_path / path.name
        p.write_text(text, encoding="utf-8")
        wrong = {r.line for r in check_file(p).wrong}
        assert set(lines) <= wrong, sorted(set(lines) - wrong)


@pytest.mark.parametrize("opts", [
    {"h": 3, "w": 3, "heads": 2, "seed": 42, "pe_on": "o"},
    {"h": 2, "w": 3, "dim": 8, "heads": 2, "attn_ratio": 1.0, "seed": 7, "input": "randint"},  # key_dim 4
    {"h": 3, "w": 2, "dim": 4, "heads": 1, "seed": 3, "input": "normal", "init_std": 1.0},  # sharp rows
    {"h": 2, "w": 2, "dim": 8, "heads": 4, "seed": 0, "init_std": 0.5, "lang": "en"},
])
def test_intuition_of_other_configs_is_read_and_right(opts):
    """Other shapes take the other branches (no shared favourite: the labelled table; key_dim > 1;
    one head; rows far from uniform): still every decimal of the section is verified."""
    t = walk(**opts)
    md = render(t, "md", t.config["lang"])
    a, b = _section(md, WHY[t.config["lang"]])
    r = check_text(md)
    assert r.failure_lines() == []
    assert [(u.line, u.text) for u in r.unknown if a <= u.line <= b and "." in u.text] == []
    assert len([v for v in r.verified if a <= v.line <= b]) >= 8


def test_other_configs_reach_the_table_and_the_not_uniform_branch():
    t = walk(h=3, w=2, dim=4, heads=1, seed=3, input="normal", init_std=1.0, lang="en")
    md = render(t, "md", "en")
    assert "the rows are **not uniform**" in md
    assert "| query | favoured key | weight | least favoured | weight | ratio |" in md  # no shared favourite
    # each cell is a label the checker reads (its values are verified by the test above)
    assert re.search(r"^\| p0 \| p(\d) \| `A_0\[0, \1\] = 0\.\d{4}` \| p(\d) \| `A_0\[0, \2\] = 0\.\d{4}` \| "
                     r"`A_0\[0, \1\] / A_0\[0, \2\] ≈ \d+\.\d{3}` \|$", md, re.M)
    t2 = walk(h=2, w=2, dim=8, heads=4, seed=0, init_std=0.5, lang="en")
    md2 = render(t2, "md", "en")
    assert "the smallest is below 1/1000 of the largest" in md2  # a saturated head: no huge ratio printed


@pytest.mark.parametrize("name", YOLO_NOTES)
@pytest.mark.parametrize("lang", ["vi", "en"])
def test_yolo_exercises_answers_are_verified_and_a_changed_digit_is_wrong(name, lang, tmp_path):
    path = NOTES / f"{name}.{lang}.md"
    md = path.read_text(encoding="utf-8")
    title = {"en": "Exercises", "vi": "Bài tập"}[lang]
    a, b = _section(md, title)
    fold = '<details markdown="1">'
    assert 3 <= md.count(fold) - md[:md.index(f". {title}")].count(fold) <= 5
    rep = check_file(path)
    assert not rep.wrong
    verified = [r for r in rep.verified if a <= r.line <= b]
    assert len(verified) >= 30
    assert [(u.line, u.text) for u in rep.unknown if a <= u.line <= b and "." in u.text] == []
    # the answer to "row 8 of A_0": change its first weight
    lines = md.split("\n")
    n = next(i for i, ln in enumerate(lines, 1) if a <= i and re.match(r"A_0\[\d+, :\] = \[", ln))
    text, _ = _mutate(md, n, 0)
    p = tmp_path / path.name
    p.write_text(text, encoding="utf-8")
    assert n in {r.line for r in check_file(p).wrong}


def test_saturation_counts_rows_that_print_weight_one_and_works_the_first():
    """Hand-made scaled scores: row 0 leads by 20 (e^-20 ≈ 2e-9: prints 1.0000), row 1 by 10 over two keys
    (weights 1 / (1 + e^-10 + e^-11) ≈ 0.99994: prints 0.9999, not saturated), row 2 not at all."""
    scaled = np.array([[0.0, 20.0, -1.0], [10.0, 0.0, -1.0], [1.0, 0.5, 0.0]])
    e = np.exp(scaled - scaled.max(axis=1, keepdims=True))
    attn = e / e.sum(axis=1, keepdims=True)
    r = intuition.saturation(attn, scaled, 4)
    assert (r["rows"], r["n"], r["all"], r["i"], r["k"], r["j"]) == (1, 3, False, 0, 1, 0)
    assert (r["top"], r["second"], r["gap"], r["minus_second"]) == ("20.0000", "0.0000", "20.00", "0.0000")
    assert (r["w_top"], r["w_second"]) == ("1.0000", "0.0000")  # 1 / (1 + e^-20 + e^-21), e^-20 / (...)
    assert r["about"] == str(round(math.log(2e4))) == "10"  # e^-lead < 0.00005 once lead > ln(20000) ≈ 9.9
    assert intuition.saturation(attn, scaled, 8)["about"] == "19"  # ln(2e8) ≈ 19.1
    assert intuition.saturation(attn[1:], scaled[1:], 4) is None
    assert intuition.saturation(attn[:, :1] / attn[:, :1], scaled[:, :1], 4) is None  # one key: nothing to lead


@pytest.mark.parametrize("lang", ["vi", "en"])
def test_a_saturated_ramp_note_says_so_and_names_the_input_as_the_cause(lang, tmp_path):
    """yolo 20 x 20 with 16 channels, 4 heads, on the ramp input (x = 1 .. 16*20*20 = 6400): scores in the
    millions. The note says, for each head with saturated rows, how many rows print weight 1 (counted
    here with torch), works the first such row's lead, and names the ramp input's size as the cause; a
    head without one says nothing. check verifies the lead, and a changed digit of it is wrong. With
    --input normal the same size says none of it."""
    torch = pytest.importorskip("torch", reason="the saturated rows are counted with torch; pip install torch")
    trace = walk(h=20, w=20, dim=16, heads=4, lang=lang)
    text = render(trace, "md", lang)
    s = torch.from_numpy(trace["scores_scaled"][0])
    a = torch.softmax(s, dim=-1)
    word = {"vi": "Softmax đã bão hoà** ở head", "en": "The softmax is saturated** in head"}[lang]
    counts = []
    for h in range(4):
        ones = [i for i in range(400) if f"{float(a[h, i].max()):.4f}" == "1.0000"]
        counts.append(len(ones))
        lines = [ln for ln in text.splitlines() if f"{word} {h}:" in ln]
        if not ones:
            assert lines == []
            continue
        (line,) = lines
        count = {"vi": "cả 400 hàng", "en": "every one of its 400 rows"} if len(ones) == 400 else {
            "vi": f": {len(ones)} trên 400 hàng", "en": f": {len(ones)} of its 400 rows"}
        assert count[lang] in line
        top2 = torch.topk(s[h, ones[0]], 2).values
        assert f"{float(top2[0] - top2[1]):.2f}`" in line and re.search(rf"(row|hàng) {ones[0]}\b", line)
    assert counts == [400, 0, 400, 400]  # the premise: three heads saturated in every row, one in none
    assert {"vi": "đầu vào ramp chạy tới x = 6400", "en": "the ramp input runs up to x = 6400"}[lang] in text
    note = tmp_path / "n.md"
    note.write_text(text, encoding="utf-8")
    assert not check_file(note).wrong
    gap = re.search(r"= (\d+\.\d\d)`, ", text).group(1)
    wrong = text.replace(f"= {gap}`, ", f"= {gap[:-1]}{(int(gap[-1]) + 3) % 10}`, ", 1)
    assert check_text(wrong).wrong
    calm = render(walk(h=20, w=20, dim=16, heads=4, lang=lang, input="normal"), "md", lang)
    assert word not in calm and "ramp" not in calm


@pytest.mark.parametrize("lang", ["en", "vi"])
@pytest.mark.parametrize("opts", [dict(h=8, w=8, dim=8, heads=2, seed=42), dict(h=3, w=3, heads=2, seed=42)])
def test_heads_differ_names_the_queries_it_counted(lang, opts):
    """"The heads differ: for N of the queries …" names the queries it looked at (p0–p7, the first 8),
    not "the queries shown" (a 3 x 3 note shows 9, a 20 x 20 note 8 others), and N is the count among
    them whose largest weight lies on a different key in each head (argmax of the trace's weights)."""
    trace = walk(lang=lang, **opts)
    md = render(trace, "md", lang)
    a = np.asarray(trace["attn"])[0]
    n = a.shape[1]
    differ = sum(len({int(np.argmax(a[h, i])) for h in range(a.shape[0])}) > 1 for i in range(min(n, 8)))
    span = f"p0–p{min(n, 8) - 1}"
    line = next(s for s in md.splitlines() if "The heads differ" in s or "Các head khác nhau" in s)
    assert "shown" not in line and "liệt kê" not in line
    if differ:
        want = f"for {differ} of the queries {span}," if lang == "en" else f"với {differ} trong các query {span},"
        assert want in line
    else:
        assert (f"every query {span}," if lang == "en" else f"mọi query {span},") in line


@pytest.mark.parametrize("lang", ["en", "vi"])
def test_a_single_position_says_attention_mixes_nothing(lang):
    """H = W = 1: the softmax of one score is 1, so A = [1] and O = V in every head (checked on the trace).
    The note says so instead of "almost uniform because the weights are small" and of "every query favours
    p0" with a ratio A_0[0, 0] / A_0[0, 0]."""
    trace = walk(lang=lang, h=1, w=1)
    assert np.array_equal(np.asarray(trace["attn"]), np.ones((1, 2, 1, 1)))
    v = np.asarray(trace["v"])  # (B, heads, head_dim, N)
    assert np.allclose(np.asarray(trace["o"]).reshape(v.shape), v, rtol=0, atol=1e-15)
    md = render(trace, "md", lang)
    why = md[md.index("## 14."):md.index("## 15.")]
    assert ("a single position" if lang == "en" else "một vị trí") in why
    assert "A_0[0, 0] / A_0[0, 0]" not in why
    assert ("almost uniform" if lang == "en" else "gần như đều") not in why
    assert check_text(md).wrong == []
