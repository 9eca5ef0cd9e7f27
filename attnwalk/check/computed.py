"""Which tensor of the trace a line of NumPy/torch code computes, from the operations' structure, never by running
it: ``w = torch.softmax(q @ k.T / 2**0.5, dim=-1)`` is the attention weights, ``print(w @ v)`` prints the output.

A blog's snippet names its results as it likes (``w``, ``p``, ``out2``); what it computes is what tells which tensor
a printed array is. Only the steps of scaled dot-product attention are recognised, each exactly: ``q @ kᵀ`` (the
scores), those divided by √d_k or times 1/√d_k where the scalar is evaluated and equals the trace's (the scaled
scores), those with the future masked where the trace is causal (``masked_fill`` of the strictly upper triangle:
``torch.triu(torch.ones(n, n), diagonal=1).bool()``, ``tril(..) == 0``), softmax over the last axis of the
scaled (or masked) scores (the weights), the weights times ``v`` (the output). Anything else (another mask, a
loop, a name bound twice, another scale) names nothing.
"""

from __future__ import annotations

import ast
import math

_SOFTMAX = frozenset(("softmax",))
_MATMUL = frozenset(("matmul", "mm", "bmm", "dot"))
_SAME = frozenset(("float", "double", "numpy", "cpu", "detach", "contiguous", "clone", "squeeze"))
_SQRT = frozenset(("sqrt",))
_LAST_AXIS = (-1, 1)  # softmax's axis in a 2-D snippet: ``dim=-1``, ``axis=1``
# the product of two recognised tensors (the second may be written transposed): the step it is
_PRODUCTS = {("q", "k^T"): "scores", ("attn", "v"): "out"}


def bindings(tree: ast.Module, env: dict, trace, given: frozenset = frozenset()) -> dict:
    """``env`` (a name → the tensor it holds, from the blocks before; ``("scalar", name)`` → a number,
    ``("mask", name)`` → ``mask_of``'s reading) with the names this block binds at its top level, once, to a
    recognised step, a scalar or a mask; a name bound to anything else,
    or more than once, is dropped. ``given``: names whose literal assignment in this block ``env`` already holds."""
    env = dict(env)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name in _SOFTMAX:
            env[("def", node.name)] = _last_axis_softmax(node)
    # the names each top-level statement binds, from one walk of it (the module itself binds none)
    bound = [[t for n in ast.walk(node) for t in _targets(n)] for node in tree.body]
    counts: dict[str, int] = {}
    for names in bound:
        for t in names:
            counts[t] = counts.get(t, 0) + 1
    for node, names in zip(tree.body, bound):
        if not isinstance(node, ast.Assign) or len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
            for t in set(names):
                for key in (t, ("scalar", t), ("mask", t)):
                    env.pop(key, None)
            continue
        name = node.targets[0].id
        if name in given:
            continue  # the block's literal of q, k or v (``program``): held as given
        for key in (name, ("scalar", name), ("mask", name)):
            env.pop(key, None)
        if counts.get(name, 0) != 1:
            continue
        kind = kind_of(node.value, env, trace)
        if kind is not None:
            env[name] = kind
        elif (value := _scalar(node.value, env, trace.derived.get("d_k"))) is not None:
            env[("scalar", name)] = value  # ``d_k = q.shape[-1]``, read by a later ``/ math.sqrt(d_k)``
        elif (mask := mask_of(node.value, env)) is not None:
            env[("mask", name)] = mask  # ``mask = torch.triu(torch.ones(3, 3), diagonal=1).bool()``
    return env


def _targets(node: ast.AST) -> list[str]:
    """The plain names a statement binds or changes (an item assigned changes its name too)."""
    if isinstance(node, ast.Assign):
        tops = node.targets
    elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.NamedExpr, ast.For, ast.AsyncFor, ast.comprehension)):
        tops = [node.target]
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr.endswith("_") \
            and isinstance(node.func.value, ast.Name):
        return [node.func.value.id]  # torch's in-place methods: ``s.masked_fill_(..)``
    else:
        return []
    out, stack = [], list(tops)
    while stack:
        t = stack.pop()
        if isinstance(t, (ast.Tuple, ast.List)):
            stack.extend(t.elts)
        elif isinstance(t, (ast.Starred, ast.Subscript, ast.Attribute)):
            stack.append(t.value)
        elif isinstance(t, ast.Name):
            out.append(t.id)
    return out


def kind_of(node: ast.AST, env: dict, trace) -> str | None:
    """The tensor ``node`` computes (``q``, ``k^T``, ``scores``, ``scores_scaled``, ``attn``, ``out``, or a name's
    tensor from ``env``), None when it is not one recognised step."""
    if isinstance(node, ast.Name):
        return env.get(node.id)
    if isinstance(node, ast.Attribute):
        if node.attr in ("T", "mT"):
            return _transposed(kind_of(node.value, env, trace))
        return None
    if isinstance(node, ast.BinOp):
        if isinstance(node.op, ast.MatMult):
            return _PRODUCTS.get((kind_of(node.left, env, trace), kind_of(node.right, env, trace)))
        if isinstance(node.op, (ast.Div, ast.Mult)):
            return _scaled(node, env, trace)
        return None
    if isinstance(node, ast.Call):
        return _call(node, env, trace)
    return None


def _transposed(kind: str | None) -> str | None:
    return "k^T" if kind == "k" else None


def _call(node: ast.Call, env: dict, trace) -> str | None:
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    module = isinstance(func, ast.Name) or (isinstance(func, ast.Attribute) and _is_module(func.value))
    if name is None:
        return None
    if not module:  # a method of a tensor: ``s.softmax(dim=-1)``, ``k.transpose(-2, -1)``, ``a.float()``
        kind = kind_of(func.value, env, trace)
        if name in _SAME and not node.keywords and not node.args:
            return kind
        if name in ("t",) and not node.args:
            return _transposed(kind)
        if name == "transpose" and len(node.args) == 2 and {_int(a) for a in node.args} in ({-2, -1}, {0, 1}):
            return _transposed(kind)
        if name in _SOFTMAX:
            return _softmax(kind, node.args, node.keywords, trace)
        if name in _MATMUL and len(node.args) == 1:
            return _PRODUCTS.get((kind, kind_of(node.args[0], env, trace)))
        if name == "masked_fill" and len(node.args) == 2 and not node.keywords:
            return _masked_fill(kind, mask_of(node.args[0], env), _fill(node.args[1]), trace)
        return None
    if name == "masked_fill" and len(node.args) == 3 and not node.keywords:
        return _masked_fill(kind_of(node.args[0], env, trace), mask_of(node.args[1], env), _fill(node.args[2]), trace)
    if name in _SOFTMAX and node.args:
        args = node.args[1:]
        if isinstance(func, ast.Name) and not args and not node.keywords and env.get(("def", name)):
            args = [ast.Constant(-1)]  # the note's own softmax, over the last axis
        return _softmax(kind_of(node.args[0], env, trace), args, node.keywords, trace)
    if name in _MATMUL and len(node.args) == 2 and not node.keywords:
        return _PRODUCTS.get((kind_of(node.args[0], env, trace), kind_of(node.args[1], env, trace)))
    if name == "transpose" and len(node.args) == 3 and {_int(a) for a in node.args[1:]} in ({-2, -1}, {0, 1}):
        return _transposed(kind_of(node.args[0], env, trace))
    return None


def _is_module(node: ast.AST) -> bool:
    """``torch``, ``np``, ``F``, ``torch.nn.functional``, ``scipy.special``: a module's function, not a method."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name) and node.id in ("torch", "np", "numpy", "F", "nn", "functional", "scipy",
                                                         "special", "jnp", "jax")


def _softmax(kind: str | None, args: list, keywords: list, trace) -> str | None:
    """Softmax over the last axis of the scaled scores (of the raw scores where the trace does not scale) is the
    weights; another axis, or a trace with a mask the snippet does not apply, is no step of the trace."""
    axes = [_int(a) for a in args[:1]] + [_int(k.value) for k in keywords if k.arg in ("dim", "axis")]
    if len(axes) != 1 or axes[0] not in _LAST_AXIS:
        return None
    if trace.config.get("mask", "none") != "none":
        return "attn" if kind in _MASKED else None  # a masked trace: only the snippet's masked scores
    scale = float(trace.derived.get("scale") or 1.0)
    if kind == "scores_scaled" or (kind == "scores" and scale == 1.0):
        return "attn"
    return None


# What a causal mask's scores are after ``masked_fill``: the trace's masked scores where the fill is the trace's, else
# scores whose softmax is still the trace's weights (e^fill is 0 in float64 for each fill a note uses)
_MASKED = ("scores_masked", "scores_masked_other")
_FILLS = {"-inf": -math.inf, "-1e9": -1e9, "-10000": -1e4}


def _masked_fill(scores: str | None, mask: str | None, fill: float | None, trace) -> str | None:
    """``s.masked_fill(mask, fill)`` of the scaled scores with the strictly upper triangle (the future) as the mask:
    the masked scores of a causal trace; None for anything else (a padding mask, the scores before scaling)."""
    if trace.config.get("mask") != "causal" or mask != "future" or fill not in _FILLS.values():
        return None
    scale = float(trace.derived.get("scale") or 1.0)
    if scores != "scores_scaled" and not (scores == "scores" and scale == 1.0):
        return None
    return "scores_masked" if fill == _FILLS.get(trace.config.get("mask_fill", "-inf")) else "scores_masked_other"


def mask_of(node: ast.AST, env: dict) -> str | None:
    """``"future"`` for a boolean mask of the strictly upper triangle (True where a key comes after its query:
    ``torch.triu(torch.ones(n, n), diagonal=1).bool()``, ``tril(ones) == 0``, ``~torch.tril(..)``), ``"past"`` for
    its complement (``torch.tril(torch.ones(n, n))``), None for anything else."""
    flip = {"future": "past", "past": "future"}
    if isinstance(node, ast.Name):
        return env.get(("mask", node.id))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Invert, ast.Not)):
        return flip.get(mask_of(node.operand, env))
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Eq, ast.NotEq)):
        value = _int(node.comparators[0])
        if value not in (0, 1):
            return None
        same = (value == 1) == isinstance(node.ops[0], ast.Eq)
        inner = mask_of(node.left, env)
        return inner if same else flip.get(inner)
    if not isinstance(node, ast.Call) or not isinstance(node.func, (ast.Attribute, ast.Name)):
        return None
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id
    if isinstance(func, ast.Attribute) and not _is_module(func.value):  # ``m.bool()``, ``m.logical_not()``
        if name in ("bool", "byte", "int", "float", "long") and not node.args:
            return mask_of(func.value, env)
        if name == "logical_not" and not node.args:
            return flip.get(mask_of(func.value, env))
        return None
    if name == "logical_not" and len(node.args) == 1:
        return flip.get(mask_of(node.args[0], env))
    if name not in ("triu", "tril") or not node.args or not _ones(node.args[0]):
        return None
    k = [_int(a) for a in node.args[1:2]] + [_int(kw.value) for kw in node.keywords if kw.arg in ("diagonal", "k")]
    k = k[0] if k else 0
    if name == "triu" and k == 1:
        return "future"
    if name == "tril" and k == 0:
        return "past"
    return None


def _ones(node: ast.AST) -> bool:
    """``torch.ones(n, n)``, ``np.ones((n, n))``, ``torch.ones_like(s)``: a square of ones (its size is the judge's
    to check against the printed array)."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and _is_module(node.func.value) \
        and node.func.attr in ("ones", "ones_like")


def _fill(node: ast.AST) -> float | None:
    """The value of a mask's fill: ``float("-inf")``, ``-float('inf')``, ``-np.inf``, ``-1e9``, ``-10000``."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _fill(node.operand)
        return None if inner is None else -inner
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return float(node.value)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "float" \
            and len(node.args) == 1 and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
        try:
            return float(node.args[0].value)
        except ValueError:
            return None
    if isinstance(node, ast.Attribute) and node.attr == "inf" and _is_module(node.value):
        return math.inf
    return None


def _scaled(node: ast.BinOp, env: dict, trace) -> str | None:
    """``s / √d_k``, ``s * (1/√d_k)``, ``(1/√d_k) * s`` with the scalar equal to the trace's scale: the scaled
    scores."""
    scale = float(trace.derived.get("scale") or 1.0)
    d_k = trace.derived.get("d_k")
    if isinstance(node.op, ast.Div):
        if kind_of(node.left, env, trace) != "scores":
            return None
        value = _scalar(node.right, env, d_k)
        return "scores_scaled" if value is not None and math.isclose(value * scale, 1.0, rel_tol=1e-12) else None
    for s, other in ((node.left, node.right), (node.right, node.left)):
        if kind_of(other, env, trace) == "scores":
            value = _scalar(s, env, d_k)
            return "scores_scaled" if value is not None and math.isclose(value, scale, rel_tol=1e-12) else None
    return None


def _scalar(node: ast.AST, env: dict, d_k) -> float | None:
    """The value of a scalar expression of numbers, ``sqrt``, powers and the key width (``q.shape[-1]``,
    ``k.size(-1)``, ``d_k`` where the snippet's ``d_k`` is that), None for anything else."""
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return float(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        v = _scalar(node.operand, env, d_k)
        return None if v is None else -v
    if isinstance(node, ast.BinOp):
        a, b = _scalar(node.left, env, d_k), _scalar(node.right, env, d_k)
        if a is None or b is None:
            return None
        try:
            if isinstance(node.op, ast.Pow):
                return float(a ** b) if a > 0 and abs(b) <= 8 else None
            if isinstance(node.op, ast.Div):
                return a / b
            if isinstance(node.op, ast.Mult):
                return a * b
        except (ZeroDivisionError, OverflowError):
            return None
        return None
    if isinstance(node, ast.Call):
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
        if name in _SQRT and len(node.args) == 1 and not node.keywords:
            v = _scalar(node.args[0], env, d_k)
            return math.sqrt(v) if v is not None and v >= 0 else None
        if name in ("tensor", "float", "array") and len(node.args) == 1:
            return _scalar(node.args[0], env, d_k)
        if name == "size" and isinstance(func, ast.Attribute) and len(node.args) == 1 and _width(func.value, env) \
                and _int(node.args[0]) in (-1, 1):
            return float(d_k)
        return None
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape" \
            and _width(node.value.value, env) and _int(node.slice) in (-1, 1):
        return float(d_k)
    if isinstance(node, ast.Name):
        return env.get(("scalar", node.id))
    return None


def _width(node: ast.AST, env: dict) -> bool:
    """Whether ``node`` is q or k (their last axis is the key width d_k)."""
    return isinstance(node, ast.Name) and env.get(node.id) in ("q", "k")


def _int(node: ast.AST) -> int | None:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant) \
            and type(node.operand.value) is int:
        return -node.operand.value
    return None


_ROUNDS = frozenset(("round", "around"))


def unwrapped(node: ast.AST) -> ast.AST:
    """The array a printed expression shows, under what changes only its printing: ``np.round(w, 3)``,
    ``w.round(3)``, ``torch.round(w, decimals=3)``, ``w.detach().numpy()`` (the digits printed are then the
    rounded ones, which the checker judges as any printed digits)."""
    while isinstance(node, ast.Call):
        func = node.func
        if not isinstance(func, ast.Attribute):
            return node
        if _is_module(func.value):  # ``np.round(w, 3)``
            if func.attr not in _ROUNDS or not node.args:
                return node
            node = node.args[0]
        elif func.attr in _ROUNDS or (func.attr in _SAME and not node.args and not node.keywords):
            node = func.value  # ``w.round(3)``, ``w.numpy()``
        else:
            return node
    return node


def _last_axis_softmax(fn: ast.FunctionDef) -> bool:
    """Whether a note's own ``def softmax(x)`` is a softmax over the last axis: one argument, an ``exp`` in its
    body, and every axis it names the last (``axis=-1``, ``dim=-1``, ``keepdims`` aside)."""
    if len(fn.args.args) != 1 or fn.args.vararg or fn.args.kwarg:
        return False
    calls = [n for n in ast.walk(fn) if isinstance(n, ast.Call)]
    exp = any((isinstance(c.func, ast.Attribute) and c.func.attr == "exp") or
              (isinstance(c.func, ast.Name) and c.func.id == "exp") for c in calls)
    axes = [_int(k.value) for c in calls for k in c.keywords if k.arg in ("axis", "dim")]
    return exp and bool(axes) and all(a == -1 for a in axes)
