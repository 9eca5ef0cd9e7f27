"""The checker proper: every number of a note against the trace and against its own arithmetic.

Reading order matters: headings, "Head h" / "Hàng i" phrases and row labels set a context
(current head, query row, whether the exponentials shown are shifted by the row max) that
unlabelled worked lines (``m = max = ..``, ``exp(a - m) = e``, ``tổng = ..``) and pixel forms
(``α(p0→p1)``) resolve against.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left
from dataclasses import dataclass, field
from fractions import Fraction
from functools import partial
from itertools import compress, repeat
from operator import add, attrgetter, is_, itemgetter, mul, not_, sub

import numpy as np

from ..numfmt import fmt
from . import bounds, expr, sums
from .code_names import named_raw
from .equal_numbers import run_together
from .exact_inputs import given_operands, given_values, weight_values
from .expr import (
    CONSTS,
    FUNCS,
    NUMBER_RE,
    Node,
    NotEvaluable,
    Num,
    PlainMat,
    evaluate,
    expand,
    normalize,
    parse_chain,
    token_count,
    tokenize,
)
from .head_subscripts import one_based_label_heads, scaled_s_labels
from .human import line_start
from .indices import decimal_fraction, index_int
from .labels import Ref, TraceView, cell_label, hand_label_at, index_base, label_at, label_firsts, whole_index
from .source import Segment

F32_REL = Fraction(1, 2**22)  # float32 rounding allowance for notes computed in PyTorch float32
BULK_MIN = 8  # values of a matrix or list from which its float-first test runs in NumPy
PLAIN_COLUMNS = True  # a plain matrix checked from columns of its cells (``_check_plain``); False: its nodes
PARSE_BUDGET = 16  # atoms the claims of a text may read, per token of it (see ``_text``)
DEFER_PLAIN = True  # a strict note's plain matrices decided together at the end of the reading (``_flush_plain``)
LABELLED_BLOCKS = True  # a strict text of labelled values read without tokens (``Checker._labelled_values``)
CODE_LINES = True  # a strict code text of worked dot products read without tokens (``Checker._dot_lines``)
SKIP_WORDS = True  # the token walk asks ``_at`` only at tokens that are not words of prose it would pass over


@dataclass(slots=True)
class NumRec:
    line: int
    text: str  # as printed, with its sign
    checks: list = field(default_factory=list)  # (ok, label, expected)
    operand: bool = False  # an operand of an evaluated arithmetic claim
    fix: tuple | None = None  # (the right value at the note's precision, "label" | "arith") for --fix

    @property
    def status(self) -> str:
        checks = self.checks
        for ok, _, _ in checks:  # asked of every record several times (reports, the merge): no generator
            if not ok:
                return "wrong"
        if checks or self.operand:
            return "verified"
        return "unknown"

    def failure(self) -> tuple[str, str]:
        fails = [(lab, exp) for ok, lab, exp in self.checks if not ok]
        return fails[0]


@dataclass
class Ctx:
    head: int | None = None
    row: int | None = None
    role: str | None = None
    shifted: bool = False
    exp_j: int = 0
    dim_v: int | None = None
    hint: str = ""
    bound: dict = field(default_factory=dict)
    roles: list = field(default_factory=list)
    caption: Ref | None = None  # "Hàng 0 của $S_0$:" names the bare list that follows
    caption_seg: int = 0


_HEAD_RE = re.compile(r"\b[Hh]ead\s+(\d+)\b(?!\s*(?:head|kênh|channel))")
_ROW_RE = re.compile(r"\b(?:[Hh]àng|[Rr]ow|[Pp]ixel|[Tt]oken)\s+(?:i\s*=\s*)?p?_?(\d+)\b")
_EXP_RE = re.compile(r"exp(?=\s*=)")
_OUTC_RE = re.compile(r"out_c(\d+)(?![\w'])")
_ROLE_RE = re.compile(r"^\s*(?:\*\*)?(Q|K|V)(?:\*\*)?\s*(?:\(|$|:)")
_ITEM_RE = re.compile(r"(?:(?P<head>[Hh]ead)|(?P<dim>Chiều|Dimension|Dim|dim|Chieu))\s+(?P<n>\d+)\s*:\s*")
_SUM_RE = re.compile(r"(?<![\w])(?:[Tt]ổng|[Ss]um|[Tt]otal)(?:\s*:)?\s*(?:Σ_?\w*\s*exp\s*\([^)\n]*\)\s*)?(?=[=≈])")
_MAX_RE = re.compile(r"(?<![\w])m(?:_i)?(?:\s*=\s*max)?(?=\s*=)")
_BIND_RE = re.compile(r"([A-Z])\s*(=)\s*(?=⟦)")
_NL_RE = re.compile("\n")
_CLAIM_KINDS = frozenset(("num", "open", "ident", "op", "sqrt", "other"))  # tokens a claim may start at
_ITEM_FIRSTS = frozenset("HhCDd")  # what _ITEM_RE can match first; _BIND_RE starts with A-Z
# the tokens at which a context word (``_ctx_label``) can start, whole: m, m_i (_MAX_RE), t and T of tổng, sum,
# total (_SUM_RE: "ổ" is no identifier's letter), and out_c<n> (_OUTC_RE, by its prefix); exp (_EXP_RE) is a function
_CTX_WORDS = frozenset(("m", "m_i", "t", "T", "sum", "Sum", "total", "Total"))
_CTX_AT = re.compile("|".join(f"(?:{rx.pattern})" for rx in (_MAX_RE, _EXP_RE, _OUTC_RE, _SUM_RE)))  # any of them
_CTX_FIRSTS = frozenset("meotTsS")  # the first letters of _MAX_RE, _EXP_RE, _OUTC_RE, _SUM_RE
_WORDS_CHECK = re.compile(r"(?:Kiểm tra|Check)\b", re.I)
_REL_CHAR = re.compile("[=≈:]")  # what a relation token (``expr``'s "rel") holds
# ``_labelled_values``: blanks (no token), an identifier token, "/" and a second label, a relation then a value
# (blanks and newlines between, as ``parse_chain`` reads past them; "==", "≈=": no), a value (a plain matrix, or
# one printed number as ``expr``'s "num" token reads it, its sign glued or not) and what may follow it before
# the next label (blanks, newlines, one comma)
_BLANKS = re.compile(r"[ \t\n]*")
_IDENT = re.compile(dict(expr._TOKEN_KINDS)["ident"])
_QUOTIENT = re.compile(r"[ \t]*/(?!/)[ \t]*")
_REL_AFTER = re.compile(r"[ \t\n]*(?:=|≈)(?![=≈:])[ \t\n]*")
_SIGNED_NUM = re.compile(r"(-[ \t]*)?(" + dict(expr._TOKEN_KINDS)["num"] + ")(" + expr._TRUNC + ")?")
_VALUE_SEP = re.compile(r"[ \t\n]*(?:,[ \t\n]*)?")
_DIGIT, _NUM_START = expr._DIGIT, expr._NUM_START
_POS = attrgetter("pos")
_KIND = attrgetter("kind")
_KIND_TEXT = attrgetter("kind", "text")
_TEXT = attrgetter("text")
_IS_NONE = partial(is_, None)
# ``_dot_lines``: after a label, the rest of a worked dot product ``= (a)(b) + (c)(d) … = t`` as the token walk
# reads it: a relation ("==", "≈=": no), products of two parenthesised printed numbers glued together (the
# implicit product ``Parser._implicit_ok`` takes), "+" between them on one line or starting a continued line
# (``Parser._continued``: "+" then a space), newlines before the second relation, and one printed number, its
# sign glued, alone to the end of its line (nothing after it that a token could join)
_FACTOR = r"\((-?)(\d+(?:\.\d+)?)\)"
_DOT_TERM = re.compile(_FACTOR + _FACTOR)
_DOT_SUM = _FACTOR + _FACTOR + r"(?:(?:[ \t]*|(?:[ \t]*\n)+[ \t]*(?=\+ ))\+[ \t]*" + _FACTOR + _FACTOR + r")*"
_DOT_REST = re.compile(r"[ \t]*(=|≈)(?![=≈:])[ \t]*(" + _DOT_SUM + r")(?:[ \t]*\n)*[ \t]*(=|≈)(?![=≈:])[ \t]*"
                       r"(-?)(\d+(?:\.\d+)?)[ \t]*(?=\n|\Z)")


_N = r"(-?\d+(?:\.\d+)?)"
# Summary figures our walkthroughs state in prose (vi | en): regex -> what each number is.
PHRASES: list[tuple[re.Pattern, str]] = [
    (re.compile(r"(?:tổng mỗi hàng nằm trong khoảng|every row sums to a value in)\s*\[\s*" + _N + r"\s*,\s*" + _N),
     "row_sum_range"),
    (re.compile(r"(?:trọng số nhỏ nhất|smallest weight)\s+" + _N + r"\s*,\s*(?:lớn nhất|largest)\s+" + _N),
     "head_min_max"),
    (re.compile(r"(?:trọng số nằm trong khoảng|the weights lie in)\s*\[\s*" + _N + r"\s*,\s*" + _N), "all_min_max"),
    (re.compile(r"(?:tổng hàng này \(trước khi làm tròn\) là|this row sums \(before rounding\) to)\s+" + _N),
     "row_attn_sum"),
    (re.compile(r"normal_\(\s*0\s*,\s*" + _N + r"\s*\)"), "init_std"),
    (re.compile(r"(?:độ lệch chuẩn|standard deviation)\s+" + _N), "init_std"),
    (re.compile(r"(?:mọi giá trị gần|every weight is close to)\s+" + _N), "uniform"),
    (re.compile(r"(?:không đều|not uniform)\s*\((?:từ|from)\s+" + _N + r"\s+(?:đến|to)\s+" + _N), "all_min_max"),
    (re.compile(r"(?:so với mức đều|against the uniform)\s+" + _N), "uniform"),
    (re.compile(r"1\s*/\s*√\(1 \+ ε\)[^≈\n]{0,40}≈\s*" + _N), "bn_fold"),
    (re.compile(r"(?<![\w])p_?(\d+)(?:\s*\([^()\n]*\))?\s*→\s*[pm]_?(\d+)(?:\s*\([^()\n]*\))?\s*"
                r"\((?:trọng số|weight)\s+" + _N + r"\)"), "pair_weight"),
    (re.compile(r"(?:Tổng từng hàng|Row sums)(?:\s+(?:của head|of head)\s+(\d+))?\s*\((?:trước khi làm tròn|"
                r"before rounding)\):\s*((?:-?\d+(?:\.\d+)?\s*,\s*)*-?\d+(?:\.\d+)?)"), "row_sums"),
]


# Words one of which each entry of PHRASES needs (its own literal alternatives), so that a text holding
# none of them skips that regex: most texts hold no summary figure at all.
PHRASE_WORDS: list[tuple[str, ...]] = [
    ("tổng mỗi hàng nằm trong khoảng", "every row sums to a value in"),
    ("trọng số nhỏ nhất", "smallest weight"),
    ("trọng số nằm trong khoảng", "the weights lie in"),
    ("tổng hàng này (trước khi làm tròn) là", "this row sums (before rounding) to"),
    ("normal_(",),
    ("độ lệch chuẩn", "standard deviation"),
    ("mọi giá trị gần", "every weight is close to"),
    ("không đều", "not uniform"),
    ("so với mức đều", "against the uniform"),
    ("√(1 + ε)",),
    ("→",),
    ("Tổng từng hàng", "Row sums"),
]


_ROW_WORDS = ("àng", "ow", "ixel", "oken")  # what _ROW_RE needs after its first letter
# NUMBER_RE's matches that hold a decimal point: the same matches (an integer it finds never hides one). Its
# lookbehind (no word character or point before the number) is asked after the first digit, so that the pattern
# starts with a digit and the regex engine skips to the next digit in C instead of trying every offset
_DECIMAL_RE = re.compile(NUMBER_RE.pattern.replace(r"(?<![\w.])(\d+(?:\.\d+)?)", r"(\d(?<![\w.]\d)\d*\.\d+)", 1))
assert _DECIMAL_RE.pattern != NUMBER_RE.pattern


# A table row's first cell: a pixel (p0), a key/value token of a cross-attention input (m0, m1 (x)), a name
_PIXEL_CELL = re.compile(r"p_?(\d+)")
_KV_CELL = re.compile(r"m_?(\d+)(?:\s*\([^()]*\))?")
_NAME_CELL = re.compile(r"\s*([A-Za-z_]\w*)")

_LINE = attrgetter("line")
_START = re.Match.start


assert len(PHRASE_WORDS) == len(PHRASES), "each summary phrase needs its words (PHRASE_WORDS)"
_PHRASE_ANY = re.compile("|".join(re.escape(w) for words in PHRASE_WORDS for w in words))


class Checker:
    """``exact=True`` decides every number on the exact path (Fraction, sympy, mpmath): the reference
    the default float-first path (``bounds``) must agree with, verdict for verdict."""

    def __init__(self, view: TraceView, symbols: dict[str, Fraction], exact: bool = False):
        self.view = view
        self.symbols = symbols
        self.given = given_values(view.cfg)  # the scenario's given inputs: exact operands (exact_inputs)
        self.weights = weight_values(view.t)  # (and the weights a printed operand may round instead)
        self.exact = exact
        self.ctx = Ctx()
        self.recs: dict[tuple[int, int], NumRec] = {}
        self.refs: dict[str, Ref] = {}
        self.seg_id = 0
        self.notes: list[tuple[int, str]] = []
        self.base = 0  # hand-written element names (s_12, score(q1, k2)) count from this index
        self.head_base = 0  # a label's head subscript (S_1, A_2) counts from this (head_subscripts)
        self.scaled_s = False  # the note's S_h are printed scaled (head_subscripts.scaled_s_labels)
        self.raw_names: frozenset = frozenset()  # names the note's code binds to QKᵀ (code_names.raw_score_names)
        self.hand_keys: set[str] = set()
        self.starts: tuple = (None, [])  # (text, offsets of its newlines) for _line_of
        self.label_memo: tuple | None = None  # (text, pos, _label_cb's answer) found by ``_at``, for parse_chain
        self.plain_done: list = []  # (segment, body start, end) of plain matrices all of whose cells have records
        self.pending: list = []  # plain matrices of a strict note whose cells are decided at the end (``_flush_plain``)
        self.scales: dict = {}  # (kind, index, head, current head) -> view.scale (``_scale``)
        self.col_memo: dict = {}  # a table's header -> what its pixel rows' cells hold (``_column_refs``)
        self.skip_memo: dict = {}  # (kind, text) of a token -> whether the token walk passes it over (``_text``)
        # what a label (``_label_cb``) can start with: label_at's patterns, _ctx_label's words; hand-written
        # names (not read in attnwalk's own notes) may start with more
        firsts = self.label_firsts = label_firsts()
        self.firsts = firsts | _CTX_FIRSTS if firsts is not None and view.strict else None
        # the first characters at which ``_at`` may do more than pass a word of prose over: a label's
        # (``label_firsts``), an item's ("Head 1:"); a context word and a bound matrix's name are whole tokens
        # (``_CTX_WORDS``; one capital letter), so that prose's words that merely start like one (mức, số, trọng,
        # Ultralytics) are passed over too (``_starts_nothing``)
        self.active = None if self.firsts is None else firsts | _ITEM_FIRSTS

    # ------------------------------------------------------------ driving

    def run(self, segs: list[Segment]) -> list[NumRec]:
        texts = [normalize(seg.text) if seg.text else "" for seg in segs]
        if not self.view.strict:  # read only by hand-written element names, which strict notes never read
            doc = "\n".join(nt for seg, nt in zip(segs, texts) if seg.text)
            self.base = index_base(doc)
            self.head_base = one_based_label_heads(doc)
            self.scaled_s = scaled_s_labels(doc)
        for seg, nt in zip(segs, texts):
            self.seg_id += 1
            if seg.kind == "heading":
                self.ctx.row, self.ctx.role, self.ctx.shifted, self.ctx.bound = None, None, False, {}
                self.ctx.dim_v = None
                self._context(nt)
            elif seg.kind == "item_open":
                self.ctx.roles.append(self.ctx.role)
            elif seg.kind == "item_close":
                if self.ctx.roles:
                    self.ctx.role = self.ctx.roles.pop()
            elif seg.kind in ("para", "code"):
                self._text(nt, seg.line, seg.kind)
            elif seg.kind == "row":
                self._row(seg)
        self._flush_plain()
        # by line, then by where each was read (segment, offset): (line, key, record) tuples sorted in C (keys are
        # unique, so records are never compared)
        recs = self.recs
        return list(map(itemgetter(2), sorted(zip(map(_LINE, recs.values()), recs.keys(), recs.values()))))

    def _context(self, nt: str) -> None:
        m = _ROLE_RE.match(nt)
        if m:
            self.ctx.role = m.group(1).lower()
        heads = _HEAD_RE.findall(nt) if "ead" in nt else None  # the regexes' own words, found by a substring
        if heads:
            self.ctx.head = index_int(heads[-1])
        rows = _ROW_RE.findall(nt) if any(w in nt for w in _ROW_WORDS) else None  # search first: matrices
        if rows:
            # a hand-written note naming no row 0 anywhere (``index_base``: 1) counts "Row 1 … Row n" from 1
            row = index_int(rows[-1])
            self.ctx.row = row - (not self.view.strict and self.base == 1 and row > 0)
            self.ctx.shifted, self.ctx.exp_j = False, 0
        self.ctx.hint = nt

    # ------------------------------------------------------------ numbers

    def _rec(self, seg_line: int, nt: str, node_num, sign: str = "") -> NumRec:
        key = (self.seg_id, node_num.pos)
        rec = self.recs.get(key)
        if rec is None:
            line = seg_line + self._line_of(nt, node_num.pos) - 1
            rec = self.recs[key] = NumRec(line, sign + node_num.text + ("…" if node_num.truncated else ""))
        return rec

    def _line_of(self, nt: str, pos: int) -> int:
        """``nt.count("\\n", 0, pos) + 1``, by bisection over the newlines of the text at hand."""
        return bisect_left(self._newlines(nt), pos) + 1

    def _newlines(self, nt: str) -> list[int]:
        """Where the newlines of ``nt`` are (kept for the text at hand)."""
        starts = self.starts
        if starts[0] is not nt:
            starts = self.starts = (nt, list(map(_START, _NL_RE.finditer(nt))))
        return starts[1]

    def _text(self, nt: str, line: int, kind: str) -> None:
        if kind == "para":
            self._context(nt)
            self._pe_wording(nt, line)
        self.nt, self.line = nt, line
        self._phrases(nt)
        c = self.ctx
        if self.view.strict and (c.caption is None or c.caption_seg == self.seg_id) and _REL_CHAR.search(nt) is None:
            # no relation (=, ≈, :): no claim, item or binding starts here and no caption waits for a value, so
            # the token walk below would only look labels up (which a strict note's later claims look up
            # again) and record the decimals: done without tokens (a table's cells, most prose)
            if kind == "para":
                c.caption = None  # ``_set_caption``: the text does not end in ':'
            self._decimals(nt, line, 0, len(nt))
            return
        block = None
        if kind != "code" and self.view.strict and c.caption is None and LABELLED_BLOCKS:
            block = self._labelled_values(nt)
            if block is True:
                if kind == "para":
                    c.caption = None  # ``_set_caption``: the text ends in a value, not ':'
                self._rest(nt, line)
                return
        elif kind == "code" and self.view.strict and CODE_LINES and not self.exact:
            block = self._dot_lines(nt)
            if block is True:
                self._rest(nt, line)
                return
        toks = tokenize(nt)
        # no claim starts after the last relation (=, ≈, :): past it, tokens are tried only for captions
        self.last_rel = next((t.pos for t in reversed(toks) if t.kind == "rel"), -1)  # where it starts
        # what the claims of a text may read: every note we have reads at most one atom a token; a text
        # that asks for more (a 10,000-term sum before an unrelated "x = 1") has its claims unread
        self.budget = [PARSE_BUDGET * token_count(toks) + 1000]
        i = 0
        if block:  # ``_labelled_values`` stopped at a chain that raised: the walk goes on after its label's token
            at, spent = block
            self.budget[0] -= spent
            i = bisect_left(toks, at, key=_POS) + 1
        # a word of prose that starts nothing (what ``_at`` finds after its first tests): passed over here
        active = self.active
        if active is not None and SKIP_WORDS and "plain" not in map(_KIND, toks):
            # no plain body, so nothing expands and the tokens stay as they are: the words the loop below would
            # pass over are found first (one memo lookup each, made in C), and ``_at`` asked at the others only
            memo = self.skip_memo
            flags = list(map(memo.get, map(_KIND_TEXT, toks)))
            if None in flags:
                for k in compress(range(len(flags)), map(_IS_NONE, flags)):
                    t = toks[k]
                    flags[k] = memo[t.kind, t.text] = t.text not in _CTX_WORDS and not t.text.startswith("out_c") \
                        and self._prose_word(t.kind, t.text)  # (``_starts_nothing``, one call a token)
            # a context word is one only where its regex matches (``_ctx_label``): elsewhere (the t of tại, the m of
            # mức) it is a word of prose like another
            for k in compress(range(len(flags)), map(_CTX_WORDS.__contains__, map(_TEXT, toks))):
                t = toks[k]
                flags[k] = _CTX_AT.match(nt, t.pos) is None and self._prose_word(t.kind, t.text)
            for k in compress(range(i, len(toks)), map(not_, flags[i:])):
                if k < i:
                    continue  # read by the claim before
                try:
                    j = self._at(toks, k)
                except (ArithmeticError, ValueError, TypeError, RecursionError, MemoryError, NotEvaluable):
                    j = k + 1
                i = j if j > k else k + 1
            i = len(toks)
        while i < len(toks):
            t = toks[i]
            if t.kind == "plain":  # a matrix body no claim took: its numbers are tried one by one
                expand(toks, i, nt)
                continue
            if active is not None and self._starts_nothing(t.kind, t.text):
                i += 1
                continue
            try:
                j = self._at(toks, i)
            except (ArithmeticError, ValueError, TypeError, RecursionError, MemoryError, NotEvaluable):
                # a claim the arithmetic cannot take (exp(1000), 1/0, 0/0): its numbers stay "not understood"
                j = i + 1
            i = j if j > i else i + 1
        if kind == "para":
            self._set_caption(nt, toks)
        self._rest(nt, line)

    def _starts_nothing(self, kind: str, text: str) -> bool:
        """Does ``_at`` pass a token over at once, whatever follows it (a strict note's walk; ``active`` is set)?
        A word of prose (``_prose_word``) that is no context word of ``_ctx_label``'s."""
        return self._prose_word(kind, text) and text not in _CTX_WORDS and not text.startswith("out_c")

    def _prose_word(self, kind: str, text: str) -> bool:
        """A token no claim starts at (a comma, a newline, a relation, a bracket that closes, an operator but "-"),
        or a word (not a function, constant or symbol) that neither a label nor an item starts with and that is
        no bound matrix's name (_BIND_RE: one capital letter): ``_at`` passes it over unless it is a context word."""
        if kind not in _CLAIM_KINDS or (kind == "op" and text != "-"):
            return True  # ``_at``'s first tests (none of these tokens starts with a capital or an item's letter)
        return (kind == "other" or (kind == "ident" and text not in FUNCS and text not in CONSTS
                                    and text not in self.symbols)) and text[0] not in self.active \
            and not (len(text) == 1 and "A" <= text <= "Z")

    def _rest(self, nt: str, line: int) -> None:
        """The last pass over a text: its decimals nobody used."""
        # decimals nobody used: not understood (NUMBER_RE's matches with a point, found without the others),
        # looked for outside the plain bodies whose every cell has a record already (``_check_plain``):
        # a body lies between ⟦ and ⟧, which no number touches
        seg_id = self.seg_id
        done = [(a, b) for s, a, b in self.plain_done if s == seg_id]
        self.plain_done.clear()
        lo = 0
        for a, b in sorted(done) + [(len(nt), len(nt))]:
            self._decimals(nt, line, lo, a)
            lo = max(lo, b)

    def _label_here(self, nt: str, pos: int):
        """``label_at(nt, pos)`` where the token walk would read a label there (not a function, constant or
        symbol, a first character the note's labels can start with, not a list item's marker), else None:
        the gate of the readers that skip the walk (``_labelled_values``, ``_dot_lines``)."""
        word = _IDENT.match(nt, pos)
        if word is None or word.group() in FUNCS or word.group() in CONSTS or word.group() in self.symbols:
            return None
        first, active, firsts = nt[pos], self.active, self.firsts
        if (active is not None and first not in active) or (firsts is not None and first not in firsts):
            return None
        if first in _ITEM_FIRSTS and _ITEM_RE.match(nt, pos) and (pos == 0 or not nt[pos - 1].isalnum()):
            return None
        hit = label_at(nt, pos)
        if hit is not None and (self.head_base or self.scaled_s):
            return hit[0], self._as_the_note_counts(hit[1])
        return hit

    def _labelled_values(self, nt: str) -> bool | tuple[int, int]:
        """Read a text that is nothing but labelled values, one after another (a paragraph of matrices
        ``X[:,0,:,:] = ⟦..⟧, W_pe[1] = ⟦..⟧``, a table cell ``A_0[2, 15] = 0.0628`` or
        ``A_0[2, 15] / A_0[2, 12] ≈ 1.009``: most of a generated note's numbers), without its tokens: each
        label and value found by a match, then the chain that the token walk would build (``_chain`` of the
        label, or the quotient of two labels, and its ``PlainMat`` or number node). False, with nothing done,
        for any other text: the token walk reads it; (offset of a label, atoms read) where that label's chain
        raised, as the walk would have stopped there. Each test below is one the walk makes at the label's
        token (``_text``'s skip of prose words, ``_at``'s item and call tests, ``_label_cb``, ``parse_chain``,
        ``Parser.term``'s quotient), so the records are the walk's (``tests/test_check_fastpath.py``)."""
        pos = _BLANKS.match(nt).end()
        end_all, found = len(nt), []
        while True:
            hit = self._label_here(nt, pos)
            if hit is None:
                return False
            end, ref = hit
            labels = [(pos, end, ref)]
            quot = _QUOTIENT.match(nt, end)  # ``a / b``: the second label as ``Parser.atom`` finds it
            if quot is not None:
                at = quot.end()
                if _IDENT.match(nt, at) is None or (self.firsts is not None and nt[at] not in self.firsts):
                    return False  # (a label that starts another token: not tried by ``atom``)
                hit = label_at(nt, at)
                if hit is None:
                    return False
                labels.append((at, *hit))
                end = hit[0]
            rel = _REL_AFTER.match(nt, end)
            if rel is None:
                return False
            at = rel.end()
            if nt.startswith("⟦", at):
                body = expr._PLAIN_RUN.match(nt, at)  # ``tokenize``'s plain body, and its tests
                if body is None:
                    return False
                a, b = body.span(1)
                if expr.neg_after_num(nt, a, b) or not _DIGIT.search(nt, a, b):
                    return False
                value, after = (at, a, b), body.end()
            else:
                num = _SIGNED_NUM.match(nt, at)
                if num is None:
                    return False
                value, after = num, num.end()
            found.append((labels, value))
            pos = _VALUE_SEP.match(nt, after).end()
            if pos == end_all:
                break
        spent = 0  # the atoms ``parse_chain`` would have read: each label, each number; a matrix's cells
        bodies = []  # are counted only where the count is asked (a chain that raised)
        for labels, value in found:
            nodes = []
            for at, end, ref in labels:
                key = f"{ref.kind}:{ref.index}:{ref.head}:{at}"  # as ``_label_cb`` names it
                self.refs[key] = ref
                nodes.append(Node("label", [], name=key, start=at, end=end))
            first = nodes[0] if len(nodes) == 1 else Node("bin", nodes, op="/", start=nodes[0].start, end=nodes[1].end)
            if type(value) is tuple:
                spent += len(nodes)
                bodies.append(value)
                node = PlainMat(nt, *value)
            else:
                spent += len(nodes) + 1
                a = value.start(2)
                node = Node("num", num=Num(value.group(2), a, value.group(3) is not None), start=a, end=value.end())
                if value.group(1):
                    node = Node("neg", [node], start=value.start(), end=node.end)
            try:
                self._chain([first, node], ["="])
            except (ArithmeticError, ValueError, TypeError, RecursionError, MemoryError, NotEvaluable):
                spent += sum(len(_NUM_START.findall(nt, a, b)) for _, a, b in bodies)
                return labels[0][0], spent  # as ``_text`` catches it: the token walk goes on from the next token
        return True

    def _dot_lines(self, nt: str) -> bool | tuple[int, int]:
        """Read a strict code text that is nothing but worked dot products, ``LABEL = (a)(b) + (c)(d) + … = t``
        one after another (continued lines included: a score, a weighted sum of V, a conv channel), without
        its tokens: each statement found by one match, then the chain the token walk would build (the label,
        the sum of implicit products of parenthesised numbers, the result) handed to the same ``_chain``.
        False, with nothing done, for any other text (the token walk reads it); (offset of a label, atoms
        read) where that label's chain raised, as ``_labelled_values`` answers. The tests on each label are
        the walk's (``_text``'s skip of prose words, ``_at``'s item test, ``_label_cb``), so the records are
        the walk's (``tests/test_check_fastpath.py``)."""
        pos = _BLANKS.match(nt).end()
        end_all, found = len(nt), []
        while pos < end_all:
            hit = self._label_here(nt, pos)
            if hit is None:
                return False
            rest = _DOT_REST.match(nt, hit[0])
            if rest is None:
                return False
            found.append((pos, hit, rest))
            pos = _BLANKS.match(nt, rest.end()).end()
        if not found:
            return False
        spent = 0  # the atoms ``parse_chain`` would have read: the label, two for each factor (its group and
        for at, (end, ref), rest in found:  # number), the result
            key = f"{ref.kind}:{ref.index}:{ref.head}:{at}"  # as ``_label_cb`` names it
            self.refs[key] = ref
            label = Node("label", [], name=key, start=at, end=end)
            total = None
            for m in _DOT_TERM.finditer(nt, *rest.span(2)):
                spent += 4
                a = _dot_factor(m, 1)
                b = _dot_factor(m, 3)
                term = Node("bin", [a, b], op="*", start=a.start, end=b.end)
                total = term if total is None else Node("bin", [total, term], op="+", start=total.start, end=term.end)
            spent += 2
            a = rest.start(13)  # the result's digits (12: its sign; 11: the second relation)
            result = Node("num", num=Num(rest.group(13), a), start=a, end=rest.end(13))
            if rest.group(12):
                result = Node("neg", [result], start=rest.start(12), end=result.end)
            try:
                self._chain([label, total, result], [rest.group(1), rest.group(11)])
            except (ArithmeticError, ValueError, TypeError, RecursionError, MemoryError, NotEvaluable):
                return at, spent  # as ``_text`` catches it: the token walk goes on from the next token
        return True

    def _decimals(self, nt: str, line: int, lo: int, hi: int) -> None:
        """Record the decimals of ``nt[lo:hi]`` that have no record yet: not understood."""
        seg_id, recs = self.seg_id, self.recs
        found = list(_DECIMAL_RE.finditer(nt, lo, hi))
        if len(found) > 8:  # the ones without a record, found in C: most of a worked text's decimals have one
            found = compress(found, map(not_, map(recs.__contains__, zip(repeat(seg_id), map(_START, found,
                                                                                               repeat(1))))))
        for m in found:
            if (seg_id, m.start(1)) in recs:
                continue
            at = m.start(1)
            sign = "-" if at > 0 and nt[at - 1] == "-" else ""
            self._rec(line, nt, Num(m.group(1), at, bool(m.group(2))), sign)

    def _phrases(self, nt: str) -> None:
        if _PHRASE_ANY.search(nt) is None:
            return  # no summary phrase's word: most texts
        for (rx, what), words in zip(PHRASES, PHRASE_WORDS):
            if not any(w in nt for w in words):
                continue
            for m in rx.finditer(nt):
                if what in ("pair_weight", "row_sums"):
                    self._indexed_phrase(m, what)
                    continue
                try:
                    vals = self._phrase_values(what)
                except (KeyError, IndexError, TypeError):
                    continue
                for g, e in zip(range(1, len(vals) + 1), vals):
                    text = m.group(g)
                    sign = "-" if text.startswith("-") else ""
                    num = Num(text.lstrip("-"), m.start(g) + len(sign))
                    self._compare(num, sign, float(e), what.replace("_", " "))

    def _indexed_phrase(self, m, what: str) -> None:
        h = self.ctx.head or 0
        try:
            a = self.view._square("attn", h)
        except (KeyError, IndexError):
            return
        if what == "pair_weight":
            i, j, g = index_int(m.group(1)), index_int(m.group(2)), 3
            if i >= a.shape[0] or j >= a.shape[1]:
                return
            text = m.group(g)
            self._compare(Num(text.lstrip("-"), m.start(g) + text.startswith("-")), "-" if text[0] == "-" else "",
                          float(a[i, j]), f"α(p{i}→p{j})")
            return
        if m.group(1) is not None:
            try:
                a = self.view._square("attn", index_int(m.group(1)))
            except (KeyError, IndexError):
                return
        sums = a.sum(-1)
        nums = list(re.finditer(r"-?\d+(?:\.\d+)?", m.group(2)))
        if len(nums) != len(sums):
            return
        for n, e in zip(nums, sums):
            text = n.group(0)
            start = m.start(2) + n.start() + text.startswith("-")
            self._compare(Num(text.lstrip("-"), start), "-" if text[0] == "-" else "", float(e), "row sum")

    def _phrase_values(self, what: str) -> tuple:
        t, c = self.view.t, self.ctx
        if what == "init_std":
            return (self.view.cfg["init_std"],)
        if what == "bn_fold":
            return (1.0 / np.sqrt(1.0 + 1e-5),)
        attn = t["attn"][self.view.b]
        a_h = attn[c.head or 0] if attn.ndim == 3 else attn
        if what == "row_sum_range":
            return a_h.sum(-1).min(), a_h.sum(-1).max()
        if what == "head_min_max":
            return a_h.min(), a_h.max()
        if what == "all_min_max":
            return attn.min(), attn.max()
        if what == "row_attn_sum":
            return (a_h[c.row or 0].sum(),)
        return (1.0 / attn.shape[-1],)  # uniform

    def _set_caption(self, nt: str, toks: list) -> None:
        """A paragraph ending in ':' that names one label captions the next bare value (``toks``: its
        tokens; a plain matrix body, expanded or not, holds no label)."""
        self.ctx.caption = None
        if not nt.rstrip().endswith(":"):
            return
        refs = {}
        firsts = self.label_firsts  # where ``label_at`` can find nothing, it is not asked (most tokens of prose)
        for t in toks if firsts is None else [t for t in toks if nt[t.pos] in firsts]:
            hit = label_at(nt, t.pos)
            if hit:
                refs[(hit[1].kind, hit[1].index, hit[1].head)] = hit[1]
        if len(refs) != 1:
            return
        ref = next(iter(refs.values()))
        rows = _ROW_RE.findall(nt)
        if ref.kind in ("scores", "scores_scaled", "attn", "exp_row") and not ref.index and len(rows) == 1:
            ref = Ref(ref.kind, f"{ref.text}[{rows[0]}, :]", (index_int(rows[0]), None), ref.head)
        self.ctx.caption, self.ctx.caption_seg = ref, self.seg_id

    def _pe_wording(self, nt: str, line: int) -> None:
        """The text's PE formula against the config's pe_on: a note, never a failure."""
        if self.view.strict:
            return  # attnwalk's own notes say which semantics they show, and quote the other one
        m = re.search(r"O'\s*=\s*\w+\s*\+\s*PE\((\w+)\)", nt)
        pe_on = self.view.cfg.get("pe_on")
        if not m or pe_on not in ("v", "o"):
            return
        src = m.group(1)
        says = "v" if src in ("V", "v") else "o" if src in ("O", "o", "Res", "res") else None
        if says and says != pe_on:
            where = line + nt.count("\n", 0, m.start())
            self.notes.append((where, f"the text applies PE to {src} ({m.group(0)}) but the config has "
                                      f"pe_on = {pe_on}; check with --pe-on {says} for the text's semantics"))

    def _label_cb(self, text: str, pos: int):
        memo = self.label_memo
        if memo is not None and memo[1] == pos and memo[0] is text:
            self.label_memo = None
            return memo[2]
        if self.firsts is not None and text[pos:pos + 1] not in self.firsts:
            return None  # most tokens of prose: no label, context word or hand-written name starts there
        hit = label_at(text, pos)
        if hit is None:
            hit = self._ctx_label(text, pos)
        hand = hit is None and not self.view.strict
        if hand:
            hit = hand_label_at(text, pos, self.base)
        if hit is None:
            return None
        end, ref = hit
        if not hand and (self.head_base or self.scaled_s):
            ref = self._as_the_note_counts(ref)
        key = f"{ref.kind}:{ref.index}:{ref.head}:{pos}"
        self.refs[key] = ref
        if hand:
            self.hand_keys.add(key)
        return end, key

    def _as_the_note_counts(self, ref: Ref) -> Ref:
        """A label as the note's own notation means it (``head_subscripts``): ``S_1`` of a note whose heads are
        Head 1, Head 2 is the first head; its ``S_h`` printed after ``.. divided by sqrt(2),`` are scaled."""
        kind = "scores_scaled" if self.scaled_s and ref.kind == "scores" else ref.kind
        head = ref.head - self.head_base if self.head_base and ref.head else ref.head
        return ref if (kind, head) == (ref.kind, ref.head) else Ref(kind, ref.text, ref.index, head)

    def _ctx_label(self, text: str, pos: int):
        """Worked-softmax words that mean a value of the current row: m, tổng/sum."""
        c = self.ctx
        if c.row is None:
            return None
        if pos > 0 and (text[pos - 1].isalnum() or text[pos - 1] == "_"):
            return None
        m = _MAX_RE.match(text, pos)
        if m:
            return m.end(), Ref("row_max", m.group(0), (c.row,), c.head)
        m = _EXP_RE.match(text, pos)
        if m:
            return m.end(), Ref("exp_row" if c.shifted else "exp_raw", "exp", (c.row, None), c.head)
        m = _OUTC_RE.match(text, pos)
        v_cols = self.view.cfg.get("v_cols")
        if m and v_cols and index_int(m.group(1)) in list(v_cols):
            return m.end(), Ref("out_pix", m.group(0), (c.row, list(v_cols).index(index_int(m.group(1)))))
        m = _SUM_RE.match(text, pos)
        if m:
            if _check_word_before(text, line_start(text, pos), pos):
                return m.end(), Ref("attn_sum", m.group(0), (c.row,), c.head)
            return m.end(), Ref("row_sum" if c.shifted else "raw_sum", m.group(0), (c.row,), c.head)
        return None

    def _at(self, toks, i) -> int:
        """Try the forms that can start at token ``i``; return the next token index."""
        t = toks[i]
        nt = self.nt
        first = t.text[:1]
        if t.kind not in _CLAIM_KINDS and first not in _ITEM_FIRSTS and not "A" <= first <= "Z":
            return i + 1  # a newline, comma, bracket, relation...: no form starts there
        m = _ITEM_RE.match(nt, t.pos) if first in _ITEM_FIRSTS else None
        if m and (t.pos == 0 or not nt[t.pos - 1].isalnum()):
            n = index_int(m.group("n"))
            if m.group("head"):
                self.ctx.head, self.ctx.dim_v = n, None
            else:
                self.ctx.dim_v = n
            j = i
            while j < len(toks) and toks[j].pos < m.end():
                j += 1
            res = parse_chain(nt, toks, j, self._label_cb, self.symbols)
            if res and res[0][0].is_value and res[0][0].kind == "list":
                ref = self._role_ref()
                if ref is not None:
                    self._check_value(ref, res[0][0])
                return res[2]
            return j
        bm = _BIND_RE.match(nt, t.pos) if "A" <= first <= "Z" else None
        if bm and (t.pos == 0 or not nt[t.pos - 1].isalnum()) and label_at(nt, t.pos) is None:
            j = i
            while j < len(toks) and toks[j].pos < bm.end(1):
                j += 1
            j += 1
            while j < len(toks) and toks[j].kind == "nl":
                j += 1
            res = parse_chain(nt, toks, j, None, frozenset())
            if res and res[0][0].kind == "mat" and res[0][0].is_value:
                self.ctx.bound[bm.group(1)] = (res[0][0], self.seg_id, self.nt, self.line)
                return res[2]
        if t.kind in _CLAIM_KINDS:
            if t.kind == "op" and t.text != "-":
                return i + 1
            if t.kind == "open" and t.pos and _arguments(nt, t.pos):
                return i + 1  # the arguments of a call (softmax([2.0, 1.0]) = [..]): not a value on their own
            if t.kind == "open" and i and toks[i - 1].text == "^" and toks[i - 1].end == t.pos:
                return i + 1  # the exponent of a base no claim starts at (``o_2^{(1)} = 0.330 [1,0] + ..``: head 1)
            if t.kind == "ident" and t.text in self.symbols and _in_call(nt, t.pos):
                return i + 1  # a keyword argument: softmax(dim=-1), chunk(3, dim=-1)
            memo = None
            if t.kind == "other" or (t.kind == "ident" and t.text not in FUNCS and t.text not in CONSTS
                                     and t.text not in self.symbols):
                memo = self._label_cb(nt, t.pos)
                if memo is None:
                    return i + 1  # a word of prose: no claim starts here (what parse_chain would find)
            c = self.ctx
            if t.pos >= self.last_rel and (c.caption is None or c.caption_seg == self.seg_id):
                # no relation follows: parse_chain could only find an expression without a claim, which
                # is dropped below (reading each such token's expression to the end would be quadratic)
                return i + 1
            # the label just found is the first thing parse_chain asks for: given, not looked for again
            self.label_memo = None if memo is None else (nt, t.pos, memo)
            try:
                res = parse_chain(nt, toks, i, self._label_cb, self.symbols, self.budget)
            finally:
                self.label_memo = None
            if not res:
                return i + 1
            exprs, rels, j = res
            if rels:
                self._chain(exprs, rels)
                return j
            if exprs[0].kind == "label":
                return j
            if c.caption is not None and c.caption_seg != self.seg_id and exprs[0].kind in ("list", "mat") \
                    and exprs[0].is_value:
                self._check_value(c.caption, exprs[0])
                c.caption = None
                return j
            return i + 1
        return i + 1

    def _role_ref(self) -> Ref | None:
        c = self.ctx
        if c.role is None or c.head is None:
            return None
        if c.role == "v" and c.dim_v is not None:
            return Ref("v", f"V_{c.head}[{c.dim_v}, :]", (c.dim_v, None), c.head)
        if c.dim_v is not None:
            return None
        return Ref(c.role, f"{c.role.upper()}_{c.head}", (), c.head)

    # ------------------------------------------------------------ claims

    def _chain(self, exprs: list[Node], rels: list[str]) -> None:
        first = exprs[0]
        ref = self.refs.get(first.name) if first.kind == "label" else None
        if ref is not None and first.name in self.hand_keys and ref.kind == "scores":
            ref = self._hand_scores(ref, exprs)
        if ref is not None and first.name in self.hand_keys and self._expected(ref) is None:
            ref = None  # s_35 of a 3-token note: a name, not an element of this trace
        if first.name in self.hand_keys:
            if ref is None:
                self.refs.pop(first.name, None)
            else:
                self.refs[first.name] = ref
        if ref is not None:
            if ref.kind in ("scores", "scores_scaled", "attn", "exp_row") and len(ref.index) >= 1 \
                    and ref.index[0] is not None:
                if (self.ctx.row, self.ctx.head) != (ref.index[0], ref.head):
                    self.ctx.shifted, self.ctx.exp_j = False, 0
                self.ctx.row = ref.index[0]
                self.ctx.head = ref.head
            if ref.kind == "window":
                pass
            for e in exprs[1:]:
                if e.is_value:
                    self._check_value(ref, e)
            self._schemas(ref, exprs)
        else:
            self._unlabelled(exprs)
        self._arith(exprs, rels)

    def _hand_scores(self, ref: Ref, exprs: list[Node]) -> Ref | None:
        """``s_12`` does not say raw or scaled: the line's own formula does (``(…)/√d`` is scaled, a
        sum of products raw); a bare value is whichever of the two it is, else unread."""
        scaled = Ref("scores_scaled", ref.text, ref.index, ref.head)
        for e in exprs[1:]:
            top = sums.strip(e)
            if top.kind == "bin" and top.op == "/":
                return scaled
            if top.kind == "bin" and top.op == "+":
                return ref
        values = [e for e in exprs[1:] if e.is_value and e.kind in ("num", "neg")]
        for cand in (ref, scaled):
            want = self._expected(cand)
            if want is not None and np.size(want) == 1 and values and all(
                    sums.near(e, float(np.asarray(want).reshape(-1)[0])) for e in values):
                return cand
        same = float(self.view.t.derived.get("scale") or 1.0) == 1.0
        return ref if same or named_raw(ref.text, self.raw_names) else None  # ``S = Q @ K.T`` in the note's code

    def _expected(self, ref: Ref):
        return self.view.value(ref, self.ctx.head)

    def _leaves(self, node: Node):
        """Nested list of (Num, sign) / None (elision) / (None, sign) (±∞) for a value node."""
        if node.kind == "num":
            return (node.num, "")
        if node.kind == "const":
            return (None, "")
        if node.kind == "neg":
            return (node.args[0].num, "-")
        if node.kind == "ell":
            return None
        return [self._leaves(a) for a in node.args]

    def _check_value(self, ref: Ref, node: Node) -> None:
        if type(node) is PlainMat and PLAIN_COLUMNS and not node.built and not self.exact:
            self._check_plain(ref, node)
            return
        kind = node.kind
        if kind == "num" or (kind == "neg" and node.args[0].kind == "num"):
            # one printed number (most calls: an operand, a result): what _align pairs it with, and the one
            # _compare that _compare_many makes of it, without their lists
            exp = self._expected(ref)
            if exp is None:
                return
            exp = np.asarray(exp)
            if exp.size != 1:
                return
            num, sign = (node.num, "") if kind == "num" else (node.args[0].num, "-")
            self._compare(num, sign, float(exp.reshape(-1)[0]), ref.text, self._scale(ref), (ref, ()))
            return
        exp = self._expected(ref)
        leaves = self._leaves(node)
        if exp is None:
            return
        pairs = _align(leaves, np.asarray(exp))
        if pairs is None:
            return
        scale = self._scale(ref)
        self._compare_many([(num, sign, e, at) for (num, sign), e, at in pairs if num is not None],  # ±∞: no digits
                           ref, scale)

    def _scale(self, ref: Ref) -> float:
        """``view.scale`` of ``ref`` in the current head, once per whole tensor and head (its largest value:
        a 16x16 note checks hundreds of matrices, rows and elements of the same few tensors)."""
        key = (ref.kind, whole_index(ref), ref.head, self.ctx.head)
        scale = self.scales.get(key)
        if scale is None:
            scale = self.scales[key] = self.view.scale(ref, self.ctx.head)
        return scale

    def _check_plain(self, ref: Ref, node: PlainMat) -> None:
        """``_check_value`` of a plain matrix, its cells read from the text as columns (``PlainMat.cells``)
        instead of nodes: the same pairing (rows x columns, or one row against a vector), the same
        float-first test and records; only the cells it does not pass clearly get a ``Num``."""
        exp = self._expected(ref)
        if exp is None:
            return
        texts, starts, negs, rows = node.cells()
        exp = np.asarray(exp)
        e2 = exp if exp.ndim == 2 else (exp.reshape(1, -1) if exp.ndim == 1 else None)
        if e2 is None or len(rows) != e2.shape[0] or any(n != e2.shape[1] for n in rows):
            return  # ``_align``: the shapes disagree
        label, scale = ref.text, self._scale(ref)
        width = e2.shape[1]
        cell = (lambda k: (k,)) if exp.ndim == 1 else (lambda k: divmod(k, width))  # a cell's place in exp
        if len(texts) < BULK_MIN:
            for k, (text, at, neg, e) in enumerate(zip(texts, starts, negs, e2.reshape(-1).tolist())):
                self._compare(Num(text, at), "-" if neg else "", float(e), label, scale, (ref, cell(k)))
            return
        expected = list(map(float, e2.reshape(-1).tolist()))
        decimals = _decimals_of(texts)
        self.plain_done.append((self.seg_id, *node.body))  # every cell recorded: ``_text``'s last pass skips them
        if self.view.strict and DEFER_PLAIN and math.isfinite(sum(expected)):
            # the float-first test of a strict note's matrices runs once for all of them (``_flush_plain``)
            self.pending.append((self.seg_id, self.nt, self.line, ref, cell, texts, starts, negs, decimals, expected,
                                 scale))
            return
        ok = _clear_passes(texts, negs, decimals, [False] * len(texts), expected, scale, self.view.strict)
        self._record_plain(ref, cell, texts, starts, negs, decimals, expected, scale, ok)

    def _flush_plain(self) -> None:
        """The matrices ``_check_plain`` left pending, decided as it would have: ``bounds.close_many`` on all their
        cells at once (one NumPy pass for a note's hundreds of small matrices), then each matrix's records, in the
        order they were read, with the text they were read in as the one at hand."""
        pending, self.pending = self.pending, []
        if not pending:
            return
        texts = [t for p in pending for t in p[5]]
        ok = bounds.close_many(texts, [n for p in pending for n in p[7]], [d for p in pending for d in p[8]],
                               [False] * len(texts), [e for p in pending for e in p[9]], 0.0, True).tolist()
        here = self.seg_id, self.nt, self.line
        at = 0
        try:
            for seg_id, nt, line, ref, cell, texts, starts, negs, decimals, expected, scale in pending:
                self.seg_id, self.nt, self.line = seg_id, nt, line
                self._record_plain(ref, cell, texts, starts, negs, decimals, expected, scale, ok[at:at + len(texts)])
                at += len(texts)
        finally:
            self.seg_id, self.nt, self.line = here

    def _record_plain(self, ref: Ref, cell, texts: list, starts: list, negs: list, decimals: list, expected: list,
                      scale: float, ok: list) -> None:
        """The records of a plain matrix's cells, ``ok`` their clear passes (``bounds.close_many``)."""
        label = ref.text
        _near_passes(ok, texts, negs, decimals, repeat(False), expected, scale, self.view.strict)
        recs, seg_id, line = self.recs, self.seg_id, self.line
        # each cell's line (its offset among the text's newlines) and sign, by C-level maps
        lines = map(add, repeat(line), map(bisect_left, repeat(self._newlines(self.nt)), starts))
        signs = list(map(mul, repeat("-"), negs))
        keys = list(zip(repeat(seg_id), starts))
        if all(ok) and not any(map(recs.__contains__, keys)) and len(set(keys)) == len(keys):
            # every cell a clear pass and new (a generated note's matrices): the records of the loop below, in C
            _new_passes(recs, keys, lines, signs, texts, decimals, expected, label)
            return
        for k, (text, at, sign, d, e, good, ln) in enumerate(zip(texts, starts, signs, decimals, expected, ok, lines)):
            if not good:
                self._compare(Num(text, at), sign, e, label, scale, (ref, cell(k)))
                continue
            key = (seg_id, at)
            check = (True, label, Shown(e, d or 0, text, sign))
            rec = recs.get(key)
            if rec is None:  # as ``_rec`` makes it (a clear pass is never truncated)
                recs[key] = NumRec(ln, sign + text, [check])
            else:
                rec.checks.append(check)

    def _compare_many(self, items: list, ref: Ref, scale: float) -> None:
        """``_compare`` of each (num, sign, expected, place in the tensor) of a matrix or list of ``ref``: the
        float-first test on all of them at once (``bounds.close_many``); a number it does not pass clearly
        gets ``_compare`` itself."""
        label = ref.text
        if self.exact or len(items) < BULK_MIN:
            for num, sign, e, at in items:
                self._compare(num, sign, float(e), label, scale, (ref, at))
            return
        nums = [it[0] for it in items]
        expected = [float(it[2]) for it in items]
        texts, decimals, signs = [n.text for n in nums], [n.decimals for n in nums], [it[1] for it in items]
        negs, truncs = [it[1] == "-" for it in items], [n.truncated for n in nums]
        ok = _clear_passes(texts, negs, decimals, truncs, expected, scale, self.view.strict)
        _near_passes(ok, texts, negs, decimals, truncs, expected, scale, self.view.strict)
        recs, seg_id, line = self.recs, self.seg_id, self.line
        newlines = self._newlines(self.nt)
        starts = [n.pos for n in nums]
        keys = list(zip(repeat(seg_id), starts))
        if all(ok) and not any(map(recs.__contains__, keys)) and len(set(keys)) == len(keys):  # as in _check_plain
            lines = map(add, repeat(line), map(bisect_left, repeat(newlines), starts))
            _new_passes(recs, keys, lines, signs, texts, decimals, expected, label)
            return
        for (num, sign, _, at), e, good in zip(items, expected, ok):
            if not good:
                self._compare(num, sign, e, label, scale, (ref, at))
                continue
            key = (seg_id, num.pos)
            rec = recs.get(key)
            if rec is None:  # as ``_rec`` makes it (a clear pass is never truncated)
                rec = recs[key] = NumRec(line + bisect_left(newlines, num.pos), sign + num.text)
            rec.checks.append((True, label, Shown(e, num.decimals or 0, num.text, sign)))

    def _compare(self, num, sign, expected: float, label: str, scale: float = 0.0, cell=None) -> bool:
        """The one verdict on a printed number against its expected value; every claim kind comes here.
        ``cell``: (ref, place) of a number printed in a matrix or list of ``ref``, named in a failure."""
        rec = self._rec(self.line, self.nt, num, sign)
        d = num.decimals or 0
        ok = None if self.exact else bounds.close(num.text, bool(sign), num.decimals, num.truncated, expected,
                                                    scale, self.view.strict)
        if ok is None and not self.exact and self.view.strict and not num.truncated and num.decimals is not None \
                and math.isfinite(expected):  # 16 decimals of an input: exactly, in integers
            ok = bounds.close_strict(num.text, bool(sign), num.decimals, expected)
        if ok is None:  # near the rounding boundary (or the reference path): exactly
            ok = _close(num.value * (-1 if sign else 1), num, expected, scale, self.view.strict)
        # a failure's expected value is shown (plain text, for JSON too); a pass's only if asked for
        shown = _SHOWN((expected, d, num.text, sign, None))  # Shown(expected, d, num.text, sign), made in C
        if not ok and cell is not None:
            label = cell_label(*cell)
        rec.checks.append((ok, label, shown if ok else str(shown)))
        if not ok and rec.fix is None and not num.truncated and np.isfinite(expected):
            rec.fix = (fmt(expected, d) if d else str(round(expected)), "label")
        return ok

    def _bind(self, node: Node, ref: Ref) -> None:
        """Check an operand (a printed number, or a list of them) against ``ref``."""
        if node.kind == "paren":
            node = node.args[0]
        if node.is_value:
            self._check_value(ref, node)

    def _dot_vectors(self, ref: Ref):
        """(a, b, a_name, b_name, scaled) when ``ref`` is one element of a dot product: an output
        ``O[i,c] = Σ_j A[i,j]·V[j,c]`` or a score ``S[i,j] = Σ_k Q[i,k]·K[j,k]`` (÷ scale)."""
        v, k, ix = self.view, ref.kind, ref.index
        h = ref.head if ref.head is not None else (self.ctx.head or 0)
        if len(ix) != 2 or None in ix:
            return None
        try:
            if k in ("out_pix", "o_head"):
                i, d = (ix[0], ix[1]) if k == "out_pix" or v.seq else (ix[1], ix[0])
                a = np.asarray(v._square("attn", h)[i], dtype=float)
                b = v.pixel_channel("v", d, len(a), h) if len(a) else np.zeros(0)
                names = (lambda j: f"A_{h}[{i}, {j}]", lambda j: f"V_{h}[{j}, {d}]")
            elif k in ("scores", "scores_scaled"):
                i, j = ix
                a = np.asarray(v.pixel_vec("q", i, h), dtype=float).reshape(-1)
                b = np.asarray(v.pixel_vec("k", j, h), dtype=float).reshape(-1)
                names = (lambda d: f"Q_{h}[{i}, {d}]", lambda d: f"K_{h}[{j}, {d}]")
            else:
                return None
            want = self._expected(ref)
        except (KeyError, IndexError, ValueError, TypeError):
            return None
        if want is None or np.size(want) != 1 or len(a) != len(b):
            return None
        want = float(np.asarray(want).reshape(-1)[0])
        dot = float(a @ b)
        scaled = k == "scores_scaled"
        if scaled:
            dot *= float(v.t.derived.get("scale") or 1.0)
        # np.isclose(dot, want, rtol=1e-9, atol=1e-12), its formula on two finite floats (NumPy's own elsewhere)
        if not (abs(dot - want) <= 1e-12 + 1e-9 * abs(want) if math.isfinite(dot) and math.isfinite(want)
                else np.isclose(dot, want, rtol=1e-9, atol=1e-12)):
            return None  # the label is not this dot product here (a projection after it, a mask)
        return a, b, names[0], names[1], scaled

    def _dot_sums(self, ref: Ref, exprs: list[Node]) -> bool:
        """Worked sums of a dot-product element (``sums``): each factor, partial product and common
        factor is checked, so ``--fix`` rewrites them together and the line's arithmetic stays true."""
        vecs = self._dot_vectors(ref)
        if vecs is None:
            return False
        a, b, a_name, b_name, scaled = vecs
        scale = float(max(np.max(np.abs(a)), np.max(np.abs(b))))
        want = float(np.asarray(self._expected(ref)).reshape(-1)[0])
        final = (exprs[-1], want) if len(exprs) > 2 and exprs[-1].is_value else None
        found = sums.bindings(exprs[1:-1] if len(exprs) > 2 else exprs[1:], a, b, a_name, b_name, scaled, final)
        for node, expected, label in found:
            num, sign = self._leaves(sums.strip(node))
            self._compare(num, sign, expected, label, scale)
        return True  # a dot product: its operands are judged here or not at all

    def _schemas(self, ref: Ref, exprs: list[Node]) -> None:
        """Operands of worked computations whose left side says what they are."""
        if self._dot_sums(ref, exprs):
            return
        v = self.view
        for e in exprs[1:-1] if len(exprs) > 2 else exprs[1:]:
            if e.is_value:
                continue
            terms = _terms(e)
            k, ix, h = ref.kind, ref.index, ref.head
            if k in ("qkv", "out") and len(ix) == 4 and None not in ix[1:]:
                w = "w_qkv" if k == "qkv" else "w_proj"
                src = "x" if k == "qkv" else "o_pe"
                for c, term in _indexed(terms):
                    f = _factors(term)
                    if f and len(f) == 2:
                        self._bind(f[0], Ref(w, f"W[{ix[1]},{c}]", (ix[1], c)))
                        self._bind(f[1], Ref(src, f"{src}[{c}]", (ix[0], c, ix[2], ix[3])))
            elif k == "scores" and len(ix) == 2 and None not in ix:
                for d, term in _indexed(terms):
                    f = _factors(term)
                    if f and len(f) == 2:
                        qi, kj = ((ix[0], d), (ix[1], d)) if v.seq else ((d, ix[0]), (d, ix[1]))
                        self._bind(f[0], Ref("q", f"Q_{h}[{qi[0]}, {qi[1]}]", qi, h))
                        self._bind(f[1], Ref("k", f"K_{h}[{kj[0]}, {kj[1]}]", kj, h))
            elif k == "scores" and len(ix) == 2 and ix[1] is None and e.kind == "bin" and e.op == "*":
                self._bind(e.args[0], Ref("q", f"Q_{h}[0, {ix[0]}]", (0, ix[0]), h))
                self._bind(e.args[1], Ref("k", f"K_{h}[0, :]", (0, None), h))
            elif k == "o_head" and len(ix) == 2 and None not in ix:
                # yolo prints O_h[d, i] (features x positions); sdpa/mha print O_h[i, c] (tokens x d)
                i, d = (ix[0], ix[1]) if v.seq else (ix[1], ix[0])
                for j, term in _indexed(terms, v.t["attn"].shape[-1]):
                    f = _factors(term)
                    if f and len(f) == 2:
                        self._bind(f[0], Ref("attn", f"A_{h}[{i}, {j}]", (i, j), h))
                        vix = (j, d) if v.seq else (d, j)
                        self._bind(f[1], Ref("v", f"V_{h}[{vix[0]}, {vix[1]}]", vix, h))
            elif k == "attn" and len(ix) == 2 and ix[1] is None and e.kind == "bin" and e.op == "/":
                i = ix[0]
                ek = "exp_row" if self.ctx.shifted else "exp_raw"
                self._bind(e.args[0], Ref(ek, f"exp row {i}", (i, None), h))
                self._bind(e.args[1], Ref("row_sum" if self.ctx.shifted else "raw_sum", f"row sum {i}", (i,), h))
            elif k in ("row_sum", "raw_sum") and len(terms) > 1 and (
                    len(terms) == v.t["attn"].shape[-1] or any(t.kind == "ell" for t in terms)):
                ek = "exp_row" if k == "row_sum" else "exp_raw"
                n = v.t["attn"].shape[-1]
                h = h or 0
                for j, term in _indexed(terms, n):
                    self._bind(term, Ref(ek, f"exp(S_{h}[{ix[0]}, {j}])" if ek == "exp_raw"
                                         else f"E_{h}[{ix[0]}, {j}]", (ix[0], j), h))
            elif k == "pe" and len(ix) == 4 and None not in ix[1:] and "P" in self.ctx.bound:
                c, y, x = ix[1], ix[2], ix[3]
                node, seg_id, nt, line = self.ctx.bound.pop("P")
                here = self.seg_id, self.nt, self.line
                self.seg_id, self.nt, self.line = seg_id, nt, line
                try:
                    self._check_value(Ref("window", f"P (window of channel {c})", (c, y, x)), node)
                finally:
                    self.seg_id, self.nt, self.line = here

    def _unlabelled(self, exprs: list[Node]) -> None:
        """``exp(a - m) = e`` lines of a worked softmax row; ``P = [..]`` bound for later."""
        first = exprs[0]
        c = self.ctx
        if first.kind == "func" and first.name == "exp" and c.row is not None:
            arg = first.args[0]
            if arg.kind == "paren":
                arg = arg.args[0]
            if arg.kind == "bin" and arg.op == "-" and len(exprs) == 2 and exprs[1].is_value:
                j, h, i = c.exp_j, c.head, c.row
                c.shifted, c.exp_j = True, c.exp_j + 1
                self._bind(arg.args[0], Ref(self.view.softmax_input, f"Ŝ_{h}[{i}, {j}]", (i, j), h))
                self._bind(arg.args[1], Ref("row_max", f"max of row {i}", (i,), h))
                self._bind(exprs[1], Ref("exp_row", f"E_{h}[{i}, {j}]", (i, j), h))

    def _arith(self, exprs: list[Node], rels: list[str] = ()) -> None:
        marked = given_operands(exprs[:-1], self.given, self.weights)  # given inputs: exact (exact_inputs)
        try:
            self._arith_claim(exprs, rels)
        finally:
            for n in marked:
                n.given = False

    def _arith_claim(self, exprs: list[Node], rels: list[str] = ()) -> None:
        final = exprs[-1]
        if final.is_value and all(e.kind == "label" or (e.is_value and e.kind == final.kind and e.kind != "num")
                                  for e in exprs[:-1]) and all(_inert(a, b) for a, b in zip(exprs, exprs[1:])):
            # ``S_0 = ⟦..⟧``: no side to evaluate, nothing to bind, and a value raises nothing (the paths
            # below would evaluate the matrix for nothing)
            return
        if not final.nums() and final.kind != "sym":
            return
        if not self.exact and self._arith_fast(exprs):
            return
        env = _LazyEnv(self)
        try:
            f_val = evaluate(final, env, False)
            f_iv = _interval(final, env)
        except (NotEvaluable, ZeroDivisionError, TypeError, ValueError, OverflowError):
            return
        f_leaves = _flat(self._leaves(final)) if final.is_value else None
        for a, b in zip(exprs, exprs[1:]):
            self._struct_bind(a, b, env)
        for e in exprs[:-1]:
            if e.kind == "label" or (e.is_value and e.kind == final.kind and e.kind != "num"):
                continue
            try:
                e_val = evaluate(e, env, False)
                e_iv = _interval(e, env)
            except (NotEvaluable, ZeroDivisionError, TypeError, ValueError, OverflowError):
                continue
            ev, fv, ei, fi = _flat(e_val), _flat(f_val), _flat(e_iv), _flat(f_iv)
            if len(ev) != len(fv):
                continue
            if e.kind in ("num", "neg") and run_together(exprs, self.nt) and not all(
                    _overlap(ei[k], fi[k], self.view.strict) for k in range(len(ev))):
                continue  # ``=2.1902=3.8839``: results of several equations run together, no claim (equal_numbers)
            for n in e.nums():
                self._rec(self.line, self.nt, n).operand = True
            for k in range(len(ev)):
                ok = _overlap(ei[k], fi[k], self.view.strict)
                if f_leaves is None or len(f_leaves) != len(fv) or f_leaves[k] is None:
                    continue
                num, sign = f_leaves[k]
                rec = self._rec(self.line, self.nt, num, sign)
                exact = float(ev[k])
                units = num.decimals is None and rels and rels[-1] == "≈" \
                    and not _DECIMAL_COMMA_AFTER.match(self.nt, num.pos + len(num.text))
                if not ok and units:
                    # ``4.11/20089.11 ≈ 0``: an integer after ≈ is rounded to units, not exact (``≈ 0,05`` is a
                    # decimal comma's integer part: ``notations.settle`` judges its whole value)
                    ok = abs(exact - float(num.value) * (-1 if sign else 1)) <= 0.5
                # an integer after ``=`` claims an exact value: a value that is none is shown with decimals
                # (``0.5 * 1 = 1``: 0.500, not 0, itself no exact 0.5)
                digits = 3 if not ok and num.decimals is None and not units and np.isfinite(exact) \
                    and exact != round(exact) else num.decimals or 0
                shown = _show(exact, digits, num.value * (-1 if sign else 1))
                rec.checks.append((ok, _snippet(self.nt, e), shown))
                if not ok and rec.fix is None and not num.truncated and np.isfinite(exact):
                    # the value at the printed digits, which replaces sign and digits; where that is the printed
                    # text itself (an integer is exact: ``exp(2) = 7``, ``2.5 * 1 = 2``), the value the report
                    # gives, with the digits that tell it apart
                    rec.fix = (shown, "arith")

    def _arith_fast(self, exprs: list[Node]) -> bool:
        """``_arith`` in float64 enclosures (``bounds``): True when every verdict of the claim is a clear
        pass; False (nothing recorded) sends the claim to the exact path."""
        final = exprs[-1]
        env = _LazyEnv(self)
        try:
            f_iv = _flat(bounds.claim(final, env))
        except bounds.Skip:
            return True  # the exact path evaluates nothing of this claim either
        except bounds.Fallback:
            return False
        sides = []
        for e in exprs[:-1]:
            if e.kind == "label" or (e.is_value and e.kind == final.kind and e.kind != "num"):
                continue
            try:
                sides.append((e, _flat(bounds.claim(e, env))))
            except bounds.Skip:
                continue  # a side the exact path cannot evaluate: it is passed over there too
            except bounds.Fallback:
                return False
        f_leaves = _flat(self._leaves(final)) if final.is_value else None
        recorded = f_leaves is not None and len(f_leaves) == len(f_iv)
        for _, ei in sides:
            if len(ei) != len(f_iv) or not recorded:
                continue
            for k in range(len(ei)):
                if f_leaves[k] is not None and bounds.overlap(ei[k], f_iv[k], self.view.strict) is not True:
                    return False
        for a, b in zip(exprs, exprs[1:]):
            self._struct_bind(a, b, env)
        for e, ei in sides:
            if len(ei) != len(f_iv):
                continue
            for n in e.nums():
                self._rec(self.line, self.nt, n).operand = True
            if not recorded:
                continue
            for k in range(len(ei)):
                if f_leaves[k] is None:
                    continue
                num, sign = f_leaves[k]
                rec = self._rec(self.line, self.nt, num, sign)
                lo, hi, _ = ei[k]
                rec.checks.append((True, _snippet(self.nt, e), Shown((lo + hi) / 2, num.decimals or 0, num.text, sign,
                                                                     (e, env, k))))
        return True

    def _struct_bind(self, a: Node, b: Node, env: dict) -> None:
        """``dim // num_heads = 4 // 2``: a number standing where a symbol stood is that symbol."""
        if a.kind == "sym" and b.kind in ("num", "neg") and b.is_value and a.name in env:
            num, sign = self._leaves(b)
            self._compare(num, sign, float(env[a.name]), a.name)
            return
        if a.kind == "paren" or b.kind == "paren":
            self._struct_bind(a.args[0] if a.kind == "paren" else a, b.args[0] if b.kind == "paren" else b, env)
            return
        if a.kind != b.kind or a.op != b.op or a.name != b.name or len(a.args) != len(b.args):
            return
        for x, y in zip(a.args, b.args):
            if isinstance(x, Node) and isinstance(y, Node):
                self._struct_bind(x, y, env)

    def _ref_value(self, key: str):
        """The exact value a claim's label stands for (a finite scalar of the trace), or None."""
        ref = self.refs.get(key)
        if ref is None:
            return None
        v = self._expected(ref)
        if v is not None and np.size(v) == 1 and np.isfinite(np.asarray(v).reshape(-1)[0]):
            return Fraction(float(np.asarray(v).reshape(-1)[0]))
        return None

    # ------------------------------------------------------------ tables

    def _row(self, seg: Segment) -> None:
        c = self.ctx
        normed = [normalize(x) for x in seg.cells]  # each cell normalized once (``_cell`` reads them too)
        if seg.header:
            c.table_cols = [x.strip() for x in normed]
            c.table_hint = c.hint
            c.table_line = seg.line
            for nt in normed:
                self._cell(nt, seg.line)
            return
        cols = getattr(c, "table_cols", [])
        cells = [x.strip() for x in normed]
        first = cells[0] if cells else ""
        pm = _PIXEL_CELL.fullmatch(first)
        # a key/value token (m0, m1, ...) of a cross-attention input table: its row of x_kv
        kv_row = _KV_CELL.fullmatch(first)
        qm = label_at(first, 0)
        handled = set()
        sm = _NAME_CELL.match(first)
        if sm and sm.group(1) in self.symbols and len(cells) >= 2:
            # a parameter table: | `attn_ratio` | 0.5 | ...
            self.seg_id += 1
            self.nt, self.line = cells[1], seg.line
            res = parse_chain(cells[1], tokenize(cells[1]), 0, None, frozenset())
            if res and not res[1] and res[0][0].is_value and res[0][0].kind in ("num", "neg"):
                num, sign = self._leaves(res[0][0])
                self._compare(num, sign, float(self.symbols[sm.group(1)]), sm.group(1))
                handled.add(1)
        if qm and qm[1].kind != "q_pix" and re.fullmatch(r"\s*(?:\([^)]*\))?\s*", first[qm[0]:]) and len(cells) > 1:
            # | Out(p0) | 0.268941 | 2.000000 |: the row is the label's vector
            exp = self.view.value(qm[1], c.head)
            self.seg_id += 1
            self.nt, self.line = " | ".join(cells[1:]), seg.line
            leaves, pos = [], 0
            for cell in cells[1:]:
                node = _number_cell(cell)
                if node is None:
                    res = parse_chain(cell, tokenize(cell), 0, None, frozenset())
                    if not res or res[1] or not res[0][0].is_value or res[0][0].kind not in ("num", "neg"):
                        leaves = None
                        break
                    node = res[0][0]
                num, sign = self._leaves(node)
                leaves.append((Num(num.text, pos + num.pos, num.truncated), sign))
                pos += len(cell) + 3
            if leaves is not None and exp is not None and np.size(exp) == len(leaves):
                for (num, sign), e in zip(leaves, np.asarray(exp).reshape(-1)):
                    self._compare(num, sign, float(e), qm[1].text)
                handled.update(range(1, len(cells)))
        if pm or kv_row or (qm and qm[1].kind == "q_pix"):
            i = index_int(pm.group(1)) if pm else index_int(kv_row.group(1)) if kv_row else qm[1].index[0]
            for k, (cell, ref) in enumerate(zip(cells[1:], self._column_refs(cols, len(cells), bool(kv_row))),
                                            start=1):
                if ref is None or ref[0] is None:
                    continue
                self.nt, self.line = cell, seg.line
                self.seg_id += 1
                node = _number_cell(cell)  # most cells: one printed number
                if node is None:
                    res = parse_chain(cell, tokenize(cell), 0, None, frozenset())
                    if not res or not res[0][0].is_value:
                        continue
                    node = res[0][0]
                kind, a = ref
                h = c.head or 0
                if kind == "rc":
                    wd = self.view.cfg["w"]
                    exp = np.array([i // wd, i % wd], dtype=float)
                    r = Ref("rc", f"(row, col) of p{i}", (i,))
                elif kind in ("x", "x_kv"):
                    try:  # (a row p5 of a note of 4 positions, or p99..9: no such position, no value)
                        exp = self.view.pixel_vec(kind, i, 0)[a] if self.view.has(kind) else None
                    except IndexError:
                        exp = None
                    r = Ref("x_pix", f"{kind}({'m' if kind == 'x_kv' else 'p'}{i}) channel {a}", (i, a))
                elif kind == "attn":
                    r = Ref("attn_pix", f"α(p{i}→p{a})", (i, a))
                    exp = self.view.value(r, h)
                elif kind == "scores":
                    r = Ref("scores", f"S[{i}, {a}]", (i, a), h)
                    exp = self.view.value(r, h)
                elif kind == "out_k":
                    r = Ref("out_pix", f"Out(p{i})[{a}]", (i,))
                    vec = self.view.value(r, h)
                    exp = None if vec is None or a >= np.size(vec) else np.asarray(vec).reshape(-1)[a]
                else:
                    r = Ref(kind, f"{kind[0].upper()}(p{i})", (i,))
                    exp = self.view.value(r, h)
                if exp is None:
                    continue
                pairs = _align(self._leaves(node), np.asarray(exp))
                if pairs is None:
                    continue
                handled.add(k)
                for (num, sign), e, _ in pairs:
                    self._compare(num, sign, float(e), r.text)
        for k, nt in enumerate(normed):
            if k not in handled:
                self._cell(nt, seg.line)

    def _column_refs(self, cols: list[str], n: int, kv_row: bool) -> list:
        """What cells 1..n-1 of a pixel row hold, by their column's header (the same for every row of a
        table, so found once per table): (kind, index) or None."""
        hint = getattr(self.ctx, "table_hint", "")
        key = (tuple(cols), n, kv_row, hint)
        memo = self.col_memo
        refs = memo.get(key)
        if refs is not None:
            return refs
        refs = []
        out_k = 0
        for k in range(1, n):
            head = cols[k] if k < len(cols) else ""
            ref = None
            cm = re.fullmatch(r"c_?(\d+)", head)
            pj = re.fullmatch(r"[pm]_?(\d+)", head)
            kh = label_at(head, 0)
            if re.fullmatch(r"\((?:row|hàng),\s*(?:col|cột)\)", head) and self.view.cfg.get("w"):
                ref = ("rc", None)
            elif cm:
                ref = ("x", index_int(cm.group(1)))
                if kv_row:
                    ref = ("x_kv", index_int(cm.group(1)))
            elif pj:
                hint_ = hint + " " + (cols[0] if cols else "")
                ref = ("attn" if re.search(r"α|attn|A_|softmax|trọng số|weight", hint_)
                       else None, index_int(pj.group(1)))
            elif kh and kh[1].kind == "k_pix":
                ref = ("scores", kh[1].index[0])
            elif re.fullmatch(r"out_?c?\d*", head, re.I):
                ref = ("out_k", out_k)
                out_k += 1
            elif re.match(r"(Q|K|V)\b", head) and not re.search(r"=\s*[-−–]?\.?\d", head):
                # a token table's Q, K or V column; not a header that carries one token's value (``K(m0) = 0.78``,
                # seed 004's score table with keys the labels do not name): its cells are scores, left to be read
                ref = (head[0].lower() + "_pix", None)
            refs.append(ref)
        memo[key] = refs
        return refs

    def _cell(self, nt: str, line: int) -> None:
        """A table cell (``nt``: normalized) read as a text of its own."""
        self.seg_id += 1
        sym = self._config_cell(nt)
        if sym:
            return
        self._text(nt, line, "cell")

    def _config_cell(self, nt: str) -> bool:
        return False


# ---------------------------------------------------------------- helpers


class _LazyEnv:
    """The values of a claim's names (symbols such as ``d_k``, labels the note bound to a scalar of the trace),
    looked up on demand: a note holds thousands of labels, a claim a few (building them all for each claim made
    a large note's check quadratic). Each value is fixed at its first lookup, in the context of the claim being
    checked; a label the note bound stands before a symbol of the same name, on both paths."""

    __slots__ = ("checker", "memo")

    def __init__(self, checker: Checker):
        self.checker, self.memo = checker, {}

    def _get(self, name):
        if name not in self.memo:
            ref = self.checker._ref_value(name)
            self.memo[name] = ref if ref is not None else self.checker.symbols.get(name)
        return self.memo[name]

    def __contains__(self, name) -> bool:
        return self._get(name) is not None

    def __getitem__(self, name):
        v = self._get(name)
        if v is None:
            raise KeyError(name)
        return v


class Shown(tuple):
    """The expected value as a failure line shows it (``_show``), formatted only when read: a passing
    number's is rarely read. ``claim`` = (expression, env, k): an arithmetic claim's k-th value, which
    is then evaluated exactly, as the exact path does (``expected``: its float estimate).

    A tuple (expected, decimals, text, sign, claim), so that a matrix's thousands of passing cells get
    theirs made in C (``_SHOWN`` over zipped columns); the formatted text is kept in the instance's dict."""

    def __new__(cls, expected, decimals: int, text: str, sign: str, claim=None):
        return tuple.__new__(cls, (expected, decimals, text, sign, claim))

    expected = property(itemgetter(0))
    decimals = property(itemgetter(1))
    text = property(itemgetter(2))
    sign = property(itemgetter(3))
    claim = property(itemgetter(4))

    def __getnewargs__(self) -> tuple:
        return tuple(self)

    def __str__(self) -> str:
        s = self.__dict__.get("_s")
        if s is None:
            exp, decimals, text, sign, claim = self
            if claim is not None:  # the exact value, as the exact path shows it
                e, env, k = claim
                try:
                    exp = float(_flat(evaluate(e, env, False))[k])
                except (NotEvaluable, ArithmeticError, TypeError, ValueError):
                    pass  # the enclosure's midpoint, correct to its error bound
            s = self.__dict__["_s"] = _show(exp, decimals, decimal_fraction(text) * (-1 if sign else 1))
        return s

    __repr__ = __str__

    def __eq__(self, other) -> bool:
        return str(self) == str(other)

    def __ne__(self, other) -> bool:
        return str(self) != str(other)

    def __hash__(self) -> int:
        return hash(str(self))

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)


_SHOWN = partial(tuple.__new__, Shown)  # Shown of one (expected, decimals, text, sign, claim) tuple, in C


_NUMBER_CELL = re.compile(r"(-?)(\d+(?:\.\d+)?)(…|\.\.\.)?")


_DECIMAL_COMMA_AFTER = re.compile(r"(?:,|\{,\})\d")  # ``0,05``, ``0{,}05`` after an integer


def _dot_factor(m: re.Match, g: int) -> Node:
    """The node ``Parser.group`` makes of the factor ``(-0.25)`` whose sign and digits are groups g, g + 1 of
    ``m`` (a ``_DOT_TERM`` match): a number, negated where signed, in parentheses."""
    a = m.start(g + 1)
    node = Node("num", num=Num(m.group(g + 1), a), start=a, end=m.end(g + 1))
    if m.group(g):
        node = Node("neg", [node], start=a - 1, end=node.end)
    return Node("paren", [node], start=(a - 2) if m.group(g) else (a - 1), end=m.end(g + 1) + 1)


def _number_cell(cell: str) -> Node | None:
    """The node ``parse_chain`` reads from a table cell that is one printed number (``-0.25``, ``16.778…``),
    made without its tokens; None for any other cell."""
    m = _NUMBER_CELL.fullmatch(cell)
    if m is None:
        return None
    a = m.start(2)
    node = Node("num", num=Num(m.group(2), a, m.group(3) is not None), start=a, end=m.end())
    return Node("neg", [node], start=0, end=node.end) if a else node


def _decimals_of(texts: list[str]) -> list:
    """``Num.decimals`` of plain printed numbers (digits, at most one point): None for an integer."""
    points = list(map(str.find, texts, repeat(".")))
    if -1 in points:
        return [None if k < 0 else len(t) - k - 1 for t, k in zip(texts, points)]
    return list(map(sub, map(len, texts), map(add, points, repeat(1))))


NUMPY_MIN = 64  # cells from which NumPy's float-first test (``bounds.close_many``) beats ``close`` one by one


def _clear_passes(texts: list, negs: list, decimals: list, truncs: list, expected: list, scale: float,
                  strict: bool) -> list[bool]:
    """``bounds.close_many`` as a list for many cells; for fewer than NUMPY_MIN, no test at all (all False):
    ``_near_passes`` then asks ``close`` of each, whose True is close_many's (its fixed cost in NumPy calls
    is most of a small matrix's)."""
    if len(texts) < NUMPY_MIN:
        return [False] * len(texts)
    return bounds.close_many(texts, negs, decimals, truncs, expected, scale, strict).tolist()


def _near_passes(ok: list, texts: list, negs: list, decimals: list, truncs, expected: list, scale: float,
                 strict: bool) -> None:
    """Set ``ok[k]`` where ``_compare`` would pass a number that ``close_many`` did not pass clearly: by
    ``bounds.close``, then in a strict note by ``close_strict`` (an input's 16 decimals, a value a hair from
    its rounding boundary), as ``_compare`` decides them; the others stay for ``_compare`` itself."""
    if all(ok):
        return
    for k, (good, text, neg, d, tr, e) in enumerate(zip(ok, texts, negs, decimals, truncs, expected)):
        if good:
            continue
        v = bounds.close(text, neg, d, tr, e, scale, strict)
        if v is None and strict and not tr and d is not None and math.isfinite(e):
            v = bounds.close_strict(text, neg, d, e)
        ok[k] = v is True


def _new_passes(recs: dict, keys: list, lines, signs: list, texts: list, decimals: list, expected: list,
                label: str) -> None:
    """The records of numbers that pass clearly and have none yet, made in C: what ``_rec`` and a passing
    ``_compare`` give each, (True, label, Shown) its one check (a clear pass is never truncated)."""
    dz = decimals if None not in decimals else [d or 0 for d in decimals]
    shown = map(_SHOWN, zip(expected, dz, texts, signs, repeat(None)))
    checks = map(list, zip(zip(repeat(True), repeat(label), shown)))
    recs.update(zip(keys, map(NumRec, lines, map(add, signs, texts), checks)))


_CALLS: tuple = (None, [], [])  # (text, offsets of its ( ) and newlines, "inside a call" after each)


_FUNCTION_WORDS = FUNCS | {"softmax", "Softmax"}


def _arguments(nt: str, pos: int) -> bool:
    """Does the bracket at ``pos`` open a call's arguments: glued to a name (``f(``), or after a blank to
    a function's name (``\\text{softmax} ([..])``, normalized to ``softmax ([..])``)?"""
    if nt[pos - 1].isalnum() or nt[pos - 1] == "_":
        return True
    k = pos
    while k and nt[k - 1] in " \t":
        k -= 1
    j = k
    while j and (nt[j - 1].isalnum() or nt[j - 1] == "_"):
        j -= 1
    return j < k and nt[j:k] in _FUNCTION_WORDS


def _in_call(nt: str, pos: int) -> bool:
    """Is ``pos`` inside the parentheses of a function call (``f(``) on its line? The innermost open
    parenthesis before ``pos`` is found with one pass over the text (kept for the next question)
    instead of a walk back along the line for every question."""
    global _CALLS
    calls = _CALLS
    if calls[0] is not nt:
        marks, states, stack = [], [], []
        for m in re.finditer(r"[()\n]", nt):
            k, ch = m.start(), m.group()
            if ch == "\n":
                stack.clear()
            elif ch == "(":
                stack.append(k > 0 and (nt[k - 1].isalnum() or nt[k - 1] == "_"))
            elif stack:
                stack.pop()  # a ")" with no "(" before it on its line closes nothing
            marks.append(k)
            states.append(stack[-1] if stack else False)
        calls = _CALLS = (nt, marks, states)  # replaced whole (threads)
    k = bisect_left(calls[1], pos) - 1
    return calls[2][k] if k >= 0 else False


_CHECKS: tuple = (None, [], [])  # (text, starts and ends of its "Check"/"Kiểm tra" words)


def _check_word_before(text: str, start: int, pos: int) -> bool:
    """``_WORDS_CHECK.search(text, start, pos)``, with the words found once per text."""
    global _CHECKS
    words = _CHECKS
    if words[0] is not text:
        found = [m.span() for m in _WORDS_CHECK.finditer(text)]
        words = _CHECKS = (text, [a for a, _ in found], [b for _, b in found])  # replaced whole (threads)
    k = bisect_left(words[1], start)
    return k < len(words[1]) and words[2][k] <= pos


def _inert(a: Node, b: Node) -> bool:
    """Would ``Checker._struct_bind(a, b)`` return at once, binding nothing?"""
    return a.kind != "sym" and a.kind != "paren" and b.kind != "paren" and (
        a.kind != b.kind or a.op != b.op or a.name != b.name or len(a.args) != len(b.args))


def _close(published: Fraction, num, expected: float, scale: float, strict: bool) -> bool:
    if not np.isfinite(expected):
        return False
    e = Fraction(expected)
    tol = num.half_unit() if num.decimals is not None else Fraction(1, 2)
    if num.truncated:
        d = Fraction(1, 10 ** (num.decimals or 0))
        lo, hi = sorted((published, published + (d if published >= 0 else -d)))
        lo, hi = lo - (0 if strict else F32_REL * Fraction(max(abs(expected), scale))), hi
        return lo <= e <= hi + (0 if strict else F32_REL * Fraction(max(abs(expected), scale)))
    if not strict:
        tol += F32_REL * Fraction(max(abs(expected), scale))
    return abs(published - e) <= tol


def _show(expected: float, decimals: int, published: Fraction) -> str:
    s = fmt(expected, decimals)
    if decimal_fraction(s) != published:
        return s
    return fmt(expected, min(decimals + 3, 15))


def _align(leaves, exp: np.ndarray):
    """Pair printed leaves with expected values and their places in ``exp`` (elisions skipped); None if
    shapes disagree."""
    if isinstance(leaves, tuple):
        if exp.size != 1:
            return None
        return [(leaves, exp.reshape(-1)[0], ())]
    if leaves and all(isinstance(x, list) or x is None for x in leaves) and any(isinstance(x, list) for x in leaves):
        e2 = exp if exp.ndim == 2 else (exp.reshape(1, -1) if exp.ndim == 1 else None)
        if e2 is None:
            return None
        rows = _idx(leaves, e2.shape[0], row_mode=True)
        if rows is None:
            return None
        out = []
        for r, i in rows:
            cols = _idx(r, e2.shape[1])
            if cols is None:
                return None
            out.extend((c, e2[i, j], (j,) if exp.ndim == 1 else (i, j)) for c, j in cols if c is not None)
        return out
    flat = exp.reshape(-1)
    items = _idx(leaves, flat.size)
    if items is None:
        return None
    if any(isinstance(c, list) for c, _ in items):
        return None
    return [(c, flat[j], tuple(int(x) for x in np.unravel_index(j, exp.shape))) for c, j in items]


def _idx(items: list, n: int, row_mode: bool = False):
    """(item, index) for the non-elided items of a length-n axis printed as ``items``."""
    def is_ell(x):
        if x is None:
            return True
        return row_mode and isinstance(x, list) and x and all(y is None for y in x)

    ells = [k for k, x in enumerate(items) if is_ell(x)]
    if not ells:
        return list(zip(items, range(n))) if len(items) == n else None
    if len(ells) != 1:
        return None
    p = ells[0]
    tail = len(items) - p - 1
    if p + tail > n:
        return None
    idx = list(range(p)) + [None] + list(range(n - tail, n))
    return [(x, j) for x, j in zip(items, idx) if j is not None]


def _flat(v):
    if isinstance(v, list):
        out = []
        for x in v:
            out.extend(_flat(x))
        return out
    return [v]


def _terms(e: Node) -> list[Node]:
    if e.kind == "bin" and e.op == "+":
        return _terms(e.args[0]) + _terms(e.args[1])
    return [e]


def _indexed(terms: list[Node], n: int | None = None):
    """(index, term) with ``…`` standing for the terms left out (when n is known)."""
    ells = [k for k, t in enumerate(terms) if t.kind == "ell"]
    if not ells:
        return list(enumerate(terms))
    if n is None or len(ells) != 1:
        return [(k, t) for k, t in enumerate(terms[:ells[0]])]
    p = ells[0]
    tail = len(terms) - p - 1
    return [(k, t) for k, t in enumerate(terms[:p])] + [(n - tail + k, t) for k, t in enumerate(terms[p + 1:])]


def _factors(t: Node):
    if t.kind == "bin" and t.op == "*":
        return [t.args[0], t.args[1]]
    return None


def _interval(node: Node, env: dict):
    try:
        return evaluate(node, env, True)
    except NotEvaluable:
        from mpmath import iv

        v = evaluate(node, env, False)
        return _map_iv(v, iv)


def _map_iv(v, iv):
    if isinstance(v, list):
        return [_map_iv(x, iv) for x in v]
    return iv.mpf(str(v.evalf(40)))


def _ends(x):
    from mpmath import mpf

    if hasattr(x, "a"):
        return mpf(x.a), mpf(x.b)
    v = mpf(str(x))
    return v, v


def _overlap(a, b, strict: bool) -> bool:
    """Do the enclosures of a claim's two sides meet (float64 rounding; float32 for hand notes)?"""
    from mpmath import mp, mpf

    with mp.workdps(50):
        a_lo, a_hi = _ends(a)
        b_lo, b_hi = _ends(b)
        mag = max(abs(a_lo), abs(a_hi), abs(b_lo), abs(b_hi), mpf(1))
        # The printed result is the engine's float64 value: it carries float64 rounding of the
        # computation (visible when a note prints ~16 significant digits, e.g. 12 decimals of 1332.4).
        slack = mag * mpf(2) ** -45
        if not strict:
            slack += max(abs(b_lo), abs(b_hi)) * mpf(2) ** -22
        return a_lo <= b_hi + slack and b_lo - slack <= a_hi


_WORD_RUN = re.compile(r"\S+")


def _snippet(nt: str, e: Node) -> str:
    """The side ``e`` as a failing check's label: its text, blanks collapsed, cut past 48 characters. Its words are
    taken only until the label is that long: a side of thousands of numbers is labelled once per number it
    yields (a list times a scalar), and collapsing all of it each time was quadratic."""
    words, size = [], -1
    for w in _WORD_RUN.finditer(nt, e.start, e.end):
        words.append(w.group())
        size += len(w.group()) + 1
        if size > 48:
            break
    s = " ".join(words)
    return s if len(s) <= 48 else s[:45] + "..."
