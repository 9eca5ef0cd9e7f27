"""One list of a note's fenced code blocks for every part of ``attnwalk check`` (``source.fences``).

Three scanners used to disagree about where a code block ends: the merge of the hand-written readers
(backtick fences only, an info word required, any later backtick line closing), ``program.fences``
(CommonMark's closing rule, but no fence indented 4+ spaces in a list item, and nothing read past an unclosed
fence) and markdown-it's tokens (the checker's segments). On the notes below they disagreed; now each part
reads markdown-it's ``fence`` tokens, compared here with the stock CommonMark parser's line maps, and a planted
wrong number in a python literal is judged, and the code's other numbers skipped, the same way in every fence.
"""

from __future__ import annotations

import pytest

from attnwalk.check import check_text
from attnwalk.check.program import _content, python_blocks
from attnwalk.check.program import fences as program_fences
from attnwalk.check.source import _stock_parser, fences

torch = pytest.importorskip("torch", reason="expected values come from torch; pip install torch (CI does)")

# A projected example, weights as (in, out): Q = X @ W_Q (exact binary decimals: Q prints as computed).
SCENARIO = {"variant": "sdpa", "source": "project", "weight_layout": "in_out", "heads": 1,
            "x": [[1.0, 0.5], [-0.5, 2.0], [0.25, -1.0]], "w_q": [[0.5, -1.0], [1.5, 0.25]],
            "w_k": [[1.0, 0.5], [-0.5, 1.0]], "w_v": [[2.0, 0.001], [0.5, -1.0]]}


def _q_rows() -> list[str]:
    """Q = X @ W_Q as torch computes it (float64), one literal row a line, 4 decimals."""
    q = torch.tensor(SCENARIO["x"], dtype=torch.float64) @ torch.tensor(SCENARIO["w_q"], dtype=torch.float64)
    return ["    [" + ", ".join(f"{v:.4f}" for v in row) + "]," for row in q.tolist()]


def _code() -> list[str]:
    """A python block's lines: Q's literal (6 numbers) and ``d_k = 2`` (a number of code, never a claim)."""
    return ["import numpy as np", "Q = np.array(["] + _q_rows() + ["])", "d_k = 2"]


def _fenced(open_: str, close: str | None, prefix: str = "") -> str:
    """The code between ``open_`` and ``close`` (None: unclosed), each line behind ``prefix``."""
    lines = [open_] + _code() + ([close] if close is not None else [])
    return "".join(prefix + line + "\n" for line in lines)


HEAD = "# Attention\n\nThe queries of the example, computed with NumPy:\n\n"

# name -> a note whose python block the scanners read differently before (the comment: how)
PYTHON_NOTES = {
    # tilde fence: the merge saw no block (backticks only), so d_k's 2 was an unread number of prose
    "tilde": HEAD + _fenced("~~~python", "~~~"),
    # a fence in a list item (2-space indent): the merge's regex wanted the backticks at the line's start
    "list_item": HEAD + "- In code:\n\n" + _fenced("```python", "```", "  "),
    # a list item whose content is indented 4 spaces (``-   ``): program's fence regex allowed 0-3 spaces only
    "deep_list_item": HEAD + "-   In code:\n\n" + _fenced("```python", "```", "    "),
    # a blockquote: every scanner saw it, but the merge parsed the block with its "> " marks (no Python)
    "blockquote": HEAD + _fenced("```python", "```", "> "),
    # an unclosed fence runs to the end of the note (CommonMark): program read nothing past it
    "unclosed": HEAD + _fenced("```python", None),
    # a longer closing fence closes; the merge's regex closed at it too, after its first three backticks
    "longer_close": HEAD + _fenced("```python", "`````") + "\nAfter the block.\n",
    # an unclosed fence in a blockquote ends with the quote
    "quote_ends": HEAD + _fenced("```python", None, "> ") + "\nAfter the quote.\n",
}

# notes whose fences only the list's shape is checked on (markdown-it's maps)
OTHER_NOTES = {
    # a closing line with words after it closes nothing (the merge's regex closed there)
    "words_after_close": "```text\n1 2\n``` not a close\n3 4\n```\n",
    # a shorter backtick line inside a longer fence is content (the merge's regex closed there)
    "shorter_inside": "````text\n1 2\n```\n3 4\n````\n",
    # a tilde line cannot close a backtick fence, nor a backtick line a tilde one
    "mixed_marks": "```text\n~~~\n1 2\n```\n~~~text\n```\n3 4\n~~~\n",
    # a backtick fence whose info holds a backtick is no fence (a code span); no info at all is one
    "backtick_info": "``` a`b\n1 2\n```\n\n```\n3 4\n```\n",
    # fences indented 4 spaces at the top level are indented code, not fences
    "indented_code": "para\n\n    ```\n    1 2\n    ```\n",
    # CRLF line ends, and a lone CR (a line break to markdown-it)
    "crlf": "```python\r\nx = 1\r\n```\r\ntext\r~~~\r2\r~~~\r",
    # nested containers: a list item in a blockquote
    "quote_list": "> - item\n>\n>   ```text\n>   1 2\n>   ```\n> after\n",
}


def _markdown_it(text: str) -> list[tuple[tuple[int, int], str, str]]:
    """(line map, info's first word, content) of each ``fence`` token of the stock CommonMark parser."""
    out = []
    for t in _stock_parser().parse(text):
        if t.type == "fence":
            info = t.info.strip().split()[0].lower() if t.info.strip() else ""
            out.append((tuple(t.map), info, t.content))
    return out


def _span(text: str, lines: tuple[int, int]) -> tuple[int, int]:
    """The offsets where line ``lines[0]`` starts and line ``lines[1]`` starts (the text's end past its last line),
    lines as markdown-it counts them: CR, LF and CRLF each end one."""
    import re

    starts = [0] + [m.end() for m in re.finditer(r"\r\n?|\n", text)]
    return tuple(starts[k] if k < len(starts) else len(text) for k in lines)


@pytest.mark.parametrize("name", sorted(PYTHON_NOTES) + sorted(OTHER_NOTES))
def test_the_fence_list_is_markdown_its(name):
    text = {**PYTHON_NOTES, **OTHER_NOTES}[name]
    want = _markdown_it(text)
    assert bool(want) == (name != "indented_code")  # each note has a fence, but indented code
    got = fences(text)
    assert [(f.lines, f.info, f.content) for f in got] == want
    # offsets agree with the line maps (the note's own line count, not split("\n")'s)
    assert [(f.start, f.end) for f in got] == [_span(text, m) for m, _, _ in want]
    # program reads the same blocks: each span, its info, its content as markdown-it keeps it
    assert [(s, e, info, content) for s, e, info, content, _, _ in program_fences(text)] == [
        (f.start, f.end, f.info, f.content) for f in got]


@pytest.mark.parametrize("name", sorted(PYTHON_NOTES))
def test_python_blocks_are_markdown_its_contents_placed_in_the_note(name):
    text = PYTHON_NOTES[name]
    (_, content, starts), = python_blocks(text)
    assert content == "".join(line + "\n" for line in _code())
    # each content line lies in the note at the offset given for it (container marks and indent before it)
    for line, at in zip(content.split("\n"), starts):
        assert text[at:at + len(line)] == line and text[at + len(line)] == "\n"


@pytest.mark.parametrize("name", sorted(PYTHON_NOTES))
def test_a_planted_wrong_number_is_judged_and_the_code_around_it_skipped(name):
    rows = _q_rows()
    right = rows[1].split(", ")[0].strip(" [")  # Q[1, 0]
    assert right == "2.7500"
    text = PYTHON_NOTES[name].replace("[2.7500,", "[2.7400,", 1)
    report = check_text(text, SCENARIO)
    line = next(k for k, ln in enumerate(text.split("\n"), 1) if "2.7400" in ln)
    assert [(r.line, r.text, r.failure()[1]) for r in report.wrong] == [(line, "2.7400", "2.7500")]
    # Q's other 5 numbers verified; d_k's 2 (code, not a claim) and nothing else counted
    assert sorted(r.text for r in report.verified) == sorted(
        v.strip(" [],") for row in rows for v in row.split(", ") if v.strip(" [],") != "2.7500")
    assert report.unknown == []


@pytest.mark.parametrize("name", sorted(PYTHON_NOTES))
def test_the_right_note_is_all_verified(name):
    report = check_text(PYTHON_NOTES[name], SCENARIO)
    assert report.wrong == [] and report.unknown == [] and len(report.verified) == 6


def test_every_note_and_a_soup_of_fences_gets_markdown_its_list():
    """On every note of the repository and on 20,000 random soups of fences, quotes, list markers and blanks,
    ``fences`` (the checker's parser, its paragraph terminators asked through one rule) finds the stock
    CommonMark parser's fence tokens, and offsets that start and end their lines."""
    import random
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    texts = [p.read_text(encoding="utf-8") for p in sorted(root.glob("**/*.md")) if ".venv" not in p.parts]
    rng = random.Random(1)
    alpha = ["```", "```python\n", "```\n", "\n", "> ", ">", ">>```", " ```", "x", "py", "\t", "````", "\n```\n",
             "a = 1\n", "~~~\n", "~~~~", "- ", "1. ", "    ", "\r\n", "\r"]
    texts += ["".join(rng.choice(alpha) for _ in range(rng.randint(0, 30))) for _ in range(20_000)]
    for t in texts:
        got = fences(t)
        assert [(f.lines, f.info, f.content) for f in got] == _markdown_it(t), t
        assert [(f.start, f.end) for f in got] == [_span(t, f.lines) for f in got], t
        # each block's lines are placed where the note has them (or the block is not read: a tab expanded)
        for _, _, _, content, a, _ in program_fences(t):
            placed = _content(t, a, content)
            if placed is not None:
                for line, at in zip(placed[0].split("\n"), placed[1]):
                    assert t[at:at + len(line)] == line and t[at + len(line):at + len(line) + 1] in ("\n", "\r"), t


# ---------------------------------------------------------------- the hand-written readers' code blocks

# A grid of Q = X @ W_Q (exact binary decimals) in a plain-text fence, one row a line, as the grid reader reads it
GRID_NOTES = {
    # a tilde fence: the hand-written readers saw backtick fences only
    "tilde": lambda rows: HEAD + "Q:\n\n" + _fenced("~~~text", "~~~").replace(_body(), rows),
    # a fence in a list item: the backticks not at the line's start
    "list_item": lambda rows: HEAD + "- Q:\n\n" + _fenced("```text", "```", "  ").replace(_body("  "), rows),
    # in a blockquote: each line behind "> "
    "blockquote": lambda rows: HEAD + "> Q:\n>\n" + _fenced("```text", "```", "> ").replace(_body("> "), rows),
}


def _body(prefix: str = "") -> str:
    return "".join(prefix + line + "\n" for line in _code())


def _grid(prefix: str, q0: str | None = None) -> str:
    """Q's rows as plain numbers behind ``prefix`` (``q0``: Q[0, 0] as printed)."""
    rows = [r.strip(" [],").split(", ") for r in _q_rows()]
    rows[0][0] = q0 or rows[0][0]
    return "".join(prefix + "  ".join(r) + "\n" for r in rows)


@pytest.mark.parametrize("name", sorted(GRID_NOTES))
def test_a_grid_in_any_fence_markdown_it_finds_is_code_to_the_hand_written_readers(name):
    from attnwalk.check import forms, human

    prefix = {"tilde": "", "list_item": "  ", "blockquote": "> "}[name]
    assert _q_rows()[0].strip(" [],").split(", ")[0] == "1.2500"  # Q[0, 0] = 1 * 0.5 + 0.5 * 1.5
    text = GRID_NOTES[name](_grid(prefix))
    (f,) = fences(text)
    # the one list: the block's span is markdown-it's, its lines placed where the note has them
    (start, end, a, content), = human.code_blocks(text)
    assert (start, end, content) == (f.start, f.end, f.content)
    placed, at = _content(text, a, content)
    assert placed == content and all(text[p:p + len(t)] == t for p, t in zip(at, content.split("\n")))
    outside = forms._outside_code(text)
    assert [b for _, b in outside][0] == f.start and outside[-1][0] == f.end
    assert human.in_code(text, f.start + 3) and not human.in_code(text, f.end) and not human.in_code(text, 0)
    # the grid reader reads it: every number right, then a planted wrong one found with torch's value
    report = check_text(text, SCENARIO)
    assert report.wrong == [] and len(report.verified) == 6
    bad = check_text(GRID_NOTES[name](_grid(prefix, q0="1.3750")), SCENARIO)
    assert [(r.text, r.failure()[1]) for r in bad.wrong] == [("1.3750", "1.2500")]


def test_mkdocs_admonitions_fences_are_code_and_keep_their_verdicts():
    """An admonition's body is indented 4 spaces: CommonMark reads its fence as a paragraph's lines, MkDocs renders
    it as code. ``code_blocks`` adds it; the note's output rows are read there (8 right, the planted 1.707 wrong:
    torch's out[0, 2] is 1.704)."""
    from pathlib import Path

    from attnwalk.check import check_file, human
    from attnwalk.scenario import load_scenario

    note = Path(__file__).resolve().parent / "corpus" / "en_mkdocs_admonitions.md"
    text = note.read_text(encoding="utf-8")
    assert fences(text) == []
    lines = text.split("\n")
    (start, end, a, content), = human.code_blocks(text)
    assert text.count("\n", 0, start) == 12 and text.count("\n", 0, end) == 17  # lines 13 to 17: ``` to ```
    assert content == "".join(ln.strip() + "\n" for ln in lines[13:16])
    placed, at = _content(text, a, content)
    assert [text[p:p + 21] for p in at] == [ln.strip() for ln in lines[13:16]]
    sc = load_scenario(note.with_suffix(".toml"))
    scenario = {k: sc[k] for k in ("variant", "source", "weight_layout", "heads", "x", "w_q", "w_k", "w_v")}
    x, w_q, w_k, w_v = (torch.tensor(scenario[k], dtype=torch.float64) for k in ("x", "w_q", "w_k", "w_v"))
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    out = torch.softmax(q @ k.T / 3 ** 0.5, dim=-1) @ v
    report = check_file(note, sc)
    rows = {(r.line, r.text) for r in report.verified if 14 <= r.line <= 16}
    assert [(r.line, r.text, r.failure()[1]) for r in report.wrong if r.line in (14, 15, 16)] == [
        (14, "1.707", f"{out[0, 2].item():.3f}")]
    right = {(14 + i, f"{out[i, j].item():.3f}") for i in range(3) for j in range(3)}
    assert rows == right - {(14, f"{out[0, 2].item():.3f}")}
