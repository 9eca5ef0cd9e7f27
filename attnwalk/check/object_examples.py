"""Object literals that hold worked examples (a widget's data: ``{ queries: [0.8, 0.3], keys: [..], dotProducts:
[0.19, ..], softmax: [0.08, ..] }``, one object per example). The example whose inputs are the scenario's is read by
``notations.keyed_lists``; another example's inputs (``queries: [0.6, 0.7]`` of a second sentence) start another
example's section (``forms.foreign_sections``), so that its lists are never judged as the scenario's; and each
example's softmax list is the softmax of the score list above it in its object, whatever the scenario
(heldout16's React widget printed a softmax with other weights than its own dot products give)."""

from __future__ import annotations

import math

import numpy as np

from ..notation import EXAMPLE_QUERY_KEYS, EXAMPLE_SCORE_KEYS, EXAMPLE_WEIGHT_KEYS
from .human import _memo
from .notations import object_literal_lists

_INPUTS = ("q", "k", "v", "x")


def _key(key: str) -> str:
    return key.lower().replace(" ", "")


# the note's ``key: [..]`` entries, found once for this module's two passes over it (imported by forms.py after
# human and notations are loaded)
_entries = _memo(object_literal_lists)


def literal_input_starts(text: str, trace) -> list[int]:
    """Offsets of object-literal entries that print an input of the scenario's size with mostly other values than
    the scenario's (``queries: [0.6, 0.7]`` where q is ``[0.8, 0.3]``): another example's."""
    if ":" not in text or "[" not in text:
        return []
    from . import human
    from .forms import _mostly_other

    out = []
    for key, start, cells in _entries(text):
        names = [n for n in human.tensors_of(key)[:1] if n in _INPUTS]
        if not names and _key(key) in EXAMPLE_QUERY_KEYS:
            names = ["q"]
        exp = human._expected(trace, names[0], 0) if names else None
        if exp is not None and exp.size == len(cells) and _mostly_other(cells, exp.reshape(-1)):
            out.append(start)
    return out


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - np.max(x))
    return e / e.sum()


def _before_in_object(text: str, entries: list):
    """(entry, the last score entry of each length before it and the last query entry before it, in its object) of
    each entry in order: one pass, the object left where a brace lies between two entries (a search back from each
    weight list for its scores cost the square of the entries of a large widget's data)."""
    scores: dict[int, tuple] = {}
    query = None
    for i, (key, start, cells) in enumerate(entries):
        if i and (text.find("{", entries[i - 1][1], start) >= 0 or text.find("}", entries[i - 1][1], start) >= 0):
            scores, query = {}, None  # another object
        yield (key, start, cells), scores, query
        if _key(key) in EXAMPLE_SCORE_KEYS:
            scores[len(cells)] = (key, start, cells)
        elif _key(key) in EXAMPLE_QUERY_KEYS:
            query = cells


def _bounds(s: np.ndarray, units: np.ndarray, f: float) -> tuple[np.ndarray, np.ndarray]:
    """The least and the most weight k of softmax(f·x) for scores x within ``units`` of ``s``, for every k at once:
    ``softmax((s - up) * f)[k]`` with ``up`` the units, negated but at k, and the same with ``s + up``."""
    return _share((s - units) * f, (s + units) * f), _share((s + units) * f, (s - units) * f)


def _share(own: np.ndarray, others: np.ndarray) -> np.ndarray:
    """e^own_k / (e^own_k + Σ_{j≠k} e^others_j) for every k: the others' sum of all but k from prefix and suffix
    sums (no difference of large numbers), each term shifted by the largest exponent as ``_softmax`` shifts."""
    top = max(float(own.max()), float(others.max()))
    mine, theirs = np.exp(own - top), np.exp(others - top)
    before = np.concatenate(([0.0], np.cumsum(theirs)[:-1]))
    after = np.concatenate((np.cumsum(theirs[::-1])[::-1][1:], [0.0]))
    with np.errstate(invalid="ignore", divide="ignore"):
        out = mine / (mine + before + after)
    for k in np.flatnonzero(~np.isfinite(out)):  # (both underflowed: the softmax of that one vector)
        x = others.copy()
        x[k] = own[k]
        out[k] = _softmax(x)[k]
    return out


def literal_softmax_rows(text: str, trace, hits: dict, foreign: list) -> None:
    """Form: an object-literal entry ``softmax: [..]`` (``EXAMPLE_WEIGHT_KEYS``) after a score entry of its length
    in the same object (``dotProducts: [..]``, ``EXAMPLE_SCORE_KEYS``), where no reader judged it: the softmax of
    the printed scores, as they stand, times the scenario's scale, or over √d of the object's query list's length
    (the reading most of its numbers agree with; a wholly wrong list is wrong; a weight that scores within their
    printed rounding give is right, as ``notations._judge_softmax`` judges ``softmax([..]) = [..]``)."""
    if ":" not in text or "[" not in text:
        return
    from . import human

    entries = _entries(text)
    scale = float(trace.derived.get("scale") or 1.0)  # the scenario's (1 / √d_k, or 1 where it scales none)
    for (key, _, cells), before, query in _before_in_object(text, entries):
        if _key(key) not in EXAMPLE_WEIGHT_KEYS or any(c.start in hits for c in cells):
            continue
        scores = before.get(len(cells))
        if scores is None:
            continue
        s = np.array([human._value(c.text)[0] for c in scores[2]], dtype=float)
        if not np.all(np.isfinite(s)):
            continue
        factors = {1.0, scale}
        if query:
            factors.add(1 / math.sqrt(len(query)))
        # each score anywhere within half a unit of its last digit: a weight is wrong only where no such scores give
        # it (notations._judge_softmax's bounds: weight i is least with s_i - h_i and the others + h_j)
        units = np.array([0.5 * 10.0 ** -dec if (dec := human._value(c.text)[1] or 0) > 0 else 0.0
                          for c in scores[2]])
        best = None
        for f in sorted(factors, reverse=True):
            res = human._judge(cells, _softmax(s * f), f"softmax({scores[0]})", text, gated=False)
            lows, highs = _bounds(s, units, f) if res is not None and units.any() else (None, None)
            for k, h in enumerate(res or []):
                value, dec = human._value(cells[k].text)
                half = 0.5 * 10.0 ** -max(dec or 0, 0)
                if not h.ok and lows is not None and lows[k] - half - 1e-12 <= value <= highs[k] + half + 1e-12:
                    h.ok, h.fix = True, None
            if res is not None and (best is None or sum(h.ok for h in res) > sum(h.ok for h in best)):
                best = res
        for c, h in zip(cells, best or []):
            hits[c.start] = h
