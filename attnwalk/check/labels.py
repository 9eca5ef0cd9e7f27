"""Labels as documents print them (DESIGN §5) -> the trace values they denote.

The patterns come from ``notation.LABELS`` (the table the templates use) through
``notation.check_patterns``, plus the seeds' pixel forms ``α(pi→pj)``, ``Out(pi)``, ``V(pi)``.
A ``Ref`` names a tensor and an index; ``TraceView.value`` returns the expected array.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..notation import CELL_SYMBOLS, LABELS, QKV_CHUNKS, check_patterns
from .indices import index_int

# notation.LABELS names -> the checker's kinds (several names print the same way)
KIND_OF = {"o_h": "o_head", "alpha": "attn_pix", "alpha_cross": "attn_pix", "out_row": "out_pix",
           "scores_row": "scores", "scores_scaled_row": "scores_scaled", "attn_row": "attn"}
POS_AXES = {"pos", "query", "key", "token", "position", "q_pos", "k_pos", "n", "m"}


# Equal and hashed by value as a frozen dataclass is, made without its object.__setattr__ per field (a note makes
# thousands); nothing changes one after it is made.
@dataclass(slots=True, unsafe_hash=True)
class Ref:
    kind: str  # a notation name (x, qkv, q, scores_row, ...) or an extra one (attn_pix, out_pix, ...)
    text: str  # as printed (normalized)
    index: tuple = ()  # integers or None (for ':')
    head: int | None = None

    @property
    def scalar(self) -> bool:
        return bool(self.index) and all(i is not None for i in self.index)


def _parse_index(s: str):
    """``:,0,:,:`` -> (None, 0, None, None); None when an entry is a symbol (``c``, ``j``)."""
    out = []
    for part in s.split(","):
        part = part.strip()
        if part == ":":
            out.append(None)
        elif (part[1:] if part[:1] == "-" else part).isdecimal():  # -?\d+ (\d: a Unicode decimal digit)
            out.append(-index_int(part[1:]) if part[:1] == "-" else index_int(part))
        else:
            return None
    return tuple(out)


# ``_parse_index`` of the index texts a note repeats ("0, 15", ":,0,:,:"), once each (a tuple or None: immutable)
_index_of = lru_cache(maxsize=4096)(_parse_index)
_GROUPS: dict = {}  # a label pattern -> (has "h", its index groups among c/i/j, has "ix"), for ``label_at``
_CELL_PAIR = re.compile(r",[ \t]*\d+(?![\w.])")  # the second subscript of ``L_i, j`` (``L_{i, j}`` normalized)


# a position's vector or weight: ``V(p1)``, ``α(p0→p2)``; in a cross-attention, keys and values of the memory
# (encoder) positions ``K(m0)``, ``V(m_1)``, ``α(p0 → m2)`` (``mem_kind``: read only where the trace is cross)
_PIX = re.compile(r"(?<![\w'])(α|Out|V|Q|K|O)\s*\(\s*([pm])_?(\d+)(?:\s*→\s*([pm])_?(\d+))?\s*\)")
_IDX = re.compile(r"\[([^\]\n]*)\]")


_BY_FIRST: dict | None = None


def _by_first() -> dict:
    """``check_patterns()`` grouped by the character each must start with (their order kept), so that
    a position is tried only against the few labels that can start there; "" holds patterns that may
    start with any character (none today)."""
    global _BY_FIRST
    if _BY_FIRST is None:
        pats = check_patterns()
        firsts = {}
        for entry in pats:
            p = entry[1].pattern
            first = p[1] if p[0] == "\\" and not p[1].isalnum() else p[0] if p[0] not in "\\([.^$|?*+{" else ""
            firsts[id(entry)] = first
        keys = {f for f in firsts.values() if f} | set("αOVQK")  # _PIX's
        table = {k: [e for e in pats if firsts[id(e)] in (k, "")] for k in keys}
        table[""] = [e for e in pats if firsts[id(e)] == ""]
        _BY_FIRST = table
    return _BY_FIRST


def label_firsts() -> frozenset | None:
    """The characters ``label_at`` can find a label at; None when some pattern may start with any."""
    table = _by_first()
    if table[""]:
        return None
    return frozenset(k for k, v in table.items() if k and v) | frozenset("αOVQK")


def label_at(text: str, pos: int, patterns=None) -> tuple[int, Ref] | None:
    """The label starting at ``pos`` of normalized ``text``: (end, Ref), or None."""
    if pos > 0 and (text[pos - 1].isalnum() or text[pos - 1] in "_'\\"):
        return None
    if patterns is None:
        table = _by_first()
        ch = text[pos:pos + 1]
        patterns = table.get(ch, table[""])
        if not patterns and ch not in "αOVQK":
            return None  # no label and no pixel form starts with this character
    for kind, rx, nidx in patterns:
        m = rx.match(text, pos)
        if not m:
            continue
        end = m.end()
        kind = KIND_OF.get(kind, kind)
        groups = _GROUPS.get(rx)
        if groups is None:  # (each access to rx.groupindex makes a mapping: asked once a pattern)
            names = rx.groupindex
            groups = _GROUPS[rx] = ("h" in names, tuple(g for g in ("c", "i", "j") if g in names), "ix" in names)
        has_head, index_groups, has_ix = groups
        head = index_int(m.group("h")) if has_head and m.group("h") is not None else None
        if head is not None and text[end:end + 1] == "," and _CELL_PAIR.match(text, end):
            return None  # ``S_{1, 2}`` (normalized ``S_1, 2``): a cell's two subscripts, not head 1 (hand_label_at)
        index: tuple = ()
        for g in index_groups:
            if m.group(g) is not None:
                index = index + (index_int(m.group(g)),)
        if has_ix:
            ix = _index_of(m.group("ix"))
            if ix is None:
                return None
            index = ix
        # an optional index after the label: S_0[0, :], Q_0[0], W_qkv[0,1]
        im = _IDX.match(text, end)
        if im and nidx >= 0:
            ix = _index_of(im.group(1))
            if ix is None:
                return None  # S_h[i, j] with symbols: a formula, not a value
            index = index + ix
            end = im.end()
        return end, Ref(kind, text[pos:end], index, head)
    m = _PIX.match(text, pos)
    if m:
        t, at, i, j = m.group(1), m.group(2), index_int(m.group(3)), m.group(5)
        if t == "α":
            if j is None or at != "p":
                return None  # a weight is a query's (p) over a key (p, or m in a cross-attention)
            return m.end(), Ref("attn_pix", m.group(0), (i, index_int(j)))
        if j is not None:
            return None
        if at == "m":  # a memory position holds keys and values only
            return (m.end(), Ref(MEM_KINDS[t], m.group(0), (i,))) if t in MEM_KINDS else None
        return m.end(), Ref({"Out": "out_pix", "V": "v_pix", "Q": "q_pix", "K": "k_pix", "O": "o_pix"}[t],
                            m.group(0), (i,))
    return None


MEM_KINDS = {"K": "k_mem", "V": "v_mem"}  # K(m0), V(m1): the key and value rows of a cross-attention's memory


def is_cross(trace) -> bool:
    """Whether ``trace`` is a cross-attention: keys and values from their own table (``x_kv``) or fewer or more
    keys than queries. Its memory positions m0, m1, .. are the key rows; in a self-attention they name nothing."""
    steps = trace.steps
    if "x_kv" in steps:
        return True
    if "q" not in steps or "k" not in steps:
        return False
    return steps["q"].data.shape[-2] != steps["k"].data.shape[-2]


class TraceView:
    """Expected values for labels, in the layout the documents print."""

    def __init__(self, trace, strict: bool):
        self.t = trace
        self.cfg = trace.config
        self.strict = strict  # a note attnwalk generated: float64, no float32 widening
        self.b = 0

    @property
    def softmax_input(self) -> str:
        """What the softmax exponentiates: the masked scores when a mask was applied."""
        return "scores_masked" if "scores_masked" in self.t else "scores_scaled"

    def has(self, name: str) -> bool:
        return name in self.t

    @property
    def seq(self) -> bool:
        """sdpa/mha: documents print one row per token, as the trace stores them."""
        return self.cfg.get("variant") in ("sdpa", "mha")

    def _heads_fm(self, name: str, h: int) -> np.ndarray:
        """The printed matrix of head h for q/k/v/o: (features, positions) for yolo, (tokens, d) else."""
        step = self.t.steps[name]
        if self.seq:
            a = step.data[self.b]
            return a[h] if step.axes[1:2] == ("head",) else a
        a = step.data[self.b]
        axes = step.axes[1:]
        if name == "o" and len(axes) == 3 and axes[-1] not in POS_AXES:  # yolo o: (C, H, W)
            hd = self.t.derived.get("head_dim")
            return a.reshape(-1, hd, a.shape[-2] * a.shape[-1])[h]
        if axes and axes[0] == "head":
            a, axes = a[h], axes[1:]
        elif h:
            raise KeyError("head")
        if axes and axes[-1] in POS_AXES:
            return a.reshape(-1, a.shape[-1])
        return np.atleast_2d(a).T if a.ndim == 1 else a.T

    def _square(self, name: str, h: int) -> np.ndarray:
        step = self.t.steps[name]
        a = step.data[self.b]
        if step.axes[1:2] == ("head",):
            a = a[h]
        elif h:
            raise KeyError("head")
        return a

    def _image(self, name: str, b) -> np.ndarray:
        a = self.t[name]
        return a[0 if b is None else b]

    def pixel_vec(self, name: str, i: int, h: int) -> np.ndarray:
        """The vector of tensor ``name`` at position ``i`` (channels, or head features)."""
        step = self.t.steps[name]
        if step.axes[-2:] == ("row", "col"):
            a = step.data[self.b]
            return a.reshape(a.shape[0], -1)[:, i]
        if self.seq:
            a = step.data[self.b]
            if step.axes[1:2] == ("head",):
                a = a[h]
            return a[i]
        return self._heads_fm(name, h)[:, i]

    def pixel_channel(self, name: str, d: int, n: int, h: int) -> np.ndarray:
        """``[pixel_vec(name, j, h)[d] for j in range(n)]`` as one float array, read at once (a weighted sum's
        second vector: channel d of V at every position); shorter where the tensor has fewer positions."""
        step = self.t.steps[name]
        if step.axes[-2:] == ("row", "col"):
            a = step.data[self.b]
            return np.array(a.reshape(a.shape[0], -1)[d, :n], dtype=float)
        if self.seq:
            a = step.data[self.b]
            if step.axes[1:2] == ("head",):
                a = a[h]
            return np.array(a[:n, d], dtype=float)
        return np.array(self._heads_fm(name, h)[d, :n], dtype=float)

    def value(self, ref: Ref, ctx_head: int | None = None) -> np.ndarray | None:
        """The expected array for ``ref`` (index applied), or None if the trace lacks it."""
        k = ref.kind
        h = ref.head if ref.head is not None else (ctx_head or 0)
        try:
            if k in ("x", "qkv", "o", "pe", "o_pe", "out"):
                ix = ref.index
                if len(ix) != 4:
                    return None
                a = self._image(k, ix[0])
                return _apply(a, ix[1:])
            if k in ("q", "k", "v", "o_head"):
                a = self._heads_fm("o" if k == "o_head" else k, h)
                return _apply(a, ref.index)
            if k in ("scores", "scores_scaled", "attn", "exp_row", "exp_raw"):
                name = {"exp_row": "exp"}.get(k, k)
                if k == "exp_raw":
                    a = np.exp(self._square(self.softmax_input, h))
                else:
                    a = self._square(name, h)
                return _apply(a, ref.index)
            if k in ("row_max", "row_sum", "raw_sum", "attn_sum"):
                i = ref.index[0]
                if k == "raw_sum":
                    return np.asarray(np.exp(self._square(self.softmax_input, h)[i]).sum())
                if k == "attn_sum":
                    return np.asarray(self._square("attn", h)[i].sum())
                a = self.t[k][self.b]
                if self.t.steps[k].axes[1:2] == ("head",):
                    a = a[h]
                return np.asarray(a[i])
            if k in QKV_CHUNKS:
                return self._chunk(k, ref.index)
            if k == "mask" and not self.strict:
                return None  # a hand-written M is often additive (0 kept, -inf dropped) or a drop mask: unread
            if self.seq and k in SEQ_WHOLE:
                name = SEQ_WHOLE[k]
                a = self.t[name]
                step = self.t.steps[name]
                if step.axes[:1] == ("batch",):
                    a = a[self.b]
                if step.axes[1:2] == ("head",):
                    a = a[h]
                if name.startswith("w_") and not self.strict and self.cfg.get("weight_layout") == "in_out":
                    a = np.asarray(a).T  # a hand note's W as the scenario gives it: (in, out), for X @ W
                return _apply(a, ref.index)
            if k == "w_qkv" or k == "w_proj":
                if not self.has(k):
                    return None
                return _apply(self.t[k][:, :, 0, 0], ref.index)
            if k == "w_pe":
                return _apply(self.t["w_pe"][ref.index[0], 0], ref.index[1:])
            if k == "attn_pix":
                return np.asarray(self._square("attn", h)[ref.index[0], ref.index[1]])
            if k in ("k_mem", "v_mem"):  # a memory position's key or value: a cross-attention's only
                return _apply(self.pixel_vec(k[0], ref.index[0], h), ref.index[1:]) if is_cross(self.t) else None
            if k in ("out_pix", "v_pix", "q_pix", "k_pix", "o_pix"):
                name = {"out_pix": "out" if self.has("out") else "o", "v_pix": "v", "q_pix": "q", "k_pix": "k",
                        "o_pix": "o"}[k]
                return _apply(self.pixel_vec(name, ref.index[0], h), ref.index[1:])
            if k == "window":  # the zero-padded 3x3 window of the PE input around (y, x) of channel c
                c, y, x = ref.index
                src = self.t["v"][self.b].reshape(self.t["x"].shape[1:]) if self.cfg.get("pe_on") == "v" \
                    else self.t["o"][self.b]
                return np.pad(src[c], 1)[y:y + 3, x:x + 3]
        except (KeyError, IndexError, ValueError, TypeError):
            return None
        return None

    def _chunk(self, kind: str, index: tuple) -> np.ndarray | None:
        """mha's Q, K, V (or b_q, b_k, b_v): a third of QKV's (b_qkv's) channels, as ``chunk(3, dim=-1)`` cuts
        them; None outside an mha trace (an sdpa note's ``Q = X W_Q^T`` names no chunk)."""
        name = LABELS[kind][1]
        if self.cfg.get("variant") != "mha" or not self.has(name):
            return None
        a = self.t[name]
        if self.t.steps[name].axes[:1] == ("batch",):
            a = a[self.b]
        d = a.shape[-1] // 3
        part = QKV_CHUNKS[kind]
        return _apply(a[..., part * d:(part + 1) * d], index)

    def scale(self, ref: Ref, ctx_head: int | None = None) -> float:
        """Magnitude for the float32 widening: the largest value of the whole printed tensor."""
        whole = Ref(ref.kind, ref.text, whole_index(ref), ref.head)
        v = self.value(whole, ctx_head)
        if v is None or not np.size(v):
            return 0.0
        return float(np.max(np.abs(v)))


def whole_index(ref: Ref) -> tuple:
    """The index of the whole tensor ``ref`` is printed from (``TraceView.scale``): every entry ':', but
    for the kinds whose index picks the tensor itself."""
    if ref.kind in ("w_pe", "attn_pix", "out_pix", "v_pix", "q_pix", "k_pix", "o_pix", "k_mem", "v_mem", "row_max",
                    "row_sum", "raw_sum", "attn_sum", "window"):
        return ref.index
    return tuple(None for _ in ref.index)


SEQ_WHOLE = {"x_seq": "x", "x_kv": "x_kv", "w_q": "w_q", "w_k": "w_k", "w_v": "w_v", "b_qkv": "b_qkv",
             "w_qkv": "w_qkv", "w_out": "w_out", "b_out": "b_out", "qkv_seq": "qkv", "mask": "mask",
             "scores_masked": "scores_masked", "o_merged": "o_merged", "out_seq": "out"}


def cell_label(ref: Ref, place: tuple) -> str:
    """The name of one printed cell of ``ref``: ``S_0`` at (1, 2) is ``S_0[1, 2]``, the row ``A_0[2, :]`` at
    (3,) is ``A_0[2, 3]``; ``ref``'s own name where the printed shape does not say which axes are free."""
    if not place:
        return ref.text
    if not ref.index:
        return f"{ref.text}[{', '.join(map(str, place))}]"
    free = [k for k, i in enumerate(ref.index) if i is None]
    if len(free) != len(place) or "[" not in ref.text:
        return ref.text
    full = list(ref.index)
    for k, p in zip(free, place):
        full[k] = p
    return f"{ref.text[:ref.text.index('[')]}[{', '.join(map(str, full))}]"


def _apply(a: np.ndarray, index: tuple) -> np.ndarray | None:
    """Index ``a`` with ints/None (None = ':'); fewer indices than axes first drop leading 1-axes."""
    a = np.asarray(a)
    while len(index) < a.ndim and a.shape[0] == 1 and index:
        a = a[0]
    if len(index) > a.ndim:
        return None
    sl = tuple(slice(None) if i is None else i for i in index)
    return np.asarray(a[sl])


# ---------------------------------------------------------------- hand-written element names

# One element of the scores or the weights as people name it in worked lines: ``score(q1, k2)``,
# ``s_01``, ``s_{1,2}``, ``S[0][1]``, ``S[0,1]``, ``α_12``, ``a_{ij}``-style with digits only.
# Whether ``s_12`` counts from 0 or 1 is the note's convention (``index_base``); ``q1``/``k2``
# names count from 1 as the row names of ``human`` do.
_HAND_ELEM = re.compile(
    r"(?P<name>score|scores|s|S|α|alpha|e)"
    r"(?:\(\s*(?P<q>q|x|word|token)?_?(?P<i1>\d+)\s*,\s*(?P<k>k|x|word|token)?_?(?P<j1>\d+)\s*\)"
    r"|_\(?(?P<i2>\d)(?P<j2>\d)\)?(?![\w.])"
    r"|_\(?(?P<i3>\d+)\s*,\s*(?P<j3>\d+)\)?(?![\w.])"
    r"|\[\s*(?P<i4>\d+)\s*\]\s*\[\s*(?P<j4>\d+)\s*\]"
    r"|\[\s*(?P<i5>\d+)\s*,\s*(?P<j5>\d+)\s*\])")
_INDEX_GROUPS = ("i2", "j2", "i3", "j3", "i4", "j4", "i5", "j5")


def index_base(text: str) -> int:
    """0 when the note's element names use an index 0 anywhere (``s_01``, ``S[0][1]``, ``p0``), else 1."""
    for m in _HAND_ELEM.finditer(text):
        if m.start() and (text[m.start() - 1].isalnum() or text[m.start() - 1] in "_'\\"):
            continue
        if any(m.group(g) is not None and index_int(m.group(g)) == 0 for g in _INDEX_GROUPS):
            return 0
    if re.search(r"(?<![\w])(?:p|q|k|v|x|token|row|word)_?0(?!\d)", text):
        return 0
    if _ROW_ZERO.search(text):
        return 0  # ``Row 0:``: rows (checker's _ROW_RE words) counted from 0
    return 1


_ROW_ZERO = re.compile(r"\b(?:[Hh]àng|[Rr]ow|[Pp]ixel|[Tt]oken)\s+(?:i\s*=\s*)?p?_?0\b")


def hand_label_at(text: str, pos: int, base: int) -> tuple[int, Ref] | None:
    """A hand-written element name at ``pos``: (end, Ref of ``scores`` (i, j) or ``attn`` (i, j) for
    α), else None. ``e_ij`` stays unread: notes use e for scores, exponentials and Euler's number."""
    if pos > 0 and (text[pos - 1].isalnum() or text[pos - 1] in "_'\\"):
        return None
    m = _HAND_ELEM.match(text, pos)
    if not m:
        return subscript_cell_at(text, pos, base)
    if m.group("name") == "e":
        return None
    name = m.group("name")
    if m.group("i1") is not None:
        if name in ("s", "S", "α", "alpha"):
            return None  # s(1, 2) is a call, not a name
        one = m.group("q") is not None or m.group("k") is not None
        i, j, b = index_int(m.group("i1")), index_int(m.group("j1")), (1 if one else base)
    else:
        g = next(n for n in "2345" if m.group("i" + n) is not None)
        i, j, b = index_int(m.group("i" + g)), index_int(m.group("j" + g)), base
    if name in ("S",) and m.group("i2") is not None:
        return None  # S_01 is head 0's S, row 1 in attnwalk's own notation: not this form
    i, j = i - b, j - b
    if i < 0 or j < 0:
        return None
    kind = "attn" if name in ("α", "alpha") else "scores"
    return m.end(), Ref(kind, text[pos:m.end()], (i, j))


_SUBSCRIPT_CELL = re.compile(r"(?P<name>" + "|".join(map(re.escape, CELL_SYMBOLS))
                             + r")_(?P<i>\d+),[ \t]*(?P<j>\d+)(?![\w.])")


def subscript_cell_at(text: str, pos: int, base: int) -> tuple[int, Ref] | None:
    """``A_{1, 2}`` (normalized ``A_1, 2``): one cell of the tensor the letter names (``notation.CELL_SYMBOLS``),
    1-based, when the note counts from 1 (``index_base``); in a note that counts from 0 somewhere the name is
    read as no value (its chain stays arithmetic), never its second subscript as a number of its own."""
    m = _SUBSCRIPT_CELL.match(text, pos)
    if m is None:
        return None
    i, j = index_int(m.group("i")) - 1, index_int(m.group("j")) - 1
    if base != 1 or i < 0 or j < 0:
        return m.end(), Ref("unread", m.group(0), ())
    return m.end(), Ref(CELL_SYMBOLS[m.group("name")], m.group(0), (i, j))
