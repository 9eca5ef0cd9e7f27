"""The ``attnwalk`` command line (typer). Bad input: one line naming the option, exit 2."""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from .errors import ConfigError

_APP = dict(add_completion=False, no_args_is_help=True, rich_markup_mode=None,
            help="Step-by-step worked examples of attention, with numbers PyTorch agrees with.")
app = typer.Typer(**_APP)

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
Input = Annotated[str | None, typer.Option("--input", help="ramp | randint | normal | uniform (numpy-legacy) [ramp]")]
InitStd = Annotated[float | None, typer.Option("--init-std", help="std of the normal weights [0.02]")]
Rng = Annotated[str | None, typer.Option("--rng", help="torch | numpy | numpy-legacy [torch]")]
PeOn = Annotated[str | None, typer.Option("--pe-on", help="v (the module) | o (the seed notes) [v]")]
Lang = Annotated[str | None, typer.Option("--lang", help="vi | en [vi]")]
Decimals = Annotated[int | None, typer.Option("--decimals", help="printed decimals [4]")]
MaxMemory = Annotated[str | None, typer.Option("--max-memory",
                                               help="memory budget, e.g. 4G [2G, or $ATTNWALK_MAX_MEMORY]")]


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


def set_budget(max_memory: str | None) -> None:
    """``--max-memory``: validated, then exported as ATTNWALK_MAX_MEMORY for every walk of this run."""
    import os

    from .budget import ENV, limit, parse_size

    try:
        if max_memory is not None:
            os.environ[ENV] = str(parse_size(max_memory))
        limit()  # a bad ATTNWALK_MAX_MEMORY is reported once, up front
    except ConfigError as err:
        fail(str(err))
    threads = os.environ.get("ATTNWALK_THREADS")
    if threads and not (threads.isdigit() and 1 <= int(threads) <= 1024):  # engine/blas.worker_count reads it
        fail(f"ATTNWALK_THREADS: got {threads[:40]!r}; allowed: a whole number of threads from 1 to 1024 (unset: "
             "the CPUs this process may use)")


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
    format: Annotated[str, typer.Option("--format",
                                        help="md | html | ipynb | json | npz (binary: -o or a pipe)")] = "md",
    # a str, not a Path: Path("notes/") drops the slash that says a folder was meant (check_target refuses it)
    output: Annotated[str | None, typer.Option("-o", "--output", help="write here instead of stdout")] = None,
    figures: Annotated[Path | None, typer.Option("--figures", help="write SVG figures into DIR; the note links "
                                                 "them (needs attnwalk[figures])")] = None,
    max_memory: MaxMemory = None,
) -> None:
    """Render one walkthrough (Markdown+LaTeX, a self-contained HTML page, a Jupyter notebook, or the trace)."""
    args = dict(locals())  # the scenario options, before any other local exists
    from .api import walk
    from .budget import require
    from .config import make_config, require_document
    from .render import render as render_doc
    from .writefile import check_folder, check_target, write_atomic

    if format not in ("md", "html", "ipynb", "json", "npz"):
        fail(f"--format: got {format!r}; allowed: md, html, ipynb, json, npz")
    if format == "npz" and output is None and sys.stdout.isatty():
        fail("--format: npz is binary and stdout is a terminal; allowed: -o FILE, or a pipe/redirect")
    if figures is not None and format in ("json", "npz"):
        fail(f"--figures: a {format.upper()} trace has no figures; allowed: --format md, html or ipynb")
    if (figures is not None or format == "html") and not _has_matplotlib():
        fail(f"{'--figures' if figures is not None else '--format'}: figures need matplotlib; "
             "allowed: pip install 'attnwalk[figures]'")
    if figures is not None and figures.exists() and not figures.is_dir():
        fail(f"--figures: {figures} is not a folder; allowed: a folder (created if missing)")
    set_budget(max_memory)
    try:
        if output is not None:
            output = check_target(output, "-o")
            if scenario_file is not None and _same_file(output, scenario_file):
                raise ConfigError("-o", f"{output} is the scenario file; allowed: another file (the note would "
                                        "replace its own scenario)")
        if figures is not None:
            check_folder(figures, "--figures")
        opts = scenario_from(args)
        cfg = make_config(**opts)
        require(cfg, format)
        require_document(cfg, format)
        trace = walk(**opts)
    except ConfigError as err:
        fail(str(err))
    if format in ("json", "npz"):
        from .render import export

        try:
            export(trace, format, output)
        except ConfigError as err:
            fail(str(err))
        except OSError as err:
            if output is None:
                _stdout_failed(err)
            fail(f"-o: cannot write {output}: {err.strerror or err}; allowed: a writable file path")
        return
    if figures is None:
        text = render_doc(trace, format, trace.config["lang"])
    else:
        from .render import render_with_figures

        base = output.parent if output is not None else Path(".")
        rel = os.path.relpath(figures.resolve(), base.resolve()).replace(os.sep, "/")
        stem = output.stem if output is not None else "figure"
        text, svgs = render_with_figures(trace, format, trace.config["lang"], stem, rel)
        _write_with_figures(figures, svgs, output, text)
        if output is None:
            _to_stdout(text)
        return
    if output is None:
        _to_stdout(text)
        return
    try:
        write_atomic(output, text, "-o")
    except ConfigError as err:
        fail(str(err))


def _write_with_figures(figures: Path, svgs: dict[str, str], output: Path | None, text: str) -> None:
    """The figures and the note, all or none: a failure leaves no file and no folder this run made."""
    from .writefile import write_all_atomic

    made = [d for d in (figures, *figures.parents) if not d.exists()]
    try:
        figures.mkdir(parents=True, exist_ok=True)
        files = [(figures / name, svg_text, "--figures") for name, svg_text in svgs.items()]
        write_all_atomic(files + ([(output, text, "-o")] if output is not None else []))
    except (OSError, ConfigError) as err:
        for d in made:  # innermost first
            try:
                d.rmdir()
            except OSError:
                break
        if isinstance(err, ConfigError):
            fail(str(err))
        fail(f"--figures: cannot write into {figures}: {err.strerror or err}; allowed: a writable folder")


def _to_stdout(text: str) -> None:
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except OSError as err:
        _stdout_failed(err)


_STDOUT_ERRORS = (errno.EPIPE, errno.ENOSPC, errno.EFBIG, errno.EIO, errno.EDQUOT)


def _flush_stdout() -> None:
    try:
        sys.stdout.flush()
    except OSError as err:  # a full disk behind `> file`, a closed pipe
        _stdout_failed(err)


def _stdout_failed(err: OSError) -> None:
    """stdout is gone (a closed pipe) or full: one line, exit 2, and no second complaint at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    fail(f"stdout: cannot write: {err.strerror or err}; allowed: a writable stdout (a file, a pipe, a terminal) "
         "or -o FILE")


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


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
    max_memory: MaxMemory = None,
) -> None:
    """Compare every recorded tensor with PyTorch's; exit 1 if any disagrees (needs torch)."""
    args = dict(locals())  # the scenario options, before any other local exists
    from .api import walk
    from .budget import require
    from .config import make_config
    from .crosscheck import check_options, format_table
    from .crosscheck import crosscheck as run_crosscheck

    set_budget(max_memory)
    try:
        check_options(device, dtype, reference)
        opts = scenario_from(args)
        cfg = make_config(**opts)
        require(cfg, crosscheck=True)
        result = run_crosscheck(walk(**opts), device=device, dtype=dtype, reference=reference)
    except ConfigError as err:
        fail(str(err))
    sys.stdout.write(format_table(result))
    if not result["passed"]:
        raise typer.Exit(1)


@app.command()
def check(
    files: Annotated[list[Path], typer.Argument(help="Markdown notes or Jupyter notebooks (.ipynb) to check")],
    scenario_file: ScenarioFile = None, variant: Variant = None, tokens: Tokens = None, kv_tokens: KvTokens = None,
    mask: Mask = None, mask_fill: MaskFill = None, source: Source = None, h: H = None, w: W = None,
    dim: Dim = None, heads: Heads = None,
    attn_ratio: AttnRatio = None, batch: Batch = None, seed: Seed = None, input: Input = None,
    init_std: InitStd = None, rng: Rng = None, pe_on: PeOn = None, lang: Lang = None,
    decimals: Decimals = None,
    show_unknown: Annotated[bool, typer.Option("--show-unknown", help="also list numbers not understood")] = False,
    skip_no_config: Annotated[bool, typer.Option("--skip-no-config",
                                                 help="skip notes without a config (pre-commit)")] = False,
    max_memory: MaxMemory = None,
    fix: Annotated[bool, typer.Option("--fix", help="rewrite each wrong number in place (atomically)")] = False,
    diff: Annotated[bool, typer.Option("--diff", help="print the --fix changes as a unified diff; write nothing")]
    = False,
    format: Annotated[str, typer.Option("--format", help="text | json | github [text]")] = "text",
) -> None:
    """Check every number of published notes against the recomputed trace; exit 1 if any is wrong.

    Every file is checked even when one cannot be (unreadable, no config, bad config): that one
    gets an error line, and the exit status is the worst: 2 (a file could not be checked),
    1 (a wrong number), 0.
    """
    args = dict(locals())  # the scenario options, before any other local exists
    from .check import CheckError, NoConfig, check_file
    from .check.report import emit_error, emit_report, finish

    set_budget(max_memory)
    if format not in ("text", "json", "github"):
        fail(f"--format: got {format!r}; allowed: text, json, github")
    if fix and diff:
        fail("--fix: given with --diff; allowed: one of --fix (write), --diff (show)")
    try:
        opts = scenario_from(args)
    except ConfigError as err:
        fail(str(err))
    status, results = 0, []
    for path in files:
        try:
            report = check_file(path, opts, fix="write" if fix else "diff" if diff else None)
        except NoConfig:
            if skip_no_config:
                if format == "text":
                    typer.echo(f"{path}: skipped (no config)")
                continue
            status = max(status, 2)
            emit_error(format, path, "no config: the note has no front matter config; allowed: a front matter "
                                     "config, --scenario or render options", results)
            continue
        except CheckError as err:
            status = max(status, 2)
            msg = str(err)
            emit_error(format, path, msg[len(str(path)) + 2:] if msg.startswith(f"{path}: ") else msg, results)
            continue
        emit_report(format, report, show_unknown, results)
        if report.wrong:
            status = max(status, 1)
    finish(format, results)
    if status:
        raise typer.Exit(status)


@app.command()
def build(
    manifest: Annotated[Path, typer.Argument(help="course manifest (TOML)")] = Path("examples/course.toml"),
    check: Annotated[bool, typer.Option("--check", help="write nothing; exit 1 with a diff if stale")] = False,
    max_memory: MaxMemory = None,
) -> None:
    """Render every walkthrough of a course manifest; rewrite only the notes that change."""
    from .build import BuildError
    from .build import build as run_build

    set_budget(max_memory)

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


def _print_version(value: bool) -> None:
    if value:
        from . import __version__

        typer.echo(f"attnwalk {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[bool, typer.Option("--version", help="print attnwalk's version and exit", is_eager=True,
                                          callback=_print_version)] = False,
) -> None:
    """Step-by-step worked examples of attention, with numbers PyTorch agrees with."""


def _click_exceptions():
    """Typer >= 0.20 vendors click as ``typer._click``; older releases use click itself."""
    try:
        from typer._click import exceptions
    except ImportError:  # pragma: no cover - depends on the installed typer
        from click import exceptions
    return exceptions


def _usage_line(e, cx) -> str:
    """A click usage error as ``<option>: <what>; allowed: ...``, long values cut (one short line)."""
    import re

    message = re.sub(r"'([^']{40})[^']+'", r"'\1…'", e.format_message().splitlines()[0]).rstrip(".")
    param = getattr(e, "param", None)
    if isinstance(e, cx.BadParameter) and param is not None and getattr(param, "opts", None):
        kind = {"integer": "an integer", "int": "an integer", "float": "a number", "path": "a path"}.get(
            getattr(param.type, "name", ""), str(getattr(param.type, "name", "a value")))
        if "allowed:" not in message:
            message += f"; allowed: {kind}"
        return f"{param.opts[0]}: {message}" if param.opts[0] not in message else message
    if "allowed:" not in message:
        message += "; allowed: the commands and options `attnwalk --help` and `attnwalk COMMAND --help` list"
    return message


def _app_for(args: list[str]) -> typer.Typer:
    """The app with only the command ``args`` names first, else the whole app (help, typos, --version):
    typer reads every command's signature to build it, ~10 ms of each start for commands not run."""
    named = [c for c in app.registered_commands if args and (c.name or c.callback.__name__) == args[0]]
    if not named:
        return app
    one = typer.Typer(**_APP)
    one.registered_commands, one.registered_callback = named, app.registered_callback
    return one


def main(argv: list[str] | None = None) -> int:
    """Entry point: usage errors become one line on stderr, exit 2, no usage dump."""
    from .engine.blas import narrow_for_startup

    narrow_for_startup()  # before anything imports NumPy
    cx = _click_exceptions()
    command = typer.main.get_command(_app_for(sys.argv[1:] if argv is None else argv))
    try:
        try:
            result = command.main(args=argv, prog_name="attnwalk", standalone_mode=False)
        except OSError as err:  # a report or a diff printed into a closed pipe (`| head`) or onto a full disk
            if err.filename is not None or err.errno not in _STDOUT_ERRORS:
                raise  # files are written by writefile, which names them: this is not stdout
            _stdout_failed(err)
        _flush_stdout()
    except typer.Exit as e:
        if e.exit_code != 2:  # what the command printed must reach stdout, or its status says it did not
            try:
                _flush_stdout()
            except typer.Exit as flushed:
                return flushed.exit_code
        return e.exit_code
    except typer.Abort:
        return 130
    except MemoryError:  # within the budget, but the machine had less free (other jobs): say so, in one line
        from .budget import human, limit

        typer.echo(f"attnwalk: error: --max-memory: out of memory within the budget of {human(limit())}; allowed: "
                   "a budget this machine has free (--max-memory / ATTNWALK_MAX_MEMORY) or a smaller walkthrough",
                   err=True)
        return 2
    except cx.UsageError as e:
        if type(e).__name__ == "NoArgsIsHelpError":  # bare `attnwalk`: show the help
            typer.echo(e.format_message())
            return 0
        typer.echo(f"attnwalk: error: {_usage_line(e, cx)}", err=True)
        return 2
    except cx.ClickException as e:
        typer.echo(f"attnwalk: error: {e.format_message()}", err=True)
        return e.exit_code
    return result if isinstance(result, int) else 0


if __name__ == "__main__":
    sys.exit(main())
