"""LaTeX's spaces part words: ``W_Q = [..], \\quad`` then ``K = XW_K = [..]`` on the next line names K, not W_K
(the label once read "quadk", the K glued to the command, so the last name, W_K, was taken: K's right numbers were
called wrong as W_K's). Expected values from torch."""

import pytest

from attnwalk.check import check_text
from attnwalk.check.human import tensors_of

torch = pytest.importorskip("torch", reason="the expected values come from torch (pip install torch)")

X = [[1, 0, 1], [0, 1, 1], [1, 1, 0]]
W = {"q": [[1, 0], [0, 1], [1, 1]], "k": [[0, 1], [1, 0], [1, 1]], "v": [[1, 1], [0, 2], [1, 0]]}
OPTIONS = {"variant": "sdpa", "source": "project", "weight_layout": "in_out", "heads": 1, "x": X,
           **{f"w_{n}": w for n, w in W.items()}}


@pytest.mark.parametrize("space", ["\\quad", "\\qquad", "\\,", "\\;", "\\ ", "\\enspace"])
def test_a_latex_space_before_a_name_parts_it_from_the_command(space):
    assert tensors_of(f"{{bmatrix}}, {space}\nK = XW_K = ")[0] == "k"
    assert tensors_of(f"{space} K = XW_K = ")[0] == "k"


@pytest.mark.parametrize("sep", [", \\quad\n", ", \\qquad ", " \\quad ", "\n"])
def test_projections_side_by_side_are_judged_as_q_k_v(sep):
    x = torch.tensor(X, dtype=torch.float64)
    got = {n: x @ torch.tensor(w, dtype=torch.float64) for n, w in W.items()}
    mats = {n: "\\begin{bmatrix} " + " \\\\ ".join(" & ".join(f"{v:.0f}" for v in r) for r in t.tolist())
            + " \\end{bmatrix}" for n, t in got.items()}
    text = "$$\n" + sep.join(f"{n.upper()} = XW_{n.upper()} = {mats[n]}" for n in "qkv") + "\n$$\n"
    rep = check_text(text, dict(OPTIONS))
    assert [r.status for r in rep.recs] == ["verified"] * 18
    planted = text.replace(mats["k"], mats["k"].replace("1 & 1 \\end", "1 & 2 \\end"))  # torch's K[2, 1] is 1
    rep = check_text(planted, dict(OPTIONS))
    assert [(r.text, r.status, r.failure()[0]) for r in rep.recs if r.status == "wrong"] == [("2", "wrong", "k")]


def test_an_environment_parts_words():
    assert tensors_of("\\end{bmatrix}\nK = XW_K = ")[0] == "k"
