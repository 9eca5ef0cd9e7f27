"""`render --format json|npz`: the whole trace, streamed; NPZ is NumPy's own container."""

import json
import re
import subprocess
import sys

import numpy as np
import pytest

import attnwalk
from attnwalk import trace as trace_mod
from attnwalk.cli import main
from attnwalk.trace import Trace

OPTS = ["--h", "4", "--w", "5", "--dim", "8", "--heads", "2", "--input", "normal", "--seed", "7"]


def test_npz_holds_every_tensor_under_its_name_and_the_config(tmp_path, capsys):
    path = tmp_path / "trace.npz"
    assert main(["render", *OPTS, "--format", "npz", "-o", str(path)]) == 0
    t = attnwalk.walk(h=4, w=5, dim=8, heads=2, input="normal", seed=7)
    with np.load(path, allow_pickle=False) as z:
        assert set(z.files) == set(t.names()) | {"config", "meta"}
        for name in t.names():
            assert z[name].dtype == np.float64 and np.array_equal(z[name], t[name]), name
        config = json.loads(str(z["config"]))
        meta = json.loads(str(z["meta"]))
    assert config == t.config and config["h"] == 4 and config["seed"] == 7
    assert meta["tensors"]["attn"]["axes"] == ["batch", "head", "query", "key"]
    back = Trace.from_npz(path)
    assert back.names() == t.names() and np.allclose(back["attn"].sum(-1), 1.0, rtol=0, atol=1e-15)


def test_npz_bytes_are_deterministic(tmp_path):
    a, b = tmp_path / "a.npz", tmp_path / "b.npz"
    assert main(["render", *OPTS, "--format", "npz", "-o", str(a)]) == 0
    assert main(["render", *OPTS, "--format", "npz", "-o", str(b)]) == 0
    assert a.read_bytes() == b.read_bytes()


def test_npz_refuses_a_terminal_and_writes_to_a_pipe(monkeypatch, capsys):
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert main(["render", *OPTS, "--format", "npz"]) == 2
    _, err = capsys.readouterr()
    assert err.count("\n") == 1 and err.startswith("attnwalk: error: --format: npz is binary")
    monkeypatch.undo()
    out = subprocess.run([sys.executable, "-m", "attnwalk", "render", *OPTS, "--format", "npz"],
                         capture_output=True, check=True).stdout
    assert out[:2] == b"PK"  # a zip archive, as np.savez writes


def test_json_streamed_in_small_pieces_equals_one_piece_and_round_trips(monkeypatch):
    t = attnwalk.walk(variant="sdpa", tokens=24, kv_tokens=20, mask="causal", batch=2, input="normal")
    whole = t.to_json()
    monkeypatch.setattr(trace_mod, "_JSON_BLOCK", 7)  # every tensor in pieces of a row or a few
    pieces = list(t.json_chunks())
    assert len(pieces) > 50 and b"".join(pieces).decode() == whole
    back = Trace.from_dict(json.loads(whole))
    for name in t.names():
        assert np.array_equal(back[name], t[name], equal_nan=True), name
    assert np.isneginf(back["scores_masked"]).any()  # -inf fill survives as "-inf"


HARD_FLOATS = [0.0, -0.0, 5e-324, -5e-324, 2.225073858507201e-308, 2.2250738585072014e-308, 1e-300, 1e-5, 1e-4,
               0.1, 1 / 3, 1.0, -3.0, 100.0, 1234567.0, 2.0**53, 2.0**53 + 2, 1e15, 1e16, 1e22, 1e300,
               1.7976931348623157e308, -1.7976931348623157e308, 123456789012345680.0, 9007199254740993.0]


def bits(a) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.float64).view(np.int64)


def test_json_floats_read_back_bit_identical_hard_values_and_every_binade(monkeypatch):
    rng = np.random.default_rng(12)
    # every binary exponent, subnormals included, with random mantissas and both signs
    spread = np.ldexp(rng.uniform(0.5, 1.0, 2098), np.arange(-1074, 1024)) * rng.choice([-1.0, 1.0], 2098)
    raw = rng.integers(0, 2**63 - 1, 5000, dtype=np.int64).view(np.float64)  # random bit patterns
    values = np.concatenate([HARD_FLOATS, spread, raw[np.isfinite(raw)], np.arange(-50.0, 50.0)])
    data = np.resize(values, (3, 1000, 7))
    data[1, 500, 3] = -np.inf  # a non-finite block in the middle of a large tensor
    t = Trace(config={"note": "hard floats"}, derived={})
    t.record("x", data, ("a", "b", "c"), "input")
    monkeypatch.setattr(trace_mod, "_JSON_BLOCK", 1000)
    text = t.to_json()
    strict = json.loads(text, parse_constant=lambda c: pytest.fail(f"non-standard JSON constant {c}"))
    back = np.asarray(strict["tensors"]["x"]["data"], dtype=np.float64)
    assert np.array_equal(bits(back), bits(data))  # -0.0 keeps its sign; subnormals exact
    # each value is written with the fewest significant digits that round-trip, as Python's repr
    body = text[text.index('"data":') + 7:]
    tokens = re.findall(r"-?\d[\d.]*(?:e[-+]?\d+)?", body)[: len(HARD_FLOATS) + 2098]
    for tok, v in zip(tokens, data.reshape(-1)):
        assert float(tok) == v and digits(tok) == digits(repr(float(v))), (tok, v)


def digits(number: str) -> str:
    """The significant digits of a decimal text: '-0.00120e+5' -> '12'."""
    mantissa = number.lstrip("-").split("e")[0].replace(".", "")
    return mantissa.strip("0") or "0"


def test_json_number_format_is_fixed():
    # The byte format of floats in --format json (orjson >= 3.13): a change here changes every export.
    t = Trace(config={}, derived={})
    t.record("x", np.array([1e16, 1e-5, -2.5e-7, -0.0, 5e-324, 1.0, 0.1, 1e15]), ("i",), "input")
    assert t.to_json().endswith('"data":[1e+16,0.00001,-2.5e-7,-0.0,5e-324,1.0,0.1,1000000000000000.0]}}}\n')


def test_json_of_zero_dimensional_and_empty_tensors():
    t = Trace(config={}, derived={})
    t.record("s", np.array(-0.0), (), "input")
    t.record("e", np.zeros((0, 3)), ("a", "b"), "input")
    t.record("f", np.zeros((2, 0, 3)), ("a", "b", "c"), "input")
    t.record("n", np.array([np.nan, np.inf, 1.5]), ("a",), "input")
    d = json.loads(t.to_json())["tensors"]
    assert str(d["s"]["data"]) == "-0.0" and d["e"]["data"] == [] and d["f"]["data"] == [[], []]
    assert d["n"]["data"] == ["nan", "inf", 1.5]


def test_json_refuses_non_finite_metadata():
    t = Trace(config={"fill": float("-inf")}, derived={})
    with pytest.raises(ValueError, match="non-finite"):
        t.to_json()


def test_json_bytes_do_not_depend_on_the_block_size_or_a_second_run(tmp_path, monkeypatch):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    assert main(["render", *OPTS, "--format", "json", "-o", str(a)]) == 0
    monkeypatch.setattr(trace_mod, "_JSON_BLOCK", 3)
    assert main(["render", *OPTS, "--format", "json", "-o", str(b)]) == 0
    assert a.read_bytes() == b.read_bytes() and a.read_bytes().endswith(b"}}\n")
