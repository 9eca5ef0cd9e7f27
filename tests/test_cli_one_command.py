"""`main` builds only the command it runs (typer reads every command's signature, ~10 ms a start):
what a user sees must be what the whole app gives, for every command, its help and its usage errors."""

from __future__ import annotations

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
