"""HTML pages without a browser: deterministic bytes, raw HTML escaped, math left for the inlined KaTeX,
KaTeX's fonts inlined (no font file fetched)."""

import re
from pathlib import Path

import pytest

import attnwalk
from attnwalk.html import body_html, katex_assets
from attnwalk.render import render

ROOT = Path(__file__).resolve().parent.parent

pytest.importorskip("matplotlib", reason="HTML notes inline figures: pip install 'attnwalk[figures]' (CI does)")


def test_same_inputs_same_bytes_and_no_front_matter():
    a = render(attnwalk.walk(h=2, w=2, heads=1), "html", "en")
    assert a == render(attnwalk.walk(h=2, w=2, heads=1), "html", "en")
    assert "attnwalk_version" not in a and "w_qkv:" not in a  # the YAML front matter is not shown
    assert a.count('src="data:image/svg+xml;base64,') == 3  # shape flow, one head, p0's look


def test_raw_html_is_escaped_and_math_is_kept_for_katex():
    html = body_html("A <script>alert(1)</script> and $a < b$ and\n\n$$\nx^2\n$$\n", {})
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert '<span class="math inline">a &lt; b</span>' in html
    assert re.search(r'<div class="math block">\s*x\^2\s*</div>', html)


def test_katex_fonts_are_data_uris():
    css, js = katex_assets()
    assert "url(fonts/" not in css and css.count("data:font/woff2;base64,") == 20
    assert "</script" not in js


def test_folds_become_details_and_their_content_stays_markdown():
    md = ('Intro.\n\n<details markdown="1">\n<summary>Answer 1</summary>\n\n- item $a_1$\n\n```\nx = 1\n```\n\n'
          '</details>\n\nAfter.\n')
    html = body_html(md, {})
    assert "&lt;details" not in html and "&lt;/details" not in html
    assert re.search(r"<details>\s*<summary>Answer 1</summary>\s*<ul>\s*<li>item "
                     r'<span class="math inline">a_1</span></li>\s*</ul>\s*<pre><code>x = 1\s*</code></pre>\s*'
                     r"</details>", html)
    assert re.search(r"<p>After.</p>", html)


def test_only_the_fold_form_is_raw_html():
    """Any other tag, an unmarked <details>, or markup in a summary stays escaped text."""
    html = body_html('<details>\n<summary>x</summary>\n\n<details markdown="1">\n<summary><b>x</b></summary>\n\n'
                     'a </details> b\n', {})
    assert "<details>" not in html and "<summary>" not in html and "<b>" not in html
    assert html.count("&lt;details") == 2 and "&lt;/details&gt;" in html


def test_every_fold_of_the_course_notes_is_a_details_element():
    from pathlib import Path

    for note in sorted((Path(__file__).resolve().parent.parent / "examples/notes").glob("*.md")):
        text = note.read_text(encoding="utf-8")
        html = body_html(text, {})
        n = text.count('<details markdown="1">')
        assert n == text.count("</details>") and n > 0, note.name
        assert html.count("<details>") == n and html.count("</details>") == n, note.name
        assert "&lt;details" not in html and "&lt;summary" not in html, note.name


def test_side_by_side_matrices_get_a_box_each_in_a_wrapping_row():
    from attnwalk.html import side_by_side

    q = "Q_0 =\n\\begin{bmatrix}\n1 & 0 \\\\\n\\end{bmatrix}"
    k = "K_0 =\n\\begin{bmatrix}\n2 \\\\\n\\end{bmatrix}"
    two = q + "\n,\\quad\n" + k
    assert side_by_side(two) == [q, k]
    # one matrix, or a formula that merely contains ",\quad", keeps its single display
    assert side_by_side(two.split("\n,\\quad\n")[0]) is None
    assert side_by_side("Q = X W_Q^T\n,\\quad\nK = X W_K^T") is None
    html = body_html(f"$$\n{two}\n$$\n", {})
    assert re.fullmatch(r'<div class="side">\n(<div class="math block">\n[^<]*\n</div>\n){2}</div>\n', html)
    assert "1 &amp; 0" in html  # escaped like any formula; KaTeX reads the text


def _hrefs(html: str) -> list[str]:
    return [h for h in re.findall(r'<a href="([^"]+)"', html) if not h.startswith(("http:", "https:", "#"))]


def test_html_pages_link_html_pages_and_every_link_resolves():
    """A browser shows a linked .md as plain text: the course's HTML pages (notes and index) link the
    HTML page of every note that has one, and .md only where a note has no HTML page; all resolve."""
    examples = ROOT / "examples"
    pages = sorted(examples.glob("index.*.html")) + sorted((examples / "notes").glob("*.html"))
    assert len(pages) >= 8 and (examples / "index.en.html").is_file() and (examples / "index.vi.html").is_file()
    for p in pages:
        hrefs = _hrefs(p.read_text(encoding="utf-8"))
        assert hrefs, p
        for h in hrefs:
            target = (p.parent / h).resolve()
            assert target.is_file(), (p.name, h)
            if target.suffix == ".md":
                assert not target.with_suffix(".html").exists(), (p.name, h)
        lang = p.name.split(".")[-2]
        assert all(f".{lang}." in h for h in hrefs if h.endswith((".md", ".html"))), (p.name, hrefs)
    index = _hrefs((examples / "index.en.html").read_text(encoding="utf-8"))
    notes = re.findall(r"\]\(([^)]+\.md)\)", (examples / "index.en.md").read_text(encoding="utf-8"))
    assert [Path(h).stem for h in index] == [Path(n).stem for n in notes]  # same notes, same order


def test_a_link_to_a_page_given_is_rewritten_and_others_are_kept():
    html = body_html("[a](n.md) [b](m.md) [c](https://x.org/n.md)\n", {}, {"n.md": "n.html"})
    assert _hrefs(html) == ["n.html", "m.md"] and 'href="https://x.org/n.md"' in html


def test_each_course_page_names_the_command_that_writes_it_byte_for_byte(tmp_path):
    """A page's "regenerate it with" command writes that page (``--format html``, ``-o`` its own path), not
    the Markdown note: run from the repository root (its ``-o`` pointed at a scratch file), it gives the
    committed page byte for byte, and no SVG files beside it (the page inlines its figures)."""
    import html as htmllib
    import shlex
    import subprocess
    import sys

    pages = sorted((ROOT / "examples" / "notes").glob("*.html"))
    assert len(pages) >= 14
    for p in pages:
        text = p.read_text(encoding="utf-8")
        (command,) = re.findall(r'<blockquote>.*?<code class="language-bash">(.*?)\n</code>', text, re.S)
        argv = shlex.split(htmllib.unescape(command))
        assert argv[:4] == ["attnwalk", "render", "--format", "html"] and "--figures" not in argv, (p.name, argv)
        assert argv[argv.index("-o") + 1] == p.relative_to(ROOT).as_posix(), (p.name, argv)
        out = tmp_path / p.name
        argv[argv.index("-o") + 1] = str(out)
        proc = subprocess.run([sys.executable, "-m", "attnwalk", *argv[1:]], cwd=ROOT, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        assert out.read_bytes() == p.read_bytes(), p.name
        assert [f.name for f in tmp_path.iterdir()] == [p.name]
        out.unlink()


def test_a_page_command_outside_the_course_writes_html():
    from attnwalk.html import page_command

    assert page_command("attnwalk render --h 2 --w 2") == "attnwalk render --format html --h 2 --w 2"
    assert (page_command("attnwalk render --h 2 -o a/n.md --figures a/figures")
            == "attnwalk render --format html --h 2 -o a/n.html")
    assert page_command("attnwalk render --scenario s.toml", "notes/n.en.md") == (
        "attnwalk render --format html --scenario s.toml -o notes/n.en.html")


def test_a_formula_at_the_start_of_a_line_that_ends_in_a_digit_is_typeset():
    """The glossary's "$A[i, j]$ = α(pi→pj), …; each row sums to 1" was left as source in the index page."""
    html = body_html("$A[i, j]$ = α(pi→pj), each row sums to 1\n\n| a |\n|---|\n| $x$ = 2 |\n", {})
    assert "$" not in html and html.count('<span class="math inline">') == 2


def test_no_course_page_shows_a_dollar_outside_math_and_code():
    for p in sorted((ROOT / "examples").glob("index.*.html")) + sorted((ROOT / "examples" / "notes").glob("*.html")):
        text = re.sub(r"<(script|style|pre|code)\b.*?</\1>", "", p.read_text(encoding="utf-8"), flags=re.S)
        text = re.sub(r'<span class="math inline">.*?</span>|<div class="math block">.*?</div>', "", text, flags=re.S)
        assert "$" not in text, (p.name, re.findall(r".{0,40}\$.{0,40}", text)[:3])
