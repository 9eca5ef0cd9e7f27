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


def render_markdown(trace: Trace, lang: str) -> str:
    variant = trace.config["variant"]
    view = importlib.import_module(f".views.{variant}", __package__).build(trace)
    text = environment().get_template(f"{variant}/{lang}.md.j2").render(**view)
    return text.rstrip("\n") + "\n"


def render(trace: Trace, fmt: str, lang: str) -> str:
    """The document for ``trace`` in format ``fmt`` ("md" or "json")."""
    if fmt == "json":
        return trace.to_json()
    return render_markdown(trace, lang)


EXPORT_FORMATS = ("json", "npz")


def export(trace: Trace, fmt: str, output=None) -> None:
    """Stream the whole trace as JSON or NPZ to ``output`` (atomically) or to stdout.

    Neither is built in memory first: at N = 1600 the JSON is about a gigabyte.
    """
    import sys

    from .writefile import write_atomic_with

    binary = fmt == "npz"

    def fill(fh) -> None:
        if binary:
            trace.write_npz(fh)
        else:
            from .engine.blas import worker_count

            for chunk in trace.json_chunks(workers=worker_count()):
                fh.write(chunk)

    if output is not None:
        write_atomic_with(output, fill, binary=binary)
    elif binary:
        sys.stdout.flush()
        fill(sys.stdout.buffer)
        sys.stdout.buffer.flush()
    else:
        fill(sys.stdout)
