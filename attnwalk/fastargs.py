"""A command line read without typer (importing it costs ~20 ms of a ~120 ms render), over the table of
options.py, for the one case where typer's answer is plain: a known command whose every token is one of its
options with a value click would accept. Anything else (help, --version, a typo, a missing or bad value,
``--``, ``-oX``, an unreadable path) gives None, and typer parses it, so every message stays typer's own.

What is accepted is parsed exactly as click parses it: an option taking a value takes the next token
whatever it is (``--lang --help`` sets lang to "--help"), ``--name=value`` too, the last of a repeated
option wins, tokens not starting with "-" (or "-" alone) are the positional arguments, numbers are
``int(value)`` / ``float(value)`` as click converts them, and a path that exists must be readable
(typer's Path type checks it, defaults included).
"""

from __future__ import annotations

import os
from pathlib import Path

from .options import REQUIRED, Opt


def parse(args: list[str], commands: dict[str, tuple[Opt, ...]]) -> tuple[str, dict] | None:
    """(command, the keyword arguments typer would call it with), or None where typer must answer."""
    if not args or args[0] not in commands or any("\0" in a for a in args):
        return None
    table = commands[args[0]]
    by_flag = {flag: opt for opt in table for flag in opt.flags}
    given: dict[str, object] = {}
    free: list[str] = []
    i, n = 1, len(args)
    while i < n:
        token = args[i]
        i += 1
        if token[:1] != "-" or token == "-":
            free.append(token)
            continue
        flag, eq, explicit = token.partition("=") if token.startswith("--") else (token, "", "")
        opt = by_flag.get(flag)
        if opt is None:  # --help, --, a typo, a short option glued to its value: typer's to answer
            return None
        if opt.type is bool:
            if eq:  # click: "Option '--fix' does not take a value"
                return None
            given[opt.name] = True
            continue
        if not eq:
            if i == n:  # click: "Option '--h' requires an argument"
                return None
            explicit = args[i]
            i += 1
        value = _convert(opt, explicit)
        if value is None:
            return None
        given[opt.name] = value
    kwargs = {}
    for opt in table:
        if opt.flags and opt.name in given:
            kwargs[opt.name] = given[opt.name]
            continue
        if opt.many and free:
            value = [_convert(opt, v) for v in free]
            if any(v is None for v in value):
                return None
            free = []
        elif not opt.flags and free:
            value = _convert(opt, free.pop(0))
            if value is None:
                return None
        else:  # not given: the default, which typer's Path type checks as it checks a given path
            value = opt.default
            if value is REQUIRED or (opt.type is Path and value is not None and not _readable(value)):
                return None
        kwargs[opt.name] = value
    if free:  # click: "Got unexpected extra argument"
        return None
    return args[0], kwargs


def _convert(opt: Opt, text: str):
    """``text`` as click's type for ``opt`` converts it, or None where click would refuse it."""
    try:
        if opt.type is int:
            return int(text)
        if opt.type is float:
            return float(text)
    except ValueError:
        return None
    if opt.type is Path:
        return Path(text) if _readable(text) else None
    return text


def _readable(path) -> bool:
    """typer's Path type: a path that exists must be readable (one that does not is fine)."""
    try:
        os.stat(path)
    except OSError:
        return True
    except ValueError:
        return False
    return os.access(path, os.R_OK)
