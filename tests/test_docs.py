"""Every command shown in README.md and docs/ runs as shown, from a copy of the repository's examples.

Conventions the docs follow so that this test can read them:
- in ```bash blocks each line is a command (`# comments` are dropped; a comment saying `exits N`
  gives the expected exit status, 0 otherwise); `a && b` chains are run from the first `attnwalk`;
- in ```console / ```text blocks a line `$ command` is a command, and the lines after it up to the
  next `$` are its output: each must appear in what the command prints (floats in scientific
  notation, which vary with the CPU and the BLAS, are compared as a placeholder; `...`/`…` lines skip);
- ```python blocks run as they are.
Installation and CI lines (`pip`, `python3 -m venv`, `bash .ci/run`, `pytest`, `ruff`, benchmarks)
are what `.ci/run` itself executes, so they are not run a second time here.
"""

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
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
NOT_RUN = re.compile(r"^(pip|python3? -m (venv|pip|pytest)|bash \.ci/run|ruff|npm|git|python3? benchmarks/|\. )")
SCI = re.compile(r"-?\d+(\.\d+)?e[-+]?\d+")


def _has_torch() -> bool:
    try:
        import torch  # noqa: F401
    except ImportError:
        return False
    return True


def _has_cuda() -> bool:
    if not _has_torch():
        return False
    import torch

    return torch.cuda.is_available()


def _blocks(path: Path):
    tokens = MarkdownIt().parse(path.read_text(encoding="utf-8"))
    for tok in tokens:
        if tok.type == "fence":
            yield tok.info.strip().split(" ")[0], tok.content, tok.map[0] + 1


def _split_comment(line: str) -> tuple[str, str]:
    # A `#` after whitespace starts a shell comment in our docs (no command quotes a `#`).
    m = re.search(r"\s#\s?", line)
    return (line[: m.start()].rstrip(), line[m.end():]) if m else (line.rstrip(), "")


def _commands():
    """(doc:line, command, expected exit or None, expected output lines)."""
    for path in DOCS:
        rel = path.relative_to(ROOT)
        for info, body, start in _blocks(path):
            lines = body.splitlines()
            if info in ("bash", "sh", "shell"):
                for i, line in enumerate(lines):
                    cmd, comment = _split_comment(line)
                    if not cmd or cmd.startswith("#"):
                        continue
                    m = re.search(r"exits (\d)", comment)
                    yield f"{rel}:{start + i + 1}", cmd, int(m.group(1)) if m else 0, [], comment
            elif info in ("console", "text"):
                current = None
                for i, line in enumerate(lines):
                    if line.startswith("$ "):
                        if current:
                            yield current
                        cmd, comment = _split_comment(line[2:])
                        current = (f"{rel}:{start + i + 1}", cmd, None, [], comment)
                    elif current and line.strip() and line.strip() not in ("...", "…"):
                        current[3].append(line)
                if current:
                    yield current
            elif info == "python":
                yield f"{rel}:{start}", body, 0, [], "python"


CASES = list(_commands())


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    """A scratch folder holding a copy of the repository's examples, as a fresh clone has them."""
    d = tmp_path_factory.mktemp("clone")
    shutil.copytree(ROOT / "examples", d / "examples")
    return d


def _runnable(cmd: str) -> str | None:
    """The part of a shown command line that this test runs, or None for install/CI lines."""
    for part in cmd.split("&&"):
        part = part.strip()
        if part.startswith("attnwalk") or part.startswith("python -m attnwalk"):
            return cmd[cmd.index(part):]
    return None if NOT_RUN.match(cmd) or cmd.startswith("pip ") else cmd


def _norm(line: str) -> str:
    return " ".join(SCI.sub("<e>", line).split())


def test_the_docs_show_commands():
    assert sum(1 for c in CASES if c[4] != "python") >= 20
    assert any(c[4] == "python" for c in CASES)


@pytest.mark.parametrize("where, cmd, code, output, comment", CASES, ids=[c[0] for c in CASES])
def test_every_shown_command_runs_as_shown(workdir, where, cmd, code, output, comment):
    env = dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="200", LC_ALL="C.UTF-8")
    if comment == "python":
        if "torch" in cmd and not _has_torch():
            pytest.skip("torch is not installed on this machine: pip install torch==2.13.0")
        answer = subprocess.run([sys.executable, "-c", cmd], cwd=workdir, env=env, capture_output=True,
                                text=True, timeout=120)
        assert answer.returncode == 0, f"{where}: python block failed:\n{answer.stderr[-2000:]}"
        return
    run = _runnable(cmd)
    if run is None:
        assert NOT_RUN.match(cmd.strip()) or cmd.startswith("pip "), where
        return
    assert run.startswith("attnwalk") or run.startswith("python -m attnwalk"), f"{where}: not a command: {cmd}"
    if "crosscheck" in run and not _has_torch():
        pytest.skip("torch is not installed on this machine: pip install torch==2.13.0")
    if ("--device cuda" in run or "--device auto" in run) and _has_cuda():
        pytest.skip("the shown output is the one of a machine without a GPU")
    if "--reference ultralytics" in run:
        pytest.importorskip("torch", reason="torch is not installed on this machine: pip install torch==2.13.0")
        try:
            import ultralytics  # noqa: F401
            pytest.skip("the shown output is the one of a machine without the ultralytics package")
        except ImportError:
            pass
    exe = shutil.which("attnwalk", path=str(Path(sys.executable).parent)) or "attnwalk"
    shell = run.replace("python -m attnwalk", f"{sys.executable} -m attnwalk", 1) if run.startswith("python") \
        else exe + run[len("attnwalk"):]
    answer = subprocess.run(["bash", "-c", shell], cwd=workdir, env=env, capture_output=True, text=True,
                            timeout=300)
    printed = answer.stdout + answer.stderr
    if code is not None:
        assert answer.returncode == code, \
            f"{where}: `{run}` exited {answer.returncode}, the docs say {code}:\n{printed[-2000:]}"
    else:
        assert "Traceback" not in printed, f"{where}: `{run}`:\n{printed[-2000:]}"
    got = {_norm(line) for line in printed.splitlines()}
    missing = [line for line in output if _norm(line) not in got]
    assert not missing, \
        f"{where}: `{run}` no longer prints:\n" + "\n".join(missing) + f"\n--- it printed:\n{printed[-3000:]}"
