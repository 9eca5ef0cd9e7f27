"""check_text, the public API, reads CRLF and CR text as check_file and the CLI do: the same verdicts, line by line,
for LF, CRLF and CR versions of course notes and held-out notes (whose truth is torch's)."""
from pathlib import Path

import pytest

from attnwalk.check import check_file, check_text
from attnwalk.scenario import load_scenario

ROOT = Path(__file__).resolve().parent.parent
NOTES = [ROOT / "examples/notes/hand-2x2.en.md", ROOT / "examples/notes/sdpa-cross-attention.vi.md"]
HELDOUT = [ROOT / "tests/corpus/heldout13/vi_forum_decimal_comma_semicolon_lists.md",
           ROOT / "tests/corpus/heldout14/vi_exam_solution_index_notation_sums.md",
           ROOT / "tests/corpus/heldout14/en_sphinx_rst_list_table_grid_table.md"]


def _verdicts(report) -> list[tuple]:
    return [(r.line, r.text, r.status) for r in report.recs]


def _options(path: Path) -> dict | None:
    toml = path.with_suffix(".toml")
    return load_scenario(toml) if toml.exists() else None


@pytest.mark.parametrize("path", NOTES + HELDOUT, ids=lambda p: p.stem)
def test_crlf_and_cr_text_get_the_files_verdicts(path):
    assert path.exists(), path
    text = path.read_text(encoding="utf-8")
    assert "\r" not in text
    opts = _options(path)
    want = _verdicts(check_file(path, opts))
    assert any(s == "verified" for _, _, s in want)
    for end in ("\n", "\r\n", "\r"):
        raw = text.replace("\n", end)
        got = check_text(raw, opts, str(path))
        assert _verdicts(got) == want, repr(end)


def test_a_bom_and_crlf_give_the_same_failures_as_the_file(tmp_path):
    path = HELDOUT[1]
    opts = _options(path)
    want = check_file(path, opts)
    assert want.wrong  # the planted mistakes (torch: S_23 = 2, the weight 0.50349)
    raw = "\ufeff" + path.read_text(encoding="utf-8").replace("\n", "\r\n")
    got = check_text(raw, opts, str(path))
    assert got.failure_lines() == want.failure_lines()
