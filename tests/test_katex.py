"""Every formula we emit parses in KaTeX (the engine of GitHub-like renderers, Obsidian, MkDocs).

CI installs KaTeX with ``npm install --prefix .ci/node katex@0.16`` (see .ci/run).
"""

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import attnwalk
from attnwalk.render import render

ROOT = Path(__file__).resolve().parent.parent
KATEX = ROOT / ".ci" / "node" / "node_modules" / "katex"

pytestmark = pytest.mark.skipif(
    shutil.which("node") is None or not KATEX.is_dir(),
    reason="KaTeX is not installed here: run `npm install --prefix .ci/node katex@0.16` (CI does)",
)


def formulas(md: str) -> list[dict]:
    """Display ($$ ... $$) and inline ($...$) math outside code blocks and code spans."""
    body = md.split("\n---\n", 1)[1] if md.startswith("---\n") else md
    body = re.sub(r"^```.*?^```", "", body, flags=re.M | re.S)
    out = [{"tex": t, "display": True} for t in re.findall(r"^\$\$\n(.*?)\n\$\$$", body, re.M | re.S)]
    body = re.sub(r"^\$\$\n.*?\n\$\$$", "", body, flags=re.M | re.S)
    body = re.sub(r"`[^`\n]*`", "", body)
    out += [{"tex": t, "display": False} for t in re.findall(r"(?<![\\$])\$([^$\n]+?)\$", body)]
    return out


def katex_errors(items: list[dict]) -> list[str]:
    proc = subprocess.run(["node", str(ROOT / "tests" / "js" / "katex_check.js")], input=json.dumps(items),
                          capture_output=True, text=True, env={"KATEX_MODULE": str(KATEX), "PATH": "/usr/bin:/bin"},
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    return [f"{e['error']}\n  in: {items[e['i']]['tex'][:200]}" for e in json.loads(proc.stdout)]


def notes() -> dict[str, str]:
    out = {}
    for lang in ("vi", "en"):
        for opts in (dict(), dict(pe_on="o"), dict(h=5, w=5, dim=8, heads=4, attn_ratio=1.0), dict(batch=2),
                     dict(h=2, w=2, dim=32, heads=2, input="normal")):
            out[f"{lang} {opts}"] = render(attnwalk.walk(lang=lang, **opts), "md", lang)
    for path in sorted((ROOT / "examples").rglob("*.md")):
        out[str(path.relative_to(ROOT))] = path.read_text(encoding="utf-8")
    return out


def test_every_formula_parses_in_katex():
    items, where = [], []
    for name, md in notes().items():
        for f in formulas(md):
            items.append(f)
            where.append(name)
    assert len(items) > 100
    errors = katex_errors(items)
    assert not errors, "\n".join(errors[:10])


def test_the_checker_of_this_test_rejects_bad_latex():
    errors = katex_errors([{"tex": r"\begin{bmatrix} 1 & 2 \\", "display": True},
                           {"tex": r"\frac{1}{", "display": False}, {"tex": r"x^2", "display": False}])
    assert len(errors) == 2


def github_misses(md: str) -> list[str]:
    """Inline ``$…$`` that GitHub's Markdown leaves as source: its opening ``$`` right after a non-space
    character (``($x$)``, ``[$x$, …]``, ``a$x$``) or its closing ``$`` right before a letter or digit
    (github/markup#1742, #1644; the pandoc rule GitHub follows)."""
    body = md.split("\n---\n", 1)[1] if md.startswith("---\n") else md
    body = re.sub(r"^```.*?^```", "", body, flags=re.M | re.S)
    body = re.sub(r"^\$\$\n.*?\n\$\$$", "", body, flags=re.M | re.S)
    out = []
    for line in body.split("\n"):
        line = re.sub(r"`[^`]*`", lambda m: "x" * len(m.group()), line)  # code spans hold no math
        for m in re.finditer(r"(?<![\\$])\$([^$\n]+?)\$", line):
            before = line[m.start() - 1] if m.start() else " "
            after = line[m.end()] if m.end() < len(line) else " "
            if not before.isspace() or after.isalnum():
                out.append(line[max(0, m.start() - 1): m.end() + 1])
    return out


def test_the_github_rule_of_this_test_finds_what_github_leaves_unrendered():
    assert github_misses("a ($x$) b [$y$, $z$] c $u$2 d") == ["($x$)", "[$y$,", " $u$2"]
    assert github_misses("a $x$, ($y$ b) and $z$.") == ["($y$ "]
    assert github_misses("| `dim` = $C$ | 4 |\n- $x$: ok, $\\frac{1}{2}$ ≈ 0.5\n$$\n(x)$y$\n$$\n") == []


def test_every_inline_formula_opens_and_closes_where_github_renders_it():
    """Every note (the course, its index, and walkthroughs of each variant) writes inline math that GitHub
    typesets: no ``($``, ``[$`` or ``x$``, no ``$2``."""
    docs = {name: md for name, md in notes().items() if "handwritten" not in name}  # the seeds are not ours
    for scen in sorted((ROOT / "examples" / "scenarios").glob("*.toml")):
        for lang in ("vi", "en"):
            proc = subprocess.run([sys.executable, "-m", "attnwalk", "render", "--scenario", str(scen), "--lang", lang],
                                  capture_output=True, text=True, check=True)
            docs[f"{scen.name} {lang}"] = proc.stdout
    bad = {name: found for name, md in docs.items() if (found := github_misses(md))}
    assert bad == {}


# --- MathJax (Jupyter, Colab, Obsidian) -------------------------------------------------------------------------

MATHJAX = ROOT / ".ci" / "node" / "node_modules" / "mathjax"
needs_mathjax = pytest.mark.skipif(
    shutil.which("node") is None or not MATHJAX.is_dir(),
    reason="MathJax is not installed here: run `npm install --prefix .ci/node mathjax@3` (CI does)")


def mathjax_errors(items: list[dict]) -> list[str]:
    proc = subprocess.run(["node", str(ROOT / "tests" / "js" / "mathjax_check.js")], input=json.dumps(items),
                          capture_output=True, text=True,
                          env={"MATHJAX_MODULE": str(MATHJAX), "PATH": "/usr/bin:/bin"}, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return [f"{e['error']}\n  in: {items[e['i']]['tex'][:200]}" for e in json.loads(proc.stdout)]


def notebook_cells() -> dict[str, str]:
    """The Markdown cells of the course's notebooks, by notebook and cell number."""
    out = {}
    for path in sorted((ROOT / "examples").rglob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        for i, cell in enumerate(cells):
            if cell["cell_type"] == "markdown":
                out[f"{path.name} cell {i}"] = "".join(cell["source"])
    return out


@needs_mathjax
def test_the_mathjax_checker_of_this_test_rejects_bad_latex():
    errors = mathjax_errors([{"tex": r"\undefinedmacro x", "display": False},
                             {"tex": r"\frac{1}{", "display": False},
                             {"tex": r"\begin{bmatrix} 1 & 2 \\ 3 & 4 \end{bmatrix}", "display": True},
                             {"tex": r"\operatorname{softmax}(\tilde{S}_0[0, :]) \vert \text{học}", "display": False}])
    assert [e.split("\n")[0] for e in errors] == ["Undefined control sequence \\undefinedmacro",
                                                  "Missing close brace"]


@needs_mathjax
def test_every_formula_parses_in_mathjax():
    """MathJax 3 (TeX base + AMS, as Jupyter, Colab and Obsidian load it) typesets every formula of every note
    and of every notebook's Markdown cells: MathJax and KaTeX accept different macro sets."""
    items = [f for md in {**notes(), **notebook_cells()}.values() for f in formulas(md)]
    assert len(items) > 1000
    errors = mathjax_errors(items)
    assert not errors, "\n".join(errors[:10])


# JupyterLab's removeMath (packages/rendermime/src/latex.ts), restated in Python: before Markdown is parsed,
# Jupyter (and Colab, which follows it) cuts the math out of a cell by scanning for `$`, `$$`, `\begin{..}`
# and braces, with `$` inside code spans and fences hidden first; math never runs across a blank line, and a
# closing delimiter counts only where braces balance. What it cuts out is what MathJax typesets.
MATHSPLIT = re.compile(r"(\$\$?|\\(?:begin|end)\{[a-z]*\*?\}|\\[{}$]|[{}]|(?:\n\s*)+|@@\d+@@|\\\\(?:\(|\)|\[|\]))",
                       re.I)


def jupyter_math(text: str) -> list[str]:
    """The math strings (with their delimiters) Jupyter's Markdown renderer finds in a cell."""
    hidden = "`" in text or "~~~" in text
    if hidden:  # `$` inside code is not math: hidden as ~D (and ~ itself as ~T) while scanning
        text = text.replace("~", "~T")
        text = re.sub(r"^(?P<f>`{3,}|(?:~T){3,})[^`\n]*\n[\s\S]*?^(?P=f)`*$", lambda m: m.group().replace("$", "~D"),
                      text, flags=re.M)
        text = re.sub(r"(^|[^\\])(`+)([^\n]*?[^`\n])\2(?!`)", lambda m: m.group().replace("$", "~D"), text,
                      flags=re.M)

    def untilde(s: str) -> str:
        return re.sub(r"~([TD])", lambda m: "~" if m.group(1) == "T" else "$", s) if hidden else s

    blocks = MATHSPLIT.split(text.replace("\r\n", "\n").replace("\r", "\n"))
    math: list[str] = []
    start = end = last = None
    braces = 0

    def take(i: int, j: int) -> None:
        math.append(untilde("".join(blocks[i:j + 1])))
        blocks[i:j + 1] = [f"@@{len(math) - 1}@@"] + [""] * (j - i)

    i = 1
    while i < len(blocks):
        b = blocks[i]
        if start is not None:
            if b == end:
                if braces:
                    last = i
                else:
                    take(start, i)
                    start = end = last = None
            elif re.search(r"\n.*\n", b):  # a blank line: the math was not math
                if last is not None:
                    i = last
                    take(start, i)
                start = end = last = None
                braces = 0
            elif b == "{":
                braces += 1
            elif b == "}" and braces:
                braces -= 1
        elif b in ("$", "$$"):
            start, end, braces = i, b, 0
        elif b[1:6] == "begin":
            start, end, braces = i, "\\end" + b[6:], 0
        i += 2
    if start is not None and last is not None:
        take(start, last)
    return math


def test_the_jupyter_math_splitter_by_hand():
    # JupyterLab's own test cases of removeMath, and the two rules a note can trip over
    assert jupyter_math("hello, $ /alpha $, there") == ["$ /alpha $"]
    assert jupyter_math("`$foo` and `$bar` are variables") == []
    assert jupyter_math("a $x_{1}$ b\n\n$$\nA = \\begin{bmatrix} 1 \\\\ 2 \\end{bmatrix}\n$$\n") == [
        "$x_{1}$", "$$\nA = \\begin{bmatrix} 1 \\\\ 2 \\end{bmatrix}\n$$"]
    assert jupyter_math("$$\na\n\nb\n$$") == []  # a blank line ends the math: shown as source
    assert jupyter_math("```\n$ echo $HOME\n```\n$y$") == ["$y$"]
    assert jupyter_math("$a}$ and $b$") == ["$a}$", "$b$"]
    # an unbalanced brace: the math runs on to the last `$` it met, swallowing the next formula
    assert jupyter_math("$\\frac{1}{2$ x $y$") == ["$\\frac{1}{2$ x $y$"]


def test_every_notebook_cell_shows_jupyter_the_math_we_wrote():
    """In every Markdown cell of the course's notebooks, Jupyter's splitter finds exactly the formulas we
    wrote ($…$ and $$ blocks), each whole: no `$` of code taken for math, no formula cut at a blank line or
    an unbalanced brace, no `\\begin` outside math."""
    cells = notebook_cells()
    assert len(cells) > 20
    bad = {}
    for name, md in cells.items():
        ours = sorted(f"$$\n{f['tex']}\n$$" if f["display"] else f"${f['tex']}$" for f in formulas(md))
        if (got := sorted(jupyter_math(md))) != ours:
            bad[name] = ([m for m in got if m not in ours][:3], [m for m in ours if m not in got][:3])
    assert bad == {}


def obsidian_misses(md: str) -> list[str]:
    """Math Obsidian shows as source or breaks on: inline ``$…$`` with a space just inside a delimiter (Obsidian,
    like pandoc, reads `$ x $` as text), a `|` inside math in a table row (it splits the cell), a `$$` line
    indented or inside a quote (a block only opens at a line's start outside a container we do not write)."""
    body = md.split("\n---\n", 1)[1] if md.startswith("---\n") else md
    body = re.sub(r"^```.*?^```", "", body, flags=re.M | re.S)
    out = [line for line in body.split("\n") if line.strip() == "$$" and line != "$$"]
    body = re.sub(r"^\$\$\n.*?\n\$\$$", "", body, flags=re.M | re.S)
    for line in body.split("\n"):
        line = re.sub(r"`[^`]*`", lambda m: "x" * len(m.group()), line)
        for m in re.finditer(r"(?<![\\$])\$([^$\n]+?)\$", line):
            tex = m.group(1)
            if tex[0].isspace() or tex[-1].isspace() or (line.lstrip().startswith("|") and "|" in tex):
                out.append(m.group())
    return out


def test_the_obsidian_rule_of_this_test():
    assert obsidian_misses("a $ x $ b $y$\n| $a|b$ | 1 |\n  $$\nz\n  $$\n") == ["  $$", "  $$", "$ x $", "$a|b$"]
    assert obsidian_misses("a $x$ b\n| $\\vert a \\vert$ | 1 |\n$$\nx | y\n$$\n") == []


def test_every_formula_is_one_obsidian_renders():
    docs = {name: md for name, md in {**notes(), **notebook_cells()}.items() if "handwritten" not in name}
    bad = {name: found for name, md in docs.items() if (found := obsidian_misses(md))}
    assert bad == {}
