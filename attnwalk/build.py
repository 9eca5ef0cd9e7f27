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
import hashlib
import json
import tomllib
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from .errors import ConfigError
from .errors import short as _short

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
    data = _read_manifest(manifest)
    entries = data.get("walkthrough")
    if not isinstance(entries, list) or not entries:
        raise BuildError(f"{manifest}: no [[walkthrough]] entries; allowed: one or more [[walkthrough]] tables")
    root = manifest.resolve().parent
    _course_table(manifest, data, root)  # checked before anything is rendered or written
    jobs: list[Job] = []
    seen: dict[Path, str] = {}
    portable: dict[str, tuple[Path, str]] = {}  # NFC, casefolded output path -> (path, as the manifest names it)
    inputs: set[Path] = set()  # scenario files read: never outputs
    for n, entry in enumerate(entries, start=1):
        where = f"{manifest}: walkthrough {n}"
        if not isinstance(entry, dict):
            raise BuildError(f"{where}: not a table; allowed: [[walkthrough]] tables")
        _known_keys(where, entry, ENTRY_KEYS)
        name = entry.get("name")
        if not isinstance(name, str) or not name:
            raise BuildError(f"{where}: 'name' is required (a string); got {_short(name)}; "
                             "allowed: a non-empty string")
        where = f"{manifest}: walkthrough {name!r}"
        options: dict = {}
        if "scenario" in entry:
            from .scenario import load_scenario

            scen = entry["scenario"]
            if not isinstance(scen, str) or not scen or "\x00" in scen:
                raise BuildError(f"{where}: scenario: got {_short(scen)}; allowed: a path to a TOML file, "
                                 "relative to the manifest")
            try:
                options.update(load_scenario(root / scen))
            except ConfigError as err:
                raise BuildError(f"{where}: {err}") from None
            inputs.add((root / scen).resolve())
        inline = entry.get("options", {})
        if not isinstance(inline, dict):
            raise BuildError(f"{where}: 'options' must be a table; allowed: a table of render options")
        spelled = [k.replace("-", "_") for k in inline]
        twice = sorted({k for k in spelled if spelled.count(k) > 1})
        if twice:
            raise BuildError(f"{where}: options: {twice[0]} given twice (with - and with _); allowed: one of them")
        options.update({k.replace("-", "_"): v for k, v in inline.items()})
        langs = entry.get("langs", [options.get("lang", "vi")])
        if isinstance(langs, str):
            langs = [langs]
        if not isinstance(langs, list) or not langs or not all(isinstance(lang, str) for lang in langs):
            raise BuildError(f"{where}: langs: got {_short(langs)}; allowed: a non-empty list of vi, en")
        fmt = entry.get("format", "md")
        if fmt not in ("md", "json"):
            raise BuildError(f"{where}: format: got {_short(fmt)}; allowed: md, json")
        output = entry.get("output")
        allowed = "allowed: a path relative to the manifest, with the fields {name} and {lang}"
        if not isinstance(output, str) or not output or "\x00" in output:
            raise BuildError(f"{where}: 'output' is required (a path relative to the manifest); "
                             f"got {_short(output)}; {allowed}")
        _output_fields(output, where, allowed)
        if output.endswith(("/", "\\")):  # Path() would drop the slash and write a file where a folder was meant
            raise BuildError(f"{where}: output {_short(output)} names a folder; {allowed}, naming a file")
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
            except (OSError, RuntimeError) as err:  # a name too long; a loop of links (RuntimeError in 3.11)
                why = getattr(err, "strerror", None) or "a loop of symbolic links"
                raise BuildError(f"{where}: output {shown[:80]!r}: {why}; {allowed}") from None
            if not path.is_relative_to(root):
                raise BuildError(f"{where}: output {shown!r} is outside the manifest's folder {root}; {allowed} "
                                 "inside that folder")
            if path == manifest.resolve() or path in inputs or path == root / CACHE_NAME:
                raise BuildError(f"{where}: output {shown!r} would overwrite an input (the manifest, a "
                                 f"scenario or the build cache); {allowed}, not an input")
            if path in seen:
                raise BuildError(f"{where}: output {shown!r} is also written by {seen[path]!r}; {allowed}, "
                                 "one per note")
            seen[path] = name
            # A.md and a.md, é as one code point or two: one file on macOS and Windows, where the course is cloned
            twin = portable.setdefault(unicodedata.normalize("NFC", str(path)).casefold(), (path, shown))
            if twin[0] != path:
                raise BuildError(f"{where}: output {shown!r} and {twin[1]!r} differ only in case or Unicode "
                                 f"normalisation (one file on macOS and Windows); {allowed}, names that differ "
                                 "otherwise")
            jobs.append(Job(name, lang, {**options, "lang": lang}, path, shown, fmt))
            jobs[-1:] = _figure_jobs(jobs[-1], entry, where, root, seen)
    return jobs


def _read_manifest(manifest: Path) -> dict:
    """The manifest's TOML (a regular UTF-8 file of bounded size), or BuildError naming it."""
    from .readfile import read_text

    try:
        text = read_text(manifest, str(manifest), "TOML manifest")
    except ConfigError as err:
        raise BuildError(str(err)) from None
    try:
        return tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError) as err:  # ValueError: an integer of > 4300 digits
        raise BuildError(f"{manifest}: not valid TOML: {str(err).splitlines()[0] if str(err) else err}; "
                         "allowed: a UTF-8 TOML file with [[walkthrough]] entries") from None
    except RecursionError:  # tomllib parses nested arrays recursively
        raise BuildError(f"{manifest}: arrays or tables nested too deeply; allowed: a UTF-8 TOML file with "
                         "[[walkthrough]] entries") from None


def _output_fields(output: str, where: str, allowed: str) -> None:
    """``output`` may hold the fields {name} and {lang}, plainly: no format spec (``{name:>99999999}``
    builds a gigabyte name), no conversion, no attribute or index."""
    import string

    try:
        fields = [(f, spec, conv) for _, f, spec, conv in string.Formatter().parse(output) if f is not None]
    except ValueError as err:
        raise BuildError(f"{where}: output {output[:60]!r}: {err}; {allowed}") from None
    for f, spec, conv in fields:
        if f not in ("name", "lang") or spec or conv:
            shown = "{" + f + (f"!{conv}" if conv else "") + (f":{spec[:20]}" if spec else "") + "}"
            raise BuildError(f"{where}: output {output[:60]!r}: bad field {shown}; {allowed}")


COURSE_KEYS = {"index", "langs", "formats"}


def _known_keys(where: str, table: dict, keys) -> None:
    """Refuse a manifest table with a key outside ``keys``, naming the first unknown one and the allowed."""
    unknown = set(table) - set(keys)
    if unknown:
        raise BuildError(f"{where}: unknown key {sorted(unknown)[0]!r}; allowed: {', '.join(sorted(keys))}")


def _course_table(manifest: Path, data: dict, root: Path) -> list[tuple[str, Path, str]]:
    """The ``[course]`` table's index pages as (shown, path, lang) per language and format (``formats``:
    md, and html for an HTML page beside it), validated; [] when absent."""
    course = data.get("course")
    if course is None:
        return []
    where = f"{manifest}: [course]"
    if not isinstance(course, dict):
        raise BuildError(f"{where}: got {_short(course)}; allowed: a table with index and langs")
    _known_keys(where, course, COURSE_KEYS)
    if "index" not in course:
        return []
    index, langs = course["index"], course.get("langs", ["vi"])
    allowed = "allowed: a path relative to the manifest, with the field {lang}"
    if not isinstance(index, str) or not index or "\x00" in index:
        raise BuildError(f"{where}: index: got {_short(index)}; {allowed}")
    formats = course.get("formats", ["md"])
    if not isinstance(formats, list) or "md" not in formats or len(set(map(str, formats))) != len(formats) or any(
            f not in ("md", "html") for f in formats):
        raise BuildError(f"{where}: formats: got {_short(formats)}; allowed: [\"md\"] or [\"md\", \"html\"]")
    if "html" in formats and not index.endswith(".md"):
        raise BuildError(f"{where}: index {index[:60]!r}: an HTML index needs a .md index; allowed: *.md")
    if not isinstance(langs, list) or not langs or len(set(map(str, langs))) != len(langs) or any(
            lang not in ("vi", "en") for lang in langs):
        raise BuildError(f"{where}: langs: got {_short(langs)}; allowed: a non-empty list of vi, en")
    import string

    try:
        fields = [(f, spec, conv) for _, f, spec, conv in string.Formatter().parse(index) if f is not None]
    except ValueError as err:
        raise BuildError(f"{where}: index {index[:60]!r}: {err}; {allowed}") from None
    if any(f != "lang" or spec or conv for f, spec, conv in fields):
        raise BuildError(f"{where}: index {index[:60]!r}: only the field {{lang}}; {allowed}")
    if len(langs) > 1 and not fields:
        raise BuildError(f"{where}: index {index[:60]!r} needs {{lang}} for several languages; {allowed}")
    out = []
    for lang in langs:
        shown = index.format(lang=lang)
        try:
            path = (root / shown).resolve()
        except (OSError, RuntimeError) as err:  # RuntimeError: a loop of links (Python 3.11)
            why = getattr(err, "strerror", None) or "a loop of symbolic links"
            raise BuildError(f"{where}: index {shown[:60]!r}: {why}; {allowed}") from None
        if not path.is_relative_to(root) or path == root:
            raise BuildError(f"{where}: index {shown[:60]!r} is outside the manifest's folder {root}; {allowed} "
                             "inside that folder")
        if path == manifest.resolve():
            raise BuildError(f"{where}: index {shown[:60]!r} would overwrite the manifest; {allowed}")
        out.append((shown, path, lang))
        if "html" in formats:
            out.append((shown[:-3] + ".html", path.with_suffix(".html"), lang))
    return out


def _check_output(path: Path, check: bool = False) -> None:
    """An output that exists must be a writable regular file (``check``: a regular file, read only);
    a missing one's nearest existing folder must be writable, so that no write fails half-way."""
    from .writefile import check_folder, check_target

    try:
        if path.exists() or path.is_symlink():
            if check:
                if not path.is_file():
                    raise ConfigError("output", f"{path} is not a regular file; allowed: a regular file")
                return
            check_target(path, "output")
            return
        check_folder(path.parent, "output", writable=not check)  # --check: a note that can exist
    except OSError as err:
        raise ConfigError("output", f"cannot use {str(path)[:80]}: {err.strerror or err}; "
                                    "allowed: a writable file path") from None


def _figure_jobs(job: Job, entry: dict, where: str, root: Path, seen: dict) -> list[Job]:
    """The manifest's ``formats`` and ``figures`` keys: the note's HTML and notebook twins, its SVG figures."""
    formats = entry.get("formats", [job.format])
    figures = entry.get("figures", False)
    if not isinstance(figures, bool):
        raise BuildError(f"{where}: figures: got {_short(figures)}; allowed: true, false")
    if (not isinstance(formats, list) or not formats or len(set(formats)) != len(formats)
            or any(f not in ("md", "html", "ipynb", "json") for f in formats)):
        raise BuildError(f"{where}: formats: got {_short(formats)}; allowed: a list of md, html, ipynb, json")
    if "format" in entry and "formats" in entry:
        raise BuildError(f"{where}: formats: give either format or formats; allowed: one of them")
    if not figures and formats == [job.format]:
        return [job]
    if job.path.suffix != ".md" and ("html" in formats or "ipynb" in formats or figures):
        raise BuildError(f"{where}: output {job.shown!r}: figures, html and ipynb need a .md output; allowed: *.md")
    out: list[Job] = []
    for fmt in formats:
        path = job.path.with_suffix({"md": ".md", "html": ".html", "ipynb": ".ipynb", "json": ".json"}[fmt])
        out.append(Job(job.name, job.lang, job.options, path, _shown(path, root), fmt, figures and fmt != "json"))
    if figures:
        try:
            keys = figure_keys(job.options)
        except ConfigError as err:
            raise BuildError(f"{where}: {err}") from None
        for key in keys:
            path = job.path.parent / "figures" / f"{job.path.stem}-{key}.svg"
            out.append(Job(job.name, job.lang, job.options, path, _shown(path, root), "svg", True, key))
    for extra in out:
        if extra.path == job.path:
            continue
        if extra.path in seen:
            raise BuildError(f"{where}: output {extra.shown!r} is also written by {seen[extra.path]!r}; allowed: "
                             "one walkthrough per output file")
        seen[extra.path] = job.name
    return out


def figure_keys(options: dict) -> list[str]:
    """The keys of a note's figures (``figures.specs``), from its config alone: listing a
    manifest's outputs runs no engine. One heatmap per head (given scores: one head), the
    shape flow, and for yolo where pixel p0 looks."""
    from .config import make_config

    options = {k: v for k, v in options.items() if k != "weights"}  # api.walk's keyword, not a Config field
    if options.get("variant", "yolo") in (None, "yolo"):
        options.pop("x", None)
    cfg = make_config(**options)
    heads = 1 if cfg.variant == "sdpa" and cfg.source == "scores" else cfg.heads
    return ["shapes", *(f"attn-h{h}" for h in range(heads))] + (["look-p0"] if cfg.variant == "yolo" else [])


def _shown(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix()


def render_job(job: Job) -> str:
    return render_group([job])[0]


def render_group(jobs: list[Job]) -> list[str]:
    """The texts of one walkthrough's jobs (its languages): the engine runs once, and closed
    forms are computed once (``Trace.memo``), whatever the number of languages."""
    from .api import walk
    from .budget import require
    from .config import make_config, require_document

    first = jobs[0]
    try:
        cfg = make_config(**first.options)
        for fmt in dict.fromkeys(job.format for job in jobs):  # each format's own limits (a page, a notebook)
            require(cfg, fmt)
            require_document(cfg, fmt)
        trace = walk(**first.options)
    except ConfigError as err:
        raise BuildError(f"walkthrough {first.name!r} ({first.lang}): {err}") from None
    return [_render_one(trace if job is first else trace.with_config(lang=job.lang), job) for job in jobs]


def _render_one(trace, job: Job) -> str:
    """One output of a walkthrough: an SVG figure, a note with its figures linked, or a plain note."""
    if job.format == "svg":
        from .figures import svg

        return svg(trace, job.figure, job.lang)
    if job.figures:
        from .render import render_with_figures

        stem = job.path.with_suffix(".md").stem
        text, svgs = render_with_figures(trace, job.format, job.lang, stem, "figures", draw=False)
        if sorted(svgs) != sorted(f"{stem}-{key}.svg" for key in figure_keys(job.options)):  # cannot happen
            raise BuildError(f"walkthrough {job.name!r}: the note links figures {sorted(svgs)}, "
                             "but the manifest listed others")
        return text
    from .render import render

    return render(trace, job.format, job.lang)


def group_jobs(jobs: list[Job]) -> list[list[Job]]:
    """Consecutive jobs of one walkthrough (same name and options but the language): its notes, pages, notebooks
    and figures in every language, rendered from one trace (its closed forms computed once)."""
    groups: list[list[Job]] = []
    for job in jobs:
        prev = groups[-1][0] if groups else None
        if prev and (prev.name, _without_lang(prev.options)) == (job.name, _without_lang(job.options)):
            groups[-1].append(job)
        else:
            groups.append([job])
    return groups


def _without_lang(options: dict) -> dict:
    return {k: v for k, v in options.items() if k != "lang"}


# Incremental builds: a cache file beside the manifest maps each output to the fingerprint of
# its inputs and the digest of the bytes written. A note is skipped (not even rendered) when
# both still match; ``--check`` never trusts the cache and compares rendered content.
CACHE_NAME = ".attnwalk-build.json"


def code_digest() -> str:
    """Digest of what renders a note besides its options: attnwalk's version and sources, the
    templates and the shipped course manifest (views/course.py: notes link their neighbours in it)."""
    from . import __version__
    from .render import templates_dir

    h = hashlib.sha256(__version__.encode())
    for root, pattern in ((Path(__file__).resolve().parent, "*.py"), (templates_dir(), "*")):
        for f in sorted(p for p in root.rglob(pattern) if p.is_file() and "__pycache__" not in p.parts):
            h.update(str(f.relative_to(root)).encode() + b"\0" + f.read_bytes())
    course = templates_dir().parent / "examples" / "course.toml"
    if course.is_file():
        h.update(b"\0course\0" + course.read_bytes())
    return h.hexdigest()


def fingerprint(job: Job, code: str) -> str:
    """Digest of one note's inputs: its options (config, given weights and tables), format, code."""
    options = json.dumps(job.options, sort_keys=True, ensure_ascii=False, default=str)
    what = f"{job.format}\0{job.lang}\0{job.figures}\0{job.figure}"
    return hashlib.sha256(f"{code}\0{what}\0{options}".encode()).hexdigest()


def _digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


CACHE_MAX_BYTES = 16 * 2**20  # ~80,000 notes' entries; a larger file there is no cache of ours


def _load_cache(path: Path) -> dict:
    """The build cache, or {} when it is missing or unusable (a FIFO there must not block the build, a symlink
    may point outside the course); of a hand-edited or corrupted one, only the well-formed entries."""
    from .readfile import read_text

    if path.is_symlink():
        return {}
    try:
        data = json.loads(read_text(path, "cache", "JSON file", limit=CACHE_MAX_BYTES))
    except (ConfigError, ValueError, RecursionError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, dict) and isinstance(v.get("inputs"), str)
            and isinstance(v.get("output"), str)}


@dataclass
class Result:
    written: list[str]
    unchanged: list[str]
    stale: list[str]
    diffs: list[str]
    skipped: list[str] = field(default_factory=list)  # unchanged and not even rendered (cache hit)


# Fewer walkthroughs to render than this: one process (starting a pool costs more than a few
# small notes; measured with benchmarks/run.py).
PARALLEL_MIN_NOTES = 8


def _render_groups(groups: list[list[Job]], workers: int):
    """Rendered texts of each group, in order: over ``workers`` forked processes when > 1."""
    if workers >= 2 and len(groups) >= PARALLEL_MIN_NOTES:
        import multiprocessing as mp  # (only here: its import costs a no-op or one-note build ~6-12 ms)

        if "fork" in mp.get_all_start_methods():
            from concurrent.futures import ProcessPoolExecutor

            _warm(groups)
            with ProcessPoolExecutor(min(workers, len(groups)), mp_context=mp.get_context("fork")) as pool:
                yield from pool.map(render_group, groups)
            return
    yield from map(render_group, groups)


def _warm(groups: list[list[Job]]) -> None:
    """Import the engine and views and load the templates once, before forking, so that each
    worker inherits them instead of loading them again."""
    import importlib

    from . import api  # noqa: F401  (the engine, NumPy)
    from .render import environment

    for variant, lang in sorted({(j.options.get("variant") or "yolo", j.lang) for g in groups for j in g}):
        try:
            importlib.import_module(f".views.{variant}", __package__)
            environment().get_template(f"{variant}/{lang}.md.j2")
        except Exception:  # noqa: BLE001 - a bad variant or language is reported by its worker
            pass


def build(manifest: Path, check: bool = False, progress=None, workers: int | None = None) -> Result:
    """Render every job (notes in parallel over ``workers`` processes, default: the CPUs) and
    write the changed ones, or with ``check`` only diff them. Results and progress lines come
    in manifest order, so the output does not depend on ``workers``."""
    from .engine.blas import worker_count
    from .writefile import write_atomic

    jobs = load_manifest(manifest)
    for job in jobs:  # every output path a plain file we may write, before anything is rendered
        try:
            _check_output(job.path, check)
        except ConfigError as err:
            raise BuildError(f"walkthrough {job.name!r}: {err}") from None
    notes = {job.path: job.name for job in jobs}
    for shown, path, _ in _course_table(Path(manifest), _read_manifest(Path(manifest)),
                                        Path(manifest).resolve().parent):
        if path in notes or path.name == CACHE_NAME and path.parent == Path(manifest).resolve().parent:
            raise BuildError(f"{manifest}: [course] index {shown!r} is also written by "
                             f"{notes.get(path, 'the build cache')!r}; allowed: a file of its own")
        try:
            _check_output(path, check)
        except ConfigError as err:
            raise BuildError(f"{manifest}: [course] index {shown!r}: {err}") from None
    cache_path = Path(manifest).resolve().parent / CACHE_NAME
    cache = {} if check else _load_cache(cache_path)
    code = code_digest()
    prints = {job.shown: fingerprint(job, code) for job in jobs}
    res = Result([], [], [], [])
    fresh: dict = {}
    todo = []
    for group in group_jobs(jobs):
        hit = all(cache.get(j.shown, {}).get("inputs") == prints[j.shown] and
                  cache[j.shown].get("output") == _digest(j.path) for j in group)
        if hit:
            fresh.update({j.shown: cache[j.shown] for j in group})
        else:
            todo.append(group)
    # Validate all, then write: every note is rendered before any is written, so a bad entry
    # anywhere stops the build with nothing written; and the writes are all or none (a full disk).
    rendered = iter(list(_render_groups(todo, workers or worker_count())))
    n, lines, pending = 0, [], []
    texts: dict[Path, str] = {}
    for group in group_jobs(jobs):
        group_texts = next(rendered) if group in todo else [None] * len(group)
        for job, text in zip(group, group_texts):
            n += 1
            status = _settle(job, text, check, res, pending)
            if text is not None:
                texts[job.path] = text
                if not check:
                    fresh[job.shown] = {"inputs": prints[job.shown],
                                        "output": hashlib.sha256(text.encode("utf-8")).hexdigest()}
            lines.append((n, len(jobs), job.shown, status))
    for shown, path, lang, text, links in index_pages(manifest, jobs, texts):
        if links is None:
            _write_or_diff(res, shown, path, text, check, pending)
            continue
        # the index's HTML page (KaTeX inlined): rendered only when its Markdown, links or code changed
        key = hashlib.sha256(json.dumps([code, text, links], sort_keys=True).encode("utf-8")).hexdigest()
        if cache.get(shown, {}).get("inputs") == key and cache[shown].get("output") == _digest(path):
            fresh[shown] = cache[shown]
            res.unchanged.append(shown)
            continue
        from .html import page

        html = page(text, lang, {}, links)
        _write_or_diff(res, shown, path, html, check, pending)
        if not check:
            fresh[shown] = {"inputs": key, "output": hashlib.sha256(html.encode("utf-8")).hexdigest()}
    _write_all(pending)
    if progress:
        for line in lines:
            progress(*line)
    if not check and fresh != cache and not cache_path.is_symlink():  # never written through a link
        try:
            write_atomic(cache_path, json.dumps(fresh, indent=1, sort_keys=True) + "\n", "output")
        except (OSError, ConfigError):
            pass  # the cache only saves time; a read-only folder just rebuilds next time
    return res


def _settle(job: Job, text: str | None, check: bool, res: Result, pending: list) -> str:
    """Compare one rendered note with the file (to be written unless ``check``); its status word."""
    if text is None:
        res.unchanged.append(job.shown)
        res.skipped.append(job.shown)
        return "unchanged"
    return _write_or_diff(res, job.shown, job.path, text, check, pending)


def _write_all(pending: list[tuple[str, Path, str]]) -> None:
    """Write the changed notes all or none; folders this build made are removed again on failure."""
    from .writefile import write_all_atomic

    if not pending:
        return
    made: list[Path] = []
    try:
        for _, path, _ in pending:
            new = [d for d in (path.parent, *path.parent.parents) if not d.exists()]
            path.parent.mkdir(parents=True, exist_ok=True)
            made += new
        write_all_atomic([(path, text, "output") for _, path, text in pending])
    except (OSError, ConfigError) as err:
        for d in sorted(set(made), key=lambda d: len(d.parts), reverse=True):
            try:
                d.rmdir()
            except OSError:
                pass
        shown = next((s for s, path, _ in pending if str(path) in str(err)), pending[0][0])
        why = getattr(err, "strerror", None) or str(err)
        raise BuildError(f"cannot write {shown}: {why}" + ("" if "allowed:" in why else
                                                            "; allowed: a writable folder with room for the notes")
                         ) from None


def course_index(manifest: Path, jobs: list[Job], texts: dict | None = None) -> list[tuple[str, Path, str]]:
    """The course index pages ``[course] index`` asks for: (shown, path, text) per language and format.

    Notes in the manifest's order (its learning order), each linked by its title, and a vi/en
    glossary (attnwalk/views/glossary.py). No ``[course]`` table: no index.
    """
    from .html import page

    return [(shown, path, text if links is None else page(text, lang, {}, links))
            for shown, path, lang, text, links in index_pages(manifest, jobs, texts)]


def index_pages(manifest: Path, jobs: list[Job], texts: dict | None = None) -> list[tuple]:
    """(shown, path, lang, Markdown text, links) of each index page: ``links`` is None for the Markdown
    page, and for its HTML page the note links to point at each note's HTML page where it has one."""
    from .views.course import relative_link
    from .views.glossary import index_page

    pages = _course_table(Path(manifest), _read_manifest(Path(manifest)), Path(manifest).resolve().parent)
    with_html = {job.path.with_suffix(".md") for job in jobs if job.format == "html"}
    out = []
    for shown, path, lang in pages:
        notes = [(job.name, job.path, _title(job.path, (texts or {}).get(job.path)))
                 for job in jobs if job.lang == lang and job.format == "md"]
        text = index_page(lang, notes, path.parent)
        links = None
        if path.suffix == ".html":
            here = path.parent
            links = {relative_link(p, here): relative_link(p.with_suffix(".html"), here) for _, p, _ in notes
                     if p in with_html}
        out.append((shown, path, lang, text, links))
    return out



def _title(path: Path, text: str | None = None) -> str:
    """A note's title from its front matter: the text just rendered, else the file (a skipped note)."""
    try:
        if text is None:
            text = path.read_text(encoding="utf-8")
        for line in text.splitlines()[:3]:
            if line.startswith("title: "):
                return json.loads(line[len("title: "):])
    except (OSError, ValueError):
        pass
    return path.stem


def _write_or_diff(res: Result, shown: str, path: Path, text: str, check: bool, pending: list) -> str:
    """Compare ``text`` with the file at ``path``: record a diff (``check``) or queue the write; its status word."""
    try:
        old = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        old = None
    except (OSError, UnicodeDecodeError):
        old = ""
    if old == text:
        res.unchanged.append(shown)
        return "unchanged"
    if check:
        res.stale.append(shown)
        res.diffs.append("".join(difflib.unified_diff(
            (old or "").splitlines(keepends=True), text.splitlines(keepends=True),
            fromfile=f"{shown} (committed)" if old is not None else "/dev/null", tofile=f"{shown} (attnwalk build)")))
        return "stale" if old is not None else "missing"
    pending.append((shown, path, text))
    res.written.append(shown)
    return "written"
