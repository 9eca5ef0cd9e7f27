"""How ``attnwalk check`` prints its findings: text (``FILE:LINE: label: published X, expected Y``),
JSON (one document for all files) or GitHub Actions annotations (``::error file=…,line=…::``)."""

from __future__ import annotations

import json
import sys


def _out(line: str) -> None:
    sys.stdout.write(line + "\n")


def _gh(text: str) -> str:
    """Escape a GitHub workflow-command value (``%``, newlines)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def emit_error(fmt: str, path, message: str, results: list) -> None:
    """A file that could not be checked: one stderr line (text), an annotation, or a JSON entry."""
    if fmt == "json":
        results.append({"file": str(path), "error": message})
        return
    sys.stderr.write(f"attnwalk: error: {path}: {message}\n")
    if fmt == "github":
        _out(f"::error file={_gh(str(path))}::{_gh(message)}")


def emit_report(fmt: str, report, show_unknown: bool, results: list) -> None:
    if fmt == "json":
        entry = {"file": report.path, "verified": len(report.verified), "wrong": len(report.wrong),
                 "not_understood": len(report.unknown),
                 "failures": [{"line": r.line, "label": " ".join(r.failure()[0].split()).rstrip(":= "),
                               "published": r.text, "expected": r.failure()[1]} for r in report.wrong],
                 "notes": [{"line": ln, "text": t} for ln, t in report.notes]}
        if show_unknown:
            entry["unknown"] = [{"line": r.line, "text": r.text} for r in report.unknown]
        if report.diff is not None:
            entry["diff"] = report.diff
        results.append(entry)
        return
    if report.diff:
        sys.stdout.write(report.diff)
    for r, line in zip(report.wrong, report.failure_lines()):
        if fmt == "github":
            label, expected = r.failure()
            label = " ".join(label.split()).rstrip(":= ")
            text = f"{label}: published {r.text}, expected {expected}"
            _out(f"::error file={_gh(report.path)},line={r.line}::{_gh(text)}")
        else:
            _out(line)
    for line in report.note_lines():
        _out(line)
    if show_unknown:
        for r in report.unknown:
            _out(f"{report.path}:{r.line}: not understood: {r.text}")
    _out(report.summary())


def finish(fmt: str, results: list) -> None:
    if fmt == "json":
        _out(json.dumps({"files": results}, ensure_ascii=False, indent=1))
