"""Reading hand-written notes: matrices and vectors in the forms people print them, named with
the words of ``notation.WORDS`` (en, vi, zh, LaTeX), compared with the trace (issue 8).

Forms: LaTeX ``bmatrix``/``pmatrix`` (several in one ``$$`` block), Python lists and numpy prints
(``[[a b]\\n [c d]]``), plain grids in code blocks (a ``# comment`` or a row name per row allowed),
Markdown tables whose rows are tokens, and row vectors named ``q1``, "word 1", "row 2", a token
word. The label is the text before the matrix on its line, else the lines just above it (a label
on the line before a code block). A matrix is judged only when its shape is the tensor's and at
least half of its numbers agree (so a misread label never reports false errors); otherwise its
numbers stay "not understood".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..notation import ROW_WORDS, WORDS
from ..numfmt import fmt

NUM = r"[-−–]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?%?"
NUM_RE = re.compile(r"(?<![\w.^_])" + NUM + r"(?![\w.]\d|\w)")
F32_REL = 2.0**-22


@dataclass
class Cell:
    text: str  # as printed (sign, digits, % included)
    start: int  # offset in the note


@dataclass
class Hit:
    line: int
    text: str
    ok: bool
    label: str
    expected: str
    fix: str | None


def _phrase_rx():
    out = []
    for name, phrases in WORDS.items():
        for p in phrases:
            word = p.startswith("|") and p.endswith("|")
            body = re.escape(p.strip("|").replace(" ", ""))
            rx = r"(?<![a-z0-9_])" + body + r"(?![a-z0-9_])" if word else body
            out.append((name, len(p), re.compile(rx)))
    return out


_PHRASES = None


def _flatten(label: str) -> str:
    s = label
    s = re.sub(r"\\(?:text|mathrm|operatorname|mathbf|textbf|boldsymbol)\s*\{([^{}]*)\}", r"\1", s)
    s = re.sub(r"\\frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}", r"(\1)/(\2)", s)
    s = re.sub(r"\\sqrt\s*\{([^{}]*)\}", r"√(\1)", s)
    s = s.replace("\\sqrt", "√").replace("\\top", "T").replace("\\cdot", "·").replace("\\left", "")
    s = s.replace("\\right", "").replace("^{T}", "^T").replace("^\\top", "^T").replace("^{\\top}", "^T")
    s = re.sub(r"[{}\\$*`]", "", s)
    s = re.sub(r"√\(d_?k\)|√d_?k|sqrt\(d_?k\)", "√d_k", s)
    return re.sub(r"\s+", "", s).lower()


def tensors_of(label: str) -> list[str]:
    """The tensors a label names, in the order their phrases occur (the longest phrase at a tie)."""
    global _PHRASES
    if _PHRASES is None:
        _PHRASES = _phrase_rx()
    flat = _flatten(label)
    found = []
    for name, length, rx in _PHRASES:
        m = rx.search(flat)
        if m:
            found.append(((m.start(), -length), name))
    out = []
    for _, name in sorted(found):
        if name not in out:
            out.append(name)
    return out


def tensor_of(label: str) -> str | None:
    """The tensor a label names first."""
    names = tensors_of(label)
    return names[0] if names else None


def _value(text: str) -> tuple[float, int | None]:
    """(value, decimals) of a printed number; a percentage is its fraction with two more decimals."""
    t = text.replace("−", "-").replace("–", "-")
    pct = t.endswith("%")
    t = t.rstrip("%")
    mant, _, exp = t.lower().partition("e")
    dec = len(mant.split(".")[1]) if "." in mant else 0
    if exp:
        dec -= int(exp)
    v = float(t)
    return (v / 100, dec + 2) if pct else (v, dec)


def _close(text: str, expected: float, scale: float) -> bool:
    v, dec = _value(text)
    if not np.isfinite(expected):
        return False
    tol = 0.5 * 10.0 ** (-dec) + F32_REL * max(abs(expected), scale) + 1e-15
    return abs(v - expected) <= tol


def _fix_text(text: str, expected: float) -> str:
    _, dec = _value(text)
    pct = text.endswith("%")
    e = expected * 100 if pct else expected
    d = dec - 2 if pct else dec
    s = fmt(e, d) if d > 0 else str(int(round(e)))
    if text.startswith(("−", "–")) and s.startswith("-"):
        s = text[0] + s[1:]
    mant = text.rstrip("%").lower()
    if "e" in mant:  # numpy's 4.9995e-01: the same mantissa digits, the exponent as printed
        m_dec = len(mant.split("e")[0].split(".")[1]) if "." in mant.split("e")[0] else 0
        s = f"{e:.{m_dec}e}"
        return s.upper() if "E" in text else s
    return s  # the number's digits only: a "%" after it stays in place


# ---------------------------------------------------------------- finding matrices


@dataclass
class Block:
    rows: list  # list of rows, each a list of Cell
    start: int  # offset of the matrix
    label: str  # text naming it
    row_names: list | None = None  # names printed before each row (tables, grids)


def _cells(text: str, base: int) -> list[Cell] | None:
    cells = [Cell(m.group(0), base + m.start()) for m in NUM_RE.finditer(text)]
    rest = NUM_RE.sub("", text)
    if re.search(r"[A-Za-z\u00c0-\u1ef9\u4e00-\u9fff]", rest) and not re.fullmatch(r"[\s,&;\\()\[\]]*", rest):
        return None
    return cells


def _label_before(text: str, start: int) -> str:
    """The text before ``start`` on its line; with no tensor word there, the 3 lines above."""
    ls = text.rfind("\n", 0, start) + 1
    same = text[ls:start]
    same = same.split("\\end{", 1)[-1] if "\\end{" in same else same
    nearest = same.rsplit("]", 1)[-1]  # ``Q = [[..]] V = [[..]] → Output ≈ [[..]]``: the words since the last matrix
    if nearest != same and tensor_of(nearest):
        return nearest
    if tensor_of(same):
        return same
    above = text[max(0, text.rfind("\n", 0, max(ls - 1, 0)) + 1):ls]
    tail = text[:ls].split("\n")[-5:]
    if text.count("```", 0, ls) % 2 == 0:  # outside code: a code block that ended above is no label
        tail = tail[max((n + 1 for n, ln in enumerate(tail) if ln.strip().startswith("```")), default=0):]
    lines = [ln for ln in tail if ln.strip() and not ln.strip().startswith(("```", "$$"))]
    return same + " " + " ".join(lines[-2:]) if lines else same + above


def latex_blocks(text: str) -> list[Block]:
    out = []
    for m in re.finditer(r"\\begin\{([bpvBV]?matrix|array)\}(?:\{[^}]*\})?(.*?)\\end\{\1\}", text, re.S):
        body, base = m.group(2), m.start(2)
        rows, pos = [], 0
        for part in re.split(r"(\\\\)", body):
            if part != "\\\\" and part.strip():
                cells = _cells(part.replace("&", " "), base + pos)
                if cells is None:
                    rows = None
                    break
                if cells:
                    rows.append(cells)
            pos += len(part)
        if rows:
            seg_start = max(text.rfind("$$", 0, m.start()), text.rfind("\\end{", 0, m.start()))
            ls = text.rfind("\n", 0, m.start()) + 1
            label = text[max(seg_start, ls - 200, 0):m.start()]
            if not tensor_of(label):
                label = _label_before(text, m.start())
            out.append(Block(rows, m.start(), label))
    return out


def bracket_blocks(text: str) -> list[Block]:
    """``[[..], [..]]`` lists and numpy prints (commas optional, one row per line or not)."""
    out = []
    for m in re.finditer(r"\[\s*\[", text):
        depth, i = 0, m.start()
        while i < len(text) and i - m.start() < 20000:
            ch = text[i]
            depth += ch == "["
            depth -= ch == "]"
            if depth == 0:
                break
            i += 1
        if depth:
            continue
        body = text[m.start() + 1:i]
        rows = []
        for r in re.finditer(r"\[([^\[\]]*)\]", body):
            cells = _cells(r.group(1).replace(",", " "), m.start() + 1 + r.start(1))
            if cells is None or not cells:
                rows = None
                break
            rows.append(cells)
        if rows and all(len(r) == len(rows[0]) for r in rows):
            out.append(Block(rows, m.start(), _label_before(text, m.start())))
    # a nested list inside another one is found once: keep the outermost
    return [b for b in out if not any(o.start < b.start and _inside(text, o, b) for o in out)]


def _inside(text, outer: Block, inner: Block) -> bool:
    return inner.start < outer.rows[-1][-1].start


_ROW_NAME = re.compile(r"^\s*(?:#\s*)?([^\d\s\[\]|:=-][^\[\]|:=]{0,24}?)\s*[:=|]?\s*(?=[-−\d\[])")


def grid_blocks(text: str) -> list[Block]:
    """Plain-text grids in code blocks: 2+ consecutive lines of numbers, a row name or ``# comment`` each."""
    out = []
    for fm in re.finditer(r"^```[^\n]*\n(.*?)^```", text, re.S | re.M):
        base = fm.start(1)
        rows, names, first = [], [], None
        pos = 0
        for line in fm.group(1).split("\n") + [""]:
            body = line.split("#", 1)[0]
            name = None
            nm = _ROW_NAME.match(body)
            if nm and not re.search(r"[=(]", body[:nm.end()]) and re.search(r"\d", body[nm.end():]):
                name = nm.group(1).strip()
                cells_text, off = body[nm.end():], nm.end()
            else:
                cells_text, off = body, 0
            cells = _cells(cells_text.replace(",", " ").replace("[", " ").replace("]", " "), base + pos + off) \
                if "[[" not in line and "]]" not in line else None
            if cells and len(cells) >= 2 and (not rows or len(cells) == len(rows[0])):
                if not rows:
                    first = base + pos
                rows.append(cells)
                names.append(name)
            else:
                if len(rows) >= 2:
                    out.append(Block(rows, first, _label_before(text, first), names))
                rows, names = [], []
                if cells and len(cells) >= 2:
                    first, rows, names = base + pos, [cells], [name]
            pos += len(line) + 1
    return out


def table_blocks(text: str) -> list[Block]:
    """Markdown tables whose data rows are a name (a token) and numbers."""
    out = []
    for tm in re.finditer(r"(?:^\|[^\n]*\|[ \t]*\n){3,}", text, re.M):
        lines = tm.group(0).split("\n")
        rows, names, pos = [], [], tm.start()
        for k, line in enumerate(lines):
            if k >= 2 and line.strip():
                parts = line.strip().strip("|").split("|")
                off = pos + line.index("|") + 1
                cells, ok = [], True
                for j, p in enumerate(parts):
                    if j == 0 and not NUM_RE.fullmatch(p.strip().strip("*")):
                        names.append(p.strip().strip("*`"))
                    else:
                        c = _cells(p.strip("* "), off + (len(p) - len(p.lstrip("* "))))
                        if not c or len(c) != 1:
                            ok = False
                            break
                        cells.extend(c)
                    off += len(p) + 1
                if not ok or not cells:
                    rows = []
                    break
                if len(names) < len(rows) + 1:
                    names.append(None)
                rows.append(cells)
            pos += len(line) + 1
        if rows and all(len(r) == len(rows[0]) for r in rows):
            out.append(Block(rows, tm.start(), _label_before(text, tm.start()) + " " + lines[0], names))
    return out


_FLAT = re.compile(r"(?<![\[\w])\[(?P<body>\s*" + NUM + r"(?:\s*,\s*" + NUM + r")+\s*)\](?!\s*[\[,])")


def flat_lists(text: str) -> list[tuple[int, list[Cell]]]:
    """One-dimensional printed lists ``[0.1, 0.2, 0.3]`` / ``tensor([..])`` (not rows of a matrix)."""
    out = []
    for m in _FLAT.finditer(text):
        if text[max(0, m.start() - 1):m.start()] == "[" or re.match(r"\s*\]", text[m.end():]):
            continue
        cells = _cells(m.group("body").replace(",", " "), m.start("body"))
        if cells:
            out.append((m.start(), cells))
    return out


_VEC = re.compile(r"(?P<name>[^\n\[\](){}=:|→]{1,40}?)\s*(?:=|:|→)\s*(?:np\.array\(|torch\.tensor\()?[\[(](?P<body>"
                  + NUM + r"(?:\s*[, ]\s*" + NUM + r")+)[\])]")


def row_vectors(text: str, cfg: dict) -> list[tuple[str, int, list[Cell], int]]:
    """``q1 = [1, 0, 1]``, ``Row 2: [..]``, ``Tôi: [..]``: (name, row index, cells, offset)."""
    words = [w.lower() for w in (cfg.get("labels") or [])]
    out = []
    for m in _VEC.finditer(text):
        name = re.sub(r"^\s*(?:[-*+]|\d+\.)\s+", "", m.group("name")).strip().strip("*`$ ")
        cells = _cells(m.group("body").replace(",", " "), m.start("body"))
        if not cells:
            continue
        low = name.lower()
        idx = None
        rm = re.search(r"(?:^|[\s_(])(?:" + "|".join(ROW_WORDS) + r")\s*_?(\d+)\s*(?:行)?$", low) or \
            re.fullmatch(r"(?:\\?[a-z]+_?\{?)?([qkvxzo])_?\{?(\d+)\}?", low)
        if rm and rm.lastindex == 2:
            idx = int(rm.group(2)) - 1
        elif rm:
            idx = int(rm.group(1)) - 1
        elif low in words:
            idx = words.index(low)
        if idx is not None and idx >= 0:
            out.append((name, idx, cells, m.start()))
    return out


# ---------------------------------------------------------------- comparing


def _expected(trace, name: str, head: int):
    if name == "scores_masked_raw" and "mask" in trace.steps:  # masked before scaling
        from ..config import MASK_FILL_VALUES

        raw = _expected(trace, "scores", head)
        fill = MASK_FILL_VALUES[trace.config.get("mask_fill", "-inf")]
        return None if raw is None else np.where(trace["mask"] > 0, raw, fill)
    if name not in trace.steps:
        return None
    step = trace.steps[name]
    a = step.data
    if step.axes[:1] == ("batch",):
        a = a[0]
    if step.axes[1:2] == ("head",):
        a = a[head] if head < a.shape[0] else None
    if a is not None and name.startswith("w_") and trace.config.get("weight_layout") == "in_out":
        a = a.T
    return None if a is None else np.asarray(a)


def _candidates(name: str, trace) -> list[str]:
    if name in ("scores", "scores_scaled", "scores_masked"):
        order = {"scores": ["scores", "scores_scaled", "scores_masked"],
                 "scores_scaled": ["scores_scaled", "scores_masked"],
                 "scores_masked": ["scores_masked", "scores_masked_raw"]}[name]
        return [n for n in order if n in trace.steps or (n == "scores_masked_raw" and "mask" in trace.steps)]
    if name == "out":
        return ["out", "o"]
    return [name]


def _judge(cells: list[Cell], exp: np.ndarray, label: str, text: str, sure: bool = False) -> list[Hit] | None:
    """Verdicts for ``cells`` read as ``exp``; None when fewer than half agree, unless the label is
    ``sure`` (it names one tensor, the only one of that shape): then a wholly wrong matrix is wrong."""
    flat = exp.reshape(-1)
    if len(flat) != len(cells):
        return None
    ordinary = flat[np.isfinite(flat) & (np.abs(flat) < 1e4)]  # mask fills (-1e9) do not widen the others
    scale = float(np.max(np.abs(ordinary))) if ordinary.size else 0.0
    oks = [_close(c.text, float(e), scale) for c, e in zip(cells, flat)]
    if not (sure and len(oks) >= 4) and (sum(oks) * 2 < len(oks) or (len(oks) <= 2 and not all(oks))):
        return None
    out = []
    for c, e, ok in zip(cells, flat, oks):
        line = text.count("\n", 0, c.start) + 1
        dec = max(_value(c.text)[1], 0)
        if c.text.endswith("%") and np.isfinite(e):
            shown = fmt(float(e) * 100, max(dec - 2, 0)) + "%"
        else:
            shown = fmt(float(e), dec) if np.isfinite(e) else str(e)
        out.append(Hit(line, c.text.replace("−", "-").replace("–", "-"), ok, label, shown,
                       None if ok else _fix_text(c.text, float(e))))
    return out


def _head_at(text: str, pos: int) -> int:
    hs = re.findall(r"(?:[Hh]ead|头)\s*_?(\d+)", text[max(0, pos - 600):pos])
    return int(hs[-1]) if hs else 0


def find(text: str, trace) -> dict[int, Hit]:
    """Verdicts for the numbers of ``text`` this reader understands, by offset."""
    cfg = trace.config
    one_based_heads = bool(re.search(r"[Hh]ead\s*1\b", text)) and not re.search(r"[Hh]ead\s*0\b", text)
    hits: dict[int, Hit] = {}

    def head_of(pos):
        h = _head_at(text, pos)
        return h - 1 if one_based_heads and h > 0 else h

    from . import forms

    blocks = forms.blocks(text) + latex_blocks(text) + bracket_blocks(text) + grid_blocks(text) + table_blocks(text)
    foreign = forms.foreign_sections(text, trace)  # another example's section: never "sure" there
    taken = set()
    for b in sorted(blocks, key=lambda b: b.start):
        cells = [c for r in b.rows for c in r]
        if any(c.start in taken for c in cells):
            continue
        if b.label is None:  # a form says these numbers are no tensor of the trace (forms.py): leave them unread
            taken.update(c.start for c in cells)
            continue
        names = tensors_of(b.label)
        shaped = []
        for cand in [c for n in names for c in _candidates(n, trace)]:
            exp = _expected(trace, cand, head_of(b.start))
            exp2 = None if exp is None else exp if exp.ndim == 2 else exp.reshape(1, -1) if exp.ndim == 1 else None
            if exp2 is not None and (len(b.rows), len(b.rows[0])) == exp2.shape:
                shaped.append((cand, exp2))  # one printed row of a bigger matrix is a row vector, read below
        # one tensor named, one value of that shape: the matrix is that tensor even where all of it is wrong
        sure = len(names) == 1 and len(shaped) >= 1 and all(
            np.array_equal(e, shaped[0][1], equal_nan=True) for _, e in shaped) and not forms.in_any(b.start, foreign)
        best = None
        for cand, exp2 in shaped:
            res = _judge(cells, exp2, cand, text, sure)
            if res is not None and (best is None or sum(h.ok for h in res) > sum(h.ok for h in best)):
                best = res
        if best:
            for c, h in zip(cells, best):
                hits[c.start] = h
                taken.add(c.start)
    for start, cells in flat_lists(text):
        # ``Attention weights: tensor([0.1, 0.2, ...])`` of a tensor with one row (one query): the whole tensor
        if any(c.start in taken for c in cells):
            continue
        for cand in [c for n in tensors_of(_label_before(text, start)) for c in _candidates(n, trace)]:
            exp = _expected(trace, cand, head_of(start))
            if exp is None or exp.size != len(cells) or exp.reshape(-1).shape[0] != max(exp.shape, default=0):
                continue
            res = _judge(cells, exp.reshape(1, -1), cand, text)
            if res is not None:
                for c, h in zip(cells, res):
                    hits[c.start] = h
                    taken.add(c.start)
                break
    from . import shapes, symbols

    for pos, v, e, label in shapes.claims(text, trace, symbols(trace)):
        if pos not in hits:
            hits[pos] = Hit(text.count("\n", 0, pos) + 1, str(v), v == e, label, str(e), None if v == e else str(e))
    for vname, idx, cells, start in row_vectors(text, cfg):
        if any(c.start in taken for c in cells):
            continue
        names = tensors_of(vname) or tensors_of(_label_before(text, start))
        low = vname.lower()
        single = re.fullmatch(r"(?:\\?[a-z]+_?\{?)?([qkvxzo])_?\{?\d+\}?", low)
        if single:
            names = [{"q": "q", "k": "k", "v": "v", "x": "x", "z": "out", "o": "out"}[single.group(1)]]
        for cand in [c for n in names for c in _candidates(n, trace)]:
            exp = _expected(trace, cand, head_of(start))
            if exp is None or exp.ndim != 2 or idx >= exp.shape[0]:
                continue
            res = _judge(cells, exp[idx], f"{cand}[{idx}]", text)
            if res is not None:
                for c, h in zip(cells, res):
                    hits[c.start] = h
                    taken.add(c.start)
                break
    forms.after(text, trace, hits)  # forms that read what the blocks left (check/forms.py)
    return hits


def numbers(text: str) -> list[tuple[int, str]]:
    """Every number of ``text`` (integers included): (offset, printed text)."""
    out = []
    for m in NUM_RE.finditer(text):
        if re.search(r"[\^_]\{?[-−]?$", text[max(0, m.start() - 3):m.start()]):
            continue  # an exponent or subscript of a formula (d_k^{-0.5}, W_{1}): part of a name
        out.append((m.start(), m.group(0).rstrip(".")))  # "step 1." is 1
    return out


def frac(x: float) -> Fraction:
    return Fraction(x)
