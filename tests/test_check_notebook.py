"""``attnwalk check`` on Jupyter notebooks: a real Colab notebook and Jupyter-written ones, findings placed
at the notebook file's own lines, ``--fix`` rewriting only the digits of wrong numbers in cell sources
(outputs are what the code printed), and bad notebooks refused in one line. Expected values: torch."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from hostile import assert_clean, assert_untouched, run_cli, snapshot

from attnwalk.check import check_file
from attnwalk.scenario import load_scenario

torch = pytest.importorskip("torch", reason="expected values come from torch; pip install torch (CI does)")

HERE = Path(__file__).resolve().parent / "corpus" / "notebooks"
# Source: github.com/MJMortensonWarwick/ADA, 3_1_illustrated_self_attention_.ipynb (Colab's indent-2 JSON),
# its PyTorch cells (Steps 1-8) as published; the TensorFlow bonus cells are left out.
COLAB = HERE / "en_colab_illustrated_self_attention.ipynb"
SCENARIO = HERE / "en_colab_illustrated_self_attention.toml"


def _truth() -> torch.Tensor:
    """The notebook's outputs as torch computes them: softmax(Q Kᵀ) V, no scaling, in float64."""
    s = load_scenario(SCENARIO)
    x = torch.tensor(s["x"], dtype=torch.float64)
    q, k, v = (x @ torch.tensor(s[w], dtype=torch.float64) for w in ("w_q", "w_k", "w_v"))
    return torch.softmax(q @ k.T, dim=-1) @ v


def _raw_lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")


def test_a_real_colab_notebook_is_read_and_its_rounded_outputs_are_wrong_against_torch():
    """The notebook rounds its weights "for readability" (0.0, 0.5, 0.5) and prints the outputs of those:
    [2.0000, 7.0000, 1.5000] for Output 1, where torch gives [1.9366, 6.6831, 1.5951]. Every output row of
    the printed tensor is flagged with torch's value, each finding names a line of the .ipynb file that
    holds the published number, and the scores and Q, K, V it prints right are verified."""
    report = check_file(COLAB, load_scenario(SCENARIO))
    out = _truth()
    raw = _raw_lines(COLAB)
    for r in report.recs:  # every number is placed at a line of the file that prints it
        assert r.text.lstrip("-") in raw[r.line - 1], (r.line, r.text, raw[r.line - 1])
    printed = [i for i, ln in enumerate(raw, 1) if '"tensor([[2.0000, 7.0000, 1.5000],\\n"' in ln]
    assert len(printed) == 1  # the stream output of the last cell
    start = printed[0]
    for row in range(3):
        wrong = {r.text: r.failure()[1] for r in report.wrong if r.line == start + row}
        for c in range(3):
            want = f"{float(out[row, c]):.4f}"
            shown = re.findall(r"\d\.\d{4}", raw[start + row - 1])[c]
            if shown != want:
                assert wrong[shown] == want
    scores_line = next(i for i, ln in enumerate(raw, 1) if '"        [ 4., 16., 12.],\\n"' in ln)
    assert [r.status for r in report.recs if r.line == scores_line] == ["verified"] * 3


def test_fix_rewrites_wrong_numbers_in_sources_only_and_leaves_every_other_byte(tmp_path):
    """--fix on a copy: the lines it changes are cell sources (the comments restating the outputs), each
    number now torch's at its printed digits; outputs are left and the report says so; the file still
    loads as the same notebook with only those strings changed."""
    nb = tmp_path / COLAB.name
    shutil.copy(COLAB, nb)
    before = nb.read_text(encoding="utf-8")
    report = check_file(nb, load_scenario(SCENARIO), fix="write")
    after = nb.read_text(encoding="utf-8")
    assert report.diff and after != before
    assert any("cell outputs left as they are" in t for _, t in report.notes)
    old, new = before.split("\n"), after.split("\n")
    assert len(old) == len(new)
    changed = [i for i in range(len(old)) if old[i] != new[i]]
    a, b = json.loads(before), json.loads(after)
    for cell_a, cell_b in zip(a["cells"], b["cells"]):
        assert cell_a.get("outputs") == cell_b.get("outputs")  # outputs untouched
        assert set(cell_a) == set(cell_b) and cell_a["metadata"] == cell_b["metadata"]
    out = _truth()
    comment = next(i for i in changed if "# Output 1" in new[i])
    assert re.findall(r"\d\.\d{4}", new[comment]) == [f"{float(x):.4f}" for x in out[0]]
    for i in changed:  # only digits changed: the line is the same once its numbers are masked
        mask = re.compile(r"\d+(\.\d+)?")
        assert mask.sub("#", old[i]) == mask.sub("#", new[i])
    # the numbers a second check still calls wrong are in outputs (and a reader's misattributions the
    # held-out tests track): none in the comment lines --fix rewrote
    assert not {r.line for r in check_file(nb, load_scenario(SCENARIO)).wrong} & {i + 1 for i in changed}


def _jupyter(cells: list[dict], meta: dict | None = None, ascii_only: bool = False) -> str:
    """A notebook as Jupyter writes it: indent 1, keys sorted (a code cell's outputs before its source)."""
    nb = {"cells": cells, "metadata": meta or {}, "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=ascii_only) + "\n"


CAUSAL = {"variant": "sdpa", "tokens": 3, "dim": 2, "heads": 1, "mask": "causal", "mask_fill": "-10000",
          "labels": ["Tôi", "đi", "học"], "q": [[1, 0], [0, 1], [1, 1]], "k": [[1, 0], [1, 1], [0, 2]],
          "v": [[1, 0], [0, 1], [2, 2]]}


def _causal_weights() -> np.ndarray:
    q, k = (torch.tensor(CAUSAL[n], dtype=torch.float64) for n in ("q", "k"))
    s = (q @ k.T) / 2 ** 0.5
    s = s.masked_fill(torch.triu(torch.ones(3, 3, dtype=torch.bool), 1), -10000.0)
    return torch.softmax(s, dim=-1).numpy()


@pytest.mark.parametrize("ascii_only", [False, True], ids=["utf8", "ascii-escaped"])
def test_jupyter_notebook_with_metadata_config_is_placed_and_fixed_exactly(tmp_path, ascii_only):
    """Vietnamese text before the numbers (written as \\u escapes or not), the config in metadata.attnwalk,
    one wrong weight in a markdown cell and one in a code comment: each reported at its own file line,
    --fix writes torch's digits there and nothing else (a single string of the file changes per line)."""
    a = _causal_weights()
    row = [f"{x:.4f}" for x in a[2]]
    bad = [row[0], row[1], "0.4013"]  # torch: 0.4011
    cells = [
        {"cell_type": "markdown", "id": "m1", "metadata": {},
         "source": ["## Trọng số chú ý — hàng của “học”\n", "\n",
                    f"Hàng p2 (học): $A_0[2, :] = [{', '.join(bad)}]$"]},
        {"cell_type": "code", "execution_count": 1, "id": "c1", "metadata": {},
         "outputs": [{"name": "stdout", "output_type": "stream", "text": [f"{a[1, 0]:.4f} {a[1, 1]:.4f}\n"]}],
         "source": ["attn = torch.softmax(s, -1)  # Tôi đi học\n", "print(attn)\n",
                    "# tensor([[1.0000, 0.0000, 0.0000],\n",
                    "#         [0.3303, 0.6698, 0.0000],\n",  # torch: 0.3302
                    f"#         [{row[0]}, {row[1]}, {row[2]}]])"]},
    ]
    nb = tmp_path / "bai-giang.ipynb"
    raw = _jupyter(cells, {"attnwalk": CAUSAL, "kernelspec": {"name": "python3"}}, ascii_only)
    nb.write_text(raw, encoding="utf-8")
    report = check_file(nb)
    lines = raw.split("\n")
    wrong = {(r.line, r.text, r.failure()[1]) for r in report.wrong}
    md_line = next(i for i, ln in enumerate(lines, 1) if "0.4013" in ln)
    code_line = next(i for i, ln in enumerate(lines, 1) if "0.3303" in ln)
    assert wrong == {(md_line, "0.4013", f"{a[2, 2]:.4f}"), (code_line, "0.3303", f"{a[1, 0]:.4f}")}
    assert f"{a[2, 2]:.4f}" == "0.4011" and f"{a[1, 0]:.4f}" == "0.3302"
    report = check_file(nb, fix="write")
    fixed = nb.read_text(encoding="utf-8")
    assert not report.wrong and not report.notes
    assert fixed == raw.replace("0.4013", "0.4011").replace("0.3303", "0.3302")
    assert json.loads(fixed)["cells"][0]["source"][2].endswith("0.4011]$")


def test_check_cli_on_notebooks_reports_skips_and_refuses_in_one_line(tmp_path):
    good = tmp_path / "ok.ipynb"
    good.write_text(_jupyter([{"cell_type": "markdown", "id": "a", "metadata": {},
                               "source": [f"$A_0[2, :] = [{', '.join(f'{x:.4f}' for x in _causal_weights()[2])}]$"]}],
                             {"attnwalk": CAUSAL}), encoding="utf-8")
    ans = run_cli(["check", str(good)])
    assert ans.code == 0 and ": 3 verified, 0 wrong," in ans.out
    plain = tmp_path / "plain.ipynb"
    plain.write_text(_jupyter([{"cell_type": "markdown", "id": "a", "metadata": {}, "source": ["0.5"]}]),
                     encoding="utf-8")
    ans = run_cli(["check", "--skip-no-config", str(plain)])
    assert ans.code == 0 and "skipped (no config)" in ans.out
    before = snapshot(tmp_path)
    for text, where in [("{not json", "not valid JSON"), ('{"cells": 3}', "no list of cells"),
                        ('{"cells": ' + "[" * 100_000 + "]" * 100_000 + "}", "not valid JSON"),  # nesting
                        ('{"cells": [], "nbformat": ' + "9" * 5000 + "}", "not valid JSON"),  # a 5000-digit int
                        (_jupyter([], {"attnwalk": {"heads": 0}}), "metadata.attnwalk: key heads"),
                        (_jupyter([], {"attnwalk": {"colour": 1}}), "metadata.attnwalk: unknown key 'colour'")]:
        bad = tmp_path / "bad.ipynb"
        bad.write_text(text, encoding="utf-8")
        before = snapshot(tmp_path)
        line = assert_clean(run_cli(["check", "--fix", str(bad)]), str(bad))
        assert where in line
        assert_untouched(tmp_path, before)
