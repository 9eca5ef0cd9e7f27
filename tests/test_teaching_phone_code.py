"""Teaching audit #38: on a 390 px phone the worked rows (code fences with no language) were set in the
browser's 13 px monospace default scaled down (9.4 px) and scrolled past their box's edge. They now wrap at
their spaces with a hanging indent, at 11.5 px, while their text (what is copied, and the Markdown that
check reads) is the fence's, line for line; a desktop page keeps them unwrapped."""

from pathlib import Path

import pytest
from conftest import CHROMIUM, chromium_context

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium here: apt-get install chromium (CI does)")

NOTES = Path(__file__).resolve().parent.parent / "examples" / "notes"
PAGES = ["yolo-3x3-seed42", "mha-seed-002", "sdpa-causal-toi-di-hoc", "yolo-8x8-seed42"]
WORKED = """() => [...document.querySelectorAll('pre code:not([class*="language-"])')].map(c => {
  const pre = c.parentElement, st = getComputedStyle(c), left = c.getBoundingClientRect().left;
  const ch = parseFloat(st.fontSize) * 0.6;  // a monospace column, about
  // each line's boxes: a wrapped line has more than one, its later ones start past the line's own start
  const hang = [...c.querySelectorAll('.wl')].map(s => {
    const rg = document.createRange();
    rg.selectNodeContents(s);
    const r = [...rg.getClientRects()];
    return r.length < 2 ? null : [r[0].left - left, Math.min(...r.slice(1).map(x => x.left)) - left, ch];
  }).filter(x => x);
  return {text: c.textContent, size: parseFloat(st.fontSize), ws: st.whiteSpace,
          over: pre.scrollWidth - pre.clientWidth, right: pre.getBoundingClientRect().right, hang: hang};
})"""


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    yield from chromium_context(tmp_path_factory)


def fences(md: str) -> list[str]:
    """The Markdown's code fences with no language, as text (the lines check reads)."""
    out, body, lang = [], None, None
    for line in md.split("\n"):
        if body is None and line.startswith("```"):
            body, lang = [], line[3:].strip()
        elif body is not None and line == "```":
            if not lang:
                out.append("\n".join(body))
            body = None
        elif body is not None:
            body.append(line)
    return out


def worked_blocks(browser, path: Path, width: int) -> list[dict]:
    page = browser.new_page()
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(path.as_uri())
    page.evaluate("document.fonts.ready")
    page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
    page.evaluate("new Promise(r => setTimeout(r, 100))")
    blocks = page.evaluate(WORKED)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.close()
    return blocks


@pytest.mark.parametrize("name", PAGES)
@pytest.mark.parametrize("lang", ["vi", "en"])
def test_worked_rows_wrap_readably_on_a_phone(browser, name, lang):
    md = (NOTES / f"{name}.{lang}.md").read_text(encoding="utf-8")
    blocks = worked_blocks(browser, NOTES / f"{name}.{lang}.html", 390)
    assert [b["text"].rstrip("\n") for b in blocks] == [f.rstrip("\n") for f in fences(md)]  # the same lines
    assert blocks and all(b["ws"] == "pre-wrap" for b in blocks)
    assert all(b["size"] >= 11 for b in blocks), [b["size"] for b in blocks]
    assert all(b["over"] <= 1 and b["right"] <= 390 for b in blocks), [(b["over"], b["text"][:40]) for b in blocks]
    hangs = [h for b in blocks for h in b["hang"]]
    assert hangs  # some row is long enough to wrap at 390 px
    # a wrapped part hangs about two columns past its own line's first character (its leading spaces kept)
    assert all(later >= first + 1.5 * ch for first, later, ch in hangs), hangs[:3]


@pytest.mark.parametrize("lang", ["vi", "en"])
def test_worked_rows_stay_unwrapped_on_a_desktop_page(browser, lang):
    blocks = worked_blocks(browser, NOTES / f"yolo-3x3-seed42.{lang}.html", 1200)
    assert blocks and all(b["ws"] == "pre" and not b["hang"] for b in blocks)
