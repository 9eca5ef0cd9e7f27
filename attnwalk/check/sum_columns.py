"""Tables of the exponentials (or the weights) with a row-sum column:
``| **Tôi** | 2.7183 | 1.0000 | 2.7183 | 6.4366 |``
under a header whose last cell is a word of ``notation.SUM_WORDS`` (``Tổng``, ``sum``). A Markdown, grid or AsciiDoc
table of that shape was read by no reader (heldout14's lecture, Sphinx page and Colab notebook): its first columns are
e^ŝ (no row maximum subtracted, as a hand table computes it) or the weights (``29.2% | 41.6% | 29.2% | 100.0%``), its
last each row's sum (1 for the weights), right where it rounds torch's sum or the sum of the row's printed numbers
(docs/course.md, "Results of printed arithmetic")."""

from __future__ import annotations

import numpy as np

from ..notation import SUM_WORDS


def _header_sums(label: str) -> bool:
    """Whether the last cell of the table header that ends ``label`` is a sum word."""
    head = label.rstrip().rstrip("|").rsplit("|", 1)
    return len(head) == 2 and head[1].strip().strip("*$").lower() in SUM_WORDS


def sum_column_tables(text: str, trace, hits: dict, foreign: list) -> None:
    """Form: each table of ``human.table_blocks`` / ``markup_tables.markup_blocks`` whose header ends in a sum word and
    whose rows are e^ŝ's rows and one number more: the exponentials judged as e^ŝ (where most agree), the last
    column as the row sums, where no reader judged those numbers."""
    if not any(w in text.lower() for w in SUM_WORDS):
        return
    from .sheets import _expected

    for name, label in (("exp", "e^ŝ"), ("attn", "attention weights")):
        e = _expected(trace, name)
        if e is not None and e.ndim == 2:
            _read(text, e, label, hits)


def _read(text: str, e: np.ndarray, label: str, hits: dict) -> None:
    """The sum-column tables of ``text`` whose first columns are ``e`` (most of them agree): judged so."""
    from .human import Cell, _judge, _value, table_blocks
    from .markup_tables import markup_blocks

    for b in table_blocks(text) + markup_blocks(text):
        if not _header_sums(b.label) or len(b.rows) != e.shape[0] or any(len(r) != e.shape[1] + 1 for r in b.rows):
            continue
        cells = [c for r in b.rows for c in r]
        if any(c.start in hits for c in cells):
            continue
        res = _judge([c for r in b.rows for c in r[:-1]], e, label, text)
        if res is None:
            continue
        sums = []
        for k, r in enumerate(b.rows):
            printed = sum(_value(c.text)[0] for c in r[:-1])
            row_ok = all(h.ok for h in res[k * e.shape[1]:(k + 1) * e.shape[1]])
            want = float(np.sum(e[k]))  # e^ŝ: the softmax's denominator; the weights: 1 (100%)
            got = _judge([Cell(r[-1].text, r[-1].start)], np.array([want]), f"row sum of {label}", text, gated=False)
            if got and not got[0].ok and row_ok:
                alt = _judge([Cell(r[-1].text, r[-1].start)], np.array([printed]), f"sum of the row's printed {label}",
                             text, gated=False)
                got = alt if alt and alt[0].ok else got
            sums += got or []
        for c, hit in zip([c for r in b.rows for c in r[:-1]], res):
            hits[c.start] = hit
        for r, hit in zip(b.rows, sums):
            hits[r[-1].start] = hit


def may_match(text: str) -> bool:
    """Gate of ``sum_column_tables``: a table (``human.table_blocks``, ``markup_tables.markup_blocks``: both read once
    a note, before the forms after the blocks) whose header ends in a sum word: ``_read`` judges no other. Spares
    the lowered copy of a note whose words say "sum" (``\\sum``, "tổng") but whose tables have no sum column."""
    from .human import table_blocks
    from .markup_tables import markup_blocks

    return any(_header_sums(b.label) for b in table_blocks(text) + markup_blocks(text))
