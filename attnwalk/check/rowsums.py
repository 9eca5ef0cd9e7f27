"""Every row's sum of e^ŝ stated in one list in prose: ``The row sums are 14.867, 5.563, 13.779 and 5.563``,
``the rows sum to 9.2265, 7.1414 and 10.2456`` (a phrase of ``notation.ROW_SUM_PHRASES``, then as many numbers as the
weights have rows, joined by commas, semicolons or "and"). Such a list was read by no reader (heldout13's Julia
session and R page): each number is the sum of its row's e^ŝ, no row maximum subtracted, as a hand sum is.
"""

from __future__ import annotations

import re

from ..notation import ROW_SUM_AND_MARKS, ROW_SUM_AND_WORDS, ROW_SUM_PHRASES, ROW_SUM_SEPARATORS

_NUMBER = r"(?<![\w.])\d+(?:\.\d+)?(?![\w.]\d|\d)"
_AND = "|".join(map(re.escape, ROW_SUM_AND_WORDS))
_MARKS = "|".join(map(re.escape, ROW_SUM_AND_MARKS))
_ALONE = "|".join(map(re.escape, ROW_SUM_AND_MARKS + ROW_SUM_SEPARATORS))
_JOIN = r"(?:\s*[,;]\s*(?:(?:" + _AND + r")\s+|" + _MARKS + r")?|\s+(?:" + _AND + r")\s+|" + _ALONE + r")"
_LIST = re.compile(r"(?i)(?:" + "|".join(re.escape(p) for p in sorted(ROW_SUM_PHRASES, key=len, reverse=True))
                   + r")[ \t]*\$?[ \t]*(?P<list>" + _NUMBER + r"(?:" + _JOIN + _NUMBER + r")+)")


def stated_row_sums(text: str) -> list[list[tuple[str, int]]]:
    """The numbers of each list of ``_LIST`` in ``text``, as (printed, offset)."""
    out = []
    for m in _LIST.finditer(text):
        out.append([(n.group(), m.start("list") + n.start()) for n in re.finditer(_NUMBER, m.group("list"))])
    return out


def _agree(nums: list[tuple[str, int]], values) -> int:
    """How many of ``nums`` round their value of ``values``."""
    from .human import _near, _value

    return sum(_near(*_value(t), float(v), 0.0) for (t, _), v in zip(nums, values))


def row_sum_lists(text: str, trace, hits: dict, foreign: list) -> None:
    """Form: each list of ``stated_row_sums`` as long as the weights have rows, judged as the rows' sums of e^ŝ
    (head 0) where no reader judged its numbers; a list that agrees with the weights' sums (each 1) more, as those."""
    from .human import Cell, _judge, lowered
    from .sheets import _expected

    low = lowered(text)
    if not any(p in low for p in ROW_SUM_PHRASES):
        return
    e = _expected(trace, "exp")
    if e is None or e.ndim != 2:
        return
    sums = e.sum(-1)
    w = _expected(trace, "attn")
    ones = w.sum(-1) if w is not None and w.shape == e.shape else None  # the weights' rows' sums: 1 (float64)
    for nums in stated_row_sums(text):
        if len(nums) != len(sums) or any(at in hits for _, at in nums):
            continue
        cells = [Cell(t, at) for t, at in nums]
        if ones is not None and _agree(nums, ones) > _agree(nums, sums):
            # ``the rows sum to 1.000, 1.000 and 1.000``: the weights' sums, not e^ŝ's (called wrong before)
            res = _judge(cells, ones, "row sums of the weights", text, sure=True)
        else:
            res = _judge(cells, sums, "row sums of e^ŝ", text, sure=True)
        for (_, at), hit in zip(nums, res or []):
            hits[at] = hit
