"""attnwalk build in parallel and incrementally: same bytes as serial, unchanged inputs skipped,
changed config/templates/notes rebuilt, closed forms computed once per walkthrough."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from attnwalk import build as build_mod
from attnwalk import exact
from attnwalk import render as render_mod
from attnwalk.build import CACHE_NAME, build

REPO = Path(__file__).resolve().parent.parent

COURSE = """
[[walkthrough]]
name = "a"
options = { h = 2, w = 2, heads = 2, seed = 1 }
langs = ["vi", "en"]
output = "notes/{name}.{lang}.md"

[[walkthrough]]
name = "b"
options = { variant = "sdpa", tokens = 3, mask = "causal", seed = 5 }
langs = ["en", "vi"]
output = "notes/{name}.{lang}.md"

[[walkthrough]]
name = "c"
options = { variant = "mha", tokens = 3, dim = 4, heads = 2 }
output = "notes/{name}.md"
"""


def _course(root: Path, text: str = COURSE) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    m = root / "course.toml"
    m.write_text(text, encoding="utf-8")
    return m


def _notes(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((root / "notes").glob("*.md"))}


def test_parallel_build_equals_serial_byte_for_byte_with_ordered_progress(tmp_path):
    lines: dict[int, list] = {1: [], 2: []}
    for workers in (1, 2):
        m = _course(tmp_path / f"w{workers}")
        res = build(m, workers=workers, progress=lambda *a, w=workers: lines[w].append(a))
        assert len(res.written) == 5
    assert _notes(tmp_path / "w1") == _notes(tmp_path / "w2") and len(_notes(tmp_path / "w1")) == 5
    assert lines[1] == lines[2] == [(n, 5, s, "written") for n, s in enumerate(
        ["notes/a.vi.md", "notes/a.en.md", "notes/b.en.md", "notes/b.vi.md", "notes/c.md"], start=1)]
    # Each note equals what one `render` of that language gives on its own.
    for lang in ("vi", "en"):
        job = next(j for j in build_mod.load_manifest(tmp_path / "w2" / "course.toml") if j.lang == lang)
        assert build_mod.render_job(job).encode() == (tmp_path / "w2" / "notes" / f"a.{lang}.md").read_bytes()


def test_unchanged_inputs_are_skipped_without_rendering(tmp_path, monkeypatch):
    m = _course(tmp_path)
    build(m, workers=1)
    assert (tmp_path / CACHE_NAME).is_file()

    def boom(jobs):
        raise AssertionError(f"rendered {jobs[0].name} although nothing changed")

    monkeypatch.setattr(build_mod, "render_group", boom)
    res = build(m, workers=1)
    assert res.written == [] and len(res.skipped) == len(res.unchanged) == 5


def test_changed_config_template_or_note_is_rebuilt(tmp_path, monkeypatch):
    m = _course(tmp_path)
    build(m, workers=1)
    before = _notes(tmp_path)
    # a config change: only walkthrough "a" is rendered again
    m.write_text(COURSE.replace("seed = 1 }", "seed = 2 }"), encoding="utf-8")
    res = build(m, workers=1)
    assert res.written == ["notes/a.vi.md", "notes/a.en.md"] and len(res.skipped) == 3
    assert _notes(tmp_path)["a.vi.md"] != before["a.vi.md"]
    # a hand-edited note: rebuilt from its (unchanged) inputs
    note = tmp_path / "notes" / "c.md"
    good = note.read_bytes()
    note.write_text("edited\n", encoding="utf-8")
    res = build(m, workers=1)
    assert res.written == ["notes/c.md"] and note.read_bytes() == good
    # a template edit: every note re-rendered; the edited language's notes change
    templates = tmp_path / "templates"
    shutil.copytree(render_mod.templates_dir(), templates)
    vi = templates / "yolo" / "vi.md.j2"
    vi.write_text(vi.read_text(encoding="utf-8").replace("## 1. ", "## 1) ", 1), encoding="utf-8")
    monkeypatch.setattr(render_mod, "templates_dir", lambda: templates)
    render_mod.environment.cache_clear()
    try:
        res = build(m, workers=1)
    finally:
        render_mod.environment.cache_clear()
    assert res.written == ["notes/a.vi.md"] and res.skipped == []
    assert "## 1) " in (tmp_path / "notes" / "a.vi.md").read_text(encoding="utf-8")


def test_check_compares_content_even_when_the_cache_says_fresh(tmp_path):
    m = _course(tmp_path)
    build(m, workers=1)
    note = tmp_path / "notes" / "a.en.md"
    note.write_text(note.read_text(encoding="utf-8") + "tampered\n", encoding="utf-8")
    cache = json.loads((tmp_path / CACHE_NAME).read_text(encoding="utf-8"))
    import hashlib

    cache["notes/a.en.md"]["output"] = hashlib.sha256(note.read_bytes()).hexdigest()  # a lying cache
    (tmp_path / CACHE_NAME).write_text(json.dumps(cache), encoding="utf-8")
    res = build(m, check=True, workers=1)
    assert res.stale == ["notes/a.en.md"] and "+tampered" not in res.diffs[0] and "-tampered" in res.diffs[0]


def test_closed_forms_are_computed_once_per_walkthrough(tmp_path, monkeypatch):
    scenario = REPO / "examples" / "scenarios" / "hand-2x2.toml"
    m = _course(tmp_path, f"""
[[walkthrough]]
name = "hand-2x2"
scenario = "{scenario.as_posix()}"
langs = ["vi", "en"]
output = "notes/{{name}}.{{lang}}.md"
figures = true
formats = ["md", "html", "ipynb"]
""")
    calls = []
    real = exact.closed_forms
    monkeypatch.setattr(exact, "closed_forms", lambda *a, **k: calls.append(1) or real(*a, **k))
    res = build(m, workers=1)
    assert len([p for p in res.written if str(p).endswith(".md")]) == 2 and len(calls) == 1
    for lang in ("vi", "en"):  # the shared closed forms are those the committed notes show
        assert (tmp_path / "notes" / f"hand-2x2.{lang}.md").read_text(encoding="utf-8") == \
            (REPO / "examples" / "notes" / f"hand-2x2.{lang}.md").read_text(encoding="utf-8")


def test_a_no_op_build_never_imports_multiprocessing(tmp_path):
    """A no-op rebuild should cost about one start-up: it renders nothing, so it does not pay the ~6-12 ms import of
    multiprocessing that only a pool of workers (8 notes or more to render) needs."""
    import subprocess
    import sys

    m = _course(tmp_path)
    build(m)
    code = ("import sys; from attnwalk.cli import main\n"
            "try:\n    main(['build', sys.argv[1]])\nexcept SystemExit:\n    pass\n"
            "print('multiprocessing' in sys.modules, file=sys.stderr)")
    out = subprocess.run([sys.executable, "-c", code, str(m)], capture_output=True, text=True, check=True)
    assert out.stderr.split()[-1] == "False", out.stderr
