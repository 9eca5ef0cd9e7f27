"""``| token | $q$ | $k$ | $v$ |`` with a vector per cell (``(1, 0)``, ``[1, 0]``): a blog's table of inputs and
outputs, each column the rows of the tensor its header names (``check.forms.vector_tables``). Expected values from
torch."""

import pytest
from conftest import torch_sdpa

from attnwalk.check import check_text

pytest.importorskip("torch", reason="the expected values come from torch (pip install torch)")

Q, K, V = [[1, 0], [0, 1], [1, 1]], [[1, 1], [0, 1], [1, 0]], [[1, 2], [3, 0], [0, 1]]
OPTIONS = {"variant": "sdpa", "source": "direct", "heads": 1, "q": Q, "k": K, "v": V}
TOKENS = ["I", "go", "school"]


def _vec(row, fmt, brackets="()") -> str:
    return brackets[0] + ", ".join(fmt(x) for x in row) + brackets[1]


def _table(header: list[str], columns: list[list[str]]) -> str:
    lines = ["| token | " + " | ".join(header) + " |", "|" + "---|" * (len(header) + 1)]
    for i, tok in enumerate(TOKENS):
        lines.append(f"| {tok} | " + " | ".join(col[i] for col in columns) + " |")
    return "\n".join(lines) + "\n"


def _verdicts(text: str) -> list[tuple[str, str]]:
    return [(r.text, r.status) for r in check_text(text, dict(OPTIONS)).recs]


@pytest.mark.parametrize("brackets", ["()", "[]"])
def test_each_column_is_the_tensor_its_header_names(brackets):
    _, _, out = torch_sdpa(Q, K, V)
    cols = [[_vec(r, str, brackets) for r in t] for t in (Q, K, V)]
    cols.append([_vec(r, lambda x: f"{x:.3f}", brackets) for r in out.tolist()])
    got = _verdicts(_table(["$q$", "key", "$v$", "output"], cols))
    assert [s for _, s in got] == ["verified"] * 24
    cols[2][1] = _vec([3, 1], str, brackets)  # torch's v[1] is (3, 0)
    cols[3][2] = cols[3][2].replace(f"{out[2, 1]:.3f}", f"{out[2, 1] + 0.001:.3f}")
    got = _verdicts(_table(["$q$", "key", "$v$", "output"], cols))
    assert [t for t, s in got if s == "wrong"] == ["1", f"{out[2, 1] + 0.001:.3f}"]


def test_a_column_not_named_as_one_tensor_or_not_a_vector_in_every_row_is_not_read():
    cols = [[_vec(r, str) for r in t] for t in (Q, K)]
    cols[1][2] = "(9, 9)"
    assert all(s == "unknown" for _, s in _verdicts(_table(["position", "q or k"], cols)))
    cols = [[_vec(r, str) for r in Q]]
    cols[0][1] = "0, 9"  # not a vector cell: the column is no tensor's rows
    assert all(s == "unknown" for _, s in _verdicts(_table(["$q$"], cols)))
