r"""A step's output written in the column-vector convention as the weighted sum of the value vectors:
``c_2 = 0.1867\begin{pmatrix} 1 \\ 0 \end{pmatrix} + 0.0454\begin{pmatrix} 0 \\ 1 \end{pmatrix} + .. =
\begin{pmatrix} 0.9546 \\ 0.8133 \end{pmatrix}`` (heldout14's cross-attention notes; ``notation.COLUMN_SUM_SYMBOLS``).
Where every vector is the value of its key, in order, the coefficients are step t's weights (t from 1, or from 0 in
a note with a ``c_0``) and the result its output row, judged whatever their numbers (a step computed with another
step's weights is wrong). A result that is the printed arithmetic of right weights, off torch's by their rounding, is
left unread (docs/course.md).
"""

from __future__ import annotations

import re

from ..notation import COLUMN_SUM_SYMBOLS
from .human import symbol_at_word_start
from .indices import index_int

_NUM = r"[-−–]?\d+(?:\.\d+)?"
_VEC = r"\\begin\{[pbv]matrix\}(?P<NAME>[^{}$]*?)\\end\{[pbv]matrix\}"
_HEAD = re.compile(symbol_at_word_start(COLUMN_SUM_SYMBOLS) + r"_\{?(?P<t>\d{1,2})\}?[ \t]*=[ \t]*")
_TERM = re.compile(r"[ \t]*(?P<w>" + _NUM + r")[ \t]*(?:\\cdot|\\,|·)?[ \t]*" + _VEC.replace("NAME", "v") + r"[ \t]*")
_PLUS = re.compile(r"\+")
_RESULT = re.compile(r"(?:=|\\approx|≈)[ \t]*" + _VEC.replace("NAME", "r"))


def _vector_cells(m: re.Match, group: str):
    """The numbers of a column vector's body (``m``'s ``group``), in order, at their offsets."""
    from .human import _cells

    return _cells(m.group(group).replace("\\\\", "  ").replace("&", " "), m.start(group))


def column_sums(text: str, trace, hits: dict, foreign: list) -> None:
    """Form: ``c_t = w_1 (v_1) + w_2 (v_2) + .. = (r)`` in LaTeX column vectors (``_HEAD``, ``_TERM``, ``_RESULT``)."""
    if "matrix}" not in text:
        return
    from . import human
    from .forms import in_any

    heads = list(_HEAD.finditer(text))
    # a note with a c_0 counts its steps from 0
    zero = {hm.group("sym") for hm in heads if index_int(hm.group("t")) == 0}
    for hm in heads:
        terms, pos = [], hm.end()
        while (tm := _TERM.match(text, pos)) is not None:
            terms.append(tm)
            pos = tm.end()
            if not (pm := _PLUS.match(text, pos)):
                break
            pos = pm.end()
        rm = _RESULT.match(text, pos)
        if len(terms) < 2 or rm is None:
            continue
        head, row = human.head_at(text, hm.start()), index_int(hm.group("t")) - (hm.group("sym") not in zero)
        v = human._expected(trace, "v", head)
        a = human._expected(trace, "attn", head)
        o = human._expected(trace, COLUMN_SUM_SYMBOLS[hm.group("sym")], head)
        if v is None or a is None or o is None or a.ndim != 2 or not 0 <= row < a.shape[0] \
                or a.shape[1] != len(terms) or v.shape[0] != len(terms):
            continue
        vecs = [_vector_cells(tm, "v") for tm in terms]
        if not all(c and len(c) == v.shape[1] and all(_near_cell(x, e) for x, e in zip(c, v[j]))
                   for j, c in enumerate(vecs)):
            continue  # not the values in their keys' order: no claim this form understands
        weights = [human._cells(tm.group("w"), tm.start("w"))[0] for tm in terms]
        result = _vector_cells(rm, "r")
        if not result or len(result) != o.shape[-1] or any(c.start in hits for c in weights + result):
            continue
        gated = in_any(hm.start(), foreign)
        wres = human._judge(weights, a[row], f"attn[{row}]", text, gated=gated)
        rres = human._judge(result, o[row], f"{COLUMN_SUM_SYMBOLS[hm.group('sym')]}[{row}]", text, gated=gated)
        if not wres or not rres:
            continue
        if all(h.ok for h in wres) and not all(h.ok for h in rres) and _printed_sum(weights, vecs, result):
            rres = None  # the printed arithmetic of right weights
        for c, h in zip(weights + (result if rres else []), wres + (rres or [])):
            hits[c.start] = h
        for j, cells in enumerate(vecs):  # the values, each found right above
            for c, h in zip(cells, human._judge(cells, v[j], f"v[{j}]", text, gated=False) or []):
                hits.setdefault(c.start, h)


def _near_cell(cell, expected: float) -> bool:
    """Whether a printed number rounds ``expected`` at its own precision (a vector's entry is the value's)."""
    from .human import _TEXT, _near, _value

    v, dec = _value(_TEXT(cell))
    return _near(v, dec, float(expected), 0.0)


def _printed_sum(weights, vecs, result) -> bool:
    """Whether each entry of ``result`` rounds the sum of the printed weights times the printed vectors."""
    from .human import _TEXT, _value

    w = [_value(_TEXT(c))[0] for c in weights]
    for i, c in enumerate(result):
        v, dec = _value(_TEXT(c))
        s = sum(wj * _value(_TEXT(vec[i]))[0] for wj, vec in zip(w, vecs))
        if abs(v - s) > 0.5 * 10.0 ** -(dec or 0) + 1e-12:
            return False
    return True
