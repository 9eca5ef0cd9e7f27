"""Scenario keys for hand-written notes (issue 8): scale, weight_layout, source = "scores".

Each is compared with PyTorch (float64): ``F.scaled_dot_product_attention(..., scale=)``, ``X @ W``
and ``softmax(scores) @ v``.
"""

import numpy as np
import pytest

from attnwalk.api import walk
from attnwalk.config import make_config
from attnwalk.errors import ConfigError

torch = pytest.importorskip("torch", reason="torch is not installed (CI installs it)")
F = torch.nn.functional

X = [[1, 0, 1], [0, 2, 1], [1, 1, 0]]
W_IN_OUT = {"w_q": [[1, 0], [0, 1], [1, 1]], "w_k": [[1, 1], [0, 1], [1, 0]], "w_v": [[1, 2], [0, 1], [1, 0]]}


def t64(a):
    return torch.tensor(a, dtype=torch.float64)


@pytest.mark.parametrize("scale, mult", [("sqrt_dk", 2 ** -0.5), ("none", 1.0), (0.25, 0.25)])
def test_scale_and_in_out_layout_match_pytorch(scale, mult):
    t = walk(variant="sdpa", source="project", x=X, heads=1, weight_layout="in_out", scale=scale, **W_IN_OUT)
    x = t64(X)
    q, k, v = (x @ t64(W_IN_OUT[n]) for n in ("w_q", "w_k", "w_v"))
    ref = F.scaled_dot_product_attention(q[None], k[None], v[None], scale=mult)[0]
    np.testing.assert_allclose(t["out"][0], ref.numpy(), rtol=0, atol=1e-12)
    np.testing.assert_allclose(t["scores_scaled"][0, 0], (q @ k.T).numpy() * mult, rtol=0, atol=1e-12)
    assert t["w_q"].shape == (2, 3)  # recorded in nn.Linear layout (out, in)


def test_out_in_layout_is_nn_linear():
    w = {n: np.array(v).T.tolist() for n, v in W_IN_OUT.items()}
    a = walk(variant="sdpa", source="project", x=X, heads=1, **w)
    b = walk(variant="sdpa", source="project", x=X, heads=1, weight_layout="in_out", **W_IN_OUT)
    np.testing.assert_array_equal(a["out"], b["out"])


def test_mha_scale_matches_pytorch():
    t = walk(variant="mha", tokens=3, dim=4, heads=2, scale="none", seed=3)
    q, k, v = (t64(t[n][0]) for n in ("q", "k", "v"))
    ref = F.scaled_dot_product_attention(q, k, v, scale=1.0)
    np.testing.assert_allclose(t["o"][0], ref.numpy(), rtol=0, atol=1e-12)


def test_given_scores_match_pytorch_softmax():
    scores = [[2, 1, 0.1], [0.5, 0.5, 1]]
    v = [[1, 0], [0, 1], [1, 1]]
    t = walk(variant="sdpa", source="scores", scores=scores, v=v)
    ref = torch.softmax(t64(scores), -1)
    np.testing.assert_allclose(t["attn"][0, 0], ref.numpy(), rtol=0, atol=1e-15)
    np.testing.assert_allclose(t["out"][0], (ref @ t64(v)).numpy(), rtol=0, atol=1e-15)
    t = walk(variant="sdpa", source="scores", scores=scores, scale=0.5, mask="causal", mask_fill="-1e9")
    keep = torch.ones(2, 3, dtype=torch.bool).tril()
    ref = torch.softmax((t64(scores) * 0.5).masked_fill(~keep, -1e9), -1)
    np.testing.assert_allclose(t["attn"][0, 0], ref.numpy(), rtol=0, atol=1e-15)
    assert "out" not in t  # no v: the walk stops at the weights


@pytest.mark.parametrize("opts, option", [
    ({"variant": "sdpa", "scale": "sqrt"}, "--scale"),
    ({"variant": "sdpa", "scale": -1}, "--scale"),
    ({"variant": "sdpa", "weight_layout": "io"}, "--weight-layout"),
    ({"variant": "sdpa", "source": "scores"}, "--scenario"),
    ({"variant": "sdpa", "source": "scores", "scores": [[1, 2]], "scale": "sqrt_dk"}, "--scale"),
    ({"variant": "sdpa", "source": "scores", "scores": [[1, 2]], "heads": 2}, "--heads"),
    ({"variant": "sdpa", "source": "scores", "scores": [[1, 2]], "v": [[1]]}, "--scenario"),
    ({"variant": "sdpa", "source": "project", "rng": "numpy-legacy", "weight_init": "rand"}, "--weight-init"),
    ({"variant": "sdpa", "source": "project", "weight_init": "uniform"}, "--weight-init"),  # needs numpy-legacy
    ({"variant": "sdpa", "source": "direct", "rng": "numpy-legacy", "weight_init": "uniform"}, "--weight-init"),
])
def test_bad_new_keys_name_the_option(opts, option):
    with pytest.raises(ConfigError) as err:
        make_config(**opts)
    assert err.value.option == option
    assert "allowed:" in str(err.value)


def test_defaults_are_left_out_of_the_config_dict():
    d = make_config(variant="sdpa").to_dict()
    assert "scale" not in d and "weight_layout" not in d and "weight_init" not in d
    assert make_config(variant="sdpa", scale="none").to_dict()["scale"] == "none"


def test_weights_drawn_by_rand_are_numpys_legacy_stream():
    """weight_init = "uniform": np.random.seed(s); x = rand(n, d); W_Q, W_K, W_V = rand(d, d) * init_std."""
    t = walk(variant="sdpa", source="project", rng="numpy-legacy", seed=3, input="uniform", weight_init="uniform",
             init_std=0.5, tokens=2, dim=3, heads=1, weight_layout="in_out")
    rs = np.random.RandomState(3)
    x = rs.rand(2, 3)
    w = {n: rs.rand(3, 3) * 0.5 for n in ("w_q", "w_k", "w_v")}
    np.testing.assert_array_equal(t["x"].reshape(2, 3), x)
    for n in w:
        np.testing.assert_array_equal(t[n], w[n].T)  # recorded in nn.Linear layout (out, in)
    q, k, v = (t64(x) @ t64(w[f"w_{n}"]) for n in "qkv")
    ref = F.scaled_dot_product_attention(q[None], k[None], v[None])[0]
    np.testing.assert_allclose(t["out"].reshape(2, 3), ref.numpy(), rtol=0, atol=1e-12)


def test_rand_weights_are_not_rendered_as_markdown(tmp_path):
    """The Markdown walkthroughs describe randn weights: a weight_init = "uniform" scenario is for check
    and --format json; render refuses it for Markdown with one line and writes nothing."""
    from typer.testing import CliRunner

    from attnwalk.cli import app

    sc = tmp_path / "u.toml"
    sc.write_text('variant = "sdpa"\nsource = "project"\nrng = "numpy-legacy"\nweight_init = "uniform"\nheads = 1\n',
                  encoding="utf-8")
    res = CliRunner().invoke(app, ["render", "--scenario", str(sc), "-o", str(tmp_path / "n.md")])
    assert res.exit_code == 2 and "--weight-init" in res.output and "Traceback" not in res.output
    assert not (tmp_path / "n.md").exists()
    res = CliRunner().invoke(app, ["render", "--scenario", str(sc), "--format", "json", "-o", str(tmp_path / "n.json")])
    assert res.exit_code == 0 and (tmp_path / "n.json").exists()
