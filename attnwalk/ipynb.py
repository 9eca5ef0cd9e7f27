"""A walkthrough as a Jupyter notebook (``--format ipynb``): the Markdown note cut into cells.

The front matter goes into a raw cell at the top (as Jupyter Book and nbconvert keep front matter), so
``attnwalk check`` reads the notebook exactly as it reads the note; each section (a ``##`` heading)
becomes a Markdown cell, and the PyTorch snippet that reproduces the numbers a code cell to run.
Bytes are deterministic: cell ids from their place, no outputs, no execution counts.
"""

from __future__ import annotations

import json
import re

_FRONT = re.compile(r"\A---\n.*?\n---\n", re.S)
KERNEL = {"display_name": "Python 3", "language": "python", "name": "python3"}


def notebook_command(command: str) -> str:
    """A note's regenerate command made to write its notebook: ``--format ipynb``, and an ``-o`` path's
    ``.md`` made ``.ipynb``."""
    command = re.sub(r"(-o \S+)\.md\b", r"\1.ipynb", command)
    return command.replace("attnwalk render", "attnwalk render --format ipynb", 1)


def _source(text: str) -> list[str]:
    """A cell's text as Jupyter stores it: one string per line, each ending in a newline but the last."""
    lines = text.split("\n")
    return [line + "\n" for line in lines[:-1]] + [lines[-1]]


def _markdown_cells(lines: list[str], cuts: set[int]) -> list[str]:
    """The Markdown of ``lines`` cut before each line number in ``cuts`` (section headings), blank
    lines at the ends of each piece dropped."""
    out, piece = [], []
    for n, line in enumerate(lines):
        if n in cuts and piece:
            out.append(piece)
            piece = []
        piece.append(line)
    out.append(piece)
    texts = ["\n".join(p).strip("\n") for p in out]
    return [t for t in texts if t.strip()]


def notebook(markdown: str) -> str:
    """The nbformat 4.5 JSON of a rendered Markdown note (front matter, sections, its python fences)."""
    from markdown_it import MarkdownIt

    front = _FRONT.match(markdown)
    head = front.group(0).rstrip("\n") if front else None
    body = markdown[front.end():] if front else markdown
    lines = body.split("\n")
    tokens = MarkdownIt("commonmark").enable("table").parse(body)
    code = [(t.map[0], t.map[1], t.content) for t in tokens
            if t.type == "fence" and t.info.strip() == "python" and t.map]
    headings = {t.map[0] for t in tokens if t.type == "heading_open" and t.tag == "h2" and t.map}
    cells: list[dict] = []
    if head is not None:
        cells.append({"cell_type": "raw", "metadata": {"raw_mimetype": "text/markdown"}, "source": head})
    start = 0
    for lo, hi, content in code + [(len(lines), len(lines), None)]:
        for text in _markdown_cells(lines[start:lo], {h - start for h in headings if start <= h < lo}):
            cells.append({"cell_type": "markdown", "metadata": {}, "source": text})
        if content is not None:
            cells.append({"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                          "source": content.rstrip("\n")})
        start = hi
    for n, cell in enumerate(cells):
        cell["id"] = f"{cell['cell_type']}-{n}"
        cell["source"] = _source(cell["source"])
    nb = {"cells": [dict(sorted(c.items())) for c in cells],
          "metadata": {"kernelspec": KERNEL, "language_info": {"name": "python"}},
          "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(nb, indent=1, ensure_ascii=False) + "\n"
