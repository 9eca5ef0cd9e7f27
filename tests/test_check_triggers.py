"""The trigger gates of ``check.triggers`` are conservative (issue 12, item 4): a closed gate, no match of the form.

Each gate is asked about random texts of its form's pieces (the symbols and words in every case, the letters re folds
onto them, bullets, indices, relations, brackets, joins, blanks, line breaks): wherever it is closed, the form's own
pattern matches nowhere in the text (so the form judges nothing there). The sweep of every note we ship and test, each
form's verdicts with and without its gate, is ``tests/test_check_gates.py``'s (it runs every gate of ``gates.GATES``).
"""

from __future__ import annotations

import random

import pytest

from attnwalk.check import (
    column_sums,
    forms,
    gates,
    line_rows,
    own_weights,
    prose_rows,
    row_items,
    rowsums,
    triggers,
    tuple_rows,
)
from attnwalk.check.human import _per_text
from attnwalk.notation import ROW_SUM_PHRASES, SELF_WORDS

_COMMON = [" ", "  ", "\t", "\n", "\n", "$", "{", "}", "_", "0", "1", "2", "12", "0.25", "-0.5", "−1", "–2", "=", " = ",
           "≈", "\\approx", ":", ": ", ",", ", ", "[", "]", "(", ")", "x", "ſ", "K", "١"]

# the pieces of each form's pattern, and the pattern the gate stands for (the form judges nothing without a match)
CASES = {
    "column_sums": (triggers.column_sums_trigger, [column_sums._HEAD],
                    ["c", "z", "C", "Z", "ac", "\\c", "c_", "z_{", "c_1 =", "z_{2} = ", "\\begin{pmatrix}"]),
    "tuple_rows": (triggers.tuple_rows_trigger, [tuple_rows._ROW],
                   ["z", "e", "Z", "E", "ze", "z_", "e_{", "z1", "e_2$", "z_{3} ≈ (", "e2 = [", "(0.1, 0.2)", "\\e"]),
    "row_items": (triggers.row_items_trigger, [row_items._ITEM],
                  ["- ", "* ", "+ ", "-", "  - ", "\t* ", "q", "o", "y", "z", "Q", "O", "- q5: ", "* $o_{4}$ ≈ (",
                   "- y2 = [", "\n- z", "0, 1.4, 1.4"]),
    "prose_rows": (triggers.prose_rows_trigger, [prose_rows._LIST, prose_rows._SLASHED],
                   ["the outputs", " are ", " là ", " sind ", "and", "AND", "And", "và", "VÀ", "], [", "),(", ") and (",
                    "] AND [", "[0.9, 1.4]", "(0.9, 1.4)", "token 3", "Token", "row 2", " attends ", "ATTENDS to",
                    " chú ý ", "CHÚ Ý tới", "/", " / ", "\n/ ", "0.41", "İ", "ı"]),
    "line_rows": (triggers.line_rows_trigger, [line_rows._ROW],
                  ["row", "ROW", "Row", "token", "query", "position", "hàng", "dòng", "HÀNG", " ", "2", "12", "=", ":",
                   " = [", ":[", "[0.5, 1.0]", "[ 0, 1 ]", ", ", "row 2 = [", "token 1: [", "ſ", "İ"]),
}


_BL = [" ", "", "\t", "  ", "\n"]
# each form's pattern slot by slot (its pieces and near misses): texts of one choice a slot, noise around them, hold
# many matches and many near matches (random pieces alone seldom line a pattern up)
SLOTS = {
    "column_sums": [["c", "z", "C", "ac", "\\z"], ["_", ""], ["{", ""], ["2", "12", "x"], ["}", ""], _BL, ["=", ":"]],
    "tuple_rows": [["z", "e", "Z", "ze", "\\e"], ["_", ""], ["{", ""], ["1", "12", "123", ""], ["}", ""], ["$", ""],
                   _BL, ["=", "≈", "\\approx", ":"], _BL, ["$", ""], ["(0.69, 0.92)", "[0.72, 0.54]", "(1)", "0.5"]],
    "row_items": [["", "\n", "x\n", "x"], [" ", "", "\t"], ["-", "*", "+", "•"], [" ", "", "\t", "\n"], ["$", ""],
                  ["q", "o", "y", "z", "Q", "k"], ["_", ""], ["{", ""], ["5", "12", ""], ["}", ""], ["$", ""],
                  [" ", ""], [":", "=", "≈", "\\approx", ""], [" ", ""], ["$", ""], ["[", "(", ""],
                  ["0, 1.4, 1.4", "0.96, 0.91", "1"], ["]", ")", ""], [" ", "$", ""], ["", "\n", "x"]],
    "prose_rows": [  # (two shapes: a query's weights split by slashes, rows listed in prose)
        [["token ", "Token ", "row ", "query ", "TOKEN ", "İtem ", ""], ["3", "12", "", "x"], [" ", "\t", "", "\n"],
         ["attends", "ATTENDS to", "Attends to", "chú ý", "CHÚ Ý tới", "attend", "ıattends", "is"],
         [" ", "\t", "", "\n"],
         ["0.4176", "-0.2", "−1", "x", "0.5"], [" / ", "/", "\n/ ", " /\n", "//", " - ", "/\n\n"],
         ["0.2802", "0.3", "x", "1"], [" / ", "/", "", ", "], ["0.3005", "", "(5, 6)"]],
        [["the outputs", "outputs", "Weights", "İtems", "x", ""], [" ", "\t", "", "\n"],
         ["are", "ARE", "là", "lần lượt là", "sind", "were", "is", "ıs"], [" ", "\t", ""],
         ["[0.9, 1.4]", "(1, 2)", "[1]", "x"], [", ", " and ", ",and ", " AND ", ", và ", "; ", " ", "],[", ",", " & "],
         ["[0.9, 1.5]", "(3, 4)", "[2]", "(1; 2)"], ["", ", ", " and "], ["", "[1.0, 1.2]", "(5, 6)"]]],
    "line_rows": [["row", "ROW", "Row", "token", "query", "position", "hàng", "dòng", "HÀNG", "roſ", "İtem", "x"],
                  [" ", "", "\t", "\n"], ["2", "12", "1234", ""], [" ", "", "\t"], ["=", ":", "", "≈"], [" ", ""],
                  ["[", "[", "", "("], [" ", ""], ["0.5, 1.0", "1, 0", "1", "-0.5, 2"], ["]", "]", ""]],
}


def _texts(pieces: list[str], n: int, seed: int, slots: list | None = None) -> list[str]:
    """``n`` random texts of ``pieces`` (and noise), and with ``slots`` (a shape's slots, or a list of shapes) as many
    more, one choice a slot."""
    rnd = random.Random(seed)
    parts = pieces + _COMMON
    out = ["".join(rnd.choice(parts) for _ in range(rnd.randint(0, 24))) for _ in range(n)]
    shapes = slots if slots and isinstance(slots[0][0], list) else [slots] if slots else []
    for _ in range(n if slots else 0):
        noise = ["".join(rnd.choice(parts) for _ in range(rnd.randint(0, 3))) for _ in range(2)]
        out.append(noise[0] + "".join(rnd.choice(slot) for slot in rnd.choice(shapes)) + noise[1])
    return out


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_closed_trigger_means_no_match_of_the_forms_pattern(name):
    trigger, patterns, pieces = CASES[name]
    closed = opened = matched = 0
    for text in _texts(pieces, 20000, len(name), SLOTS[name]):
        text = (text + "\n")[:-1]  # a fresh object: the per-text scans are the text's own
        if trigger(text):
            opened += 1
            matched += any(rx.search(text) is not None for rx in patterns)
        else:
            closed += 1
            assert all(rx.search(text) is None for rx in patterns), (name, text)
    assert closed > 1000 and opened > 1000 and matched > 300, (closed, opened, matched)  # not vacuous


def test_every_trigger_is_registered_for_its_form():
    got = {form.__name__: test for form, test in gates.GATES.items()}
    for name, (trigger, _, _) in CASES.items():
        assert got[name] is trigger
        assert any(f.__name__ == name for f in forms.AFTER_FORMS)


@pytest.mark.parametrize("words, keys, low", [(SELF_WORDS, triggers.SELF_KEYS, False),
                                              (ROW_SUM_PHRASES, triggers.ROW_SUM_KEYS, True)])
def test_every_word_holds_a_key(words, keys, low):
    """A text without a key holds no word: each word (lowered where the form looks in the lowered note) holds one."""
    for w in words:
        assert any(k in (w.lower() if low else w) for k in keys), w


@pytest.mark.parametrize("form, trigger, words, low", [
    (own_weights.own_weights, triggers.own_weights_trigger, SELF_WORDS, False),
    (rowsums.row_sum_lists, triggers.row_sum_lists_trigger, ROW_SUM_PHRASES, True)])
def test_a_key_gate_opens_on_each_word(form, trigger, words, low):
    assert gates.GATES[form] is trigger
    for w in words:
        for text in (w, w.upper(), f"the {w} 0.5"):
            text = (text + "\n")[:-1]
            if low or text == w or w in text:  # (own_weights reads its words as written)
                assert trigger(text), text
    assert not trigger("token 2 attends 0.4 / 0.6; the sum of a row (\\sum) is 1, by itsel f")


def test_a_trigger_is_asked_once_a_text():
    text = "z_1 = (0.5, 0.5)\n" * 3
    assert triggers.tuple_rows_trigger(text)
    kept = {k[1]: v for k, v in _per_text(text).items() if isinstance(k, tuple) and k[0] == "trigger"}
    assert sorted(kept.values()) == [False, True]  # (e: no trigger; z: one)
    pattern = next(p for p, v in kept.items() if v)
    _per_text(text)[("trigger", pattern)] = False  # the kept answer is the one given (no second scan)
    assert triggers.found(text, pattern) is False


@pytest.mark.parametrize("text, name", [
    ("c_2 = 0.1867\\begin{pmatrix} 1 \\\\ 0 \\end{pmatrix}", "column_sums"),
    ("$z_1 = (0.6943, 0.9257)$", "tuple_rows"), ("z2 = [0.7259, 0.5481]", "tuple_rows"),
    ("e_{3} \\approx (0.1, 0.2)", "tuple_rows"), ("intro\n  - q5: 0, 1.4, 1.4", "row_items"),
    ("* $o_{4}$ ≈ (0.96, 0.91)", "row_items"), ("the outputs are [0.9, 1.4], [0.9, 1.5] and [1.0, 1.2]", "prose_rows"),
    ("outputs are (1, 2) AND (3, 4)", "prose_rows"), ("token 3 attends 0.4176 / 0.2802 / 0.3005", "prose_rows"),
    ("Token 3 Attends 0.4\n/ 0.6", "prose_rows"), ("row 2 = [0.5, 1.0]", "line_rows"),
    ("token 1:\t[1, 0]", "line_rows"),
])
def test_each_trigger_opens_on_its_forms_shape(text, name):
    trigger, patterns, _ = CASES[name]
    assert any(rx.search(text) for rx in patterns), text  # (the shape is the form's)
    assert trigger((text + "\n")[:-1])


_MATRICES = ["\\begin{bmatrix}1 & 0 \\\\ 0.5 & 2\\end{bmatrix}", "\\begin{pmatrix}1 & 2\\end{pmatrix}",
             "\\begin{bmatrix}1 \\\\ 0\\end{bmatrix}", "\\begin{array}{cc}1 & 0\\end{array}"]
_GAPS = ["", " ", "=", " = ", "\\times", " \\times ", "@", "\\cdot", "\\approx", "≈", "\n", " + ", "x", "$$", "= =",
         ", \\; ", "\\;", "\t"]
_ABOVE = ["C = A @ B\n", "O = A \\times V\n", "context = weights @ V\n", "", "K = X W_K\n", "x\n"]
_OPEN = ["$$", "$$O = AV = ", "$$K = XW = ", "$$\n", "", "S = "]


def _chains(rnd: random.Random) -> str:
    """A display of 1-4 matrices joined by random gaps, under a random formula: the shapes of the two chain forms."""
    parts = [rnd.choice(_ABOVE), rnd.choice(_OPEN)]
    for _ in range(rnd.randint(1, 4)):
        parts += [rnd.choice(_MATRICES), rnd.choice(_GAPS)]
    return "".join(parts) + rnd.choice(["$$", "", "\n$$"])


_T_PIECES = ["K", "Q", "V", "X", "^T", "^{T}", "^\\top", "^{\\intercal}", "ᵀ", ".T", " = ", ":", "=", "\n", "$$", " ",
             "\\begin{bmatrix}1 & 0 \\\\ 0 & 1\\end{bmatrix}", "\\begin{pmatrix}1 & 2 \\\\ 3 & 4\\end{pmatrix}",
             "[[1, 2], [3, 4]]", "[[1, 0, 2]]", "\\left[", "\\begin{bmatrix}", "x", "A", "K^T = ", "Kᵀ:", "K.T ="] * 2
_DOT_PIECES = ["[1, 0]", "[0, 2]", "[1, 0]\\cdot[1, 0] = 1", "\\cdot", "·", " · ", "\n", "\n", "\n", " ", "= 1"] * 3
_LIST_PIECES = ["[1, 2]", "[0.5, 1.5, 2]", "Q = ", "K = ", "- ", "> ", "\n", "\n", " ", "A_0", "x", "]", ")", "}", "_",
                "[[1, 2]]", "[3, 4]", "\\cdot", "·", " = ", "[", "(1, 2)", "`"]


@pytest.mark.parametrize("name, trigger, pieces", [
    ("product_chains", triggers.adjacent_matrices_trigger, None),
    ("display_products", triggers.adjacent_matrices_trigger, None),
    ("list_rows", triggers.stacked_lists_trigger, _LIST_PIECES),
    ("dot_operand_lists", triggers.stacked_lists_trigger, _DOT_PIECES),
    ("transposed", triggers.transposed_trigger, _T_PIECES)])
def test_a_closed_trigger_means_no_block_of_the_block_form(name, trigger, pieces):
    """A block form gated by a trigger finds no block in any random text of its shapes where the trigger is closed,
    and finds some where it is open (the texts do hold its shapes)."""
    form = next(f for f in forms.BLOCK_FORMS if f.__name__ == name)
    assert gates.GATES[form] is trigger
    rnd = random.Random(len(name))
    closed = blocks = 0
    for _ in range(6000):
        if pieces is None:
            text = _chains(rnd)
        else:
            text = "".join(rnd.choice(pieces + _COMMON) for _ in range(rnd.randint(0, 30)))
        text = (text + "\n")[:-1]
        got = getattr(form, "__wrapped__", form)(text)
        if not trigger(text):
            closed += 1
            assert got == [], (name, text)
        blocks += bool(got)
    assert closed > 500 and blocks > 10, (closed, blocks)
