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
    return _judge_either(body, recs, judged)
