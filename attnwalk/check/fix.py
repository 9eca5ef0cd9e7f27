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
    """Spans of the printed number ``text`` (sign included) in a raw line, ``−`` read as ``-``."""
    digits = text.lstrip("-")
    sign = r"[-−–]\s?" if text.startswith("-") else ""
    rx = re.compile(r"(?<![\w.])" + sign + re.escape(digits) + r"(?![\w]|\.\d)")
    return [m.span() for m in rx.finditer(line)]


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
        seen: dict[str, int] = {}
        for r in group:
            k = seen.get(r.text, 0)
            seen[r.text] = k + 1
            if r.status != "wrong" or r.fix is None:
                continue
            spans = _occurrences(view, r.text)
            if k >= len(spans):
                continue
            a, b = spans[k]
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
