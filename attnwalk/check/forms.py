"""More hand-written forms for ``check.human`` (issue 8): each is a small function registered below,
so a new form is a new function, not a new branch inside the reader.

Block forms (matrices, judged by ``human.find`` like its own blocks, and before them):

- ``list_rows``: a matrix printed one ``[a, b, c]`` list per line outside code blocks, several side by
  side (``Q = [..] K = [..] V = [..]`` then ``[..] [..] [..]``);
- ``transposed``: ``K^T = [..]``, ``Kᵀ:``, ``K.T =``: the matrix read transposed (never as it stands);
- ``call_arguments``: a matrix inside a call (``attention(\n [[..]],\n [[..]])``) is left unread (it is
  not the result the assignment names, and may be another case's input);
- ``nested_tables``: Markdown tables indented (MkDocs ``!!! note``) or quoted (``>``, Obsidian callouts);
- ``query_key_tables``: tables with ``k1…`` columns and ``q1…`` rows (scores or weights, by majority);
- ``html_tables``: ``<table>`` rows of ``<td>`` numbers (a token name first allowed);
- ``product_chains``: ``A × B = C`` in one display block, named by the formula above it
  (``context_vectors = attention_weights @ Values``): C is the left side, A and B the factors
  (a factor written ``Keys.T`` / ``K^T`` is read transposed).

``foreign_sections``: from an input printed with mostly other values than the scenario's (another
example), to the next heading of its level, no matrix is judged "sure" (only by majority).

Forms judged after the blocks (``after``):

- ``quoted_rows``: a list repeating, digit for digit, a row of a matrix already judged
  (``the row for "studying" ([0.45, 0.18, 0.37])``) gets that row's verdicts;
- ``keyed_values``: one query's values listed per key word (``cat 61%`` or ``cat`` then ``2.7`` on
  the next line), named by the lines above;
- ``call_results``: ``Input: attention([[..]], [[..]], [[..]])`` then ``Expected: [[..]]``: the output
  (``softmax(..)``: the weights), when the call's arguments are the trace's own q, k, v;
- ``key_weights``: ``α_{dog} = … ≈ 0.42`` with one query: the weight of the key named ``dog``;
- ``word_rows``: ``Row 2 (love): [..]``, ``the output for "cats" is [..]``: rows named by a token word;
- ``inline_key_values``: ``weights for "I": I = 0.26, love = 0.26, cats = 0.48``;
- ``masked_matrices``: masked scores printed with ``-inf`` / ``-\\infty`` where the mask drops keys;
- ``restated_percentages``: ``45%`` on the line of a judged ``0.45``: its verdict.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from itertools import accumulate

import numpy as np

from .gates import gate, opens
from .human import _START, _TEXT, _memo
from .indices import index_int

_LIST = re.compile(r"\[([^\[\]\n]*)\]")


@_memo
def _outside_code(text: str) -> list[tuple[int, int]]:
    """Spans of ``text`` outside fenced code blocks (``human.code_blocks``: markdown-it's, and MkDocs admonitions')."""
    from .human import code_blocks

    spans, pos = [], 0
    for start, end, _, _ in code_blocks(text):
        spans.append((pos, start))
        pos = end
    spans.append((pos, len(text)))
    return spans


@_memo
def list_rows(text: str) -> list:
    """Matrices written one list per line (2+ lines, the same number of entries), side by side allowed;
    only the first line may have words before its list (``Q = [..] K = [..]``): ``q1 = [..]`` then
    ``k1 = [..]`` are named vectors, read as such by the reader. In code blocks too (``Q = [1, 0, 1, 0]`` then
    ``    [0, 1, 0, 1]`` in a plain fence; a row of lists side by side, ``[1, 0] x [0, 2] = [0, 2]``, which the grid
    reader would read as one row): a python literal is ``program``'s, read first."""
    from .human import Block, _cells_in, _label_before, tensors_of

    out = []
    for a, b in [(0, len(text))]:
        run: list[tuple[int, str, list]] = []  # (line start, line, [(list match start, cells)])
        last = None
        # only the lines holding a "[" can hold a row: each other line ends a run (it has no list), as a line
        # between two of them does
        for pos, line, k in _span_lines_holding(text, a, b, "["):
            if last is not None and k != last + 1 and len(run) >= 2:
                out.extend(_columns(text, run, Block, _label_before, tensors_of))
            if last is not None and k != last + 1:
                run = []
            last = k
            lists = []
            if "[[" not in line and "]]" not in line:
                for m in _LIST.finditer(line):
                    if m.start() and (line[m.start() - 1].isalnum() or line[m.start() - 1] in "_])}"):
                        continue  # an index (``A_0[0, 1]``, ``S[1, :]``), not a row
                    cells = _cells_in(text, pos + m.start(1), pos + m.end(1))
                    if cells and len(cells) >= 2:
                        lists.append((pos + m.start(), cells))
            bare = bool(lists) and _BARE.fullmatch(line, 0, lists[0][0] - pos) is not None
            if lists and run and bare and len(lists) == len(run[0][2]):
                run.append((pos, line, lists))  # a later row: nothing before it but a bullet (``q1 =`` is a vector)
            else:
                if len(run) >= 2:
                    out.extend(_columns(text, run, Block, _label_before, tensors_of))
                run = [(pos, line, lists)] if lists else []  # the first row may carry the label (``Q = [..]``)
        if len(run) >= 2:  # the span's end ends its last run
            out.extend(_columns(text, run, Block, _label_before, tensors_of))
    return out


_DOT_BEFORE: re.Pattern | None = None
_DOT_AFTER: re.Pattern | None = None


def dot_operand(line: str, a: int, b: int) -> bool:
    """Whether the list ``line[a:b]`` is an operand of a dot product written out (``[2,0]\\cdot[0,2,1]=0``,
    ``[1,0] · [1,0]^\\top``): a dot operator (``notation.DOT_OPERATORS``) just before it or just after it."""
    global _DOT_BEFORE, _DOT_AFTER
    if _DOT_BEFORE is None:
        from ..notation import DOT_OPERATORS

        ops = "|".join(map(re.escape, DOT_OPERATORS))
        _DOT_BEFORE = re.compile(r"(?:" + ops + r")\s*$")
        _DOT_AFTER = re.compile(r"(?:\^\s*\{?\s*(?:T|\\top)\s*\}?)?\s*(?:" + ops + r")(?![a-z])")
    return _DOT_BEFORE.search(line, max(0, a - 12), a) is not None or _DOT_AFTER.match(line, b) is not None


_BARE = re.compile(r"\s*(?:[-*+>]\s*)?`?\s*")  # nothing before a later row's list but a bullet


def _span_lines_holding(text: str, a: int, b: int, mark: str):
    """(offset, line, line index) of each line of ``text[a:b].split("\\n")`` that holds ``mark`` (a single
    character), in order: ``b`` is a line's start (or the text's end), ``a`` may be inside a line."""
    from .human import _line_starts, _offsets

    starts, found = _line_starts(text), _offsets(text, mark)
    at, stop = bisect_left(found, a), bisect_left(found, b)
    while at < stop:
        k = bisect_right(starts, found[at]) - 1
        lo = max(starts[k], a)
        end = min(starts[k + 1] - 1 if k + 1 < len(starts) else len(text), b)
        yield lo, text[lo:end], k
        if k + 1 == len(starts):
            break
        at = bisect_left(found, starts[k + 1], at + 1, stop)  # past the line's other marks


def _columns(text, run, Block, label_before, tensors_of) -> list:
    """One block per column of lists in ``run`` (lines of equally many lists)."""
    out = []
    first_start, first_line, first_lists = run[0]
    for j in range(len(first_lists)):
        rows = [lists[j][1] for _, _, lists in run]
        if any(len(r) != len(rows[0]) for r in rows):
            continue
        start = first_lists[j][0]
        if j == 0:
            label = label_before(text, start)
        else:  # the words between the previous list and this one (``K =``); never the lines above
            prev_end = text.index("]", first_lists[j - 1][0]) + 1
            label = text[prev_end:start]
            if not tensors_of(label):
                continue
        out.append(Block(rows, start, label))
    return out


class _Env:
    """What ``\\begin{(name)}(.*?)\\end{name}`` would match (start, end, group 2 and its start), found
    without that regex's search to the end of the note from each unclosed begin (quadratic)."""

    __slots__ = ("_start", "_end", "_body", "_body_start")

    def __init__(self, start: int, end: int, body: str, body_start: int):
        self._start, self._end, self._body, self._body_start = start, end, body, body_start

    def start(self, group: int = 0) -> int:
        return self._body_start if group == 2 else self._start

    def end(self) -> int:
        return self._end

    def group(self, n: int) -> str:
        return self._body


@_memo
def _matrices(text: str) -> list:
    """Each ``\\begin{bmatrix}..\\end{bmatrix}`` (any matrix, not ``array``), as ``_Env``: from the note's one
    scan of environments (``human._env_marks``), a begin closed by the first end of its name after it. Found once
    per text for its four readers (none changes the list)."""
    from .human import _env_marks

    begins, ends = _env_marks(text)
    out, floor = [], 0
    for start, b_end, name in begins:
        if start < floor or name == "array":
            continue
        name_ends = ends.get(name, [])
        k = bisect_left(name_ends, b_end)
        if k == len(name_ends):
            continue
        stop = name_ends[k]
        floor = stop + len(name) + 6  # past "\\end{name}"
        out.append(_Env(start, floor, text[b_end:stop], b_end))
    return out


_OP = re.compile(r"\s*(?:\\times|\\cdot|×|·|@|\*)?\s*")
_FORMULA = re.compile(r"([^=\n`$]+?)\s*=\s*([^=\n`$]+)")


def product_chains(text: str) -> list:
    """``A op B = C`` in one display block, labelled by a formula ``c = a op b`` just above it."""
    from .human import Block, _cells

    mats = _matrices(text)
    out = []
    i = 0
    while i < len(mats):
        chain, eq = [mats[i]], None
        while i + 1 < len(mats):
            gap = text[chain[-1].end():mats[i + 1].start()]
            if eq is None and re.fullmatch(r"\s*=\s*", gap):
                eq = len(chain)
            elif not _OP.fullmatch(gap) or "$" in gap:
                break
            chain.append(mats[i + 1])
            i += 1
            if eq is not None:
                break
        i += 1
        if eq is None or len(chain) != eq + 1 or eq < 2:
            continue
        formula = _formula_above(text, chain[0].start())
        if formula is None:
            continue
        result, factors = formula
        if len(factors) != eq:
            continue
        for m, (label, transposed) in zip(chain, factors + [(result, False)]):
            rows = []
            for part in re.split(r"\\\\", m.group(2)):
                if part.strip():
                    off = m.start(2) + m.group(2).index(part)
                    cells = _cells(part.replace("&", " "), off)
                    if not cells:
                        rows = []
                        break
                    rows.append(cells)
            if not rows or any(len(r) != len(rows[0]) for r in rows):
                continue
            if transposed:
                rows = [list(col) for col in zip(*rows)]
            out.append(Block(rows, m.start(), label))
    return out


def _formula_above(text: str, start: int):
    """(result label, [(factor label, transposed)]) of a formula on the 3 lines (HTML tags and ``$$`` aside)
    before the display."""
    from .human import _line_starts, tensors_of

    starts = _line_starts(text)
    k = bisect_right(starts, start) - 1  # the display's line; the 8 lines above it, as ``split("\n")[-9:-1]``
    above = [text[starts[a]:starts[a + 1] - 1] for a in range(max(k - 8, 0), k)]
    lines = [ln for ln in above if not re.fullmatch(r"\s*(?:<[^>]*>\s*)*(?:\$\$)?\s*", ln)]
    for line in reversed(lines[-3:]):
        m = _FORMULA.search(line.strip())
        if not m or not tensors_of(m.group(1)):
            continue
        factors = [f for f in re.split(r"\s*(?:@|×|\\times|\*|·|\\cdot)\s*", m.group(2)) if f.strip()]
        parsed = []
        for f in factors:
            f = f.strip().strip("()` ")
            t = bool(re.search(r"(?:\.T|\^T|\^\{?\\top\}?|ᵀ)$", f))
            if not tensors_of(f):
                return None
            parsed.append((f, t))
        return m.group(1), parsed
    return None


_CALL = re.compile(r"\b(?P<fn>(?:scaled_dot_product_)?attention|attn|sdpa|softmax)\s*\(", re.I)
_RESULT_WORD = re.compile(r"^\s*(?:[-*]\s*)?\**(?:expected(?: output)?|output|returns?|result)\**\s*[:=→]", re.I)


def call_results(text: str, trace, hits: dict, foreign: list) -> None:
    """``Input: attention(Q, K, V)`` then ``Expected: [[..]]``: the call's result, read as the output
    (softmax: the weights), only when the call's list arguments are the trace's own q, k, v."""
    from . import human

    for b in human.bracket_blocks(text):
        cells = [c for r in b.rows for c in r]
        if any(c.start in hits for c in cells):
            continue
        ls = text.rfind("\n", 0, b.start) + 1
        if not _RESULT_WORD.match(text[ls:b.start]):
            continue
        window = text[max(0, ls - 1500):ls]
        calls = list(_CALL.finditer(window))
        if not calls or window.count("\n", calls[-1].end()) > 12:
            continue
        m = calls[-1]
        args = _call_args(window[m.end() - 1:])
        if not args or not _same_inputs(args, trace):
            continue
        name = "attn" if m.group("fn").lower() == "softmax" else "out"
        exp = human._expected(trace, name, 0)
        if exp is None or exp.ndim != 2 or exp.shape != (len(b.rows), len(b.rows[0])):
            continue
        res = human._judge(cells, exp, name, text, sure=True)
        if res is not None:
            for c, h in zip(cells, res):
                hits[c.start] = h


def _same_inputs(args: list, trace) -> bool:
    """Are a call's list arguments the trace's q, k, v (in that order), to the digits printed?"""
    from .human import _expected

    for n, a in zip(("q", "k", "v"), args):
        exp = _expected(trace, n, 0)
        try:
            got = np.asarray(a, dtype=float)
        except (ValueError, TypeError):
            return False
        if exp is None or got.shape != exp.shape or not np.allclose(got, exp, rtol=0, atol=1e-9):
            return False
    return bool(args)


def _call_args(s: str) -> list | None:
    """The top-level list arguments of ``(…)`` as nested float lists; None if not plain lists."""
    import ast

    depth, end = 0, None
    for i, ch in enumerate(s):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0:
            end = i
            break
    if end is None or end > 4000:
        return None
    try:
        value = ast.literal_eval("[" + s[1:end] + "]")
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    return value if all(isinstance(a, list) for a in value) else None


@_memo
def blocks(text: str) -> list:
    """Every registered block form's matrices (judged before the reader's own, at the same offset)."""
    out = []
    for form in BLOCK_FORMS:
        if opens(form, text):  # (check.gates: a form whose trigger is absent finds nothing)
            out.extend(form(text))
    return out


_BLANK = re.compile(r"\s*")


def _after_last(found: list[int], width: int, lo: int, hi: int) -> int:
    """The end of the last of ``found`` (offsets of a mark ``width`` long) in ``[lo, hi)``, else ``lo``: what
    ``text[lo:hi].split(mark)[-1]`` starts at, where ``found`` are the mark's non-overlapping offsets from a line's
    start (``human._offsets``)."""
    k = bisect_right(found, hi - width) - 1
    return found[k] + width if k >= 0 and found[k] >= lo else lo


def _tail(text: str, lo: int, hi: int, n: int) -> int:
    """The start of the shortest end of ``text[lo:hi]`` that holds ``n`` characters other than white space (``lo``
    where it holds fewer)."""
    k = hi
    while k > lo and n:
        k -= 1
        n -= not text[k].isspace()
    return k


# A match of _TRANSPOSED ends the label (``\s*$``) and holds at most 15 characters other than white space (``X``,
# ``^{\intercal}``, ``=`` and the one before): in a label's last 40 (15 of them maybe a ``\begin{bmatrix}`` dropped
# first) it is found where it stands, and none starts at their start
_TAIL = 40
_TRANSPOSED = re.compile(r"(?:^|[^\w\\])([QKVX])\s*(?:\^\s*\{?\s*(?:T|\\top|\\intercal)\s*\}?|ᵀ|\.T\b)\s*(?:=|:)?\s*$")


def transposed(text: str) -> list:
    """``K^T = [..]`` / ``Kᵀ:`` / ``K.T =``: the matrix is the tensor transposed (read so), else unread."""
    from .human import Block, _offsets, bracket_blocks, latex_blocks, line_start

    dollars, ends = _offsets(text, "$$"), _offsets(text, "\\end{")
    out = []
    for b in latex_blocks(text) + bracket_blocks(text):
        ls = line_start(text, b.start)
        if ls and _BLANK.fullmatch(text, ls, b.start):  # the matrix opens its line: its label ends the line above
            ls = line_start(text, ls - 1)
        # the text from there after the last "$$", then after the last "\end{" (found among the note's marks, not by
        # a split of the line up to each matrix: quadratic on a line of many matrices), to its last characters
        lo = _after_last(ends, 5, _after_last(dollars, 2, ls, b.start), b.start)
        before = text[_tail(text, lo, b.start, _TAIL):b.start]
        if "T" not in before and "ᵀ" not in before and "\\top" not in before and "\\intercal" not in before:
            continue  # none of the marks _TRANSPOSED ends with
        before = re.sub(r"\\begin\{[bpvBV]?matrix\}$", "", before.rstrip()).rstrip()
        m = _TRANSPOSED.search(before)
        if not m or any(len(r) != len(b.rows[0]) for r in b.rows):
            continue
        rows = [list(col) for col in zip(*b.rows)]
        out.append(Block(rows, b.start, {"Q": "query", "K": "key", "V": "value", "X": "input"}[m.group(1)]))
        out.append(Block(b.rows, b.start, None))  # not read as it stands, whatever the transpose gives
    return out


_CONSTRUCTORS = {"tensor", "array", "asarray", "matrix", "float_tensor", "floattensor", "from_numpy", "list", "mat",
                 "dict", "print", "np.array", "torch.tensor"}
_CALL_NAME = re.compile(r"([A-Za-z_][\w.]*)\s*\($")


_BRACKET = re.compile(r"[()\[\]{}]")


def open_before(text: str, starts: list[int]) -> list[int]:
    """For each offset of ``starts``, the innermost bracket still open before it (-1 where none): what a scan back
    from it finds, counting closers of any kind against openers of any kind, in one pass over the note's brackets
    (``call_arguments`` scanned back up to 2,000 characters from each block: 3,000 blocks on a line, ~6M steps)."""
    order = sorted(range(len(starts)), key=starts.__getitem__)
    out, stack, k = [-1] * len(starts), [], 0
    for m in _BRACKET.finditer(text, 0, max(starts, default=0)):
        while k < len(order) and starts[order[k]] <= m.start():
            out[order[k]] = stack[-1] if stack else -1
            k += 1
        if m.group() in "([{":
            stack.append(m.start())
        elif stack:  # (a closer with none open: the scan back counted it against an opener further back, none)
            stack.pop()
    for j in order[k:]:
        out[j] = stack[-1] if stack else -1
    return out


@_memo
def call_arguments(text: str) -> list:
    """A matrix written as an argument of a call (``attention(\n [[..]],\n [[..]])``) is no result named
    by the assignment before the call, and may be another test case's input: it stays unread.
    ``torch.tensor([[..]])`` / ``np.array(..)`` build the matrix itself and are left to the reader."""
    from .human import Block, bracket_blocks

    out = []
    blocks = bracket_blocks(text)
    for b, i in zip(blocks, open_before(text, [b.start for b in blocks])):
        if i < max(0, b.start - 2000) or text[i] != "(":  # (an opener within 2,000 characters, as the scan back was)
            continue
        m = _CALL_NAME.search(text[max(0, i - 60):i + 1])
        if not m:
            continue
        fn = m.group(1).lower()
        if fn.split(".")[-1] in _CONSTRUCTORS or fn in _CONSTRUCTORS:
            continue
        out.append(Block(b.rows, b.start, None))  # an argument: maybe another case's inputs, never "sure"
    return out


_TABLE_PREFIX = re.compile(r"^((?:>[ \t]?)+[ \t]*|[ \t]{1,8})\|", re.M)


def nested_tables(text: str) -> list:
    """Markdown tables indented (MkDocs ``!!! note`` admonitions, list items) or quoted (``>``, Obsidian
    callouts): the reader's own tables, read with the prefix moved after the first ``|`` (offsets kept)."""
    from .human import line_matches, table_blocks

    if next(line_matches(_TABLE_PREFIX, text, "|"), None) is None:
        return []
    shifted = _TABLE_PREFIX.sub(lambda m: "|" + " " * len(m.group(1)), text)  # same length: offsets kept
    return [b for b in table_blocks(shifted) if text[b.start] != "|"]


_KEY_HEAD = re.compile(r"^\s*(?:k|key|keys|khóa|键)\s*_?\{?\d+\}?\s*$", re.I)
_QUERY_ROW = re.compile(r"^\s*(?:q|query|queries|truy vấn|查询)\s*_?\{?\d+\}?\s*$", re.I)


def query_key_tables(text: str) -> list:
    """A table whose columns are keys (``k1``, ``key 2``) and rows queries (``q1``) is a query × key
    matrix: the scores, scaled scores or weights, whichever most of its numbers are."""
    from .human import Block, table_blocks

    out = []
    for b in table_blocks(text):
        header = text[b.start:text.find("\n", b.start)].strip().strip("|").split("|")
        keys = [h for h in header if h.strip()]
        if not keys or not all(_KEY_HEAD.match(h) for h in keys):
            continue
        if not b.row_names or not all(n and _QUERY_ROW.match(n) for n in b.row_names):
            continue
        out.append(Block(b.rows, b.start, "scores, scaled scores or attention weights", b.row_names))
    return out


_TABLE = re.compile(r"<table\b[^>]*>(.*?)</table>", re.S | re.I)
_TR = re.compile(r"<tr\b[^>]*>(.*?)</tr>", re.S | re.I)
_TD = re.compile(r"<(t[dh])\b[^>]*>(.*?)</t[dh]>", re.S | re.I)


def html_tables(text: str) -> list:
    """HTML tables (blog exports): rows of ``<td>`` numbers, a token name first allowed; the words
    before the table and its header row name it."""
    from .human import Block, _cells, _label_before

    out = []
    for tm in _TABLE.finditer(text):
        rows, names, header = [], [], ""
        for rm in _TR.finditer(tm.group(1)):
            base = tm.start(1) + rm.start(1)
            tds = list(_TD.finditer(rm.group(1)))
            if tds and all(t.group(1).lower() == "th" for t in tds):
                header += " " + " ".join(re.sub(r"<[^>]+>", "", t.group(2)) for t in tds)
                continue
            cells, name = [], None
            for k, t in enumerate(tds):
                inner = re.sub(r"<[^>]+>", lambda m: " " * len(m.group(0)), t.group(2))  # offsets kept
                c = _cells(inner, base + t.start(2))
                if k == 0 and (c is None or not c):
                    name = inner.strip()
                    continue
                if not c or len(c) != 1:
                    cells = None
                    break
                cells.extend(c)
            if cells:
                rows.append(cells)
                names.append(name)
        if len(rows) >= 1 and all(len(r) == len(rows[0]) for r in rows) and len(rows) * len(rows[0]) >= 2:
            out.append(Block(rows, rows[0][0].start, _label_before(text, tm.start()) + " " + header, names))
    return out


BLOCK_FORMS = [product_chains, transposed, call_arguments, list_rows, nested_tables, query_key_tables,
               html_tables]


_RELATION = re.compile(r"=|\\approx(?![a-z])|≈")
# between two matrices of one chain: an operator of a product, or one relation
_CHAIN_GAP = re.compile(r"\s*(?:\\times|\\cdot|×|·|@|\*|=|\\approx|≈)?\s*")
# a tensor's letter as a display names it: ``\mathbf{K}``, ``O``, ``\mathbf{S}'``, ``Z_2``
_SYMBOL = re.compile(r"\s*(?:\\(?:mathbf|boldsymbol|mathrm|bm)\s*\{\s*[A-Za-z]\s*\}|[A-Za-z])'?"
                     r"(?:_\{?\w{1,3}\}?)?\s*")


def _displays(text: str):
    """(start, end) of each ``$$ .. $$`` display outside code (one line or several)."""
    from .human import _offsets

    marks, code = _offsets(text, "$$"), _code_spans(text)
    if code:
        ends = [b for _, b in code]  # spans in order, apart: a mark may lie only in the first ending after it
        marks = [at for at in marks if (k := bisect_right(ends, at)) == len(code) or at < code[k][0]]
    return list(zip(marks[::2], marks[1::2]))


def _code_spans(text: str) -> list:
    """Spans of fenced code blocks (between the spans ``_outside_code`` gives)."""
    outside = _outside_code(text)
    return [(a[1], b[0]) for a, b in zip(outside, outside[1:])]


def _env_rows(text: str, m) -> list | None:
    """The rows of numbers of a matrix environment, or None where words or products stand among them."""
    from .human import _cells

    rows = []
    for part in re.split(r"\\\\", m.group(2)):
        if part.strip():
            cells = _cells(part.replace("&", " "), m.start(2) + m.group(2).index(part))
            if not cells:
                return None
            rows.append(cells)
    return rows if rows and all(len(r) == len(rows[0]) for r in rows) else None


@_memo
def display_products(text: str) -> list:
    """``$$K = X W_K = [X][W_K] = [K]$$``, ``$$O = [A][V] = [O]$$``, ``$$H = [A][V]$$``: a display line whose
    matrices multiply. Only the matrix alone after the last relation (=, ≈) is what the words before the first
    name; the factors are other tensors, left unread (their own lines name them). Lines without a product of
    matrices, or without a name before the first relation, are left to the other readers."""
    from .human import Block

    out, mats = [], _matrices(text)
    if len(mats) < 2:
        return out
    begins = [m.start() for m in mats]
    for a, b in _displays(text):
        lo, hi = bisect_right(begins, a), bisect_left(begins, b)
        if hi - lo < 2:
            continue
        inside = [m for m in mats[lo:hi] if m.end() <= b]
        if len(inside) < 2:
            continue
        gaps = [(a + 2, inside[0].start())] + [(x.end(), y.start()) for x, y in zip(inside, inside[1:])]
        rels = [len(_RELATION.findall(text, g0, g1)) for g0, g1 in gaps]  # relations before each matrix
        if not rels[0]:
            continue  # ``$$[X][W] = [K]$$``: no name before the first relation
        if not all(_CHAIN_GAP.fullmatch(text, x.end(), y.start()) for x, y in zip(inside, inside[1:])):
            continue  # ``W_Q = [..], \; W_K = [..]``: several equations on the line, not one chain
        first = _RELATION.search(text, a + 2, inside[0].start())
        label = text[a + 2:first.start()]
        label = label if _SYMBOL.fullmatch(label) else ""  # a tensor's letter (``\mathbf{K}``), not prose
        parts = list(accumulate(rels))  # which part (between relations) each matrix is in
        last = [m for m, p in zip(inside, parts) if p == parts[-1]]
        result = last[0] if len(last) == 1 and parts[-1] > 1 else None  # alone after a later relation
        product = any(_OP.fullmatch(text, x.end(), y.start()) for x, y in zip(inside, inside[1:]))
        named = _factor_names(text, a + 2, inside, rels) if product and result is None else {}
        for m in inside:
            rows = _env_rows(text, m) if product or m is result else None
            if rows is not None:  # without a product, a chain ``Q = XW = [..] = [Q]``: only its result is named
                out.append(Block(rows, m.start(), label if m is result else named.get(m.start())))
    return out


# the factors' letters of a product, ``AV``, ``\mathbf{A}\mathbf{V}``, ``A \cdot V``: each a letter alone
_FACTOR_LETTER = re.compile(r"\s*(?:\\(?:mathbf|boldsymbol|bm)\s*\{(?P<b>[A-Za-z])\}|(?P<p>[A-Za-z]))"
                            r"\s*(?:\\cdot|\\times|·|×|@|\*)?")


def _factor_names(text: str, a: int, inside: list, rels: list) -> dict:
    """``$$O = AV = [A][V]$$``: the factors printed after the relation that ends their letters' product, each the
    tensor its letter stands for (``notation.ROW_SYMBOLS``, one tensor a letter), as a label naming it (offset ->
    label). None named where the letters are not as many as the matrices multiplied, or one is transposed."""
    from ..notation import ROW_SYMBOLS, WORDS
    from .human import tensors_of

    if any(rels[1:]) or not rels[0]:
        return {}  # ``O = AV = [A][V]``: the relations before the first matrix, none between them
    rel = list(_RELATION.finditer(text, a, inside[0].start()))
    if rels[0] >= 2:
        letters, end = _letters(text, rel[-2].end(), rel[-1].start())
    else:  # ``$$H = [..][..]$$`` under ``### Compute Output $H = A V \in ..$``: the letters of the line above
        name = text[a:rel[0].start()].strip()
        ls = text.rfind("\n", 0, max(text.rfind("\n", 0, a), 0)) + 1
        above = text.rfind(name + " = ", ls, a) if name else -1
        letters, end = _letters(text, above + len(name) + 3, text.find("\n", above)) if above >= 0 else ([], 0)
    if len(letters) != len(inside):
        return {}
    out = {}
    for m, letter in zip(inside, letters):
        names = ROW_SYMBOLS.get(letter, ())
        phrase = WORDS[names[0]][0] if len(names) == 1 else ""
        if phrase and tensors_of(phrase) == [names[0]]:
            out[m.start()] = phrase
    return out


def _letters(text: str, at: int, end: int) -> tuple[list, int]:
    """The factor letters from ``at`` (``AV``, ``\\mathbf{A} \\mathbf{V}``), and where they end; none where another
    symbol follows them before ``end`` other than a relation, ``\\in``, ``$`` or a comma (``V^T``, ``A_1``)."""
    letters = []
    while at < end and (m := _FACTOR_LETTER.match(text, at, end)) is not None and m.end() > at:
        letters.append(m.group("b") or m.group("p"))
        at = m.end()
    rest = text[at:end].lstrip()
    return (letters, at) if not rest or rest.startswith(("\\in ", "$", ",", "=", "\\approx")) else ([], at)


_ASSUMED: re.Pattern | None = None
_SETUP_TENSORS = frozenset({"x", "q", "k", "v", "w_q", "w_k", "w_v"})  # tensors a note's setup gives


@_memo
def assumed_matrices(text: str) -> list:
    """A matrix of a computed tensor (scores, weights, outputs) that the words just before it say is assumed
    (``ধরি output:``, "suppose", "giả sử", "假设", ``notation.ASSUMED_WORDS``): a hypothesis standing in for a
    computation (another head's output with another projection), not the trace's value: left unread, as
    ``notations.hypothetical_assignments`` leaves one symbol. An assumed input is the note's setup: still read."""
    global _ASSUMED
    from .human import _label_text, bracket_blocks, latex_blocks, tensors_of

    if _ASSUMED is None:
        from ..notation import ASSUMED_WORDS

        # whole words where a word is letters of a script with spaces (``假设输出``: none between Chinese words)
        _ASSUMED = re.compile(r"(?i)(?<![A-Za-z])(?:" + "|".join(ASSUMED_WORDS) + r")(?![A-Za-z])")
    out = []
    for blk in latex_blocks(text) + bracket_blocks(text):
        names = tensors_of(blk.label) if blk.label else []
        if names and _SETUP_TENSORS.isdisjoint(names) and _ASSUMED.search(_label_text(text, blk.start)):
            out.append(type(blk)(blk.rows, blk.start, None))
    return out


BLOCK_FORMS += [display_products, assumed_matrices]  # (heldout8) a product's factors; a matrix assumed


@_memo
def dot_operand_lists(text: str) -> list:
    """A column of lists one a line (``list_rows``) holding an operand of a dot product written out
    (``[1,0]\\cdot[1,0]=1`` on three lines, ``dot_operand``): no matrix, left unread (the query three times is
    no key matrix). Lists read on their own (a named vector) are not this form's."""
    from ..notation import DOT_OPERATORS
    from .human import Block, _offsets

    if not any(_offsets(text, op) for op in DOT_OPERATORS):
        return []
    out = []
    for blk in list_rows(text):
        if any(dot_operand(text, text.rfind("[", 0, r[0].start), text.find("]", r[-1].start) + 1) for r in blk.rows):
            out.append(Block(blk.rows, blk.start, None))
    return out


BLOCK_FORMS.insert(BLOCK_FORMS.index(list_rows), dot_operand_lists)  # before list_rows stacks them into a matrix


# ---------------------------------------------------------------- other examples in the same note

_INPUTS = ("q", "k", "v", "x", "w_q", "w_k", "w_v")
_LAST_MATRIX_END = re.compile(r"\]|\\end\{[^{}]*\}")  # where a matrix printed before another on its line ends
_HEADING = re.compile(r"^(#{1,6})\s", re.M)


_FOREIGN_LAST: list = [None, None]  # (key, spans) of the last note: find() and after() ask for the same one


def foreign_sections(text: str, trace) -> list[tuple[int, int]]:
    """``_foreign_sections`` of the note, computed once for the reader's two passes over it."""
    key = (id(trace), len(text), hash(text))
    if _FOREIGN_LAST[0] != key:
        _FOREIGN_LAST[:] = [key, _foreign_sections(text, trace)]
    return _FOREIGN_LAST[1]


def projected_here(label: str, name: str, trace) -> bool:
    """Whether ``label`` writes ``name`` (q, k or v) as the product of X and its W (``Q = X \\cdot W_q =``) where the
    trace projects X: the note computes that projection, so a matrix of other values is its mistake, not another
    example's input (heldout18's README printed a Q, K and V that are not its X·W)."""
    from ..notation import PRODUCT_RESULTS
    from . import human

    if trace.config.get("source") != "project" or name not in ("q", "k", "v"):
        return False
    side = label.rsplit("=", 2)
    found = human.tensors_of(side[-2]) if len(side) == 3 else []
    return len(found) == 2 and PRODUCT_RESULTS.get((found[0], found[1])) == name


def _foreign_sections(text: str, trace) -> list[tuple[int, int]]:
    """Spans of the note that work another example: from an input (Q, K, V, X, W) named on its line and
    printed with the trace's shape but mostly other values, to the next heading of its section's level.
    A matrix there is judged only where most of its numbers agree (never "sure" of a wholly different one)."""
    from . import human

    starts = []
    blocks_ = human.latex_blocks(text) + human.bracket_blocks(text) + human.grid_blocks(text) + list_rows(text)
    args = {b.start for b in call_arguments(text)}  # a call's arguments are another case's by design
    for b in blocks_:  # named on its own line (``Q = [[..]]``), not by lines above it
        if b.start in args:
            continue
        own = text[max(human.line_start(text, b.start), b.start - human.LABEL_REACH):b.start]
        # ``Q = [[..]] V = [[..]] → Output ≈ [[..]]``, ``W_Q = \begin{bmatrix}..\end{bmatrix},\; W_K = ``: the words
        # since the last one
        nearest = _LAST_MATRIX_END.split(own)[-1] if "\\end{" in own else own.rsplit("]", 1)[-1]
        names = [n for n in human.tensors_of(nearest if human.tensors_of(nearest) else own)[:1] if n in _INPUTS]
        if names and projected_here(nearest, names[0], trace):
            continue  # ``Q = X \cdot W_q = [..]`` of a projecting trace: this note's product, not another's input
        exp = human._expected(trace, names[0], 0) if names else None
        if exp is None or exp.ndim != 2 or exp.shape != (len(b.rows), len(b.rows[0])):
            continue
        if _mostly_other([c for r in b.rows for c in r], exp.reshape(-1)):
            starts.append(b.start)
    for name, idx, cells, start in human.row_vectors(text, trace.config):
        low = name.lower()
        single = re.fullmatch(r"(?:\\?[a-z]+_?\{?)?([qkvx])_?\{?\d+\}?", low)
        exp = human._expected(trace, single.group(1), 0) if single else None
        if exp is not None and exp.ndim == 2 and idx < exp.shape[0] and exp.shape[1] == len(cells) \
                and _mostly_other(cells, exp[idx]):
            starts.append(start)
    starts += literal_input_starts(text, trace)  # another example's object in a widget's data (heldout16)
    if not starts:
        return []
    heads = [(m.start(), len(m.group(1))) for m in _HEADING.finditer(text)]
    places = [p for p, _ in heads]
    out = []
    for st in sorted(set(starts)):  # from the other input on, to the next heading of its section's level
        k = bisect_right(places, st)
        level = heads[k - 1][1] if k else 6
        b = next((p for p, lv in heads[k:] if lv <= level), len(text))
        span = (human.line_start(text, st), b)
        if not out or out[-1][1] < span[0]:
            out.append(span)
        else:  # sections that overlap are one span (they end at the same heading or nest)
            out[-1] = (out[-1][0], max(out[-1][1], span[1]))
    return out


def _mostly_other(cells: list, want) -> bool:
    from . import human

    scale = float(np.max(np.abs(want))) if len(want) else 0.0
    oks = [human._close(c.text, float(e), scale) for c, e in zip(cells, want)]
    return len(oks) >= 2 and sum(oks) * 2 < len(oks)


def in_any(pos: int, spans: list) -> bool:
    """Whether ``pos`` lies in one of ``spans`` (sorted, disjoint: what ``foreign_sections`` returns)."""
    k = bisect_right(spans, (pos, float("inf"))) - 1
    return k >= 0 and spans[k][0] <= pos < spans[k][1]


# ---------------------------------------------------------------- forms judged after the blocks


def quoted_rows(text: str, trace, hits: dict, foreign: list) -> None:
    """A flat list whose numbers, as printed, are a judged matrix row's: that row's verdicts."""
    from . import human

    lists = [(st, cells) for st, cells in human.flat_lists(text) if not any(c.start in hits for c in cells)]
    if not lists:
        return
    quoted = {tuple(map(_TEXT, cells)) for _, cells in lists}  # only a row printed as one of them can be quoted
    sizes, firsts = set(map(len, quoted)), {q[0] for q in quoted if q}
    rows: dict[tuple, list] = {}
    for b in human.latex_blocks(text) + human.bracket_blocks(text) + human.grid_blocks(text) + blocks(text):
        for r in b.rows:
            if len(r) >= 2 and len(r) in sizes and r[0].text in firsts and (key := tuple(map(_TEXT, r))) in quoted \
                    and all(map(hits.__contains__, map(_START, r))):
                rows.setdefault(key, [hits[c.start] for c in r])
    if not rows:
        return
    for _start, cells in lists:
        got = rows.get(tuple(c.text for c in cells))
        if got is None:
            continue
        for c, h in zip(cells, got):
            hits[c.start] = human.Hit(human.line_of(text, c.start), h.text, h.ok, h.label, h.expected, h.fix)


_KEYED = re.compile(r"^[ \t]*(?P<word>[^\W\d][\w.'’-]*)[ \t]*(?::[ \t]*|[ \t]+|\n[ \t]*)(?P<num>"
                    + r"[-−–]?\d+(?:\.\d*)?%?)[ \t]*$", re.M)


def keyed_values(text: str, trace, hits: dict, foreign: list) -> None:
    """``cat 61%`` / ``cat`` then ``2.7``: one query's values per key word, 2+ in a run, named above."""
    from . import human

    keys = [str(w).lower() for w in (trace.config.get("kv_labels") or trace.config.get("labels") or [])]
    if not keys:
        return
    runs, run, last = [], [], -1
    for m in _KEYED.finditer(text):
        word = m.group("word").lower()
        if word not in keys:
            continue
        if run and text.count("\n", last, m.start()) > 1:
            runs.append(run)
            run = []
        run.append((keys.index(word), m))
        last = m.end()
    if run:
        runs.append(run)
    for run in runs:
        if len(run) < 2 or len({k for k, _ in run}) != len(run):
            continue
        cells = [human.Cell(m.group("num"), m.start("num")) for _, m in run]
        if any(c.start in hits for c in cells):
            continue
        label = human._label_before(text, run[0][1].start())
        for cand in [c for n in human.tensors_of(label) for c in human._candidates(n, trace)]:
            exp = human._expected(trace, cand, 0)
            if exp is None or exp.ndim != 2 or exp.shape[0] != 1 or exp.shape[1] != len(keys):
                continue
            res = human._judge(cells, np.array([exp[0, k] for k, _ in run]), cand, text)
            if res is not None:
                for c, h in zip(cells, res):
                    hits[c.start] = h
                break


_PCT = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)%")


def restated_percentages(text: str, trace, hits: dict, foreign: list) -> None:
    """``[0.45, 0.18, 0.37] … take 45% from "I," 18% from "am" …``: a percentage on the line of a judged
    number that it restates digit for digit (0.45 → 45%) gets that number's verdict."""
    from ..numfmt import fmt
    from . import human

    if "%" not in text:
        return  # nothing to restate (every match of _PCT ends with one)
    by_line: dict[int, list] = {}
    for pos, h in hits.items():
        by_line.setdefault(h.line, []).append((pos, h))
    if not by_line:
        return
    line, last = 1, 0
    for m in _PCT.finditer(text):
        line += text.count("\n", last, m.start())
        last = m.start()
        if m.start() in hits or line not in by_line:
            continue
        dec = len(m.group(1).split(".")[1]) if "." in m.group(1) else 0
        for pos, h in sorted(by_line[line], key=lambda e: e[0]):
            if pos > m.start() or h.text.endswith("%") or "." not in h.text:
                continue
            hd = len(h.text.split(".")[1])
            if hd != dec + 2 or abs(float(h.text) * 100 - float(m.group(1))) > 10.0 ** -(dec + 3):
                continue
            expected = fmt(float(h.expected) * 100, dec)
            fix = None if h.ok else expected + "%"
            hits[m.start()] = human.Hit(line, m.group(0), h.ok, h.label, expected + "%", fix)
            by_line[line].remove((pos, h))
            break


_ALPHA = re.compile(r"(?:\\alpha|α|alpha|a)_\{?\\?(?:text|mathrm)?\{?(?P<word>[^\W\d][\w.'’-]*)\}?\}?")
_LAST = re.compile(r"(?:≈|\\approx|=)\s*(?P<num>[-−–]?\d+(?:\.\d+)?%?)\s*(?:\\\]|\$\$|\$)?\s*$")


def key_weights(text: str, trace, hits: dict, foreign: list) -> None:
    """``α_{dog} = … ≈ 0.42`` with one query: the weight of key ``dog`` (a key word of the scenario)."""
    from . import human

    keys = [str(w).lower() for w in (trace.config.get("kv_labels") or trace.config.get("labels") or [])]
    exp = human._expected(trace, "attn", 0)
    if not keys or exp is None or exp.ndim != 2 or exp.shape[0] != 1 or exp.shape[1] != len(keys):
        return
    pos = 0
    for line in text.split("\n"):
        m, last = _ALPHA.match(line.strip()), _LAST.search(line)
        if m and last and m.group("word").lower() in keys and pos + last.start("num") not in hits \
                and not in_any(pos, foreign):
            start = pos + last.start("num")
            e = float(exp[0, keys.index(m.group("word").lower())])
            cell = human.Cell(last.group("num"), start)
            res = human._judge([cell], np.array([e]), "attn", text, sure=True)
            if res is None:  # one number: judged on its own (the label names one weight exactly)
                res = _each([cell], [e], f"attn[0][{m.group('word')}]", text, float(np.max(np.abs(exp))))
            hits[start] = res[0]
        pos += len(line) + 1


_NUMS = r"[-−–]?\d+(?:\.\d+)?%?(?:\s*,?\s+[-−–]?\d+(?:\.\d+)?%?|\s*,\s*[-−–]?\d+(?:\.\d+)?%?)+"
_WORD_ROW = re.compile(r"(?:(?:row|hàng|dòng|token|word|từ|query)\s*(?P<n>\d+)\s*\(\s*[\"“'`]?"
                       r"(?P<w1>[^)\"”'`\n]{1,30})[\"”'`]?\s*\)"
                       r"|第\s*(?P<n2>\d+)\s*行"
                       r"|[\"“'`](?P<w2>[^\"”'`\n]{1,30})[\"”'`]\s*\)?"
                       # ``"好"的注意力权重：[..]``: the token's (的) tensor, named between the word and the row
                       r"(?:\s*的\s*(?P<of>[^\s\[\]：:=]{1,12})(?=\s*[：:=]))?)"
                       r"\s*(?:is|it is|are|là|bằng|是|为|=|:|：|→|->)?\s*`?\[(?P<body>" + _NUMS + r")\]", re.I)


def _each(cells: list, want: np.ndarray, label: str, text: str, scale: float) -> list:
    """Verdicts for ``cells`` read as ``want``, each on its own: for numbers whose name on their own line
    says exactly which entries they are (``α_{dog}``, ``the output for "cats" is [..]``)."""
    from . import human

    out = []
    for c, e in zip(cells, want):
        e = float(e)
        ok = human._close(c.text, e, scale)
        dec = max(human._value(c.text)[1], 0)
        shown = human.fmt(e * 100, max(dec - 2, 0)) + "%" if c.text.endswith("%") else human.fmt(e, dec)
        out.append(human.Hit(human.line_of(text, c.start), c.text.replace("−", "-").replace("–", "-"), ok,
                             label, shown, None if ok else human._fix_text(c.text, e)))
    return out


def _joint(text: str, trace, hits: dict, groups: list, label: str, named: bool = False,
           trusted: bool = True) -> None:
    """Judge several rows named on one line together (so one wrong entry in a short row is found)."""
    from . import human

    cells = [c for cs, _ in groups for c in cs]
    if len(cells) < 2 or any(c.start in hits for c in cells):
        return
    names = human.tensors_of(label)
    head = human.head_at(text, cells[0].start)  # (``## Head 2`` above: that head's rows, counted as the note counts)
    for cand in [c for n in names for c in human._candidates(n, trace)]:
        exp = human._expected(trace, cand, head)
        if exp is None or exp.ndim != 2:
            continue
        if any(idx >= exp.shape[0] or exp.shape[1] != len(cs) for cs, idx in groups):
            continue
        want = np.concatenate([exp[idx] for _, idx in groups])
        res = human._judge(cells, want, cand, text, sure=len(names) == 1 and trusted)
        if res is None and named and trusted and len(names) == 1:  # one tensor and the rows named on the line itself
            res = _each(cells, want, cand, text, float(np.max(np.abs(exp[np.isfinite(exp)]), initial=0.0)))
        if res is not None:
            for c, h in zip(cells, res):
                hits[c.start] = h
            return


def word_rows(text: str, trace, hits: dict, foreign: list) -> None:
    """``Row 2 (love): [..]``, ``the output for "cats" is [..]``, ``Đầu ra của "học" là [..]``,
    ``注意力权重第3行：[..]``, ``"好"的注意力权重：[..]``: rows named by a token word or a 1-based row number,
    the tensor named between the word and the row (``的 …``), else by the words before each (since the
    previous row on the line), else before the first, else just above."""
    from . import human

    words = [str(w).lower() for w in (trace.config.get("labels") or [])]
    for pos, line in _lines_matching(text, _ROW_LIST):  # every row of _WORD_ROW is a [list] of 2+ numbers
        if not words and "(" not in line and "第" not in line:
            continue  # no token words: only a row number names a row ("row 2 (", "第2行")
        groups: dict[str, list] = {}
        prev, first = 0, None
        for m in _WORD_ROW.finditer(line):
            w = (m.group("w1") or m.group("w2") or "").strip().lower()
            n = m.group("n") or m.group("n2")
            idx = words.index(w) if w in words else index_int(n) - 1 if n else None
            cells = human._cells_in(text, pos + m.start("body"), pos + m.end("body"))
            if idx is not None and idx >= 0 and cells:
                own = m.group("of") or line[prev:m.start()]
                first = m.start() if first is None else first
                label = own if human.tensors_of(own) else line[:first]
                named = bool(human.tensors_of(label))
                if not named:
                    label = human._label_before(text, pos + first)
                groups.setdefault((label, named), []).append((cells, idx))
            prev = m.end()
        for (label, named), rows in groups.items():
            _joint(text, trace, hits, rows, label, named, not in_any(pos, foreign))


# how every [list] of _WORD_ROW starts: "[", a number, a separator, the sign or first digit of the next number
_ROW_LIST = re.compile(r"\[[-−–]?\d+(?:\.\d+)?%?(?:\s*,?\s+|\s*,\s*)[-−–]?\d")


def _lines_matching(text: str, rx: re.Pattern):
    """(offset, line) of each line of ``text`` where a match of ``rx`` starts, in order (``text.split("\n")``'s
    lines, less those where no match of ``rx`` in the whole text starts)."""
    from .human import _line_starts

    starts, last = _line_starts(text), -1
    for m in rx.finditer(text):
        k = bisect_right(starts, m.start()) - 1
        if k != last:
            last = k
            end = starts[k + 1] - 1 if k + 1 < len(starts) else len(text)
            yield starts[k], text[starts[k]:end]


def _lines_holding(text: str, mark: str):
    """(offset, line) of each line of ``text`` that holds ``mark``, in order (``text.split("\n")``'s lines)."""
    from .human import _line_starts, _offsets

    starts, last = _line_starts(text), -1
    for at in _offsets(text, mark):
        k = bisect_right(starts, at) - 1
        if k != last:
            last = k
            end = starts[k + 1] - 1 if k + 1 < len(starts) else len(text)
            yield starts[k], text[starts[k]:end]


_PAIR = re.compile(r"(?P<w>[^\W\d][\w.'’-]*)[\"”'`]?\s*[=:]\s*(?P<num>[-−–]?\d+(?:\.\d+)?%?)(?!\w|\.\d)")
_PAIR_SEP = re.compile(r"[=:][^\S\n]*[-−–]?\d")  # in every match of _PAIR on a line (whose spaces are a line's)
_FOR = re.compile(r"\b(?:for|of|cho|của)\s+[\"“'`]?(?P<w>[^\s\"”'`:,)]+)[\"”'`]?", re.I)


def inline_key_values(text: str, trace, hits: dict, foreign: list) -> None:
    """``weights for "I": I = 0.26, love = 0.26, cats = 0.48``: one query's row, key word = value, 2+ on
    a line; the query named by ``for "word"`` (or the only one), the tensor by the words before."""
    from . import human

    queries = [str(w).lower() for w in (trace.config.get("labels") or [])]
    keys = [str(w).lower() for w in (trace.config.get("kv_labels") or trace.config.get("labels") or [])]
    if not keys:
        return
    # the lines with 2+ pairs: each pair holds a "=" or ":" and (spaces between) a number's sign or first
    # digit, a separator of its own; one scan of the note counts them per line, the others are passed over
    starts, count = human._line_starts(text), {}
    for m in _PAIR_SEP.finditer(text):
        k = bisect_right(starts, m.start()) - 1
        count[k] = count.get(k, 0) + 1
    for k in [k for k, n in count.items() if n >= 2]:
        pos = starts[k]
        line = text[pos:starts[k + 1] - 1 if k + 1 < len(starts) else len(text)]
        pairs = [m for m in _PAIR.finditer(line) if m.group("w").lower() in keys]
        if len(pairs) >= 2 and len({m.group("w").lower() for m in pairs}) == len(pairs):
            before = line[:pairs[0].start()]
            fm = [m for m in _FOR.finditer(before) if m.group("w").lower() in queries]
            row = queries.index(fm[-1].group("w").lower()) if fm else 0 if len(queries) <= 1 else None
            cells = [human.Cell(m.group("num"), pos + m.start("num")) for m in pairs]
            if row is not None and not any(c.start in hits for c in cells):
                for cand in [c for n in human.tensors_of(before) for c in human._candidates(n, trace)]:
                    exp = human._expected(trace, cand, 0)
                    if exp is None or exp.ndim != 2 or row >= exp.shape[0] or exp.shape[1] != len(keys):
                        continue
                    want = np.array([exp[row, keys.index(m.group("w").lower())] for m in pairs])
                    res = human._judge(cells, want, cand, text)
                    if res is not None:
                        for c, h in zip(cells, res):
                            hits[c.start] = h
                        break


_NEG_INF = r"(?:[-−–]\s*(?:\\infty|∞|inf\b|float\(\s*['\"]inf['\"]\s*\)))"
_ENTRY = re.compile(_NEG_INF + r"|(?<![\w.^_])[-−–]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?(?![\w.]\d|\w)")


_OPEN2 = re.compile(r"(?=(\[\s*\[))")
_CLOSE2 = re.compile(r"(?=(\]\s*\]))")


def _nested_lists(text: str) -> list[tuple[int, int]]:
    """Spans of what ``re.finditer(r"\\[\\s*\\[.*?\\]\\s*\\]", text, re.S)`` matches, each closing found by
    bisection: that regex searches to the end of the note from every ``[[`` that is never closed."""
    closes = [(m.start(), m.end(1)) for m in _CLOSE2.finditer(text)]
    at = [c for c, _ in closes]
    out, floor = [], 0
    for m in _OPEN2.finditer(text):
        if m.start() < floor:
            continue
        k = bisect_left(at, m.end(1))
        if k == len(at):
            break  # no closing after this opening, nor after any later one
        floor = closes[k][1]
        out.append((m.start(), floor))
    return out


def masked_matrices(text: str, trace, hits: dict, foreign: list) -> None:
    """A masked score matrix printed with ``-inf`` / ``-\\infty`` / ``−∞`` where keys are dropped (LaTeX or
    bracketed): read when the dropped places are exactly the mask's; its numbers are then the masked
    scores (after scaling, or before it), whichever most of them agree with."""
    from . import human

    if "mask" not in trace.steps or not re.search(_NEG_INF, text):
        return
    mask = np.asarray(trace["mask"])
    mask = mask.reshape(mask.shape[-2:]) if mask.ndim >= 2 else mask
    spans = [(m.start(2), m.group(2), r"\\\\") for m in _matrices(text)]
    spans += [(a, text[a:b], r"\]\s*,?\s*\[") for a, b in _nested_lists(text)]
    for base, body, row_sep in spans:
        if not re.search(_NEG_INF, body):
            continue
        rows, off = [], 0
        for part in re.split(f"({row_sep})", body):
            if re.fullmatch(row_sep, part) or not part.strip():
                off += len(part)
                continue
            rows.append([(m.group(0), base + off + m.start()) for m in _ENTRY.finditer(part)])
            off += len(part)
        rows = [r for r in rows if r]
        if not rows or (len(rows), len(rows[0])) != mask.shape or any(len(r) != len(rows[0]) for r in rows):
            continue
        dropped = np.array([[bool(re.fullmatch(_NEG_INF, t)) for t, _ in r] for r in rows])
        if not np.array_equal(dropped, mask == 0):
            continue
        cells = [human.Cell(t, p) for r in rows for t, p in r if not re.fullmatch(_NEG_INF, t)]
        if any(c.start in hits for c in cells):
            continue
        best = None
        for cand in ("scores_masked", "scores_masked_raw"):
            exp = human._expected(trace, cand, 0)
            if exp is None or exp.shape != mask.shape:
                continue
            res = human._judge(cells, exp[mask != 0], cand, text)
            if res is not None and (best is None or sum(h.ok for h in res) > sum(h.ok for h in best)):
                best = res
        for c, h in zip(cells, best or []):
            hits[c.start] = h


def after(text: str, trace, hits: dict, failed: list[str]) -> None:
    """Run the forms that read what the blocks left, adding their verdicts to ``hits``; each guarded."""
    foreign = foreign_sections(text, trace)
    for form in AFTER_FORMS:
        if opens(form, text):  # (check.gates: a form whose trigger is absent adds nothing)
            guarded(form, hits, failed, text, trace, hits, foreign)


def guarded(reader, hits: dict, failed: list[str], *args) -> None:
    """Run one reader of hand-written notation, which adds to ``hits``. Where it raises (a bug in that reader,
    never the note's fault: heldout5's ``V₀`` once cost a note every hand-written verdict), its verdicts are
    dropped, the other readers' kept, and ``name: error`` is added to ``failed`` for the report."""
    before = dict(hits)
    try:
        reader(*args)
    except Exception as err:  # noqa: BLE001 - whatever one reader's bug raises, the others' verdicts stand
        hits.clear()
        hits.update(before)
        failed.append(f"{reader.__name__}: {type(err).__name__}: {err}")


_QUOTES = {"\"": "\"", "“": "”", "「": "」", "'": "'"}
_TOKEN_ROW = re.compile(r"(?P<q>[\"“「'])(?P<tok>[^\"”」'\n]{1,20})[\"”」'][ \t]*"
                        r"(?P<words>[^\n=:：\[\]\"“”]{1,30}?)[ \t]*(?:=|:|：)[ \t]*(?P<rest>[^\n]*)")
_LIST_BODY = r"\[(?P<body>[ \t]*[-−–]?\d+(?:\.\d+)?(?:[ \t]*,[ \t]*[-−–]?\d+(?:\.\d+)?)+[ \t]*)\]"
_LIST_NOW = re.compile(_LIST_BODY)  # the row right after the name
_LIST_LAST = re.compile(r"(?:=|≈|\\approx)[ \t]*" + _LIST_BODY + r"[ \t.$]*$")  # ``.. = [..]`` ending the line


def token_rows(text: str, trace, hits: dict, foreign: list) -> None:
    """Form: ``"好"的注意力权重：[0.21, 0.50, 0.29, 0.00]``, ``"好"的新向量 = 0.21×V_<s> + .. = [0.51, ..]``: one
    row of a tensor named by its query's token in quotes (the config's labels), joined by a possessive
    (``notation.POSSESSIVES``) to the tensor's words (``WORDS``, or ``TOKEN_ROW_WORDS``: words that name a row only
    with its token), the row right after the name or ending the line after a worked expression. The token and
    the tensor known, a wholly wrong row is wrong (outside another example's section)."""
    from ..notation import POSSESSIVES, TOKEN_ROW_WORDS
    from . import human

    cfg = trace.config
    tokens = list(cfg.get("labels") or cfg.get("kv_labels") or [])
    if not tokens or not any(q in text for q in _QUOTES):
        return
    for m in _TOKEN_ROW.finditer(text):
        if _QUOTES[m.group("q")] != text[m.end("tok")] or m.group("tok") not in tokens:
            continue
        words = m.group("words").strip()
        for p in POSSESSIVES:
            if words.startswith(p):
                words = words[len(p):].strip()
                break
        names = human.tensors_of(words)[:1] or [n for n, ws in TOKEN_ROW_WORDS.items() if words.lower() in ws]
        if len(names) != 1 or names[0] not in ("attn", "out"):
            continue
        rest = m.group("rest")
        found = _LIST_NOW.match(rest) or _LIST_LAST.search(rest)
        if found is None:
            continue
        base = m.start("rest") + found.start("body")
        cells = human._cells(found.group("body").replace(",", " "), base)
        if not cells or any(c.start in hits for c in cells):
            continue
        row = tokens.index(m.group("tok"))
        exp = human._expected(trace, names[0], human.head_at(text, m.start()))
        if exp is None or exp.ndim != 2 or row >= exp.shape[0] or exp.shape[1] != len(cells):
            continue
        gated = in_any(m.start(), foreign)
        for c, h in zip(cells, human._judge(cells, exp[row], f"{names[0]}[{row}]", text, gated=gated) or []):
            hits[c.start] = h


def _heldout_forms() -> list:
    from .notations import FORMS  # object-literal lists, a weights row named by the score row above it

    return FORMS


AFTER_FORMS = [quoted_rows, keyed_values, call_results, key_weights, word_rows, inline_key_values,
               masked_matrices, restated_percentages, token_rows, *_heldout_forms()]


# ---------------------------------------------------------------- tuples: ``\mathbf{p} \approx (0.09, 0.24, 0.66)``

_NUMBER = r"[-−–]?\d+(?:\.\d+)?"
# a parenthesised tuple of 2+ numbers (a vector written as math writes it) after ``=``, ``≈`` or ``\approx``, or as
# the argument of a softmax (``\text{softmax}(1.414, 0.707, 0.707) = (0.503, ..)``: the scores whose softmax the
# tuple after ``=`` is)
_TUPLE = re.compile(r"(?:=|≈|\\approx|softmax\}?)[ \t]*\((?P<body>[ \t]*" + _NUMBER + r"(?:[ \t]*,[ \t]*" + _NUMBER
                    + r")+[ \t]*)\)")
TUPLE_REACH = 12  # lines: how far below the scores' tuple their weights' tuple may be


def _tuples(text: str) -> list:
    """``_TUPLE.finditer(text)``: each match tried at the relation just before a "(" of the note (a match holds one
    "(", after its relation and the spaces or tabs that follow it; so its start is that relation's, and no two
    overlap). The pattern opens with an alternation, tried at every character of a note (~0.25 ms a 70 kB note)."""
    from .human import _offsets

    out = []
    for p in _offsets(text, "("):
        k = p - 1
        while k >= 0 and text[k] in " \t":
            k -= 1
        c = text[k] if k >= 0 else ""
        if c == "=" or c == "≈":
            at = k
        elif c == "x" and k >= 6 and (text.startswith("\\approx", k - 6) or text.startswith("softmax", k - 6)):
            at = k - 6
        elif c == "}" and k >= 7 and text.startswith("softmax}", k - 7):
            at = k - 7
        else:
            continue
        m = _TUPLE.match(text, at)
        if m is not None:
            out.append(m)
    return out


def softmax_tuples(text: str, trace, hits: dict, foreign: list) -> None:
    """Form: ``$\\mathbf{z} = (1, 2, 3)$`` then, a few lines below, ``$\\mathbf{p} \\approx (0.09, 0.24, 0.66)$``
    (heldout7's ko_softmax_concept_123): a tuple printing a row of the scores the softmax takes, every number as
    printed, is that row's scores; a tuple below it, as long, that is a distribution (each number in [0, 1], the
    sum 1 at its precision) is their softmax, judged as ``softmax([1, 2, 3]) = [..]`` is. The scores must be the
    trace's (so that two distributions of a lesson on KL divergence are never read as scores and weights)."""
    if "(" not in text or (("=" not in text) and "≈" not in text and "\\approx" not in text):
        return
    from .human import _cells, _expected, _value, head_at, line_of, sums_to_one
    from .notations import _judge_softmax, _row_of

    scores = None  # (cells, line, row) of the last tuple printing a row of the softmax's own scores
    for m in _tuples(text):
        cells = _cells(m.group("body").replace(",", " "), m.start("body"))
        if not cells or any(c.start in hits for c in cells) or in_any(m.start(), foreign):
            continue
        line = line_of(text, m.start())
        head = head_at(text, m.start())
        logits = _expected(trace, "scores_scaled", head)
        if logits is not None and "mask" not in trace.steps and (row := _row_of(cells, logits)) is not None:
            scores = (cells, line, row)
            continue
        if scores is None or len(scores[0]) != len(cells) or line - scores[1] > TUPLE_REACH:
            continue
        vals = [_value(c.text) for c in cells]
        if any(not 0 <= v <= 1 for v, _ in vals) or \
                not sums_to_one(vals):
            continue
        if _another_rows_weights(cells, _expected(trace, "attn", head), scores[2]):
            continue  # the weights of a later row whose scores tuple was misprinted (heldout14's alpha_2 under e_1)
        args = ", ".join(c.text for c in scores[0])
        _judge_softmax(scores[0], cells, f"softmax([{args}])", text, hits)


def _another_rows_weights(cells: list, weights, row: int) -> bool:
    """Whether ``cells`` print, every number within its rounding, the trace's weights of a row other than ``row``:
    a distribution that is another query's softmax is no softmax of the scores tuple above it."""
    from .notations import _row_of

    return weights is not None and _row_of(cells, weights) not in (None, row)


AFTER_FORMS.append(softmax_tuples)


def _one_row_lists(text: str) -> list:
    """(offset, cells) of each one-dimensional list and each one-row ``[[..]]`` of the note, in order."""
    from .human import bracket_blocks, flat_lists

    rows = [(b.start, b.rows[0]) for b in bracket_blocks(text) if len(b.rows) == 1]
    return sorted(flat_lists(text) + rows, key=lambda x: x[0])


def weights_below_scores(text: str, trace, hits: dict, foreign: list) -> None:
    """Form: a list its line names the weights (``# Setelah softmax: tensor([[0.05, 0.95]])``, ``probs = [0.05,
    0.95]``) within ``TUPLE_REACH`` lines below a list judged as a row of the scores the softmax takes
    (``tensor([[-1.2, 2.5]])``; heldout7's id_clickbait_logits_comment): the weights of that row (softmax([-1.2,
    2.5]) = [0.0241, 0.9759]). The reader's one-row lists leave a short list unread where it disagrees (two numbers,
    both wrong: anything could be meant); the scores above say which row is meant. Only scores that are the
    softmax's own argument (the scaled scores, or the scores where the scaling is none), of one row, no mask."""
    if "mask" in trace.steps or not hits:
        return
    from .human import _expected, _judge, _label_before, line_of, tensors_of
    from .notations import _row_of

    raw, scaled = _expected(trace, "scores", 0), _expected(trace, "scores_scaled", 0)
    attn = _expected(trace, "attn", 0)
    own = {"scores_scaled"} | ({"scores"} if raw is not None and scaled is not None and
                               np.array_equal(raw, scaled) else set())
    scores = None  # (cells, line) of the last list judged as a row of the softmax's own scores
    for start, cells in _one_row_lists(text):
        judged = [hits.get(c.start) for c in cells]
        if all(h is not None for h in judged):
            if all(str(h.label).split("[")[0] in own for h in judged):
                scores = (cells, line_of(text, start))
            continue
        if scores is None or any(h is not None for h in judged) or len(cells) != len(scores[0]) or \
                in_any(start, foreign) or line_of(text, start) - scores[1] > TUPLE_REACH:
            continue
        if tensors_of(_label_before(text, start))[:1] == ["attn"] and attn is not None and \
                (row := _row_of(scores[0], scaled)) is not None:
            for c, h in zip(cells, _judge(cells, attn[row], f"attn[{row}]", text, gated=False)):
                hits[c.start] = h


AFTER_FORMS.append(weights_below_scores)


# ``0.119 and 0.880 respectively``, ``a, b and c respectively``: numbers said of some items in their order
_RESPECTIVELY = re.compile(r"(?<![\w.])(?P<nums>" + _NUMBER + r"(?:\s*,\s*" + _NUMBER + r")*\s*,?\s+and\s+" + _NUMBER
                           + r")(?!\w|\.\d)\s+respectively")
_AND_NUMBERS = re.compile(r"(?<![\w.])(?P<nums>" + _NUMBER + r"(?:\s*,\s*" + _NUMBER + r")*\s*,?\s+and\s+" + _NUMBER
                          + r")(?!\w|\.\d)")
RESPECTIVE_REACH = 3  # lines: how far above the weights the scores of the same items may be said


def _blank(m: re.Match) -> str:
    return " " * len(m.group())  # the text's offsets kept


def respective_weights(text: str, trace, hits: dict, foreign: list) -> None:
    """Form: ``had the respective scores of 927 and 929. But after softmax, the attention they'll get is 0.119 and
    0.880 respectively`` (heldout5's en_nbconvert_dot_attention_float128): numbers said ``respectively`` of items
    whose scores were said just before (``927 and 929``, within ``RESPECTIVE_REACH`` lines), in words naming the
    weights between: each is the weight of the key whose score it follows, in that order. The scores must each be
    one entry of one row of the softmax's own scores, as printed (so the items are known keys of a known query)."""
    if "respectively" not in text or "mask" in trace.steps:
        return
    from .human import _cells, _close, _expected, _judge, line_start, tensors_of

    scaled, attn = _expected(trace, "scores_scaled", 0), _expected(trace, "attn", 0)
    if scaled is None or attn is None or scaled.ndim != 2:
        return
    scale = float(np.max(np.abs(scaled[np.isfinite(scaled)]), initial=0.0))
    for m in _RESPECTIVELY.finditer(text):
        cells = _cells(re.sub(r"\band\b|,", _blank, m.group("nums")), m.start("nums"))
        if not cells or any(c.start in hits for c in cells) or in_any(m.start(), foreign):
            continue
        lo = line_start(text, m.start())
        for _ in range(RESPECTIVE_REACH):
            lo = line_start(text, max(lo - 1, 0))
        said = [g for g in _AND_NUMBERS.finditer(text, lo, m.start()) if g.end() <= m.start()]
        if not said:
            continue
        g = said[-1]
        scores = _cells(re.sub(r"\band\b|,", _blank, g.group("nums")), g.start("nums"))
        if not scores or len(scores) != len(cells) or "attn" not in tensors_of(text[g.end():m.start()]):
            continue
        found = set()  # (row, key indices) that print the scores said
        for r in range(scaled.shape[0]):
            keys = [[j for j in range(scaled.shape[1]) if _close(c.text, float(scaled[r, j]), scale)] for c in scores]
            if all(len(js) == 1 for js in keys) and len({js[0] for js in keys}) == len(keys):
                found.add((r, tuple(js[0] for js in keys)))
        if len(found) != 1:
            continue
        r, keys = found.pop()
        for c, j in zip(cells, keys):
            hits[c.start] = _judge([c], attn[r, [j]], f"attn[{r}, {j}]", text, gated=False)[0]


AFTER_FORMS.append(respective_weights)


# ``веса $(0.401, 0.198, 0.401)$``, ``weights (0.2, 0.8)``: a tuple right after a word (a ``$`` or a colon between),
# found from the tuple (its "(" leads the scan) back to the word
_NUM_TUPLE = re.compile(r"\((?P<body>[ \t]*" + _NUMBER + r"(?:[ \t]*,[ \t]*" + _NUMBER + r")+[ \t]*)\)")
_WORD_BEFORE_TUPLE = re.compile(r"(?<![\w\\])(?P<w>[^\W\d_][\w-]{1,30})[ \t]*:?[ \t]*\$?[ \t]*$")


def word_tuples(text: str, trace, hits: dict, foreign: list) -> None:
    """Form: ``→ веса $(0.401, 0.198, 0.401)$``: in a note of one query, a tuple just after a word that names one
    tensor (``WORDS``) with one row (the whole tensor), read where most of its numbers agree."""
    from . import human

    attn = human._expected(trace, "attn", 0)
    if attn is None or attn.ndim != 2 or attn.shape[0] != 1 or "(" not in text:
        return  # one query (the whole tensor a tuple) only
    for m in _NUM_TUPLE.finditer(text):
        if not text[max(0, m.start() - 8):m.start()].rstrip(" \t$:")[-1:].isalpha():
            continue  # no word just before (``$\\mathcal{N}(0, 1)``, ``| (0, 0)``): the common case, cheaply
        w = _WORD_BEFORE_TUPLE.search(text, max(0, m.start() - 40), m.start())
        names = human.tensors_of(w.group("w")) if w else []
        if len(names) != 1:
            continue
        cells = human._cells(m.group("body").replace(",", " "), m.start("body"))
        if not cells or any(c.start in hits for c in cells):
            continue
        exp = human._expected(trace, names[0], human.head_at(text, m.start()))
        if exp is None or exp.size != len(cells) or max(exp.shape, default=0) != exp.size:
            continue
        for c, h in zip(cells, human._judge(cells, exp.reshape(1, -1), names[0], text) or []):
            hits[c.start] = h


AFTER_FORMS.append(word_tuples)


# A Markdown table row's cell that is one vector: ``(1, 0)``, ``[1, 0]``, ``$(1, 0)$``, `` `[1, 0]` ``
_VECTOR_CELL = re.compile(r"[ \t]*[$`*]*[ \t]*[(\[](?P<body>[ \t]*" + _NUMBER + r"(?:[ \t]*,[ \t]*" + _NUMBER
                          + r")+[ \t]*)[)\]][ \t]*[$`*]*[ \t]*")


def vector_tables(text: str, trace, hits: dict, foreign: list) -> None:
    """Form: a Markdown table with a row per token and a column per tensor whose cells are vectors (``| token |
    $q$ | $k$ | $v$ |`` then ``| I | (1, 0) | (1, 1) | (1, 2) |``, a blog's inputs): each column whose header names
    one tensor (``human.tensors_of``) is that tensor's rows in order, judged together (``_joint``)."""
    if "|" not in text or ("(" not in text and "[" not in text):
        return
    from .human import _TABLE_RUN, _cells_in, tensors_of

    for tm in _TABLE_RUN.finditer(text):
        lines = tm.group(0).split("\n")
        header = lines[0].strip().strip("|").split("|")
        body = [ln for ln in lines[2:] if ln.strip()]
        judged = {j for j, h in enumerate(header) if len(tensors_of(h)) == 1}  # the columns that can be judged
        if len(header) < 2 or not body or not judged:
            continue
        columns: dict[int, list] = {}
        pos = tm.start() + len(lines[0]) + len(lines[1]) + 2
        for i, line in enumerate(body):
            off = pos + line.index("|") + 1
            for j, part in enumerate(line.strip().strip("|").split("|")):
                m = _VECTOR_CELL.fullmatch(part) if j in judged else None
                if m is not None:
                    cells = _cells_in(text, off + m.start("body"), off + m.end("body"))
                    if cells:
                        columns.setdefault(j, []).append((cells, i))
                off += len(part) + 1
            pos += len(line) + 1
        for j, rows in columns.items():
            named = tensors_of(header[j])
            if len(rows) != len(body) or len(named) != 1 or len({len(c) for c, _ in rows}) != 1:
                continue  # a column of vectors in every row, of one length, under one tensor's name
            _joint(text, trace, hits, rows, header[j], True, not in_any(tm.start(), foreign))


AFTER_FORMS.append(vector_tables)


from .sheets import sheet_tables  # noqa: E402  (heldout13) a spreadsheet printed as tables, row numbers first

AFTER_FORMS.append(sheet_tables)

from .brackets import bracket_matrices  # noqa: E402  (heldout13) matrices typed with Unicode bracket pieces

AFTER_FORMS.append(bracket_matrices)

from .rowsums import row_sum_lists  # noqa: E402  (heldout13) every row's sum stated in one list in prose

AFTER_FORMS.append(row_sum_lists)

from .numbered_rows import may_match as _numbered_rows_gate  # noqa: E402
from .numbered_rows import numbered_rows  # noqa: E402  (heldout13) a row named by its token's number in prose

AFTER_FORMS.append(numbered_rows)
gate(numbered_rows, _numbered_rows_gate)  # (check.gates)

from .sum_columns import may_match as _sum_columns_gate  # noqa: E402
from .sum_columns import sum_column_tables  # noqa: E402  (heldout14) e^ŝ tables with a row-sum column

AFTER_FORMS.append(sum_column_tables)
gate(sum_column_tables, _sum_columns_gate)  # (check.gates)

from .tuple_rows import tuple_rows  # noqa: E402  (heldout14) z_i = (..): a token's output row as a tuple

AFTER_FORMS.append(tuple_rows)

from .row_items import row_items  # noqa: E402  (heldout15) list items named q5:, o4 ≈, each one row

AFTER_FORMS.append(row_items)

from .comment_prints import comment_prints  # noqa: E402  (heldout16) print results pasted as `# tensor([[..`

AFTER_FORMS.append(comment_prints)

from .object_examples import literal_input_starts, literal_softmax_rows  # noqa: E402  (heldout16) widget data

AFTER_FORMS.append(literal_softmax_rows)

from .print_outputs import print_outputs  # noqa: E402  (heldout16) print(query_2), then its output's fence

AFTER_FORMS.append(print_outputs)

from .step_lists import step_lists  # noqa: E402  (heldout14) token N: e^s = .., sum .., weights .. on one line

AFTER_FORMS.append(step_lists)

from .column_sums import column_sums  # noqa: E402  (heldout14) c_t = w (column vector) + .. = (column vector)

AFTER_FORMS.append(column_sums)

from .prose_rows import prose_rows  # noqa: E402  (heldout15) the outputs are [..], [..] and [..]: every row in prose

AFTER_FORMS.append(prose_rows)

from .own_weights import own_weights  # noqa: E402  (heldout14) Token 2 puts 0.3747 of its weight on itself

AFTER_FORMS.append(own_weights)

from .challenge_cases import challenge_cases  # noqa: E402  (heldout17) a challenge's Input: Q K V / Expected: output

AFTER_FORMS.append(challenge_cases)

from .token_words import declared_rows  # noqa: E402  (heldout15) rows named by the token words a note declares

AFTER_FORMS.append(declared_rows)

from .label_chains import label_chains  # noqa: E402  (heldout15) O_2 = A_2 V = [[..]], O = [O_1 | O_2] = [[..]]

AFTER_FORMS.append(label_chains)

from .line_rows import line_rows  # noqa: E402  (heldout14) a card's row 1 = [..], row 2 = [..] judged together

AFTER_FORMS.append(line_rows)

from .raw_softmax import raw_softmax  # noqa: E402  (heldout15) from the score row [2, 0.5, 2], softmax gives [..]

AFTER_FORMS.append(raw_softmax)

from . import triggers  # noqa: E402, F401  the gates of the forms above, from their triggers (check/triggers.py)
