"""A full disk, files that vanish while a run goes on, stdout that cannot be written: one line,
exit 2, and nothing half-written (no temp file, no partial note, no figure without its note).

A full disk is simulated by RLIMIT_FSIZE (writing past it fails with EFBIG, as ENOSPC would: an
OSError in the middle of a write), and in-process by a writer that raises ENOSPC."""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
import types
from pathlib import Path

import pytest
from hostile import assert_clean, assert_untouched, run_cli, snapshot

ROOT = Path(__file__).resolve().parent.parent


def test_full_disk_while_streaming_json_keeps_the_old_file(tmp_path):
    (tmp_path / "trace.json").write_text("old\n")
    before = snapshot(tmp_path)
    answer = run_cli(["render", "--h", "8", "--w", "8", "--format", "json", "-o", "trace.json"], cwd=tmp_path,
                     file_bytes=64 * 1024)
    line = assert_clean(answer, "-o")
    assert "File too large" in line
    assert_untouched(tmp_path, before)  # the temp file is gone, the old trace is whole


def test_full_disk_writes_neither_the_note_nor_any_figure(tmp_path):
    """The note (33 KB) fits and so does the shape flow (49 KB), the heatmaps (79 KB) do not: all
    or none, and the figures folder this run made is removed again."""
    pytest.importorskip("matplotlib", reason="figures need matplotlib: pip install 'attnwalk[figures]' (CI does)")
    answer = run_cli(["render", "--lang", "en", "-o", "n.md", "--figures", "figs/deep"], cwd=tmp_path,
                     file_bytes=60_000)
    line = assert_clean(answer, "--figures")
    assert "File too large" in line
    assert list(tmp_path.iterdir()) == []


def test_full_disk_during_a_build_writes_no_note(tmp_path):
    shutil.copy(ROOT / "examples" / "scenarios" / "hand-2x2.toml", tmp_path / "hand.toml")
    (tmp_path / "course.toml").write_text(
        '[[walkthrough]]\nname = "small"\noptions = { h = 2, w = 2 }\noutput = "notes/{name}.md"\n'
        '[[walkthrough]]\nname = "big"\noptions = { h = 12, w = 12, dim = 8 }\noutput = "notes/{name}.md"\n'
        '[[walkthrough]]\nname = "hand"\nscenario = "hand.toml"\noutput = "notes/{name}.{lang}.md"\n'
        'langs = ["vi", "en"]\n')
    before = snapshot(tmp_path)
    line = assert_clean(run_cli(["build", "course.toml"], cwd=tmp_path, file_bytes=40_000), "cannot write")
    assert "File too large" in line
    assert_untouched(tmp_path, before)
    assert not (tmp_path / "notes").exists()  # the folder this build made is gone too


def test_full_disk_during_check_fix_keeps_the_note(tmp_path):
    note = tmp_path / "n.md"
    text = (ROOT / "examples" / "notes" / "hand-2x2.en.md").read_text(encoding="utf-8")
    wrong = text.replace("0.134471", "0.134366", 1)
    assert wrong != text
    note.write_text(wrong, encoding="utf-8")
    before = snapshot(tmp_path)
    line = assert_clean(run_cli(["check", "--fix", "n.md"], cwd=tmp_path, file_bytes=4096), "n.md")
    assert "File too large" in line
    assert_untouched(tmp_path, before)


class _FullDisk:
    """A file object whose writes fail with ENOSPC after ``room`` bytes, like a disk filling up."""

    def __init__(self, fh, room):
        self.fh, self.room = fh, room

    def write(self, data):
        self.room -= len(data)
        if self.room < 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return self.fh.write(data)

    def __getattr__(self, name):
        return getattr(self.fh, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.fh.close()


def _full_disk(monkeypatch, room):
    from attnwalk import writefile

    fake = types.SimpleNamespace(**{k: getattr(os, k) for k in dir(os) if not k.startswith("__")})
    fake.fdopen = lambda fd, *a, **k: _FullDisk(os.fdopen(fd, *a, **k), room)
    monkeypatch.setattr(writefile, "os", fake)


@pytest.mark.parametrize("args", [["render", "-o", "n.md"], ["render", "--format", "npz", "-o", "t.npz"],
                                  ["build", "course.toml"]])
def test_no_space_left_is_one_line_and_leaves_nothing(tmp_path, monkeypatch, capsys, args):
    from attnwalk.cli import main

    (tmp_path / "course.toml").write_text('[[walkthrough]]\nname = "a"\noptions = { h = 2, w = 2 }\n'
                                          'langs = ["vi", "en"]\noutput = "{name}.{lang}.md"\n')
    monkeypatch.chdir(tmp_path)
    _full_disk(monkeypatch, room=1000)
    before = snapshot(tmp_path)
    code = main(args)
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "No space left on device" in err[0], err
    assert err[0].startswith("attnwalk: error: ") and "Traceback" not in err[0]
    assert_untouched(tmp_path, before)


def test_a_note_that_vanishes_mid_run_is_reported_and_the_others_checked(tmp_path, monkeypatch, capsys):
    """``check a.md b.md``: b.md is deleted while a.md is being checked; a's report stands, b gets its
    error line, and the status is 2."""
    import attnwalk.check
    from attnwalk.cli import main

    src = ROOT / "examples" / "notes" / "hand-2x2.en.md"
    for name in ("a.md", "b.md"):
        shutil.copy(src, tmp_path / name)
    real = attnwalk.check.check_file

    def check_then_delete(path, *args, **kwargs):
        report = real(path, *args, **kwargs)
        (tmp_path / "b.md").unlink(missing_ok=True)
        return report

    monkeypatch.setattr(attnwalk.check, "check_file", check_then_delete)
    monkeypatch.chdir(tmp_path)
    code = main(["check", "a.md", "b.md"])
    out, err = capsys.readouterr()
    assert code == 2
    assert "a.md: " in out and " 0 wrong" in out
    assert err.splitlines() == [
        "attnwalk: error: b.md: cannot read: No such file or directory; allowed: a readable UTF-8 Markdown file "
        "(a regular file of at most 256 MiB)"]


@pytest.mark.parametrize("args", [["render"], ["render", "--format", "json"],
                                  ["check", str(ROOT / "examples" / "notes" / "hand-2x2.en.md"), "--show-unknown"]])
def test_stdout_on_a_full_device_is_one_line(args):
    """``> /dev/full``: the write fails at flush; one line on stderr, exit 2, no 'Exception ignored'."""
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full on this system")
    with open("/dev/full", "w") as full:
        p = subprocess.run([sys.executable, "-m", "attnwalk", *args], stdout=full, stderr=subprocess.PIPE,
                           text=True, timeout=60)
    lines = p.stderr.strip().splitlines()
    assert p.returncode == 2 and len(lines) == 1, p.stderr
    assert lines[0].startswith("attnwalk: error: stdout: cannot write: No space left on device; allowed:")


def test_stdout_closed_early_is_one_line():
    """``| head -c 10`` on a large JSON trace: the pipe closes while attnwalk still writes."""
    p = subprocess.Popen([sys.executable, "-m", "attnwalk", "render", "--h", "24", "--w", "24", "--format", "json"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert p.stdout.read(10) == b'{"config":'
    p.stdout.close()
    err = p.stderr.read().decode()
    assert p.wait(timeout=60) == 2
    assert err.strip().splitlines() == ["attnwalk: error: stdout: cannot write: Broken pipe; allowed: a writable "
                                        "stdout (a file, a pipe, a terminal) or -o FILE"]


@pytest.mark.parametrize("target", ["out/", "missing/", "out/deeper/"])
def test_output_with_a_trailing_slash_names_a_folder_and_writes_nothing(tmp_path, target):
    """``-o notes/`` means a folder: Path() would drop the slash and write a file called ``notes``."""
    (tmp_path / "out").mkdir()
    before = snapshot(tmp_path)
    line = assert_clean(run_cli(["render", "--h", "2", "--w", "2", "-o", target], cwd=tmp_path), "-o")
    assert "names a folder" in line or "is a folder" in line
    assert_untouched(tmp_path, before)


def test_build_output_with_a_trailing_slash_names_a_folder_and_writes_nothing(tmp_path):
    (tmp_path / "notes").mkdir()
    (tmp_path / "course.toml").write_text('[[walkthrough]]\nname = "a"\noptions = { h = 2, w = 2 }\n'
                                          'langs = ["en"]\noutput = "notes/{name}/"\n')
    before = snapshot(tmp_path)
    line = assert_clean(run_cli(["build", "course.toml"], cwd=tmp_path), "output")
    assert "names a folder" in line
    assert_untouched(tmp_path, before)
