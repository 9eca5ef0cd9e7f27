"""Notes written as users write them (``tests/corpus/person/``): check finds exactly the planted wrong numbers, each
with torch's value as the expected one, and ``--fix`` repairs each note."""

import json
import shutil
from pathlib import Path

import pytest

from attnwalk.check import check_file
from attnwalk.scenario import load_scenario

torch = pytest.importorskip("torch", reason="the expected values come from torch (pip install torch)")

PERSON = Path(__file__).resolve().parent / "corpus" / "person"
NOTES = sorted(p for p in PERSON.iterdir() if p.suffix in (".md", ".ipynb") and p.name != "README.md")


def _options(note: Path):
    toml = note.with_suffix(".toml")
    return load_scenario(toml) if toml.exists() else None  # a notebook: its own ``metadata.attnwalk``


def _config(note: Path) -> dict:
    if note.suffix == ".ipynb":
        return json.loads(note.read_text(encoding="utf-8"))["metadata"]["attnwalk"]
    return load_scenario(note.with_suffix(".toml"))


def _torch_tensors(cfg: dict) -> dict:
    """The note's tensors as torch computes them in float64 (sdpa, one head, given q/k/v or x and in→out weights)."""
    t = {n: torch.tensor(cfg[n], dtype=torch.float64) for n in ("q", "k", "v", "x", "w_q", "w_k", "w_v") if n in cfg}
    if cfg.get("source") == "project":
        t["q"], t["k"], t["v"] = t["x"] @ t["w_q"], t["x"] @ t["w_k"], t["x"] @ t["w_v"]
    s = t["q"] @ t["k"].T / t["q"].shape[-1] ** 0.5
    if cfg.get("mask") == "causal":
        s = s.masked_fill(torch.triu(torch.ones_like(s), diagonal=1).bool(), float("-inf"))
    t["attn"] = torch.softmax(s, dim=-1)
    t["out"] = t["attn"] @ t["v"]
    return t


def test_there_are_notes():
    assert len(NOTES) >= 5 and any(n.suffix == ".ipynb" for n in NOTES)


@pytest.mark.parametrize("note", NOTES, ids=lambda p: p.name)
def test_check_finds_exactly_the_planted_numbers_with_torchs_values(note):
    planted = json.loads(note.with_name(note.stem + ".planted.json").read_text())
    report = check_file(note, _options(note))
    assert sorted((r.line, r.text) for r in report.wrong) == sorted((p["line"], p["published"]) for p in planted)
    tensors = _torch_tensors(_config(note))
    for p in planted:
        rec = next(r for r in report.wrong if (r.line, r.text) == (p["line"], p["published"]))
        want = float(tensors[p["tensor"]][tuple(p["index"])])
        decimals = len(p["published"].split(".")[1]) if "." in p["published"] else 0
        assert rec.failure()[1] == f"{want:.{decimals}f}"


@pytest.mark.parametrize("note", NOTES, ids=lambda p: p.name)
def test_fix_repairs_the_note(note, tmp_path):
    copy = tmp_path / note.name
    shutil.copy(note, copy)
    check_file(copy, _options(note), fix="write")
    # a notebook's output is what its code printed: --fix leaves it (the code or its inputs are to be corrected)
    outputs = {(p["line"], p["published"]) for p in json.loads(note.with_name(note.stem + ".planted.json").read_text())
               if p.get("output")}
    assert {(r.line, r.text) for r in check_file(copy, _options(note)).wrong} == outputs
