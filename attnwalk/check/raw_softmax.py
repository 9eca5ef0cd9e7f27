"""The softmax of a raw score row named in prose: ``nếu tính tay từ hàng điểm `[2, 0.5, 2]` thì softmax cho `[0.4498,
0.1004, 0.4498]``` (heldout15's Jupyter notebook): the first list prints row r of the raw scores QKᵀ (and no row of the
scaled ones), the second, after the word softmax on the same line, is a distribution as long. In a note whose
attention scales its scores, the weights of query r are the softmax of that row divided by √d_k: the second list is
judged as attn[r] (the row known from the printed scores, whatever its values), the first as scores[r]. An explicit
call ``softmax([2, 0.5, 2]) = [..]`` stays arithmetic of its printed argument (``notations.softmax_calls``), and a
line that shows the unscaled softmax on purpose (``notation.UNSCALED_WORDS`` on it or the two lines above) is left
as it is, as ``check.unscaled`` leaves its exponentials.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right

from ..notation import UNSCALED_WORDS

_NUM = r"[-−–]?\d+(?:\.\d+)?"
_LIST = re.compile(r"\[(?P<body>[ \t]*" + _NUM + r"(?:[ \t]*,[ \t]*" + _NUM + r")+[ \t]*)\]")
_SOFTMAX = re.compile(r"(?i)softmax")


def _softmaxes(text: str, low: str) -> list:
    """The word softmax in any case, each tried where the lowered note (``human.lowered``) holds it (a case-insensitive
    pattern over a 70 kB note cost ~0.5 ms); the pattern itself where lowering moves offsets."""
    if len(low) != len(text):
        return list(_SOFTMAX.finditer(text))
    found, at = [], low.find("softmax")
    while at >= 0:
        if (m := _SOFTMAX.match(text, at)) is not None:
            found.append(m)
        at = low.find("softmax", at + 1)
    return found


def raw_softmax(text: str, trace, hits: dict, foreign: list) -> None:
    """Form: on one line, a list printing a raw score row, then ``softmax``, then a distribution as long (module
    doc), where no reader judged their numbers."""
    scale = trace.derived.get("scale")
    if scale is None or float(scale) == 1.0:
        return
    from . import human

    if "softmax" not in human.lowered(text):
        return
    from .unscaled import _prints_a_row, _raw_row

    starts = human._line_starts(text)
    lines: dict[int, tuple] = {}  # a line's index -> its lists, their starts, ends, whether it says unscaled
    for sm in _softmaxes(text, human.lowered(text)):
        if (sm.start() and text[sm.start() - 1] in "_.") or text[sm.end():sm.end() + 1] in ("(", "_"):
            continue  # a call (its list is its argument: notations.softmax_calls) or a name in code
        k = bisect_right(starts, sm.start()) - 1
        if k not in lines:
            le = starts[k + 1] - 1 if k + 1 < len(starts) else len(text)
            found = list(_LIST.finditer(text, starts[k], le))
            context = text[starts[max(k - 2, 0)]:le].lower()
            lines[k] = (found, [m.start() for m in found], [m.end() for m in found],
                        any(w in context for w in UNSCALED_WORDS))
        found, firsts, ends, unscaled = lines[k]
        i, j = bisect_right(ends, sm.start()), bisect_left(firsts, sm.end())
        if i == 0 or j == len(found) or unscaled:
            continue
        before, after = found[i - 1], found[j]
        scores = human._cells(before.group("body").replace(",", " "), before.start("body"))
        weights = human._cells(after.group("body").replace(",", " "), after.start("body"))
        if not scores or not weights or len(scores) != len(weights) or any(c.start in hits for c in scores + weights) \
                or not human.sums_to_one([human._value(c.text) for c in weights]):
            continue
        head = human.head_at(text, sm.start())
        if any(_prints_a_row(scores, human._expected(trace, c, head)) for c in ("scores_scaled", "scores_masked")):
            continue  # the list is a row the softmax takes: arithmetic, another reader's
        r = _raw_row(scores, trace, head)
        raw, attn = human._expected(trace, "scores", head), human._expected(trace, "attn", head)
        if r is None or attn is None or attn.ndim != 2 or attn.shape[1] != len(weights):
            continue
        for cells, exp, label in ((scores, raw[r], f"scores[{r}]"), (weights, attn[r], f"attn[{r}]")):
            for c, h in zip(cells, human._judge(cells, exp, label, text, gated=False) or []):
                hits[c.start] = h
