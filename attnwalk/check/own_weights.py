"""A query's weight on its own key restated in prose: ``Token 2 puts 0.3747 of its weight on itself``, ``"mèo" dành
57.61% sự chú ý cho chính nó`` (heldout14's notebook and lecture): a number, then within the clause a word for the
weight (``notation.OWN_WEIGHT_WORDS``) and one for itself (``human.SELF_WORDS``), the query named before the number
in its sentence by its number (``token 2``, from 1) or a quoted token of the config: attn[q, q] of the head of its
place, judged whatever its value (a percentage as its fraction).
"""

from __future__ import annotations

import re

from ..notation import OWN_WEIGHT_WORDS
from .human import SELF_WORDS
from .numbered_rows import _ROW_AT as _TOKEN  # ``token 2``: a row word, then its number (groups w, k)

_CLAIM = re.compile(r"(?<![\w.])(?P<n>\d+(?:\.\d+)?)(?P<pct>\\?%)?(?P<gap>[^\n.;:()\[\]0-9]{1,40}?)(?P<self>"
                    + "|".join(map(re.escape, SELF_WORDS)) + r")(?!\w)")


def own_weights(text: str, trace, hits: dict, foreign: list) -> None:
    """Form: ``_CLAIM`` after a query named in its sentence, where no reader judged the number."""
    from . import human
    from .forms import in_any

    if not any(w in text for w in SELF_WORDS):
        return
    tokens = tuple(trace.config.get("labels") or ())
    for m in _CLAIM.finditer(text):
        gap = m.group("gap").lower()
        if m.start("n") in hits or not any(w in gap for w in OWN_WEIGHT_WORDS):
            continue
        start = max(text.rfind("\n", 0, m.start()), text.rfind(". ", 0, m.start())) + 1
        q = _query(text, start, m.start(), tokens)
        attn = human._expected(trace, "attn", human.head_at(text, m.start()))
        if q is None or attn is None or attn.ndim != 2 or not 0 <= q < min(attn.shape):
            continue
        printed = m.group("n") + ("%" if m.group("pct") else "")  # LaTeX's ``80.4\%`` a percentage too
        res = human._judge([human.Cell(printed, m.start("n"))], attn[q, [q]], f"attn[{q}, {q}]", text,
                           gated=in_any(m.start(), foreign))
        if res:
            hits[m.start("n")] = res[0]


def _query(text: str, a: int, b: int, tokens: tuple) -> int | None:
    """The one query named in ``text[a:b]``: ``token N`` (from 1) or one quoted token of the config; else None."""
    from .human import _QUOTED, lowered
    from .numbered_rows import row_lines, zero_words

    zeros = zero_words(text, row_lines(text, lowered(text))) if "0" in text else set()  # a note counting from 0
    numbered = {int(t.group("k")) - (t.group("w").lower() not in zeros) for t in _TOKEN.finditer(text, a, b)}
    quoted = {tokens.index(w) for t in _QUOTED.finditer(text, a, b) if (w := t.group("w")) in tokens}
    found = numbered | quoted
    return found.pop() if len(found) == 1 else None
