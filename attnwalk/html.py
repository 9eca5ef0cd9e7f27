"""A note as one self-contained HTML page: Markdown by markdown-it-py, math by the KaTeX the package ships.

KaTeX (the engine tests/test_katex.py already lints every formula with) and its woff2 fonts are
inlined, the fonts as data URIs, and figures are inlined as ``data:image/svg+xml`` images, so the
page needs no network. Raw HTML in the Markdown is escaped (``html=False``), so labels such as
``<script>`` stay text.
"""

from __future__ import annotations

import base64
import re
from functools import lru_cache
from pathlib import Path

STATIC = Path(__file__).resolve().parent / "static" / "katex"


@lru_cache(maxsize=1)
def katex_assets() -> tuple[str, str]:
    """(CSS with the woff2 fonts as data URIs and no other font formats, the minified script)."""
    css = (STATIC / "katex.min.css").read_text(encoding="utf-8")

    def inline(m: re.Match) -> str:
        data = base64.b64encode((STATIC / "fonts" / m.group(1)).read_bytes()).decode("ascii")
        return f'url(data:font/woff2;base64,{data}) format("woff2")'

    css = re.sub(r'url\(fonts/([\w-]+\.woff2)\) format\("woff2"\)(?:,url\(fonts/[\w-]+\.(?:woff|ttf)\) '
                 r'format\("(?:woff|truetype)"\))*', inline, css)
    js = (STATIC / "katex.min.js").read_text(encoding="utf-8")
    return css, js.replace("</script", "<\\/script")


def _markdown():
    from markdown_it import MarkdownIt
    from mdit_py_plugins.dollarmath import dollarmath_plugin

    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    dollarmath_plugin(md, allow_space=True, allow_digits=False, double_inline=False)
    return md


def body_html(markdown: str, images: dict[str, str]) -> str:
    """The note's body (front matter dropped); an image whose src is in ``images`` (src -> SVG text)
    becomes a figure with the SVG inlined as a data URI and its alt text kept."""
    if markdown.startswith("---\n"):
        end = markdown.find("\n---\n", 4)
        if end >= 0:
            markdown = markdown[end + 5:]
    from markdown_it.common.utils import escapeHtml as escape

    md = _markdown()

    def image(renderer, tokens, idx, options, env):
        tok = tokens[idx]
        src = tok.attrGet("src") or ""
        alt = "".join(t.content for t in (tok.children or []))
        if src in images:
            data = base64.b64encode(images[src].encode("utf-8")).decode("ascii")
            return f'<img src="data:image/svg+xml;base64,{data}" alt="{escape(alt)}">'
        return f'<img src="{escape(src)}" alt="{escape(alt)}">'

    md.add_render_rule("image", image)
    return md.render(markdown)


def title_of(markdown: str) -> str:
    m = re.search(r"^# (.+)$", markdown, re.M)
    return re.sub(r"\$([^$]*)\$", r"\1", m.group(1)).strip() if m else "attnwalk"


def page(markdown: str, lang: str, images: dict[str, str]) -> str:
    """The whole HTML page of a Markdown note."""
    from . import __version__
    from .render import environment

    css, js = katex_assets()
    return environment().get_template("html/page.html.j2").render(
        lang=lang, title=title_of(markdown), version=__version__, katex_css=css, katex_js=js,
        body=body_html(markdown, images).rstrip("\n"))
