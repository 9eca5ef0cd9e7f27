"""The readers widened for what the held-out rounds missed, called directly on small notes; expected values from
torch (float64), never from attnwalk's engine."""

import pytest

from attnwalk.api import walk
from attnwalk.check import check_text, forms

torch = pytest.importorskip("torch", reason="torch is not installed on this machine: pip install torch==2.13.0")


def _softmax(row):
    return torch.softmax(torch.tensor(row, dtype=torch.float64), dim=-1).tolist()


GIVEN = {"variant": "sdpa", "source": "scores", "heads": 1, "scale": "none", "scores": [[1.0, 2.0, 3.0]]}


def test_a_tuple_of_weights_below_the_scores_tuple_is_their_softmax():
    """heldout7's Korean lesson: ``\\mathbf{z} = (1, 2, 3)`` then ``\\mathbf{p} \\approx (0.09, 0.24, 0.66)``:
    softmax([1, 2, 3]) = [0.0900, 0.2447, 0.6652] (torch), so 0.66 is wrong (0.67) and the others right."""
    p = _softmax([1, 2, 3])
    assert [f"{x:.2f}" for x in p] == ["0.09", "0.24", "0.67"]
    note = "**예:** $\\mathbf{z} = (1, 2, 3)$\n- 합 ≈ 30.2\n- $\\mathbf{p} \\approx (0.09, 0.24, 0.66)$\n"
    hits = {}
    forms.softmax_tuples(note, walk(**GIVEN), hits, [])
    assert sorted((h.text, h.ok, h.expected) for h in hits.values()) == [
        ("0.09", True, "0.09"), ("0.24", True, "0.24"), ("0.66", False, "0.67")]
    assert [(r.line, r.text, r.fix[0]) for r in check_text(note, GIVEN).wrong] == [(3, "0.66", "0.67")]


def test_tuples_that_are_not_the_traces_scores_and_their_softmax_stay_unread():
    """Two distributions (a lesson on KL divergence), a tuple that is no row of the scores, a tuple that is no
    distribution, or one further than TUPLE_REACH lines below: nothing judged."""
    trace = walk(**GIVEN)
    for note in ("$p = (0.2, 0.3, 0.5)$ and $q \\approx (0.1, 0.2, 0.7)$\n",
                 "$z = (1, 2, 4)$\n$p \\approx (0.09, 0.24, 0.66)$\n",
                 "$z = (1, 2, 3)$\n$y = (0.5, 0.9, 0.66)$\n",
                 "$z = (1, 2, 3)$\n" + "text\n" * (forms.TUPLE_REACH + 1) + "$p \\approx (0.09, 0.24, 0.66)$\n"):
        hits = {}
        forms.softmax_tuples(note, trace, hits, [])
        assert hits == {}, note


TOKENS = {"variant": "sdpa", "source": "direct", "heads": 1, "q": [[0.9, 0.1], [0.7, 0.3], [0.1, 0.9], [0.8, 0.2]],
          "k": [[0.8, 0.2], [0.6, 0.4], [0.1, 0.9], [0.7, 0.3]], "v": [[1.0, 0.0], [0.5, 0.5], [0.0, 1.0], [0.9, 0.1]],
          "labels": ["Virat", "scored", "a", "century"]}


def test_token_equals_weight_pairs_restate_the_row_judged_above():
    """heldout7's handbook: ``Attention weights: [0.34, 0.29, 0.17, 0.31]`` (the row of "century", torch's weights
    0.2762, 0.2538, 0.2053, 0.2648), then ``(Virat=0.34, scored=0.29, a=0.17, century=0.31)``: each pair restates its
    token's weight, so each is wrong as that weight is, and --fix writes torch's digits in both places. (The row is
    century's by the scaled scores printed above it: [0.68, 0.56, 0.26, 0.62] / √2 = [0.48, 0.40, 0.18, 0.44].)"""
    q, k = torch.tensor(TOKENS["q"], dtype=torch.float64), torch.tensor(TOKENS["k"], dtype=torch.float64)
    w = [f"{x:.2f}" for x in torch.softmax(q[3] @ k.T / 2 ** 0.5, dim=-1).tolist()]
    assert w == ["0.28", "0.25", "0.21", "0.26"]
    scaled = [f"{x:.2f}" for x in (q[3] @ k.T / 2 ** 0.5).tolist()]
    assert scaled == ["0.48", "0.40", "0.18", "0.44"]
    note = ("```\n→ Scaled scores: [0.48, 0.40, 0.18, 0.44]\n→ Attention weights: [0.34, 0.29, 0.17, 0.31]\n"
            "  (Virat=0.34, scored=0.29, a=0.17, century=0.31)\n```\n")
    wrong = [(r.line, r.text, r.fix[0]) for r in check_text(note, TOKENS).wrong]
    assert wrong == [(ln, t, f) for ln in (3, 4) for t, f in zip(("0.34", "0.29", "0.17", "0.31"), w)]
    # the pairs in another order restate nothing printed above them: left unread
    swapped = note.replace("(Virat=0.34, scored=0.29", "(Virat=0.29, scored=0.34")
    assert [r.line for r in check_text(swapped, TOKENS).wrong] == [3, 3, 3, 3]
    # words that are no tokens of the config (``x=0.34, y=0.29``): left unread
    other = note.replace("Virat=", "x=").replace("scored=", "y=")
    assert [r.line for r in check_text(other, TOKENS).wrong] == [3, 3, 3, 3, 4, 4]


LOGITS = {"variant": "sdpa", "source": "scores", "heads": 1, "scale": "none", "scores": [[-1.2, 2.5]],
          "kv_labels": ["Non-Clickbait", "Clickbait"]}


def test_weights_named_below_a_judged_scores_row_are_that_rows_softmax():
    """heldout7's Indonesian comments: ``tensor([[-1.2, 2.5]])`` (the logits, judged as the scores), then ``Setelah
    softmax: tensor([[0.05, 0.95]])`` and ``probs = [0.05, 0.95]``: softmax([-1.2, 2.5]) = [0.0241, 0.9759] (torch),
    both lists wrong at both numbers (two numbers, both wrong: the one-row lists alone leave them unread)."""
    p = [f"{x:.2f}" for x in _softmax([-1.2, 2.5])]
    assert p == ["0.02", "0.98"]
    note = ("```python\n# outputs.logits adalah skor mentah dari model\n# Contoh: tensor([[-1.2, 2.5]]) → kelas 0\n"
            "logits = outputs.logits\n# Setelah softmax: tensor([[0.05, 0.95]])\nprobs = F.softmax(logits, dim=-1)\n"
            "# Contoh: jika probs = [0.05, 0.95] → predicted_class = 1\n```\n")
    report = check_text(note, LOGITS)
    assert [(r.line, r.text) for r in report.verified] == [(3, "-1.2"), (3, "2.5")]  # the scores row
    wrong = [(r.line, r.text, r.fix[0]) for r in report.wrong]
    assert wrong == [(5, "0.05", p[0]), (5, "0.95", p[1]), (7, "0.05", p[0]), (7, "0.95", p[1])]
    # no scores judged above them (the logits unnamed), or a list of another length: unread
    assert not check_text(note.replace("outputs.logits adalah skor mentah", "model"), LOGITS).wrong
    assert [r.line for r in check_text(note.replace("[0.05, 0.95] →", "[0.05, 0.95, 0.5] →"), LOGITS).wrong] == [5, 5]


LESSON = {"variant": "sdpa", "source": "direct", "heads": 1, "q": [[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 0, 0]],
          "k": [[1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 0, 1]], "v": [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]}


def test_weighted_terms_added_entry_by_entry_are_each_weight_times_its_value():
    """heldout7's Vietnamese lesson: ``Output[2] = 0.506·[1,2,3,4] + 0.186·[5,6,7,8] + 0.307·[9,10,11,12]`` then
    ``= [0.506+0.930+2.763, 1.012+1.116+3.070, ...]``: each term is weight j times entry d of value row j, torch's
    0.5065·1, 0.1863·5 = 0.9316, 0.3072·9 = 2.7648, 0.5065·2 = 1.0130, 0.1863·6 = 1.1179, 0.3072·10 = 3.0720, and the
    exact product of the printed weight and value (0.186·5 = 0.930, ...): the weights round torch's, so each term is
    right as that arithmetic (results of printed arithmetic, docs/course.md); a term neither (0.940) is wrong, fixed
    to the arithmetic, 0.930."""
    q, k = torch.tensor(LESSON["q"], dtype=torch.float64), torch.tensor(LESSON["k"], dtype=torch.float64)
    a = torch.softmax(q[2] @ k.T / 2, dim=-1)
    v = torch.tensor(LESSON["v"], dtype=torch.float64)
    terms = [[f"{float(a[j] * v[j, d]):.3f}" for j in range(3)] for d in range(2)]
    assert terms == [["0.506", "0.932", "2.765"], ["1.013", "1.118", "3.072"]]
    note = ("```\nOutput[2] = 0.506·[1,2,3,4] + 0.186·[5,6,7,8] + 0.307·[9,10,11,12]\n"
            "          = [0.506+0.930+2.763, 1.012+1.116+3.070, ...]\n```\n")
    assert [f"{float(x):.3f}" for x in a] == ["0.506", "0.186", "0.307"]
    assert not check_text(note, LESSON).wrong
    bad = note.replace("0.930", "0.940")
    assert [(r.text, r.fix[0]) for r in check_text(bad, LESSON).wrong] == [("0.940", "0.930")]
    # entries of another count of terms than the sum has (two of three): unread
    assert not check_text(note.replace("0.506+0.930+2.763, 1.012+1.116+3.070", "0.930+2.763, 1.116+3.070"),
                          LESSON).wrong


DOT = {"variant": "sdpa", "source": "direct", "heads": 1, "scale": "none", "q": [[5.0, 1.0, 20.0]],
       "k": [[3.0, 12.0, 45.0], [59.0, 2.0, 5.0], [1.0, 43.0, 5.0], [4.0, 3.0, 45.3]],
       "v": [[3.0, 12.0, 45.0], [59.0, 2.0, 5.0], [1.0, 43.0, 5.0], [4.0, 3.0, 45.3]]}


def test_weights_said_respectively_of_keys_whose_scores_were_said_before():
    """heldout5's lab: ``the respective scores of 927 and 929. But after softmax, the attention they'll get is
    0.119 and 0.880 respectively``: the scores [927, 397, 148, 929] (torch) name keys 0 and 3, whose weights are
    0.1192 and 0.8808: 0.119 right, 0.880 wrong (0.881)."""
    q, k = torch.tensor(DOT["q"], dtype=torch.float64), torch.tensor(DOT["k"], dtype=torch.float64)
    s = (q @ k.T)[0]
    assert s.tolist() == [927.0, 397.0, 148.0, 929.0]
    w = torch.softmax(s, dim=-1)
    assert (f"{float(w[0]):.3f}", f"{float(w[3]):.3f}") == ("0.119", "0.881")
    note = ("The first and last annotation had the respective scores of 927 and 929. But after softmax, the attention "
            "they'll get is 0.119 and 0.880 respectively.\n")
    report = check_text(note, DOT)
    assert [(r.text, r.checks[-1][1]) for r in report.verified if r.checks] == [("0.119", "attn[0, 0]")]
    assert [(r.text, r.fix[0]) for r in report.wrong] == [("0.880", "0.881")]
    # scores that are no entries of the row (928), or no words naming the weights between: unread
    assert not check_text(note.replace("927 and", "928 and"), DOT).wrong
    assert not check_text(note.replace("But after softmax, the attention", "And the heights"), DOT).wrong


def test_a_number_after_itself_restates_the_judged_number_of_a_token_above():
    """heldout5's ViT guide: ``D(0.170) → E(0.084) ← F(0.134)`` (each restating its token's row of the table
    above) then ``Lower attention to itself (0.084)``: the number after "itself" restates the one judged number
    printed the same after a token above, E's own dot product E·E = 0.094 (torch, from the guide's E =
    [0.11, 0.23, 0.17, 0.01]) printed as 0.084, so it is wrong as that one is."""
    from pathlib import Path

    from attnwalk.scenario import load_scenario

    folder = Path(__file__).resolve().parent / "corpus" / "heldout5"
    opts = load_scenario(folder / "en_vit_patch_attention_tables.toml")
    e = torch.tensor(opts["q"][opts["labels"].index("E")], dtype=torch.float64)
    assert f"{float(e @ e):.3f}" == "0.094"
    text = (folder / "en_vit_patch_attention_tables.md").read_text(encoding="utf-8")
    assert text.split("\n")[211].startswith("- **Lower attention to itself (0.084):**")
    wrong = {(r.line, r.text): r.fix[0] for r in check_text(text, opts).wrong}
    assert wrong[202, "0.084"] == wrong[212, "0.084"] == "0.094"
    # another number after "itself" restates nothing above: unread
    other = text.replace("itself (0.084)", "itself (0.085)")
    assert (212, "0.085") not in {(r.line, r.text) for r in check_text(other, opts).wrong}


DEVLOG = {"variant": "sdpa", "source": "direct", "heads": 1, "scale": "none",
          "q": [[1, 0, 0], [0, 1, 1], [0, 0, 1], [1, 1, 0]], "k": [[0, 1, 0], [1, 1, 0], [0, 0, 1], [1, 0, 1]],
          "v": [[0.1, 0.2, 0.3], [0.8, 0.1, 0.5], [0.2, 0.3, 0.1], [0.4, 0.6, 0.2]],
          "labels": ["Si", "llueve", "me", "mojo"]}


def test_coefficients_of_named_values_restating_a_judged_row_are_that_rows_weights():
    """heldout6's devlog: ``softmax([1, 2, 0, 1]) = [0.18, 0.49, 0.07, 0.26]`` (judged as mojo's row: torch 0.1966,
    0.5344, 0.0723, 0.1966) then ``output = 0.18*V_si + 0.49*V_llueve + 0.07*V_me + 0.26*V_mojo``: no query named
    on the line, the coefficients restate that row at their values' keys (``V_si`` the token "Si"), so each is that
    weight: three wrong, as the row is."""
    q, k = torch.tensor(DEVLOG["q"], dtype=torch.float64), torch.tensor(DEVLOG["k"], dtype=torch.float64)
    w = [f"{x:.2f}" for x in torch.softmax(q[3] @ k.T, dim=-1).tolist()]
    assert (q[3] @ k.T).tolist() == [1.0, 2.0, 0.0, 1.0] and w == ["0.20", "0.53", "0.07", "0.20"]
    note = ("```\n  Scores = [1, 2, 0, 1]\n  softmax([1, 2, 0, 1]) = [0.18, 0.49, 0.07, 0.26]\n\n"
            "  output = 0.18*V_si + 0.49*V_llueve + 0.07*V_me + 0.26*V_mojo\n```\n")
    report = check_text(note, DEVLOG)
    assert {r.checks[-1][1] for r in report.wrong} == {"attn[3]"}
    wrong = [(r.line, r.text, r.fix[0]) for r in report.wrong]
    assert wrong == [(ln, t, f) for ln in (3, 5) for t, f in (("0.18", w[0]), ("0.49", w[1]), ("0.26", w[3]))]
    # coefficients that restate no row above (another order): unread
    swapped = note.replace("0.18*V_si + 0.49*V_llueve", "0.49*V_si + 0.18*V_llueve")
    assert [r.line for r in check_text(swapped, DEVLOG).wrong] == [3, 3, 3]


def test_percentages_before_tokens_restate_the_row_judged_on_their_line():
    """heldout7's Indonesian comments: ``Setelah softmax: tensor([[0.05, 0.95]]) → 5% Non-Clickbait, 95% Clickbait``:
    each percentage restates the weight at its token's place (0.05 as 5%), so it is that weight at its own
    precision: torch's 0.0241 and 0.9759 are 2% and 98%; --fix writes them, and the fixed line checks."""
    p = _softmax([-1.2, 2.5])
    assert (f"{p[0] * 100:.0f}%", f"{p[1] * 100:.0f}%") == ("2%", "98%")
    note = ("```python\n# outputs.logits adalah skor mentah dari model\n# Contoh: tensor([[-1.2, 2.5]])\n"
            "# Setelah softmax: tensor([[0.05, 0.95]]) → 5% Non-Clickbait, 95% Clickbait\n```\n")
    wrong = [(r.text, r.fix[0]) for r in check_text(note, LOGITS).wrong]
    assert wrong == [("0.05", "0.02"), ("0.95", "0.98"), ("5%", "2"), ("95%", "98")]
    fixed = _fix(note, LOGITS)
    assert "tensor([[0.02, 0.98]]) → 2% Non-Clickbait, 98% Clickbait" in fixed and not check_text(fixed, LOGITS).wrong
    # a percentage that is not the row's number restated (7% for 0.05), or before no token: unread
    assert [r.text for r in check_text(note.replace("5% Non", "7% Non"), LOGITS).wrong] == ["0.05", "0.95", "95%"]
    assert [r.text for r in check_text(note.replace("Non-Clickbait", "lainnya"), LOGITS).wrong] == [
        "0.05", "0.95", "95%"]


def _fix(note, opts):
    from attnwalk.check.fix import fixed_text

    return fixed_text(note, lambda t: check_text(t, opts))
