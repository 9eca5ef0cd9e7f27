"""The fifth teaching audit (docs/teaching-audit.md #49-#61): notes users render with their own options,
beyond the course. A padding mask over every key (every row masked), ``padding:0``, one head, ties of three
keys. Values come from torch (a masked softmax as PyTorch code writes it) or from the mask itself; every new
number is verified by check, and a changed digit is wrong."""

import re

import numpy as np
import pytest
from course_notes import LANGS, close, wrong_after

from attnwalk import figures
from attnwalk.api import walk
from attnwalk.check import check_text
from attnwalk.render import render

torch = pytest.importorskip("torch")

ALL_MASKED = {"variant": "sdpa", "tokens": 3, "kv_tokens": 3, "mask": "padding:3"}
FINITE = ["-1e9", "-10000"]


def note(lang: str, **options) -> str:
    return render(walk(lang=lang, **options), "md", lang)


def torch_attn(t) -> np.ndarray:
    """Head 0's weights as PyTorch code computes them: scaled scores, masked_fill with the note's fill, softmax
    (the fill a float; -inf rows give NaN in torch, attnwalk's policy makes them 0)."""
    q, k = (torch.tensor(t[n][0, 0]) for n in ("q", "k"))
    keep = torch.tensor(t["mask"]) != 0
    fill = float(t.config["mask_fill"])
    scores = q @ k.T / q.shape[-1] ** 0.5
    return torch.nan_to_num(scores.masked_fill(~keep, fill).softmax(-1), nan=0.0).numpy()


# ------------------------------------------------------------------ #51 every key masked, a finite fill

@pytest.mark.parametrize("fill", FINITE)
@pytest.mark.parametrize("lang", LANGS)
def test_a_row_masked_whole_with_a_finite_fill_is_a_tie_because_of_the_mask(lang, fill):
    """Each row masked whole gets 1/3 per key in torch (the fill replaced every score); the note said the
    raw scores were equal and printed S_0[0, 1] = 4 for torch's -4 (4 wrong numbers). It now says the mask
    made the tie, with `1 / 3 ≈ 0.3333` (torch's weight), verified, and no score is claimed equal."""
    t = walk(lang=lang, mask_fill=fill, **ALL_MASKED)
    md = render(t, "md", lang)
    a = torch_attn(t)
    assert np.allclose(a, 1 / 3)
    res = check_text(md)
    assert res.wrong == []
    claims = re.findall(r"`1 / 3 ≈ (0\.\d+)`", md)
    assert len(claims) == 3 and all(close(c, a[i, 0]) for i, c in enumerate(claims))
    assert "`S_0[" not in md.split("## 10.")[1].split("## 11.")[0]  # no raw score named as the reason
    planted = md.replace("`1 / 3 ≈ 0.3333`", "`1 / 3 ≈ 0.3334`", 1)
    assert len(check_text(planted).wrong) == 1


@pytest.mark.parametrize("lang", LANGS)
def test_a_tie_of_real_equal_scores_still_names_its_scores(lang):
    """A tie the dot products make (no mask) keeps its reason: the scores named are torch's and equal."""
    t = walk(lang=lang, variant="sdpa", tokens=3, kv_tokens=3)
    md = render(t, "md", lang)
    found = re.findall(r"`S_0\[(\d), (\d)\] = (-?\d+)`", md.split("## 9.")[1])
    assert found  # hand-picked: row 0 of head 0 scores keys 0 and 2 alike (4 and 4)
    s = (torch.tensor(t["q"][0, 0]) @ torch.tensor(t["k"][0, 0]).T).numpy()
    assert all(float(v) == s[int(i), int(j)] for i, j, v in found)


@pytest.mark.parametrize("fill", ["-inf", *FINITE])
@pytest.mark.parametrize("lang", LANGS)
def test_row_sums_said_as_torch_has_them_when_every_key_is_masked(lang, fill):
    """With -inf every row sums to 0 (attnwalk's policy, F.scaled_dot_product_attention's zeros), with a
    finite fill to 1 (torch): the softmax step and the quick check say the exception only for -inf."""
    t = walk(lang=lang, mask_fill=fill, **ALL_MASKED)
    md = render(t, "md", lang)
    sums = torch_attn(t).sum(-1)
    exception = {"vi": "trừ hàng không còn key nào", "en": "except a row with no key left"}[lang]
    if fill == "-inf":
        assert np.allclose(sums, 0) and md.count(exception) == 2
    else:
        assert np.allclose(sums, 1) and exception not in md
    assert check_text(md).wrong == []


@pytest.mark.parametrize("fill", ["-inf", "-1e9"])
@pytest.mark.parametrize("lang", LANGS)
def test_figures_of_a_note_with_every_key_masked(lang, fill):
    """``--figures`` raised ValueError (the colour range of no kept weight); the alt text ended "…weighs
    most: ." and the caption called the masked weights 0 where torch gives 1/3."""
    pytest.importorskip("matplotlib")
    t = walk(lang=lang, mask_fill=fill, **ALL_MASKED)
    specs = figures.specs(t, lang)
    svg = figures.svg(t, "attn-h0", lang)
    assert svg.startswith("<?xml")
    heat = [s for s in specs if s["key"].startswith("attn-h")]
    weight0 = {"vi": "trọng số bằng 0", "en": "their weight is 0"}[lang]
    written = figures.WORDS[lang]["cells_written"]
    for s in heat:
        assert ": ." not in s["alt"] and written not in s["alt"]
        assert weight0 not in s["caption"]
    assert torch_attn(t).max() == pytest.approx(0.0 if fill == "-inf" else 1 / 3)


# ------------------------------------------------------------------ #56 padding:0

@pytest.mark.parametrize("lang", LANGS)
def test_padding_zero_says_it_masks_nothing(lang):
    """padding:0 keeps every pair (M is all ones): the note said "the last 0 keys are padding" and "nobody
    looks at padding tokens"."""
    t = walk(lang=lang, variant="sdpa", tokens=3, kv_tokens=3, mask="padding:0")
    md = render(t, "md", lang)
    assert (np.asarray(t["mask"]) == 1).all()
    said = {"vi": ["0 key cuối", "token đệm (padding) không được ai nhìn tới"],
            "en": ["the last 0 keys", "nobody looks at padding tokens"]}[lang]
    assert not any(s in md for s in said)
    assert {"vi": "không key nào là token đệm", "en": "no key is padding"}[lang] in md


@pytest.mark.parametrize("lang", LANGS)
def test_padding_over_every_key_is_said(lang):
    md = note(lang, **ALL_MASKED)
    assert {"vi": "mọi key đều là token đệm", "en": "every key is padding"}[lang] in md
    assert {"vi": "token đệm (padding) không được ai nhìn tới", "en": "nobody looks at padding tokens"}[lang] not in md


# ------------------------------------------------------------------ #57 a tie of three keys

@pytest.mark.parametrize("lang", LANGS)
def test_a_tie_of_three_keys_is_a_list(lang):
    """"p0 and p1 and p2" read as a child's list; a tie of three reads "p0, p1 and p2" (vi "p0, p1 và p2"),
    and a tie of two is unchanged ("p1 and p3")."""
    t = walk(lang=lang, mask_fill="-1e9", **ALL_MASKED)
    md = render(t, "md", lang)
    word = {"vi": "và", "en": "and"}[lang]
    assert f"p0 {word} p1 {word} p2" not in md
    assert md.count(f"p0, p1 {word} p2") == 3 and np.allclose(torch_attn(t), 1 / 3)


# ------------------------------------------------------------------ #54, #55 one head

@pytest.mark.parametrize("lang", LANGS)
def test_yolo_one_head_names_no_second_head(lang):
    """With --heads 1 the QKV channels are head 0's only: the note said "the next 8 are head 1's [q, k, v]" and
    that the projection "merges the heads"."""
    t = walk(lang=lang, heads=1)
    md = render(t, "md", lang)
    assert t["attn"].shape[1] == 1
    wrong = {"vi": ["kênh tiếp theo là [q, k, v] của head 1", "hợp nhất các head", "trộn kết quả của các head"],
             "en": ["are head 1's [q, k, v]", "merges the heads", "the heads' results"]}[lang]
    assert not any(w in md for w in wrong)
    two = render(walk(lang=lang, heads=2), "md", lang)  # two heads keep every sentence
    assert all(w in two for w in wrong)


@pytest.mark.parametrize("lang", LANGS)
def test_mha_one_head_is_singular(lang):
    md = note(lang, variant="mha", heads=1)
    assert "1 heads" not in md and "heads' results" not in md
    assert check_text(md).wrong == []


# ------------------------------------------------------------------ #49 the shape flow's alt text

@pytest.mark.parametrize("name", ["hand-2x2", "sdpa-cross-attention", "mha-seed-002", "yolo-3x3-seed42"])
@pytest.mark.parametrize("lang", LANGS)
def test_the_shape_flow_alt_text_names_its_tensors_and_where_their_shapes_are(name, lang):
    """The alt text said "a diagram of the tensor shapes" and no tensor: it now names them in order, from the
    input to Out, and sends the reader to the quick-check table, which holds the trace's shape of each."""
    from course_notes import text, trace_of

    md = text(name, lang)
    alt = re.search(r"!\[([^\]]*)\]\(figures/[^)]*-shapes\.svg\)", md).group(1)
    chain = alt.split(": ", 1)[1].split(". ")[0].split(" → ")
    assert chain[0].split(", ")[0] == "x" and chain[-1] == "Out" and len(chain) >= 5
    assert {"vi": "bảng ở mục kiểm tra nhanh", "en": "the quick-check table"}[lang] in alt
    t = trace_of(md)
    table = md.split({"vi": "Kiểm tra nhanh", "en": "Quick check"}[lang])[-1]
    for tensor in ("x", "q", "out"):
        row = re.search(rf"\n\|[^\n]*`{tensor}`[^\n]*\| \(([\d, ]+)\) \|", table)
        assert row and tuple(int(v) for v in row.group(1).split(", ")) == t[tensor].shape, tensor


# ------------------------------------------------------------------ #58 causal cross-attention

@pytest.mark.parametrize("lang", LANGS)
def test_causal_cross_attention_says_its_alignment_as_torch_has_it(lang):
    """A causal mask with 2 queries and 4 keys kept keys j <= i (top-left) without saying so; a decoder with a
    cache wants bottom-right. The note's M is torch's is_causal mask, which differs from causal_lower_right."""
    import torch.nn.functional as F
    from torch.nn.attention.bias import causal_lower_right

    t = walk(lang=lang, variant="sdpa", tokens=2, kv_tokens=4, mask="causal")
    md = render(t, "md", lang)
    assert {"vi": "góc trên bên trái", "en": "aligned **top-left**"}[lang] in md
    assert "causal_lower_right" in md and check_text(md).wrong == []
    q, k, v = (torch.tensor(t[n]) for n in ("q", "k", "v"))
    tril = torch.ones(2, 4, dtype=torch.bool).tril()
    assert np.array_equal(np.asarray(t["mask"]) != 0, tril.numpy())
    o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    assert torch.allclose(o, F.scaled_dot_product_attention(q, k, v, attn_mask=tril))
    assert np.allclose(o.numpy(), t["o"])
    assert not torch.allclose(o, F.scaled_dot_product_attention(q, k, v, attn_mask=causal_lower_right(2, 4)))
    square = note(lang, variant="sdpa", mask="causal")  # Lq = Lk: one alignment, nothing to say
    assert "causal_lower_right" not in square


# ------------------------------------------------------------------ #60 few decimals

@pytest.mark.parametrize("lang", LANGS)
def test_closeness_to_uniform_tells_its_extremes_apart_at_one_decimal(lang):
    """--decimals 1: "the smallest weight is A_0[0, 0] = 0.1, the largest A_0[0, 8] = 0.1 … farther from it
    ≈ 0.0" said nothing. The sentence now takes the decimals that tell them apart (2 here) and says so; its
    numbers are the weights' extremes correctly rounded, verified by check, a changed digit wrong."""
    t = walk(lang=lang, decimals=1)
    md = render(t, "md", lang)
    line = re.search(r"\n- Head 0: [^\n]*`1 / 9 ≈ [^\n]*", md).group(0)
    lo, hi = re.findall(r"`A_0\[\d, \d\] = (0\.\d+)`", line)[:2]
    a = t["attn"][0, 0]
    assert lo != hi and close(lo, a.min()) and close(hi, a.max()) and len(lo) == 4
    assert {"vi": "ở đây in 2 chữ số thập phân", "en": "to 2 decimals here"}[lang] in line
    assert check_text(md).wrong == []
    assert len(wrong_after(md, f"= {hi}`", f"= {hi[:-1]}{(int(hi[-1]) + 2) % 10}`")) == 1
    four = render(walk(lang=lang), "md", lang)  # the usual 4 decimals already tell them apart: no words added
    assert {"vi": "ở đây in", "en": "decimals here"}[lang] not in four


@pytest.mark.parametrize("options", [dict(dim=4, heads=4, attn_ratio=1.0),
                                     dict(variant="sdpa", mask="padding:1", mask_fill="-1e9")])
def test_one_of_a_thing_is_singular(options):
    """head_dim = 1 said "each head holds 1 channels of V"; padding:1's snippet "# the last 1 keys are padding"."""
    md = note("en", **options)
    assert not re.search(r"\b1 (channels|keys|heads|dimensions)\b", md)


# ------------------------------------------------------------------ #61 batch 2

@pytest.mark.parametrize("lang", LANGS)
def test_sdpa_batch_two_says_which_sequence_its_inputs_are(lang):
    """With --batch 2 the inputs section printed Q_0, K_0, V_0 and said only at the quick check, nine sections
    later, that they are the first sequence's. It now says so where they are printed; they are torch's batch 0."""
    md = note(lang, variant="sdpa", batch=2, mask="causal")
    inputs = md.split("## 3.")[1].split("**Head 0")[0]
    assert {"vi": "chỉ số batch 0", "en": "batch index 0"}[lang] in inputs
    torch.manual_seed(42)
    q = torch.randint(-4, 5, (2, 3, 4))
    first = re.search(r"Q_0 =\n\\begin\{bmatrix\}\n([^\n]*) \\\\", md).group(1)
    assert [int(v) for v in first.split(" & ")] == q[0, 0, :2].tolist() != q[1, 0, :2].tolist()
