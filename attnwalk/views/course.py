"""Where a note sits in the shipped course (examples/course.toml): its command, its neighbours.

A note of the shipped course says how to regenerate it with the real scenario file
(``attnwalk render --scenario examples/scenarios/hand-2x2.toml --lang en``) and links to the
notes before and after it in learning order (the manifest's order). The note is found by its
config, so ``attnwalk render`` and ``attnwalk build`` print the same bytes. Outside a checkout
(an installed wheel has no examples/) nothing is found and the note stays generic.
"""

from __future__ import annotations

import tomllib
from functools import lru_cache
from pathlib import Path

COURSE = Path("examples") / "course.toml"  # relative to the repository root: commands run from there


def repo_root() -> Path:
    from ..render import templates_dir

    return templates_dir().parent


@lru_cache(maxsize=4)
def _manifest(root: str) -> dict | None:
    """The shipped manifest, parsed once for its entries and its index (None: none readable)."""
    try:
        return tomllib.loads((Path(root) / COURSE).read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return None


@lru_cache(maxsize=4)
def _entries(root: str) -> tuple:
    """The walkthroughs of the shipped manifest: (name, scenario path shown, options, langs, output,
    figures, formats)."""
    data = _manifest(root)
    if data is None:
        return ()
    out = []
    for e in data.get("walkthrough", []):
        if not isinstance(e, dict) or "name" not in e:
            continue
        scen = e.get("scenario")
        formats = e.get("formats", [e.get("format", "md")])
        out.append((e["name"], (COURSE.parent / scen).as_posix() if scen else None, dict(e.get("options", {})),
                    tuple(e.get("langs", ["vi"])), e.get("output", ""), e.get("figures") is True,
                    tuple(formats) if isinstance(formats, list) else ()))
    return tuple(out)


@lru_cache(maxsize=16)
def _scenario(root: str, shown: str) -> dict:
    from ..scenario import load_scenario

    return load_scenario(Path(root) / shown)


def _options(root: str, entry: tuple) -> dict:
    name, scen, options, _langs, _out, _figures, _formats = entry
    opts = dict(_scenario(root, scen)) if scen else {}
    opts.update({k.replace("-", "_"): v for k, v in options.items()})
    return opts


def _same(opts: dict, cfg: dict) -> bool:
    """Whether the entry's options make exactly ``cfg`` (the language aside)."""
    from ..config import make_config

    for k, v in opts.items():  # cheap test first: every option given must already agree
        if k != "lang" and cfg.get(k, v) != v:
            return False
    try:
        made = make_config(**{**opts, "lang": cfg["lang"]}).to_dict()
    except Exception:  # a broken manifest entry matches nothing
        return False
    return made == cfg


def locate(cfg: dict) -> dict | None:
    """The shipped-course entry of ``cfg``: name, command, and its neighbours' links (or None)."""
    root = str(repo_root())
    entries = _entries(root)
    lang = cfg["lang"]
    for entry in entries:
        try:
            opts = _options(root, entry)
        except Exception:
            continue
        if lang not in entry[3] or not _same(opts, cfg):
            continue
        name, scen = entry[0], entry[1]
        if scen:
            command = f"attnwalk render --scenario {scen}"
            if opts.get("lang", "vi") != lang:
                command += f" --lang {lang}"
        else:
            command = None  # the caller's flag command reproduces it
        here = Path(entry[4].format(name=name, lang=lang)).parent
        # a note with figures links them by a path relative to itself: its command writes both
        out = (COURSE.parent / entry[4].format(name=name, lang=lang)).as_posix()
        files = f" -o {out} --figures {(COURSE.parent / here / 'figures').as_posix()}" if entry[5] else ""

        def link(e: tuple, here: Path = here) -> dict:
            md = e[4].format(name=e[0], lang=lang)
            return {"name": e[0], "file": relative_link(md, here),
                    "html": relative_link(str(Path(md).with_suffix(".html")), here) if "html" in e[6] else None}
        ordered = [e for e in entries if lang in e[3]]
        k = ordered.index(entry)
        prev = link(ordered[k - 1]) if k > 0 else None
        after = link(ordered[k + 1]) if k + 1 < len(ordered) else None
        index, index_html = _index(root)
        index = relative_link(index.format(lang=lang), here) if index else None
        # the HTML page of a note links the HTML pages of its neighbours and of the index, where the
        # course writes them (a browser would show a linked .md as plain text)
        html_links = {x["file"]: x["html"] for x in (prev, after) if x and x["html"]}
        if index and index_html:
            html_links[index] = str(Path(index).with_suffix(".html").as_posix())
        return {"name": name, "command": command, "files": files, "output": out, "number": k + 1, "total": len(ordered),
                "prev": prev, "next": after, "index": index, "html_links": html_links}
    return None


@lru_cache(maxsize=4)
def _index(root: str) -> tuple[str | None, bool]:
    """The manifest's ``[course] index`` pattern (relative to the manifest) or None, and whether the
    index has an HTML page too (``formats``)."""
    data = _manifest(root)
    if data is None:
        return None, False
    course = data.get("course")
    if not isinstance(course, dict) or "index" not in course:
        return None, False
    formats = course.get("formats", ["md"])
    return str(course["index"]), isinstance(formats, list) and "html" in formats


def relative_link(target: str | Path, here: Path) -> str:
    """``target`` relative to the folder ``here``, with forward slashes: a link between course pages."""
    import os

    return Path(os.path.relpath(target, here if str(here) else ".")).as_posix()
