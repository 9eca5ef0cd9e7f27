"""The shipped course as an MkDocs Material site, built with the setup docs/publishing.md gives and
opened in headless Chromium: every formula typeset, no raw `$`, no Markdown left unrendered (folded
answers included), every figure loaded, every link between pages resolving."""

import functools
import http.server
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

pytest.importorskip("mkdocs", reason="pip install mkdocs mkdocs-material pymdown-extensions (CI does)")
pytest.importorskip("material", reason="pip install mkdocs-material (CI does)")
playwright = pytest.importorskip("playwright.sync_api", reason="pip install playwright (CI does; it uses the "
                                 "system chromium, never a downloaded one)")

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ROOT = Path(__file__).resolve().parent.parent
KATEX = ROOT / ".ci/node/node_modules/katex/dist"
pytestmark = [
    pytest.mark.skipif(CHROMIUM is None, reason="no Chromium here: apt-get install chromium (CI does)"),
    pytest.mark.skipif(not KATEX.is_dir(), reason="KaTeX not installed: npm install --prefix .ci/node katex (CI does)"),
]

# What a reader should never see in a page's text: math left as source, Markdown left as source.
PAGE_FACTS = """() => {
  const art = document.querySelector('article');
  const texts = [];
  const walk = document.createTreeWalker(art, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    if (n.parentElement.closest('.katex, pre, code, script, style')) continue;
    texts.push(n.textContent);
  }
  const text = texts.join('\\n');
  return {
    formulas: art.querySelectorAll('.katex').length,
    errors: [...art.querySelectorAll('.katex-error')].map(e => e.title.slice(0, 120)),
    raw_math: (text.match(/.{0,30}(\\$|\\\\begin|\\\\frac).{0,30}/g) || []).slice(0, 3),
    raw_markdown: texts.filter(t => /^\\s*([-*] |\\|.*\\||#{1,6} |\\*\\*\\S)/m.test(t))
                      .map(t => t.slice(0, 60)).slice(0, 3),
    broken_images: [...art.querySelectorAll('img')].filter(i => !i.complete || i.naturalWidth === 0).map(i => i.src),
    links: [...art.querySelectorAll('a[href]')].map(a => a.href).filter(h => h.startsWith(location.origin)),
  };
}"""


def _blocks(doc: str, lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```", doc, re.M | re.S)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """Build examples/ with docs/publishing.md's mkdocs.yml and katex.js; KaTeX served from the local copy."""
    work = tmp_path_factory.mktemp("mkdocs")
    doc = (ROOT / "docs/publishing.md").read_text(encoding="utf-8")
    (config,), (init,) = _blocks(doc, "yaml"), _blocks(doc, "js")
    # The only change to the documented setup: the page may not reach the network, so KaTeX is local.
    config = re.sub(r"https://unpkg\.com/katex@[^/]+/dist/", "katex/", config)
    docs = work / "docs"
    docs.mkdir()
    for index in sorted((ROOT / "examples").glob("index.*.md")):
        shutil.copy(index, docs / index.name)
    shutil.copytree(ROOT / "examples/notes", docs / "notes", ignore=shutil.ignore_patterns("*.html"))
    shutil.copytree(KATEX, docs / "katex")
    (docs / "javascripts").mkdir()
    (docs / "javascripts/katex.js").write_text(init, encoding="utf-8")
    (work / "mkdocs.yml").write_text(config, encoding="utf-8")
    # --strict turns MkDocs' warnings (a link to a missing page or anchor) into a failed build.
    run = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q"], cwd=work,
                         capture_output=True, text=True, env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin"})
    assert run.returncode == 0, run.stderr
    return work / "site"


@pytest.fixture(scope="module")
def server(site):
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


@pytest.fixture(scope="module")
def page(server):
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        pg = browser.new_page(viewport={"width": 900, "height": 1000})
        outside = []
        # The Material theme itself asks Google for its Roboto font; the notes must ask for nothing.
        theme_fonts = ("https://fonts.googleapis.com/", "https://fonts.gstatic.com/")
        pg.on("request", lambda r: None if r.url.startswith((server, *theme_fonts)) else outside.append(r.url))
        yield pg, outside
        browser.close()


NOTES = sorted(p.stem for p in (ROOT / "examples/notes").glob("*.md")) + \
    sorted(p.stem for p in (ROOT / "examples").glob("index.*.md"))


@pytest.mark.parametrize("name", NOTES)
def test_page_reads_as_typeset(name, page, server, site):
    pg, outside = page
    rel = f"{name}/" if name.startswith("index.") else f"notes/{name}/"
    assert (site / rel / "index.html").is_file(), f"MkDocs wrote no page for {name}"
    pg.goto(f"{server}/{rel}")
    pg.wait_for_function("document.querySelectorAll('article .katex').length > 0 || "
                         "!document.querySelector('article').textContent.includes('$')")
    facts = pg.evaluate(PAGE_FACTS)
    source = (ROOT / "examples" / ("" if name.startswith("index.") else "notes") / f"{name}.md").read_text("utf-8")
    body = re.sub(r"^```.*?^```", "", source.split("---", 2)[2], flags=re.M | re.S)
    if "$" in body:
        assert facts["formulas"] > 0
    assert facts["errors"] == []
    assert facts["raw_math"] == [], "math left as source"
    assert facts["raw_markdown"] == [], "Markdown left as source (inside <details>?)"
    assert facts["broken_images"] == []
    assert outside == [], "the page reached outside the site"
    for link in facts["links"]:
        path = link.split("#")[0][len(server):].lstrip("/")
        target = site / path / "index.html" if path.endswith("/") or not path else site / path
        assert target.exists(), f"{name}: link to {link} resolves to nothing"


def test_every_folded_part_has_its_markdown_rendered(site):
    """Each <details> of each note holds HTML lists/tables/code, not `- ` or `|` text lines."""
    for html in sorted(site.glob("notes/*/index.html")):
        for block in re.findall(r"<details.*?</details>", html.read_text("utf-8"), re.S):
            inner = re.sub(r"<summary>.*?</summary>", "", block, flags=re.S)
            inner = re.sub(r"<(pre|code)\b.*?</\1>", "", inner, flags=re.S)
            assert not re.search(r"(^|\n)\s*(- |\| )", inner), f"{html.parent.name}: {inner[:200]}"


# A display formula that scrolls inside its box: the columns of all its matrices together (several maps set
# side by side in one formula count as one wide matrix; 0 for a formula without a matrix).
SCROLLING = """() => [...document.querySelectorAll('article div.arithmatex')]
  .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => {
    const tex = (e.querySelector('annotation') || {}).textContent || '';
    const mats = [...tex.matchAll(/\\\\begin\\{bmatrix\\}([\\s\\S]*?)\\\\end\\{bmatrix\\}/g)];
    const cols = mats.map(m => Math.max(0, ...m[1].split('\\\\\\\\').filter(r => r.trim())
                                          .map(r => r.split('&').length)));
    return [cols.reduce((a, b) => a + b, 0), tex.slice(0, 40)];
  })"""


@pytest.mark.parametrize("name", ["hand-2x2.vi", "yolo-3x3-seed42.en", "yolo-8x8-seed42.vi"])
def test_matrices_fit_a_phone_with_the_documented_script(name, page, server):
    """With publishing.md's katex.js, a 390 px phone sees every matrix of at most 9 columns whole (set
    smaller, never below 8 px) instead of cut at its scroll box's edge; maps set side by side in one formula
    (a yolo note's 3 x 3 channels) are split into one formula each, stacked on the phone."""
    pg = page[0].context.browser.new_page(viewport={"width": 390, "height": 900})  # the module's browser
    pg.goto(f"{server}/notes/{name}/")
    pg.wait_for_function("document.querySelectorAll('article .katex').length > 0")
    pg.evaluate("document.fonts.ready.then(() => new Promise(r => setTimeout(r, 100)))")
    assert pg.evaluate("document.querySelectorAll('article .katex-error').length") == 0
    assert [t for c, t in pg.evaluate(SCROLLING) if c <= 9] == []
    sizes = pg.evaluate("""[...document.querySelectorAll('article div.arithmatex .katex-display > .katex')]
        .filter(k => k.style.fontSize).map(k => parseFloat(k.style.fontSize))""")
    assert sizes and min(sizes) >= 8  # the phone needed it: some formula was set smaller, still legible
    pg.close()


# The rows of maps the documented script split out of one formula: for each row, its maps' tops and widths.
SIDE_ROWS = """() => [...document.querySelectorAll('article div[style*="flex-wrap"]')].map(row =>
  [...row.children].map(d => [Math.round(d.getBoundingClientRect().top), d.scrollWidth <= d.clientWidth + 1]))"""


@pytest.mark.parametrize("width", [390, 1200])
def test_maps_side_by_side_wrap_on_a_phone(width, page, server):
    """yolo 3 x 3's input channels, W_pe's kernels, Q_h/K_h/V_h: each map its own formula in a wrapping row.
    On a phone no row holds two maps on one line and nothing scrolls; on a desktop the 4 input channels
    share lines (at most 2 lines for 4 maps)."""
    pg = page[0].context.browser.new_page(viewport={"width": width, "height": 900})
    pg.goto(f"{server}/notes/yolo-3x3-seed42.en/")
    pg.wait_for_function("document.querySelectorAll('article .katex').length > 0")
    pg.evaluate("document.fonts.ready.then(() => new Promise(r => setTimeout(r, 100)))")
    rows = pg.evaluate(SIDE_ROWS)
    source = (ROOT / "examples/notes/yolo-3x3-seed42.en.md").read_text("utf-8")
    # one row per display of the note that joins maps with ",\quad" lines
    assert len(rows) == len(re.findall(r"^\$\$\n(?:(?!\$\$\n)[\s\S])*?^,\\quad$", source, re.M)) > 3
    assert all(fits for row in rows for _, fits in row)  # no map scrolls in its box
    if width == 390:
        assert all(len({top for top, _ in row}) == len(row) for row in rows)  # stacked, one per line
    else:
        assert len({top for top, _ in rows[0]}) <= 2 < len(rows[0])  # X's channels share lines
    assert pg.evaluate("document.querySelectorAll('article .katex-error').length") == 0
    pg.close()
