"""Hand-written notations of the held-out notes (tests/corpus/heldout) that check's readers missed or
misread on their first run: one small recogniser each, plain text in, offsets or verdicts out.

Two kinds:

- forms, with the signature of ``forms.AFTER_FORMS`` (``(text, trace, hits, foreign) -> None``), run
  last among them: they add verdicts for numbers no reader judged.
- spans of numbers that are no claim, or claim something else than they seem (a percentage restating
  the value before it, ``22,026``, a hypothetical ``If d_k = 4``, ``d_k / d_k = 1``): ``settle``, run by
  ``check._check_text`` after the merge, judges the arithmetic reader's verdicts on them again. The
  right depth for each is the reader itself (``checker.Checker._text`` / ``expr.tokenize``, named in
  each docstring); until it honours them, ``settle`` does.
"""

from __future__ import annotations

import re

import numpy as np

from . import human

_NUM = r"[-−–]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?"
# ``softmax: [0.08, 0.23, 0.24],``: one entry of a JS / Python object literal, alone on its line
_ENTRY = re.compile(r"^[ \t]*[\"']?(?P<key>[A-Za-z_][\w ]{0,40}?)[\"']?[ \t]*:[ \t]*\[(?P<body>[ \t]*" + _NUM
                    + r"(?:[ \t]*,[ \t]*" + _NUM + r")+[ \t]*)\][ \t]*,?[ \t]*$", re.M)
ROW_REACH = 12  # lines: how far above a weights list the score row that names its query may be


def object_literal_lists(text: str) -> list[tuple[str, int, list]]:
    """``key: [n, n, …],`` entries of an object literal (a widget's data, a Python dict), the trailing
    comma allowed (the reader's flat lists take such a list for a row of a matrix): (key, offset, cells)."""
    out = []
    for m in _ENTRY.finditer(text):
        cells = human._cells(m.group("body").replace(",", " "), m.start("body"))
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
        head = human._head_at(text, start)
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
        cells = human._cells(body.replace(",", " "), body_start)
        head = human._head_at(text, start)
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
        for c, h in zip(cells, human._judge(cells, attn[row[0]], f"attn[{row[0]}]", text, gated=False)):
            hits[c.start] = h


# ---------------------------------------------------------------- numbers that are no claim as read

_PERCENT_RESTATED = re.compile(r"(?P<prev>\d+\.\d+)\s*(?:=|≈|~|\\approx)\s*(?P<pct>\d+(?:\.\d+)?)\s*\\?%")


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
        ls = text.rfind("\n", 0, m.start()) + 1
        before = text[ls:m.start()]
        if before.count("[") > before.count("]") or before.count("(") > before.count(")"):
            continue  # ``[1,000, 2]``, ``f(1,234)``: a list's or a call's separators
        out.append((m.start(), m.end(), float(m.group(0).replace(",", ""))))
    return out


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


def settle(body: str, recs: list) -> list:
    """The numbers above that a reader called wrong, judged again for what they are: a percentage
    restating the decimal before it (right when it rounds that decimal), a number with thousands
    separators (its whole value against the failing check's expected value), a hypothetical or an
    identity's number (no claim about the note: not understood). Run by ``check._check_text`` after
    ``_merge_human``."""
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
            r.checks = [(ok, f"{prev} as a percentage", human.fmt(float(prev) * 100, dec) + "%")]
            r.fix = None
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
    for pos in [p for p, _, _ in hypothetical_assignments(body)] + self_ratios(body):
        m = re.match(r"\d+(?:\.\d+)?", body[pos:])
        r = take(pos, m.group(0)) if m else None
        if r is not None:
            r.checks = [c for c in r.checks if c[0]]
            r.fix = None
    return recs


FORMS = [keyed_lists, rows_after_scores]  # run last of forms.AFTER_FORMS
