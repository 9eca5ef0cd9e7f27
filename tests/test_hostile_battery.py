"""The hostile-input battery, part 2 (issue: hostile input everywhere): every command and option
against wrong types, absurd sizes, non-finite strings, unknown values, conflicts, empty, unicode
and very long values; scenario files, manifests and notes that are not what they claim; output
paths that cannot be written. Each case: exit 2, exactly one ``attnwalk: error: <option>: …;
allowed: …`` line naming the option or key, no traceback, and no file created, changed or re-moded.

Cases already in test_hostile_cli.py are not repeated here.
"""

from __future__ import annotations

import os

import pytest
from hostile import assert_clean, assert_untouched, run_cli, snapshot

LONG = "é" * 5000  # a very long value, not ASCII
# The one line stays short enough to read even when the value is huge.
MAX_LINE = 600


def _workdir(root):
    """A folder with the things the cases point at: a file, a read-only folder, a FIFO, a loop."""
    (root / "afile").write_text("just a file\n")
    (root / "sub").mkdir()
    ro = root / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    os.mkfifo(root / "fifo.toml")
    os.mkfifo(root / "fifo.md")
    (root / "loop.md").symlink_to("loop.md")
    (root / "binary.bin").write_bytes(bytes(range(256)) * 4)
    (root / "latin1.toml").write_bytes('lang = "tiếng"\n'.encode("utf-16"))
    (root / "empty.toml").write_text("")
    (root / "twice.toml").write_text('variant = "sdpa"\nkv-tokens = 3\nkv_tokens = 4\n')
    (root / "deep.toml").write_text('variant = "sdpa"\nx = ' + "[" * 100_000 + "]" * 100_000 + "\n")
    (root / "deep-table.toml").write_text('variant = "sdpa"\nx = ' + "{a = " * 300 + "1" + "}" * 300 + "\n")
    (root / "deep-list.toml").write_text('variant = "sdpa"\nsource = "columns"\nx = ' + "[" * 300 + "1"
                                         + "]" * 300 + "\n")
    return root


@pytest.fixture
def workdir(tmp_path):
    root = _workdir(tmp_path)
    yield root
    (root / "ro").chmod(0o755)


# (arguments of `attnwalk render`, the option the line must name, a word the line must hold)
RENDER = [
    # absurd sizes: refused by the option's own range, never reaching the engine
    (["--h", "100000", "--w", "100000"], "--h", "from 1 to 4096"),
    (["--dim", str(10**9)], "--dim", "from 1 to 1024"),
    (["--dim", "8", "--heads", "3"], "--heads", "allowed: 1, 2, 4, 8"),
    (["--decimals", "50"], "--decimals", "from 1 to 12"),
    (["--batch", str(2**70)], "--batch", "from 1 to 8"),
    (["--variant", "mha", "--tokens", "4097"], "--tokens", "from 1 to 4096"),
    (["--variant", "sdpa", "--tokens", "-1"], "--tokens", "from 1 to 4096"),
    (["--variant", "sdpa", "--dim", "0"], "--dim", "from 1 to 1024"),
    (["--variant", "sdpa", "--dim", "6", "--heads", "4"], "--heads", "allowed: 1, 2, 3, 6"),
    (["--variant", "mha", "--dim", "5", "--heads", "2"], "--heads", "allowed: 1, 5"),
    (["--dim", "8", "--heads", "8", "--attn-ratio", "0.1"], "--attn-ratio", "key_dim"),
    (["--attn-ratio", "1e10"], "--max-memory", "needs about"),
    # NaN / inf / underflow written as strings
    (["--h", "nan"], "--h", "an integer"),
    (["--seed", "inf"], "--seed", "an integer"),
    (["--attn-ratio", "inf"], "--attn-ratio", "finite"),
    (["--attn-ratio", "-inf"], "--attn-ratio", "> 0"),
    (["--attn-ratio", "0"], "--attn-ratio", "> 0"),
    (["--init-std", "1e-400"], "--init-std", "> 0"),  # underflows to 0
    (["--init-std", "-nan"], "--init-std", "> 0"),
    (["--variant", "sdpa", "--mask-fill", "inf"], "--mask-fill", "-inf, -1e9, -10000"),
    (["--variant", "sdpa", "--mask-fill", "-1e10"], "--mask-fill", "-inf, -1e9, -10000"),
    (["--max-memory", "nan"], "--max-memory", "512M"),
    (["--max-memory", "inf"], "--max-memory", "512M"),
    (["--max-memory", "2P"], "--max-memory", "512M"),
    (["--max-memory", "1K"], "--max-memory", "at least 1M"),
    # unknown enum values, case, spaces
    (["--variant", "SDPA"], "--variant", "yolo, sdpa, mha"),
    (["--lang", "vi "], "--lang", "vi, en"),
    (["--lang", "tiếng việt"], "--lang", "vi, en"),
    (["--rng", "Torch"], "--rng", "torch, numpy"),
    (["--pe-on", "V"], "--pe-on", "v, o"),
    (["--input", "RAMP"], "--input", "ramp"),
    (["--variant", "sdpa", "--mask", "padding:"], "--mask", "padding:K"),
    (["--variant", "sdpa", "--mask", "causal;rm -rf"], "--mask", "padding:K"),
    (["--variant", "sdpa", "--source", "Columns"], "--source", "direct"),
    (["--format", "MD"], "--format", "md, html, ipynb, json, npz"),
    (["--format", ""], "--format", "md, html, ipynb, json, npz"),
    # conflicting options
    (["--variant", "mha", "--kv-tokens", "4"], "--kv-tokens", "sdpa"),
    (["--variant", "mha", "--source", "columns"], "--source", "sdpa"),
    (["--variant", "yolo", "--tokens", "3"], "--tokens", "sdpa | mha"),
    (["--variant", "sdpa", "--pe-on", "o"], "--pe-on", "yolo"),
    (["--input", "uniform"], "--input", "numpy-legacy"),
    (["--input", "uniform", "--rng", "numpy-legacy"], "--input", "allowed for Markdown"),
    (["--rng", "numpy-legacy", "--seed", str(2**32)], "--seed", "from 0 to 4294967295"),
    (["--variant", "sdpa", "--source", "scores"], "--scenario", "scores: needed"),
    (["--figures", "figs", "--format", "json"], "--figures", "--format md"),
    (["--figures", "afile"], "--figures", "a folder"),
    # empty, unicode and very long values
    (["--seed", ""], "--seed", "an integer"),
    (["--init-std", ""], "--init-std", "a number"),
    (["--variant", "sdpa", "--mask-fill", ""], "--mask-fill", "-inf"),
    (["--variant", LONG], "--variant", "yolo, sdpa, mha"),
    (["--lang", LONG], "--lang", "vi, en"),
    (["--h", LONG], "--h", "an integer"),
    (["--variant", "sdpa", "--mask", LONG], "--mask", "padding:K"),
    (["--max-memory", LONG], "--max-memory", "512M"),
    (["--scenario", LONG + ".toml"], "--scenario", "cannot read"),
    (["--variant", "🙂"], "--variant", "yolo, sdpa, mha"),
    (["--variant", "yolo\u202e"], "--variant", "yolo, sdpa, mha"),
    # files that are not scenario files
    (["--scenario", "fifo.toml"], "--scenario", "not a regular file"),
    (["--scenario", "/dev/zero"], "--scenario", "not a regular file"),
    (["--scenario", "binary.bin"], "--scenario", "not UTF-8"),
    (["--scenario", "latin1.toml"], "--scenario", "not UTF-8"),
    (["--scenario", "loop.md"], "--scenario", "cannot read"),
    (["--scenario", "afile"], "--scenario", "not valid TOML"),
    (["--scenario", "deep.toml"], "--scenario", "nested too deeply"),
    (["--scenario", "twice.toml"], "--scenario", "key kv_tokens given twice"),
    (["--scenario", "deep-table.toml"], "--scenario", "x: got {'a': {'a'"),
    (["--scenario", "deep-list.toml"], "--scenario", "row 0, column 0: got [[[["),
    # outputs that cannot be written
    (["-o", "ro/note.md"], "-o", "not writable"),
    (["-o", "afile/note.md"], "-o", "does not exist"),
    (["-o", "a" * 300 + ".md"], "-o", "File name too long"),
    (["-o", "loop.md"], "-o", "not a regular file"),
    (["-o", "fifo.md"], "-o", "not a regular file"),
    (["-o", "/dev/full"], "-o", "not a regular file"),
    (["--format", "json", "-o", "ro/trace.json"], "-o", "not writable"),
    (["--figures", "ro/figs", "-o", "note.md"], "--figures", "not writable"),
    (["--figures", "figs", "-o", "ro/note.md"], "-o", "not writable"),
]


@pytest.mark.parametrize("args, option, says", RENDER, ids=[" ".join(a)[:50] for a, _, _ in RENDER])
def test_render_battery(workdir, args, option, says):
    before = snapshot(workdir)
    answer = run_cli(["render", *args], cwd=workdir)
    line = assert_clean(answer, option)
    assert says in line
    assert len(line) < MAX_LINE, len(line)
    assert answer.out == ""
    assert_untouched(workdir, before)


# (arguments of `attnwalk crosscheck` beyond the scenario options, the option, a word of the line)
CROSSCHECK = [
    (["--device", ""], "--device", "cpu"),
    (["--device", "CPU"], "--device", "cpu"),
    (["--dtype", "float128"], "--dtype", "float64"),
    (["--reference", "pytorch"], "--reference", "explicit"),
    (["--h", "100000"], "--h", "from 1 to 4096"),
    (["--scenario", "fifo.toml"], "--scenario", "not a regular file"),
    (["--max-memory", "lots"], "--max-memory", "512M"),
]


@pytest.mark.parametrize("args, option, says", CROSSCHECK, ids=[" ".join(a)[:50] for a, _, _ in CROSSCHECK])
def test_crosscheck_battery(workdir, args, option, says):
    pytest.importorskip("torch", reason="crosscheck needs torch (installed by .ci/run)")
    from hostile import TORCH_MEMORY_LIMIT

    (workdir / "scores.toml").write_text('variant = "sdpa"\nsource = "scores"\nscores = [[1, 2], [3, 4]]\n'
                                         'v = [[1, 0], [0, 1]]\n')
    before = snapshot(workdir)
    line = assert_clean(run_cli(["crosscheck", *args], cwd=workdir, memory=TORCH_MEMORY_LIMIT), option)
    assert says in line
    assert_untouched(workdir, before)


NOTE = "---\nconfig: {\"variant\": \"yolo\", \"h\": 2, \"w\": 2}\n---\n\n# note\n\n$$1 + 1 = 2$$\n"


def _notes(root):
    (root / "empty.md").write_text("")
    (root / "ok.md").write_text(NOTE)
    (root / "huge.md").write_text(NOTE + ("word 1.5 and 2.25\n" * 500_000))  # 9 MB of text
    (root / "nul.md").write_bytes(b"---\nconfig: {}\n---\n\x00\x00\x00")
    # libyaml's C parser recursed once per "[": this crashed the process (SIGSEGV)
    (root / "deep.md").write_text("---\nconfig: " + "[" * 100_000 + "]" * 100_000 + "\n---\n")
    # "billion laughs": 9**9 strings in 300 bytes of aliases; and a list holding itself
    levels = ['a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    levels += [f"{b}: &{b} [" + ", ".join([f"*{a}"] * 9) + "]" for a, b in zip("abcdefgh", "bcdefghi")]
    (root / "laughs.md").write_text("---\n" + "\n".join(levels) + "\nconfig: {variant: sdpa, labels: *i}\n---\n")
    (root / "cycle.md").write_text("---\nconfig: &c {variant: yolo, x: [*c]}\n---\n")
    return root


# (arguments of `attnwalk check`, the name the line must start with, a word of the line)
CHECK = [
    (["fifo.md"], "fifo.md", "not a regular file"),
    (["/dev/zero"], "/dev/zero", "not a regular file"),
    (["sub"], "sub", "a folder"),
    (["loop.md"], "loop.md", "cannot read"),
    (["binary.bin"], "binary.bin", "not UTF-8"),
    (["empty.md"], "empty.md", "no config"),
    (["huge.md"], "huge.md", "characters after the front matter"),
    (["deep.md"], "deep.md", "nested 100000 deep"),
    (["laughs.md"], "laughs.md", "YAML aliases"),
    (["cycle.md"], "cycle.md", "YAML aliases"),
    (["ok.md", "--format", "yaml"], "--format", "text, json, github"),
    (["ok.md", "--h", "0"], "--h", "from 1 to 4096"),
    (["ok.md", "--scenario", "fifo.toml"], "--scenario", "not a regular file"),
    (["ok.md", "--max-memory", "-1"], "--max-memory", "512M"),
    (["ok.md", "--lang", LONG], "ok.md", "--lang"),
    (["ok.md", "--decimals", "50"], "ok.md", "--decimals"),
    ([LONG + ".md"], LONG[:20], "cannot read"),
]


@pytest.mark.parametrize("args, option, says", CHECK, ids=[" ".join(a)[:50] for a, _, _ in CHECK])
def test_check_battery(workdir, args, option, says):
    root = _notes(workdir)
    before = snapshot(root)
    answer = run_cli(["check", *args], cwd=root)
    line = assert_clean(answer, option, allowed=True)
    assert says in line
    if LONG not in args[0]:  # a file is named in full, as the user wrote it
        assert len(line) < MAX_LINE
    assert_untouched(root, before)


def test_check_without_files_is_one_line(workdir):
    line = assert_clean(run_cli(["check"], cwd=workdir), "files")
    assert "Missing argument" in line


def test_check_reports_every_readable_file_beside_a_bad_one(workdir):
    """A FIFO among notes neither blocks the run nor stops the other notes from being checked."""
    root = _notes(workdir)
    answer = run_cli(["check", "fifo.md", "ok.md", "sub"], cwd=root)
    assert "Traceback" not in answer.err and answer.code == 2
    assert [line.split(":")[2].strip() for line in answer.err_lines] == ["fifo.md", "sub"]
    assert answer.out.startswith("ok.md: ") and " verified, 0 wrong" in answer.out


GOOD = '[[walkthrough]]\nname = "good"\noptions = { h = 2, w = 2 }\noutput = "notes/{name}.md"\n'
ENTRY = '[[walkthrough]]\nname = "{name}"\noptions = {{ h = 2, w = 2 }}\noutput = "{output}"\n'


def _entry(output, name="a"):
    return ENTRY.format(name=name, output=output)


# (manifest text, a word the line must hold); every one written beside a good entry or alone
BUILD = [
    # outputs escaping the course folder or colliding
    (_entry("../../etc/x.md"), "outside the manifest's folder"),
    (_entry("/etc/attnwalk-x.md"), "outside the manifest's folder"),
    (_entry("notes/../../x.md"), "outside the manifest's folder"),
    (GOOD + _entry("notes/good.md", "twin"), "also written by 'good'"),
    (GOOD + GOOD, "also written by 'good'"),
    (_entry("{name}.md", "../escape"), "outside the manifest's folder"),
    # output fields that are not plain {name} / {lang}
    (_entry("{name:>9999999999}.md"), "bad field {name:>9999999999}"),
    (_entry("{name!r}.md"), "bad field {name!r}"),
    (_entry("{name.upper}.md"), "bad field {name.upper}"),
    (_entry("{}.md"), "bad field {}"),
    (_entry("{name.md"), "output '{name.md'"),
    (_entry("{lang}}.md"), "output '{lang}}.md'"),
    # outputs that cannot be written: checked before anything is rendered
    (GOOD + _entry("afile/{name}.md"), "afile is not a folder"),
    (GOOD + _entry("ro/{name}.md"), "not writable"),
    (GOOD + _entry("ro/deeper/{name}.md"), "not writable"),
    (GOOD + _entry("fifo.md"), "not a regular file"),
    (GOOD + _entry("loop.md"), "symbolic links"),
    (GOOD + _entry("a" * 300 + ".md"), "File name too long"),
    # scenario entries that are not scenario files
    ('[[walkthrough]]\nname = "a"\nscenario = "missing.toml"\noutput = "a.md"\n', "cannot read"),
    ('[[walkthrough]]\nname = "a"\nscenario = "fifo.toml"\noutput = "a.md"\n', "not a regular file"),
    ('[[walkthrough]]\nname = "a"\nscenario = "course.toml"\noutput = "a.md"\n', "unknown key 'walkthrough'"),
    ('[[walkthrough]]\nname = "a"\nscenario = "loop.md"\noutput = "a.md"\n', "cannot read"),
    ('[[walkthrough]]\nname = "a"\nscenario = "sub"\noutput = "a.md"\n', "a folder"),
    # wrong types in the manifest
    ('[[walkthrough]]\nname = 5\noutput = "a.md"\n', "'name' is required"),
    ('[[walkthrough]]\nname = "a"\noptions = 3\noutput = "a.md"\n', "'options' must be a table"),
    ('[[walkthrough]]\nname = "a"\noptions = { h = "2" }\noutput = "a.md"\n', "--h"),
    ('[[walkthrough]]\nname = "a"\noptions = { h = { a = 1 } }\noutput = "a.md"\n', "--h"),
    ('[[walkthrough]]\nname = "a"\noptions = { colour = 1 }\noutput = "a.md"\n', "--colour: unknown option"),
    ('[[walkthrough]]\nname = "a"\noptions = { variant = "sdpa", kv-tokens = 3, kv_tokens = 4 }\noutput = "a.md"\n',
     "kv_tokens given twice"),
    ('[[walkthrough]]\nname = "a"\nlangs = ["fr"]\noutput = "a.md"\n', "--lang"),
    ('[[walkthrough]]\nname = "a"\nlangs = "vi"\noutput = 7\n', "'output' is required"),
    ('[[walkthrough]]\nname = "a"\nfigures = "yes"\noutput = "a.md"\n', "figures: got 'yes'"),
    ('[[walkthrough]]\nname = "a"\nformats = ["pdf"]\noutput = "a.md"\n', "formats: got ['pdf']"),
    ('[[walkthrough]]\nname = "a"\nformats = "md"\noutput = "a.md"\n', "formats: got 'md'"),
    ('[[walkthrough]]\nname = "a"\nformat = "html"\noutput = "a.md"\n', "format: got 'html'"),
    ('walkthrough = [1, 2]\n', "not a table"),
    ('[[walkthrough]]\nname = "a"\noutput = "a.md"\noptions = { x = ' + "[" * 50_000 + "]" * 50_000 + " }\n",
     "nested too deeply"),
    ('[[walkthrough]]\nname = "a"\noutput = "a.md"\nlangs = ' + "[" * 300 + "]" * 300 + "\n", "langs: got [[[["),
    ('[[walkthrough]]\nname = "a"\noutput = "a.md"\nlangs = [' + "1, " * 100_000 + "]\n",
     "langs: got a list of 100,000 entries"),
    ('[walkthrough]\nname = "a"\n', "no [[walkthrough]] entries"),
    ("", "no [[walkthrough]] entries"),
    # the [course] table
    (GOOD + '[course]\nindex = "../index.md"\n', "outside the manifest's folder"),
    (GOOD + '[course]\nindex = "/tmp/index.md"\n', "outside the manifest's folder"),
    (GOOD + '[course]\nindex = "index.{lang}.md"\nlangs = "vi"\n', "langs: got 'vi'"),
    (GOOD + '[course]\nindex = "index.{lang}.md"\nlangs = ["fr"]\n', "langs: got ['fr']"),
    (GOOD + '[course]\nindex = "index.md"\nlangs = ["vi", "en"]\n', "needs {lang}"),
    (GOOD + '[course]\nindex = "index.{name}.md"\n', "only the field {lang}"),
    (GOOD + '[course]\nindex = 5\n', "index: got 5;"),
    (GOOD + '[course]\nindex = "course.toml"\n', "overwrite the manifest"),
    (GOOD + '[course]\nindex = "afile/index.md"\n', "afile is not a folder"),
    (GOOD + '[course]\nindex = "index.md"\ncolour = 1\n', "unknown key 'colour'"),
    (GOOD + '[course]\nindex = "index.md"\nformats = ["html"]\n', "formats: got ['html']"),
    (GOOD + '[course]\nindex = "index.md"\nformats = "md"\n', "formats: got 'md'"),
    (GOOD + '[course]\nindex = "index.md"\nformats = ["md", "pdf"]\n', "formats: got ['md', 'pdf']"),
    (GOOD + '[course]\nindex = "index.txt"\nformats = ["md", "html"]\n', "an HTML index needs a .md index"),
    ('course = 3\n' + GOOD, "[course]: got 3;"),
    (GOOD + '[course]\nindex = "notes/good.md"\n', "is also written by 'good'"),
    (GOOD + '[course]\nindex = ".attnwalk-build.json"\n', "the build cache"),
    (_entry(".attnwalk-build.json"), "the build cache"),
    # documents that need what the scenario does not give
    ('[[walkthrough]]\nname = "a"\nscenario = "scores.toml"\noutput = "a.md"\n', "--source: got 'scores'"),
    ('[[walkthrough]]\nname = "a"\nscenario = "scores.toml"\nformats = ["html"]\noutput = "a.md"\n',
     "--source: got 'scores'"),
    ('[[walkthrough]]\nname = "a"\noptions = { input = "uniform", rng = "numpy-legacy" }\noutput = "a.md"\n',
     "--input: got 'uniform'"),
]


def _course(root, manifest: str):
    course = root / "course"
    course.mkdir()
    _workdir(course)
    (course / "course.toml").write_text(manifest, encoding="utf-8")
    (course / "scores.toml").write_text('variant = "sdpa"\nsource = "scores"\nscores = [[1, 2], [3, 4]]\n')
    return course


@pytest.mark.parametrize("manifest, says", BUILD, ids=[m[-50:] for m, _ in BUILD])
@pytest.mark.parametrize("check", [False, True], ids=["build", "build --check"])
def test_build_battery(tmp_path, manifest, says, check):
    course = _course(tmp_path, manifest)
    before = snapshot(tmp_path)
    try:
        answer = run_cli(["build", "course/course.toml", *(["--check"] if check else [])], cwd=tmp_path)
        if check and says in ("not writable", "File name too long") and answer.code == 1:
            return  # --check writes nothing: an unwritable output is only a missing note there
        line = assert_clean(answer, "", allowed=True)
        assert says in line, line
        assert len(line) < MAX_LINE
        assert_untouched(tmp_path, before)
    finally:
        (course / "ro").chmod(0o755)


@pytest.mark.parametrize("manifest", ["fifo.toml", "sub", "binary.bin", "latin1.toml", "missing.toml", "loop.md"])
def test_build_refuses_manifests_that_are_not_files(workdir, manifest):
    before = snapshot(workdir)
    line = assert_clean(run_cli(["build", manifest], cwd=workdir), manifest)
    assert line.count(manifest) == 1  # the manifest is its own "option": named once
    assert_untouched(workdir, before)


def test_names_with_spaces_and_unicode_are_fine(tmp_path):
    """Hostile-looking but legal names are written where they say, and check reads them back."""
    (tmp_path / "course.toml").write_text(
        '[[walkthrough]]\nname = "bài 1 — ví dụ ✓"\noptions = { h = 2, w = 2 }\noutput = "ghi chú/{name}.{lang}.md"\n'
        'langs = ["vi", "en"]\n', encoding="utf-8")
    answer = run_cli(["build", "course.toml"], cwd=tmp_path)
    assert answer.code == 0, answer.err
    notes = sorted((tmp_path / "ghi chú").iterdir())
    assert [p.name for p in notes] == ["bài 1 — ví dụ ✓.en.md", "bài 1 — ví dụ ✓.vi.md"]
    answer = run_cli(["check", *(str(p) for p in notes)], cwd=tmp_path)
    assert answer.code == 0 and answer.err == "", answer.err
    assert answer.out.count(" 0 wrong") == 2


def test_check_refuses_a_50_mb_note_quickly_and_a_sparse_300_mb_one_unread(workdir):
    """Reading a note is super-linear (1 MiB: ~9 s, 4 MiB: ~90 s), so 50 MB would take hours: refused by
    its length; a 300 MB file is refused by its size, before a byte is read."""
    import time

    (workdir / "big.md").write_text(NOTE + "word 1.5 and 2.25 text\n" * 2_300_000)  # 53 MB
    with open(workdir / "sparse.md", "wb") as fh:
        fh.truncate(300 * 2**20)
    sizes = {p.name: p.stat().st_size for p in workdir.iterdir() if p.is_file()}
    start = time.monotonic()
    big = run_cli(["check", "big.md"], cwd=workdir)
    sparse = run_cli(["check", "sparse.md"], cwd=workdir)
    assert time.monotonic() - start < 30
    assert "characters after the front matter" in assert_clean(big, "big.md")
    assert "314,572,800 bytes" in assert_clean(sparse, "sparse.md")
    assert {p.name: p.stat().st_size for p in workdir.iterdir() if p.is_file()} == sizes  # nothing written


def test_scenario_with_a_byte_order_mark_is_read(tmp_path):
    """Editors on Windows start UTF-8 files with a BOM: it is not a TOML error."""
    (tmp_path / "s.toml").write_bytes('\ufeffvariant = "sdpa"\ntokens = 2\nlang = "en"\n'.encode())
    answer = run_cli(["render", "--scenario", "s.toml", "--format", "json", "-o", "t.json"], cwd=tmp_path)
    assert answer.code == 0, answer.err
    import json

    assert json.loads((tmp_path / "t.json").read_text())["config"]["tokens"] == 2


def test_render_never_replaces_its_own_scenario(tmp_path):
    (tmp_path / "s.toml").write_text("h = 2\nw = 2\n")
    before = snapshot(tmp_path)
    line = assert_clean(run_cli(["render", "--scenario", "s.toml", "-o", "./s.toml"], cwd=tmp_path), "-o")
    assert "is the scenario file" in line
    assert_untouched(tmp_path, before)


@pytest.mark.parametrize("value", ["abc", "0", "-1", "100000", "1e3", " 2"])
@pytest.mark.parametrize("command", [["render"], ["check", "n.md"], ["build", "course.toml"]])
def test_bad_thread_count_is_named(tmp_path, monkeypatch, value, command):
    monkeypatch.setenv("ATTNWALK_THREADS", value)
    before = snapshot(tmp_path)
    line = assert_clean(run_cli(command, cwd=tmp_path), "ATTNWALK_THREADS")
    assert "from 1 to 1024" in line
    assert_untouched(tmp_path, before)


def test_a_fifo_as_the_build_cache_does_not_block_the_build(tmp_path):
    os.mkfifo(tmp_path / ".attnwalk-build.json")
    (tmp_path / "course.toml").write_text(_entry("{name}.md"))
    answer = run_cli(["build", "course.toml"], cwd=tmp_path, timeout=60)
    assert answer.code == 0, answer.err
    assert (tmp_path / "a.md").read_text().startswith("---\n")
