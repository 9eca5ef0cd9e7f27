"""Session 30's reading fixes on hand-made notes: the general arithmetic reader's claim binding and --fix of a wrong
integer (host3's findings). Expected values from torch (float64) or exact arithmetic, never from attnwalk's engine."""

import pytest

from attnwalk.check import check_text

torch = pytest.importorskip("torch", reason="torch is not installed on this machine: pip install torch==2.13.0")

SDPA = {"variant": "sdpa"}


def _exp(x: float) -> float:
    return torch.exp(torch.tensor(x, dtype=torch.float64)).item()


def _wrong(note: str) -> list:
    return [(r.line, r.text, r.failure()[1], r.fix[0] if r.fix else None) for r in check_text(note, SDPA).wrong]


def _status(note: str) -> dict:
    return {(r.line, r.text): r.status for r in check_text(note, SDPA).recs}


def test_a_result_after_a_comma_and_another_name_is_not_the_claims():
    """``exp(1.4142) = x, y = -0``: -0 is y's value, not exp(1.4142)'s (4.11325, torch): nothing called wrong, -0
    left unjudged; the same exp with its own value before the comma is still judged (4.1133: e^x of an x within
    1.4142's rounding; 4.1233 wrong, fixed to 4.1132)."""
    assert f"{_exp(1.4142):.4f}" == "4.1132" and f"{_exp(1.41425):.4f}" == "4.1134"
    assert _wrong("Ta có exp(1.4142) = x, y = -0 ở đây.\n") == []
    assert _status("Ta có exp(1.4142) = x, y = -0 ở đây.\n")[(1, "-0")] == "unknown"
    assert _status("exp(1.4142) = 4.1133, y = 2\n") == {(1, "1.4142"): "verified", (1, "4.1133"): "verified",
                                                       (1, "2"): "unknown"}
    assert _wrong("exp(1.4142) = 4.1233, y = 2\n") == [(1, "4.1233", "4.1132", "4.1132")]


def test_a_formula_with_a_subscripts_comma_still_binds_its_value():
    """``Σ_a,b P[a,b] · W[a,b] = 2 + 3 = 6``: the subscript's comma (no blank after it) ends nothing, so the value
    after the formula is still the sum's (2 + 3 = 5, exact)."""
    assert _wrong("Then s = Σ_a,b P[a,b] · W[a,b] = 2 + 3 = 6 here.\n") == [(1, "6", "5", "5")]


@pytest.mark.parametrize("note, expected", [
    ("a 2.5 * 1 = 2 b\n", "2.500"),     # 2.5 rounds half to even to 2: the old fix was the printed text
    ("q 7 / 2 = 4 r\n", "3.500"),       # 3.5 to 4: the same
    ("exp(2) = 7\n", "7.389"),          # e² = 7.38906 (torch) rounds to 7
    ("c 0.5 * 1 = 1 d\n", "0.500"),     # the old fix, 0, was wrong again (0 ≠ 0.5)
    ("u 1 / 3 = 1 v\n", "0.333"),
    ("2 - 3 = 1\n", "-1"),              # an exact integer stays an integer
    ("i 2 * 3 = 7000000000000000000001 j\n", "6"),
])
def test_a_wrong_integers_fix_is_the_value_the_report_gives_never_its_own_text(note, expected, tmp_path):
    """An integer after ``=`` claims an exact value: where the value is no integer, the report and --fix give it with
    decimals (it was fixed to the value rounded to units: the printed text itself for 2.5 and 3.5 and e², so --fix
    wrote nothing while check called the number wrong); a second run finds nothing wrong."""
    assert f"{_exp(2.0):.3f}" == "7.389"
    (line, text, shown, fix), = _wrong(note)
    assert shown == fix == expected and fix != text
    fixed = note.replace(f"= {text}", f"= {fix}")
    assert _wrong(fixed) == []


def test_an_integer_after_approx_is_still_rounded_to_units():
    """``10 / 4 ≈ 2`` is right (2.5 to units either way); ``10 / 4 ≈ 4`` is wrong, its fix the units (2, half to even
    of the exact 2.5, which ≈ 2 then verifies)."""
    assert _wrong("10 / 4 ≈ 2\n") == []
    assert _wrong("10 / 4 ≈ 4\n") == [(1, "4", "2", "2")]

