"""The memory budget: estimate a walkthrough's bytes from its Config and refuse it before computing.

Every per-option limit (tokens, dim, heads, batch) can hold while their product asks for a TiB
(``--h 64 --w 64 --dim 1024 --heads 1024 --batch 8``). The estimate counts every tensor the
trace records plus the transient copies the engine makes, and, for ``--format json``, the text
and the Python objects of the export. The default budget is 2 GiB; ``--max-memory`` or the
environment variable ATTNWALK_MAX_MEMORY changes it (README, docs/scenarios.md).
"""

from __future__ import annotations

import math
import os
import re

from .errors import ConfigError

DEFAULT_BUDGET = 2 * 2**30
ENV = "ATTNWALK_MAX_MEMORY"
OPTION = "--max-memory"
# Bytes per recorded float64 value: the value, plus the transient arrays the engine makes on the
# way (softmax's shifted scores, einsum outputs, the recorded copy): measured at about 1.5x.
BYTES_PER_VALUE = 12
# --format json is streamed in row blocks of ~65k values (render.export), so its text never sits in
# memory whole: a JSON run's peak is below a Markdown run's (h = w = 32, dim 32, heads 4: 179 MB
# against 219 MB of RSS); 1 byte a value leaves room for the blocks and the encoder.
JSON_BYTES_PER_VALUE = 1
# crosscheck keeps torch's tensors of both runs (max and step) and a magnitude per tensor.
CROSSCHECK_FACTOR = 4
_UNITS = {"": 1, "B": 1, "K": 2**10, "KB": 2**10, "KIB": 2**10, "M": 2**20, "MB": 2**20, "MIB": 2**20,
          "G": 2**30, "GB": 2**30, "GIB": 2**30, "T": 2**40, "TB": 2**40, "TIB": 2**40}
_SIZE_RE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?I?B?)\s*", re.I)
ALLOWED = "a size such as 512M, 2G or 8G (bytes, K, M, G, T; powers of 1024), at least 1M"


def parse_size(text, option: str = OPTION) -> int:
    """Bytes of a size written ``512M``, ``2G``, ``2GiB`` or ``3000000000``."""
    m = _SIZE_RE.fullmatch(str(text)) if isinstance(text, (str, int)) and not isinstance(text, bool) else None
    if m is None or len(m.group(1)) > 30:
        raise ConfigError(option, f"got {str(text)[:40]!r}; allowed: {ALLOWED}")
    value = float(m.group(1)) * _UNITS[m.group(2).upper()]
    if not 2**20 <= value <= 2**60:
        raise ConfigError(option, f"got {str(text)[:40]!r}; allowed: {ALLOWED}, at most 1024T")
    return int(value)


def limit() -> int:
    """The budget in bytes: ATTNWALK_MAX_MEMORY when set (``--max-memory`` sets it), else 2 GiB."""
    text = os.environ.get(ENV)
    return DEFAULT_BUDGET if text is None or text == "" else parse_size(text, ENV)


def human(nbytes: float) -> str:
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if nbytes >= size:
            return f"{nbytes / size:.3g} {unit}"
    return f"{int(nbytes)} B"


def tensors(cfg) -> dict[str, tuple[int, ...]]:
    """The shapes of the largest tensors ``cfg``'s trace records (the small ones do not matter).

    scores_scaled and exp count in full although the forward keeps them as recipes (engine/softmax.py):
    a render or an export reads them, and then they take their whole size."""
    d = cfg.derived
    B, heads = cfg.batch, cfg.heads
    if cfg.variant == "yolo":
        C, N, qc = cfg.dim, d["n"], d["qkv_channels"]
        square = (B, heads, N, N)
        return {"x": (B, C, N), "w_qkv": (qc, C), "w_proj": (C, C), "qkv": (B, qc, N), "q/k/v": (B, qc, N),
                "scores": square, "scores_scaled": square, "exp": square, "attn": square,
                "o/pe/o_pe/out": (4, B, C, N)}
    n, m = d["n"], d["m"]
    rect = (B, heads, n, m)
    out = {"x": (B, n, d["d_model"]), "x_kv": (B, m, d["d_model"]), "q": (B, n, d["qk_width"]),
           "k": (B, m, d["qk_width"]), "v": (B, m, d["v_width"]), "scores": rect, "scores_scaled": rect,
           "scores_masked": rect, "exp": rect, "attn": rect, "mask": (n, m), "o/out": (2, B, n, d["v_width"])}
    if cfg.variant == "mha":
        D = d["d_model"]
        out.update({"w_qkv": (3 * D, D), "qkv": (B, n, 3 * D), "w_out": (D, D), "o_merged/out": (2, B, n, D)})
    return out


def estimate(cfg, fmt: str = "md", crosscheck: bool = False) -> int:
    """Bytes needed to compute ``cfg``'s trace and write it as ``fmt`` (or crosscheck it)."""
    values = sum(math.prod(s) for s in tensors(cfg).values())
    need = values * BYTES_PER_VALUE
    if fmt == "json":
        need += values * JSON_BYTES_PER_VALUE
    if crosscheck:
        need *= CROSSCHECK_FACTOR
    return need


def machine() -> tuple[int, str] | None:
    """What this process can have at most, and why: its address-space limit (``ulimit -v``) or the
    machine's physical memory, whichever is smaller; None when neither is known."""
    import resource

    out = []
    soft = resource.getrlimit(resource.RLIMIT_AS)[0]
    if soft != resource.RLIM_INFINITY:
        out.append((soft, "the process's address-space limit, ulimit -v"))
    try:
        out.append((os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"), "the machine's memory"))
    except (ValueError, OSError):
        pass
    return min(out) if out else None


def require(cfg, fmt: str = "md", crosscheck: bool = False, budget: int | None = None) -> None:
    """Refuse ``cfg`` (ConfigError naming the sizes) when its estimate exceeds the budget, or what the
    machine can give: there the engine would be killed (no message at all) or fail half-way."""
    budget = limit() if budget is None else budget
    need = estimate(cfg, fmt, crosscheck)
    have = machine()
    if need <= budget and (have is None or need <= have[0]):
        return
    if need <= budget:
        raise ConfigError(OPTION, f"this walkthrough needs about {human(need)} to compute, more than {have[1]} "
                                  f"({human(have[0])}); allowed: fewer tokens, heads or batch")
    shapes = tensors(cfg)
    big = max(shapes, key=lambda k: math.prod(shapes[k]))
    what = {"json": " as JSON", "html": " as HTML"}.get(fmt, "") + (" and crosscheck it" if crosscheck else "")
    raise ConfigError(OPTION, f"this walkthrough needs about {human(need)} to compute{what} ({big} alone is "
                              f"{' x '.join(map(str, shapes[big]))} = {math.prod(shapes[big]):,} values); "
                              f"allowed: at most {human(budget)} (fewer tokens, heads or batch, or a larger "
                              f"{OPTION} / {ENV})")
