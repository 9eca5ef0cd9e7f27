"""Matrices typed with Unicode bracket pieces in plain text (``⎡1 0⎤`` over ``⎣0 1⎦``), several side by side on a
line: ``Q¹ = ⎡1 0⎤    K¹ = ⎡1 1⎤``. Each is read by its columns, named by the text before its top row (or, where
that holds no letter, by the line above it at its columns: ``Q (2×4)`` over the matrix), a superscript naming its
head (``Q¹``: head 1). The reader's own grids take ``⎡ ⎤`` for no bracket at all, so such notes were read not at all
(heldout13's vi_plaintext_unicode_brackets_two_heads).
"""

from __future__ import annotations

import re

import numpy as np

from ..notation import BRACKET_LETTERS, BRACKET_PIECES, BRACKET_PRODUCTS, SCALED_MARKS
from .indices import index_int

(_TL, _TR), (_ML, _MR), (_BL, _BR) = BRACKET_PIECES
_SUPER = str.maketrans("¹²³⁴⁵⁶⁷⁸⁹", "123456789")
_NAMED_BY = ("=", "≈")  # what follows a matrix's name in its label
_NAME = re.compile(r"([A-Z])([¹²³⁴⁵⁶⁷⁸⁹]?)(?:\s*([A-Z])[¹²³⁴⁵⁶⁷⁸⁹]?\s*(?:ᵀ|\^T|\^\{?\\top\}?))?")


def matrices(text: str) -> list[tuple[str, list[list[tuple[str, int]]]]]:
    """(label, rows of (number, offset)) of each bracket matrix of two rows at least."""
    from .human import NUM_RE

    lines = text.split("\n")
    starts = np.cumsum([0] + [len(ln) + 1 for ln in lines]).tolist()
    out = []
    for i, line in enumerate(lines):
        prev = 0
        tops = [m.start() for m in re.finditer(_TL, line)]
        # a matrix ends where the next one beside it begins: each row's close is searched up to there (the last
        # matrix's, to its row's end), so a line of many tops and one far close is read once, not once a top
        for c, beside in zip(tops, tops[1:] + [None]):
            close = line.find(_TR, c, beside)
            if close < 0:
                continue
            rows, k, end = [], i, close
            while True:
                seg = lines[k][c + 1:end]
                rows.append([(n.group(), starts[k] + c + 1 + n.start()) for n in NUM_RE.finditer(seg)])
                if k > i and lines[k][c] == _BL:
                    break
                k += 1
                if k >= len(lines) or len(lines[k]) <= c or lines[k][c] not in (_ML, _BL):
                    rows = []
                    break
                end = lines[k].find(_MR if lines[k][c] == _ML else _BR, c, beside)
                if end < 0:
                    rows = []
                    break
            label = line[prev:c]
            if not re.search(r"[A-Za-z√]", label) and i > 0:  # the line above names it, at its columns
                label = lines[i - 1][c:close + 1]
            prev = close + 1
            if len(rows) >= 2 and rows[0] and all(len(r) == len(rows[0]) for r in rows):
                out.append((label, rows))
    return out


def _names(label: str) -> tuple[list[str], int | None]:
    """(the tensors the label names, in the order to try; its head, 0-based, or None)."""
    found = list(_NAME.finditer(label))
    # the name an "=" follows (``Kết quả O¹ =``, ``Q¹K¹ᵀ/√2 → softmax → A¹ =``: not the K of Kết, not Q¹K¹ᵀ), else
    # the first (``Q (2×4)`` above the matrix)
    k = next((k for k, f in enumerate(found) if label[f.end():].lstrip()[:1] in _NAMED_BY), 0)
    m = found[k] if found else None
    if m is None:
        return (["scores_scaled"] if any(w in label for w in SCALED_MARKS) else []), None
    head = index_int(m.group(2).translate(_SUPER)) - 1 if m.group(2) else None
    if m.group(3):  # Q¹K¹ᵀ: the scores
        return (["scores_scaled"] if any(w in label for w in SCALED_MARKS) else ["scores"]), head
    if k and found[k - 1].end() == m.start():  # a product written AB (``A¹V¹ =``): the tensor it makes, if known
        name = BRACKET_PRODUCTS.get(found[k - 1].group(1) + m.group(1))
        return (["out", "o"] if name == "out" else [name] if name else []), head
    name = BRACKET_LETTERS.get(m.group(1))
    if name is None:
        return [], head
    return (["out", "o"] if name == "out" else [name]), head


def _value(trace, name: str, head: int | None) -> np.ndarray | None:
    """The tensor as the matrix prints it: one head's, or every head side by side where no head is named."""
    from .human import _expected

    step = trace.steps.get(name)
    if step is None:
        return None
    if "head" not in step.axes:
        return None if head else _expected(trace, name, 0)
    if head is not None:
        return _expected(trace, name, head)
    heads = step.data.shape[step.axes.index("head")]
    parts = [_expected(trace, name, h) for h in range(heads)]
    return np.concatenate(parts, axis=-1) if all(p is not None and p.ndim == 2 for p in parts) else None


def bracket_matrices(text: str, trace, hits: dict, foreign: list) -> None:
    """Form: each matrix of ``matrices`` judged as the tensor its label names (the first of its shape), where no
    reader judged its numbers."""
    from .human import Cell, _judge

    if _TL not in text:
        return
    for label, rows in matrices(text):
        cells = [Cell(t, at) for r in rows for t, at in r]
        if any(c.start in hits for c in cells):
            continue
        names, head = _names(label)
        for name in names:
            want = _value(trace, name, head)
            if want is None or want.shape != (len(rows), len(rows[0])):
                continue
            res = _judge(cells, want, name if head is None else f"{name}[head {head + 1}]", text, sure=True)
            for c, hit in zip(cells, res or []):
                hits[c.start] = hit
            break
