"""The torch truth of a corpus note: which printed numbers are wrong, computed with torch from the
note's scenario tables (never through attnwalk's engine), and compared with ``attnwalk check``'s verdicts.

Shared by tests/test_check_heldout.py and benchmarks/heldout.py. A note ``NAME.md`` comes with
``NAME.toml`` (its inputs) and ``NAME.claims.json``: for each claim, the lines of the note, the tensor
its numbers claim (or ``expr``: an arithmetic expression of the note's own printed operands, for a
number that is no tensor of the scenario), and how to pick the numbers out of each line.

A number written as the result of arithmetic of operands printed right there (``0.05 * [2,0] = [0.10, 0]``) claims
that arithmetic and the tensor its place names (docs/course.md, "Results of printed arithmetic"): its claim
carries ``or_arith``, one expression per number over ``{L.i}`` (the i-th number printed on line L, read from the
text as it is now, so a copy --fix rewrote is measured by its own operands), and the number is right where it
rounds the tensor or that arithmetic; the arithmetic counts only where none of its operands is wrong itself.
"""

from __future__ import annotations

import json
import math
import re
import tomllib
from collections import Counter
from fractions import Fraction
from pathlib import Path

NUM = re.compile(r"-?\d+(?:\.\d+)?")
NUM_SCI = re.compile(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?")  # NumPy's / torch's 1.27232943e+00 (claims with "sci")
LIST = re.compile(r"\[[^\[\]]*\]")
NUM_DOT = re.compile(r"-?(?:\d+(?:\.\d+)?|\.\d+)")  # a leading dot without its zero: .707 (claims with "leading_dot")
NUM_COMMA = re.compile(r"-?\d+(?:,\d+)?")  # a decimal comma: 0,7071 (claims with "decimal_comma" and no "pick")


def numpy_legacy_draws(scenario: dict) -> dict:
    """x and W_Q, W_K, W_V a notebook draws itself: ``np.random.seed(seed)``, then ``np.random.rand``."""
    import numpy as np

    assert scenario["input"] == "uniform" and scenario.get("weight_init") == "uniform"
    rs = np.random.RandomState(scenario["seed"])
    n, d = scenario["tokens"], scenario["dim"]
    out = {"x": rs.rand(n, d).tolist()}
    for w in ("w_q", "w_k", "w_v"):
        out[w] = (rs.rand(d, d) * scenario.get("init_std", 1)).tolist()
    return out


def torch_tensors(scenario: dict) -> dict:
    """Every tensor a note may claim, in float64: inputs, projections, scores, exponentials and their
    row sums (e^s, as hand calculations write them: no max subtracted), softmax weights (and their logarithms with
    each row's logsumexp), output, and
    the scores' row sums and the scores divided by them (the "normalise by the sum" step some notes
    show before the softmax)."""
    import torch

    if scenario.get("rng") == "numpy-legacy":
        scenario = {**scenario, **numpy_legacy_draws(scenario)}
    f64 = torch.float64
    t = {n: torch.tensor(scenario[n], dtype=f64) for n in ("x", "q", "k", "v") if n in scenario}
    heads = scenario.get("heads", 1)
    if scenario["source"] == "scores":
        # given scores, softmaxed as printed or times a number the note names (1/8 for "/ sqrt(64)")
        scale = scenario.get("scale", "none")
        assert scale == "none" or isinstance(scale, (int, float))
        t["scores"] = torch.tensor(scenario["scores"], dtype=f64)
        t["scores_scaled"] = t["scores"] * (1.0 if scale == "none" else scale)
    else:
        if scenario["source"] == "project" and "w_q" not in scenario:
            return t  # weights drawn by attnwalk (a note kept as a false-positive test): its inputs only
        if scenario["source"] == "project":
            for n in ("q", "k", "v"):
                t[f"w_{n}"] = torch.tensor(scenario[f"w_{n}"], dtype=f64)
                # in_out: Q = X @ W_Q, W as printed (in, out); out_in: nn.Linear's (out, in), Q = X W_Qᵀ
                w = t[f"w_{n}"] if scenario["weight_layout"] == "in_out" else t[f"w_{n}"].T
                t[n] = t["x"] @ w
        else:
            t.setdefault("x", t["q"])  # the real corpus's notes with Q = K = V = X claim X too
        # heads split the widths evenly (b n (h d) -> b h n d); with one head, plain (n, d) tables
        split = (lambda a: a.reshape(a.shape[0], heads, -1).transpose(0, 1)) if heads > 1 else (lambda a: a)
        q, k = split(t["q"]), split(t["k"])
        t["scores"] = q @ k.transpose(-1, -2)
        scale = scenario.get("scale", "sqrt_dk")
        scale = 1.0 if scale == "none" else scale if isinstance(scale, (int, float)) else 1 / math.sqrt(q.shape[-1])
        t["scores_scaled"] = t["scores"] * scale
        # a note without a scaling step may still show QKᵀ/√d_k aside ("Trick 2")
        t["scores_over_sqrt_dk"] = t["scores"] / math.sqrt(q.shape[-1])
    if scenario.get("mask", "none") == "causal":
        # a note may show the weights before the mask too (softmax, then zeroed above the diagonal)
        keep = torch.ones(t["scores"].shape[-2:], dtype=torch.bool).tril()
        t["attn_unmasked"] = torch.softmax(t["scores_scaled"], dim=-1)
        t["attn_unmasked_tril"] = t["attn_unmasked"] * keep
        t["scores_scaled"] = t["scores_scaled"].masked_fill(~keep, -math.inf)
    t["exp"] = torch.exp(t["scores_scaled"])
    t["row_sum"] = t["exp"].sum(-1, keepdim=True)
    t["attn"] = torch.softmax(t["scores_scaled"], dim=-1)
    # log space (jax.nn.log_softmax): each row's logsumexp and the log-weights ŝ - logsumexp(ŝ)
    t["logsumexp"] = torch.logsumexp(t["scores_scaled"], dim=-1, keepdim=True)
    t["log_attn"] = torch.log_softmax(t["scores_scaled"], dim=-1)
    t["scores_sum"] = t["scores"].sum(-1, keepdim=True)
    t["scores_over_sum"] = t["scores"] / t["scores_sum"]
    if "v" in t:
        v = split(t["v"]) if heads > 1 and scenario["source"] != "scores" else t["v"]
        t["out"] = t["attn"] @ v
        if "attn_unmasked" in t:  # the context vectors without the mask, beside the masked ones
            t["out_unmasked"] = t["attn_unmasked"] @ v
        # each value times its weight, before they are summed ("weighted values"): (n, m, d_v)
        t["weighted"] = t["attn"].unsqueeze(-1) * v.unsqueeze(-3)
        if heads > 1:  # the heads' outputs side by side again (b h n d -> b n (h d))
            t["out_concat"] = t["out"].transpose(0, 1).reshape(t["out"].shape[1], -1)
    return t


def _marker(line: str, marker: str) -> tuple[int, int] | None:
    """The span of a claim's ``after`` / ``before`` marker in ``line``: the marker itself where the line holds it,
    else its text outside the numbers with any numbers in their place (``check --fix`` rewrites the numbers a marker
    may hold: ``' = [0.402, 0.4635]'`` becomes ``' = [0.402, 0.4636]'``), so that a fixed copy of a note is measured
    with the claims of the note as published."""
    at = line.find(marker)
    if at >= 0:
        return at, at + len(marker)
    rx = re.compile(NUM_SCI.pattern.join(map(re.escape, NUM_SCI.split(marker))))
    found = list(rx.finditer(line))
    if not found:
        return None  # the claim's lines are not what they were
    # several places read so (`` = [0.402, 0]`` and `` = [0.402, 0.4636]``): the one whose numbers are nearest
    want = [float(n) for n in NUM_SCI.findall(marker)]
    return min(found, key=lambda m: sum(abs(float(n) - w) for n, w in zip(NUM_SCI.findall(m.group()), want))).span()


def printed(line: str, claim: dict) -> list[str]:
    """The numbers of ``line`` the claim is about: after / before a marker, the n-th or last ``[..]``
    list, the last number; or the first group of each match of a ``pick`` pattern (a weight before ``*``)."""
    if "pick" in claim:
        return [g for m in re.findall(claim["pick"], line) for g in (m if isinstance(m, tuple) else (m,))]
    if "after" in claim:
        line = line[_marker(line, claim["after"])[1]:]  # (no marker: a TypeError, as the split's IndexError was)
    if "before" in claim:
        line = line[:(_marker(line, claim["before"]) or (len(line),))[0]]  # no marker: the whole line
    if "list_index" in claim:
        lists = LIST.findall(line)
        line = lists[claim["list_index"]] if len(lists) > claim["list_index"] else ""
    if claim.get("last_list"):
        line = LIST.findall(line)[-1]
    nums = (NUM_SCI if claim.get("sci") else NUM_DOT if claim.get("leading_dot")
            else NUM_COMMA if claim.get("decimal_comma") else NUM).findall(line)
    return nums[-1:] if claim.get("last_number") else nums


def published(text: str, claim: dict) -> tuple[float, int]:
    """(value, decimals) of a printed number; a percentage is its fraction with two more decimals; in
    e-notation the decimals are counted from the unit (``3.9987e-05``: 9 decimals); with ``decimal_comma``
    the comma is the decimal point (``0,95``); a Unicode minus (``−0.5``) is a minus."""
    text = text.replace("{,}", ",")  # Italian LaTeX writes the decimal comma in braces: 0{,}401
    text = text.replace("\u2212", "-")  # the Unicode minus sign of typeset text: −0.5 (a claim's pick reads it)
    text = text.replace(",", ".") if claim.get("decimal_comma") else text  # Turkish/Spanish 0,95
    mantissa, _, exponent = text.partition("e")
    dec = (len(mantissa.split(".")[1]) if "." in mantissa else 0) - int(exponent or 0)
    return (float(text) / 100, dec + 2) if claim.get("percent") else (float(text), dec)


def expression(expr: str) -> float:
    """The value of an arithmetic expression of printed decimals: exact (Fraction) for + - * / and
    parentheses; with ``exp(..)`` or ``sqrt(..)`` in float64 (ample for 2-7 printed decimals)."""
    assert re.fullmatch(r"(?:[\d.\s+\-*/()]|exp|sqrt)+", expr), expr
    if "exp" in expr or "sqrt" in expr:
        return float(eval(expr, {"exp": math.exp, "sqrt": math.sqrt}))
    return float(eval(re.sub(r"\d+(?:\.\d+)?|\.\d+", lambda m: f"Fraction('{m.group()}')", expr),
                      {"Fraction": Fraction}))


def load(folder: Path, name: str) -> tuple[list[str], dict, dict]:
    """(the note's lines, its claims data, its scenario) for ``folder/name``."""
    lines = (folder / f"{name}.md").read_text(encoding="utf-8").split("\n")
    data = json.loads((folder / f"{name}.claims.json").read_text(encoding="utf-8"))
    with open(folder / f"{name}.toml", "rb") as f:
        scenario = tomllib.load(f)
    return lines, data, scenario


def torch_wrong(folder: Path, name: str, only: set | None = None) -> tuple[Counter, Counter]:
    """(wrong numbers as (line, text), all claimed numbers as (line, text)) of a note, from torch; with ``only``,
    of the claims of those tensors alone (a line may print an input and a result: ``[0, 1] @ W = [2, 0]``)."""
    lines, data, scenario = load(folder, name)
    wrong, claimed = Counter(), Counter()
    if not data["claims"]:
        return wrong, claimed
    tensors = torch_tensors(scenario)
    # claims of printed arithmetic last: their operands' verdicts first (an operand may be such a result itself)
    for claim in sorted(data["claims"], key=lambda c: "or_arith" in c):
        if only is not None and claim.get("tensor") not in only:
            continue
        nums = [(ln, t) for ln in range(claim["lines"][0], claim["lines"][1] + 1)
                for t in printed(lines[ln - 1], claim)]
        if "expr" in claim:
            want, slack = [expression(claim["expr"])], 0.0
        elif "exprs" in claim:  # one expression per number of the line (a hand-computed row)
            want, slack = [expression(e) for e in claim["exprs"]], 0.0
        else:
            full = tensors[claim["tensor"]]
            full = full[claim["head"]] if "head" in claim else full
            full = full.T if claim.get("transpose") else full
            sel = full[claim["rows"]] if "rows" in claim else full
            sel = sel[:, claim["cols"]] if "cols" in claim else sel
            # "at": the cells one by one, in the order the line prints them (weighted values summed entry by entry)
            sel = full[tuple(zip(*claim["at"]))] if "at" in claim else sel
            # "skip": the first values were claimed on an earlier line (a row NumPy wrapped over lines)
            want = sel.reshape(-1).tolist()[claim.get("skip", 0):]
            # the float32 a notebook computed in: a few ulps of the largest value claimed together
            slack = 2.0**-22 * float(sel.abs().max())
        whole = len(nums) == len(want) or claim.get("last_number") or claim.get("partial")
        assert nums and len(nums) <= len(want) and whole, (name, claim, nums, want)
        arith = [_arithmetic(e, lines, wrong, claim) for e in claim["or_arith"]] if "or_arith" in claim else []
        assert not arith or len(arith) == len(nums), (name, claim, nums, arith)
        for k, ((ln, t), e) in enumerate(zip(nums, want)):
            value, dec = published(t, claim)
            key = (ln, t + "%" if claim.get("percent") else t)
            claimed[key] += 1
            if abs(value - e) > 0.5 * 10.0**-dec + slack and (
                    not arith or arith[k] is None or abs(value - arith[k]) > 0.5 * 10.0**-dec):
                wrong[key] += 1
    return wrong, claimed


_OPERAND = re.compile(r"\{(\d+)\.(\d+)\}")


def _arithmetic(expr: str, lines: list[str], wrong: Counter, claim: dict) -> float | None:
    """The exact value of ``expr`` over the numbers printed now (``{77.3}``: line 77's fourth number, read as the
    claim reads its numbers: ``.707`` whole with ``leading_dot``, ``0,7071`` with ``decimal_comma``); None where an
    operand is wrong itself (the arithmetic of wrong operands excuses no result)."""
    num = NUM_DOT if claim.get("leading_dot") else NUM_COMMA if claim.get("decimal_comma") else NUM
    operands = [(int(ln), num.findall(lines[int(ln) - 1])[int(i)]) for ln, i in _OPERAND.findall(expr)]
    if any(wrong[o] for o in operands):
        return None
    it = iter(operands)
    return expression(_OPERAND.sub(lambda m: next(it)[1].replace(",", "."), expr))


def flagged(report) -> Counter:
    """check's wrong numbers as (line, printed text without a trailing %): a number is matched by where
    it is printed, whether or not check read it as a percentage."""
    return Counter((r.line, r.text.rstrip("%")) for r in report.wrong)


def measure(folder: Path, name: str) -> dict:
    """check's verdicts on one note against the torch truth: counts for the held-out table."""
    from attnwalk.check import check_file
    from attnwalk.scenario import load_scenario

    report = check_file(folder / f"{name}.md", load_scenario(folder / f"{name}.toml"))
    truth, claimed = torch_wrong(folder, name)
    found = flagged(report)
    truth = Counter({(ln, t.rstrip("%")): n for (ln, t), n in truth.items()})
    return {"name": name, "truth_wrong": sum(truth.values()), "found": sum((found & truth).values()),
            "false_pos": sorted((found - truth).elements()), "verified": len(report.verified),
            "wrong": len(report.wrong), "unknown": len(report.unknown), "claimed": sum(claimed.values())}
