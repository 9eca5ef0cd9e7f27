"""Tables written in reStructuredText (grid tables, ``.. list-table::``) and AsciiDoc (``|===`` blocks), read as the
Markdown tables they render as: a header naming the columns, then rows of a name and one number per cell
(human.table_blocks' Blocks, judged by the same code). Sphinx and Asciidoctor pages print attention so (heldout14)."""

from __future__ import annotations

import re

from .human import NUM_RE, Block, _cells, _label_before, _memo

_GRID_BORDER = re.compile(r"[ \t]*\+(?:[-=]+\+)+[ \t]*")
_GRID_ROW = re.compile(r"[ \t]*\|.*\|[ \t]*")
_ADOC_FENCE = re.compile(r"[ \t]*\|===[ \t]*")
_LIST_TABLE = re.compile(r"[ \t]*\.\. list-table::(?P<title>[^\n]*)")
_LIST_ITEM = re.compile(r"(?P<lead>[ \t]*(?:\*[ \t]+)?-[ \t]?)(?P<cell>[^\n]*)")


def _lines(text: str) -> list[tuple[int, str]]:
    """(offset, line) of every line of ``text``."""
    out, pos = [], 0
    for line in text.split("\n"):
        out.append((pos, line))
        pos += len(line) + 1
    return out


def _row(parts: list[tuple[int, str]]) -> tuple[str | None, list] | None:
    """(name, cells) of a row given as (offset, text) cells: an optional first cell that is no number (the row's
    token), then exactly one number per cell; None for any other row (a header, prose, a vector per cell)."""
    name, cells = None, []
    for j, (off, p) in enumerate(parts):
        bare = p.strip().strip("*`")
        if j == 0 and not NUM_RE.fullmatch(bare):
            name = bare
            continue
        c = _cells(p.strip("* "), off + (len(p) - len(p.lstrip("* ")))) or []
        if len(c) != 1:
            return None
        cells.extend(c)
    return (name, cells) if cells else None


def _split(off: int, line: str, closed: bool) -> list[tuple[int, str]]:
    """The cells of a ``|``-separated row at offset ``off`` (``| a | b |``, or AsciiDoc's ``| a | b`` unclosed)."""
    start = line.index("|") + 1
    body = line[start:].rstrip()
    if closed:
        body = body[:-1]
    return cells_at(body, off + start, "|")


def cells_at(body: str, at: int, sep: str) -> list[tuple[int, str]]:
    """The parts of a table row ``body`` between its ``sep`` marks (its cells), each with its offset in the note
    (``at``: the body's). Shared with ``latex_tabular`` (``&``)."""
    out = []
    for part in body.split(sep):
        out.append((at, part))
        at += len(part) + len(sep)
    return out


def _block(text: str, start: int, header: str, rows: list) -> list[Block]:
    """One Block of the rows read (each a (name, cells) pair), when there are some and all are as long."""
    if not rows or any(len(c) != len(rows[0][1]) for _, c in rows):
        return []
    return [Block([c for _, c in rows], start, _label_before(text, start) + " " + header, [n for n, _ in rows])]


def _grid_tables(text: str, lines: list) -> list[Block]:
    """reStructuredText grid tables: ``+---+`` borders, ``| a | b |`` rows; the rows above a ``+===+`` border are
    the header."""
    out, k = [], 0
    while k < len(lines):
        if not _GRID_BORDER.fullmatch(lines[k][1]):
            k += 1
            continue
        start, header, rows, after_head, ok = lines[k][0], "", [], False, True
        k += 1
        while k < len(lines) and (_GRID_BORDER.fullmatch(lines[k][1]) or _GRID_ROW.fullmatch(lines[k][1])):
            off, line = lines[k]
            if "+=" in line:
                after_head = True
            elif line.lstrip().startswith("|"):
                got = _row(_split(off, line, True))
                if got is None:
                    header += " " + line if not rows else ""
                    ok = ok and not rows
                else:
                    rows.append(got)
            k += 1
        if ok and (after_head or header):
            out += _block(text, start, header, rows)
    return out


def _asciidoc_tables(text: str, lines: list) -> list[Block]:
    """AsciiDoc tables between two ``|===`` fences: ``| a | b`` rows, the first row a header where it holds no
    number of each cell (``options="header"``, or a row of names)."""
    out, k = [], 0
    while k < len(lines):
        if not _ADOC_FENCE.fullmatch(lines[k][1]):
            k += 1
            continue
        start, header, rows, ok = lines[k][0], "", [], True
        k += 1
        while k < len(lines) and not _ADOC_FENCE.fullmatch(lines[k][1]):
            off, line = lines[k]
            if line.lstrip().startswith("|"):
                got = _row(_split(off, line, False))
                if got is None:
                    header, ok = header + " " + line, ok and not rows
                else:
                    rows.append(got)
            elif line.strip():
                ok = False  # a cell written over several lines: not read
            k += 1
        k += 1
        if ok:
            out += _block(text, start, header, rows)
    return out


def _list_tables(text: str, lines: list) -> list[Block]:
    """reStructuredText ``.. list-table::``: each ``* -`` starts a row, each ``-`` below it is the next cell (one cell a
    line); the title and the header row name the table."""
    out, k = [], 0
    while k < len(lines):
        m = _LIST_TABLE.fullmatch(lines[k][1])
        if m is None:
            k += 1
            continue
        start, header, rows, cur, ok = lines[k][0], m.group("title"), [], None, True
        k += 1
        while k < len(lines) and (not lines[k][1].strip() or lines[k][1][:1] in " \t"):
            off, line = lines[k]
            item = _LIST_ITEM.fullmatch(line)
            if item is not None and line.strip().startswith(("* -", "*\t-", "-")):
                if line.lstrip().startswith("*"):
                    cur = []
                    rows.append(cur)
                cur is not None and cur.append((off + item.start("cell"), item.group("cell")))
            k += 1
        read = []
        for parts in rows:
            got = _row(parts)
            if got is None:
                header, ok = header + " " + " ".join(p for _, p in parts), ok and not read
            else:
                read.append(got)
        if ok:
            out += _block(text, start, header, read)
    return out


@_memo  # read by the reader and by sum_columns' gate and form: once a note (callers build new lists from it)
def markup_blocks(text: str) -> list[Block]:
    """The tables of a reStructuredText or AsciiDoc page, as Blocks of rows of numbers."""
    if "+=" not in text and "|===" not in text and "list-table::" not in text:
        return []
    lines = _lines(text)
    return _grid_tables(text, lines) + _asciidoc_tables(text, lines) + _list_tables(text, lines)
