"""Reading a note: YAML front matter (PyYAML) and Markdown blocks (markdown-it-py).

``segments`` yields the note's text pieces in reading order, each with its first line
number: headings, paragraphs (prose and ``$$`` math, which CommonMark keeps in paragraphs),
fenced code, table rows, and list-item boundaries (for the checker's context).
"""

from __future__ import annotations

import re
import types
from dataclasses import dataclass, field
from itertools import accumulate, repeat
from operator import add, sub
from typing import NamedTuple

FRONT_RE = re.compile(r"\A---[ \t]*\n(.*?\n)(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.S)
SKIP_FENCES = {"python", "py", "bash", "sh", "shell", "console", "toml", "yaml", "yml", "json", "js", "javascript",
               "html", "text-unchecked"}


def is_program(info: str, content: str) -> bool:
    """A fenced block of program code (skipped by the checker). A ``python`` block that is not
    Python (``scores[0][0] = [1,0] · [1,0] = 1×1 + 0×0 = 1.0``) is worked arithmetic: read it."""
    if info not in SKIP_FENCES:
        return False
    if info in ("python", "py"):
        return parsed(content) is not None
    return True


def parsed(content: str):
    """The ``ast`` module of a ``python`` block's text, None where it is not Python. A block nested past the
    parser's limits (``-`` * 100,000, a 200,000-term sum) raises MemoryError or RecursionError in ``ast.parse``:
    no program either (read as text, never a traceback). Kept for the note at hand (``check.program`` reads the
    same trees for their literals)."""
    tree = _PARSES.get(content, False)
    if tree is False:
        import ast
        import warnings

        try:
            with warnings.catch_warnings():  # a string's "\d" is the note's business, not a warning of check's
                warnings.simplefilter("ignore")
                tree = ast.parse(content)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            tree = None
        _PARSES[content] = tree
    return tree


# The parse of each ``python`` block of the note at hand, None where it is not Python (asked by ``segments``,
# again by the merge of hand-written forms and by ``check.program``: ast.parse of a 20-line block is ~0.3 ms);
# emptied for each note (``forget``).
_PARSES: dict = {}


def forget() -> None:
    """Drop what was kept of the last note read (``_PARSES``, its tokens and fences)."""
    global _TOKENS, _FENCES
    _PARSES.clear()
    _TOKENS = _FENCES = (None, None)


# A list printed with escaped brackets (pandoc's Markdown writer: ``\[\[0.5, 0.3\], \[0.1, 0.9\]\]``), which
# renders as the list. ``\[ .. \]`` also opens and closes a MathJax/KaTeX display, so a span is read as a list
# only where that is unambiguous: brackets nested in brackets holding numbers and separators only (a display of
# nothing but a matrix of bare numbers in brackets is no formula), and, in a note that has such a matrix, a flat
# ``\[a, b, ..\]`` of 2+ numbers on one line.
_ESC_NUM = r"[-−–]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?"
_ESC_ROW = r"\\\[[ \t]*" + _ESC_NUM + r"(?:[ \t]*,?[ \t]*" + _ESC_NUM + r")*[ \t]*\\\]"
_ESC_MATRIX = re.compile(r"\\\[\s*" + _ESC_ROW + r"(?:\s*,?\s*" + _ESC_ROW + r")*\s*\\\]")
_ESC_FLAT = re.compile(r"\\\[[ \t]*" + _ESC_NUM + r"(?:[ \t]*,[ \t]*" + _ESC_NUM + r")+[ \t]*\\\]")


def unescaped_lists(text: str) -> str:
    r"""``text`` with the backslash of each escaped bracket of a list read as a space (the same length, so every
    offset and line stays): ``\[\[1, 0\], \[0, 1\]\]`` is then `` [ [1, 0 ], [0, 1 ] ]``. A KaTeX display
    (``\[ x = \frac{..}{..} \]``, ``\[\n A = \begin{bmatrix}..\]``) holds more than numbers: it stays."""
    if "\\[" not in text:
        return text
    spans = [m.span() for m in _ESC_MATRIX.finditer(text)]
    if not spans:
        return text
    spans += [m.span() for m in _ESC_FLAT.finditer(text)]
    chars = list(text)
    for a, b in spans:
        for k in range(a, b - 1):
            if chars[k] == "\\" and chars[k + 1] in "[]":
                chars[k] = " "
    return "".join(chars)


@dataclass
class FrontMatter:
    data: dict
    lines: int  # lines taken by the front matter (the body starts after them)


def front_matter(text: str) -> FrontMatter:
    """The YAML front matter (``{}`` when absent); raises ValueError on invalid YAML."""
    m = FRONT_RE.match(text)
    if not m:
        return FrontMatter({}, 0)
    data = _yaml_numbers_read(m.group(1))
    if data is None:
        data = _yaml(m.group(1))
    if not isinstance(data, dict):
        raise ValueError("front matter: not a mapping; allowed: YAML front matter with a config map")
    return FrontMatter(data, m.group(0).count("\n") + (0 if m.group(0).endswith("\n") else 1))


def _yaml(source: str):
    """``source`` read by PyYAML's safe loader (``{}`` for nothing); ValueError, one line, on invalid YAML."""
    import yaml

    try:
        # libyaml's loader when PyYAML has it (5-10x faster on the weights a note stores), same safe subset
        return yaml.load(source, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) or {}
    except (yaml.YAMLError, ValueError, RecursionError) as err:  # ValueError: an integer of > 4300 digits
        raise ValueError(f"front matter: invalid YAML: {str(err).splitlines()[0][:120]}; allowed: YAML front "
                         "matter with a config map") from None


# A one-line flow list of plain numbers that is a value or an item (after ": ", "- ", "[", ","), e.g. a stored
# weight's ``data: [0.0385, -0.0247, ..]``: libyaml's loader resolves each number through PyYAML's Python
# resolver and constructor (~3 us a number, most of a generated note's front matter), ``float``/``int`` read
# the ones below as they do (YAML 1.1: a float has a point and a signed exponent, an int no leading zero).
_FLOW_NUMBERS = re.compile(r"(?:(?<=[:,-] )|(?<=[\[,]))\[([-0-9.eE+, ]+)\]")
_YAML_FLOAT = re.compile(r"-?[0-9]+\.[0-9]+(?:[eE][-+][0-9]+)?")
_YAML_INT = re.compile(r"-?(?:0|[1-9][0-9]{0,17})")  # (past 4,300 digits int() refuses: YAML says so)
_SLOT = "attnwalk_numbers_"  # a list's stand-in: ``attnwalk_numbers_<k>_``, a plain string to YAML


def _yaml_numbers_read(source: str):
    """``_yaml(source)`` with its flow lists of numbers (``_FLOW_NUMBERS``) read by Python: each list is
    replaced by a stand-in string, the rest read by YAML, and each stand-in put back where YAML found it
    whole, as a value or an item. None (read it all by YAML) where there is no such list, where YAML
    finds an error, or where a stand-in is not found exactly once so (in a quoted string, a comment, a key):
    then YAML alone says what the text is, error included. (A list after a tag or an anchor is no
    candidate: ``!!str [1.0]`` is an error, ``!!str x`` a string.)"""
    if "[" not in source or _SLOT in source:
        return None
    lists: list[list] = []

    def slot(m: re.Match) -> str:
        items = [x.strip(" ") for x in m.group(1).split(",")]
        values = []
        for x in items:
            if _YAML_FLOAT.fullmatch(x):
                values.append(float(x))
            elif _YAML_INT.fullmatch(x):
                values.append(int(x))
            else:
                return m.group(0)  # an item YAML reads otherwise ("1e5", "1.", "", "0x1F"): left to YAML
        lists.append(values)
        return f"{_SLOT}{len(lists) - 1}_"

    replaced = _FLOW_NUMBERS.sub(slot, source)
    if not lists:
        return None
    try:
        data = _yaml(replaced)
    except ValueError:
        return None  # the error YAML finds in the text itself is the one to report
    slots = {f"{_SLOT}{k}_": values for k, values in enumerate(lists)}
    found: list[str] = []
    _put_back(data, slots, found, set())
    if len(found) != len(slots) or set(found) != set(slots):
        return None
    return data


def _put_back(node, slots: dict[str, list], found: list[str], seen: set[int]) -> None:
    """Replace, in place, each value or item of ``node`` that is a stand-in (``slots``) by its list, adding it
    to ``found``. A node that YAML aliases is walked once (``seen``: aliases may stand for billions of nodes,
    or for themselves)."""
    if not isinstance(node, (dict, list)) or id(node) in seen:
        return
    seen.add(id(node))
    for key, value in list(node.items() if isinstance(node, dict) else enumerate(node)):
        if isinstance(value, str):
            if value in slots:
                found.append(value)
                node[key] = slots[value]
        else:
            _put_back(value, slots, found, seen)


@dataclass
class Segment:
    kind: str  # heading | para | code | row | item_open | item_close
    text: str = ""
    line: int = 0  # 1-based line of text's first line
    cells: list = field(default_factory=list)  # row: [(text, line)]
    header: bool = False  # row: a header row
    table: int = 0  # row: which table


_MD = None

# The block rules that may end a paragraph (markdown-it's "paragraph" chain, in its order) and what the
# first character of a line must be for each (at the line's first non-blank): a table needs a "|" in
# the line instead. A line that none of them can start continues the paragraph: markdown-it asks each
# rule about each line of a paragraph, twice (``lheading`` scans it too), the most of a note's parse.
# The "blockquote" chain (the same rules less the table) ends a table's body and a quote's lazy lines:
# asked of each row of each table.
_TERMINATORS = ("table", "fence", "blockquote", "hr", "list", "html_block", "heading")
_QUOTE_TERMINATORS = _TERMINATORS[1:]
_MAY_START = frozenset("`~>*-_+<#0123456789")
_ORDERED = re.compile(r"\d{1,9}[.)](?:[ \t]|$)")  # an ordered list's marker (markdown-it: skipOrderedListMarker)


def _ends_block(rules, pipe: bool = True):
    """One rule for a chain of terminators standing for ``rules`` (markdown-it's, in their order): True when
    one of them is, asked in their order, after a test of the line that rules most lines out at once.
    ``pipe``: the chain holds the table rule (a line holding a "|" is asked of them all)."""
    def ends(state, line: int, end: int, silent: bool) -> bool:
        if not silent:
            return False  # a terminator only, never a block of its own
        src, pos, stop = state.src, state.bMarks[line] + state.tShift[line], state.eMarks[line]
        if not pipe or src.find("|", pos, stop) < 0:  # no table starts here: the line's first character decides
            ch = src[pos] if pos < stop else ""
            if ch not in _MAY_START:
                return False
            if ch == "-":
                if src[pos + 1:pos + 2].isdigit():  # -0.25: no list item (a blank must follow), no rule
                    return False
            elif ch <= "9" and ch >= "0" and _ORDERED.match(src, pos, stop) is None:
                return False
        for rule in rules:
            if rule(state, line, end, True):
                return True
        return False
    return ends


# lheading's underline ("---", "==="; after blanks, quote marks) or a blank line, whichever comes first after a
# line: a paragraph with no underline before its blank line is no setext heading
_UNDERLINE = re.compile(r"\n(?:[ \t>]*(-+|=+)[ \t]*(?=\n|\Z)|[ \t]*(?=\n))")


def _gated_lheading(lheading):
    """markdown-it's ``lheading`` rule (asked first of each paragraph, it scans the paragraph's lines with
    their terminators as ``paragraph`` does next), asked only where an underline comes before the next blank
    line of the text (a quote's blank lines and a container's end come earlier, never later); elsewhere the
    False it would give, ``parentType`` left as it leaves it. The last search is kept on the state (``from``,
    its match): no match starts between them, so a paragraph starting there has the same answer (a note of
    paragraphs and no blank line is searched once, not once a paragraph)."""
    def gated(state, line: int, end: int, silent: bool) -> bool:
        at = state.eMarks[line]
        last = getattr(state, "underline_after", None)
        if last is not None and last[0] <= at and (last[1] is None or at <= last[1].start()):
            m = last[1]
        else:
            m = _UNDERLINE.search(state.src, at)
            state.underline_after = (at, m)
        if m is not None and m.group(1) is not None:
            return lheading(state, line, end, silent)
        if not state.is_code_block(line):
            state.parentType = "paragraph"  # (lheading sets it before its search and never restores it on False)
        return False
    return gated


def _fast_split(table):
    """markdown-it's table rule with its cell splitter (``escapedSplit``, a Python loop over each character
    of each row) replaced, for this parser only, by ``str.split`` where a row holds no backslash: the
    same cells (only a backslash escapes a pipe)."""
    split = table.__globals__.get("escapedSplit")
    if split is None:
        return table

    def escaped_split(row: str) -> list[str]:
        return row.split("|") if "\\" not in row else split(row)

    return types.FunctionType(table.__code__, {**table.__globals__, "escapedSplit": escaped_split},
                              table.__name__, table.__defaults__, table.__closure__)


# What markdown-it's block rules log through (``LOGGER.debug("entering ...", state, ...)`` on each call, ~2,500
# calls a 16x16 note, each a Logger.debug and isEnabledFor in Python): for this parser's copies of the rules,
# a ``debug`` that ignores its arguments in C ("".format of an empty template reads none of them).
_QUIET = types.SimpleNamespace(debug="".format)


def _quiet(fn):
    """``fn`` (a markdown-it rule) with its module's LOGGER replaced by ``_QUIET``: the same rule, unlogged."""
    if "LOGGER" not in getattr(fn, "__globals__", {}):
        return fn
    return types.FunctionType(fn.__code__, {**fn.__globals__, "LOGGER": _QUIET}, fn.__name__, fn.__defaults__,
                              fn.__closure__)


def _normalize(state) -> None:
    """markdown-it's ``normalize`` core rule (CR and CRLF to LF, NUL to U+FFFD) where the text holds a CR or a
    NUL: two regex substitutions over the whole note, which change nothing in any other text."""
    if "\r" in state.src or "\0" in state.src:
        from markdown_it.rules_core.normalize import normalize

        normalize(state)


def _line_marks(src: str) -> tuple[list[int], list[int], list[int]]:
    """(bMarks, eMarks, tShift) of markdown-it's ``StateBlock`` for a text without tabs (its sCount is then
    tShift, its bsCount zeros), by ``str.split`` and C-level maps where the library loops over each line
    in Python. A last line of spaces only, with no newline after it, is no line (as the library's loop)."""
    lines = src.split("\n")
    if not lines[-1].strip(" "):  # "" after a last newline, or blanks
        lines.pop()
    lens = list(map(len, lines))
    begins = list(accumulate(map((1).__add__, lens), initial=0))
    begins.pop()
    ends = list(map(add, begins, lens))
    shifts = list(map(sub, lens, map(len, map(str.lstrip, lines, repeat(" ")))))
    length = len(src)
    return begins + [length], ends + [length], shifts + [0]  # the library's fake last line


def _block_state(src: str, md, env, out):
    """markdown-it's ``StateBlock`` of ``src``, pushing no table cell's open or close token (``_push``); where
    ``src`` holds no tab (tabs expand indents, which the library's own loop counts), its line marks are
    ``_line_marks``'s: the same lists."""
    from markdown_it.rules_block.state_block import StateBlock

    if "\t" in src:
        state = StateBlock(src, md, env, out)
    else:
        state = StateBlock("", md, env, out)  # every field as the library sets it, for no line
        begins, ends, shifts = _line_marks(src)
        state.src, state.bMarks, state.eMarks, state.tShift = src, begins, ends, shifts
        state.sCount, state.bsCount, state.lineMax = shifts[:], [0] * len(shifts), len(shifts) - 1
    state.push = _push(state)
    return state


# A table cell's open and close tokens (th, td): two of every three tokens of a note of tables, never read (a
# cell's text is its inline token, the only inline of a row)
_CELL_MARKS = frozenset(("th_open", "th_close", "td_open", "td_close"))


def _push(state):
    """``state.push`` (markdown-it's ``StateBlock.push``, the same tokens and levels) that keeps no cell's open
    or close token: it counts its level and returns a token that nothing keeps (the table rule sets a cell's
    alignment on it)."""
    from markdown_it.token import Token

    append = state.tokens.append
    sink = Token("td_open", "td", 1)

    def push(ttype: str, tag: str, nesting: int):
        if ttype in _CELL_MARKS:
            state.level += nesting
            return sink
        token = Token(ttype, tag, nesting)
        token.block = True
        if nesting < 0:
            state.level -= 1  # closing tag
        token.level = state.level
        if nesting > 0:
            state.level += 1  # opening tag
        append(token)
        return token
    return push


def _block_parse(block):
    """``block.parse`` (markdown-it's ParserBlock) building its state by ``_block_state``."""
    def parse(src: str, md, env, out):
        if not src:
            return None
        state = _block_state(src, md, env, out)
        block.tokenize(state, state.line, state.lineMax)
        return state.tokens
    return parse


def _parser():
    """CommonMark + tables, block rules only: the checker reads each block's raw text (``content``),
    never the inline tokens (emphasis, links, ...) that the ``inline`` core rule would build from it.
    The terminators of a paragraph, and those of a table's rows and a quote's lines, are asked through
    one rule each (``_ends_block``), and ``lheading`` only where an underline may follow: the same blocks.
    The rules log nothing (``_quiet``). The text is normalized only where that changes it (``_normalize``),
    its lines are found in C and no table cell's open and close tokens are kept (``_block_state``)."""
    global _MD
    if _MD is None:
        from markdown_it import MarkdownIt

        # text_join joins the inline tokens' children, which "inline" off never makes: nothing to do
        md = MarkdownIt("commonmark").enable("table").disable("inline").disable("text_join", ignoreInvalid=True)
        if "normalize" in md.core.ruler.get_active_rules():
            md.core.ruler.at("normalize", _normalize)
        md.block.parse = _block_parse(md.block)
        ruler = md.block.ruler
        for r in ruler.__rules__:
            if r.enabled and (fn := _quiet(r.fn)) is not r.fn:
                ruler.at(r.name, fn, {"alt": list(r.alt)})
        rules = [r for r in ruler.__rules__ if r.enabled and "paragraph" in r.alt]
        if tuple(r.name for r in rules) == _TERMINATORS:  # else (another markdown-it): its rules as they are
            fns = [_fast_split(r.fn) if r.name == "table" else r.fn for r in rules]
            for r, fn in zip(rules, fns):
                ruler.at(r.name, fn, {"alt": [a for a in r.alt if a != "paragraph"]})
            ruler.before("table", "paragraph_end", _ends_block(fns), {"alt": ["paragraph"]})
        rules = [r for r in ruler.__rules__ if r.enabled and "blockquote" in r.alt]
        if tuple(r.name for r in rules) == _QUOTE_TERMINATORS:
            for r in rules:
                ruler.at(r.name, r.fn, {"alt": [a for a in r.alt if a != "blockquote"]})
            ruler.before("table", "blockquote_end", _ends_block([r.fn for r in rules], pipe=False),
                         {"alt": ["blockquote"]})
        lheading = next((r for r in ruler.__rules__ if r.name == "lheading" and r.enabled), None)
        if lheading is not None:
            ruler.at("lheading", _gated_lheading(lheading.fn), {"alt": list(lheading.alt)})
        _MD = md
    return _MD


def _stock_parser():
    """markdown-it as it comes, CommonMark + tables, block rules only (tests compare ``_parser`` with it)."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table").disable("inline")


_TOKENS: tuple = (None, None)  # (text, markdown-it's block tokens of it): the last note parsed
_FENCES: tuple = (None, None)  # (text, its fences): the last note asked about


def tokens(text: str) -> list:
    """markdown-it's block tokens of ``text`` (no table cell's open and close tokens: ``_push``), parsed once
    per note (``segments`` and ``fences`` read them)."""
    global _TOKENS
    cached = _TOKENS  # one tuple, replaced whole (as ``human._per_text``)
    if cached[0] is not text:
        cached = _TOKENS = (text, _parser().parse(text))
    return cached[1]


class Fence(NamedTuple):
    """A fenced code block of a note, as markdown-it (CommonMark) finds it: in a blockquote or list item too."""

    start: int  # offset of its opening fence line's start
    end: int  # offset past its last line (the closing fence's, or its container's last where unclosed)
    info: str  # the info string's first word, lowercased ("" for none)
    content: str  # its lines, container marks and the fence's indent taken off (markdown-it's ``content``)
    lines: tuple[int, int]  # markdown-it's line map: [first, past last)
    closed: bool  # whether a closing fence ends it (else its container or the note does)


_BREAK = re.compile(r"\r\n?|\n")  # what markdown-it counts as a line break


def line_starts(text: str) -> list[int]:
    """Where each line of ``text`` starts, lines as markdown-it counts them (a lone "\\r" ends one too)."""
    from .human import _line_starts, _per_text

    if "\r" not in text:
        return _line_starts(text)
    table = _per_text(text)  # once per note: program asks for each python block (a CRLF note was quadratic)
    starts = table.get("markdown-it line starts")
    if starts is None:
        starts = table["markdown-it line starts"] = [0] + [m.end() for m in _BREAK.finditer(text)]
    return starts


def fences(text: str) -> list[Fence]:
    """The fenced code blocks of ``text``, in order: markdown-it's ``fence`` tokens, found once per note. The one
    list every part of ``check`` reads code blocks from (the checker's segments, the hand-written readers' code
    spans, ``program``'s python blocks), so that none reads a number as code that another reads as prose."""
    global _FENCES
    cached = _FENCES
    if cached[0] is not text:
        starts = None
        out = []
        for t in tokens(text):
            if t.type != "fence" or not t.map:
                continue
            if starts is None:
                starts = line_starts(text)
            a, b = t.map
            info = t.info.strip().split()[0].lower() if t.info and t.info.strip() else ""
            closed = b - a - 1 > t.content.count("\n")
            out.append(Fence(starts[a] if a < len(starts) else len(text), starts[b] if b < len(starts) else len(text),
                             info, t.content, (a, b), closed))
        cached = _FENCES = (text, out)
    return cached[1]


# Tokens ``segments`` passes over (a paragraph's and a heading's inline is read after their opening token)
_PASSED = frozenset(("paragraph_close", "heading_close", "tbody_open", "tbody_close", "table_close",
                     "bullet_list_open", "bullet_list_close", "ordered_list_open", "ordered_list_close",
                     "blockquote_open", "blockquote_close", "hr", "html_block"))


def segments(text: str, line_offset: int = 0) -> list[Segment]:
    tokens_ = tokens(text)
    out: list[Segment] = []
    table_no = 0
    in_head = False
    row: Segment | None = None
    for i, t in enumerate(tokens_):
        kind = t.type
        if kind in _PASSED:
            continue
        if kind == "inline":
            if row is not None:  # a cell's (``_parser`` keeps no cell's open and close tokens)
                row.cells.append(t.content)
            continue
        start = (t.map[0] + 1 + line_offset) if t.map else 0
        if kind == "heading_open":
            out.append(Segment("heading", tokens_[i + 1].content, start))
        elif kind == "paragraph_open":
            out.append(Segment("para", tokens_[i + 1].content, start))
        elif kind in ("fence", "code_block"):
            info = (t.info or "").strip().split()[0].lower() if t.info and t.info.strip() else ""
            if is_program(info, t.content):
                continue
            out.append(Segment("code", t.content, start + (1 if kind == "fence" else 0)))
        elif kind == "list_item_open":
            out.append(Segment("item_open", line=start))
        elif kind == "list_item_close":
            out.append(Segment("item_close"))
        elif kind == "table_open":
            table_no += 1
        elif kind == "thead_open":
            in_head = True
        elif kind == "thead_close":
            in_head = False
        elif kind == "tr_open":
            row = Segment("row", line=start, header=in_head, table=table_no)
        elif kind == "tr_close" and row is not None:
            out.append(row)
            row = None
    return out
