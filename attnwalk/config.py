"""The validated, complete description of one walkthrough (DESIGN §1: scenario -> Config).

Every field has its default filled in; ``derived`` holds the sizes the module computes
from them (head_dim, key_dim, scale, ...), so templates and checker never recompute them.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field

import numpy as np

from .errors import ConfigError, short

VARIANTS = ("yolo", "sdpa", "mha")
INPUTS = ("ramp", "randint", "normal", "uniform")  # uniform: np.random.rand, rng = "numpy-legacy" only
RNGS = ("torch", "numpy", "numpy-legacy")
PE_ON = ("v", "o")
LANGS = ("vi", "en")
FORMATS = ("md", "json")

# Sizes past which a walkthrough stops being readable or instant; the engine itself has no limit.
MAX_TOKENS = 4096
MAX_DIM = 1024
MAX_BATCH = 8
MAX_DECIMALS = 12
# Integer inputs drawn by ``--input randint`` lie in [RANDINT_LOW, RANDINT_HIGH).
RANDINT_LOW, RANDINT_HIGH = -4, 5


@dataclass(frozen=True)
class Config:
    variant: str = "yolo"
    h: int = 3
    w: int = 3
    dim: int = 4
    heads: int = 2
    attn_ratio: float = 0.5
    batch: int = 1
    seed: int = 42
    input: str = "ramp"
    init_std: float = 0.02
    rng: str = "torch"
    pe_on: str = "v"
    lang: str = "vi"
    decimals: int = 4
    # Sequence variants (sdpa, mha): see docs/scenarios.md. Tables are tuples of rows.
    tokens: int = 3
    kv_tokens: int | None = None
    mask: str = "none"
    mask_fill: str = "-inf"
    source: str = "direct"
    bias: bool = True
    labels: tuple | None = None
    kv_labels: tuple | None = None
    x: tuple | None = None
    x_kv: tuple | None = None
    q: tuple | None = None
    k: tuple | None = None
    v: tuple | None = None
    w_q: tuple | None = None
    w_k: tuple | None = None
    w_v: tuple | None = None
    q_cols: tuple | None = None
    k_cols: tuple | None = None
    v_cols: tuple | None = None
    scale: str | float = "sqrt_dk"  # sdpa/mha: "sqrt_dk" (1/sqrt(d_k)), "none" (1) or the multiplier itself
    weight_layout: str = "out_in"  # sdpa project: given w_q/w_k/w_v as nn.Linear (out, in) or as X @ W (in, out)
    scores: tuple | None = None  # sdpa source "scores": the given scores (before scaling), N x M
    weight_init: str = "normal"  # sdpa project, numpy-legacy: W drawn by np.random.randn ("normal") or rand ("uniform")
    derived: dict = field(default_factory=dict, compare=False)

    def to_dict(self) -> dict:
        """The user-facing options of this variant (no derived sizes), in declaration order.

        Options of other variants are left out, and so are tables that were not given, so a
        yolo config is exactly what it was before the sequence variants existed.
        """
        keep = OPTIONS_OF[self.variant]
        out = {}
        for f in dataclasses.fields(self):
            if f.name not in keep:
                continue
            value = getattr(self, f.name)
            if f.name in OPTIONAL_FIELDS and value is None:
                continue
            if (f.name, value) in DEFAULT_OMITTED:
                continue  # keys added later: left out at their default, so older notes keep their bytes
            out[f.name] = _plain(value)
        return out


def _plain(value):
    """Tuples as lists, recursively: the JSON/YAML shape of a table."""
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


COMMON = ("variant", "dim", "heads", "batch", "seed", "input", "init_std", "rng", "lang", "decimals")
TABLES = ("x", "x_kv", "q", "k", "v", "w_q", "w_k", "w_v", "scores")
COLUMNS = ("q_cols", "k_cols", "v_cols")
OPTIONAL_FIELDS = ("kv_tokens", "labels", "kv_labels") + TABLES + COLUMNS
# Which options each variant takes. An option of another variant given explicitly is an
# error (one line naming it and the variants it belongs to); left out, it is ignored.
OPTIONS_OF = {
    "yolo": ("variant", "h", "w", "dim", "heads", "attn_ratio", "batch", "seed", "input", "init_std", "rng",
             "pe_on", "lang", "decimals"),
    "sdpa": COMMON + ("tokens", "kv_tokens", "mask", "mask_fill", "source", "labels", "kv_labels") + TABLES
    + COLUMNS + ("scale", "weight_layout", "weight_init"),
    "mha": COMMON + ("tokens", "mask", "mask_fill", "bias", "labels", "x", "scale"),
}
SOURCES = ("direct", "columns", "project", "scores")
WEIGHT_LAYOUTS = ("out_in", "in_out")
WEIGHT_INITS = ("normal", "uniform")
DEFAULT_OMITTED = {("scale", "sqrt_dk"), ("weight_layout", "out_in"), ("weight_init", "normal")}
MASK_FILLS = ("-inf", "-1e9", "-10000")
MASK_FILL_VALUES = {"-inf": float("-inf"), "-1e9": -1e9, "-10000": -10000.0}
# Closed forms (exact mode) up to this many attention weights; past it, decimals only.
MAX_EXACT_WEIGHTS = 256


def _choice(option: str, value, allowed: tuple) -> None:
    if not isinstance(value, str) or value not in allowed:
        raise ConfigError(option, f"got {_short(value)}; allowed: {', '.join(map(str, allowed))}")


def _uniform_needs_legacy(cfg) -> None:
    """``input = "uniform"`` is ``np.random.rand``: a draw of NumPy's legacy stream only."""
    if cfg.input == "uniform" and cfg.rng != "numpy-legacy":
        raise ConfigError("--input", f"uniform (np.random.rand) needs --rng numpy-legacy, got --rng {_short(cfg.rng)}; "
                                     "allowed: ramp, randint, normal with any rng, uniform with numpy-legacy")


def _int_range(option: str, value, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(option, f"got {_short(value)}; allowed: an integer from {low} to {high}")
    if not low <= value <= high:
        raise ConfigError(option, f"got {_short(value)}; allowed: an integer from {low} to {high}")
    return value


def _positive_float(option: str, value) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ConfigError(option, f"got {_short(value)}; allowed: a number > 0") from None
    except OverflowError:
        v = float("inf")
    if isinstance(value, bool) or not v > 0 or v == float("inf"):
        raise ConfigError(option, f"got {_short(value)}; allowed: a finite number > 0")
    return v


def require_document(cfg: Config, fmt: str) -> None:
    """A Markdown or HTML walkthrough explains q, k, v and a drawn input: given scores (``source =
    "scores"``) and ``np.random.rand`` inputs are for ``check`` and the trace exports only."""
    if fmt not in ("md", "html", "ipynb"):
        return
    if cfg.variant == "sdpa" and cfg.source == "scores":
        raise ConfigError("--source", f"got 'scores' (given scores: for check and --format json), with --format "
                                      f"{fmt}; allowed: direct, columns, project (allowed for Markdown/HTML/ipynb)")
    if cfg.input == "uniform":
        raise ConfigError("--input", f"got 'uniform' (np.random.rand: for check and --format json), with --format "
                                     f"{fmt}; allowed: ramp, randint, normal (allowed for Markdown/HTML/ipynb)")
    if cfg.weight_init == "uniform":
        raise ConfigError("--weight-init", f"got 'uniform' (np.random.rand: for check and --format json), with "
                                           f"--format {fmt}; allowed: normal (allowed for Markdown/HTML/ipynb)")


def _flag(name: str) -> str:
    return f"--{name.replace('_', '-')}"


def make_config(**options) -> Config:
    """Validate ``options`` (unknown names rejected) and return a complete Config.

    ``None`` means "not given". An option that belongs to another variant only (``--h`` with
    sdpa, ``--mask`` with yolo, ...) is rejected, naming the variants it applies to.
    """
    known = {f.name for f in dataclasses.fields(Config)} - {"derived"}
    for name in options:
        if name not in known:
            raise ConfigError(_flag(name), f"unknown option; allowed: {', '.join(sorted(known))}")
    options = {k: v for k, v in options.items() if v is not None}
    variant = options.get("variant", "yolo")
    _choice("--variant", variant, VARIANTS)
    for name in options:
        if name not in OPTIONS_OF[variant]:
            owners = [v for v in VARIANTS if name in OPTIONS_OF[v]]
            where = "--scenario" if name in TABLES + COLUMNS + ("labels", "kv_labels") else _flag(name)
            raise ConfigError(where, f"{name} applies to --variant {' | '.join(owners)} only, not {variant}; "
                                     f"allowed: with {variant}, {', '.join(OPTIONS_OF[variant][1:6])}, ...")
    if variant != "yolo":
        return _sequence_config(options)
    cfg = Config(**options)
    _choice("--input", cfg.input, INPUTS)
    _choice("--rng", cfg.rng, RNGS)
    _uniform_needs_legacy(cfg)
    _choice("--pe-on", cfg.pe_on, PE_ON)
    _choice("--lang", cfg.lang, LANGS)
    _int_range("--h", cfg.h, 1, MAX_TOKENS)
    _int_range("--w", cfg.w, 1, MAX_TOKENS)
    if cfg.h * cfg.w > MAX_TOKENS:
        raise ConfigError("--h/--w", f"H*W = {cfg.h * cfg.w}; allowed: at most {MAX_TOKENS} positions")
    _int_range("--dim", cfg.dim, 1, MAX_DIM)
    _int_range("--heads", cfg.heads, 1, cfg.dim)
    if cfg.dim % cfg.heads:
        divisors = [d for d in range(1, cfg.dim + 1) if cfg.dim % d == 0]
        allowed = ", ".join(map(str, divisors))
        raise ConfigError("--heads", f"got {cfg.heads}, which does not divide --dim {cfg.dim}; allowed: {allowed}")
    _int_range("--batch", cfg.batch, 1, MAX_BATCH)
    _int_range("--seed", cfg.seed, 0, 2**32 - 1 if cfg.rng == "numpy-legacy" else 2**64 - 1)  # np.random.seed
    _int_range("--decimals", cfg.decimals, 1, MAX_DECIMALS)
    attn_ratio = _positive_float("--attn-ratio", cfg.attn_ratio)
    init_std = _positive_float("--init-std", cfg.init_std)
    head_dim = cfg.dim // cfg.heads
    key_dim = int(head_dim * attn_ratio)
    if key_dim < 1:
        raise ConfigError(
            "--attn-ratio",
            f"got {cfg.attn_ratio}: key_dim = int({head_dim} * {cfg.attn_ratio}) = 0; "
            f"allowed: a ratio >= {1 / head_dim:g}",
        )
    cfg = dataclasses.replace(cfg, attn_ratio=attn_ratio, init_std=init_std)
    nh_kd = key_dim * cfg.heads
    derived = {
        "n": cfg.h * cfg.w,
        "head_dim": head_dim,
        "key_dim": key_dim,
        "nh_kd": nh_kd,
        "qkv_channels": cfg.dim + 2 * nh_kd,
        "scale": key_dim**-0.5,
    }
    object.__setattr__(cfg, "derived", derived)
    return cfg


# ---------------------------------------------------------------------------------------------
# Sequence variants: sdpa and mha (docs/scenarios.md).


# A table entry written as a string: an integer, a decimal (with a bounded exponent) or p/q.
_NUMBER_RE = re.compile(r"[+-]?(\d{1,40}(\.\d{0,40})?|\.\d{1,40})([eE][+-]?\d{1,3})?(/[+-]?\d{1,40})?")
MAX_ENTRY = 10**300  # past this, float64 cannot even hold the value


def _entry(key: str, r: int, c: int, value):
    """One table entry: int, float (finite), or a rational written as a string ("1/3", "0.25")."""
    where = (f"{key}: row {r}, column {c}: got {_short(value)}; "
             "allowed: an integer, a finite number or a string like \"1/3\"")
    if isinstance(value, bool):
        raise ConfigError("--scenario", where)
    if isinstance(value, int) and abs(value) > MAX_ENTRY:
        raise ConfigError("--scenario", where)
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise ConfigError("--scenario", where)
        return value
    if isinstance(value, str):
        # Checked by shape first: Fraction("1e100000000") would compute a 100-million-digit integer.
        if len(value) > 60 or not _NUMBER_RE.fullmatch(value.strip()):
            raise ConfigError("--scenario", where)
        from fractions import Fraction  # here: only scenario tables need it (~1.5 ms of every start-up)

        try:
            f = Fraction(value.strip())
        except (ValueError, ZeroDivisionError):
            raise ConfigError("--scenario", where) from None
        if abs(f) > MAX_ENTRY:
            raise ConfigError("--scenario", where)
        return int(f) if f.denominator == 1 else str(f)
    if isinstance(value, (np.integer, np.floating)):
        return _entry(key, r, c, value.item())
    raise ConfigError("--scenario", where)


def _table(key: str, value) -> tuple[tuple, ...]:
    """A table (one row per token) as a tuple of rows, every row the same length."""
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if not isinstance(value, (list, tuple)) or not value or not all(isinstance(r, (list, tuple)) for r in value):
        raise ConfigError("--scenario", f"{key}: got {_short(value)}; allowed: a non-empty list of rows, "
                                        "e.g. [[1, 0], [2, 1]]")
    width = len(value[0])
    rows = []
    for r, row in enumerate(value):
        if len(row) != width or width == 0:
            raise ConfigError("--scenario", f"{key}: row {r} has {len(row)} values, row 0 has {width}; "
                                            "allowed: every row the same non-zero length")
        rows.append(tuple(_entry(key, r, c, v) for c, v in enumerate(row)))
    if len(rows) > MAX_TOKENS or width > MAX_DIM:
        raise ConfigError("--scenario", f"{key}: {len(rows)} x {width}; allowed: at most {MAX_TOKENS} x {MAX_DIM}")
    return tuple(rows)


def _columns(key: str, value, width: int) -> tuple[int, ...]:
    """Column indices into a table of ``width`` columns: 0, 1, ... or "c0", "c1", ..."""
    allowed = f"allowed: a non-empty list of column indices 0..{width - 1} (or \"c0\"..\"c{width - 1}\")"
    value = list(value) if isinstance(value, tuple) else value
    if not isinstance(value, (list, tuple)) or not value:
        raise ConfigError("--scenario", f"{key}: got {_short(value)}; {allowed}")
    out = []
    for c in value:
        if isinstance(c, str) and c.startswith("c") and c[1:].isdigit():
            c = int(c[1:])
        if isinstance(c, bool) or not isinstance(c, int) or not 0 <= c < width:
            raise ConfigError("--scenario", f"{key}: got {_short(value)}; {allowed}")
        out.append(c)
    return tuple(out)


MAX_LABEL = 64  # characters of one token label


def _labels(key: str, value, n: int) -> tuple[str, ...]:
    """Words for the tokens: one line each (control characters and line breaks refused; the rest
    is escaped where it is printed, attnwalk/escape.py)."""
    from .escape import bad_char

    allowed = f"allowed: a list of {n} non-empty strings of at most {MAX_LABEL} characters, without control characters"
    if not isinstance(value, (list, tuple)) or len(value) != n or not all(isinstance(s, str) and s for s in value):
        shown = list(value) if isinstance(value, tuple) else value
        raise ConfigError("--scenario", f"{key}: got {_short(shown)}; {allowed}")
    for i, s in enumerate(value):
        ch = bad_char(s)
        if ch is not None or len(s) > MAX_LABEL:
            what = f"contains {ch!r}" if ch is not None else f"has {len(s)} characters"
            raise ConfigError("--scenario", f"{key}: label {i} {what}; {allowed}")
    return tuple(value)


_short = short  # errors.short: a value as an error line shows it


def _mask(value, m: int) -> str:
    allowed = f"allowed: none, causal, padding:K with K from 0 to {m} (the last K keys are padding)"
    if isinstance(value, str):
        v = value.strip().lower()
        if v in ("none", "causal"):
            return v
        if v.startswith("padding:") and v[8:].isdigit() and len(v) <= 20 and int(v[8:]) <= m:
            return f"padding:{int(v[8:])}"
    raise ConfigError("--mask", f"got {_short(value)}; {allowed}")


def _mask_fill(value) -> str:
    try:
        v = float(value)
    except (TypeError, ValueError):
        v = None
    for name, fill in MASK_FILL_VALUES.items():
        if v == fill:
            return name
    raise ConfigError("--mask-fill", f"got {_short(value)}; allowed: {', '.join(MASK_FILLS)}")


def _scale(value) -> str | float:
    """``scale``: "sqrt_dk", "none" or a finite number > 0 (the multiplier, as PyTorch's ``scale=``)."""
    if value in ("sqrt_dk", "none"):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        v = float(value)
        if np.isfinite(v) and v > 0:
            return value
    raise ConfigError("--scale", f"got {_short(value)}; allowed: sqrt_dk, none, a finite number > 0")


def _scale_value(scale, d_k: int | None) -> float:
    """The multiplier of the scores for a validated ``scale``."""
    if scale == "sqrt_dk":
        return d_k**-0.5
    return 1.0 if scale == "none" else float(scale)


def _transposed(table):
    return tuple(tuple(row[c] for row in table) for c in range(len(table[0])))


def _width(table) -> int:
    return len(table[0])


def _sequence_config(options: dict) -> Config:
    variant = options["variant"]
    options = dict(options)
    options.setdefault("input", "randint")  # small integers: readable, and exact (closed forms)
    for key in TABLES:
        if key in options:
            options[key] = _table(key, options[key])
    for name in ("labels", "kv_labels", "q_cols", "k_cols", "v_cols"):
        if name in options and isinstance(options[name], list):
            options[name] = tuple(options[name])
    if options.get("source") == "scores":
        options.setdefault("heads", 1)  # one head: the table is its scores
        options.setdefault("scale", "none")  # given scores: softmax(scores) unless the note scales them
    given_w = {}
    if options.get("weight_layout") == "in_out":  # X @ W: validate (and draw) in nn.Linear layout
        for key in ("w_q", "w_k", "w_v"):
            if options.get(key) is not None:
                given_w[key] = options[key]
                options[key] = _transposed(options[key])
    cfg = Config(**options)
    _choice("--input", cfg.input, INPUTS)
    _choice("--rng", cfg.rng, RNGS)
    _uniform_needs_legacy(cfg)
    _choice("--lang", cfg.lang, LANGS)
    _choice("--weight-layout", cfg.weight_layout, WEIGHT_LAYOUTS)
    _choice("--weight-init", cfg.weight_init, WEIGHT_INITS)
    if cfg.weight_init == "uniform" and cfg.rng != "numpy-legacy":  # np.random.rand: NumPy's legacy stream only
        raise ConfigError("--weight-init", f"uniform (np.random.rand) needs --rng numpy-legacy, got --rng "
                                           f"{_short(cfg.rng)}; allowed: normal with any rng, uniform with "
                                           "numpy-legacy")
    if cfg.weight_init == "uniform" and (variant != "sdpa" or cfg.source != "project"):
        raise ConfigError("--weight-init", "uniform draws the weights W_Q, W_K, W_V, which only sdpa's source "
                                           "'project' has; allowed: normal, or uniform with source = \"project\"")
    scale = _scale(cfg.scale)
    _int_range("--batch", cfg.batch, 1, MAX_BATCH)
    _int_range("--seed", cfg.seed, 0, 2**32 - 1 if cfg.rng == "numpy-legacy" else 2**64 - 1)  # np.random.seed
    _int_range("--decimals", cfg.decimals, 1, MAX_DECIMALS)
    init_std = _positive_float("--init-std", cfg.init_std)
    tables = {k: getattr(cfg, k) for k in TABLES if getattr(cfg, k) is not None}
    if tables and cfg.batch != 1:
        raise ConfigError("--batch", f"got {cfg.batch}; allowed: 1 when the scenario gives tables "
                                     f"({', '.join(tables)}), which hold one sequence")
    source = cfg.source if variant == "sdpa" else "project"
    if variant == "sdpa":
        _choice("--source", cfg.source, SOURCES)
        allowed_tables = {"direct": ("q", "k", "v"), "columns": ("x", "x_kv"),
                          "project": ("x", "x_kv", "w_q", "w_k", "w_v"), "scores": ("scores", "v")}[source]
        for key in TABLES + COLUMNS:
            if getattr(cfg, key) is not None and key not in allowed_tables + (COLUMNS if source == "columns" else ()):
                owners = [s for s in SOURCES if key in {"direct": ("q", "k", "v"), "columns": ("x", "x_kv") + COLUMNS,
                                                        "project": ("x", "x_kv", "w_q", "w_k", "w_v"),
                                                        "scores": ("scores", "v")}[s]]
                raise ConfigError("--scenario", f"{key} applies to source = {' | '.join(owners)} only, "
                                                f"not {source}; allowed: with source = {source}, "
                                                f"{', '.join(allowed_tables)}")

    if source == "scores":
        return _scores_config(cfg, options, scale)
    # Query tokens N: from the query-side table, else --tokens.
    q_side = cfg.q if source == "direct" else cfg.x
    n = _rows_or("tokens", options, q_side, "q" if source == "direct" else "x")
    if variant == "mha":
        if "bias" in options and not isinstance(cfg.bias, bool):
            raise ConfigError("--bias", f"got {_short(cfg.bias)}; allowed: true, false")
        m = n
    else:
        kv_side = [t for t in ((cfg.k, cfg.v) if source == "direct" else (cfg.x_kv,)) if t is not None]
        m = options.get("kv_tokens", None)
        if m is not None:
            _int_range("--kv-tokens", m, 1, MAX_TOKENS)
        for key, t in zip(("k", "v") if source == "direct" else ("x_kv",), (cfg.k, cfg.v) if source == "direct"
                          else (cfg.x_kv,)):
            if t is None:
                continue
            if m is not None and len(t) != m:
                raise ConfigError("--kv-tokens", f"got {m} but table {key} has {len(t)} rows; allowed: {len(t)}")
            m = len(t)
        if m is None:
            m = n
        if source != "direct" and cfg.x is not None and cfg.x_kv is None and m != n:
            raise ConfigError("--scenario", f"x_kv: needed for cross-attention ({m} key tokens, x has {n} rows); "
                                            "allowed: a table of key/value tokens")
        del kv_side

    # Widths: model dim D (x or q), the q/k width and the v width (all heads together).
    dim_given = options.get("dim")
    if dim_given is not None:
        _int_range("--dim", dim_given, 1, MAX_DIM)

    def width_of(key: str, table, default: int) -> int:
        if table is None:
            return default
        if dim_given is not None and key in ("x", "q") and _width(table) != dim_given:
            raise ConfigError("--dim", f"got {dim_given} but table {key} has {_width(table)} columns; "
                                       f"allowed: {_width(table)}")
        return _width(table)

    cols = {}
    if source == "direct":
        dim = width_of("q", cfg.q, cfg.dim)
        qk_width = dim
        if cfg.k is not None and _width(cfg.k) != qk_width:
            raise ConfigError("--scenario", f"k: {_width(cfg.k)} columns, q has {qk_width}; allowed: {qk_width}")
        v_width = _width(cfg.v) if cfg.v is not None else dim
    else:
        dim = width_of("x", cfg.x, cfg.dim)
        if cfg.x_kv is not None and _width(cfg.x_kv) != dim:
            raise ConfigError("--scenario", f"x_kv: {_width(cfg.x_kv)} columns, x has {dim}; allowed: {dim}")
        if source == "columns":
            if dim < 3 and (cfg.q_cols is None or cfg.k_cols is None or cfg.v_cols is None):
                raise ConfigError("--scenario", f"q_cols/k_cols/v_cols: needed when x has {dim} < 3 columns; "
                                                "allowed: all three given, e.g. q_cols = [0], k_cols = [0], "
                                                "v_cols = [1]")
            defaults = {"q_cols": (0,), "k_cols": (1,), "v_cols": tuple(range(2, dim))}
            for key in COLUMNS:
                value = getattr(cfg, key)
                cols[key] = defaults[key] if value is None else _columns(key, value, dim)
            if len(cols["q_cols"]) != len(cols["k_cols"]):
                raise ConfigError("--scenario", f"k_cols: {len(cols['k_cols'])} columns but q_cols has "
                                                f"{len(cols['q_cols'])}; allowed: the same number")
            qk_width, v_width = len(cols["q_cols"]), len(cols["v_cols"])
        elif variant == "sdpa":
            qk_width = v_width = dim
            for key in ("w_q", "w_k", "w_v"):
                t = getattr(cfg, key)
                if t is not None and _width(t) != dim:
                    raise ConfigError("--scenario", f"{key}: {_width(t)} columns; allowed: {dim} (Linear layout "
                                                    "(out, in), in = the columns of x)")
            if cfg.w_q is not None:
                qk_width = len(cfg.w_q)
            if cfg.w_k is not None:
                if cfg.w_q is None and len(cfg.w_k) != dim or cfg.w_q is not None and len(cfg.w_k) != qk_width:
                    raise ConfigError("--scenario", f"w_k: {len(cfg.w_k)} rows; allowed: {qk_width} (as w_q)")
                qk_width = len(cfg.w_k)
            if cfg.w_v is not None:
                v_width = len(cfg.w_v)
        else:  # mha
            qk_width = v_width = dim
    heads = cfg.heads
    _int_range("--heads", heads, 1, MAX_DIM)
    for what, width in (("q/k", qk_width), ("v", v_width)):
        if width % heads:
            divisors = [d for d in range(1, width + 1) if width % d == 0]
            raise ConfigError("--heads", f"got {heads}, which does not divide the {what} width {width}; "
                                         f"allowed: {', '.join(map(str, divisors))}")
    mask = _mask(cfg.mask, m)
    mask_fill = _mask_fill(cfg.mask_fill)
    if cfg.labels is not None:
        _labels("labels", cfg.labels, n)
    if cfg.kv_labels is not None:
        if variant == "mha":
            raise ConfigError("--scenario", "kv_labels applies to --variant sdpa only, not mha; allowed: labels "
                                            "(with mha the keys are the queries)")
        _labels("kv_labels", cfg.kv_labels, m)

    d_k, d_v = qk_width // heads, v_width // heads
    if variant == "sdpa":
        needed = {"direct": ("q", "k", "v"), "columns": ("x",) + (("x_kv",) if m != n or cfg.x_kv else ()),
                  "project": ("x", "w_q", "w_k", "w_v") + (("x_kv",) if m != n or cfg.x_kv else ())}[source]
        drawn_exact = cfg.input in ("ramp", "randint")
        exact = all(getattr(cfg, key) is not None or (drawn_exact and not key.startswith("w_")) for key in needed)
    else:
        exact = False  # mha's weights are always drawn from normals
    exact = exact and n * m * heads <= MAX_EXACT_WEIGHTS
    cross = m != n or (variant == "sdpa" and source != "direct" and cfg.x_kv is not None)
    cfg = dataclasses.replace(
        cfg, tokens=n, kv_tokens=m if variant == "sdpa" else None, dim=dim, mask=mask, mask_fill=mask_fill,
        source=source if variant == "sdpa" else "direct", init_std=init_std, scale=scale,
        **({k: cols[k] for k in COLUMNS} if cols else {}), **given_w)
    derived = {
        "n": n, "m": m, "d_model": dim, "qk_width": qk_width, "v_width": v_width, "d_k": d_k, "d_v": d_v,
        "head_dim": d_k, "scale": _scale_value(scale, d_k), "exact": exact,
        "cross": cross,
    }
    object.__setattr__(cfg, "derived", derived)
    return cfg


def _scores_config(cfg: Config, options: dict, scale) -> Config:
    """sdpa ``source = "scores"``: the scores table (N x M, before scaling) and optionally v (M rows)."""
    if cfg.scores is None:
        raise ConfigError("--scenario", "scores: needed with source = scores; allowed: a table, one row per query")
    n, m = len(cfg.scores), _width(cfg.scores)
    for option, value in (("tokens", n), ("kv_tokens", m)):
        given = options.get(option)
        if given is not None and given != value:
            raise ConfigError(_flag(option), f"got {given} but table scores gives {value}; allowed: {value}")
    if cfg.heads != 1:
        raise ConfigError("--heads", f"got {cfg.heads}; allowed: 1 (source = scores gives one head's scores)")
    if cfg.v is not None and len(cfg.v) != m:
        raise ConfigError("--scenario", f"v: {len(cfg.v)} rows; allowed: {m} (the columns of scores)")
    if scale == "sqrt_dk" and "dim" not in options:
        raise ConfigError("--scale", "got 'sqrt_dk' but source = scores has no d_k; allowed: none, a number, "
                                     "or sqrt_dk with dim = d_k")
    d_k = options.get("dim")
    if d_k is not None:
        _int_range("--dim", d_k, 1, MAX_DIM)
    d_v = _width(cfg.v) if cfg.v is not None else 0
    mask = _mask(cfg.mask, m)
    mask_fill = _mask_fill(cfg.mask_fill)
    if cfg.labels is not None:
        _labels("labels", cfg.labels, n)
    if cfg.kv_labels is not None:
        _labels("kv_labels", cfg.kv_labels, m)
    cfg = dataclasses.replace(cfg, tokens=n, kv_tokens=m, dim=d_k or cfg.dim, mask=mask, mask_fill=mask_fill,
                              scale=scale)
    derived = {"n": n, "m": m, "d_model": d_v, "qk_width": d_k or 0, "v_width": d_v, "d_k": d_k or 0, "d_v": d_v,
               "head_dim": d_k or 0, "scale": _scale_value(scale, d_k), "exact": False, "cross": m != n}
    object.__setattr__(cfg, "derived", derived)
    return cfg


def _rows_or(option: str, options: dict, table, key: str) -> int:
    given = options.get(option)
    if given is not None:
        _int_range(_flag(option), given, 1, MAX_TOKENS)
    if table is None:
        return given if given is not None else Config.tokens
    if given is not None and given != len(table):
        raise ConfigError(_flag(option), f"got {given} but table {key} has {len(table)} rows; allowed: {len(table)}")
    return len(table)
