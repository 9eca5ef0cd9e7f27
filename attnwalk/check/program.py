"""Numbers a note publishes as code: the literal assignments of its ``python`` blocks (``X = np.array([[..]])``,
``W_Q = torch.tensor(..)``, ``weights = [[..], ..]``), read with ``ast``, judged as a labelled matrix is.

A literal is judged only where its target names a tensor of the trace (``notation.CODE_NAMES``, else the words
of ``notation.WORDS`` with ``notation.CODE_NEUTRAL_WORDS`` beside them), its shape is that tensor's, and no later
statement of its block rebinds or changes the name (``Q = X @ W_Q`` afterwards: the literal was something else).
The arrays a block prints are read as what its prints name, or as the step of attention a printed expression or
a name's one assignment computes (``computed``: ``print(torch.softmax(q @ k.T / 2**0.5, dim=-1))``). Everything
else in code (other computed expressions, loops, random data, names the vocabulary does not know) gets no
verdict at all. Each number's place comes from its AST node, so ``--fix`` rewrites exactly its characters.
"""

from __future__ import annotations

import ast
import re
from bisect import bisect_left
from itertools import accumulate, chain

import numpy as np

from ..notation import CODE_NAMES, CODE_NEUTRAL_WORDS, QUERY_ROWS, WORDS
from . import computed
from .indices import index_int

# Calls that make an array of a literal, unchanged: ``np.array([..])``, ``torch.tensor([..], dtype=..)``, TensorFlow's
# ``tf.constant([..], dtype=tf.float32)`` (heldout17's notebook)
_MODULES = frozenset(("np", "numpy", "torch", "jnp", "tf"))
_MAKERS = frozenset(("array", "asarray", "tensor", "Tensor", "as_tensor", "matrix", "FloatTensor", "DoubleTensor",
                     "constant", "convert_to_tensor"))
_KEYWORDS = frozenset(("dtype", "requires_grad", "device"))  # what such a call may say besides the literal
_SAME_VALUES = frozenset(("float", "double", "numpy", "cpu"))  # ``torch.tensor([..]).float()``: the same numbers
_PLAIN = re.compile(r"\d+(?:\.\d*)?(?:[eE][-+]?\d+)?")  # a number as the checker reads it printed (no 1_000, .5)
MAX_CELLS = 200_000  # numbers of one literal read at most (a larger one is no worked example)
_INFOS = frozenset(("python", "py"))  # the fences ``source.is_program`` reads as Python
_SPLIT = re.compile(r"_+|(?<=[a-z])(?=[A-Z])")  # an identifier's words: ``attn_weights``, ``attnWeights``


def python_blocks(text: str, spans: list | None = None) -> list[tuple[int, str, list[int]]]:
    """(index in ``spans``, content, absolute offset of each content line's first character) of each ``python``/
    ``py`` fence of ``text`` (``spans``: its ``fences``) whose lines all lie in the note (in a blockquote too: the
    quote marks of each line are dropped, their width kept in the offsets): the blocks ``code_literals`` reads."""
    spans = fences(text) if spans is None else spans
    return [(k, *c) for k, (_, _, info, content, a, _) in enumerate(spans) if info in _INFOS
            and (c := _content(text, a, content)) is not None]


def has_python_fence(text: str) -> bool:
    """Whether a fence mark of ``text`` is followed by an info starting with "py" (every python fence's; a few
    more: ``pycon``): the one test a note without one pays, over the note's one scan of each mark
    (``human._offsets``, which ``human`` asks for too)."""
    from .human import _offsets

    for mark in ("```", "~~~"):
        end = 0
        for at in _offsets(text, mark):
            if at < end:
                continue  # another mark of the run just looked at
            end = at + 3
            while text.startswith(mark[0], end):
                end += 1
            if text[end:end + 16].lstrip(" \t")[:2].lower() == "py":
                return True
    return False


def fences(text: str) -> list[tuple[int, int, str, str, int, int]]:
    """(start, end, info, content, content start, content end) of each fenced block of ``text``: the note's one
    list of them (``source.fences``, CommonMark's blocks as markdown-it finds them, in blockquotes and list items
    too; an unclosed one runs to its container's end), ``content`` its lines without container marks or indent."""
    from .source import fences as blocks
    from .source import line_starts

    out = []
    starts = None
    for f in blocks(text):
        if starts is None:
            starts = line_starts(text)
        first, past = f.lines
        a = starts[first + 1] if first + 1 < len(starts) else len(text)
        b = (starts[past - 1] if f.closed else f.end) if past - 1 > first else a
        out.append((f.start, f.end, f.info, f.content, min(a, b), b))
    return out


_HEADING = re.compile(r"^(?:>[ \t]?)*[ ]{0,3}#{1,6}(?:[ \t]|$)", re.M)


def headings(text: str, spans: list[tuple[int, int, str, str, int, int]]) -> list[int]:
    """Where the Markdown headings of ``text`` start, those inside fenced blocks (``spans``: a ``# comment`` of
    code) left out."""
    out, k = [], 0
    for m in _HEADING.finditer(text):
        while k < len(spans) and spans[k][1] <= m.start():
            k += 1
        if k == len(spans) or m.start() < spans[k][0]:
            out.append(m.start())
    return out


def _content(text: str, a: int, content: str) -> tuple[str, list[int]] | None:
    """``content`` (a block's lines as markdown-it keeps them, starting at offset ``a``) and where each of its
    lines starts in ``text``: each is the end of its line of the note. None where one is not (a tab that
    markdown-it expanded): no place in the note for its numbers, so the block is not read."""
    from .source import line_starts

    starts = line_starts(text)
    k = bisect_left(starts, a)
    if k < len(starts) and starts[k] == a and "\r" not in content and text.startswith(content, a):
        # the block as it stands in the note (no container marks, no tab expanded): each line after the last's "\n"
        lines = content.split("\n")[:-1]
        return content, list(accumulate((len(line) + 1 for line in lines[:-1]), initial=a))[:len(lines)]
    out = []
    for line in content.split("\n")[:-1]:
        if k >= len(starts):
            return None
        stop = starts[k + 1] if k + 1 < len(starts) else len(text)
        while stop > starts[k] and text[stop - 1] in "\r\n":
            stop -= 1
        if not text.startswith(line, stop - len(line)) or stop - len(line) < starts[k]:
            return None
        out.append(stop - len(line))
        k += 1
    return content, out


# ---------------------------------------------------------------- names


def tensors_named(ident: str) -> list[str]:
    """The tensors a Python identifier names (``W_Q``, ``scaled_scores``, ``ESPERADO_SCORES_ESCALADOS``): [] for
    one it does not name, or names with other words (``exp_values``, ``sum_exp``), or with digits (``q1``, a row
    or a head: not read). Strict, as a literal's numbers are judged as what its name says; ``notations.
    identifier_tensor`` (a printed name) takes this reading where it gives one tensor and reads further past it."""
    name = ident.rsplit(".", 1)[-1]  # ``self.W_q``: the attribute
    if name in CODE_NAMES or (len(name) > 1 and name.lower() in CODE_NAMES):
        return [CODE_NAMES.get(name) or CODE_NAMES[name.lower()]]
    if any(ch.isdigit() for ch in name):
        return []
    words = [w.lower() for w in _SPLIT.split(name) if w]
    if not words:
        return []
    flat = "".join(words)
    bounds, k = [], 0  # each word's span in ``flat``
    for w in words:
        bounds.append((k, k + len(w)))
        k += len(w)
    found = []  # (start, end, tensor) of each phrase of WORDS in flat: a phrase of words, at word bounds
    starts, ends = {a for a, _ in bounds}, {b for _, b in bounds}
    for tensor, phrases in WORDS.items():
        for p in phrases:
            body = p.strip("|").replace(" ", "").replace("_", "")
            if not body or not body.isalnum():
                continue
            at = flat.find(body)
            while at >= 0:
                if at in starts and at + len(body) in ends:
                    found.append((at, at + len(body), tensor))
                at = flat.find(body, at + 1)
    # a phrase inside a longer one is part of it ("scores" in "scaled scores")
    found = [f for f in found if not any(g[0] <= f[0] and f[1] <= g[1] and g[1] - g[0] > f[1] - f[0] for g in found)]
    for a, b in bounds:
        if flat[a:b] not in CODE_NEUTRAL_WORDS and not any(f[0] <= a and b <= f[1] for f in found):
            return []  # a word that names nothing known
    out = []
    for _, _, tensor in sorted(found):
        if tensor not in out and tensor != "weighted":
            out.append(tensor)
    return out


# ---------------------------------------------------------------- literals


def _array_literal(node: ast.AST) -> ast.AST | None:
    """The list or tuple a value is made of (``np.array(L, dtype=..)``, ``torch.tensor(L).float()``, ``L``)."""
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _SAME_VALUES \
            and not node.args and not node.keywords:
        node = node.func.value
    if isinstance(node, ast.Call):
        f = node.func
        if not (isinstance(f, ast.Attribute) and f.attr in _MAKERS and isinstance(f.value, ast.Name)
                and f.value.id in _MODULES):
            return None
        if len(node.args) != 1 or any(kw.arg not in _KEYWORDS for kw in node.keywords):
            return None
        node = node.args[0]
    return node if isinstance(node, (ast.List, ast.Tuple)) else None


def _grid(node: ast.AST) -> tuple[tuple[int, ...], list[ast.AST]] | None:
    """(shape, numbers in row-major order) of a rectangular nested list of numbers; None for anything else. Level
    by level, without recursion (a literal nested as deep as the parser allows costs no stack)."""
    level, shape = [node], []
    while all(isinstance(n, (ast.List, ast.Tuple)) for n in level):
        sizes = {len(n.elts) for n in level}
        if len(sizes) != 1 or 0 in sizes:
            return None
        shape.append(sizes.pop())
        level = list(chain.from_iterable(n.elts for n in level))
        if len(level) > MAX_CELLS:
            return None
    for n in level:
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.UAdd)):
            n = n.operand
        if not (isinstance(n, ast.Constant) and type(n.value) in (int, float)):
            return None
    return tuple(shape), level


def _dotted(node: ast.AST) -> str | None:
    """``Q``, ``self.W_q``: the name a target binds or changes; None for other targets."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id] + parts[::-1])


def _changes(tree: ast.AST) -> dict[str, list[tuple[int, int]]]:
    """Where each name is bound or changed in a block (assigned, augmented, a loop's or ``with``'s target, an
    item or attribute of it assigned, an in-place ``x.add_(..)``, imported, defined): (line, column) of each."""
    out: dict[str, list[tuple[int, int]]] = {}

    def add(target: ast.AST) -> None:
        stack = [target]
        while stack:
            t = stack.pop()
            if isinstance(t, (ast.Tuple, ast.List)):
                stack.extend(t.elts)
            elif isinstance(t, ast.Starred):
                stack.append(t.value)
            elif isinstance(t, ast.Subscript):
                stack.append(t.value)
                base = _dotted(t.value)
                if base is not None:  # an item changed: ``Q[0] = ..`` (a row of Q, ``Q[0]``), ``Q[:, 1] = ..``
                    out.setdefault(base + "[]", []).append((t.lineno, t.col_offset))
                    if (row := _row_index(t)) is not None:
                        out.setdefault(f"{base}[{row}]", []).append((t.lineno, t.col_offset))
            else:
                key = _dotted(t)
                if key is not None:
                    for k in {key, key.split(".")[0]}:  # ``self.W_q = ..`` changes ``self`` too, never the reverse
                        out.setdefault(k, []).append((t.lineno, t.col_offset))

    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                add(t)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.NamedExpr, ast.For, ast.AsyncFor)):
            add(node.target)
        elif isinstance(node, ast.comprehension):
            add(node.target)
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            add(node.optional_vars)
        elif isinstance(node, ast.Delete):
            for t in node.targets:
                add(t)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr.endswith("_") \
                and not node.func.attr.startswith("_"):
            add(node.func.value)  # torch's in-place methods: ``W.mul_(2)``
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.setdefault(node.name, []).append((node.lineno, node.col_offset))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                out.setdefault((alias.asname or alias.name).split(".")[0], []).append((node.lineno, node.col_offset))
    return out


def _statements(body: list[ast.stmt], defs: bool = True):
    """The statements of a block in order, into ``if``/``with``/``try`` and (``defs``) function bodies (what runs
    once, as written), never into loops (a literal there is data of one pass among many)."""
    stack = [iter(body)]
    while stack:
        node = next(stack[-1], None)
        if node is None:
            stack.pop()
            continue
        yield node
        if isinstance(node, (ast.If, ast.With, ast.AsyncWith)):
            stack.append(iter(node.body + getattr(node, "orelse", [])))
        elif isinstance(node, ast.Try):
            stack.append(iter(node.body + [s for h in node.handlers for s in h.body] + node.orelse + node.finalbody))
        elif defs and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            stack.append(iter(node.body))


def literals(content: str, tree: ast.Module) -> list[tuple[list[str], tuple[int, ...], list[tuple[str, int, int]]]]:
    """(target names, shape, numbers) of each literal assignment of a parsed block whose names are not rebound or
    changed after it; each number as (text as printed, its sign included; 0-based line in ``content``; column)."""
    lines = content.split("\n")
    changes = None
    out = []
    for node in _statements(tree.body):
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        lit = _array_literal(value)
        if lit is None:
            continue
        names = [_dotted(t) if not isinstance(t, ast.Subscript) else _row_name(t) for t in targets]
        if None in names:
            continue  # ``a, b = [..]``, ``Q[:, 0] = [..]``: not one tensor's literal (or one row of it)
        grid = _grid(lit)
        if grid is None:
            continue
        shape, leaves = grid
        if changes is None:
            changes = _changes(tree)
        here = (node.lineno, node.col_offset)
        if any(_changed_after(changes, name, here) for name in names):
            continue  # rebound or changed later in the block: which value the literal is, only running tells
        nums = []
        for leaf in leaves:
            num = _printed(lines, leaf)
            if num is None:
                break
            nums.append(num)
        else:
            out.append((names, shape, nums))
    return out


def _row_index(t: ast.Subscript) -> int | None:
    """The row a subscript names: ``Q[0]`` is 0; None for anything else (``Q[-1]``, ``Q[i]``, ``Q[:, 0]``)."""
    sl = t.slice
    return sl.value if isinstance(sl, ast.Constant) and type(sl.value) is int and sl.value >= 0 else None


def _row_name(t: ast.Subscript) -> str | None:
    """``Q[0]`` for a target assigning row 0 of ``Q``; None for other subscripts."""
    base, row = _dotted(t.value), _row_index(t)
    return None if base is None or row is None else f"{base}[{row}]"


_ROW_NAME = re.compile(r"(.+)\[(\d+)\]")


def _changed_after(changes: dict, name: str, here: tuple[int, int]) -> bool:
    """Whether ``name`` (``Q``, or a row ``Q[0]``) is changed after ``here``: for a row, ``Q`` rebound or changed
    otherwise than by an item (``Q[1] = ..`` leaves row 0), or that row assigned again. From the last change of
    each (kept in ``changes`` under ``(name, kind)``: a block assigning one name 5,000 times asks 5,000 times)."""
    m = _ROW_NAME.fullmatch(name)
    if m is None:
        return _last(changes, name, False) > here
    return _last(changes, m.group(1), True) > here or _last(changes, name, False) > here


def _last(changes: dict, name: str, whole: bool) -> tuple[int, int]:
    """The last change of ``name`` (``whole``: not counting those of an item of it)."""
    key = (name, whole)
    got = changes.get(key)
    if got is None:
        items = set(changes.get(name + "[]", ())) if whole else ()
        got = changes[key] = max((p for p in changes.get(name, ()) if p not in items), default=(0, -1))
    return got


def _col(line: str, byte_col: int) -> int:
    """A character column of ``line`` from ``ast``'s UTF-8 byte offset."""
    return byte_col if line.isascii() else len(line.encode("utf-8")[:byte_col].decode("utf-8", "ignore"))


def _printed(lines: list[str], leaf: ast.AST) -> tuple[str, int, int] | None:
    """(text, 0-based line, column) of a literal's number as the note prints it, its minus included; None for a
    number the checker does not read printed (``1_000``, ``.5``, ``0x1f``)."""
    sign = ""
    at = leaf
    if isinstance(leaf, ast.UnaryOp):
        sign = "-" if isinstance(leaf.op, ast.USub) else ""
        leaf = leaf.operand
    if leaf.lineno != leaf.end_lineno or (sign and at.lineno != leaf.lineno):
        return None
    line = lines[leaf.lineno - 1]
    a, b = _col(line, leaf.col_offset), _col(line, leaf.end_col_offset)
    digits = line[a:b]
    if not _PLAIN.fullmatch(digits):
        return None
    if sign:
        s = _col(line, at.col_offset)
        if line[s] != "-" or line[s + 1:a].strip() or a - s > 2:  # ``-0.5``, ``- 0.5``: as ``fix`` finds them
            return None
        return "-" + digits, leaf.lineno - 1, s
    return digits, leaf.lineno - 1, a


# ---------------------------------------------------------------- judging


def _strip(shape: tuple) -> tuple:
    """A shape without its leading 1s: a batch of one, a head of one, one query (``[[..]]`` is ``[..]``)."""
    k = 0
    while k < len(shape) - 1 and shape[k] == 1:
        k += 1
    return tuple(shape[k:])


def _views(trace, cand: str) -> list[tuple[np.ndarray, bool]]:
    """(values, whole) of a tensor as a note's literal may print it: the whole tensor (weights in the note's layout,
    ``weight_layout``), and, for a tensor of several heads, each head's matrix (whole: False)."""
    from .human import _expected

    out = []
    step = trace.steps.get(cand)
    if step is not None:
        a = np.asarray(step.data)
        if cand.startswith("w_") and trace.config.get("weight_layout") == "in_out" and a.ndim == 2:
            a = a.T
        out.append((a, True))
        heads = a.shape[1] if step.axes[1:2] == ("head",) else 1
    else:  # a tensor made for the comparison (``scores_masked_raw``): each head's matrix
        heads = trace.steps["scores"].data.shape[1] if "scores" in trace.steps else 1
    if heads > 1 or step is None:
        for h in range(heads):
            e = _expected(trace, cand, h)
            if e is not None:
                out.append((e, step is None and heads == 1))
    return out


# Tensors a scenario takes as given: a literal of one of them agreeing with the scenario says the code around it
# works this note's example (q, k, v only where the scenario gives them directly)
_INPUTS = ("x", "x_kv", "w_q", "w_k", "w_v", "w_qkv", "b_qkv", "w_out", "b_out", "w_proj", "b_proj", "w_pe")


def code_literals(text: str, trace, hits: dict) -> None:
    """Verdicts for the numbers of the literal assignments in ``text``'s ``python`` blocks, and of the arrays their
    ``print(NAME)`` calls printed in the fences right after them (``printed``), into ``hits`` (by offset), judged
    as ``human`` judges a labelled matrix (``best_reading``): where one tensor is named, a wholly wrong literal is
    wrong; otherwise at least half its numbers must agree. A literal in another example's section
    (``forms.foreign_sections``) is never judged wholly wrong, unless code of its own section gave this scenario's
    inputs (a literal of X or a weight, every number right) before it: what that code computes is this example's
    (a section whose literal Q, made up rather than computed from the X and W_Q above it, looks foreign only for
    being wrong)."""
    if not has_python_fence(text):
        return
    spans = fences(text)
    if not any(info in _INFOS for _, _, info, _, _, _ in spans):
        return
    from .human import Cell
    from .source import parsed

    judge = _Judge(text, trace, spans)
    env: dict = {}  # what each name of the code so far holds (``computed``): blocks run in order, as in a notebook
    for k, content, starts in python_blocks(text, spans):
        if "[" not in content and "(" not in content:
            continue
        tree = parsed(content)
        if tree is None:
            continue
        found = literals(content, tree)
        for names, shape, nums in found:
            judge(hits, [Cell(t, starts[ln] + col) for t, ln, col in nums], shape, names)
        env, given = _given(env, found)
        env = computed.bindings(tree, env, trace, given)
        outs = _outputs_after(text, spans, k)
        if outs:
            printed(text, tree, outs, judge, hits, env)


def _given(env: dict, found: list) -> tuple[dict, frozenset]:
    """``env`` with the names of this block's literals of q, k, v (what ``computed`` builds the steps from), and
    those names."""
    env, given = dict(env), set()
    for names, _, _ in found:
        for n in names:
            named = tensors_named(n) if "." not in n and "[" not in n else []
            if len(named) == 1 and named[0] in ("q", "k", "v"):
                env[n] = named[0]
                given.add(n)
    return env, frozenset(given)


class _Judge:
    """Judging one grid of cells named in code, with what the note around it says (another example's sections,
    the inputs its code gave right so far)."""

    def __init__(self, text: str, trace, spans: list):
        self.text, self.trace, self.spans = text, trace, spans
        self.inputs = _INPUTS + (("q", "k", "v") if trace.config.get("source", "direct") == "direct" else ())
        self.foreign = self.heads = None
        self.given: list[int] = []  # offsets of the literals of this scenario's inputs found right, in order
        self.other: list[int] = []  # offsets of those found mostly unlike the scenario's (another example's)

    def __call__(self, hits: dict, cells: list, shape: tuple, names: list[str]) -> bool:
        """Put the verdicts of ``cells`` (a grid of ``shape``) read as the tensor ``names`` name into ``hits``;
        False where there are none (no tensor named, no shape of it, too few numbers agree)."""
        from bisect import bisect_right

        from . import forms
        from .human import _candidates, _judge, best_reading

        text, trace = self.text, self.trace
        rows = {m.group(2) if (m := _ROW_NAME.fullmatch(n)) else None for n in names}
        if len(rows) != 1:
            return False
        row = rows.pop()
        if row is not None:  # ``Q[0] = [..]``: row 0 of Q
            if len(shape) != 1:
                return False
            names, row = [_ROW_NAME.fullmatch(n).group(1) for n in names], index_int(row)
        tensors = []
        for n in names:
            for t in tensors_named(n):
                if t not in tensors:
                    tensors.append(t)
        if not tensors:
            return False
        want = _strip(shape)
        shaped, whole = [], True
        for cand in [c for t in tensors for c in _candidates(t, trace)]:
            for exp, entire in _views(trace, cand):
                label = cand
                if row is not None:
                    full = _strip(exp.shape)
                    if len(full) != 2 or row >= full[0]:
                        continue
                    exp, label = exp.reshape(full)[row], f"{cand}[{row}]"
                if _strip(exp.shape) == want:
                    shaped.append((label, exp.reshape(-1)))
                    whole = whole and entire
        if not shaped:
            return False
        if self.foreign is None:
            self.foreign, self.heads = forms.foreign_sections(text, trace), headings(text, self.spans)
        at = cells[0].start
        k = bisect_right(self.heads, at)
        section = self.heads[k - 1] if k else 0
        if tensors[0] in self.inputs and whole:  # an input mostly unlike the scenario's: another example's code
            res = _judge(cells, shaped[0][1], shaped[0][0], text, gated=False)
            if res is not None and sum(h.ok for h in res) * 2 < len(res):
                self.other.append(at)
        # evidence that the grid is not this example's tensor: code of its section gave another example's inputs,
        # or rows of "weights" that do not sum to 1
        other = any(section <= o < at for o in self.other) or (
            tensors == ["attn"] and not _rows_sum_to_one(cells, want))
        sure = whole and len(tensors) == 1 and not other
        if sure and forms.in_any(at, self.foreign):
            sure = any(section <= g < at for g in self.given)
        best = best_reading(cells, shaped, tensors, text, sure)
        if not best:
            if other:  # no verdict from any reader (for the Markdown readers a ``# comment`` ends a section)
                for c in cells:
                    hits.pop(c.start, None)
            return False
        if len(want) == 2 and want[0] == want[1] and not all(h.ok for h in best) and tensors[0] not in QUERY_ROWS:
            # a square grid printed the other way round (a weight as (in, out), Q as (d, N)): no verdict; scores
            # have one layout (a query's row: S = QKᵀ), so their transpose is wrong (heldout14's Colab notebook)
            ok = sum(h.ok for h in best)
            if any((res := _judge(cells, e.reshape(want).T.reshape(-1), c, text, gated=False)) is not None
                   and sum(h.ok for h in res) > ok for c, e in shaped):
                return False
        for c, h in zip(cells, best):
            hits[c.start] = h
        if tensors[0] in self.inputs and all(h.ok for h in best):
            self.given.append(at)
        return True


def _rows_sum_to_one(cells: list, shape: tuple) -> bool:
    """Whether each row of printed numbers sums to 1 up to their rounding: what attention weights do, and what a
    matrix named ``weights`` that holds projection weights seldom does (then it is not sure to be the attention)."""
    from .human import _value, sums_to_one

    read = [_value(c.text) for c in cells]
    n = shape[-1]
    return all(sums_to_one(read[k:k + n]) for k in range(0, len(read), n))


# ---------------------------------------------------------------- printed outputs

# The fences a code block's output is pasted in (a notebook's outputs: ``text``)
_OUTPUT_INFOS = frozenset(("", "text", "console", "output", "out", "txt", "plaintext", "pycon"))
# What a ``print`` prints that is no array: a shape, a type, a length, a string
_NOT_ARRAYS = frozenset(("shape", "dtype", "ndim", "device", "size", "len", "type", "str", "repr", "item"))
_ARRAY_START = re.compile(r"(?:tensor|array)\(\s*(?=\[)|^[ \t]*(?=\[)", re.M)
_ARRAY_TOKEN = re.compile(r"\[|\]|[-−]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|[,\s]+|[^\[\],\s]+")


def _outputs_after(text: str, spans: list, k: int) -> list[tuple[int, int]]:
    """(start, end) of the contents of the output fences right after block ``k`` (blank lines between only)."""
    out, end = [], spans[k][1]
    for start, stop, info, _, a, b in spans[k + 1:]:
        if text[end:start].strip() or info not in _OUTPUT_INFOS:
            break
        out.append((a, b))
        end = stop
    return out


def _prints(tree: ast.Module, env: dict, trace) -> list[str | None] | None:
    """What a block prints, in order, for a block whose every print is one value: a name (``print(Q)``, and the
    notebook's echo of a last bare name) as its dotted name, a step of attention ``computed`` recognises
    (``print(w @ v)``) as the tensor's name, a value that is no array (``print(Q.shape)``, a string) as None. None
    for a block that prints anything else (``print(np.exp(s))``, ``print("A:", A)``)."""
    out = []
    body = tree.body
    defined = {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    for node in _statements(body, defs=False):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name) \
                and node.value.func.id in defined | {"display", "pprint"}:
            return None  # a function that may print what it was given
        if isinstance(node, (ast.For, ast.While, ast.AsyncFor)) and any(
                isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "print"
                for n in ast.walk(node)):
            return None  # prints in a loop: how many, only running tells
        if not isinstance(node, ast.Expr):
            continue
        v = node.value
        if isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id == "print":
            if _arrays_apart(v):
                values = v.args  # ``print(Q, K, V, sep='\n')``: each value printed in turn (heldout14)
            elif len(v.args) != 1 or v.keywords:
                return None
            else:
                values = v.args
        elif node is not body[-1]:
            continue  # a bare expression that is not the last statement prints nothing
        else:
            values = [v]
        for v in values:
            v = computed.unwrapped(v)
            name = _dotted(v)
            if name is not None and name.rsplit(".", 1)[-1] not in _NOT_ARRAYS:
                out.append(name)
            elif isinstance(v, (ast.BinOp, ast.Call)) and (step := computed.kind_of(v, env, trace)) is not None:
                out.append(step)  # ``print(w @ v)``: the step it computes
            elif name is not None or (isinstance(v, ast.Constant) and isinstance(v.value, str)) or \
                    isinstance(v, ast.JoinedStr) or (isinstance(v, ast.Call) and (
                        (isinstance(v.func, ast.Name) and v.func.id in _NOT_ARRAYS) or
                        (isinstance(v.func, ast.Attribute) and v.func.attr in _NOT_ARRAYS))):
                out.append(None)
            else:
                return None
    return out


def _arrays_apart(call: ast.Call) -> bool:
    """Whether ``print(..)`` prints several values and no text between them (``print(Q, K, sep='\n')``): no
    string argument, no keyword but ``sep``, ``end``, ``flush``; each value is then one print of its own."""
    return len(call.args) > 1 and all(k.arg in ("sep", "end", "flush") for k in call.keywords) and not any(
        isinstance(a, (ast.Constant, ast.JoinedStr, ast.Starred)) for a in call.args)


def arrays(text: str, a: int, b: int) -> list[tuple[tuple[int, ...], list[tuple[str, int]]]]:
    """(shape, [(number as printed, offset)]) of each array printed in ``text[a:b]`` (``tensor([[..]])``,
    ``array([..])``, NumPy's bare ``[[a b]\n [c d]]``), in order; an array holding anything but numbers (``...``,
    ``True``) or not rectangular is skipped."""
    out = []
    pos = a
    while True:
        m = _ARRAY_START.search(text, pos, b)
        if m is None:
            return out
        depth, at = 0, m.end()
        stack: list[list] = []
        shape_ok, nums, top = True, [], None
        while at < b:
            t = _ARRAY_TOKEN.match(text, at, b)
            tok = t.group()
            if tok == "[":
                stack.append([])
                depth += 1
            elif tok == "]":
                done = stack.pop()
                depth -= 1
                if stack:
                    stack[-1].append(done)
                else:
                    top = done
                    at = t.end()
                    break
            elif tok[0].isdigit() or tok[0] in "-−":
                if not stack:
                    shape_ok = False
                    break
                stack[-1].append(len(nums))
                nums.append((tok.replace("−", "-"), at))
            elif tok.strip(", \t\n"):
                shape_ok = False  # a word, an ellipsis, a stray character
            at = t.end()
        pos = max(at, m.end() + 1)
        if top is None or not shape_ok:
            continue
        shape = _nested_shape(top)
        if shape is not None:
            out.append((shape, nums))


def _nested_shape(top: list) -> tuple[int, ...] | None:
    """The shape of nested lists of number indices, None if not rectangular (level by level, no recursion)."""
    level, shape = [top], []
    while all(isinstance(x, list) for x in level):
        sizes = {len(x) for x in level}
        if len(sizes) != 1 or 0 in sizes:
            return None
        shape.append(sizes.pop())
        level = [y for x in level for y in x]
    if any(isinstance(x, list) for x in level):
        return None
    return tuple(shape)


def printed(text: str, tree: ast.Module, outs: list[tuple[int, int]], judge: _Judge, hits: dict,
            env: dict | None = None) -> None:
    """The arrays printed in the output fences right after a block, read as what its prints name: where the block
    prints exactly as many arrays as the fences hold (``print(scores)`` then ``print(K.shape)``: one, the
    scores), the i-th printed array is the i-th printed name's value; a name ``env`` knows the step of
    (``w = torch.softmax(..)``: the weights) is read as that step's tensor."""
    from .human import Cell

    env = env or {}
    names = _prints(tree, env, judge.trace)
    names = names and [env.get(n, n) if n is not None and isinstance(env.get(n), str) else n for n in names]
    if not names:
        return
    named = [n for n in names if n is not None]
    found = [x for a, b in outs for x in arrays(text, a, b)]
    if not named or len(found) != len(named):
        return
    for name, (shape, nums) in zip(named, found):
        judge(hits, [Cell(t, at) for t, at in nums], shape, [name])
