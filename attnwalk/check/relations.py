"""Signs for "approximately" that the readers do not know, read as the ≈ they stand for: Japanese notes write
``e^{1.1547} ≒ 3.1731`` and ``和 $≒ 8.8235$`` (``notation.APPROX_SIGNS``). One character for one, so every offset
and line of the note stays (heldout13's ja_zenn_linear_layout_approx_equal: its relations were read as no relation).
"""

from __future__ import annotations

from ..notation import APPROX_SIGNS

_AS_APPROX = str.maketrans({sign: "≈" for sign in APPROX_SIGNS})


def as_approx(body: str) -> str:
    """``body`` with each sign of ``APPROX_SIGNS`` written ≈."""
    return body.translate(_AS_APPROX) if any(sign in body for sign in APPROX_SIGNS) else body
