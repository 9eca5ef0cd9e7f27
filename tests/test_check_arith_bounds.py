"""The checker's arithmetic never crashes or hangs (issue 11): hostile claims are "not understood"."""

import pytest

from attnwalk.check import check_text

FM = "---\nconfig:\n  variant: sdpa\n  tokens: 2\n  dim: 2\n  heads: 1\n---\n"


@pytest.mark.parametrize("claim", [
    "exp(1000) ≈ 1.2345",
    "1 / 0 ≈ 0.5",
    "0/0 ≈ 1",
    "(" * 5000 + "1" + ")" * 5000 + " = 1",
    "10^99999999 = 3",
    "1e100000000 = 2",
    "2^2^2^2^2^2 = 5",
    "9999999999999999999999^9999999 = 1",
    "exp(exp(exp(10))) = 4.5",
])
def test_hostile_claims_are_not_understood_never_wrong(claim):
    report = check_text(FM + claim + "\n")
    assert not report.wrong, [(r.text, r.checks) for r in report.wrong]
    assert not report.verified or claim.startswith("(")


def test_bounds_leave_ordinary_claims_alone():
    report = check_text(FM + "1/7.436563656 ≈ 0.134366\n\nexp(0.5) ≈ 1.6487\n")
    assert [r.text for r in report.wrong] == ["0.134366"]
    assert {r.text for r in report.verified} >= {"0.5", "1.6487"}
