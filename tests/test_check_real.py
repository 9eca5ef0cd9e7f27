"""Real public attention walkthroughs (tests/corpus/real, each with its source address): check's
wrong numbers are exactly the ones torch proves wrong, so there is no false positive.

Each note has a scenario (its inputs) and a ``.claims.json`` saying which tensor the numbers of
which lines claim to be; torch recomputes that tensor from the scenario's tables (not through
attnwalk's engine) and a number is wrong when it is off by more than half a unit of its last
printed digit (DESIGN §7, widened by float32 rounding).
"""

import json
import math
import re
import tomllib
from collections import Counter
from pathlib import Path

import pytest

from attnwalk.check import check_file
from attnwalk.scenario import load_scenario

torch = pytest.importorskip("torch", reason="torch is not installed on this machine: pip install torch==2.13.0")

REAL = Path(__file__).resolve().parent / "corpus" / "real"
NOTES = sorted(p.stem for p in REAL.glob("*.md"))
NUM = re.compile(r"-?\d+(?:\.\d+)?")


def numpy_legacy_draws(scenario: dict) -> dict:
    """x and the weights a note draws itself: ``np.random.seed(seed)``, then ``np.random.rand`` for x and,
    with ``weight_init = "uniform"``, for W_Q, W_K, W_V (each (dim, dim), the note's ``X @ W``)."""
    import numpy as np

    assert scenario["input"] == "uniform" and scenario.get("weight_init") == "uniform"
    rs = np.random.RandomState(scenario["seed"])
    n, d = scenario["tokens"], scenario["dim"]
    out = {"x": rs.rand(n, d).tolist()}
    for w in ("w_q", "w_k", "w_v"):
        out[w] = (rs.rand(d, d) * scenario.get("init_std", 1)).tolist()
    return out


def torch_tensors(scenario: dict) -> dict:
    """q, k, v (and x), scores, scaled scores, weights and output, in float64, from the tables."""
    if scenario.get("rng") == "numpy-legacy":
        scenario = {**scenario, **numpy_legacy_draws(scenario)}
    t = {n: torch.tensor(scenario[n], dtype=torch.float64) for n in ("x", "q", "k", "v") if n in scenario}
    if scenario["source"] == "scores":  # given scores, no scaling
        assert scenario.get("scale") == "none"
        t["scores"] = t["scores_scaled"] = torch.tensor(scenario["scores"], dtype=torch.float64)
        t["attn"] = torch.softmax(t["scores"], dim=-1)
        if "v" in t:
            t["out"] = t["attn"] @ t["v"]
        return t
    if scenario["source"] == "project":  # weight_layout = "in_out": Q = X @ W_Q
        assert scenario["weight_layout"] == "in_out"
        for n in ("q", "k", "v"):
            t[f"w_{n}"] = torch.tensor(scenario[f"w_{n}"], dtype=torch.float64)  # as printed: (in, out)
            t[n] = t["x"] @ t[f"w_{n}"]
    else:
        t["x"] = t["q"]  # Q = K = V = X in these notes
    scores = t["q"] @ t["k"].T
    scale = 1.0 if scenario.get("scale") == "none" else 1 / math.sqrt(t["q"].shape[-1])
    t["scores"], t["scores_scaled"] = scores, scores * scale
    t["attn"] = torch.softmax(scores * scale, dim=-1)
    t["row_sum"] = torch.exp(scores * scale).sum(-1, keepdim=True)  # Σ e^s of each row, as hand calculations add them
    if "v" in t:
        t["out"] = t["attn"] @ t["v"]
    return t


def printed(line: str, claim: dict) -> list[str]:
    """The numbers of ``line`` that ``claim`` is about: after / before a marker, the n-th or last
    ``[..]`` list, the last number; percentages keep their ``%``."""
    if "after" in claim:
        line = line.split(claim["after"], 1)[1]
    if "before" in claim:
        line = line.split(claim["before"], 1)[0]
    if "list_index" in claim:
        lists = re.findall(r"\[[^\[\]]*\]", line)
        line = lists[claim["list_index"]] if len(lists) > claim["list_index"] else ""
    if claim.get("last_list"):
        line = re.findall(r"\[[^\[\]]*\]", line)[-1]
    nums = NUM.findall(line)
    return nums[-1:] if claim.get("last_number") else nums


def published(text: str, claim: dict) -> tuple[float, int]:
    """(value, decimals) of a printed number; a percentage is its fraction with two more decimals."""
    dec = len(text.split(".")[1]) if "." in text else 0
    return (float(text) / 100, dec + 2) if claim.get("percent") else (float(text), dec)


def torch_wrong(name: str) -> tuple[Counter, set]:
    """(wrong numbers as (line, text), lines or (line, text) whose claims the reader is known to miss)."""
    text = (REAL / f"{name}.md").read_text(encoding="utf-8").split("\n")
    data = json.loads((REAL / f"{name}.claims.json").read_text(encoding="utf-8"))
    wrong = Counter()
    if not data["claims"]:  # a note that prints no tensor value: nothing can be wrong
        return wrong, set()
    with open(REAL / f"{name}.toml", "rb") as f:
        tensors = torch_tensors(tomllib.load(f))
    for claim in data["claims"]:
        full = tensors[claim["tensor"]]
        full = full.T if claim.get("transpose") else full
        want = full[claim["rows"]] if "rows" in claim else full
        want = want[:, claim["cols"]] if "cols" in claim else want
        want = want.reshape(-1).tolist()
        nums = [(ln, t) for ln in range(claim["lines"][0], claim["lines"][1] + 1) for t in printed(text[ln - 1], claim)]
        whole = len(nums) == len(want) or claim.get("last_number") or claim.get("partial")
        assert nums and len(nums) <= len(want) and whole, claim
        slack = 2.0**-22 * float(full.abs().max())
        for (ln, t), e in zip(nums, want):
            value, dec = published(t, claim)
            if abs(value - e) > 0.5 * 10.0**-dec + slack:
                wrong[(ln, t + "%" if claim.get("percent") else t)] += 1
    # "missed": the lines ("23") or single numbers of a line ("87:45") the reader is known to leave unread
    return wrong, {(int(k.split(":")[0]), k.split(":")[1]) if ":" in k else int(k) for k in data.get("missed", {})}


@pytest.mark.parametrize("name", NOTES)
def test_real_note_wrong_numbers_are_exactly_the_ones_torch_finds(name):
    report = check_file(REAL / f"{name}.md", load_scenario(REAL / f"{name}.toml"))
    found = Counter((r.line, r.text) for r in report.wrong)
    truth, missed = torch_wrong(name)
    assert found - truth == Counter(), f"false positives: {sorted((found - truth).elements())}"
    assert found == Counter({k: n for k, n in truth.items() if k[0] not in missed and k not in missed})
    unread = json.loads((REAL / f"{name}.claims.json").read_text(encoding="utf-8")).get("unread")
    assert report.verified or unread  # each note has claims the reader understands, or says why it has none


def test_the_real_set_covers_three_languages_and_finds_real_errors():
    assert len(NOTES) >= 6
    assert {n.split("_")[0] for n in NOTES} == {"en", "vi", "zh"}
    assert sum(sum(torch_wrong(n)[0].values()) for n in NOTES) >= 40  # softmax over the wrong axis, truncation, slips


@pytest.mark.parametrize("name", NOTES)
def test_fix_leaves_each_real_note_right_changing_only_numbers(tmp_path, name):
    note = tmp_path / f"{name}.md"
    before = (REAL / f"{name}.md").read_text(encoding="utf-8")
    note.write_text(before, encoding="utf-8")
    report = check_file(note, load_scenario(REAL / f"{name}.toml"), fix="write")
    after = note.read_text(encoding="utf-8")
    assert report.wrong == []
    a, b = before.split("\n"), after.split("\n")
    assert len(a) == len(b) and all(NUM.sub("#", x) == NUM.sub("#", y) for x, y in zip(a, b))


def test_weights_drawn_with_rand_reproduce_the_notebooks_prints():
    """``weight_init = "uniform"``: np.random.seed(42), the embedding, then W_q, W_k, W_v by np.random.rand;
    the notebook's own printed Q, K, V (NumPy's output, 8 decimals) are what the trace holds."""
    import numpy as np

    from attnwalk.api import walk

    trace = walk(**load_scenario(REAL / "vi_numpy_rand_seed42.toml"))
    lines = (REAL / "vi_numpy_rand_seed42.md").read_text(encoding="utf-8").split("\n")
    for name, first in (("x", 35), ("q", 60), ("k", 65), ("v", 70)):
        printed = np.array([[float(t) for t in NUM.findall(ln)] for ln in lines[first - 1:first + 3]])
        assert np.abs(np.asarray(trace[name]).reshape(4, 4) - printed).max() <= 0.5e-8 + 1e-15, name
