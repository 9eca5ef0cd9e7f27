"""The ``attnwalk`` command line. Bad input: one line naming the option, exit 2.

The commands' parameters are declared once, in options.py. typer (the CLI framework) is built from that
table and answers everything, except the plain case: a known command whose every token is one of its
options with a valid value, which ``main`` reads with fastargs.py over the same table and runs without
importing typer (~20 ms of a render's start-up). tests/test_cli_one_command.py runs argv of every kind
both ways and compares stdout, stderr, exit codes and files written.
"""

from __future__ import annotations

import errno
import os
import sys
from functools import lru_cache, partial
from pathlib import Path

from .errors import ConfigError
from .options import COMMANDS, REQUIRED, SCENARIO_KEYS

_APP = dict(add_completion=False, no_args_is_help=True, rich_markup_mode=None,
            help="Step-by-step worked examples of attention, with numbers PyTorch agrees with.")


class Exit(Exception):
    """A command's exit status (typer.Exit without typer); the typer app turns it into typer.Exit."""

    def __init__(self, code: int = 0) -> None:
        super().__init__(code)
        self.code = code


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
    echo(f"attnwalk: error: {message}", err=True)
    raise Exit(code)


def echo(message: str, err: bool = False) -> None:
    """``typer.echo(message, err=err)`` without importing typer: on a plain text stream click writes the
    line, ANSI styles stripped where the stream is not a terminal, and flushes; any other stream (a test
    runner's, a notebook's, one with an ASCII encoding click would rewrap) goes to click's own echo."""
    stream = sys.stderr if err else sys.stdout
    if not _plain(stream):
        import typer

        typer.echo(message, err=err)
        return
    out = message + "\n"
    try:
        tty = stream.isatty()
    except Exception:  # click's isatty
        tty = False
    if not tty:
        import re

        out = re.sub(r"\033\[[;?0-9]*[a-zA-Z]", "", out)  # click's strip_ansi
    stream.write(out)
    stream.flush()


def _plain(stream) -> bool:
    """A stream click's echo writes to as it is: a real text file, not ASCII-encoded (click wraps those)."""
    import codecs
    import io

    if type(stream) is not io.TextIOWrapper or sys.platform.startswith("win") or not stream.errors:
        return False
    try:
        return bool(stream.encoding) and codecs.lookup(stream.encoding).name != "ascii"
    except LookupError:
        return False


def render(
    *, scenario_file, variant, tokens, kv_tokens, mask, mask_fill, source, h, w, dim, heads, attn_ratio, batch, seed,
    input, init_std, rng, pe_on, lang, decimals, format, output, figures, max_memory,
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


def crosscheck(
    *, scenario_file, variant, tokens, kv_tokens, mask, mask_fill, source, h, w, dim, heads, attn_ratio, batch, seed,
    input, init_std, rng, pe_on, lang, decimals, device, dtype, reference, max_memory,
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
        raise Exit(1)


def check(
    *, files, scenario_file, variant, tokens, kv_tokens, mask, mask_fill, source, h, w, dim, heads, attn_ratio, batch,
    seed, input, init_std, rng, pe_on, lang, decimals, show_unknown, skip_no_config, max_memory, fix, diff, format,
) -> None:
    """Check every number of published notes against the recomputed trace; exit 1 if any is wrong.

    Every file is checked even when one cannot be (unreadable, no config, bad config): that one
    gets an error line, and the exit status is the worst: 2 (a file could not be checked),
    1 (a wrong number), 0.
    """
    args = dict(locals())  # the scenario options, before any other local exists
    from .check.many import check_all
    from .check.report import finish

    set_budget(max_memory)
    if format not in ("text", "json", "github"):
        fail(f"--format: got {format!r}; allowed: text, json, github")
    if fix and diff:
        fail("--fix: given with --diff; allowed: one of --fix (write), --diff (show)")
    try:
        opts = scenario_from(args)
    except ConfigError as err:
        fail(str(err))
    results: list = []
    # several files over worker processes, the output in argument order (check/many.py); --fix writes the files:
    # one process, so that a file is never fixed by a worker whose report is lost
    one = partial(check_one, options=opts, fix="write" if fix else "diff" if diff else None, format=format,
                  show_unknown=show_unknown, skip_no_config=skip_no_config)
    status = check_all(files, one, results, workers=0 if fix else None)
    finish(format, results)
    if status:
        raise Exit(status)


def check_one(path, results: list, *, options: dict, fix: str | None, format: str, show_unknown: bool,
              skip_no_config: bool) -> int:
    """Check one file of ``attnwalk check`` and write what it gives (``check.many`` records it in a worker, and
    writes it in the order of the arguments); its exit status (0, 1: a wrong number, 2: not checked)."""
    from .check import CheckError, NoConfig, check_file
    from .check.report import emit_error, emit_report, emit_skipped

    try:
        report = check_file(path, options, fix=fix)
    except NoConfig:
        if skip_no_config:
            if format == "text":
                echo(f"{path}: skipped (no config)")
            else:
                emit_skipped(format, path, results)
            return 0
        emit_error(format, path, "no config: the note has no front matter config; allowed: a front matter "
                                 "config, --scenario or render options", results)
        return 2
    except CheckError as err:
        msg = str(err)
        emit_error(format, path, msg[len(str(path)) + 2:] if msg.startswith(f"{path}: ") else msg, results)
        return 2
    emit_report(format, report, show_unknown, results)
    return 1 if report.wrong else 0


def build(*, manifest, check, max_memory) -> None:
    """Render every walkthrough of a course manifest; rewrite only the notes that change."""
    from .build import BuildError
    from .build import build as run_build

    set_budget(max_memory)

    def progress(n: int, total: int, shown: str, status: str) -> None:
        if not (check and status == "unchanged"):  # --check names only what is stale, as cog --check does
            echo(f"[{n}/{total}] {shown}: {status}", err=True)

    try:
        res = run_build(manifest, check=check, progress=progress)
    except BuildError as err:
        fail(str(err))
    if check:
        for diff in res.diffs:
            sys.stdout.write(diff)
        if res.stale:
            echo(f"attnwalk build --check: {len(res.stale)} stale note(s): {', '.join(res.stale)}", err=True)
            raise Exit(1)
        echo(f"attnwalk build --check: {len(res.unchanged)} note(s) up to date", err=True)
        return
    echo(f"attnwalk build: {len(res.written)} written, {len(res.unchanged)} unchanged", err=True)


_BODIES = {"render": render, "crosscheck": crosscheck, "check": check, "build": build}


@lru_cache(maxsize=1)
def _typer_app():
    """The typer app, its commands' parameters from options.COMMANDS (built when first asked for)."""
    import inspect
    from typing import Annotated

    import typer

    app = typer.Typer(**_APP)
    for name, table in COMMANDS.items():
        params = []
        for opt in table:
            kind = typer.Option(*opt.flags, help=opt.help, show_default=opt.show_default) if opt.flags else \
                typer.Argument(help=opt.help, show_default=opt.show_default)
            tp = list[opt.type] if opt.many else opt.type | None if opt.default is None else opt.type
            default = inspect.Parameter.empty if opt.default is REQUIRED else opt.default
            params.append(inspect.Parameter(opt.name, inspect.Parameter.KEYWORD_ONLY, default=default,
                                            annotation=Annotated[tp, kind]))
        app.command()(_typer_command(_BODIES[name], inspect.Signature(params), typer))

    def print_version(value: bool) -> None:
        if value:
            from . import __version__

            typer.echo(f"attnwalk {__version__}")
            raise typer.Exit(0)

    def _root(version: bool = False) -> None:
        """Step-by-step worked examples of attention, with numbers PyTorch agrees with."""

    flag = typer.Option("--version", help="print attnwalk's version and exit", is_eager=True, callback=print_version)
    _root.__signature__ = inspect.Signature([inspect.Parameter("version", inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                                               default=False, annotation=Annotated[bool, flag])])
    app.callback()(_root)
    return app


def _typer_command(body, signature, typer):
    """``body`` as a typer command of that signature: its ``Exit`` becomes typer's."""
    def command(**kwargs):
        try:
            return body(**kwargs)
        except Exit as e:
            raise typer.Exit(e.code) from None

    command.__name__ = command.__qualname__ = body.__name__
    command.__doc__, command.__signature__ = body.__doc__, signature
    return command


def __getattr__(name: str):
    if name == "app":  # `from attnwalk.cli import app`: the typer app (typer imported only then)
        return _typer_app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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


def _app_for(args: list[str]):
    """The app with only the command ``args`` names first, else the whole app (help, typos, --version):
    typer reads every command's signature to build it, ~10 ms of each start for commands not run."""
    import typer

    app = _typer_app()
    named = [c for c in app.registered_commands if args and (c.name or c.callback.__name__) == args[0]]
    if not named:
        return app
    one = typer.Typer(**_APP)
    one.registered_commands, one.registered_callback = named, app.registered_callback
    return one


class _Answer(Exception):
    """What typer answered instead of running a command: a line to print (or none) and the exit status."""

    def __init__(self, code: int, line: str | None = None, err: bool = True) -> None:
        super().__init__(code)
        self.code, self.line, self.err = code, line, err


def _run_typer(argv: list[str] | None, args: list[str]):
    """typer parses ``args`` and runs the command; its usage errors and aborts are raised as ``_Answer``."""
    import typer

    cx = _click_exceptions()
    command = typer.main.get_command(_app_for(args))
    try:
        return command.main(args=argv, prog_name="attnwalk", standalone_mode=False)
    except typer.Exit as e:  # raised past click's own handling (none is today): the status it carries
        raise Exit(e.exit_code) from None
    except typer.Abort:
        raise _Answer(130) from None
    except cx.UsageError as e:
        if type(e).__name__ == "NoArgsIsHelpError":  # bare `attnwalk`: show the help
            raise _Answer(0, e.format_message(), err=False) from None
        raise _Answer(2, f"attnwalk: error: {_usage_line(e, cx)}") from None
    except cx.ClickException as e:
        raise _Answer(e.exit_code, f"attnwalk: error: {e.format_message()}") from None


def _run_fast(name: str, kwargs: dict):
    """The command run as typer's ``command.main(standalone_mode=False)`` runs it, from the parsed table."""
    try:
        return _BODIES[name](**kwargs)
    except Exit as e:  # click returns the status of an Exit raised by the command
        return e.code
    except KeyboardInterrupt:  # typer: Exit(130)
        return 130
    except EOFError:  # click: an empty line on stderr, then Abort
        sys.stderr.write("\n")
        sys.stderr.flush()
        raise _Answer(130) from None
    except OSError as err:
        if err.errno != errno.EPIPE:
            raise
        try:  # click: a closed pipe exits 1, quietly
            from typer._click.utils import PacifyFlushWrapper
        except ImportError:  # pragma: no cover - typer < 0.20 uses click itself
            from click.utils import PacifyFlushWrapper

        sys.stdout, sys.stderr = PacifyFlushWrapper(sys.stdout), PacifyFlushWrapper(sys.stderr)
        sys.exit(1)


def main(argv: list[str] | None = None, *, fast: bool = True) -> int:
    """Entry point: usage errors become one line on stderr, exit 2, no usage dump. ``fast=False`` (tests
    only) sends every command line through typer, which the fast path must answer identically."""
    from .engine.blas import narrow_for_startup

    narrow_for_startup()  # before anything imports NumPy
    args = sys.argv[1:] if argv is None else list(argv)
    call = _fast_call(args) if fast else None
    try:
        try:
            result = _run_fast(*call) if call is not None else _run_typer(argv, args)
        except OSError as err:  # a report or a diff printed into a closed pipe (`| head`) or onto a full disk
            if err.filename is not None or err.errno not in _STDOUT_ERRORS:
                raise  # files are written by writefile, which names them: this is not stdout
            _stdout_failed(err)
        _flush_stdout()
    except Exit as e:
        if e.code != 2:  # what the command printed must reach stdout, or its status says it did not
            try:
                _flush_stdout()
            except Exit as flushed:
                return flushed.code
        return e.code
    except _Answer as a:
        if a.line is not None:
            echo(a.line, err=a.err)
        return a.code
    except MemoryError:  # within the budget, but the machine had less free (other jobs): say so, in one line
        from .budget import human, limit

        echo(f"attnwalk: error: --max-memory: out of memory within the budget of {human(limit())}; allowed: "
             "a budget this machine has free (--max-memory / ATTNWALK_MAX_MEMORY) or a smaller walkthrough", err=True)
        return 2
    return result if isinstance(result, int) else 0


def _fast_call(args: list[str]) -> tuple[str, dict] | None:
    """The command and its arguments where typer's answer would be to run it, else None (typer answers).
    Shell completion (typer reads _ATTNWALK_COMPLETE) always goes to typer."""
    if os.environ.get("_ATTNWALK_COMPLETE"):
        return None
    from .fastargs import parse

    return parse(args, COMMANDS)


if __name__ == "__main__":
    sys.exit(main())
