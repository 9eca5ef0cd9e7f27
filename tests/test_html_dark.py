"""Dark themes: a reader whose system asks for dark (``prefers-color-scheme: dark``) gets a dark HTML page whose
text, KaTeX formulas, captions and code read against what is behind them; the figures keep their own white
background, so on that page, and as plain images on GitHub's dark theme, MkDocs Material's slate or Obsidian's
dark theme, their labels read against white. Contrast is WCAG's, from computed styles and from the
screenshot's pixels (headless Chromium, Debian's, driven by Playwright)."""

import io
from pathlib import Path

import pytest
from conftest import CHROMIUM, chromium_context

pytest.importorskip("matplotlib", reason="HTML notes inline figures: pip install 'attnwalk[figures]' (CI does)")
pytest.importorskip("playwright.sync_api", reason="pip install playwright (CI does; it uses the "
                    "system chromium, never a downloaded one)")
Image = pytest.importorskip("PIL.Image", reason="Pillow comes with matplotlib")

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium here: apt-get install chromium (CI does)")

ROOT = Path(__file__).resolve().parent.parent
NOTES = ROOT / "examples/notes"
# Page backgrounds of the dark themes readers use (GitHub dark, MkDocs Material slate, Obsidian, VS Code).
DARK_BACKGROUNDS = {"github-dark": "#0d1117", "mkdocs-slate": "#1e2129", "obsidian": "#1e1e1e",
                    "vscode": "#1f1f1f"}


def luminance(rgb) -> float:
    """WCAG 2 relative luminance of an sRGB colour given as 0-255 integers."""
    def lin(c):
        c = c / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (lin(c) for c in rgb[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a, b) -> float:
    """WCAG contrast ratio of two colours (1 to 21)."""
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def test_contrast_formula_by_hand():
    # WCAG's own end points: black on white is 21:1, a colour on itself 1:1; #767676 on white is the
    # well-known 4.54:1 (the lightest grey that passes AA on white).
    assert contrast((0, 0, 0), (255, 255, 255)) == pytest.approx(21.0)
    assert contrast((18, 52, 86), (18, 52, 86)) == pytest.approx(1.0)
    assert contrast((0x76, 0x76, 0x76), (255, 255, 255)) == pytest.approx(4.54, abs=0.01)


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    yield from chromium_context(tmp_path_factory)


# For each kind of element, its computed text colour and the first opaque background behind it.
COLOURS = """(sel) => [...document.querySelectorAll(sel)].slice(0, 40).map(e => {
  const rgb = s => s.match(/[\\d.]+/g).map(Number);
  let bg = null;
  for (let n = e; n; n = n.parentElement) {
    const c = rgb(getComputedStyle(n).backgroundColor);
    if (c.length < 4 || c[3] > 0) { bg = c; break; }
  }
  if (!bg) bg = rgb(getComputedStyle(document.documentElement).backgroundColor);
  return [rgb(getComputedStyle(e).color), bg];
})"""


def _shot(page, el) -> "Image.Image":
    return Image.open(io.BytesIO(el.screenshot())).convert("RGB")


def _dark_text_on_white(img) -> float:
    """The contrast of a figure's darkest text against its own background, read from its pixels: the
    background is the colour along its edges (their middles: the page rounds the corners), the text the
    darkest pixel."""
    w, h = img.size
    corners = [img.getpixel(p) for p in ((w // 2, 2), (w // 2, h - 3), (2, h // 2), (w - 3, h // 2))]
    assert all(min(c) >= 250 for c in corners), corners  # white: the dark page does not show through
    darkest = min((c for _, c in img.getcolors(w * h)), key=luminance)
    return contrast(darkest, corners[0])


@pytest.mark.parametrize("name", ["yolo-3x3-seed42.vi", "sdpa-causal-toi-di-hoc.en", "mha-seed-002.en"])
def test_html_page_follows_dark_scheme(browser, tmp_path, name):
    page = browser.new_page()
    page.emulate_media(color_scheme="dark")
    page.goto((NOTES / f"{name}.html").as_uri())
    page.wait_for_load_state("load")
    bg = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert luminance([int(x) for x in bg[bg.index("(") + 1:-1].split(",")]) < 0.02, bg  # a dark page
    # Body text, formulas (KaTeX inherits the colour), captions (a figure's <figcaption>), code,
    # table cells: each against what is behind it. WCAG AA asks 4.5:1 of body text; we ask it of every kind.
    for sel in ["p", ".katex", "figcaption", "pre code", "td", "th", "summary", "li"]:
        pairs = page.evaluate(COLOURS, sel)
        if sel in ("p", ".katex", "figcaption", "pre code", "summary"):
            assert pairs, sel
        for fg, back in pairs:
            assert contrast(fg, back) >= 4.5, (sel, fg, back)
    # KaTeX's rules (fraction bars, sqrt's vinculum) are drawn in the text colour too: light on dark.
    rule = page.evaluate("""() => { const e = document.querySelector('.katex .frac-line, .katex .sqrt > .root,'
                         + ' .katex .svg-align svg'); return e ? getComputedStyle(e).borderBottomColor
                         || getComputedStyle(e).color : null; }""")
    if rule:
        assert luminance([int(float(x)) for x in rule[rule.index("(") + 1:-1].split(",")[:3]]) > 0.5, rule
    figs = page.query_selector_all("img")
    assert figs
    for i, fig in enumerate(figs):
        fig.scroll_into_view_if_needed()
        img = _shot(page, fig)
        img.save(tmp_path / f"{name}-fig{i}.png")
        assert _dark_text_on_white(img) >= 7, (name, i)
    page.screenshot(path=str(tmp_path / f"{name}-dark.png"))
    page.close()


def test_html_page_light_scheme_unchanged(browser):
    page = browser.new_page()
    page.emulate_media(color_scheme="light")
    page.goto((NOTES / "hand-2x2.en.html").as_uri())
    page.wait_for_load_state("load")
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(255, 255, 255)"
    assert page.evaluate("getComputedStyle(document.body).color") == "rgb(31, 35, 40)"
    page.close()


@pytest.mark.parametrize("theme", list(DARK_BACKGROUNDS))
def test_course_figures_on_dark_theme_backgrounds(browser, tmp_path, theme):
    """Every committed figure, shown as Markdown viewers show it (an <img> on the theme's background):
    its corners are its own white, and its labels read at 7:1 or better against it."""
    svgs = sorted((NOTES / "figures").glob("*.svg"))
    assert len(svgs) >= 10
    # one page per theme holding every figure at its natural size, as GitHub and MkDocs place them
    html = tmp_path / f"{theme}.html"
    html.write_text(f'<!DOCTYPE html><html><body style="background:{DARK_BACKGROUNDS[theme]};margin:8px">'
                    + "".join(f'<p><img src="{p.as_uri()}"></p>' for p in svgs) + "</body></html>",
                    encoding="utf-8")
    page = browser.new_page()
    page.emulate_media(color_scheme="dark")
    page.goto(html.as_uri())
    page.wait_for_load_state("load")
    imgs = page.query_selector_all("img")
    assert len(imgs) == len(svgs)
    for p, el in zip(svgs, imgs):
        el.scroll_into_view_if_needed()
        assert el.evaluate("e => e.naturalWidth") > 100, p.name
        assert _dark_text_on_white(_shot(page, el)) >= 7, p.name
    page.close()
