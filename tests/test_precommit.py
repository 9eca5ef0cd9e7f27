"""The pre-commit configuration shown in docs/course.md works in a real course repository."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parents[1]


def _shown_config() -> str:
    tokens = MarkdownIt().parse((ROOT / "docs" / "course.md").read_text(encoding="utf-8"))
    blocks = [t.content for t in tokens
              if t.type == "fence" and t.info.strip() == "yaml" and "repo: local" in t.content]
    assert blocks, "docs/course.md shows no `repo: local` pre-commit configuration"
    return blocks[0]


@pytest.fixture
def course(tmp_path):
    """A course repository: notes/ + course.toml (the shipped example course), under git."""
    if shutil.which("pre-commit", path=str(Path(sys.executable).parent)) is None:
        pytest.skip("pre-commit is not installed on this machine: pip install pre-commit")
    shutil.copytree(ROOT / "examples" / "notes", tmp_path / "notes")
    shutil.copytree(ROOT / "examples" / "scenarios", tmp_path / "scenarios")
    shutil.copy(ROOT / "examples" / "course.toml", tmp_path / "course.toml")
    for index in (ROOT / "examples").glob("index.*"):  # the course index `attnwalk build` writes (md, html)
        shutil.copy(index, tmp_path / index.name)
    (tmp_path / ".pre-commit-config.yaml").write_text(_shown_config(), encoding="utf-8")
    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path / ".cache"), GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t",
               PATH=str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"])
    for cmd in (["git", "init", "-q"], ["git", "add", "-A"]):
        subprocess.run(cmd, cwd=tmp_path, env=env, check=True)
    return tmp_path, env


def _run(root, env):
    bindir = Path(sys.executable).parent
    return subprocess.run([str(bindir / "pre-commit"), "run", "--all-files"], cwd=root, env=env,
                          capture_output=True, text=True, timeout=300)


# A notebook of the course: the causal example's weights (torch: row p2 = [0.1978, 0.4011, 0.4011]), its config
# in the notebook's metadata, as a course author keeps it beside the notes.
NOTEBOOK = {"cells": [{"cell_type": "markdown", "id": "w", "metadata": {},
                       "source": ["Row p2: $A_0[2, :] = [0.1978, 0.4011, 0.4011]$"]}],
            "nbformat": 4, "nbformat_minor": 5}


def _notebook(root) -> Path:
    import json
    import tomllib

    config = tomllib.loads((root / "scenarios" / "toi-di-hoc-causal.toml").read_text(encoding="utf-8"))
    nb = dict(NOTEBOOK, metadata={"attnwalk": config})
    path = root / "notes" / "lesson.ipynb"
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def test_the_shown_hooks_pass_on_correct_notes_and_fail_on_a_wrong_number(course):
    root, env = course
    lesson = _notebook(root)
    subprocess.run(["git", "add", "-A"], cwd=root, env=env, check=True)
    ok = _run(root, env)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert re.search(r"attnwalk check\.+Passed", ok.stdout)
    assert re.search(r"attnwalk build --check\.+Passed", ok.stdout)

    note = root / "notes" / "hand-2x2.en.md"
    text = note.read_text(encoding="utf-8")
    # A weight of the worked example: 0.365529 = e/(2+2e)... changed by one unit of the last digit.
    assert "0.365529" in text
    note.write_text(text.replace("0.365529", "0.365530", 1), encoding="utf-8")
    lesson.write_text(lesson.read_text(encoding="utf-8").replace("0.1978", "0.1987"), encoding="utf-8")
    subprocess.run(["git", "add", "-A"], cwd=root, env=env, check=True)
    bad = _run(root, env)
    assert bad.returncode != 0
    assert re.search(r"attnwalk check\.+Failed", bad.stdout)
    assert "hand-2x2.en.md:" in bad.stdout and "published 0.365530, expected 0.365529" in bad.stdout
    assert "lesson.ipynb:8: A_0[2, 0]: published 0.1987, expected 0.1978" in bad.stdout  # the notebook's own line
    assert re.search(r"attnwalk build --check\.+Failed", bad.stdout)
