"""The fourth held-out round (tests/corpus/heldout4): nine real public notes check had never seen, measured once
before any change (FIRST_RUN.md: 4 of 12 wrong numbers found, 0 false positives). Here: no false positive on any of
them, the recall benchmarks/heldout.py prints, and the notes' own setups recomputed with torch.

The truth is torch's: tests/corpus/heldout/truth.py recomputes each claimed tensor from the note's scenario tables
(never through attnwalk's engine), and a number is wrong when it is off by more than half a unit of its last printed
digit (DESIGN §7, widened by float32 rounding).
"""

import math
from pathlib import Path

import pytest
from conftest import heldout_tools

torch = pytest.importorskip("torch", reason="torch is not installed on this machine: pip install torch==2.13.0")

CORPUS = Path(__file__).resolve().parent / "corpus"
HELDOUT4 = CORPUS / "heldout4"
NOTES = sorted(p.stem for p in HELDOUT4.glob("*.md") if p.with_suffix(".toml").exists())


truth, bench = heldout_tools()


def test_the_fourth_round_is_new_real_notes_in_three_languages():
    assert len(NOTES) >= 8
    assert {n.split("_")[0] for n in NOTES} == {"en", "pt", "zh"}
    before = {p.read_text(encoding="utf-8").split("\n", 1)[0]
              for folder in ("real", "heldout", "heldout2", "heldout3") for p in (CORPUS / folder).glob("*.md")}
    firsts = [(HELDOUT4 / f"{n}.md").read_text(encoding="utf-8").split("\n", 1)[0] for n in NOTES]
    assert all(f.startswith("<!-- source: ") and f not in before for f in firsts)
    assert len(set(firsts)) == len(firsts)
    assert sum(sum(truth.torch_wrong(HELDOUT4, n)[0].values()) for n in NOTES) == 12


@pytest.mark.parametrize("name", NOTES)
def test_heldout4_note_has_no_false_positive(name):
    assert truth.measure(HELDOUT4, name)["false_pos"] == []


# wrong numbers check finds per note (FIRST_RUN.md: 4 of 12, no change to check since). Missed: the side-by-side
# README's weights block (its identical Output block is found), the pandoc README's escaped lists (\[\[...\]\]),
# the two-decimal README's truncated output matrix in a code block.
FOUND = {"en_lab_readme_side_by_side_inputs": 4}


@pytest.mark.parametrize("name", NOTES)
def test_heldout4_recall_is_what_the_benchmark_prints(name):
    assert truth.measure(HELDOUT4, name)["found"] == FOUND.get(name, 0)


def test_the_benchmark_measures_the_fourth_round(capsys):
    assert bench.main(["--dir", str(HELDOUT4)]) == 0
    rows = capsys.readouterr().out.strip().split("\n")
    assert rows[-1].startswith("| **all** | 12 | 4 | 33% | 0 |")


def test_the_heldout4_scenarios_reproduce_the_printed_inputs():
    """Every input a note prints (q, k, v given directly, or X = Q = K = V) is torch's value of its scenario at the
    note's precision: the scenario is the note's setup. The diff page prints no input: there its one printed result,
    the context vector, is torch's."""
    for name in NOTES:
        wrong, claimed = truth.torch_wrong(HELDOUT4, name, only={"x", "q", "k", "v"})
        if not claimed:
            assert name == "zh_book_translation_diff_page", name
            wrong, claimed = truth.torch_wrong(HELDOUT4, name)
        assert sum(claimed.values()) > 0 and not wrong, name


def _t(rows):
    return torch.tensor(rows, dtype=torch.float64)


def test_the_side_by_side_readme_prints_weights_of_no_scaling_it_states():
    """Q = K = [[1, 0, 1], [0, 1, 0]], V = I: its formula gives softmax([2, 0]/√3) = [0.7604, 0.2396] and
    softmax([0, 1]/√3) = [0.3595, 0.6405]; the README prints [0.8756, 0.1244] for the first row and mirrors it for
    the second, which is neither that nor the unscaled softmax([2, 0]) = [0.8808, 0.1192]."""
    q = _t([[1, 0, 1], [0, 1, 0]])
    a = torch.softmax(q @ q.T / math.sqrt(3), -1)
    assert [f"{x:.4f}" for x in a.reshape(-1).tolist()] == ["0.7604", "0.2396", "0.3595", "0.6405"]
    assert f"{torch.softmax(_t([2, 0]), -1)[0]:.4f}" == "0.8808"
    wrong, _ = truth.torch_wrong(HELDOUT4, "en_lab_readme_side_by_side_inputs")
    assert sorted(wrong) == [(52, "0.1244"), (52, "0.8756"), (53, "0.1244"), (53, "0.8756"),
                             (56, "0.1244"), (56, "0.8756"), (57, "0.1244"), (57, "0.8756")]


def test_outputs_from_rounded_or_truncated_weights_are_wrong_in_their_last_digit():
    """Q = K = I (2×2), V = [[10, 0], [0, 20]]: the weights are e^(1/√2)/(1 + e^(1/√2)) = 0.66976155 and its
    complement. The pandoc README multiplies the weights rounded to six places (20 × 0.330239 = 6.60478, torch
    6.604769); the two-decimal README truncates (6.69, torch 6.6976; 13.39, torch 13.3952)."""
    e = math.exp(1 / math.sqrt(2))
    w = e / (1 + e)
    out = torch.softmax(_t([[1, 0], [0, 1]]) / math.sqrt(2), -1) @ _t([[10, 0], [0, 20]])
    assert torch.allclose(out, _t([[10 * w, 20 * (1 - w)], [10 * (1 - w), 20 * w]]), atol=1e-12)
    assert f"{20 * 0.330239:.5f}" == "6.60478" and f"{out[0, 1]:.5f}" == "6.60477"
    assert f"{out[0, 0]:.2f}" == "6.70" and f"{out[1, 1]:.2f}" == "13.40"
    assert sorted(truth.torch_wrong(HELDOUT4, "en_lab_readme_escaped_brackets")[0]) == [(37, "13.39522"),
                                                                                        (37, "6.60478")]
    assert sorted(truth.torch_wrong(HELDOUT4, "pt_lab_readme_two_decimals")[0]) == [(26, "6.69"), (27, "13.39")]


def test_the_diff_page_is_the_chapters_unscaled_single_query_attention():
    """The book's z(2): scores inputs @ journey, softmax without scaling, the weighted sum of the inputs."""
    x = _t([[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64], [0.22, 0.58, 0.33], [0.77, 0.25, 0.10],
            [0.05, 0.80, 0.55]])
    w = torch.softmax(x @ x[1], 0)
    assert abs(float(w.sum()) - 1) < 1e-15
    assert [f"{z:.4f}" for z in (w @ x).tolist()] == ["0.4419", "0.6515", "0.5683"]
    t = truth.torch_tensors(truth.load(HELDOUT4, "zh_book_translation_diff_page")[2])
    assert torch.allclose(t["out"][0], w @ x, atol=1e-15)
