"""Helpers of the teaching tests that read the committed course notes: a note's text, its trace rebuilt from its
front matter, "printed is value correctly rounded", and check's wrong numbers after one planted change."""

from pathlib import Path

from attnwalk.api import walk
from attnwalk.check import check_text, resolve

REPO = Path(__file__).resolve().parent.parent
NOTES = REPO / "examples" / "notes"
LANGS = ["vi", "en"]


def text(name: str, lang: str) -> str:
    return (NOTES / f"{name}.{lang}.md").read_text(encoding="utf-8")


def trace_of(md: str):
    opts, weights, _, _ = resolve(md)
    return walk(weights=weights, **opts)


def close(printed: str, value: float) -> bool:
    """``printed`` is ``value`` correctly rounded to its printed decimals."""
    places = len(printed.split(".")[1]) if "." in printed else 0
    return abs(float(printed) - value) <= 0.5 * 10.0**-places + 1e-12


def wrong_after(md: str, old: str, new: str) -> list:
    """check's wrong numbers once the first ``old`` of ``md`` is replaced by ``new`` (a planted change)."""
    assert md.count(old) >= 1, old
    return check_text(md.replace(old, new, 1)).wrong
