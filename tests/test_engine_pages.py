"""Reused buffers for the N×N stages (engine/pages.py): reuse changes no bit, never hands out memory
that an array still uses, and keeps at most what the last forward left behind."""

import itertools

import numpy as np
import pytest
from conftest import assert_close_f64, ultralytics_attention

import attnwalk
from attnwalk.engine import pages

SQUARE = ("scores", "scores_scaled", "exp", "attn")
OPTS = dict(h=16, w=16, dim=8, heads=2, input="normal", seed=4)  # scores: 2 x 256 x 256 = 1 MiB


@pytest.fixture(autouse=True)
def small_pool(monkeypatch):
    monkeypatch.setattr(pages, "POOL_MIN_BYTES", 1 << 16)
    pages.release()
    yield
    pages.release()


def test_a_second_forward_reuses_the_buffers_and_gives_the_same_bits():
    first = attnwalk.walk(**OPTS)
    copies = {n: first[n].copy() for n in first.names()}
    addresses = {first[n].ctypes.data for n in SQUARE}
    del first
    second = attnwalk.walk(**OPTS)
    # the forward writes scores and attn into two of the four (the same memory, written again) and
    # releases the other two; scores_scaled and exp, recipes until read, are then written afresh
    assert {second[n].ctypes.data for n in ("scores", "attn")} <= addresses
    for name, data in copies.items():
        assert np.array_equal(second[name], data), name


def test_reused_and_fresh_buffers_agree_with_each_other_and_with_torch(monkeypatch):
    attnwalk.walk(**OPTS)  # leaves buffers behind (dirty: the previous forward's values)
    reused = attnwalk.walk(**OPTS)
    monkeypatch.setattr(pages, "REUSE", False)
    fresh = attnwalk.walk(**OPTS)
    for name in fresh.names():
        assert np.array_equal(reused[name], fresh[name]), name
    ref = ultralytics_attention(reused)
    logit = float(np.abs(ref["scores_scaled"]).max())
    for name in ("scores", "scores_scaled", "attn", "o", "out"):
        assert_close_f64(reused[name], ref[name], name, cond=logit if name in ("attn", "o", "out") else 1.0)


def test_a_buffer_is_not_reused_while_a_view_of_it_lives():
    first = attnwalk.walk(**OPTS)
    row = first["attn"][0, 1, 3]  # a view: keeps its buffer
    kept = row.copy()
    del first
    second = attnwalk.walk(**{**OPTS, "seed": 5})
    assert np.array_equal(row, kept)
    assert not any(np.shares_memory(row, second[n]) for n in SQUARE)
    np.testing.assert_allclose(row.sum(), 1.0, rtol=0, atol=1e-12)


def test_steps_of_one_trace_and_of_live_traces_never_share_memory():
    traces = [attnwalk.walk(**OPTS) for _ in range(3)]
    arrays = [t[n] for t in traces for n in SQUARE]
    for a, b in itertools.combinations(arrays, 2):
        assert not np.shares_memory(a, b)
    traces[0]["exp"][...] = -1.0  # writing one trace's step leaves the others alone
    assert (traces[1]["exp"] >= 0).all() and (traces[0]["attn"] >= 0).all()


def test_at_most_the_buffers_of_dropped_traces_wait_and_release_returns_them():
    nbytes = 8 * 2 * 256 * 256
    t = attnwalk.walk(**OPTS)
    assert pages.retained() == 0  # scores and attn in use (scores_scaled and exp are recipes)
    t["scores_scaled"], t["exp"]  # reading the recipes writes them into two more buffers
    assert pages.retained() == 0
    del t
    assert pages.retained() == 4 * nbytes
    t = attnwalk.walk(**{**OPTS, "h": 8, "w": 8, "dim": 32})  # another size: the old buffers go
    assert pages.retained() == 0 and t["attn"].shape == (1, 2, 64, 64)
    kept = [attnwalk.walk(**OPTS) for _ in range(2)]
    del kept
    attnwalk.walk(**OPTS)  # reuses two of the four, releases the other two
    assert pages.retained() == 2 * nbytes
    assert pages.release() == 2 * nbytes and pages.retained() == 0


def test_below_the_threshold_arrays_are_plain_numpy(monkeypatch):
    monkeypatch.setattr(pages, "POOL_MIN_BYTES", 1 << 30)
    t = attnwalk.walk(**OPTS)
    assert all(t[n].base is None for n in SQUARE)
    assert pages.retained() == 0


def test_buffers_of_another_size_go_before_a_new_one_is_allocated():
    attnwalk.walk(**OPTS)
    assert pages.retained() == 2 * 8 * 2 * 256 * 256  # scores and attn (scores_scaled and exp: recipes)
    other = pages.empty((1 << 14,))  # 128 KiB: another size
    assert pages.retained() == 0 and other.nbytes == 1 << 17  # the two free buffers were dropped first


def test_concurrent_forwards_restore_numpys_huge_page_setting_and_agree():
    from concurrent.futures import ThreadPoolExecutor

    switch = (getattr(np, "_core", None) or np.core).multiarray._set_madvise_hugepage
    before = switch(True)
    try:
        with ThreadPoolExecutor(4) as pool:
            traces = list(pool.map(lambda _: attnwalk.walk(**OPTS), range(8)))
        assert switch(True) is True  # back to what it was, whatever order the forwards ended in
    finally:
        switch(before)
    for t in traces[1:]:
        for name in SQUARE:
            assert np.array_equal(t[name], traces[0][name]) and not np.shares_memory(t[name], traces[0][name])


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="no fork on this platform")
def test_a_forked_child_starts_with_no_buffers_and_computes_the_same_bits():
    import multiprocessing

    attnwalk.walk(**OPTS)  # leaves four free buffers in the parent
    assert pages.retained() > 0
    with multiprocessing.get_context("fork").Pool(1) as pool:
        retained, attn = pool.apply(_child_walk)
    assert retained == 0
    assert np.array_equal(attn, attnwalk.walk(**OPTS)["attn"])


def _child_walk():
    retained = pages.retained()
    return retained, attnwalk.walk(**OPTS)["attn"].copy()


def test_a_numpy_without_the_huge_page_switch_still_runs_forwards(monkeypatch):
    """The switch is private NumPy API: where it is missing, forwards run on NumPy's defaults, same bits."""
    want = attnwalk.walk(h=2, w=2)["attn"]
    monkeypatch.setattr(pages, "_madvise_switch", lambda: None)
    got = attnwalk.walk(h=2, w=2)["attn"]
    assert np.array_equal(got, want) and got.sum(-1).round(12).tolist() == [[[1.0] * 4] * 2]
