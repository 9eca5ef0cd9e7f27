"""Random streams for weights and inputs.

``TorchCPUStream`` reproduces in NumPy what ``torch.manual_seed(seed)`` followed by
``Tensor.normal_`` gives on PyTorch's CPU generator (DESIGN §3), bit for bit on x86-64
builds running the AVX2 kernel, so a reader can run PyTorch and see the same numbers.
``NumpyStream`` is a plain alternative that promises nothing about PyTorch.
"""

from __future__ import annotations

import math

import numpy as np

_F32 = np.float32
_TWO_PI = 2.0 * math.pi


class TorchCPUStream:
    """PyTorch's CPU generator: MT19937 seeded by ``init_genrand(seed & 0xffffffff)``."""

    name = "torch"

    def __init__(self, seed: int):
        # Python's random.Random is MT19937 too; given init_genrand's state (which its own
        # seeding does not use), its 32-bit outputs are torch's. Cheaper to start than
        # numpy.random, whose import is most of a small note's drawing time.
        import random

        self._mt = random.Random()
        self._mt.setstate(_seeded_state(seed & 0xFFFFFFFF))
        # torch caches the sin half of the scalar Box-Muller pair for the next small call.
        self._cached_normal: float | None = None

    def _raw32(self, n: int) -> np.ndarray:
        """The next ``n`` 32-bit outputs of the generator, in order, as uint64."""
        if n <= 0:
            return np.zeros(0, dtype=np.uint64)
        # getrandbits(32n) puts the first output in the lowest 32 bits: little-endian words.
        words = self._mt.getrandbits(32 * n).to_bytes(4 * n, "little")
        return np.frombuffer(words, dtype="<u4").astype(np.uint64)

    def _uniform_f32(self, n: int) -> np.ndarray:
        """float32 uniforms in [0, 1): the low 24 bits of a 32-bit draw, times 2**-24."""
        return (self._raw32(n) & 0xFFFFFF).astype(_F32) * _F32(2.0**-24)

    def _uniform_f64(self) -> float:
        """One double uniform: a 64-bit draw (first 32-bit draw high), low 53 bits."""
        hi, lo = (int(r) for r in self._raw32(2))
        return (((hi << 32) | lo) & ((1 << 53) - 1)) * 2.0**-53

    def _scalar_normal(self) -> float:
        """``at::normal_distribution<double>``: a standard normal, the sin half cached."""
        if self._cached_normal is not None:
            z, self._cached_normal = self._cached_normal, None
            return z
        u1 = self._uniform_f64()
        u2 = self._uniform_f64()
        r = math.sqrt(-2.0 * math.log1p(-u2))
        theta = _TWO_PI * u1
        self._cached_normal = r * math.sin(theta)
        return r * math.cos(theta)

    def normal(self, shape: tuple[int, ...], mean: float = 0.0, std: float = 1.0) -> np.ndarray:
        """``torch.empty(shape).normal_(mean, std)`` on a contiguous float32 tensor."""
        n = math.prod(shape)
        if n < 16:
            # Scalar path: doubles, then rounded to float32 on store.
            values = [self._scalar_normal() * std + mean for _ in range(n)]
            return np.array(values, dtype=np.float64).astype(_F32).reshape(shape)
        data = self._uniform_f32(n)
        whole = n // 16 * 16
        data[:whole] = _normal_fill_16(data[:whole], mean, std)
        if n % 16:
            # torch draws 16 fresh uniforms over the last 16 slots and transforms them again.
            data[n - 16 :] = _normal_fill_16(self._uniform_f32(16), mean, std)
        return data.reshape(shape)

    def skip_normal(self, shape: tuple[int, ...]) -> None:
        """The stream after ``normal(shape)``, without its values (weights a note stores): the same draws."""
        n = math.prod(shape)
        if n < 16:
            self.normal(shape)  # the scalar path caches half a pair: drawn as it is
            return
        self._raw32(n + (16 if n % 16 else 0))  # n uniforms, then 16 fresh ones over the last slots

    def randint(self, shape: tuple[int, ...], low: int, high: int) -> np.ndarray:
        """``torch.randint(low, high, shape)``: a 32-bit draw modulo the range, plus low."""
        raw = self._raw32(math.prod(shape))
        return ((raw % (high - low)).astype(np.int64) + low).reshape(shape)


_SEEDED: dict[int, tuple] = {}  # seed -> random.Random's state after init_genrand: the last few seeds


def _seeded_state(seed: int) -> tuple:
    """``random.Random``'s state after ``init_genrand(seed)``, computed once per seed (a Python loop of 624
    steps, a fifth of a small note's trace when checked again and again)."""
    state = _SEEDED.get(seed)
    if state is None:
        if len(_SEEDED) >= 16:
            _SEEDED.clear()
        state = _SEEDED[seed] = (3, (*_init_genrand(seed), 624), None)
    return state


def _init_genrand(seed: int) -> list[int]:
    """MT19937's 624-word state after ``init_genrand(seed)`` (Matsumoto and Nishimura, 2002)."""
    mt = [seed]
    for i in range(1, 624):
        prev = mt[-1]
        mt.append((1812433253 * (prev ^ (prev >> 30)) + i) & 0xFFFFFFFF)
    return mt


def _fma32(a, b, c) -> np.ndarray:
    """Correctly rounded float32 ``a*b + c``: exact product, round-to-odd sum, then float32."""
    a, b, c = (np.asarray(t, np.float64) for t in (a, b, c))
    p = a * b  # exact: two 24-bit significands fit in 53 bits
    s = p + c
    t = s - p
    err = (p - (s - t)) + (c - t)  # TwoSum: s + err == p + c exactly
    odd_needed = (err != 0) & ((s.view(np.int64) & 1) == 0)
    s = np.where(odd_needed, np.nextafter(s, np.where(err > 0, np.inf, -np.inf)), s)
    return s.astype(_F32)


def _log256(x: np.ndarray) -> np.ndarray:
    """avx_mathfun ``log256_ps`` as PyTorch's AVX2 build compiles it (GCC contracts to FMA)."""
    bits = x.view(np.int32)
    e = ((bits >> 23) - 0x7F).astype(_F32) + _F32(1)
    m = ((bits & ~0x7F800000) | 0x3F000000).view(_F32)  # mantissa in [0.5, 1)
    small = m < _F32(0.707106781186547524)
    e = e - small.astype(_F32)
    x = (m - _F32(1)) + np.where(small, m, _F32(0))
    z = x * x
    y = np.full_like(x, _F32(7.0376836292e-2))
    for p in (-1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1, 1.4249322787e-1,
              -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1):
        y = _fma32(y, x, _F32(p))
    y = _fma32(y * x, z, e * _F32(-2.12194440e-4))
    y = _fma32(-z, _F32(0.5), y)
    return _fma32(e, _F32(0.693359375), x + y)


def _sincos256(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """avx_mathfun ``sincos256_ps`` for x >= 0, FMA-contracted as in PyTorch's AVX2 build."""
    j = (x * _F32(1.27323954473516)).astype(np.int32)  # 4/pi, truncated
    j = (j + 1) & ~1
    y = j.astype(_F32)
    for dp in (-0.78515625, -2.4187564849853515625e-4, -3.77489497744594108e-8):
        x = _fma32(y, _F32(dp), x)
    z = x * x
    yc = np.full_like(x, _F32(2.443315711809948e-5))
    for c in (-1.388731625493765e-3, 4.166664568298827e-2):
        yc = _fma32(yc, z, _F32(c))
    yc = _fma32(yc * z, z, -(z * _F32(0.5))) + _F32(1)
    ys = np.full_like(x, _F32(-1.9515295891e-4))
    for c in (8.3321608736e-3, -1.6666654611e-1):
        ys = _fma32(ys, z, _F32(c))
    ys = _fma32(ys * z, x, x)
    first = (j & 2) == 0
    sin = np.where(first, ys, yc)
    cos = np.where(first, yc, ys)
    sin = np.where((j & 4) != 0, -sin, sin)
    cos = np.where(((j - 2) & 4) == 0, -cos, cos)
    return sin, cos


def _normal_fill_16(data: np.ndarray, mean: float, std: float) -> np.ndarray:
    """``normal_fill_16_AVX2`` on blocks of 16: u1 = 1 - d[0:8], u2 = d[8:16], Box-Muller."""
    blocks = data.reshape(-1, 2, 8)
    u1 = _F32(1) - blocks[:, 0]
    radius = np.sqrt(_F32(-2) * _log256(u1))
    sin, cos = _sincos256(_F32(_TWO_PI) * blocks[:, 1])
    out = np.empty_like(blocks)
    out[:, 0] = _fma32(radius * cos, _F32(std), _F32(mean))
    out[:, 1] = _fma32(radius * sin, _F32(std), _F32(mean))
    return out.reshape(-1)


class NumpyStream:
    """A plain NumPy stream (``numpy.random.default_rng(seed)``), rounded to float32."""

    name = "numpy"

    def __init__(self, seed: int):
        self._rng = np.random.default_rng(seed)

    def normal(self, shape: tuple[int, ...], mean: float = 0.0, std: float = 1.0) -> np.ndarray:
        return self._rng.normal(mean, std, size=shape).astype(_F32)

    def randint(self, shape: tuple[int, ...], low: int, high: int) -> np.ndarray:
        return self._rng.integers(low, high, size=shape)


class NumpyLegacyStream:
    """``np.random.seed(seed)`` then ``np.random.randn`` / ``rand`` / ``randint``: how hand-written NumPy
    notes draw.

    Values stay float64, as NumPy prints them; the draw order is the note's (seq_inputs.py).
    """

    name = "numpy-legacy"

    def __init__(self, seed: int):
        # The same MT19937 state as np.random.seed(seed), without touching NumPy's global stream.
        self._rs = np.random.RandomState(seed)

    def normal(self, shape: tuple[int, ...], mean: float = 0.0, std: float = 1.0) -> np.ndarray:
        """``np.random.randn(*shape) * std + mean`` (std 1, mean 0: the bare randn values)."""
        values = self._rs.randn(*shape)
        return values if (std, mean) == (1.0, 0.0) else values * std + mean

    def randint(self, shape: tuple[int, ...], low: int, high: int) -> np.ndarray:
        """``np.random.randint(low, high, size=shape)``."""
        return self._rs.randint(low, high, size=shape)

    def uniform(self, shape: tuple[int, ...]) -> np.ndarray:
        """``np.random.rand(*shape)``: uniform on [0, 1), float64."""
        return self._rs.rand(*shape)


STREAMS = {"torch": TorchCPUStream, "numpy": NumpyStream, "numpy-legacy": NumpyLegacyStream}


def make_stream(kind: str, seed: int):
    """The stream named ``kind`` (a key of ``STREAMS``) seeded with ``seed``."""
    return STREAMS[kind](seed)
