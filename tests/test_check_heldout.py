"""Held-out real notes (tests/corpus/heldout, issue 8): public attention walkthroughs check was never
tuned on, measured once before any change (FIRST_RUN.md). Here: no false positive on any of them, the
recall benchmarks/heldout.py prints, and the recognisers of check/notations.py called directly.

The truth is torch's: tests/corpus/heldout/truth.py recomputes each claimed tensor from the note's
scenario tables (never through attnwalk's engine), and a number is wrong when it is off by more than
half a unit of its last printed digit (DESIGN §7, widened by float32 rounding).
"""

import math
from collections import Counter
from pathlib import Path

import pytest
from conftest import heldout_tools

from attnwalk.api import walk
from attnwalk.check import check_file, human, notations
from attnwalk.scenario import load_scenario

torch = pytest.importorskip("torch", reason="torch is not installed on this machine: pip install torch==2.13.0")

HELDOUT = Path(__file__).resolve().parent / "corpus" / "heldout"
REAL = Path(__file__).resolve().parent / "corpus" / "real"
NOTES = sorted(p.stem for p in HELDOUT.glob("*.md") if p.with_suffix(".toml").exists())
NEEDS_SETTLE = {"en_cat_ate_mouse_percent", "en_math_identity_and_softmax", "en_softmax_by_hand_10_0_m5"}


truth, bench = heldout_tools()


def test_the_new_readers_change_nothing_on_the_real_corpus():
    for name in sorted(p.stem for p in REAL.glob("*.md")):
        m = truth.measure(REAL, name)
        assert m["false_pos"] == [] and m["found"] == m["truth_wrong"], name


# ---------------------------------------------------------------- the recognisers, called directly

def _note(name: str) -> str:
    return (HELDOUT / f"{name}.md").read_text(encoding="utf-8")


def _line(text: str, n: int) -> str:
    return text.split("\n")[n - 1]


def test_object_literal_lists_read_a_widgets_keys_and_its_softmax_is_wrong():
    text = _note("en_widget_data_the_cat_sat")
    entries = {key: [c.text for c in cells] for key, _, cells in notations.object_literal_lists(text)}
    assert entries == {"queries": ["0.8", "0.3"], "dotProducts": ["0.19", "0.68", "0.73", "0.26", "0.19", "0.55"],
                       "softmax": ["0.08", "0.23", "0.24", "0.1", "0.08", "0.27"]}
    trace = walk(**load_scenario(HELDOUT / "en_widget_data_the_cat_sat.toml"))
    hits = {}
    notations.keyed_lists(text, trace, hits, [])
    by_line = {}
    for h in hits.values():
        by_line.setdefault(h.line, []).append(h.ok)
    # torch: q·k = [0.19, 0.68, 0.73, 0.26, 0.19, 0.55] (all right); softmax of those (no scaling step)
    w = torch.softmax(torch.tensor([[0.19, 0.68, 0.73, 0.26, 0.19, 0.55]], dtype=torch.float64), -1)[0]
    assert by_line[28] == [True] * 6
    assert by_line[29] == [abs(float(p) - e) <= 0.5 * 10.0 ** -len(p.split(".")[1]) for p, e in
                           zip(["0.08", "0.23", "0.24", "0.1", "0.08", "0.27"], (float(x) for x in w))]
    assert by_line[29] == [False, False, False, True, False, False]


def test_a_weights_list_is_the_row_whose_scores_are_printed_above_it():
    text = _note("en_softmax_by_hand_10_0_m5")
    trace = walk(**load_scenario(HELDOUT / "en_softmax_by_hand_10_0_m5.toml"))
    hits = {}
    notations.rows_after_scores(text, trace, hits, [])
    got = {}
    for h in hits.values():
        got.setdefault(h.line, []).append((h.text, h.ok, h.label))
    # "Scaled scores: [5, 0, -2.5]" (row 1) then "Softmax output: [..]"; "[1.25, 0, -0.625]" (row 2) then "Softmax:"
    e1 = [math.exp(5) / (math.exp(5) + 1 + math.exp(-2.5)), 1 / (math.exp(5) + 1 + math.exp(-2.5))]
    assert round(e1[0], 4) == 0.9928 and round(e1[1], 4) == 0.0067
    assert got[73] == [("0.9929", False, "attn[1]"), ("0.0067", True, "attn[1]"), ("0.0005", True, "attn[1]")]
    assert [ok for _, ok, _ in got[80]] == [False, False, False]  # softmax([1.25, 0, -0.625]) = [0.69, 0.20, 0.11]
    assert set(got) == {73, 80}


def test_percent_restatements_are_the_decimal_before_them():
    cat = _note("en_cat_ate_mouse_percent")
    assert [(pct, prev) for _, pct, prev in notations.percent_restatements(_line(cat, 74))] == [("32", "0.32")]
    soft = _note("en_softmax_by_hand_10_0_m5")
    found = [(pct, prev) for ln in (28, 30, 32) for _, pct, prev in notations.percent_restatements(_line(soft, ln))]
    assert found == [("99.995", "0.9999545"), ("0.005", "0.0000454"), ("0.0003", "0.0000003")]
    # 0.9999545 = 99.99545 % -> 99.995 %; 0.0000454 = 0.00454 % -> 0.005 %; 0.0000003 = 0.00003 %, not 0.0003 %
    assert [notations.restates(p, d) for p, d in found] == [True, True, False]
    assert notations.percent_restatements("scores: [0.5, 32]") == []


def test_thousands_separators_make_one_number_outside_lists():
    line = _line(_note("en_softmax_by_hand_10_0_m5"), 47)
    assert [v for _, _, v in notations.thousands_numbers(line)] == [22026.0, 22026.0]
    assert abs(math.exp(10) - 22026) <= 0.5
    assert notations.thousands_numbers("x = [1,000, 2]") == []
    assert notations.thousands_numbers("q = [1,0,1,0]") == []


def test_hypothetical_assignments_and_self_ratios():
    soft = _note("en_softmax_by_hand_10_0_m5")
    assert [(s, n) for _, s, n in notations.hypothetical_assignments(_line(soft, 62))] == [("d_k", "4")]
    assert notations.hypothetical_assignments("d_k = 4 here") == []
    line = _line(_note("en_math_identity_and_softmax"), 51)
    (pos,) = notations.self_ratios(line)
    assert line[pos:pos + 1] == "1"
    assert notations.self_ratios("d_k / d_q = 1") == []


def test_settle_turns_each_false_positive_around_and_keeps_the_true_wrong_numbers():
    """settle() (inside check) on the three notes: what stays wrong is wrong in torch; a second settle
    changes nothing."""
    got = {}
    for name in sorted(NEEDS_SETTLE):
        report = check_file(HELDOUT / f"{name}.md", load_scenario(HELDOUT / f"{name}.toml"))
        before = Counter((r.line, r.text) for r in report.wrong)
        body = (HELDOUT / f"{name}.md").read_text(encoding="utf-8")
        after = Counter((r.line, r.text) for r in notations.settle(body, report.recs) if r.status == "wrong")
        got[name] = (before, after)
    for name, (_, after) in got.items():  # what stays wrong is wrong in torch
        wrong = Counter({(ln, t.rstrip("%")): n for (ln, t), n in truth.torch_wrong(HELDOUT, name)[0].items()})
        assert after - wrong == Counter(), name
    assert (32, "0.0003") in got["en_softmax_by_hand_10_0_m5"][1]  # 0.0000003 is 0.00003 %, not 0.0003 %
    assert got["en_math_identity_and_softmax"][1] == Counter()
    assert got["en_cat_ate_mouse_percent"][1] == Counter()  # 37 % restates 1.47 / 4.02 = 0.37: read as such
    assert all(before == after for before, after in got.values())


def test_a_list_with_trailing_comma_stays_a_matrix_row_for_the_other_readers():
    """object_literal_lists reads only ``key: [..],`` entries: rows of a nested literal are not its."""
    text = "keys: [\n  [0.2, 0.1],\n  [0.7, 0.4],\n],\n"
    assert notations.object_literal_lists(text) == []
    assert human.tensors_of("dotProducts") == ["scores"]
