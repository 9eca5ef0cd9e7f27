"""The third held-out round (tests/corpus/heldout3): ten real public notes check had never seen, measured once
before any change (FIRST_RUN.md: 2 of 56 wrong numbers found, 0 false positives). Here: no false positive on any
of them, the recall benchmarks/heldout.py prints, and the recognisers added for them in check/notations.py
called directly, against values derived by hand or with torch.

The truth is torch's: tests/corpus/heldout/truth.py recomputes each claimed tensor from the note's scenario
tables (never through attnwalk's engine), and a number is wrong when it is off by more than half a unit of its
last printed digit (DESIGN §7, widened by float32 rounding).
"""

import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from conftest import heldout_tools

from attnwalk.api import walk
from attnwalk.check import check_text, forms, notations
from attnwalk.scenario import load_scenario

torch = pytest.importorskip("torch", reason="torch is not installed on this machine: pip install torch==2.13.0")

CORPUS = Path(__file__).resolve().parent / "corpus"
HELDOUT3 = CORPUS / "heldout3"
NOTES = sorted(p.stem for p in HELDOUT3.glob("*.md") if p.with_suffix(".toml").exists())


truth, bench = heldout_tools()


def test_the_gqa_scenario_is_grouped_query_attention():
    """The GQA note's scenario (4 heads, KV heads repeated) is grouped-query attention itself: each query head h
    attends with KV head h // 2, computed here from the page's per-head matrices."""
    _, _, sc = truth.load(HELDOUT3, "en_gqa_worked_example")
    x = torch.tensor(sc["x"], dtype=torch.float64)
    w_q = [[[1, 0], [0, 1], [0, 0], [0, 0]], [[0, 1], [1, 0], [0, 0], [0, 0]], [[1, 0], [1, 1], [0, 0], [0, 0]],
           [[0, 1], [1, 1], [0, 0], [0, 0]]]
    w_k = [[[1, 0], [0, 1], [0, 0], [0, 0]], [[1, 1], [1, 1], [0, 0], [0, 0]]]
    w_v = [[[1, 0], [0, 1], [0, 0], [0, 0]], [[0, 1], [1, 0], [0, 0], [0, 0]]]
    t = truth.torch_tensors(sc)
    for h in range(4):
        q = x @ torch.tensor(w_q[h], dtype=torch.float64)
        k = x @ torch.tensor(w_k[h // 2], dtype=torch.float64)
        v = x @ torch.tensor(w_v[h // 2], dtype=torch.float64)
        a = torch.softmax(q @ k.T / math.sqrt(2), -1)
        assert torch.allclose(t["attn"][h], a, atol=1e-15) and torch.allclose(t["out"][h], a @ v, atol=1e-15)


def test_the_truth_picks_weights_by_pattern_and_a_wrapped_rows_rest():
    assert truth.printed("- Q1: 0.668*V1 + 0.332*V2 = 0.668*[1,0]", {"pick": r"(\d\.\d+)\*"}) == \
        ["0.668", "0.332", "0.668"]
    assert truth.printed("  [1, 0],   [0, 1],", {"pick": r"\[(\d), (\d)\]"}) == ["1", "0", "0", "1"]
    lines, data, _ = truth.load(HELDOUT3, "en_numpy_cross_attention_seed42")
    wrong, every = truth.torch_wrong(HELDOUT3, "en_numpy_cross_attention_seed42")
    assert sum(every.values()) == 48 and not wrong  # 3 rows of 16, the first row's 6 on the "Output:" line


# ---------------------------------------------------------------- the recognisers, called directly

def _by_line(form, name) -> dict:
    text = (HELDOUT3 / f"{name}.md").read_text(encoding="utf-8")
    trace = walk(**load_scenario(HELDOUT3 / f"{name}.toml"))
    hits = {}
    form(text, trace, hits, forms.foreign_sections(text, trace))
    out = {}
    for h in sorted(hits.values(), key=lambda h: h.line):
        out.setdefault(h.line, []).append((h.text, h.ok, h.expected))
    return out


X_JA = np.array([[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 0, 0], [0, 0, 1, 1]])
W_Q_JA = np.array([[1, 0], [0, 1], [1, 0], [0, 1]])  # W^V is the same matrix
W_K_JA = np.array([[1, 0], [0, 1], [0, 1], [1, 0]])


def test_a_table_of_vectors_is_the_rows_its_header_and_row_names_give():
    got = _by_line(notations.vector_tables, "ja_projection_tables_latex")
    q, k = X_JA @ W_Q_JA, X_JA @ W_K_JA  # 私 = [1, 0, 1, 0] -> Q [2, 0], K [1, 1]: the page prints [1, 0], [1, 0]
    assert q[0].tolist() == [2, 0] and k[0].tolist() == [1, 1]
    printed = {46: [[1, 0], [1, 0], [1, 0]], 47: [[0, 1], [0, 1], [0, 1]], 48: [[1, 0], [0, 1], [1, 0]],
               49: [[0, 1], [1, 0], [0, 1]]}  # 私, は, 学校へ, 行きます: Q | K | V
    for r, (ln, rows) in enumerate(printed.items()):
        want = [e for m in (q, k, q) for e in m[r]]
        assert got[ln] == [(str(p), p == e, str(e)) for p, e in zip(sum(rows, []), want)]
    for r in range(4):  # the embeddings table: X, right
        assert got[35 + r] == [(str(e), True, str(e)) for e in X_JA[r]]
    # a header naming one tensor over rows named by the query labels: Q1 | [1.332, 0.332] under "Attention Output"
    e = math.exp(1 / math.sqrt(2))
    out = [[(e + 2) / (e + 1), 1 / (e + 1)], [(1 + 2 * e) / (e + 1), e / (e + 1)]]  # V1 = [1, 0], V2 = [2, 1]
    got = _by_line(notations.vector_tables, "ko_blog_2x2_rounded_weights")
    assert got == {52: [("1.332", False, f"{out[0][0]:.3f}"), ("0.332", False, f"{out[0][1]:.3f}")],
                   53: [("1.668", False, f"{out[1][0]:.3f}"), ("0.668", False, f"{out[1][1]:.3f}")]}
    # a header naming no tensor: the row's first cell does (Key (K) - 카페라떼), the key word in it gives the row
    got = _by_line(notations.vector_tables, "ko_blog_cafe_menu_three_keys")
    assert got[13] == [("0", True, "0"), ("1", True, "1")] and got[14] == [("0", True, "0"), ("0.5", True, "0.5")]
    assert sorted(got) == [11, 12, 13, 14, 15, 16, 17]


def test_vector_tables_leave_a_table_of_numbers_to_the_reader():
    trace = walk(variant="sdpa", source="direct", q=[[1, 0]], k=[[1, 0], [0, 1]], v=[[1, 0], [0, 1]])
    hits = {}
    notations.vector_tables("| key | score |\n|---|---|\n| k1 | 0.5 |\n", trace, hits, [])
    assert hits == {}


def test_matrices_with_one_backslash_row_breaks_are_read_as_matrices():
    got = _by_line(notations.lone_backslash_matrices, "ja_projection_tables_latex")
    for first, w in ((13, W_Q_JA), (19, W_K_JA), (25, W_Q_JA)):  # W^Q, W^K, W^V as printed: right
        for r in range(4):
            assert got[first + r] == [(str(e), True, str(e)) for e in w[r]]
    # E = QKᵀ printed [[1, 0, 1, 0], ...]: QKᵀ is all 2 (every K row is [1, 1]), QKᵀ/√2 = 1.414 prints as "1" in
    # half the cells: the scaled scores, only a widening of "QKᵀ", agree in no more than half, so it is not read
    # as them (nor as QKᵀ, which it agrees with nowhere): not understood, and --fix writes no 1s there
    assert (X_JA @ W_Q_JA @ (X_JA @ W_K_JA).T == 2).all()
    assert sorted(got) == [13, 14, 15, 16, 19, 20, 21, 22, 25, 26, 27, 28]
    trace = walk(variant="sdpa", source="direct", q=[[1, 0]], k=[[1, 0], [0, 1]], v=[[1, 0], [0, 1]])
    hits = {}  # two backslashes: the reader's own matrix, nothing for this form
    tex = "$$\nK = \\begin{bmatrix}\n1 & 0 \\\\\n0 & 1\n\\end{bmatrix}\n$$\n"
    notations.lone_backslash_matrices(tex, trace, hits, [])
    assert hits == {}


SDPA = {"variant": "sdpa", "tokens": 2}  # any config: these claims are arithmetic


def test_softmax_of_a_printed_list_is_judged_as_arithmetic():
    e = math.exp(0.707)
    assert [f"{1 / (1 + e):.3f}", f"{e / (1 + e):.3f}"] == ["0.330", "0.670"]
    got = _by_line(notations.softmax_calls, "ko_blog_2x2_rounded_weights")
    assert got == {43: [("0.668", False, "0.670"), ("0.332", False, "0.330")],
                   44: [("0.332", False, "0.330"), ("0.668", False, "0.670")]}
    # right when arguments within their rounding give it: 0.71 may stand for 0.707 (softmax 0.6698)
    assert check_text("softmax([0.71, 0]) ≈ [0.6698, 0.3302]\n", options=SDPA).wrong == []
    assert [r.text for r in check_text("softmax([0.71, 0]) ≈ [0.66, 0.34]\n", options=SDPA).wrong] == ["0.66", "0.34"]


def test_numbered_value_coefficients_are_the_weights_of_the_query_opening_the_line():
    e = math.exp(1 / math.sqrt(2))
    w = [f"{e / (1 + e):.3f}", f"{1 / (1 + e):.3f}"]
    got = _by_line(notations.value_coefficients, "ko_blog_2x2_rounded_weights")
    assert got == {47: [("0.668", False, w[0]), ("0.332", False, w[1])],  # - Q1: 0.668*V1 + 0.332*V2
                   48: [("0.332", False, w[1]), ("0.668", False, w[0])]}  # - Q2: 0.332*V1 + 0.668*V2


def test_a_lone_result_line_is_the_one_query_row_its_label_names():
    e = [math.exp(s) for s in (0.6, 0.4, 0.2)]
    a = [x / sum(e) for x in e]
    out = [a[0], a[1] + 0.5 * a[2]]  # V rows [1, 0], [0, 1], [0, 0.5]
    assert f"{out[1]:.4f}" == "0.4636"
    got = _by_line(notations.lone_row_results, "ko_blog_cafe_menu_three_keys")
    assert got == {33: [("0.402", True, f"{out[0]:.3f}"), ("0.4635", False, f"{out[1]:.4f}")]}


def test_per_head_token_vectors_and_grouped_kv_heads():
    got = _by_line(notations.head_token_rows, "en_gqa_worked_example")
    x = np.array([[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 1, 1]])
    w_q4, w_k2 = np.array([[0, 1], [1, 1], [0, 0], [0, 0]]), np.array([[1, 1], [1, 1], [0, 0], [0, 0]])
    assert (x @ w_q4)[1].tolist() == [1, 1] and (x @ w_k2)[1].tolist() == [1, 1]
    assert got[61] == [("2", False, "1"), ("0", False, "1")]  # Q4(token 2) = ... = [2, 0]
    assert got[71] == [("2", False, "1"), ("1", True, "1")]  # K2(token 2): KV head 2, shared by heads 3-4
    # distinct K heads that the note numbers as fewer groups: not grouped-query, left unread
    trace = walk(variant="sdpa", source="direct", heads=2, q=[[1, 0, 0, 1]], k=[[1, 0, 0, 1]], v=[[1, 0, 0, 1]])
    hits = {}
    notations.head_token_rows("K1(token 1) = [1, 0, 0, 1] @ W = [1, 0]\n", trace, hits, [])
    assert hits == {}


# ---------------------------------------------------------------- a note's own sums of its rounded weights

def _with_rounded_sums(name: str, monkeypatch) -> tuple[Counter, Counter]:
    """(wrong numbers as (line, text, expected) of a note without, with) check's step that judges a note's own sums
    of its rounded weights (notations.rounded_weight_sums, run by check._check_text)."""
    import attnwalk.check as check

    text = (HELDOUT3 / f"{name}.md").read_text(encoding="utf-8")
    options = load_scenario(HELDOUT3 / f"{name}.toml")
    with monkeypatch.context() as m:
        m.setattr(check, "rounded_weight_sums", lambda body, trace, recs: recs)
        before = Counter((r.line, r.text, r.failure()[1]) for r in check_text(text, options=options).wrong)
    return before, Counter((r.line, r.text, r.failure()[1]) for r in check_text(text, options=options).wrong)


def test_rounded_weight_sums_are_the_output_rows_they_stand_for(monkeypatch):
    """``0.668*[1,0] + 0.332*[2,1] ≈ [1.332, 0.332]`` is right as arithmetic and wrong as what it claims: the
    coefficients restate weights softmax([0.707, 0]) = [0.670, 0.330], and the output of that query is
    0.670 * [1, 0] + 0.330 * [2, 1] = [1.330, 0.330]. Flagging them is right (DESIGN §7: a number is its tensor's
    value within half a unit of its last digit, and PyTorch prints 1.330); the arithmetic reader alone verifies
    them as arithmetic."""
    e = math.exp(1 / math.sqrt(2))
    a = [e / (1 + e), 1 / (1 + e)]
    out0 = [a[0] * 1 + a[1] * 2, a[1] * 1]
    before, after = _with_rounded_sums("ko_blog_2x2_rounded_weights", monkeypatch)
    new = sorted((after - before).elements())
    assert new == sorted([(47, "0.668", f"{a[0]:.3f}"), (47, "0.332", f"{a[1]:.3f}"), (47, "1.332", f"{out0[0]:.3f}"),
                          (47, "0.332", f"{out0[1]:.3f}"),
                          (48, "0.332", f"{a[1]:.3f}"), (48, "0.668", f"{a[0]:.3f}"),
                          (48, "1.668", f"{(a[1] + 2 * a[0]):.3f}"), (48, "0.668", f"{a[0]:.3f}")])
    # weights right at three places, their products summed to four: 0.269 * 0.5 = 0.1345 (the weighted value
    # 0.1347) and 0.329 + 0.1345 = 0.4635 (the output 0.4636) are results of printed arithmetic whose operands are
    # right: right (docs/course.md), so the step flags nothing there
    w = [math.exp(s) for s in (0.6, 0.4, 0.2)]
    a = [x / sum(w) for x in w]
    assert [f"{x:.3f}" for x in a] == ["0.402", "0.329", "0.269"]
    assert (f"{0.5 * a[2]:.4f}", f"{a[1] + 0.5 * a[2]:.4f}") == ("0.1347", "0.4636")
    before, after = _with_rounded_sums("ko_blog_cafe_menu_three_keys", monkeypatch)
    assert after == before
    # 0.5*[1,0] + 0.5*[0,1] = [0.5,0.5]: right
    before, after = _with_rounded_sums("ko_blog_one_query_two_keys", monkeypatch)
    assert after == before


def test_rounded_weight_sums_leave_assumed_weights_and_other_rows_alone():
    trace = walk(variant="sdpa", source="direct", scale="none", q=[[1.0, 0.0]], k=[[1.0, 0.0], [0.0, 1.0]],
                 v=[[1.0, 0.0], [0.0, 1.0]])
    # softmax([1, 0]) = [0.731, 0.269]; weights a page assumes ([0.5, 0.5]) are no rounding of them
    text = "0.5*[1, 0] + 0.5*[0, 1] = [0.5, 0.5]\n"
    report = check_text(text, options={"variant": "sdpa", "source": "direct", "scale": "none", "q": [[1.0, 0.0]],
                                       "k": [[1.0, 0.0], [0.0, 1.0]], "v": [[1.0, 0.0], [0.0, 1.0]]})
    assert notations.rounded_weight_sums(text, trace, report.recs) and report.wrong == []
    # a list that is no value row: no weighted sum
    text = "0.731*[1, 2] + 0.269*[0, 1] = [0.731, 1.731]\n"
    assert [r.status for r in notations.rounded_weight_sums(text, trace, check_text(text, options={
        "variant": "sdpa", "source": "direct", "scale": "none", "q": [[1.0, 0.0]], "k": [[1.0, 0.0], [0.0, 1.0]],
        "v": [[1.0, 0.0], [0.0, 1.0]]}).recs) if r.status == "wrong"] == []


def test_a_text_table_with_the_keys_as_header_is_the_weights_of_its_row_queries():
    # query "cat" = e_cat over the keys the, cat, sat, on, the, mat ("the" = [0.2]*4): QKᵀ/√4 = [0.1, 0.5, 0, 0, 0.1, 0]
    s = [0.1, 0.5, 0.0, 0.0, 0.1, 0.0]
    w = [math.exp(x) / sum(math.exp(y) for y in s) for x in s]
    assert [f"{x:.3f}" for x in w] == ["0.161", "0.240", "0.146", "0.146", "0.161", "0.146"]
    got = _by_line(notations.key_column_tables, "en_numpy_cross_attention_word_table")
    assert got[81] == [(f"{x:.3f}", True, f"{x:.3f}") for x in w] and sorted(got) == [81, 82, 83]
    got = _by_line(notations.key_column_tables, "en_numpy_cross_attention_decode_steps")  # rows numbered 1..4
    assert sorted(got) == [102, 103, 104, 105] and all(ok for row in got.values() for _, ok, _ in row)
    # a wrong weight in such a table is found, with the row's own value
    text = (HELDOUT3 / "en_numpy_cross_attention_word_table.md").read_text(encoding="utf-8")
    bad = text.replace("cat               | 0.161 | 0.240", "cat               | 0.161 | 0.250")
    report = check_text(bad, options=load_scenario(HELDOUT3 / "en_numpy_cross_attention_word_table.toml"))
    assert [(r.line, r.text, r.failure()[1]) for r in report.wrong] == [(81, "0.250", "0.240")]
