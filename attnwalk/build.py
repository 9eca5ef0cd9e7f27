"""``attnwalk build``: render every walkthrough a course manifest lists (docs/course.md).

A manifest is TOML::

    [[walkthrough]]
    name = "yolo-3x3-seed42"
    scenario = "scenarios/yolo-3x3.toml"        # optional, relative to the manifest
    options = { h = 3, w = 3, heads = 2 }        # optional, over the scenario's keys
    langs = ["vi", "en"]                         # optional, default ["vi"]
    output = "notes/{name}.{lang}.md"            # relative to the manifest; {name}, {lang}
    figures = true                               # optional: SVG figures in notes/figures/, linked
    formats = ["md", "html"]                     # optional: also a self-contained HTML page (.html)

Only notes whose bytes change are rewritten (atomically); ``check=True`` writes nothing and
returns unified diffs of the stale notes. Outputs must stay inside the manifest's folder.
"""

from __future__ import annotations

import difflib
import tomllib
from dataclasses import dataclass
from pathlib import Path

from .errors import ConfigError

ENTRY_KEYS = {"name", "scenario", "options", "langs", "output", "format", "figures", "formats"}


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
    figures: bool = False  # md/html: with figures; svg: ``figure`` is the figure's key
    figure: str = ""


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
            jobs[-1:] = _figure_jobs(jobs[-1], entry, where, root, seen)
    return jobs


def _figure_jobs(job: Job, entry: dict, where: str, root: Path, seen: dict) -> list[Job]:
    """The manifest's ``formats`` and ``figures`` keys: the note's HTML twin and its SVG figures."""
    formats = entry.get("formats", [job.format])
    figures = entry.get("figures", False)
    if not isinstance(figures, bool):
        raise BuildError(f"{where}: figures: got {figures!r}; allowed: true, false")
    if (not isinstance(formats, list) or not formats or len(set(formats)) != len(formats)
            or any(f not in ("md", "html", "json") for f in formats)):
        raise BuildError(f"{where}: formats: got {formats!r}; allowed: a list of md, html, json")
    if "format" in entry and "formats" in entry:
        raise BuildError(f"{where}: formats: give either format or formats; allowed: one of them")
    if not figures and formats == [job.format]:
        return [job]
    if job.path.suffix != ".md" and ("html" in formats or figures):
        raise BuildError(f"{where}: output {job.shown!r}: figures and html need a .md output; allowed: *.md")
    out: list[Job] = []
    for fmt in formats:
        path = job.path.with_suffix({"md": ".md", "html": ".html", "json": ".json"}[fmt])
        out.append(Job(job.name, job.lang, job.options, path, _shown(path, root), fmt, figures and fmt != "json"))
    if figures:
        from .api import walk
        from .render import figure_files

        try:
            trace = walk(**job.options)
        except ConfigError as err:
            raise BuildError(f"{where}: {err}") from None
        for file, spec in figure_files(trace, job.lang, job.path.stem):
            path = job.path.parent / "figures" / file
            out.append(Job(job.name, job.lang, job.options, path, _shown(path, root), "svg", True, spec["key"]))
    for extra in out:
        if extra.path == job.path:
            continue
        if extra.path in seen:
            raise BuildError(f"{where}: output {extra.shown!r} is also written by {seen[extra.path]!r}")
        seen[extra.path] = job.name
    return out


def _shown(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix()


def render_job(job: Job) -> str:
    from .api import walk
    from .render import render

    try:
        trace = walk(**job.options)
    except ConfigError as err:
        raise BuildError(f"walkthrough {job.name!r} ({job.lang}): {err}") from None
    if job.format == "svg":
        from .figures import svg

        return svg(trace, job.figure, job.lang)
    if job.figures:
        from .render import render_with_figures

        return render_with_figures(trace, job.format, job.lang, job.path.with_suffix(".md").stem, "figures",
                                   draw=False)[0]
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
    return res
