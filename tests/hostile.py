"""The harness of the hostile-input battery (tests/test_hostile_*.py, one file per area).

A clean answer to bad input is: exit 2 (1 for "numbers wrong" in check), exactly one stderr line
``attnwalk: error: <option>: <what>; allowed: ...``, no traceback, and no file created, changed
or re-moded. Every case runs the real command in a subprocess under a memory limit, so that an
allocation bomb fails its test instead of taking the machine down.
"""

from __future__ import annotations

import gc
import os
import resource
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

# Address-space limit of each subprocess: numpy + the templates fit easily; a trace of many GB does not.
MEMORY_LIMIT = 3 * 2**30
# torch reserves much more virtual memory than it uses: crosscheck cases get a larger limit.
TORCH_MEMORY_LIMIT = 12 * 2**30
TIMEOUT = 60


@dataclass
class Answer:
    code: int
    out: str
    err: str

    @property
    def err_lines(self) -> list[str]:
        return [line for line in self.err.splitlines() if line.strip()]


def _limit(nbytes: int, file_bytes: int | None = None):
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (nbytes, nbytes))
        if file_bytes is not None:  # a full disk: writing past it fails with EFBIG (Python ignores SIGXFSZ)
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_bytes, file_bytes))

    return apply


def run_cli(args: list[str], cwd: Path | str | None = None, memory: int = MEMORY_LIMIT,
            stdin: str | None = None, timeout: float = TIMEOUT, file_bytes: int | None = None) -> Answer:
    """``attnwalk ARGS`` in a fresh process (``python -m attnwalk``), under ``memory`` bytes and, when
    given, files of at most ``file_bytes`` (the disk is full past them)."""
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "OPENBLAS_NUM_THREADS": "1"}
    p = subprocess.run([sys.executable, "-m", "attnwalk", *args], cwd=cwd, input=stdin, capture_output=True,
                       text=True, timeout=timeout, preexec_fn=_limit(memory, file_bytes), env=env)
    return Answer(p.returncode, p.stdout, p.stderr)


def run_python(code: str, cwd: Path | str | None = None, memory: int = MEMORY_LIMIT,
               timeout: float = TIMEOUT) -> Answer:
    """A Python snippet (an API call) in a fresh process under ``memory`` bytes."""
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "OPENBLAS_NUM_THREADS": "1"}
    p = subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=timeout,
                       preexec_fn=_limit(memory), env=env)
    return Answer(p.returncode, p.stdout, p.stderr)


def assert_clean(answer: Answer, option: str, code: int = 2, allowed: bool = True) -> str:
    """The clean answer: exit ``code``, one stderr line naming ``option`` (and what is allowed).

    Returns the line, for further assertions on its wording.
    """
    assert "Traceback" not in answer.err, answer.err
    assert answer.code == code, (answer.code, answer.err)
    lines = answer.err_lines
    assert len(lines) == 1, answer.err
    line = lines[0]
    assert line.startswith("attnwalk: error: "), line
    assert option in line, (option, line)
    if allowed:
        assert "allowed:" in line, line
        assert not line.rstrip().endswith("allowed:"), line  # an empty list of what is allowed
    return line


def snapshot(root: Path | str) -> dict[str, tuple[bytes, int]]:
    """Every file under ``root`` (hidden ones included): its bytes and mode."""
    root = Path(root)
    out = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() or path.is_symlink():
            st = path.lstat()
            data = path.read_bytes() if path.is_file() else b"-> " + os.readlink(path).encode()
            out[str(path.relative_to(root))] = (data, st.st_mode)
    return out


def assert_untouched(root: Path | str, before: dict[str, tuple[bytes, int]]) -> None:
    """Nothing created, changed, removed or re-moded under ``root`` since ``before``."""
    after = snapshot(root)
    assert sorted(after) == sorted(before), f"files differ: {sorted(set(after) ^ set(before))}"
    for name, (data, mode) in before.items():
        assert after[name][0] == data, f"{name} changed"
        assert after[name][1] == mode, f"{name} mode {oct(after[name][1])}, was {oct(mode)}"


def assert_cli_reads_junk(tmp_path: Path, note: str, scenario: str) -> None:
    """``note`` through the CLI with ``scenario``: checked (exit 0 or 1: the note is no bad input) with nothing on
    stderr; ``--fix`` writes a note that checks clean or leaves it as it was, and nothing else in the folder."""
    (tmp_path / "s.toml").write_text(scenario)
    (tmp_path / "n.md").write_text(note, encoding="utf-8", newline="")
    answer = run_cli(["check", "--scenario", "s.toml", "n.md"], cwd=tmp_path)
    assert "Traceback" not in answer.err, answer.err
    assert answer.code in (0, 1) and answer.err_lines == [], (answer.code, answer.err)
    fixed = run_cli(["check", "--fix", "--scenario", "s.toml", "n.md"], cwd=tmp_path)
    assert "Traceback" not in fixed.err and fixed.code in (0, 1), (fixed.code, fixed.err)
    assert sorted(snapshot(tmp_path)) == ["n.md", "s.toml"]
    again = run_cli(["check", "--scenario", "s.toml", "n.md"], cwd=tmp_path)
    assert (tmp_path / "n.md").read_bytes() == note.encode("utf-8") or again.code == 0, (again.out, again.err)


def _fresh_memos() -> None:
    """Empty check's memos of labels (``human._NAMED``, ``human._REBOUND``), each emptied whole past 4,096 labels:
    where that fell depended on what earlier tests had checked, and a growth test run after the corpus counted
    2.27 times the calls at twice the size (2.00 in a fresh process), the memo emptied inside its large run."""
    human = sys.modules.get("attnwalk.check.human")
    if human is not None:
        human._NAMED.clear()
        human._REBOUND.clear()


def calls(run) -> int:
    """Function calls (Python and builtin) made by ``run()``: a measure of work that machine load does not move.

    It starts from the same state whatever ran before: check's label memos emptied (``_fresh_memos``) and the
    garbage collector off (a collection's finalizers and weakref callbacks are calls too, and when one falls
    depends on what earlier tests allocated)."""
    n = 0

    def count(frame, event, arg):
        nonlocal n
        if event in ("call", "c_call"):
            n += 1

    _fresh_memos()
    gc.collect()
    gc.disable()
    sys.setprofile(count)
    try:
        run()
    finally:
        sys.setprofile(None)
        gc.enable()
    return n


def check_calls(text: str, opts: dict) -> int:
    """Function calls ``check_text(text, opts)`` makes: the work a growth test compares at two sizes."""
    from attnwalk.check import check_text

    return calls(lambda: check_text(text, opts))


def check_cpu(text: str, opts: dict) -> float:
    """CPU seconds of ``check_text(text, opts)``, the least of 3 runs, each on a fresh copy of the text (a scan
    memoised for the last text, ``check.human._memo``, is not reused)."""
    from attnwalk.check import check_text

    best = float("inf")
    for _ in range(3):
        fresh = (text + "\n")[:-1]
        start = time.process_time()
        check_text(fresh, opts)
        best = min(best, time.process_time() - start)
    return best


def assert_calls_linear(build, opts: dict) -> None:
    """``build(k)``'s note costs a check at most 2.2 times the calls at twice the size (k = 300, 600), once
    imports, the trace and compiled patterns are paid (a first check of ``build(10)``)."""
    from attnwalk.check import check_text

    check_text(build(10), opts)
    small, large = check_calls(build(300), opts), check_calls(build(600), opts)
    assert large <= 2.2 * small, (small, large)


def assert_grows_linearly(cost, small, large, bound: float = 8, floor: float = 0.005, tries: int = 3) -> None:
    """``cost(large)`` is at most ``bound`` times ``cost(small)`` (each at least ``floor`` seconds) in one of
    ``tries`` measured pairs. A quadratic scan is 16 times at four times the size in every pair; a shared CI
    machine that preempts one large run (a pair at 8.1 times where the same code measures 4.0 idle) is noise,
    so a pair is measured again rather than the bound loosened."""
    pairs = []
    for _ in range(tries):
        pair = (cost(small), cost(large))
        pairs.append(pair)
        if pair[1] <= bound * max(pair[0], floor):
            return
    raise AssertionError(f"CPU seconds (small, large) in {tries} tries: {pairs}")


def assert_cpu_linear(build, opts: dict) -> None:
    """The same in CPU time at four times the size (k = 600, 2400; a quadratic scan is 16 times, this allows 8):
    for work inside one builtin call, which the call count does not see."""
    from attnwalk.check import check_text

    check_text(build(10), opts)
    assert_grows_linearly(lambda k: check_cpu(build(k), opts), 600, 2400)
