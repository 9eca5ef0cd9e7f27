"""A note written with decimal commas throughout (``e^0,7071 ≈ 2,0281``, ``[0,2483; 0,2483; 0,5035]``): read as the
same note with decimal points and list commas, every offset kept, and its records given back the text it prints.

Why: the readers take ``0,7071`` for the list ``0, 7071`` (``notations.decimal_commas`` settles a lone one after the
fact, but a line of them is misread before: ``0,7071 ≈ 2,0281`` compared 7071 with 2). A note counts as written so only
when it prints several numbers with a decimal comma and none with a decimal point, so a list like ``[1,0]`` of any
other note is never touched.
"""

from __future__ import annotations

import re

from ..notation import LIST_SEPARATORS_WITH_DECIMAL_COMMAS

# ``0,7071``, ``20,0855``, ``-1,25``: digits, a comma, at least two digits, no space (``1, 0`` is a list)
_COMMA_DECIMAL = re.compile(r"(?<![\w.,])(\d+),(\d{2,})(?![\w,]|\.\d)")
_POINT_DECIMAL = re.compile(r"(?<![\w.])\d+\.\d+")
_ONE_DIGIT = re.compile(r"(?<![\w.,])(\d+),(\d)(?![\w,]|\.\d)")
_EXPONENT_MARKS = ("^", "^{", "exp(")
MIN_COMMA_DECIMALS = 3  # a note of decimal commas prints several (one ``0,95`` is settled by notations.settle)


def as_points(body: str) -> tuple[str, dict[int, set[str]]]:
    """(``body`` read with decimal points, the printed numbers changed per line as read: ``{30: {"0.7071"}}``);
    ``body`` itself and ``{}`` where the note is not written with decimal commas."""
    if "," not in body or _POINT_DECIMAL.search(body):  # (most notes: a decimal point, found at once)
        return body, {}
    found = list(_COMMA_DECIMAL.finditer(body))
    if len(found) < MIN_COMMA_DECIMALS:
        return body, {}
    # a one-digit decimal an exponent (``e^0,5``) or beside a semicolon that separates a list's items
    # (``[0,25; 0,5]``): there ``0,5`` is no list (``[1,0]``, ``Thời gian: 1,5`` may be one: left)
    ones = [m for m in _ONE_DIGIT.finditer(body) if _exponent_or_item(body, m.start(), m.end())]
    if ones:
        found = sorted(found + ones, key=lambda m: m.start())
    chars = list(body)
    changed: dict[int, set[str]] = {}
    for m, line in zip(found, _lines(body, [m.start() for m in found])):
        chars[m.start(2) - 1] = "."
        changed.setdefault(line, set()).add(f"{m.group(1)}.{m.group(2)}")
    depth = 0  # inside brackets a list separator is the comma it stands for (``[[1; 0]; [1; 1]]``)
    for i, ch in enumerate(chars):
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth = max(depth - 1, 0)
        elif ch == "\n":
            depth = 0
        elif depth and ch in LIST_SEPARATORS_WITH_DECIMAL_COMMAS:
            chars[i] = ","
    return "".join(chars), changed


def _exponent_or_item(body: str, start: int, end: int) -> bool:
    """Whether the number at ``start:end`` follows ``^`` (or ``^{``, ``exp(``) or has a semicolon beside it."""
    return (body[max(start - 4, 0):start].endswith(_EXPONENT_MARKS) or body[max(start - 2, 0):start].rstrip(" ")[-1:]
            == ";" or body[end:end + 2].lstrip(" ")[:1] == ";")


def _lines(body: str, positions: list[int]) -> list[int]:
    """The line (from 1) of each of ``positions``, in increasing order: the newlines counted once over the note."""
    out, line, at = [], 1, 0
    for pos in positions:
        line, at = line + body.count("\n", at, pos), pos
        out.append(line)
    return out


def as_printed(recs: list, changed: dict[int, set[str]]) -> list:
    """The records of numbers ``as_points`` changed, with the text the note prints (``0,7071``) and their fix and
    expected values written with a comma too, so that a report and ``--fix`` speak the note's notation."""
    if not changed:
        return recs
    for r in recs:
        nums = changed.get(r.line)
        if nums and r.text.lstrip("-−–").rstrip("%") in nums:
            r.text = r.text.replace(".", ",")
            r.checks = [(ok, lab, exp.replace(".", ",") if isinstance(exp, str) else exp) for ok, lab, exp in r.checks]
            if r.fix is not None:
                r.fix = (r.fix[0].replace(".", ","), *r.fix[1:])
    return recs
