"""The HTML notes as a person sees them: opened offline in headless Chromium (Debian's, driven by
Playwright), every formula rendered by the inlined KaTeX, every figure present, nothing wider than an
800 px page, no network request; a screenshot per page for a reviewer ($ATTNWALK_SCREENSHOTS or tmp)."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("matplotlib", reason="HTML notes inline figures: pip install 'attnwalk[figures]' (CI does)")
playwright = pytest.importorskip("playwright.sync_api", reason="pip install playwright (CI does; it uses the "
                                 "system chromium, never a downloaded one)")

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium here: apt-get install chromium (CI does)")

ROOT = Path(__file__).resolve().parent.parent
CASES = {
    "yolo": ["--h", "3", "--w", "3", "--heads", "2", "--seed", "42"],
    "sdpa-causal": ["--scenario", str(ROOT / "examples/scenarios/toi-di-hoc-causal.toml")],
    "sdpa-cross": ["--scenario", str(ROOT / "examples/scenarios/cross-attention.toml")],
    "mha": ["--scenario", str(ROOT / "examples/scenarios/mha-seed-002.toml")],
}
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]

# Text outside KaTeX, code and the page's own scripts: where a raw `$` would mean unrendered math.
LEFT_TEXT = """() => {
  const out = [];
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    if (n.parentElement.closest('.katex, pre, code, script, style')) continue;
    out.push(n.textContent);
  }
  return out.join(' ');
}"""
TOO_WIDE = """() => [...document.querySelectorAll('body *')].filter(e => {
  // Inside a formula only the formula's own box counts (KaTeX clips its long \\sqrt strokes itself).
  if (e.parentElement.closest('.katex')) return false;
  const r = e.getBoundingClientRect();
  return r.width > 0 && (r.right > document.documentElement.clientWidth + 0.5 || r.left < -0.5)
         && !e.closest('.math.block, table, pre, .katex-mathml');
}).map(e => e.tagName + ' in ' + e.closest('p, li, h1, h2, h3, div').outerHTML.slice(0, 80)).slice(0, 5)"""


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    with playwright.sync_playwright() as p:
        # A fresh profile per run; Playwright's persistent-context API is the way to name its folder.
        ctx = p.chromium.launch_persistent_context(str(tmp_path_factory.mktemp("chromium-profile")),
                                                   executable_path=CHROMIUM, args=ARGS,
                                                   viewport={"width": 800, "height": 1000})
        yield ctx
        ctx.close()


def shots_dir(tmp_path: Path) -> Path:
    d = Path(os.environ.get("ATTNWALK_SCREENSHOTS") or tmp_path)
    d.mkdir(parents=True, exist_ok=True)
    return d


@pytest.mark.parametrize("lang", ["vi", "en"])
@pytest.mark.parametrize("case", list(CASES))
def test_html_note_in_chromium(browser, tmp_path, case, lang):
    page_file = tmp_path / f"{case}.{lang}.html"
    proc = subprocess.run([sys.executable, "-m", "attnwalk", "render", *CASES[case], "--lang", lang,
                           "--format", "html", "-o", str(page_file)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    html = page_file.read_text(encoding="utf-8")
    # No URL to fetch, not even a link; KaTeX's script names XML namespaces, which are never fetched.
    rest = re.sub(r"http://www\.w3\.org/(2000/svg|1998/Math/MathML|1999/xlink|2000/xmlns/|XML/1998/namespace)", "",
                  html)
    assert re.findall(r"(?:https?:)?//[\w.-]+\.\w+/.{0,20}", rest) == []
    page = browser.new_page()
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(page_file.as_uri())
    page.wait_for_load_state("load")
    assert [u for u in requests if not u.startswith(("file:", "data:"))] == []
    n_math = page.evaluate("document.querySelectorAll('.math').length")
    assert n_math > 20
    assert page.evaluate("document.querySelectorAll('.math .katex').length") == n_math  # every formula rendered
    assert page.evaluate("document.querySelectorAll('.katex-error').length") == 0
    assert "$" not in page.evaluate(LEFT_TEXT)
    heads = {"yolo": 2, "sdpa-causal": 1, "sdpa-cross": 1, "mha": 2}[case]
    figs = page.evaluate("""() => [...document.querySelectorAll('img')].map(i => [i.alt, i.naturalWidth,
                         i.getBoundingClientRect().width])""")
    assert len(figs) == 1 + heads + (case == "yolo")  # the shape flow, a heatmap per head (+ p0's look)
    assert all(alt and w > 100 and 0 < shown <= 800 for alt, w, shown in figs)  # decoded, fits the page
    assert page.evaluate("document.documentElement.scrollWidth") <= 800  # the page never scrolls sideways
    assert page.evaluate(TOO_WIDE) == []
    # A long matrix scrolls inside its own box: its box is no wider than the page.
    widths = page.evaluate("[...document.querySelectorAll('.math.block')].map(e => e.getBoundingClientRect().right)")
    assert max(widths) <= 800
    shot = shots_dir(tmp_path) / f"{case}.{lang}.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    page.close()


def test_labels_stay_text(browser, tmp_path):
    """A token label like <script> is escaped: shown as text, never run."""
    scen = tmp_path / "s.toml"
    scen.write_text('variant = "sdpa"\nlabels = ["<script>window.pwned=1</script>", "b", "c"]\n'
                    'q = [[1, 0], [0, 1], [1, 1]]\nk = [[1, 0], [1, 1], [0, 2]]\nv = [[1, 0], [0, 1], [2, 2]]\n',
                    encoding="utf-8")
    out = tmp_path / "n.html"
    proc = subprocess.run([sys.executable, "-m", "attnwalk", "render", "--scenario", str(scen), "--format", "html",
                           "-o", str(out)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    page = browser.new_page()
    page.goto(out.as_uri())
    assert page.evaluate("window.pwned") is None
    page.close()
