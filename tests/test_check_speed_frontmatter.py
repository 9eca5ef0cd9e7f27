"""``source.front_matter`` reads a front matter's one-line flow lists of numbers (a generated note's stored
weights) with Python's ``float``/``int`` and the rest with PyYAML (issue 12): the data must be PyYAML's own,
value for value and type for type (``repr``: -0.0, 1 vs 1.0), and an invalid front matter must fail with
PyYAML's message, on every note we have and on generated front matters built from the lines that could
fool the stand-ins (quoted lists, comments, keys, tags, anchors, aliases, numbers YAML reads as strings)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import yaml

from attnwalk.check import source

ROOT = Path(__file__).resolve().parent.parent
SEEDS = Path("/work/shared/seeds")


def plain(text: str):
    """What the front matter of ``text`` was before the stand-ins: PyYAML reads it all (data or the error)."""
    m = source.FRONT_RE.match(text)
    if not m:
        return {}
    try:
        data = yaml.load(m.group(1), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) or {}
    except (yaml.YAMLError, ValueError, RecursionError) as err:
        return ("error", str(err).splitlines()[0][:120])
    return data if isinstance(data, dict) else ("not a mapping",)


def read(text: str):
    try:
        return source.front_matter(text).data
    except ValueError as err:
        message = str(err)
        if "not a mapping" in message:
            return ("not a mapping",)
        return ("error", message.removeprefix("front matter: invalid YAML: ").split("; allowed:")[0])


def notes() -> list[Path]:
    found = sorted(ROOT.glob("examples/**/*.md")) + sorted(ROOT.glob("tests/corpus/**/*.md")) + sorted(
        ROOT.glob("docs/*.md")) + sorted(SEEDS.glob("*.md"))
    return [p for p in found if p.is_file()]


@pytest.mark.parametrize("path", notes(), ids=lambda p: p.name)
def test_same_front_matter_as_pyyaml_on_every_note(path):
    text = path.read_text(encoding="utf-8")
    assert repr(read(text)) == repr(plain(text))


def test_a_generated_notes_weights_are_read_by_python():
    """The stand-ins are used at all (a generated note's weights), and give PyYAML's floats."""
    text = "---\nconfig: {\"h\": 2}\nweights:\n  w: {shape: [2, 2], data: [0.5, -0.0, 1, -0.0008613495]}\n---\n"
    assert source._yaml_numbers_read(source.FRONT_RE.match(text).group(1)) is not None
    data = source.front_matter(text).data
    assert repr(data) == repr(plain(text))
    assert repr(data["weights"]["w"]["data"]) == "[0.5, -0.0, 1, -0.0008613495]"


LINES = [
    "a: [1.0, -2, 0.5]", "b: [0.038538303, -0.0247, 1.5e-05, 2.5E+3]", "c: [1e5, 1.0]", "d: [1., 2.0]",
    "e: [012, 0]", "f: [00.5, -0]", "g: [1.0,]", "h: [1.0, ]", "i: [ 1.0 , 2 ]", "j: []", "k: [[1.0, 2.0], [3, 4]]",
    "l: [1.0] # c", "m: [1.0] x", "n: [1.0]]", "o: [1.0]: b", "p: \"[1.0]\"", "q: '[1.0]'", "r: \"x: [1.0]\"",
    "s: \"x: [1.0]\n  \"", "t: !!str [1.0]", "u: &anc [1.0, 2.0]", "v: *anc", "# w: [1.0]", "x: attnwalk_numbers_0_",
    "y: \"attnwalk_numbers_0_\"", "z: |\n  k: [1.0]\n  - [2.0]", "- [1.0, 2.0]", "? [1.0]\n: v", "aa: {[1.0]: x}",
    "ab: {x: 1, [1.0]: b}", "ac: [x, [1.0]]", "ad: x,[1.0]", "ae: {shape: [2], data: [0.5, 0.25]}",
    "af: &m {data: [1.0]}", "ag: *m", "ah: [0x1F, 1.0]", "ai: [1_000, 2.0]", "aj: [+1.0, 2.0]", "ak: [.5, 1.0]",
    "al: [1.5e5]", "am: [-1.5e-5, 3.25e+10]", "an: [1.0, 2.0] ", "ao:  [1.0]", "ap: - [1.0]", "a: [9.0]",
    "aq: !!python/tuple [1.0]", "ar: !!set {x, y}", "as: !!omap [a: [1.0]]", "--- [1.0]", "at: \"\\\n  [1.0]\"",
    "au: [1.0, \"2.0\"]", "av: [1.0, 2.0, 3.0, -4.0, 5.5, 6.75, 7, 8, 9, 10]", "aw:\n  - [1.0]\n  - [2, 3]",
    "ax: [" + "1" * 5000 + ", 1.0]", "ay: [123456789012345678901234567890, 1.0]",
]


@pytest.mark.parametrize("seed", range(300))
def test_same_front_matter_on_generated_texts(seed):
    rng = random.Random(seed)
    lines = [rng.choice(LINES) for _ in range(rng.randint(1, 8))]
    if rng.random() < 0.3:  # the same key twice, an alias before its anchor, ...: in another order
        rng.shuffle(lines)
    text = "---\n" + "\n".join(lines) + "\n---\nbody\n"
    assert repr(read(text)) == repr(plain(text)), text
