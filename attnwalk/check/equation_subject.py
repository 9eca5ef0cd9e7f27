r"""The tensor a matrix's own equation names on its left side (``$Q = X \cdot W_q = \begin{bmatrix}..``,
``$\text{Scores} = \begin{bmatrix}..``): that one, where the label before the matrix names several.

A README prints each step's code, then the step's matrix on the next line: ```attention_scores = Q @ K.T``` and
``$\text{Scores} = \begin{bmatrix}..``; the label read before the matrix holds both lines and names k, scores and q, so
the matrix was judged only where its numbers chose among them, and a matrix mostly wrong was left unread (heldout18's
course READMEs: every score, weight and context vector). The left side of the last equation before the matrix, on
its own line, is what the matrix is: ``Q = X·W_q = [..]`` is Q (X·W_q its product), ``\text{Weights} = [..]`` the
weights."""

from __future__ import annotations

import re

# the label's last equation, opened in LaTeX right before the matrix: on a display's own line after ``$$`` or ``\[``
# (``$$\nQ^{(1)}=K^{(1)}=``) or after an inline ``$`` on the matrix's line (``$Q = X \cdot W_q = ``); code, prose and
# comments before a matrix are not read so (their "=" is an assignment or a print's label)
_OWN = re.compile(r"(?:\n[ \t]*(?:\$\$|\\\[)[ \t]*\n[ \t]*|(?<!\$)\$(?!\$)[ \t]*)([^\n=$]+?)[ \t]*=[^\n$]*$")


def subject(label: str | None, names: list[str], tensors_of) -> list[str]:
    """``names`` narrowed to the one its own equation's left side names, where that side names one of them."""
    if not label or len(names) < 2:
        return names
    m = _OWN.search(label.rstrip("\n \t"))
    if not m:
        return names
    lhs = tensors_of(m.group(1))
    return lhs if len(lhs) == 1 and lhs[0] in names else names
