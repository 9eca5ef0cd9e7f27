"""The third teaching audit's defects left after session 27 (docs/teaching-audit.md #34, #36, #37): the yolo
row sums are listed (or, on a long map, said in words) instead of a range "[1.0…0, 1.0…0]", the yolo score
formula writes its single term when key_dim = 1, and mha's "what it means" says why a row saturates and why
that is not NaN. Values come from the trace or torch; every new number is verified by check, and a changed
digit is wrong."""

import re

import numpy as np
import pytest
from course_notes import LANGS, close, text, trace_of, wrong_after

from attnwalk.api import walk
from attnwalk.check import check_text
from attnwalk.render import render
from attnwalk.views import yolo as yolo_view

YOLO_SHORT = ["yolo-3x3-seed42", "yolo-3x3-seed42-module"]
ROW_SUMS = {"vi": r"Tổng từng hàng của head (\d) \(trước khi làm tròn\): ([\d., ]+)\.\n",
            "en": r"Row sums of head (\d) \(before rounding\): ([\d., ]+)\.\n"}
RANGE = {"vi": "tổng mỗi hàng nằm trong khoảng [", "en": "every row sums to a value in ["}


def with_attn(trace, attn: np.ndarray):
    """``trace`` with its attention weights replaced (a trace whose rows need not sum to 1)."""
    step = trace.steps["attn"]
    trace.record("attn", attn, step.axes, step.formula)
    return trace


# ------------------------------------------------------------------ #34 yolo row sums

@pytest.mark.parametrize("name", YOLO_SHORT)
@pytest.mark.parametrize("lang", LANGS)
def test_yolo_row_sums_are_listed_one_per_row(name, lang):
    """A 3 × 3 map lists each row's sum, as the sdpa and mha notes do, not a range from 1 to 1: one sum per
    query (9), each the trace's row sum to 12 decimals, for every head."""
    md = text(name, lang)
    tr = trace_of(md)
    sums = tr["attn"][0].sum(-1)  # (heads, N)
    found = re.findall(ROW_SUMS[lang], md)
    assert [int(h) for h, _ in found] == list(range(sums.shape[0]))
    for h, listed in found:
        values = listed.split(", ")
        assert len(values) == sums.shape[1] == 9
        assert all(close(v, s) and len(v.split(".")[1]) == 12 for v, s in zip(values, sums[int(h)]))
    assert RANGE[lang] not in md


@pytest.mark.parametrize("lang", LANGS)
def test_yolo_row_sums_are_verified_and_a_changed_digit_is_wrong(lang):
    md = text("yolo-3x3-seed42", lang)
    head1 = {"vi": "Tổng từng hàng của head 1 (trước khi làm tròn): 1.000000000000",
             "en": "Row sums of head 1 (before rounding): 1.000000000000"}[lang]
    assert check_text(md).wrong == []
    assert wrong_after(md, head1, head1[:-1] + "1")
    # the smallest/largest weight kept on its own line, still read for its head
    m = re.search(r"Head 1: [^\n]*?(0\.\d{4})[^\d\n]+(0\.\d{4})\.", md)
    tr = trace_of(md)
    assert close(m.group(1), tr["attn"][0, 1].min()) and close(m.group(2), tr["attn"][0, 1].max())
    assert wrong_after(md, m.group(0), m.group(0).replace(m.group(2), f"{float(m.group(2)) + 0.001:.4f}"))


def test_yolo_row_sums_come_from_the_trace_not_a_constant():
    """A trace whose row 3 of head 0 sums to 1.5 prints 1.500000000000 in its list, and the long map's
    "to twelve decimals" is said only when every sum rounds to 1."""
    tr = walk(h=3, w=3, dim=4, heads=2, seed=42, lang="en")
    a = tr["attn"].copy()
    a[0, 0, 3] *= 1.5
    view = yolo_view.build(with_attn(tr, a))
    sums = view["heads_view"][0]["row_sums"].split(", ")
    assert sums[3] == "1.500000000000" and sums[2] == "1.000000000000"
    assert not view["heads_view"][0]["row_sums_one"] and view["heads_view"][1]["row_sums_one"]

    long_tr = walk(h=5, w=5, dim=4, heads=2, seed=42, lang="en")  # 25 positions: a long map
    base = render(long_tr, "md", "en")
    assert "every row sums to one, to twelve decimals" in base
    a = long_tr["attn"].copy()
    a[0, 1, 0] *= 0.5
    md = render(with_attn(long_tr, a), "md", "en")
    lo = f"{a[0, 1].sum(-1).min():.12f}"
    assert f"- Head 1: every row sums to a value in [{lo}, 1.000000000000]" in md
    assert md.count("every row sums to one, to twelve decimals") == 1  # head 0 only


@pytest.mark.parametrize("lang", LANGS)
def test_yolo_long_map_says_its_range_in_words(lang):
    md = text("yolo-8x8-seed42", lang)
    tr = trace_of(md)
    sums = tr["attn"][0].sum(-1)
    assert np.all(np.abs(sums - 1.0) < 0.5e-12)  # why the words "to twelve decimals" are true here
    words = {"vi": "hàng nào cũng có tổng bằng một, đúng tới mười hai chữ số thập phân",
             "en": "every row sums to one, to twelve decimals"}[lang]
    assert md.count(words) == 2 and md.count(RANGE[lang]) == 2


# ------------------------------------------------------------------ #37 yolo score formula with key_dim = 1

@pytest.mark.parametrize("name", YOLO_SHORT + ["yolo-8x8-seed42"])
@pytest.mark.parametrize("lang", LANGS)
def test_yolo_score_formula_states_itself_for_its_key_dim(name, lang):
    """key_dim = 1 (3 × 3, dim 4, 2 heads: head_dim 2, key_dim int(2 · 0.5) = 1): one product, no sum
    from d = 0 to 0; key_dim = 2 (8 × 8, dim 8): the sum to key_dim − 1 = 1."""
    md = text(name, lang)
    step3 = md.split("Step 3 —" if lang == "en" else "Bước 3 —", 1)[1].split("\n$$\n", 2)[1]
    kd = trace_of(md)["q"].shape[2]
    assert kd == (2 * 0.5 * 2 if name == "yolo-8x8-seed42" else 1)
    if kd == 1:
        assert step3.startswith(r"S_h[i, j] = Q_h[0, i] \cdot K_h[0, j]") and r"\sum" not in step3
        assert r"\text{key}_{\text{dim}} = 1" in step3
        # check reads the formula's key_dim: a wrong one is called wrong
        assert wrong_after(md, r"(\text{key}_{\text{dim}} = 1)", r"(\text{key}_{\text{dim}} = 2)")
    else:
        assert step3.startswith(rf"S_h[i, j] = \sum_{{d=0}}^{{{int(kd) - 1}}} Q_h[d, i] \cdot K_h[d, j]")


# ------------------------------------------------------------------ #36 mha: why a row saturates, and no NaN

SAT = {"vi": r"độ lệch chuẩn ([\d.]+) và đầu vào lớn tới \|x\| = (\d+), [^`]*`Ŝ_(\d)\[(\d), (\d)\] = ([\d.-]+)`",
       "en": r"standard deviation ([\d.]+) and the inputs reach \|x\| = (\d+), [^`]*`Ŝ_(\d)\[(\d), (\d)\] = ([\d.-]+)`"}


@pytest.mark.parametrize("lang", LANGS)
def test_mha_says_why_a_row_saturates_from_its_numbers(lang):
    """The cause is printed from the run: the init std, the largest |x| and the scaled score largest in size
    (its head, row, key and value), against the trace; that row's runner-up weight is below half a unit of
    the printed 4 decimals, which is why it prints as 0."""
    md = text("mha-seed-002", lang)
    tr = trace_of(md)
    m = re.search(SAT[lang], md)
    assert m
    std, xmax, h, i, j, s = m.groups()
    assert float(std) == tr.config["init_std"] == 0.5
    assert int(xmax) == np.abs(tr["x"][0]).max() == 4
    scaled = tr["scores_scaled"][0]
    assert (int(h), int(i), int(j)) == np.unravel_index(np.argmax(np.abs(scaled)), scaled.shape)
    assert close(s, scaled[int(h), int(i), int(j)])
    row = np.sort(scaled[int(h), int(i)])[::-1]
    assert np.exp(row[1] - row[0]) < 0.5e-4  # the runner-up's weight is at most e^-gap: prints as 0.0000
    assert {"vi": "không phải NaN", "en": "not NaN"}[lang] in md


def test_mha_no_nan_claim_holds_in_torch():
    """The sentence's claim, in torch: finite scores however large softmax to finite weights (the note's
    saturated row × 1000 gives a one-hot row), and only a row of −inf gives NaN."""
    torch = pytest.importorskip("torch")
    tr = trace_of(text("mha-seed-002", "en"))
    scaled = tr["scores_scaled"][0]
    h, i, _ = np.unravel_index(np.argmax(np.abs(scaled)), scaled.shape)
    big = torch.tensor(scaled[h, i] * 1000.0).softmax(-1)
    assert torch.isfinite(big).all() and big.max().item() == 1.0 and big.sum().item() == 1.0
    masked = torch.full((3,), float("-inf")).softmax(-1)
    assert torch.isnan(masked).all()


@pytest.mark.parametrize("lang", LANGS)
def test_mha_saturation_numbers_are_verified_and_a_changed_digit_is_wrong(lang):
    md = text("mha-seed-002", lang)
    m = re.search(SAT[lang], md)
    sentence = m.group(0)
    assert check_text(md).wrong == []
    assert wrong_after(md, sentence, sentence.replace(m.group(6), "22.8610"))
    std = {"vi": "độ lệch chuẩn 0.5 và", "en": "standard deviation 0.5 and"}[lang]
    assert wrong_after(md, std, std.replace("0.5", "0.6"))
