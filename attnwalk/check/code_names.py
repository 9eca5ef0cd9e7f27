"""Names a note's code binds to the raw scores: ``S = Q @ K.T`` (``np.dot(Q, K.T)``, ``torch.matmul(Q, K.T)``,
``tf.matmul(Q, K, transpose_b=True)``) with no division on the line. A hand-written ``S[0, 2] = 7.0`` of such a note
is that product's element, whatever its value: without the binding a bare value that is neither the raw nor the
scaled score is left unread (heldout15's notebook transposed an index there)."""

from __future__ import annotations

import re

_SP = r"[ \t]*"
_RAW = re.compile(r"^" + _SP + r"(?P<name>[A-Za-z]\w*)" + _SP + "=" + _SP
                  + r"(?:Q" + _SP + r"@" + _SP + r"K\.T|np\.dot\(" + _SP + r"Q" + _SP + "," + _SP + r"K\.T" + _SP
                  + r"\)|Q\.dot\(" + _SP + r"K\.T" + _SP + r"\)|(?:torch|np|tf)\.matmul\(" + _SP + "Q" + _SP + ","
                  + _SP + r"K(?:\.T|" + _SP + "," + _SP + r"transpose_b" + _SP + "=" + _SP + r"True)" + _SP + r"\))"
                  + _SP + r"(?:#[^\n]*)?$", re.M)


def raw_score_names(doc: str) -> frozenset:
    """The names ``doc``'s code assigns the product QKᵀ alone (``S = Q @ K.T``)."""
    if "K" not in doc:
        return frozenset()
    return frozenset(m.group("name") for m in _RAW.finditer(doc))


def named_raw(ref_text: str, names: frozenset) -> bool:
    """Whether a hand label's text (``S[0, 2]``, ``S_13``) starts with one of ``names`` then its index."""
    return bool(names) and re.match(r"[A-Za-z]\w*?(?=[\[_{(])", ref_text) is not None and any(
        ref_text.startswith(n) and ref_text[len(n):len(n) + 1] in "[_{(" for n in names)
