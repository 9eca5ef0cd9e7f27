"""The labels documents use for tensors (DESIGN §5), shared by templates and checker.

Each label is a pattern with named fields; ``TENSOR_OF`` says which trace tensor and index
it denotes. Batch index ``b`` prints as ``:`` when the batch has one element, as the seeds do.
"""

from __future__ import annotations

import re

# name -> (LaTeX pattern, trace tensor, index fields in tensor order). Plain-text labels
# (code blocks, prose) drop ``\text{}`` and write ``\hat{S}`` as ``Ŝ``: see ``plain``.
LABELS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "x": ("X[{b},{c},:,:]", "x", ("b", "c")),
    "qkv": (r"\text{{QKV}}[{b},{c},:,:]", "qkv", ("b", "c")),
    "q": ("Q_{h}", "q", ("b", "h")),
    "k": ("K_{h}", "k", ("b", "h")),
    "v": ("V_{h}", "v", ("b", "h")),
    "scores": ("S_{h}", "scores", ("b", "h")),
    "scores_row": ("S_{h}[{i}, :]", "scores", ("b", "h", "i")),
    "scores_scaled": (r"\hat{{S}}_{h}", "scores_scaled", ("b", "h")),
    "scores_scaled_row": (r"\hat{{S}}_{h}[{i}, :]", "scores_scaled", ("b", "h", "i")),
    "exp_row": ("E_{h}[{i}, :]", "exp", ("b", "h", "i")),
    "attn": ("A_{h}", "attn", ("b", "h")),
    "attn_row": ("A_{h}[{i}, :]", "attn", ("b", "h", "i")),
    "o": ("O[{b},{c},:,:]", "o", ("b", "c")),
    "pe": (r"\text{{PE}}[{b},{c},:,:]", "pe", ("b", "c")),
    "o_pe": ("O'[{b},{c},:,:]", "o_pe", ("b", "c")),
    "out": (r"\text{{Out}}[{b},{c},:,:]", "out", ("b", "c")),
    "w_qkv": (r"W_{{qkv}}", "w_qkv", ()),
    "w_proj": (r"W_{{proj}}", "w_proj", ()),
    "w_pe": (r"W_{{pe}}[{c}]", "w_pe", ("c",)),
    # Sequence variants (sdpa, mha): matrices have one row per token (batch 0 when b is absent).
    "x_seq": ("X", "x", ("b",)),
    "x_kv": (r"X_{{kv}}", "x_kv", ("b",)),
    "w_q": ("W_Q", "w_q", ()),
    "w_k": ("W_K", "w_k", ()),
    "w_v": ("W_V", "w_v", ()),
    "b_qkv": (r"b_{{qkv}}", "b_qkv", ()),
    "w_out": (r"W_{{out}}", "w_out", ()),
    "b_out": (r"b_{{out}}", "b_out", ()),
    "qkv_seq": (r"\text{{QKV}}", "qkv", ("b",)),
    "mask": ("M", "mask", ()),
    "scores_masked": (r"\tilde{{S}}_{h}", "scores_masked", ("b", "h")),
    "scores_masked_row": (r"\tilde{{S}}_{h}[{i}, :]", "scores_masked", ("b", "h", "i")),
    "o_h": ("O_{h}", "o", ("b", "h")),
    "o_merged": (r"O_{{cat}}", "o_merged", ("b",)),
    "out_seq": (r"\text{{Out}}", "out", ("b",)),
    "alpha": ("α(p{i}→p{j})", "attn", ("i", "j")),  # head 0; keys of a cross-attention are m0, m1, ...
    "alpha_cross": ("α(p{i}→m{j})", "attn", ("i", "j")),
    "out_row": ("Out(p{i})", "out", ("i",)),  # the row of token i: all heads merged (sdpa) / after W_out (mha)
}


def _sub(h: int) -> str:
    """A subscript as the seeds write it: ``0`` for one digit, ``{12}`` otherwise."""
    return str(h) if 0 <= h < 10 else "{" + str(h) + "}"


def plain(tex_label: str) -> str:
    """A LaTeX label as plain text for code blocks: ``\text{QKV}`` -> ``QKV``, ``\\hat{S}`` -> ``Ŝ``,
    ``\\tilde{S}`` -> ``S̃``."""
    out = re.sub(r"\\text\{([^}]*)\}", r"\1", tex_label)
    out = out.replace(r"\hat{S}", "Ŝ").replace(r"\tilde{S}", "S\u0303")
    return re.sub(r"_\{(\w+)\}", r"_\1", out).replace("{", "").replace("}", "")


def label(name: str, batch_size: int = 1, **index) -> str:
    """The printed LaTeX label of ``name`` at ``index`` (b, c, h, i as the pattern needs)."""
    pattern = LABELS[name][0]
    fields = dict(index)
    if "b" in fields:
        fields["b"] = ":" if batch_size == 1 else str(fields["b"])
    if "h" in fields:
        fields["h"] = _sub(fields["h"])
    return pattern.format(**fields)


# Labels the checker also reads: worked sums print the per-head output O_h[d, i] (the columns of
# O before the view back to (B, C, H, W)). Not rendered through ``label()``.
CHECK_EXTRA: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "o_head": ("O_{h}", "o", ("b", "h")),
}


def check_patterns() -> list[tuple[str, re.Pattern, int]]:
    """Regexes for every label, in the checker's normalized text (``plain`` forms).

    Each entry is (name, compiled regex, optional_index) where the regex has named groups
    ``ix`` (a full ``[b,c,:,:]`` index), ``b``, ``c``, ``h``, ``i``, ``j``; optional_index is 1
    when a trailing ``[i, :]``-style index may follow. Row labels (``S_{h}[{i}, :]``) fold into
    their matrix label plus that trailing index.
    """
    global _CHECK_PATTERNS
    if _CHECK_PATTERNS is not None:
        return _CHECK_PATTERNS
    out, seen = [], set()
    marks = {k: "\x01" + k.upper() for k in "bchij"}
    groups = {"B": r"(?P<b>\d+)", "C": r"(?P<c>\d+)", "H": r"(?P<h>\d+)", "I": r"(?P<i>\d+)",
              "J": r"(?P<j>\d+)"}
    for name, (pattern, _tensor, _fields) in {**LABELS, **CHECK_EXTRA}.items():
        text = plain(pattern.format(**marks)).replace("\\tildeS", "S\u0303")
        text = re.sub(r"\[\x01I, :\]$", "", text)  # a row label: the matrix label plus an index
        if text in seen:
            continue
        seen.add(text)
        rx = re.escape(text)
        optional = 1
        full = re.escape("[\x01B,\x01C,:,:]")
        if full in rx:
            rx = rx.replace(full, r"\[(?P<ix>[^\]\n]*)\]")
            optional = -1
        for k, g in groups.items():
            rx = rx.replace("\x01" + k, g)
        rx = rx.replace(r"\[(?P<c>", r"\[\s*(?P<c>").replace(r"(?P<c>\d+)\]", r"(?P<c>\d+)\s*\]")
        if rx[-1].isalnum() or rx.endswith(r"\d+)"):
            rx += r"(?![\w'])"
        out.append((len(text), name, re.compile(rx), optional))
    # the longest literal first: ``Out(p0)`` before ``Out``, ``X_{kv}`` before ``X``
    out = [entry[1:] for entry in sorted(out, key=lambda e: -e[0])]
    _CHECK_PATTERNS = out
    return out


_CHECK_PATTERNS: list | None = None
