r"""Where a matrix's label names its head by a parenthesised superscript (``Q^{(2)}=K^{(2)}=\begin{bmatrix}..``,
``V^{(1)}=``, ``W_Q^{(2)}=``): the matrix is that head's, whatever "Head 1" a note's prose named last before it.

A Vietnamese lecture printed head 1's Q, K, V and then head 2's, each its own 3 × 2 ``bmatrix`` under
``Q^{(1)}=K^{(1)}=`` and ``Q^{(2)}=K^{(2)}=``, with no "Head 2" heading before the second; read as the head the
prose named (none: head 0), head 2's right numbers were judged as head 1's (heldout18). Heads are counted from 1 (the
lectures' ``O^{(1)},\ldots,O^{(H_a)}``) unless a label has the superscript ``(0)``; a note of one head has none to
name (Raschka's ``x^{(1)}`` is a token, lowercase, and not read here)."""

from __future__ import annotations

import re

# a tensor's capital (or W_Q, W_{K}) with a parenthesised superscript: Q^{(1)}, V^{(2)}, W_Q^{(1)}, A^{(1)}_{causal}
_SUPER = re.compile(r"(?<![A-Za-z\\])(?:[QKVSAO]|W_\{?[QKVqkv]\}?)\^\{\((\d+)\)\}")
_ZERO = re.compile(r"(?<![A-Za-z\\])(?:[QKVSAO]|W_\{?[QKVqkv]\}?)\^\{\(0\)\}")
# where the label's own equation starts: after the last display opening, matrix end or blank line before the matrix
_CUT = re.compile(r"\$\$|\\end\{[a-zA-Z*]+\}|\n[ \t]*\n")


def superscript_head(label: str | None, text: str, heads: int) -> int | None:
    """The 0-based head the label's own equation names by superscripts (all of them the same head), else None."""
    if heads < 2 or not label or "^{(" not in label:
        return None
    cuts = list(_CUT.finditer(label))
    own = label[cuts[-1].end():] if cuts else label
    named = {int(m.group(1)) for m in _SUPER.finditer(own)}
    if len(named) != 1:
        return None
    (h,) = named
    h = h if _ZERO.search(text) else h - 1
    return h if 0 <= h < heads else None
