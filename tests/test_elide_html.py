"""The course's large note (yolo 8x8, rows of 64 keys worked in short) as a person sees it: its HTML page
opened offline in headless Chromium (Debian's, driven by Playwright, as tests/test_html_browser.py does):
every formula rendered by KaTeX, the shortened rows and sums in their code blocks, nothing wider than
an 800 px page; a screenshot per page for a reviewer ($ATTNWALK_SCREENSHOTS or tmp)."""

import os
import shutil
from pathlib import Path

import pytest

playwright = pytest.importorskip("playwright.sync_api", reason="pip install playwright (CI does; it uses the "
                                 "system chromium, never a downloaded one)")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium here: apt-get install chromium (CI does)")

NOTES = Path(__file__).resolve().parent.parent / "examples" / "notes"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
SUM = {"vi": "tổng = ", "en": "sum = "}


@pytest.mark.parametrize("lang", ["vi", "en"])
def test_large_course_page_renders(tmp_path, lang):
    page_file = NOTES / f"yolo-8x8-seed42.{lang}.html"
    with playwright.sync_playwright() as p:
        ctx = p.chromium.launch_persistent_context(str(tmp_path / "profile"), executable_path=CHROMIUM, args=ARGS,
                                                   viewport={"width": 800, "height": 1000})
        page = ctx.new_page()
        requests = []
        page.on("request", lambda r: requests.append(r.url))
        page.goto(page_file.as_uri())
        page.wait_for_load_state("load")
        assert [u for u in requests if not u.startswith(("file:", "data:"))] == []
        n_math = page.evaluate("document.querySelectorAll('.math').length")
        assert n_math > 20
        assert page.evaluate("document.querySelectorAll('.math .katex').length") == n_math
        assert page.evaluate("document.querySelectorAll('.katex-error').length") == 0
        # elided matrices render their dots; the worked rows' code shows the shortened lists and sums
        assert page.evaluate("document.querySelectorAll('.katex .minner, .katex .mord').length") > 1000
        code = page.evaluate("[...document.querySelectorAll('pre code')].map(e => e.textContent).join('\\n')")
        assert "…" in code, code[:300]
        assert SUM[lang] in code and "+ 1.00000000" in code, code[:300]
        assert page.evaluate("document.documentElement.scrollWidth") <= 800
        widths = page.evaluate("[...document.querySelectorAll('.math.block, pre')]"
                               ".map(e => e.getBoundingClientRect().right)")
        assert max(widths) <= 800
        shots = Path(os.environ.get("ATTNWALK_SCREENSHOTS") or tmp_path)
        shots.mkdir(parents=True, exist_ok=True)
        shot = shots / f"yolo-8x8-seed42.{lang}.png"
        page.screenshot(path=str(shot), full_page=True)
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        ctx.close()
