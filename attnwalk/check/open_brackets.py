r"""Lists whose opening bracket alone is escaped (``\[0.34, 0.22, 0.54]``): GitBook's Markdown and HTML-to-Markdown
converters (turndown) escape a ``[`` that could start a link and leave the ``]``; the list renders as
``[0.34, 0.22, 0.54]`` (heldout17's GitBook page printed its embeddings, weights and context vectors so). A KaTeX
display ``\[ .. \]`` closes with ``\]``, and one opened on numbers and commas and closed by a bare ``]`` on the same
line is no display, so the backslash is read as a space (the same length: every offset and line stays). Pandoc's
lists of two escaped brackets are ``source.unescaped_lists``'. The same exports escape the star of a starred LaTeX
environment, ``\begin{align\*}``: read as ``\begin{align*}`` (its brace moved one place, a space after it)."""

from __future__ import annotations

import re

_NUM = r"[-−–]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?"
_OPEN_ONLY = re.compile(r"\\\[(?=[ \t]*" + _NUM + r"(?:[ \t]*,[ \t]*" + _NUM + r")+[ \t]*\])")


def opened_lists(text: str) -> str:
    """``text`` with the backslash before each such list's ``[`` read as a space."""
    if "\\[" not in text:
        return text
    return _OPEN_ONLY.sub(" [", text)


_STARRED = re.compile(r"\\(begin|end)\{([a-zA-Z]+)\\\*\}")


def starred_envs(text: str) -> str:
    """``text`` with each ``\\begin{name\\*}`` / ``\\end{name\\*}`` read as ``\\begin{name*} ``."""
    if "\\*}" not in text:
        return text
    return _STARRED.sub(lambda m: f"\\{m.group(1)}{{{m.group(2)}*}} ", text)
