"""A spreadsheet printed as Markdown tables (``| | A | B | C |`` above, the sheet's row number first in each row:
``| **20** | The | 0.598 | 0.295 |``): blocks of rows under a row of words, each block one tensor named by its corner
cell (``e^score``, ``weight``, ``output``: ``notation.SHEET_CORNERS``), its last column the row sums where its header
says so. The reader's own tables take the first column for a row name and stop at the first row of words, so such a
sheet was read not at all (heldout13's en_spreadsheet_cells_exp_formulas).
"""

from __future__ import annotations

import re

import numpy as np

from ..notation import SHEET_CORNERS, SHEET_PROJECTIONS, SUM_WORDS

_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_ROW_NUMBER = re.compile(r"\**\d+\**")
_TABLE = re.compile(r"(?:^\|[^\n]*\|[ \t]*(?:\n|$)){3,}", re.M)
# a sheet's header cells, an empty corner then A (blanks as str.strip takes them): without one, no table of the
# note is a sheet, and _TABLE (tried at every offset) is not run
_HEAD = re.compile(r"\|[^\S\n]*\|[^\S\n]*A[^\S\n]*\|")


def _cells(line: str, at: int) -> list[tuple[str, int]]:
    """The cells of a table line as (stripped text, offset of that text)."""
    out, k = [], line.index("|") + 1
    for part in line.strip().strip("|").split("|"):
        lead = len(part) - len(part.lstrip())
        out.append((part.strip(), at + k + lead))
        k += len(part) + 1
    return out


def _tensors(corner: str) -> list[str]:
    """The tensors whose phrases the corner holds, in ``SHEET_CORNERS``' order; none for a projection's weights."""
    low = corner.lower()
    if any(p in low for p in SHEET_PROJECTIONS):
        return []
    return [name for name, phrases in SHEET_CORNERS if any(p in low for p in phrases)]


def sheet_blocks(text: str) -> list[tuple[str, list[str], list[list[tuple[str, int]]]]]:
    """(corner, column headers, rows of number cells) of each block of each spreadsheet table in ``text``."""
    from .human import NUM_RE

    out = []
    if not _HEAD.search(text):
        return out
    for tm in _TABLE.finditer(text):
        lines, at = tm.group(0).rstrip("\n").split("\n"), tm.start()
        head = _cells(lines[0], at)  # asked first: most tables are no sheet, and their rows are not split
        letters = [t for t, _ in head[1:]]
        if head[0][0] or not letters or "".join(letters) != _LETTERS[:len(letters)]:
            continue
        rows = []
        for line in lines:
            rows.append(_cells(line, at))
            at += len(line) + 1
        block = None
        for cells in rows[2:]:
            if not _ROW_NUMBER.fullmatch(cells[0][0]) or len(cells) < 3:
                block = None
                continue
            body = cells[2:]
            while body and not body[-1][0]:  # the sheet's empty cells after the block's last column
                body.pop()
            if not any(NUM_RE.fullmatch(t) for t, _ in body):  # a row of words: the next block's header
                block = (cells[1][0], [t for t, _ in body], [])
                out.append(block)
            elif block is not None and all(NUM_RE.fullmatch(t) for t, _ in body) and len(body) == len(block[1]):
                block[2].append(body)
            else:
                block = None
    return out


def _expected(trace, name: str, head: int = 0) -> np.ndarray | None:
    """The tensor ``name`` of one head as a sheet prints it (``exp``: e^ŝ)."""
    from .human import _expected as tensor

    if name != "exp":
        return tensor(trace, name, head)
    s = tensor(trace, "scores_masked", head)
    s = tensor(trace, "scores_scaled", head) if s is None else s
    if s is None:
        return None
    with np.errstate(over="ignore"):  # a saturated row's e^ŝ is inf, as a sheet shows #NUM!: no number matches it
        return np.exp(s)  # e^ŝ as a hand sheet computes it: no row maximum subtracted


def sheet_tables(text: str, trace, hits: dict, foreign: list) -> None:
    """Form: each block of ``sheet_blocks`` judged as the tensor its corner names (the one of its shape its numbers
    agree with most, where it names several; its row-sum column as the row sums of e^ŝ), where no reader judged its
    numbers; a block whose shape is no named tensor's is left unread."""
    from .human import Cell, _judge, _near, _value, head_at

    if "| **" not in text and "|**" not in text and "| 1 |" not in text:
        return
    for corner, heads, rows in sheet_blocks(text):
        names = _tensors(corner)
        if not names or not rows:
            continue
        sums = [j for j, h in enumerate(heads) if any(w in h.lower() for w in SUM_WORDS)]
        cols = [j for j in range(len(heads)) if j not in sums]
        head = head_at(text, rows[0][0][1])  # (``## Head 2`` above the block, ``weight (head 2)`` in its corner)
        shaped = [(n, w) for n in names
                  if (w := _expected(trace, n, head)) is not None and w.shape == (len(rows), len(cols))]
        if not shaped:
            continue
        values = [_value(r[j][0]) for r in rows for j in cols]
        # the candidate the block agrees with most (the first on a tie): a corner may name two (``weighted sum``)
        name, want = max(shaped, key=lambda c: sum(_near(v, d, e, 0.0) for (v, d), e in zip(values, c[1].flat)))
        parts = [([r[j] for r in rows for j in cols], want, name)]
        if name == "exp" and len(sums) == 1:
            parts.append(([r[sums[0]] for r in rows], want.sum(-1, keepdims=True), "row_sum"))
        for cells, exp, label in parts:
            if any(at in hits for _, at in cells):
                continue
            res = _judge([Cell(t, at) for t, at in cells], exp, label, text, sure=True)
            for (_, at), hit in zip(cells, res or []):
                hits[at] = hit
