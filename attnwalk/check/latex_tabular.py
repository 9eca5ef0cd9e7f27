"""LaTeX ``tabular`` tables (``$q_1$ & 0.7071 & 0.0000 \\\\ \\hline``), read as the Markdown tables they typeset as: a
header naming the columns, then rows of a name and one number per cell (human.table_blocks' Blocks, judged by the same
code). Course reports written in LaTeX print attention so (heldout15).

A table holding a masked cell (``$-10^9$``, ``-1e9``, ``$-\\infty$``) is left unread: its fill is the note's choice,
not a number of the trace."""

from __future__ import annotations

import re

from .human import NUM_RE, Block, _cells, _label_before
from .markup_tables import cells_at

_TABULAR = re.compile(r"\\begin\{tabular\*?\}(?:\{[^{}]*\}|\{(?:[^{}]|\{[^{}]*\})*\})?(?P<body>.*?)\\end\{tabular\*?\}",
                      re.S)
_RULES = re.compile(r"\\(?:hline|toprule|midrule|bottomrule|cline\{[^{}]*\})")
_MASKED = re.compile(r"-\s*(?:10\^\{?\d+\}?|1e\d+|\\infty|inf\b|∞)")
_CAPTION = re.compile(r"\s*(?:\\(?:end\{center\}|centering)\s*)?\\caption\{(?P<cap>(?:[^{}]|\{[^{}]*\})*)\}")
_SECTION = re.compile(r"\\(?:sub)*section\*?\{((?:[^{}]|\{[^{}]*\})*)\}")


def _rows(text: str, a: int, b: int) -> list[list[tuple[int, str]]]:
    """The rows of a tabular body ``text[a:b]``, each a list of (offset, cell text), rules dropped."""
    out, pos = [], a
    for chunk in re.split(r"\\\\", text[a:b]):
        cells = cells_at(chunk, pos, "&")
        pos += len(chunk) + 2
        cells = [(o, _RULES.sub(lambda r: " " * len(r.group()), p)) for o, p in cells]  # offsets kept
        if any(p.strip() for _, p in cells):
            out.append(cells)
    return out


def _numbers(cell: tuple[int, str]) -> list | None:
    """The cells of a tabular cell that is one number (``0.7071``, ``$0.7071$``), else None."""
    off, p = cell
    bare = p.strip().strip("$")
    return _cells(p, off) if NUM_RE.fullmatch(bare) else None


def tabular_blocks(text: str) -> list[Block]:
    """The tabular environments of ``text`` whose rows below a header are a name (or a row number under a named
    first column) then one number per cell, as Blocks named by the caption, the header and the section above."""
    if "\\begin{tabular" not in text:
        return []
    # no match ends past the last end: a begin after it is not searched to the note's end (each of many unclosed
    # begins was, quadratic in their number)
    ends = [at + len(e) for e in ("\\end{tabular}", "\\end{tabular*}") if (at := text.rfind(e)) >= 0]
    if not ends:
        return []
    out = []
    for m in _TABULAR.finditer(text, 0, max(ends)):
        a, b = m.span("body")
        if _MASKED.search(text, a, b):
            continue
        rows = _rows(text, a, b)
        if len(rows) < 2:
            continue
        head, body = rows[0], rows[1:]
        if any(_numbers(c) for c in head[1:]):
            continue  # no header row: not read
        named = len(body[0]) == len(head) and not _numbers(head[0])
        read, ok = [], True
        for row in body:
            if len(row) != len(head):
                ok = False
                break
            cells = [_numbers(c) for c in (row[1:] if named else row)]
            if any(c is None or len(c) != 1 for c in cells):
                ok = False
                break
            read.append((row[0][1].strip() if named else None, [c[0] for c in cells]))
        if not ok or not read:
            continue
        cap = _CAPTION.match(text, m.end())
        sections = _SECTION.findall(text, max(0, m.start() - 600), m.start())
        label = " ".join(filter(None, [cap.group("cap") if cap else "", sections[-1] if sections else "",
                                       " ".join(p for _, p in head), _label_before(text, m.start())]))
        out.append(Block([c for _, c in read], m.start("body"), label, [n for n, _ in read]))
    return out
