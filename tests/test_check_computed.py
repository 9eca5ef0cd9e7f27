"""A snippet's printed arrays read as the step of attention its code computes (``check.computed``): a blog's
``w = torch.softmax(q @ k.T / 2**0.5, dim=-1); print(w); print(w @ v)`` prints the weights and the output, whatever
it calls them. Expected values from torch; what the code does not compute exactly as attention gets no verdict."""

import ast

import pytest

from attnwalk.api import walk
from attnwalk.check import check_text
from attnwalk.check.computed import bindings, kind_of

torch = pytest.importorskip("torch", reason="the expected values come from torch (pip install torch)")

Q, K, V = [[1, 0], [0, 1], [1, 1]], [[1, 1], [0, 1], [1, 0]], [[1, 2], [3, 0], [0, 1]]
OPTIONS = {"variant": "sdpa", "source": "direct", "heads": 1, "q": Q, "k": K, "v": V}
LITERALS = f"q = torch.tensor({Q}, dtype=torch.float32)\nk = torch.tensor({K})\nv = torch.tensor({V})\n"


def _kinds(code: str, **config) -> dict:
    trace = walk(**{**OPTIONS, **config})
    env = bindings(ast.parse(code), {"q": "q", "k": "k", "v": "v"}, trace)
    return {n: t for n, t in env.items() if isinstance(n, str)}


@pytest.mark.parametrize(("code", "want"), [
    ("s = q @ k.T", "scores"),
    ("s = torch.matmul(q, k.transpose(-2, -1))", "scores"),
    ("s = np.dot(q, k.T)", "scores"),
    ("s = q.mm(k.t())", "scores"),
    ("s = q @ k.T / 2**0.5", "scores_scaled"),
    ("s = q @ k.T / math.sqrt(2)", "scores_scaled"),
    ("s = (q @ k.T) * (1 / np.sqrt(q.shape[-1]))", "scores_scaled"),
    ("d_k = k.size(-1)\ns = q @ k.T / d_k ** 0.5", "scores_scaled"),
    ("s = torch.softmax(q @ k.T / 2**0.5, dim=-1)", "attn"),
    ("s = F.softmax(q @ k.T / np.sqrt(2), dim=1)", "attn"),
    ("s = (q @ k.T / 2**0.5).softmax(-1)", "attn"),
    ("w = torch.softmax(q @ k.T / 2**0.5, dim=-1)\ns = w @ v", "out"),
    ("w = scipy.special.softmax(q @ k.T / 2**0.5, axis=-1)\ns = torch.matmul(w, v).numpy()", "out"),
    # not attention as the trace computes it: no name
    ("s = q @ k.T / 2", None),  # divided by d_k, not √d_k
    ("s = k @ q.T", None),
    ("s = torch.softmax(q @ k.T / 2**0.5, dim=0)", None),  # over the queries
    ("s = torch.softmax(q @ k.T, dim=-1)", None),  # not scaled
    ("s = torch.softmax(q @ k.T / 2**0.5, dim=-1) @ k", None),
    ("s = q @ k.T\ns = s / 2**0.5", None),  # bound twice: which one is printed, only running tells
    ("s = q @ k.T\ns.masked_fill_(mask, float('-inf'))", None),
    ("s = np.exp(q @ k.T)", None),
])
def test_the_step_a_line_computes(code, want):
    assert _kinds(code).get("s") == want


def test_a_softmax_is_no_step_of_a_masked_trace():
    assert _kinds("s = torch.softmax(q @ k.T / 2**0.5, dim=-1)", mask="causal").get("s") is None


def test_an_unscaled_trace_takes_the_softmax_of_the_raw_scores():
    trace = walk(**OPTIONS)
    assert kind_of(ast.parse("q @ k.T / 2**0.5", mode="eval").body, {"q": "q", "k": "k"}, trace) == "scores_scaled"


def _torch_printed(code_lines: list[str]) -> tuple[str, list]:
    """What the snippet prints when torch runs it (float32, torch's default print), and the float64 truth."""
    q, k, v = (torch.tensor(x, dtype=torch.float32) for x in (Q, K, V))
    w = torch.softmax(q @ k.T / 2**0.5, dim=-1)
    outs = [str(w), str(w @ v)]
    q64, k64, v64 = (torch.tensor(x, dtype=torch.float64) for x in (Q, K, V))
    w64 = torch.softmax(q64 @ k64.T / 2**0.5, dim=-1)
    return "\n".join(outs), [w64, w64 @ v64]


def _note(printed: str, code: str = "w = torch.softmax(q @ k.T / 2**0.5, dim=-1)\nprint(w)\nprint(w @ v)\n") -> str:
    return f"# A blog's snippet\n\n```python\nimport torch\n{LITERALS}{code}```\n\n```\n{printed}\n```\n"


def test_the_printed_weights_and_output_are_verified_and_a_planted_digit_is_found():
    printed, (w64, o64) = _torch_printed([])
    good = check_text(_note(printed), dict(OPTIONS))
    nums = [r for r in good.recs if r.line >= 12]  # the output fence
    assert len(nums) == 15 and all(r.status == "verified" for r in nums)
    planted = printed.replace("0.5035", "0.5045", 1)
    bad = check_text(_note(planted), dict(OPTIONS))
    wrong = [r for r in bad.recs if r.status == "wrong"]
    assert [r.text for r in wrong] == ["0.5045"]
    assert float(wrong[0].failure()[1]) == pytest.approx(float(w64[2, 0]), abs=5e-5)


def test_code_that_is_not_the_traces_attention_gets_no_verdict():
    printed, _ = _torch_printed([])
    # divided by d_k: the printed numbers are what that code prints, not the trace's weights
    note = _note(printed, "w = torch.softmax(q @ k.T / 2, dim=-1)\nprint(w)\nprint(w @ v)\n")
    rep = check_text(note, dict(OPTIONS))
    assert not rep.wrong and all(r.status == "unknown" for r in rep.recs if r.line >= 12)



@pytest.mark.parametrize(("definition", "want"), [
    ("def softmax(x):\n    e = np.exp(x - x.max(axis=-1, keepdims=True))\n"
     "    return e / e.sum(axis=-1, keepdims=True)\n", "attn"),
    ("def softmax(x):\n    e = np.exp(x)\n    return e / e.sum(axis=0)\n", None),  # over the queries
    ("def softmax(x):\n    return x / x.sum(axis=-1)\n", None),  # no exp: no softmax
])
def test_a_notes_own_softmax_counts_only_over_the_last_axis(definition, want):
    assert _kinds(definition + "s = softmax(q @ k.T / np.sqrt(k.shape[1]))").get("s") == want


def test_rounding_a_printed_array_keeps_its_step():
    rep = check_text(_note("[[0.401 0.198 0.401]\n [0.401 0.401 0.198]\n [0.503 0.248 0.248]]",
                           "w = torch.softmax(q @ k.T / 2**0.5, dim=-1)\nprint(np.round(w.numpy(), 3))\n"),
                     dict(OPTIONS))
    assert [r.status for r in rep.recs if r.line >= 11] == ["verified"] * 9


@pytest.mark.parametrize(("code", "want"), [
    ("m = torch.triu(torch.ones(3, 3), diagonal=1).bool()\ns = (q @ k.T / 2**0.5).masked_fill(m, float('-inf'))",
     "scores_masked"),
    ("m = torch.tril(torch.ones(3, 3))\ns = (q @ k.T / 2**0.5).masked_fill(m == 0, float('-inf'))", "scores_masked"),
    ("m = torch.tril(torch.ones(3, 3)).bool()\ns = (q @ k.T / 2**0.5).masked_fill(~m, -np.inf)", "scores_masked"),
    ("m = torch.triu(torch.ones(3, 3), 1).bool()\nx = (q @ k.T / 2**0.5).masked_fill(m, -1e9)\n"
     "s = torch.softmax(x, dim=-1)", "attn"),  # another fill: the same weights in float64
    ("m = torch.triu(torch.ones(3, 3), diagonal=1).bool()\n"
     "s = torch.softmax((q @ k.T / 2**0.5).masked_fill(m, float('-inf')), dim=-1) @ v", "out"),
    # not the trace's causal mask: no name
    ("m = torch.triu(torch.ones(3, 3)).bool()\ns = (q @ k.T / 2**0.5).masked_fill(m, float('-inf'))", None),
    ("m = torch.tril(torch.ones(3, 3))\ns = (q @ k.T / 2**0.5).masked_fill(m, float('-inf'))", None),  # the past
    ("m = torch.triu(torch.ones(3, 3), diagonal=1).bool()\ns = (q @ k.T).masked_fill(m, float('-inf'))", None),
    ("m = torch.triu(torch.ones(3, 3), diagonal=1).bool()\ns = (q @ k.T / 2**0.5).masked_fill(m, 0.0)", None),
])
def test_a_causal_mask_applied_with_masked_fill(code, want):
    assert _kinds(code, mask="causal").get("s") == want


def test_a_mask_in_an_unmasked_trace_names_nothing():
    code = "m = torch.triu(torch.ones(3, 3), diagonal=1).bool()\ns = (q @ k.T / 2**0.5).masked_fill(m, float('-inf'))"
    assert _kinds(code).get("s") is None


def test_the_printed_output_of_a_causal_snippet_is_judged():
    q, k, v = (torch.tensor(x, dtype=torch.float32) for x in (Q, K, V))
    mask = torch.triu(torch.ones(3, 3), diagonal=1).bool()
    out = torch.softmax((q @ k.T / 2**0.5).masked_fill(mask, float("-inf")), dim=-1) @ v
    code = ("mask = torch.triu(torch.ones(3, 3), diagonal=1).bool()\n"
            "scores = (q @ k.T / 2 ** 0.5).masked_fill(mask, float('-inf'))\n"
            "w = torch.softmax(scores, dim=-1)\nprint(w @ v)\n")
    text = _note(str(out), code)
    rep = check_text(text, {**OPTIONS, "mask": "causal"})
    assert [r.status for r in rep.recs if r.line >= 14] == ["verified"] * 6
    bad = check_text(text.replace(f"{float(out[2, 1]):.4f}", f"{float(out[2, 1]) + 0.001:.4f}"),
                     {**OPTIONS, "mask": "causal"})
    assert [r.text for r in bad.wrong] == [f"{float(out[2, 1]) + 0.001:.4f}"]
