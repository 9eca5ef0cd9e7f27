"""Token labels cannot inject Markdown, math, headings or HTML (issue 11; attnwalk/escape.py)."""

from __future__ import annotations

import re

import pytest
from markdown_it import MarkdownIt

from attnwalk.api import walk
from attnwalk.check import check_text
from attnwalk.errors import ConfigError
from attnwalk.escape import html_text, latex_text, md_text
from attnwalk.render import render

HOSTILE = ["a|b", "$x^2$", "\\alpha", "# Heading", "<script>alert(1)</script>", "*em* _u_ `c`", "[l](http://x)",
           "&amp; {}", "~~s~~ !x", "Tôi | đi"]
CLEAN = ["w0", "w1", "w2"]


def _note(labels, variant="sdpa", lang="en", **extra):
    opts = dict(variant=variant, tokens=3, dim=4, heads=1, labels=labels, lang=lang, **extra)
    return render(walk(**opts), "md", lang), opts


def _structure(md: str) -> list[tuple[str, int]]:
    body = md.split("---\n", 2)[2]
    tokens = MarkdownIt("commonmark", {"html": True}).enable("table").parse(body)
    return [(t.type, len(t.children or [])) for t in tokens if t.type != "inline"]


def _dollars(md: str) -> int:
    body = re.sub(r"^```.*?^```", "", md.split("---\n", 2)[2], flags=re.M | re.S)
    return len(re.findall(r"(?<!\\)\$", body))


@pytest.mark.parametrize("variant, extra", [("sdpa", {}), ("sdpa", {"source": "columns"}), ("mha", {})])
@pytest.mark.parametrize("lang", ["en", "vi"])
@pytest.mark.parametrize("start", [0, 3, 6])
def test_hostile_labels_change_no_structure(variant, extra, lang, start):
    labels = (HOSTILE + HOSTILE)[start:start + 3]
    clean, _ = _note(CLEAN, variant, lang, **extra)
    hostile, opts = _note(labels, variant, lang, **extra)
    # same blocks, same tables and rows, same headings, same number of math delimiters
    assert _structure(hostile) == _structure(clean)
    assert _dollars(hostile) == _dollars(clean)
    html = MarkdownIt("commonmark", {"html": True}).enable("table").render(hostile.split("---\n", 2)[2])
    assert "<script" not in html
    assert "<h1>Heading" not in html and "<h1># Heading" not in html
    for label in labels:  # every label reaches the reader literally
        assert html_text(label) in html, label
    # and the note still checks: its numbers are read despite the labels
    report = check_text(hostile)
    assert not report.wrong and report.verified


def test_md_text_round_trips_through_markdown():
    md = MarkdownIt("commonmark", {"html": True})
    for label in HOSTILE:
        assert md.renderInline(md_text(label)) == html_text(label).replace("&#x27;", "'"), label


def test_latex_and_html_escapes():
    assert latex_text("a_b$c\\d{e}&#%^~") == r"a\_b\$c\textbackslash{}d\{e\}\&\#\%\textasciicircum{}\textasciitilde{}"
    assert html_text("<a href='x'>&</a>") == "&lt;a href=&#x27;x&#x27;&gt;&amp;&lt;/a&gt;"


@pytest.mark.parametrize("bad", ["a\nb", "a\rb", "a\tb", "a\x00b", "a\u2028b", "a\u202eb", "x" * 65, ""])
def test_labels_with_control_characters_are_refused(bad):
    with pytest.raises(ConfigError, match="labels"):
        walk(variant="sdpa", tokens=3, labels=["ok", bad, "ok"])
