"""``check`` on hostile notebooks (hostile round 13): the hand example's notebook (every number right, as
attnwalk's --format ipynb writes it) reshaped the ways other writers and hostile users shape notebooks (sources as
one string, cells without a type, image/bytes/odd outputs, 10,000 cells, a 5 MB cell, duplicate keys, NaN
literals, NUL and lone surrogates, BOM and CRLF) is checked with the same verdicts and no number called wrong;
``--fix`` of one planted wrong number changes only its digits; a malformed one (trailing garbage, hostile
``metadata.attnwalk``) is one error line naming what is wrong."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from hostile import assert_clean, assert_untouched, run_cli, snapshot

from attnwalk.check import CheckError, check_file

ROOT = Path(__file__).resolve().parent.parent
RAW = (ROOT / "examples" / "notes" / "hand-2x2.en.ipynb").read_text(encoding="utf-8")
NB = json.loads(RAW)


def _dump(nb) -> str:
    return json.dumps(nb, indent=1, ensure_ascii=False)


def _string_sources(nb):
    for cell in nb["cells"]:
        if isinstance(cell.get("source"), list):
            cell["source"] = "".join(cell["source"])
    return _dump(nb)


def _odd_outputs(nb):
    nb["cells"].insert(1, {"cell_type": "code", "metadata": {}, "source": "plot()", "outputs": [
        {"output_type": "display_data", "data": {"image/png": "iVBORw0KGgo" * 1000, "text/plain": ["<Figure>"]}},
        {"output_type": "stream", "text": 5}, {"output_type": "execute_result", "data": {"text/plain": {"a": 1}}},
        {"output_type": "error", "traceback": ["\x1b[31m0.5"]}, 7, None, [], "0.5"]})
    return _dump(nb)


def _untyped_and_odd_cells(nb):
    nb["cells"][1:1] = [{"source": "0.5"}, {"cell_type": 5, "source": 7}, {"cell_type": "markdown", "source": None},
                        {"cell_type": "code", "source": [1, 2], "outputs": "x"}, 1, "x", None, []]
    return _dump(nb)


def _many_cells(nb):
    nb["cells"] += [{"cell_type": "markdown", "metadata": {}, "source": ["x = 0.5\n"]} for _ in range(10_000)]
    return _dump(nb)


def _big_cell(nb):
    nb["cells"].append({"cell_type": "markdown", "metadata": {}, "source": "word 0.5 " * 600_000})  # 5.4 MB
    return _dump(nb)


def _control_characters(nb):
    nb["cells"].append({"cell_type": "markdown", "metadata": {}, "source": "a\x00 0.5 \ud800 0.25\n\x0c0.75"})
    nb["cells"].append({"cell_type": "code", "metadata": {}, "source": ["X = [[0.5]]\n", "\ud800"], "outputs": [
        {"output_type": "stream", "name": "stdout", "text": ["0.5\n", "\x00"]}], "execution_count": None})
    return json.dumps(nb, indent=1)  # \u escapes: a lone surrogate cannot be written as UTF-8


def _duplicate_keys(nb):
    return RAW.replace('"cells": [', '"cells": [], "cells": [', 1)  # json: the last one counts, as Jupyter's


def _nan_literals(nb):
    return RAW.replace('"nbformat": 4', '"nbformat": 4, "x": NaN, "y": [Infinity, -Infinity]', 1)


# name -> (the notebook's text, numbers not understood besides the example's)
SHAPES = {
    "as_written": (lambda nb: RAW, 0),
    "string_sources": (_string_sources, 0),
    "odd_outputs": (_odd_outputs, 0),
    "untyped_and_odd_cells": (_untyped_and_odd_cells, 0),
    "ten_thousand_cells": (_many_cells, 10_000),
    "a_5_mb_cell": (_big_cell, 600_000),
    "control_characters": (_control_characters, 5),  # the code cell's "\ud800" is no Python: read as text
    "duplicate_keys": (_duplicate_keys, 0),
    "nan_literals": (_nan_literals, 0),
    "bom_crlf": (lambda nb: "\ufeff" + RAW.replace("\n", "\r\n"), 0),
}
BASE = check_file(ROOT / "examples" / "notes" / "hand-2x2.en.ipynb")


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_right_numbers_in_a_hostile_notebook_keep_their_verdicts(tmp_path, name):
    make, extra = SHAPES[name]
    nb = tmp_path / "n.ipynb"
    nb.write_text(make(copy.deepcopy(NB)), encoding="utf-8", errors="surrogatepass", newline="")
    report = check_file(nb)
    assert report.wrong == []
    assert (len(report.verified), len(report.unknown)) == (len(BASE.verified), len(BASE.unknown) + extra)


@pytest.mark.parametrize("name", ["as_written", "string_sources", "odd_outputs", "control_characters",
                                  "duplicate_keys", "bom_crlf"])
def test_fix_in_a_hostile_notebook_changes_only_the_wrong_digits(tmp_path, name):
    right = SHAPES[name][0](copy.deepcopy(NB)).encode("utf-8", "surrogatepass")
    assert right.count(b"0.134471") > 1
    nb = tmp_path / "n.ipynb"
    nb.write_bytes(right.replace(b"0.134471", b"0.134366", 1))
    found = check_file(nb)
    assert [(r.text, r.failure()[1]) for r in found.wrong] == [("0.134366", "0.134471")]
    check_file(nb, fix="write")
    assert nb.read_bytes() == right


# metadata.attnwalk (the notebook's scenario) -> the words of the one error line
METADATA = [
    ([1, 2], "metadata.attnwalk: got list"),
    (None, "metadata.attnwalk: got NoneType"),
    ("h = 2", "metadata.attnwalk: got str"),
    ({"h": {"a": [1]}}, "metadata.attnwalk: key h"),
    ({"h": "two"}, "metadata.attnwalk: key h"),
    ({"h": 10**9, "w": 10**9}, "metadata.attnwalk: key h"),
    ({"h": 2.5}, "metadata.attnwalk: key h"),
    ({"tokens": 10**12, "variant": "sdpa"}, "metadata.attnwalk: key tokens"),
    ({"labels": ["a"] * 100_000, "variant": "sdpa"}, "metadata.attnwalk: labels: got a list of 100,000"),
    ({"bogus": 1}, "metadata.attnwalk: unknown key 'bogus'"),
]


@pytest.mark.parametrize("meta, says", METADATA, ids=[s.split(":")[-1].strip() + str(i)
                                                      for i, (_, s) in enumerate(METADATA)])
def test_hostile_metadata_is_one_line(tmp_path, meta, says):
    nb = copy.deepcopy(NB)
    nb["metadata"]["attnwalk"] = meta
    (tmp_path / "n.ipynb").write_text(_dump(nb), encoding="utf-8")
    with pytest.raises(CheckError) as err:
        check_file(tmp_path / "n.ipynb")
    assert says in str(err.value) and "allowed:" in str(err.value) and "\n" not in str(err.value)


def test_nan_in_metadata_and_trailing_garbage_are_one_line_through_the_cli(tmp_path):
    nb = copy.deepcopy(NB)
    nb["metadata"]["attnwalk"] = {"h": "NAN_HERE"}
    for text, says in [(_dump(nb).replace('"NAN_HERE"', "NaN"), "key h: got nan"),
                       (RAW + "\ngarbage{", "not valid JSON"),
                       ("", "not valid JSON")]:
        (tmp_path / "n.ipynb").write_text(text, encoding="utf-8")
        before = snapshot(tmp_path)
        line = assert_clean(run_cli(["check", "--fix", "n.ipynb"], cwd=tmp_path), "n.ipynb")
        assert says in line
        assert_untouched(tmp_path, before)
