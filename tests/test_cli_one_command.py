"""`main` runs a plain command line without typer, and builds only the command it runs when typer answers
(typer reads every command's signature, ~10 ms a start): what a user sees must be what the whole app gives,
for every command, its help, its usage errors, its output and the files it writes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from attnwalk import cli

COMMANDS = [c.name or c.callback.__name__ for c in cli.app.registered_commands]


def _whole(args: list[str], capsys) -> tuple[int, str, str]:
    """What the whole app (every command built) answers, through main's own error handling."""
    real = cli._app_for
    cli._app_for = lambda _args: cli.app
    try:
        code = cli.main(args)
    finally:
        cli._app_for = real
    out = capsys.readouterr()
    return code, out.out, out.err


def test_every_command_is_found():
    assert sorted(COMMANDS) == ["build", "check", "crosscheck", "render"]
    for name in COMMANDS:
        one = cli._app_for([name, "--help"])
        assert one is not cli.app and [c.callback.__name__ for c in one.registered_commands] == [name]
    for args in ([], ["--help"], ["--version"], ["rendr"], ["--h", "3", "render"]):
        assert cli._app_for(args) is cli.app


@pytest.mark.parametrize("args", [[c, "--help"] for c in ["render", "check", "crosscheck", "build"]]
                         + [["render", "--bogus", "1"], ["render", "--h", "x"], ["check"], ["build"],
                            ["crosscheck", "--variant", "nope"], ["render", "--lang", "fr"]])
def test_same_answer_as_the_whole_app(args, capsys):
    code = cli.main(list(args))
    out = capsys.readouterr()
    assert (code, out.out, out.err) == _whole(list(args), capsys)
    assert out.out or out.err  # a real answer was compared, not two empty ones


def test_a_render_prints_the_same_note(capsys):
    # a typer app of one command and no callback would take `render` as an argument: ours stays a group
    args = ["render", "--h", "2", "--w", "2", "--heads", "1", "--lang", "en"]
    assert cli.main(list(args)) == 0
    note = capsys.readouterr().out
    assert note.startswith("---\n") and "softmax" in note
    assert (0, note, "") == _whole(list(args), capsys)


# ------------------------------------------------------------- the fast path: typer not imported, same answer
# `main` runs a known command whose every token is a valid option without importing typer (fastargs.py over
# options.py's table); everything else goes to typer. Each command line below runs in a fresh process with the
# fast path on and off, in a fresh copy of the same fixture folder: stdout and stderr bytes, the exit status
# and every file left must be the same, and the fast path must have been taken exactly where it should.

R = ["render", "--h", "2", "--w", "2", "--heads", "1"]
FAST = [  # typer's answer is to run the command: the fast path runs it
    R, R + ["--lang", "en"], R + ["--lang", "vi", "--decimals", "6"],
    ["render", "--h=2", "--w=2", "--heads=1", "--lang=en"], R + ["--h", "3", "--h", "2"],  # the last one wins
    R + ["-o", "out.md"], R + ["--output", "out.md"], R + ["-o", "dir/out.md"], R + ["-o", "dir/"],
    R + ["-o", "missing/out.md"], R + ["-o", "note.md"], R + ["-o", "dir"], R + ["--output", ""],
    R + ["--format", "json"], R + ["--format", "npz"], R + ["--format", "npz", "-o", "t.npz"],
    R + ["--format", "ipynb", "-o", "n.ipynb"], R + ["--format", "html", "-o", "n.html"], R + ["--format", "pdf"],
    R + ["--format=md=x"], R + ["--figures", "figs", "-o", "n.md"], R + ["--figures", "file.txt"],
    R + ["--figures", "figs", "--format", "json"],
    ["render", "--variant", "sdpa", "--tokens", "3", "--lang", "en"],
    ["render", "--variant", "sdpa", "--tokens", "3", "--mask", "causal", "--mask-fill", "-1e9"],
    ["render", "--variant", "sdpa", "--tokens", "3", "--kv-tokens", "2", "--mask-fill", "-inf"],
    ["render", "--variant", "sdpa", "--tokens", "3", "--mask", "padding:1", "--source", "project"],
    ["render", "--variant", "sdpa", "--source", "columns"], ["render", "--variant", "mha", "--tokens", "2"],
    ["render", "--variant", "sdpa", "--input", "uniform"],
    ["render", "--variant", "sdpa", "--input", "uniform", "--rng", "numpy-legacy", "--format", "json"],
    R + ["--seed", "0"], R + ["--seed", "-1"], R + ["--seed", "+7"], R + ["--seed", " 5 "], R + ["--seed", "1_0"],
    R + ["--seed", "\uff17"],  # a full-width 7: int() reads it, so click does
    R + ["--h", "0"], R + ["--h", "-3"], R + ["--decimals", "13"], R + ["--decimals", "0"],
    R + ["--attn-ratio", "1e-3"], R + ["--attn-ratio", "nan"], R + ["--attn-ratio", "1"], R + ["--init-std", "inf"],
    R + ["--init-std", "0.5"], R + ["--input", "randint"], R + ["--input", "normal", "--rng", "numpy"],
    R + ["--pe-on", "o"], R + ["--batch", "2"], ["render", "--h", "2", "--w", "2", "--dim", "8", "--heads", "2"],
    R + ["--max-memory", "1K"], R + ["--max-memory", "4G"], R + ["--max-memory", "lots"],
    ["render", "--scenario", "sc.toml"], ["render", "--scenario", "sc.toml", "--lang", "en", "-o", "s.md"],
    ["render", "--scenario", "missing.toml"], ["render", "--scenario", "dir"], ["render", "--scenario", "note.md"],
    ["render", "--scenario", "sc.toml", "-o", "sc.toml"], ["render", "--scenario", "-"],
    R + ["--lang", "--help"], R + ["--lang", ""], R + ["--lang", "ti\u1ebfng vi\u1ec7t"],
    R + ["--lang", "\x1b[31mred\x1b[0m"], R + ["--variant", "x" * 100], R + ["--mask", "padding:x"],
    ["check", "note.md"], ["check", "bad.md"], ["check", "note.md", "bad.md"], ["check", "bad.md", "note.md"],
    ["check", "bad.md", "--fix"], ["check", "--diff", "bad.md"], ["check", "bad.md", "--fix", "--diff"],
    ["check", "note.md", "bad.md", "--format", "json"], ["check", "bad.md", "--format", "github"],
    ["check", "--format", "xml", "note.md"], ["check", "note.md", "--show-unknown"], ["check", "plain.md"],
    ["check", "plain.md", "--skip-no-config"], ["check", "plain.md", "--skip-no-config", "--format", "json"],
    ["check", "missing.md"], ["check", "dir"], ["check", "-"], ["check", "sc.toml"],
    ["check", "note.md", "--scenario", "sc.toml"], ["check", "note.md", "--lang", "vi"],
    ["check", "note.md", "--h", "3"], ["check", "note.md", "--max-memory", "1K"], ["check", "plain.md", "--h", "2"],
    ["build", "course.toml"], ["build", "course.toml", "--check"], ["build", "--check", "course.toml"],
    ["build"], ["build", "missing.toml"], ["build", "note.md"], ["build", "dir"],
    ["build", "course.toml", "--max-memory", "1K"], ["build", "course.toml", "--max-memory=bogus"],
    ["crosscheck", "--h", "2", "--w", "2", "--heads", "1"], ["crosscheck", "--device", "tpu"],
]
TYPER = [  # help, version, typos, missing or bad values, extra arguments: typer answers them
    [], ["--help"], ["--version"], ["rendr"], ["--h", "3", "render"], ["render", "--help"], R + ["--help"],
    ["check", "--help"], ["build", "--help"], ["crosscheck", "--help"],
    R + ["--bogus", "1"], R + ["--h", "x"], R + ["--h", ""], R + ["--h="], R + ["--h", "2.5"],
    R + ["--seed", "1" * 5000], R + ["--attn-ratio", "half"], R + ["--lang"], R + ["-o"], ["render", "extra"],
    R + ["--", "x"],
    R + ["-o=out.md"], R + ["-oout.md"], R + ["--fix"], R + ["--H", "2"], R + ["--heads", "1", "--hh", "2"],
    ["check"], ["check", "--fix=1", "note.md"], ["check", "note.md", "--bogus"], ["check", "--format"],
    ["check", "note.md", "--seed", "x"], ["build", "course.toml", "extra.toml"], ["build", "--check=yes"],
    ["build", "--fix"], ["crosscheck", "--h", "x"],
]
CASES = [(argv, True, {}) for argv in FAST] + [(argv, False, {}) for argv in TYPER] + [
    (R, False, {"env": {"_ATTNWALK_COMPLETE": "bash_complete"}}),  # shell completion is typer's
    (R, True, {"closed_stdout": True}), (["build", "course.toml", "--check"], True, {"closed_stdout": True}),
    (["check", "bad.md", "--diff"], True, {"closed_stdout": True}),
    (R + ["--bogus"], False, {"closed_stdout": True}),
]


@pytest.fixture(scope="module")
def fixtures(tmp_path_factory):
    from cli_paths import make_fixtures

    folder = tmp_path_factory.mktemp("cli-paths") / "fixtures"
    make_fixtures(folder)
    return folder


@pytest.mark.parametrize("argv,fast,extra", CASES, ids=[" ".join(c[0])[:60] or "(none)" for c in CASES])
def test_fast_path_answers_as_typer_does(argv, fast, extra, fixtures):
    from cli_paths import run

    folder = fixtures.parent / "run"
    on = run(argv, True, fixtures, folder, **extra)
    off = run(argv, False, fixtures, folder, **extra)
    assert off["typer"] and on["typer"] is not fast  # the fast path was taken exactly where it should be
    for key in ("code", "stdout", "stderr", "files"):
        assert on[key] == off[key], key
    assert b"Traceback" not in on["stderr"]


def test_the_cases_reach_what_they_are_meant_to(fixtures):
    """The table is not vacuous: runs that succeed, fail the numbers, fail the input, and write files."""
    from cli_paths import run

    folder = fixtures.parent / "reach"
    written = run(R + ["-o", "out.md"], True, fixtures, folder)
    assert written["code"] == 0 and "out.md" in written["files"] and written["stdout"] == b""
    assert run(["check", "note.md"], True, fixtures, folder)["code"] == 0
    wrong = run(["check", "bad.md"], True, fixtures, folder)
    assert wrong["code"] == 1 and b"1 wrong" in wrong["stdout"]
    fixed = run(["check", "bad.md", "--fix"], True, fixtures, folder)
    assert fixed["files"]["bad.md"] == run([], False, fixtures, folder)["files"]["note.md"]
    bad = run(R + ["--lang", "fr"], True, fixtures, folder)
    assert bad["code"] == 2 and bad["stderr"].startswith(b"attnwalk: error: --lang: ")
    ansi = run(R + ["--lang", "\x1b[31mred\x1b[0m"], True, fixtures, folder)
    assert b"\x1b" not in ansi["stderr"] and b"red" in ansi["stderr"]  # click strips styles off a non-terminal
    built = run(["build", "course.toml"], True, fixtures, folder)
    assert built["code"] == 0 and {"notes/tiny.en.md", "notes/tiny.vi.md"} <= set(built["files"])
    assert b"Usage:" in run(["render", "--help"], False, fixtures, folder)["stdout"]


def test_python_m_attnwalk_render_does_not_import_typer(tmp_path):
    res = subprocess.run([sys.executable, "-X", "importtime", "-m", "attnwalk", *R, "-o", str(tmp_path / "n.md")],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0 and (tmp_path / "n.md").exists()
    imported = [line.rsplit("|", 1)[1].strip() for line in res.stderr.splitlines() if line.startswith("import time:")]
    assert "numpy" in imported and "jinja2" in imported
    assert not [m for m in imported if m.split(".")[0] in ("typer", "click")]


def test_the_typer_app_is_the_table():
    """Each command's click parameters are options.COMMANDS's rows: names, flags, types, defaults, help."""
    import typer

    from attnwalk.options import COMMANDS, REQUIRED

    group = typer.main.get_command(cli.app)
    assert list(group.commands) == list(COMMANDS)
    kinds = {str: "str", int: "int", float: "float", bool: "boolean", Path: "path"}
    for name, table in COMMANDS.items():
        params = [p for p in group.commands[name].params if p.name != "help"]
        assert [p.name for p in params] == [o.name for o in table], name
        for p, o in zip(params, table):
            assert tuple(p.opts) == (o.flags or (o.name,)), (name, o.name)
            assert p.type.name == kinds[o.type] and p.param_type_name == ("option" if o.flags else "argument")
            assert p.required is (o.default is REQUIRED) and (p.nargs == -1) is o.many
            assert p.help == o.help and p.show_default is o.show_default
            if o.default is not REQUIRED:
                assert p.default == o.default and type(p.default) is type(o.default), (name, o.name)
            if o.type is bool:
                assert p.is_flag and not p.secondary_opts  # --fix, never --fix/--no-fix
