"""The third teaching audit (seeds 000, 001, 002 beside our notes): the intro's numbered steps are the
step headings' steps, the yolo notes say what O is next to V (seed 000's "aggregated globally", with
numbers), the sdpa notes write one token's output as the weighted sum of value rows it is (seed 001's
"new representation of học"), and mha's last step has its sentence. Values come from the trace or are
hand-derived; every number of a new sentence is verified by check, and a changed digit is wrong."""

import re

import numpy as np
import pytest
from course_notes import LANGS, close, text, trace_of, wrong_after

from attnwalk.check import check_text
from attnwalk.views import intuition

# ------------------------------------------------------------------ the intro's steps are the headings' steps

# a term that names step N, in the intro's item N and in the heading "Step N — ..." (vi, en)
STEP_TERMS = {
    "yolo": {1: ("qkv", "qkv"), 2: ("Tách", "split"), 3: ("S = Q^T K", "S = Q^T K"), 4: ("O = V A^T", "O = V A^T"),
             5: ("PE", "PE"), 6: ("proj", "proj")},
    "mha": {1: ("Linear", "Linear"), 2: ("Chia", "Split"), 3: ("S_h = Q_h K_h^T", "S_h = Q_h K_h^T"),
            4: ("oftmax", "oftmax"), 5: ("O_h = A_h V_h", "O_h = A_h V_h"), 6: ("Linear", "Linear")},
}
STEP_NOTES = {"yolo-3x3-seed42": "yolo", "yolo-3x3-seed42-module": "yolo", "yolo-8x8-seed42": "yolo",
              "mha-seed-002": "mha"}


@pytest.mark.parametrize("name", list(STEP_NOTES))
@pytest.mark.parametrize("lang", LANGS)
def test_the_intros_numbered_steps_are_the_step_headings(name, lang):
    """Seed 000 numbers its steps once; ours listed "2. similarity, 3. softmax" over headings "Step 2 —
    Split, Step 3 — Similarity" (and mha "3. A and O, 4. merge" over "Step 3 — Scores, Step 4 —
    Softmax"): item N of the intro names the operation of heading "Step N"."""
    md = text(name, lang)
    intro = md.split("\n## 1. ", 1)[1].split("\n## ", 1)[0]
    items = dict((int(n), t) for n, t in re.findall(r"^(\d)\. (.+)$", intro, re.M))
    word = {"vi": "Bước", "en": "Step"}[lang]
    heads = dict((int(n), t) for n, t in re.findall(rf"^## \d+\. {word} (\d) — (.+)$", md, re.M))
    assert sorted(heads) == list(range(1, 7)) and sorted(items) == list(range(1, 7)), (heads, items)
    for n, terms in STEP_TERMS[STEP_NOTES[name]].items():
        term = terms[LANGS.index(lang)]
        assert term.lower() in items[n].lower(), (n, term, items[n])
        assert term.lower() in heads[n].lower(), (n, term, heads[n])


# ------------------------------------------------------------------ yolo: O is an average of V

def test_averaged_range_on_crafted_values():
    # V = [1, 3, 2]: min 1 at 0, max 3 at 1; O = [2.0, 2.2, 1.9]: min at 2, max at 1;
    # spread ratio (2.2 - 1.9) / (3 - 1) = 0.15; mean (1 + 3 + 2) / 3 = 2
    r = intuition.averaged_range(np.array([1.0, 3.0, 2.0]), np.array([2.0, 2.2, 1.9]), 4, near=True)
    assert (r["v_lo"], r["v_hi"], r["o_lo"], r["o_hi"]) == (0, 1, 2, 1)
    assert (r["v_min"], r["v_max"], r["o_min"], r["o_max"]) == ("1.0000", "3.0000", "1.9000", "2.2000")
    assert r["ratio"] == "0.150" and r["mean"] == "2.0000"
    assert r["mean_expr"] == "(1.0000 + 3.0000 + 2.0000) / 3"
    far = intuition.averaged_range(np.array([-1.0, 1.0]), np.array([0.5, -0.5]), 4, near=False)
    assert far["ratio"] is None and far["mean"] is None  # not near uniform: the range check only
    assert intuition.averaged_range(np.array([2.0, 2.0]), np.array([2.0, 2.0]), 4, near=True) is None


YOLO_SENTENCE = {
    "vi": r"V trải từ `V_0\[0, (\d+)\] = (-?[\d.]+)` đến `V_0\[0, (\d+)\] = (-?[\d.]+)`, còn O chỉ trải từ "
          r"`O\[:,0,(\d),(\d)\] = (-?[\d.]+)` đến `O\[:,0,(\d),(\d)\] = (-?[\d.]+)`",
    "en": r"V runs from `V_0\[0, (\d+)\] = (-?[\d.]+)` to `V_0\[0, (\d+)\] = (-?[\d.]+)`, while O only runs from "
          r"`O\[:,0,(\d),(\d)\] = (-?[\d.]+)` to `O\[:,0,(\d),(\d)\] = (-?[\d.]+)`",
}


@pytest.mark.parametrize("name", ["yolo-3x3-seed42", "yolo-3x3-seed42-module", "yolo-8x8-seed42"])
@pytest.mark.parametrize("lang", LANGS)
def test_yolo_o_is_shown_inside_the_range_of_v(name, lang):
    """After O, the note says each O is an average of V and shows it on the first channel: V's extremes
    and O's, against the trace (and O inside V's range on every channel, the invariant behind it); on a
    near-uniform head that O's range is far narrower, and V's plain mean."""
    md = text(name, lang)
    tr = trace_of(md)
    v = tr["v"][0, 0, 0]  # head 0, dimension 0: channel 0 of O
    o = tr["o"][0, 0].reshape(-1)
    W = tr["x"].shape[3]
    m = re.search(YOLO_SENTENCE[lang], md)
    assert m, name
    jlo, vlo, jhi, vhi, y0, x0, olo, y1, x1, ohi = m.groups()
    assert int(jlo) == int(np.argmin(v)) and close(vlo, v.min())
    assert int(jhi) == int(np.argmax(v)) and close(vhi, v.max())
    assert int(y0) * W + int(x0) == int(np.argmin(o)) and close(olo, o.min())
    assert int(y1) * W + int(x1) == int(np.argmax(o)) and close(ohi, o.max())
    out_v = tr["v"][0].reshape(-1, v.size)
    out_o = tr["o"][0].reshape(out_v.shape[0], -1)
    assert np.all(out_o.min(1) >= out_v.min(1) - 1e-12) and np.all(out_o.max(1) <= out_v.max(1) + 1e-12)
    mean = re.search(r"`\((-?[\d. +-]+)\) / (\d+) ≈ (-?[\d.]+)`", md)
    narrower = {"vi": "một khoảng hẹp hơn nhiều", "en": "a far narrower range"}[lang]
    if name == "yolo-8x8-seed42":  # far from uniform: no claim that every pixel gets the same average
        assert mean is None and narrower not in md
        return
    assert narrower in md and (o.max() - o.min()) < 0.1 * (v.max() - v.min())
    terms = [float(t) for t in re.findall(r"-?\s*[\d.]+", mean.group(1).replace("- ", "-").replace("+ ", ""))]
    assert int(mean.group(2)) == v.size and len(terms) == v.size
    assert all(close(f"{t:.4f}", x) for t, x in zip(terms, v)) and close(mean.group(3), v.mean())


@pytest.mark.parametrize("lang", LANGS)
def test_yolo_o_sentence_is_verified_and_a_changed_digit_is_wrong(lang):
    md = text("yolo-3x3-seed42", lang)
    line = next(ln for ln in md.splitlines() if "`O[:,0," in ln and "V_0[0, " in ln)
    assert check_text(md).wrong == []
    nums = re.findall(r"= (-?\d\.\d+)`|≈ (-?\d\.\d+)`", line)
    assert len(nums) == 5  # V's two extremes, O's two, the mean
    for a, b in nums:
        s = a or b
        bumped = s[:-1] + str((int(s[-1]) + 2) % 10)
        wrong = wrong_after(md, line, line.replace(f" {s}`", f" {bumped}`", 1))
        assert len(wrong) == 1, (s, bumped, wrong)


# ------------------------------------------------------------------ sdpa: one output as the weighted sum it is

def test_value_mix_on_crafted_values():
    # weights 0.25, 0.75 on the two keys kept, the third masked: 0.25 [1, 0] + 0.75 [0, 1] = [0.25, 0.75]
    a = np.array([0.25, 0.75, 0.0])
    v = np.array([[1.0, 0.0], [0.0, 1.0], [5.0, 5.0]])
    mix = intuition.value_mix(a, v, np.array([True, True, False]), 4)
    assert mix["terms"] == "0.2500 * [1, 0] + 0.7500 * [0, 1]" and mix["out"] == "[0.2500, 0.7500]"
    assert mix["seen"] == [0, 1] and not mix["all"]
    assert intuition.value_mix(np.full(9, 1 / 9), np.ones((9, 1)), np.ones(9, bool), 4) is None  # too long
    wrapped = intuition.value_mix(np.full(4, 0.25), np.eye(4)[:, :2], np.ones(4, bool), 4, width=40)
    assert wrapped["lines"] == ["0.2500 * [1, 0] + 0.2500 * [0, 1]", "0.2500 * [0, 0] + 0.2500 * [0, 0]"]


MIX = re.compile(r"^Out\((p\d+)\) = (.+(?:\n\s+\+ .+)*)\n\s+= \[(.+)\]$", re.M)


@pytest.mark.parametrize("name", ["sdpa-causal-toi-di-hoc", "sdpa-cross-attention", "hand-2x2"])
@pytest.mark.parametrize("lang", LANGS)
def test_sdpa_output_is_written_as_its_weighted_sum_of_value_rows(name, lang):
    """Each weight is the trace's attention weight, each vector the key's V row, the result the output row;
    the causal note's query is the last word, which sees the whole sentence."""
    md = text(name, lang)
    tr = trace_of(md)
    m = MIX.search(md)
    assert m, name
    i = int(m.group(1)[1:])
    terms = re.findall(r"(\d\.\d+) \* \[([^\]]+)\]", m.group(2))
    keep = tr["mask"][i] if "mask" in tr else np.ones(tr["attn"].shape[-1], bool)
    seen = [j for j in range(len(keep)) if keep[j]]
    assert len(terms) == len(seen)
    for (w, vec), j in zip(terms, seen):
        assert close(w, tr["attn"][0, 0, i, j])
        assert np.allclose([float(x) for x in vec.split(",")], tr["v"][0, 0, j])
    out = [float(x) for x in m.group(3).split(",")]
    assert all(close(f"{x:.{len(m.group(3).split(',')[0].split('.')[1])}f}", y) for x, y in zip(out, tr["out"][0, i]))
    if name == "sdpa-causal-toi-di-hoc":
        assert i == tr["attn"].shape[-2] - 1 and len(seen) == 3
        last = {"vi": "token cuối nên được nhìn cả câu", "en": "the last token, which sees the whole sentence"}
        assert last[lang] in md


@pytest.mark.parametrize("lang", LANGS)
def test_sdpa_mix_is_verified_and_a_changed_digit_is_wrong(lang):
    md = text("sdpa-causal-toi-di-hoc", lang)
    m = MIX.search(md)
    block = m.group(0)
    assert check_text(md).wrong == []
    for old, new in (("0.1978 *", "0.1979 *"), ("0.4011 * [0, 1]", "0.4012 * [0, 1]"), ("[2, 2]", "[2, 3]"),
                     ("= [1.0000, 1.2033]", "= [1.0000, 1.2034]")):
        assert old in block, old
        assert len(wrong_after(md, block, block.replace(old, new, 1))) == 1, old


# ------------------------------------------------------------------ mha: every step has its sentence

@pytest.mark.parametrize("lang", LANGS)
def test_mha_last_step_says_what_it_works_and_names_o_merged(lang):
    md = text("mha-seed-002", lang)
    step6 = md.split({"vi": "Bước 6 — ", "en": "Step 6 — "}[lang], 1)[1].split("\n## ", 1)[0]
    before_code = step6.split("```", 1)[0]
    lead = {"vi": "**Tính tay phần tử đầu tiên của Out**", "en": "**By hand, the first entry of Out**"}
    assert lead[lang] in before_code
    assert "Linear ra" not in md  # vi: "Lớp Linear đầu ra", not a word-for-word "Linear out"
    assert "| `x`, `o_merged` = $O_{cat}$, `out` |" in md  # not `($O`: GitHub leaves a `$` after `(` as text
