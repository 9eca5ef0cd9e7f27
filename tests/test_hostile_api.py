"""Hostile input to the Python API: ConfigError naming the argument, never a crash or a bomb (issue 11)."""

from __future__ import annotations

import pytest
from hostile import run_python

# (the call, what str(ConfigError) must start with)
API = [
    ("walk(weights=[1, 2])", "weights: got list"),
    ("walk(weights='w_qkv')", "weights: got str"),
    ("walk(weights={'w_zzz': 1})", "weights: unknown name"),
    ("walk(weights={'w_qkv': np.ones((8, 4, 1, 1)) * np.nan})", "weights['w_qkv']: nan"),
    ("walk(weights={'w_qkv': np.ones((8, 4, 1, 1)) + 1j})", "weights['w_qkv']: complex"),
    ("walk(weights={'w_qkv': np.ones((2, 2))})", "weights['w_qkv']: shape"),
    ("walk(weights={'w_qkv': [['a']]})", "weights['w_qkv']: got dtype"),
    ("walk(weights={'w_qkv': np.full((8, 4, 1, 1), 1e300)})", "weights: the numbers overflow float64 at step scores"),
    ("walk(x=np.ones((1, 4, 3, 3)) + 2j)", "x: complex"),
    ("walk(x=np.full((1, 4, 3, 3), np.inf))", "x: inf"),
    ("walk(x=np.ones((2, 2)))", "x: shape"),
    ("walk(x=np.full((1, 4, 3, 3), 1e200))", "weights: the numbers overflow float64"),
    ("walk(variant='sdpa', x=np.ones((3, 4)) + 1j, source='columns')", "x: complex"),
    ("walk(variant='sdpa', x=[[1 + 2j, 0, 1, 2]], source='columns')", "--scenario: x: row 0, column 0"),
    ("walk(variant='sdpa', q=[[float('nan'), 1]])", "--scenario: q: row 0, column 0"),
    ("walk(variant='sdpa', q=[[1e200, 1e200]], k=[[1e200, 1e200]], v=[[1, 2]])",
     "--scenario: the numbers overflow float64 at step scores"),
    ("walk(variant='mha', weights={'w_qkv': np.full((12, 4), 1e300)})", "weights: the numbers overflow"),
    ("walk(h=64, w=64, dim=1024, heads=512, batch=8)", "--max-memory"),
    ("walk(variant='sdpa', tokens=4096, dim=1024, heads=1024, batch=8)", "--max-memory"),
    ("walk(variant='mha', tokens=4096, dim=1024, heads=1024, batch=8)", "--max-memory"),
    ("walk(h=10**5000)", "--h: got an integer of"),
    ("walk(variant='sdpa', mask='padding:' + '9' * 5000)", "--mask"),
    ("walk(variant='sdpa', labels=['a', 'b\\nc', 'd'])", "--scenario: labels: label 1"),
    ("walk(variant=None, bogus=1)", "--bogus: unknown option"),
    ("walk(init_std=1e308)", "--init-std: the numbers overflow float64 at step w_qkv"),
    ("walk(variant='sdpa', tokens=True)", "--tokens"),
]


@pytest.mark.parametrize("call, says", API, ids=[c[:60] for c, _ in API])
def test_api_raises_config_error(call, says):
    code = ("import sys, numpy as np\nfrom attnwalk.api import walk\nfrom attnwalk.errors import ConfigError\n"
            f"try:\n    {call}\nexcept ConfigError as err:\n    print(err)\n    sys.exit(2)\n")
    answer = run_python(code)
    assert "Traceback" not in answer.err and answer.err == "", answer.err
    assert answer.code == 2, (answer.code, answer.out)
    assert answer.out.startswith(says), answer.out
    assert "allowed:" in answer.out and answer.out.count("\n") == 1


def test_memory_budget_env_overrides(monkeypatch):
    from attnwalk.api import walk
    from attnwalk.errors import ConfigError

    monkeypatch.setenv("ATTNWALK_MAX_MEMORY", "1M")
    with pytest.raises(ConfigError, match="at most 1 MiB"):
        walk(h=16, w=16, dim=8, heads=4)
    monkeypatch.setenv("ATTNWALK_MAX_MEMORY", "4G")
    assert walk(h=3, w=3)["attn"].shape == (1, 2, 9, 9)


def test_estimate_covers_what_is_recorded():
    """The estimate counts at least every value the trace records (and is not wildly above it)."""
    import numpy as np

    from attnwalk.api import walk
    from attnwalk.budget import BYTES_PER_VALUE, estimate
    from attnwalk.config import make_config

    for opts in (dict(h=8, w=8, dim=16, heads=4, batch=2), dict(variant="sdpa", tokens=20, kv_tokens=30, dim=8,
                 heads=2, mask="causal"), dict(variant="mha", tokens=25, dim=12, heads=3, batch=2)):
        trace = walk(**opts)
        recorded = sum(trace[n].size for n in trace.names()) * np.dtype(np.float64).itemsize
        est = estimate(make_config(**opts))
        assert recorded <= est <= 4 * recorded * BYTES_PER_VALUE / 8, (opts, recorded, est)


def test_crosscheck_never_passes_on_nan():
    import numpy as np

    from attnwalk.crosscheck import _errors

    nan = np.array([1.0, np.nan])
    assert all(e != e for e in _errors(nan, nan.copy(), np.abs(nan), 1e-16))  # NaN vs NaN: not equal
    assert all(e != e for e in _errors(np.array([1.0, 2.0]), nan, np.ones(2), 1e-16))
    assert _errors(np.array([-np.inf, 1.0]), np.array([-np.inf, 1.0]), np.ones(2), 1e-16) == (0.0, 0.0)


def test_crosscheck_row_with_nan_fails_the_run():
    import numpy as np

    from attnwalk.api import walk
    from attnwalk.crosscheck import compare

    trace = walk(h=2, w=2)
    got = {name: trace[name].copy() for name in trace.names()}
    assert all(r["ok"] for r in compare(trace, got, {}, "float64"))
    got["attn"][0, 0, 0, 0] = np.nan
    rows = {r["name"]: r for r in compare(trace, got, {}, "float64")}
    assert not rows["attn"]["ok"] and rows["attn"]["note"] == "NaN values"
