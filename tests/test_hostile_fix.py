"""``check --fix`` on hostile files (hostile round 13): the wrong number is fixed and every other byte kept
(a BOM, CRLF line ends), a symlink's target is fixed with the link kept, and what cannot be rewritten
safely (a file with other hard links, one edited while it was checked, a read-only one, a folder, a FIFO)
is one error line with the file as it was."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hostile import assert_clean, assert_untouched, run_cli, snapshot

ROOT = Path(__file__).resolve().parent.parent
RIGHT = (ROOT / "examples" / "notes" / "hand-2x2.en.md").read_bytes()
WRONG = RIGHT.replace(b"0.134471", b"0.134366", 1)  # one alpha of the hand example, miscopied


def test_the_planted_number_is_the_only_difference():
    assert WRONG != RIGHT and len(WRONG) == len(RIGHT)


# name -> (bytes as written, bytes once fixed): each note has one wrong number; nothing else may change
ENCODINGS = {
    "lf": (WRONG, RIGHT),
    "crlf": (WRONG.replace(b"\n", b"\r\n"), RIGHT.replace(b"\n", b"\r\n")),
    "cr": (WRONG.replace(b"\n", b"\r"), RIGHT.replace(b"\n", b"\r")),  # classic Mac OS line ends
    "mixed": (WRONG.replace(b"\n", b"\r\n", 40), RIGHT.replace(b"\n", b"\r\n", 40)),
    "bom": (b"\xef\xbb\xbf" + WRONG, b"\xef\xbb\xbf" + RIGHT),
    "bom_crlf": (b"\xef\xbb\xbf" + WRONG.replace(b"\n", b"\r\n"), b"\xef\xbb\xbf" + RIGHT.replace(b"\n", b"\r\n")),
}


@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_fix_keeps_every_other_byte(tmp_path, name):
    wrong, right = ENCODINGS[name]
    note = tmp_path / "n.md"
    note.write_bytes(wrong)
    found = run_cli(["check", "n.md"], cwd=tmp_path)
    assert found.code == 1 and "published 0.134366, expected 0.134471" in found.out, found.out + found.err
    fixed = run_cli(["check", "--fix", "n.md"], cwd=tmp_path)
    assert fixed.code == 0, fixed.out + fixed.err
    assert note.read_bytes() == right
    assert os.listdir(tmp_path) == ["n.md"]  # no temp file left


@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_every_line_end_reads_as_the_lf_note(tmp_path, name):
    """The same numbers, each once, at the same lines (a CR-only note was read as one line by the merge and
    as many by markdown-it: each of its numbers counted twice)."""
    from attnwalk.check import check_file

    def seen(data):
        (tmp_path / "n.md").write_bytes(data)
        return sorted((r.line, r.text, r.status) for r in check_file(tmp_path / "n.md").recs)

    assert seen(ENCODINGS[name][0]) == seen(WRONG)


def test_fix_through_a_symlink_fixes_the_target_and_keeps_the_link(tmp_path):
    (tmp_path / "real.md").write_bytes(WRONG)
    (tmp_path / "link.md").symlink_to("real.md")
    assert run_cli(["check", "--fix", "link.md"], cwd=tmp_path).code == 0
    assert (tmp_path / "link.md").is_symlink() and os.readlink(tmp_path / "link.md") == "real.md"
    assert (tmp_path / "real.md").read_bytes() == RIGHT


def test_the_same_note_named_twice_is_fixed_once(tmp_path):
    (tmp_path / "n.md").write_bytes(WRONG)
    answer = run_cli(["check", "--fix", "n.md", "./n.md"], cwd=tmp_path)
    assert answer.code == 0, answer.err
    assert (tmp_path / "n.md").read_bytes() == RIGHT


def _hard_link(tmp_path):
    (tmp_path / "n.md").write_bytes(WRONG)
    os.link(tmp_path / "n.md", tmp_path / "other.md")


def _read_only(tmp_path):
    (tmp_path / "n.md").write_bytes(WRONG)
    (tmp_path / "n.md").chmod(0o444)


def _folder(tmp_path):
    (tmp_path / "n.md").mkdir()


def _fifo(tmp_path):
    os.mkfifo(tmp_path / "n.md")


# what n.md is -> the words of the one error line
REFUSED = [
    (_hard_link, "2 hard links"),  # os.replace would leave other.md with the wrong number
    (_read_only, "read-only"),
    (_folder, "a folder"),
    (_fifo, "not a regular file"),
]


@pytest.mark.parametrize("make, says", REFUSED, ids=[f.__name__ for f, _ in REFUSED])
def test_fix_refuses_what_it_cannot_rewrite_safely(tmp_path, make, says):
    make(tmp_path)
    before = snapshot(tmp_path)
    line = assert_clean(run_cli(["check", "--fix", "n.md"], cwd=tmp_path, timeout=30), "n.md")
    assert says in line
    assert_untouched(tmp_path, before)


@pytest.mark.parametrize("suffix", [".md", ".ipynb"])
def test_an_edit_made_while_the_note_was_checked_is_kept(tmp_path, monkeypatch, suffix):
    """The editor saved the note between check's read and its write: the fix must not clobber the edit."""
    from attnwalk.check import CheckError, check_file, fix

    note = tmp_path / f"n{suffix}"
    if suffix == ".md":
        note.write_bytes(WRONG)
    else:
        from attnwalk.cli import main

        assert main(["render", "--scenario", str(ROOT / "examples/scenarios/hand-2x2.toml"), "--lang", "en",
                     "--format", "ipynb", "-o", str(note)]) in (0, None)
        text = note.read_text(encoding="utf-8")
        assert "0.134471" in text
        note.write_text(text.replace("0.134471", "0.134366", 1), encoding="utf-8")
    edited = note.read_bytes() + b"\n"  # what the editor saved
    real = fix.fixed_text

    def fixed_while_edited(text, check):
        out = real(text, check)
        note.write_bytes(edited)
        return out

    monkeypatch.setattr(fix, "fixed_text", fixed_while_edited)
    with pytest.raises(CheckError, match="changed while it was checked"):
        check_file(note, fix="write")
    assert note.read_bytes() == edited
    assert os.listdir(tmp_path) == [note.name]


# the right note with hostile bytes -> None (same verdicts as the note) or the words of the one error line
BYTES = {
    "nul_lines": (RIGHT.replace(b"\n\n", b"\n\x00\n", 3), None),
    "bom_mid_file": (RIGHT.replace(b"\n\n", b"\n\xef\xbb\xbf\n", 3), None),
    "mixed_line_ends": (RIGHT.replace(b"\n", b"\r\n", 3), None),
    "unclosed_and_odd_fences": (RIGHT + b"\n```python\n" + b"~~~\n" * 3 + b"   ```\n\t```\n", None),
    "lone_surrogate_bytes": (RIGHT + b"\n\xed\xa0\x80 0.5\n", "not UTF-8 text"),
    "latin_1": (RIGHT + "\n\xe9 0.5\n".encode("latin-1"), "not UTF-8 text"),
}


@pytest.mark.parametrize("name", sorted(BYTES))
def test_hostile_bytes_keep_the_verdicts_or_are_one_line(tmp_path, name):
    data, says = BYTES[name]
    (tmp_path / "n.md").write_bytes(data)
    answer = run_cli(["check", "n.md"], cwd=tmp_path)
    if says is None:
        (tmp_path / "right.md").write_bytes(RIGHT)
        same = run_cli(["check", "right.md"], cwd=tmp_path)
        assert answer.code == same.code == 0, answer.err
        assert answer.out.split(":", 1)[1] == same.out.split(":", 1)[1]  # the counts, after the file's name
    else:
        assert says in assert_clean(answer, "n.md")
