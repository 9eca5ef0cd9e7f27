"""The course's HTML pages as readers use their figures and print them (teaching audit #39-#44), in headless
Chromium (Debian's, driven by Playwright): a figure's cell numbers as rendered on a 390 px phone and a 1200 px
desktop, each figure a <figure> announced with its caption, and a page printed (or saved as PDF) by a reader
whose screen is dark: dark text on the white paper, every fold printed open."""

import base64
import re
from pathlib import Path

import pytest
from conftest import CHROMIUM, chromium_context
from test_figures_readers import cell_numbers, svg_width_pt
from test_html_dark import contrast

import attnwalk
from attnwalk import figures
from attnwalk.scenario import load_scenario

pytest.importorskip("matplotlib", reason="HTML notes inline figures: pip install 'attnwalk[figures]' (CI does)")
pytest.importorskip("playwright.sync_api", reason="pip install playwright (CI does; it uses the "
                    "system chromium, never a downloaded one)")

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium here: apt-get install chromium (CI does)")

ROOT = Path(__file__).resolve().parent.parent
NOTES = ROOT / "examples" / "notes"
FIGURE_PAGES = ["hand-2x2", "sdpa-causal-toi-di-hoc", "sdpa-cross-attention", "mha-seed-002", "yolo-3x3-seed42"]

IMAGES = """() => [...document.querySelectorAll('main img')].map(i => ({src: i.src, alt: i.alt,
  width: i.getBoundingClientRect().width, figure: !!i.closest('figure'),
  caption: (i.closest('figure') && i.closest('figure').querySelector('figcaption') || {}).textContent || null}))"""


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    yield from chromium_context(tmp_path_factory)


def _svg(src: str) -> str:
    assert src.startswith("data:image/svg+xml;base64,")
    return base64.b64decode(src.split(",", 1)[1]).decode("utf-8")


@pytest.mark.parametrize("width", [390, 1200])
@pytest.mark.parametrize("name", ["yolo-3x3-seed42.vi", "yolo-3x3-seed42.en", "mha-seed-002.vi",
                                  "sdpa-causal-toi-di-hoc.vi"])
def test_cell_numbers_read_at_9px_on_the_page(browser, name, width):
    """Measured on the page: each map's rendered width over its SVG's width in pt gives the px of its cell
    numbers' point size. A 390 px phone showed the 9 x 9 maps' numbers at 5 px (#35); now 9 px or more, on a
    phone and on a desktop page alike."""
    page = browser.new_page()
    page.set_viewport_size({"width": width, "height": 900})
    page.goto((NOTES / f"{name}.html").as_uri())
    page.wait_for_load_state("load")
    maps = 0
    for img in page.evaluate(IMAGES):
        svg = _svg(img["src"])
        nums = cell_numbers(svg) if '<g id="axes_2">' in svg else []
        if not nums:
            continue  # the shape flow (tests/test_figures.py reads it on a phone)
        px = min(pt for _, pt in nums) * img["width"] / svg_width_pt(svg)
        assert px >= 9.0, (name, width, img["alt"][:40], round(px, 2))
        maps += 1
    page.close()
    assert maps >= 1


@pytest.mark.parametrize("lang", ["vi", "en"])
@pytest.mark.parametrize("name", FIGURE_PAGES)
def test_each_figure_is_a_figure_with_its_caption(browser, name, lang):
    """An image and its caption were two paragraphs side by side: a screen reader met the caption as a loose
    italic line, and a page break could fall between them. Each is now a <figure> whose <figcaption> is the
    caption the trace gives (the head's extremes, the colour range) and whose alt text is the spec's."""
    opts = dict(load_scenario(ROOT / "examples" / "scenarios" / {
        "hand-2x2": "hand-2x2.toml", "sdpa-causal-toi-di-hoc": "toi-di-hoc-causal.toml",
        "sdpa-cross-attention": "cross-attention.toml", "mha-seed-002": "mha-seed-002.toml"}[name])) \
        if name != "yolo-3x3-seed42" else {"h": 3, "w": 3, "dim": 4, "heads": 2, "seed": 42, "pe_on": "o"}
    specs = figures.specs(attnwalk.walk(**opts), lang)
    page = browser.new_page()
    page.goto((NOTES / f"{name}.{lang}.html").as_uri())
    page.wait_for_load_state("load")
    imgs = page.evaluate(IMAGES)
    page.close()
    assert len(imgs) == len(specs)
    for img, spec in zip(imgs, specs):
        assert img["figure"], spec["key"]
        assert img["alt"] == spec["alt"]
        assert re.sub(r"\s+", " ", img["caption"]).strip() == spec["caption"].replace("*", "")


def _rgb(css: str) -> tuple[int, int, int]:
    return tuple(int(v) for v in re.findall(r"\d+", css)[:3])


@pytest.mark.parametrize("name", ["yolo-3x3-seed42.vi", "hand-2x2.en"])
def test_a_dark_reader_prints_dark_text_on_white(browser, tmp_path, name):
    """Chromium prints no backgrounds by default, so a dark reader's page printed its #e6edf3 text on white paper
    (1.1:1). In print the page takes the light palette whatever the scheme: body text and captions read on white."""
    page = browser.new_page()
    page.emulate_media(color_scheme="dark")
    page.goto((NOTES / f"{name}.html").as_uri())
    page.wait_for_load_state("load")
    assert contrast(_rgb(page.evaluate("getComputedStyle(document.body).color")), (13, 17, 23)) >= 7  # screen: dark
    page.emulate_media(media="print", color_scheme="dark")
    white = (255, 255, 255)
    assert contrast(_rgb(page.evaluate("getComputedStyle(document.body).color")), white) >= 7
    caption = page.evaluate("getComputedStyle(document.querySelector('figcaption')).color")
    assert contrast(_rgb(caption), white) >= 4.5
    katex = page.evaluate("getComputedStyle(document.querySelector('.katex')).color")
    assert contrast(_rgb(katex), white) >= 7
    page.close()


@pytest.mark.parametrize("name", ["yolo-3x3-seed42.vi", "hand-2x2.en", "mha-seed-002.vi"])
def test_printing_opens_every_fold_and_closes_them_after(browser, tmp_path, name):
    """A closed fold (the weights, the exercises' answers) printed as its summary line alone. Saving the page as
    PDF (Chromium's own print) now finds every fold open when it prints; those it opened close again after."""
    page = browser.new_page()
    page.goto((NOTES / f"{name}.html").as_uri())
    page.wait_for_load_state("load")
    folds = page.evaluate("document.querySelectorAll('details').length")
    assert folds >= 1
    page.evaluate("document.querySelector('details').open = true")  # one the reader opened stays open
    # registered after the page's own listener, so it sees the page as it is printed
    page.evaluate("window.closedAtPrint = -1; addEventListener('beforeprint', () => "
                  "{ window.closedAtPrint = document.querySelectorAll('details:not([open])').length; })")
    page.pdf(path=str(tmp_path / "page.pdf"))
    assert page.evaluate("window.closedAtPrint") == 0
    assert page.evaluate("[...document.querySelectorAll('details')].map(d => d.open)") == [True] + [False] * (folds - 1)
    page.close()


def test_print_keeps_figures_formulas_and_code_whole(browser):
    """On paper a page break fell through a figure, a matrix or a worked row, and a code block wider than the page
    was clipped at its edge (its scroll bar does not print). In print media each of these is kept whole
    (``break-inside: avoid``) and code wraps; on screen code still scrolls."""
    page = browser.new_page()
    page.goto((NOTES / "yolo-3x3-seed42.en.html").as_uri())
    page.wait_for_load_state("load")
    style = """([sel, prop]) => [...new Set([...document.querySelectorAll(sel)].map(e => getComputedStyle(e)[prop]))]"""
    assert page.evaluate(style, ["pre code.language-python", "whiteSpace"]) == ["pre"]  # screen: scrolls
    page.emulate_media(media="print")
    for sel in ("figure", ".math.block", "pre", "tr"):
        assert page.evaluate(style, [sel, "breakInside"]) == ["avoid"], sel
    assert page.evaluate(style, ["pre code", "whiteSpace"]) == ["pre-wrap"]
    page.close()
