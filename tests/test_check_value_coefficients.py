"""A row's weights written as the coefficients of the values they multiply, and the output row they add up to:
``z_2 = 0.40 v_1 + 0.40 v_2 + 0.20 v_3 = [1.60, 1.00]``, ``"cat": 0.40 \\cdot v_{cat} + ...`` (lower-case ``v``,
coefficients side by side with a subscripted name, the row named by its token in quotes or a 1-based ``z_i``). The
output is judged by the convention on results of printed arithmetic: right where it rounds torch's output or the
printed coefficients times V's rows. Expected values from torch and by hand."""

import pytest
from conftest import torch_sdpa

from attnwalk.check import check_text

pytest.importorskip("torch", reason="the expected values come from torch (pip install torch)")

Q, K, V = [[1, 0], [0, 1], [1, 1]], [[1, 1], [0, 1], [1, 0]], [[1, 2], [3, 0], [0, 1]]
OPTIONS = {"variant": "sdpa", "source": "direct", "heads": 1, "labels": ["The", "cat", "sat"], "q": Q, "k": K, "v": V}


def _verdicts(text: str) -> list[tuple[str, str, str | None]]:
    rep = check_text(text + "\n", dict(OPTIONS))
    return [(r.text, r.status, r.failure()[1] if r.status == "wrong" else None) for r in rep.recs]


def test_torchs_rows_as_two_decimals_are_what_the_notes_print():
    _, a, o = torch_sdpa(Q, K, V)
    assert [f"{x:.2f}" for x in a[1].tolist()] == ["0.40", "0.40", "0.20"]
    assert [f"{x:.2f}" for x in o[1].tolist()] == ["1.60", "1.00"]
    assert [f"{x:.2f}" for x in a[2].tolist()] == ["0.50", "0.25", "0.25"]
    assert [f"{x:.2f}" for x in o[2].tolist()] == ["1.25", "1.26"]  # by hand from the rounded weights: 1.25, 1.25


@pytest.mark.parametrize("sum_", [
    'The new representation of "cat" is $0.40 \\cdot v_{The} + 0.40 \\cdot v_{cat} + 0.20 \\cdot v_{sat} = {r}$.',
    'The new representation of "cat" is $0.40 V_{The} + 0.40 V_{cat} + 0.20 V_{sat} = {r}$.',
    'The output for "cat" is $0.40 v_1 + 0.40 v_2 + 0.20 v_3 = {r}$.',
    "z_2 = 0.40 v_1 + 0.40 v_2 + 0.20 v_3 = {r}",
    "z_2 = 0.40 v₁ + 0.40 v₂ + 0.20 v₃ ≈ {r}",
])
def test_the_coefficients_and_the_output_row_they_add_up_to(sum_):
    assert [s for _, s, _ in _verdicts(sum_.replace("{r}", "[1.60, 1.00]"))] == ["verified"] * 5
    got = _verdicts(sum_.replace("{r}", "[1.60, 1.01]"))
    assert [(t, e) for t, s, e in got if s == "wrong"] == [("1.01", "1.00")]


def test_an_output_right_by_the_printed_arithmetic_alone_is_right():
    # 0.50·2 + 0.25·0 + 0.25·1 = 1.25 where torch's output is 1.2552 (1.26): a reader's pencil gives 1.25
    assert [s for _, s, _ in _verdicts("z_3 = 0.50 v_1 + 0.25 v_2 + 0.25 v_3 = [1.25, 1.25]")] == ["verified"] * 5
    # a wrong coefficient excuses nothing: the output is then judged by torch alone
    got = _verdicts("z_3 = 0.50 v_1 + 0.25 v_2 + 0.30 v_3 = [1.25, 1.25]")
    assert [(t, e) for t, s, e in got if s == "wrong"] == [("0.30", "0.25"), ("1.25", "1.26")]


@pytest.mark.parametrize("text", [
    "z_2 = 0.40 v + 0.40 v + 0.20 v = [1.60, 1.01]",  # no value named: no row of V
    "0.40 v_1 + 0.40 v_2 + 0.20 v_3 = [1.60, 1.01]",  # no query named: which output row, only the author knows
])
def test_what_names_no_value_or_no_query_is_not_read(text):
    assert all(s != "wrong" for _, s, _ in _verdicts(text))
