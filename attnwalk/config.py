"""The validated, complete description of one walkthrough (DESIGN §1: scenario -> Config).

Every field has its default filled in; ``derived`` holds the sizes the module computes
from them (head_dim, key_dim, scale, ...), so templates and checker never recompute them.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from .errors import ConfigError

VARIANTS = ("yolo",)
INPUTS = ("ramp", "randint", "normal")
RNGS = ("torch", "numpy")
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
    derived: dict = field(default_factory=dict, compare=False)

    def to_dict(self) -> dict:
        """The user-facing options (no derived sizes), in declaration order."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "derived"}


def _choice(option: str, value, allowed: tuple) -> None:
    if value not in allowed:
        raise ConfigError(option, f"got {value!r}; allowed: {', '.join(map(str, allowed))}")


def _int_range(option: str, value, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(option, f"got {value!r}; allowed: an integer from {low} to {high}")
    if not low <= value <= high:
        raise ConfigError(option, f"got {value}; allowed: an integer from {low} to {high}")
    return value


def _positive_float(option: str, value) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ConfigError(option, f"got {value!r}; allowed: a number > 0") from None
    if not v > 0 or v == float("inf"):
        raise ConfigError(option, f"got {value!r}; allowed: a finite number > 0")
    return v


def make_config(**options) -> Config:
    """Validate ``options`` (unknown names rejected) and return a complete Config."""
    known = {f.name for f in dataclasses.fields(Config)} - {"derived"}
    for name in options:
        if name not in known:
            raise ConfigError(f"--{name.replace('_', '-')}", f"unknown option; allowed: {', '.join(sorted(known))}")
    cfg = Config(**options)
    _choice("--variant", cfg.variant, VARIANTS)
    _choice("--input", cfg.input, INPUTS)
    _choice("--rng", cfg.rng, RNGS)
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
    _int_range("--seed", cfg.seed, 0, 2**64 - 1)
    _int_range("--decimals", cfg.decimals, 0, MAX_DECIMALS)
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
