"""What ``attnwalk check`` says to a course author and what ``--fix`` / ``--diff`` write (the sixth teaching audit,
docs/teaching-audit.md #62-): the place of each number (line and column) is the characters ``--fix`` rewrites, the
GitHub annotations read back as GitHub reads them, the JSON document has the documented schema, the diff applies
with ``patch`` and ``git apply`` to what ``--fix`` writes, and wrong numbers left by ``--fix`` are named."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from typer.testing import CliRunner

from attnwalk.check import check_file
from attnwalk.check.checker import NumRec
from attnwalk.check.fix import apply_fixes
from attnwalk.cli import app
from attnwalk.scenario import load_scenario

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus"
FORUM = CORPUS / "heldout13" / "vi_forum_decimal_comma_semicolon_lists"  # decimal commas, an exponent left wrong
BLOG = CORPUS / "person" / "vi_obsidian_blog"  # Obsidian, 2 wrong numbers (torch: 0.503 and 1.255)
SPREADSHEET = CORPUS / "heldout13" / "en_spreadsheet_cells_exp_formulas"  # table cells, the same value 3 times a row
YOLO8 = ROOT / "examples" / "notes" / "yolo-8x8-seed42.en.md"


def run(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def copy_note(stem: Path, tmp_path: Path, name: str | None = None) -> Path:
    note = tmp_path / (name or stem.name + ".md")
    shutil.copy(stem.with_suffix(".md"), note)
    return note


# --- where: the column of a number is the one --fix rewrites ---------------------------------------------------

def test_fix_never_rewrites_the_digits_of_a_signed_number_for_an_unsigned_one(tmp_path):
    """yolo-8x8's X row ``1 & 4 & -4 & -4 & 4 & -2 & ..`` with ``-2`` planted as ``4``: the third ``4`` record is
    the planted cell; --fix took the third occurrence of the text ``4``, which is the digit of the second ``-4``,
    and wrote ``--2`` there, leaving the note corrupted with 0 wrong (its X no longer read at all)."""
    lines = YOLO8.read_text(encoding="utf-8").split("\n")
    row = next(i for i, ln in enumerate(lines) if ln.startswith("1 & 4 & -4 & -4 & 4 & -2 & "))
    planted = lines[:]
    planted[row] = planted[row].replace("4 & -2 & ", "4 & 4 & ", 1)
    note = tmp_path / "yolo-8x8.md"
    note.write_text("\n".join(planted), encoding="utf-8")
    report = check_file(note)
    assert [(r.line, r.text, r.failure()[1]) for r in report.wrong] == [(row + 1, "4", "-2")]
    res = run("check", note, "--fix")
    assert res.exit_code == 0, res.output
    assert note.read_text(encoding="utf-8") == YOLO8.read_text(encoding="utf-8")  # the course note, byte for byte


def test_apply_fixes_takes_the_numbers_of_a_line_in_reading_order():
    line = "x = [-0.5, 0.5]"
    recs = [NumRec(1, "-0.5", [(True, "x[0]", "-0.5")]),
            NumRec(1, "0.5", [(False, "x[1]", "0.6")], fix=("0.6", "label"))]
    assert apply_fixes(line, recs) == "x = [-0.5, 0.6]"
    recs = [NumRec(1, "2", [(False, "s", "1")], fix=("1", "label"))]  # no record of the "2" of "Row 2"
    assert apply_fixes("Row 2: e^1 = 2.7183; e^2", [NumRec(1, "1", [(True, "e", "1")]),
                                                    NumRec(1, "2.7183", [(True, "e^1", "2.7183")]), *recs]) == \
        "Row 2: e^1 = 2.7183; e^1"


def test_json_columns_name_each_numbers_characters(tmp_path):
    """On the forum note (decimal commas) the wrong exponents of ``Hàng 3 (..): e^1 ≈ 2,7183; e^2 ≈ 7,3891;
    e^3 ≈ 20,0855`` are placed at ``e^2``'s 2 and ``e^3``'s 3, not the ``2`` of ``2,7183`` and the ``3`` of
    ``Hàng 3``; every failure and every unknown number of four notes is the text at its columns."""
    for stem in (FORUM, BLOG, SPREADSHEET, CORPUS / "heldout15" / "vi_viblo_blog_bold_numbers_image_alt"):
        note = copy_note(stem, tmp_path)
        res = run("check", note, "--scenario", stem.with_suffix(".toml"), "--format", "json", "--show-unknown")
        assert res.exit_code == 1, res.output
        entry = json.loads(res.output)["files"][0]
        lines = note.read_text(encoding="utf-8").split("\n")
        for item in entry["failures"] + entry["unknown"]:
            text = item.get("published", item.get("text"))
            assert item["col"] is not None, item
            assert lines[item["line"] - 1][item["col"] - 1:item["end_col"] - 1] == text, (stem.name, item)
    entry = json.loads(run("check", copy_note(FORUM, tmp_path), "--scenario", FORUM.with_suffix(".toml"),
                           "--format", "json").output)["files"][0]
    exps = [(f["label"], f["published"], lines_at(tmp_path / (FORUM.name + ".md"), f)) for f in entry["failures"]
            if f["line"] == 36 and f["published"] in ("2", "3")]
    assert exps == [("scores_scaled[2, 1]", "2", "e^2"), ("scores_scaled[2, 2]", "3", "e^3")]


def lines_at(note: Path, item: dict) -> str:
    """The number of a JSON item with the two characters before it."""
    line = note.read_text(encoding="utf-8").split("\n")[item["line"] - 1]
    return line[item["col"] - 3:item["end_col"] - 1]


# --- GitHub annotations, read back by GitHub's rules ------------------------------------------------------------

def _gh_unescape(value: str, prop: bool) -> str:
    """GitHub's runner: ``%25``, ``%0D``, ``%0A`` in data; ``%3A``, ``%2C`` too in a property."""
    pairs = [("%0D", "\r"), ("%0A", "\n")] + ([("%3A", ":"), ("%2C", ",")] if prop else []) + [("%25", "%")]
    for a, b in pairs:
        value = value.replace(a, b)
    return value


def parse_workflow_command(line: str) -> tuple[str, dict, str]:
    """A ``::name k=v,k=v::message`` line as the runner splits it: properties at ``,``, key and value at the
    first ``=``, the message after the second ``::``."""
    m = re.fullmatch(r"::(\w+)(?: ([^:]*))?::(.*)", line)
    assert m, line
    props = {}
    for part in (m[2] or "").split(","):
        if part:
            k, v = part.split("=", 1)
            props[k] = _gh_unescape(v, True)
    return m[1], props, _gh_unescape(m[3], False)


def test_github_annotations_name_the_file_line_and_column_as_github_reads_them(tmp_path):
    """A note saved as ``day 1, intro: attention.md`` (a comma and a colon, both legal in a path): the old
    ``file=`` property, unescaped, ended at the comma, so GitHub put the annotations on a file ``day 1``."""
    note = copy_note(BLOG, tmp_path, "day 1, intro: attention.md")
    res = run("check", note, "--scenario", BLOG.with_suffix(".toml"), "--format", "github")
    assert res.exit_code == 1
    commands = [parse_workflow_command(ln) for ln in res.output.splitlines() if ln.startswith("::")]
    lines = note.read_text(encoding="utf-8").split("\n")
    errors = [(p, msg) for kind, p, msg in commands if kind == "error"]
    assert len(errors) == 2
    for props, msg in errors:
        assert props["file"] == str(note)
        published = re.search(r"published (\S+),", msg)[1]
        line, col = int(props["line"]), int(props["col"])
        assert lines[line - 1][col - 1:].startswith(published)
    assert [m.split(": published ")[1] for _, m in errors] == ["0.505, expected 0.503", "1.256, expected 1.255"]


def test_github_remarks_are_notices_and_unreadable_files_errors(tmp_path):
    note = copy_note(FORUM, tmp_path)
    bad = tmp_path / "50% done.md"
    bad.write_bytes(b"\xff\xfe not utf-8")
    res = run("check", note, bad, "--scenario", FORUM.with_suffix(".toml"), "--format", "github", "--diff")
    commands = [parse_workflow_command(ln) for ln in res.output.splitlines() if ln.startswith("::")]
    notices = [(p, m) for k, p, m in commands if k == "notice"]
    assert [(p["file"], p["line"]) for p, _ in notices] == [(str(note), "36")]
    assert "--diff leaves 4 wrong number(s)" in notices[0][1]
    assert ("error", {"file": str(bad)}) in [(k, p) for k, p, _ in commands]


# --- JSON: the schema docs/course.md shows -----------------------------------------------------------------------

def documented_schema() -> dict:
    tokens = MarkdownIt().parse((ROOT / "docs" / "course.md").read_text(encoding="utf-8"))
    blocks = [t.content for t in tokens if t.type == "fence" and t.info.strip() == "json"
              and "attnwalk check --format json" in t.content]
    assert len(blocks) == 1
    return json.loads(blocks[0])


def test_json_output_has_the_documented_schema(tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    schema = documented_schema()
    note, blog = copy_note(FORUM, tmp_path), copy_note(BLOG, tmp_path)
    clean = tmp_path / "clean.md"
    shutil.copy(ROOT / "examples" / "notes" / "hand-2x2.en.md", clean)
    missing = tmp_path / "missing.md"
    for args in ([], ["--show-unknown"], ["--diff"]):
        res = run("check", note, missing, "--scenario", FORUM.with_suffix(".toml"), "--format", "json", *args)
        assert res.exit_code == 2
        doc = json.loads(res.output)
        jsonschema.validate(doc, schema)
        first = doc["files"][0]
        assert first["wrong"] == len(first["failures"]) == 22 and set(doc["files"][1]) == {"file", "error"}
        assert ("unknown" in first) == (args == ["--show-unknown"]) and ("diff" in first) == (args == ["--diff"])
    res = run("check", clean, "--format", "json")
    assert res.exit_code == 0
    jsonschema.validate(json.loads(res.output), schema)
    res = run("check", blog, "--scenario", BLOG.with_suffix(".toml"), "--format", "json", "--fix")
    doc = json.loads(res.output)
    jsonschema.validate(doc, schema)
    assert res.exit_code == 0 and doc["files"][0]["wrong"] == 0 and doc["files"][0]["diff"].startswith("--- a/")


# --- --diff applies, and equals --fix -----------------------------------------------------------------------------

@pytest.mark.parametrize("variant", ["no final newline", "form feed and U+2028 inside lines", "CRLF"])
def test_diff_applies_with_patch_and_git_apply_and_equals_fix(tmp_path, variant):
    """The blog note made awkward: its last line (a wrong number: torch 1.255) without its newline, which the
    old diff ran into the next line of the output; a form feed and a U+2028 inside prose lines, where the old
    diff split lines that patch does not; CRLF line ends."""
    if shutil.which("patch") is None or shutil.which("git") is None:
        pytest.skip("patch or git is not installed")
    text = BLOG.with_suffix(".md").read_text(encoding="utf-8")
    if variant == "no final newline":
        text = text.rstrip("\n")
    elif variant == "CRLF":
        text = text.replace("\n", "\r\n")
    else:
        text = text.replace("## ", "\f## ", 1).replace("Token", "Token\u2028", 1)
    for name in ("note.md", "fixed.md"):
        (tmp_path / name).write_bytes(text.encode("utf-8"))
    scenario = BLOG.with_suffix(".toml")
    diff = run_in(tmp_path, "check", "note.md", "--scenario", scenario, "--diff")
    assert diff.returncode == 1
    fixed = run_in(tmp_path, "check", "fixed.md", "--scenario", scenario, "--fix")
    assert fixed.returncode == 0, fixed.stdout
    out = re.findall(rb"[^\n]*\n|[^\n]+\Z", diff.stdout)  # lines as patch counts them: at LF only
    patch = b"".join(out[:next(i for i, ln in enumerate(out) if ln.startswith(b"note.md:"))])
    (tmp_path / "p.diff").write_bytes(patch)
    got = subprocess.run(["git", "apply", "--check", "p.diff"], cwd=tmp_path, capture_output=True, text=True)
    assert got.returncode == 0, got.stderr
    got = subprocess.run(["patch", "-p1", "-i", "p.diff"], cwd=tmp_path, capture_output=True, text=True)
    assert got.returncode == 0, got.stdout + got.stderr
    assert (tmp_path / "note.md").read_bytes() == (tmp_path / "fixed.md").read_bytes() != text.encode("utf-8")


def run_in(cwd: Path, *args) -> subprocess.CompletedProcess:
    """``attnwalk ARGS`` run from ``cwd`` (relative paths in the diff), its stdout as bytes decoded."""
    import os
    import sys

    env = dict(os.environ, ATTNWALK_THREADS="1")
    return subprocess.run([sys.executable, "-m", "attnwalk", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, timeout=300)


# --- what --fix leaves --------------------------------------------------------------------------------------------

def test_fix_names_the_wrong_numbers_it_leaves(tmp_path):
    """The forum note's row 3 is worked from unscaled scores (``e^1, e^2, e^3``; scaled they are 0.7071, 1.4142,
    2.1213): check calls the exponents 2 and 3 and their exponentials wrong but has no value to write for them at
    integer precision; --fix fixes the rest and says which 4 it leaves, and a second check agrees."""
    note = copy_note(FORUM, tmp_path)
    scenario = FORUM.with_suffix(".toml")
    res = run("check", note, "--scenario", scenario, "--fix")
    assert res.exit_code == 1
    assert f"{note}:36: note: --fix left 4 wrong number(s) as they are (line(s) 36)" in res.output
    again = check_file(note, load_scenario(scenario))
    assert sorted((r.line, r.text) for r in again.wrong) == [(36, "2"), (36, "20,0855"), (36, "3"), (36, "7,3891")]
    assert run("check", copy_note(BLOG, tmp_path), "--scenario", BLOG.with_suffix(".toml"), "--fix").output.count(
        "note:") == 0  # nothing left: no remark


# --- a notebook's messages name the cell ----------------------------------------------------------------------------

def test_a_notebooks_findings_name_their_cell_and_whether_it_is_an_output(tmp_path):
    """The Colab notebook of the person corpus prints attn with a planted 0.5036 (torch: 0.5035): the finding names
    the line of the .ipynb file and the cell whose output printed it, as json.load counts cells."""
    nb = tmp_path / "lesson.ipynb"
    shutil.copy(CORPUS / "person" / "en_colab_computed_prints.ipynb", nb)
    cells = json.loads(nb.read_text(encoding="utf-8"))["cells"]
    printed = [n for n, c in enumerate(cells, 1) if "0.5036" in json.dumps(c.get("outputs", []))]
    assert len(printed) == 1 and "0.5036" not in json.dumps(cells[printed[0] - 1]["source"])
    res = run("check", nb)
    assert res.exit_code == 1
    line = next(ln for ln in res.output.splitlines() if "published 0.5036" in ln)
    assert line.endswith(f"expected 0.5035 (cell {printed[0]}, output)")
    entry = json.loads(run("check", nb, "--format", "json").output)["files"][0]
    (failure,) = entry["failures"]
    assert (failure["cell"], failure["output"], failure["expected"]) == (printed[0], True, "0.5035")
    assert nb.read_text(encoding="utf-8").split("\n")[failure["line"] - 1][failure["col"] - 1:
                                                                           failure["end_col"] - 1] == "0.5036"
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate({"files": [entry]}, documented_schema())


def test_show_unknown_lists_each_lines_unread_numbers_on_one_line(tmp_path):
    """The Korean LaTeX note leaves 292 numbers unread (matrix sizes and one-hot rows of another example): one
    line per line of the note (32), each the note's unread numbers in order, the same as the JSON's list."""
    stem = CORPUS / "heldout2" / "ko_latex_bmatrix_assumed_weights"
    note = copy_note(stem, tmp_path)
    text = run("check", note, "--scenario", stem.with_suffix(".toml"), "--show-unknown").output
    shown = [ln.split(": not understood: ") for ln in text.splitlines() if ": not understood: " in ln]
    entry = json.loads(run("check", note, "--scenario", stem.with_suffix(".toml"), "--show-unknown", "--format",
                           "json").output)["files"][0]
    grouped: dict[int, list[str]] = {}
    for u in entry["unknown"]:
        grouped.setdefault(u["line"], []).append(u["text"])
    assert [(f"{note}:{ln}", " ".join(t)) for ln, t in sorted(grouped.items())] == [tuple(s) for s in shown]
    assert entry["not_understood"] == sum(map(len, grouped.values())) > 4 * len(shown)


# --- a hand-written note checked by the pre-commit hook -----------------------------------------------------------

def test_a_hand_written_note_with_the_documented_config_front_matter_is_checked_not_skipped(tmp_path):
    """docs/course.md's pre-commit section: a hand-written note with no config is skipped (the hook "Passed" with
    its 2 wrong numbers); with the front matter the section shows, ``--skip-no-config`` checks it: torch's 0.503
    and 1.255 (the blog's own scenario, whose q, k, v the example front matter writes)."""
    tokens = MarkdownIt().parse((ROOT / "docs" / "course.md").read_text(encoding="utf-8"))
    (shown,) = [t.content for t in tokens if t.type == "fence" and t.info.strip() == "markdown"
                and t.content.startswith("---\nconfig:")]
    front = shown[:shown.index("---\n", 4) + 4]
    body = BLOG.with_suffix(".md").read_text(encoding="utf-8")
    bare, with_config = tmp_path / "bare.md", tmp_path / "with_config.md"
    bare.write_text(body, encoding="utf-8")
    with_config.write_text(front + body, encoding="utf-8")
    res = run("check", "--skip-no-config", bare)
    assert res.exit_code == 0 and res.output == f"{bare}: skipped (no config)\n"
    res = run("check", "--skip-no-config", with_config)
    assert res.exit_code == 1
    assert [ln.split(": published ")[1] for ln in res.output.splitlines() if "published" in ln] == [
        "0.505, expected 0.503", "1.256, expected 1.255"]


def test_skipped_notes_are_in_the_json_document_and_the_github_log(tmp_path):
    """``--skip-no-config`` in CI: the skipped note was absent from the JSON document and silent in GitHub's log,
    as if it had passed."""
    bare = tmp_path / "bare.md"
    bare.write_text(BLOG.with_suffix(".md").read_text(encoding="utf-8"), encoding="utf-8")
    clean = tmp_path / "clean.md"
    shutil.copy(ROOT / "examples" / "notes" / "hand-2x2.en.md", clean)
    res = run("check", "--skip-no-config", bare, clean, "--format", "json")
    doc = json.loads(res.output)
    assert res.exit_code == 0 and doc["files"][0] == {"file": str(bare), "skipped": "no config"}
    jsonschema = pytest.importorskip("jsonschema")
    jsonschema.validate(doc, documented_schema())
    res = run("check", "--skip-no-config", bare, "--format", "github")
    assert [parse_workflow_command(ln)[:2] for ln in res.output.splitlines()] == [("notice", {"file": str(bare)})]


def test_a_percentage_is_published_and_expected_with_its_sign(tmp_path):
    """The Vietnamese Colab note's weight table in percent (torch: row "anh" 29.2%, 41.6%, 29.2%, sum 100.0%; row
    "em" 10.8%): the message said ``published 29.4, expected 29.2%``; the number is ``29.4%`` where the JSON's
    columns point, and --fix writes ``29.2%`` there."""
    stem = CORPUS / "heldout14" / "vi_colab_einsum_row_vectors_percent"
    note = copy_note(stem, tmp_path)
    res = run("check", note, "--scenario", stem.with_suffix(".toml"))
    percents = [ln.split(": ", 1)[1] for ln in res.output.splitlines() if "%" in ln]
    assert percents == ["attention weights: published 29.4%, expected 29.2%",
                        "row sum of attention weights: published 100.2%, expected 100.0%",
                        "attention weights: published 44.6%, expected 10.8%"]
    entry = json.loads(run("check", note, "--scenario", stem.with_suffix(".toml"), "--format", "json").output)
    lines = note.read_text(encoding="utf-8").split("\n")
    for f in entry["files"][0]["failures"]:
        assert lines[f["line"] - 1][f["col"] - 1:f["end_col"] - 1] == f["published"]
    run("check", note, "--scenario", stem.with_suffix(".toml"), "--fix")
    assert "| anh | 29.2% | 41.6% | 29.2% | 100.0% |" in note.read_text(encoding="utf-8").split("\n")


# --- the number finder is the regex it replaced -------------------------------------------------------------------

def _regex_occurrences(line: str, text: str) -> list[tuple[int, int]]:
    """fix._occurrences as it was (698e2f9): one regex compiled per number."""
    sign = r"[-−–]\s?" if text.startswith("-") else ""
    rx = re.compile(r"(?<![\w.])" + sign + re.escape(text.lstrip("-")) + r"(?![\w]|\.\d)")
    return [m.span() for m in rx.finditer(line)]


def test_the_number_finder_finds_what_its_regex_found():
    """``fix._occurrences`` finds numbers with ``str.find`` (compiling a regex per number made the columns of a
    4,800-number note cost more than checking it): the same spans as the regex on lines of digits, signs,
    separators, Unicode digits and letters."""
    hypothesis = pytest.importorskip("hypothesis")
    st = hypothesis.strategies
    from attnwalk.check.fix import _occurrences

    @hypothesis.settings(max_examples=3000, deadline=None, derandomize=True)
    @hypothesis.given(st.text("0123456789.,-−– \t%a_é²٣&|[](\u2028", max_size=16),
                      st.text("0123456789.,%", min_size=1, max_size=4), st.booleans())
    def same(line, digits, signed):
        text = "-" + digits if signed else digits
        assert _occurrences(line, text) == _regex_occurrences(line, text)

    same()
