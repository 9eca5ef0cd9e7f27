"""``build`` and its cache under hostile conditions (hostile round 13): a corrupted, truncated, hand-edited or
hostile ``.attnwalk-build.json`` costs a rebuild, never a traceback or a wrong skip; a cache that is a symlink
is neither read nor written through; a notes folder symlinked outside the course is refused; outputs that would
be one file on macOS or Windows (case, Unicode normalisation) are refused; two builds of one course at once
leave whole notes and no temp file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import unicodedata

import pytest
from hostile import assert_clean, assert_untouched, run_cli, snapshot

COURSE = ('[[walkthrough]]\nname = "a"\noptions = { h = 2, w = 2 }\noutput = "notes/{name}.md"\n'
          '[[walkthrough]]\nname = "b"\noptions = { h = 2, w = 3, heads = 2 }\noutput = "notes/{name}.md"\n')
CACHE = ".attnwalk-build.json"


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The notes, and the cache, of a clean build of COURSE."""
    root = tmp_path_factory.mktemp("reference")
    (root / "course.toml").write_text(COURSE)
    answer = run_cli(["build", "course.toml"], cwd=root)
    assert answer.code == 0, answer.err
    return {p.name: p.read_bytes() for p in (root / "notes").iterdir()}, json.loads((root / CACHE).read_text())


def _entry(inputs="0" * 64, output="0" * 64):
    return {"inputs": inputs, "output": output}


# the cache's text -> the build must rebuild every note whose entry is not a well-formed one of its own
CACHES = {
    "not_json": "{not json",
    "truncated": '{\n "notes/a.md": {\n  "inputs": "4fb8',
    "empty": "",
    "a_list": "[1, 2, 3]",
    "null": "null",
    "entries_of_wrong_types": json.dumps({"notes/a.md": 5, "notes/b.md": [1, 2]}),
    "fields_of_wrong_types": json.dumps({"notes/a.md": {"inputs": [], "output": {}}, "notes/b.md": {"inputs": None}}),
    "nested_100000_deep": "[" * 100_000 + "]" * 100_000,
    "from_a_future_version": json.dumps({"version": 99, "notes/a.md": {**_entry(), "extra": {"x": [1]}}}),
    "paths_outside_the_course": json.dumps({"../../etc/passwd": _entry(), "/etc/shadow": _entry()}),
    "nan_and_huge_numbers": '{"notes/a.md": {"inputs": NaN, "output": 1e999}, "x": ' + "9" * 5000 + "}",
    "binary": "\udcff\udcfe\x00",
}


@pytest.mark.parametrize("name", sorted(CACHES))
def test_a_corrupted_cache_costs_a_rebuild_and_is_replaced(tmp_path, reference, name):
    notes, good_cache = reference
    (tmp_path / "course.toml").write_text(COURSE)
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.md").write_text("stale\n")  # a cache that is believed would keep this
    (tmp_path / CACHE).write_bytes(CACHES[name].encode("utf-8", "surrogateescape"))
    answer = run_cli(["build", "course.toml"], cwd=tmp_path)
    assert answer.code == 0 and "Traceback" not in answer.err and "error" not in answer.err, answer.err
    assert {p.name: p.read_bytes() for p in (tmp_path / "notes").iterdir()} == notes
    assert json.loads((tmp_path / CACHE).read_text()) == good_cache
    assert sorted(os.listdir(tmp_path)) == sorted([CACHE, "course.toml", "notes"])  # no temp file


def test_a_cache_over_16_mib_is_not_read(tmp_path, reference):
    notes, good_cache = reference
    (tmp_path / "course.toml").write_text(COURSE)
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.md").write_text("stale\n")
    entries = {"notes/a.md": good_cache["notes/a.md"], "notes/b.md": good_cache["notes/b.md"]}
    text = json.dumps(entries)[:-1] + ', "pad": "' + "x" * (17 * 2**20) + '"}'
    (tmp_path / CACHE).write_text(text)  # its entries would skip a.md: it is not believed
    assert run_cli(["build", "course.toml"], cwd=tmp_path).code == 0
    assert (tmp_path / "notes" / "a.md").read_bytes() == notes["a.md"]


def test_a_cache_symlinked_outside_the_course_is_neither_read_nor_written(tmp_path, reference):
    notes, good_cache = reference
    course, outside = tmp_path / "course", tmp_path / "outside"
    course.mkdir()
    outside.mkdir()
    (outside / "victim.json").write_text(json.dumps(good_cache))  # a cache that would skip every note
    (course / CACHE).symlink_to(outside / "victim.json")
    (course / "course.toml").write_text(COURSE)
    (course / "notes").mkdir()
    (course / "notes" / "a.md").write_text("stale\n")
    before = snapshot(outside)
    assert run_cli(["build", "course.toml"], cwd=course).code == 0
    assert (course / "notes" / "a.md").read_bytes() == notes["a.md"]
    assert_untouched(outside, before)
    assert (course / CACHE).is_symlink()


def test_a_notes_folder_symlinked_outside_the_course_is_refused(tmp_path):
    course, outside = tmp_path / "course", tmp_path / "outside"
    course.mkdir()
    outside.mkdir()
    (course / "notes").symlink_to(outside)
    (course / "course.toml").write_text(COURSE)
    before = snapshot(tmp_path)
    line = assert_clean(run_cli(["build", "course.toml"], cwd=course), "output")
    assert "outside the manifest's folder" in line
    assert_untouched(tmp_path, before)


def _pair(first: str, second: str) -> str:
    return "".join(f'[[walkthrough]]\nname = "{n}"\noptions = {{ h = 2, w = 2 }}\noutput = "notes/{{name}}.md"\n'
                   for n in (first, second))


@pytest.mark.parametrize("first, second", [("A", "a"), ("Attention", "ATTENTION"),
                                           (unicodedata.normalize("NFC", "é"), unicodedata.normalize("NFD", "é")),
                                           ("straße", "STRASSE")],
                         ids=["case", "words", "nfc_nfd", "casefold"])
def test_outputs_that_are_one_file_on_macos_or_windows_are_refused(tmp_path, first, second):
    assert first != second
    (tmp_path / "course.toml").write_text(_pair(first, second), encoding="utf-8")
    before = snapshot(tmp_path)
    line = assert_clean(run_cli(["build", "course.toml"], cwd=tmp_path), "differ only in case or Unicode")
    assert f"notes/{second}.md" in line and f"notes/{first}.md" in line
    assert_untouched(tmp_path, before)


def test_two_builds_of_one_course_at_once_leave_whole_notes(tmp_path, reference):
    notes, _ = reference
    (tmp_path / "course.toml").write_text(COURSE)
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
    runs = [subprocess.Popen([sys.executable, "-m", "attnwalk", "build", "course.toml"], cwd=tmp_path, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(3)]
    for run in runs:
        _, err = run.communicate(timeout=120)
        assert run.returncode == 0, err
    assert {p.name: p.read_bytes() for p in (tmp_path / "notes").iterdir()} == notes
    assert sorted(os.listdir(tmp_path)) == sorted([CACHE, "course.toml", "notes"])
