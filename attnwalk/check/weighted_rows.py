"""Each weight times its value row on its own line, ``0.4064 × [0.53, 0.34, 0.98] = [0.2156, 0.1382, 0.3983]`` (one
line per key, prose between them: heldout17's GitBook page writes "Weighted Embedding of "shiny":" above each): the
coefficient restates one query's weight on that key, the result that weight times the row (the weighted value). The
query is the row of weights nearest the coefficients of a group of such lines (two keys at least, each within 0.01:
``notations._nearest_row``), or the row of weights printed above that they restate digit for digit. Each is judged
as what it restates under ``notations.rounds_either`` (docs/course.md: a result is right by the tensor or by the
arithmetic of its printed operands, the arithmetic counting only where the weight is right). Run after
``notations.rounded_weight_sums`` (check._check_text); a weighted sum of several terms on one line is theirs."""

from __future__ import annotations

import re

import numpy as np

from . import human
from .notations import _NUM, ROW_REACH, _judge_either, _nearest_row, _printed_row, _restated_row

_PRODUCT = re.compile(r"(?<![\w.^_])(?P<c>" + _NUM + r")[ \t]*(?:\*|×|·|\\cdot|\\times)[ \t]*\[(?P<v>[^\[\]\n]*)\]"
                      r"[ \t]*(?:=|≈|\\approx)[ \t]*\[(?P<r>[^\[\]\n]*)\]")


def _products(body: str, v: np.ndarray) -> list:
    """(line, coefficient cell, value row index, value cells, result cells) of each ``c × [value row] = [..]`` of
    ``body`` whose list is one row of ``v`` as printed and whose result has a cell for each of the row's."""
    out = []
    for m in _PRODUCT.finditer(body):
        cells = human._cells(m.group("v").replace(",", " "), m.start("v"))
        row = _printed_row(cells, v) if cells else None
        res = human._cells(m.group("r").replace(",", " "), m.start("r"))
        if row is None or not res or len(res) != v.shape[1]:
            continue
        out.append((human.line_of(body, m.start()), human.Cell(m.group("c"), m.start("c")), row, cells, res))
    return out


def _groups(found: list) -> list:
    """``found`` cut where ``ROW_REACH`` lines or more pass between two products."""
    groups: list = []
    for item in found:
        if groups and item[0] - groups[-1][-1][0] < ROW_REACH:
            groups[-1].append(item)
        else:
            groups.append([item])
    return groups


def weighted_value_lines(body: str, trace, recs: list) -> list:
    """The records of weights times their value rows written one product a line (see the module)."""
    if "[" not in body or "=" not in body:
        return recs
    v, attn = human._expected(trace, "v", 0), human._expected(trace, "attn", 0)
    if v is None or attn is None or v.ndim != 2 or attn.ndim != 2 or attn.shape[1] != v.shape[0] or \
            trace.config.get("heads", 1) != 1:
        return recs
    judged = []
    for group in _groups(_products(body, v)):
        coef: dict = {}  # key -> the coefficient's text (one text per key: a key printed with two is no restatement)
        for _, c, row, _, _ in group:
            coef.setdefault(row, set()).add(c.text)
        if len(coef) < 2 or any(len(t) != 1 for t in coef.values()):
            continue
        keys = sorted(coef)
        texts = [next(iter(coef[k])) for k in keys]
        r = _nearest_row(attn, keys, np.array([human._value(t)[0] for t in texts]), texts)
        if r is None:
            r = _restated_row(recs, texts, keys, group[0][0], attn)
            if r is None:
                continue
        for _, c, row, cells, res in group:
            judged.append((c, attn[r][row], f"attn[{r}, {row}]", None))
            judged += [(cell, attn[r][row] * v[row][d], f"attn[{r}, {row}] · v[{row}]", ("*", [c, cells[d]]))
                       for d, cell in enumerate(res)]
        judged += _summed_below(body, group, r, attn, v, trace)
    return _judge_either(body, recs, judged)


# ``[0.0779 + 0.2156 + 0.1057, 0.0504 + 0.1382 + 0.1972, ..] = [0.3992, 0.3858, 0.8610]``: the weighted values added
# entry by entry, then the output row (the entries' blanks may be LaTeX spaces: ``, \ 0.0504``)
_ENTRY_SUMS = re.compile(r"\[(?P<body>[^\[\]\n]*\+[^\[\]\n]*)\][ \t]*(?:=|≈|\\approx)[ \t]*\[(?P<r>[^\[\]\n]*)\]")
_TERM = re.compile(_NUM)
_LATEX_BLANK = re.compile(r"\\[ ,;:!]")


def _summed_below(body: str, group: list, r: int, attn: np.ndarray, v: np.ndarray, trace) -> list:
    """Judged cells (as ``weighted_value_lines``' own) of each sum within ``ROW_REACH`` lines below a group of products
    that adds them entry by entry, ``[0.0779 + 0.2156 + 0.1057, ..] = [0.3992, ..]``: entry d's terms restate, digit
    for digit and in the group's order of keys, each product's d-th cell (judged as that weighted value, the tensor's
    alone: its operands are on another line), and the list after it is query r's output row, the entries' sums its
    operands (heldout17's GitBook export, three copies on one line). A key printed with two results, a sum of other
    terms: nothing read."""
    out = human._expected(trace, "out", 0)
    if out is None or out.ndim != 2 or out.shape != (attn.shape[0], v.shape[1]):
        return []
    shown: dict = {}  # key -> the texts of its product's result cells, one tuple a key
    for _, _, row, _, res in group:
        shown.setdefault(row, set()).add(tuple(x.text for x in res))
    if any(len(t) != 1 for t in shown.values()):
        return []
    keys = list(dict.fromkeys(row for _, _, row, _, _ in group))  # in the order the note prints them
    want = [[next(iter(shown[k]))[d] for k in keys] for d in range(v.shape[1])]  # entry d's terms
    last = group[-1][0]
    starts = human._line_starts(body)
    lo = starts[last] if last < len(starts) else len(body)
    hi = starts[last + ROW_REACH] if last + ROW_REACH < len(starts) else len(body)
    judged = []
    for m in _ENTRY_SUMS.finditer(body, lo, hi):
        entries = _LATEX_BLANK.sub(lambda b: " " * len(b.group()), m.group("body")).split(",")
        terms = [list(_TERM.finditer(e)) for e in entries]
        if [[t.group() for t in ts] for ts in terms] != want or \
                any(_TERM.sub("", e).replace("+", "").strip() for e in entries):
            continue
        res = human._cells(m.group("r").replace(",", " "), m.start("r"))
        if not res or len(res) != v.shape[1]:
            continue
        at = m.start("body")
        sums = []
        for d, (e, ts) in enumerate(zip(entries, terms)):
            cells = [human.Cell(t.group(), at + t.start()) for t in ts]
            # each term against the weighted value alone: its operands are printed on another line, and the fixed
            # weight's product (0.4063 × 0.98 = 0.3982) need not round torch's (0.39814)
            judged += [(cell, attn[r][k] * v[k][d], f"attn[{r}, {k}] · v[{k}]", None) for k, cell in zip(keys, cells)]
            sums.append(cells)
            at += len(e) + 1
        judged += [(cell, out[r][d], f"out[{r}]", ("+", sums[d])) for d, cell in enumerate(res)]
    return judged
