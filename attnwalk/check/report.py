"""How ``attnwalk check`` prints its findings: text (``FILE:LINE: label: published X, expected Y``),
JSON (one document for all files) or GitHub Actions annotations (``::error file=…,line=…::``)."""

from __future__ import annotations

import json
import sys

from . import failure_of
from .columns import places


def _out(line: str) -> None:
    sys.stdout.write(line + "\n")


def _gh_data(text: str) -> str:
    """Escape a GitHub workflow command's message (``%``, CR, LF), as GitHub's toolkit does (``escapeData``)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_prop(text: str) -> str:
    """Escape a workflow command's property value (``file=``): its message's escapes and ``:`` and ``,``, which
    end a property (``escapeProperty``): unescaped, a path such as ``notes/a,b.md`` names another file."""
    return _gh_data(text).replace(":", "%3A").replace(",", "%2C")


def _gh_command(kind: str, path, line: int | None, col: int | None, message: str) -> str:
    """``::error file=..,line=..,col=..::message`` (kind ``error`` or ``notice``), every value escaped."""
    props = [f"file={_gh_prop(str(path))}"]
    if line is not None:
        props.append(f"line={line}")
    if col is not None:
        props.append(f"col={col}")
    return f"::{kind} {','.join(props)}::{_gh_data(message)}"


def emit_error(fmt: str, path, message: str, results: list) -> None:
    """A file that could not be checked: one stderr line (text), an annotation, or a JSON entry."""
    if fmt == "json":
        results.append({"file": str(path), "error": message})
        return
    sys.stderr.write(f"attnwalk: error: {path}: {message}\n")
    if fmt == "github":
        _out(_gh_command("error", path, None, None, message))


def emit_skipped(fmt: str, path, results: list) -> None:
    """A note ``--skip-no-config`` skipped, in JSON or GitHub's format (text: the CLI's ``skipped`` line), so that a
    script or a CI log tells a note never read from one that passed (before, both said nothing of it)."""
    if fmt == "json":
        results.append({"file": str(path), "skipped": "no config"})
    else:
        _out(_gh_command("notice", path, None, None, "skipped (no config): its numbers were not checked"))


def _printed(report, recs) -> list[str]:
    """The numbers of ``recs`` as the note prints them: a percentage's record may hold its digits only (``53.88``
    of ``53.88%``); where its columns take the sign in (``places``) it is written with it."""
    where = dict(zip(map(id, report.recs), places(report.source, report.recs)))
    out = []
    for r in recs:
        at = where.get(id(r))
        out.append(r.text + "%" if at and at[1] - at[0] == len(r.text) + 1 else r.text)
    return out


def _json_entry(report, show_unknown: bool) -> dict:
    """A checked file's entry of ``--format json`` (its fields: docs/course.md, "JSON output")."""
    where = dict(zip(map(id, report.recs), places(report.source, report.recs)))

    def cols(r) -> dict:
        at = where.get(id(r))
        return {"col": at[0], "end_col": at[1]} if at else {"col": None, "end_col": None}

    def cell(line: int) -> dict:  # a notebook's: the cell's number, and whether the line is in its output
        at = report.cells.get(line) if report.cells else None
        return {"cell": at[0], "output": at[1]} if at else {}

    failures = []
    for r in report.wrong:
        label, published, expected = failure_of(r, report.source)
        failures.append({"line": r.line, **cols(r), **cell(r.line), "label": label, "published": published,
                         "expected": expected})
    entry = {"file": report.path, "verified": len(report.verified), "wrong": len(report.wrong),
             "not_understood": len(report.unknown), "failures": failures,
             "notes": [{"line": ln, "text": t} for ln, t in report.notes]}
    if show_unknown:
        entry["unknown"] = [{"line": r.line, **cols(r), **cell(r.line), "text": text}
                            for r, text in zip(report.unknown, _printed(report, report.unknown))]
    if report.diff is not None:
        entry["diff"] = report.diff
    return entry


def emit_report(fmt: str, report, show_unknown: bool, results: list) -> None:
    if fmt == "json":
        results.append(_json_entry(report, show_unknown))
        return
    if report.diff:
        sys.stdout.write(report.diff)
    if fmt == "github":
        where = dict(zip(map(id, report.recs), places(report.source, report.recs)))
        for r in report.wrong:
            label, published, expected = failure_of(r, report.source)
            col = (where.get(id(r)) or (None,))[0]
            _out(_gh_command("error", report.path, r.line, col,
                             f"{label}: published {published}, expected {expected}{report.where(r.line)}"))
        for line, text in report.notes:
            _out(_gh_command("notice", report.path, line, None, text))
    else:
        for line in report.failure_lines():
            _out(line)
        for line in report.note_lines():
            _out(line)
    if show_unknown:  # one line per line of the note (a note's sizes and step numbers made a wall of one-number lines)
        unread: dict[int, list[str]] = {}
        shown = _printed(report, report.unknown)
        for r, text in zip(report.unknown, shown):
            unread.setdefault(r.line, []).append(text)
        for line, texts in sorted(unread.items()):
            _out(f"{report.path}:{line}: not understood: {' '.join(texts)}{report.where(line)}")
    _out(report.summary())


def finish(fmt: str, results: list) -> None:
    if fmt == "json":
        _out(json.dumps({"files": results}, ensure_ascii=False, indent=1))
