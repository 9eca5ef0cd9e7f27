"""``check --fix`` / ``--diff``: the note with each wrong number replaced by the right one.

Only the characters of wrong numbers change, printed at the note's own precision; every other
byte stays. A fixed operand can change what a later claim should say (``exp(0.0873) = 1.0911``
after 0.0873 becomes 0.0872), so fixing repeats, labelled values first, until nothing is wrong.
"""

from __future__ import annotations

import re
from itertools import chain, zip_longest

from .url_latex import math_images

MAX_ROUNDS = 8
_BREAK = re.compile(r"(\r\n?|\n)")


def _occurrences(line: str, text: str) -> list[tuple[int, int]]:
    r"""Spans of the printed number ``text`` (sign included) in a raw line, ``−`` read as ``-``: where the regex
    ``(?<![\w.])[-−–]\s?DIGITS(?![\w]|\.\d)`` (no sign part for an unsigned text) matches, found with ``str.find``
    (a report's columns ask it of every number: compiling that regex per number cost more than checking the note)."""
    digits = text.lstrip("-")
    signed = text.startswith("-")
    n = len(digits)
    out = []
    i = 0
    while n and (j := line.find(digits, i)) >= 0:
        i = j + 1
        end = j + n
        after = line[end:end + 1]
        if after and (_word(after) or (after == "." and line[end + 1:end + 2].isdecimal())):
            continue
        start = j
        if signed:
            if j >= 1 and line[j - 1] in _SIGNS:
                start = j - 1
            elif j >= 2 and line[j - 1].isspace() and line[j - 2] in _SIGNS:
                start = j - 2
            else:
                continue
        if start and (_word(line[start - 1]) or line[start - 1] == "."):
            continue
        out.append((start, end))
        i = end
    return out


_SIGNS = "-−–"


def _word(c: str) -> bool:
    r"""``\w`` of Python's ``re`` for one character: Unicode letters and digits, and ``_``."""
    return c.isalnum() or c == "_"


def line_spans(line: str, texts: list[str]) -> list[tuple[int, int] | None]:
    """The span of each printed number of ``texts`` (a line's records, in reading order) in the raw ``line``.

    In order first: each number is the first occurrence of its text after the one before it, so a number the
    readers kept no record of (``Hàng 3`` before ``e^3``) or the digits inside another (the ``4`` of ``-4``, the
    ``2`` of ``2,7183``) is never taken for it. Where the records are not in the line's order, the k-th record of
    a text is its k-th occurrence (None past the last)."""
    found: dict[str, list[tuple[int, int]]] = {}
    out: list[tuple[int, int] | None] = []
    pos = 0
    for t in texts:
        spans = found[t] if t in found else found.setdefault(t, _occurrences(line, t))
        at = next((sp for sp in spans if sp[0] >= pos), None)
        if at is None:
            break
        out.append(at)
        pos = at[1]
    else:
        return out
    seen: dict[str, int] = {}
    out = []
    for t in texts:
        k = seen.get(t, 0)
        seen[t] = k + 1
        spans = found[t] if t in found else found.setdefault(t, _occurrences(line, t))
        out.append(spans[k] if k < len(spans) else None)
    return out


def apply_fixes(text: str, recs) -> str:
    """``text`` with the wrong numbers of ``recs`` (NumRec with a ``fix``) replaced in place."""
    parts = _BREAK.split(text)  # lines and their ends (LF, CRLF or CR, as the checker counted them): kept as they are
    lines, ends = parts[0::2], parts[1::2]
    by_line: dict[int, list] = {}
    for r in recs:
        by_line.setdefault(r.line, []).append(r)
    for ln, group in by_line.items():
        if not 1 <= ln <= len(lines):
            continue
        line = lines[ln - 1]
        view = math_images(line)  # a number in a formula's image link is found where check read it (url_latex)
        edits = []
        for r, span in zip(group, line_spans(view, [r.text for r in group])):
            if r.status != "wrong" or r.fix is None or span is None:
                continue
            a, b = span
            new = r.fix[0]
            if r.text.endswith("%") != new.endswith("%"):  # a percentage keeps its sign, whoever wrote the fix
                new = new + "%" if r.text.endswith("%") else new.rstrip("%")
            if line[a] in "−–" and new.startswith("-"):
                new = line[a] + new[1:]  # keep the note's own minus sign
            edits.append((a, b, new))
        for a, b, new in sorted(edits, reverse=True):
            line = line[:a] + new + line[b:]
        lines[ln - 1] = line
    return "".join(chain.from_iterable(zip_longest(lines, ends, fillvalue="")))


def fixed_text(text: str, check) -> str:
    """Fix ``text`` until ``check(text)`` (a Report) finds nothing wrong or nothing more can change."""
    for _ in range(MAX_ROUNDS):
        report = check(text)
        wrong = [r for r in report.wrong if r.fix is not None]
        if not wrong:
            break
        labelled = [r for r in wrong if r.fix[1] == "label"]
        chosen = {id(r) for r in (labelled or wrong)}
        recs = [r for r in report.recs if r.status != "wrong" or id(r) in chosen]
        new = apply_fixes(text, recs)
        if new == text:
            break
        text = new
    return text


def left_note(after, fix: str) -> list[tuple[int, str]]:
    """The remark for wrong numbers that ``--fix`` / ``--diff`` leaves as they are (``after``: the report of the
    fixed text), so that an author is told they need a hand: check has no single value to write in their place
    (an exponent printed as an integer, a number of a claim it cannot redo); none when nothing is left."""
    wrong = after.wrong
    if not wrong:
        return []
    lines = sorted({r.line for r in wrong})
    where = ", ".join(map(str, lines[:8])) + (", …" if len(lines) > 8 else "")
    what = "--fix left" if fix == "write" else "--diff leaves"
    return [(lines[0], f"{what} {len(wrong)} wrong number(s) as they are (line(s) {where}): check has no single "
                       "value to write in their place; correct them by hand")]


_PATCH_LINE = re.compile(r"[^\n]*\n|[^\n]+\Z")  # a line as patch and git apply count them: up to LF only


def unified_diff(old: str, new: str, path) -> str:
    """The unified diff of ``old`` to ``new`` as ``patch`` and ``git apply`` read it: lines end at LF only (a CR,
    form feed or U+2028 inside a line is part of it, as those tools take it), and a last line without its LF is
    followed by ``\\ No newline at end of file`` (without it the next line of the diff ran into it)."""
    import difflib

    out = []
    for line in difflib.unified_diff(_PATCH_LINE.findall(old), _PATCH_LINE.findall(new), f"a/{path}", f"b/{path}"):
        out.append(line)
        if not line.endswith("\n"):
            out.append("\n\\ No newline at end of file\n")
    return "".join(out)
