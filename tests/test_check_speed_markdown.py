"""``source._parser`` asks markdown-it's paragraph terminators (and those of a table's rows and a quote's
lines) through one rule that first rules a line out by its first character, asks ``lheading`` only where an
underline may follow, normalizes only a text with a CR or NUL, finds the line marks in C and keeps no table
cell's open and close tokens (issue 12): the other tokens must be those of the stock parser, on every note
we have and on generated line soups built from every character a terminator may start with."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from attnwalk.check import source

ROOT = Path(__file__).resolve().parent.parent
SEEDS = Path("/work/shared/seeds")


def tokens(md, text: str) -> list:
    """The tokens of ``text`` less a table cell's open and close tokens (``source._parser`` keeps none)."""
    return [(t.type, t.map, t.content, t.info, t.markup, t.level, t.hidden) for t in md.parse(text)
            if t.type not in ("th_open", "th_close", "td_open", "td_close")]


def notes() -> list[Path]:
    found = sorted(ROOT.glob("examples/**/*.md")) + sorted(ROOT.glob("tests/corpus/**/*.md")) + sorted(
        ROOT.glob("docs/*.md")) + sorted(SEEDS.glob("*.md"))
    return [p for p in found if p.is_file()]


def test_the_gate_is_installed():
    rules = [r.name for r in source._parser().block.ruler.__rules__ if "paragraph" in r.alt]
    assert rules == ["paragraph_end"]
    rules = [r.name for r in source._parser().block.ruler.__rules__ if "blockquote" in r.alt]
    assert rules == ["blockquote_end"]
    table = next(r.fn for r in source._parser().block.ruler.__rules__ if r.name == "table")
    assert table.__globals__["escapedSplit"]("a | b \\| c") == ["a ", " b | c"]  # the library's own, for "\\"
    assert table.__globals__["escapedSplit"]("a | b | c") == ["a ", " b ", " c"]


@pytest.mark.parametrize("path", notes(), ids=lambda p: p.name)
def test_same_tokens_as_markdown_it_on_every_note(path):
    text = path.read_text(encoding="utf-8")
    assert tokens(source._parser(), text) == tokens(source._stock_parser(), text)


# Line starts that a terminator may take or nearly take: lists (bullet, ordered, "1)" vs "10."), rules
# ("---", "- - -", "***"), fences, quotes, headings, HTML, tables ("|" anywhere, delimiter rows), setext
# underlines, indented code, negative numbers and matrix rows, digits glued to a point.
PIECES = ["- a", "-a", "-0.25 & 1.5 \\\\", "- 0.25", "--", "---", "- - -", "***", "* x", "+ y", "+1", "1. one",
          "1) one", "2. two", "10. ten", "1234567890. big", "0.5 & 0.25", "3.14", "12)", "1.", "```", "~~~ py",
          "``` python", "> quote", ">", "# head", "#nohead", "###### six", "<div>", "<!-- c -->", "</p>", "<x",
          "| a | b |", "|---|---|", "a | b", "--- | ---", ":-: | --", "===", "text", "$$", "\\begin{bmatrix}",
          "    code", "  - nested", "   > q", "\t- tab", "", "", "x = 1", "_ _ _", "__", "1.5)", "١. arabic",
          "-١", "²", "a \\| b | c", "| x \\\\| y |", "| \\| |", "|-|-|", "| 1 | 2 | 3 |", "\\|", "> | a | b |",
          "> |---|---|", "   ", " ", "a\r", "\r\n- crlf", "nul \0 |", "\t\tcode", "a\tb", "> > deep", "  ```",
          "- | x |"]


@pytest.mark.parametrize("seed", range(40))
def test_same_tokens_on_line_soups(seed):
    rng = random.Random(seed)
    lines = [rng.choice(PIECES) for _ in range(rng.randint(5, 60))]
    lines = [(" " * rng.choice((0, 0, 0, 1, 2, 3, 4)) + line) if line else line for line in lines]
    text = "\n".join(lines) + rng.choice(("", "\n"))
    assert tokens(source._parser(), text) == tokens(source._stock_parser(), text)


@pytest.mark.parametrize("seed", range(40))
def test_same_tokens_on_tables_and_quotes(seed):
    """Tables (their rows end at a terminator) in quotes and lists, lazy quote lines, and the texts' ends
    (no newline, blanks, a line of spaces last): the marks ``_line_marks`` finds decide each of them."""
    rng = random.Random(1000 + seed)
    rows = ["| a | b |", "|---|---|", "| 1 | 2 |", "| -0.5 | 3 |", "|:-|-:|", "a | b", "--- | ---"]
    lines = []
    for _ in range(rng.randint(3, 25)):
        prefix = rng.choice(("", "", "> ", ">", "- ", "  ", "1. ", "    "))
        line = rng.choice(rows + PIECES)
        lines.append((prefix + line) if line else line)
    text = "\n".join(lines) + rng.choice(("", "\n", "\n\n", "  ", "\n   ", " \n"))
    assert tokens(source._parser(), text) == tokens(source._stock_parser(), text)


def test_line_marks_are_the_librarys():
    """``_line_marks`` against markdown-it's own StateBlock on generated texts without tabs (a tab sends
    ``_block_state`` to the library)."""
    from markdown_it.rules_block.state_block import StateBlock

    md = source._stock_parser()
    rng = random.Random(7)
    for _ in range(3000):
        pieces = ("\n", " ", "  ", "a", "|", "-", "\u00a0", "\r", "x y")
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 30)))
        state = StateBlock(text, md, {}, [])
        begins, ends, shifts = source._line_marks(text)
        assert (begins, ends, shifts) == (state.bMarks, state.eMarks, state.tShift), repr(text)
        assert shifts == state.sCount and state.bsCount == [0] * len(shifts)


SETEXT = ["---", "===", "  ---", "   ===", "    ---", "--- ", "=== \t", "-- -", "= =", "> ---", ">---", "> > ===",
          "> text", ">", "> ", "text", "more text", "- item", "  ---", "1. one", "   ", "", "", "-0.5 & 1", "=", "-",
          "| a | b |", "|---|---|", "\t---", "  > ===", "* * *", "```", "$$", "a = b"]


@pytest.mark.parametrize("seed", range(200))
def test_same_tokens_on_setext_soups(seed):
    """``lheading`` is asked only where an underline comes before the next blank line: paragraphs with and
    without one, in quotes and list items, lazy lines, underlines that are rules or list items instead."""
    rng = random.Random(5000 + seed)
    lines = [rng.choice(SETEXT if rng.random() < 0.7 else PIECES) for _ in range(rng.randint(2, 14))]
    text = "\n".join(lines) + rng.choice(("", "\n"))
    assert tokens(source._parser(), text) == tokens(source._stock_parser(), text)


def test_no_cell_marks_and_the_rows_cells():
    """The parser keeps no cell's open or close token; ``segments`` reads each row's cells from its inlines."""
    text = "| a | b |\n|:-|-:|\n| 1 | 2 |\n| 3 |\n\n> | x | y |\n> |---|---|\n> | 0.5 \\| 1 | 2 |\n"
    kinds = {t.type for t in source._parser().parse(text)}
    assert not kinds & {"th_open", "th_close", "td_open", "td_close"} and "tr_open" in kinds
    source.forget()
    rows = [(s.line, s.header, s.table, s.cells) for s in source.segments(text) if s.kind == "row"]
    assert rows == [(1, True, 1, ["a", "b"]), (3, False, 1, ["1", "2"]), (4, False, 1, ["3", ""]),
                    (6, True, 2, ["x", "y"]), (8, False, 2, ["0.5 | 1", "2"])]


def test_underline_searches_do_not_grow_with_the_paragraphs(monkeypatch):
    """A note of k paragraphs and no blank line (each ended by a fence): the underline search of the first
    paragraph answers every later one (one search, not k searches each to the end of the note)."""
    calls = []

    class Counting:
        def search(self, text, pos):
            calls.append(pos)
            return rx.search(text, pos)

    rx = source._UNDERLINE
    monkeypatch.setattr(source, "_UNDERLINE", Counting())
    for k in (10, 400):
        calls.clear()
        text = "a 0.5\n```\nx\n```\n" * k
        assert tokens(source._parser(), text) == tokens(source._stock_parser(), text)
        assert len(calls) == 1
