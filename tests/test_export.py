"""`render --format json|npz`: the whole trace, streamed; NPZ is NumPy's own container."""

import json
import subprocess
import sys

import numpy as np

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


def test_json_streamed_in_parallel_equals_serial_and_round_trips(monkeypatch):
    t = attnwalk.walk(variant="sdpa", tokens=24, kv_tokens=20, mask="causal", batch=2, input="normal")
    monkeypatch.setattr(trace_mod, "_PARALLEL_JSON_MIN", 100)  # make every score tensor "large"
    parallel = "".join(t.json_chunks(workers=2))
    assert parallel == t.to_json() == "".join(t.json_chunks(workers=1))
    back = Trace.from_dict(json.loads(parallel))
    for name in t.names():
        assert np.array_equal(back[name], t[name], equal_nan=True), name
    assert np.isneginf(back["scores_masked"]).any()  # -inf fill survives as "-inf"
