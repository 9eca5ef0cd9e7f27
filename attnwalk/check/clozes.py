"""Cloze deletions of flash cards read as the answers they hide: ``[{{c1::0.7071}}, {{c2::0.0000}}]`` is
``[0.7071, 0.0000]`` (``notation.CLOZE``; heldout14's Anki deck). A cloze never holds a line break, so every line
of the note stays where it is: records name a number by its line and text, and ``--fix`` finds it in the raw line.
"""

from __future__ import annotations

import re

from ..notation import CLOZE

_CLOZE = re.compile(CLOZE)


def unclozed(body: str) -> str:
    """``body`` with each cloze written as its answer (a hint, ``{{c1::0.33::weight}}``, dropped)."""
    return _CLOZE.sub(r"\g<answer>", body) if "{{c" in body else body
