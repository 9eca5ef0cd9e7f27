"""``attnwalk check`` of many files over worker processes (check/many.py): the same bytes (stdout, stderr, the JSON
document) and exit status as one process, on every course note, notebook, hand-written note, held-out note and
mutated copies of them; and a worker that raises or is killed costs nothing but time (the files are checked again
in the parent: the same output, no traceback, no hang)."""

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import attnwalk.check
from attnwalk.check import many
from attnwalk.check.report import finish
from attnwalk.cli import check_one, main

ROOT = Path(__file__).resolve().parent.parent
NOTES = ROOT / "examples" / "notes"
CORPUS = ROOT / "tests" / "corpus"

pytestmark = pytest.mark.skipif("fork" not in __import__("multiprocessing").get_all_start_methods(),
                                reason="no fork on this platform: check runs in one process (tested below)")


def mutated(text: str, k: int) -> str:
    """``text`` with every 7th decimal number after the k-th changed in its last digit (wrong numbers to report)."""
    count = [0]

    def bump(m):
        count[0] += 1
        if count[0] < k or (count[0] - k) % 7:
            return m.group(0)
        return m.group(0)[:-1] + str((int(m.group(0)[-1]) + 3) % 10)

    body_at = text.find("\n---\n", 4) + 5 if text.startswith("---\n") else 0  # the front matter kept
    return text[:body_at] + re.sub(r"\d\.\d{2,}", bump, text[body_at:])


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """Every course note and notebook, the hand-written notes (no config: errors), mutated copies of the course
    notes, a missing file and one of bad front matter: in one order, as arguments."""
    tmp = tmp_path_factory.mktemp("many")
    files = sorted(str(p) for p in NOTES.glob("*.md")) + sorted(str(p) for p in NOTES.glob("*.ipynb"))
    files += sorted(str(p) for p in (ROOT / "examples" / "handwritten").glob("*.md"))
    for k, p in enumerate(sorted(NOTES.glob("*.md"))):
        copy = tmp / f"mutated-{p.name}"
        copy.write_text(mutated(p.read_text(encoding="utf-8"), k % 5 + 1), encoding="utf-8")
        files.append(str(copy))
    (tmp / "bad.md").write_text("---\nconfig: [1, 2\n---\n# x\n", encoding="utf-8")
    files += [str(tmp / "missing.md"), str(tmp / "bad.md")]
    return files


def run(capsys, monkeypatch, threads: str, args: list[str]):
    monkeypatch.setenv("ATTNWALK_THREADS", threads)
    code = main(["check", *args])
    out, err = capsys.readouterr()
    return code, out, err


def spied(monkeypatch) -> list:
    """Calls of the worker pool (one per parallel run), to know that the parallel path ran."""
    calls = []
    real = many._in_workers

    def spy(*args):
        calls.append(1)
        yield from real(*args)

    monkeypatch.setattr(many, "_in_workers", spy)
    return calls


@pytest.mark.parametrize("extra", [["--show-unknown"], ["--format", "json", "--show-unknown"],
                                   ["--format", "github", "--skip-no-config"], ["--diff", "--skip-no-config"]])
def test_workers_write_what_one_process_writes(course, extra, capsys, monkeypatch):
    one = run(capsys, monkeypatch, "1", course + extra)
    calls = spied(monkeypatch)
    par = run(capsys, monkeypatch, "2", course + extra)
    assert calls == [1]
    assert par == one
    assert one[0] == 2 and "published" in one[1]  # the missing file's status, the mutated notes' failures
    if "--format" not in extra:
        assert re.search(r"mutated-\S+: \d+ verified, [1-9]\d* wrong", one[1])


def test_held_out_notes_with_their_scenarios(tmp_path, capsys):
    """Every note of tests/corpus (its scenario file, where it has one) and a mutated copy of each: the parallel
    path's output and status are the one-process path's, byte for byte."""
    from attnwalk.scenario import load_scenario

    files, opts = [], {}
    for k, p in enumerate(sorted(CORPUS.rglob("*.md"))):
        toml = p.with_suffix(".toml")
        scenario = load_scenario(toml) if toml.exists() else None
        copy = tmp_path / f"{k:03d}-{p.name}"
        copy.write_text(mutated(p.read_text(encoding="utf-8"), k % 3 + 1), encoding="utf-8")
        for path in (str(p), str(copy)):
            files.append(path)
            opts[path] = scenario

    def one(path, results):
        return check_one(path, results, options=opts[path], fix=None, format="text", show_unknown=True,
                         skip_no_config=False)

    got = {}
    for workers in (0, 2):
        results: list = []
        code = many.check_all(files, one, results, workers=workers)
        finish("text", results)
        got[workers] = (code, *capsys.readouterr())
    assert got[2] == got[0]
    assert got[0][1].count(" verified, ") >= len(files) - got[0][2].count("attnwalk: error:")
    assert re.search(r": \d+ verified, [1-9]\d* wrong", got[0][1])  # the mutated copies: wrong numbers reported


def failing_in_workers(monkeypatch, how: str) -> None:
    """``check_file`` raises (``how == "raise"``) or kills its process (``"kill"``) in any process but this one."""
    parent = os.getpid()
    real = attnwalk.check.check_file

    def check_file(path, *args, **kwargs):
        if os.getpid() != parent:
            if how == "raise":
                raise RuntimeError("a worker's bug")
            os.kill(os.getpid(), signal.SIGKILL)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(attnwalk.check, "check_file", check_file)


@pytest.mark.parametrize("how", ["raise", "kill"])
def test_a_failing_worker_costs_only_time(course, how, capsys, monkeypatch):
    one = run(capsys, monkeypatch, "1", course)
    failing_in_workers(monkeypatch, how)
    calls = spied(monkeypatch)
    assert run(capsys, monkeypatch, "2", course) == one
    assert calls == [1]
    assert "Traceback" not in one[2]


def test_a_worker_killed_from_outside_neither_hangs_nor_changes_the_output(tmp_path):
    """The console script, its workers killed by a signal mid-run (as the OOM killer would): the files are
    checked again in the parent; the output is one process's, in bounded time."""
    files = [str(p) for p in sorted(NOTES.glob("*.md"))]
    env = {**os.environ, "ATTNWALK_THREADS": "1"}
    want = subprocess.run([sys.executable, "-m", "attnwalk", "check", *files], capture_output=True, text=True,
                          env=env, timeout=300, cwd=tmp_path)
    code = ("import os, signal, sys, attnwalk.check as C\n"
            "from attnwalk.cli import main\n"
            "parent, real = os.getpid(), C.check_file\n"
            "def check_file(path, *a, **k):\n"
            "    if os.getpid() != parent and path.endswith('.vi.md'):\n"
            "        os.kill(os.getpid(), signal.SIGKILL)\n"
            "    return real(path, *a, **k)\n"
            "C.check_file = check_file\n"
            "sys.exit(main(['check', *sys.argv[1:]]))\n")
    got = subprocess.run([sys.executable, "-c", code, *files], capture_output=True, text=True, timeout=300,
                         env={**os.environ, "ATTNWALK_THREADS": "2"}, cwd=tmp_path)
    assert (got.returncode, got.stdout, got.stderr) == (want.returncode, want.stdout, want.stderr)


def test_stdout_and_stderr_together_interleave_as_one_process_s(course, tmp_path):
    """``check ... > log 2>&1`` with errors among the reports (stderr lines between stdout's): the combined bytes
    are one process's."""
    got = {}
    for threads in ("1", "2"):
        got[threads] = subprocess.run([sys.executable, "-m", "attnwalk", "check", "--format", "github", *course],
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300, cwd=tmp_path,
                                      env={**os.environ, "ATTNWALK_THREADS": threads})
    assert (got["2"].returncode, got["2"].stdout) == (got["1"].returncode, got["1"].stdout)
    assert b"attnwalk: error:" in got["1"].stdout and b"::error file=" in got["1"].stdout


def test_when_one_process_checks(monkeypatch):
    files = ["a.md", "b.md", "c.md"]
    monkeypatch.setenv("ATTNWALK_THREADS", "2")
    assert many.workers_for(files) == 2
    assert many.workers_for(files[:many.MIN_FILES - 1]) == 0  # a few files: no pool
    monkeypatch.setenv("ATTNWALK_THREADS", "1")
    assert many.workers_for(files) == 0  # one CPU asked for
    monkeypatch.setenv("ATTNWALK_THREADS", "2")
    monkeypatch.setattr(many, "_forked", True)
    assert many.workers_for(files) == 0  # inside a forked worker already


def test_a_forked_process_is_marked_and_never_forks_again():
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: is it marked?
        os.write(w, b"1" if many._forked and many.workers_for(["a", "b", "c"]) == 0 else b"0")
        os._exit(0)
    os.close(w)
    got = os.read(r, 1)
    os.close(r)
    os.waitpid(pid, 0)
    assert got == b"1" and not many._forked


def test_fix_is_one_process(tmp_path, capsys, monkeypatch):
    """``--fix`` writes the files: never from a worker (a duplicate argument, a worker's lost report)."""
    calls = spied(monkeypatch)
    files = []
    for k in range(3):
        p = tmp_path / f"n{k}.md"
        p.write_text(mutated((NOTES / "hand-2x2.en.md").read_text(encoding="utf-8"), 1), encoding="utf-8")
        files.append(str(p))
    code, out, _ = run(capsys, monkeypatch, "2", ["--fix", *files, files[0]])
    assert calls == [] and out.count(" verified, ") == 4
    assert all(Path(p).read_text(encoding="utf-8") != mutated((NOTES / "hand-2x2.en.md").read_text(encoding="utf-8"),
                                                               1) for p in files)  # fixed, each


def test_recorder_is_a_text_stream():
    events: list = []
    rec = many._Recorder(events, "out", sys.stdout)
    with pytest.raises(TypeError):
        rec.write(b"")
    rec.flush()
    assert rec.write("x\n") == 2 and events == [("out", None), ("out", "x\n")]


def test_a_check_of_one_or_two_files_never_imports_multiprocessing():
    """pre-commit passes a commit's few changed notes: checking them stays in one process, and does not pay the
    ~6-12 ms import of multiprocessing that only workers need (three files do import it, to fork)."""
    one = str(NOTES / "hand-2x2.en.md")
    code = ("import sys; from attnwalk.cli import main\n"
            "try:\n    main(['check'] + sys.argv[1:])\nexcept SystemExit:\n    pass\n"
            "print('multiprocessing' in sys.modules, file=sys.stderr)")
    seen = [subprocess.run([sys.executable, "-c", code, *files], capture_output=True, text=True,
                           check=True).stderr.split()[-1] for files in ([one], [one, one], [one, one, one])]
    assert seen == ["False", "False", "True"]
