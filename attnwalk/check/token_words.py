"""Rows named by token words a note declares itself (heldout15's Viblo blog), where the config names no tokens:

- the declaration: ``Câu ví dụ có 4 token: *Tôi*, *yêu*, *Hà*, *Nội*``, ``3 tokens: "I", "love", "cats"``: a count
  (``notation.DECLARED_TOKEN_WORDS`` after it, then a colon) and as many distinct words, in order, as the trace has
  query rows: word i names row i;
- a row: one of those words (bare, ``*italic*``, ``**bold**`` or quoted) at a line's or list item's start or after
  ``:``, ``;`` or ``,`` (``hàng``/``row`` may stand before it), then ``:`` or ``=`` and exactly one number per key,
  each bare or bold (``- *Tôi*: **0.2863**, **0.1412**, ..``, ``từng hàng: Tôi = 1, 0, 1, 1; yêu = 1, 2, 0, -1``);
- its tensor: named before the first row on its line (``ma trận điểm QK^T, từng hàng:``), else on the nearest line
  above, up to the heading above, that names one (``- Trọng số: ..`` over ``- *Tôi*: ..``). Rows on consecutive
  lines under one name are judged together, as the tensor of that word they agree with most (a word widened to a
  kin, ``scores`` to the scaled ones, only where most numbers agree: ``human.best_reading``), head of their place;
- a worked row: ``Lấy hàng của token *yêu* làm ví dụ:`` (a row word, ``của``/``of``, ``token`` maybe, a declared word)
  then the list right below it (one blank line may stand between): an item ``- Trọng số: **0.2657**, ..`` whose
  label names one tensor and that prints one number per key, nothing else, is that token's row of that tensor.

``note_tokens`` gives other readers the note's own words for its tokens where its config names none: those it
declares, else a square table's row and column names (``check.own_weights``: ``"mèo" dành 57.61% sự chú ý cho chính
nó`` under a table of the weights whose rows and columns are Tôi, yêu, mèo).
"""

from __future__ import annotations

import re

from ..notation import DECLARED_TOKEN_ANDS, DECLARED_TOKEN_LINKS, DECLARED_TOKEN_ROW_WORDS, DECLARED_TOKEN_WORDS

_ALT = "|".join
_WORD = r"[^\W\d_][\w'-]{0,19}"
_ITEM = r"(?:\*{1,2}|[\"“'])?(?P<w>" + _WORD + r")(?:\*{1,2}|[\"”'])?"
_COUNT_BEFORE = re.compile(r"(?<![\w.])(?P<n>\d{1,4})[ \t]+$")  # the count just before a declaring word
_COLON_AFTER = re.compile(r"[ \t]*[:：][ \t]*")  # and the colon just after it
_ITEM_RX = re.compile(r"[ \t]*" + _ITEM + r"[ \t]*(?:,|;|$|[ \t]+(?:" + _ALT(map(re.escape, DECLARED_TOKEN_ANDS))
                     + r")\b|\.(?:[ \t]|$))")
_NUM = r"\*{0,2}[-−–]?\d+(?:\.\d+)?\*{0,2}"
_ROW_WORD = _ALT(map(re.escape, DECLARED_TOKEN_ROW_WORDS))
NUMBER = re.compile(r"[-−–]?\d+(?:\.\d+)?")


def declared(text: str, n: int) -> list[str] | None:
    """The token words the note declares, in order: the first declaration whose count is ``n`` and that lists ``n``
    distinct words; None where there is none. Found from each declaring word of the lowered note (``human.lowered``),
    not by a pattern led by a digit, tried at every number of a long note."""
    from .human import lowered

    low = lowered(text)
    if len(low) != len(text):
        return None  # (lowering moved offsets: no declaration read)
    found = []
    for w in DECLARED_TOKEN_WORDS:
        at = low.find(w)
        while at >= 0:
            end = at + len(w)
            while end < len(text) and text[end] in " \t":
                end += 1
            if end < len(text) and text[end] in ":：":  # (a colon first: the common word's common case, no regex)
                count = _COUNT_BEFORE.search(text, max(0, at - 12), at)
                if count is not None and int(count.group("n")) == n:
                    found.append((at, _COLON_AFTER.match(text, end).end()))
            at = low.find(w, at + 1)
    end = -1
    for _, start in sorted(found):
        if start > end:  # (the line's end found once a line and passed as the match's end: no copy of its rest)
            end = text.find("\n", start)
            end = len(text) if end < 0 else end
        items, at = [], start
        while len(items) < n:
            it = _ITEM_RX.match(text, at, end)
            if it is None or it.end() == at:
                break
            items.append(it.group("w"))
            at = it.end()
        if len(items) == n and len(set(items)) == n:
            return items
    return None


_TABLE_NAME = re.compile(r"[*_`$ \t]*(?P<w>" + _WORD + r")[*_`$ \t]*")
_RULE_ROW = re.compile(r"^[ \t]*\|?[ \t]*:?-{3,}:?[ \t]*(?:\|[ \t]*:?-{3,}:?[ \t]*)+\|?[ \t]*$")


def tabled(text: str, n: int) -> list[str] | None:
    """The token words of a square table the note prints (the lecture's ``| $\\alpha_{ij}$ | Tôi | yêu | mèo |`` over
    rows ``| **Tôi** | ..``): a Markdown table whose header's cells after the first and its ``n`` rows' first cells
    are the same ``n`` distinct words in the same order (a query's word names its row and its key's column); the
    first such table's, else None."""
    if "|" not in text:
        return None
    lines = text.split("\n")
    for i in range(len(lines) - n - 1):
        head = lines[i]
        if head.count("|") < n + 1 or not _RULE_ROW.match(lines[i + 1]):
            continue
        words = _names(head.strip().strip("|").split("|")[1:])
        if words is None or len(words) != n or len(set(words)) != n:
            continue
        firsts = [_names(line.strip().strip("|").split("|")[:1]) for line in lines[i + 2:i + 2 + n]]
        if all(f is not None and f[0] == w for f, w in zip(firsts, words)):
            return words
    return None


def _names(cells: list[str]) -> list[str] | None:
    """Each cell's one word (its emphasis, code or math marks dropped), or None where a cell is no word."""
    out = []
    for c in cells:
        m = _TABLE_NAME.fullmatch(c)
        if m is None:
            return None
        out.append(m.group("w"))
    return out


def note_tokens(text: str, n: int) -> list[str] | None:
    """The note's own token words where its config names none: those it declares (``declared``), else a square
    table's row and column names (``tabled``)."""
    return declared(text, n) or tabled(text, n)


def _word(words: list[str]) -> str:
    """One of the declared ``words`` (the longest first), bare, ``*italic*``, ``**bold**`` or quoted: group ``w``."""
    return r"(?:\*{1,2}|[\"“'])?(?P<w>" + _ALT(map(re.escape, sorted(words, key=len, reverse=True))) + \
        r")(?:\*{1,2}|[\"”'])?"


def _rows_rx(words: list[str], keys: int) -> re.Pattern:
    """A row named by one of ``words``: the word at a line's or item's start or after ``:;,``, then ``:``/``=`` and
    exactly ``keys`` numbers, joined by commas, that nothing numeric goes on after."""
    word = _word(words)
    body = _NUM + r"(?:[ \t]*,[ \t]*" + _NUM + r"){" + str(keys - 1) + "}"
    return re.compile(r"(?im)(?:^[ \t>]*(?:[-*+][ \t]+)?|[:;,][ \t]*)(?:(?:" + _ROW_WORD + r")[ \t]+)?" + word
                      + r"[ \t]*[:=][ \t]*(?P<body>" + body + r")(?![ \t]*,[ \t]*\*{0,2}[-−–]?\d|[\w.]|\*{0,2}\d)")


def declared_rows(text: str, trace, hits: dict, foreign: list) -> None:
    """Form: rows named by the note's declared token words (module doc), judged where no reader judged them."""
    from . import human
    from .forms import in_any

    cfg = trace.config
    if cfg.get("labels") or cfg.get("kv_labels"):
        return
    attn = human._expected(trace, "attn", 0)
    if attn is None or attn.ndim != 2:
        return
    words = declared(text, attn.shape[0])
    if words is None:
        return
    starts = human._line_starts(text)
    lines = text.split("\n")
    groups: list[list] = []  # [label, last line, [(cells, row)]]
    labels: dict[int, str | None] = {}  # line -> the label of its rows (the words before its first row)
    for m in _rows_rx(words, attn.shape[1]).finditer(text):
        body = m.group("body")
        cells = [human.Cell(x.group(), m.start("body") + x.start()) for x in NUMBER.finditer(body)]
        if any(c.start in hits for c in cells):
            continue
        line = human.line_of(text, m.start("w"))
        if line not in labels:
            labels[line] = _label(lines, line, text[starts[line - 1]:m.start("w")])
        label = labels[line]
        if label is None:
            continue
        if groups and groups[-1][0] == label and groups[-1][1] in (line, line - 1):
            groups[-1][1] = line
            groups[-1][2].append((cells, words.index(m.group("w"))))
        else:
            groups.append([label, line, [(cells, words.index(m.group("w")))]])
    for label, _, rows in groups:
        _judge_rows(text, trace, hits, label, rows, not in_any(rows[0][0][0].start, foreign))
    _worked_rows(text, trace, hits, foreign, words, attn.shape[1], starts, lines)


def _worked_rows(text: str, trace, hits: dict, foreign: list, words: list[str], keys: int, starts: list,
                 lines: list[str]) -> None:
    """The worked row's list items (module doc): each judged as its label's tensor, row of the word named above."""
    from . import human
    from .forms import in_any

    word = _word(words) + r"(?![\w])"
    named = re.compile(r"(?i)(?<![\w])(?:" + _ROW_WORD + r")[ \t]+(?:(?:" + _ALT(map(re.escape, DECLARED_TOKEN_LINKS))
                       + r")[ \t]+)?(?:(?:" + _ALT(map(re.escape, DECLARED_TOKEN_WORDS)) + r")[ \t]+)?" + word)
    item = re.compile(r"[ \t]*[-*+][ \t]+(?P<label>[^:\n]{1,40}):[ \t]*(?P<body>" + _NUM + r"(?:[ \t]*,[ \t]*"
                      + _NUM + r"){" + str(keys - 1) + r"})[ \t.]*$")
    walked = set()  # (line, word): the same word named again on its line finds the same items, judged already
    for m in named.finditer(text):
        k = human.line_of(text, m.start())  # the items start on line k + 1 (1-based), or k + 2 after a blank
        if (k, m.group("w")) in walked:
            continue
        walked.add((k, m.group("w")))
        if k < len(lines) and not lines[k].strip():
            k += 1
        while k < len(lines) and re.match(r"[ \t]*[-*+][ \t]", lines[k]):
            it = item.match(lines[k])
            if it is not None and len(human.tensors_of(it.group("label"))) == 1:
                base = starts[k] + it.start("body")
                cells = [human.Cell(x.group(), base + x.start()) for x in NUMBER.finditer(it.group("body"))]
                if not any(c.start in hits for c in cells):
                    _judge_rows(text, trace, hits, it.group("label"), [(cells, words.index(m.group("w")))],
                                not in_any(cells[0].start, foreign))
            k += 1


def _label(lines: list[str], line: int, before: str) -> str | None:
    """The words naming the tensor of a row on ``line`` (1-based) whose line holds ``before`` before its word: those
    words where they name one, else the nearest line above (up to a heading, which counts) that names one."""
    from . import human

    if human.tensors_of(before):
        return before
    for k in range(line - 2, max(line - 14, -1), -1):
        above = lines[k]
        if human.tensors_of(above):
            return above
        if above.lstrip().startswith("#"):
            break
    return None


def _judge_rows(text: str, trace, hits: dict, label: str, rows: list, trusted: bool, names: list | None = None) -> None:
    """Judge ``rows`` ((cells, row index)) together as the tensor ``label`` names (or ``names``, where the caller
    read them) they agree with most."""
    import numpy as np

    from . import human

    names = human.tensors_of(label) if names is None else names
    if len(names) != 1:
        return
    cells = [c for cs, _ in rows for c in cs]
    head = human.head_at(text, cells[0].start)
    shaped = []
    for cand in human._candidates(names[0], trace):
        exp = human._expected(trace, cand, head)
        if exp is None or exp.ndim != 2 or any(i >= exp.shape[0] or exp.shape[1] != len(cs) for cs, i in rows):
            continue
        shaped.append((cand, np.concatenate([exp[i] for _, i in rows])))
    res = human.best_reading(cells, shaped, names, text, sure=trusted)
    for c, h in zip(cells, res or []):
        hits[c.start] = h
