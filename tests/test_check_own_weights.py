"""A query's weight on its own key restated in prose (``Token 2 puts 0.4223 of its weight on itself``, ``"mèo" dành
45.19% sự chú ý cho chính nó``): attn[q, q] of the query the sentence names (check/own_weights.py).

The setup (heldout14's lecture, softmax with temperature τ = 2): q = [[2, 0], [0, 2], [1, 1]], k = [[1, 0], [0, 1],
[1, 1]], scores × 0.5. torch (float64): the weights' diagonal is 0.422319, 0.422319, 0.451863.
"""
import pytest

from attnwalk.check import check_text

SETUP = dict(variant="sdpa", source="direct", heads=1, scale=0.5, q=[[2, 0], [0, 2], [1, 1]],
             k=[[1, 0], [0, 1], [1, 1]], v=[[1, 0], [0, 2], [1, 1]])
WORDS = {**SETUP, "labels": ["Tôi", "yêu", "mèo"]}


@pytest.mark.parametrize(("text", "setup", "ok"), [
    ("Token 2 puts 0.4223 of its weight on itself.\n", SETUP, True),
    ("Token 3 puts 0.4519 of its attention on itself.\n", SETUP, True),
    ("Token 3 puts 0.5761 of its attention on itself.\n", SETUP, False),  # τ forgotten: softmax of (1, 1, 2)
    ("Token 0 is the first one. Token 2 puts 0.4519 of its weight on itself.\n", SETUP, True),  # counted from 0
    ('Nhận xét: "mèo" dành 45.19% sự chú ý cho chính nó.\n', WORDS, True),
    ('Nhận xét: "mèo" dành 57.61% sự chú ý cho chính nó.\n', WORDS, False),
])
def test_own_weight_in_prose(text, setup, ok):
    report = check_text(text, setup)
    n = [w for w in text.split() if w[0].isdigit() and "." in w][0]
    assert [r.text for r in (report.verified if ok else report.wrong)] == [n.rstrip(".").rstrip("%")]


@pytest.mark.parametrize("text", [
    "Token 2 puts 0.4000 of the budget on itself.\n",  # no word for the weight
    "Tokens 1 and 3 put 0.4000 of their weight on themselves.\n",  # two queries named
    '"mèo" dành 57.61% sự chú ý cho chính nó.\n',  # no labels in the setup: no query
])
def test_no_claim_without_a_query_and_a_weight(text):
    report = check_text(text, SETUP)
    assert report.wrong == [] and report.verified == []


def test_a_latex_percentage_is_a_percentage():
    # ``$42.23\%$``: 0.4223 (torch 0.422319), not 42.23; 15.54% is token 1's weight on token 2, not on itself
    report = check_text("Token 1 pays $42.23\\%$ attention to itself, and $15.54\\%$ to Token 2.\n", SETUP)
    assert report.wrong == [] and [r.text for r in report.verified] == ["42.23"]


def _table(rows_named, cols_named):
    """The weights as a Markdown table, rows and columns named by words; each weight torch's (float64)."""
    torch = pytest.importorskip("torch", reason="torch is not installed on this machine: pip install torch==2.13.0")
    q, k = (torch.tensor(SETUP[n], dtype=torch.float64) for n in ("q", "k"))
    a = torch.softmax(q @ k.T * 0.5, -1)
    assert f"{a[2, 2].item():.4f}" == "0.4519"
    rows = [f"| **{w}** | " + " | ".join(f"{x:.4f}" for x in a[i].tolist()) + " |" for i, w in enumerate(rows_named)]
    return "\n".join(["| $\\alpha_{ij}$ | " + " | ".join(cols_named) + " |", "|---|---|---|---|", *rows]) + "\n\n"


@pytest.mark.parametrize(("claim", "ok"), [("45.19%", True), ("57.61%", False)])
def test_a_square_tables_names_are_the_tokens_where_the_config_names_none(claim, ok):
    """No labels in the setup, but the note prints its weights as a table whose rows and columns are Tôi, yêu, mèo
    (check.token_words.note_tokens): ``"mèo"`` is query 3, its weight on itself torch's 0.4519 (57.61%: τ forgotten)."""
    words = ["Tôi", "yêu", "mèo"]
    text = _table(words, words) + f'Nhận xét: "mèo" dành {claim} sự chú ý cho chính nó.\n'
    report = check_text(text, SETUP)
    claimed = [r for r in report.recs if r.line == 7]
    assert [(r.text, r.status) for r in claimed] == [(claim.rstrip("%"), "verified" if ok else "wrong")]


def test_a_table_whose_rows_and_columns_differ_names_no_tokens():
    """Rows named otherwise than the columns (or in another order) say not which word is which query."""
    text = _table(["mèo", "yêu", "Tôi"], ["Tôi", "yêu", "mèo"]) + 'Nhận xét: "mèo" dành 57.61% sự chú ý cho chính nó.\n'
    assert [r.status for r in check_text(text, SETUP).recs if r.line == 7] == ["unknown"]
