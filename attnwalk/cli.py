"""The ``attnwalk`` command line (typer). Bad input: one line naming the option, exit 2."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from .errors import ConfigError

app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode=None,
                  help="Step-by-step worked examples of attention, with numbers PyTorch agrees with.")

# Scenario options shared by render, crosscheck and check. None means "not given": the
# scenario file's value, else the Config default. Every command taking a scenario lists all of them
# and passes them through ``scenario()``, so make_config is the one place that validates.
ScenarioFile = Annotated[Path | None, typer.Option("--scenario", help="scenario TOML file; flags override it")]
Variant = Annotated[str | None, typer.Option("--variant", help="yolo | sdpa | mha [yolo]")]
Tokens = Annotated[int | None, typer.Option("--tokens", help="sdpa/mha: query tokens N")]
KvTokens = Annotated[int | None, typer.Option("--kv-tokens", help="sdpa: key/value tokens M (cross when != N)")]
Mask = Annotated[str | None, typer.Option("--mask", help="sdpa: none | causal | padding:K")]
MaskFill = Annotated[str | None, typer.Option("--mask-fill", help="sdpa: -inf | -1e9 | -10000")]
Source = Annotated[str | None, typer.Option("--source", help="sdpa: q, k, v direct | columns | project [direct]")]
H = Annotated[int | None, typer.Option("--h", help="feature-map height H [3]")]
W = Annotated[int | None, typer.Option("--w", help="feature-map width W [3]")]
Dim = Annotated[int | None, typer.Option("--dim", help="channels C = dim [4]")]
Heads = Annotated[int | None, typer.Option("--heads", help="num_heads, divides dim [2]")]
AttnRatio = Annotated[float | None, typer.Option("--attn-ratio", help="key_dim = int(head_dim * ratio) [0.5]")]
Batch = Annotated[int | None, typer.Option("--batch", help="batch size B [1]")]
Seed = Annotated[int | None, typer.Option("--seed", help="random seed [42]")]
Input = Annotated[str | None, typer.Option("--input", help="ramp | randint | normal [ramp]")]
InitStd = Annotated[float | None, typer.Option("--init-std", help="std of the normal weights [0.02]")]
Rng = Annotated[str | None, typer.Option("--rng", help="torch | numpy [torch]")]
PeOn = Annotated[str | None, typer.Option("--pe-on", help="v (the module) | o (the seed notes) [v]")]
Lang = Annotated[str | None, typer.Option("--lang", help="vi | en [vi]")]
Decimals = Annotated[int | None, typer.Option("--decimals", help="printed decimals [4]")]


SCENARIO_KEYS = ("variant", "tokens", "kv_tokens", "mask", "mask_fill", "source", "h", "w", "dim", "heads",
                 "attn_ratio", "batch", "seed", "input", "init_std", "rng", "pe_on", "lang", "decimals")


def scenario_from(args: dict) -> dict:
    """The scenario options among a command's arguments (``locals()`` at its start)."""
    return scenario(args["scenario_file"], **{k: args[k] for k in SCENARIO_KEYS})


def scenario(scenario_file: Path | None = None, **options) -> dict:
    """The options the user gave (None dropped), over the scenario file's, for ``make_config``."""
    given = {k: v for k, v in options.items() if v is not None}
    if scenario_file is None:
        return given
    from .scenario import load_scenario  # sdpa/mha issue: TOML scenario files

    return {**load_scenario(scenario_file), **given}


def fail(message: str, code: int = 2) -> None:
    typer.echo(f"attnwalk: error: {message}", err=True)
    raise typer.Exit(code)


@app.command()
def render(
    scenario_file: ScenarioFile = None, variant: Variant = None, tokens: Tokens = None, kv_tokens: KvTokens = None,
    mask: Mask = None, mask_fill: MaskFill = None, source: Source = None, h: H = None, w: W = None,
    dim: Dim = None, heads: Heads = None,
    attn_ratio: AttnRatio = None, batch: Batch = None, seed: Seed = None, input: Input = None,
    init_std: InitStd = None, rng: Rng = None, pe_on: PeOn = None, lang: Lang = None,
    decimals: Decimals = None,
    format: Annotated[str, typer.Option("--format", help="md | json | html")] = "md",
    output: Annotated[Path | None, typer.Option("-o", "--output", help="write here instead of stdout")] = None,
    figures: Annotated[Path | None, typer.Option("--figures", help="write SVG figures into DIR; the note links "
                                                 "them (needs attnwalk[figures])")] = None,
) -> None:
    """Render one walkthrough (Markdown+LaTeX, a self-contained HTML page, or the JSON trace)."""
    args = dict(locals())  # the scenario options, before any other local exists
    from .api import walk
    from .render import render as render_doc
    from .writefile import write_atomic

    if format not in ("md", "json", "html"):
        fail(f"--format: got {format!r}; allowed: md, json, html")
    if figures is not None and format == "json":
        fail("--figures: a JSON trace has no figures; allowed: --format md, --format html")
    if (figures is not None or format == "html") and not _has_matplotlib():
        fail(f"{'--figures' if figures is not None else '--format'}: figures need matplotlib; "
             "allowed: pip install 'attnwalk[figures]'")
    if figures is not None and figures.exists() and not figures.is_dir():
        fail(f"--figures: {figures} is not a folder; allowed: a folder (created if missing)")
    try:
        opts = scenario_from(args)
        trace = walk(**opts)
    except ConfigError as err:
        fail(str(err))
    svgs: dict[str, str] = {}
    if figures is None:
        text = render_doc(trace, format, trace.config["lang"])
    else:
        from .render import render_with_figures

        base = output.parent if output is not None else Path(".")
        rel = os.path.relpath(figures.resolve(), base.resolve()).replace(os.sep, "/")
        stem = output.stem if output is not None else "figure"
        text, svgs = render_with_figures(trace, format, trace.config["lang"], stem, rel)
        try:
            figures.mkdir(parents=True, exist_ok=True)
            for name, svg_text in svgs.items():
                write_atomic(figures / name, svg_text)
        except OSError as err:
            fail(f"--figures: cannot write into {figures}: {err.strerror or err}")
    if output is None:
        sys.stdout.write(text)
        return
    try:
        write_atomic(output, text)
    except OSError as err:
        fail(f"-o: cannot write {output}: {err.strerror or err}")


def _has_matplotlib() -> bool:
    import importlib.util

    return importlib.util.find_spec("matplotlib") is not None


@app.command()
def crosscheck(
    scenario_file: ScenarioFile = None, variant: Variant = None, tokens: Tokens = None, kv_tokens: KvTokens = None,
    mask: Mask = None, mask_fill: MaskFill = None, source: Source = None, h: H = None, w: W = None,
    dim: Dim = None, heads: Heads = None,
    attn_ratio: AttnRatio = None, batch: Batch = None, seed: Seed = None, input: Input = None,
    init_std: InitStd = None, rng: Rng = None, pe_on: PeOn = None, lang: Lang = None,
    decimals: Decimals = None,
    device: Annotated[str, typer.Option("--device", help="cpu | cuda | auto [cpu]", show_default=False)] = "cpu",
    dtype: Annotated[str, typer.Option("--dtype", help="float64 | float32 [float64]", show_default=False)] = "float64",
    reference: Annotated[str, typer.Option("--reference", help="explicit | ultralytics [explicit]",
                                              show_default=False)] = "explicit",
) -> None:
    """Compare every recorded tensor with PyTorch's; exit 1 if any disagrees (needs torch)."""
    args = dict(locals())  # the scenario options, before any other local exists
    from .api import walk
    from .crosscheck import check_options, format_table
    from .crosscheck import crosscheck as run_crosscheck

    try:
        check_options(device, dtype, reference)
        opts = scenario_from(args)
        result = run_crosscheck(walk(**opts), device=device, dtype=dtype, reference=reference)
    except ConfigError as err:
        fail(str(err))
    sys.stdout.write(format_table(result))
    if not result["passed"]:
        raise typer.Exit(1)


@app.command()
def check(
    files: Annotated[list[Path], typer.Argument(help="Markdown notes to check")],
    scenario_file: ScenarioFile = None, variant: Variant = None, tokens: Tokens = None, kv_tokens: KvTokens = None,
    mask: Mask = None, mask_fill: MaskFill = None, source: Source = None, h: H = None, w: W = None,
    dim: Dim = None, heads: Heads = None,
    attn_ratio: AttnRatio = None, batch: Batch = None, seed: Seed = None, input: Input = None,
    init_std: InitStd = None, rng: Rng = None, pe_on: PeOn = None, lang: Lang = None,
    decimals: Decimals = None,
    show_unknown: Annotated[bool, typer.Option("--show-unknown", help="also list numbers not understood")] = False,
    skip_no_config: Annotated[bool, typer.Option("--skip-no-config",
                                                 help="skip notes without a config (pre-commit)")] = False,
) -> None:
    """Check every number of published notes against the recomputed trace; exit 1 if any is wrong."""
    args = dict(locals())  # the scenario options, before any other local exists
    from .check import CheckError, NoConfig, check_file

    try:
        opts = scenario_from(args)
    except ConfigError as err:
        fail(str(err))
    wrong = 0
    for path in files:
        try:
            report = check_file(path, opts)
        except NoConfig:
            if skip_no_config:
                typer.echo(f"{path}: skipped (no config)")
                continue
            fail(f"{path}: no config: the note has no front matter config; give --scenario or render options")
        except CheckError as err:
            fail(f"{path}: {err}" if not str(err).startswith(str(path)) else str(err))
        for line in report.failure_lines():
            typer.echo(line)
        for line in report.note_lines():
            typer.echo(line)
        if show_unknown:
            for r in report.unknown:
                typer.echo(f"{path}:{r.line}: not understood: {r.text}")
        typer.echo(report.summary())
        wrong += len(report.wrong)
    if wrong:
        raise typer.Exit(1)


@app.command()
def build(
    manifest: Annotated[Path, typer.Argument(help="course manifest (TOML)")] = Path("examples/course.toml"),
    check: Annotated[bool, typer.Option("--check", help="write nothing; exit 1 with a diff if stale")] = False,
) -> None:
    """Render every walkthrough of a course manifest; rewrite only the notes that change."""
    from .build import BuildError
    from .build import build as run_build

    def progress(n: int, total: int, shown: str, status: str) -> None:
        typer.echo(f"[{n}/{total}] {shown}: {status}", err=True)

    try:
        res = run_build(manifest, check=check, progress=progress)
    except BuildError as err:
        fail(str(err))
    if check:
        for diff in res.diffs:
            sys.stdout.write(diff)
        if res.stale:
            typer.echo(f"attnwalk build --check: {len(res.stale)} stale note(s): {', '.join(res.stale)}", err=True)
            raise typer.Exit(1)
        typer.echo(f"attnwalk build --check: {len(res.unchanged)} note(s) up to date", err=True)
        return
    typer.echo(f"attnwalk build: {len(res.written)} written, {len(res.unchanged)} unchanged", err=True)


@app.callback()
def _root() -> None:
    """Step-by-step worked examples of attention, with numbers PyTorch agrees with."""


def _click_exceptions():
    """Typer >= 0.20 vendors click as ``typer._click``; older releases use click itself."""
    try:
        from typer._click import exceptions
    except ImportError:  # pragma: no cover - depends on the installed typer
        from click import exceptions
    return exceptions


def main(argv: list[str] | None = None) -> int:
    """Entry point: usage errors become one line on stderr, exit 2, no usage dump."""
    cx = _click_exceptions()
    command = typer.main.get_command(app)
    try:
        result = command.main(args=argv, prog_name="attnwalk", standalone_mode=False)
    except typer.Exit as e:
        return e.exit_code
    except typer.Abort:
        return 130
    except cx.UsageError as e:
        if type(e).__name__ == "NoArgsIsHelpError":  # bare `attnwalk`: show the help
            typer.echo(e.format_message())
            return 0
        where = e.ctx.command_path if e.ctx else "attnwalk"
        typer.echo(f"{where}: error: {e.format_message()}", err=True)
        return 2
    except cx.ClickException as e:
        typer.echo(f"attnwalk: error: {e.format_message()}", err=True)
        return e.exit_code
    return result if isinstance(result, int) else 0


if __name__ == "__main__":
    sys.exit(main())
