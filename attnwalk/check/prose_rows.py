"""Rows of a tensor restated in prose (heldout15's Keras page restating its prints), no reader took:

- every row listed in order after the tensor's word: ``the outputs are [0.9558, 1.4462, 0.4705], [0.9389, 1.4788,
  0.4431] and [1.0678, 1.2142, 0.6236]``, a vector per row, as many as the tensor has rows and each as long as one,
  joined by commas or "and": row i is the i-th vector (a numbered row needs its number: check.numbered_rows);
- one query's weights split by slashes after a verb of attending (``notation.ATTENDS_VERBS``): ``token 3 attends
  0.4176 / 0.2802 / 0.3005``, the query numbered as ``numbered_rows`` numbers its rows (from 1, unless a row 0 is
  named with the same word).
"""

from __future__ import annotations

import re

from ..notation import ATTENDS_VERBS, PROSE_ROWS_VERBS, ROW_SUM_AND_WORDS
from .indices import index_int
from .numbered_rows import _ROW

_ALT = "|".join
_NUM = r"[-−–]?\d+(?:\.\d+)?"
_VEC = r"[\[(][ \t]*" + _NUM + r"(?:[ \t]*,[ \t]*" + _NUM + r")+[ \t]*[\])]"
_AND = _ALT(ROW_SUM_AND_WORDS)
_JOIN = r"(?:[ \t]*,[ \t]*(?:(?:" + _AND + r")[ \t]+)?|[ \t]+(?:" + _AND + r")[ \t]+)"
_LIST = re.compile(r"(?i)(?<![\w])(?P<words>[A-Za-zÀ-ỹ][A-Za-zÀ-ỹ ]{0,28}?)[ \t]+(?:"
                   + _ALT(map(re.escape, sorted(PROSE_ROWS_VERBS, key=len, reverse=True)))
                   + r")[ \t]*(?P<vecs>" + _VEC + r"(?:" + _JOIN + _VEC + r")+)")
_ONE = re.compile(_VEC)
_SLASHED = re.compile(r"(?i)(?<!\w)" + _ROW + r"[ \t]+(?:" + _ALT(map(re.escape, ATTENDS_VERBS)) + r")[ \t]+(?P<body>"
                      + _NUM + r"(?:[ \t]*\n?[ \t]*/[ \t]*\n?[ \t]*" + _NUM + r")+)(?![\w.]\d|\d)")


def prose_rows(text: str, trace, hits: dict, foreign: list) -> None:
    """Form: each match of ``_LIST`` whose words name one tensor (``human.tensors_of``: the output or the weights), its
    vectors as many as that tensor's rows (two at least) and each as long as a row, judged row by row (head of its
    place), where no reader judged them."""
    from . import human
    from .forms import in_any

    if "/" in text and any(v in human.lowered(text) for v in ATTENDS_VERBS):  # (a verb first: most notes have none)
        _slashed_rows(text, trace, hits, foreign)
    for m in _lists(text, human.lowered(text)):
        names = human.tensors_of(m.group("words"))
        if len(names) != 1 or names[0] not in ("out", "attn"):
            continue
        exp = human._expected(trace, names[0], human.head_at(text, m.start()))
        vecs = list(_ONE.finditer(text, m.start("vecs"), m.end("vecs")))
        if exp is None or exp.ndim != 2 or len(vecs) != exp.shape[0]:
            continue
        rows = [human._cells(v.group()[1:-1].replace(",", " "), v.start() + 1) for v in vecs]
        if any(not cells or len(cells) != exp.shape[1] or any(c.start in hits for c in cells) for cells in rows):
            continue
        for i, cells in enumerate(rows):
            res = human._judge(cells, exp[i], f"{names[0]}[{i}]", text, gated=in_any(m.start(), foreign))
            for c, h in zip(cells, res or []):
                hits[c.start] = h


def _lists(text: str, low: str):
    """``_LIST``'s matches, searched only on the lines holding one of its verbs between blanks and two vectors joined
    (a note's matrices print ``], [`` on many lines: the pattern over all of them cost ~20 ms on a 16x16 note)."""
    if len(low) != len(text):  # (lowering moved offsets: İ; the pattern over the whole text)
        yield from _LIST.finditer(text)
        return
    spans: set = set()
    for verb in PROSE_ROWS_VERBS:
        at = low.find(f" {verb} ")
        while at >= 0:
            spans.add((text.rfind("\n", 0, at) + 1, text.find("\n", at) % (len(text) + 1)))
            at = low.find(f" {verb} ", at + 1)
    for ls, le in sorted(spans):
        line = text[ls:le]
        if any(j in line for j in _JOINS):
            yield from _LIST.finditer(text, ls, le)


_JOINS = ("], [", "),(", "), (", "],[") + tuple(f"{c} {w} {o}" for w in ROW_SUM_AND_WORDS for c, o in ("][", ")("))


def _slashed_rows(text: str, trace, hits: dict, foreign: list) -> None:
    """``token 3 attends 0.4176 / 0.2802 / 0.3005``: the weights of that query (head of its place), where no reader
    judged them and the numbers are as many as a row's."""
    from . import human
    from .forms import in_any
    from .numbered_rows import row_lines, zero_words

    lines = row_lines(text, human.lowered(text))  # (every match opens with a row word and its number, on such a line)
    found = []
    for ls, le in lines:  # (a line's list may go on past its end: searched to the next line's end)
        nxt = text.find("\n", le + 1)
        found += [m for m in _SLASHED.finditer(text, ls, len(text) if nxt < 0 else nxt) if m.start() < le]
    if not found:
        return
    zeros = zero_words(text, lines)
    for m in found:
        exp = human._expected(trace, "attn", human.head_at(text, m.start()))
        row = index_int(m.group("k")) - (m.group("w").lower() not in zeros)
        cells = human._cells(re.sub(r"[/\n]", " ", m.group("body")), m.start("body"))
        if exp is None or exp.ndim != 2 or not 0 <= row < exp.shape[0] or not cells or len(cells) != exp.shape[1] \
                or any(c.start in hits for c in cells):
            continue
        res = human._judge(cells, exp[row], f"attn[{row}]", text, gated=in_any(m.start(), foreign))
        for c, h in zip(cells, res or []):
            hits[c.start] = h
