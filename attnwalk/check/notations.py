"""Hand-written notations of the held-out notes (tests/corpus/heldout, heldout2, heldout3) that check's
readers missed or misread on their first run: one small recogniser each, plain text in, offsets or verdicts out.

Two kinds:

- forms, with the signature of ``forms.AFTER_FORMS`` (``(text, trace, hits, foreign) -> None``), run
  last among them: they add verdicts for numbers no reader judged.
- spans of numbers that are no claim, or claim something else than they seem (a percentage restating
  the value before it, ``22,026``, a decimal comma's ``0,95``, a hypothetical ``If d_k = 4``, ``d_k / d_k = 1``):
  ``settle``, run by ``check._check_text`` after the merge, judges the arithmetic reader's verdicts on them again. The
  right depth for each is the reader itself (``checker.Checker._text`` / ``expr.tokenize``, named in
  each docstring); until it honours them, ``settle`` does. (A mis-decoded ``×`` between numbers and
  softmax of a list of expressions were of this kind: the reader itself leaves them unread, see
  ``expr._joined`` and ``checker._arguments``.)
- records the arithmetic reader verified that claim more than arithmetic: ``rounded_weight_sums`` (a note's
  own sums of its rounded weights are the output they stand for), run by ``check._check_text`` after
  ``settle``.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import Counter
from fractions import Fraction
from itertools import chain, islice
from operator import attrgetter, itemgetter

import numpy as np

from ..notation import AFTER_WORDS, ARROWS, BEFORE_WORDS, CODE_NAMES, NEG_INFINITY, PRODUCT_RESULTS, SUM_WORDS
from ..numfmt import fmt
from . import human
from .gates import gate
from .indices import index_int

_NUM = r"[-−–]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?"
# ``softmax: [0.08, 0.23, 0.24],``: one entry of a JS / Python object literal, alone on its line
_ENTRY = re.compile(r"^[ \t]*[\"']?(?P<key>[A-Za-z_][\w ]{0,40}?)[\"']?[ \t]*:[ \t]*\[(?P<body>[ \t]*" + _NUM
                    + r"(?:[ \t]*,[ \t]*" + _NUM + r")+[ \t]*)\][ \t]*,?[ \t]*$", re.M)
ROW_REACH = 12  # lines: how far above a weights list the score row that names its query may be


def object_literal_lists(text: str) -> list[tuple[str, int, list]]:
    """``key: [n, n, …],`` entries of an object literal (a widget's data, a Python dict), the trailing
    comma allowed (the reader's flat lists take such a list for a row of a matrix): (key, offset, cells)."""
    out = []
    for m in human.line_matches(_ENTRY, text, ":"):
        cells = human._cells_in(text, m.start("body"), m.end("body"))
        if cells:
            out.append((m.group("key"), m.start(), cells))
    return out



def keyed_lists(text: str, trace, hits: dict, foreign: list) -> None:
    """Form: ``dotProducts: [..], softmax: [..],`` of one query, named by their keys; a key naming one
    tensor of the list's length is sure of it (a wholly wrong list is wrong), elsewhere by majority."""
    from . import forms

    for key, start, cells in object_literal_lists(text):
        if any(c.start in hits for c in cells):
            continue
        names = human.tensors_of(key)
        head = human.head_at(text, start)
        shaped = []
        for cand in [c for n in names for c in human._candidates(n, trace)]:
            exp = human._expected(trace, cand, head)
            if exp is not None and exp.size == len(cells) and max(exp.shape, default=0) == exp.size:
                shaped.append((cand, exp.reshape(-1)))
        if not shaped:
            continue
        sure = len(names) == 1 and all(np.array_equal(e, shaped[0][1]) for _, e in shaped) \
            and not forms.in_any(start, foreign)
        cand, exp = shaped[0]
        res = human._judge(cells, exp, cand, text, gated=not sure)
        for c, h in zip(cells, res or []):
            hits[c.start] = h


def _row_of(cells: list, mat: np.ndarray) -> int | None:
    """The one row of ``mat`` that ``cells`` print, every number within its rounding; else None."""
    if mat.ndim != 2 or mat.shape[1] != len(cells):
        return None
    scale = float(np.max(np.abs(mat[np.isfinite(mat)]), initial=0.0))
    rows = [r for r in range(mat.shape[0])
            if all(human._close(c.text, float(e), scale) for c, e in zip(cells, mat[r]))]
    return rows[0] if len(rows) == 1 else None


def rows_after_scores(text: str, trace, hits: dict, foreign: list) -> None:
    """Form: ``Scaled scores: [1.25, 0, -0.625]`` then, a few lines below, ``Softmax: [0.69, 0.20, 0.11]``:
    a weights list of one row's length, in a note whose weights have several rows, is the row whose
    scores were printed just above it (every score of that row, and of no other, as printed)."""
    row = None  # (row index, line) of the last score list that named its row
    for name, body, body_start, start in human._vectors(text):
        line = human.line_of(text, start)
        names = human.tensors_of(name) or human.tensors_of(human._label_before(text, body_start))
        if not names:
            continue
        cells = human._cells_in(text, body_start, body_start + len(body))
        head = human.head_at(text, start)
        if names[0] in ("scores", "scores_scaled"):
            found = {_row_of(cells, m) for cand in human._candidates(names[0], trace)
                     if (m := human._expected(trace, cand, head)) is not None}
            found.discard(None)
            row = (found.pop(), line) if len(found) == 1 else None
            continue
        if names[0] != "attn" or row is None or line - row[1] > ROW_REACH or any(c.start in hits for c in cells):
            continue
        attn = human._expected(trace, "attn", head)
        if attn is None or attn.ndim != 2 or attn.shape[0] < 2 or attn.shape[1] != len(cells):
            continue
        if any(not 0 <= human._value(c.text)[0] <= 1 for c in cells) or _nearer_another_row(cells, attn, row[0]):
            continue  # no weights (e^ŝ, 16.9188), or another query's weights (heldout14's α_1 under a right e_2)
        for c, h in zip(cells, human._judge(cells, attn[row[0]], f"attn[{row[0]}]", text, gated=False)):
            hits[c.start] = h


def _nearer_another_row(cells: list, weights, row: int) -> bool:
    """Whether more of ``cells`` print another row of ``weights`` (within their rounding) than row ``row``."""
    values = [human._value(c.text) for c in cells]

    def agree(r: int) -> int:
        return sum(human._near(v, d, float(e), 0.0) for (v, d), e in zip(values, weights[r]))

    mine = agree(row)
    return any(agree(r) > mine for r in range(weights.shape[0]) if r != row)


# ``e^5 = 148.41``, ``e^{-2.5} = 0.082``, ``exp(0.7071) = 2.0281``
# (``e^{0.7842} &= 2.1902``: a LaTeX alignment's ``&`` before the relation, KaTeX's align source)
_EXP_TERM = re.compile(r"(?:e\^\{?\(?|exp\()(?P<x>[-−–]?\d+(?:\.\d+)?)\)?\}?\s*+&?\s*(?:=|≈|\\approx)\s*(?P<v>" + _NUM
                       + ")")


@human._memo
def exp_terms(text: str) -> list:
    """``_EXP_TERM``'s matches in ``text``, found once per text for its several readers of exponentials."""
    return list(_EXP_TERM.finditer(text))


_SUM_LINE = re.compile(r"^[ \t]*(?:[-*+][ \t]+)?\$*[ \t]*(?:\\text\{)?(?:" + "|".join(map(re.escape, SUM_WORDS))
                       + r")\}?[ \t]*(?:=|:|≈)[ \t]*(?P<num>" + _NUM + r")[ \t]*\$*[ \t]*$", re.I | re.M)


def _sum_lines_below_exponentials(text: str, starts: list):
    """``_SUM_LINE``'s matches on the first non-blank line below each run of ``e^x = v`` lines: only those lines are
    tried (the pattern, its words ignoring case, costs ~2 ms over a 70 kB note)."""
    exp_lines = sorted({bisect_right(starts, t.start()) - 1 for t in exp_terms(text)})
    done = set()
    for k in exp_lines:
        j = k + 1
        while j < len(starts) and j - k <= ROW_REACH and j not in done:
            done.add(j)
            end = starts[j + 1] if j + 1 < len(starts) else len(text)
            if not text[starts[j]:end].strip().strip("$"):  # a blank line, or a display's ``$$``
                j += 1
                continue
            m = _SUM_LINE.match(text, starts[j])
            if m is not None:
                yield m
            break


def exponential_sums(text: str, trace, hits: dict, foreign: list) -> None:
    """Form: ``- $e^5 = 148.41$`` / ``- $e^0 = 1.00$`` / ``- $e^{-2.5} = 0.082$`` then ``Sum = 149.492``: a sum
    alone on its line, below the exponentials of one score row (every exponent of that row, in order, as
    printed), is that row's sum of e^s (no maximum subtracted), as a hand calculation adds them; the
    exponentials also as ``exp(0.7071) = 2.0281``, the sum under the words of ``notation.SUM_WORDS`` (``Suma``)."""
    if not exp_terms(text):  # no e^x = v line at all
        return
    starts = human._line_starts(text)
    for m in _sum_lines_below_exponentials(text, starts):
        pos = m.start("num")
        if pos in hits:
            continue
        k = human.line_of(text, pos) - 1  # 0-based index of the sum's line
        exps: list = []
        for a in range(k - 1, max(k - ROW_REACH, 0) - 1, -1):  # the run of e^x lines just above it
            line = text[starts[a]:starts[a + 1] if a + 1 < len(starts) else len(text)]
            terms = list(_EXP_TERM.finditer(line))
            if not terms:
                if exps or not line.strip().strip("$"):
                    if exps:
                        break
                    continue
                break
            exps[:0] = [human.Cell(t.group("x").replace("−", "-").replace("–", "-"), starts[a] + t.start("x"))
                        for t in terms]
        if len(exps) < 2:
            continue
        head = human.head_at(text, pos)
        named = score_row_named(exps, trace, head)
        if named is None:
            continue
        cand, r, _ = named
        row = human._expected(trace, cand, head)[r]
        total = float(np.exp(row[np.isfinite(row)]).sum())
        cell = human.Cell(m.group("num"), pos)
        (hit,) = human._judge([cell], np.array([total]), f"Σ e^{cand}[{r}]", text, gated=False)
        hits[pos] = hit


_SCORES = ("scores_masked", "scores_scaled", "scores")  # what a line's exponentials may print a row of


def exp_rows(text: str, trace):
    """(its ``_EXP_TERM`` matches, head, tensor, row, columns) of each line of ``text`` holding two exponentials or more
    whose exponents print one row of the scores a softmax takes (``score_row_named``: one alone names no place)."""
    by_line: dict[int, list] = {}
    for m in exp_terms(text):
        by_line.setdefault(text.rfind("\n", 0, m.start()) + 1, []).append(m)
    for terms in by_line.values():
        if len(terms) < 2:
            continue
        cells = [human.Cell(t.group("x").replace("−", "-").replace("–", "-"), t.start("x")) for t in terms]
        head = human.head_at(text, terms[0].start())
        named = score_row_named(cells, trace, head)
        if named is not None:
            yield terms, head, *named


def score_row_named(cells: list, trace, head: int) -> tuple[str, int, list[int]] | None:
    """(tensor, row, columns) of the one score row whose finite cells ``cells`` print in order, each within its
    rounding (a masked row's -inf cells have no exponential: ``exp(-inf) = 0`` is no number read); None where no
    row fits, or rows of two tensors do."""
    found = set()
    for cand in _SCORES:
        mat = human._expected(trace, cand, head)
        if mat is None or mat.ndim != 2:
            continue
        ordinary = np.isfinite(mat) & (np.abs(mat) < 1e4)  # mask fills (-1e9) are no cells either
        scale = float(np.max(np.abs(mat[ordinary]), initial=0.0))
        for r in range(mat.shape[0]):
            cols = np.flatnonzero(ordinary[r]).tolist()
            if len(cols) == len(cells) and all(human._close(c.text, float(mat[r, j]), scale)
                                               for c, j in zip(cells, cols)):
                found.add((cand, r, tuple(cols)))
    if len({(r, cols) for _, r, cols in found}) != 1:
        return None
    cand, r, cols = sorted(found)[0]
    return cand, r, list(cols)


_LIST_LINE = re.compile(r"^[ \t]*\[(?P<body>[ \t]*" + _NUM + r"(?:[ \t]*,[ \t]*" + _NUM + r")+[ \t]*)\]", re.M)


def cell_rows(text: str, trace, hits: dict, foreign: list) -> None:
    """Form: an HTML table flattened one cell per line, as a page's text gives it: a header cell naming a
    tensor (``V Vector (4D)``), then rows of a token's word alone on its line and its vector on the next
    (``I`` / ``[1.290, 0.710, 0.820, 0.950]``): the row of that token in the tensor the header names."""
    cfg = trace.config
    labels, kv_labels = list(cfg.get("labels") or []), list(cfg.get("kv_labels") or [])
    words = set(labels + kv_labels)
    if not words:
        return  # no token words: no row of such a table is named
    lines = text.split("\n")
    if not any(line.strip() in words and _LIST_LINE.match(nxt) for line, nxt in zip(lines, lines[1:])):
        return  # no word alone on its line above a vector: no such table (most notes; read fast)
    starts = human._line_starts(text)
    header = None  # (tensor names, line index) of the last line naming a tensor
    last = -ROW_REACH
    for i, line in enumerate(lines[:-1]):
        word = line.strip()
        m = _LIST_LINE.match(lines[i + 1])
        if m is None or word not in labels + kv_labels:
            names = human.tensors_of(word) if word and not _LIST_LINE.match(line) else []
            if names and len(word) <= 80:
                header = (names, i)
            continue
        if header is None or i - max(header[1], last) > ROW_REACH:
            continue
        last = i
        cells = human._cells(m.group("body").replace(",", " "), starts[i + 1] + m.start("body"))
        if not cells or any(c.start in hits for c in cells):
            continue
        head = human.head_at(text, starts[i])
        for name in header[0]:
            table = kv_labels if name in ("k", "v") and kv_labels else labels
            if word not in table:
                continue
            r = table.index(word)
            res = None
            for cand in human._candidates(name, trace):
                mat = human._expected(trace, cand, head)
                if mat is not None and mat.ndim == 2 and r < mat.shape[0] and mat.shape[1] == len(cells):
                    res = human._judge(cells, mat[r], f"{cand}[{r}]", text)
                    if res:
                        break
            if res:
                for c, h in zip(cells, res):
                    hits[c.start] = h
                break


def _matches(cells_rows: list, mat: np.ndarray) -> bool:
    """Whether printed rows are ``mat``, every number within its rounding."""
    if mat is None or mat.ndim != 2 or len(cells_rows) != mat.shape[0]:
        return False
    return all(_row_of(row, mat[r:r + 1]) == 0 for r, row in enumerate(cells_rows))


def weights_times_values(text: str, trace, hits: dict, foreign: list) -> None:
    """Form: ``[0.0, 0.5, 0.5] × V = [2.0, 7.0, 1.5]`` in LaTeX matrices, V the note's value matrix as printed:
    the product is the output row of the query whose score row was printed last above it (a weights row the
    note chose, rounded or assumed, does not change what attention outputs for that query)."""
    if "\\times" not in text:
        return
    blocks = human.latex_blocks(text)
    row = None  # (row index, line) of the last single-row matrix that is one score row
    for i, b in enumerate(blocks):
        line = human.line_of(text, b.start)
        head = human.head_at(text, b.start)
        if len(b.rows) == 1:
            found = {_row_of(b.rows[0], m) for cand in ("scores", "scores_scaled")
                     if (m := human._expected(trace, cand, head)) is not None}
            found.discard(None)
            if len(found) == 1:
                row = (found.pop(), line)
        if i + 2 >= len(blocks) or row is None or line - row[1] > 2 * ROW_REACH:
            continue
        mid, res = blocks[i + 1], blocks[i + 2]
        if (len(b.rows) != 1 or len(res.rows) != 1 or human.line_of(text, res.start) != line
                or "\\times" not in text[b.start:mid.start] or "=" not in text[mid.start:res.start]):
            continue
        v, out = human._expected(trace, "v", head), human._expected(trace, "out", head)
        cells = res.rows[0]
        if (not _matches(mid.rows, v) or out is None or out.ndim != 2 or len(b.rows[0]) != v.shape[0]
                or out.shape[1] != len(cells) or any(c.start in hits for c in cells)):
            continue
        for c, h in zip(cells, human._judge(cells, out[row[0]], f"out[{row[0]}]", text, gated=False)):
            hits[c.start] = h


_ROW_COMMENT = re.compile(r"^[ \t]*#[ \t]*+(?:tensor\()?\[*(?P<body>[ \t]*" + _NUM + r"(?:[ \t]*,[ \t]*" + _NUM
                          + r")+[ \t]*)\][\]),]*[ \t]*#[ \t]*(?P<name>[^\n#]{1,60}?)[ \t]*(?P<n>\d+)[ \t]*$", re.M)


def commented_rows(text: str, trace, hits: dict, foreign: list) -> None:
    """Form: a printed matrix pasted as code comments, each row named by a comment after it
    (``# tensor([[2.0000, 7.0000, 1.5000],  # Output 1``): the row N (1-based) of the tensor the name
    gives, when the name gives one tensor of that row's width."""
    from . import forms

    for m in human.line_matches(_ROW_COMMENT, text, "#"):
        names = human.tensors_of(m.group("name"))
        r = index_int(m.group("n")) - 1
        cells = human._cells(m.group("body").replace(",", " "), m.start("body"))
        if len(names) != 1 or r < 0 or not cells or any(c.start in hits for c in cells):
            continue
        head = human.head_at(text, m.start())
        shaped = [(cand, mat[r]) for cand in human._candidates(names[0], trace)
                  if (mat := human._expected(trace, cand, head)) is not None and mat.ndim == 2
                  and r < mat.shape[0] and mat.shape[1] == len(cells)]
        if not shaped:
            continue
        # the comment names the row: one tensor of that width (out and o of one head are one) is sure of it,
        # a wholly wrong row is wrong; among several (scores before / after scaling), the one the row agrees
        # with most, by majority
        cand, exp = max(shaped, key=lambda ce: sum(human._close(c.text, float(e), 0.0) for c, e in zip(cells, ce[1])))
        sure = all(np.array_equal(e, shaped[0][1]) for _, e in shaped) and not forms.in_any(m.start(), foreign)
        for c, h in zip(cells, human._judge(cells, exp, f"{cand}[{r}]", text, gated=not sure) or []):
            hits[c.start] = h


# a coefficient times a value named by its key: ``0.15·V_the``, ``0.668*V1``, ``0.40 \cdot v_{cat}``, and written side
# by side where the value's name has a subscript (``0.40 v_1``, ``0.40 V_{The}``, ``0.40 v₁``)
_COEF = re.compile(r"(?<![\w.^_])(?P<num>" + _NUM + r")"
                   r"(?:[ \t]*(?:·|\*|×|\\cdot)[ \t]*[Vv]_?|[ \t]*[Vv]_|[ \t]*[Vv](?=[₀-₉]))"
                   r"\{?(?P<word>[^\s}+·*,$]+)\}?")
# a coefficient before a value: the prefilter (found by ``_coef_lines``)
_COEF_MARK = re.compile(r"(?:·|\*|×|\\cdot)[ \t]*[Vv]|\d[ \t]*[Vv](?:_|[₀-₉])")


def _coef_lines(text: str) -> list[int]:
    """The lines (0-based, ascending) holding a match of ``_COEF_MARK``, found from the note's few ``V`` and ``v``
    (every match ends at one): the characters before and after each say whether a match ends there. (The regex,
    tried at every digit of a note, cost ~2 ms a 70 kB note.)"""
    found = set()
    for at in chain(human._offsets(text, "V"), human._offsets(text, "v")):
        k = at - 1
        while k >= 0 and text[k] in " \t":
            k -= 1
        if k < 0:
            continue
        c, after = text[k], text[at + 1:at + 2]
        op = c in "·*×" or c == "t" and k >= 4 and text.startswith("\\cdot", k - 4)
        digit = c.isdecimal() and (after == "_" or "₀" <= after <= "₉")  # (``\d`` is a decimal digit: isdecimal)
        if op or digit:
            found.add(at)
    starts = human._line_starts(text)
    return sorted({bisect_right(starts, at) - 1 for at in found})


# the query a row's weighted sum is for: its token word in quotes on the line, or a 1-based result name ``z_2 =``
_QUOTED_WORD = re.compile(r"[\"“”'‘’「」]([^\"“”'‘’「」\n]{1,40})[\"“”'‘’「」]")
_RESULT_NUMBER = re.compile(r"^[ \t]*(?:[-*+][ \t]+)?\$?[ \t]*(?:z|o|y|out|output)_\{?(?P<n>\d+)\}?[ \t]*=")
# the output row the weighted sum adds up to, right after its last term: ``= [1.60, 1.00]``, ``≈ (1.60, 1.00)``
_SUM_RESULT = re.compile(r"[ \t]*\$?[ \t]*(?:=|≈|\\approx)[ \t]*\$?[ \t]*(?:\\left)?[\[(](?P<body>[ \t]*" + _NUM
                         + r"(?:[ \t]*,[ \t]*" + _NUM + r")+[ \t]*)(?:\\right)?[\])]")
_LINE_QUERY = re.compile(r"^[ \t]*(?:[-*+][ \t]+)?(?P<q>[^\s:]{1,40}?)[ \t]*:")
_NAMED_RESULT = re.compile(r"^[ \t]*[A-Za-z]{1,12}_\{?(?P<q>[^\s_{}=]{1,40}?)\}?[ \t]*=")


def _value_index(word: str, keys: list, line: str, m: int) -> int | None:
    """The key (0-based) a value's name gives: its key's word (``V_the``), or its number (``V1``, ``V_{2}``):
    1-based, unless the line also names a ``V0``."""
    if word in keys:
        return keys.index(word)
    folded = [k for k in keys if k.casefold() == word.casefold()]  # ``V_si`` for the token "Si"
    if len(folded) == 1:
        return keys.index(folded[0])
    word, line = word.translate(_SUBSCRIPT_DIGITS), line.translate(_SUBSCRIPT_DIGITS)  # V₀ is V0 (heldout5's ViT)
    if not word.isdecimal() or not word.isascii():
        return None
    i = index_int(word) - (0 if re.search(r"V_?\{?0(?!\d)", line) else 1)
    return i if 0 <= i < m else None


_SUBSCRIPT_DIGITS = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")


_ATTN_ROW = re.compile(r"attn\[(\d+)\]")


def _judged_row_above(hits: dict, line: int, texts: list, keys: list, width: int) -> int | None:
    """The query of coefficients that restate, digit for digit at their keys' places, a row of weights judged as
    ``attn[r]`` on one line within ``2 * ROW_REACH`` lines above ``line`` (heldout6's devlog: ``softmax([1, 2, 0,
    1]) = [0.18, 0.49, 0.07, 0.26]``, then ``output = 0.18*V_si + 0.49*V_llueve + ...``): r, the nearest such
    line's; else None."""
    rows: dict[int, list] = {}
    for at in sorted(hits):
        h = hits[at]
        if line - 2 * ROW_REACH <= h.line < line:
            rows.setdefault(h.line, []).append(h)
    for ln in sorted(rows, reverse=True):
        row = rows[ln]
        found = {m.group(1) for h in row if (m := _ATTN_ROW.fullmatch(str(h.label)))}
        if len(row) == width and len(found) == 1 and all(row[i].text == t for t, i in zip(texts, keys)) and \
                all(_ATTN_ROW.fullmatch(str(h.label)) for h in row):
            return index_int(found.pop())
    return None


def value_coefficients(text: str, trace, hits: dict, foreign: list) -> None:
    """Form: ``= 0.15·V_the + 0.59·V_cat + 0.27·V_sat``, ``- Q1: 0.668*V1 + 0.332*V2``: the weights written as
    the coefficients of the values they multiply, each value named by its key's word or number (heldout3's
    ko_blog_2x2_rounded_weights): the weights of the one query row, or of the query named by
    ``output_<word>`` on the line or the one above, or by its label opening the line (``- Q1:``), or by the name
    the line assigns, ending in the query's word (``new_E = 0.08×V₀ + ...``, heldout5's ViT guide). The row and
    the keys known, a wholly wrong row of weights is wrong (outside another example's section)."""
    from . import forms

    cfg = trace.config
    keys = list(cfg.get("kv_labels") or cfg.get("labels") or [])
    queries = list(cfg.get("labels") or [])
    marked = _coef_lines(text)
    if not marked:
        return
    lines = text.split("\n")
    starts = human._line_starts(text)
    for k in marked:  # the lines with a coefficient before a value only (a note's other lines cost nothing)
        line = lines[k]
        head = human.head_at(text, starts[k])
        attn = human._expected(trace, "attn", head)
        if attn is None or attn.ndim != 2:
            continue
        terms = [(t, i) for t in _COEF.finditer(line)
                 if (i := _value_index(t.group("word"), keys, line, attn.shape[1])) is not None]
        if len(terms) < 2:
            continue
        row = 0 if attn.shape[0] == 1 else None
        near = " ".join(lines[max(k - 1, 0):k + 1])
        named = [w for w in queries if re.search(r"(?:output|out|z)_\{?" + re.escape(w) + r"\b", near)]
        opening = _LINE_QUERY.match(line)
        if row is None and not named and opening and opening.group("q") in queries:
            named = [opening.group("q")]
        assigned = _NAMED_RESULT.match(line)  # ``new_E = 0.08×V₀ + ...``: the result of the query E
        if row is None and not named and assigned and assigned.group("q") in queries:
            named = [assigned.group("q")]
        if row is None and not named:  # ``the output for "cat" is 0.40 v_1 + ...``
            named = list({w for w in _QUOTED_WORD.findall(line) if w in queries})
        if row is None and len(named) == 1:
            row = queries.index(named[0])
        if row is None and (numbered := _RESULT_NUMBER.match(line)):  # ``z_2 = 0.40 v_1 + ...``: 1-based
            n = index_int(numbered.group("n")) - (0 if re.search(r"(?:z|o|y|out|output)_\{?0\}?", text) else 1)
            row = n if 0 <= n < attn.shape[0] else None
        cells = [human.Cell(t.group("num"), starts[k] + t.start("num")) for t, _ in terms]
        if row is None:  # the coefficients restating a row of weights judged just above (``softmax(..) = [..]``)
            row = _judged_row_above(hits, k + 1, [c.text for c in cells], [i for _, i in terms], attn.shape[1])
        if row is None or row >= attn.shape[0]:
            continue
        if any(c.start in hits for c in cells):
            continue
        exp = np.array([attn[row][i] for _, i in terms])
        gated = forms.in_any(starts[k], foreign)
        judged = human._judge(cells, exp, f"attn[{row}]", text, gated=gated) or []
        for c, h in zip(cells, judged):
            hits[c.start] = h
        if judged and len(terms) == len({i for _, i in terms}):
            _weighted_sum_result(text, trace, hits, starts[k], line, terms, row, head,
                                 all(h.ok for h in judged))


def _weighted_sum_result(text: str, trace, hits: dict, base: int, line: str, terms: list, row: int, head: int,
                         coefficients_right: bool) -> None:
    """The output row ``= [..]`` right after a row's weights written as coefficients of its values (``0.40 v_1 +
    0.40 v_2 + 0.20 v_3 = [1.60, 1.00]``): row ``row`` of the output, judged by the convention on results of
    printed arithmetic (``rounds_either``): right where it rounds torch's output or the printed coefficients times
    the values (V's rows as the scenario gives them), the latter only where every coefficient is right."""
    m = _SUM_RESULT.match(line, terms[-1][0].end())
    out, v = human._expected(trace, "out", head), human._expected(trace, "v", head)
    if m is None or out is None or v is None or out.ndim != 2 or v.ndim != 2 or row >= out.shape[0]:
        return
    cells = human._cells(m.group("body").replace(",", " "), base + m.start("body"))
    if not cells or len(cells) != out.shape[1] or any(c.start in hits for c in cells):
        return
    coef = [human._value(t.group("num").replace("−", "-").replace("–", "-"))[0] for t, _ in terms]
    for d, c in enumerate(cells):
        arith = sum(w * float(v[i][d]) for w, (_, i) in zip(coef, terms)) if coefficients_right else None
        tensor = float(out[row][d])
        ok = rounds_either(c.text, tensor, arith)
        dec = max(human._value(c.text)[1] or 0, 0)
        want = tensor if arith is None else arith
        hits[c.start] = human.Hit(human.line_of(text, c.start), c.text, ok, f"out[{row}]", human.fmt(tensor, dec),
                                  None if ok else human._fix_text(c.text, want))


_REPL = re.compile(r"^>>>[ \t]*(?P<name>[A-Za-z_][\w.]*)[ \t]*\n(?P<mat>(?:tensor|array)\(\[\[[^()]*?\]\][^\n]*)", re.M)
_ROW = re.compile(r"\[(?P<body>[^\[\]]*)\]")


def identifier_tensor(name: str) -> str | None:
    """The tensor a variable's name gives: the one of its longest phrase (``attn_scores_softmax``: softmax, the
    weights; ``context_value4``: context, the output; ``weighted_values``: the output), None at a tie. A name
    ``program.tensors_named`` reads as one tensor is that tensor (``S``, ``scaled_scores``, ``W_out``: the strict
    reader's words, whole); past it, longest phrase, other words and digits allowed, as the printed
    name of a matrix (``print(context_value4)``) may have; the strict reader reads only its own names, as a
    literal assignment's wrong guess would call right numbers wrong."""
    from ..notation import WORDS
    from .program import tensors_named

    strict = tensors_named(name)
    if len(strict) == 1:
        return strict[0]
    flat = human._flatten(name)
    best: dict[str, int] = {}
    for tensor, phrases in WORDS.items():
        for p in phrases:
            body = p.strip("|").replace(" ", "")
            if human._find_phrase(flat, body, p.startswith("|") and p.endswith("|")) >= 0:
                best[tensor] = max(best.get(tensor, 0), len(body))
    if not best:
        return None
    top = max(best.values())
    named = [t for t, n in best.items() if n == top]
    return named[0] if len(named) == 1 else None


def _sure_judge(cells: list, names: list, shape: tuple, trace, text: str, pos: int, foreign: list,
                label_row: int | None = None) -> list | None:
    """Verdicts for ``cells`` (a matrix of ``shape``, or row ``label_row`` of one) read as the one tensor
    ``names`` gives: ungated (a wholly wrong matrix is wrong) when that tensor's candidates of this shape are
    one (out and o of one head are one) and the place is not another example's; else by majority."""
    from . import forms

    if len(names) != 1:
        return None
    head = human.head_at(text, pos)
    shaped = []
    for cand in human._candidates(names[0], trace):
        mat = human._expected(trace, cand, head)
        if mat is None or mat.ndim != 2:
            continue
        if label_row is not None:
            if label_row < mat.shape[0] and mat.shape[1] == shape[-1]:
                shaped.append((cand, mat[label_row]))
        elif mat.shape == shape:
            shaped.append((cand, mat))
    if not shaped:
        return None
    sure = all(np.array_equal(e, shaped[0][1]) for _, e in shaped) and not forms.in_any(pos, foreign)
    cand, exp = shaped[0]
    where = f"{cand}[{label_row}]" if label_row is not None else cand
    return human._judge(cells, exp, where, text, gated=not sure)


def repl_echoes(text: str, trace, hits: dict, foreign: list) -> None:
    """Form: ``>>> weighted_values`` then ``tensor([[2.0000, 7.0000, 1.5000], ...])``: a REPL's echo of one
    variable, named by that variable alone: the tensor its name gives."""
    if ">>>" not in text:
        return
    for m in _REPL.finditer(text):
        rows = [human._cells(r.group("body").replace(",", " "), m.start("mat") + r.start("body"))
                for r in _ROW.finditer(m.group("mat"))]
        if not rows or any(not r for r in rows) or len({len(r) for r in rows}) != 1:
            continue
        cells = [c for r in rows for c in r]
        if any(c.start in hits for c in cells):
            continue
        named = identifier_tensor(m.group("name"))
        res = _sure_judge(cells, [named] if named else [], (len(rows), len(rows[0])), trace, text, m.start(), foreign)
        for c, h in zip(cells, res or []):
            hits[c.start] = h


_PRINT_COMMENT = re.compile(r"^[ \t]*#[ \t]*print\((?P<args>[^()\n]*)\)[ \t]*(?:#(?P<tail>[^\n]*))?$", re.M)
_LIST_COMMENT = re.compile(r"^[ \t]*#[ \t]*(?P<tail>\[[^\n]*)$", re.M)


def printed_comments(text: str, trace, hits: dict, foreign: list) -> None:
    """Form: results pasted as comments after the print that made them, ``# print(weight1)   # [0.3655 ...]``
    or ``# print(weight2, weight3, weight4)`` and one ``# [..]`` line each: each list is the row its
    variable's number names (1-based, 0-based where a name ends in 0) of the tensor its name gives."""
    if "print(" not in text:
        return
    found = []  # (names, lists of cells, offset)
    for m in human.line_matches(_PRINT_COMMENT, text, "print("):
        names = [a.strip() for a in m.group("args").split(",")]
        if not all(re.fullmatch(r"[A-Za-z_]\w*?\d+", n) for n in names):
            continue
        tail, base = m.group("tail") or "", m.start("tail") if m.group("tail") else m.end()
        lists = [human._cells(r.group("body").replace(",", " "), base + r.start("body")) for r in _ROW.finditer(tail)]
        nxt = m.end() + 1
        while len(lists) < len(names) and (c := _LIST_COMMENT.match(text, nxt)):
            lists += [human._cells(r.group("body").replace(",", " "), c.start("tail") + r.start("body"))
                      for r in _ROW.finditer(c.group("tail"))]
            nxt = c.end() + 1
        if len(lists) == len(names) and all(lists):
            found.append((names, lists, m.start()))
    zero = any(n.endswith("0") and not n.endswith("10") for names, _, _ in found for n in names)
    for names, lists, pos in found:
        for name, cells in zip(names, lists):
            row = index_int(re.search(r"\d+$", name).group()) - (0 if zero else 1)
            if row < 0 or any(c.start in hits for c in cells):
                continue
            named = identifier_tensor(re.sub(r"\d+$", "", name))
            res = _sure_judge(cells, [named] if named else [], (1, len(cells)), trace, text, pos, foreign,
                              label_row=row)
            for c, h in zip(cells, res or []):
                hits[c.start] = h


_OUTPUT_WORDS = ("输出", "output", "đầu ra", "kết quả")
_OUTPUT_N = re.compile(r"(?i)(?:" + "|".join(_OUTPUT_WORDS) + r")[ \t]*(?P<n>\d+)(?![\d.])")
_RESULT_LIST = re.compile(r"^[ \t]*=[ \t]*\[(?P<body>[ \t]*" + _NUM + r"(?:[ \t]*,[ \t]*" + _NUM
                          + r")+[ \t]*)\][ \t]*$")


def named_output_rows(text: str, trace, hits: dict, foreign: list) -> None:
    """Form: a vector the note calls "output N" (``得到的向量[2.0, 7.0, 1.5] (深绿)是输出 1``, ``[..] is output 2``),
    or the ``= [..]`` result of a step whose title calls it so (``7. ... 求和以得到输出1`` above a column sum):
    the output row N (1-based)."""
    starts = human._line_starts(text)

    def _line(k: int) -> str:  # text.split("\n")[k]
        return text[starts[k]:starts[k + 1] - 1 if k + 1 < len(starts) else len(text)]

    # the lines holding exactly one list, from one scan of the note (a list never spans lines): the others
    # are passed over as the loop over every line would pass them; the words are looked for on those lines
    # only (the pattern ignores case: slow over a whole note, as lowering it is)
    # (each match opens at a "[" and holds no other: the note's "["s are where to try it; a line's matches are its
    # own, as none spans two lines)
    per_line: dict[int, list] = {}
    for at in human._offsets(text, "["):
        m = _FLAT_LIST.match(text, at)
        if m is not None:
            per_line.setdefault(bisect_right(starts, at) - 1, []).append(m)
    for k, found in per_line.items():
        if len(found) != 1:
            continue
        line, whole = _line(k), found[0]
        lo, hi = whole.start() - starts[k], whole.end() - starts[k]  # the list's place on its line
        named = [m for m in _OUTPUT_N.finditer(line) if not lo <= m.start() < hi]
        if not named and _RESULT_LIST.match(line):
            for a in range(k - 1, max(k - ROW_REACH, 0) - 1, -1):
                above = _line(a)
                named = list(_OUTPUT_N.finditer(above))
                if named or re.match(r"^\s*(?:#+\s|\d+\.\s|\*\*)", above):
                    break
        if len(named) != 1:
            continue
        cells = human._cells(whole.group("body").replace(",", " "), whole.start("body"))
        row = index_int(named[0].group("n")) - 1
        if not cells or row < 0 or any(c.start in hits for c in cells):
            continue
        res = _sure_judge(cells, ["out"], (1, len(cells)), trace, text, starts[k], foreign, label_row=row)
        for c, h in zip(cells, res or []):
            hits[c.start] = h


_FLAT_LIST = re.compile(r"\[(?P<body>[ \t]*" + _NUM + r"(?:[ \t]*,[ \t]*" + _NUM + r")+[ \t]*)\]")


def named_output_rows_gate(text: str) -> bool:
    """Gate of ``named_output_rows`` (check.gates): a match of ``_OUTPUT_N`` ("output 2", any case), by which every
    vector it reads is named, on its line or above (``gates.words_before_digit``: ~0.3 ms of a 70 kB note saved)."""
    from .gates import words_before_digit

    return words_before_digit(text, _OUTPUT_WORDS, r"[ \t]*") != []


gate(named_output_rows, named_output_rows_gate)  # (check.gates)


# ---------------------------------------------------------------- numbers that are no claim as read

# (not inside a run of digits: every start in a long one tried its run again, quadratic in its length)
_PERCENT_RESTATED = re.compile(r"(?<!\d)(?P<prev>\d+\.\d+)\s*(?:=|≈|~|\\approx)\s*(?P<pct>\d+(?:\.\d+)?)\s*\\?%")


def percent_restatements(text: str) -> list[tuple[int, str, str]]:
    """``1.29 / 4.02 = 0.32 = 32%``, ``= 0.9999545 \\approx 99.995\\%``: a percentage that restates the
    decimal before it: (its offset, the percentage as printed without ``%``, that decimal). Right depth: the
    arithmetic reader compares such a number as that decimal's percentage (``checker.Checker._text``: a
    chain's ``N%`` / ``N\\%`` after ``=`` or ``≈`` is N/100), instead of reading ``32`` as the chain's value;
    until then ``settle`` judges it again."""
    return [(m.start("pct"), m.group("pct"), m.group("prev")) for m in _PERCENT_RESTATED.finditer(text)]


def restates(pct: str, prev: str) -> bool:
    """Whether the percentage ``pct`` (printed without ``%``) is the decimal ``prev`` at its precision."""
    dec = (len(pct.split(".")[1]) if "." in pct else 0) + 2
    return abs(float(prev) - float(pct) / 100) <= 0.5 * 10.0**-dec * (1 + 1e-9)


_THOUSANDS = re.compile(r"(?<![\d.,])\d{1,3}(?:,\d{3})+(?![\d,]|\.\d)")


def thousands_numbers(text: str) -> list[tuple[int, int, float]]:
    """``e^{10} = 22,026``: a number written with thousands separators, outside any ``[..]`` or ``(..)``
    list: (start, end, value). Right depth: ``expr.tokenize`` reads it as one number (today ``22`` is compared
    and ``026`` left over)."""
    out = []
    for m in _THOUSANDS.finditer(text):
        if m.group(0).startswith("0"):
            continue  # ``0,952``: a decimal comma (``decimal_commas``), never thousands
        ls = text.rfind("\n", 0, m.start()) + 1
        before = text[ls:m.start()]
        if before.count("[") > before.count("]") or before.count("(") > before.count(")"):
            continue  # ``[1,000, 2]``, ``f(1,234)``: a list's or a call's separators
        out.append((m.start(), m.end(), float(m.group(0).replace(",", ""))))
    return out


# ``≈ 0,95``: a decimal comma (Turkish, Spanish, German, Vietnamese notes); never a thousands number (``1,000``:
# no leading 0 and three digits after the comma) and never inside a ``[..]`` / ``(..)`` list (``[1,0]``)
_DECIMAL_COMMA = re.compile(r"(?<![\d.,])(?P<int>\d+),(?P<frac>\d+)(?![\d,]|\.\d)")
# a failing check's label the arithmetic reader wrote for a plain computation: ``(9.97)/(10.47)``
_ARITH_LABEL = re.compile(r"[\d.\s()+\-*/]+")


def decimal_commas(text: str) -> list[tuple[int, str, str]]:
    """``≈ 0,95``, ``%0,24``: a number written with a decimal comma, outside any ``[..]`` or ``(..)`` list:
    (start, its integer part as the arithmetic reader reads it, the number with a decimal point). Right depth:
    ``expr.tokenize`` reads ``0,95`` as one number (today ``0`` is compared and ``95`` left over)."""
    out = []
    for m in _DECIMAL_COMMA.finditer(text):
        if m.group("int") != "0" and len(m.group("frac")) == 3:
            continue  # ``22,026``: thousands (``thousands_numbers``)
        ls = text.rfind("\n", 0, m.start()) + 1
        before = text[ls:m.start()]
        if before.count("[") > before.count("]") or before.count("(") > before.count(")"):
            continue
        out.append((m.start(), m.group("int"), f"{m.group('int')}.{m.group('frac')}"))
    return out


def _arith_value(label: str) -> Fraction | None:
    """The exact value of a failing check's label when it is plain arithmetic of printed decimals, else None."""
    if not _ARITH_LABEL.fullmatch(label) or not re.search(r"\d", label):
        return None
    try:
        return eval(re.sub(r"\d+(?:\.\d+)?", lambda m: f"F('{m.group()}')", label), {"F": Fraction})  # noqa: S307
    except (SyntaxError, ZeroDivisionError, TypeError):
        return None


_HYPOTHETICAL = re.compile(r"(?i)(?:\bif|\bsuppose|\bassume|\bsay|\be\.g\.|\bfor example|\bnếu|\bgiả sử|假设|如果)"
                           r"[ \t,]*\$?[ \t]*(?P<sym>[A-Za-z\\][\w{}\\]*)[ \t]*=[ \t]*(?P<num>\d+(?:\.\d+)?)")


def hypothetical_assignments(text: str) -> list[tuple[int, str, str]]:
    """``If $d_k = 4$, …``, ``suppose n = 8``: a symbol given a value for the sake of an example, not the
    note's own: (offset of the number, symbol, number). Right depth: ``checker.Checker._text`` leaves the
    number unread (today ``d_k = 4`` is compared with the scenario's d_k)."""
    return [(m.start("num"), m.group("sym"), m.group("num")) for m in _HYPOTHETICAL.finditer(text)]


_SELF_RATIO = re.compile(r"(?P<a>[A-Za-z\\][\w{}^\\]*)\s*/\s*(?P=a)\s*=\s*(?P<num>1(?:\.0+)?)(?![\d.])")


def self_ratios(text: str) -> list[int]:
    """``d_k / d_k = 1``: a symbol divided by itself, equal to 1 whatever its value (an identity of a
    derivation): offsets of the 1. Right depth: ``checker.Checker._text`` verifies the number or leaves it unread
    (today the chain ``Var(QK^T) / d_k = d_k / d_k = 1`` compares 1 with d_k)."""
    return [m.start("num") for m in _SELF_RATIO.finditer(text)]


# ---------------------------------------------------------------- settling the verdicts they concern

def _mag(text: str) -> str:
    return text.lstrip("-−–").rstrip("%…").removesuffix("...")


def _records_at(body: str, recs: list):
    """``record(pos, mag=None)``: the record of the number printed at ``pos``, None where there is none. The k-th
    number of its line with its magnitude is the k-th record with them (as ``check._merge_human`` pairs them);
    without ``mag``, ``pos`` must start a number of ``human._numbers`` (else None) and the magnitude is its text's.
    Shared by the readers that add a check to records after the merge."""
    num_starts, num_texts = human._numbers(body)
    line_starts = human._line_starts(body)
    by_key: dict = {}
    for rec in recs:
        by_key.setdefault((rec.line, _mag(rec.text)), []).append(rec)

    ranks: dict = {}  # line -> (its first number's index, each number's count of equal magnitudes before it)

    def record(pos: int, mag: str | None = None):
        i = bisect_left(num_starts, pos)
        if mag is None:
            if i == len(num_starts) or num_starts[i] != pos:
                return None
            mag = _mag(num_texts[i])
        line = bisect_right(line_starts, pos)
        if line not in ranks:  # once a line: a reader asking for each of a long line's numbers stays linear
            first = bisect_left(num_starts, line_starts[line - 1])
            last = bisect_left(num_starts, line_starts[line]) if line < len(line_starts) else len(num_starts)
            seen: Counter = Counter()
            counts = []
            for j in range(first, last):
                m = _mag(num_texts[j])
                counts.append(seen[m])
                seen[m] += 1
            ranks[line] = (first, counts)
        first, counts = ranks[line]
        # k: the numbers with this magnitude before ``pos`` on its line (``pos`` may start no number: ``mag`` given)
        if first <= i < first + len(counts) and _mag(num_texts[i]) == mag:
            k = counts[i - first]
        else:
            k = sum(1 for j in range(first, i) if _mag(num_texts[j]) == mag)
        slot = by_key.get((line, mag), [])
        return slot[k] if k < len(slot) else None

    return record


def _any_wrong(recs: list) -> bool:
    """Whether a record has a failing check: most notes have none, so this is asked of every check at once,
    by C-level maps, before ``settle`` looks at any record in Python."""
    return not all(map(itemgetter(0), chain.from_iterable(map(attrgetter("checks"), recs))))


def settle(body: str, recs: list) -> list:
    """The numbers above that a reader called wrong, judged again for what they are: a percentage
    restating the decimal before it (right when it rounds that decimal), a number with thousands
    separators (its whole value against the failing check's expected value), a hypothetical or an
    identity's number (no claim about the note: not understood). Run by ``check._check_text`` after
    ``_merge_human``."""
    if not _any_wrong(recs):
        return recs
    wrong = {}
    for r in recs:
        if r.status == "wrong":
            wrong.setdefault((r.line, _mag(r.text)), []).append(r)
    if not wrong:
        return recs

    def take(pos: int, text: str):
        got = wrong.get((human.line_of(body, pos), _mag(text)))
        return got.pop(0) if got else None

    for pos, pct, prev in percent_restatements(body):
        r = take(pos, pct)
        if r is not None:
            ok = restates(pct, prev)
            dec = len(pct.split(".")[1]) if "." in pct else 0
            shown = human.fmt(float(prev) * 100, dec)
            r.checks = [(ok, f"{prev} as a percentage", shown + "%")]
            r.fix = None if ok else (shown, "arith")  # the decimal before it, restated: fixed after the labels
    for start, end, value in thousands_numbers(body):
        r = take(start, body[start:end].split(",")[0])
        if r is None:
            continue
        fails = [(lab, exp) for ok, lab, exp in r.checks if not ok]
        try:
            ok = all(abs(value - float(exp)) <= 0.5 for _, exp in fails)
        except ValueError:
            continue
        r.checks = [c for c in r.checks if c[0]] + [(ok, lab, exp) for lab, exp in fails]
        r.fix = None if ok else r.fix
    for start, whole, value in decimal_commas(body):
        r = take(start, whole)
        if r is None:
            continue
        fails = [(lab, _arith_value(lab)) for ok, lab, _ in r.checks if not ok]
        if any(v is None for _, v in fails):  # a tensor's value judged at the integer's precision: unread
            r.checks, r.fix = [c for c in r.checks if c[0]], None
            continue
        half = Fraction(1, 2 * 10 ** (len(value) - len(whole) - 1))
        ok = all(abs(Fraction(value) - v) <= half for _, v in fails)
        r.checks = [c for c in r.checks if c[0]] + [(ok, lab, fmt(float(v), len(value) - len(whole) - 1).replace(
            ".", ",")) for lab, v in fails]
        r.fix = None  # --fix rewrites the integer part alone (``1,95``): the note's whole number is left to the author
    for pos in [p for p, _, _ in hypothetical_assignments(body)] + self_ratios(body):
        m = re.match(r"\d+(?:\.\d+)?", body[pos:])
        r = take(pos, m.group(0)) if m else None
        if r is not None:
            r.checks = [c for c in r.checks if c[0]]
            r.fix = None
    for pos in worked_hypotheticals(body):  # (heldout11) the aside's symbol unread, its own arithmetic judged
        r = take(pos, re.match(r"\d+(?:\.\d+)?", body[pos:]).group(0))
        if r is not None:
            r.checks = [c for c in r.checks if c[0] or _arith_value(c[1]) is not None]
            r.fix = None if all(c[0] for c in r.checks) else r.fix
    return recs


# ---------------------------------------------------------------- the third held-out round (tests/corpus/heldout3)

_PIPE_SEP = re.compile(r"^[ \t]*\|?[ \t]*:?-{3,}:?[ \t]*(?:\|[ \t]*:?-{3,}:?[ \t]*)*\|?[ \t]*$")  # with a "|"
# a table cell holding one vector: ``[1, 0]``, ``\([1, 0]\)``, ``$[1, 0]$``
_VEC_CELL = re.compile(r"^[ \t]*(?:\\\(|\$)?[ \t]*\[(?P<body>[ \t]*" + _NUM + r"(?:[ \t]*,[ \t]*" + _NUM
                       + r")*[ \t]*)\][ \t]*(?:\\\)|\$)?[ \t]*$")
_VEC_IN_PIPES = re.compile(r"\|[ \t]*(?:\\\(|\$)?[ \t]*\[[ \t]*[-−–]?\d")  # a vector opens a cell: the prefilter
_ROW_NUMBER = re.compile(r"(?i)(?:[qkvx]|" + "|".join(__import__("attnwalk.notation", fromlist=["ROW_WORDS"]).ROW_WORDS)
                         + r")[ _]?(?P<n>\d+)")


def _pipe_cells(line: str, base: int) -> list[tuple[str, int]]:
    """The cells of a pipe row (``a | b | c |``, the outer pipes optional): (text, offset of the text)."""
    out, pos = [], 0
    for part in line.split("|"):
        out.append((part, base + pos))
        pos += len(part) + 1
    if out and not out[0][0].strip():
        out = out[1:]
    if out and not out[-1][0].strip():
        out = out[:-1]
    return out


def _table_row(name: str, row_name: str | None, n: int, rows: int, cfg: dict, trace, head: int) -> int | None:
    """The row of tensor ``name`` a table row names: its first cell is a token's word or label (``私``,
    ``Q1``), holds one (``Key (K) - 카페라떼``) or numbers it (``token 2``, 1-based); with no name, the
    table's ``n``-th row when the table has as many rows as the tensor; a one-row tensor's only row."""
    labels, kv_labels = list(cfg.get("labels") or []), list(cfg.get("kv_labels") or [])
    table = kv_labels if name in ("k", "v") and kv_labels else labels
    mat = human._expected(trace, name if name != "out" else "out", head)
    size = mat.shape[0] if mat is not None and mat.ndim == 2 else 0
    if row_name is not None:
        word = row_name.strip().strip("*`")
        if word in table:
            return table.index(word)
        inside = [i for i, w in enumerate(table) if w and w in word]
        if len(inside) == 1:
            return inside[0]
        m = _ROW_NUMBER.fullmatch(word)
        if m and 1 <= index_int(m.group("n")) <= size:
            return index_int(m.group("n")) - 1
        return 0 if size == 1 and not human._flatten(word).isdigit() else None
    return n if rows == size or size == 1 and n == 0 else None


def _word_row(cell: str, cfg: dict, name: str) -> bool:
    """Whether a table cell is a token's word of the labels (keys' for k, v), not a number or a phrase."""
    labels, kv_labels = list(cfg.get("labels") or []), list(cfg.get("kv_labels") or [])
    table = kv_labels if name in ("k", "v") and kv_labels else labels
    return cell.strip().strip("*`") in table


def vector_tables(text: str, trace, hits: dict, foreign: list) -> None:
    """Form: a Markdown table whose cells are vectors (or its pipe rows as a page's text gives them):
    ``トークン | クエリ (\\( Q \\)) | キー (\\( K \\)) |`` over ``私 | \\([1, 0]\\) | \\([1, 0]\\) |``, ``Query |
    Attention Output |`` over ``Q1 | [1.332, 0.332] |``: each vector is the row of the tensor its column's header
    names, the row its first cell names (``_table_row``); under a header naming none, the tensor the row's first
    cell names (``Key (K) - 카페라떼 | ... | [0, 1] |``). One tensor named and its row known: a wholly wrong vector
    is wrong. Needed by heldout3's ja_projection_tables_latex and ko_* notes (the reader's tables hold numbers)."""
    if "|" not in text or _VEC_IN_PIPES.search(text) is None:
        return
    lines = text.split("\n")
    starts = human._line_starts(text)
    for i in range(1, len(lines)):
        if "|" not in lines[i] or "-" not in lines[i] or not _PIPE_SEP.match(lines[i]):
            continue
        header = [human.tensors_of(h) for h, _ in _pipe_cells(lines[i - 1], starts[i - 1])]
        body = []
        for j in range(i + 1, len(lines)):
            if "|" not in lines[j] or "-" in lines[j] and _PIPE_SEP.match(lines[j]):
                break
            body.append(j)
        for n, j in enumerate(body):
            cells = _pipe_cells(lines[j], starts[j])
            first = cells[0][0] if cells and _VEC_CELL.match(cells[0][0]) is None else None
            # the cells before the first vector name the row: a position number before the token's word
            # (``| 1 | A | [0.23, ..] |``, heldout5's en_vit_patch_attention_tables) names it by the word
            leading = []
            for cell, _ in cells:
                if _VEC_CELL.match(cell) is not None:
                    break
                leading.append(cell)
            for col, (cell, off) in enumerate(cells):
                m = _VEC_CELL.match(cell)
                if m is None:
                    continue
                names = header[col] if col < len(header) else []
                if not names and first is not None:
                    names = human.tensors_of(first)
                nums = human._cells(m.group("body").replace(",", " "), off + m.start("body"))
                if len(names) != 1 or not nums or any(c.start in hits for c in nums):
                    continue
                head = human.head_at(text, starts[j])
                r = _table_row(names[0], first, n, len(body), trace.config, trace, head)
                if r is None and len(leading) > 1:
                    r = next((k for w in leading[1:]
                              if (k := _table_row(names[0], w, n, len(body), trace.config, trace, head)) is not None
                              and _word_row(w, trace.config, names[0])), None)
                if r is None:
                    continue
                res = _sure_judge(nums, names, (1, len(nums)), trace, text, starts[j], foreign, label_row=r)
                for c, h in zip(nums, res or []):
                    hits[c.start] = h


# ``1 & 0 \`` ending a line: a ``\\`` stored as one backslash (blanks may follow it: heldout10's Obsidian export)
_LONE_BREAK = re.compile(r"(?<=[\d}]) \\(?=[ \t]*$)", re.M)
_LONE_END = re.compile(r" \\[ \t]*(?:\n|$)")  # its prefilter (a literal start: one fast scan of the note)


def lone_backslash_matrices(text: str, trace, hits: dict, foreign: list) -> None:
    r"""Form: LaTeX matrices whose row breaks a page's stored text keeps as one backslash (``1 & 0 \`` for
    ``1 & 0 \\``): the reader sees one long row; read as the matrix they are, from the same text with ``\\``
    there (one character for a blank and a backslash: every offset holds), judged as the reader judges a
    matrix (the tensor its label names, among that tensor's candidates of its shape the one it agrees with
    most). Needed by heldout3's ja_projection_tables_latex (W^Q, W^K, W^V and ``E = QK^T``)."""
    from . import forms

    if _LONE_END.search(text) is None or "\\begin{" not in text or _LONE_BREAK.search(text) is None:
        return  # no blank and backslash before a line's end or a blank (plain scans): no such matrix
    before = {b.start: len(b.rows) for b in human.latex_blocks(text)}
    fixed = _LONE_BREAK.sub(lambda m: "\\\\", text)
    turned = {t.start: t for t in forms.transposed(fixed) if t.label is not None}  # ``K^T =``: read transposed
    for b in human.latex_blocks(fixed):
        if before.get(b.start) == len(b.rows) or len({len(r) for r in b.rows}) != 1:
            continue
        b = turned.get(b.start, b)
        cells = [c for r in b.rows for c in r]
        if any(c.start in hits for c in cells):
            continue
        names = human.tensors_of(b.label)
        head = human.head_at(text, b.start)
        shaped = [(cand, exp) for name in names for cand in human._candidates(name, trace)
                  if (exp := human._expected(trace, cand, head)) is not None and exp.ndim == 2
                  and exp.shape == (len(b.rows), len(b.rows[0]))]
        if not shaped:
            continue
        sure = len(names) == 1 and all(np.array_equal(e, shaped[0][1]) for _, e in shaped) \
            and not forms.in_any(b.start, foreign)
        best = human.best_reading(cells, shaped, names, text, sure)
        for c, h in zip(cells, best or []):
            hits[c.start] = h


# a score the softmax takes: a number, or a masked one (``-∞``, ``-\\infty``, ``-inf``: notation.NEG_INFINITY)
_SCORE = r"(?:" + _NUM + r"|[-−](?:∞|\\*infty|inf(?:inity)?))"
_SOFTMAX_CALL = re.compile(r"(?i)softmax\}?[ \t]*\([ \t]*\[(?P<args>[ \t]*" + _SCORE + r"(?:[ \t]*,[ \t]*" + _SCORE
                           + r")+[ \t]*)\][ \t]*\)")


_CALL_OPEN = re.compile(r"\([ \t]*\[")


def softmax_calls(text: str, trace, hits: dict, foreign: list) -> None:
    """Form: ``softmax([0, 0.707]) ≈ [0.332, 0.668]``: the last list of numbers on the line, after ``=`` or ``≈``
    and as long as the arguments, is the softmax of the printed arguments, an arithmetic claim (no trace needed);
    a result is wrong only where no arguments within their own rounding give it. Right depth: the arithmetic
    reader (``expr``) evaluating ``softmax`` of a list; needed by heldout3's ko_blog_2x2_rounded_weights."""
    _scores_then_softmax(text, hits)
    _before_after_softmax(text, hits)
    _softmax_arrows(text, hits)
    # a list opening a call, ``([``, right after a ``softmax`` (the pattern ignores case: slow over a whole note)
    # (or after ``\text{softmax}``: the name in LaTeX's braces)
    if not any(text[max(m.start() - 10, 0):m.start()].rstrip().rstrip("}").lower().endswith("softmax")
               for m in _CALL_OPEN.finditer(text)):
        return
    for m, last in calls_and_results(text):
        args = _score_args(m.group("args"), m.start("args"))
        if not args or last is None:
            continue
        cells = human._cells(last.group("body").replace(",", " "), last.start("body"))
        if not cells or len(cells) != len(args) or any(c.start in hits for c in cells):
            continue
        _judge_softmax(args, cells, f"softmax([{m.group('args').strip()}])", text, hits)


def calls_and_results(text: str) -> list[tuple]:
    """Each ``softmax([..])`` call of ``text`` with its result: the last flat list after it on its line that comes
    right after ``=``, ``≈`` or ``\\approx`` (and spaces) with that sign after the call, or None."""
    starts = human._line_starts(text)
    lines: dict[int, tuple] = {}  # a line's index -> its lists, their starts, its last result's index and sign
    out = []
    for m in _SOFTMAX_CALL.finditer(text):
        k = bisect_right(starts, m.start()) - 1
        end = starts[k + 1] - 1 if k + 1 < len(starts) else len(text)
        if k not in lines:
            lines[k] = _line_results(text, starts[k], end)
        lists, firsts, last_i, sign = lines[k]
        j = bisect_right(firsts, m.end() - 1) - 1
        if j >= 0 and lists[j].end() > m.end():  # a list of the line straddles the call's end: search from it
            out.append((m, _last_result(text, m.end(), end)))
        else:  # the line's last result, where its sign lies after the call (what a search from the call finds)
            out.append((m, lists[last_i] if last_i >= 0 and sign >= m.end() else None))
    return out


def _line_results(text: str, start: int, end: int) -> tuple[list, list, int, int]:
    """The flat lists of the line ``text[start:end]``, where they start, the index of the last one right after
    ``=``, ``≈`` or ``\\approx`` (and spaces), and where that sign starts (-1, -1 where none): one scan per line,
    so that k calls on one line cost k lookups, not k scans of the rest of the line."""
    lists = list(_FLAT_LIST.finditer(text, start, end))
    for i in range(len(lists) - 1, -1, -1):
        sign = _result_sign(text, start, lists[i].start())
        if sign >= 0:
            return lists, [r.start() for r in lists], i, sign
    return lists, [r.start() for r in lists], -1, -1


def _result_sign(text: str, start: int, at: int) -> int:
    """Where the ``=``, ``≈`` or ``\\approx`` right before ``at`` (spaces and tabs between) starts, not before
    ``start``; -1 where there is none."""
    i = at
    while i > start and text[i - 1] in " \t":
        i -= 1
    for sign in ("=", "≈", "\\approx"):
        if i - len(sign) >= start and text.startswith(sign, i - len(sign)):
            return i - len(sign)
    return -1


def _last_result(text: str, after: int, end: int):
    """The last flat list in ``text[after:end]`` whose text before it (from ``after``) ends with ``=``, ``≈`` or
    ``\\approx``: the reference reading, one search per list."""
    results = [r for r in _FLAT_LIST.finditer(text, after, end) if _result_sign(text, after, r.start()) >= 0]
    return results[-1] if results else None


def _judge_softmax(args: list, cells: list, label: str, text: str, hits: dict) -> None:
    """Verdicts for ``cells`` read as the softmax of the printed ``args``: a result is wrong only where no
    arguments within their own rounding give it. An argument is a cell or None, a masked score (-∞): weight 0."""
    x = np.array([-np.inf if a is None else human._value(a.text)[0] for a in args])
    if np.isnan(x).any() or np.isposinf(x).any() or np.isneginf(x).all():
        return  # (a printed 1e999 or nan, or every score masked: no softmax to judge by, NaN where it was taken)
    e = np.exp(x - x.max())
    want = e / e.sum()
    # each argument anywhere within half a unit h_j of its last digit (an integer among decimals, ``[0, 0.707]``,
    # exact): weight i is least with x_i - h_i and the others + h_j, most the other way (dp_i/dx_i > 0, dp_i/dx_j < 0),
    # so those two softmaxes bound it exactly (heldout10: softmax([0.707, 0]) ≈ [0.669, 0.331] is wrong, σ(0.707 ±
    # 0.0005) rounds to 0.670; a slack of h/2 for every weight let it pass)
    units = np.array([0.5 * 10.0 ** -dec if a is not None and (dec := human._value(a.text)[1] or 0) > 0 else 0.0
                      for a in args])

    def weights(z):
        ez = np.exp(z - z.max())
        return ez / ez.sum()

    for c, h in zip(cells, human._judge(cells, want, label, text, gated=False)):
        value, dec = human._value(c.text)
        k = cells.index(c)
        half = 0.5 * 10.0 ** -max(dec or 0, 0)
        if not h.ok and units.any():
            up = -units.copy()
            up[k] = units[k]
            low, high = float(weights(x - up)[k]), float(weights(x + up)[k])
            if low - half - 1e-12 <= value <= high + half + 1e-12:
                h.ok, h.fix = True, None
        hits[c.start] = h


_NEG_INF = frozenset(NEG_INFINITY)
_ARROW = "(?:" + "|".join(map(re.escape, ARROWS)) + ")"
# ``"mèo"    [ 0.3    0.7    2.5 ]  → softmax → [0.08, 0.12, 0.80]``: a row of scores, an arrow, softmax, an arrow
# and its weights (heldout7's vi_lesson_html_causal_mask)
_SOFTMAX_ARROW = re.compile(r"^[^\[\n]*\[(?P<args>[^\[\]\n]*)\][ \t]*" + _ARROW + r"[ \t]*softmax[ \t]*" + _ARROW
                            + r"[ \t]*\[(?P<body>[^\[\]\n]*)\]", re.M | re.I)


def _score_args(body: str, base: int) -> list | None:
    """The scores a softmax takes, as printed in a list's ``body`` (commas or spaces between them): a cell
    each, None for a masked one (``-∞``, ``-\\infty``: ``notation.NEG_INFINITY``); None when anything else
    stands among them."""
    out = []
    for t in re.finditer(r"[^\s,]+", body):
        word = t.group().replace("\\", "")
        if word in _NEG_INF:
            out.append(None)
        elif re.fullmatch(_NUM, word):
            out.append(human.Cell(t.group(), base + t.start()))
        else:
            return None
    return out if len(out) >= 2 and any(a is not None for a in out) else None


def _softmax_arrows(text: str, hits: dict) -> None:
    """Form: ``[ 0.5    1.8    -∞  ]  → softmax → [0.21, 0.79, 0.00]``: the list after the second arrow is the
    softmax of the list before the first, an arithmetic claim as ``softmax([..]) = [..]`` is; a masked score
    (``-∞``) weighs 0."""
    for m in human.line_matches(_SOFTMAX_ARROW, text, "oftmax"):
        args = _score_args(m.group("args"), m.start("args"))
        cells = human._cells(m.group("body").replace(",", " "), m.start("body"))
        if not args or not cells or len(cells) != len(args) or any(c.start in hits for c in cells):
            continue
        _judge_softmax(args, cells, f"softmax([{m.group('args').strip()}])", text, hits)


# ``Raw scores: [0.011, 0.143, ...]`` then, on the next line, ``After softmax: [0.08, 0.09, ...]`` (or ``scores = [..]``
# then ``softmax(scores) ≈ [..]``: a rounded result after ≈, heldout16's chapter)
_SCORES_LINE = re.compile(r"^(?P<label>[^\n\[\]]{1,60}?)[ \t]*(?:[:=≈]|\\approx)[ \t]*\[(?P<body>[ \t]*" + _NUM
                          + r"(?:[ \t]*,[ \t]*" + _NUM + r")+[ \t]*)\][ \t.]*$", re.M)


def _scores_then_softmax(text: str, hits: dict) -> None:
    """Form: a list the line names scores, then on the next line a list as long that it calls the softmax
    (``Raw scores: [..]`` / ``After softmax: [..]``, heldout5's en_vit_patch_attention_tables): the second is
    the softmax of the printed first, an arithmetic claim as ``softmax([..]) = [..]`` is."""
    if "oftmax" not in text:
        return
    starts = human._line_starts(text)
    for m in human.line_matches(_SCORES_LINE, text, "oftmax"):
        if "softmax" not in m.group("label").lower():
            continue
        k = bisect_right(starts, m.start()) - 1
        if k == 0:
            continue
        above = _SCORES_LINE.match(text, starts[k - 1])
        if above is None or not (names := human.tensors_of(above.group("label"))) or \
                not names[0].startswith("scores"):
            continue
        args = human._cells(above.group("body").replace(",", " "), above.start("body"))
        cells = human._cells(m.group("body").replace(",", " "), m.start("body"))
        if not args or not cells or len(cells) != len(args) or any(c.start in hits for c in cells):
            continue
        _judge_softmax(args, cells, f"softmax([{above.group('body').strip()}])", text, hits)


def _labelled_list(words: tuple) -> re.Pattern:
    """A line that is one of ``words``, ``:`` and one list of numbers, a ``--`` / ``#`` / ``//`` comment after it."""
    return re.compile(r"(?im)^[ \t]*(?P<label>" + "|".join(map(re.escape, words)) + r")[ \t]*:[ \t]*\[(?P<body>[ \t]*"
                      + _NUM + r"(?:[ \t]*,[ \t]*" + _NUM + r")+[ \t]*)\][ \t]*(?:(?:--|#|//)[^\n]*)?$")


_AFTER_LIST = _labelled_list(AFTER_WORDS)
_BEFORE_LIST = _labelled_list(BEFORE_WORDS)
_COLON_LIST = re.compile(r":[ \t]*\[")  # a list after a colon: the prefilter (a literal first character: fast)
_AFTER_SET = frozenset(AFTER_WORDS)


def _before_after_softmax(text: str, hits: dict) -> None:
    """Form: ``antes:  [0.8, 0.3, 0.1]  -- puntuaciones crudas`` then ``después: [0.57, 0.29, 0.14]`` (the words of
    ``notation.BEFORE_WORDS`` / ``AFTER_WORDS``), a softmax named on those lines or within ``ROW_REACH`` lines
    above, the second list summing to 1 at its precision (weights, not the scores scaled or masked): the second
    is the softmax of the printed first, an arithmetic claim as ``softmax([..]) = [..]`` is (heldout6's
    es_course_doc_scores_then_softmax)."""
    starts = None
    for colon in _COLON_LIST.finditer(text):
        ls = text.rfind("\n", 0, colon.start()) + 1
        if text[ls:colon.start()].strip().lower() not in _AFTER_SET or (m := _AFTER_LIST.match(text, ls)) is None:
            continue
        starts = starts or human._line_starts(text)
        k = bisect_right(starts, m.start()) - 1
        above = _BEFORE_LIST.match(text, starts[k - 1]) if k > 0 else None
        if above is None or "softmax" not in text[starts[max(k - ROW_REACH, 0)]:m.end()].lower():
            continue
        args = human._cells(above.group("body").replace(",", " "), above.start("body"))
        cells = human._cells(m.group("body").replace(",", " "), m.start("body"))
        if not args or not cells or len(cells) != len(args) or any(c.start in hits for c in cells):
            continue
        vals = [human._value(c.text) for c in cells]
        if any(not 0 <= v <= 1 for v, _ in vals) or \
                not human.sums_to_one(vals):
            continue
        _judge_softmax(args, cells, f"softmax([{above.group('body').strip()}])", text, hits)


_LONE_RESULT = re.compile(r"^(?P<label>[^\n\[\]=:]{1,60}?)[ \t]*(?:=|:)[ \t]*\[(?P<body>[ \t]*" + _NUM
                          + r"(?:[ \t]*,[ \t]*" + _NUM + r")+[ \t]*)\][ \t.]*$", re.M)


def lone_row_results(text: str, trace, hits: dict, foreign: list) -> None:
    """Form: ``최종 출력 벡터 = [0.402, 0.4635]``: a line that is a label, ``=`` or ``:`` and one list, the label
    naming one tensor of one row that long (one query's output or weights): that row, a wholly wrong one
    wrong (outside another example's section). Right depth: ``human.find``'s one-row lists, which judge such
    a list only when most of it agrees (two numbers, one wrong: unread); needed by heldout3's
    ko_blog_cafe_menu_three_keys."""
    from . import forms

    attn = human._expected(trace, "attn", 0)
    if attn is None or attn.ndim != 2 or attn.shape[0] != 1:
        return  # a note of one query only (the trace's shape: notes of several rows pay nothing)
    for m in _LONE_RESULT.finditer(text):
        names = human.tensors_of(m.group("label"))
        cells = human._cells(m.group("body").replace(",", " "), m.start("body"))
        if len(names) != 1 or not cells or any(c.start in hits for c in cells) or forms.in_any(m.start(), foreign):
            continue
        head = human.head_at(text, m.start())
        shaped = [(cand, exp) for cand in human._candidates(names[0], trace)
                  if (exp := human._expected(trace, cand, head)) is not None and exp.ndim == 2
                  and exp.shape == (1, len(cells))]
        if not shaped or any(not np.array_equal(e, shaped[0][1]) for _, e in shaped):
            continue
        cand, exp = shaped[0]
        for c, h in zip(cells, human._judge(cells, exp, f"{cand}[0]", text, gated=False)):
            hits[c.start] = h


_HEAD_TOKEN = re.compile(r"^[ \t]*(?P<t>[QKV])_?\{?(?P<h>\d+)\}?[ \t]*\([ \t]*token[ \t]*(?P<r>\d+)[ \t]*\)"
                         r"[ \t]*=[^\n]*=[ \t]*\[(?P<body>[ \t]*" + _NUM + r"(?:[ \t]*,[ \t]*" + _NUM
                         + r")+[ \t]*)\][ \t]*$", re.M)


def head_token_rows(text: str, trace, hits: dict, foreign: list) -> None:
    """Form: ``Q4(token 2) = [0, 1, 0, 1] @ W_Q4 = [2, 0]``: head 4's query of token 2 (1-based; heads from 0
    where the note names a head 0), the list after the last ``=``. Each of Q, K, V is numbered by its own heads:
    the trace's heads when the note numbers as many, else grouped-query KV heads, each shared by a run of the
    trace's heads (``repeat_kv``: K2 of 2 KV heads over 4 heads is heads 3-4), read only where the trace's heads
    of that run are one. Needed by heldout3's en_gqa_worked_example."""
    from . import forms

    if "(token" not in text:
        return
    found = list(_HEAD_TOKEN.finditer(text))
    kinds = {t: {index_int(m.group("h")) for m in found if m.group("t") == t} for t in "QKV"}
    for m in found:
        t, h, r = m.group("t"), index_int(m.group("h")), index_int(m.group("r")) - 1
        name = t.lower()
        heads = human._expected(trace, name, 0)
        step = trace.steps.get(name) if hasattr(trace.steps, "get") else None
        if step is None or step.axes[1:2] != ("head",) or heads is None:
            continue
        total = step.data.shape[1]
        n, base = len(kinds[t]), 0 if 0 in kinds[t] else 1  # heads numbered 1.. (0.. where a head 0 is named)
        if n == 0 or total % n or kinds[t] != set(range(base, base + n)):
            continue
        group = total // n  # 1 for a multi-head note; query heads per KV head for a grouped-query one
        runs = [human._expected(trace, name, (h - base) * group + g) for g in range(group)]
        if any(x is None or not np.array_equal(x, runs[0]) for x in runs):
            continue
        exp = runs[0]
        cells = human._cells(m.group("body").replace(",", " "), m.start("body"))
        if (not cells or exp.ndim != 2 or not 0 <= r < exp.shape[0] or exp.shape[1] != len(cells)
                or any(c.start in hits for c in cells)):
            continue
        res = human._judge(cells, exp[r], f"{name}[head {h}][{r}]", text, gated=forms.in_any(m.start(), foreign))
        for c, hit in zip(cells, res or []):
            hits[c.start] = hit


_RULE = re.compile(r"^[ \t]*[-=]{3,}[-=+|: \t]*$")  # ``------+-------+---`` or a plain run of dashes under a header


def key_column_tables(text: str, trace, hits: dict, foreign: list) -> None:
    """Form: a text table printed by code, ``(query→) \\ (doc↓) | the | cat | sat`` over a rule
    (``-----+-----+``) and rows ``cat | 0.161 | 0.240 | 0.146``: a header whose cells after the first are the
    key words in order (the scenario's ``kv_labels``), rows named by a query's word or numbered 1..N (``1  |
    0.170 | ...``, N the tensor's rows), the tensor named by the line above the header (``Attention weights
    (rows = summary queries, cols = document tokens):``): each row that query's row. Needed by heldout3's
    en_numpy_cross_attention_* notes."""
    cfg = trace.config
    keys, queries = list(cfg.get("kv_labels") or []), list(cfg.get("labels") or [])
    if len(keys) < 2 or "|" not in text or keys[1] not in text:
        return
    lines = text.split("\n")
    starts = human._line_starts(text)
    for i in range(1, len(lines) - 2):
        head = _pipe_cells(lines[i], starts[i])
        if len(head) != len(keys) + 1 or [h.strip() for h, _ in head[1:]] != keys or not _RULE.match(lines[i + 1]):
            continue
        names = human.tensors_of(lines[i - 1])[:1]  # its subject: ``Attention weights (rows = ... queries ...)``
        if not names:
            continue
        several = len(human.tensors_of(lines[i - 1])) > 1  # other tensors named beside it: judged by majority
        body = []
        for j in range(i + 2, len(lines)):
            cells = _pipe_cells(lines[j], starts[j])
            if len(cells) != len(keys) + 1:
                break
            body.append((j, cells))
        mat = human._expected(trace, names[0], human.head_at(text, starts[i]))
        if mat is None or mat.ndim != 2 or mat.shape[1] != len(keys):
            continue
        for j, cells in body:
            name = cells[0][0].strip()
            r = queries.index(name) if name in queries else \
                index_int(name) - 1 if name.isdigit() and len(body) == mat.shape[0] else None
            nums = [c for text_, off in cells[1:] for c in (human._cells(text_, off) or [])]
            if r is None or not 0 <= r < mat.shape[0] or len(nums) != len(keys) or any(c.start in hits for c in nums):
                continue
            res = human._judge(nums, mat[r], f"{names[0]}[{r}]", text) if several else \
                _sure_judge(nums, names, (1, len(nums)), trace, text, starts[j], foreign, label_row=r)
            for c, h in zip(nums, res or []):
                hits[c.start] = h

# ---------------------------------------------------------------- the fifth held-out round (tests/corpus/heldout5)

_PIPE_LINE = re.compile(r"^[ \t]*\|[^\n]*\|[ \t]*$", re.M)
# a cell of arithmetic on printed numbers only: ``0.11×0.23 + 0.23×0.27 + 0.17×0.33 + 0.01×0.13``
_CALC_CELL = re.compile(r"^[ \t]*[-−–(]*" + _NUM + r"(?:[ \t]*[)]*[ \t]*(?:[-−–+*/×·]|\\cdot)[ \t]*[-−–(]*[ \t]*" + _NUM
                        + r")+[ \t)]*$")
_CALC_NUM = re.compile(_NUM)
_STAR_PRODUCT = re.compile(r"\d[ \t]*\*[ \t]*[-−–(]?\d")


def _exact(expr: str) -> Fraction | None:
    """The exact value of a cell's arithmetic (``_CALC_CELL``): its numbers as the decimals they print."""
    flat = expr.replace("×", "*").replace("·", "*").replace("\\cdot", "*").replace("−", "-").replace("–", "-")
    code = _CALC_NUM.sub(lambda m: f"F('{m.group()}')", flat)
    try:
        return eval(code, {"__builtins__": {}, "F": Fraction})  # only numbers, + - * / and parentheses reach here
    except (ZeroDivisionError, SyntaxError, ValueError, TypeError):
        return None


def computed_cells(text: str, trace, hits: dict, foreign: list) -> None:
    """Form: a table whose cell writes out a computation on printed numbers and whose next cell is its result
    (``| 0.11×0.23 + 0.23×0.27 + 0.17×0.33 + 0.01×0.13 | 0.143 |``, heldout5's en_vit_patch_attention_tables):
    the result against the computation's exact value, whatever tensor it is. A product of two numbers alone
    (``4 × 4``, a shape) is no such computation: three numbers at least."""
    if "|" not in text:
        return
    # the lines holding a product: "×", "·", or a "*" between numbers (a "*" of Markdown emphasis is none)
    marks = [mk for mk in ("×", "·") if mk in text] + (["*"] if _STAR_PRODUCT.search(text) else [])
    if not marks:
        return
    for m in human.line_matches(_PIPE_LINE, text, *marks):
        cells = _pipe_cells(m.group(0), m.start())
        for (a, _), (b, off) in zip(cells, cells[1:]):
            if not any(op in a for op in ("×", "·", "*")) or len(_CALC_NUM.findall(a)) < 3 \
                    or _CALC_CELL.match(a) is None:
                continue
            res = human._cells(b.strip("* "), off + len(b) - len(b.lstrip("* ")))
            if not res or len(res) != 1 or res[0].start in hits or (exact := _exact(a)) is None:
                continue
            cell = res[0]
            v, dec = human._value(cell.text)
            ok = abs(Fraction(v) - exact) <= Fraction(1, 2) * Fraction(10) ** -dec + Fraction(1, 10 ** 12)
            e = float(exact)
            hits[cell.start] = human.Hit(human.line_of(text, cell.start), cell.text, ok, a.strip()[:40],
                                         fmt(e, max(dec, 1) + 2), None if ok else human._fix_text(cell.text, e))


# ---------------------------------------------------------------- a product by a matrix the note names, tabled

_MATRIX_AT = re.compile(r"(?<![\w.])(?P<name>[A-Za-z]\w{0,10})[ \t]*=[ \t]*\[(?=[ \t\n]*\[)")
_ROW_OF = re.compile(r"\[(?P<body>[^\[\]]*)\]")
_TIMES_NAME = re.compile(r"\][ \t]*(?:×|@|·|\\times)[ \t]*(?P<name>[A-Za-z]\w{0,10})(?!\w)[ \t]*=")


def _named_matrices(text: str) -> dict[str, list[list[Fraction]]]:
    """``E = [[0.2, 0.1], [0.0, 0.3]]`` (rows over lines too): each name with its rows as printed (exact)."""
    out = {}
    for m in _MATRIX_AT.finditer(text):
        end = text.find("]]", m.end())
        if end < 0 or end - m.end() > 2000:
            continue
        rows = []
        for r in _ROW_OF.finditer(text, m.end(), end + 1):
            nums = _CALC_NUM.findall(r.group("body").replace("−", "-"))
            if not nums or re.search(r"[^\d\s.,eE+\-−–]", r.group("body")):
                rows = []
                break
            rows.append([Fraction(n.replace("−", "-")) for n in nums])
        if len(rows) >= 2 and len({len(r) for r in rows}) == 1:
            out[m.group("name")] = rows
    return out


def product_tables(text: str, trace, hits: dict, foreign: list) -> None:
    """Form: a product by a matrix the note prints under a name, worked out once (``[0.1, 0.2, 0.6, 0.5] × E =
    ...``), and a table whose rows pair such a vector with its product (``| A | [0.1, 0.2, 0.6, 0.5] | [0.23,
    0.17, 0.33, 0.13] |``, heldout5's ViT guide): the row holding the worked vector names the columns (the
    vector's, then the first vector after it as long as the matrix is wide), and every row's product is
    judged exactly against its own vector times the matrix."""
    if "]]" not in text or "|" not in text or not any(op in text for op in ("×", "@", "\\times", "·")):
        return
    worked = [(m.group("name"), m.start()) for m in _TIMES_NAME.finditer(text)]
    if not worked:
        return
    matrices = _named_matrices(text)
    vectors = {}  # the printed texts of a worked vector -> its matrix's name
    for name, at in worked:
        if name not in matrices:
            continue
        opened = text.rfind("[", 0, at)
        if opened < 0 or "\n" in text[opened:at]:
            continue
        nums = tuple(_CALC_NUM.findall(text[opened + 1:at]))
        if len(nums) == len(matrices[name]):
            vectors[nums] = name
    if not vectors:
        return
    lines = text.split("\n")
    starts = human._line_starts(text)
    k = 0
    while k < len(lines):
        if "|" not in lines[k]:
            k += 1
            continue
        block = []  # this table's lines: (line index, its vector cells: (their numbers, offset of each))
        while k < len(lines) and "|" in lines[k]:
            vecs = []
            for cell, off in _pipe_cells(lines[k], starts[k]):
                m = _VEC_CELL.match(cell)
                if m is not None:
                    vecs.append([(n.group(), off + m.start("body") + n.start())
                                 for n in _CALC_NUM.finditer(m.group("body"))])
            block.append((k, vecs))
            k += 1
        pair = None
        for _, vecs in block:
            for i, v in enumerate(vecs):
                name = vectors.get(tuple(t for t, _ in v))
                width = len(matrices[name][0]) if name else 0
                j = next((j for j in range(i + 1, len(vecs)) if len(vecs[j]) == width), None)
                if name and j is not None:
                    pair = (i, j, matrices[name])
                    break
            if pair:
                break
        if pair is None:
            continue
        i, j, mat = pair
        for _, vecs in block:
            if len(vecs) <= j or len(vecs[i]) != len(mat) or len(vecs[j]) != len(mat[0]):
                continue
            u = [Fraction(t.replace("−", "-")) for t, _ in vecs[i]]
            for col, (t, at) in enumerate(vecs[j]):
                if at in hits:
                    continue
                exact = sum(a * row[col] for a, row in zip(u, mat))
                v, dec = human._value(t)
                ok = abs(Fraction(v) - exact) <= Fraction(1, 2) * Fraction(10) ** -dec + Fraction(1, 10 ** 12)
                e = float(exact)
                hits[at] = human.Hit(human.line_of(text, at), t, ok, "vector × matrix", fmt(e, max(dec, 1) + 2),
                                     None if ok else human._fix_text(t, e))


FORMS = [keyed_lists, rows_after_scores, exponential_sums, cell_rows, weights_times_values, commented_rows,
         value_coefficients, repl_echoes, printed_comments, named_output_rows,
         vector_tables, lone_backslash_matrices, softmax_calls, lone_row_results,
         head_token_rows, key_column_tables, computed_cells, product_tables]  # run last of forms.AFTER_FORMS


# ---------------------------------------------------------------- a note's own arithmetic on its rounded weights

# (or no sign at all, the list right after the weight: ``0.51[1,2,3,4] + 0.19[5,6,7,8]``, heldout10's Korean course)
_TERM = re.compile(r"(?<![\w.^_])(?P<c>" + _NUM + r")(?:[ \t]*(?:\*|×|·|\\cdot|\\times)[ \t]*|(?=\[))"
                   r"\[(?P<v>[^\[\]\n]*)\]")
_SUM_OF_LISTS = re.compile(r"^[^\[\n]*?(?P<terms>\[[^\[\]\n]*\](?:[ \t]*\+[ \t]*\[[^\[\]\n]*\])+)[ \t]*(?:=|≈|\\approx)"
                           r"[ \t]*\[(?P<r>[^\[\]\n]*)\][ \t.]*$")
_RESULT_AT_END = re.compile(r"(?:=|≈|\\approx)[ \t]*\[(?P<r>[^\[\]\n]*)\][ \t.$]*$")  # ``$$``, ``$.`` may close it
# the lines below a weighted sum that go on with it: ``= [0.34,0.0] + [0.145,0.145] + ...`` (the products, no result
# yet), then ``= [0.764, 0.346]`` (the result), each opening with its ``=`` (heldout7's handbook)
_GOES_ON_SUM = re.compile(r"^[ \t]*(?:=|≈|\\approx)[ \t]*"
                          r"(?P<terms>\[[^\[\]\n]*\](?:[ \t]*\+[ \t]*\[[^\[\]\n]*\])+)[ \t.]*$")
# ``= [0.506+0.930+2.763, 1.012+1.116+3.070, ...]``: the weighted values added entry by entry, the last entries
# elided (heldout7's Vietnamese lesson), each entry its terms joined by "+"
_GOES_ON_TERMS = re.compile(r"^[ \t]*(?:=|≈|\\approx)[ \t]*\[(?P<body>[ \t]*" + _NUM + r"(?:[ \t]*\+[ \t]*" + _NUM
                            + r")+(?:[ \t]*,[ \t]*" + _NUM + r"(?:[ \t]*\+[ \t]*" + _NUM
                            + r")+)*)(?:[ \t]*,[ \t]*(?:\.\.\.|…))?[ \t]*\][ \t.]*$")
_ENTRY_TERMS = re.compile(_NUM + r"(?:[ \t]*\+[ \t]*" + _NUM + r")+")
_GOES_ON_RESULT = re.compile(r"^[ \t]*(?:=|≈|\\approx)[ \t]*\[(?P<r>[^\[\]\n]*)\][ \t.]*$")
# a derivation written as list items, each step opening with its relation: ``- = 0.233×[..] + 0.401×[..]`` then
# ``- = [0.399, 0.386, 0.861]`` (heldout17's skill file): the item below goes on with the sum as a bare line does
_ITEM_STEP = re.compile(r"^[ \t]*[-*+][ \t]+(?:=|≈|\\approx)")
_GOES_ON_ITEM = re.compile(r"^[ \t]*[-*+][ \t]+(?:=|≈|\\approx)[ \t]*\[(?P<r>[^\[\]\n]*)\][ \t.]*$")
_TERM_MARKS = ("*[", "* [", "×[", "× [", "·[", "· [", "\\cdot [", "\\cdot[", "\\times [", "\\times[")
# a "[" just after a product's operator's last character (one scan led by "[", where ten substring scans cost ~0.4 ms
# over a long note); ``_term_marked`` checks the whole operator
_MARK_AT = re.compile(r"\[(?:(?<=[*×·ts]\[)|(?<=[*×·ts] \[))")


def _term_marked(body: str) -> bool:
    """Whether ``body`` may hold a ``c*[v]`` term: one of ``_TERM_MARKS`` before a list, or a digit right before one
    (``0.51[1,2,3,4]``, found from the note's one scan of "[")."""
    return any(body[max(0, m.start() - 8):m.start() + 1].endswith(_TERM_MARKS) for m in _MARK_AT.finditer(body)) or \
        any(i and "0" <= body[i - 1] <= "9" for i in human._offsets(body, "["))


def _printed_row(cells: list, mat: np.ndarray) -> int | None:
    """The one row of ``mat`` that ``cells`` print: a decimal within half a unit of its last digit, an integer
    exactly (``[0, 1]`` is not ``[0, 0.5]``); else None."""
    if mat.ndim != 2 or mat.shape[1] != len(cells):
        return None
    vals = [human._value(c.text) for c in cells]
    rows = [r for r in range(mat.shape[0]) if all(
        abs(x - float(e)) <= (0.5 * 10.0 ** -dec if dec else 1e-9) for (x, dec), e in zip(vals, mat[r]))]
    return rows[0] if len(rows) == 1 else None


def _weighted_terms(line: str, base: int, v: np.ndarray) -> list | None:
    """(coefficient cell, value row index, the row's printed cells) of each ``c*[value row]`` term of ``line``; None
    unless each list is one row of ``v`` as printed."""
    terms = []
    for t in _TERM.finditer(line):
        cells = human._cells(t.group("v").replace(",", " "), base + t.start("v"))
        row = _printed_row(cells, v) if cells else None
        if row is None:
            return None
        terms.append((human.Cell(t.group("c"), base + t.start("c")), row, cells))
    return terms or None


def _weighted_sums(lines: list, starts: list, v: np.ndarray):
    """Each weighted sum of value rows: (terms, line of the sum, [(line, result match) of each term's own
    product]): a line of 2+ terms (``0.668*[1,0] + 0.332*[2,1] ≈ [..]``), or a run of lines of one term each
    (``1: 0.0 * [1, 2, 3] = [0.0, 0.0, 0.0]``, one line a value), each product at its line's end."""
    run: list = []
    for k, line in enumerate(lines + [""]):
        terms = _weighted_terms(line, starts[k], v) if k < len(lines) and (any(m in line for m in _TERM_MARKS) or
                                                                             _DIGIT_LIST.search(line)) else None
        if terms is not None and len(terms) == 1 and _RESULT_AT_END.search(line):
            run.append((k, terms[0]))
            continue
        if len(run) >= 2:
            yield [t for _, t in run], None, [(j, _RESULT_AT_END.search(lines[j])) for j, _ in run]
        run = []
        if terms is not None and len(terms) >= 2:
            yield terms, k, []


def _nearest_row(attn: np.ndarray, keys: list, coef: np.ndarray, texts: list) -> int | None:
    """The query whose weights at ``keys`` are nearest the printed coefficients (``texts``, read as ``coef``), each
    within their rounding (0.01, or one unit of their last digit: rounded weights, not assumed ones); None where
    none is that near, or two rows are equally near and differ (two equal rows are one reading)."""
    reach = max([0.01] + [10.0 ** -dec for t in texts if (dec := human._value(t)[1] or 0) > 0])
    far = np.abs(attn[:, keys] - coef).max(axis=1)
    r = int(np.argmin(far))
    if far[r] > reach or np.sum(far == far[r]) > 1 and not all(np.array_equal(attn[i], attn[r])
                                                               for i in np.flatnonzero(far == far[r])):
        return None
    return r


def _restated_row(recs: list, texts: list, keys: list, line: int, attn: np.ndarray) -> int | None:
    """The query of coefficients that restate, digit for digit, a row of weights printed and judged on one line
    within ``ROW_REACH`` lines above (``α ≈ [[0.47, 0.33, 0.20], ...`` then ``z₁ = 0.47·[1,0] + 0.33·[0.5,0.5] +
    0.20·[0,1]``): the row of ``attn`` that row's checks expect (each cell's expected value, as printed by the
    reader that judged it, is that row's weight); None when no line or more than one row fits."""
    by_line: dict = {}
    for rec in recs:
        # twice the reach: the row may be restated further down, past prose and a sum written over lines (the
        # texts must still match digit for digit)
        if line - 2 * ROW_REACH <= rec.line < line and rec.checks and all(str(c[1]).startswith("attn")
                                                                          for c in rec.checks):
            by_line.setdefault(rec.line, []).append(rec)
    for ln in sorted(by_line, reverse=True):
        row = by_line[ln]
        if len(row) != attn.shape[1] or [row[i].text for i in keys] != texts:
            continue
        shown = [str(rec.checks[0][2]) for rec in row]
        fits = [q for q in range(attn.shape[0])
                if all(human.fmt(float(attn[q, i]), len(e.split(".")[1]) if "." in e else 0) == e
                       for i, e in enumerate(shown))]
        return fits[0] if len(fits) == 1 else None
    return None


def _sum_going_on(lines: list, starts: list, k: int, terms: list, v: np.ndarray, attn: np.ndarray, out: np.ndarray,
                  r: int, label: str) -> list:
    """(cell, expected value, label, operands) of the lines that go on with the weighted sum of line ``k`` when it has
    no result of its own: ``= [0.34,0.0] + [0.145,0.145] + ...`` (each weight times its value row), then ``= [0.764,
    0.346]`` (the output row); nothing when line ``k`` ends in its result or the next line is a whole sum of lists
    (the caller reads those). ``operands``: the cells whose exact arithmetic the number restates (``_judge_either``)."""
    keys = [i for _, i, _ in terms]
    if _RESULT_AT_END.search(lines[k]) or k + 1 < len(lines) and _SUM_OF_LISTS.match(lines[k + 1]):
        return []
    judged, j = [], k + 1
    products = None  # the printed products' cells, [term][entry], where a line prints them
    m = _GOES_ON_SUM.match(lines[j]) if j < len(lines) else None
    if m is not None:
        base = starts[j] + m.start("terms")
        lists = [human._cells(b.group("body").replace(",", " "), base + b.start("body"))
                 for b in _ROW.finditer(m.group("terms"))]
        if len(lists) != len(keys) or not all(x and len(x) == v.shape[1] for x in lists):
            return []
        judged += [(c, attn[r][t[1]] * e, f"attn[{r}, {t[1]}] · v[{t[1]}]", _product(t, d))
                   for x, t in zip(lists, terms) for d, (c, e) in enumerate(zip(x, v[t[1]]))]
        products = lists
        j += 1
    elif j < len(lines) and (m := _GOES_ON_TERMS.match(lines[j])) is not None:
        # ``= [0.506+0.930+2.763, 1.012+1.116+3.070, ...]``: each entry the sum of the weighted values' entries
        parts = [(p.group(), starts[j] + m.start("body") + p.start()) for p in _ENTRY_TERMS.finditer(m.group("body"))]
        if not parts or len(parts) > v.shape[1]:
            return []
        entries = []
        for d, (part, at) in enumerate(parts):
            cells = human._cells(part.replace("+", " "), at)
            if not cells or len(cells) != len(keys):
                return []
            judged += [(c, attn[r][t[1]] * v[t[1]][d], f"attn[{r}, {t[1]}] · v[{t[1]}]", _product(t, d))
                       for c, t in zip(cells, terms)]
            entries.append(cells)
        if len(entries) == v.shape[1]:  # (entries elided: the result's operands are the terms of line k)
            products = [list(x) for x in zip(*entries)]
        j += 1
    m = _GOES_ON_RESULT.match(lines[j]) if j < len(lines) else None
    if m is None and j < len(lines) and _ITEM_STEP.match(lines[k]):
        m = _GOES_ON_ITEM.match(lines[j])
    # the result after the products (a lone ``= [..]`` may be anything else), or indented under the sum it goes on
    # with (``output = 0.51[1,2,3,4] + ...`` then ``       ≈ [4.2, 5.3, 6.4, 7.6]``, heldout10's Korean course)
    if m is not None and (j > k + 1 or lines[j][:1] in (" ", "\t")):
        res = human._cells(m.group("r").replace(",", " "), starts[j] + m.start("r"))
        if res and len(res) == out.shape[1]:
            # the sum of the products printed just above, or of the terms of line k where no line prints them
            judged += [(c, e, label, ("+", [x[d] for x in products]) if products is not None else
                        ("+", [_product(t, d) for t in terms])) for d, (c, e) in enumerate(zip(res, out[r]))]
    return judged


# an addend of a sum written one list a line (``  [0.0, 0.0, 0.0]``, then ``+ [1.0, 4.0, 0.0]``, ...)
_ADDEND = re.compile(r"^[ \t]*(?P<plus>\+)?[ \t]*\[(?P<r>[^\[\]\n]*)\][ \t]*$")


def _products_restated(lines: list, starts: list, last: int, shown: list) -> list:
    """The cells of each addend of a sum written one list a line below a run of products (line ``last`` the run's
    end), each addend printing one product digit for digit, in their order, every addend after the first led by
    ``+`` (heldout2's zh step 7 sums its step-6 products ``[0.0, 0.0, 0.0] + [1.0, 4.0, 0.0] + ...``): the same
    weighted values again; [] where the first list below the run is not such a sum."""
    for j in range(last + 1, min(last + 1 + ROW_REACH, len(lines) - len(shown) + 1)):
        if _ADDEND.match(lines[j]) is None:
            continue
        found = []
        for k, texts in enumerate(shown):
            m = _ADDEND.match(lines[j + k])
            cells = human._cells(m.group("r").replace(",", " "), starts[j + k] + m.start("r")) if m else None
            if not cells or [c.text for c in cells] != texts or (k > 0 and not m.group("plus")):
                return []
            found.append(cells)
        return found
    return []


# a value row written as a LaTeX vector after its coefficient: ``0.504 \cdot \begin{bmatrix}1\\1\end{bmatrix}``
_VECTOR_BEGIN = re.compile(r"\\begin\{[bp]matrix\}")
_TIMES_BEFORE = re.compile(r"(?:\\cdot|\\times|·|×|\*)[ \t]*$")


def _vector_term(body: str) -> bool:
    """Whether a LaTeX vector follows a product's operator somewhere (each ``\\begin`` found by its literal, the
    operator looked for just before it: a scan of the note for the operators would try every character)."""
    return any(_TIMES_BEFORE.search(body, max(0, m.start() - 12), m.start()) for m in _VECTOR_BEGIN.finditer(body))
_VECTOR = re.compile(r"\\begin\{(?P<k>[bp])matrix\}(?P<body>[^{}\\]*(?:\\\\[^{}\\]*)*)\\end\{(?P=k)matrix\}")


def _vectors_as_lists(line: str) -> str:
    """``line`` with each one-row or one-column LaTeX vector written as the list it prints, every character at its
    offset (``\\begin{bmatrix}0\\\\1\\end{bmatrix}`` -> ``[`` and blanks, ``0, 1``, blanks and ``]``): a column of
    values reads as the row of V it is."""
    def listed(m: re.Match) -> str:
        body = m.group("body")
        if "&" in body and "\\\\" in body:
            return m.group(0)  # a matrix, not a vector
        opening, closing = len(m.group(0)) - len(body) - len("\\end{bmatrix}"), len("\\end{bmatrix}")
        return "[" + " " * (opening - 1) + body.replace("\\\\", ", ").replace("&", ",") + " " * (closing - 1) + "]"
    return _VECTOR.sub(listed, line)


# ``0.2483\,(1, 0) + 0.5053·(0, 1)``: a weight times a value row written as a tuple (heldout14's exam and Anki cards)
_TUPLE = r"\((?P<b>[ \t]*" + _NUM + r"(?:[ \t]*,[ \t]*" + _NUM + r")+[ \t]*)\)"
_TUPLE_TERM = re.compile(r"\d(?:[ \t]*(?:\*|×|·|\\cdot|\\times)[ \t]*|\\,[ \t]*)" + _TUPLE)
_THIN_PRODUCT = re.compile(r"\\,(?=[ \t]*\()")
# the "(" of a product by a tuple: right after an operator's last character (``*``, ``×``, ``·``, the t of \\cdot,
# the s of \\times, the comma of a thin space \\,) or a blank; a scan led by the literal "(" (``_tuple_term``
# reads the rest)
_TUPLE_OPEN = re.compile(r"\((?<=[*×·,ts \t]\()")
_TUPLE_OPS = ("*", "×", "·", "\\cdot", "\\times")


def _tuple_term(body: str) -> bool:
    """``_TUPLE_TERM.search(body) is not None``, found from the "(" of each product: the regex itself starts at
    each of a note's tens of thousands of digits (~2 ms on the benchmark note); here each "(" after an operator's
    last character or a blank is read back to the operator and the digit before it (blanks between, none between
    the digit and a thin space ``\\,``), and the whole pattern is matched from that digit."""
    for m in _TUPLE_OPEN.finditer(body):
        end = m.start()
        while end > 0 and body[end - 1] in " \t":
            end -= 1
        if end >= 2 and body.startswith("\\,", end - 2):
            digit = end - 3
        else:
            op = next((op for op in _TUPLE_OPS if end >= len(op) and body.startswith(op, end - len(op))), None)
            if op is None:
                continue
            digit = end - len(op)
            while digit > 0 and body[digit - 1] in " \t":
                digit -= 1
            digit -= 1
        if digit >= 0 and body[digit].isdecimal() and _TUPLE_TERM.match(body, digit):  # (\\d is isdecimal)
            return True
    return False


def _tuples_as_lists(line: str) -> str:
    """``line`` with its number tuples written as lists and a thin space ``\\,`` before one as a product, every
    character at its offset (``0.2483\\,(1, 0) = (0.4966, 0.7536)`` -> ``0.2483 *[1, 0] = [0.4966, 0.7536]``), where
    a tuple is a weight's value row: a value row reads so as the list it is."""
    if _TUPLE_TERM.search(line) is None:
        return line
    line = _THIN_PRODUCT.sub(" *", line)
    return re.sub(_TUPLE, lambda m: "[" + m.group("b") + "]", line)


def _product(term: tuple, d: int) -> tuple:
    """The operands of entry ``d`` of a ``c*[value row]`` term: its printed coefficient times its printed value."""
    return ("*", [term[0], term[2][d]])


def _operands(op, verdicts: dict):
    """(exact value of the printed operands' arithmetic, whether every operand is right, the same arithmetic of the
    operands after their own fixes, None where the fix is the tensor's) of an operand tree: a printed cell, or
    ``("*" | "+" | "+~", [trees])``."""
    if isinstance(op, human.Cell):
        printed = _decimal(op.text)
        ok, fixed = verdicts.get(op.start, (True, None))
        return printed, ok and printed is not None, printed if fixed is None else _decimal(fixed)
    parts = [_operands(x, verdicts) for x in op[1]]
    if any(p[0] is None for p in parts):
        return None, False, None
    if op[0] == "*":
        value, fixed = Fraction(1), Fraction(1)
        for p in parts:
            value, fixed = value * p[0], None if fixed is None or p[2] is None else fixed * p[2]
    elif any(p[2] is None for p in parts):
        value, fixed = sum(p[0] for p in parts), None
    else:
        value, fixed = sum(p[0] for p in parts), sum(p[2] for p in parts)
    # "+~": a sum that makes the result right but is not what its fix writes (a step between them is unread)
    return value, all(p[1] for p in parts), None if op[0] == "+~" else fixed


def _decimal(text: str) -> Fraction | None:
    """A printed number as the exact decimal it writes (None for a percentage or e-notation)."""
    try:
        return Fraction(text.replace("−", "-").replace("–", "-"))
    except (ValueError, ZeroDivisionError):
        return None


def rounds_either(text: str, tensor: float, arithmetic: float | None) -> bool:
    """The convention for a number written as the result of arithmetic of operands printed right there (docs/
    checking.md): right where it correctly rounds the tensor its place names or the exact arithmetic of its printed
    operands (``arithmetic``: None where an operand is itself wrong, so that the result is judged by the tensor
    alone). Shared by ``_judge_either`` and ``exponentials.tensor_exponentials``."""
    value, dec = human._value(text)
    return human._near(value, dec, tensor, 0.0) or arithmetic is not None and human._near(value, dec, arithmetic, 0.0)


def _judge_either(body: str, recs: list, judged: list, refix: bool = False) -> list:
    """``judged``'s cells (cell, tensor's value, label, operands or None) judged in their order under
    ``rounds_either``, each earlier verdict an operand's for the later ones; a failing check added to the record of
    each wrong one, its fix the arithmetic of its operands after their own fixes (a fixed line stays arithmetically
    true), or the tensor's value where it has no printed operands. ``refix``: a record another reader found wrong
    gets this check and fix too (else it keeps its own)."""
    if not judged:
        return recs
    verdicts: dict = {}  # cell offset -> (right, fixed text or None)
    wrong, right = [], []
    for cell, exp, label, ops in judged:
        value, ok, fixed = _operands(ops, verdicts) if ops is not None else (None, False, None)
        dec = max(human._value(cell.text)[1] or 0, 0)
        if rounds_either(cell.text, float(exp), float(value) if ok else None):
            verdicts[cell.start] = (True, None)
            shown = human.fmt(float(exp), dec)  # the value it rounds: the tensor's, else its operands' arithmetic
            if _mag(shown) != _mag(cell.text) and ok:
                shown = human.fmt(float(value), dec)
            right.append((cell, label, shown))
            continue
        shown = human.fmt(float(exp if fixed is None else fixed), dec)
        verdicts[cell.start] = (False, shown)
        told = shown
        if shown == cell.text:
            # wrong only through a wrong operand: the arithmetic of its fixed operands is what it prints, so --fix
            # keeps it; the message gives torch's value, not the printed text again ("published 0.4966, expected
            # 0.4966" told an author nothing)
            label, told = f"{label}, right once its wrong operands are fixed", human.fmt(float(exp), dec)
        wrong.append((cell, label, shown, told))
    if not wrong and not right:
        return recs
    record = _records_at(body, recs)
    for cell, label, shown in right:  # a right value no other reader judged (a result on a line of its own)
        rec = record(cell.start)
        if rec is not None and not rec.checks and not rec.operand:
            rec.checks.append((True, label, shown))
    for cell, label, shown, told in wrong:
        rec = record(cell.start)
        if rec is not None and (refix or rec.status != "wrong"):
            rec.checks.append((False, label, told))
            rec.fix = (shown, "label")
    return recs


def rounded_weight_sums(body: str, trace, recs: list) -> list:
    """The records of a weighted sum of the note's value rows by its rounded weights, ``- Q1: 0.668*[1,0] +
    0.332*[2,1] ≈ [1.332, 0.332]``, and of the sum of weighted values on the next line (``[0.402, 0] + [0,0.329] +
    [0,0.1345] = [0.402, 0.4635]``): the arithmetic reader verifies them as arithmetic, but each coefficient
    restates a weight of one query, each product that weight times a value row, the sum that query's output
    row: each is judged as that, a failing check added where it is off at its printed precision (weights rounded
    to three places and summed to four are off in the last digit: 0.4635, the output 0.4636). The query: the
    row of weights nearest the coefficients, each within 0.01 (rounded weights, not assumed ones). Run by
    ``check._check_text`` after ``settle`` (the hook: ``recs = notations.rounded_weight_sums(body, trace, recs)``);
    needed by heldout3's ko_blog_2x2_rounded_weights and ko_blog_cafe_menu_three_keys."""
    vectors = "matrix}" in body and _vector_term(body)
    tuples = "(" in body and _tuple_term(body)
    if not vectors and not tuples and not _term_marked(body):
        return recs
    lines = body.split("\n")
    if vectors:
        lines = [_vectors_as_lists(ln) if "matrix}" in ln else ln for ln in lines]
    if tuples:
        lines = [_tuples_as_lists(ln) if "(" in ln else ln for ln in lines]
    starts = human._line_starts(body)
    judged = []  # (cell, expected value, label)
    head = 0
    while head < MAX_HEADS:  # each head's sums with its values and weights (the head of the sum's place)
        v, attn = human._expected(trace, "v", head), human._expected(trace, "attn", head)
        out, o, name = human._expected(trace, "out", head), human._expected(trace, "o", head), "out"
        if v is None or attn is None or out is None or v.ndim != 2 or attn.ndim != 2 or \
                out.shape[0] != attn.shape[0]:
            break
        if o is not None and o.ndim == 2 and out.ndim == 2 and out.shape[1] != v.shape[1] == o.shape[1]:
            out, name = o, "o"  # several heads: a head's sum is its own output, before the heads are joined
        judged += _rounded_sums(body, lines, starts, recs, head, v, attn, out, name)
        head += 1
    return _judge_either(body, recs, judged)


MAX_HEADS = 64  # heads whose sums ``rounded_weight_sums`` reads (a trace has fewer)


def _rounded_sums(body: str, lines: list, starts: list, recs: list, head: int, v, attn, out, name: str) -> list:
    """``rounded_weight_sums``' judged cells (cell, expected value, label, operands) of the sums at places of
    ``head`` (``human.head_at``; 0 in a note that names no head), whose values, weights and output (the tensor
    ``name``) are given."""
    judged = []
    for terms, k, products in _weighted_sums(lines, starts, v):
        if human.head_at(body, terms[0][0].start) != head or len({(c.text, i) for c, i, _ in terms}) == 1:
            continue  # (a product printed again on its line, as a GitBook export does, is no sum of them: heldout17)
        coef = np.array([human._value(c.text)[0] for c, _, _ in terms])
        keys = [i for _, i, _ in terms]
        r = _nearest_row(attn, keys, coef, [c.text for c, _, _ in terms])
        if r is None:
            # off by more than rounding: the weights the note printed above, wrong, restated as coefficients
            r = _restated_row(recs, [c.text for c, _, _ in terms], keys, human.line_of(body, terms[0][0].start), attn)
            if r is None:
                continue
        judged += [(c, attn[r][i], f"attn[{r}, {i}]", None) for c, i, _ in terms]
        shown = []  # the texts of each product's cells, as printed
        for (j, m), t in zip(products, terms):
            i = t[1]
            res = human._cells(m.group("r").replace(",", " "), starts[j] + m.start("r"))
            if res and len(res) == v.shape[1]:
                judged += [(c, attn[r][i] * e, f"attn[{r}, {i}] · v[{i}]", _product(t, d))
                           for d, (c, e) in enumerate(zip(res, v[i]))]
                shown.append(res)
        if products and len(shown) == len(products):
            # each addend restates its product digit for digit: right or wrong as that product is
            restated = _products_restated(lines, starts, products[-1][0], [[c.text for c in x] for x in shown])
            for cells, t, prod in zip(restated, terms, shown):
                i = t[1]
                judged += [(c, attn[r][i] * e, f"attn[{r}, {i}] · v[{i}]", ("+", [p]))
                           for c, e, p in zip(cells, v[i], prod)]
        if k is None:
            continue
        label = f"{name}[{r}] (the weights rounded before the sum)"
        judged += _sum_going_on(lines, starts, k, terms, v, attn, out, r, label)
        for line_no, m in ((k, _RESULT_AT_END.search(lines[k])),
                           (k + 1, _SUM_OF_LISTS.match(lines[k + 1]) if k + 1 < len(lines) else None)):
            if m is None:
                continue
            res = human._cells(m.group("r").replace(",", " "), starts[line_no] + m.start("r"))
            lists = None
            if line_no == k + 1:
                base = starts[line_no] + m.start("terms")
                lists = [human._cells(b.group("body").replace(",", " "), base + b.start("body"))
                         for b in _ROW.finditer(m.group("terms"))]
                if len(lists) == len(terms) and all(x and len(x) == v.shape[1] for x in lists):
                    judged += [(c, attn[r][t[1]] * e, f"attn[{r}, {t[1]}] · v[{t[1]}]", _product(t, d))
                               for x, t in zip(lists, terms) for d, (c, e) in enumerate(zip(x, v[t[1]]))]
                else:
                    lists = None
            if res and len(res) == out.shape[1]:
                # line k's result is its terms' arithmetic; line k+1's, the sum of the lists it prints. Where line k
                # prints a step between its terms and its result (``= [0.496 + 1.008, ..] = [1.504, ..]``), that
                # step holds the result's nearest operands, which this reads not: the terms' arithmetic still makes
                # the result right, but its fix is the tensor's ("~")
                last = terms[-1][2][-1]
                between = lines[k][last.start + len(last.text) - starts[k]:m.start()] if line_no == k else ""
                op = "+~" if any(r_ in between for r_ in ("=", "≈", "\\approx")) else "+"
                judged += [(c, e, label, ("+", [x[d] for x in lists]) if lists is not None else
                            (op, [_product(t, d) for t in terms])) for d, (c, e) in enumerate(zip(res, out[r]))]
    return judged


# ---------------------------------------------------------------- the eighth held-out round (tests/corpus/heldout8)

_ROW_INDEX = re.compile(r"_\{\d{1,3}[ \t]*(?:,[ \t]*:|,?[ \t]*\\cdot)[ \t]*\}")  # the prefilter: a row subscript


def _row_label(n: int) -> str:
    """A letter (``A``, ``\\mathbf{A}``, ``\\alpha``) with a 1-based row subscript (``_{1,:}``, ``_{1\\cdot}``): groups
    ``sym<n>`` and ``i<n>``."""
    return (r"(?:\\(?:mathbf|boldsymbol|bm)\{)?(?P<sym" + str(n) + r">[A-Za-z]|\\alpha|α)\}?_\{(?P<i" + str(n)
            + r">\d{1,3})[ \t]*(?:,[ \t]*:|,?[ \t]*\\cdot)[ \t]*\}")


_INDEXED_ROW = re.compile(_row_label(0) + r"(?:[ \t]*=[ \t]*" + _row_label(1) + r")?"
                          + r"[ \t]*=[ \t]*(?:\\left)?\[(?P<body>[^\[\]\n]*?)(?:\\right)?\]")
_LATEX_SPACE = re.compile(r"\\[;,: !]|~")
# ``\alpha_1 = [0.456, 0.225, 0.320]``: the weights' row by one subscript (α names the weights alone)
_ALPHA_ROW = re.compile(r"(?<![\w\\])\\alpha_\{?(?P<i0>\d{1,3})\}?[ \t]*=[ \t]*(?:\\left)?\[(?P<body>[^\[\]\n]*?)"
                        r"(?:\\right)?\]")


def indexed_rows(text: str, trace, hits: dict, foreign: list) -> None:
    """Form: ``A_{1,:} = A_{2,:} = [0.1636, \\; 0.1636, \\; 0.6727]``, ``\\mathbf{A}_{1\\cdot} = \\left[0.045,\\; 0.768,
    \\; 0.186\\right]``: one row of a matrix named by its letter (``ROW_SYMBOLS``) and a 1-based row subscript, the
    numbers spaced with LaTeX spaces; two names on one line say the rows are equal (judged when the trace's are)."""
    from ..notation import ROW_SYMBOLS

    alpha = "\\alpha_" in text and _ALPHA_ROW.search(text) is not None
    if _ROW_INDEX.search(text) is None and not alpha:
        return
    first = 0 if alpha and re.search(r"\\alpha_\{?0\b", text) else 1  # ``\alpha_0`` somewhere: 0-based
    found = list(_INDEXED_ROW.finditer(text)) + (list(_ALPHA_ROW.finditer(text)) if alpha else [])
    for m in found:
        if m.re is _ALPHA_ROW:  # ``\alpha_1 = [..]``: a weight row by one subscript
            names, rows = ROW_SYMBOLS["α"], [index_int(m.group("i0")) - first]
        else:
            names = ROW_SYMBOLS.get(m.group("sym0"))
            if not names or (m.group("sym1") is not None and m.group("sym1") != m.group("sym0")):
                continue
            rows = [index_int(m.group(g)) - 1 for g in ("i0", "i1") if m.group(g) is not None]
        # LaTeX spaces and commas blanked in place, so each number keeps its offset in the note
        body = _LATEX_SPACE.sub(lambda s: " " * len(s.group()), m.group("body")).replace(",", " ")
        cells = human._cells(body, m.start("body"))
        if not cells or any(c.start in hits for c in cells):
            continue
        head = human.head_at(text, m.start())

        def judged(cand: str, rows=rows, cells=cells, head=head):
            exp = human._expected(trace, cand, head)
            if exp is None or exp.ndim != 2 or exp.shape[1] != len(cells) or max(rows) >= exp.shape[0] or \
                    min(rows) < 0 or not all(np.allclose(exp[r], exp[rows[0]]) for r in rows):
                return None
            # the label names the tensor and the row: no majority asked, but the candidate agreeing most wins
            return human._judge(cells, exp[rows[0]], f"{cand}[{rows[0]}]", text, gated=False)
        for c, h in zip(cells, _most_agreeing(judged(c) for n in names for c in human._candidates(n, trace))):
            hits[c.start] = h


def _most_agreeing(results) -> list:
    """Of each candidate tensor's verdicts on a block (None: it does not fit), those with the most numbers
    agreeing; [] when none agrees with one number at least (a letter the note uses for another matrix)."""
    best = None
    for res in results:
        agree = sum(h.ok for h in res or [])
        if agree and (best is None or agree > best[0]):
            best = (agree, res)
    return best[1] if best else []


FORMS.append(indexed_rows)


# the letter bold, or a plain capital alone (``A = \begin{bmatrix}``; not ``AV =``, ``W_K =``, ``K^T =``, ``{A}``)
_BOLD_LETTER = re.compile(r"(?:\\(?:mathbf|boldsymbol|bm)\{(?P<sym>[A-Za-z])\}|(?<![\w\\{}^_'])(?P<plain>[A-Z]))[ \t]*"
                          r"(?:=|\\approx)[ \t]*$")


def bold_letter_matrices(text: str, trace, hits: dict, foreign: list) -> None:
    """Form: ``\\mathbf{A} \\approx \\begin{bmatrix}..\\end{bmatrix}``, ``\\boxed{\\mathbf{O} \\approx ..``: a matrix
    named by one bold letter (``ROW_SYMBOLS``; a bold capital is a matrix in LaTeX notes), judged as the tensor
    of that shape it agrees with most, when no reader judged its numbers (a subscript, ``^\\top`` or another factor
    between the letter and the matrix: not this form)."""
    from ..notation import ROW_SYMBOLS
    from . import forms

    if "matrix}" not in text:
        return
    for env in forms._matrices(text):  # each matrix's label tried (no scan of the note for a letter and a relation)
        before = text[max(0, env.start() - 16):env.start()].rstrip()
        rel = "=" if before.endswith("=") else "\\approx" if before.endswith("\\approx") else ""
        last = before[:len(before) - len(rel)].rstrip()[-1:] if rel else ""
        if not (last.isalpha() or last == "}"):
            continue  # no letter (or a bold letter's brace) just before a relation: the common case, cheaply
        lab = _BOLD_LETTER.search(text, max(0, env.start() - 40), env.start())
        names = ROW_SYMBOLS.get(lab.group("sym") or lab.group("plain")) if lab else None
        if not names:
            continue
        rows, body, base, at = [], env.group(2), env.start(2), 0
        for part in re.split(r"\\\\", body):
            at = body.index(part, at)  # two equal rows: each at its own offset
            if part.strip():
                cells = human._cells(part.replace("&", " "), base + at)
                if not cells:
                    rows = []
                    break
                rows.append(cells)
            at += len(part)
        if not rows or any(len(r) != len(rows[0]) for r in rows) or any(c.start in hits for r in rows for c in r):
            continue
        cells = [c for r in rows for c in r]
        head = human.head_at(text, env.start())
        # a plain capital may name another matrix than its usual one: read only where most numbers agree
        sure = len(names) == 1 and not forms.in_any(env.start(), foreign) and lab.group("plain") is None

        def judged(cand: str, rows=rows, cells=cells, head=head, sure=sure):
            exp = human._expected(trace, cand, head)
            if exp is None or exp.shape != (len(rows), len(rows[0])):
                return None
            return human._judge(cells, exp, cand, text, sure=sure)
        for c, h in zip(cells, _most_agreeing(judged(c) for n in names for c in human._candidates(n, trace))):
            hits[c.start] = h


FORMS.append(bold_letter_matrices)


# ---------------------------------------------------------------- heldout10: exponentials of a list, product factors

# ``exp([1, 0, 0.5]) = [2.72, 1, 1.65]``, ``np.exp([..]) ≈ [..]``: the exponentials of a printed list, entry by entry
_EXP_OPEN = re.compile(r"exp[ \t]*\([ \t]*\[")  # its literal start: the one scan of the note (~0.1 ms a 70 kB note)
_EXP_CALL = re.compile(r"exp[ \t]*\([ \t]*\[(?P<args>[^\[\]\n]*)\][ \t]*\)[ \t]*(?:=|≈|\\approx)[ \t]*"
                       r"(?:tensor\(|array\()?\[(?P<body>[^\[\]\n]*)\]")


def exponential_calls(text: str, trace, hits: dict, foreign: list) -> None:
    """Form: ``exp([1, 0, 0.5]) = [2.72, 1, 1.65]`` (heldout10's Korean course day, under a softmax heading that made
    its list the weights row): each result is the exponential of the printed argument beside it, an arithmetic
    claim (no trace needed), wrong only where no argument within its rounding gives it (an integer is exact; a
    masked ``-∞`` gives 0). Run before ``rows_after_scores``, which would take the list for the heading's tensor."""
    if "exp" not in text:  # exact prefilter: every match holds "exp"
        return
    for opening in _EXP_OPEN.finditer(text):
        at = opening.start()
        if at and (text[at - 1].isalnum() or text[at - 1] == "_"):
            continue  # a longer name (``myexp``, ``log_exp``); ``np.exp`` and ``\\exp`` are the exponential
        m = _EXP_CALL.match(text, at)
        if m is None:
            continue
        args = _score_args(m.group("args"), m.start("args"))
        cells = human._cells(m.group("body").replace(",", " "), m.start("body"))
        if not args or not cells or len(cells) != len(args) or any(c.start in hits for c in cells):
            continue
        low, high, want = [], [], []
        for a in args:
            x, dec = (-np.inf, 0) if a is None else human._value(a.text)  # a masked score: e^-∞ = 0
            h = 0.5 * 10.0 ** -dec if dec else 0.0
            low.append(float(np.exp(x - h)))
            high.append(float(np.exp(x + h)))
            want.append(float(np.exp(x)))
        label = f"exp([{m.group('args').strip()}])"
        for c, h, lo, hi in zip(cells, human._judge(cells, np.array(want), label, text, gated=False), low, high):
            value, dec = human._value(c.text)
            half = 0.5 * 10.0 ** -max(dec or 0, 0)
            if not h.ok and lo - half <= value <= hi + half:  # some argument within its rounding gives it
                h.ok, h.fix = True, None
            hits[c.start] = h


FORMS.insert(FORMS.index(rows_after_scores), exponential_calls)

_MATRIX_END = r"\\end\{[A-Za-z]*matrix\*?\}"
_MATRIX_BEGIN = r"\\begin\{[A-Za-z]*matrix\*?\}"
_TIMES = r"(?:\\cdot|\\times|[·×*@])"
# what ends the text before a factor: another matrix, or a product sign (``[0.5,0.5] \cdot \begin{bmatrix}``)
_FACTOR_BEFORE = re.compile(r"(?:" + _MATRIX_END + "|" + _TIMES + r")[ \t]*(?:\n[ \t]*)?$")
# what follows a factor: another matrix, a product sign between them or not
_FACTOR_AFTER = re.compile(r"[ \t]*(?:\n[ \t]*)?(?:" + _TIMES + r"[ \t]*(?:\n[ \t]*)?)?" + _MATRIX_BEGIN)


def product_factor(text: str, begin: int) -> bool:
    """Is the LaTeX matrix whose ``\\begin`` is at ``begin`` a factor of a written-out product: another matrix right
    before or after it, or a product sign before it (``QK^\\top = \\begin{bmatrix}Q\\end{bmatrix}
    \\begin{bmatrix}K^\\top\\end{bmatrix} = ..``, ``[0.5,0.5] \\cdot \\begin{bmatrix}V\\end{bmatrix} = [5.0, 5.0]``,
    heldout10's Korean note)? Then the label before it names the product (or another factor), not this matrix."""
    if _FACTOR_BEFORE.search(text, max(0, begin - 40), begin):
        return True
    end = text.find("\\end{", begin)  # a matrix holds no other: its own end
    close = text.find("}", end) + 1 if end >= 0 else 0
    return close > 0 and _FACTOR_AFTER.match(text, close) is not None


# the tensors a written-out product of attention results in (QKᵀ, AV), never one of its factors
PRODUCT_TENSORS = frozenset({"scores", "scores_scaled", "scores_masked", "scores_masked_raw", "out", "o"})


def factor_readings(text: str, begin: int, shaped: list) -> list:
    """The (tensor, value) readings of the LaTeX matrix at ``begin`` that can stand: all of them, but for a factor of
    a written-out product (``product_factor``) not the products' results (``PRODUCT_TENSORS``), which its label
    often names (``QK^\\top = [Q][K^\\top]``; ``"cat"의 attention output:`` above ``[0.5,0.5] \\cdot [V]``). A factor
    named for itself (``attention_weights @ Values`` above ``[A] \\times [V] = [O]``) is still read as it."""
    if not any(cand in PRODUCT_TENSORS for cand, _ in shaped) or not product_factor(text, begin):
        return shaped
    return [(cand, value) for cand, value in shaped if cand not in PRODUCT_TENSORS]


# ``print("Ağırlıklar:\n", weights.round(3))`` then its result pasted as comments, a row a line (heldout10's Turkish
# course): ``# [[0.44, 0.22, 0.34],    Q1: V1'e en çok dikkat``
_PRINT_LINE = re.compile(r"^[ \t]*print\((?P<args>[^\n]*)\)[ \t]*$", re.M)
_PRINTED_NAME = re.compile(r"(?:^|,)[ \t]*(?:np\.round\([ \t]*)?(?P<name>[A-Za-z_]\w*)"
                           r"(?:\.round\([ \t]*\d*[ \t]*\)|[ \t]*,[ \t]*\d+[ \t]*\))?[ \t]*$")
_COMMENT_ROWS = re.compile(r"[ \t]*#[ \t]*(?P<tail>\[[^\n]*)(?:\n|$)")


def named_prints(text: str, line: re.Pattern):
    """Each print line (a match of ``line``, whose group ``args`` holds the call's arguments) that prints a variable
    whose name gives a tensor (``weights.round(3)``, ``np.round(out, 2)``: its name alone, not the code around it):
    (the match, the tensor). The loop head of the two readers of a print's result pasted as comments under it
    (``commented_print_results`` here, ``comment_prints``), which read each their own lines and rows below it."""
    for m in human.line_matches(line, text, "print("):
        printed = _PRINTED_NAME.search(m.group("args"))
        named = identifier_tensor(printed.group("name")) if printed else None
        if named is not None:
            yield m, named


def commented_print_results(text: str, trace, hits: dict, foreign: list) -> None:
    """Form: a ``print(.., name)`` line, then what it printed pasted as comments below it, one matrix row a line
    (``# [[0.44, 0.22, 0.34],`` / ``#  [0.22, 0.44, 0.34],`` ..., captions after the rows allowed): the matrix is
    the tensor the printed variable's name gives (``weights.round(3)``, ``np.round(out, 2)``: its name alone, not
    the code around it), judged as one tensor named (a wholly wrong matrix is wrong)."""
    if "print(" not in text or "#" not in text:
        return
    for m, named in named_prints(text, _PRINT_LINE):
        rows, at = [], m.end() + 1
        while (c := _COMMENT_ROWS.match(text, at)) is not None:
            rows += [human._cells(r.group("body").replace(",", " "), c.start("tail") + r.start("body"))
                     for r in _ROW.finditer(c.group("tail"))]
            at = c.end()
        if not rows or not all(rows) or len({len(r) for r in rows}) != 1:
            continue
        cells = [c for r in rows for c in r]
        if any(c.start in hits for c in cells):
            continue
        res = _sure_judge(cells, [named], (len(rows), len(rows[0])), trace, text, m.start(), foreign)
        for c, h in zip(cells, res or []):
            hits[c.start] = h


FORMS.append(commented_print_results)


# ``[0.669 \cdot 1 + 0.331 \cdot 9,\ 0.669 \cdot 2 + 0.331 \cdot 8] = [3.648,\ 4.316]``: a weights row times V written
# out entry by entry in one list, then the row it makes (heldout10's Korean note)
_ENTRY_PRODUCT = re.compile(r"(?<![\w.])(?P<c>" + _NUM + r")[ \t]*(?:\\cdot|\\times|[·×*])[ \t]*(?P<v>" + _NUM
                            + r")(?![\w.])")
_SPACING = re.compile(r"\\[ ,;:!]|\\q?quad\b")
_ENTRY_LIST = re.compile(r"\[(?P<body>[^\[\]\n]*\+[^\[\]\n]*)\][ \t]*(?:=|≈|\\approx)[ \t]*\[(?P<r>[^\[\]\n]*)\]")


def entrywise_weighted_sums(body: str, trace, recs: list) -> list:
    """The records of a weights row times V written out entry by entry in one list, ``[0.669 \\cdot 1 + 0.331 \\cdot 9,
    0.669 \\cdot 2 + 0.331 \\cdot 8] = [3.648, 4.316]``: each entry's terms are the same coefficients times V's column
    of that entry, the coefficients one query's weights (within their rounding, or restating the row judged above),
    the list after ``=`` that query's output row. As ``rounded_weight_sums``: each judged as what it restates, a
    failing check added where it is off at its printed precision; a result the arithmetic reader found wrong is
    fixed to the output row (torch's value), which its terms then give within their rounding. Run after
    ``rounded_weight_sums`` (check._check_text)."""
    if "+" not in body or "[" not in body or ("\\cdot" not in body and "·" not in body and "×" not in body
                                             and "*" not in body and "\\times" not in body):
        return recs
    v, attn, out = (human._expected(trace, n, 0) for n in ("v", "attn", "out"))
    if v is None or attn is None or out is None or v.ndim != 2 or attn.ndim != 2 or out.shape != (attn.shape[0],
                                                                                                     v.shape[1]):
        return recs
    judged = []  # (cell, expected, label)
    for m in _ENTRY_LIST.finditer(body):
        entries = [e for e in _SPACING.sub(lambda s: " " * len(s.group()), m.group("body")).split(",")]
        if len(entries) != v.shape[1]:
            continue
        base, at, terms = m.start("body"), 0, []
        for e in entries:
            found = list(_ENTRY_PRODUCT.finditer(e))
            rest = _ENTRY_PRODUCT.sub("", e).replace("+", "").strip()
            if not found or rest:
                break
            terms.append([(human.Cell(t.group("c"), base + at + t.start("c")), human._value(t.group("v"))[0],
                           human.Cell(t.group("v"), base + at + t.start("v"))) for t in found])
            at += len(e) + 1
        if len(terms) != len(entries) or len({len(t) for t in terms}) != 1 or \
                len({tuple(c.text for c, _, _ in t) for t in terms}) != 1:
            continue  # each entry the same coefficients, one term a value row
        # the value rows: term j's values down the entries are one row of V, as printed
        keys = []
        for j in range(len(terms[0])):
            column = np.array([t[j][1] for t in terms])
            rows = [i for i in range(v.shape[0]) if np.allclose(v[i], column, rtol=0, atol=1e-9)]
            keys.append(rows[0] if len(rows) == 1 else None)
        if None in keys:
            continue
        coef = np.array([human._value(c.text)[0] for c, _, _ in terms[0]])
        r = _nearest_row(attn, keys, coef, [c.text for c, _, _ in terms[0]])
        if r is None:
            r = _restated_row(recs, [c.text for c, _, _ in terms[0]], keys, human.line_of(body, m.start()), attn)
            if r is None:
                continue
        judged += [(c, attn[r][i], f"attn[{r}, {i}]", None) for t in terms for (c, _, _), i in zip(t, keys)]
        res = human._cells(m.group("r").replace(",", " ").replace("\\", " "), m.start("r"))
        if res and len(res) == out.shape[1]:
            # each entry of the result is its entry's terms' arithmetic (right as that where the weights are)
            judged += [(c, e, f"out[{r}] (the weights rounded before the sum)",
                        ("+", [("*", [cc, vc]) for cc, _, vc in t])) for c, e, t in zip(res, out[r], terms)]
    return _judge_either(body, recs, judged, refix=True)


# (heldout10) a weight right before its value row, ``0.51[1,2,3,4]`` (notations._TERM): the marks of such a term
_DIGIT_LIST = re.compile(r"[0-9]\[")  # a weight right before its value row (a line's check: lines are short)



# (heldout11) ``例如：若隐藏层维度为 512，8 个注意力头，则每个头的 d_k = 512/8 = 64``: a symbol set to the line's own
# arithmetic of printed numbers, after a word that opens an aside (notation.EXAMPLE_WORDS) earlier on its line
_WORKED = re.compile(r"(?<![\w\\])[A-Za-z\\][\w{}\\]*[ \t]*=[ \t]*\$?[ \t]*\d+(?:\.\d+)?(?:[ \t]*[-+*/×·÷][ \t]*"
                     r"\d+(?:\.\d+)?)+[ \t]*=[ \t]*(?P<num>\d+(?:\.\d+)?)(?!\d|\.\d)")
_EXAMPLE_LONGEST = 1 + max(map(len, __import__("attnwalk.notation", fromlist=["EXAMPLE_WORDS"]).EXAMPLE_WORDS))
_EXAMPLE = re.compile(r"(?i)(?:" + "|".join(w if not w[0].isascii() else r"\b" + re.escape(w) + r"(?!\w)"
                                            for w in __import__("attnwalk.notation", fromlist=["EXAMPLE_WORDS"])
                                            .EXAMPLE_WORDS) + ")")


def worked_hypotheticals(text: str) -> list[int]:
    """``例如：若 .. 则每个头的 d_k = 512/8 = 64``, ``e.g. with 8 heads, d_k = 512 / 8 = 64``: a symbol set to the
    line's own arithmetic of printed numbers in an aside about another setup (a word of ``EXAMPLE_WORDS`` before it
    on its line): offsets of the result. Right depth: ``settle`` leaves the symbol's check unread and keeps the
    arithmetic's verdict (at first ``d_k = 512/8 = 64`` was compared with the scenario's d_k, 2)."""
    out = []
    line, hit_end, seen = -1, None, 0  # the line at hand, the end of the word found on it, the last match's start
    for m in _WORKED.finditer(text):
        at = m.start()
        nl = text.rfind("\n", seen, at)
        ls = nl + 1 if nl >= 0 else max(line, 0)
        if ls != line:
            line, hit_end, start = ls, None, ls
        else:  # the line again: only past what its last search covered, less a word's length (linear on one line)
            start = max(ls, seen - _EXAMPLE_LONGEST)
        if hit_end is None or hit_end == seen:  # (a word ending at the last match was judged with the text cut there)
            h = _EXAMPLE.search(text, start, at)
            hit_end = None if h is None else h.end()
        seen = at
        if hit_end is not None:
            out.append(m.start("num"))
    return out


# (heldout11) ``S = QK^{\top} = [Q] [Kᵀ] = [S]``, ``Y = A V = [A] [V] = [Y]`` written out on one line: the product's
# letters name its factors and its result, in order
_MATRIX_RUN = re.compile(r"\\begin\{[bpvBV]?matrix\}.*?\\end\{[bpvBV]?matrix\}")
_FACTOR_GAP = re.compile(r"[ \t]*(?:\\cdot|\\times|·|×|@)?[ \t]*")
_RESULT_GAP = re.compile(r"[ \t]*=[ \t]*")
_TRANSPOSE = r"\^\{?\\top\}?|\^\{?T\}?|ᵀ|'"
_PRODUCT_LABEL = re.compile(r"(?<![\w\\])(?P<lhs>[A-Za-z])[ \t]*=[ \t]*(?P<f1>[A-Za-z])(?P<t1>" + _TRANSPOSE
                            + r")?[ \t]*(?:\\cdot|\\times|·|×|@)?[ \t]*(?P<f2>[A-Za-z])(?P<t2>" + _TRANSPOSE
                            + r")?[ \t]*=[ \t]*\$?[ \t]*$")
_TENSOR_WORDS = {"q": "Q", "k": "K", "v": "V", "x": "X", "attn": "attention weights", "scores": "scores",
                 "out": "output"}


def product_letters(text: str, begin: int) -> str | None:
    """The label of the LaTeX matrix at ``begin`` when it is a factor or the result of a product written out on its
    line after the product's letters, ``S = QK^{\top} = [Q] [Kᵀ] = [S]`` (heldout11's exam solution): the first
    matrix is the first letter's tensor, the second the second's (none for a transposed letter: Kᵀ is no tensor of
    the trace as printed), the one after ``=`` the product (``notation.PRODUCT_RESULTS``: the weights times V are the
    output whatever the note calls it). None when the line is no such product. Right depth: ``human.latex_blocks``
    asks it before the lines above for a matrix whose own label names nothing (at first the lines above named Kᵀ
    W_K and the product K, from ``K = X W^K`` a line before)."""
    starts = human._line_starts(text)
    k = bisect_right(starts, begin) - 1
    ls, le = starts[k], starts[k + 1] - 1 if k + 1 < len(starts) else len(text)
    run = list(islice(_MATRIX_RUN.finditer(text, ls, le), 4))  # four: no product (a line of many matrices read once)
    if len(run) != 3 or begin not in [m.start() for m in run]:
        return None
    if _FACTOR_GAP.fullmatch(text, run[0].end(), run[1].start()) is None \
            or _RESULT_GAP.fullmatch(text, run[1].end(), run[2].start()) is None:
        return None
    m = _PRODUCT_LABEL.search(text, ls, run[0].start())
    if m is None:
        return None
    names = [CODE_NAMES.get(m.group("f1")), CODE_NAMES.get(m.group("f2"))]
    at = [r.start() for r in run].index(begin)
    if at < 2:
        return "" if m.group(f"t{at + 1}") or names[at] not in _TENSOR_WORDS else _TENSOR_WORDS[names[at]]
    name = PRODUCT_RESULTS.get((names[0], names[1])) or CODE_NAMES.get(m.group("lhs"))
    return _TENSOR_WORDS.get(name, "")



# ---------------------------------------------------------------- heldout12: a row sum stated after its exponentials

# ``sum $=8.170$``, ``Sum $\approx 3.521$`` after the exponentials on their line: a sum word, a relation and one number
# that no operator follows (``sum = 2.028 + 1 + 2.028 = 5.056`` is arithmetic, judged as such)
_STATED_SUM = re.compile(r"(?<![\w\\])(?:" + "|".join(map(re.escape, sorted(SUM_WORDS, key=len, reverse=True)))
                         + r")(?!\w)[ \t]*\$?[ \t]*(?:=|≈|\\approx)[ \t]*\$?[ \t]*(?P<num>" + _NUM
                         + r")(?![\d.])(?![ \t]*[-+*/×·−])", re.I)


def stated_row_sums(text: str, trace, hits: dict, foreign: list) -> None:
    """Form: ``$e^{0.707}=2.028,\\ e^{0.707}=2.028,\\ e^{1.414}=4.114$, sum $=8.170$`` (heldout12's exported
    notebook; its Obsidian note's ``Sum $\\approx 3.521$``): ``exponential_sums`` with the sum stated after the
    exponentials on their own line, not on a line below them. The exponents, in order, print one row of the scores
    (``score_row_named``); the sum is that row's sum of e^s, the denominator of its softmax (torch's, not the sum of
    the rounded values printed before it)."""
    if not exp_terms(text):  # the same scan as ``exponential_sums``: no e^x = v at all
        return
    from . import forms

    for terms, head, cand, r, _ in exp_rows(text, trace):
        end = text.find("\n", terms[-1].end())
        s = _STATED_SUM.search(text, terms[-1].end(), len(text) if end < 0 else end)
        if s is None or s.start("num") in hits or forms.in_any(s.start("num"), foreign):
            continue
        row = human._expected(trace, cand, head)[r]
        cell = human.Cell(s.group("num"), s.start("num"))
        (hit,) = human._judge([cell], np.array([float(np.exp(row[np.isfinite(row)]).sum())]), f"Σ e^{cand}[{r}]",
                              text, gated=False)
        hits[cell.start] = hit


FORMS.append(stated_row_sums)


# The last expression of a label before ``= [matrix]``, flattened (``human._flatten``) and stripped of grouping,
# division and product signs: the step of attention it computes
_FORMULA_STRIP = re.compile(r"\\?(?:frac|left|right|operatorname|mathrm|text)|[()\[\]/·×*@,]")
_SCALED = r"qk\^t√d_?k"
_FORMULAS = ((re.compile(r"softmax" + _SCALED + r"v"), "out"), (re.compile(r"(?:a|α|alpha|p)v"), "out"),
             (re.compile(r"softmax" + _SCALED), "attn"), (re.compile(_SCALED), "scores_scaled"),
             (re.compile(r"qk\^t"), "scores"))


_ONE_MATRIX = re.compile(r"\\begin\{([bpvBV]?matrix)\}.*?\\end\{\1\}", re.S)
_NEXT_FACTOR = re.compile(r"\s*(?:\\cdot|\\times|·|×|@|\\begin\{)")


def formula_label(text: str, begin: int, label: str) -> str | None:
    """``formula_result`` of the label of the matrix at ``begin``, unless a factor follows the matrix (``S = QK^T
    = [Q] [Kᵀ] = [S]``: the first matrix is Q, ``product_letters``'s)."""
    if label.count("=") < 2:
        return None  # no ``= <formula> =`` (most labels: ``S_0 =``)
    one = _ONE_MATRIX.match(text, begin)
    if one is None or _NEXT_FACTOR.match(text, one.end()):
        return None
    return formula_result(label)


def formula_result(label: str) -> str | None:
    """The tensor the formula right before a matrix computes, in words ``human.tensors_of`` reads, when the label
    ends ``= <formula> =`` (``O = \\text{softmax}(\\frac{QK^T}{\\sqrt{d_k}})V = [..]``: the output, not the weights
    its first word names; ``Attention(Q,K,V) = softmax(QK^T/√d_k) V =``); None when the label is no such formula,
    or what its left side names is another tensor. Right depth: ``human.latex_blocks`` asks it first (at first the
    label's first phrase, "softmax", named the weights, so an output as square as the weights was judged as them)."""
    from .human import _flatten, tensors_of

    parts = _flatten(label).replace("ᵀ", "^t").split("=")
    if len(parts) < 3 or parts[-1]:
        return None
    expr = _FORMULA_STRIP.sub("", parts[-2])
    name = next((n for rx, n in _FORMULAS if rx.fullmatch(expr)), None)
    if name is None:
        return None
    lhs = tensors_of(label[:_nth_equals(label, len(parts) - 2)])
    if lhs and lhs[0] != name:
        return None
    return _TENSOR_WORDS[name] if name in _TENSOR_WORDS else "scaled scores"


def _nth_equals(label: str, n: int) -> int:
    """The offset of the ``n``-th ``=`` of ``label`` (1-based)."""
    at = -1
    for _ in range(n):
        at = label.find("=", at + 1)
    return at


# ---------------------------------------------------------------- heldout12: a softmax with the row maximum subtracted

_RELATION = r"[ \t]*&?[ \t]*(?:=|≈|\\approx)[ \t]*"
# One line of exponentials of a score minus its row's maximum, one per line as an ``aligned`` block prints them
# (``e^{0.7071-1.4142}&=e^{-0.7071}\approx 0.4931\\``, ``e^{0}&=1\\``): the exponent (a number, or the score and
# the maximum), the ``&`` alignment mark before the relation, an optional restatement, the value last on the line.
_SHIFTED_EXP_LINE = re.compile(
    r"^[ \t]*(?:e\^\{|\\exp\()[ \t]*(?P<a>" + _NUM + r")(?:[ \t]*[-−–][ \t]*(?P<b>\d+(?:\.\d+)?))?[ \t]*[})]"
    + _RELATION + r"(?:e\^\{[ \t]*" + _NUM + r"[ \t]*\}" + _RELATION + r")?(?P<v>" + _NUM
    + r")[ \t]*(?:\\\\)?[ \t]*$", re.M)
# The row's sum on the line right below them: a sum word, the relation, one number (``\sum &\approx 1.9863\\``)
_SHIFTED_SUM_LINE = re.compile(
    r"[ \t]*(?:" + "|".join(map(re.escape, sorted(SUM_WORDS, key=len, reverse=True))) + r")(?![a-zA-Z])"
    + _RELATION + r"(?P<num>" + _NUM + r")[ \t]*(?:\\\\)?[ \t]*$", re.I | re.M)


def _shifted_runs(text: str):
    """The runs of two or more ``_SHIFTED_EXP_LINE`` matches on consecutive lines."""
    run: list = []
    for m in human.line_matches(_SHIFTED_EXP_LINE, text, "e^{", "\\exp("):  # (a match opens with one of them)
        if run and text.count("\n", run[-1].end(), m.start()) != 1:
            if len(run) >= 2:
                yield run
            run = []
        run.append(m)
    if len(run) >= 2:
        yield run


def _shifted_row_named(run: list, trace, head: int) -> tuple[np.ndarray, list[int]] | None:
    """(the score row, its columns) whose cells minus the row's maximum the run's exponents print in order (a
    difference as the score and the maximum, each within its rounding); None where no row or two rows fit, or the
    exponents also print a row of the scores themselves (a plain softmax: ``exponential_sums``'s)."""
    found = {}
    for cand in _SCORES:
        mat = human._expected(trace, cand, head)
        if mat is None or mat.ndim != 2:
            continue
        ordinary = np.isfinite(mat) & (np.abs(mat) < 1e4)
        scale = float(np.max(np.abs(mat[ordinary]), initial=0.0))
        for r in range(mat.shape[0]):
            cols = np.flatnonzero(ordinary[r]).tolist()
            if len(cols) != len(run):
                continue
            row = mat[r, cols]
            top = float(row.max())
            if all(human._close(m.group("a"), float(s), scale) and human._close(m.group("b"), top, scale)
                   if m.group("b") else human._close(m.group("a").replace("−", "-"), float(s) - top, scale)
                   for m, s in zip(run, row)):
                found.setdefault((r, tuple(cols)), row - top)
    if len(found) != 1:
        return None
    cells = [human.Cell(m.group("a").replace("−", "-"), m.start("a")) for m in run]
    if not all(m.group("b") for m in run) and score_row_named(cells, trace, head) is not None:
        return None
    ((_, cols), shifted), = found.items()
    return shifted, list(cols)


def shifted_exponentials(text: str, trace, hits: dict, foreign: list) -> None:
    """Form: a softmax with the row's maximum subtracted first (heldout12's Korean lecture: ``e^{0.7071-1.4142}&=
    e^{-0.7071}\\approx 0.4931\\\\`` .. ``\\sum &\\approx 1.9863``): each value is e^(s - max) of the score row its
    exponents print, and the sum below them that row's sum of e^(s - max) (torch's, not of the rounded values)."""
    if "e^{" not in text and "\\exp(" not in text:
        return
    from . import forms

    for run in _shifted_runs(text):
        head = human.head_at(text, run[0].start())
        named = _shifted_row_named(run, trace, head)
        if named is None:
            continue
        exps = np.exp(named[0])
        cells, want = [], []
        for m, e in zip(run, exps.tolist()):
            if m.start("v") not in hits and not forms.in_any(m.start("v"), foreign):
                cells.append(human.Cell(m.group("v"), m.start("v")))
                want.append(e)
        below = _SHIFTED_SUM_LINE.match(text, run[-1].end() + 1)
        if below is not None and below.start("num") not in hits and not forms.in_any(below.start("num"), foreign):
            cells.append(human.Cell(below.group("num"), below.start("num")))
            want.append(float(exps.sum()))
        for cell, hit in zip(cells, human._judge(cells, np.array(want), "e^(scores - max)", text, gated=False) or []):
            hits[cell.start] = hit


FORMS.append(shifted_exponentials)
