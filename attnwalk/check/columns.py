"""Where each number of a check report lies on its line: the 1-based columns of its first character and of the
character after it (a percentage with its sign), found as ``--fix`` finds the characters it rewrites
(``fix.line_spans``), so a report's column and ``--fix``'s edit name the same number. Used by ``--format json``
and ``--format github`` (``col=``)."""

from __future__ import annotations

from .fix import _BREAK, line_spans


def places(source: str, recs) -> list[tuple[int, int] | None]:
    """For each record of ``recs`` (a report's records, in its order), ``(col, end_col)`` on line ``rec.line`` of
    ``source`` (the file's text as the line numbers count it), 1-based, ``end_col`` just past the number; None where
    the number's characters are not on that line as printed (a notebook written with ``\\u`` escapes)."""
    lines = _BREAK.split(source)[0::2] if source else []
    by_line: dict[int, list[int]] = {}
    for i, r in enumerate(recs):
        by_line.setdefault(r.line, []).append(i)
    out: list[tuple[int, int] | None] = [None] * len(recs)
    for ln, idx in by_line.items():
        if 1 <= ln <= len(lines):
            line = lines[ln - 1]
            for i, span in zip(idx, line_spans(line, [recs[i].text for i in idx])):
                if span:  # a percentage's record may hold its digits only: its sign is part of the number
                    end = span[1] + (line[span[1]:span[1] + 1] == "%" and not recs[i].text.endswith("%"))
                    out[i] = (span[0] + 1, end + 1)
    return out
