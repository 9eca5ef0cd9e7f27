"""The HTML notes as a person sees them: opened offline in headless Chromium (Debian's, driven by
Playwright), every formula rendered by the inlined KaTeX, every figure present, nothing wider than an
800 px page nor a 390 px phone, folds that open onto rendered Markdown, alt text and captions in the
note's language, no network request; a screenshot per page for a reviewer ($ATTNWALK_SCREENSHOTS or tmp)."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import CHROMIUM, chromium_context

pytest.importorskip("matplotlib", reason="HTML notes inline figures: pip install 'attnwalk[figures]' (CI does)")
pytest.importorskip("playwright.sync_api", reason="pip install playwright (CI does; it uses the "
                    "system chromium, never a downloaded one)")

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium here: apt-get install chromium (CI does)")

ROOT = Path(__file__).resolve().parent.parent
CASES = {
    "yolo": ["--h", "3", "--w", "3", "--heads", "2", "--seed", "42"],
    "sdpa-causal": ["--scenario", str(ROOT / "examples/scenarios/toi-di-hoc-causal.toml")],
    "sdpa-cross": ["--scenario", str(ROOT / "examples/scenarios/cross-attention.toml")],
    "mha": ["--scenario", str(ROOT / "examples/scenarios/mha-seed-002.toml")],
}

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
    yield from chromium_context(tmp_path_factory)


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


def _open(browser, path: Path, width: int):
    page = browser.new_page()
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    return page


# Each note's own words: a Vietnamese page's alt texts and captions carry none of the English ones.
EN_WORDS = re.compile(r"\b(the|of|weights?|smallest|largest|queries|keys|masked|shapes)\b")
VI_MARKS = re.compile(r"[ạảấầẩậắằẳặẹẻẽếềểễệịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹđ]")


@pytest.mark.parametrize("lang", ["vi", "en"])
@pytest.mark.parametrize("name", ["sdpa-causal-toi-di-hoc", "mha-seed-002", "yolo-3x3-seed42"])
def test_course_page_folds_captions_and_phone_width(browser, tmp_path, name, lang):
    """The course's committed page: every fold is a <details> that opens onto a rendered list or code
    block; every figure has alt text and a caption in the note's language, the caption naming its
    extremes; at 390 px nothing but a formula, table or code block's own box is wider than the screen,
    and matrices set side by side wrap instead of scrolling."""
    path = ROOT / "examples" / "notes" / f"{name}.{lang}.html"
    md = (ROOT / "examples" / "notes" / f"{name}.{lang}.md").read_text(encoding="utf-8")
    page = _open(browser, path, 800)
    n_folds = md.count('<details markdown="1">')
    assert n_folds >= 3 and page.evaluate("document.querySelectorAll('details').length") == n_folds
    assert "<details" not in page.evaluate("document.body.innerText")  # no fold shown as raw text
    page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
    shown = page.evaluate("""[...document.querySelectorAll('details')].map(d => [d.querySelector('summary').innerText,
        d.querySelectorAll('li, pre, .katex, table').length, d.getBoundingClientRect().height])""")
    assert all(summary and inner > 0 and height > 40 for summary, inner, height in shown), shown
    figs = page.evaluate("""[...document.querySelectorAll('img')].map(i => [i.alt,
        i.closest('figure').querySelector('figcaption').innerText])""")
    assert figs and all(alt and cap for alt, cap in figs)
    for alt, cap in figs:
        if lang == "vi":
            assert VI_MARKS.search(alt) and VI_MARKS.search(cap) and not EN_WORDS.search(alt + " " + cap), (alt, cap)
        else:
            assert not VI_MARKS.search(alt.replace("Tôi", "").replace("đi", "").replace("học", "")), alt
    heatmaps = [cap for alt, cap in figs if re.search(r"head \d+[:,]", alt) and "→" in cap]
    assert len(heatmaps) == md.count("-attn-h")  # each heatmap's caption names where its extremes are
    weight = "trọng số" if lang == "vi" else "weight"
    assert all(len(re.findall(r"→ [pm]\d+[^()]*(?:\([^()]*\))? \(" + weight + r" \d\.\d+\)", c)) == 2
               for c in heatmaps), heatmaps
    # at 800 px the first side-by-side matrices (the inputs) are on one line
    tops = page.evaluate("""[...document.querySelectorAll('.side')].map(s =>
        [...s.children].map(c => Math.round(c.getBoundingClientRect().top)))""")
    assert tops and len(tops[0]) > 1 and len(set(tops[0])) == 1
    page.close()

    phone = _open(browser, path, 390)
    _reads_on_a_phone(phone)
    boxes = phone.evaluate("""[...document.querySelectorAll('.math.block, table, pre, img')].map(e =>
        e.getBoundingClientRect().right)""")
    assert max(boxes) <= 390  # a box that scrolls its content stays inside the screen
    # a side-by-side piece narrower than the screen never needs to scroll: the row wraps instead
    cramped = phone.evaluate("""[...document.querySelectorAll('.side > .math.block')].filter(b =>
        b.firstElementChild.firstElementChild.getBoundingClientRect().width < 360
        && b.scrollWidth > b.clientWidth + 1).map(b => b.textContent.slice(0, 40))""")
    assert cramped == []
    # and a row too wide for the screen has wrapped: its pieces are not all on one line
    rows = phone.evaluate("""[...document.querySelectorAll('.side')].map(s => [s.clientWidth,
        [...s.children].reduce((w, c) => w + c.getBoundingClientRect().width, 0),
        new Set([...s.children].map(c => Math.round(c.getBoundingClientRect().top))).size])""")
    assert all(lines > 1 for width, total, lines in rows if total > width)
    if name != "sdpa-causal-toi-di-hoc":
        assert any(lines > 1 for _, _, lines in rows)  # mha's Q_h, K_h, V_h and yolo's maps do wrap
    shot = shots_dir(tmp_path) / f"{name}.{lang}.390.png"
    phone.screenshot(path=str(shot), full_page=True)
    phone.close()


@pytest.mark.parametrize("lang", ["vi", "en"])
@pytest.mark.parametrize("name", ["hand-2x2", "sdpa-cross-attention", "yolo-3x3-seed42-module"])
def test_course_pages_without_figures_read_on_a_phone(browser, tmp_path, name, lang):
    """The course's pages without figures: folds are real <details>, math is typeset, and at 390 px the
    page never scrolls sideways and the regenerate command wraps."""
    path = ROOT / "examples" / "notes" / f"{name}.{lang}.html"
    md = (ROOT / "examples" / "notes" / f"{name}.{lang}.md").read_text(encoding="utf-8")
    phone = _open(browser, path, 390)
    assert phone.evaluate("document.querySelectorAll('details').length") == md.count('<details markdown="1">')
    assert "<details" not in phone.evaluate("document.body.innerText")
    assert phone.evaluate("document.querySelectorAll('.katex').length") > 20
    _reads_on_a_phone(phone)
    phone.close()


def _reads_on_a_phone(phone) -> None:
    """With every fold open, a 390 px page never scrolls sideways, nothing is wider than the screen but
    a box that scrolls its own content, and the command that regenerates the note wraps (all of it
    visible without scrolling)."""
    phone.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    assert phone.evaluate(TOO_WIDE) == []
    commands = phone.evaluate("""[...document.querySelectorAll('pre > code.language-bash')].map(c =>
        [c.parentElement.scrollWidth, c.parentElement.clientWidth, c.textContent])""")
    assert commands and all(sw <= cw for sw, cw, _ in commands), commands


SUM_WORD = {"vi": "tổng = ", "en": "sum = "}


@pytest.mark.parametrize("lang", ["vi", "en"])
def test_the_large_course_page_renders_its_rows_worked_in_short(browser, tmp_path, lang):
    """The course's yolo 8x8 note (rows of 64 keys worked in short) as a person sees it offline: every formula
    rendered by KaTeX, the elided matrices' dots, the shortened rows and sums in their code blocks, nothing wider
    than an 800 px page; a screenshot per page for a reviewer."""
    page = browser.new_page()
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto((ROOT / "examples" / "notes" / f"yolo-8x8-seed42.{lang}.html").as_uri())
    page.wait_for_load_state("load")
    assert [u for u in requests if not u.startswith(("file:", "data:"))] == []
    n_math = page.evaluate("document.querySelectorAll('.math').length")
    assert n_math > 20
    assert page.evaluate("document.querySelectorAll('.math .katex').length") == n_math
    assert page.evaluate("document.querySelectorAll('.katex-error').length") == 0
    assert page.evaluate("document.querySelectorAll('.katex .minner, .katex .mord').length") > 1000
    code = page.evaluate("[...document.querySelectorAll('pre code')].map(e => e.textContent).join('\\n')")
    assert "…" in code and SUM_WORD[lang] in code and "+ 1.00000000" in code, code[:300]
    assert page.evaluate("document.documentElement.scrollWidth") <= 800
    widths = page.evaluate("[...document.querySelectorAll('.math.block, pre')]"
                           ".map(e => e.getBoundingClientRect().right)")
    assert max(widths) <= 800
    shot = shots_dir(tmp_path) / f"yolo-8x8-seed42.{lang}.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    page.close()


# Each display formula that scrolls inside its box: its matrix's rows and columns (from the TeX KaTeX keeps in
# the MathML annotation; 0, 0 for a formula without a matrix) and how far it scrolls.
SCROLLING = """() => [...document.querySelectorAll('.math.block')].filter(e => e.scrollWidth > e.clientWidth + 1)
  .map(e => {
  const tex = (e.querySelector('annotation') || {}).textContent || '';
  const m = tex.match(/\\\\begin\\{bmatrix\\}([\\s\\S]*?)\\\\end\\{bmatrix\\}/);
  const rows = m ? m[1].split('\\\\\\\\').filter(r => r.trim()) : [];
  return [rows.length, Math.max(0, ...rows.map(r => r.split('&').length)), e.scrollWidth - e.clientWidth,
          tex.slice(0, 40)];
})"""
TABLES_SCROLLING = """() => [...document.querySelectorAll('table')].filter(t => t.scrollWidth > t.clientWidth + 1)
  .map(t => [t.rows[0].cells.length, t.innerText.slice(0, 40)])"""


@pytest.mark.parametrize("width", [390, 800])
@pytest.mark.parametrize("lang", ["vi", "en"])
def test_course_matrices_up_to_9_columns_and_token_tables_fit_without_scrolling(browser, width, lang):
    """On a phone (390 px) and a desktop page (800 px), every matrix of at most 9 columns (a 3x3 map's 9
    positions, an 8x8 channel) is seen whole, set smaller if need be, never cut off at a scroll edge, and
    so is every formula without a matrix and every table of at most 5 columns (the 4 keys of the hand
    example's weights)."""
    for path in sorted((ROOT / "examples" / "notes").glob(f"*.{lang}.html")):
        page = _open(browser, path, width)
        page.evaluate("document.fonts.ready")
        # a fold's formulas have no width until it opens: the page fits them when it does
        page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
        page.evaluate("new Promise(r => setTimeout(r, 100))")
        assert page.evaluate("document.querySelectorAll('.katex-error').length") == 0, path.name
        cut = [(r, c, tex) for r, c, _, tex in page.evaluate(SCROLLING) if c <= 9]
        assert cut == [], (path.name, width, cut)
        assert [t for t in page.evaluate(TABLES_SCROLLING) if t[0] <= 5] == [], (path.name, width)
        # the matrices were set smaller than KaTeX's size, not unreadably so: at least half of it
        sizes = page.evaluate("""[...document.querySelectorAll('.math.block .katex')].filter(k => k.style.fontSize)
            .map(k => parseFloat(k.style.fontSize) / parseFloat(k.dataset.size))""")
        assert all(0.5 <= s < 1 for s in sizes), (path.name, sizes)
        page.close()


@pytest.mark.parametrize("lang", ["vi", "en"])
def test_mha_qkv_chunks_fit_a_phone_whole(browser, lang):
    """Teaching audit #17: mha's merged projection is set as ``chunk(3, dim=-1)`` cuts it, Q, K, V (3 × 4 each) and
    b_q, b_k, b_v (4 entries each), where the 12-column QKV and b_qkv used to scroll in their own box at 390 px:
    each block is on the page, none scrolls or passes the screen's edge, and none needs to be set smaller."""
    page = _open(browser, ROOT / "examples" / "notes" / f"mha-seed-002.{lang}.html", 390)
    page.evaluate("document.fonts.ready")
    page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
    page.evaluate("new Promise(r => setTimeout(r, 100))")
    blocks = page.evaluate("""() => [...document.querySelectorAll('.math.block')].map(e => {
      const tex = ((e.querySelector('annotation') || {}).textContent || '').trim();
      const k = e.querySelector('.katex');
      return [tex.split('=')[0].trim(), e.scrollWidth - e.clientWidth, e.getBoundingClientRect().right,
              k.style.fontSize ? parseFloat(k.style.fontSize) / parseFloat(k.dataset.size) : 1];
    })""")
    chunks = {label: (scroll, right, size) for label, scroll, right, size in blocks
              if label in ("Q", "K", "V", "b_{q}", "b_{k}", "b_{v}")}
    assert sorted(chunks) == ["K", "Q", "V", "b_{k}", "b_{q}", "b_{v}"], [b[0] for b in blocks]
    assert all(scroll <= 1 and right <= 390 and size == 1 for scroll, right, size in chunks.values()), chunks
    # and no display formula of the page scrolls any more (the merged 12-column matrices are gone)
    assert page.evaluate(SCROLLING) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.close()
