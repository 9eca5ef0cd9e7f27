"""Hostile input against files: nothing replaced, re-moded or half-written (issue 11)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys

from hostile import assert_clean, assert_untouched, run_cli, snapshot


def test_read_only_output_is_refused_and_kept(tmp_path):
    target = tmp_path / "note.md"
    target.write_text("mine\n")
    target.chmod(0o444)
    before = snapshot(tmp_path)
    line = assert_clean(run_cli(["render", "-o", "note.md"], cwd=tmp_path), "-o")
    assert "read-only" in line
    assert_untouched(tmp_path, before)


def test_existing_output_keeps_its_mode(tmp_path):
    target = tmp_path / "note.md"
    target.write_text("old\n")
    target.chmod(0o640)
    answer = run_cli(["render", "--h", "2", "--w", "2", "-o", "note.md"], cwd=tmp_path)
    assert answer.code == 0, answer.err
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert target.read_text().startswith("---\n")
    assert [p.name for p in tmp_path.iterdir()] == ["note.md"]  # no temp file left


def test_new_output_gets_the_umask_mode(tmp_path):
    code = ("import os, sys; os.umask(0o027); from attnwalk.cli import main; "
            "sys.exit(main(['render', '--h', '2', '--w', '2', '-o', 'new.md']))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert stat.S_IMODE((tmp_path / "new.md").stat().st_mode) == 0o640  # 0o666 & ~0o027, as any editor


def test_stale_temp_file_of_a_killed_run_is_cleaned(tmp_path):
    # a pid that no longer exists: a finished child process
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    stale = tmp_path / f".note.md.attnwalk-{child.pid}-deadbeef.tmp"
    stale.write_text("half")
    other = tmp_path / ".note.md.someone-else.tmp"  # not ours: never touched
    other.write_text("theirs")
    answer = run_cli(["render", "--h", "2", "--w", "2", "-o", "note.md"], cwd=tmp_path)
    assert answer.code == 0, answer.err
    assert not stale.exists()
    assert other.read_text() == "theirs"
    assert sorted(p.name for p in tmp_path.iterdir()) == [".note.md.someone-else.tmp", "note.md"]


def test_temp_file_of_a_live_run_is_kept(tmp_path):
    live = tmp_path / f".note.md.attnwalk-{os.getppid()}-cafe.tmp"
    live.write_text("in use")
    assert run_cli(["render", "--h", "2", "--w", "2", "-o", "note.md"], cwd=tmp_path).code == 0
    assert live.read_text() == "in use"


def _manifest(tmp_path, text):
    (tmp_path / "course.toml").write_text(text)
    return tmp_path


def test_manifest_writing_itself_is_refused(tmp_path):
    _manifest(tmp_path, '[[walkthrough]]\nname = "a"\noptions = { h = 2, w = 2 }\noutput = "{name}.toml"\n'
              '[[walkthrough]]\nname = "course"\noptions = { h = 2, w = 2 }\noutput = "{name}.toml"\n')
    before = snapshot(tmp_path)
    line = assert_clean(run_cli(["build", "course.toml"], cwd=tmp_path), "course.toml")
    assert "overwrite an input" in line
    assert_untouched(tmp_path, before)


def test_one_bad_entry_writes_no_good_one(tmp_path):
    _manifest(tmp_path, '[[walkthrough]]\nname = "good"\noptions = { h = 2, w = 2 }\noutput = "{name}.md"\n'
              '[[walkthrough]]\nname = "bad"\noptions = { heads = 3 }\noutput = "{name}.md"\n')
    before = snapshot(tmp_path)
    assert_clean(run_cli(["build", "course.toml"], cwd=tmp_path), "--heads")
    assert_untouched(tmp_path, before)


def test_empty_langs_is_an_error(tmp_path):
    _manifest(tmp_path, '[[walkthrough]]\nname = "a"\nlangs = []\noutput = "{name}.md"\n')
    before = snapshot(tmp_path)
    line = assert_clean(run_cli(["build", "course.toml"], cwd=tmp_path), "langs")
    assert "non-empty" in line
    assert_untouched(tmp_path, before)


def test_build_keeps_modes_of_notes_it_rewrites(tmp_path):
    _manifest(tmp_path, '[[walkthrough]]\nname = "a"\noptions = { h = 2, w = 2 }\noutput = "{name}.md"\n')
    (tmp_path / "a.md").write_text("stale\n")
    (tmp_path / "a.md").chmod(0o604)
    answer = run_cli(["build", "course.toml"], cwd=tmp_path)
    assert answer.code == 0, answer.err
    assert stat.S_IMODE((tmp_path / "a.md").stat().st_mode) == 0o604
    assert (tmp_path / "a.md").read_text().startswith("---\n")


def test_output_through_a_symlink_keeps_the_link(tmp_path):
    real = tmp_path / "real.md"
    real.write_text("old\n")
    (tmp_path / "link.md").symlink_to("real.md")
    assert run_cli(["render", "--h", "2", "--w", "2", "-o", "link.md"], cwd=tmp_path).code == 0
    assert (tmp_path / "link.md").is_symlink()
    assert real.read_text().startswith("---\n")


def test_dangling_symlink_output_is_refused(tmp_path):
    (tmp_path / "link.md").symlink_to("missing/real.md")
    before = snapshot(tmp_path)
    assert_clean(run_cli(["render", "-o", "link.md"], cwd=tmp_path), "-o")
    assert_untouched(tmp_path, before)
