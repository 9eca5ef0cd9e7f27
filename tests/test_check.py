"""attnwalk check: labelled values and arithmetic claims against independent truths.

Truths come from PyTorch (the seed's numbers), exact math (arithmetic claims) and mutation
(a changed digit in a generated note must be reported on its line, and nothing else).
"""

from __future__ import annotations

import math
import os
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from attnwalk.api import walk
from attnwalk.check import CheckError, check_file, check_text
from attnwalk.check.labels import Ref, cell_label
from attnwalk.cli import main
from attnwalk.render import render

SEED000 = Path("/work/shared/seeds/000_1990ceb7e4aac7cb.md")
SEED_OPTS = {"h": 3, "w": 3, "heads": 2, "seed": 42}


def note(**opts) -> str:
    t = walk(**opts)
    return render(t, "md", t.config["lang"])


# ---------------------------------------------------------------- our own notes

CONFIGS = [
    dict(h=3, w=3, heads=2, seed=42, pe_on="o"),
    dict(h=3, w=3, heads=2, seed=42, pe_on="v", lang="en"),
    dict(h=2, w=3, dim=8, heads=2, attn_ratio=1.0, seed=3, input="normal", decimals=6),
    dict(h=5, w=4, dim=4, heads=1, seed=7, input="randint", lang="en"),
    dict(h=2, w=2, dim=4, heads=2, batch=2, seed=1, pe_on="o"),
]


@pytest.mark.parametrize("opts", CONFIGS, ids=lambda o: "-".join(f"{k}{v}" for k, v in o.items()))
def test_generated_note_has_no_wrong_number(opts):
    r = check_text(note(**opts))
    assert r.failure_lines() == []
    assert len(r.verified) > 300
    # a handful of prose figures (e.g. the BatchNorm fold factor) may stay unread; integers of
    # prose (sizes, step numbers) are counted as not understood too, so the ratio is over decimals
    dec = [u for u in r.recs if "." in u.text]
    assert len([u for u in r.unknown if "." in u.text]) <= 0.03 * len(dec), [(u.line, u.text) for u in r.unknown]


def _mutate_last_digit(s: str) -> str:
    d = int(s[-1])
    return s[:-1] + str(d + 1 if d < 9 else d - 1)


@pytest.mark.parametrize("opts", [CONFIGS[0], CONFIGS[2], CONFIGS[3]], ids=["yolo-3x3", "keydim2", "elided-en"])
def test_a_changed_digit_is_reported_on_its_line(opts):
    """Mutation over every line: round k changes the k-th checked number of each line (its last digit)."""
    text = note(**opts)
    lines = text.split("\n")
    checked: dict[int, list[str]] = {}
    for r in check_text(text).recs:
        if r.checks:
            checked.setdefault(r.line, []).append(r.text.lstrip("-").rstrip("…"))
    candidates = {}
    for n, texts in checked.items():
        spans, line = [], lines[n - 1]
        for t in dict.fromkeys(texts):
            found = list(re.finditer(rf"(?<![\w.]){re.escape(t)}(?![\w]|\.\d)", line))
            # unambiguous: every printed occurrence of this text on the line is a checked number
            if found and len(found) == texts.count(t):
                spans.extend(found)
        if spans:
            candidates[n] = sorted(spans, key=lambda m: m.start())
    assert sum(len(v) for v in candidates.values()) > 500
    rounds = max(len(v) for v in candidates.values())
    for k in sorted({0, 2, rounds - 1}):
        new = list(lines)
        mutated = set()
        for n, spans in candidates.items():
            if k < len(spans):
                m = spans[k]
                line = new[n - 1]
                new[n - 1] = line[:m.start()] + _mutate_last_digit(m.group(0)) + line[m.end():]
                mutated.add(n)
        r = check_text("\n".join(new))
        reported = {int(x.split(":")[1]) for x in r.failure_lines()}
        missed = sorted(mutated - reported)
        assert not missed, [new[n - 1][:100] for n in missed[:5]]
        # a mutated operand may also make its claim's result (the next line of a worked sum) disagree
        assert all(n in mutated or n - 1 in mutated or n - 2 in mutated for n in reported)


def test_front_matter_weights_are_used_not_redrawn():
    text = note(h=2, w=2, seed=5, pe_on="o")
    # another seed in the config, same stored weights: the note still checks
    changed = text.replace('"seed": 5', '"seed": 6', 1)
    assert check_text(changed).failure_lines() == []
    # overriding the seed on the command line redraws the weights: numbers disagree
    assert check_text(text, {"seed": 6}).wrong


def test_check_never_modifies_the_file(tmp_path):
    p = tmp_path / "n.md"
    p.write_text(note(h=2, w=2, seed=1), encoding="utf-8")
    before = (p.read_bytes(), os.stat(p).st_mtime_ns)
    check_file(p)
    assert (p.read_bytes(), os.stat(p).st_mtime_ns) == before


# ---------------------------------------------------------------- arithmetic claims

PLAIN = "# t\n\n"


def _verdicts(body: str) -> tuple[list[str], int]:
    r = check_text(PLAIN + body, dict(h=2, w=2, seed=1))
    return r.failure_lines(), len(r.verified)


@pytest.mark.parametrize("claim, ok", [
    ("$1 / 7.436563656 \\approx 0.134471$", True),  # 1/7.436563656 = 0.1344706...
    ("$1 / 7.436563656 \\approx 0.134366$", False),  # the seed's value
    ("`exp(0.5751) ≈ 1.7773`", True),  # e^0.5751 = 1.77731
    ("`exp(0.5751) ≈ 1.7771`", False),
    ("$2 + 2 \\cdot e^2 = 16.778…$", True),  # 16.7781121978...
    ("$2 + 2 \\cdot e^2 = 16.779…$", False),
    ("tổng = 2 + 2·7.389056099 = 16.778112198", True),
    ("`(0.5000)(0.2500) + (0.1000)(0.2000) = 0.145`", True),
    ("`(0.5000)(0.2500) + (0.1000)(0.2000) = 0.146`", False),
    # one-decimal operands carry +-0.05 each: 0.146 is then within their rounding
    ("`(0.5)(0.25) + (0.1)(0.2) = 0.146`", True),
    # operands printed rounded: -0.5008 * -1.1924 = 0.59715 exactly, but -0.50075.. * -1.19235..
    # spans 0.597069..0.597239, so the printed 0.5971 is consistent and must not be flagged
    ("```\nx = -0.5008 * [-1.1483, -1.1924]\n  = [0.5751, 0.5971]\n```", True),
    ("```\nx = -0.5008 * [-1.1483, -1.1924]\n  = [0.5751, 0.5985]\n```", False),
    ("`key_dim = int(head_dim * attn_ratio) = int(2 * 0.5) = 1`", True),
    ("`head_dim = dim // num_heads = 4 // 2 = 3`", False),
])
def test_arithmetic_claims(claim, ok):
    fails, verified = _verdicts(claim + "\n")
    assert (fails == []) is ok, fails
    assert verified >= 1


def test_arithmetic_failure_line_format():
    fails, _ = _verdicts("line one\n\n$1 / 7.436563656 \\approx 0.134366$\n")
    assert fails == ["<note>:5: 1 / 7.436563656: published 0.134366, expected 0.134471"]


# ---------------------------------------------------------------- seed 000 against PyTorch


def _torch_truth(pe_on: str) -> dict[str, np.ndarray]:
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    torch.manual_seed(42)
    w_qkv = torch.empty(8, 4, 1, 1).normal_(0, 0.02)
    w_proj = torch.empty(4, 4, 1, 1).normal_(0, 0.02)
    w_pe = torch.empty(4, 1, 3, 3).normal_(0, 0.02)
    x = torch.arange(1, 37, dtype=torch.float32).reshape(1, 4, 3, 3)
    qkv = F.conv2d(x, w_qkv)
    q, k, v = qkv.view(1, 2, 4, 9).split([1, 1, 2], dim=2)
    s = q.transpose(-2, -1) @ k
    a = s.softmax(dim=-1)
    o = (v @ a.transpose(-2, -1)).view(1, 4, 3, 3)
    pe = F.conv2d(v.reshape(1, 4, 3, 3) if pe_on == "v" else o, w_pe, padding=1, groups=4)
    out = F.conv2d(o + pe, w_proj)
    return {"S_0": s[0, 0].numpy(), "S_1": s[0, 1].numpy(), "A_0": a[0, 0].numpy(), "A_1": a[0, 1].numpy(),
            **{f"O[:,{c},:,:]": o[0, c].numpy() for c in range(4)},
            **{f"PE[:,{c},:,:]": pe[0, c].numpy() for c in range(4)},
            **{f"Out[:,{c},:,:]": out[0, c].numpy() for c in range(4)}}


def _seed_matrices(text: str):
    """(label, [(line, printed)]) for each bmatrix of the seed: an independent small reader."""
    lines = text.split("\n")
    out, cur, rows = [], None, []
    for n, line in enumerate(lines, start=1):
        m = re.search(r"(\\text\{(?:PE|Out)\}\[:,\d,:,:\]|O\[:,\d,:,:\]|[SA]_\d) =\s*$", line)
        if m:
            cur, rows = m.group(1).replace("\\text{", "").replace("}", ""), []
            continue
        if cur and "\\end{bmatrix}" in line:
            out.append((cur, rows))
            cur = None
        elif cur and "&" in line:
            rows.append([(n, v) for v in re.findall(r"-?\d+\.\d+", line)])
    return out


@pytest.mark.skipif(not SEED000.exists(), reason="seed notes not available")
@pytest.mark.parametrize("pe_on", ["o", "v"])
def test_seed000_flags_exactly_the_numbers_pytorch_disagrees_with(pe_on):
    text = SEED000.read_text(encoding="utf-8")
    truth = _torch_truth(pe_on)
    r = check_file(SEED000, {**SEED_OPTS, "pe_on": pe_on})
    flagged = Counter((x.split(":")[1], x.split("published ")[1].split(",")[0]) for x in r.failure_lines())
    disagreeing: Counter = Counter()
    n_compared = 0
    for label, rows in _seed_matrices(text):
        ref = truth[label]
        for i, row in enumerate(rows):
            for j, (line, printed) in enumerate(row):
                n_compared += 1
                if abs(float(printed) - float(ref[i, j])) > 0.5e-4 + 1e-7:
                    disagreeing[(str(line), printed)] += 1
    matrix_lines = {str(line) for _, rows in _seed_matrices(text) for row in rows for line, _ in row}
    assert {k: v for k, v in flagged.items() if k[0] in matrix_lines} == dict(disagreeing)
    assert n_compared > 250
    # the worked row: 0.5971, 0.6192 printed where PyTorch gives 0.5972, 0.6193
    assert any(x.endswith("published 0.5971, expected 0.5972") and ":231:" in x for x in r.failure_lines())
    # Tổng ≈ 17.4908 sums the exponentials e^{S_0[0, j]}: PyTorch's sum is 17.5009
    s = float(np.exp(truth["S_0"][0].astype(np.float64)).sum())
    assert abs(s - 17.5009) < 1e-4
    assert any(":310:" in x and "published 17.4908, expected 17.5009" in x for x in r.failure_lines())
    pe_lines = {x for x in r.failure_lines() if ": PE[" in x or ": Out[" in x}
    assert bool(pe_lines) == (pe_on == "v")


@pytest.mark.skipif(not SEED000.exists(), reason="seed notes not available")
def test_seed000_cli_exit_code_and_format(capsys):
    rc = main(["check", str(SEED000), "--h", "3", "--w", "3", "--heads", "2", "--seed", "42", "--pe-on", "o"])
    out = capsys.readouterr().out.splitlines()
    assert rc == 1
    assert re.fullmatch(rf"{re.escape(str(SEED000))}:\d+: .+: published -?[\d.…]+, expected -?[\d.]+", out[0])
    assert re.fullmatch(r".*: \d+ verified, \d+ wrong, \d+ not understood", out[-1])


# ---------------------------------------------------------------- command line


def test_cli_clean_note_exits_0(tmp_path, capsys):
    p = tmp_path / "n.md"
    p.write_text(note(h=2, w=2, seed=1), encoding="utf-8")
    assert main(["check", str(p)]) == 0
    assert "0 wrong" in capsys.readouterr().out


def test_cli_no_config_is_one_line_exit_2(tmp_path, capsys):
    p = tmp_path / "hand.md"
    p.write_text("# a hand note\n\n$1 + 1 = 2$\n", encoding="utf-8")
    assert main(["check", str(p)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no config" in err[0]
    # the same note checks with render options
    assert main(["check", str(p), "--h", "2", "--w", "2"]) == 0


def test_cli_missing_file_exit_2(tmp_path, capsys):
    assert main(["check", str(tmp_path / "nope.md"), "--h", "2"]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_bad_front_matter_is_an_error():
    with pytest.raises(CheckError):
        check_text("---\nconfig: [unclosed\n---\n# x\n")


def test_math_sanity_of_reference_values():
    # the arithmetic-claim truths above, recomputed with the standard library
    assert round(1 / 7.436563656, 6) == 0.134471
    assert round(math.exp(0.5751), 4) == 1.7773
    assert math.floor((2 + 2 * math.e**2) * 1000) / 1000 == 16.778


# ---------------------------------------------------------------- sdpa / mha notes, seed 004

SCENARIOS = Path(__file__).resolve().parent.parent / "examples" / "scenarios"
SEED004 = Path("/work/shared/seeds/004_2311b208f99d33c7.md")


def _scenario(name: str, **extra) -> dict:
    from attnwalk.scenario import load_scenario

    return {**load_scenario(SCENARIOS / f"{name}.toml"), **extra}


@pytest.mark.parametrize("name, lang", [("hand-2x2", "vi"), ("hand-2x2", "en"), ("toi-di-hoc-causal", "vi"),
                                        ("cross-attention", "en"), ("mha-seed-002", "vi"), ("mha-seed-002", "en")])
def test_sequence_notes_check_clean_and_mutations_are_caught(name, lang):
    text = note(**_scenario(name, lang=lang))
    r = check_text(text)
    assert r.failure_lines() == [] and [u for u in r.unknown if "." in u.text] == [], \
        [(u.line, u.text) for u in r.unknown]
    # every checked matrix/list number: its last digit changed is reported on its line
    lines = text.split("\n")
    by_line: dict[int, list[str]] = {}
    for rec in r.recs:
        if rec.checks and "." in rec.text:
            by_line.setdefault(rec.line, []).append(rec.text.lstrip("-"))
    new, mutated = list(lines), set()
    for n, texts in by_line.items():
        t = texts[0]
        found = list(re.finditer(rf"(?<![\w.]){re.escape(t)}(?![\w]|\.\d)", lines[n - 1]))
        if len(found) == texts.count(t):
            m = found[0]
            new[n - 1] = lines[n - 1][:m.start()] + _mutate_last_digit(t) + lines[n - 1][m.end():]
            mutated.add(n)
    assert len(mutated) > 20
    reported = {int(x.split(":")[1]) for x in check_text("\n".join(new)).failure_lines()}
    assert mutated <= reported


@pytest.mark.skipif(not SEED004.exists(), reason="seed notes not available")
def test_seed004_flags_its_wrong_alphas_with_its_own_scenario(capsys):
    rc = main(["check", str(SEED004), "--scenario", str(SCENARIOS / "hand-2x2.toml")])
    out = capsys.readouterr().out.splitlines()
    assert rc == 1
    # truth: row i has scores [0, i+1, 0, i+1], so α = 1/(2 + 2e^(i+1)) or e^(i+1)/(2 + 2e^(i+1))
    text = SEED004.read_text(encoding="utf-8").split("\n")
    expected_flags = set()
    for n, line in enumerate(text, start=1):
        for m in re.finditer(r"α\(p(\d)→p(\d)\)[^*\n]*\*\*(\d\.\d+)\*\*", line):
            i, j, printed = int(m.group(1)), int(m.group(2)), m.group(3)
            z = math.exp(i + 1)
            truth = (z if j % 2 else 1.0) / (2 + 2 * z)
            if abs(float(printed) - truth) > 0.5e-6:
                expected_flags.add((n, printed, f"{truth:.6f}"))
    assert len(expected_flags) == 16
    got = set()
    for x in out:
        m = re.match(rf"{re.escape(str(SEED004))}:(\d+): α\(p\d→p\d\): published ([\d.]+), expected ([\d.]+)", x)
        if m and int(m.group(1)) < 270:
            got.add((int(m.group(1)), m.group(2), m.group(3)))
    assert got == expected_flags
    # the α table (line 275-278) is flagged too, and the correct arithmetic 2 + 2·7.389056099 = 16.778112198 is not
    assert any(x.startswith(f"{SEED004}:275: ") for x in out)
    assert not any(f"{SEED004}:241: " in x for x in out)


def test_skip_no_config_for_pre_commit(tmp_path, capsys):
    hand = tmp_path / "README.md"
    hand.write_text("# readme\n\nNothing to check: 0.5\n", encoding="utf-8")
    ours = tmp_path / "n.md"
    ours.write_text(note(h=2, w=2, seed=1), encoding="utf-8")
    assert main(["check", "--skip-no-config", str(hand), str(ours)]) == 0
    out = capsys.readouterr().out
    assert f"{hand}: skipped (no config)" in out and "0 wrong" in out
    assert "\n1 & 2 \\\\\n" in ours.read_text(encoding="utf-8")
    bad = ours.read_text(encoding="utf-8").replace("\n1 & 2 \\\\\n", "\n1 & 3 \\\\\n", 1)
    ours.write_text(bad, encoding="utf-8")
    assert main(["check", "--skip-no-config", str(hand), str(ours)]) == 1


def test_pre_commit_hooks_file_is_valid():
    import yaml

    hooks = yaml.safe_load((Path(__file__).resolve().parent.parent / ".pre-commit-hooks.yaml").read_text())
    ids = {h["id"]: h for h in hooks}
    assert ids["attnwalk-check"]["entry"].startswith("attnwalk check")
    assert ids["attnwalk-build-check"]["pass_filenames"] is False
    assert {"id", "name", "entry", "language"} <= set(ids["attnwalk-check"])


def test_pe_wording_against_pe_on_is_a_note_not_a_failure():
    body = "# hand\n\nThen $O' = O + \\text{PE}(O)$.\n"
    r = check_text(body, dict(h=2, w=2, pe_on="v"))
    assert r.note_lines() == ["<note>:3: note: the text applies PE to O (O' = O + PE(O)) but the config has "
                              "pe_on = v; check with --pe-on o for the text's semantics"]
    assert r.wrong == []
    assert check_text(body, dict(h=2, w=2, pe_on="o")).note_lines() == []


def test_a_caption_names_the_bare_list_that_follows():
    # the truth from the weights by hand, not the engine's scores: heads=1, key_dim = int(4 * 0.5) = 2,
    # so the qkv channels are [q0, q1, k0, k1, v0..v3]
    w = walk(h=2, w=2, heads=1, seed=3)["w_qkv"][:, :, 0, 0]
    x = np.arange(1, 17, dtype=np.float64).reshape(4, 4)  # (C, N): the ramp input
    q, k = w[0:2] @ x, w[2:4] @ x
    row = [float(q[:, 1] @ k[:, j]) for j in range(4)]
    good = ", ".join(f"{v:.4f}" for v in row)
    bad = ", ".join(f"{v + 0.001:.4f}" for v in row)
    for values, n_wrong in ((good, 0), (bad, len(row))):
        text = f"# x\n\nHàng 1 của $S_0$:\n\n```\n[{values}]\n```\n"
        r = check_text(text, dict(h=2, w=2, heads=1, seed=3))
        assert len(r.wrong) == n_wrong and len(r.verified) == len(row) - n_wrong
        # each failure names its own cell of the captioned row
        assert [x.split(": published")[0].split(":6: ")[1] for x in r.failure_lines()] == \
            [f"S_0[1, {j}]" for j in range(n_wrong)]


def _random_configs(n: int, seed: int):
    import random

    rnd = random.Random(seed)
    out = []
    while len(out) < n:
        variant = rnd.choice(["yolo", "yolo", "sdpa", "mha"])
        dim = rnd.choice([4, 8])
        o = dict(variant=variant, dim=dim, heads=rnd.choice([1, 2]), seed=rnd.randint(0, 10**6),
                 batch=rnd.choice([1, 2]), input=rnd.choice(["ramp", "randint", "normal"]),
                 lang=rnd.choice(["vi", "en"]), decimals=rnd.choice([2, 4, 6]), init_std=rnd.choice([0.02, 0.5]))
        if variant == "yolo":
            o.update(h=rnd.randint(1, 5), w=rnd.randint(1, 5), attn_ratio=rnd.choice([0.25, 0.5, 1.0]),
                     pe_on=rnd.choice("ov"), rng=rnd.choice(["torch", "numpy"]))
        else:
            o["tokens"] = rnd.randint(1, 5)
        if variant == "sdpa":
            o.update(source=rnd.choice(["direct", "project"]), mask=rnd.choice(["none", "causal", "padding:1"]),
                     mask_fill=rnd.choice(["-inf", "-1e9", "-10000"]))
        try:
            walk(**o)
        except ValueError:
            continue
        out.append(o)
    return out


@pytest.mark.parametrize("opts", _random_configs(8, 2026), ids=lambda o: f"{o['variant']}-{o['seed']}")
def test_random_generated_notes_are_fully_understood(opts):
    r = check_text(note(**opts))
    assert r.failure_lines() == []
    assert [u for u in r.unknown if "." in u.text] == [], [(u.line, u.text) for u in r.unknown]


def test_cross_attention_key_value_table_rows_are_checked():
    """Rows m0, m1, ... of the key/value input table are x_kv's rows: a changed digit is caught."""
    md = note(variant="sdpa", seed=262, lang="en", decimals=6, input="normal", tokens=3, dim=4, heads=1,
              kv_tokens=4, source="columns")
    r = check_text(md)
    assert r.failure_lines() == [] and [u for u in r.unknown if "." in u.text] == []
    x_kv = walk(variant="sdpa", seed=262, decimals=6, input="normal", tokens=3, dim=4, heads=1, kv_tokens=4,
                source="columns")["x_kv"][0]
    printed = f"{x_kv[1, 0]:.6f}"
    row = next(line for line in md.splitlines() if line.startswith("| m1 |"))
    assert printed in row
    changed = printed[:-1] + str((int(printed[-1]) + 1) % 10)
    bad = md.replace(row, row.replace(printed, changed, 1))
    failures = check_text(bad).failure_lines()
    assert len(failures) == 1 and f"published {changed}" in failures[0]


def test_a_score_table_whose_headers_carry_cross_attention_keys_values_calls_no_right_number_wrong():
    """Seed 004's score table written for cross-attention (``| | K(m0) = 0.779760 | ...``, rows ``Q(p0) = ...``,
    cells S = q kᵀ): a header that carries a key's value is no token table's K column, so its cells (right
    scores) are not judged as K(p0), K(p1) as they were; check calls none of them wrong."""
    opts = dict(variant="sdpa", seed=262, lang="en", decimals=6, input="normal", tokens=3, dim=4, heads=1,
                kv_tokens=4, source="columns")
    x, x_kv = (walk(**opts)[nm][0] for nm in ("x", "x_kv"))
    q, k = x[:, 0], x_kv[:, 1]  # q_cols = [0], k_cols = [1] (the columns source's default), d_k = 1
    s = np.outer(q, k)  # S = Q Kᵀ by hand, d_k = 1
    table = "| | " + " | ".join(f"K(m{j}) = {k[j]:.6f}" for j in range(4)) + " |\n|---|" + "---|" * 4 + "\n"
    table += "".join(f"| Q(p{i}) = {q[i]:.6f} | " + " | ".join(f"{v:.6f}" for v in s[i]) + " |\n" for i in range(3))
    r = check_text(note(**opts) + "\n" + table)
    assert r.failure_lines() == []


def test_many_digit_results_allow_for_float64_rounding_of_the_engine():
    """12 decimals of ~1e3 values is 16 significant digits: a correct note must still pass."""
    md = note(variant="yolo", seed=830, lang="en", decimals=12, input="ramp", batch=2, h=5, w=6, dim=12, heads=2,
              attn_ratio=2)
    r = check_text(md)
    assert r.failure_lines() == [] and [u for u in r.unknown if "." in u.text] == []


def test_a_wrong_cell_of_a_matrix_or_a_row_is_named_by_its_place():
    """`S_0: published 7` left the reader to search a 3×3 matrix: a failure names the cell, `S_0[1, 1]`
    (a whole matrix) or `A_0[2, 1]` (a row printed as `A_0[2, :] = [..]`), at the place the number was planted."""
    from attnwalk.render import render_markdown

    note = render_markdown(walk(variant="sdpa", tokens=3, mask="causal", lang="en"), "en")
    matrix = re.search(r"S_0 =\n\\begin\{bmatrix\}\n(.*\n)(.*\n)", note)
    row = matrix.group(2).split(" & ")
    planted = str(int(row[1]) + 1)
    bad = note[:matrix.start(2)] + " & ".join([row[0], planted, *row[2:]]) + note[matrix.end(2):]
    line = note[:matrix.start(2)].count("\n") + 1
    assert check_text(bad).failure_lines() == [f"<note>:{line}: S_0[1, 1]: published {planted}, expected {row[1]}"]
    weights = re.search(r"A_0\[2, :\] = \[([^\]]*)\]", note)
    cells = weights.group(1).split(", ")
    bad = note[:weights.start(1)] + ", ".join([cells[0], "0.5000", *cells[2:]]) + note[weights.end(1):]
    (failure,) = check_text(bad).failure_lines()
    assert f": A_0[2, 1]: published 0.5000, expected {cells[1]}" in failure
    assert cell_label(Ref("x", "X", ()), ()) == "X"  # a scalar: its own name
    assert cell_label(Ref("q", "Q[:, 0]", (None, 0)), (3,)) == "Q[3, 0]"
    assert cell_label(Ref("q", "Q[0]", (0,)), (3,)) == "Q[0]"  # no free axis for the place: the name as printed
