"""Reading hand-written notes: matrices and vectors in the forms people print them, named with
the words of ``notation.WORDS`` (en, vi, zh, LaTeX), compared with the trace (issue 8).

Forms: LaTeX ``bmatrix``/``pmatrix`` (several in one ``$$`` block), Python lists and numpy prints
(``[[a b]\\n [c d]]``), plain grids in code blocks (a ``# comment`` or a row name per row allowed),
Markdown tables whose rows are tokens, and row vectors named ``q1``, "word 1", "row 2", a token
word. The label is the text before the matrix on its line, else the lines just above it (a label
on the line before a code block). A matrix is judged only when its shape is the tensor's and at
least half of its numbers agree (so a misread label never reports false errors); otherwise its
numbers stay "not understood".
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from fractions import Fraction
from heapq import merge
from itertools import accumulate, chain, compress, repeat
from operator import itemgetter, not_
from typing import NamedTuple

import numpy as np

from ..notation import NOTEBOOK_PROMPT, ROW_WORDS, SELF_WORDS, WORDS
from ..numfmt import fmt
from .indices import index_int

NUM = r"[-−–]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?%?"
NUM_RE = re.compile(r"(?<![\w.^_])" + NUM + r"(?![\w.]\d|\w)")
# NUM_RE's matches, found faster in a long text: it starts with one class of characters (a sign or a digit),
# which the regex engine looks for before trying the rest; the lookbehind is then checked at that character
_NUM_SCAN = re.compile(r"[-−–\d](?<=(?<![\w.^_]).)(?:(?<=\d)\d*|(?<=[-−–])\d+)(?:\.\d*)?(?:[eE][-+]?\d+)?%?"
                       r"(?![\w.]\d|\w)")
F32_REL = 2.0**-22
LABEL_REACH = 200  # characters before a matrix, on its line and on each line above, that can name it

_PER_TEXT: tuple = (None, {})  # (text, what was computed of it): the last text asked about


def _per_text(text: str) -> dict:
    """A cache of offsets for ``text``, replaced when another text is asked about."""
    global _PER_TEXT
    cached = _PER_TEXT  # one tuple, replaced whole: a thread reading another note never sees half of it
    if cached[0] is not text:
        cached = _PER_TEXT = (text, {})
    return cached[1]


def lowered(text: str) -> str:
    """``text.lower()``, computed once a note: the readers that gate on a phrase (rowsums, numbered_rows) share it."""
    table = _per_text(text)
    low = table.get(("lower",))  # (a tuple: no mark of _offsets)
    if low is None:
        low = table[("lower",)] = text.lower()
    return low


def symbol_at_word_start(symbols) -> str:
    r"""A regex group ``sym`` matching one of ``symbols`` not preceded by a word character or a backslash. Where
    every symbol is one letter it is a class first and the lookbehind after it (``[cz](?<![\w\\][cz])``): re
    then skips to those letters instead of trying a lookbehind at every offset of the note (~1.5 ms a 70 kB note)."""
    syms = sorted(symbols)
    if all(len(s) == 1 for s in syms):
        cls = "[" + "".join(map(re.escape, syms)) + "]"
        return r"(?P<sym>" + cls + r")(?<![\w\\]" + cls + ")"
    return r"(?<![\w\\])(?P<sym>" + "|".join(map(re.escape, syms)) + ")"


_MEMO: dict = {}  # reader name -> (text, args, its result): the readers several forms ask about one text


def _memo(fn):
    """``fn(text, *args)`` computed once for the last text (and args) it was asked about: the block readers are
    asked for the same text by several forms (the reader, ``transposed``, ``foreign_sections``, ``quoted_rows``).
    Callers never change what they get (they build new lists from it)."""
    name = fn.__qualname__

    def once(text: str, *args):
        cached = _MEMO.get(name)  # one tuple, replaced whole (as ``_PER_TEXT``)
        if cached is None or cached[0] is not text or cached[1] != args:
            cached = _MEMO[name] = (text, args, fn(text, *args))
        return cached[2]

    once.__doc__, once.__name__, once.__qualname__, once.__wrapped__ = fn.__doc__, fn.__name__, name, fn
    return once


def _offsets(text: str, mark: str) -> list[int]:
    """Where ``mark`` occurs in ``text``, non-overlapping (as ``str.count`` counts them), found once per text."""
    table = _per_text(text)
    found = table.get(mark)
    if found is None:  # a literal's matches, leftmost and non-overlapping: str.find's from the end of the last
        found = table[mark] = list(map(re.Match.start, re.finditer(re.escape(mark), text)))
    return found


def line_matches(rx: re.Pattern, text: str, *marks: str):
    """``rx.finditer(text)`` for a pattern whose every match starts at a line's start (``^`` in MULTILINE mode)
    and lies on that line, holding one of ``marks``: ``rx.match`` at the start of each line holding a mark,
    found from the note's scans of them. (The regex engine tries such a pattern at every character of the
    note, ~0.25 ms a 70 kB note each.)"""
    starts = _line_starts(text)
    found = _offsets(text, marks[0]) if len(marks) == 1 else sorted(set().union(*(_offsets(text, k) for k in marks)))
    at, lines = 0, len(starts)
    while at < len(found):
        k = bisect_right(starts, found[at]) - 1
        m = rx.match(text, starts[k])
        if m is not None:
            yield m
        if k + 1 == lines:
            break
        at = bisect_left(found, starts[k + 1], at + 1)  # past the line's other marks (a table line's "|"s)


def _line_starts(text: str) -> list[int]:
    table = _per_text(text)
    starts = table.get("line starts")  # a key that no mark of _offsets uses
    if starts is None:
        starts = table["line starts"] = [0] + [at + 1 for at in _offsets(text, "\n")]
    return starts


_ADMONITION = re.compile(r"^(?P<indent>[ ]*)(?:!!!|\?\?\?\+?)[ \t]+\S[^\n]*(?:\n|$)", re.M)


@_memo
def code_blocks(text: str) -> list[tuple[int, int, int, str]]:
    """(start, end, content start, content) of each fenced code block of ``text``, in order: markdown-it's
    (``source.fences``: backticks or tildes, in blockquotes and list items too; ``content`` without container
    marks or indent, as ``program.fences`` gives it), and the fences of MkDocs' admonitions (``!!! note`` then a
    body indented 4 spaces), which CommonMark reads as a paragraph's lines or indented code but MkDocs renders as
    code. The one list of code the hand-written readers (``grid_blocks``, ``forms._outside_code``, the label
    lookup) read; ``program._content`` places a block's lines in the note."""
    from .program import fences as program_fences

    out = [(start, end, a, content) for start, end, _, content, a, _ in program_fences(text)]
    if "!!!" in text or "???" in text:
        out = sorted(out + [f for f in _admonition_fences(text)
                            if not any(s < f[1] and f[0] < e for s, e, _, _ in out)])
    return out


def _admonition_fences(text: str) -> list:
    """``code_blocks``' entries of the fences in MkDocs admonitions' bodies: each body (the lines indented 4 more
    than its ``!!!``/``???`` line, blank ones between) taken out of its indent and read by markdown-it."""
    from .source import _stock_parser

    out = []
    for m in _ADMONITION.finditer(text):
        indent = len(m.group("indent")) + 4
        starts, body, pos = [], [], m.end()  # each body line's start in the note; the line without its indent
        while pos < len(text):
            e = text.find("\n", pos)
            e = len(text) if e < 0 else e + 1
            line = text[pos:e].rstrip("\r\n")
            if line.strip() and not line.startswith(" " * indent):
                break
            starts.append(pos)
            body.append(line[indent:] + "\n")
            pos = e
        if not any("`" in t or "~" in t for t in body):
            continue
        starts.append(pos)
        for t in _stock_parser().parse("".join(body)):
            if t.type == "fence" and t.map:
                a, b = t.map
                out.append((starts[a], starts[min(b, len(starts) - 1)], starts[min(a + 1, len(starts) - 1)],
                            t.content))
    return out


def in_code(text: str, pos: int) -> bool:
    """Whether ``pos`` lies in a fenced code block of ``text`` (``code_blocks``), in O(log n): each matrix's label
    lookup asks."""
    blocks = code_blocks(text)
    k = bisect_right(blocks, (pos, float("inf"))) - 1
    return k >= 0 and pos < blocks[k][1]


def line_start(text: str, pos: int) -> int:
    """``text.rfind("\\n", 0, pos) + 1`` in O(log n): a long line searched back once per number of
    it would make reading a note quadratic in its length."""
    starts = _line_starts(text)
    return starts[bisect_right(starts, pos) - 1]


def line_of(text: str, pos: int) -> int:
    """``text.count("\\n", 0, pos) + 1`` in O(log n)."""
    return bisect_right(_line_starts(text), pos)


class Cell(NamedTuple):
    """A printed number of a matrix (a tuple: a note's thousands of cells are made without a Python call each)."""

    text: str  # as printed (sign, digits, % included)
    start: int  # offset in the note


_START = itemgetter(1)  # Cell.start, for C-level maps over a block's cells
_TEXT = itemgetter(0)  # Cell.text


@dataclass
class Hit:
    line: int
    text: str
    ok: bool
    label: str
    expected: str
    fix: str | None


def _phrase_rx():
    """(tensor, phrase length, its text, a whole word only?) of each phrase of ``WORDS``: looked for with
    ``str.find`` (a regex for each of these literals cost ~40 ms of compiling in every process)."""
    out = []
    for name, phrases in WORDS.items():
        for p in phrases:
            word = p.startswith("|") and p.endswith("|")
            out.append((name, len(p), p.strip("|").replace(" ", ""), word))
    return out


_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")
# a Latin letter with a diacritic after a phrase continues its word: ``kết quả`` names no ``k``, ``vậy`` no ``v``
_ACCENTED = frozenset(chr(c) for c in (*range(0xC0, 0x250), *range(0x1E00, 0x1F00)) if chr(c) not in "×÷")


def _find_phrase(flat: str, body: str, word: bool) -> int:
    """The first offset of ``body`` in ``flat`` (not inside a word of [a-z0-9_] when ``word``), else -1."""
    at = flat.find(body)
    while word and at >= 0:
        end = at + len(body)
        if (at == 0 or flat[at - 1] not in _WORD_CHARS) and (end == len(flat) or flat[end] not in _WORD_CHARS
                                                             and flat[end] not in _ACCENTED):
            break
        at = flat.find(body, at + 1)
    return at


_PHRASES = None


def _flatten(label: str) -> str:
    s = NOTEBOOK_PROMPT.sub("", label) if "[" in label else label
    s = re.sub(r"\\(?:text|mathrm|operatorname|mathbf|textbf|boldsymbol)\s*\{([^{}]*)\}", r"\1", s)
    s = re.sub(r"\\frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}", r"(\1)/(\2)", s)
    s = re.sub(r"\\sqrt\s*\{([^{}]*)\}", r"√(\1)", s)
    s = s.replace("\\sqrt", "√").replace("\\top", "T").replace("\\cdot", "·").replace("\\left", "")
    s = s.replace("\\right", "").replace("^{T}", "^T").replace("^\\top", "^T").replace("^{\\top}", "^T")
    if "\\" in s:  # LaTeX's spaces and environments part words (``\quad K = XW_K``, ``\end{bmatrix}`` then ``K =``
        s = _LATEX_SPACE.sub(",", s)  # on the next line: not "quadk", "endbmatrixk")
    s = re.sub(r"[{}\\$*`]", "", s)
    s = re.sub(r"√\(d_?k\)|√d_?k|sqrt\(d_?k\)", "√d_k", s)
    return re.sub(r"\s+", "", s).lower()


_LATEX_SPACE = re.compile(r"\\(?:q?quad|enspace|thinspace|[,;:! ])(?![A-Za-z])|\\(?:begin|end)[ \t]*\{[A-Za-z*]*\}")
_NAMED: dict[str, list[str]] = {}  # label -> tensors_of(label): a note's labels repeat (rows of one matrix)


def tensors_of(label: str) -> list[str]:
    """The tensors a label names, in the order their phrases occur (the longest phrase at a tie)."""
    names = _NAMED.get(label)
    if names is None:
        if len(_NAMED) > 4096:
            _NAMED.clear()
        names = _NAMED[label] = _tensors_of(label)
    return list(names)


def _tensors_of(label: str) -> list[str]:
    global _PHRASES
    if _PHRASES is None:
        _PHRASES = _phrase_rx()
    flat = _flatten(label)
    found = []
    for name, length, body, word in _PHRASES:
        at = _find_phrase(flat, body, word)
        if at >= 0:
            found.append(((at, -length), name))
    out = []
    for _, name in sorted(found):
        if name not in out:
            out.append(name)
    return out


def tensor_of(label: str) -> str | None:
    """The tensor a label names first."""
    names = tensors_of(label)
    return names[0] if names else None


FLOAT_PLACES = 308  # 10.0 ** 308: the largest power of ten a float holds


def _value(text: str) -> tuple[float, int | None]:
    """(value, decimals) of a printed number; a percentage is its fraction with two more decimals."""
    if "e" not in text and "E" not in text and "%" not in text and "−" not in text and "–" not in text:
        return float(text), (len(text.split(".")[1]) if "." in text else 0)  # what follows, for most numbers
    t = text.replace("−", "-").replace("–", "-")
    pct = t.endswith("%")
    t = t.rstrip("%")
    mant, _, exp = t.lower().partition("e")
    dec = len(mant.split(".")[1]) if "." in mant else 0
    if exp:
        # (an exponent past every float's read as 10**4: int() refuses 4,300 digits; decimals no fewer than -308:
        # the readers' half unit 0.5 * 10.0 ** -dec of ``1e999`` raised an OverflowError out of check)
        power = min(index_int(exp.lstrip("+-")), 10**4)
        dec = max(dec - (-power if exp.startswith("-") else power), -FLOAT_PLACES)
    v = float(t)
    return (v / 100, dec + 2) if pct else (v, dec)


def sums_to_one(vals: list) -> bool:
    """Whether printed numbers (``_value``'s (value, decimals) pairs) sum to 1 up to their rounding, half a unit of
    each one's last digit (``1.2e2``'s is 5: decimals from the exponent, negative too): what a row of attention
    weights does."""
    return abs(sum(v for v, _ in vals) - 1) <= sum(0.5 * 10.0 ** -(d or 0) for _, d in vals) + 1e-9


def _close(text: str, expected: float, scale: float) -> bool:
    v, dec = _value(text)
    return _near(v, dec, expected, scale)


def _near(v: float, dec: int, expected: float, scale: float) -> bool:
    """``_close`` of a number already read by ``_value``."""
    if not math.isfinite(expected):  # (NumPy's isfinite: the same for a number, 20x the time for one)
        return False
    tol = 0.5 * 10.0 ** (-dec) + F32_REL * max(abs(expected), scale) + 1e-15
    return abs(v - expected) <= tol


def _fix_text(text: str, expected: float) -> str | None:
    if not math.isfinite(expected):
        return None  # a masked score (-inf): no digits say it, so no fix is written
    _, dec = _value(text)
    pct = text.endswith("%")
    e = expected * 100 if pct else expected
    d = dec - 2 if pct else dec
    s = fmt(e, d) if d > 0 else str(int(round(e)))
    if text.startswith(("−", "–")) and s.startswith("-"):
        s = text[0] + s[1:]
    mant = text.rstrip("%").lower()
    if "e" in mant:  # numpy's 4.9995e-01: the same mantissa digits, the exponent as printed
        m_dec = len(mant.split("e")[0].split(".")[1]) if "." in mant.split("e")[0] else 0
        s = f"{e:.{m_dec}e}"
        return s.upper() if "E" in text else s
    return s  # the number's digits only: a "%" after it stays in place


# ---------------------------------------------------------------- finding matrices


@dataclass
class Block:
    rows: list  # list of rows, each a list of Cell
    start: int  # offset of the matrix
    label: str  # text naming it
    row_names: list | None = None  # names printed before each row (tables, grids)


_LETTER = re.compile(r"[A-Za-z\u00c0-\u1ef9\u4e00-\u9fff]")
_WORD = re.compile(r"\w")
_NOT_WORDS = re.compile(r"[\s,&;\\()\[\]]*")


# a letter no number holds (a number's only letters are its exponent's "e" or "E"): a row holding one is prose
_LETTER_NOT_E = re.compile(r"[A-DF-Za-df-z\u00c0-\u1ef9\u4e00-\u9fff]")


def _cells(text: str, base: int) -> list[Cell] | None:
    """The numbers of a row, or None when words stand among them (the row is prose, not numbers)."""
    if _LETTER_NOT_E.search(text) is not None:
        return None  # what the numbers leave holds that letter (the check below), found without reading them
    found = list(NUM_RE.finditer(text))
    cells = list(map(tuple.__new__, repeat(Cell), zip(map(re.Match.group, found), map(base.__add__,
                                                                                     map(re.Match.start, found)))))
    # what is left without the numbers is some of text's characters: no letter in text, none left
    if _LETTER.search(text) is not None:
        rest = NUM_RE.sub("", text)
        if _LETTER.search(rest) and not _NOT_WORDS.fullmatch(rest):
            return None
    return cells


_LEAD = re.compile(r"(?:[ \t]*>)*\s*")  # a line's indent and blockquote marks


def _label_before(text: str, start: int) -> str:
    """The text naming what is printed at ``start`` (``_label_text``), with a name that code rebound to a call's
    result read as that call (``_rebound``)."""
    return _rebound(_label_text(text, start))


# ``scores = soft_max(scores)``: an assignment of a call's result to a name (the call's arguments on one line)
_REBIND = re.compile(r"(?<![\w.])(?P<name>[A-Za-z_]\w*)[ \t]*=[ \t]*(?P<call>[A-Za-z_][\w.]*)[ \t]*\([^()\n]*\)")


_REBOUND: dict[str, str] = {}  # label -> _rebound(label): a note's labels repeat


def _rebound(label: str) -> str:
    out = _REBOUND.get(label)
    if out is None:
        if len(_REBOUND) > 4096:
            _REBOUND.clear()
        out = _REBOUND[label] = _rebind(label)
    return out


def _rebind(label: str) -> str:
    """``scores = soft_max(scores)`` then ``print(scores)`` above a printed matrix (heldout5's
    py_numpy_comment_outputs_sci): the name now holds the call's result, so the matrix is the tensor the call
    names (softmax: the weights), not the one the name did. A label with such an assignment, whose call names a
    tensor other than its name's and whose name is used after it, is read from the assignment on with the name
    replaced by the call."""
    if "=" not in label or "(" not in label:
        return label
    for m in _REBIND.finditer(label):
        name, call = m.group("name"), m.group("call")
        called = tensors_of(call)
        if not called or called[:1] == tensors_of(name)[:1]:
            continue
        rest = label[m.end():]
        used = re.compile(r"(?<![\w.])" + re.escape(name) + r"(?!\w)")
        if used.search(rest):
            return call + used.sub(call, rest)
    return label


def _label_text(text: str, start: int) -> str:
    """The text before ``start`` on its line; with no tensor word there, the 2 last lines of the 4 above
    that are not fences (each line cut to its last ``LABEL_REACH`` characters, so that the many matrices
    of one long line do not each read the whole line)."""
    starts = _line_starts(text)
    k = bisect_right(starts, start) - 1
    ls = starts[k]
    same = text[max(ls, start - LABEL_REACH):start]
    same = same.split("\\end{", 1)[-1] if "\\end{" in same else same
    nearest = same.rsplit("]", 1)[-1]  # ``Q = [[..]] V = [[..]] → Output ≈ [[..]]``: the words since the last matrix
    if nearest != same and tensor_of(nearest):
        return nearest
    if tensor_of(same):
        return same
    outside_code = not in_code(text, ls)
    lines, last = [], -1
    for a in range(max(k - 4, 0), k):
        b = starts[a + 1] - 1  # the line's end, before its newline
        first = _LEAD.match(text, starts[a], b).end()
        if outside_code and text.startswith(("```", "~~~"), first, b):
            lines = []  # a code block that ended above is no label for what follows it
        elif first < b and not text.startswith(("```", "~~~", "$$"), first, b):
            if text[first] == "#" and outside_code and _HEADING.match(text, first, b):
                lines = []  # a heading starts a section: the lines above it name nothing in it (it may itself)
            lines.append(text[max(starts[a], b - LABEL_REACH):b])
            last = a
    if lines:
        # a caption just above it, ending in a colon, names it on its own (``**Expected Output**``, "```",
        # ``Attention Weights:``, the matrix): a heading further up is the section's, not this matrix's name
        if len(lines) > 1 and last == k - 1 and lines[-1].rstrip().endswith((":", "：")) and tensor_of(lines[-1]):
            return same + " " + lines[-1]
        return same + " " + " ".join(lines[-2:])
    return same + (text[max(starts[k - 1], ls - LABEL_REACH):ls] if k else "")


_HEADING = re.compile(r"#{1,6}[ \t]")  # a Markdown heading (outside code: not a comment)
_BEGIN = re.compile(r"\\begin\{([bpvBV]?matrix|array)\}")
_HEADER = re.compile(r"\{[^}]*\}")  # array's column spec
_END = re.compile(r"\\end\{([bpvBV]?matrix|array)\}")


def _env_marks(text: str) -> tuple[list[tuple[int, int, str]], dict[str, list[int]]]:
    """(start, end, name) of each ``\\begin{bmatrix|..|array}`` and the offsets of each name's ``\\end{..}``:
    one scan per text for both readers of environments (``_environments`` here, ``forms._matrices``)."""
    table = _per_text(text)
    found = table.get("environments")  # a key that no mark of _offsets uses
    if found is None:
        ends: dict[str, list[int]] = {}
        for e in _END.finditer(text):
            ends.setdefault(e.group(1), []).append(e.start())
        found = table["environments"] = ([(b.start(), b.end(), b.group(1)) for b in _BEGIN.finditer(text)], ends)
    return found


def _environments(text: str):
    """(begin offset, body start, body end) of each ``\\begin{bmatrix}..\\end{bmatrix}``: a begin is closed by
    the first end of the same name after it (as the regex ``begin{(name)}(.*?)end{name}`` reads), found by bisection,
    so that thousands of unclosed begins do not each search the rest of the note."""
    begins, ends = _env_marks(text)
    floor = 0
    for start, b_end, name in begins:
        if start < floor:
            continue
        name_ends = ends.get(name, [])
        body = b_end
        head = _HEADER.match(text, body)
        k = len(name_ends)
        if head:  # the regex takes the column spec when an end follows it, else reads it as body
            k = bisect_right(name_ends, head.end() - 1)
            body = head.end() if k < len(name_ends) else body
        if k == len(name_ends):
            body = b_end
            k = bisect_right(name_ends, body - 1)
            if k == len(name_ends):
                continue
        end = name_ends[k]
        floor = end + len(name) + 6  # past "\\end{name}"
        yield start, body, end


# A scalar just before a matrix, after its relation (``S' = \frac{1}{\sqrt{2}}\begin{bmatrix}``, ``= 0.5 \cdot``): the
# matrix is a factor of the product the relation names, so the lines above (a "Scale by 1/√d_k" heading) name
# the product, not it
_SCALAR_FACTOR = re.compile(r"(?:=|\\approx)\s*(?:\\frac\s*\{[^{}]*\}\s*\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\}"
                            r"|\\sqrt\s*\{[^{}]*\}|[-−]?\d+(?:\.\d+)?)\s*(?:\\cdot|\\times|·|×)?\s*$")


_FACTOR_ENDS = frozenset("}0123456789ts·×")  # the last character of a scalar factor (``\cdot``, ``\times``)


@_memo
def latex_blocks(text: str) -> list[Block]:
    from .notations import formula_label, product_letters  # (notations imports this module)

    out = []
    for begin, base, stop in _environments(text):
        if _LETTER.search(text, base, stop) is None:
            rows = _plain_rows(text, base, stop)
        else:  # words may stand among the numbers (a row of prose, \cdots): each row read on its own
            rows, pos = [], 0
            for part in _ROW_SEP.split(text[base:stop]):
                if part != "\\\\" and part.strip():
                    cells = _cells(part.replace("&", " "), base + pos)
                    if cells is None:
                        rows = None
                        break
                    if cells:
                        rows.append(cells)
                pos += len(part)
        if rows:
            lo = max(line_start(text, begin) - 200, 0)
            end = text.rfind("\\end{", lo, begin)  # (the last matrix's end: a "$$" is searched after it only)
            seg_start = max(end, text.rfind("$$", max(lo, end), begin))
            label = text[max(seg_start, lo):begin]
            if (formula := formula_label(text, begin, label)) is not None:  # ``O = softmax(QK^T/√d_k)V = [..]``
                label = formula
            elif not tensor_of(label) and not (label.rstrip()[-1:] in _FACTOR_ENDS
                                               and _SCALAR_FACTOR.search(label)):
                named = product_letters(text, begin)  # ``S = QK^T = [Q] [Kᵀ] = [S]`` on one line
                label = _label_before(text, begin) if named is None else named
            out.append(Block(rows, begin, label))
    return out


def _plain_rows(text: str, base: int, stop: int) -> list[list[Cell]]:
    """The rows of numbers of a matrix body ``text[base:stop]`` without a letter, split at ``\\\\``, each row's
    cells taken from the note's one scan of numbers (``_scan``): what ``_cells`` reads from each row, since
    no number holds a ``\\``, ``&`` or ``}`` (the characters around a row) nor is cut by one (none is a
    word character, a "." or a digit, the only ones ``NUM_RE`` looks at beyond a number's ends)."""
    starts, texts = _scan(text)
    lo, hi = bisect_left(starts, base), bisect_left(starts, stop)
    if lo == hi:
        return []
    cells = list(map(tuple.__new__, repeat(Cell), zip(texts[lo:hi], starts[lo:hi])))
    # the row breaks: the note's "\\\\"s inside the body, which are split's (the body starts after a "}", so
    # no "\\\\" of the note runs across its start; one across its end, into "\\end", is none of split's)
    seps = _offsets(text, "\\\\")
    seps = seps[bisect_left(seps, base):bisect_left(seps, stop - 1)]
    rows, prev = [], 0
    for at in chain(map(bisect_left, repeat(starts), seps, repeat(lo), repeat(hi)), (hi,)):
        if at - lo > prev:
            rows.append(cells[prev:at - lo])
            prev = at - lo
    return rows


def _scan_cells(text: str, a: int, b: int) -> list[Cell]:
    """The cells of ``text[a:b]`` from the note's one scan of numbers (``_scan``), for a piece without a letter
    cut at characters of ``_EDGE`` (or a line's start, or the text's ends): what ``_cells`` reads from it (with
    its ",", "[" and "]" made spaces, which no number holds nor is cut by), since no number of the note runs
    across those ends nor is read otherwise beside them (none is a character that ``NUM_RE`` looks at beyond
    a number's ends)."""
    starts, texts = _scan(text)
    lo, hi = bisect_left(starts, a), bisect_left(starts, b)
    return list(map(tuple.__new__, repeat(Cell), zip(texts[lo:hi], starts[lo:hi])))


# characters no number holds, nor looks at beside it (no word character, ".", "^", "_", sign or "%")
_EDGE = frozenset("[](){}|&,; \t\n\r`$:=#\\")


def _cells_in(text: str, a: int, b: int) -> list[Cell] | None:
    """``_cells(text[a:b].replace(",", " "), a)``: from the note's one scan of numbers where the piece is cut at
    characters of ``_EDGE`` (a list's brackets) and holds no letter, else read on its own."""
    if (a == 0 or text[a - 1] in _EDGE) and (b == len(text) or text[b] in _EDGE) and \
            _LETTER.search(text, a, b) is None:
        return _scan_cells(text, a, b)
    return _cells(text[a:b].replace(",", " "), a)


@_memo
def bracket_blocks(text: str) -> list[Block]:
    """``[[..], [..]]`` lists and numpy prints (commas optional, one row per line or not)."""
    out = []
    opens = list(_OPEN2.finditer(text))
    if not opens:
        return out
    closing, stack = {}, []  # "[" offset -> its "]" (one pass, instead of a walk from every "[[")
    for at in merge(_offsets(text, "["), _offsets(text, "]")):  # every bracket, in order
        if text[at] == "[":
            stack.append(at)
        elif stack:
            closing[stack.pop()] = at
    for m in opens:
        i = closing.get(m.start())
        if i is None or i - m.start() >= 20000:
            continue
        body = text[m.start() + 1:i]
        rows = []
        for r in _INNER.finditer(body):
            cells = _cells_in(text, m.start() + 1 + r.start(1), m.start() + 1 + r.end(1))
            if cells is None or not cells:
                rows = None
                break
            rows.append(cells)
        if rows and all(len(r) == len(rows[0]) for r in rows):
            out.append(Block(rows, m.start(), _label_before(text, m.start())))
    # a nested list inside another one is found once: keep the outermost (``out`` is in order of start)
    kept, reach = [], -1
    for b in out:
        if reach <= b.start:
            kept.append(b)
        reach = max(reach, b.rows[-1][-1].start)
    return kept


def _inside(text, outer: Block, inner: Block) -> bool:
    return inner.start < outer.rows[-1][-1].start


_ROW_SEP = re.compile(r"(\\\\)")  # a LaTeX row break, kept by split
_OPEN2 = re.compile(r"\[\s*\[")
_INNER = re.compile(r"\[([^\[\]]*)\]")
_CODE_BLOCK = re.compile(r"^```[^\n]*\n(.*?)^```", re.S | re.M)
_EQ_OR_CALL = re.compile(r"[=(]")
_DIGIT = re.compile(r"\d")
# 3+ table lines: ``(?:^\|[^\n]*\|[ \t]*\n){3,}``, the first written to start with its "|" (checked at a line's
# start there), so that the regex engine looks for a "|" before trying the rest (30x faster; the same matches)
_TABLE_RUN = re.compile(r"\|(?<=^\|)[^\n]*\|[ \t]*\n(?:^\|[^\n]*\|[ \t]*\n){2,}", re.M)
_ROW_NAME = re.compile(r"^\s*(?:#\s*)?([^\d\s\[\]|:=-][^\[\]|:=]{0,24}?)\s*[:=|]?\s*(?=[-−\d\[])")


@_memo
def grid_blocks(text: str) -> list[Block]:
    """Plain-text grids in code blocks: 2+ consecutive lines of numbers, a row name or ``# comment`` each."""
    out = []
    from .program import _content

    for _, end, a, content in code_blocks(text):
        placed = _content(text, a, content)
        if placed is None:
            continue  # a line not in the note as is (a tab markdown-it expanded): no place for its numbers
        rows, names, first = [], [], None
        for base, line in [*zip(placed[1], placed[0].split("\n")), (end, "")]:
            body = line.split("#", 1)[0]
            name = None
            nm = _ROW_NAME.match(body)
            if nm and not _EQ_OR_CALL.search(body, 0, nm.end()) and _DIGIT.search(body, nm.end()):
                name = nm.group(1).strip()
                cells_text, off = body[nm.end():], nm.end()
            else:
                cells_text, off = body, 0
            a, b = base + off, base + len(body)
            if "[[" in line or "]]" in line:
                cells = None
            elif (text[a - 1] in _EDGE or (a < len(text) and text[a] in _EDGE)) and _LETTER.search(text, a, b) is None:
                cells = _scan_cells(text, a, b)  # (a line's start, or after its row name where no number starts)
            else:
                cells = _cells(cells_text.replace(",", " ").replace("[", " ").replace("]", " "), a)
            if cells and len(cells) >= 2 and (not rows or len(cells) == len(rows[0])):
                if not rows:
                    first = base
                rows.append(cells)
                names.append(name)
            else:
                if len(rows) >= 2:
                    out.append(Block(rows, first, _label_before(text, first), names))
                rows, names = [], []
                if cells and len(cells) >= 2:
                    first, rows, names = base, [cells], [name]
    return out


@_memo
def table_blocks(text: str) -> list[Block]:
    """Markdown tables whose data rows are a name (a token) and numbers."""
    out = []
    for tm in _TABLE_RUN.finditer(text):
        lines = tm.group(0).split("\n")
        rows, names, pos = [], [], tm.start()
        for k, line in enumerate(lines):
            if k >= 2 and line.strip():
                parts = line.strip().strip("|").split("|")
                off = pos + line.index("|") + 1
                cells, ok = [], True
                for j, p in enumerate(parts):
                    if j == 0 and not NUM_RE.fullmatch(p.strip().strip("*")):
                        names.append(p.strip().strip("*`"))
                    else:
                        c = _cells(p.strip("* "), off + (len(p) - len(p.lstrip("* "))))
                        if not c or len(c) != 1:
                            ok = False
                            break
                        cells.extend(c)
                    off += len(p) + 1
                if not ok or not cells:
                    rows = []
                    break
                if len(names) < len(rows) + 1:
                    names.append(None)
                rows.append(cells)
            pos += len(line) + 1
        if rows and all(len(r) == len(rows[0]) for r in rows):
            out.append(Block(rows, tm.start(), _label_before(text, tm.start()) + " " + lines[0], names))
    return out


_CLOSE = re.compile(r"\s*\]")
# ``(?<![\[\w])\[(?P<body>..)..``, written to start with its "[" (the lookbehind checked there), so that the
# regex engine looks for a "[" before trying the rest (10x faster on a long note; the same matches)
_FLAT = re.compile(r"\[(?<=(?<![\[\w])\[)(?P<body>\s*" + NUM + r"(?:\s*,\s*" + NUM + r")+\s*)\](?!\s*[\[,])")


@_memo
def flat_lists(text: str) -> list[tuple[int, list[Cell]]]:
    """One-dimensional printed lists ``[0.1, 0.2, 0.3]`` / ``tensor([..])`` (not rows of a matrix)."""
    out = []
    for m in _FLAT.finditer(text):
        if text[max(0, m.start() - 1):m.start()] == "[" or _CLOSE.match(text, m.end()):
            continue
        cells = _cells_in(text, m.start("body"), m.end("body"))
        if cells:
            out.append((m.start(), cells))
    return out


# ``name = [n, n, ...]``: read as the value after a separator, then its name looked for before it. This is
# ``(?P<name>[^\n\[\](){}=:|→]{1,40}?)\s*(?:=|:|→)\s*(?:np\.array\(|torch\.tensor\()?[\[(]<numbers>[\])]``
# without its cost: that regex tries 40 name lengths and every split of the spaces at each offset of a
# note, quadratic in a run of spaces. The numbers' separator ``\s*[, ]\s*`` is written so that it
# cannot backtrack (atomic), which reads the same numbers.
_VEC_TAIL = re.compile(r"(?:=|:|→)\s*(?:np\.array\(|torch\.tensor\()?[\[(](?P<body>(?>"
                       + NUM + r"(?:(?>\s*,\s*|[^\S ]*[ ]\s*)" + NUM + r")+))[\])]")
_NAME_STOP = frozenset("\n[](){}=:|→")
# _VEC_TAIL's matches, by one scan per separator, each led by its literal (the regex engine looks for it fast,
# where it tries the alternation at every character); a match holds no other separator, so none overlaps another
_VEC_TAILS = tuple(re.compile(re.escape(sep) + _VEC_TAIL.pattern[len("(?:=|:|→)"):]) for sep in "=:→")


def _vec_tails(text: str):
    """``_VEC_TAIL.finditer(text)``, from the scans of ``_VEC_TAILS`` merged in order."""
    return merge(*(rx.finditer(text) for rx in _VEC_TAILS if rx.pattern[0] in text), key=re.Match.start)


@_memo
def _vectors(text: str) -> list[tuple[str, str, int, int]]:
    """``_vector_matches`` once per text (``row_vectors`` and ``notations.rows_after_scores`` read them)."""
    return list(_vector_matches(text))


def _vector_matches(text: str):
    """(name, body, body offset, offset) of each ``name = [numbers]``, as the regex above finds them:
    the name is the leftmost start (after the previous match) of at most 40 characters without a
    bracket, separator or newline, followed by spaces (newlines too) up to the separator."""
    floor = 0
    for m in _vec_tails(text):
        s = w = m.start()
        while w > floor and text[w - 1].isspace():
            w -= 1
        lo = e = max(floor, w - 40)
        for k in range(w - 1, lo - 1, -1):
            if text[k] in _NAME_STOP:
                e = k + 1
                break
        if e < w:
            p, q = e, w
        else:  # the name is one blank of the run (a newline may not be in a name)
            p = w
            while p < s and text[p] == "\n":
                p += 1
            if p == s:
                continue  # no name before this separator
            q = p + 1
        floor = m.end()
        yield text[p:q], m.group("body"), m.start("body"), p


def row_vectors(text: str, cfg: dict) -> list[tuple[str, int, list[Cell], int]]:
    """``q1 = [1, 0, 1]``, ``Row 2: [..]``, ``Tôi: [..]``: (name, row index, cells, offset)."""
    return _row_vectors(text, tuple(w.lower() for w in (cfg.get("labels") or [])))


@_memo
def _row_vectors(text: str, words: tuple) -> list[tuple[str, int, list[Cell], int]]:
    out = []
    for raw, body, body_start, start in _vectors(text):
        name = re.sub(r"^\s*(?:[-*+]|\d+\.)\s+", "", raw).strip().strip("*`$ ")
        cells = _cells_in(text, body_start, body_start + len(body))
        if not cells:
            continue
        low = name.lower()
        idx = None
        rm = re.search(r"(?:^|[\s_(])(?:" + "|".join(ROW_WORDS) + r")\s*_?(\d+)\s*(?:行)?$", low) or \
            re.fullmatch(r"(?:\\?[a-z]+_?\{?)?([qkvxzo])_?\{?(\d+)\}?", low)
        if rm and rm.lastindex == 2:
            idx = index_int(rm.group(2)) - 1
        elif rm:
            idx = index_int(rm.group(1)) - 1
        elif low in words:
            idx = words.index(low)
        if idx is not None and idx >= 0:
            out.append((name, idx, cells, start))
    return out


# ---------------------------------------------------------------- comparing


def _expected(trace, name: str, head: int):
    if name == "scores_masked_raw" and "mask" in trace.steps:  # masked before scaling
        from ..config import MASK_FILL_VALUES

        raw = _expected(trace, "scores", head)
        fill = MASK_FILL_VALUES[trace.config.get("mask_fill", "-inf")]
        return None if raw is None else np.where(trace["mask"] > 0, raw, fill)
    if name not in trace.steps:
        return None
    step = trace.steps[name]
    a = step.data
    if step.axes[:1] == ("batch",):
        a = a[0]
    if step.axes[1:2] == ("head",):
        a = a[head] if head < a.shape[0] else None
    if a is not None and name.startswith("w_") and trace.config.get("weight_layout") == "in_out":
        a = a.T
    return None if a is None else np.asarray(a)


def _candidates(name: str, trace) -> list[str]:
    if name in ("scores", "scores_scaled", "scores_masked"):
        order = {"scores": ["scores", "scores_scaled", "scores_masked"],
                 "scores_scaled": ["scores_scaled", "scores_masked"],
                 "scores_masked": ["scores_masked", "scores_masked_raw"]}[name]
        return [n for n in order if n in trace.steps or (n == "scores_masked_raw" and "mask" in trace.steps)]
    if name == "out":
        return ["out", "o"]
    return [name]


def _judge(cells: list[Cell], exp: np.ndarray, label: str, text: str, sure: bool = False,
           gated: bool = True, most: bool = False) -> list[Hit] | None:
    """Verdicts for ``cells`` read as ``exp``; None when fewer than half agree (``most``: unless more than half
    agree), unless the label is ``sure`` (it names one tensor, the only one of that shape): then a wholly wrong
    matrix is wrong. ``gated=False``: no such gate, for cells whose tensor and row are known from elsewhere."""
    flat = exp.reshape(-1)
    if len(flat) != len(cells):
        return None
    ordinary = flat[np.isfinite(flat) & (np.abs(flat) < 1e4)]  # mask fills (-1e9) do not widen the others
    scale = float(np.max(np.abs(ordinary))) if ordinary.size else 0.0
    values = list(map(_value, map(_TEXT, cells)))  # each (value, decimals) read once, for both uses
    oks = list(map(_near, map(itemgetter(0), values), map(itemgetter(1), values), flat.tolist(), repeat(scale)))
    if gated and not (sure and len(oks) >= 4) and (sum(oks) * 2 < len(oks) + most or (len(oks) <= 2 and not all(oks))):
        return None
    lines = map(bisect_right, repeat(_line_starts(text)), map(_START, cells))  # line_of of each cell
    return [_Judged(line, c.text, ok, label, e, dec)
            for line, c, e, ok, (_, dec) in zip(lines, cells, flat, oks, values)]


def best_reading(cells: list[Cell], shaped: list, names: list[str], text: str, sure: bool) -> list[Hit] | None:
    """The verdicts of ``cells`` read as the candidate of ``shaped`` ((tensor, value) pairs) they agree with most.
    A candidate the label does not name itself, only a word widened to it (``scores``: the scaled scores too), is
    read only where most of the cells (more than half) agree with it: a ``QKᵀ`` whose 1s and 0s agree with
    ``QKᵀ/√2 = 1.414`` in half its cells is another matrix, not a wrong copy of the scaled scores (heldout3's
    ja_projection_tables_latex), and ``--fix`` must not write their digits there."""
    best = None
    for cand, exp2 in shaped:
        res = _judge(cells, exp2, cand, text, sure, most=cand not in names)
        if res is not None and (best is None or sum(h.ok for h in res) > sum(h.ok for h in best)):
            best = res
    return best


class _Judged(Hit):
    """A verdict of ``_judge``: its expected value and fix are printed when first read (most never are: the Checker
    has decided most numbers of a generated note already, and the merge reads only the others)."""

    def __init__(self, line: int, printed: str, ok: bool, label: str, e, dec: int):
        self.line, self.text, self.ok, self.label = line, printed.replace("−", "-").replace("–", "-"), ok, label
        self._printed, self._e, self._dec, self._shown = printed, e, max(dec, 0), None

    @property
    def expected(self) -> str:
        if self._shown is None:
            e, dec = self._e, self._dec
            if self._printed.endswith("%") and np.isfinite(e):
                self._shown = fmt(float(e) * 100, max(dec - 2, 0)) + "%"
            else:
                self._shown = fmt(float(e), dec) if np.isfinite(e) else str(e)
        return self._shown

    @expected.setter
    def expected(self, value: str) -> None:  # a Hit's fields stay assignable
        self._shown = value

    @property
    def fix(self) -> str | None:
        if "_fix" in self.__dict__:
            return self.__dict__["_fix"]
        return None if self.ok else _fix_text(self._printed, float(self._e))

    @fix.setter
    def fix(self, value: str | None) -> None:
        self.__dict__["_fix"] = value


_HEAD = re.compile(r"(?:[Hh]ead|头)\s*_?(\d+)")
# _HEAD's matches, by a scan led by a literal (the regex engine looks for it fast; an alternation is tried at
# every character): "ead" after an "H" or "h", and "头" where the note has one
_EAD = re.compile(r"ead(\s*)(_?)(\d+)")
_TOU = re.compile(r"头(\s*)(_?)(\d+)")
HEAD_REACH = 600  # characters before a matrix where its head is named


def _heads(text: str) -> tuple[list[int], list[int], list[str]]:
    """(starts, ends, printed head numbers) of ``_HEAD``'s matches in ``text``, once per text. They never overlap
    (a match holds one "head" or "头", at its start), so those of any part of the text are these."""
    table = _per_text(text)
    found = table.get("heads")  # a key that no mark of _offsets uses
    if found is None:
        ms = [(m.start() - 1, m) for m in _EAD.finditer(text) if m.start() and text[m.start() - 1] in "Hh"]
        if "头" in text:
            ms = sorted(ms + [(m.start(), m) for m in _TOU.finditer(text)], key=itemgetter(0))
        found = table["heads"] = ([a for a, _ in ms], [m.end() for _, m in ms], [m.group(3) for _, m in ms])
    return found


def _head_at(text: str, pos: int) -> int:
    """The head named last in the ``HEAD_REACH`` characters before ``pos`` (``Head 1``, ``head_0``, ``头 2``),
    else 0."""
    starts, ends, values = _heads(text)
    k = bisect_left(starts, pos) - 1  # the last match starting before pos
    if k < 0 or starts[k] < pos - HEAD_REACH:
        return 0
    if ends[k] > pos:  # cut by pos: what is left of it before pos is read as the window alone reads it
        hs = _HEAD.findall(text, max(0, pos - HEAD_REACH), pos)
        return index_int(hs[-1]) if hs else 0
    return index_int(values[k])


def head_at(text: str, pos: int) -> int:
    """The 0-based head of the place ``pos``: ``_head_at``'s, one less where the note counts its heads from 1 (as
    ``_blocks_and_lists`` reads a matrix's)."""
    h = _head_at(text, pos)
    return h - 1 if h > 0 and _one_based_heads(text) else h


def _one_based_heads(text: str) -> bool:
    """Whether the note names a head 1 and no head 0 (``[Hh]ead\\s*1\\b`` and not ``[Hh]ead\\s*0\\b``): its heads
    are counted from 1. From the scan of ``_heads``: those matches without "_" whose number is "1" or "0" with
    no word character after it. Found once a note: ``head_at`` asks it for every number the readers place (a
    walk over every head's match each time was quadratic in a note of many heads)."""
    table = _per_text(text)
    got = table.get(("one-based heads",))  # (a tuple: no mark of _offsets)
    if got is None:
        starts, ends, values = _heads(text)
        found = set()
        for a, e, v in zip(starts, ends, values):
            if v in ("0", "1") and text[a] != "头" and "_" not in text[a:e] and not _WORD.match(text, e):
                found.add(v)
        got = table[("one-based heads",)] = "1" in found and "0" not in found
    return got


def find(text: str, trace, failed: list[str] | None = None) -> dict[int, Hit]:
    """Verdicts for the numbers of ``text`` this reader understands, by offset. Each reader runs guarded
    (``forms.guarded``): one that raises loses only its own verdicts, and is named in ``failed``."""
    from . import forms, program

    failed = [] if failed is None else failed
    hits: dict[int, Hit] = {}
    forms.guarded(_blocks_and_lists, hits, failed, text, trace, hits)
    forms.after(text, trace, hits, failed)  # forms that read what the blocks left (check/forms.py)
    forms.guarded(program.code_literals, hits, failed, text, trace, hits)  # python blocks' literals (check/program.py)
    forms.guarded(_restated_lists, hits, failed, text, hits)
    labels = tuple(trace.config.get("kv_labels") or trace.config.get("labels") or ())
    forms.guarded(_restated_by_token, hits, failed, text, hits, labels)
    forms.guarded(_restated_by_name, hits, failed, text, hits, labels)
    forms.guarded(_restated_by_self, hits, failed, text, hits, labels)
    forms.guarded(_own_weight, hits, failed, text, trace, hits, labels)
    forms.guarded(_restated_as_percent, hits, failed, text, hits, labels)
    return hits


def _blocks_and_lists(text: str, trace, hits: dict) -> None:
    """Matrices (blocks, LaTeX, brackets, grids, tables), one-row lists, shapes and row vectors, into ``hits``."""
    cfg = trace.config
    one_based_heads = _one_based_heads(text)

    heads: dict[int, int] = {}  # offset -> head: asked once per candidate tensor of a block

    def head_of(pos):
        h = heads.get(pos)
        if h is None:
            h = heads[pos] = _head_at(text, pos)
        return h - 1 if one_based_heads and h > 0 else h

    from . import forms
    from .equation_subject import subject
    from .head_superscripts import superscript_head
    from .latex_tabular import tabular_blocks  # LaTeX tabular (heldout15)
    from .markup_tables import markup_blocks  # reStructuredText and AsciiDoc tables (heldout14)

    blocks = forms.blocks(text) + latex_blocks(text) + bracket_blocks(text) + grid_blocks(text) + table_blocks(text)
    blocks += markup_blocks(text) + tabular_blocks(text)
    foreign = forms.foreign_sections(text, trace)  # another example's section: never "sure" there
    taken = set()
    for b in sorted(blocks, key=lambda b: b.start):
        names = None if b.label is None else subject(b.label, tensors_of(b.label), tensors_of)  # equation_subject
        if names == []:
            continue  # no tensor named: nothing to judge, nothing taken
        cells = list(chain.from_iterable(b.rows))
        if not taken.isdisjoint(map(_START, cells)):
            continue
        if names is None:  # a form says these numbers are no tensor of the trace (forms.py): leave them unread
            taken.update(map(_START, cells))
            continue
        shaped = []
        head = superscript_head(b.label, text, cfg.get("heads", 1))  # Q^{(2)}= names its head (head_superscripts)
        for cand in [c for n in names for c in _candidates(n, trace)]:
            exp = _expected(trace, cand, head_of(b.start) if head is None else head)
            exp2 = None if exp is None else exp if exp.ndim == 2 else exp.reshape(1, -1) if exp.ndim == 1 else None
            if exp2 is not None and (len(b.rows), len(b.rows[0])) == exp2.shape:
                shaped.append((cand, exp2))  # one printed row of a bigger matrix is a row vector, read below
        if shaped and text.startswith("\\begin", b.start):  # a LaTeX factor of a product is none of its results
            from .notations import factor_readings  # (notations imports this module)

            shaped = factor_readings(text, b.start, shaped)
        # one tensor named, one value of that shape: the matrix is that tensor even where all of it is wrong
        sure = len(names) == 1 and len(shaped) >= 1 and all(
            np.array_equal(e, shaped[0][1], equal_nan=True) for _, e in shaped) and not forms.in_any(b.start, foreign)
        best = best_reading(cells, shaped, names, text, sure)
        if best:
            for c, h in zip(cells, best):
                hits[c.start] = h
                taken.add(c.start)
    for start, cells in flat_lists(text):
        # ``Attention weights: tensor([0.1, 0.2, ...])`` of a tensor with one row (one query): the whole tensor
        if not taken.isdisjoint(map(_START, cells)):
            continue
        for cand in [c for n in tensors_of(_label_before(text, start)) for c in _candidates(n, trace)]:
            exp = _expected(trace, cand, head_of(start))
            if exp is None or exp.size != len(cells) or exp.reshape(-1).shape[0] != max(exp.shape, default=0):
                continue
            res = _judge(cells, exp.reshape(1, -1), cand, text)
            if res is not None:
                for c, h in zip(cells, res):
                    hits[c.start] = h
                    taken.add(c.start)
                break
    from . import shapes, symbols

    for pos, v, e, label in shapes.claims(text, trace, symbols(trace)):
        if pos not in hits:
            hits[pos] = Hit(line_of(text, pos), str(v), v == e, label, str(e), None if v == e else str(e))
    for vname, idx, cells, start in row_vectors(text, cfg):
        if not taken.isdisjoint(map(_START, cells)):
            continue
        names = tensors_of(vname) or tensors_of(_label_before(text, start))
        low = vname.lower()
        single = re.fullmatch(r"(?:\\?[a-z]+_?\{?)?([qkvxzo])_?\{?\d+\}?", low)
        if single:
            names = [{"q": "q", "k": "k", "v": "v", "x": "x", "z": "out", "o": "out"}[single.group(1)]]
        for cand in [c for n in names for c in _candidates(n, trace)]:
            exp = _expected(trace, cand, head_of(start))
            if exp is None or exp.ndim != 2 or idx >= exp.shape[0]:
                continue
            res = _judge(cells, exp[idx], f"{cand}[{idx}]", text)
            if res is not None:
                for c, h in zip(cells, res):
                    hits[c.start] = h
                    taken.add(c.start)
                break


RESTATE_REACH = 60  # lines: how far apart a list and its verbatim restatement may be


def _restated_lists(text: str, hits: dict) -> None:
    """A list of 3+ computed numbers printed again verbatim near a judged one, or a judged table column above
    it in order, restates it (heldout5: the slide's ``[0.304, 0.529, 0.603, 0.339]`` quoted, then ``expected =
    np.array([0.304, ...])``; a table's row of the output, then ``New E: [0.25, 0.22, 0.31, 0.14]``; a table's
    column of scores, then ``Raw Attention Scores: [..]``): it gets those verdicts, one by one.
    Computed: two decimals or more each; short given numbers (``[0, 1, 0, 1]``, ``[2.0, 1.0, 0.1]``) recur as
    other things (an input row is a query row)."""
    def computed(cells):  # (or two of three decimals each: ``[0.669, 0.331]`` quoted in prose, heldout10's lesson)
        return len(cells) >= 3 and all(len(c.text.partition(".")[2]) >= 2 for c in cells) or \
            len(cells) == 2 and all(len(c.text.partition(".")[2]) >= 3 for c in cells)

    lists = flat_lists(text)
    unread = [(start, cells) for start, cells in lists
              if cells[0].start not in hits and not any(c.start in hits for c in cells) and computed(cells)]
    if not unread:
        return  # (a generated note: every list judged)
    keys = {tuple(map(_TEXT, cells)) for _, cells in unread}
    firsts = {k[0] for k in keys}
    judged: dict[tuple, list] = {}  # the texts of a list -> (line, its verdicts) of each judged one
    for start, cells in lists:
        if cells[0].text in firsts and (key := tuple(map(_TEXT, cells))) in keys and \
                all(c.start in hits for c in cells):
            judged.setdefault(key, []).append((line_of(text, start), [hits[c.start] for c in cells]))
    starts = _line_starts(text)
    for start, cells in unread:
        line = bisect_right(starts, start)
        seen = judged.get(tuple(map(_TEXT, cells)), [])
        near = [v for at, v in seen if abs(at - line) <= RESTATE_REACH] or _column_above(cells, line, text, hits)
        if not near:
            continue
        restated = [Hit(line_of(text, c.start), c.text, h.ok, h.label, h.expected, h.fix)
                    for c, h in zip(cells, near[0])]
        for c, h in zip(cells, restated):
            hits[c.start] = h
        # a restatement is restated in its turn (a table of projections, the next table's column of them)
        judged.setdefault(tuple(map(_TEXT, cells)), []).append((line, restated))


# ``H (0.194)``, ``A(0.143)``: a number of 2+ decimals in parentheses (found from its "(") just after a word
_PAREN_VALUE = re.compile(r"\((?P<n>\d+\.\d{2,})\)")
_WORD_BEFORE = re.compile(r"(?<![\w.])(?P<w>[^\W\d_][\w']{0,30})[ \t]?$")


def _restated_by_token(text: str, hits: dict, tokens: tuple) -> None:
    """``Highest attention to H (0.194)``, a diagram's ``A(0.143)``: a number in parentheses after a token's
    word restates that token's judged number of a table row above (``| 8 | H | ... | 0.194 |``, heldout5's ViT
    guide): it gets that verdict. Only the tokens of the config, only a row naming the token in a cell of its
    own, only a judged number printed the same."""
    if not tokens or "(" not in text:
        return
    found = []  # (the word, the number, its offset)
    for m in _PAREN_VALUE.finditer(text):
        w = _WORD_BEFORE.search(text, max(0, m.start() - 32), m.start())
        if w is not None and w.group("w") in tokens and m.start("n") not in hits:
            found.append((w.group("w"), m.group("n"), m.start("n")))
    if not found:
        return
    starts, lines = _line_starts(text), text.split("\n")
    by_line: dict[int, dict[str, Hit]] = {}
    for h in hits.values():
        by_line.setdefault(h.line, {}).setdefault(h.text, h)
    for word, num, at in found:
        line = bisect_right(starts, at)
        for above in range(line - 1, max(line - 1 - RESTATE_REACH, 0), -1):
            h = by_line.get(above, {}).get(num)
            if h is not None and "|" in lines[above - 1] and \
                    word in (c.strip().strip("*`") for c in lines[above - 1].split("|")):
                hits[at] = Hit(line, num, h.ok, h.label, h.expected, h.fix)
                break


# ``Virat=0.34``: a word, "=" and a decimal (a token's weight written as a keyword argument)
_NAME_VALUE = re.compile(r"(?<![\w.])(?P<w>[^\W\d_][\w']{0,30})[ \t]*=[ \t]*(?P<n>\d+\.\d+)(?![\w.]|\.\d)")


def _restated_by_name(text: str, hits: dict, tokens: tuple) -> None:
    """``(Virat=0.34, scored=0.29, a=0.17, century=0.31)`` under ``Attention weights: [0.34, 0.29, 0.17, 0.31]``
    (heldout7's handbook): a line of 2+ ``token=number`` pairs, each word a token of the config (once), restates a
    judged row of one number per token within ``RESTATE_REACH`` lines above, where each pair's number is printed
    as that row's number at its token's place: each pair gets that verdict."""
    if len(tokens) < 2 or "=" not in text:
        return
    found: dict[int, list] = {}  # line -> [(word, number, offset)]
    for m in _NAME_VALUE.finditer(text):
        if m.group("w") in tokens and m.start("n") not in hits:
            found.setdefault(line_of(text, m.start()), []).append((m.group("w"), m.group("n"), m.start("n")))
    found = {ln: pairs for ln, pairs in found.items()
             if len(pairs) >= 2 and len({w for w, _, _ in pairs}) == len(pairs)}
    if not found:
        return
    rows: dict[int, list[Hit]] = {}
    for at in sorted(hits):
        h = hits[at]
        rows.setdefault(h.line, []).append(h)
    for line, pairs in found.items():
        for above in range(line - 1, max(line - 1 - RESTATE_REACH, 0), -1):
            row = rows.get(above, [])
            if len(row) == len(tokens) and all(row[tokens.index(w)].text == n for w, n, _ in pairs):
                for w, n, at in pairs:
                    h = row[tokens.index(w)]
                    hits[at] = Hit(line, n, h.ok, h.label, h.expected, h.fix)
                break


def _restated_by_self(text: str, hits: dict, tokens: tuple) -> None:
    """``Lower attention to itself (0.084)`` under a diagram ``D(0.170) → E(0.084) ← F(0.134)`` (heldout5's ViT
    guide): a number in parentheses after a word naming the query's own key restates the one judged number printed
    the same, in parentheses just after a token of the config, within ``RESTATE_REACH`` lines above: it gets that
    verdict (none where no such number, or several judged differently, are there)."""
    if not tokens or "(" not in text or not any(w in text for w in SELF_WORDS):
        return
    starts = _line_starts(text)
    for m in _PAREN_VALUE.finditer(text):
        before = text[max(0, m.start() - 16):m.start()].rstrip().lower()
        if m.start("n") in hits or not before.endswith(SELF_WORDS):
            continue
        num, line = m.group("n"), bisect_right(starts, m.start())
        lo = starts[max(line - 1 - RESTATE_REACH, 0)]
        seen = set()
        at = text.find("(" + num + ")", lo, starts[line - 1])
        while at >= 0:
            h = hits.get(at + 1)
            w = _WORD_BEFORE.search(text, max(0, at - 32), at)
            if h is not None and w is not None and w.group("w") in tokens:
                seen.add((h.ok, h.label, h.expected, h.fix))
            at = text.find("(" + num + ")", at + 1, starts[line - 1])
        if len(seen) == 1:
            ok, label, expected, fix = seen.pop()
            hits[m.start("n")] = Hit(line, num, ok, label, expected, fix)


_QUOTED = re.compile(r"[\"“«「]\s*(?P<w>[^\"”»」\n]{1,30}?)\s*[\"”»」]")
_SELF_AFTER = re.compile(r"[ \t]*(?:[^\W\d_]{1,3}[ \t]+)?(?P<w>[^\s,.;:()]+)")  # ``à lui-même``, ``to itself``


def _own_weight(text: str, trace, hits: dict, tokens: tuple) -> None:
    """``"dort" accorde plus de la moitié de son attention (0.504) à lui-même`` (heldout8's French exercise): a number
    in parentheses followed by a word naming the query's own key (``SELF_WORDS``, after a short preposition), in a
    sentence that names one token of the config in quotes: that token's weight on itself, attn[q, q]."""
    if not tokens or "(" not in text or not any(w in text for w in SELF_WORDS):
        return
    attn = _expected(trace, "attn", 0)
    if attn is None or attn.ndim != 2 or attn.shape[0] != attn.shape[1] or attn.shape[0] != len(tokens):
        return
    for m in _PAREN_VALUE.finditer(text):
        after = _SELF_AFTER.match(text, m.end())
        if m.start("n") in hits or after is None or after.group("w").lower() not in SELF_WORDS:
            continue
        start = max(text.rfind("\n", 0, m.start()), text.rfind(". ", 0, m.start())) + 1
        named = {q.group("w") for q in _QUOTED.finditer(text, start, m.start())} & set(tokens)
        if len(named) != 1:
            continue
        q = tokens.index(named.pop())
        (hits[m.start("n")],) = _judge([Cell(m.group("n"), m.start("n"))], attn[q, [q]], f"attn[{q}, {q}]", text,
                                       gated=False)


# ``5% Non-Clickbait``: a percentage, then a word (a token's, hyphens allowed)
_PERCENT_TOKEN = re.compile(r"(?<![\w.])(?P<n>\d+(?:\.\d+)?)[ \t]*%[ \t]*(?P<w>[^\W\d_][\w'-]{0,30})")


def _restated_as_percent(text: str, hits: dict, tokens: tuple) -> None:
    """``tensor([[0.05, 0.95]]) → 5% Non-Clickbait, 95% Clickbait`` (heldout7's Indonesian comments): a percentage
    before a token of the config restates, as a percentage, the number at that token's place of the row judged on
    its line (one number per token), printed the same at the same precision (0.05 as 5%): it gets that number's
    verdict, as a percentage (torch's 0.0241, 0.02 there, is 2%)."""
    if len(tokens) < 2 or "%" not in text:
        return
    found: dict[int, list] = {}
    for m in _PERCENT_TOKEN.finditer(text):
        if m.group("w") in tokens and m.start("n") not in hits:
            found.setdefault(line_of(text, m.start()), []).append(m)
    if not found:
        return
    rows: dict[int, list[Hit]] = {}
    for at in sorted(hits):
        if hits[at].line in found:
            rows.setdefault(hits[at].line, []).append(hits[at])
    for line, ms in found.items():
        row = rows.get(line, [])
        if len(row) != len(tokens):
            continue
        for m in ms:
            h, printed = row[tokens.index(m.group("w"))], m.group("n") + "%"
            dec = _value(printed)[1]
            value, at = _value(h.text)
            if at != dec or fmt(value * 100, max(dec - 2, 0)) != m.group("n"):
                continue  # not the row's number restated at its precision
            # the same number at the same precision: its verdict, its expected value and fix as percentages
            shown = fmt(float(h.expected) * 100, max(dec - 2, 0))
            hits[m.start("n")] = Hit(line, printed, h.ok, h.label, shown + "%", None if h.ok else shown)


def _column_above(cells: list[Cell], line: int, text: str, hits: dict) -> list:
    """``[verdicts]`` of a table column above ``line`` that the list restates in order (``**Raw Attention
    Scores:** [0.011, 0.143, ...]`` under a table whose last cells are those scores): one judged number printed
    the same on each of ``len(cells)`` consecutive table lines; else ``[]``."""
    starts = _line_starts(text)

    def judged_on(k: int, t: str) -> Hit | None:  # a judged number printed as ``t`` on table line k (1-based)
        a, b = starts[k - 1], (starts[k] if k < len(starts) else len(text))
        at = text.find(t, a, b) if text.find("|", a, b) >= 0 else -1
        while at >= 0:
            if (h := hits.get(at)) is not None and h.text == t:
                return h
            at = text.find(t, at + 1, b)
        return None

    n, first, ends = len(cells), cells[0].text, len(starts)
    for top in range(line - n, max(line - n - RESTATE_REACH, 0), -1):
        # the column's first number on a table line (one C-level find each, where most lines have neither)
        a, b = starts[top - 1], (starts[top] if top < ends else len(text))
        if text.find(first, a, b) < 0 or text.find("|", a, b) < 0:
            continue
        found = []
        for i, c in enumerate(cells):
            h = judged_on(top + i, c.text)
            if h is None:
                break
            found.append(h)
        else:
            return [found]
    return []


_SUB_BEFORE = re.compile(r"[\^_]\{?[-−]?$")


def numbers(text: str) -> list[tuple[int, str]]:
    """Every number of ``text`` (integers included): (offset, printed text)."""
    return list(zip(*_numbers(text)))


_NUM_SPLIT = re.compile("(" + _NUM_SCAN.pattern + ")")  # re.split's pieces: text between numbers, then a number


def _scan(text: str) -> tuple[list[int], list[str]]:
    """(offsets, texts) of every match of ``NUM_RE`` in ``text``, found once per text: ``_numbers`` and the
    readers that take a block's cells from it. By ``re.split`` (the pieces' lengths add up to the offsets):
    no match object per number, half the time of ``finditer`` on a long note."""
    table = _per_text(text)
    found = table.get("numbers")  # a key that no mark of _offsets uses
    if found is None:
        pieces = _NUM_SPLIT.split(text)
        found = table["numbers"] = (list(accumulate(map(len, pieces)))[0:-1:2], pieces[1::2])
    return found


def _numbers(text: str) -> tuple[list[int], list[str]]:
    """``numbers`` as two lists (offsets, printed texts), built without Python work per number: the
    merge of ``check`` walks every number of a note."""
    starts, texts = _scan(text)
    # an exponent or subscript of a formula (d_k^{-0.5}, W_{1}) is part of a name: _SUB_BEFORE ends with
    # its "^" or "_" at most 3 characters before the number, so only the few offsets after one can be one
    near = {s for mark in ("^", "_") for at in _offsets(text, mark) for s in (at + 1, at + 2, at + 3)}
    subs = {s for s in near.intersection(starts) if _SUB_BEFORE.search(text, max(0, s - 3), s)}
    if subs:
        keep = list(map(not_, map(subs.__contains__, starts)))
        starts, texts = list(compress(starts, keep)), list(compress(texts, keep))
    return starts, list(map(str.rstrip, texts, repeat(".")))  # "step 1." is 1


def frac(x: float) -> Fraction:
    return Fraction(x)
