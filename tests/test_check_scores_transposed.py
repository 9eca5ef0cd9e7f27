"""A code print of the scores is in a query's row layout (S = QKᵀ): printed transposed (KQᵀ, an einsum's indices
swapped), its off-diagonal numbers are wrong, where a square weight printed as (in, out) is still left unjudged
(``notation.QUERY_ROWS``; heldout14's Colab notebook).

The setup: q = [[1, 2], [0, 1]], k = [[1, 0], [1, 1]], d_k = 2. torch (float64): S = QKᵀ / √2 = [[0.70711, 2.12132],
[0, 0.70711]].
"""
import pytest

from attnwalk.check import check_text

SETUP = dict(variant="sdpa", source="direct", heads=1, scale="sqrt_dk", q=[[1, 2], [0, 1]], k=[[1, 0], [1, 1]],
             v=[[1, 0], [0, 1]])
CODE = ("```python\nS = torch.einsum('id,jd->ij', Q, K) / math.sqrt(2)\nprint(S)\n```\n\n"
        "```\ntensor([[{a}, {b}],\n        [{c}, {d}]])\n```\n")


@pytest.mark.parametrize(("printed", "wrong"), [
    (("0.7071", "2.1213", "0.0000", "0.7071"), []),  # torch's
    (("0.7071", "0.0000", "2.1213", "0.7071"), ["0.0000", "2.1213"]),  # transposed: KQᵀ
])
def test_scores_printed_transposed_are_wrong(printed, wrong):
    report = check_text(CODE.format(**dict(zip("abcd", printed))), SETUP)
    assert [r.text for r in report.wrong] == wrong
    assert len(report.verified) == 4 - len(wrong)
    if wrong:
        assert [r.failure()[1] for r in report.wrong] == ["2.1213", "0.0000"]
