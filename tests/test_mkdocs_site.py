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
