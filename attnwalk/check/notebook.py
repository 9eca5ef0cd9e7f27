"""Jupyter notebooks (.ipynb) for ``attnwalk check``: the cells read as one Markdown note, each of its
lines tied to the line of the notebook file that holds it, so findings name the file's own lines (what
an editor and GitHub's annotations show) and ``--fix`` rewrites only the digits it changes.

The Markdown view: a markdown cell is its text; a code cell is its source in a ```python fence, then
each text output (a stream, a result's ``text/plain``) in a ```text fence; images, HTML and raw cells
are left out, but for a first raw cell holding YAML front matter, which heads the view as a note's.
The notebook's ``metadata.attnwalk`` (scenario keys) is its config, under --scenario and render flags.
Outputs are what the code printed, so ``--fix`` rewrites sources only and says so.
"""

from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass
from pathlib import Path

# An object key outside any string: inside a JSON string every quote is escaped (\").
_KEY = r'(?<!\\)"{}"\s*:\s*'
_CELL = re.compile(_KEY.format("cell_type"))


@dataclass
class Line:
    """One line of the Markdown view: where it lies in the notebook file (1-based line), and, for a line
    of a cell's source or output, the JSON string holding it (``item``: its value; ``at``: its offset
    in the file; ``ascii``: written with \\u escapes) and the line's span within that value."""

    text: str
    line: int
    item: str | None = None
    at: int = -1
    ascii: bool = False
    span: tuple[int, int] = (0, 0)
    output: bool = False
    cell: int = 0  # 1-based number of the cell it belongs to (0: none), named in check's messages


def _enc(s: str, ascii_only: bool) -> str:
    return json.dumps(s, ensure_ascii=ascii_only)


def _texts(value) -> list[str]:
    """A notebook multiline string: a list of strings (one per line) or one string."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    return []


class _Locator:
    """Finds each JSON string of the notebook in the file text, in order, within one cell's stretch."""

    def __init__(self, raw: str):
        self.raw = raw
        self.starts = [0] + [m.end() for m in re.finditer("\n", raw)]

    def line_of(self, pos: int) -> int:
        return bisect.bisect_right(self.starts, pos)

    def key(self, name: str, lo: int, hi: int) -> int:
        m = re.compile(_KEY.format(re.escape(name))).search(self.raw, lo, hi)
        return m.end() if m else -1

    def string(self, s: str, lo: int, hi: int) -> tuple[int, bool]:
        """Offset of the JSON string ``s`` in [lo, hi) and whether it is written with \\u escapes."""
        for ascii_only in (False, True):
            pos = self.raw.find(_enc(s, ascii_only), lo, hi)
            if pos >= 0:
                return pos, ascii_only
        return -1, False


def view(raw: str, where: str) -> tuple[str, list[Line], dict]:
    """The Markdown view of a notebook's text, its lines' places, and ``metadata.attnwalk``.
    ValueError with one line for the user when the file is not a notebook."""
    try:
        nb = json.loads(raw)
    except (ValueError, RecursionError) as err:  # ValueError: also an integer of > 4300 digits
        raise ValueError(f"{where}: not a Jupyter notebook: not valid JSON ({str(err)[:80]}); allowed: an .ipynb "
                         "file (nbformat 4)") from None
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        raise ValueError(f"{where}: not a Jupyter notebook: no list of cells; allowed: an .ipynb file (nbformat 4)")
    meta = nb.get("metadata") if isinstance(nb.get("metadata"), dict) else {}
    config = meta.get("attnwalk", {})
    if not isinstance(config, dict):
        raise ValueError(f"{where}: metadata.attnwalk: got {type(config).__name__}; allowed: an object of scenario "
                         "keys (docs/scenarios.md)")
    loc = _Locator(raw)
    cells = [c for c in nb["cells"] if isinstance(c, dict)]
    bounds = [m.start() for m in _CELL.finditer(raw)]
    if len(bounds) != len(cells):  # an unusual writer: lines are still read, placed at line 1, never rewritten
        bounds = []
    out = [Line("", 1)]  # the view starts with a `---` front matter only where the notebook has one:
    first = len(out)  # where the lines of the cell before this one start
    for n, cell in enumerate(cells):
        if n:
            for x in out[first:]:
                x.cell = n
        first = len(out)
        lo = bounds[n] if bounds else 0
        hi = bounds[n + 1] if bounds and n + 1 < len(bounds) else len(raw)
        here = loc.line_of(lo) if bounds else 1
        kind = cell.get("cell_type")
        if kind == "raw" and n == 0 and "".join(_texts(cell.get("source"))).startswith("---\n"):
            # a raw first cell holding front matter (attnwalk's --format ipynb, Jupyter Book): the note's own
            out = _lines(loc, _texts(cell.get("source")), loc.key("source", lo, hi) if bounds else -1, hi, here)
            out.append(Line("", out[-1].line))
        elif kind == "markdown":
            out += _lines(loc, _texts(cell.get("source")), loc.key("source", lo, hi) if bounds else -1, hi, here)
            out.append(Line("", out[-1].line))
        elif kind == "code":
            src = _lines(loc, _texts(cell.get("source")), loc.key("source", lo, hi) if bounds else -1, hi, here)
            out += [Line("```python", here)] + src + [Line("```", out[-1].line if not src else src[-1].line),
                                                      Line("", src[-1].line if src else here)]
            cursor = loc.key("outputs", lo, hi) if bounds else -1
            for o in cell.get("outputs") or []:
                if not isinstance(o, dict):
                    continue
                if o.get("output_type") == "stream":
                    key, texts = "text", _texts(o.get("text"))
                elif isinstance(o.get("data"), dict) and "text/plain" in o["data"]:
                    key, texts = "text/plain", _texts(o["data"]["text/plain"])
                else:
                    continue
                start = loc.key(key, cursor, hi) if cursor >= 0 else -1
                got = _lines(loc, texts, start, hi, out[-1].line, output=True)
                if start >= 0 and got and got[-1].at >= 0:
                    cursor = got[-1].at
                out += [Line("```text", got[0].line if got else out[-1].line)] + got + [
                    Line("```", got[-1].line if got else out[-1].line), Line("", out[-1].line)]
    if cells:
        for x in out[first:]:
            x.cell = len(cells)
    return "\n".join(x.text for x in out), out, config


def _lines(loc: _Locator, items: list[str], start: int, hi: int, here: int, output: bool = False) -> list[Line]:
    """The Markdown lines of one multiline string, each placed at its JSON string in the file."""
    out = []
    pos = start
    for item in items:
        at, ascii_only = loc.string(item, pos, hi) if pos >= 0 else (-1, False)
        if at >= 0:
            pos = at + len(_enc(item, ascii_only))
        offset = 0
        parts = item.split("\n")
        for k, part in enumerate(parts):
            if k == len(parts) - 1 and part == "" and k > 0:
                break  # the newline ending the item: the next item is the next line
            line = loc.line_of(at + 1 + len(_enc(item[:offset], ascii_only)) - 2) if at >= 0 else here
            if out and not k and out[-1].item is not None and not out[-1].item.endswith("\n"):
                out[-1].text += part  # an item continuing the last line (a writer that splits lines oddly):
                out[-1].item = None  # read, but never rewritten (its digits span two JSON strings)
                offset += len(part) + 1
                continue
            out.append(Line(part, line, item if at >= 0 else None, at, ascii_only, (offset, offset + len(part)),
                            output))
            offset += len(part) + 1
    return out


def fixed_raw(raw: str, lines: list[Line], new_view: str) -> tuple[str, int]:
    """The notebook text with each changed line of the view written back into its JSON string, and how
    many changed lines could not be (outputs, fences): only those strings' bytes change."""
    edits: dict[int, tuple[Line, list[tuple[tuple[int, int], str]]]] = {}
    left = 0
    for old, new in zip(lines, new_view.split("\n")):
        if old.text == new:
            continue
        if old.item is None or old.output:
            left += 1
            continue
        edits.setdefault(old.at, (old, []))[1].append((old.span, new))
    for at in sorted(edits, reverse=True):
        first, changes = edits[at]
        item = first.item
        for (a, b), new in sorted(changes, reverse=True):
            item = item[:a] + new + item[b:]
        old_enc = _enc(first.item, first.ascii)
        raw = raw[:at] + _enc(item, first.ascii) + raw[at + len(old_enc):]
    return raw, left


def check_notebook(path: Path, options: dict | None, fix: str | None, exact: bool):
    """``check_file`` for a notebook: the report of its Markdown view, lines placed in the file."""
    from ..errors import ConfigError
    from ..readfile import read_text
    from ..scenario import scenario_options
    from . import MAX_BODY, CheckError, check_text, write_fixed
    from .fix import fixed_text

    where = str(path)[:80]
    try:
        raw = read_text(path, where, "Jupyter notebook", keep_bom=True)
        bom, raw = ("\ufeff", raw[1:]) if raw.startswith("\ufeff") else ("", raw)  # --fix keeps a BOM
        text, lines, meta = view(raw, where)
        opts = {**scenario_options(meta, "metadata.attnwalk", where), **(options or {})} if meta else options
    except (ConfigError, ValueError) as err:
        raise CheckError(str(err)) from None
    if len(text) > MAX_BODY:
        raise CheckError(f"{where}: {len(text):,} characters of cell text and outputs; allowed: a notebook of at "
                         f"most {MAX_BODY:,} (split it into several notebooks)")

    def placed(report, lines=lines):
        # the cell of each line of the file (its outputs told apart), for the messages: a notebook's editor
        # shows cells, not the lines of its JSON
        report.cells = {x.line: (x.cell, x.output) for x in lines if x.cell and x.item is not None}
        for r in report.recs:
            if 1 <= r.line <= len(lines):
                r.line = lines[r.line - 1].line
        report.notes = [(lines[ln - 1].line if 1 <= ln <= len(lines) else ln, t) for ln, t in report.notes]
        return report

    if fix is None:
        report = placed(check_text(text, opts, str(path), exact))
        report.source = raw  # the file's lines, which the records name
        return report
    new_raw, left = fixed_raw(raw, lines, fixed_text(text, lambda t: check_text(t, opts, str(path))))
    diff = write_fixed(path, bom + raw, bom + new_raw, fix)
    if fix == "write":
        text, lines, _ = view(new_raw, where)
    report = placed(check_text(text, opts, str(path)), lines)
    report.source = new_raw if fix == "write" else raw
    if left:
        report.notes.append((1, f"{left} line(s) with wrong numbers in cell outputs left as they are: outputs are "
                                "what the code printed; correct the code or its inputs and rerun the notebook"))
    report.diff = diff
    return report
