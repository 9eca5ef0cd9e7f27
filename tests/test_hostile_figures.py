"""Figures of given scores (sdpa ``source = "scores"``): no q, k in the trace, so the figure views
must not ask for them (they raised KeyError: 'q'). The figures drawn are the ones that make sense,
and the list is the same whether derived from the config (``build.figure_keys``, no engine) or
from the trace (``figures.specs``)."""

from __future__ import annotations

import io
import re

import numpy as np
import pytest
from hostile import assert_clean, assert_untouched, run_cli, snapshot

import attnwalk
from attnwalk import figures
from attnwalk.build import figure_keys

pytest.importorskip("matplotlib", reason="figures need matplotlib: pip install 'attnwalk[figures]' (CI does)")

SCORES = [[1, 2, 0], [3, -1, 2]]  # 2 queries x 3 keys
V = [[1, 0], [0, 1], [2, 2]]  # 3 keys x d_v = 2
CASES = [
    dict(variant="sdpa", source="scores", scores=SCORES),
    dict(variant="sdpa", source="scores", scores=SCORES, v=V),
    dict(variant="sdpa", source="scores", scores=SCORES, v=V, mask="padding:1", mask_fill="-1e9"),
    dict(variant="sdpa", source="scores", scores=[[0.5]], v=[[2, 3, 4]], scale=0.5),
]


def _softmax(s: np.ndarray) -> np.ndarray:
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


@pytest.mark.parametrize("options", CASES, ids=["scores", "scores+v", "masked", "1x1 scaled"])
@pytest.mark.parametrize("lang", ["vi", "en"])
def test_given_scores_draw_every_figure_their_config_lists(options, lang):
    trace = attnwalk.walk(**options, lang=lang)
    keys = [spec["key"] for spec in figures.specs(trace, lang)]
    assert keys == figure_keys({**options, "lang": lang}) == ["shapes", "attn-h0"]
    for key in keys:
        assert figures.svg(trace, key, lang).startswith("<?xml")


@pytest.mark.parametrize("options", CASES, ids=["scores", "scores+v", "masked", "1x1 scaled"])
def test_shape_flow_of_given_scores_is_their_sizes(options):
    """S is N x M as given, A has its shape, and O = A V (N x d_v) only when v is given: sizes from
    the tables themselves, not from the engine."""
    s = np.array(options["scores"], dtype=float)
    boxes = [b for row, _ in figures.flow(attnwalk.walk(**options), figures.WORDS["en"]) for b in row]
    n, m = s.shape
    want = [("S", (1, 1, n, m))]
    if "v" in options:
        v = np.array(options["v"], dtype=float)
        want.append(("v", (1, 1) + v.shape))
    if "mask" in options:
        want.append(("S masked", (1, 1, n, m)))
    want.append(("A", (1, 1, n, m)))
    if "v" in options:
        o = (s @ v).shape
        want += [("O", (1, 1) + o), ("Out", (1,) + o)]
    assert boxes == want


def test_heatmap_of_given_scores_shows_their_softmax():
    """The cells of the heatmap are softmax(scale * scores), computed here from the table alone."""
    import matplotlib
    import matplotlib.figure  # the submodule: ``import matplotlib`` alone does not load it

    options = CASES[3] | {"scores": SCORES, "v": V, "scale": 0.5}
    trace = attnwalk.walk(**options)
    with matplotlib.rc_context({"svg.fonttype": "none"}):
        fig = matplotlib.figure.Figure()
        figures._draw_heatmap(fig, trace, 0, figures.WORDS["en"])
        buf = io.StringIO()
        fig.savefig(buf, format="svg")
    shown = re.findall(r">(0\.\d{4}|1\.0000)<", buf.getvalue())  # a 2 x 3 map shows the note's 4 decimals
    want = _softmax(0.5 * np.array(SCORES, dtype=float))
    assert sorted(shown) == sorted(f"{x:.4f}" for x in want.ravel())


def _course(tmp_path, entry: str):
    (tmp_path / "scores.toml").write_text('variant = "sdpa"\nsource = "scores"\nscores = [[1, 2, 0], [3, -1, 2]]\n'
                                          'v = [[1, 0], [0, 1], [2, 2]]\n')
    (tmp_path / "course.toml").write_text('[[walkthrough]]\nname = "s"\nscenario = "scores.toml"\n'
                                          'output = "notes/{name}.md"\nfigures = true\n' + entry)
    return tmp_path


def test_build_draws_the_figures_of_a_json_trace_of_given_scores(tmp_path):
    """A manifest may ask for the trace of given scores with its figures: they are drawn (this raised
    KeyError: 'q'), exactly the files figure_keys lists, and --check agrees with what was written."""
    root = _course(tmp_path, 'formats = ["json"]\n')
    answer = run_cli(["build", "course.toml"], cwd=root)
    assert answer.code == 0 and "Traceback" not in answer.err, answer.err
    drawn = sorted(p.name for p in (root / "notes" / "figures").iterdir())
    assert drawn == sorted(f"s-{key}.svg" for key in figure_keys({"variant": "sdpa", "source": "scores",
                                                                    "scores": SCORES, "v": V}))
    assert (root / "notes" / "s.json").is_file()
    assert run_cli(["build", "course.toml", "--check"], cwd=root).code == 0


@pytest.mark.parametrize("entry", ["", 'formats = ["md", "html"]\n'], ids=["md", "md+html"])
def test_build_refuses_a_note_of_given_scores_cleanly(tmp_path, entry):
    """Markdown and HTML walk through q and k: refused before anything is written, as render does."""
    root = _course(tmp_path, entry)
    before = snapshot(root)
    line = assert_clean(run_cli(["build", "course.toml"], cwd=root), "--source")
    assert "got 'scores'" in line
    assert_untouched(root, before)


@pytest.mark.parametrize("fmt", ["md", "html"])
def test_render_with_figures_refuses_given_scores_and_makes_no_folder(tmp_path, fmt):
    _course(tmp_path, "")
    before = snapshot(tmp_path)
    answer = run_cli(["render", "--scenario", "scores.toml", "--format", fmt, "--figures", "figs", "-o", f"n.{fmt}"],
                     cwd=tmp_path)
    assert "got 'scores'" in assert_clean(answer, "--source")
    assert_untouched(tmp_path, before)
    assert not (tmp_path / "figs").exists()
