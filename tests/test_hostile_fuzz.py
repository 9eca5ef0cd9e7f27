"""Property-based hostile input (hypothesis): whatever the values, validation answers with a Config or
one ConfigError line naming the option and what is allowed, never another exception; the CLI
answers 0 or one ``attnwalk: error:`` line with status 2."""

from __future__ import annotations

import dataclasses
import math
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attnwalk.budget import estimate
from attnwalk.config import Config, make_config
from attnwalk.errors import ConfigError
from attnwalk.scenario import load_scenario

FIELDS = [f.name for f in dataclasses.fields(Config) if f.name != "derived"]
MAX_MESSAGE = 1000

scalars = st.one_of(
    st.none(), st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70), st.sampled_from([0, 1, 2, 3, 4, 4096, 4097, 10**9, -1]),
    st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([0.5, 1e-400, 1e308, -0.0]),
    st.text(max_size=30), st.sampled_from(["yolo", "sdpa", "mha", "causal", "padding:2", "padding:", "-inf",
                                           "-1e9", "1/3", "1e400", "nan", "c0", "sqrt_dk", "none", "in_out"]),
)
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                       st.dictionaries(st.text(max_size=5), inner, max_size=2)),
                      max_leaves=12)
# Valid starting points, so that a mutation reaches the checks behind the first one.
BASES = [
    {},
    {"variant": "sdpa", "tokens": 3, "dim": 4},
    {"variant": "sdpa", "source": "columns", "x": [[1, 0, 1, 2], [2, 1, 0, 2]]},
    {"variant": "sdpa", "source": "project", "x": [[1, 2], [3, 4]], "w_q": [[1, 0], [0, 1]]},
    {"variant": "sdpa", "source": "scores", "scores": [[1, 2], [3, 4]], "v": [[1], [2]]},
    {"variant": "mha", "tokens": 4, "dim": 8, "heads": 2, "mask": "causal"},
]


def _answer(options: dict):
    try:
        cfg = make_config(**options)
    except ConfigError as err:
        text = str(err)
        assert "\n" not in text and "allowed:" in text and len(text) < MAX_MESSAGE, text
        assert text.startswith(err.option + ": ")
        return None
    assert math.isfinite(estimate(cfg)) and estimate(cfg) > 0
    return cfg


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(base=st.sampled_from(BASES), changes=st.dictionaries(st.sampled_from(FIELDS + ["colour", "Variant"]),
                                                            values, min_size=1, max_size=3))
def test_make_config_answers_a_config_or_one_line(base, changes):
    _answer({**base, **changes})


# A tiny TOML writer for hostile values (tomllib reads; nothing in the standard library writes).
def _toml(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return {math.inf: "inf", -math.inf: "-inf"}.get(value, "nan" if value != value else repr(value))
    if isinstance(value, str):
        return '"' + "".join(c if c.isprintable() and c not in '"\\' else f"\\u{ord(c):04x}" for c in value) + '"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value if v is not None) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f'"{_toml(k)[1:-1]}" = {_toml(v)}' for k, v in value.items() if v is not None) + "}"
    return '""'


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(base=st.sampled_from(BASES), changes=st.dictionaries(st.sampled_from(FIELDS + ["colour"]), values,
                                                            min_size=1, max_size=3))
def test_scenario_files_answer_options_or_one_line(base, changes):
    text = "".join(f"{k} = {_toml(v)}\n" for k, v in {**base, **changes}.items() if v is not None)
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "s.toml"
        path.write_text(text, encoding="utf-8")
        try:
            options = load_scenario(path)
        except ConfigError as err:
            assert err.option == "--scenario" and "\n" not in str(err) and "allowed:" in str(err), str(err)
            return
        assert _answer(options) is not None  # a scenario load_scenario accepts is a valid config


@settings(max_examples=200, deadline=None)
@given(data=st.binary(max_size=300))
def test_any_bytes_as_a_scenario_are_one_line(data):
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "s.toml"
        path.write_bytes(data)
        try:
            load_scenario(path)
        except ConfigError as err:
            assert err.option == "--scenario" and "\n" not in str(err) and "allowed:" in str(err), str(err)


OPTIONS = ["--variant", "--tokens", "--kv-tokens", "--mask", "--mask-fill", "--source", "--h", "--w", "--dim",
           "--heads", "--attn-ratio", "--batch", "--seed", "--input", "--init-std", "--rng", "--pe-on", "--lang",
           "--decimals", "--max-memory", "--format"]
cli_values = st.one_of(st.sampled_from(["0", "1", "2", "3", "4", "-1", "nan", "inf", "1e400", "", "yolo", "sdpa",
                                        "mha", "causal", "padding:1", "-1e9", "json", "md", "en", "v", "o",
                                        "numpy-legacy", "uniform", "64M", "9" * 40]),
                       st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
                               max_size=12))


@pytest.fixture(scope="module")
def small_budget():
    old = os.environ.get("ATTNWALK_MAX_MEMORY")
    os.environ["ATTNWALK_MAX_MEMORY"] = "64M"  # keep whatever is accepted small and quick
    yield
    if old is None:
        os.environ.pop("ATTNWALK_MAX_MEMORY", None)
    else:
        os.environ["ATTNWALK_MAX_MEMORY"] = old


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(pairs=st.lists(st.tuples(st.sampled_from(OPTIONS), cli_values), min_size=1, max_size=3))
def test_render_options_answer_a_trace_or_one_line(small_budget, capsys, pairs):
    from attnwalk.cli import main

    args = ["render"] + [x for option, value in pairs for x in (option, value)]
    if "--format" not in args:
        args += ["--format", "json"]  # no templates: the fuzzing is of the options
    with tempfile.TemporaryDirectory() as d:
        code = main(args + ["-o", str(Path(d) / "out")])
        names = os.listdir(d)
    out, err = capsys.readouterr()
    if code == 0:
        assert err == "" and names == ["out"], (args, err)
        return
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1, (args, code, err)
    assert lines[0].startswith("attnwalk: error: ") and "allowed:" in lines[0], (args, lines)
    assert len(lines[0]) < MAX_MESSAGE and names == [], (args, names)
