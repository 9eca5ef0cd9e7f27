"""attnwalk build: manifests, unchanged notes left alone, --check diffs, paths kept inside."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from attnwalk import render as render_mod
from attnwalk.build import BuildError, build, load_manifest
from attnwalk.cli import main

REPO = Path(__file__).resolve().parent.parent
COURSE = REPO / "examples" / "course.toml"

SMALL = """
[[walkthrough]]
name = "tiny"
options = { h = 2, w = 2, heads = 2, seed = 1 }
langs = ["vi", "en"]
output = "notes/{name}.{lang}.md"
"""


def _course(tmp_path: Path, text: str = SMALL) -> Path:
    m = tmp_path / "course.toml"
    m.write_text(text, encoding="utf-8")
    return m


def test_build_writes_then_leaves_unchanged_notes_alone(tmp_path):
    m = _course(tmp_path)
    res = build(m)
    assert res.written == ["notes/tiny.vi.md", "notes/tiny.en.md"]
    vi = tmp_path / "notes" / "tiny.vi.md"
    assert vi.read_text(encoding="utf-8").startswith("---\n")
    os.utime(vi, ns=(1, 1))
    res = build(m)
    assert res.written == [] and len(res.unchanged) == 2
    assert os.stat(vi).st_mtime_ns == 1  # not rewritten


def test_build_check_passes_when_fresh_and_fails_with_a_diff_when_stale(tmp_path, capsys):
    m = _course(tmp_path)
    build(m)
    assert main(["build", "--check", str(m)]) == 0
    vi = tmp_path / "notes" / "tiny.vi.md"
    text = vi.read_text(encoding="utf-8")
    vi.write_text(text.replace("## 1.", "## 1 (edited).", 1), encoding="utf-8")
    capsys.readouterr()
    assert main(["build", "--check", str(m)]) == 1
    out = capsys.readouterr()
    assert "--- notes/tiny.vi.md (committed)" in out.out and "+## 1." in out.out
    assert vi.read_text(encoding="utf-8") != text  # --check wrote nothing


def test_build_check_fails_after_a_template_edit(tmp_path, monkeypatch, capsys):
    """Render with a temporary copy of the templates, one line changed: every note is stale."""
    m = _course(tmp_path)
    build(m)
    templates = tmp_path / "templates"
    shutil.copytree(render_mod.templates_dir(), templates)
    vi = templates / "yolo" / "vi.md.j2"
    vi.write_text(vi.read_text(encoding="utf-8").replace("## 1. ", "## 1) ", 1), encoding="utf-8")
    monkeypatch.setattr(render_mod, "templates_dir", lambda: templates)
    render_mod.environment.cache_clear()
    try:
        assert main(["build", "--check", str(m)]) == 1
        out = capsys.readouterr()
        assert "+## 1) " in out.out and "notes/tiny.vi.md" in out.err
        assert "notes/tiny.en.md" not in out.out  # only the edited language is stale
    finally:
        render_mod.environment.cache_clear()


def test_output_outside_the_manifest_folder_is_refused(tmp_path, capsys):
    (tmp_path / "course").mkdir()
    m = _course(tmp_path / "course", SMALL.replace('"notes/{name}.{lang}.md"', '"../escape/{name}.{lang}.md"'))
    assert main(["build", str(m)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "outside the manifest's folder" in err[0]
    assert not (tmp_path / "escape").exists()


@pytest.mark.parametrize("bad, message", [
    ("", "no [[walkthrough]]"),
    ('[[walkthrough]]\nname = "a"\n', "'output' is required"),
    ('[[walkthrough]]\nname = "a"\noutput = "a.md"\ncolour = 1\n', "unknown key 'colour'"),
    ('[[walkthrough]]\nname = "a"\noutput = "a.md"\nlangs = ["vi", "en"]\n', "needs {lang}"),
    ('[[walkthrough]]\nname = "a"\noutput = "x/{lang}.md"\n[[walkthrough]]\nname = "b"\noutput = "x/{lang}.md"\n',
     "also written by"),
])
def test_bad_manifests_are_one_line_errors(tmp_path, bad, message):
    with pytest.raises(BuildError, match=message.replace("[", r"\[").replace("{", r"\{")):
        load_manifest(_course(tmp_path, bad))


def test_bad_option_in_manifest_names_the_walkthrough(tmp_path, capsys):
    m = _course(tmp_path, SMALL.replace("heads = 2", "heads = 3"))
    assert main(["build", str(m)]) == 2
    err = capsys.readouterr().err
    assert "tiny" in err and "--heads" in err


def test_committed_course_is_up_to_date():
    """The committed examples are exactly what `attnwalk build` produces (like `cog --check`)."""
    res = build(COURSE, check=True)
    assert res.stale == [], "run `attnwalk build` and commit examples/notes:\n" + "".join(res.diffs)[:3000]
    assert len(res.unchanged) >= 4


def test_committed_notes_check_clean(capsys):
    notes = sorted(str(p) for p in (REPO / "examples" / "notes").glob("*.md"))
    assert notes
    assert main(["check", *notes]) == 0
    for line in capsys.readouterr().out.splitlines():
        assert " 0 wrong" in line


def test_figures_and_html_are_built_and_checked(tmp_path):
    """`figures = true` writes SVGs in notes/figures/ linked from the note; `formats` adds the HTML page;
    `--check` compares them too (a changed figure makes the build stale)."""
    import pytest

    pytest.importorskip("matplotlib", reason="figures need matplotlib: pip install 'attnwalk[figures]' (CI does)")
    from attnwalk.build import build

    (tmp_path / "c.toml").write_text('[[walkthrough]]\nname = "y"\noptions = { h = 2, w = 2, heads = 1 }\n'
                                     'langs = ["en"]\noutput = "notes/{name}.{lang}.md"\nfigures = true\n'
                                     'formats = ["md", "html"]\n', encoding="utf-8")
    res = build(tmp_path / "c.toml")
    assert sorted(res.written) == ["notes/figures/y.en-attn-h0.svg", "notes/figures/y.en-look-p0.svg",
                                   "notes/figures/y.en-shapes.svg", "notes/y.en.html", "notes/y.en.md"]
    md = (tmp_path / "notes" / "y.en.md").read_text(encoding="utf-8")
    assert "](figures/y.en-attn-h0.svg)" in md
    assert 'src="data:image/svg+xml;base64,' in (tmp_path / "notes" / "y.en.html").read_text(encoding="utf-8")
    assert build(tmp_path / "c.toml", check=True).stale == []
    (tmp_path / "notes" / "figures" / "y.en-attn-h0.svg").write_text("<svg/>", encoding="utf-8")
    assert build(tmp_path / "c.toml", check=True).stale == ["notes/figures/y.en-attn-h0.svg"]


def test_bad_figures_and_formats_keys_are_one_line(tmp_path):
    import pytest

    from attnwalk.build import BuildError, load_manifest

    for extra, message in (('figures = "yes"', "figures: got 'yes'; allowed: true, false"),
                           ('formats = ["md", "pdf"]',
                            "formats: got ['md', 'pdf']; allowed: a list of md, html, ipynb, json")):
        (tmp_path / "c.toml").write_text(f'[[walkthrough]]\nname = "y"\noutput = "n/{{name}}.md"\n{extra}\n',
                                         encoding="utf-8")
        with pytest.raises(BuildError, match=message.replace("[", r"\[").replace("]", r"\]")):
            load_manifest(tmp_path / "c.toml")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.toml"]


def _rendered_figure_files(options: dict, lang: str, stem: str) -> list[str]:
    """The SVG files `attnwalk render --figures` writes for a note (render_with_figures' file list)."""
    from attnwalk.api import walk
    from attnwalk.render import render_with_figures

    trace = walk(**options)
    return sorted(render_with_figures(trace, "md", lang, stem, "figures", draw=False)[1])


def test_manifest_lists_figures_without_the_engine_and_they_are_what_a_render_writes(monkeypatch):
    from attnwalk import api

    def no_engine(**options):
        raise AssertionError("load_manifest ran the engine")

    real_walk = api.walk
    monkeypatch.setattr(api, "walk", no_engine)
    jobs = load_manifest(COURSE)
    monkeypatch.setattr(api, "walk", real_walk)
    notes = [j for j in jobs if j.figures and j.format == "md"]
    assert len({j.name for j in notes}) >= 3  # every figure note of the course, each language
    for note in notes:
        listed = sorted(j.path.name for j in jobs if j.format == "svg" and j.name == note.name
                        and j.lang == note.lang and j.path.parent == note.path.parent / "figures")
        assert listed == _rendered_figure_files(note.options, note.lang, note.path.stem), note.name


@pytest.mark.parametrize("options", [
    dict(h=3, w=2, heads=1, seed=0), dict(h=2, w=2, dim=8, heads=4),
    dict(variant="sdpa", tokens=3, heads=2, mask="causal", source="project"),
    dict(variant="mha", tokens=3, dim=6, heads=3)])
def test_figure_keys_from_the_config_equal_a_render_for_every_variant(options):
    from attnwalk.build import figure_keys

    derived = sorted(f"n-{key}.svg" for key in figure_keys(options))
    assert derived == _rendered_figure_files(options, "en", "n")


def test_figure_keys_of_given_scores_are_one_head():
    from attnwalk.api import walk
    from attnwalk.build import figure_keys
    from attnwalk.figures import specs

    options = dict(variant="sdpa", source="scores", scores=[[1.0, 2.0, 0.0], [0.5, -1.0, 3.0]], heads=1)
    assert figure_keys(options) == [s["key"] for s in specs(walk(**options), "en")] == ["shapes", "attn-h0"]


def test_build_check_names_only_what_is_stale(tmp_path, capsys):
    """Under ``--check`` (a pre-commit hook, CI) the notes that are up to date print no line of their own, as
    ``cog --check`` does: an up-to-date course gives its one summary line, a stale note its own line (teaching
    audit #74: 58 "unchanged" lines stood before the one stale note's diff)."""
    m = _course(tmp_path)
    assert main(["build", str(m)]) == 0
    capsys.readouterr()
    assert main(["build", "--check", str(m)]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].endswith("note(s) up to date")
    vi = tmp_path / "notes" / "tiny.vi.md"
    vi.write_text(vi.read_text(encoding="utf-8").replace("## 1. ", "## 1) ", 1), encoding="utf-8")
    assert main(["build", "--check", str(m)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert [line.split("] ", 1)[1] for line in err if line.startswith("[")] == ["notes/tiny.vi.md: stale"]
    assert not any("unchanged" in line for line in err)
