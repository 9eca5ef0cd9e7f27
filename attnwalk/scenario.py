"""Scenario files: one TOML file describes one walkthrough completely (docs/scenarios.md).

Keys are the options of ``Config`` (``kv-tokens`` may be written ``kv_tokens``); tables are
arrays of rows. A scenario must be valid by itself: it is checked with ``make_config`` here,
so a bad file is reported as one line naming the file and the key. Flags given beside
``--scenario`` override its keys (cli.scenario merges them before the final ``make_config``).
"""

from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path

from .config import Config, make_config
from .errors import ConfigError

KEYS = tuple(f.name for f in dataclasses.fields(Config) if f.name != "derived")


def load_scenario(path) -> dict:
    """The options of the scenario file at ``path``, validated; ConfigError("--scenario", ...) if bad."""
    from .readfile import read_text

    path = Path(path)
    name = path.name
    text = read_text(path, "--scenario", "TOML file")
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError) as err:  # ValueError: an integer of > 4300 digits
        raise ConfigError("--scenario", f"{name}: not valid TOML: {str(err)[:120]}; allowed: a TOML file of "
                                        "scenario keys (docs/scenarios.md)") from None
    except RecursionError:  # tomllib parses nested arrays recursively: [[[[...]]]] thousands deep
        raise ConfigError("--scenario", f"{name}: arrays or tables nested too deeply; allowed: a TOML file of "
                                        "scenario keys, tables as arrays of rows (docs/scenarios.md)") from None
    return scenario_options(data, name)


def scenario_options(data: dict, name: str, option: str = "--scenario") -> dict:
    """Scenario keys read from a file (TOML, or a notebook's metadata), validated; ConfigError(option, ...)
    naming ``name`` and the key if bad."""
    options = {}
    for key, value in data.items():
        opt = key.replace("-", "_")
        if opt not in KEYS:  # a table under a known key is judged by make_config, naming what that key takes
            raise ConfigError(option, f"{name}: unknown key {key!r}; allowed: {', '.join(KEYS)}")
        if opt in options:  # kv-tokens and kv_tokens: which one was meant?
            raise ConfigError(option, f"{name}: key {opt} given twice ({key!r} and its other spelling); "
                                      "allowed: one of them")
        options[opt] = value
    try:
        make_config(**options)
    except ConfigError as err:
        message = str(err)[len(err.option) + 2:]
        if err.option == "--scenario":
            raise ConfigError(option, f"{name}: {message}") from None
        key = err.option.lstrip("-").replace("-", "_")
        raise ConfigError(option, f"{name}: key {key}: {message}") from None
    return options
