"""Hostile input to render, crosscheck, check and build: one clean line, nothing touched (issue 11).

Each case runs the real command in a subprocess under a memory limit (tests/hostile.py), so an
allocation bomb fails its case instead of the machine.
"""

from __future__ import annotations

import pytest
from hostile import assert_clean, assert_untouched, run_cli, snapshot

BIG = "9" * 5000

# (arguments of `attnwalk render`, the option the error line must name)
RENDER = [
    # memory: each option within its limit, their product far beyond the budget
    (["--h", "64", "--w", "64", "--dim", "1024", "--heads", "512", "--batch", "8"], "--max-memory"),
    (["--h", "64", "--w", "64", "--dim", "1024", "--heads", "4", "--batch", "8", "--format", "json"], "--max-memory"),
    (["--h", "64", "--w", "64", "--dim", "64", "--heads", "32"], "--max-memory"),
    (["--h", "64", "--w", "64", "--dim", "32", "--heads", "8", "--format", "json"], "--max-memory"),
    (["--variant", "sdpa", "--tokens", "4096", "--dim", "1024", "--heads", "1024", "--batch", "8"], "--max-memory"),
    (["--variant", "sdpa", "--tokens", "4096", "--kv-tokens", "4096", "--dim", "64", "--heads", "64"],
     "--max-memory"),
    (["--variant", "mha", "--tokens", "4096", "--dim", "1024", "--heads", "1024", "--batch", "8"], "--max-memory"),
    (["--variant", "mha", "--tokens", "2048", "--dim", "64", "--heads", "32", "--format", "json"], "--max-memory"),
    (["--h", "8", "--w", "8", "--max-memory", "1M", "--dim", "64", "--heads", "32"], "--max-memory"),
    (["--max-memory", "lots"], "--max-memory"),
    (["--max-memory", "-5G"], "--max-memory"),
    (["--max-memory", "0"], "--max-memory"),
    (["--max-memory", BIG], "--max-memory"),
    # non-finite numbers and overflow
    (["--init-std", "1e308"], "--init-std"),
    (["--init-std", "1e200"], "--init-std"),
    (["--init-std", "nan"], "--init-std"),
    (["--init-std", "inf"], "--init-std"),
    (["--init-std", "-0.02"], "--init-std"),
    (["--init-std", "0"], "--init-std"),
    (["--variant", "mha", "--init-std", "1e300"], "--init-std"),
    (["--variant", "sdpa", "--source", "project", "--init-std", "1e200"], "--init-std"),
    (["--attn-ratio", "nan"], "--attn-ratio"),
    (["--attn-ratio", "1e400"], "--attn-ratio"),
    # other values a hostile user tries on every option
    (["--variant", "sdpa", "--mask", f"padding:{BIG}"], "--mask"),
    (["--variant", "sdpa", "--mask", "padding:-1"], "--mask"),
    (["--variant", "sdpa", "--mask", "padding:99"], "--mask"),
    (["--variant", "sdpa", "--mask-fill", "nan"], "--mask-fill"),
    (["--variant", "sdpa", "--mask-fill", "1e400"], "--mask-fill"),
    (["--h", "0"], "--h"),
    (["--h", "-3"], "--h"),
    (["--h", BIG], "--h"),
    (["--w", "5000"], "--w"),
    (["--h", "100", "--w", "100"], "--h/--w"),
    (["--dim", "0"], "--dim"),
    (["--dim", "100000"], "--dim"),
    (["--heads", "3"], "--heads"),
    (["--heads", "0"], "--heads"),
    (["--batch", "9"], "--batch"),
    (["--batch", "-1"], "--batch"),
    (["--seed", "-1"], "--seed"),
    (["--seed", str(2**64)], "--seed"),
    (["--decimals", "0"], "--decimals"),
    (["--decimals", "400"], "--decimals"),
    (["--lang", "fr"], "--lang"),
    (["--rng", "cuda"], "--rng"),
    (["--input", "zeros"], "--input"),
    (["--pe-on", "x"], "--pe-on"),
    (["--variant", "bert"], "--variant"),
    (["--variant", "sdpa", "--h", "3"], "--h"),
    (["--mask", "causal"], "--mask"),
    (["--h", "abc"], "--h"),
    (["--h", "3.5"], "--h"),
    (["--seed", "1e3"], "--seed"),
    (["--decimals", "-1"], "--decimals"),
    (["--variant", "sdpa", "--tokens", "abc"], "--tokens"),
    (["--batch", "0"], "--batch"),
    (["--attn-ratio", "abc"], "--attn-ratio"),
    (["--lang", ""], "--lang"),
    (["--variant", ""], "--variant"),
    (["--scenario", ""], "--scenario"),
    (["--bogus"], "--bogus"),
    (["--h"], "--h"),
    (["--init-std", "x"], "--init-std"),
    (["--variant", "sdpa", "--tokens", "0"], "--tokens"),
    (["--variant", "sdpa", "--kv-tokens", "5000"], "--kv-tokens"),
    (["--variant", "sdpa", "--source", "magic"], "--source"),
    (["--format", "pdf"], "--format"),
    # output paths
    (["-o", ""], "-o"),
    (["-o", "."], "-o"),
    (["-o", "sub"], "-o"),  # a folder (created by the test)
    (["-o", "missing/note.md"], "-o"),
    (["-o", "ro.md"], "-o"),  # a read-only file (created by the test)
    (["--scenario", "nope.toml"], "--scenario"),
    (["--scenario", "sub"], "--scenario"),
    (["--scenario", "binary.toml"], "--scenario"),
]


def _workdir(tmp_path):
    (tmp_path / "sub").mkdir()
    ro = tmp_path / "ro.md"
    ro.write_text("keep me\n")
    ro.chmod(0o444)
    (tmp_path / "binary.toml").write_bytes(b"\x00\xff\xfe\x80garbage")
    (tmp_path / "empty.toml").write_text("")
    return tmp_path


@pytest.mark.parametrize("args, option", RENDER, ids=[" ".join(a)[:60] for a, _ in RENDER])
def test_render_refuses_cleanly(tmp_path, args, option):
    root = _workdir(tmp_path)
    before = snapshot(root)
    answer = run_cli(["render", *args], cwd=root)
    assert_clean(answer, option)
    assert answer.out == ""
    assert_untouched(root, before)


# (scenario TOML, what the error line must contain)
SCENARIOS = [
    ('variant = "sdpa"\nq = [[nan, 1]]\n', "q: row 0, column 0"),
    ('variant = "sdpa"\nq = [[inf, 1]]\n', "q: row 0, column 0"),
    ('variant = "sdpa"\nq = [[1e400, 1]]\n', "q: row 0, column 0"),
    ('variant = "sdpa"\nq = [["1e400", 1]]\n', "q: row 0, column 0"),
    ('variant = "sdpa"\nq = [["1e100000000", 1]]\n', "q: row 0, column 0"),
    ('variant = "sdpa"\nq = [["1/0", 1]]\n', "q: row 0, column 0"),
    ('variant = "sdpa"\nq = [["1+2j", 1]]\n', "q: row 0, column 0"),
    (f'variant = "sdpa"\nq = [[{BIG}, 1]]\n', "--scenario"),  # TOML itself refuses a 5000-digit integer
    ('variant = "sdpa"\nq = [[1e200, 1e200], [1, 1]]\nk = [[1e200, 1e200], [1, 1]]\nv = [[1, 2], [3, 4]]\n',
     "overflow float64 at step scores"),
    ('variant = "sdpa"\nsource = "project"\nx = [[1e200, 1]]\n', "overflow float64"),
    ('variant = "sdpa"\nq = [[true, 1]]\n', "q: row 0, column 0"),
    ('variant = "sdpa"\nq = []\n', "q: got []; allowed"),
    ('variant = "sdpa"\nq = [[1, 2], [3]]\n', "row 1 has 1 values"),
    ('variant = "sdpa"\nlabels = ["a", "b\\nc", "d"]\n', "labels: label 1 contains"),
    ('variant = "sdpa"\nlabels = ["a", "b\\u0000", "d"]\n', "labels: label 1 contains"),
    ('variant = "sdpa"\nlabels = ["a", "b\\u202e", "d"]\n', "labels: label 1 contains"),
    ('variant = "sdpa"\nlabels = ["a", "b", "' + "x" * 200 + '"]\n', "labels: label 2 has 200 characters"),
    ('variant = "sdpa"\nlabels = ["a", "b"]\n', "labels: got"),
    ('variant = "sdpa"\nlabels = [1, 2, 3]\n', "labels: got"),
    ('variant = "sdpa"\nmask = "padding:' + BIG + '"\n', "key mask"),
    ('variant = "sdpa"\ntokens = 3.5\n', "key tokens"),
    ('variant = "sdpa"\ntokens = "3"\n', "key tokens"),
    ('h = 64\nw = 64\ndim = 1024\nheads = 512\nbatch = 8\n', "--max-memory"),
    ('variant = "yolo"\nmystery = 1\n', "unknown key 'mystery'"),
    ('variant = "yolo"\n[table]\na = 1\n', "unknown key 'table'"),
    ('variant = "yolo\n', "not valid TOML"),
    ('variant = ["yolo"]\n', "key variant"),
    ('variant = "sdpa"\nseed = -1\n', "key seed"),
    ('variant = "sdpa"\ninit_std = 1e308\nsource = "project"\n', "overflow float64"),
]


@pytest.mark.parametrize("toml, says", SCENARIOS, ids=[t[:50] for t, _ in SCENARIOS])
def test_bad_scenarios_are_refused(tmp_path, toml, says):
    (tmp_path / "s.toml").write_text(toml, encoding="utf-8")
    before = snapshot(tmp_path)
    answer = run_cli(["render", "--scenario", "s.toml", "-o", "out.md"], cwd=tmp_path)
    option = "--max-memory" if says == "--max-memory" else "--"
    line = assert_clean(answer, option)
    assert says in line
    assert_untouched(tmp_path, before)


CROSSCHECK = [
    (["--h", "64", "--w", "64", "--dim", "1024", "--heads", "512", "--batch", "8"], "--max-memory"),
    (["--variant", "sdpa", "--tokens", "4096", "--dim", "64", "--heads", "64"], "--max-memory"),
    (["--variant", "mha", "--tokens", "4096", "--dim", "1024", "--heads", "1024", "--batch", "8"], "--max-memory"),
    (["--init-std", "1e308"], "--init-std"),
    (["--device", "tpu"], "--device"),
    (["--dtype", "float16"], "--dtype"),
    (["--variant", "sdpa", "--mask", f"padding:{BIG}"], "--mask"),
]


@pytest.mark.parametrize("args, option", CROSSCHECK, ids=[" ".join(a)[:60] for a, _ in CROSSCHECK])
def test_crosscheck_refuses_cleanly(tmp_path, args, option):
    before = snapshot(tmp_path)
    assert_clean(run_cli(["crosscheck", *args], cwd=tmp_path), option)
    assert_untouched(tmp_path, before)


def _note(config: str, weights: str = "") -> str:
    return f"---\ntitle: \"t\"\ngenerator: attnwalk 0.1.0\nconfig: {config}\n{weights}---\n\n# note\n\nText 1.0\n"


CHECK = [
    (_note('{"variant": "yolo", "h": 64, "w": 64, "dim": 1024, "heads": 512, "batch": 8}'), "--max-memory"),
    (_note('{"variant": "mha", "tokens": 4096, "dim": 1024, "heads": 1024, "batch": 8}'), "--max-memory"),
    (_note('{"variant": "yolo", "init_std": 1e308}'), "overflow float64"),
    (_note('{"variant": "sdpa", "q": [[.nan, 1]]}'), "q: row 0"),
    (_note('{"variant": "yolo"}', "weights:\n  w_qkv: {shape: [8, 4, 1, 1], data: [1, 2]}\n"),
     "is not a {shape, data}"),
    (_note('{"variant": "yolo"}', "weights:\n  w_qkv: [1, 2]\n"), "is not a {shape, data}"),
    (_note('{"variant": "yolo"}', "weights:\n  w_qkv: {shape: [8, 4, 1, 1], data: [" + ", ".join(["1e400"] * 32)
           + "]}\n"), "w_qkv"),
    (_note('{"variant": "yolo"}', "weights:\n  w_zzz: {shape: [1], data: [1]}\n"), "unknown name"),
    (_note('{"variant": "sdpa", "mask": "padding:' + BIG + '"}'), "--mask"),
    (_note('{"variant": "sdpa", "labels": ["a\\nb", "c", "d"]}'), "labels"),
    ("---\nconfig: [unclosed\n---\n", "invalid YAML"),
    ("---\nconfig: {\"h\": " + BIG + "}\n---\n", "invalid YAML"),
    ("---\n- a list\n---\n", "not a mapping"),
    ("---\ntitle: no config\n---\n\n1.0\n", "no config"),
    (_note('{"variant": "yolo", "extra": 1}'), "--extra: unknown option"),
    (_note('{"variant": "yolo"}', "weights:\n  w_qkv: {shape: [99999999999, 9999999], data: [1]}\n"),
     "is not a {shape, data}"),
]


@pytest.mark.parametrize("note, says", CHECK, ids=[n[40:90] for n, _ in CHECK])
def test_check_refuses_bad_front_matter(tmp_path, note, says):
    (tmp_path / "n.md").write_text(note, encoding="utf-8")
    before = snapshot(tmp_path)
    answer = run_cli(["check", "n.md"], cwd=tmp_path)
    line = assert_clean(answer, "n.md")
    assert says in line
    assert "weights: weights:" not in line
    assert_untouched(tmp_path, before)


@pytest.mark.parametrize("target", ["missing.md", "folder", "binary.md"])
def test_check_refuses_unreadable_notes(tmp_path, target):
    (tmp_path / "folder").mkdir()
    (tmp_path / "binary.md").write_bytes(b"\xff\xfe\x00\x81")
    before = snapshot(tmp_path)
    assert_clean(run_cli(["check", target], cwd=tmp_path), target)
    assert_untouched(tmp_path, before)


GOOD = '[[walkthrough]]\nname = "good"\noptions = { h = 2, w = 2 }\noutput = "notes/{name}.md"\n'
BUILD = [
    ('[[walkthrough]]\nname = "a"\noptions = { h = 2, w = 2 }\noutput = "notes/{nme}.md"\n', "output"),
    ('[[walkthrough]]\nname = "a"\noptions = { h = 2, w = 2 }\noutput = "notes/{0}.md"\n', "output"),
    ('[[walkthrough]]\nname = "a"\noptions = { h = 2, w = 2 }\noutput = "notes/{name.x}.md"\n', "output"),
    ('[[walkthrough]]\nname = "a"\nscenario = 5\noutput = "a.md"\n', "scenario"),
    ('[[walkthrough]]\nname = "a"\noptions = { h = 2, w = 2 }\noutput = "a\\u0000.md"\n', "output"),
    ('[[walkthrough]]\nname = "a"\nscenario = "s\\u0000.toml"\noutput = "a.md"\n', "scenario"),
    ('[[walkthrough]]\nname = "a"\noptions = { h = 2, w = 2 }\noutput = "course.toml"\n', "overwrite an input"),
    ('[[walkthrough]]\nname = "a"\nscenario = "s.toml"\noutput = "s.toml"\n', "overwrite an input"),
    ('[[walkthrough]]\nname = "a"\noptions = { h = 2, w = 2 }\nlangs = []\noutput = "a.md"\n', "langs"),
    ('[[walkthrough]]\nname = "a"\noptions = { h = 2, w = 2 }\nlangs = [1]\noutput = "a.md"\n', "langs"),
    (GOOD + '[[walkthrough]]\nname = "bad"\noptions = { heads = 3 }\noutput = "notes/{name}.md"\n', "--heads"),
    (GOOD + '[[walkthrough]]\nname = "bomb"\noptions = { h = 64, w = 64, dim = 1024, heads = 512, batch = 8 }\n'
     'output = "notes/{name}.md"\n', "--max-memory"),
    (GOOD + '[[walkthrough]]\nname = "ovf"\noptions = { init_std = 1e308 }\noutput = "notes/{name}.md"\n',
     "overflow"),
    ('[[walkthrough]]\nname = "a"\noptions = { h = 2, w = 2 }\noutput = "../escape.md"\n', "outside"),
    ('[[walkthrough]]\nname = "a"\noptions = { h = 2, w = 2 }\noutput = "ro.md"\n', "read-only"),
    ('[[walkthrough]]\nname = "a"\noptions = { h = 2, w = 2 }\noutput = "folder"\n', "folder"),
    ('[[walkthrough]]\nname = ""\noutput = "a.md"\n', "name"),
    ('walkthrough = 3\n', "walkthrough"),
    ('[[walkthrough]]\nname = "a"\nbogus = 1\noutput = "a.md"\n', "bogus"),
    ('[[walkthrough]\n', "not valid TOML"),
]


@pytest.mark.parametrize("manifest, says", BUILD, ids=[m[-60:] for m, _ in BUILD])
def test_bad_manifests_write_nothing(tmp_path, manifest, says):
    root = tmp_path / "course"
    root.mkdir()
    (root / "course.toml").write_text(manifest, encoding="utf-8")
    (root / "s.toml").write_text('variant = "yolo"\nh = 2\nw = 2\n')
    (root / "folder").mkdir()
    (root / "ro.md").write_text("old\n")
    (root / "ro.md").chmod(0o444)
    before = snapshot(tmp_path)
    line = assert_clean(run_cli(["build", "course/course.toml"], cwd=tmp_path), "course.toml"
                        if "walkthrough" in says or "TOML" in says else says, allowed=True)
    assert says in line
    assert_untouched(tmp_path, before)
