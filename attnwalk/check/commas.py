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
MIN_COMMA_DECIMALS = 3  # a note of decimal commas prints several (one ``0,95`` is settled by notations.settle)


def as_points(body: str) -> tuple[str, dict[int, set[str]]]:
    """(``body`` read with decimal points, the printed numbers changed per line as read: ``{30: {"0.7071"}}``);
    ``body`` itself and ``{}`` where the note is not written with decimal commas."""
    if "," not in body or _POINT_DECIMAL.search(body):  # (most notes: a decimal point, found at once)
        return body, {}
    found = list(_COMMA_DECIMAL.finditer(body))
    if len(found) < MIN_COMMA_DECIMALS:
        return body, {}
    chars = list(body)
    changed: dict[int, set[str]] = {}
    line, at = 1, 0
    for m in found:
        chars[m.start(2) - 1] = "."
        line, at = line + body.count("\n", at, m.start()), m.start()  # (counted once over the note)
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
