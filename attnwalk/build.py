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
        raise BuildError(f"{manifest}: cannot read: {err.strerror or err}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise BuildError(f"{manifest}: not valid TOML: {err}") from None
    entries = data.get("walkthrough")
    if not isinstance(entries, list) or not entries:
        raise BuildError(f"{manifest}: no [[walkthrough]] entries")
    root = manifest.resolve().parent
    jobs: list[Job] = []
    seen: dict[Path, str] = {}
    for n, entry in enumerate(entries, start=1):
        where = f"{manifest}: walkthrough {n}"
        if not isinstance(entry, dict):
            raise BuildError(f"{where}: not a table")
        unknown = set(entry) - ENTRY_KEYS
        if unknown:
            raise BuildError(f"{where}: unknown key {sorted(unknown)[0]!r}; allowed: {', '.join(sorted(ENTRY_KEYS))}")
        name = entry.get("name")
        if not isinstance(name, str) or not name:
            raise BuildError(f"{where}: 'name' is required (a string)")
        where = f"{manifest}: walkthrough {name!r}"
        options: dict = {}
        if "scenario" in entry:
            from .scenario import load_scenario

            try:
                options.update(load_scenario(root / entry["scenario"]))
            except ConfigError as err:
                raise BuildError(f"{where}: {err}") from None
        inline = entry.get("options", {})
        if not isinstance(inline, dict):
            raise BuildError(f"{where}: 'options' must be a table")
        options.update({k.replace("-", "_"): v for k, v in inline.items()})
        langs = entry.get("langs", [options.get("lang", "vi")])
        if isinstance(langs, str):
            langs = [langs]
        fmt = entry.get("format", "md")
        if fmt not in ("md", "json"):
            raise BuildError(f"{where}: format: got {fmt!r}; allowed: md, json")
        output = entry.get("output")
        if not isinstance(output, str) or not output:
            raise BuildError(f"{where}: 'output' is required (a path relative to the manifest)")
        if len(langs) > 1 and "{lang}" not in output:
            raise BuildError(f"{where}: output {output!r} needs {{lang}} for several languages")
        for lang in langs:
            shown = output.format(name=name, lang=lang)
            path = (root / shown).resolve()
            if not path.is_relative_to(root):
                raise BuildError(f"{where}: output {shown!r} is outside the manifest's folder {root}")
            if path in seen:
                raise BuildError(f"{where}: output {shown!r} is also written by {seen[path]!r}")
            seen[path] = name
            jobs.append(Job(name, lang, {**options, "lang": lang}, path, shown, fmt))
    return jobs


def render_job(job: Job) -> str:
    from .api import walk
    from .render import render

    try:
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
    res = Result([], [], [], [])
    for n, job in enumerate(jobs, start=1):
        text = render_job(job)
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
                write_atomic(job.path, text)
            except OSError as err:
                raise BuildError(f"cannot write {job.shown}: {err.strerror or err}") from None
            res.written.append(job.shown)
            status = "written"
        if progress:
            progress(n, len(jobs), job.shown, status)
    for shown, path, text in course_index(manifest, jobs):
        _write_or_diff(res, shown, path, text, check)
    return res


def course_index(manifest: Path, jobs: list[Job]) -> list[tuple[str, Path, str]]:
    """The course index pages ``[course] index`` asks for: (shown, path, text) per language.

    Notes in the manifest's order (its learning order), each linked by its title, and a vi/en
    glossary (attnwalk/views/glossary.py). No ``[course]`` table: no index.
    """
    from .views.glossary import index_page

    try:
        course = tomllib.loads(Path(manifest).read_text(encoding="utf-8")).get("course")
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return []
    if not isinstance(course, dict) or "index" not in course:
        return []
    root = Path(manifest).resolve().parent
    out = []
    for lang in course.get("langs", ["vi"]):
        shown = str(course["index"]).format(lang=lang)
        path = (root / shown).resolve()
        if not path.is_relative_to(root):
            raise BuildError(f"{manifest}: course index {shown!r} is outside the manifest's folder {root}")
        notes = [(job.name, job.path, _title(job.path)) for job in jobs if job.lang == lang and job.format == "md"]
        out.append((shown, path, index_page(lang, notes, path.parent)))
    return out


def _title(path: Path) -> str:
    """A note's title from its front matter (the note was just written or checked)."""
    try:
        for line in path.read_text(encoding="utf-8").splitlines()[:3]:
            if line.startswith("title: "):
                import json

                return json.loads(line[len("title: "):])
    except (OSError, ValueError):
        pass
    return path.stem


def _write_or_diff(res: Result, shown: str, path: Path, text: str, check: bool) -> None:
    from .writefile import write_atomic

    try:
        old = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        old = None
    except (OSError, UnicodeDecodeError):
        old = ""
    if old == text:
        res.unchanged.append(shown)
    elif check:
        res.stale.append(shown)
        res.diffs.append("".join(difflib.unified_diff(
            (old or "").splitlines(keepends=True), text.splitlines(keepends=True),
            fromfile=f"{shown} (committed)" if old is not None else "/dev/null", tofile=f"{shown} (attnwalk build)")))
    else:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path, text)
        except OSError as err:
            raise BuildError(f"cannot write {shown}: {err.strerror or err}") from None
        res.written.append(shown)
