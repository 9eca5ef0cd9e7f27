"""Atomic writes: a temp file beside the target, then rename (nothing half-written, nothing lost).

An existing target keeps its mode; a new one gets the umask's mode, as any editor does. A target
the user cannot write (read-only file, a directory) is refused, not replaced. Temp files are named
``.<name>.attnwalk-<pid>-<random>.tmp``; one left by a killed run (its pid gone) is removed on the
next write to the same target.
"""

from __future__ import annotations

import os
import re
import secrets
import stat
from pathlib import Path

from .errors import ConfigError

ALLOWED = "allowed: a writable file path in an existing folder"


def check_target(path: Path | str, option: str = "-o") -> Path:
    """``path`` if it can be (re)written; ConfigError(option, ...) naming why not, before any work."""
    text = str(path)
    if text in ("", ".") or "\x00" in text:
        raise ConfigError(option, f"got {text[:60]!r}; {ALLOWED}")
    path = Path(path)
    folder = path.parent
    if path.is_dir():
        raise ConfigError(option, f"{text} is a folder; {ALLOWED}")
    if path.exists() or path.is_symlink():
        if not path.is_file():
            raise ConfigError(option, f"{text} is not a regular file; {ALLOWED}")
        # the write bits, not os.access: root may write anything, but a read-only file is a statement
        if not os.access(path, os.W_OK) or not path.stat().st_mode & 0o222:
            raise ConfigError(option, f"{text} is read-only; {ALLOWED} (make it writable first)")
    if not folder.is_dir():
        raise ConfigError(option, f"folder {str(folder)!r} does not exist; {ALLOWED}")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ConfigError(option, f"folder {str(folder)!r} is not writable; {ALLOWED}")
    return path


def _clean_stale(path: Path) -> None:
    """Remove temp files of ``path`` left by runs that were killed (their pid no longer exists)."""
    pattern = re.compile(rf"\.{re.escape(path.name)}\.attnwalk-(\d+)-[0-9a-f]+\.tmp")
    try:
        names = os.listdir(path.parent)
    except OSError:
        return
    for name in names:
        m = pattern.fullmatch(name)
        if not m:
            continue
        pid = int(m.group(1))
        if pid != os.getpid():
            try:
                os.kill(pid, 0)
                continue  # that run is alive: its temp file is in use
            except ProcessLookupError:
                pass
            except (PermissionError, OverflowError):
                continue
        try:
            os.unlink(path.parent / name)
        except OSError:
            pass


def write_atomic(path: Path | str, text: str, option: str = "-o") -> None:
    """Write ``text`` to ``path`` via a temp file and a rename; ConfigError(option, ...) if it cannot."""
    write_atomic_with(path, lambda fh: fh.write(text), option=option)


def write_atomic_with(path: Path | str, fill, binary: bool = False, option: str = "-o") -> None:
    """Like ``write_atomic``, for large outputs: ``fill(fh)`` writes into the temp file."""
    path = check_target(path, option)
    if path.is_symlink():  # write through the link, as editors do: the link stays a link
        path = check_target(path.resolve(), option)
    folder = path.parent
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        mode = None
    _clean_stale(path)
    tmp = folder / f".{path.name}.attnwalk-{os.getpid()}-{secrets.token_hex(4)}.tmp"
    try:
        # 0o666 through os.open: the umask applies, exactly as for a file any editor creates
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        with os.fdopen(fd, "wb") if binary else os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            if mode is not None:
                os.fchmod(fh.fileno(), mode)
            fill(fh)
        os.replace(tmp, path)
    except OSError as err:
        _unlink(tmp)
        raise ConfigError(option, f"cannot write {path}: {err.strerror or err}; {ALLOWED}") from None
    except BaseException:
        _unlink(tmp)
        raise


def _unlink(tmp: Path) -> None:
    try:
        os.unlink(tmp)
    except OSError:
        pass
