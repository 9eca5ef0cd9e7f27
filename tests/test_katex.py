"""Every formula we emit parses in KaTeX (the engine of GitHub-like renderers, Obsidian, MkDocs).

CI installs KaTeX with ``npm install --prefix .ci/node katex@0.16`` (see .ci/run).
"""

import json
import re
import shutil
import subprocess
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
