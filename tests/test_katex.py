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
