"""Numbers and small expressions inside math, code and prose text (DESIGN §7).

``normalize`` rewrites LaTeX into a flat form (``\\text{QKV}`` -> ``QKV``, ``\\hat{S}`` -> ``Ŝ``,
``\\begin{bmatrix}`` -> ``⟦``) without ever adding or removing a newline, so a position in the
normalized text still tells its line. ``parse_chain`` reads ``expr (= | ≈ | :) expr ...`` with a
small recursive-descent parser that stops at the first token it cannot use (prose after a claim).
Evaluation is exact (sympy) for the value and interval arithmetic (mpmath) for the rounding of
printed operands; both are imported lazily so ``attnwalk render`` never loads them.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import repeat
from operator import attrgetter, ne

from .indices import LONGEST, decimal_fraction

# ---------------------------------------------------------------- normalization


def _trigger(pattern: str) -> tuple[str, ...]:
    """Substrings one of which a text must hold for ``pattern`` to match it (a cheap test that skips
    most of the substitutions on most lines): a LaTeX command's own name, backslash included (every
    match of its pattern starts with one of them)."""
    if pattern.startswith("\\\\"):
        return _LATEX_TRIGGERS[pattern]
    return {"->": ("->",), r"_\{([^{}\n]*)\}": ("_{",), r"\^\{([^{}\n]*)\}": ("^{",),
            r"(?<=\S)\*\*|\*\*(?=\S)": ("**",), "−|–": ("−", "–"), "²": ("²",), "³": ("³",),
            r"\$": ("$",), "`": ("`",)}[pattern]


_LATEX_TRIGGERS = {
    r"\\(?:text|mathrm|operatorname|mathbf|textbf|mathit|textit|boldsymbol)\s*\{([^{}\n]*)\}":
        ("\\text", "\\mathrm", "\\operatorname", "\\mathbf", "\\mathit", "\\boldsymbol"),
    r"\\(?:hat|widehat)\s*\{\s*S\s*\}|\\hat\s+S": ("\\hat", "\\widehat"),
    r"\\(?:tilde|widetilde)\s*\{\s*S\s*\}": ("\\tilde", "\\widetilde"),
    r"\\begin\{[bpvB]?matrix\}": ("\\begin",),
    r"\\end\{[bpvB]?matrix\}": ("\\end",),
    r"\\begin\{[a-z*]+\}|\\end\{[a-z*]+\}": ("\\begin", "\\end"),
    r"\\approx": ("\\approx",),
    r"\\cdot(?![a-z])": ("\\cdot",),
    r"\\times": ("\\times",),
    r"\\div": ("\\div",),
    r"\\(?:left|right|big|Big|bigg|Bigg)(?![a-z])": ("\\left", "\\right", "\\big", "\\Big"),
    r"\\[,;!: ]|\\qquad|\\quad": ("\\,", "\\;", "\\!", "\\:", "\\ ", "\\qquad", "\\quad"),
    r"\\(?:cdots|ldots|dots)": ("\\cdots", "\\ldots", "\\dots"),
    r"\\(?:vdots|ddots)": ("\\vdots", "\\ddots"),
    r"\\(exp|ln|log|max|min)(?![a-z])": ("\\exp", "\\ln", "\\log", "\\max", "\\min"),
    r"\\sqrt\s*\{([^{}\n]*)\}": ("\\sqrt",),
    r"\\frac\s*\{([^{}\n]*)\}\s*\{([^{}\n]*)\}": ("\\frac",),
    r"\\alpha": ("\\alpha",),
    r"\\infty": ("\\infty",),
    r"\\(?:to|rightarrow)(?![a-z])": ("\\to", "\\rightarrow"),
    r"\\pi(?![a-z])": ("\\pi",),
    r"\\sum": ("\\sum",),
    r"\\(?:varepsilon|epsilon)": ("\\varepsilon", "\\epsilon"),
    r"\\vert": ("\\vert",),
    r"\\\\": ("\\\\",),
}

_SUBS: list[tuple[re.Pattern, str, tuple[str, ...]]] = [
    (re.compile(p), r, _trigger(p)) for p, r in [
        (r"\\(?:text|mathrm|operatorname|mathbf|textbf|mathit|textit|boldsymbol)\s*\{([^{}\n]*)\}", r"\1"),
        (r"\\(?:hat|widehat)\s*\{\s*S\s*\}|\\hat\s+S", "Ŝ"),
        (r"\\(?:tilde|widetilde)\s*\{\s*S\s*\}", "S\u0303"),
        (r"\\begin\{[bpvB]?matrix\}", "⟦"),
        (r"\\end\{[bpvB]?matrix\}", "⟧"),
        (r"\\begin\{[a-z*]+\}|\\end\{[a-z*]+\}", " "),
        (r"\\approx", "≈"),
        (r"\\cdot(?![a-z])", "·"),
        (r"\\times", "×"),
        (r"\\div", "÷"),
        (r"\\(?:left|right|big|Big|bigg|Bigg)(?![a-z])", ""),
        (r"\\[,;!: ]|\\qquad|\\quad", " "),
        (r"\\(?:cdots|ldots|dots)", "…"),
        (r"\\(?:vdots|ddots)", "⋮"),
        (r"\\(exp|ln|log|max|min)(?![a-z])", r"\1"),
        (r"\\sqrt\s*\{([^{}\n]*)\}", r"√(\1)"),
        (r"\\frac\s*\{([^{}\n]*)\}\s*\{([^{}\n]*)\}", r"(\1)/(\2)"),
        (r"\\alpha", "α"),
        (r"\\infty", "∞"),
        (r"\\(?:to|rightarrow)(?![a-z])", "→"),
        (r"->", "→"),
        (r"\\pi(?![a-z])", "π"),
        (r"\\sum", "Σ"),
        (r"\\(?:varepsilon|epsilon)", "ε"),
        (r"\\vert", "|"),
        (r"_\{([^{}\n]*)\}", r"_\1"),
        (r"\^\{([^{}\n]*)\}", r"^(\1)"),
        (r"\\\\", "⏎"),
        (r"(?<=\S)\*\*|\*\*(?=\S)", ""),  # Markdown bold; Python's power keeps its spaces: `a ** b`
        (r"−|–", "-"),
        (r"²", "^2"),
        (r"³", "^3"),
        (r"\$", " "),
        (r"`", " "),
    ]
]


# A character one of _SUBS's triggers holds: a text without any is left as it is (a table cell, a word).
_TRIGGER_CHARS = re.compile("[" + re.escape("".join(sorted({t[0] for _, _, tr in _SUBS for t in tr}))) + "]")


# _SUBS patterns that are fixed strings (or a choice of them) with plain replacements, and those strings
_LITERAL = {r"\\approx": ("\\approx",), r"\\times": ("\\times",), r"\\div": ("\\div",), r"\\alpha": ("\\alpha",),
            r"\\infty": ("\\infty",), r"->": ("->",), r"\\sum": ("\\sum",), r"\\vert": ("\\vert",),
            r"\\\\": ("\\\\",), r"−|–": ("−", "–"), r"²": ("²",), r"³": ("³",), r"\$": ("$",), r"`": ("`",)}
assert all(re.compile(p).sub("x", " ".join(lits) + " ¶") == " ".join("x" for _ in lits) + " ¶"
           for p, lits in _LITERAL.items())


# What follows a backslash: its run of letters (a command's name), or the one character after a bare one
_COMMAND = re.compile(r"\\([a-zA-Z]*)(?=(.?))", re.S)


def _commands(text: str) -> set[str]:
    """What the backslashes of ``text`` start: every prefix of each command name, and the character after each
    backslash that no letter follows. A LaTeX trigger ``\\xyz`` is a substring of ``text`` exactly where "xyz" is
    in this set (a name's letters run to its end, so a trigger made of letters is a prefix of one), ``\\,`` where
    "," is: one scan instead of an ``in`` per trigger (50 of them: 40 of the 78 us a 16x16 matrix's text took)."""
    found: set[str] = set()
    for word, after in set(_COMMAND.findall(text)):
        if word:
            found.update(word[:k] for k in range(1, len(word) + 1))
        else:
            found.add(after)
    return found


# _SUBS as (pattern, replacement, triggers, the triggers without their backslash for a LaTeX one (letters or one
# other character, as ``_commands`` finds them) else None, the fixed strings of a literal pattern else None),
# in order; the plan of a text without a backslash holds the others only (no substitution adds a backslash)
_LAST_LATEX = max(i for i, (_, _, trigger) in enumerate(_SUBS) if trigger[0][0] == "\\")
_PLAN = [(pat, rep, trigger, tuple(t[1:] for t in trigger) if trigger[0][0] == "\\" else None,
          _LITERAL.get(pat.pattern), i < _LAST_LATEX) for i, (pat, rep, trigger) in enumerate(_SUBS)]
_PLAN_PLAIN = [step for step in _PLAN if step[3] is None]
assert all(k.isalpha() or (len(k) == 1 and not k.isalpha()) for step in _PLAN if step[3] for k in step[3])
_SCAN_FROM = 300  # characters from which ``_commands`` costs less than the ``in`` tests it replaces


# An environment of aligned relations (``\begin{aligned} x &= 1 \\ &= 2``), whose ``&`` marks where rows align
_ALIGN_ENV = re.compile(r"\\begin\{(?:aligned|align\*?|split|eqnarray\*?|gathered|alignedat)\}")
# A row end whose next row starts at its alignment mark and a relation (``\\`` then ``&= ..``, ``&\approx ..``): the
# relation continues the row above, so the row end is none; and an alignment mark right before a relation
_CONTINUED_ROW = re.compile(r"\\\\([ \t]*\n[ \t]*)&(?=[ \t]*(?:=|≈|\\approx(?![a-zA-Z])))")
_ALIGN_MARK = re.compile(r"&(?=[ \t]*(?:=|≈|\\approx(?![a-zA-Z])))")


def _aligned_rows(text: str) -> str:
    """``text`` with its aligned rows read as what they are: a row starting ``&= ..`` continues the relation of the
    row above (``o &= 0.4·[1,0] + .. \\ &= [1.2, 1.0]`` is one chain), and an ``&`` before a relation marks only
    where rows align. Newlines stay."""
    return _ALIGN_MARK.sub(" ", _CONTINUED_ROW.sub(r" \1 ", text))


def normalize(text: str) -> str:
    """``text`` with LaTeX flattened; never adds or removes a newline."""
    if _TRIGGER_CHARS.search(text) is None:
        return text
    out = text
    if "\\" not in text:
        for pat, rep, trigger, _, literal, _ in _PLAN_PLAIN:
            for t in trigger:
                if t in out:
                    break
            else:
                continue
            if literal is not None:  # a fixed string: str.replace, the same replacements
                for lit in literal:
                    out = out.replace(lit, rep)
            else:
                out = pat.sub(rep, out)
        return out  # these substitutions neither add nor remove a newline (those that may start with a backslash)
    if "&" in out and "\\begin{" in out and _ALIGN_ENV.search(out):
        out = _aligned_rows(out)
    # a long text: its LaTeX triggers found by ``_commands``, found again after each change while a LaTeX step is
    # to come (a removal may join a backslash to new letters), so each runs exactly where ``trigger in out`` would
    cmds = _commands(out) if len(out) >= _SCAN_FROM else None
    for pat, rep, trigger, keys, literal, more in _PLAN:
        if keys is not None and cmds is not None:
            if cmds.isdisjoint(keys):
                continue
        else:
            for t in trigger:
                if t in out:
                    break
            else:
                continue
        if literal is not None:
            new = out
            for lit in literal:
                new = new.replace(lit, rep)
        else:
            new = pat.sub(rep, out)
        if cmds is not None and more and new != out:
            cmds = _commands(new)
        out = new
    assert out.count("\n") == text.count("\n")
    return out


# ---------------------------------------------------------------- numbers

NUMBER_RE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)(…|\.\.\.)?(?![\w]|\.\d)")


@dataclass(slots=True)
class Num:
    text: str  # as printed, digits and point only (sign handled by the parser)
    pos: int  # offset in the normalized segment
    truncated: bool = False  # printed with a trailing ellipsis: 16.778…
    decimals: int | None = field(init=False, compare=False, repr=False)
    """Digits after the point; None for an integer or 1e9 (taken as exact)."""
    exact: Fraction | None = field(default=None, init=False, compare=False, repr=False)  # ``value``, once asked
    given: bool = field(default=False, init=False, compare=False, repr=False)  # a given input: exact (exact_inputs)

    def __post_init__(self):
        t = self.text
        self.decimals = None if "e" in t or "E" in t or "." not in t else len(t) - t.index(".") - 1

    @property
    def value(self) -> Fraction:
        v = self.exact
        if v is None:
            d = self.decimals
            # digits over a power of ten: the Fraction that parsing the text gives, without its regex
            v = self.exact = decimal_fraction(self.text) if d is None or len(self.text) > LONGEST else \
                Fraction(int(self.text.replace(".", "")), 10**d)
        return v

    def half_unit(self) -> Fraction:
        d = self.decimals
        return Fraction(0) if d is None or self.given else Fraction(1, 2 * 10**d)


# ---------------------------------------------------------------- AST


@dataclass(slots=True)
class Node:
    kind: str  # num, neg, bin, func, const, sym, list, mat, ell, label
    args: list = field(default_factory=list)
    op: str = ""
    num: Num | None = None
    name: str = ""
    start: int = 0
    end: int = 0
    value: bool | None = field(default=None, compare=False, repr=False)  # ``is_value`` of a list, once known

    def nums(self) -> list[Num]:
        """Every printed number below this node, in reading order (walked with a stack: a worked sum of
        thousands of terms is a tree as deep)."""
        out, stack = [], [self]
        while stack:
            node = stack.pop()
            if node.kind == "num":
                out.append(node.num)
            else:
                stack.extend(a for a in reversed(node.args) if isinstance(a, Node))
        return out

    @property
    def is_value(self) -> bool:
        """A plain number, or a list/matrix of them (a published value, not a computation)."""
        if self.kind == "num" or (self.kind == "const" and self.name == "∞"):
            return True
        if self.kind == "neg":
            return self.args[0].kind == "num" or (self.args[0].kind == "const" and self.args[0].name == "∞")
        if self.kind in ("list", "mat", "row"):
            if self.value is None:  # asked again and again of a matrix (a claim, its parts, its schemas)
                self.value = all(a.kind == "ell" or a.is_value for a in self.args)
            return self.value
        return False


_NODE_ARGS = Node.__dict__["args"]  # the slot itself, for PlainMat's lazy rows


class PlainMat(Node):
    """The "mat" node of a plain matrix body (``Parser._plain_matrix``) whose rows and cells are made
    only when something reads ``args``: checking it against a labelled value reads its cells in bulk
    from the text instead (``cells``), the one thing a note's matrices are read for."""

    __slots__ = ("text", "body")

    def __init__(self, text: str, open_pos: int, body_pos: int, body_end: int):
        Node.__init__(self, "mat", None, start=open_pos, end=body_end + 1, value=True)
        self.text, self.body = text, (body_pos, body_end)

    @property
    def args(self) -> list:
        rows = _NODE_ARGS.__get__(self)
        if rows is None:
            rows = _plain_rows(self.text, *self.body)
            _NODE_ARGS.__set__(self, rows)
        return rows

    @args.setter
    def args(self, rows) -> None:
        _NODE_ARGS.__set__(self, rows)

    @property
    def built(self) -> bool:
        return _NODE_ARGS.__get__(self) is not None

    def cells(self) -> tuple[list[str], list[int], list[bool], list[int]]:
        """(texts, positions, negative?, cells of each row) of the body's numbers, in reading order:
        what ``args`` holds, without its nodes (made by C-level maps over the numbers' matches)."""
        text, (pos, end) = self.text, self.body
        found = list(_PLAIN_NUMBER.finditer(text, pos, end))
        starts = list(map(_START, found, repeat(1)))
        negs = list(map(ne, starts, map(_START, found)))
        # a row ends at each ⏎ (``_plain_rows``), the last one only where it holds a cell
        rows, at = [], pos
        while (stop := text.find("⏎", at, end)) >= 0:
            rows.append(bisect_left(starts, stop) - bisect_left(starts, at))
            at = stop + 1
        if (n := len(starts) - bisect_left(starts, at)):
            rows.append(n)
        return list(map(_GROUP, found, repeat(1))), starts, negs, rows


_PLAIN_NUMBER = re.compile(r"-?(\d+(?:\.\d+)?)")  # _PLAIN_ITEM's numbers
_START, _GROUP = re.Match.start, re.Match.group


# ---------------------------------------------------------------- tokenizer

# The token kinds, each with its pattern, in the order _TOKEN_RE tries them; a number may end in an
# ellipsis (its "trunc" group: 16.778…).
_TRUNC = r"…|\.\.\."
_TOKEN_KINDS: list[tuple[str, str]] = [
    ("ws", r"[ \t]+"),
    ("num", r"\d+(?:\.\d+)?(?:[eE][-+]?\d+)?"),
    ("ell", r"\.\.\.|…|⋯|⋮"),
    ("rel", r"≈|==|=|:"),
    ("op", r"\*\*|//|[-+*/·×÷^]"),
    ("sqrt", r"√"),
    ("open", r"[(\[⟦]"),
    ("close", r"[)\]⟧]"),
    ("amp", r"&"),
    ("rowsep", r"⏎"),
    ("comma", r","),
    ("nl", r"\n"),
    ("ident", r"[A-Za-zŜαεπ_∞][A-Za-z0-9Ŝ_']*"),
    ("other", r"."),
]


_TOKEN_RE = re.compile("|".join(f"(?P<{k}>{p})" + (f"(?P<trunc>{_TRUNC})?" if k == "num" else "")
                                for k, p in _TOKEN_KINDS))

# Bounds that keep hostile claims ("10^99999999", "1e100000000", 5000 nested parentheses) from
# hanging or overflowing: such a claim is "not understood", never evaluated.
MAX_DEPTH = 64
MAX_DIGITS = 40  # digits of a printed number (mantissa and exponent together)
MAX_EXPONENT = 400  # |exponent| of a printed number, of a power, of exp()
MIN_EXP_ARG = -100_000  # exp() below this is not a claim anyone prints

FUNCS = {"exp", "sqrt", "log", "ln", "int", "max", "min", "abs", "round"}
CONSTS = {"e", "π", "pi", "∞", "inf"}


@dataclass(slots=True)
class Tok:
    kind: str  # a group of _TOKEN_RE, or "plain": the body of a plain matrix, its tokens not yet made
    text: str
    pos: int
    end: int
    trunc: bool = False
    count: int = 1  # tokens this one stands for ("plain": the tokens of the body; see ``expand``)


# The body of a matrix of plain numbers (``-0.1234 & 2 ⏎``): possessive, so a body that is not plain
# fails at its first other character without backtracking.
_PLAIN_RUN = re.compile(r"⟦((?:[ \t\n&⏎]++|-?+\d++(?:\.\d++)?+)*+)⟧")
_NEG_AFTER_NUM = re.compile(r"\d[ \t]*-")  # "1 -2": a difference, not two cells (``neg_after_num``'s reference)
_NEG_GLUED = re.compile(r"-(?<=\d-)")  # a minus right after a digit, found from the minus (a literal: skipped to in C)


def neg_after_num(text: str, a: int, b: int) -> bool:
    """Does ``_NEG_AFTER_NUM`` match in ``text[a:b]``: a minus after a digit and blanks only ("1 -2": a difference,
    not two cells)? Asked of each plain body: with the blanks taken out first, the search goes from minus to minus
    (a few a row) instead of trying every digit (most of a body), the same answer for any text."""
    window = text[a:b]
    return "-" in window and _NEG_GLUED.search(window.replace(" ", "").replace("\t", "")) is not None
_DIGIT = re.compile(r"\d")
_BODY_TOK = re.compile(r"\d+(?:\.\d+)?|[-&⏎\n]")  # the tokens ``_tokens`` makes of a plain body
_PLAIN_ITEM = re.compile(r"-?(\d+(?:\.\d+)?)|⏎")


def _body_count(text: str, a: int, b: int) -> int:
    """``len(_BODY_TOK.findall(text, a, b))`` of a plain body (``_PLAIN_RUN``'s group), counted with
    C-level scans: a number starts at each digit that follows no digit or point (its digits are
    one-character strings, which CPython never allocates)."""
    return (len(_NUM_START.findall(text, a, b)) + text.count("-", a, b) + text.count("&", a, b)
            + text.count("⏎", a, b) + text.count("\n", a, b))


_NUM_START = re.compile(r"(?<![\d.])\d")


def tokenize(text: str, start: int = 0, stop: int | None = None) -> list[Tok]:
    """The tokens of ``text[start:stop]``. The body of each matrix of plain numbers is one "plain"
    token (``Parser.matrix`` reads its cells from the text, and nothing else ever looks inside it:
    ``expand`` makes its tokens where something would); a 16x16 note's matrices hold half its tokens."""
    stop = len(text) if stop is None else stop
    toks: list[Tok] = []
    at = start
    if text.find("⟦", start, stop) >= 0:
        for m in _PLAIN_RUN.finditer(text, start, stop):
            a, b = m.span(1)
            if neg_after_num(text, a, b) or not _DIGIT.search(text, a, b):
                continue
            _tokens(text, at, a, toks)  # up to and with the ⟦
            # the tokens of the body: its numbers, signs, "&", "⏎" and newlines (_BODY_TOK's matches)
            toks.append(Tok("plain", "", a, b, False, _body_count(text, a, b)))
            at = b
    _tokens(text, at, stop, toks)
    return toks


# _TOKEN_RE as one findall: (blanks, number, its ellipsis, any other token) for each token, made in C,
# with the token's kind from its first character (the kinds' first characters are disjoint, but "..."
# an ellipsis and "." other) and offsets from the lengths (the matches tile the text, blanks and all).
# Its alternatives are tried most frequent first: the same tokens as _TOKEN_RE's
# (``tests/test_check_speed_bulk.py`` compares them).
_TOKEN_ORDER = ["ident", "open", "close", "comma", "rel", "op", "nl", "ell", "sqrt", "amp", "rowsep", "other"]
assert sorted(_TOKEN_ORDER + ["ws", "num"]) == sorted(k for k, _ in _TOKEN_KINDS)
_TOKEN_ALL_RE = re.compile(f"([ \\t]*+)(?:({dict(_TOKEN_KINDS)['num']})({_TRUNC})?|("
                           + "|".join(dict(_TOKEN_KINDS)[k] for k in _TOKEN_ORDER) + "))")
_KIND_OF_FIRST = {ch: kind for kind, chars in [
    ("ident", "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyzŜαεπ_∞"), ("ell", "…⋯⋮"), ("rel", "≈=:"),
    ("op", "*/-+·×÷^"), ("sqrt", "√"), ("open", "([⟦"), ("close", ")]⟧"), ("amp", "&"), ("rowsep", "⏎"),
    ("comma", ","), ("nl", "\n")] for ch in chars}
assert all(_TOKEN_RE.match(ch).lastgroup == kind for ch, kind in _KIND_OF_FIRST.items())


def _tokens(text: str, start: int, stop: int, toks: list[Tok]) -> None:
    """Append the tokens of ``text[start:stop]`` (blanks skipped) to ``toks``."""
    while stop > start and text[stop - 1] in " \t":  # trailing blanks: no token follows them
        stop -= 1
    add = toks.append
    kind_of = _KIND_OF_FIRST.get
    while start < stop:
        # a window of the text at a time (the matches' tuples of a megabyte of numbers would double the
        # tokens' memory), cut after a comma or a newline: tokens of their own, no blanks before the cut
        cut = stop
        if stop - start > _WINDOW:
            commas, newlines = text.find(",", start + _WINDOW, stop), text.find("\n", start + _WINDOW, stop)
            cut = min((k + 1 for k in (commas, newlines) if k >= 0), default=stop)
        at = start
        for blanks, num, trunc, tok in _TOKEN_ALL_RE.findall(text, start, cut):
            pos = at + len(blanks)
            if num:
                at = pos + len(num) + len(trunc)
                add(Tok("num", num, pos, at, trunc != ""))
            else:
                at = pos + len(tok)
                kind = kind_of(tok[0], "other")
                add(Tok("ell" if kind == "other" and tok == "..." else kind, tok, pos, at))
        start = cut


_WINDOW = 1 << 16


def expand(toks: list[Tok], k: int, text: str) -> None:
    """Replace the "plain" token ``toks[k]`` by the tokens of its body, in place."""
    t = toks[k]
    body: list[Tok] = []
    _tokens(text, t.pos, t.end, body)
    toks[k:k + 1] = body


def token_count(toks: list[Tok]) -> int:
    """How many tokens ``toks`` stands for, every plain body expanded."""
    return sum(map(_COUNT, toks))


_COUNT = attrgetter("count")


# ---------------------------------------------------------------- parser


class _Stop(Exception):
    pass


class Parser:
    """Recursive descent over tokens; ``labels`` recognises label references at a position."""

    def __init__(self, toks: list[Tok], text: str, label_at=None, symbols=frozenset(), budget=None):
        self.toks, self.text, self.i = toks, text, 0
        self.label_at = label_at  # (text, pos) -> (end_pos, label) | None
        self.symbols = symbols
        self.budget = budget  # [atoms left] shared by the parses of one text, or None (no bound)

    def peek(self, k: int = 0) -> Tok | None:
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else None

    def take(self) -> Tok:
        t = self.toks[self.i]
        self.i += 1
        return t

    def _skip_to(self, pos: int) -> None:
        toks = self.toks
        while self.i < len(toks) and toks[self.i].pos < pos:
            if toks[self.i].kind == "plain" and toks[self.i].end > pos:
                expand(toks, self.i, self.text)  # stopping inside a plain body: its tokens are needed
                continue
            self.i += 1

    # expr := term (('+'|'-') term)*
    def expr(self, allow_nl: bool = False) -> Node:
        node = self.term(allow_nl)
        toks = self.toks
        while True:
            save = self.i
            if allow_nl:
                self._nl(True)
            if self.i < len(toks) and toks[self.i].kind == "nl":  # what ``_continued`` looks past
                self._continued()
            t = toks[self.i] if self.i < len(toks) else None  # peek(), inline: the parser's hottest call
            if t and t.kind == "op" and t.text in "+-":
                self.take()
                self._nl(allow_nl)
                try:
                    rhs = self.term(allow_nl)
                except _Stop:
                    self.i = save
                    return node
                node = Node("bin", [node, rhs], op=t.text, start=node.start, end=rhs.end)
            else:
                self.i = save
                return node

    def _continued(self) -> None:
        """A line that starts with ``+ `` or ``- `` continues the sum of the line before."""
        j = self.i
        while j < len(self.toks) and self.toks[j].kind == "nl":
            j += 1
        if j > self.i and j < len(self.toks):
            t = self.toks[j]
            if t.kind == "op" and t.text in "+-" and self.text[t.end:t.end + 1] == " ":
                self.i = j

    def _nl(self, allow: bool) -> None:
        if allow:
            toks, i = self.toks, self.i
            while i < len(toks) and toks[i].kind == "nl":
                i += 1
            self.i = i

    def term(self, allow_nl: bool = False) -> Node:
        node = self.unary(allow_nl)
        while True:
            t = self.toks[self.i] if self.i < len(self.toks) else None
            save = self.i
            if t and t.kind == "op" and t.text in ("*", "/", "·", "×", "÷", "//"):
                self.take()
                try:
                    rhs = self.unary(allow_nl)
                except _Stop:
                    self.i = save
                    return node
                op = {"·": "*", "×": "*", "÷": "/"}.get(t.text, t.text)
                node = Node("bin", [node, rhs], op=op, start=node.start, end=rhs.end)
            elif t and (t.kind == "open" or t.kind == "ident") and self._implicit_ok(node, t):
                try:
                    rhs = self.power()
                except _Stop:
                    self.i = save
                    return node
                node = Node("bin", [node, rhs], op="*", start=node.start, end=rhs.end)
            else:
                return node

    def _implicit_ok(self, node: Node, t: Tok) -> bool:
        """``(a)(b)``, ``2e``, ``2·e`` written ``2e``: juxtaposition is a product."""
        kinds = ("bin", "num", "const", "func", "sym", "label", "paren")
        if t.kind == "open" and t.text == "(" and node.kind in kinds \
                and self.text[node.end - 1:node.end] == ")" and t.pos == node.end:
            return True
        if t.kind == "ident" and t.text == "e" and node.kind == "num" and not self.text[t.end:t.end + 1].isalnum() \
                and t.pos - node.end <= 1:  # (a wider gap, ``2.028 \quad e^{0} = 1``, separates two claims)
            return True  # 2e, 2 e (LaTeX drops the dot)
        return False

    def unary(self, allow_nl: bool = False) -> Node:
        t = self.toks[self.i] if self.i < len(self.toks) else None
        if t and t.kind == "op" and t.text in "+-":
            self.take()
            arg = self.unary(allow_nl)
            if t.text == "+":
                return arg
            return Node("neg", [arg], start=t.pos, end=arg.end)
        return self.power()

    def power(self) -> Node:
        base = self.atom()
        t = self.toks[self.i] if self.i < len(self.toks) else None
        if t and t.kind == "op" and t.text in ("^", "**"):
            save = self.i
            self.take()
            try:
                exp = self.unary()
            except _Stop:
                self.i = save
                return base
            return Node("bin", [base, exp], op="^", start=base.start, end=exp.end)
        return base

    def atom(self) -> Node:
        t = self.toks[self.i] if self.i < len(self.toks) else None
        if t is None:
            raise _Stop
        if self.budget is not None:
            self.budget[0] -= 1
            if self.budget[0] < 0:
                raise _Stop
        if self.label_at is not None and t.kind in ("ident", "other"):
            hit = self.label_at(self.text, t.pos)
            if hit is not None:
                end, lab = hit
                self._skip_to(end)
                return Node("label", [], name=lab, start=t.pos, end=end)
        if t.kind == "num":
            self.take()
            return Node("num", num=Num(t.text, t.pos, t.trunc), start=t.pos, end=t.end)
        if t.kind == "ell":
            self.take()
            return Node("ell", start=t.pos, end=t.end)
        if t.kind == "sqrt":
            self.take()
            arg = self.atom()
            return Node("func", [arg], name="sqrt", start=t.pos, end=arg.end)
        if t.kind == "ident":
            name = t.text
            if name in FUNCS:
                nxt = self.peek(1)
                if nxt and nxt.kind == "open" and nxt.text == "(":
                    self.take()
                    arg = self.atom()
                    return Node("func", [arg], name=name, start=t.pos, end=arg.end)
                raise _Stop
            self.take()
            if name in CONSTS:
                return Node("const", name="∞" if name == "inf" else name, start=t.pos, end=t.end)
            if name in self.symbols:
                return Node("sym", name=name, start=t.pos, end=t.end)
            self.i -= 1
            raise _Stop
        if t.kind == "open":
            return self.group()
        raise _Stop

    def group(self) -> Node:
        self.depth = getattr(self, "depth", 0) + 1
        try:
            if self.depth > MAX_DEPTH:  # 5000 nested parentheses: not a claim anyone checks by hand
                raise _Stop
            return self._group()
        finally:
            self.depth -= 1

    def _group(self) -> Node:
        open_t = self.take()
        close = {"(": ")", "[": "]", "⟦": "⟧"}[open_t.text]
        if open_t.text == "⟦":
            return self.matrix(open_t)
        items: list[Node] = []
        save = self.i - 1
        try:
            while True:
                self._nl(True)
                t = self.toks[self.i] if self.i < len(self.toks) else None
                if t is None:
                    raise _Stop
                if t.kind == "close" and t.text == close and (items or open_t.text == "["):
                    self.take()
                    break
                item = self._plain_item(close)
                items.append(item if item is not None else self.expr(allow_nl=True))
                self._nl(True)
                t = self.toks[self.i] if self.i < len(self.toks) else None
                if t and t.kind == "comma":
                    self.take()
                    continue
                if t and t.kind == "close" and t.text == close:
                    self.take()
                    break
                raise _Stop
        except _Stop:
            self.i = save
            raise
        end = self.toks[self.i - 1].end
        if open_t.text == "(" and len(items) == 1:
            node = items[0]
            return Node("paren", [node], start=open_t.pos, end=end) if node.kind != "paren" else node
        return Node("list", items, start=open_t.pos, end=end)

    def _plain_item(self, close: str) -> Node | None:
        """A list item that is one printed number (``0.25``, ``-0.25``) right before a comma or ``close``: the
        node ``expr`` gives it, at the same cost in atoms, without its five calls a number; else None."""
        toks, i = self.toks, self.i
        t = toks[i]
        neg = t.kind == "op" and t.text == "-"
        k = i + 1 if neg else i  # the number
        if k + 1 >= len(toks) or toks[k].kind != "num":
            return None
        n, after = toks[k], toks[k + 1]
        if not (after.kind == "comma" or (after.kind == "close" and after.text == close)):
            return None
        if self.budget is not None:  # ``atom``'s count, and its stop when the atoms run out
            self.budget[0] -= 1
            if self.budget[0] < 0:
                raise _Stop
        node = Node("num", num=Num(n.text, n.pos, n.trunc), start=n.pos, end=n.end)
        self.i = k + 1
        return Node("neg", [node], start=t.pos, end=node.end) if neg else node

    def matrix(self, open_t: Tok) -> Node:
        t = self.toks[self.i] if self.i < len(self.toks) else None
        if t is not None and t.kind == "plain":
            return self._plain_matrix(open_t, t)
        rows: list[Node] = []
        cells: list[Node] = []
        save = self.i - 1
        row_start = open_t.end
        while True:
            self._nl(True)
            t = self.toks[self.i] if self.i < len(self.toks) else None
            if t is None:
                self.i = save
                raise _Stop
            if t.kind == "close" and t.text == "⟧":
                self.take()
                if cells:
                    rows.append(Node("row", cells, start=row_start, end=t.pos))
                break
            if t.kind == "rowsep":
                self.take()
                rows.append(Node("row", cells, start=row_start, end=t.pos))
                cells, row_start = [], t.end
                continue
            if t.kind == "amp":
                self.take()
                continue
            try:
                cells.append(self.expr(allow_nl=False))
            except _Stop:
                self.i = save
                raise
        return Node("mat", rows, start=open_t.pos, end=self.toks[self.i - 1].end)


    def _plain_matrix(self, open_t: Tok, body: Tok) -> Node:
        """The matrix whose plain body (``tokenize``) follows ``open_t``: the node that reading its tokens
        one by one would build, at the same cost in atoms, its rows made only when read (``PlainMat``)."""
        text = self.text
        budget = self.budget
        if budget is not None:
            # its cells: the body's tokens less its signs, "&", "⏎" and newlines
            n = body.count - sum(text.count(ch, body.pos, body.end) for ch in "-&⏎\n")
            if budget[0] < n:
                budget[0] = -1  # where the token path runs out of atoms, at one of the cells
                self.i -= 1  # back to the ⟦, as ``matrix`` leaves it when a cell stops
                raise _Stop
            budget[0] -= n  # one atom a cell, as the token path counts them
        self.i += 2  # the body and the ⟧
        return PlainMat(text, open_t.pos, body.pos, body.end)


def _plain_rows(text: str, pos: int, end: int) -> list[Node]:
    """The rows of the plain body ``text[pos:end]``, read in one pass (``PlainMat.args``)."""
    rows: list[Node] = []
    cells: list[Node] = []
    row_start = pos
    for c in _PLAIN_ITEM.finditer(text, pos, end):
        a = c.start(1)
        if a < 0:  # ⏎
            at = c.start()
            rows.append(Node("row", cells, start=row_start, end=at, value=True))
            cells, row_start = [], at + 1
            continue
        node = Node("num", num=Num(c.group(1), a), start=a, end=c.end())
        cells.append(node if a == c.start() else Node("neg", [node], start=c.start(), end=node.end))
    if cells:
        rows.append(Node("row", cells, start=row_start, end=end, value=True))
    return rows




def parse_chain(text: str, toks: list[Tok], i: int, label_at=None, symbols=frozenset(), budget=None):
    """From token ``i``: ``expr (rel expr)*``. Returns (exprs, rels, next token index) or None.

    A relation may be followed by a newline (a continued code line) and a newline may be
    followed by a relation (``= [..]`` on the next line). ``budget``: a one-item list of the atoms
    the parses of one text may still read (each parse that fails is tried again from the next
    token, so a long expression that never reaches a claim would be read once per token of it).
    """
    if _joined(toks, i - 1):
        return None  # the right operand of ``0.6ร—0.8``: its expression starts before it
    p = Parser(toks, text, label_at, symbols, budget)
    p.i = i
    try:
        first = p.expr()
    except _Stop:
        return None
    if _joined(toks, p.i):
        return None
    exprs, rels = [first], []
    while True:
        save = p.i
        # a continuation: newline(s) then a relation
        j = p.i
        while j < len(toks) and toks[j].kind == "nl":
            j += 1
        t = toks[j] if j < len(toks) else None
        if t is None or t.kind != "rel" or (t.text == ":" and (rels or first.kind != "label")):
            p.i = save
            break
        if t.text == ":" and (j > p.i or (j + 1 < len(toks) and toks[j + 1].kind == "nl")):
            break
        p.i = j + 1
        p._nl(True)
        try:
            nxt = p.expr()
        except _Stop:
            # a formula we cannot read (``Σ_a,b P[a,b] · W[a,b]``): skip it when another relation
            # follows on the same line, so that ``label = <formula> = value`` still binds the value
            k, depth = p.i, 0
            while k < len(toks):
                if toks[k].kind == "plain":
                    expand(toks, k, text)  # the scan stops at a newline inside a body
                    continue
                if toks[k].kind == "nl":
                    # a formula may run to the end of its line when the next line starts with a relation
                    n = k
                    while n < len(toks) and toks[n].kind == "nl":
                        n += 1
                    if depth == 0 and n < len(toks) and toks[n].kind == "rel" and toks[n].text != ":":
                        k = n
                    break
                if toks[k].kind == "open":
                    depth += 1
                elif toks[k].kind == "close":
                    depth -= 1
                elif toks[k].kind == "rel" and depth == 0 and toks[k].text != ":":
                    break
                elif toks[k].kind == "comma" and depth == 0 and k + 1 < len(toks) and toks[k + 1].pos > toks[k].end:
                    # a comma then a blank ends the formula: ``exp(1.4142) = x, y = -0`` names y's value, not
                    # exp's (a subscript's comma, ``Σ_a,b``, has no blank after it)
                    break
                k += 1
            if k >= len(toks) or toks[k].kind != "rel" or k == p.i:
                p.i = save
                break
            nxt = Node("opaque", start=toks[p.i].pos, end=toks[k - 1].end)
            p.i = k
        if _joined(toks, p.i):
            return None
        rels.append(t.text)
        exprs.append(nxt)
    return exprs, rels, p.i


_OPERANDS = frozenset(("num", "ident", "close", "open", "sqrt"))


def _joined(toks: list[Tok], k: int) -> bool:
    """Whether token ``k`` belongs to glyphs we do not read (``other``: the mis-decoded ``×`` of
    ``0.6ร—0.8``) glued to operands on both sides: an operator, so the expression around it is one we
    cannot read (without this, ``0.6ร—0.8 = 0.48`` would be read as the claim ``0.8 = 0.48``)."""
    n = len(toks)
    if not 0 < k < n or toks[k].kind != "other":
        return False
    a = b = k
    while a > 0 and toks[a - 1].kind == "other" and toks[a - 1].end == toks[a].pos:
        a -= 1
    while b + 1 < n and toks[b + 1].kind == "other" and toks[b].end == toks[b + 1].pos:
        b += 1
    return (a > 0 and b + 1 < n and toks[a - 1].kind in _OPERANDS and toks[a - 1].end == toks[a].pos
            and toks[b + 1].kind in _OPERANDS and toks[b].end == toks[b + 1].pos)


# ---------------------------------------------------------------- evaluation


class NotEvaluable(Exception):
    pass


def _broadcast(op, a, b):
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            raise NotEvaluable("shape")
        return [_broadcast(op, x, y) for x, y in zip(a, b)]
    if isinstance(a, list):
        return [_broadcast(op, x, b) for x in a]
    if isinstance(b, list):
        return [_broadcast(op, a, y) for y in b]
    return op(a, b)


def _map(f, a):
    return [_map(f, x) for x in a] if isinstance(a, list) else f(a)


def left_spine(node: Node) -> tuple[Node, list[tuple[str, Node]]]:
    """A chain of ``+`` and ``-`` (``a + b - c``, parsed left-deep: ``((a + b) - c)``) as its first operand and
    its (operator, operand) steps, in reading order: evaluated by a loop, since a worked sum of 1,600 terms
    would nest deeper than Python's recursion limit."""
    steps = []
    while node.kind == "bin" and node.op in ("+", "-"):
        steps.append((node.op, node.args[1]))
        node = node.args[0]
    steps.reverse()
    return node, steps


def evaluate(node: Node, env: dict, interval: bool):
    """Exact value (sympy) or enclosing interval (mpmath.iv) of ``node``; lists stay lists.

    ``env`` maps symbol and label names to exact numbers (ints or Fractions).
    """
    if interval:
        from mpmath import iv

        iv.dps = 40
        M = iv
    else:
        import sympy as M
    if node.kind == "num":
        n = node.num
        if len(n.text) > MAX_DIGITS or ("e" in n.text.lower() and abs(int(re.split("[eE]", n.text)[1])) >
                                          MAX_EXPONENT):
            raise NotEvaluable("number out of range")
        v = n.value
        if interval:
            h = n.half_unit()
            if n.truncated:
                h = Fraction(1, 2 * 10 ** (n.decimals or 0))
                v = v + h  # 16.778… lies in [16.778, 16.779]
            return iv.mpf([_ivq(v - h).a, _ivq(v + h).b])
        return M.Rational(v.numerator, v.denominator)
    if node.kind == "paren":
        return evaluate(node.args[0], env, interval)
    if node.kind == "neg":
        return _map(lambda x: -x, evaluate(node.args[0], env, interval))
    if node.kind == "const":
        if node.name == "∞":
            raise NotEvaluable("infinity")
        return (M.e if interval else M.E) if node.name == "e" else M.pi
    if node.kind in ("sym", "label"):
        if node.name not in env:
            raise NotEvaluable(node.name)
        v = env[node.name]
        return _exact(v, interval)
    if node.kind in ("list", "row"):
        if any(a.kind == "ell" for a in node.args):
            raise NotEvaluable("elided")
        return [evaluate(a, env, interval) for a in node.args]
    if node.kind == "mat":
        return [evaluate(r, env, interval) for r in node.args]
    if node.kind == "func":
        arg = evaluate(node.args[0], env, interval)
        if isinstance(arg, list) and node.name not in ("max", "min"):
            raise NotEvaluable("vector function")
        if node.name == "exp":
            # exp of a large negative number is a tiny, harmless value (masked scores, far keys:
            # exp(-836.7) ≈ 0.0000); only a large positive argument overflows what a note can claim
            _bounded(arg, MIN_EXP_ARG, MAX_EXPONENT)
            return M.exp(arg)
        if node.name == "sqrt":
            return M.sqrt(arg)
        if node.name in ("log", "ln"):
            return M.log(arg)
        if node.name == "int":
            if interval:
                if arg.a == arg.b or int(arg.a) == int(arg.b):
                    import mpmath

                    return iv.mpf(int(mpmath.floor(arg.a)))
                raise NotEvaluable("int")
            return M.floor(arg) if arg >= 0 else M.ceiling(arg)
        raise NotEvaluable(node.name)
    if node.kind == "bin" and node.op in ("+", "-"):
        first, steps = left_spine(node)  # a long sum: a loop, left to right, as the recursion would go
        acc = evaluate(first, env, interval)
        for op, right in steps:
            b = evaluate(right, env, interval)
            acc = _broadcast((lambda x, y: x + y) if op == "+" else (lambda x, y: x - y), acc, b)
        return acc
    if node.kind == "bin":
        a = evaluate(node.args[0], env, interval)
        b = evaluate(node.args[1], env, interval)
        op = node.op
        if op == "+":
            return _broadcast(lambda x, y: x + y, a, b)
        if op == "-":
            return _broadcast(lambda x, y: x - y, a, b)
        if op == "*":
            return _broadcast(lambda x, y: x * y, a, b)
        if op in ("/", "//"):
            _nonzero(b)
        if op == "/":
            return _broadcast(lambda x, y: x / y, a, b)
        if op == "//":
            if interval:
                raise NotEvaluable("//")
            return _broadcast(lambda x, y: M.floor(x / y), a, b)
        if op == "^":
            _bounded(b)
            _bounded(a, -1e300, 1e300)
            return _broadcast(lambda x, y: x**y, a, b)
    raise NotEvaluable(node.kind)


def _nonzero(v) -> None:
    """Raise NotEvaluable when a divisor is (or may be) zero: ``1 / 0 ≈ 0.5`` is not understood."""
    if isinstance(v, list):
        for x in v:
            _nonzero(x)
        return
    if (hasattr(v, "a") and v.a <= 0 <= v.b) or (not hasattr(v, "a") and v == 0):
        raise NotEvaluable("division by zero")


def _bounded(v, low: float = -MAX_EXPONENT, high: float = MAX_EXPONENT) -> None:
    """Raise NotEvaluable unless every entry of ``v`` (sympy number or interval) lies in [low, high]."""
    if isinstance(v, list):
        for x in v:
            _bounded(x, low, high)
        return
    try:
        lo, hi = (float(v.a), float(v.b)) if hasattr(v, "a") else (float(v), float(v))
    except (TypeError, ValueError, OverflowError):
        raise NotEvaluable("out of range") from None
    if not low <= lo <= hi <= high:
        raise NotEvaluable("out of range")


def _ivq(f: Fraction):
    """An interval enclosing the exact rational ``f``."""
    from mpmath import iv

    return iv.mpf(f.numerator) / f.denominator


def _exact(v, interval: bool):
    if isinstance(v, list):
        return [_exact(x, interval) for x in v]
    f = Fraction(v)
    if interval:

        return _ivq(f)
    import sympy

    return sympy.Rational(f.numerator, f.denominator)
