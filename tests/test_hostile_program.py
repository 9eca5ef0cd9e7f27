"""Numbers published as code, wrapped in hostile structure (hostile round 13): the right literals of
test_check_program's note (expected values from torch) in CRLF, CR-only, BOM, tilde and long fences, blockquotes,
list items, tab indents, NUL bytes, decorators, walruses, f-strings, ``exec``, ``1e999`` and complex literals,
lone surrogates, unclosed fences before them: none is called wrong, every one that is still a python block is
verified, and one miscopied digit is still found where it is."""

from __future__ import annotations

import pytest

from attnwalk.check import check_text, unix_text

torch = pytest.importorskip("torch", reason="expected values come from torch; pip install torch (CI does)")

from test_check_program import SCENARIO, _note, _truth  # noqa: E402  (after the skip: it imports torch)

NOTE = _note(_truth())
VERIFIED = 50  # the note's literal numbers (test_check_program counts them from the AST)


def _fences(text: str, mark: str) -> str:
    return text.replace("```python", mark + "python").replace("```\n", mark + "\n")


# name -> the note wrapped; every wrapper keeps the python blocks python blocks
WRAPPED = {
    "crlf": lambda t: unix_text(t.replace("\n", "\r\n")),
    "crlf_raw": lambda t: t.replace("\n", "\r\n"),
    "cr_only": lambda t: t.replace("\n", "\r"),
    "bom": lambda t: "\ufeff" + t,
    "tilde_fences": lambda t: _fences(t, "~~~"),
    "four_backtick_fences": lambda t: _fences(t, "````"),
    "blockquote": lambda t: "".join("> " + line + "\n" for line in t.split("\n")),
    "list_item": lambda t: "- item\n\n" + "".join("  " + line + "\n" for line in t.split("\n")),
    "indented_three": lambda t: "".join("   " + line + "\n" for line in t.split("\n")),
    "tab_indents": lambda t: t.replace("    [", "\t["),
    "nul_in_a_comment": lambda t: t.replace("import torch", "import torch  # \x00"),
    "decorator_walrus_fstring_exec": lambda t: t.replace("import torch\n", (
        "import torch\n@torch.no_grad()\ndef f(x):\n    return (y := x)\nz = f'{1e999:.2f} {-0.0}'\n"
        "exec('W_Q = 1')\n")),
    "inf_complex_negative_zero": lambda t: t.replace("d_k = 2", "d_k = 2\nbig = 1e999 + 2j\nneg = -0.0"),
    "escaped_lone_surrogate": lambda t: t.replace("import torch", "import torch\ns = '\\ud800'"),
    "semicolons": lambda t: t.replace("d_k = 2", "d_k = 2; pass"),
    "spaces_around_the_info": lambda t: t.replace("```python", "```   python   extra"),
}


@pytest.mark.parametrize("name", sorted(WRAPPED))
def test_right_literals_in_hostile_structure_are_never_wrong(name):
    report = check_text(WRAPPED[name](NOTE), SCENARIO)
    assert report.failure_lines() == []
    assert len(report.verified) == VERIFIED


@pytest.mark.parametrize("name", ["crlf_raw", "cr_only", "tilde_fences", "blockquote", "tab_indents",
                                  "decorator_walrus_fstring_exec"])
def test_a_miscopied_digit_in_hostile_structure_is_found(name):
    x00 = f"{_truth()['x'][0, 0].item():.2f}"  # X's first cell as the note prints it
    text = WRAPPED[name](NOTE)
    at = text.index("X = np.array([") + text[text.index("X = np.array(["):].index(x00)
    wrong = text[:at] + "9" + text[at + 1:]
    report = check_text(wrong, SCENARIO)
    assert [(r.text, r.failure()[1]) for r in report.wrong] == [("9" + x00[1:], x00)]
