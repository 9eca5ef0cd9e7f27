"""Run one command line through ``main`` in a fresh process, fast path on or off, in a folder of fixture files:
what it printed (bytes), its exit status, the files it left, and whether typer answered (built the app)."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

DRIVER = """import os, sys
from attnwalk.cli import main
try:
    code = main(sys.argv[2:], fast=sys.argv[1] == "1")
finally:
    with open(os.environ["ATTNWALK_TEST_MARK"], "w") as mark:  # typer built the app: it answered
        mark.write(str(sys.modules["attnwalk.cli"]._typer_app.cache_info().currsize == 1))
sys.exit(code)
"""


def make_fixtures(folder: Path) -> None:
    """Notes to check (right, one number wrong, no config), a scenario, a one-note course, a folder, a file."""
    from attnwalk.cli import main

    folder.mkdir(parents=True)
    assert main(["render", "--h", "2", "--w", "2", "--heads", "1", "--lang", "en", "-o", str(folder / "note.md")]) == 0
    text = (folder / "note.md").read_text(encoding="utf-8")
    body = text.index("\n---\n", 4)
    m = re.compile(r"\d\.\d{4}\b").search(text, body)
    wrong = str((int(m.group()[-1]) + 5) % 10)
    (folder / "bad.md").write_text(text[:m.end() - 1] + wrong + text[m.end():], encoding="utf-8")
    (folder / "plain.md").write_text("# Notes\n\nA number: 0.5.\n", encoding="utf-8")
    (folder / "sc.toml").write_text('variant = "sdpa"\ntokens = 2\n', encoding="utf-8")
    (folder / "course.toml").write_text('[[walkthrough]]\nname = "tiny"\noptions = { h = 2, w = 2, heads = 1 }\n'
                                        'langs = ["en", "vi"]\noutput = "notes/{name}.{lang}.md"\n', encoding="utf-8")
    (folder / "dir").mkdir()
    (folder / "file.txt").write_text("not a folder\n", encoding="utf-8")


def snapshot(folder: Path) -> dict[str, str]:
    """Every file under ``folder``: relative path -> SHA-256 of its bytes (folders as 'dir')."""
    out = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        out[rel] = "dir" if path.is_dir() else hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def run(argv: list[str], fast: bool, fixtures: Path, folder: Path, env: dict | None = None,
        closed_stdout: bool = False) -> dict:
    """``main(argv, fast=fast)`` in a fresh process whose working folder is a fresh copy of ``fixtures``."""
    if folder.exists():
        shutil.rmtree(folder)
    shutil.copytree(fixtures, folder)
    mark = folder.parent / f"{folder.name}.mark"
    full_env = {**os.environ, "COLUMNS": "100", "ATTNWALK_TEST_MARK": str(mark), **(env or {})}
    cmd = [sys.executable, "-c", DRIVER, "1" if fast else "0", *argv]
    if closed_stdout:  # the reader of a pipe gone before anything was written (`| head` that exited)
        proc = subprocess.Popen(cmd, cwd=folder, env=full_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        proc.stdout.close()
        err = proc.stderr.read()
        proc.stderr.close()
        code, out = proc.wait(timeout=120), b""
    else:
        res = subprocess.run(cmd, cwd=folder, env=full_env, capture_output=True, timeout=120)
        code, out, err = res.returncode, res.stdout, res.stderr
    typer_loaded = mark.read_text() == "True"
    mark.unlink()
    return {"code": code, "stdout": out, "stderr": err, "files": snapshot(folder), "typer": typer_loaded}
