"""Shapes are claims: a shape or a size written next to a tensor or a dimension name the trace
knows is checked against the trace (issue 8). Indices and step numbers stay "not understood".

Forms: `` `q`: (1, 1, 4, 1) ``, ``| `scores`, `attn` | (1, 1, 4, 4) |``, ``x.shape = torch.Size([1, 4, 4])``,
``$Q_h$ is 4 × 1``, ``A \\in \\mathbb{R}^{4\\times 4}``, ``(B, N, C) = (1, 4, 4)``, ``The input has shape
(1, 4, 3, 3)``, and, in titles, counts with a dimension word: ``4 queries × 4 keys, 1 head``.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from .expr import normalize
from .indices import BEYOND, index_int

_DIMS = r"(?P<dims>\d+(?:\s*,\s*\d+)+)"
_NAMED = re.compile(r"(?<![\w.])`?(?P<names>[A-Za-z_]\w*`?(?:\s*,\s*`?[A-Za-z_]\w*`?){0,7})(?:\.shape)?\s*(?:[:=|]\s*)?"
                    r"(?:\|\s*)?\$?(?:torch\.Size\(\[|\()\s*" + _DIMS + r"\s*[\])]")
# a printed matrix label and its two dimensions: "Q_h is 4 × 1", "A_0 ∈ R^{4×4}"
_LETTER = {"Q": "q", "K": "k", "V": "v", "S": "scores", "A": "attn", "O": "o"}
_MAT = re.compile(r"(?<![\w\\])\$?(?P<l>[QKVSAO](?:_\{?(?:h|\d+)\}?)?|[Wb]_\{?[A-Za-z]+\}?)\$?\s*"
                  r"(?:is|has shape|là|có kích thước|:|"
                  r"\\in\s*\\mathbb\{R\}\^\{?|∈\s*ℝ\^?\{?)\s*\(?(?P<a>\d+)\s*(?:×|\\times|x)\s*(?P<b>\d+)(?![\d.])")
_ENTRIES = re.compile(r"(?<![\w\\])\$?(?P<l>b_\{?[A-Za-z]+\}?)\$?\s+(?:has|có)\s+(?P<n>\d+)\s+(?:entries|phần tử)")
# shape algebra: "(4 × 1) · (1 × 4) → 4 × 4", "(3 × 4) · (4 × 12) + 12 → 3 × 12", "(2×3)×(3×2) = (2×2)"
_X = r"\s*[×x]\s*"
_MATMUL = re.compile(r"\((?P<a>\d+)" + _X + r"(?P<b>\d+)\)\s*(?:[·@*×]|\\times|\\cdot)\s*\((?P<c>\d+)" + _X
                     + r"(?P<d>\d+)\)(?:\s*\+\s*(?P<e>\d+))?\s*(?:→|=|\\to|\\rightarrow)\s*\(?(?P<f>\d+)" + _X
                     + r"(?P<g>\d+)(?![\d.])")
_ROWS = re.compile(r"(?<![\w.])(?P<n>\d+)\s+(?:(?P<q>rows \(queries\)|queries \(rows\)|hàng \(query\)|query \(hàng\))|"
                   r"columns \(keys\)|keys \(columns\)|cột \(key\)|key \(cột\))")


def _matmul(m) -> list[tuple[int, int, int, str]]:
    """(a × b) · (c × d) [+ e] → f × g holds when c = b, e = d, f = a, g = d: the later sizes are
    checked against the earlier ones (a size stated twice must agree)."""
    a, b, d = index_int(m.group("a")), index_int(m.group("b")), index_int(m.group("d"))
    out = [(m.start("c"), index_int(m.group("c")), b, "inner size of a matrix product")]
    if m.group("e"):
        out.append((m.start("e"), index_int(m.group("e")), d, "bias size of a matrix product"))
    out += [(m.start("f"), index_int(m.group("f")), a, "rows of a matrix product"),
            (m.start("g"), index_int(m.group("g")), d, "columns of a matrix product")]
    return out


# what the patterns above cannot match without: a tuple of sizes (_NAMED's tail), a times sign before a
# digit (_MAT's), the literal phrases of _ROWS, a "= (n, n)" on one line (_VALS within a line); and the
# characters none of a pattern's matches holds (a match lies in a run of the others: see _in_runs)
# (an anchor is a pattern or a tuple of them: each led by a literal, which the regex engine finds fast, where
# one alternation of them is tried at every character)
_SIZES = (re.compile(r"\((?P<body>\s*\d+\s*,\s*\d+)"), re.compile(r"torch\.Size\(\[(?P<body>\s*\d+\s*,\s*\d+)"))
_OUT_NAMED = re.compile(r"[^\w`\s,.:=|$()\[\]]")
_TIMES = (re.compile(r"×\s*\d"), re.compile(r"\\times\s*\d"), re.compile(r"x\s*\d"))
_OUT_MAT = re.compile(r"[^\w\s${}\\^:∈ℝ(×.]")  # "." too: _MAT's last lookahead sees the character after a run
_SHAPE_WORD = re.compile(r"shape")
_OUT_SHAPE = re.compile(r"[^\w\s$(),]")
_ENTRY_WORD = (re.compile(r"entries"), re.compile(r"phần tử"))
_OUT_ENTRIES = re.compile(r"[^\w\s${}]")
_ROW_WORD = re.compile(r"\((?:queries|rows|query|hàng|keys|columns|key|cột)\)")  # in each phrase of _ROWS
_OUT_ROWS = re.compile(r"[^\w\s()]")
_SYMS = re.compile(r"\((?P<syms>[A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*){1,7})\)\s*=\s*\(")
_VALS = re.compile(r"=\s*\$?\(\s*" + _DIMS + r"\s*\)")
_VALS_LINE = re.compile(r"=[^\S\n]*\$?\([^\S\n]*\d+(?:[^\S\n]*,[^\S\n]*\d+)+[^\S\n]*\)")  # _VALS within one line
_SHAPE_OF = re.compile(r"\bshape\s*\$?\(\s*" + _DIMS + r"\s*\)")
# a count and the dimension it counts: "4 queries", "4 keys", "1 head", "4 query × 4 key" (vi)
_COUNT = re.compile(r"(?<![\w.,])(?P<n>\d+)\s+(?P<w>queries|query|keys|key|heads|head|truy vấn|khóa)\b")
_COUNT_OF = {"queries": "n", "query": "n", "truy vấn": "n", "keys": "m", "key": "m", "khóa": "m", "heads": "heads",
             "head": "heads"}


def _dims_at(text: str, m, group: str = "dims") -> list[tuple[int, int]]:
    """(offset, value) of each integer of ``m``'s dims group; none where one is past any tensor's size (more than 18
    digits: int() refuses past 4300, a traceback): no size claim read there."""
    base = m.start(group)
    dims = [(base + d.start(), d.group(0)) for d in re.finditer(r"\d+", m.group(group))]
    if any(len(s.lstrip("0")) > 18 for _, s in dims):
        return []
    return [(at, index_int(s)) for at, s in dims]


def claims(text: str, trace, symbols: dict) -> list[tuple[int, int, int, str]]:
    """(offset, printed value, expected value, label) for each size the text states."""
    steps = trace.steps
    out: list[tuple[int, int, int, str]] = []
    # Each pattern runs only where the text holds what it cannot match without (a literal, or the tail
    # every match of it ends with): the patterns cost ~1-3 ms each on a 70 kB note, the tests ~0.1 ms.
    for m in _named(text, set(steps)):
        names = [n.strip().strip("`") for n in m.group("names").split(",")]
        if not names or any(n not in steps for n in names):
            continue
        dims = _dims_at(text, m)
        for n in names:
            shape = steps[n].data.shape
            if len(shape) == len(dims):
                out.extend((pos, v, int(e), f"{n}.shape") for (pos, v), e in zip(dims, shape))
    for m in _in_runs(_MAT, text, _TIMES, _OUT_MAT):
        lab = m.group("l")
        name = _LETTER.get(lab[0]) if lab[0] in "QKVSAO" else re.sub(r"[{}]", "", lab).lower()
        if name not in steps:
            continue
        step = steps[name]
        if set(step.axes[:-2]) - {"batch", "head"} or step.data.ndim < 2:
            continue  # (B, C, H, W) images print no plain matrix shape
        shape = step.data.shape[-2:]
        if name.startswith("w_") and trace.config.get("weight_layout") == "in_out":
            shape = shape[::-1]  # printed for X @ W: (in, out)
        for g, e in zip(("a", "b"), shape):
            out.append((m.start(g), index_int(m.group(g)), int(e), f"{lab} rows × columns"))
    for m in _in_runs(_ENTRIES, text, _ENTRY_WORD, _OUT_ENTRIES) if "b_" in text else ():  # its label is a b_..
        name = re.sub(r"[{}]", "", m.group("l")).lower()
        if name in steps and steps[name].data.ndim == 1:
            out.append((m.start("n"), index_int(m.group("n")), int(steps[name].data.shape[0]),
                        f"{m.group('l')} entries"))
    for m in _MATMUL.finditer(text):
        out.extend(_matmul(m))
    for m in _in_runs(_ROWS, text, _ROW_WORD, _OUT_ROWS):
        key = "n" if m.group("q") else "m"
        if trace.derived.get(key) is not None:
            out.append((m.start("n"), index_int(m.group("n")), int(trace.derived[key]), f"number of {key}"))
    for ls, line in _lines_with(text, _VALS_LINE):
        values = list(_VALS.finditer(line))
        if not values:
            continue  # (normalizing every line first would cost more than the rest of this reader)
        flat = normalize(line)
        tuples = [[s.strip() for s in m.group("syms").split(",")] for m in _SYMS.finditer(flat)]
        if not tuples or len(tuples) != len(values):
            continue
        for syms, vm in zip(tuples, values):
            dims = _dims_at(line, vm)
            if len(syms) != len(dims) or any(s not in symbols for s in syms):
                continue
            out.extend((ls + pos, v, int(symbols[s]), s) for s, (pos, v) in zip(syms, dims))
    cuts = None
    for m in _in_runs(_SHAPE_OF, text, _SHAPE_WORD, _OUT_SHAPE):
        from bisect import bisect_left

        from .human import tensor_of

        if cuts is None:
            cuts = [c.start() for c in re.finditer(r"[\n,;(]", text)]
        # the words since the last , ; ( of the line: "The input has shape", "tensor $S$ có shape"
        k = bisect_left(cuts, m.start())
        seg = text[cuts[k - 1] + 1 if k else 0:m.start()]
        letter = re.search(r"(?<![\w\\])\$?([QKVSAO])\$?\s+\S*\s*$", seg)
        name = _LETTER[letter.group(1)] if letter else tensor_of(seg)
        if letter and name in steps and "row" in steps[name].axes:
            continue  # yolo's O is stored as an image (B, C, H, W); the letter names its per-head view
        if name in steps and steps[name].data.ndim == len(_dims_at(text, m)):
            shape = steps[name].data.shape
            out.extend((pos, v, int(e), f"{name}.shape") for (pos, v), e in zip(_dims_at(text, m), shape))
    d = {**trace.derived, "heads": trace.config.get("heads")}
    for m in _titles(text):  # titles only: prose counts may be hypothetical ("with 8 heads, ...")
        key = _COUNT_OF[m.group("w")]
        if d.get(key) is not None:
            out.append((m.start("n"), index_int(m.group("n")), int(d[key]), f"number of {key}"))
    # (a size of more than 18 digits, past every tensor's: no claim read, as ``_dims_at`` reads none)
    return [c for c in out if c[1] < BEYOND and c[2] < BEYOND]


def _lines(text: str):
    pos = 0
    for line in text.split("\n"):
        yield pos, line
        pos += len(line) + 1


def _in_runs(rx: re.Pattern, text: str, anchor, outside: re.Pattern):
    """``rx.finditer(text)``, searched only where it can match: each match of ``rx`` is made of characters
    that ``outside`` does not match and holds a match of ``anchor``, so it lies in a run of such characters
    that holds an anchor. Each of those runs is searched once, alone (``rx`` looks no further than one
    character past a match, and the character past a run is an ``outside`` one), so the matches are the
    same, found in time linear in the runs searched rather than the note."""
    n, rev, done = len(text), None, -1
    for a in _anchors(anchor, text):
        if a < done:
            continue  # in the run just searched
        if rev is None:
            rev = _reversed(text)  # the run's start: the nearest outside character before the anchor, found backwards
        before = outside.search(rev, n - a)
        after = outside.search(text, a)
        done = after.start() if after else n
        yield from rx.finditer(text, n - before.start() if before else 0, done)


# a _NAMED match is its names, then (from an anchor of _SIZES on) the sizes up to their closing bracket: the
# part before the sizes holds none of the characters of _PRE_NAMED, the sizes are _SIZES_TAIL
_PRE_NAMED = re.compile(r"[^\w`\s,.:=|$]")
_SIZES_TAIL = re.compile(r"\s*\d+(?:\s*,\s*\d+)+\s*[\])]")


def _named(text: str, wanted=None):
    """``_NAMED.finditer(text)``, each match searched for between the nearest character of _PRE_NAMED before an
    anchor of _SIZES and the closing bracket of its sizes. A match holds one such anchor (its sizes hold no
    "(" nor "torch"), and its last character, a bracket, is one of _PRE_NAMED's: the spans searched are
    disjoint and in order, and the matches found in them are the note's, in time linear in those spans.
    ``wanted`` (a set of names): only the matches whose last name is one of them (the word just before the
    sizes, less ``.shape``, a backtick and the separators: the last name of any match there)."""
    n, rev = len(text), None
    for a, body in sorted((m.start(), m.start("body")) for rx in _SIZES for m in rx.finditer(text)):
        tail = _SIZES_TAIL.match(text, body)
        if tail is None:
            continue
        if rev is None:
            rev = _reversed(text)
        if wanted is not None:
            last = _LAST_NAME.match(rev, n - a)
            if last is None or last.group(1)[::-1] not in wanted:
                continue
        before = _PRE_NAMED.search(rev, n - a)
        yield from _NAMED.finditer(text, n - before.start() if before else 0, tail.end())


# the word just before a tuple of sizes, read backwards (in the reversed text) past what _NAMED allows between
# its last name and the sizes: spaces, "$", "|", ":", "=", ".shape" and a backtick
_LAST_NAME = re.compile(r"[\s$|:=]*(?:epahs\.)?`?(\w+)")


def _reversed(text: str) -> str:
    """``text[::-1]``, made once per text for the five patterns' runs."""
    from .human import _per_text

    table = _per_text(text)
    rev = table.get("reversed")  # a key that no mark of human._offsets uses
    if rev is None:
        rev = table["reversed"] = text[::-1]
    return rev


def _anchors(anchor, text: str) -> list[int]:
    """The offsets, in order, where ``anchor`` (a pattern, or a tuple of patterns) matches in ``text``."""
    if isinstance(anchor, re.Pattern):
        return [a.start() for a in anchor.finditer(text)]
    return sorted({a.start() for rx in anchor for a in rx.finditer(text)})


def _lines_with(text: str, rx: re.Pattern):
    """(offset, line) of each line of ``text`` that holds a match of ``rx`` (a pattern that never matches a
    newline), in order: the lines ``_lines`` gives, less those where ``rx.finditer(line)`` finds nothing."""
    from .human import _line_starts

    starts, last = _line_starts(text), -1
    for m in rx.finditer(text):
        k = bisect_right(starts, m.start()) - 1
        if k == last:
            continue
        last = k
        end = starts[k + 1] - 1 if k + 1 < len(starts) else len(text)
        yield starts[k], text[starts[k]:end]


_TITLE = re.compile(r"#(?<=^#)", re.M)  # r"^#", led by its "#" (looked for first: 10x faster scans)
_SPACE = re.compile(r"\s*")


def _titles(text: str):
    """``_COUNT.finditer(text)``'s matches that start on a line beginning with "#", found on those lines only:
    a match is digits, spaces and a word, so none that starts elsewhere reaches into a title, and one that
    starts in a title ends before the first character past the spaces after it that is no word's."""
    from .human import line_start

    for t in _TITLE.finditer(text):
        eol = text.find("\n", t.start())
        eol = len(text) if eol < 0 else eol
        # a match may run on over the spaces after its line, then a word (at most 8 characters) and \b
        stop = min(len(text), _SPACE.match(text, eol).end() + 10)
        for m in _COUNT.finditer(text, t.start(), stop):
            if m.start() >= eol:
                break
            if text.startswith("#", line_start(text, m.start())):
                yield m
