"""``render --format ipynb``: a walkthrough as a Jupyter notebook that nbformat validates, that runs in a
real Jupyter kernel printing torch's numbers (the same as the note's snippet), and that ``attnwalk check``
reads exactly as the Markdown note: same verdicts, a planted wrong number found at its line of the file,
and --fix giving back the notebook's bytes."""

from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import attnwalk
from attnwalk.check import check_file
from attnwalk.ipynb import notebook_command
from attnwalk.render import render
from attnwalk.scenario import load_scenario

nbformat = pytest.importorskip("nbformat", reason="notebooks are validated with nbformat: pip install nbformat")

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "examples" / "scenarios"
CASES = {  # one per variant and language
    "hand-2x2.vi": dict(load_scenario(SCENARIOS / "hand-2x2.toml"), lang="vi"),
    "causal.en": dict(load_scenario(SCENARIOS / "toi-di-hoc-causal.toml"), lang="en"),
    "mha.en": dict(load_scenario(SCENARIOS / "mha-seed-002.toml"), lang="en"),
    "yolo.vi": dict(h=3, w=3, dim=4, heads=2, seed=42, lang="vi"),
}


def _both(options: dict) -> tuple[str, str]:
    trace = attnwalk.walk(**options)
    lang = trace.config["lang"]
    return render(trace, "md", lang), render(trace, "ipynb", lang)


def _snippet(md: str) -> str:
    return re.search(r"```python\n(.*?)```", md, re.S).group(1)


@pytest.mark.parametrize("case", CASES)
def test_the_notebook_is_valid_and_holds_the_note_cell_by_cell(case):
    """nbformat 4.5, valid; the front matter in a raw first cell; the PyTorch snippet the one code cell; and
    the cells' text put back together is the note (blank lines between cells aside)."""
    md, text = _both(CASES[case])
    nb = nbformat.reads(text, as_version=4)
    nbformat.validate(nb)
    assert (nb.nbformat, nb.nbformat_minor) == (4, 5)
    kinds = [c.cell_type for c in nb.cells]
    assert kinds[0] == "raw" and kinds.count("code") == 1 and kinds.count("raw") == 1
    assert nb.cells[0].source == md[: md.index("\n---\n", 4) + 4]
    (code,) = [c for c in nb.cells if c.cell_type == "code"]
    assert code.source == _snippet(md).rstrip("\n") and code.outputs == [] and code.execution_count is None
    headings = [ln for ln in md.split("\n") if ln.startswith("## ")]
    assert [c.source.split("\n")[0] for c in nb.cells if c.source.startswith("## ")] == headings
    joined = "\n".join("```python\n" + c.source + "\n```" if c.cell_type == "code" else c.source for c in nb.cells)

    def squeeze(s: str) -> str:
        return re.sub(r"\n{2,}", "\n", s).strip()
    # the regenerate command is the one line that differs: the notebook's writes the notebook
    want = re.sub(r"(?m)^(> )?attnwalk render .*$", lambda m: notebook_command(m.group()), md)
    assert want != md and squeeze(joined) == squeeze(want)


def test_same_inputs_same_bytes_across_processes(tmp_path):
    out = tmp_path / "n.ipynb"
    args = ["render", "--scenario", str(SCENARIOS / "toi-di-hoc-causal.toml"), "--format", "ipynb"]
    subprocess.run([sys.executable, "-m", "attnwalk", *args, "-o", str(out)], check=True)
    again = subprocess.run([sys.executable, "-m", "attnwalk", *args], check=True, capture_output=True, text=True)
    assert out.read_text(encoding="utf-8") == again.stdout == _both(CASES["causal.en"] | {"lang": "vi"})[1]


@pytest.mark.parametrize("case", CASES)
def test_check_reads_the_notebook_as_the_note_and_fix_gives_its_bytes_back(case, tmp_path):
    md, text = _both(CASES[case])
    note, nb = tmp_path / "n.md", tmp_path / "n.ipynb"
    note.write_text(md, encoding="utf-8")
    nb.write_text(text, encoding="utf-8")
    a, b = check_file(note), check_file(nb)
    assert not b.wrong and (len(a.verified), len(a.unknown)) == (len(b.verified), len(b.unknown))
    assert sorted(r.text for r in a.recs) == sorted(r.text for r in b.recs)
    # plant: the first weight the note's attention matrix A_0 prints, one unit of its last digit off
    lines = text.split("\n")
    at = next(i for i, ln in enumerate(lines) if re.match(r'\s*"A_0 =', ln)) + 2
    m = re.search(r"(\d+\.\d+)", lines[at])
    old = m.group(1)
    new = old[:-1] + str((int(old[-1]) + 1) % 10)
    lines[at] = lines[at][: m.start(1)] + new + lines[at][m.end(1):]
    nb.write_text("\n".join(lines), encoding="utf-8")
    wrong = check_file(nb).wrong
    assert [(r.line, r.text) for r in wrong] == [(at + 1, new)] and wrong[0].failure()[1] == old
    check_file(nb, fix="write")
    assert nb.read_text(encoding="utf-8") == text


@pytest.mark.parametrize("case", ["causal.en", "mha.en", "yolo.vi"])
def test_the_notebook_runs_in_a_jupyter_kernel_and_prints_the_snippets_numbers(case):
    """Executed by nbclient in an ipykernel (what Jupyter and Colab do), the code cell prints exactly what
    the note's snippet prints run here: torch's weights and outputs (test_teaching_rubric checks those
    against the note's matrices)."""
    nbclient = pytest.importorskip("nbclient", reason="running notebooks needs nbclient: pip install nbclient")
    pytest.importorskip("ipykernel", reason="running notebooks needs ipykernel: pip install ipykernel")
    torch = pytest.importorskip("torch", reason="the notebook's code cell needs PyTorch (CI installs the CPU build)")
    md, text = _both(CASES[case])
    nb = nbformat.reads(text, as_version=4)
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3").execute()
    (code,) = [c for c in nb.cells if c.cell_type == "code"]
    printed = "".join(o.get("text", "") for o in code.outputs if o.output_type == "stream")
    assert not [o for o in code.outputs if o.output_type == "error"]
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), torch.random.fork_rng():
        exec(compile(_snippet(md), "<snippet>", "exec"), {})
    assert printed == buf.getvalue() and re.search(r"\d\.\d{4}", printed)


def test_build_writes_the_courses_notebooks_beside_the_notes():
    """examples/course.toml asks for notebooks of hand-2x2 and mha-seed-002: each is the notebook of its
    note, and check finds every number right."""
    for name in ("hand-2x2", "mha-seed-002"):
        for lang in ("vi", "en"):
            md = (ROOT / "examples" / "notes" / f"{name}.{lang}.md").read_text(encoding="utf-8")
            path = ROOT / "examples" / "notes" / f"{name}.{lang}.ipynb"
            nb = json.loads(path.read_text(encoding="utf-8"))
            assert nb["cells"][0]["cell_type"] == "raw" and "".join(nb["cells"][0]["source"]) in md
            report = check_file(path)
            assert not report.wrong and len(report.verified) > 300


@pytest.mark.parametrize("name", ["hand-2x2.en", "mha-seed-002.vi"])
def test_the_notebooks_regenerate_command_writes_it_byte_for_byte(name, tmp_path):
    """The command a notebook of the course shows (``attnwalk render --format ipynb …``, run from the repository
    root) writes that notebook: to stdout, or to its ``-o`` path (here moved into a copy of the notes folder)."""
    import shlex

    path = ROOT / "examples" / "notes" / f"{name}.ipynb"
    nb = json.loads(path.read_text(encoding="utf-8"))
    (line,) = [s for c in nb["cells"] for s in c["source"] if s.startswith("> attnwalk render")]
    args = shlex.split(line[2:])
    assert args[:4] == ["attnwalk", "render", "--format", "ipynb"]
    if "-o" in args:
        notes = tmp_path / "notes"
        shutil.copytree(ROOT / "examples" / "notes" / "figures", notes / "figures")
        args[args.index("-o") + 1] = str(notes / path.name)
        args[args.index("--figures") + 1] = str(notes / "figures")
    out = subprocess.run([sys.executable, "-m", "attnwalk", *args[1:]], cwd=ROOT, check=True, capture_output=True,
                         text=True)
    written = (tmp_path / "notes" / path.name).read_text(encoding="utf-8") if "-o" in args else out.stdout
    assert written == path.read_text(encoding="utf-8")
