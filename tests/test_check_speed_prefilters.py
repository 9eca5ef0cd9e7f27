"""The hand-written readers' prefilters and shared scans find what their regexes find (issue 12, item 4).

Where a reader's whole-note regex is replaced by a scan of a few literal marks (the regex engine tries a
pattern that opens with an alternation or a digit at every character of a note), the lines or offsets it
reads must be exactly the regex's: compared here on random texts made of the characters the patterns read.
"""

from __future__ import annotations

import random
from bisect import bisect_right

from attnwalk.check import human, notations

COEF_PARTS = ["V", "v", "V_", "v_1", "V₀", "V₉", "v₅", "·", "*", "×", "\\cdot", "\\cdo", "t", " ", " ", "\t", "\n",
              "0", "7", "٣", "²", "_", "₀", "₉", "x", "cdot", "0.5", "$", "{"]


def _texts(parts: list[str], n: int, seed: int) -> list[str]:
    rnd = random.Random(seed)
    return ["".join(rnd.choice(parts) for _ in range(rnd.randint(0, 40))) for _ in range(n)]


def test_coefficient_lines_are_the_lines_of_every_match():
    for text in _texts(COEF_PARTS, 20000, 7) + ["", "V", "3V_", " \\cdotV", "\\cdot\tv", "tV", "5 \t v₃\n2*V"]:
        starts = human._line_starts(text)
        want = sorted({bisect_right(starts, m.start()) - 1 for m in notations._COEF_MARK.finditer(text)})
        assert notations._coef_lines(text) == want, text


def ref_cells(text: str, base: int):
    """``human._cells`` as it was: every number read, then what they leave searched for a letter."""
    cells = [human.Cell(m.group(), base + m.start()) for m in human.NUM_RE.finditer(text)]
    if human._LETTER.search(text) is not None:
        rest = human.NUM_RE.sub("", text)
        if human._LETTER.search(rest) and not human._NOT_WORDS.fullmatch(rest):
            return None
    return cells


CELL_PARTS = ["0", "1.5", "-2", "−3", "e", "E", "e-4", "E+2", "1e5", "x", "ab", "é", "Ω", "中", "\\cdots", "&", ",",
              " ", "\t", "\n", "(", ")", "[", "]", ".", "%", "_", "^", "\\\\", ";", "+"]


def test_a_row_with_a_letter_no_number_holds_is_prose_as_before():
    for text in _texts(CELL_PARTS, 20000, 11) + ["", "1e5 2E-3", "e", "2 3 x"]:
        assert human._cells(text, 7) == ref_cells(text, 7), text
