"""A query's weight on its own key restated in prose: ``Token 2 puts 0.3747 of its weight on itself``, ``"mèo" dành
57.61% sự chú ý cho chính nó`` (heldout14's notebook and lecture): a number, then within the clause a word for the
weight (``notation.OWN_WEIGHT_WORDS``) and one for itself (``notation.SELF_WORDS``), the query named before the number
in its sentence by its number (``token 2``, from 1) or a quoted token of the config: attn[q, q] of the head of its
place, judged whatever its value (a percentage as its fraction).
"""

from __future__ import annotations

import re
from bisect import bisect_right

from ..notation import OWN_WEIGHT_WORDS, SELF_WORDS
from .indices import index_int
from .numbered_rows import _ROW_AT as _TOKEN  # ``token 2``: a row word, then its number (groups w, k)

_CLAIM = re.compile(r"(?<![\w.])(?P<n>\d+(?:\.\d+)?)(?P<pct>\\?%)?(?P<gap>[^\n.;:()\[\]0-9]{1,40}?)(?P<self>"
                    + "|".join(map(re.escape, SELF_WORDS)) + r")(?!\w)")


def own_weights(text: str, trace, hits: dict, foreign: list) -> None:
    """Form: ``_CLAIM`` after a query named in its sentence, where no reader judged the number."""
    from . import human
    from .forms import in_any

    if not any(w in text for w in SELF_WORDS):
        return
    labels = trace.config.get("labels")
    if not labels:  # the note's own words for its tokens (a declaration, a square table's names): check.token_words
        from .token_words import note_tokens

        first = human._expected(trace, "attn", 0)
        labels = note_tokens(text, first.shape[0]) if first is not None and first.ndim == 2 else None
    queries = _Queries(text, tuple(labels or ()))
    for m in _CLAIM.finditer(text):
        gap = m.group("gap").lower()
        if m.start("n") in hits or not any(w in gap for w in OWN_WEIGHT_WORDS):
            continue
        q = queries.before(m.start())
        attn = human._expected(trace, "attn", human.head_at(text, m.start()))
        if q is None or attn is None or attn.ndim != 2 or not 0 <= q < min(attn.shape):
            continue
        printed = m.group("n") + ("%" if m.group("pct") else "")  # LaTeX's ``80.4\%`` a percentage too
        res = human._judge([human.Cell(printed, m.start("n"))], attn[q, [q]], f"attn[{q}, {q}]", text,
                           gated=in_any(m.start(), foreign))
        if res:
            hits[m.start("n")] = res[0]


class _Queries:
    """The one query named in a claim's sentence before its number (``token N``, from 1, or one quoted token of the
    config), for claims asked in order: each sentence's mentions are found by one scan as the claims on it come,
    not searched again from the sentence's start for each claim (quadratic on a long line of claims).

    A claim at ``p`` has its sentence from the last ``\\n`` or ``". "`` before it. The mentions of ``text[a:p]``
    are those of one scan of the sentence that end by ``p``: the char before a claim's number is no word
    character, so no mention ends at ``p`` cut short, and one running past ``p`` (``token 0.5``) is no mention of
    ``text[a:p]``."""

    def __init__(self, text: str, tokens: tuple):
        from .human import _QUOTED, lowered
        from .numbered_rows import row_lines, zero_words

        self.text, self.tokens, self.quoted = text, tokens, _QUOTED
        # a note counting from 0 (``token 0``): its words' rows from 0
        self.zeros = zero_words(text, row_lines(text, lowered(text))) if "0" in text else set()
        self.line = self.start = self.seen = -1
        self.scans: list = []  # [iterator, its next match or None] of each pattern over the sentence
        self.found: set = set()

    def before(self, p: int) -> int | None:
        from .human import line_start

        text = self.text
        ls = line_start(text, p)
        if ls != self.line:
            self.line, self.seen = ls, ls
            self._sentence(ls)
        dot = text.rfind(". ", max(self.seen - 1, ls), p)  # a ". " ending past the last claim's search, by p
        self.seen = p
        if dot >= 0 and dot + 1 != self.start:
            self._sentence(dot + 1)
        for scan in self.scans:
            while scan[1] is not None and scan[1].end() <= p:
                if (q := self._query_of(scan[1])) is not None:
                    self.found.add(q)
                scan[1] = next(scan[0], None)
        return next(iter(self.found)) if len(self.found) == 1 else None

    def _sentence(self, a: int) -> None:
        """Start the scans of the sentence from ``a``: to its end (a ". ", else its line's end)."""
        from .human import _line_starts

        text = self.text
        starts = _line_starts(text)
        k = bisect_right(starts, a)
        le = starts[k] - 1 if k < len(starts) else len(text)
        dot = text.find(". ", a, le)
        end = le if dot < 0 else dot + 2
        self.start, self.found = a, set()
        scans = (_TOKEN.finditer(text, a, end), self.quoted.finditer(text, a, end))
        self.scans = [[it, next(it, None)] for it in scans]

    def _query_of(self, m: re.Match) -> int | None:
        """The query a mention names: ``token N``'s row, or a quoted token's index in the config (None: not one)."""
        if m.re is _TOKEN:
            return index_int(m.group("k")) - (m.group("w").lower() not in self.zeros)
        w = m.group("w")
        return self.tokens.index(w) if w in self.tokens else None
