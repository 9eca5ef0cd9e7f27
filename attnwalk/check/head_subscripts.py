"""Where a note counts its heads from 1: the head subscript of a label (``Q_1``, ``S_2``, ``A_2``) names head 1 as the
first one, not the second of DESIGN §5's 0-based ``S_h``.

A multi-query post writes ``## Head 1`` over ``Q_1 = ..``, ``S_1 = ..`` and ``## Head 2`` over ``S_2 = ..``; read
0-based, the first head's right numbers are judged as the second head's and ``S_2`` as a head that does not exist
(heldout15). Its ``S_h`` follow ``.. divided by sqrt(2),``: printed scaled, read as Ŝ_h.
"""

from __future__ import annotations

import re

from ..notation import SCALED_CUES
from .human import _one_based_heads

# a head-subscripted label with the subscript 0 (``S_0``, ``A_{0}``, ``Q_0[0, 1]``): heads counted from 0
_ZERO_SUBSCRIPT = re.compile(r"(?<![\w\\])[QKVSAO]_\{?0\}?(?![\w.])")


def one_based_label_heads(doc: str) -> int:
    """1 where the note names a head 1 and no head 0 (``Head 1``, ``Head 2``: ``human._one_based_heads``) and no
    label carries the head subscript 0; else 0."""
    return int(_one_based_heads(doc) and not _ZERO_SUBSCRIPT.search(doc))


# a line ending in a comma or colon, then (past blank lines) a seed-notation ``S_h =`` (``S_1 = [[..``, ``$S_{2} =``)
_CUE_THEN_S = re.compile(r"^([^\n]*)[,:][ \t]*\n(?:[ \t]*\n)*[ \t$]*S_\{?\d+\}?[ \t]*=", re.M)


def scaled_s_labels(doc: str) -> bool:
    """Whether the note prints its ``S_h`` scaled: some ``S_h =`` follows a line that names a division by √d_k
    (``notation.SCALED_CUES``) and ends in a comma or colon (``.. and, divided by sqrt(2),`` then ``S_1 = [[0.7071,
    ..]]``). A note keeps one notation, so each of its ``S_h`` is then Ŝ_h."""
    if "S_" not in doc:
        return False
    return any(any(cue in m.group(1).lower() for cue in SCALED_CUES) for m in _CUE_THEN_S.finditer(doc))
