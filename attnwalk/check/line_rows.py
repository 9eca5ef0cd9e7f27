"""Rows numbered on one line under one tensor's name, judged together: a flash card's ``Head 2, scaled scores: row 1 =
[0.0000, 1.0000], row 2 = [0.5000, 1.0000]``, ``the output of the layer?  token 1: [..]<br>token 2: [..]`` (heldout14's
Anki deck). Each row alone is two or four numbers, too few for the reader's "most agree" gate, so a card whose rows
are mostly wrong stayed unread; the card names its head, its tensor and each row, so its rows are judged as one
matrix (``token_words._judge_rows``: as the tensor of that name they agree with most, a wholly wrong matrix wrong
where the name is one tensor's). Rows are numbered from 1, unless the note names a row 0 with the same word
(``check.numbered_rows``).
"""

from __future__ import annotations

import re
from bisect import bisect_right

from ..notation import LINE_ROW_WORDS
from .numbered_rows import _FOLD_ODD  # letters re folds onto a word's letter where str.lower() does not

_NUM = r"[-−–]?\d+(?:\.\d+)?"
_ROW = re.compile(r"(?i)(?<![\w])(?P<w>" + "|".join(map(re.escape, LINE_ROW_WORDS)) + r")[ \t]*(?P<k>\d{1,3})[ \t]*"
                  r"[=:][ \t]*\[(?P<body>[ \t]*" + _NUM + r"(?:[ \t]*,[ \t]*" + _NUM + r")+[ \t]*)\]")
_ZERO = re.compile(r"(?i)(?<![\w])(" + "|".join(map(re.escape, LINE_ROW_WORDS)) + r")[ \t]*0[ \t]*[=:]")


def _matches(text: str, low: str) -> list:
    """``_ROW``'s matches in order, each tried only where a row word stands in the lowered note (``human.lowered``): a
    case-insensitive alternation tried at every offset cost ~2 ms a 70 kB note. The whole pattern where lowering
    moves offsets or folds letters otherwise than re does."""
    if len(low) != len(text) or any(c in text for c in _FOLD_ODD):
        return list(_ROW.finditer(text))
    at = sorted(i for w in LINE_ROW_WORDS for i in _finds(low, w))
    return [m for i in at if (m := _ROW.match(text, i)) is not None]


def _finds(low: str, word: str):
    """Every offset of ``word`` in ``low``."""
    at = low.find(word)
    while at >= 0:
        yield at
        at = low.find(word, at + 1)


def line_rows(text: str, trace, hits: dict, foreign: list) -> None:
    """Form: a line holding two or more ``row k = [..]`` (``LINE_ROW_WORDS``), the words before the first naming one
    tensor: its rows judged together as that tensor's rows k (head of their place), verdicts written where no reader
    judged the number."""
    if "[" not in text:
        return
    from . import human
    from .forms import in_any
    from .token_words import _judge_rows

    found: dict[int, list] = {}  # line start -> its rows' matches
    starts = human._line_starts(text)
    for m in _matches(text, human.lowered(text)):
        found.setdefault(starts[bisect_right(starts, m.start()) - 1], []).append(m)
    found = {at: ms for at, ms in found.items() if len(ms) >= 2}
    if not found:
        return
    zeros = {w.lower() for w in _ZERO.findall(text)}
    for at, ms in found.items():
        label = text[at:ms[0].start()]
        names = human.tensors_of(label)
        # a word inside a kin's words names the kin alone: "scaled scores" holds "scores", a tensor it widens to
        names = [n for n in names if not any(m != n and m in human._candidates(n, trace) for m in names)]
        if len(names) != 1 or len({m.group("w").lower() for m in ms}) != 1:
            continue
        groups = []
        for m in ms:
            cells = human._cells(m.group("body").replace(",", " "), m.start("body"))
            row = int(m.group("k")) - (m.group("w").lower() not in zeros)
            if not cells or row < 0:
                groups = []
                break
            groups.append((cells, row))
        if not groups or all(c.start in hits for cs, _ in groups for c in cs):
            continue
        # judged together with the line's rows another reader judged (a right row read alone): only the others written
        joint: dict = {}
        _judge_rows(text, trace, joint, label, groups, not in_any(at, foreign), names)
        for start, h in joint.items():
            hits.setdefault(start, h)
