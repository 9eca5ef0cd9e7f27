"""One row of a tensor named in prose by its token's number and the tensor's word: ``Token 3's output is (0.599,
0.802)``, ``the output for token 2 is [1.14, 1.0, 0.5]``, ``đầu ra của token 2 là [..]``. Numbered from 1, unless the
note names a row 0 with the same word (``token 0``). The tensor and the row known from the words, the vector is judged
whatever its numbers (two numbers are too few for the reader's "most agree" gate); no reader read such prose
(heldout13's R page).
"""

from __future__ import annotations

import re

from ..notation import NUMBERED_ROW_LINKS, NUMBERED_ROW_VERBS, NUMBERED_ROW_WORDS
from .human import _memo
from .indices import index_int

_ALT = "|".join
_ROW = r"(?P<w>" + _ALT(map(re.escape, NUMBERED_ROW_WORDS)) + r")[ \t]+(?P<k>\d+)"
_VERB = r"[ \t]*(?:" + _ALT(map(re.escape, NUMBERED_ROW_VERBS)) + r")[ \t]*\$?[ \t]*(?:≈[ \t]*)?"
_NUM = r"[-−–]?\d+(?:\.\d+)?"
_VEC = r"(?P<open>[\[(])(?P<body>[ \t]*" + _NUM + r"(?:[ \t]*[,;][ \t]*" + _NUM + r")+[ \t]*)[\])]"
_WORDS = r"(?P<words>[A-Za-zÀ-ỹ][A-Za-zÀ-ỹ ]{0,28}?)"
# ``Token 3's output is (..)`` / ``the output for token 2 is [..]``
_FORMS = (re.compile(r"(?i)(?<!\w)" + _ROW + r"(?:'s|’s)?[ \t]+" + _WORDS + _VERB + _VEC),
          re.compile(r"(?i)(?<!\w)" + _WORDS + r"[ \t]+(?:" + _ALT(NUMBERED_ROW_LINKS) + r")[ \t]+(?:the[ \t]+)?"
                     + _ROW + _VERB + _VEC))
_ROW_AT = re.compile(r"(?i)(?<!\w)" + _ROW)  # where a line may hold a form: only those lines are searched
_ZERO = re.compile(r"(?i)(?<!\w)(" + _ALT(map(re.escape, NUMBERED_ROW_WORDS)) + r")[ \t]+0(?!\d)")
_WORD = re.compile(_ALT(map(re.escape, NUMBERED_ROW_WORDS)))  # searched in text.lower(), case by case
# letters re's IGNORECASE folds onto a word's letter where str.lower() does not (İ and ı onto i, ſ onto s)
_FOLD_ODD = "İıſ"


@_memo  # asked by the gate, the form and step_lists about one note: found once (callers build new lists from it)
def row_lines(text: str, low: str | None = None) -> list[tuple[int, int]]:
    """Spans (start, end) of the lines holding a match of ``_ROW_AT``, in order. A case-insensitive pattern behind a
    lookbehind is tried at every offset (~3 ms a 70 kB note): the words are found in ``text.lower()`` by a plain
    search and only their lines asked, unless lowering moves offsets or folds letters otherwise than re does."""
    low = text.lower() if low is None else low
    if len(low) != len(text) or any(c in text for c in _FOLD_ODD):
        starts = [m.start() for m in _ROW_AT.finditer(text)]
    else:
        starts = [m.start() for m in _WORD.finditer(low)]
    spans, le = [], -1
    for s in starts:  # in order: a start on the last span's line adds nothing, so each line is scanned once
        if s > le:
            ls, le = text.rfind("\n", 0, s) + 1, text.find("\n", s) % (len(text) + 1)
            spans.append((ls, le))
    return [sp for sp in spans if _ROW_AT.search(text, *sp)]


def zero_words(text: str, lines: list[tuple[int, int]]) -> set[str]:
    """The words that name a row 0 (``token 0``), lowered: rows named by such a word count from 0 (``position 0`` of
    a padding says nothing of how the note counts its tokens). A row 0 stands on one of ``row_lines``."""
    return {w.lower() for span in lines for w in _ZERO.findall(text, *span)}


def numbered_rows(text: str, trace, hits: dict, foreign: list) -> None:
    """Form: each match of ``_FORMS`` whose words name one tensor (``human.tensors_of``: the output or the weights)
    and whose vector is as long as a row of it, judged as that row (head of its place), where no reader judged it."""
    from . import human
    from .forms import in_any

    lines = row_lines(text, human.lowered(text))
    if not lines:
        return
    zeros = zero_words(text, lines)
    seen = set()
    for rx, (ls, le) in ((rx, span) for span in lines for rx in _FORMS):
        for m in rx.finditer(text, ls, le):
            if m.start("body") in seen:
                continue
            seen.add(m.start("body"))
            names = human.tensors_of(m.group("words"))
            if len(names) != 1 or names[0] not in ("out", "attn"):
                continue
            base = m.start("body")
            cells = human._cells(m.group("body").replace(",", " ").replace(";", " "), base)
            if not cells or any(c.start in hits for c in cells):
                continue
            exp = human._expected(trace, names[0], human.head_at(text, m.start()))
            row = index_int(m.group("k")) - (m.group("w").lower() not in zeros)
            if exp is None or exp.ndim != 2 or not 0 <= row < exp.shape[0] or exp.shape[1] != len(cells):
                continue
            res = human._judge(cells, exp[row], f"{names[0]}[{row}]", text, gated=in_any(m.start(), foreign))
            for c, h in zip(cells, res or []):
                hits[c.start] = h


# the gate (check.gates): every match of _FORMS holds _ROW, on one of row_lines, and a vector (_VEC) opening on the
# same line (no part of a form crosses a line)
_VEC_START = re.compile(r"[\[(][ \t]*" + _NUM + r"[ \t]*[,;][ \t]*[-−–]?\d")  # how every _VEC opens


def may_match(text: str) -> bool:
    """Gate of ``numbered_rows``: a vector of two numbers or more opens on one of ``row_lines`` (a row word, then a
    number). Without both on one line no form matches; ``row_lines`` is kept for the form and ``step_lists``."""
    from .human import lowered

    return any(_VEC_START.search(text, *span) is not None for span in row_lines(text, lowered(text)))
