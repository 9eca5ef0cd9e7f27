r"""Formulas URL-encoded in an image link (``![Q](https://latex.codecogs.com/svg.latex?Q%20%3D%20%5Cbegin%7Bbmatrix%7D%200.57%20%26%200.81%20..)``):
a README that cannot typeset LaTeX shows each matrix as an image a service renders from its URL, so every number of
the matrix is inside the link, ``%20`` between the cells, ``%26`` for ``&`` and ``%5C%5C`` for the row break
(heldout18's course READMEs printed X, Q, K, V, the scores, weights and context vectors so). The link is read as the
inline math it renders, ``$Q = \begin{bmatrix} 0.57 & 0.81 ..\end{bmatrix}$``, of the same length: each number of the
formula keeps its offset (--fix rewrites it in the URL itself) and the text between two numbers, decoded (shorter),
is padded with spaces. The services' own commands (``\bg_white``, ``\dpi{110}``) are dropped (``notation``)."""

from __future__ import annotations

import re

from ..notation import MATH_IMAGE_PREAMBLE, MATH_IMAGE_URLS

# a Markdown image or a bare link whose URL is a rendering service's, then the formula up to the link's end
_LINK = re.compile(r"(?:!\[[^\]\n]*\]\()?(?:" + "|".join(MATH_IMAGE_URLS) + r")([^\s)\"'<>]*)\)?")
_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")
_PREAMBLE = re.compile(r"(?:" + "|".join(MATH_IMAGE_PREAMBLE) + r")\s*")
_NUM = re.compile(r"-?\d+(?:\.\d+)?")


def _decoded(enc: str, base: int) -> list[tuple[str, int]]:
    """The characters of ``enc`` decoded, each with the offset of its first source character (``base`` + i)."""
    out, i = [], 0
    while i < len(enc):
        m = _ESCAPE.match(enc, i)
        if m:
            out.append((chr(int(m.group(1), 16)), base + i))
            i = m.end()
        else:
            out.append((" " if enc[i] == "+" and "%20" not in enc else enc[i], base + i))  # + for a space, at times
            i += 1
    return out


def _as_math(text: str, m: re.Match) -> str:
    """The span of ``m`` (a link) as ``$formula$`` of the same length, each number at its offset."""
    chars = _decoded(m.group(1), m.start(1))
    formula = "".join(c for c, _ in chars)
    drop = {i for p in _PREAMBLE.finditer(formula) for i in range(p.start(), p.end())}
    chars = [c for i, c in enumerate(chars) if i not in drop]
    formula = "".join(c for c, _ in chars)
    out = [" "] * (m.end() - m.start())
    start, cut, head = m.start(), 0, "$"
    at = 0  # the next free place in ``out``
    for n in _NUM.finditer(formula):
        first, last = chars[n.start()][1], chars[n.end() - 1][1]
        if last - first != n.end() - 1 - n.start():
            continue  # a digit written as an escape: no number of the formula
        between = head + formula[cut:n.start()]
        if at + len(between) > first - start:
            return text[m.start():m.end()]  # cannot happen (decoding shortens): the link as it is
        out[at:at + len(between)] = between
        out[first - start:first - start + len(n.group())] = n.group()
        at, cut, head = first - start + len(n.group()), n.end(), ""
    tail = head + formula[cut:] + "$"
    if at + len(tail) > len(out):
        return text[m.start():m.end()]
    out[at:at + len(tail)] = tail
    return "".join(out)


def math_images(text: str) -> str:
    """``text`` with every formula image link read as its inline math, of the same length."""
    if "%5C" not in text and "%5c" not in text:
        return text
    return _LINK.sub(lambda m: _as_math(text, m), text)
