"""HTML pages without a browser: deterministic bytes, raw HTML escaped, math left for the inlined KaTeX,
KaTeX's fonts inlined (no font file fetched)."""

import re

import pytest

import attnwalk
from attnwalk.html import body_html, katex_assets
from attnwalk.render import render

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
