"""Shapes are claims: sizes written beside a tensor or a dimension name are checked against the
configuration (hand-derived: hand-2x2 has 4 tokens, d_k = 1, d_v = 2, one head); indices stay unread."""

from pathlib import Path

import pytest

from attnwalk.check import check_text

NOTE = Path(__file__).resolve().parent.parent / "examples/notes/hand-2x2.en.md"


def text():
    return NOTE.read_text(encoding="utf-8")


def wrong(t):
    return sorted((r.line, r.text, r.failure()[1]) for r in check_text(t).wrong)


def test_the_shipped_note_states_its_shapes_right_and_they_are_verified():
    report = check_text(text())
    assert report.wrong == []
    lines = text().split("\n")
    shape_line = next(i for i, ln in enumerate(lines, 1) if ln.startswith("Shapes: $Q_h$ is 4 × 1"))
    on_line = [r for r in report.recs if r.line == shape_line]
    assert on_line and all(r.status == "verified" for r in on_line)


@pytest.mark.parametrize("old, new, bad, want", [
    ("`v`: (1, 1, 4, 2)", "`v`: (1, 1, 4, 3)", "3", "2"),  # PyTorch shape of v: d_v = 2
    ("$V_h$ is 4 × 2", "$V_h$ is 4 × 3", "3", "2"),  # the printed matrix: tokens × d_v
    ("$A_h$ is 4 × 4", "$A_h$ is 5 × 4", "5", "4"),  # 4 queries
    ("example: 4 queries × 4 keys", "example: 4 queries × 3 keys", "3", "4"),  # the title's count of keys
    ("`attn`: (1, 1, 4, 4)", "`attn`: (1, 2, 4, 4)", "2", "1"),  # one head
])
def test_a_wrong_shape_is_reported_with_the_right_size(old, new, bad, want):
    t = text()
    assert old in t
    line = t[:t.index(old)].count("\n") + 1
    assert wrong(t.replace(old, new, 1)) == [(line, bad, want)]


def test_symbol_tuples_and_torch_size_forms():
    base = text().split("\n## 2.", 1)[0]
    t = base + "\n\n(B, N) = (1, 4) and `scores`: torch.Size([1, 1, 4, 4])\n"
    assert wrong(t) == []
    t = base + "\n\n(B, N) = (1, 5) and `scores`: torch.Size([1, 1, 4, 3])\n"
    n = t.count("\n")
    assert wrong(t) == [(n, "3", "4"), (n, "5", "4")]


def test_indices_and_step_numbers_stay_not_understood():
    t = text().split("\n## 2.", 1)[0] + "\n\n2. Compute row 3 (p3) of $A_0$ (head 0) by hand.\n"
    last = t.count("\n")
    recs = [r for r in check_text(t).recs if r.line == last]
    assert recs and all(r.status == "unknown" for r in recs)


def test_matrix_product_shapes_weights_and_row_counts():
    mha = (NOTE.parent / "mha-seed-002.en.md").read_text(encoding="utf-8")
    assert check_text(mha).wrong == []
    for old, new, bad, want in [
        ("Shape: (3 × 4) · (4 × 12) + 12 → 3 × 12", "Shape: (3 × 4) · (4 × 12) + 12 → 3 × 11", "11", "12"),
        ("$W_{qkv}$ is 12 × 4", "$W_{qkv}$ is 12 × 3", "3", "4"),  # nn.Linear(4, 12): (out, in)
        ("$b_{qkv}$ has 12 entries", "$b_{qkv}$ has 10 entries", "10", "12"),
    ]:
        assert old in mha, old
        line = mha[:mha.index(old)].count("\n") + 1
        assert wrong(mha.replace(old, new, 1)) == [(line, bad, want)], old
    t = text()
    old = "has 4 rows (queries) and 4 columns (keys)"
    line = t[:t.index(old)].count("\n") + 1
    assert wrong(t.replace(old, "has 4 rows (queries) and 3 columns (keys)", 1)) == [(line, "3", "4")]
