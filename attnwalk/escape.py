"""Escaping user text (token labels) for the documents we emit: Markdown, LaTeX and HTML.

Labels are validated first (config rejects control characters and line breaks), so one line of
text is all these functions see. Templates never execute them: Jinja only prints strings.
"""

from __future__ import annotations

import unicodedata

# ASCII punctuation that means something in CommonMark/GFM (tables, emphasis, code, links, raw
# HTML, headings, entities) or in the math extensions ($). CommonMark lets any ASCII punctuation
# be backslash-escaped, and a backslash-escaped character is always literal text.
_MD_SPECIAL = set("\\`*_[]<>#|$~!&{}^")
_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&", "#": r"\#",
                  "%": r"\%", "_": r"\_", "^": r"\textasciicircum{}", "~": r"\textasciitilde{}"}


_BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"  # embeddings, overrides, isolates


def bad_char(text: str) -> str | None:
    """The first character of ``text`` that cannot appear in a one-line label, else None.

    Control characters (newline, tab, NUL, ...), line and paragraph separators, and format
    characters that reorder text (bidi overrides) are refused rather than escaped.
    """
    for ch in text:
        if unicodedata.category(ch) in ("Cc", "Zl", "Zp", "Cs") or ch in _BIDI:
            return ch
    return None


def md_text(text: str) -> str:
    """``text`` as literal Markdown inline text: a backslash before every special ASCII character."""
    return "".join("\\" + ch if ch in _MD_SPECIAL else ch for ch in text)


def latex_text(text: str) -> str:
    """``text`` for LaTeX text mode (inside ``\\text{...}``)."""
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in text)


def html_text(text: str) -> str:
    """``text`` as HTML text or attribute value (``& < > " '`` as entities)."""
    import html  # here: html.entities' table costs ~1 ms of every start-up, and only HTML needs it

    return html.escape(text, quote=True)
