"""Hostile token labels in the HTML page and the SVG figures (hostile round 13): ``</script>``, ``<img onerror>``,
the notes' own fold tags, ``$$``, ``\\``, an RTL mark, Jinja braces, a link to ``javascript:``, a comment opener,
the longest label allowed. Opened in headless Chromium (Playwright): no dialog, no script of theirs, every label
shown literally; each SVG opened on its own runs nothing either; matplotlib draws every label as text, never
as mathtext (``$$`` in a label was a ParseException traceback)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from attnwalk.config import MAX_LABEL

LABELS = ["</script><script>window.pwned=1;alert(1)</script>", '<img src=x onerror="window.pwned=2;alert(2)">',
          '<details markdown="1">', "</details><svg onload=alert(3)>", "$$\\alert{1}$$", "\\", "\u200fRTL\u200f",
          "x" * MAX_LABEL, "{{ 7*7 }}", "](javascript:alert(4))", "<!--", "&lt;b&gt;", "`code`", "<summary>s</summary>"]
Q = [[1, 0], [0, 1], [1, 1], [-1, 0], [0, -1], [2, 1], [1, 2], [0, 0], [1, -1], [-1, 1], [2, 0], [0, 2], [-2, 1],
     [1, -2]]


def _scenario(tmp_path: Path) -> Path:
    assert len(Q) == len(LABELS)
    scen = tmp_path / "s.toml"
    scen.write_text(f'variant = "sdpa"\nlabels = {json.dumps(LABELS)}\nq = {Q}\nk = {Q[::-1]}\nv = {Q}\n',
                    encoding="utf-8")
    return scen


def _render(*args: str) -> None:
    proc = subprocess.run([sys.executable, "-m", "attnwalk", "render", *args], capture_output=True, text=True)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr


def test_figures_draw_hostile_labels_as_plain_text(tmp_path):
    pytest.importorskip("matplotlib", reason="figures need matplotlib: pip install 'attnwalk[figures]' (CI does)")
    from matplotlib.text import Text

    from attnwalk.figures import _literal

    for label in LABELS:
        shown, math = Text()._preprocess_math(_literal(f"p0 {label}"))
        assert (shown, math) == (f"p0 {label}", False)
    _render("--scenario", str(_scenario(tmp_path)), "-o", str(tmp_path / "n.md"), "--figures", str(tmp_path / "f"))
    names = sorted(p.name for p in (tmp_path / "f").iterdir())
    assert "n-shapes.svg" in names and "n-attn-h0.svg" in names


playwright = pytest.importorskip("playwright.sync_api", reason="pip install playwright (CI does; it uses the "
                                 "system chromium, never a downloaded one)")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium here: apt-get install chromium (CI does)")
@pytest.mark.parametrize("lang", ["en", "vi"])
def test_hostile_labels_run_nothing_and_show_literally_in_chromium(tmp_path, lang):
    pytest.importorskip("matplotlib", reason="HTML notes inline figures: pip install 'attnwalk[figures]' (CI does)")
    scen = _scenario(tmp_path)
    _render("--scenario", str(scen), "--lang", lang, "--format", "html", "-o", str(tmp_path / "n.html"))
    _render("--scenario", str(scen), "--lang", lang, "-o", str(tmp_path / "n.md"), "--figures", str(tmp_path / "f"))
    pages = [tmp_path / "n.html", *sorted((tmp_path / "f").glob("*.svg"))]
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        try:
            for path in pages:
                page = browser.new_page()
                dialogs: list[str] = []
                page.on("dialog", lambda d, seen=dialogs: (seen.append(d.message), d.dismiss()))
                page.goto(path.as_uri())
                page.wait_for_load_state("load")
                assert dialogs == [] and page.evaluate("window.pwned") is None, path.name
                # the page's own two scripts (KaTeX and its render call), no element of a label's
                assert page.evaluate("document.scripts.length") == (2 if path.suffix == ".html" else 0)
                assert page.evaluate("document.querySelectorAll('[onerror], [onload], details details').length") == 0
                if path.suffix == ".html":
                    text = page.evaluate("document.body.innerText")
                    assert [label for label in LABELS if label not in text] == []
                page.close()
        finally:
            browser.close()
