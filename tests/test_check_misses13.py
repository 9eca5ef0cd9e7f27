"""Results of printed arithmetic (docs/course.md): a number written as the result of a product or a sum of products
of operands printed right there is right where it rounds the exact arithmetic of those operands or torch's value,
wrong only if neither; an operand that is wrong itself leaves the result to torch's value alone; --fix writes the
arithmetic of the operands after their own fixes. Each test runs check on a small hand-made text under a direct
Q, K, V whose weights and weighted values come from torch; the arithmetic is exact (Fraction)."""

from fractions import Fraction

import pytest
from conftest import rounded as _r
from conftest import torch64 as _t

from attnwalk.check import check_text
from attnwalk.check.fix import fixed_text

pytest.importorskip("torch", reason="torch is not installed on this machine: pip install torch==2.13.0")

Q = K = [[1.0, 0.0], [0.0, 1.0]]
V = [[5.0, 0.0], [0.0, 5.0]]
OPTS = {"variant": "sdpa", "source": "direct", "heads": 1, "scale": "none", "q": Q, "k": K, "v": V}


def _torch():
    """Row 0: softmax([1, 0]) = [0.7311, 0.2689] (unscaled scores QKᵀ = I); output 5 · those, [3.6553, 1.3447]."""
    import torch

    a = torch.softmax(_t(Q) @ _t(K).T, -1)
    return a[0].tolist(), (a @ _t(V))[0].tolist()


def _wrong(text: str) -> list[tuple[int, str, str]]:
    return sorted((r.line, r.text, r.fix[0] if r.fix else "") for r in check_text(text, OPTS).wrong)


def test_products_of_right_weights_are_right_as_their_arithmetic():
    """0.73 and 0.27 round torch's weights; 0.73 · 5 = 3.65 and 0.27 · 5 = 1.35 are exact arithmetic of them, where
    torch's weighted values print 3.66 and 1.34: right (so is the sum of the printed products)."""
    a, out = _torch()
    assert _r(a, 2) == ["0.73", "0.27"] and _r([5 * a[0], 5 * a[1]], 2) == ["3.66", "1.34"] == _r(out, 2)
    assert (Fraction("0.73") * 5, Fraction("0.27") * 5) == (Fraction("3.65"), Fraction("1.35"))
    text = ("```\noutput = 0.73 * [5, 0] + 0.27 * [0, 5]\n       = [3.65, 0] + [0, 1.35]\n"
            "       = [3.65, 1.35]\n```\n")
    assert _wrong(text) == []
    # the same result written on the terms' own line
    assert _wrong("```\noutput = 0.73 * [5, 0] + 0.27 * [0, 5] = [3.65, 1.35]\n```\n") == []
    # a result that is neither the arithmetic nor torch's (3.70: 3.65 and 3.6553 both print otherwise) is wrong
    assert _wrong("```\noutput = 0.73 * [5, 0] + 0.27 * [0, 5] = [3.70, 1.35]\n```\n") == [(2, "3.70", "3.65")]


def test_a_wrong_weight_leaves_its_products_to_torch_and_fix_writes_the_fixed_arithmetic():
    """0.26 is wrong (torch 0.2689 -> 0.27): its product 0.26 · 5 = 1.30 is judged by torch (1.3447 -> 1.34) and
    wrong, and so is the sum 0 + 1.30 that carries it; 0.73 · 5 = 3.65 stays right. --fix writes 0.27, then 0.27 · 5
    = 1.35 and 0 + 1.35 = 1.35: the fixed lines are true arithmetic, and check finds nothing wrong in them."""
    a, _ = _torch()
    assert _r(a, 2)[1] == "0.27" and _r([5 * a[1]], 2) == ["1.34"]
    text = ("```\noutput = 0.73 * [5, 0] + 0.26 * [0, 5]\n       = [3.65, 0] + [0, 1.30]\n"
            "       = [3.65, 1.30]\n```\n")
    assert _wrong(text) == [(2, "0.26", "0.27"), (3, "1.30", "1.35"), (4, "1.30", "1.35")]
    fixed = fixed_text(text, lambda t: check_text(t, OPTS))
    assert fixed == text.replace("0.26", "0.27").replace("1.30", "1.35")
    assert _wrong(fixed) == []


def test_a_run_of_one_product_a_line_and_its_restated_addends():
    """``1: 0.73 * [5, 0] = [3.65, 0.00]`` (one product a line, heldout2's zh layout): right as 0.73 · 5; the line of
    a wrong weight 0.26 (torch 0.2689: 0.27) is wrong in its product 1.30 (torch 1.34), fixed to 0.27 · 5 = 1.35, and
    a sum written one addend a line restating those products is right or wrong as the product it restates."""
    text = ("```\n1: 0.73 * [5, 0] = [3.65, 0.00]\n2: 0.26 * [0, 5] = [0.00, 1.30]\n```\n\n"
            "```\n  [3.65, 0.00]\n+ [0.00, 1.30]\n```\n")
    assert _wrong(text) == [(3, "0.26", "0.27"), (3, "1.30", "1.35"), (8, "1.30", "1.35")]
    fixed = fixed_text(text, lambda t: check_text(t, OPTS))
    assert _wrong(fixed) == [] and "2: 0.27 * [0, 5] = [0.00, 1.35]" in fixed and "+ [0.00, 1.35]" in fixed
