"""Rows named by the token words a note declares itself (check/token_words.py), as heldout15's Viblo blog names its
rows ``- *Tôi*: **0.2863**, ..`` after ``Câu ví dụ có 4 token: *Tôi*, *yêu*, *Hà*, *Nội*`` with no tokens in its
config. Hand-made texts; every expected value is torch's, in float64."""

import pytest
from conftest import rounded as _r
from conftest import torch_sdpa

from attnwalk.check import check_text

torch = pytest.importorskip("torch", reason="torch is not installed on this machine: pip install torch==2.13.0")

Q, K, V = [[1, 0], [0, 1], [1, 1]], [[1, 1], [0, 2], [1, 0]], [[1, 0], [0, 1], [2, 1]]
OPTS = {"variant": "sdpa", "source": "direct", "heads": 1, "scale": "sqrt_dk", "q": Q, "k": K, "v": V}
DECLARED = "Câu ví dụ có 3 token: *Tôi*, *yêu*, *mèo*, mỗi token có $d_k = 2$.\n\n"
WORDS = ("Tôi", "yêu", "mèo")


def _torch():
    s, a, _ = torch_sdpa(Q, K, V)
    raw = torch.tensor(Q, dtype=torch.float64) @ torch.tensor(K, dtype=torch.float64).T
    unscaled = torch.softmax(raw, -1)  # the weights of a note that forgot √d_k
    return ([[str(int(x)) for x in row.tolist()] for row in raw], [_r(row.tolist(), 4) for row in s],
            [_r(row.tolist(), 4) for row in a], [_r(row.tolist(), 4) for row in unscaled])


def _bold(row):
    return ", ".join(f"**{x}**" for x in row)


def _status(report):
    """The statuses of the numbers below the declaration (its own count and d_k left out)."""
    return [x.status for x in report.recs if x.line > 1]


def test_the_torch_values_the_texts_print():
    raw, s, a, unscaled = _torch()
    assert raw == [["1", "0", "1"], ["1", "2", "0"], ["2", "2", "1"]]
    assert s == [["0.7071", "0.0000", "0.7071"], ["0.7071", "1.4142", "0.0000"], ["1.4142", "1.4142", "0.7071"]]
    assert a == [["0.4011", "0.1978", "0.4011"], ["0.2840", "0.5760", "0.1400"], ["0.4011", "0.4011", "0.1978"]]
    assert unscaled[2] == ["0.4223", "0.4223", "0.1554"]


def _weights_list(a):
    return DECLARED + "## Softmax\n\nTrọng số của từng hàng:\n\n" + "".join(
        f"- *{w}*: {_bold(row)}\n" for w, row in zip(WORDS, a))


def test_list_items_named_by_declared_words_are_their_rows():
    """``- *Tôi*: **..**, ..`` under a weights line: row i of the weights, all verified; a row of the softmax of the
    unscaled scores (every number off) is found wrong with torch's values, judged with the right rows around it."""
    _, _, a, unscaled = _torch()
    r = check_text(_weights_list(a), OPTS)
    assert not r.wrong and _status(r).count("verified") == 9
    wrong = check_text(_weights_list([a[0], a[1], unscaled[2]]), OPTS)
    assert [(x.text, x.failure()[1]) for x in wrong.wrong] == list(zip(unscaled[2], a[2]))


def test_rows_on_one_line_after_a_named_matrix_and_a_row_word():
    """An image's alt text ``ma trận điểm QK^T, từng hàng: Tôi = 1, 0, 1; yêu = ..`` is the raw scores row by row;
    ``điểm sau khi chia căn 2, hàng yêu = ..`` the scaled row (read as the scaled scores, where most numbers agree:
    never as the raw scores it differs from). A slipped integer is found."""
    raw, s, _, _ = _torch()
    rows = "; ".join(f"{w} = {', '.join(row)}" for w, row in zip(WORDS, raw))
    text = DECLARED + f"![Hình 2: ma trận điểm QK^T, từng hàng: {rows}](scores.png)\n\n" \
        f"![Hình 3: điểm sau khi chia căn 2, hàng yêu = {', '.join(s[1])}](scaled.png)\n"
    r = check_text(text, OPTS)
    assert not r.wrong and _status(r).count("verified") >= 12
    slipped = text.replace("yêu = 1, 2, 0", "yêu = 1, 3, 0")
    assert [(x.text, x.failure()[1]) for x in check_text(slipped, OPTS).wrong] == [("3", "2")]


def test_a_worked_row_named_above_its_list():
    """``Lấy hàng của token *yêu* làm ví dụ:`` then a list whose item ``- Trọng số: ..`` prints one number per key:
    row 1 of the weights; a digit swap (0.5670 for 0.5760) is found with torch's value."""
    _, _, a, _ = _torch()
    text = DECLARED + f"Lấy hàng của token *yêu* làm ví dụ:\n\n- Tổng: 3 số mũ\n- Trọng số: {_bold(a[1])}\n"
    r = check_text(text, OPTS)
    assert not r.wrong and _status(r).count("verified") >= 3
    slipped = text.replace("**0.5760**", "**0.5670**")
    assert [(x.text, x.failure()[1]) for x in check_text(slipped, OPTS).wrong] == [("0.5670", a[1][1])]


def test_no_declaration_or_another_count_names_no_rows():
    """The same rows without the declaration, or declaring 4 tokens for 3 rows: which row a word is, is not said,
    so the rows' numbers stay not understood (no reader guesses them)."""
    _, _, a, _ = _torch()
    bare = _weights_list(a).replace(DECLARED, "")
    assert _status(check_text(bare, OPTS)).count("verified") == 0
    four = _weights_list(a).replace("có 3 token: *Tôi*, *yêu*, *mèo*", "có 4 token: *Tôi*, *yêu*, *mèo*, *ăn*")
    assert _status(check_text(four, OPTS)).count("verified") == 0


def test_a_declaration_in_english_with_quotes():
    """``3 tokens: "I", "love", "cats"`` and rows ``- "love": ..`` under ``attention weights``: the same rule in
    English words; a slip in the third row is found."""
    _, _, a, _ = _torch()
    text = '3 tokens: "I", "love", "cats".\n\nThe attention weights:\n\n' + "".join(
        f'- "{w}": {", ".join(row)}\n' for w, row in zip(("I", "love", "cats"), a))
    r = check_text(text, OPTS)
    assert not r.wrong and _status(r).count("verified") == 9
    slipped = text.replace(f'"cats": {a[2][0]}', '"cats": 0.4101')
    assert [(x.text, x.failure()[1]) for x in check_text(slipped, OPTS).wrong] == [("0.4101", a[2][0])]
