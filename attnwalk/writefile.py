"""Atomic writes: a temp file beside the target, then rename (nothing half-written, nothing lost).

An existing target keeps its mode; a new one gets the umask's mode, as any editor does. A target
the user cannot write (read-only file, a directory) is refused, not replaced. Temp files are named
``.<name>.attnwalk-<pid>-<random>.tmp``; one left by a killed run (its pid gone) is removed on the
next write to the same target.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from .errors import ConfigError

ALLOWED = "allowed: a writable file path in an existing folder"


def check_target(path: Path | str, option: str = "-o") -> Path:
    """``path`` if it can be (re)written; ConfigError(option, ...) naming why not, before any work."""
    text = str(path)
    if text in ("", ".") or "\x00" in text:
        raise ConfigError(option, f"got {text[:60]!r}; {ALLOWED}")
    if text.endswith(("/", os.sep)):  # Path() would drop the slash and write a file where a folder was meant
        raise ConfigError(option, f"{text[:80]} names a folder; {ALLOWED}")
    path = Path(path)
    try:
        return _check(path, text[:80], option)
    except OSError as err:  # a name too long, a loop of links, ...
        raise ConfigError(option, f"cannot use {text[:80]}: {err.strerror or err}; {ALLOWED}") from None


def _check(path: Path, text: str, option: str) -> Path:
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
        raise ConfigError(option, f"folder {str(folder)[:80]!r} does not exist; {ALLOWED}")
    # the same for a folder: one without write bits is refused even to root
    if not os.access(folder, os.W_OK | os.X_OK) or not folder.stat().st_mode & 0o222:
        raise ConfigError(option, f"folder {str(folder)[:80]!r} is not writable; {ALLOWED}")
    return path


def check_folder(path: Path | str, option: str, writable: bool = True) -> Path:
    """A folder that exists and is writable, or can be created: its nearest existing ancestor is a
    writable folder (write bits required even of root, as for files). ConfigError(option, ...) if not."""
    path = Path(path)
    try:
        folder = path
        while not folder.exists() and not folder.is_symlink() and folder != folder.parent:
            folder = folder.parent
        if not folder.is_dir():
            raise ConfigError(option, f"{str(folder)[:80]} is not a folder; allowed: a folder (created if missing)")
        if writable and (not os.access(folder, os.W_OK | os.X_OK) or not folder.stat().st_mode & 0o222):
            raise ConfigError(option, f"folder {str(folder)[:80]!r} is not writable; allowed: a writable folder")
    except OSError as err:
        raise ConfigError(option, f"cannot use {str(path)[:80]}: {err.strerror or err}; allowed: a writable "
                                  "folder") from None
    return path


def _clean_stale(path: Path) -> None:
    """Remove temp files of ``path`` left by runs that were killed (their pid no longer exists)."""
    pattern = re.compile(rf"\.{re.escape(_tmp_stem(path))}\.attnwalk-(\d+)-[0-9a-f]+\.tmp")
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


def rewrite_atomic(path: Path | str, old: str, new: str, option: str) -> None:
    """Replace the file ``path`` that was read as ``old`` by ``new`` (``check --fix``), atomically, and only
    if it still holds ``old``: an edit made meanwhile (an editor saving) is kept and this write refused.
    A symlink's target is rewritten (the link stays); a file with other hard links is refused, since the
    rename would leave them holding the old text."""
    path = Path(path)
    try:
        links = path.stat().st_nlink
    except OSError:
        links = 1  # gone or unreadable: _stage names why
    if links > 1:
        raise ConfigError(option, f"{str(path)[:80]} has {links} hard links and a rewrite would split them; "
                                  "allowed: a file with one link (or a symlink), or --diff to see the changes")
    tmp, target = _stage(path, lambda fh: fh.write(new), False, option)
    try:
        with open(target, "rb") as fh:
            now = fh.read(len(old.encode("utf-8", "surrogatepass")) + 1)
    except OSError:
        now = None
    if now != old.encode("utf-8", "surrogatepass"):
        _unlink(tmp)
        raise ConfigError(option, f"{str(path)[:80]} changed while it was checked; allowed: a file no other "
                                  "program writes meanwhile (run again to fix the new text)")
    _commit([(tmp, target, option)])


def write_atomic_with(path: Path | str, fill, binary: bool = False, option: str = "-o") -> None:
    """Like ``write_atomic``, for large outputs: ``fill(fh)`` writes into the temp file."""
    tmp, path = _stage(path, fill, binary, option)
    _commit([(tmp, path, option)])


def write_all_atomic(files: list[tuple[Path | str, str, str]]) -> None:
    """Write several (path, text, option) files all or none: every temp file is complete before the
    first rename, so a full disk or a bad path leaves none of them written (a note and its figures)."""
    staged: list[tuple[Path, Path, str]] = []
    try:
        for path, text, option in files:
            staged.append((*_stage(path, lambda fh, text=text: fh.write(text), False, option), option))
    except BaseException:
        for tmp, _, _ in staged:
            _unlink(tmp)
        raise
    _commit(staged)


def _stage(path: Path | str, fill, binary: bool, option: str) -> tuple[Path, Path]:
    """(temp file holding ``fill``'s output, the target it will replace), both checked."""
    path = check_target(path, option)
    if path.is_symlink():  # write through the link, as editors do: the link stays a link
        path = check_target(path.resolve(), option)
    folder = path.parent
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        mode = None
    _clean_stale(path)
    # os.urandom, not secrets: secrets imports hmac and OpenSSL, ~5 ms of every start
    tmp = folder / f".{_tmp_stem(path)}.attnwalk-{os.getpid()}-{os.urandom(4).hex()}.tmp"
    try:
        # 0o666 through os.open: the umask applies, exactly as for a file any editor creates
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        with os.fdopen(fd, "wb") if binary else os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            if mode is not None:
                os.fchmod(fh.fileno(), mode)
            fill(fh)
    except OSError as err:
        _unlink(tmp)
        raise ConfigError(option, f"cannot write {path}: {err.strerror or err}; {ALLOWED}") from None
    except BaseException:
        _unlink(tmp)
        raise
    return tmp, path


def _commit(staged: list[tuple[Path, Path, str]]) -> None:
    """Rename each temp file over its target (a rename within one folder: it does not run out of space)."""
    for n, (tmp, path, option) in enumerate(staged):
        try:
            os.replace(tmp, path)
        except OSError as err:
            for rest, _, _ in staged[n:]:
                _unlink(rest)
            raise ConfigError(option, f"cannot write {path}: {err.strerror or err}; {ALLOWED}") from None


def _tmp_stem(path: Path) -> str:
    """The target's name in its temp file's, cut so that a target name of 255 bytes still has a temp file."""
    name = path.name
    while len(name.encode("utf-8", "surrogateescape")) > 200:
        name = name[:-1]
    return name


def _unlink(tmp: Path) -> None:
    try:
        os.unlink(tmp)
    except OSError:
        pass
