"""``attnwalk build``: render every walkthrough a course manifest lists (docs/course.md).

A manifest is TOML::

    [[walkthrough]]
    name = "yolo-3x3-seed42"
    scenario = "scenarios/yolo-3x3.toml"        # optional, relative to the manifest
    options = { h = 3, w = 3, heads = 2 }        # optional, over the scenario's keys
    langs = ["vi", "en"]                         # optional, default ["vi"]
    output = "notes/{name}.{lang}.md"            # relative to the manifest; {name}, {lang}

Only notes whose bytes change are rewritten (atomically); ``check=True`` writes nothing and
returns unified diffs of the stale notes. Outputs must stay inside the manifest's folder.
"""

from __future__ import annotations

import difflib
import tomllib
from dataclasses import dataclass
from pathlib import Path

from .errors import ConfigError

ENTRY_KEYS = {"name", "scenario", "options", "langs", "output", "format"}


class BuildError(ValueError):
    """A bad manifest or output path: one line for the user (exit 2)."""


@dataclass
class Job:
    name: str
    lang: str
    options: dict
    path: Path  # absolute
    shown: str  # as the manifest writes it, relative to the manifest's folder
    format: str = "md"


def load_manifest(manifest: Path) -> list[Job]:
    manifest = Path(manifest)
    try:
        data = tomllib.loads(manifest.read_text(encoding="utf-8"))
    except OSError as err:
        raise BuildError(f"{manifest}: cannot read: {err.strerror or err}; allowed: a readable TOML file") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, ValueError) as err:  # ValueError: a NUL in the path
        raise BuildError(f"{manifest}: not valid TOML: {str(err).splitlines()[0] if str(err) else err}; "
                         "allowed: a UTF-8 TOML file with [[walkthrough]] entries") from None
    entries = data.get("walkthrough")
    if not isinstance(entries, list) or not entries:
        raise BuildError(f"{manifest}: no [[walkthrough]] entries; allowed: one or more [[walkthrough]] tables")
    root = manifest.resolve().parent
    jobs: list[Job] = []
    seen: dict[Path, str] = {}
    inputs: set[Path] = set()  # scenario files read: never outputs
    for n, entry in enumerate(entries, start=1):
        where = f"{manifest}: walkthrough {n}"
        if not isinstance(entry, dict):
            raise BuildError(f"{where}: not a table; allowed: [[walkthrough]] tables")
        unknown = set(entry) - ENTRY_KEYS
        if unknown:
            raise BuildError(f"{where}: unknown key {sorted(unknown)[0]!r}; allowed: {', '.join(sorted(ENTRY_KEYS))}")
        name = entry.get("name")
        if not isinstance(name, str) or not name:
            raise BuildError(f"{where}: 'name' is required (a string); got {str(name)[:40]!r}; "
                             "allowed: a non-empty string")
        where = f"{manifest}: walkthrough {name!r}"
        options: dict = {}
        if "scenario" in entry:
            from .scenario import load_scenario

            scen = entry["scenario"]
            if not isinstance(scen, str) or not scen or "\x00" in scen:
                raise BuildError(f"{where}: scenario: got {str(scen)[:40]!r}; allowed: a path to a TOML file, "
                                 "relative to the manifest")
            try:
                options.update(load_scenario(root / scen))
            except ConfigError as err:
                raise BuildError(f"{where}: {err}") from None
            inputs.add((root / scen).resolve())
        inline = entry.get("options", {})
        if not isinstance(inline, dict):
            raise BuildError(f"{where}: 'options' must be a table; allowed: a table of render options")
        options.update({k.replace("-", "_"): v for k, v in inline.items()})
        langs = entry.get("langs", [options.get("lang", "vi")])
        if isinstance(langs, str):
            langs = [langs]
        if not isinstance(langs, list) or not langs or not all(isinstance(lang, str) for lang in langs):
            raise BuildError(f"{where}: langs: got {str(langs)[:40]}; allowed: a non-empty list of vi, en")
        fmt = entry.get("format", "md")
        if fmt not in ("md", "json"):
            raise BuildError(f"{where}: format: got {fmt!r}; allowed: md, json")
        output = entry.get("output")
        allowed = "allowed: a path relative to the manifest, with the fields {name} and {lang}"
        if not isinstance(output, str) or not output or "\x00" in output:
            raise BuildError(f"{where}: 'output' is required (a path relative to the manifest); "
                             f"got {str(output)[:40]!r}; {allowed}")
        if len(langs) > 1 and "{lang}" not in output:
            raise BuildError(f"{where}: output {output!r} needs {{lang}} for several languages; {allowed}")
        for lang in langs:
            try:
                shown = output.format(name=name, lang=lang)
                if "\x00" in shown:
                    raise ValueError("a NUL byte")
                path = (root / shown).resolve()
            except (KeyError, IndexError, ValueError, AttributeError) as err:
                raise BuildError(f"{where}: output {output!r}: bad field {err}; {allowed}") from None
            if not path.is_relative_to(root):
                raise BuildError(f"{where}: output {shown!r} is outside the manifest's folder {root}; {allowed} "
                                 "inside that folder")
            if path == manifest.resolve() or path in inputs:
                raise BuildError(f"{where}: output {shown!r} would overwrite an input (the manifest or a "
                                 f"scenario); {allowed}, not an input")
            if path in seen:
                raise BuildError(f"{where}: output {shown!r} is also written by {seen[path]!r}; {allowed}, "
                                 "one per note")
            seen[path] = name
            jobs.append(Job(name, lang, {**options, "lang": lang}, path, shown, fmt))
    return jobs


def _check_output(path: Path) -> None:
    """An output that exists must be a writable regular file (a missing folder is created)."""
    from .writefile import check_target

    if path.exists() or path.is_symlink() or path.parent.is_dir():
        check_target(path, "output")


def render_job(job: Job) -> str:
    from .api import walk
    from .budget import require
    from .config import make_config
    from .render import render

    try:
        require(make_config(**job.options), job.format)
        trace = walk(**job.options)
    except ConfigError as err:
        raise BuildError(f"walkthrough {job.name!r} ({job.lang}): {err}") from None
    return render(trace, job.format, job.lang)


@dataclass
class Result:
    written: list[str]
    unchanged: list[str]
    stale: list[str]
    diffs: list[str]


def build(manifest: Path, check: bool = False, progress=None) -> Result:
    """Render every job; write the changed ones (or, with ``check``, only diff them)."""
    from .writefile import write_atomic

    jobs = load_manifest(manifest)
    for job in jobs:  # every output path a plain file we may write, before anything is rendered
        if not check:
            try:
                _check_output(job.path)
            except ConfigError as err:
                raise BuildError(f"walkthrough {job.name!r}: {err}") from None
    # Validate all, then write: a bad entry anywhere stops the build before any note is written.
    texts = [render_job(job) for job in jobs]
    res = Result([], [], [], [])
    for n, (job, text) in enumerate(zip(jobs, texts), start=1):
        try:
            old = job.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            old = None
        except (OSError, UnicodeDecodeError):
            old = ""
        if old == text:
            res.unchanged.append(job.shown)
            status = "unchanged"
        elif check:
            res.stale.append(job.shown)
            res.diffs.append("".join(difflib.unified_diff(
                (old or "").splitlines(keepends=True), text.splitlines(keepends=True),
                fromfile=f"{job.shown} (committed)" if old is not None else "/dev/null",
                tofile=f"{job.shown} (attnwalk build)")))
            status = "stale" if old is not None else "missing"
        else:
            try:
                job.path.parent.mkdir(parents=True, exist_ok=True)
                write_atomic(job.path, text, "output")
            except (OSError, ConfigError) as err:
                raise BuildError(f"cannot write {job.shown}: {getattr(err, 'strerror', None) or err}") from None
            res.written.append(job.shown)
            status = "written"
        if progress:
            progress(n, len(jobs), job.shown, status)
    return res
