"""The torch-compatible stream against real torch: bit-exact normal_ draws (DESIGN §3)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attnwalk.rng import NumpyStream, TorchCPUStream

torch = pytest.importorskip("torch", reason="torch is not installed on this machine: pip install torch==2.13.0")


def torch_draws(seed: int, sizes: list[int], std: float = 0.02) -> list[np.ndarray]:
    torch.manual_seed(seed)
    return [torch.empty(n).normal_(0, std).numpy() for n in sizes]


def ulps(a: np.ndarray, b: np.ndarray) -> int:
    """Largest distance in float32 units in the last place (same-sign values)."""
    ia = a.astype(np.float32).view(np.int32).astype(np.int64)
    ib = b.astype(np.float32).view(np.int32).astype(np.int64)
    return int(np.abs(ia - ib).max()) if a.size else 0


@pytest.mark.parametrize("seed", [0, 1, 42, 123, 2**32 + 5, 2**63 + 17])
@pytest.mark.parametrize("sizes", [[32, 16, 36], [8, 3, 20], [5, 5, 5, 1], [17], [100, 7, 64], [1, 1, 15, 16, 2, 33]])
def test_normal_matches_torch_bit_for_bit(seed, sizes):
    stream = TorchCPUStream(seed)
    for n, expected in zip(sizes, torch_draws(seed, sizes)):
        got = stream.normal((n,), 0.0, 0.02)
        assert got.dtype == np.float32
        assert ulps(got, expected) == 0, f"seed {seed}, sizes {sizes}, n {n}"


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**64 - 1), sizes=st.lists(st.integers(1, 80), min_size=1, max_size=6),
       std=st.sampled_from([0.02, 1.0, 0.5]), mean=st.sampled_from([0.0, 0.3]))
def test_any_seed_and_size_sequence(seed, sizes, std, mean):
    torch.manual_seed(seed)
    expected = [torch.empty(n).normal_(mean, std).numpy() for n in sizes]
    stream = TorchCPUStream(seed)
    for n, exp in zip(sizes, expected):
        assert ulps(stream.normal((n,), mean, std), exp) <= 2


def test_small_path_cache_survives_large_draws_and_is_per_seed():
    # A < 16 draw caches the sin half; a >= 16 draw in between must not touch it.
    sizes = [1, 32, 1, 3]
    expected = torch_draws(7, sizes)
    stream = TorchCPUStream(7)
    for n, exp in zip(sizes, expected):
        assert ulps(stream.normal((n,), 0.0, 0.02), exp) == 0


def test_randint_matches_torch():
    torch.manual_seed(5)
    torch.empty(36).normal_(0, 0.02)
    expected = torch.randint(-4, 5, (2, 3, 4)).numpy()
    stream = TorchCPUStream(5)
    stream.normal((36,), 0.0, 0.02)
    assert np.array_equal(stream.randint((2, 3, 4), -4, 5), expected)


def test_multi_dimensional_shape_is_row_major_like_torch():
    torch.manual_seed(3)
    expected = torch.empty(8, 4, 1, 1).normal_(0, 0.02).numpy()
    assert np.array_equal(TorchCPUStream(3).normal((8, 4, 1, 1), 0.0, 0.02), expected)


def test_numpy_stream_is_deterministic_and_normal():
    a = NumpyStream(11).normal((4000,), 0.0, 2.0)
    b = NumpyStream(11).normal((4000,), 0.0, 2.0)
    assert np.array_equal(a, b)
    assert abs(float(a.mean())) < 0.15 and abs(float(a.std()) - 2.0) < 0.1


@pytest.mark.parametrize("seed", [0, 42, 2**32 - 1])
def test_raw_stream_is_init_genrand_mt19937_across_twists(seed):
    # NumPy's legacy integer seeding is init_genrand: its raw words are the reference stream.
    expected = np.random.RandomState(seed)._bit_generator.random_raw(3000)
    stream = TorchCPUStream(seed)
    got = np.concatenate([stream._raw32(n) for n in (1, 0, 623, 2, 700, 1674)])
    assert np.array_equal(got, expected)


def test_large_and_small_draws_after_many_twists_match_torch():
    sizes = [5000, 3, 1, 1237, 16, 7]
    stream = TorchCPUStream(2024)
    for n, exp in zip(sizes, torch_draws(2024, sizes, std=1.0)):
        assert ulps(stream.normal((n,), 0.0, 1.0), exp) == 0
