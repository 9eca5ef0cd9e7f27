"""Every command's parameters, declared once: the typer app is built from this table (cli._typer_app) and
``main``'s fast parser reads it (fastargs.py), so the two can never disagree on a name, a type or a default.

A row is one parameter of a command function in cli.py, in the order ``--help`` lists them.
"""

from __future__ import annotations

from pathlib import Path

REQUIRED = ...  # the default of an argument that must be given


class Opt:
    """One parameter (a plain class: a NamedTuple costs ~0.3 ms of every start-up to create)."""

    __slots__ = ("name", "flags", "type", "default", "help", "show_default", "many")

    def __init__(self, name: str, flags: tuple[str, ...], type: type, default: object = None, help: str = "",
                 show_default: bool = True, many: bool = False) -> None:
        self.name = name  # the command function's parameter
        self.flags = flags  # its option names; () for a positional argument
        self.type = type  # str, int, float, bool (a flag: given or not) or Path
        self.default = default  # None: not given; REQUIRED: an argument that must be given
        self.help = help
        self.show_default = show_default
        self.many = many  # an argument taking every remaining value (a list of ``type``)


# Scenario options shared by render, crosscheck and check. None means "not given": the scenario file's
# value, else the Config default (cli.scenario merges them; make_config is the one place that validates).
SCENARIO = (
    Opt("scenario_file", ("--scenario",), Path, help="scenario TOML file; flags override it"),
    Opt("variant", ("--variant",), str, help="yolo | sdpa | mha [yolo]"),
    Opt("tokens", ("--tokens",), int, help="sdpa/mha: query tokens N"),
    Opt("kv_tokens", ("--kv-tokens",), int, help="sdpa: key/value tokens M (cross when != N)"),
    Opt("mask", ("--mask",), str, help="sdpa: none | causal | padding:K"),
    Opt("mask_fill", ("--mask-fill",), str, help="sdpa: -inf | -1e9 | -10000"),
    Opt("source", ("--source",), str, help="sdpa: q, k, v direct | columns | project [direct]"),
    Opt("h", ("--h",), int, help="feature-map height H [3]"),
    Opt("w", ("--w",), int, help="feature-map width W [3]"),
    Opt("dim", ("--dim",), int, help="channels C = dim [4]"),
    Opt("heads", ("--heads",), int, help="num_heads, divides dim [2]"),
    Opt("attn_ratio", ("--attn-ratio",), float, help="key_dim = int(head_dim * ratio) [0.5]"),
    Opt("batch", ("--batch",), int, help="batch size B [1]"),
    Opt("seed", ("--seed",), int, help="random seed [42]"),
    Opt("input", ("--input",), str, help="ramp | randint | normal | uniform (numpy-legacy) [ramp]"),
    Opt("init_std", ("--init-std",), float, help="std of the normal weights [0.02]"),
    Opt("rng", ("--rng",), str, help="torch | numpy | numpy-legacy [torch]"),
    Opt("pe_on", ("--pe-on",), str, help="v (the module) | o (the seed notes) [v]"),
    Opt("lang", ("--lang",), str, help="vi | en [vi]"),
    Opt("decimals", ("--decimals",), int, help="printed decimals [4]"),
)
SCENARIO_KEYS = tuple(o.name for o in SCENARIO[1:])  # what make_config takes

MAX_MEMORY = Opt("max_memory", ("--max-memory",), str, help="memory budget, e.g. 4G [2G, or $ATTNWALK_MAX_MEMORY]")

COMMANDS: dict[str, tuple[Opt, ...]] = {
    "render": (
        *SCENARIO,
        Opt("format", ("--format",), str, "md", "md | html | ipynb | json | npz (binary: -o or a pipe)"),
        # a str, not a Path: Path("notes/") drops the slash that says a folder was meant (check_target refuses it)
        Opt("output", ("-o", "--output"), str, help="write here instead of stdout"),
        Opt("figures", ("--figures",), Path,
            help="write SVG figures into DIR; the note links them (needs attnwalk[figures])"),
        MAX_MEMORY,
    ),
    "crosscheck": (
        *SCENARIO,
        Opt("device", ("--device",), str, "cpu", "cpu | cuda | auto [cpu]", show_default=False),
        Opt("dtype", ("--dtype",), str, "float64", "float64 | float32 [float64]", show_default=False),
        Opt("reference", ("--reference",), str, "explicit", "explicit | ultralytics [explicit]", show_default=False),
        MAX_MEMORY,
    ),
    "check": (
        Opt("files", (), Path, REQUIRED, "Markdown notes or Jupyter notebooks (.ipynb) to check", many=True),
        *SCENARIO,
        Opt("show_unknown", ("--show-unknown",), bool, False, "also list numbers not understood"),
        Opt("skip_no_config", ("--skip-no-config",), bool, False, "skip notes without a config (pre-commit)"),
        MAX_MEMORY,
        Opt("fix", ("--fix",), bool, False, "rewrite each wrong number in place (atomically)"),
        Opt("diff", ("--diff",), bool, False, "print the --fix changes as a unified diff; write nothing"),
        Opt("format", ("--format",), str, "text", "text | json | github [text]"),
    ),
    "build": (
        Opt("manifest", (), Path, Path("examples/course.toml"), "course manifest (TOML)"),
        Opt("check", ("--check",), bool, False, "write nothing; exit 1 with a diff if stale"),
        MAX_MEMORY,
    ),
}
