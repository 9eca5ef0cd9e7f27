r"""Gates of hand-written forms, from their triggers (issue 12, item 4; ``check.gates`` asks them).

Each gate below is a *trigger*: a piece of text that every match of its form's own pattern contains (its head, or a
join every match holds), so a note without it cannot hold a match, and the form is not run. A trigger is searched
with a pattern led by a literal character (``c_\{?\d``, ``\n[ \t]*[-*+]``): re then skips from one occurrence of that
character to the next (~20–90 µs a 64 kB note), where the form's pattern, led by a class of letters or by an
alternation of words, is tried at every offset of the note (0.2–0.5 ms each); or walked back from the note's offsets
of one mark (``/``, ``[``: ``human._offsets``); or it is a few *keys* that every word of the form's vocabulary holds
(``present``). Our own walkthroughs hold none of these triggers, so their forms cost the trigger's scan alone.

To give a new form a gate (a form after the blocks, or a block form): write ``def <form>_trigger(text) -> bool`` here
from the form's own constants (its symbols, its words from ``notation``, its patterns' pieces), True wherever the
form's pattern could match, with a docstring saying which part of that pattern it looks for; register it with
``gate(<form>, <form>_trigger)`` in ``_register`` at the end of this module; and add the form to
``tests/test_check_triggers.py`` (``CASES`` and ``SLOTS``: random texts of its pattern slot by slot, where a closed
gate must mean no match; for a block form, no block), whose partner ``tests/test_check_gates.py`` sweeps every note
we ship and test with the gates on and off. A gate that cannot be led by a literal character costs what the form
costs: leave such a form ungated.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from functools import cache

from ..notation import ATTENDS_VERBS, COLUMN_SUM_SYMBOLS, ROW_ITEM_OUTPUTS, ROW_ITEM_QUERIES, TUPLE_ROW_SYMBOLS
from .gates import gate

_NUM_START = r"[-−–]?\d"  # how every number of the forms' patterns starts (``_NUM``: a sign, then a digit)


@cache
def _rx(pattern: str) -> re.Pattern:
    return re.compile(pattern)


def found(text: str, pattern: str) -> bool:
    """Whether ``pattern`` (led by a literal character) matches anywhere in ``text``: asked once per text and pattern
    (kept with the note's other scans, ``human._per_text``), so that two gates with one trigger scan once."""
    from .human import _per_text

    table = _per_text(text)
    key = ("trigger", pattern)  # (a tuple: no mark of human._offsets)
    got = table.get(key)
    if got is None:
        got = table[key] = _rx(pattern).search(text) is not None
    return got


def _symbols(symbols) -> list[str]:
    """One trigger head per symbol: each a literal (``re.escape``), so that each pattern is led by a literal."""
    return [re.escape(s) for s in sorted(symbols)]


def column_sums_trigger(text: str) -> bool:
    r"""``column_sums``: its ``_HEAD`` (``c_2 =``, ``z_{3} =``): a symbol of ``COLUMN_SUM_SYMBOLS``, ``_``, a digit."""
    return any(found(text, s + r"_\{?\d") for s in _symbols(COLUMN_SUM_SYMBOLS))


def tuple_rows_trigger(text: str) -> bool:
    r"""``tuple_rows``: its ``_ROW`` up to the relation (``z_1 =``, ``e_{2} ≈``, ``z2 =``, ``z_3$ \approx``): a symbol
    of ``TUPLE_ROW_SYMBOLS``, its index, an optional ``$``, blanks and a relation."""
    return any(found(text, s + r"(?:_\{?\d{1,2}\}?|\d)\$?[ \t]*(?:=|≈|\\approx)")
               for s in _symbols(TUPLE_ROW_SYMBOLS))


def row_items_trigger(text: str) -> bool:
    r"""``row_items``: its ``_ITEM`` up to the row's number (``- q5``, ``* $o_{4}``): a line (the text's first, or one
    after a newline: ``^`` of a MULTILINE pattern) opening with blanks, a bullet, blanks, an optional ``$``, a symbol of
    ``ROW_ITEM_OUTPUTS`` or ``ROW_ITEM_QUERIES``, an optional ``_`` and ``{``, and a digit."""
    head = r"[ \t]*[-*+][ \t]+\$?[" + "".join(map(re.escape, sorted(ROW_ITEM_OUTPUTS + ROW_ITEM_QUERIES))) \
        + r"]_?\{?\d"
    return _rx(head).match(text) is not None or found(text, r"\n" + head)


def prose_rows_trigger(text: str) -> bool:
    r"""``prose_rows``: for its rows listed in prose (``_LIST``), two vectors joined (``], [``, ``) and (``): a closing
    bracket, ``prose_rows._JOIN`` (its words in any case, as ``_LIST`` reads them) and an opening one; for a query's
    weights split by slashes (``_SLASHED``), ``slashed_after_verb``."""
    from .prose_rows import _JOIN

    join = r"(?i:" + _JOIN + r")[\[(]"
    return found(text, r"\]" + join) or found(text, r"\)" + join) or slashed_after_verb(text, ATTENDS_VERBS)


_NUMBER_CHARS = frozenset("0123456789.")


def slashed_after_verb(text: str, verbs) -> bool:
    """Whether a chain of numbers split by slashes (``0.4176 / 0.2802 / 0.3005``, blanks and a line break around each
    ``/``) follows one of ``verbs`` (any case, as ``re.IGNORECASE`` reads them) and blanks: walked back from each ``/``
    of the note (``human._offsets``) over the chain to its first number, then the blanks and the verb looked for just
    before it. Every step takes at least what the pattern does (any blanks, any digits), so no such chain is missed;
    a letter re folds onto a verb's letter where ``str.lower`` does not (``ı``, ``ſ``) opens the gate."""
    from .gates import _odd
    from .human import _offsets

    slashes = _offsets(text, "/")
    if not slashes:
        return False
    odd = _odd(tuple(verbs))
    lows = [v.lower() for v in verbs]
    longest = max(map(len, lows))
    for at in slashes:
        a = at
        while True:
            while a > 0 and text[a - 1] in " \t\n":
                a -= 1
            end = a
            while a > 0 and (text[a - 1] in _NUMBER_CHARS or text[a - 1].isdigit()):
                a -= 1
            if a == end:
                break  # no number before this "/"
            if a > 0 and text[a - 1] in "-−–":
                a -= 1
            b = a
            while b > 0 and text[b - 1] in " \t\n":
                b -= 1
            if b > 0 and text[b - 1] == "/":
                a = b - 1  # an earlier "/" of the same chain: its first number is further back
                continue
            if b < a:  # blanks, then the verb
                window = text[max(0, b - longest - 1):b]
                if any(c in window for c in odd) or any(window.lower().endswith(v) for v in lows):
                    return True
            break
    return False


def line_rows_trigger(text: str) -> bool:
    r"""``line_rows``: its ``_ROW`` from the row's number (``row 2 = [0.5, ..``, ``token 1: [1, ..``): a digit, blanks,
    ``=`` or ``:``, blanks, ``[``, blanks and a number; found from each ``=`` and each ``:`` before such a list (two
    patterns, each led by its literal: a class of the two leads a slow search), then the digit looked for before it,
    past the blanks."""
    for rel in "=:":
        for m in _rx(rel + r"[ \t]*\[[ \t]*" + _NUM_START).finditer(text):
            at = m.start()
            while at > 0 and text[at - 1] in " \t":
                at -= 1
            if at > 0 and text[at - 1].isdigit():  # (isdigit: every character \d matches, and more)
                return True
    return False


def present(text: str, key: str, low: bool = False) -> bool:
    """Whether ``key`` occurs in ``text`` (in its lowered copy, ``human.lowered``, with ``low``): asked once per text
    and key, so that the gates sharing a key scan for it once."""
    from .human import _per_text, lowered

    table = _per_text(text)
    k = ("key", key, low)  # (a tuple: no mark of human._offsets)
    got = table.get(k)
    if got is None:
        got = table[k] = key in (lowered(text) if low else text)
    return got


# Keys of a form's words: every word holds one (tests/test_check_triggers.py checks it), so a text holding no key holds
# no word. Fewer scans than the words, and a lone CJK character is found ~30x faster than a word of two.
SELF_KEYS = ("itself", "themselves", "chính nó", "自", "même")  # notation.SELF_WORDS
ROW_SUM_KEYS = ("row sum", "rows sum", "sums of the rows", "hàng là", "和")  # notation.ROW_SUM_PHRASES, lowered


def own_weights_trigger(text: str) -> bool:
    """``own_weights``: a word of ``SELF_WORDS`` (``itself``, ``chính nó``): the form reads nothing without one
    (its first test), by ``SELF_KEYS``."""
    return any(present(text, k) for k in SELF_KEYS)


def row_sum_lists_trigger(text: str) -> bool:
    """``row_sum_lists``: a phrase of ``ROW_SUM_PHRASES`` in the lowered note (``row sums are``, ``tổng các hàng
    là``): the form reads nothing without one (its first test), by ``ROW_SUM_KEYS``."""
    return any(present(text, k, low=True) for k in ROW_SUM_KEYS)


def adjacent_matrices_trigger(text: str) -> bool:
    r"""``product_chains`` and ``display_products`` (block forms): two LaTeX matrices with nothing between them but
    blanks and one operator or relation (``forms._CHAIN_GAP``: ``\end{bmatrix} \times \begin{bmatrix}``, ``..} =
    \begin{..``), which every chain of either holds (the gaps of a product chain, ``\s*=\s*`` and ``_OP``, are
    ``_CHAIN_GAP``'s too)."""
    from .forms import _CHAIN_GAP

    return found(text, r"\\end\{[^{}]*\}" + _CHAIN_GAP.pattern + r"\\begin\{")


def stacked_lists_trigger(text: str) -> bool:
    """``list_rows`` and ``dot_operand_lists`` (block forms: the second reads the first's blocks): two lines in a row
    each holding a ``[`` that may open a row, at its line's start or after a character other than a letter, a digit,
    ``_``, ``]``, ``)`` or ``}`` (``list_rows`` skips the others as indices, ``A_0[0, 1]``): a run of two rows at
    least, which each of their blocks is. From the note's offsets of ``[`` (``human._offsets``)."""
    from .human import _line_starts, _offsets

    starts, last = _line_starts(text), -2
    for at in _offsets(text, "["):
        if at and text[at - 1] != "\n" and (text[at - 1].isalnum() or text[at - 1] in "_])}"):
            continue
        k = bisect_right(starts, at) - 1
        if k == last + 1:
            return True
        last = k
    return False


_AFTER_MARK = r"\s*(?:=|:)?\s*(?:\\begin\{|\[)"  # then the matrix: a LaTeX one's \begin, or a list's [


def transposed_trigger(text: str) -> bool:
    r"""``transposed`` (a block form): a mark of ``forms._TRANSPOSED`` (``^T``, ``^{\top}``, ``ᵀ``, ``.T``) with only
    blanks and an optional ``=`` or ``:`` between it and a matrix (``human.latex_blocks`` start at their ``\begin``,
    ``bracket_blocks`` at their ``[``; the form drops one ``\begin{bmatrix}`` between): a label ending in the mark,
    which every block of the form has. Three scans, each led by its mark's literal."""
    return found(text, r"\^\s*\{?\s*(?:T|\\top|\\intercal)\s*\}?" + _AFTER_MARK) or \
        found(text, "ᵀ" + _AFTER_MARK) or found(text, r"\.T\b" + _AFTER_MARK)


def _register() -> None:
    from .column_sums import column_sums
    from .forms import display_products, dot_operand_lists, list_rows, product_chains, transposed
    from .line_rows import line_rows
    from .own_weights import own_weights
    from .prose_rows import prose_rows
    from .row_items import row_items
    from .rowsums import row_sum_lists
    from .tuple_rows import tuple_rows

    gate(column_sums, column_sums_trigger)
    gate(tuple_rows, tuple_rows_trigger)
    gate(row_items, row_items_trigger)
    gate(prose_rows, prose_rows_trigger)
    gate(line_rows, line_rows_trigger)
    gate(own_weights, own_weights_trigger)
    gate(row_sum_lists, row_sum_lists_trigger)
    for form in (product_chains, display_products):
        gate(form, adjacent_matrices_trigger)
    for form in (list_rows, dot_operand_lists):
        gate(form, stacked_lists_trigger)
    gate(transposed, transposed_trigger)


_register()
