"""A note as one self-contained HTML page: Markdown by markdown-it-py, math by the KaTeX the package ships.

KaTeX (the engine tests/test_katex.py already lints every formula with) and its woff2 fonts are
inlined, the fonts as data URIs, and figures are inlined as ``data:image/svg+xml`` images, so the
page needs no network. Raw HTML in the Markdown is escaped (``html=False``), so labels such as
``<script>`` stay text; the one exception is the notes' own folds (``<details markdown="1">``, its
``<summary>`` and ``</details>``, each a paragraph of its own), which become real ``<details>`` elements.
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


def page_command(command: str, output: str | None = None) -> str:
    """A note's regenerate command made to write its HTML page: ``--format html``, an ``-o`` path's ``.md``
    made ``.html`` (``output``, the note's own path, when the command prints), and no ``--figures``
    (the page inlines its figures, so the SVG files would be a by-product)."""
    command = re.sub(r" --figures \S+", "", command)
    if re.search(r" -o \S+\.md\b", command):
        command = re.sub(r"( -o \S+)\.md\b", r"\1.html", command)
    elif output is not None and " -o " not in command:
        command += f" -o {re.sub(r'[.]md$', '', output)}.html"
    return command.replace("attnwalk render", "attnwalk render --format html", 1)


def _markdown():
    from markdown_it import MarkdownIt
    from mdit_py_plugins.dollarmath import dollarmath_plugin

    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    # allow_digits=False reads src[pos - 1] even at pos 0, i.e. the text's last character (mdit-py-plugins
    # 0.4-0.7): a cell that starts with $A$ and ends in a digit was left as source. The notes put no digit
    # beside a $ anyway (tests/test_katex.py holds them to GitHub's rule).
    dollarmath_plugin(md, allow_space=True, allow_digits=True, double_inline=False)
    return md


# The folds the templates write (docs/course.md): the opening paragraph and the closing one, exactly.
_FOLD_OPEN = re.compile(r'<details markdown="1">\n<summary>([^<>\n]*)</summary>')
_FOLD_CLOSE = "</details>"


def _folds(state) -> None:
    """A core rule: the paragraphs that open and close a fold become raw HTML blocks, nothing else does
    (the summary's text is escaped), so a fold's content is still Markdown and every other tag stays text."""
    from markdown_it.common.utils import escapeHtml as escape
    from markdown_it.token import Token

    toks, out, i = state.tokens, [], 0
    while i < len(toks):
        t = toks[i]
        if t.type == "paragraph_open" and i + 2 < len(toks) and toks[i + 1].type == "inline":
            text = toks[i + 1].content
            m = _FOLD_OPEN.fullmatch(text)
            if m or text == _FOLD_CLOSE:
                block = Token("html_block", "", 0, block=True, map=t.map)
                block.content = (f"<details>\n<summary>{escape(m.group(1))}</summary>\n" if m else "</details>\n")
                out.append(block)
                i += 3
                continue
        out.append(t)
        i += 1
    state.tokens = out


def side_by_side(tex: str) -> list[str] | None:
    """The matrices of a display the notes set side by side (``A =\\n\\begin{bmatrix}..\\end{bmatrix}``
    joined by ``,\\quad`` lines, views/layout.py), or None for any other display. The page gives each its
    own box in a wrapping row, so that a phone puts them one under another instead of scrolling."""
    parts = tex.strip("\n").split("\n,\\quad\n")
    ok = len(parts) > 1 and all(re.fullmatch(r"[^\n]* =\n\\begin\{bmatrix\}\n(?:[^\n]*\n)+\\end\{bmatrix\}", p)
                                for p in parts)
    return parts if ok else None


def body_html(markdown: str, images: dict[str, str], links: dict[str, str] | None = None) -> str:
    """The note's body (front matter dropped); an image whose src is in ``images`` (src -> SVG text)
    becomes a figure with the SVG inlined as a data URI and its alt text kept; a link whose target
    is in ``links`` points to the page given there (a neighbour's HTML page instead of its Markdown)."""
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

    def link_open(renderer, tokens, idx, options, env):
        tok = tokens[idx]
        href = tok.attrGet("href")
        if links and href in links:
            tok.attrSet("href", links[href])
        return renderer.renderToken(tokens, idx, options, env)

    md.add_render_rule("link_open", link_open)
    default_math = md.renderer.rules["math_block"]

    def math_block(renderer, tokens, idx, options, env):
        parts = side_by_side(tokens[idx].content)
        if parts is None:
            return default_math(tokens, idx, options, env)
        boxes = "".join(f'<div class="math block">\n{escape(p)}\n</div>\n' for p in parts)
        return f'<div class="side">\n{boxes}</div>\n'

    md.add_render_rule("math_block", math_block)
    md.core.ruler.push("attnwalk_folds", _folds)
    return figures(md.render(markdown))


# An image alone in its paragraph, then a paragraph all in emphasis: a note's figure and its caption
# (templates/_figures.j2). Neither paragraph can hold another <p>, so the match stays inside the two.
_FIGURE = re.compile(r"<p>(<img [^>]*>)</p>\n<p><em>((?:(?!</?p>).)*)</em></p>\n")


def figures(html: str) -> str:
    """Each note figure as a <figure> whose <figcaption> is its caption: a screen reader announces the
    caption with the picture, and print keeps the two together, instead of an image and an italic
    paragraph that only sit next to each other."""
    return _FIGURE.sub(r"<figure>\n\1\n<figcaption>\2</figcaption>\n</figure>\n", html)


def title_of(markdown: str) -> str:
    m = re.search(r"^# (.+)$", markdown, re.M)
    return re.sub(r"\$([^$]*)\$", r"\1", m.group(1)).strip() if m else "attnwalk"


def page(markdown: str, lang: str, images: dict[str, str], links: dict[str, str] | None = None) -> str:
    """The whole HTML page of a Markdown note."""
    from . import __version__
    from .render import environment

    css, js = katex_assets()
    return environment().get_template("html/page.html.j2").render(
        lang=lang, title=title_of(markdown), version=__version__, katex_css=css, katex_js=js,
        body=body_html(markdown, images, links).rstrip("\n"))
