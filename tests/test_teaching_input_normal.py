"""Teaching audit #59: a yolo note of drawn real inputs (``--input normal``) prints X like every other tensor, at
the note's decimals (its worked 1×1-conv sum at the working precision), not as 16-digit float reprs; integer inputs
(ramp, randint) still print as typed. Values come from torch: X is ``torch.randn`` after the weights, as the note's
snippet draws it."""

import re

import numpy as np
import pytest
from course_notes import LANGS

from attnwalk.api import walk
from attnwalk.check import check_text
from attnwalk.render import render

torch = pytest.importorskip("torch", reason="torch is not installed on this machine: pip install torch==2.13.0")


def _torch_x(seed: int, dim: int, h: int, w: int, heads: int) -> np.ndarray:
    """X as the note's snippet draws it: the three weights from the seed, then ``torch.randn``."""
    torch.manual_seed(seed)
    hd, kd = dim // heads, int(dim // heads * 0.5)
    torch.empty(heads * (2 * kd + hd), dim, 1, 1).normal_(0, 0.02)
    torch.empty(dim, dim, 1, 1).normal_(0, 0.02)
    torch.empty(dim, 1, 3, 3).normal_(0, 0.02)
    return torch.randn(1, dim, h, w).double().numpy()


def _x_matrices(md: str) -> list[list[str]]:
    """The cells of each ``X[:,c,:,:]`` matrix the note prints, channel by channel."""
    blocks = re.findall(r"X\[:,\d+,:,:\] =\n\\begin\{bmatrix\}\n(.*?)\\end\{bmatrix\}", md, re.S)
    return [re.findall(r"-?\d+(?:\.\d+)?", b) for b in blocks]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("decimals", [2, 4])
def test_drawn_inputs_print_at_the_notes_decimals(lang, decimals):
    md = render(walk(lang=lang, h=2, w=3, dim=4, heads=2, input="normal", decimals=decimals), "md", lang)
    x = _torch_x(42, 4, 2, 3, 2)
    cells = _x_matrices(md)
    assert len(cells) == 4
    for c, printed in enumerate(cells):
        assert printed == [f"{v:.{decimals}f}" for v in x[0, c].reshape(-1)]
    table = [r for r in md.split("\n") if r.startswith("| p0 |")][0]
    assert table.split("|")[3:7] == [f" {x[0, c, 0, 0]:.{decimals}f} " for c in range(4)]
    assert not re.search(rf"\d\.\d{{{decimals + 1}}}", md.split("## 3.")[1].split("## 4.")[0])  # X's section
    worked = re.search(r"QKV\[:,0,0,0\] = (.*?)= (-?\d\.\d+)\n", md, re.S)
    operands = re.findall(r"\((-?\d+\.\d+)\)\((-?\d+\.\d+)\)", worked.group(1))
    assert [xc for _, xc in operands] == [f"{x[0, c, 0, 0]:.{decimals + 4}f}" for c in range(4)]
    assert check_text(md).wrong == []
    planted = md.replace(cells[0][0], f"{float(cells[0][0]) + 10 ** -decimals:.{decimals}f}", 1)
    assert len(check_text(planted).wrong) == 1


@pytest.mark.parametrize("kind", ["ramp", "randint"])
def test_integer_inputs_still_print_as_typed(kind):
    md = render(walk(lang="en", h=2, w=2, dim=4, heads=2, input=kind), "md", "en")
    assert all(re.fullmatch(r"-?\d+", v) for block in _x_matrices(md) for v in block)
