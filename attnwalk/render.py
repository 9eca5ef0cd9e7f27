"""Trace -> document: Markdown+LaTeX through Jinja templates, or JSON (DESIGN §1)."""

from __future__ import annotations

import importlib
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # render.py is imported for templates_dir by a no-op build, which needs no NumPy
    from .trace import Trace


def templates_dir() -> Path:
    """``attnwalk/templates`` inside an installed wheel, else the repository's ``templates/``."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "templates", here.parent / "templates"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("attnwalk templates not found next to the package")


def _bytecode_cache():
    """Compiled templates cached per user (as __pycache__ is): compiling them costs ~100 ms a run."""
    import os

    import jinja2

    root = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    path = os.path.join(root, "attnwalk", "jinja")
    try:
        os.makedirs(path, exist_ok=True)
    except OSError:
        return None
    return jinja2.FileSystemBytecodeCache(path) if os.access(path, os.W_OK) else None


@lru_cache(maxsize=1)
def environment():
    import jinja2

    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        bytecode_cache=_bytecode_cache(),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def render_markdown(trace: Trace, lang: str, figures: dict | None = None, fmt: str = "md") -> str:
    """``figures``: place ("shapes" | "attn") -> [{path, alt, caption}], the figures the note shows. ``fmt``:
    the document the Markdown becomes ("ipynb": its regenerate command writes the notebook)."""
    return _markdown_and_view(trace, lang, figures, fmt)[0]


def _markdown_and_view(trace: Trace, lang: str, figures: dict | None = None, fmt: str = "md") -> tuple[str, dict]:
    """The Markdown note and the view it was rendered from (its course links serve the HTML page)."""
    variant = trace.config["variant"]
    view = importlib.import_module(f".views.{variant}", __package__).build(trace)
    view.setdefault("figures", figures or {})
    if fmt == "ipynb":  # the note's "regenerate it with" command writes this notebook, byte for byte
        from .ipynb import notebook_command

        view["command"] = notebook_command(view["command"])
    elif fmt == "html":  # and the page's writes this page (the course's pages under their own names)
        from .html import page_command

        view["command"] = page_command(view["command"], (view.get("course") or {}).get("output"))
    view["command_writes"], view["page"] = " -o " in view["command"], fmt == "html"  # the prose around it
    text = environment().get_template(f"{variant}/{lang}.md.j2").render(**view)
    return text.rstrip("\n") + "\n", view


def render(trace: Trace, fmt: str, lang: str) -> str:
    """The document for ``trace`` in format ``fmt`` ("md", "json", "html": HTML inlines its figures, or
    "ipynb": the note as a Jupyter notebook)."""
    if fmt == "json":
        return trace.to_json()
    if fmt == "html":
        return render_with_figures(trace, fmt, lang, "figure", "figures")[0]
    if fmt == "ipynb":
        from .ipynb import notebook

        return notebook(render_markdown(trace, lang, fmt="ipynb"))
    return render_markdown(trace, lang)


EXPORT_FORMATS = ("json", "npz")


def export(trace: Trace, fmt: str, output=None) -> None:
    """Stream the whole trace as JSON or NPZ to ``output`` (atomically) or to stdout.

    Neither is built in memory first: at N = 1600 the JSON is about a gigabyte.
    """
    import io
    import sys

    from .writefile import write_atomic_with

    def fill(fh) -> None:
        if fmt == "npz":
            trace.write_npz(fh)
        else:
            for chunk in trace.json_chunks():  # UTF-8 bytes
                fh.write(chunk)

    if output is not None:
        write_atomic_with(output, fill, binary=True)
    elif fmt == "npz" or isinstance(getattr(sys.stdout, "buffer", None), io.BufferedIOBase):
        sys.stdout.flush()
        fill(sys.stdout.buffer)
        sys.stdout.buffer.flush()
    else:  # a text-only stdout (a test's capture): JSON as text
        fill(_TextSink(sys.stdout))


class _TextSink:
    """Write UTF-8 bytes to a text stream (the JSON pieces never split a character)."""

    def __init__(self, stream):
        self.write = lambda chunk: stream.write(chunk.decode("utf-8"))


def figure_files(trace: Trace, lang: str, stem: str) -> list[tuple[str, dict]]:
    """(file name, spec) of each figure of a note whose file stem is ``stem`` (no matplotlib)."""
    from .figures import specs

    return [(f"{stem}-{spec['key']}.svg", spec) for spec in specs(trace, lang)]


def render_with_figures(trace: Trace, fmt: str, lang: str, stem: str, rel_dir: str,
                        draw: bool = True) -> tuple[str, dict[str, str]]:
    """The document ("md", "html" or "ipynb") with its figures, and {file name: SVG text} of those figures.

    The Markdown refers to each figure as ``rel_dir/<file name>``; HTML inlines them all. ``draw=False``
    (Markdown only) links the figures without drawing them."""
    from .figures import svg

    files = figure_files(trace, lang, stem)
    draw = draw or fmt == "html"
    svgs = {name: svg(trace, spec["key"], lang) if draw else "" for name, spec in files}
    refs: dict[str, list] = {}
    src = {}
    for name, spec in files:
        path = f"{rel_dir.rstrip('/')}/{name}" if rel_dir not in ("", ".") else name
        src[path] = svgs[name]
        refs.setdefault(spec["place"], []).append({"path": path, "alt": spec["alt"], "caption": spec["caption"]})
    text, view = _markdown_and_view(trace, lang, refs, fmt)
    if fmt == "html":
        from .html import page

        text = page(text, lang, src, (view.get("course") or {}).get("html_links"))
    elif fmt == "ipynb":  # the figures linked by relative path, as from the Markdown
        from .ipynb import notebook

        text = notebook(text)
    return text, svgs
