"""scores_scaled and exp kept as recipes (engine/softmax.py, LazyRows): every reader sees the bytes the
forward used to write, by name, by row, after their inputs are dropped, in the exports, and the same
SHA-256 for every tensor as main's engine before the change (18fd6a3), run in its own process."""

import hashlib
import io
import json
import os
import pickle
import shutil
import subprocess
import sys
import tarfile
from copy import deepcopy
from pathlib import Path

import numpy as np
import pytest

import attnwalk
from attnwalk import budget
from attnwalk.config import make_config
from attnwalk.engine import softmax
from attnwalk.finite import first_overflow
from attnwalk.trace import Trace

REPO = Path(__file__).resolve().parent.parent
BEFORE = "18fd6a3"  # main before the recipes: every stage written by the forward
LAZY = ("scores_scaled", "exp")
CONFIGS = [
    dict(h=3, w=3, dim=4, heads=2, seed=42),
    dict(h=40, w=40, dim=256, heads=4, input="normal", seed=0),  # N = 1600, YOLO11 scale
    dict(h=5, w=7, dim=16, heads=4, input="normal", seed=3, pe_on="o", batch=2),
    dict(h=6, w=6, dim=8, heads=2, input="normal", seed=5, init_std=3.0),  # saturated rows: exp 0 cut off
    dict(variant="sdpa", tokens=5, dim=8, heads=2, seed=1),
    dict(variant="sdpa", tokens=6, dim=8, heads=2, mask="causal", mask_fill="-inf", seed=2),
    dict(variant="sdpa", tokens=3, kv_tokens=6, dim=6, heads=3, mask="padding:2", seed=4),
    dict(variant="mha", tokens=7, dim=12, heads=3, seed=6),
    dict(variant="mha", tokens=4, dim=8, heads=2, mask="causal", mask_fill="-1e9", seed=9),
]
SMALL = [c for c in CONFIGS if c.get("h", 0) < 40]

# Prints {config index: {name: [shape, sha256]}} for the attnwalk package found first on sys.path.
DIGESTS = """import hashlib, json, sys
sys.path.insert(0, sys.argv[1])
import numpy as np
import attnwalk
assert attnwalk.__file__.startswith(sys.argv[1]), attnwalk.__file__
out = {}
for i, opts in enumerate(json.loads(sys.argv[2])):
    t = attnwalk.walk(**opts)
    out[i] = {n: [list(t[n].shape), hashlib.sha256(np.ascontiguousarray(t[n]).tobytes()).hexdigest()]
              for n in t.names()}
print(json.dumps(out))
"""


def digests(trace: Trace) -> dict[str, tuple[tuple[int, ...], str]]:
    return {n: (tuple(trace[n].shape), hashlib.sha256(np.ascontiguousarray(trace[n]).tobytes()).hexdigest())
            for n in trace.names()}


def eager(monkeypatch, **opts) -> Trace:
    with monkeypatch.context() as m:
        m.setattr(softmax, "LAZY", False)
        t = attnwalk.walk(**opts)
    assert not any(s.lazy for s in t.steps.values())
    return t


def _digests_in_process(pkg_root: Path, env: dict) -> dict:
    out = subprocess.run([sys.executable, "-c", DIGESTS, str(pkg_root), json.dumps(CONFIGS)], capture_output=True,
                         text=True, env=env, cwd=pkg_root, check=True).stdout
    return json.loads(out)


def test_every_tensor_has_the_bytes_of_main_before_the_recipes(tmp_path):
    if shutil.which("git") is None:
        pytest.skip("git is not installed: main's engine cannot be extracted to compare with")
    archive = subprocess.run(["git", "-C", str(REPO), "archive", BEFORE, "attnwalk", "templates"],
                             capture_output=True)
    if archive.returncode != 0:
        pytest.skip(f"this checkout does not hold commit {BEFORE} (not a git clone with its history)")
    before = tmp_path / "before"
    before.mkdir()
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(before, filter="data")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(ATTNWALK_THREADS="2", OPENBLAS_NUM_THREADS="2", ATTNWALK_MAX_MEMORY="8G")
    old, new = _digests_in_process(before, env), _digests_in_process(REPO, env)
    assert len(new) == len(CONFIGS) >= 8
    for i in new:
        assert list(new[i]) == list(old[i]), CONFIGS[int(i)]  # the same names, in the same order
        for name in new[i]:
            assert new[i][name] == old[i][name], (CONFIGS[int(i)], name)


@pytest.mark.parametrize("opts", SMALL, ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()))
def test_lazy_stages_give_the_eager_bytes_by_name_and_by_row(opts, monkeypatch):
    want = eager(monkeypatch, **opts)
    t = attnwalk.walk(**opts)
    lazy = [n for n in LAZY if n in t and t.steps[n].lazy]
    assert "exp" in lazy
    for name in lazy:
        step = t.steps[name]
        assert step.shape == want[name].shape and step.axes == want.steps[name].axes
        for index in np.ndindex(*step.shape[:-1]):
            row = t.row(name, *index)
            assert row.tobytes() == want[name][index].tobytes(), (name, index)
        assert step.lazy  # rows alone computed nothing whole
        neg = tuple(i - n for i, n in zip(np.unravel_index(0, step.shape[:-1]), step.shape[:-1]))
        assert t.row(name, *neg).tobytes() == want[name][(0,) * len(neg)].tobytes()
    assert digests(t) == digests(want)  # reading each by name computes it whole
    assert not any(s.lazy for s in t.steps.values())
    for name in lazy:  # once computed, a row is the stored array's
        assert np.shares_memory(t.row(name, *(0,) * (t[name].ndim - 1)), t[name])


def test_row_index_out_of_range_is_an_index_error():
    t = attnwalk.walk(h=3, w=3, dim=4, heads=2, seed=42)
    for bad in ((0, 2, 0), (0, 0, 9), (0, -3, 0), (0, 0)):
        with pytest.raises(IndexError):
            t.row("exp", *bad)


def test_a_stage_needs_no_other_step_after_its_inputs_are_dropped(monkeypatch):
    opts = dict(h=6, w=5, dim=8, heads=2, input="normal", seed=11, init_std=2.0)
    want = eager(monkeypatch, **opts)
    t = attnwalk.walk(**opts)
    for name in ("scores", "row_max", "row_sum", "attn", "q", "k", "qkv"):
        del t.steps[name]
    t2 = t.with_config(lang="en")
    first = t2["exp"][0, 1, 4].copy()  # one read computes it for every copy of the trace
    assert not t.steps["exp"].lazy and t["exp"] is t2["exp"]
    assert first.tobytes() == want["exp"][0, 1, 4].tobytes()
    for name in LAZY:
        assert t[name].tobytes() == want[name].tobytes()


def test_recorded_stages_still_never_alias(monkeypatch):
    t = attnwalk.walk(h=5, w=5, dim=8, heads=2, input="normal", seed=2)
    arrays = [t[n] for n in t.names()]
    for i, a in enumerate(arrays):
        for b in arrays[i + 1:]:
            assert not np.shares_memory(a, b)


def test_exports_of_a_lazy_trace_equal_the_eager_traces(monkeypatch, tmp_path):
    opts = dict(h=5, w=4, dim=8, heads=2, input="normal", seed=7)
    want = eager(monkeypatch, **opts)
    got = attnwalk.walk(**opts)
    assert got.steps["exp"].lazy
    assert b"".join(got.json_chunks()) == b"".join(want.json_chunks())
    a, b = io.BytesIO(), io.BytesIO()
    fresh = attnwalk.walk(**opts)
    fresh.write_npz(a)
    want.write_npz(b)
    assert a.getvalue() == b.getvalue()
    back = Trace.from_npz(io.BytesIO(a.getvalue()))
    assert digests(back) == digests(want)


def test_materialising_on_threads_or_one_gives_the_same_bytes(monkeypatch):
    # 576 x 576 per head: many blocks, and 4 heads are above _PARALLEL_MIN (threads used).
    opts = dict(h=24, w=24, dim=64, heads=4, input="normal", seed=3, init_std=1.0)
    assert 4 * 576 * 576 >= softmax._PARALLEL_MIN
    want = eager(monkeypatch, **opts)
    for threads in ("1", "3"):
        monkeypatch.setenv("ATTNWALK_THREADS", threads)
        t = attnwalk.walk(**opts)
        assert digests(t) == digests(want), threads


def test_walk_leaves_the_stages_uncomputed_and_vouches_they_are_finite():
    t = attnwalk.walk(h=8, w=8, dim=16, heads=2, input="normal", seed=1)
    assert [n for n, s in t.steps.items() if s.lazy] == list(LAZY)
    assert all(t.steps[n].finite for n in LAZY)
    assert first_overflow(t) is None and t.steps["exp"].lazy  # finite without computing
    assert np.isfinite(t["exp"]).all() and np.isfinite(t["scores_scaled"]).all()


@pytest.mark.parametrize("bad, scaled_finite, exp_finite", [
    (-np.inf, False, True),  # exp(-inf) = 0: exp finite, the scaled scores not
    (np.inf, False, False),
    (np.nan, False, False),
    (1e308, True, True),  # finite, but s - max overflows for -1e308: vouched only where sure
])
def test_non_finite_scores_are_not_vouched_for(bad, scaled_finite, exp_finite):
    scores = np.arange(2 * 5 * 5, dtype=np.float64).reshape(1, 2, 5, 5) / 7
    scores[0, 1, 3, 2] = bad
    with np.errstate(all="ignore"):
        eager_t, lazy_t = Trace({}, {}), Trace({}, {})
        softmax.LAZY = False
        try:
            softmax.record_softmax(eager_t, scores.copy(), ("batch", "head", "query"), scale=0.5)
        finally:
            softmax.LAZY = True
        softmax.record_softmax(lazy_t, scores.copy(), ("batch", "head", "query"), scale=0.5)
    assert lazy_t.steps["scores_scaled"].finite is scaled_finite
    assert lazy_t.steps["exp"].finite is exp_finite
    assert bool(np.isfinite(eager_t["scores_scaled"]).all()) is scaled_finite or bad == 1e308
    assert digests(lazy_t) == digests(eager_t)
    found = first_overflow(lazy_t)
    assert (found is None) == (np.isfinite(eager_t["exp"]).all() and np.isfinite(eager_t["scores_scaled"]).all()
                               and np.isfinite(eager_t["attn"]).all() and np.isfinite(eager_t["row_max"]).all())


def test_large_saturated_scores_and_empty_key_axes(monkeypatch):
    # exp below -746 is cut to 0 in blocks and in single rows alike
    scores = np.random.default_rng(0).normal(0, 800, (1, 3, 64, 64))
    t, e = Trace({}, {}), Trace({}, {})
    softmax.record_softmax(t, scores, ("batch", "head", "query"), scale=1.5)
    monkeypatch.setattr(softmax, "LAZY", False)
    softmax.record_softmax(e, scores, ("batch", "head", "query"), scale=1.5)
    for index in np.ndindex(1, 3, 64):
        assert t.row("exp", *index).tobytes() == e["exp"][index].tobytes()
    assert (e["exp"] == 0).any() and digests(t) == digests(e)
    monkeypatch.setattr(softmax, "LAZY", True)
    empty = Trace({}, {})
    softmax.record_softmax(empty, np.zeros((1, 2, 3, 0)), ("batch", "head", "query"), scale=0.5)
    assert empty["exp"].shape == (1, 2, 3, 0) and empty.row("scores_scaled", 0, 1, 2).shape == (0,)


@pytest.mark.parametrize("opts", CONFIGS[:1] + CONFIGS[4:], ids=str)
def test_the_budget_still_counts_every_n_by_n_stage(opts):
    t = attnwalk.walk(**opts)
    shapes = budget.tensors(make_config(**opts))
    for name in LAZY:
        flat = shapes[name][:2] + (int(np.prod(shapes[name][2:])),)
        assert (t.steps[name].shape[:2] + (int(np.prod(t.steps[name].shape[2:])),)) == flat, name


def test_a_trace_with_recipes_pickles_and_copies_as_its_tensors(monkeypatch):
    opts = dict(h=4, w=6, dim=8, heads=2, input="normal", seed=13)
    want = digests(eager(monkeypatch, **opts))
    for copy in (lambda t: pickle.loads(pickle.dumps(t)), deepcopy):
        t = attnwalk.walk(**opts)
        assert t.steps["exp"].lazy
        back = copy(t)
        assert not any(s.lazy for s in back.steps.values()) and digests(back) == want


@pytest.mark.parametrize("opts", [CONFIGS[0], CONFIGS[2], CONFIGS[5], CONFIGS[7]], ids=str)
def test_a_rendered_note_reads_one_row_of_exp_and_has_the_eager_bytes(opts, monkeypatch):
    from attnwalk.render import render

    want = eager(monkeypatch, **opts)
    t = attnwalk.walk(**opts)
    for lang in ("vi", "en"):
        assert render(t, "md", lang) == render(want, "md", lang)
    assert t.steps["exp"].lazy  # the note shows one row of exp: the rest never computed
