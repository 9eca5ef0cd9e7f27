"""The seventh held-out round (tests/corpus/heldout7): eleven real public notes check had never seen (seven English,
two Vietnamese, one Korean, one Indonesian), measured once before any change (FIRST_RUN.md: 5 of 44 wrong numbers
found, 0 false positives). Here: no false positive on any of them, the recall benchmarks/heldout.py prints, the notes'
own setups recomputed with torch, ``--fix`` converging to torch's numbers, and each widened reader called directly
against values derived with torch.

The truth is torch's: tests/corpus/heldout/truth.py recomputes each claimed tensor from the note's scenario tables
(never through attnwalk's engine), and a number is wrong when it is off by more than half a unit of its last printed
digit (DESIGN §7, widened by float32 rounding).
"""

import math
from pathlib import Path

import pytest
from conftest import heldout_tools
from conftest import torch64 as _t

from attnwalk.check import check_text, notations
from attnwalk.scenario import load_scenario

torch = pytest.importorskip("torch", reason="torch is not installed on this machine: pip install torch==2.13.0")

CORPUS = Path(__file__).resolve().parent / "corpus"
HELDOUT7 = CORPUS / "heldout7"
NOTES = sorted(p.stem for p in HELDOUT7.glob("*.md") if p.with_suffix(".toml").exists())

truth, bench = heldout_tools()


def test_the_preference_notes_logits_give_its_pairs():
    """Rewards 1 and 0 over beta 0.5 and 2 are the logits (2, 0) and (0.5, 0): softmax 0.881 / 0.119 and 0.622 /
    0.378, as the note prints (its scenario's two rows)."""
    a = torch.softmax(_t([[1 / 0.5, 0 / 0.5], [1 / 2, 0 / 2]]), -1)
    assert [[f"{w:.3f}" for w in row] for row in a.tolist()] == [["0.881", "0.119"], ["0.622", "0.378"]]
    assert not truth.torch_wrong(HELDOUT7, "en_dpo_text_fence_two_betas")[0]


def test_the_handbooks_weights_and_output():
    """The row of "century": scores [0.68, 0.56, 0.26, 0.62] / sqrt 2, softmax [0.2762, 0.2538, 0.2053, 0.2648] (the
    handbook: 0.34, 0.29, 0.17, 0.31), output [0.6414, 0.3586] (the handbook, from its own weights: [0.764, 0.346])."""
    q = _t([[0.9, 0.1], [0.7, 0.3], [0.1, 0.9], [0.8, 0.2]])
    k = _t([[0.8, 0.2], [0.6, 0.4], [0.1, 0.9], [0.7, 0.3]])
    v = _t([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0], [0.9, 0.1]])
    s = q @ k.T
    assert [f"{x:.2f}" for x in s[3].tolist()] == ["0.68", "0.56", "0.26", "0.62"]
    a = torch.softmax(s / math.sqrt(2), -1)
    assert [f"{w:.4f}" for w in a[3].tolist()] == ["0.2762", "0.2538", "0.2053", "0.2648"]
    assert [f"{x:.4f}" for x in (a @ v)[3].tolist()] == ["0.6414", "0.3586"]


def test_the_short_notes_softmax_rows():
    """softmax([1, 2, 3]) = [0.0900, 0.2447, 0.6652] (the Korean lesson: 0.66), softmax([-1.2, 2.5]) = [0.0241,
    0.9759] (the Indonesian comment: 0.05, 0.95), e^0.1 = 1.10517 and e = 2.71828 (the probability lesson: 1.10,
    2.71), and the Vietnamese causal row softmax([0.3, 0.7, 2.5]) = [0.0868, 0.1295, 0.7836] (0.08, 0.12, 0.80)."""
    assert [f"{w:.4f}" for w in torch.softmax(_t([1, 2, 3]), -1).tolist()] == ["0.0900", "0.2447", "0.6652"]
    assert [f"{w:.4f}" for w in torch.softmax(_t([-1.2, 2.5]), -1).tolist()] == ["0.0241", "0.9759"]
    assert f"{math.exp(0.1):.5f}" == "1.10517" and f"{math.e:.5f}" == "2.71828"
    assert [f"{w:.4f}" for w in torch.softmax(_t([0.3, 0.7, 2.5]), -1).tolist()] == ["0.0868", "0.1295", "0.7836"]
    assert sorted(truth.torch_wrong(HELDOUT7, "ko_softmax_concept_123")[0]) == [(10, "0.66")]
    assert sorted(truth.torch_wrong(HELDOUT7, "en_robotics_notes_softmax_logits")[0]) == [(8, "2.71"), (9, "1.10")]


# ---------------------------------------------------------------- the widened readers, called directly

def test_a_weighted_sum_going_on_over_lines_is_judged_as_the_restated_query():
    """The handbook's ``= 0.34×[1.0,0.0] + 0.29×[0.5,0.5] + ...`` restates its weight row printed 14 lines above
    (judged as the query "century"'s), then ``= [0.34,0.0] + [0.145,0.145] + ...`` (each weight times its value
    row) and ``= [0.764, 0.346]`` (the output) go on over the next two lines: each is judged as that query's, to
    torch's digits (weights 0.28, 0.25, 0.21, 0.26). The products and output are results of printed arithmetic of
    those wrong weights (docs/course.md), so each is judged by torch (products 0.28, 0.127, 0.21, 0.238, 0.026;
    output 0.641, 0.359) and fixed to the arithmetic of the fixed weights: 0.25·0.5 = 0.125, 0.26·0.9 = 0.234,
    0.26·0.1 = 0.026; 0.28 + 0.125 + 0 + 0.234 = 0.639, 0 + 0.125 + 0.21 + 0.026 = 0.361."""
    opts = load_scenario(HELDOUT7 / "en_handbook_virat_rounded_weights.toml")
    text = (HELDOUT7 / "en_handbook_virat_rounded_weights.md").read_text(encoding="utf-8")
    wrong = sorted((r.line, r.text, r.checks[-1][2]) for r in check_text(text, opts).wrong if r.line >= 53)
    assert wrong == [(53, "0.17", "0.21"), (53, "0.29", "0.25"), (53, "0.31", "0.26"), (53, "0.34", "0.28"),
                     (54, "0.031", "0.026"), (54, "0.145", "0.125"), (54, "0.145", "0.125"), (54, "0.17", "0.21"),
                     (54, "0.279", "0.234"), (54, "0.34", "0.28"),
                     (55, "0.346", "0.361"), (55, "0.764", "0.639")]
    # the same sum with no weight row printed above it: the coefficients stay the note's own assumption
    alone = "\n".join(text.split("\n")[52:55]) + "\n"
    assert "0.764" in alone and not check_text(alone, opts).wrong


def test_a_softmax_between_arrows_is_the_softmax_of_the_row_before():
    """``[ 0.5    1.8    -∞  ]  → softmax → [0.21, 0.79, 0.00]``: softmax([0.5, 1.8]) = [0.2142, 0.7858] (torch), the
    masked score weighing 0: right; ``[0.30, 0.70, 0.00]`` is wrong (0.21, 0.79). The causal row ``[ 0.3  0.7  2.5 ]
    → softmax → [0.08, 0.12, 0.80]`` is not called wrong: scores within their own rounding (0.25, 0.65, 2.55) give
    [0.0802, 0.1197, 0.8001], as the arithmetic reading of ``softmax([..]) = [..]`` allows."""
    assert [f"{w:.4f}" for w in torch.softmax(_t([0.5, 1.8, -math.inf]), -1).tolist()] == ["0.2142", "0.7858",
                                                                                         "0.0000"]
    assert [f"{w:.4f}" for w in torch.softmax(_t([0.25, 0.65, 2.55]), -1).tolist()] == ["0.0802", "0.1197",
                                                                                      "0.8001"]
    text = ('"yêu"    [ 0.5    1.8    -∞  ]  → softmax → [0.21, 0.79, 0.00]\n'
            '"mèo"    [ 0.3    0.7    2.5 ]  → softmax → [0.08, 0.12, 0.80]\n'
            "[0.5, 1.8, -inf] -> softmax -> [0.30, 0.70, 0.00]\n")
    hits: dict = {}
    notations.softmax_calls(text, None, hits, [])
    assert sorted((h.line, h.text, h.ok, h.fix) for h in hits.values()) == [
        (1, "0.00", True, None), (1, "0.21", True, None), (1, "0.79", True, None),
        (2, "0.08", True, None), (2, "0.12", True, None), (2, "0.80", True, None),
        (3, "0.00", True, None), (3, "0.30", False, "0.21"), (3, "0.70", False, "0.79")]
    # no softmax between the arrows, or words among the scores: nothing read
    for other in ("[ 0.5  1.8 ] → mean → [0.21, 0.79]\n", "[ a  1.8 ] → softmax → [0.21, 0.79]\n"):
        hits = {}
        notations.softmax_calls(other, None, hits, [])
        assert hits == {}


def test_a_masked_score_in_a_softmax_call_weighs_zero():
    """``softmax([1.2, 0.8, -\\infty]) = [0.60, 0.40, 0.00]`` (the Vietnamese padding example): softmax([1.2, 0.8])
    = [0.5987, 0.4013] (torch), so all three are right; ``-∞`` and the doubled backslash of a string are the same."""
    assert [f"{w:.2f}" for w in torch.softmax(_t([1.2, 0.8, -math.inf]), -1).tolist()] == ["0.60", "0.40", "0.00"]
    assert [a and a.text for a in notations._score_args("1.2, 0.8, -\\\\infty", 0)] == ["1.2", "0.8", None]
    assert [a and a.text for a in notations._score_args("0.5    1.8    −∞", 0)] == ["0.5", "1.8", None]
    assert notations._score_args("-∞, -∞", 0) is None and notations._score_args("0.5, x", 0) is None
    text = ("$\\text{softmax}([1.2, 0.8, -\\infty]) = [0.60, 0.40, 0.00]$\n"
            "softmax([1.2, 0.8, -∞]) = [0.55, 0.45, 0.00]\n")
    hits: dict = {}
    notations.softmax_calls(text, None, hits, [])
    assert sorted((h.text, h.ok, h.fix) for h in hits.values()) == [
        ("0.00", True, None), ("0.00", True, None), ("0.40", True, None), ("0.45", False, "0.40"),
        ("0.55", False, "0.60"), ("0.60", True, None)]
