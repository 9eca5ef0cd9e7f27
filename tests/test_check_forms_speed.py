"""The hand-written forms and the merge give the same verdicts through their fast paths (issue 12, item 4).

``check.human``, ``check.forms``, ``check.shapes`` and ``check._merge_human`` read every note faster by
computing each block reader once per text, searching each size pattern only in the runs of text that can
hold its matches, reading titles only for title counts, and matching numbers to the Checker's records with
C-level maps. Each fast path is exact: here each one is compared with the plain code it replaces (written
out below as it was), on every note we have, on copies with wrong numbers planted in them, and on random
texts made of the characters the patterns read. Every number's line, text, status, labels and fix must
agree, and the failure lines must be the same bytes.
"""

from __future__ import annotations

import random
import re
import time
from bisect import bisect_right
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest
from conftest import record_fields
from hostile import assert_grows_linearly

import attnwalk.check as C
from attnwalk import inputs
from attnwalk.check import forms, human, notations, shapes
from attnwalk.check.checker import NumRec
from attnwalk.check.source import FRONT_RE, is_program
from attnwalk.check.source import fences as source_fences
from attnwalk.scenario import load_scenario

ROOT = Path(__file__).resolve().parent.parent
SEEDS = Path("/work/shared/seeds")
SEED_OPTS = dict(h=3, w=3, heads=2, seed=42, pe_on="o")


def _notes() -> list[tuple[str, str, dict | None]]:
    out = [(p.name, p.read_text(encoding="utf-8"), None) for p in sorted((ROOT / "examples/notes").glob("*.md"))]
    for p in sorted((ROOT / "tests/corpus").rglob("*.md")):
        toml = p.with_suffix(".toml")
        out.append((p.name, p.read_text(encoding="utf-8"), load_scenario(toml) if toml.exists() else None))
    hand2 = load_scenario(ROOT / "examples/scenarios/hand-2x2.toml")
    for p in sorted((ROOT / "examples/handwritten").glob("*.md")):
        out.append((p.name, p.read_text(encoding="utf-8"), hand2 if p.name.startswith("004_") else SEED_OPTS))
    return [n for n in out if n[2] is not None or FRONT_RE.match(n[1])]


NOTES = _notes()
NUM = re.compile(r"(?<![\w.])\d+\.\d+")


def planted(text: str, variant: int) -> str:
    """``text`` with the last digit of every ``step``-th decimal after the front matter changed (6 at most)."""
    step = (7, 3, 11)[variant]
    m = FRONT_RE.match(text)
    nums = [n for n in NUM.finditer(text) if n.start() >= (m.end() if m else 0)]
    chars = list(text)
    for n in nums[variant % step::step][:6]:
        chars[n.end() - 1] = str((int(chars[n.end() - 1]) + 4 + variant) % 10)
    return "".join(chars)


# ---------------------------------------------------------------- the plain code the fast paths replace


def ref_cells(text: str, base: int):
    cells = [human.Cell(m.group(0), base + m.start()) for m in human.NUM_RE.finditer(text)]
    rest = human.NUM_RE.sub("", text)
    if re.search(r"[A-Za-z\u00c0-\u1ef9\u4e00-\u9fff]", rest) and not re.fullmatch(r"[\s,&;\\()\[\]]*", rest):
        return None
    return cells


def ref_numbers_lists(text: str):
    out = []
    for m in human.NUM_RE.finditer(text):
        if human._SUB_BEFORE.search(text, max(0, m.start() - 3), m.start()):
            continue
        out.append((m.start(), m.group(0).rstrip(".")))
    return [p for p, _ in out], [t for _, t in out]


def ref_in_runs(rx, text, anchor, outside):
    return rx.finditer(text)


def ref_titles(text: str):
    for m in shapes._COUNT.finditer(text):
        if text.startswith("#", human.line_start(text, m.start())):
            yield m


def ref_lines_with(text: str, rx):
    for ls, line in shapes._lines(text):
        if "=" in line and list(shapes._VALS.finditer(line)):
            yield ls, line


def ref_lines_holding(text: str, mark: str):
    pos = 0
    for line in text.split("\n"):
        yield pos, line
        pos += len(line) + 1


def _mag(text: str) -> str:
    return text.lstrip("-−–").rstrip("%…").removesuffix("...")


def ref_merge(body: str, trace, recs: list[NumRec], failed: list[str]) -> list[NumRec]:
    hits = human.find(body, trace, failed)
    slots: dict = {}
    for r in recs:
        slots.setdefault((r.line, _mag(r.text)), []).append(r)
    seen: dict = {}
    out = list(recs)
    line, last = 1, 0
    # a fence's content without its blockquote marks (``> res = 0.`` is the Python ``res = 0.``), as source.fences gives
    # it to the fast path
    code = [m.span() for m in re.finditer(r"^(?:>[ \t]?)*```[ \t]*(\w+)[^\n]*\n(.*?)^(?:>[ \t]?)*```", body,
                                          re.S | re.M)
            if is_program(m.group(1).lower(), re.sub(r"^(?:>[ \t]?)*", "", m.group(2), flags=re.M))]
    code_starts = [a for a, _ in code]
    for pos, text in zip(*ref_numbers_lists(body)):
        line += body.count("\n", last, pos)
        last = pos
        k = bisect_right(code_starts, pos) - 1
        if pos not in hits and k >= 0 and pos < code[k][1]:
            continue
        key = (line, _mag(text))
        k = seen.get(key, 0)
        seen[key] = k + 1
        have = slots.get(key, [])
        hit = hits.get(pos)
        if k < len(have):
            rec = have[k]
            if hit is not None and rec.status == "unknown":
                rec.checks.append((hit.ok, hit.label, hit.expected))
                rec.fix = None if hit.ok or hit.fix is None else (hit.fix, "label")
            continue
        rec = NumRec(line, text.replace("−", "-").replace("–", "-"))
        if hit is not None:
            rec.checks.append((hit.ok, hit.label, hit.expected))
            rec.fix = None if hit.ok or hit.fix is None else (hit.fix, "label")
        out.append(rec)
    return sorted(out, key=lambda r: r.line)


def ref_latex_blocks(text: str):
    """``human.latex_blocks`` with every row read on its own by ``_cells`` (no shared scan of numbers)."""
    out = []
    for begin, base, stop in human._environments(text):
        rows, pos = [], 0
        for part in re.split(r"(\\\\)", text[base:stop]):
            if part != "\\\\" and part.strip():
                cells = human._cells(part.replace("&", " "), base + pos)
                if cells is None:
                    rows = None
                    break
                if cells:
                    rows.append(cells)
            pos += len(part)
        if rows:
            lo = max(human.line_start(text, begin) - 200, 0)
            seg_start = max(text.rfind("$$", lo, begin), text.rfind("\\end{", lo, begin))
            label = text[max(seg_start, lo):begin]
            if (formula := notations.formula_label(text, begin, label)) is not None:  # ``O = softmax(..)V = [..]``
                label = formula
            elif not human.tensor_of(label) and not human._SCALAR_FACTOR.search(label):
                named = notations.product_letters(text, begin)  # a product written out on its line (heldout11)
                label = human._label_before(text, begin) if named is None else named
            out.append(human.Block(rows, begin, label))
    return out


def ref_list_rows(text: str) -> list:
    """``forms.list_rows`` reading every line of the note (code blocks too)."""
    out = []
    for a, b in [(0, len(text))]:
        run, pos = [], a
        for line in text[a:b].split("\n") + [None]:
            lists = []
            if line is not None and "[" in line and "[[" not in line and "]]" not in line:
                for m in forms._LIST.finditer(line):
                    if m.start() and (line[m.start() - 1].isalnum() or line[m.start() - 1] in "_])}"):
                        continue
                    cells = human._cells(m.group(1).replace(",", " "), pos + m.start(1))
                    if cells and len(cells) >= 2:
                        lists.append((pos + m.start(), cells))
            bare = bool(lists) and re.fullmatch(r"\s*(?:[-*+>]\s*)?`?\s*", line[:lists[0][0] - pos]) is not None
            if lists and run and bare and len(lists) == len(run[0][2]):
                run.append((pos, line, lists))
            else:
                if len(run) >= 2:
                    out.extend(forms._columns(text, run, human.Block, human._label_before, human.tensors_of))
                run = [(pos, line, lists)] if lists else []
            if line is not None:
                pos += len(line) + 1
    return out


def ref_grid_blocks(text: str) -> list:
    """``human.grid_blocks`` with every line's cells read on its own by ``_cells``, each code block's lines (and
    where they lie) from markdown-it's fence tokens (and MkDocs admonitions' fences, ``human._admonition_fences``)."""
    out = []
    blocks = []
    for f in source_fences(text):
        starts = [0] + [m.end() for m in re.finditer(r"\r\n?|\n", text)]
        first_line, past = f.lines
        lines = f.content.split("\n")[:-1]
        # each content line ends its line of the note (container marks and the fence's indent before it)
        ends = [starts[k + 1] - (2 if text[starts[k + 1] - 2:starts[k + 1]] == "\r\n" else 1)
                if k + 1 < len(starts) else len(text) for k in range(first_line + 1, first_line + 1 + len(lines))]
        if all(text[e - len(ln):e] == ln for ln, e in zip(lines, ends)):
            blocks.append((f.start, [(e - len(ln), ln) for ln, e in zip(lines, ends)] + [(f.end, "")]))
    for a, b, at, content in human._admonition_fences(text):
        lines = content.split("\n")[:-1]
        starts = [at] + [m.end() for m in re.compile("\n").finditer(text, at)]
        ends = [starts[k + 1] - 1 for k in range(len(lines))]
        if all(text[e - len(ln):e] == ln for ln, e in zip(lines, ends)):
            blocks.append((a, [(e - len(ln), ln) for ln, e in zip(lines, ends)] + [(b, "")]))
    for _, placed in sorted(blocks):
        rows, names, first = [], [], None
        for base, line in placed:
            pos = 0
            body = line.split("#", 1)[0]
            name = None
            nm = human._ROW_NAME.match(body)
            if nm and not human._EQ_OR_CALL.search(body, 0, nm.end()) and human._DIGIT.search(body, nm.end()):
                name = nm.group(1).strip()
                cells_text, off = body[nm.end():], nm.end()
            else:
                cells_text, off = body, 0
            cells = ref_cells(cells_text.replace(",", " ").replace("[", " ").replace("]", " "), base + pos + off) \
                if "[[" not in line and "]]" not in line else None
            if cells and len(cells) >= 2 and (not rows or len(cells) == len(rows[0])):
                if not rows:
                    first = base + pos
                rows.append(cells)
                names.append(name)
            else:
                if len(rows) >= 2:
                    out.append(human.Block(rows, first, human._label_before(text, first), names))
                rows, names = [], []
                if cells and len(cells) >= 2:
                    first, rows, names = base + pos, [cells], [name]
    return out


def ref_head_at(text: str, pos: int) -> int:
    hs = re.findall(r"(?:[Hh]ead|头)\s*_?(\d+)", text[max(0, pos - 600):pos])
    return int(hs[-1]) if hs else 0


def ref_one_based_heads(text: str) -> bool:
    return bool(re.search(r"[Hh]ead\s*1\b", text)) and not re.search(r"[Hh]ead\s*0\b", text)


def ref_judge(cells, exp, label, text, sure=False, gated=True, most=False):
    """``human._judge`` printing every expected value and fix as it judges (no lazy ``_Judged``)."""
    flat = exp.reshape(-1)
    if len(flat) != len(cells):
        return None
    ordinary = flat[np.isfinite(flat) & (np.abs(flat) < 1e4)]
    scale = float(np.max(np.abs(ordinary))) if ordinary.size else 0.0
    values = [human._value(c.text) for c in cells]
    oks = [human._near(v, dec, float(e), scale) for (v, dec), e in zip(values, flat)]
    if gated and not (sure and len(oks) >= 4) and (sum(oks) * 2 < len(oks) + most or (len(oks) <= 2 and not all(oks))):
        return None
    out = []
    for c, e, ok, (_, dec) in zip(cells, flat, oks, values):
        line = ref_line_of(text, c.start)
        dec = max(dec, 0)
        if c.text.endswith("%") and np.isfinite(e):
            shown = human.fmt(float(e) * 100, max(dec - 2, 0)) + "%"
        else:
            shown = human.fmt(float(e), dec) if np.isfinite(e) else str(e)
        out.append(human.Hit(line, c.text.replace("−", "-").replace("–", "-"), ok, label, shown,
                             None if ok else human._fix_text(c.text, float(e))))
    return out


def ref_line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def ref_named_output_rows(text: str, trace, hits: dict, foreign: list) -> None:
    """``notations.named_output_rows`` reading every line (its words first looked for in the whole note)."""
    low = text.lower()
    if not any(w in low for w in notations._OUTPUT_WORDS) or notations._OUTPUT_N.search(text) is None:
        return
    lines = text.split("\n")
    starts = human._line_starts(text)
    for k, line in enumerate(lines):
        lists = list(notations._FLAT_LIST.finditer(line))
        if len(lists) != 1:
            continue
        named = [m for m in notations._OUTPUT_N.finditer(line) if not lists[0].start() <= m.start() < lists[0].end()]
        if not named and notations._RESULT_LIST.match(line):
            for a in range(k - 1, max(k - notations.ROW_REACH, 0) - 1, -1):
                named = list(notations._OUTPUT_N.finditer(lines[a]))
                if named or re.match(r"^\s*(?:#+\s|\d+\.\s|\*\*)", lines[a]):
                    break
        if len(named) != 1:
            continue
        cells = ref_cells(lists[0].group("body").replace(",", " "), starts[k] + lists[0].start("body"))
        row = int(named[0].group("n")) - 1
        if not cells or row < 0 or any(c.start in hits for c in cells):
            continue
        res = notations._sure_judge(cells, ["out"], (1, len(cells)), trace, text, starts[k], foreign, label_row=row)
        for c, h in zip(cells, res or []):
            hits[c.start] = h


def ref_inline_key_values(text: str, trace, hits: dict, foreign: list) -> None:
    """``forms.inline_key_values`` reading every line."""
    queries = [str(w).lower() for w in (trace.config.get("labels") or [])]
    keys = [str(w).lower() for w in (trace.config.get("kv_labels") or trace.config.get("labels") or [])]
    if not keys:
        return
    pos = 0
    for line in text.split("\n"):
        pairs = [m for m in forms._PAIR.finditer(line) if m.group("w").lower() in keys]
        if len(pairs) >= 2 and len({m.group("w").lower() for m in pairs}) == len(pairs):
            before = line[:pairs[0].start()]
            fm = [m for m in forms._FOR.finditer(before) if m.group("w").lower() in queries]
            row = queries.index(fm[-1].group("w").lower()) if fm else 0 if len(queries) <= 1 else None
            cells = [human.Cell(m.group("num"), pos + m.start("num")) for m in pairs]
            if row is not None and not any(c.start in hits for c in cells):
                for cand in [c for n in human.tensors_of(before) for c in human._candidates(n, trace)]:
                    exp = human._expected(trace, cand, 0)
                    if exp is None or exp.ndim != 2 or row >= exp.shape[0] or exp.shape[1] != len(keys):
                        continue
                    want = np.array([exp[row, keys.index(m.group("w").lower())] for m in pairs])
                    res = human._judge(cells, want, cand, text)
                    if res is not None:
                        for c, h in zip(cells, res):
                            hits[c.start] = h
                        break
        pos += len(line) + 1


def ref_bracket_blocks(text: str) -> list:
    """``human.bracket_blocks`` pairing brackets from a scan of both kinds at once, for every note."""
    out = []
    closing, stack = {}, []
    for b in re.finditer(r"[\[\]]", text):
        if b.group() == "[":
            stack.append(b.start())
        elif stack:
            closing[stack.pop()] = b.start()
    for m in human._OPEN2.finditer(text):
        i = closing.get(m.start())
        if i is None or i - m.start() >= 20000:
            continue
        body = text[m.start() + 1:i]
        rows = []
        for r in human._INNER.finditer(body):
            cells = ref_cells(r.group(1).replace(",", " "), m.start() + 1 + r.start(1))
            if cells is None or not cells:
                rows = None
                break
            rows.append(cells)
        if rows and all(len(r) == len(rows[0]) for r in rows):
            out.append(human.Block(rows, m.start(), human._label_before(text, m.start())))
    kept, reach = [], -1
    for b in out:
        if reach <= b.start:
            kept.append(b)
        reach = max(reach, b.rows[-1][-1].start)
    return kept


PLAIN_FORMS = {"named_output_rows": ref_named_output_rows, "inline_key_values": ref_inline_key_values}


MEMOIZED = [(human, n) for n in ("latex_blocks", "bracket_blocks", "grid_blocks", "table_blocks", "flat_lists")]
MEMOIZED += [(forms, n) for n in ("blocks", "list_rows", "call_arguments")]
MEMOIZED += [(human, "_vectors")]


@contextmanager
def plain(monkeypatch):
    """Every fast path of the forms and the merge replaced by the plain code above (readers recomputed on
    every call, no prefilter, every line and every number walked in Python)."""
    with monkeypatch.context() as mp:
        for mod, name in MEMOIZED:
            mp.setattr(mod, name, getattr(mod, name).__wrapped__)
        mp.setattr(forms, "BLOCK_FORMS", [getattr(f, "__wrapped__", f) for f in forms.BLOCK_FORMS])
        mp.setattr(human, "_row_vectors", human._row_vectors.__wrapped__)
        mp.setattr(human, "_vectors", human._vector_matches)
        mp.setattr(human, "_cells", ref_cells)
        mp.setattr(human, "_numbers", ref_numbers_lists)
        mp.setattr(shapes, "_in_runs", ref_in_runs)
        mp.setattr(shapes, "_titles", ref_titles)
        mp.setattr(shapes, "_lines_with", ref_lines_with)
        mp.setattr(forms, "_lines_holding", ref_lines_holding)
        mp.setattr(forms, "_lines_matching", lambda text, rx: ref_lines_holding(text, ""))
        mp.setattr(C, "_merge_human", ref_merge)
        mp.setattr(human, "latex_blocks", ref_latex_blocks)
        mp.setattr(forms, "list_rows", ref_list_rows)
        mp.setattr(notations, "_any_wrong", lambda recs: True)  # settle always looks at every record
        mp.setattr(human, "grid_blocks", ref_grid_blocks)
        mp.setattr(human, "bracket_blocks", ref_bracket_blocks)
        mp.setattr(human, "_vec_tails", human._VEC_TAIL.finditer)
        mp.setattr(human, "_head_at", ref_head_at)
        mp.setattr(human, "_one_based_heads", ref_one_based_heads)
        mp.setattr(human, "_judge", ref_judge)
        mp.setattr(human, "_cells_in", lambda text, a, b: ref_cells(text[a:b].replace(",", " "), a))
        mp.setattr(human, "line_matches", lambda rx, text, *marks: rx.finditer(text))
        mp.setattr(shapes, "_named", lambda text, wanted=None: shapes._NAMED.finditer(text))
        mp.setattr(forms, "AFTER_FORMS", [PLAIN_FORMS.get(f.__name__, f) for f in forms.AFTER_FORMS])
        draw = inputs.draw
        mp.setattr(inputs, "draw", lambda cfg, given=frozenset(): draw(cfg))  # every weight drawn, then replaced
        yield


def report(text: str, options: dict | None):
    C._TRACES.clear()
    human._MEMO.clear()
    rep = C.check_text(text, options, path="note.md")
    return record_fields(rep), rep.failure_lines(), rep.summary()


@pytest.mark.parametrize("name,text,options", NOTES, ids=[n[0] for n in NOTES])
def test_fast_paths_give_the_plain_code_s_reports(name, text, options, monkeypatch):
    """On each note and on three copies with wrong numbers planted: the same records, failure lines and summary."""
    for variant in (None, 0, 1, 2):
        t = text if variant is None else planted(text, variant)
        fast = report(t, options)
        with plain(monkeypatch):
            ref = report(t, options)
        assert fast[2] == ref[2], (name, variant)
        assert fast[1] == ref[1], (name, variant)
        assert fast[0] == ref[0], (name, variant)


def test_planted_numbers_are_found():
    """The planted copies are wrong where planted: a generated note's planted numbers are all reported."""
    name, text, options = next(n for n in NOTES if n[0].endswith(".md") and n[2] is None)
    clean = report(text, options)
    assert "0 wrong" in clean[2]
    bad = report(planted(text, 1), options)
    assert bad[1] and not clean[1]
    assert all(": published " in line for line in bad[1])


# ---------------------------------------------------------------- each fast path on random texts

ALPHABET = ["0", "1", "2", "4", "7", "9", ".", ",", " ", " ", "\n", "-", "−", "%", "^", "_", "{", "}", "(", ")",
            "[", "]", "&", "\\\\", "$", "`", ":", "=", "|", "x", "×", "e", "q", "#", "# ", "shape", "shape (",
            "torch.Size([", "has", "có", "entries", "phần tử", "rows (queries)", "keys (columns)", "cột (key)",
            "heads", "head", "keys", "queries", "khóa", "truy vấn", "Q", "K_0", "W_q", "b_q", " is ", "\\times",
            "\\in\\mathbb{R}^{", "∈ ℝ^", "(B, N, C) = (", "a", "é", "\t", "\r", "\u2028", "5.", "0.25", "1e-3"]


def _texts(n: int, seed: int) -> list[str]:
    rnd = random.Random(seed)
    return ["".join(rnd.choice(ALPHABET) for _ in range(rnd.randint(0, 60))) for _ in range(n)]


def _spans(matches) -> list:
    return [(m.span(), m.groups()) for m in matches]


SIZE_PATTERNS = [(shapes._NAMED, shapes._SIZES, shapes._OUT_NAMED), (shapes._MAT, shapes._TIMES, shapes._OUT_MAT),
                 (shapes._ENTRIES, shapes._ENTRY_WORD, shapes._OUT_ENTRIES),
                 (shapes._ROWS, shapes._ROW_WORD, shapes._OUT_ROWS),
                 (shapes._SHAPE_OF, shapes._SHAPE_WORD, shapes._OUT_SHAPE)]


def test_size_patterns_in_runs_find_every_match():
    texts = _texts(6000, 12) + [t for _, t, _ in NOTES]
    for rx, anchor, outside in SIZE_PATTERNS:
        for t in texts:
            assert _spans(shapes._in_runs(rx, t, anchor, outside)) == _spans(rx.finditer(t)), (rx.pattern, t)
    # the cases the runs are cut for: a match ending at the run's last character, the next one a "." or "&"
    for t in ("Q is 4 × 4.", "Q is 4 × 4.5", "A_0 ∈ ℝ^{4×4}&", "`q`: (1, 2, 3)&(4, 5)", "x.shape = torch.Size([1, 4])",
              "b_q has 4 entries.", "4 rows (queries) × 4 columns (keys)", "shape (1, 2)$"):
        for rx, anchor, outside in SIZE_PATTERNS:
            assert _spans(shapes._in_runs(rx, t, anchor, outside)) == _spans(rx.finditer(t)), (rx.pattern, t)


def test_titles_and_lines_find_what_every_line_finds():
    texts = _texts(6000, 13) + [t for _, t, _ in NOTES]
    texts += ["# 4 heads\n# 2 keys", "# 4\n\n   heads\nx", "## 3 queries 2 keysX", "# 1 khóa\n4 heads", "#4 head"]
    for t in texts:
        human._PER_TEXT = (None, {})
        assert _spans(shapes._titles(t)) == _spans(ref_titles(t)), t
        assert list(shapes._lines_with(t, shapes._VALS_LINE)) == list(ref_lines_with(t, None)), t
        assert [x for x in forms._lines_holding(t, "[") if "[" in x[1]] == \
            [x for x in ref_lines_holding(t, "[") if "[" in x[1]], t


ROW_PARTS = ["row 2 (", "Row 1 (cat)", ")", '"cat"', "“dog”", "'a'", "第2行", "：", ": ", " is ", " = ", "[", "]", "`",
             "0.5", "-1", "−2", "3%", "7.", ",", " ", "  ", "\n", "\t", "word", "token 3 (x)", "[0.5, 0.25]", "[1 2 3]",
             "[0.1,0.2", "[-1,\n2]", '"cat": [0.5, 1]', "row 1 (a) [2, 3]", "[4%, 5%]", "[1 ,", ",2]"]


LIST_PARTS = ["[0.5, 0.25]", "[1, 2, 3]", "[0.1, 0.2]", "[4,5]", "[[1, 2]]", "A_0[0, 1]", "Q = ", " K = ", "- ", "> ",
              "`", "q1 = ", "\n", "\n", "\n\n", "```\n", "```python\n", "~~~\n", "> ```\n", " ", "x", "[", "]", "0.3"]


def test_list_rows_read_only_lines_holding_a_list_as_every_line():
    """``list_rows`` visits only the lines holding a "[" (a line between two of them ends a run, as one without
    a list does): the blocks of reading every line, on random texts and every note."""
    rnd = random.Random(18)
    texts = ["".join(rnd.choice(LIST_PARTS) for _ in range(rnd.randint(0, 40))) for _ in range(20000)]
    found = 0
    for t in texts + [t for _, t, _ in NOTES]:
        human._PER_TEXT = (None, {})
        ref = ref_list_rows(t)
        assert forms.list_rows.__wrapped__(t) == ref, t
        found += len(ref)
    assert found > 500  # the random texts do hold such matrices


def test_word_rows_lines_are_every_line_with_a_row():
    """``word_rows`` reads only the lines where a ``[n, n`` list starts: every line on which its pattern finds a
    row is one of them (random texts of its words, and every note)."""
    rnd = random.Random(17)
    texts = ["".join(rnd.choice(ROW_PARTS) for _ in range(rnd.randint(0, 40))) for _ in range(20000)]
    found = 0
    for t in texts + [t for _, t, _ in NOTES]:
        human._PER_TEXT = (None, {})
        every = [x for x in ref_lines_holding(t, "") if forms._WORD_ROW.search(x[1])]
        assert every == [x for x in forms._lines_matching(t, forms._ROW_LIST) if forms._WORD_ROW.search(x[1])], t
        found += len(every)
    assert found > 500  # the random texts do hold such rows


def test_numbers_and_cells_are_the_plain_ones():
    for t in _texts(6000, 14) + [t for _, t, _ in NOTES]:
        human._PER_TEXT = (None, {})
        assert human._numbers(t) == ref_numbers_lists(t), t
        # the merge's key of a number: one strip is notations._mag's lstrip of its sign and rstrip of its "%"
        assert all(n.strip("-−–%") == n.lstrip("-−–").rstrip("%") for n in human._numbers(t)[1]), t
        assert human.numbers(t) == list(zip(*ref_numbers_lists(t))), t
        for base in (0, 17):
            assert human._cells(t, base) == ref_cells(t, base), t


LATEX_PARTS = ["0", "1.5", "-2", "−3", "4%", "1e-3", "5.", " ", "&", "\\\\", "\\\\\\", "\n", "_", "^", ".", "{", "}",
               "\\begin{bmatrix}", "\\end{bmatrix}", "\\begin{array}{cc}", "\\end{array}", "\\begin{pmatrix}",
               "\\end{pmatrix}", "$$", "A_0 = ", "\\cdots", "x", "ω", "한"]


def test_latex_rows_from_the_shared_scan_are_each_row_s_cells():
    """A matrix body without a letter takes its rows' cells from the note's one scan of numbers: the blocks
    are those of reading each row on its own, on random bodies and every note."""
    rnd = random.Random(16)
    texts = ["".join(rnd.choice(LATEX_PARTS) for _ in range(rnd.randint(0, 40))) for _ in range(20000)]
    for t in texts + [t for _, t, _ in NOTES]:
        human._PER_TEXT = (None, {})
        assert human.latex_blocks.__wrapped__(t) == ref_latex_blocks(t), t
        starts, texts_ = human._scan(t)
        assert list(zip(starts, texts_)) == [(m.start(), m.group()) for m in human.NUM_RE.finditer(t)], t


def test_readers_are_computed_once_per_text_and_never_changed():
    """A memoized reader gives the very object it gave for the same text, equal to a fresh computation; a
    text of the same characters (another object) is read afresh."""
    name, text, options = next(n for n in NOTES if n[0].startswith("000_"))
    for mod, fn in MEMOIZED:
        first = getattr(mod, fn)(text)
        assert getattr(mod, fn)(text) is first
        assert first == getattr(mod, fn).__wrapped__(text)
        other = "".join(list(text))
        assert getattr(mod, fn)(other) == first
    report(text, options)  # a whole check leaves what the readers gave as it was
    for mod, fn in MEMOIZED:
        assert getattr(mod, fn)(text) == getattr(mod, fn).__wrapped__(text)


NAMED_PARTS = ALPHABET + ["(", ")", "[", "]", "torch.Size([", ".shape", "`", "|", "$", "q", "k, v", ", ", "1, 2",
                         "(1, 2)", "x = ", "`q`: ", "qkv", "attn", "w_qkv", " | ", ":", "=", "q.shape = "]
WANTED = {"q", "k", "v", "x", "qkv", "attn", "scores", "w_qkv", "o"}


def _useful(matches) -> list:
    """The matches of _NAMED that ``shapes.claims`` reads: every name one of WANTED."""
    out = []
    for m in matches:
        names = [n.strip().strip("`") for n in m.group("names").split(",")]
        if names and all(n in WANTED for n in names):
            out.append((m.span(), m.groups()))
    return out


def test_named_sizes_searched_between_anchors_find_every_match():
    """``shapes._named`` searches _NAMED only from the last character no match holds before each tuple of sizes
    to its closing bracket (and, given names, only where the word before the sizes is one): the same matches."""
    rnd = random.Random(19)
    texts = ["".join(rnd.choice(NAMED_PARTS) for _ in range(rnd.randint(0, 40))) for _ in range(30000)]
    found = 0
    for t in texts + [t for _, t, _ in NOTES]:
        human._PER_TEXT = (None, {})
        assert _spans(shapes._named(t)) == _spans(shapes._NAMED.finditer(t)), t
        assert _useful(shapes._named(t, WANTED)) == _useful(shapes._NAMED.finditer(t)), t
        found += len(_useful(shapes._NAMED.finditer(t)))
    assert found > 500  # the random texts do hold such claims


LINE_PARTS = ["```", "```python", "~~~", "````", "\n", "\n", "> ", ">", " ", "\t", "|", "| a |", "#", "# print(x)",
              "print(", ")", "[0.5, 1]", "a", "key: [1, 2]", ":", "`", "~", "# [1, 2]  # Output 1", "1", "'k': [1,2],",
              "# tensor([[1.0, 2.0],  # row 2", "# print(w1)  # [0.5, 0.25]", "x = 1"]


def test_line_start_patterns_matched_on_the_lines_holding_their_mark():
    """``human.line_matches`` (a line-start pattern matched at the start of each line holding its mark) and
    find what the patterns' own scans find."""
    rnd = random.Random(20)
    texts = ["".join(rnd.choice(LINE_PARTS) for _ in range(rnd.randint(0, 40))) for _ in range(30000)]
    patterns = [(forms._TABLE_PREFIX, ("|",)), (notations._ENTRY, (":",)),
                (notations._ROW_COMMENT, ("#",)), (notations._PRINT_COMMENT, ("print(",))]
    found = 0
    for t in texts + [t for _, t, _ in NOTES]:
        human._PER_TEXT = (None, {})
        for rx, marks in patterns:
            got = _spans(human.line_matches(rx, t, *marks))
            assert got == _spans(rx.finditer(t)), (rx.pattern, t)
            found += len(got)
    assert found > 5000


HEAD_PARTS = ["Head", "head", "头", "ead", "H", "h", " ", "\n", "_", "0", "1", "10", "2", "x", "a", "é", "Head 1",
              "head_0", "头 2", "Head 1a", "  ", "heads 3"]


def test_heads_read_from_one_scan_as_from_each_window():
    """``human._head_at`` (the last head named in the 600 characters before an offset, from one scan of the note)
    and ``human._one_based_heads``: those of the window's own search, at every offset of random texts and notes."""
    rnd = random.Random(22)
    texts = ["".join(rnd.choice(HEAD_PARTS) for _ in range(rnd.randint(0, 300))) for _ in range(3000)]
    for t in texts + [t for _, t, _ in NOTES]:
        human._PER_TEXT = (None, {})
        assert human._one_based_heads(t) == ref_one_based_heads(t), t
        for pos in list(range(0, len(t) + 1, max(1, len(t) // 150))) + list(range(max(0, len(t) - 8), len(t) + 1)):
            assert human._head_at(t, pos) == ref_head_at(t, pos), (t, pos)


CELL_PARTS = ALPHABET + ["[", "]", "(", ")", ",", "1.5", "-2", "e", "E", "%", "+", "x", "é", ".", "```\n",
                         "```python\n", "# c", "x1", "q:", "row 1 =", "|", "[[", "]]"]


def test_cells_from_the_shared_scan_are_each_piece_s_cells():
    """``human._cells_in`` (a list's cells from the note's one scan where its ends are characters no number reads)
    and ``grid_blocks`` (code-block rows so taken): what reading each piece on its own gives."""
    rnd = random.Random(23)
    for _ in range(20000):
        t = "".join(rnd.choice(CELL_PARTS) for _ in range(rnd.randint(0, 50)))
        human._PER_TEXT = (None, {})
        for _ in range(4):
            a = rnd.randint(0, len(t))
            b = rnd.randint(a, len(t))
            assert human._cells_in(t, a, b) == ref_cells(t[a:b].replace(",", " "), a), (t, a, b)
        human._PER_TEXT = (None, {})
        assert human.grid_blocks.__wrapped__(t) == ref_grid_blocks(t), t
    for _, t, _ in NOTES:
        human._PER_TEXT = (None, {})
        assert human.grid_blocks.__wrapped__(t) == ref_grid_blocks(t)


GRID_NAMES = ["", "", "S_0[0, 0] = ", "row 1: ", "q1 ", "+ ", "x1", "a", "# c ", "[", "p0 | ", "Head 2 ", "−", "é ",
              "(", "=", "k: ", "[[", "x = ("]
GRID_NUMS = ["0.5", "-1", "−2", "3%", "1e-3", "7.", "12", "(0.5)", "[1", "2]", "a", ",", "_1", "^2", ".5"]
GRID_SEPS = [" ", ", ", "  ", ")(", " + ", "\t", "|", " # note", ""]


def test_grids_of_code_blocks_are_the_plain_ones():
    """Code blocks of rows of numbers, a row name, a comment or words among them: ``grid_blocks`` (cells from the
    note's one scan where a row starts at a line's start or after a name where no number starts) finds the
    blocks of reading every line on its own."""
    rnd = random.Random(26)

    def line():
        return rnd.choice(GRID_NAMES) + "".join(rnd.choice(GRID_NUMS) + rnd.choice(GRID_SEPS)
                                                for _ in range(rnd.randint(0, 4)))

    found = 0
    for _ in range(20000):
        t = "".join(rnd.choice(["text\n", "```python\n", "```\n" + "\n".join(line() for _ in range(rnd.randint(0, 6)))
                                + "\n```\n"]) for _ in range(rnd.randint(1, 4)))
        human._PER_TEXT = (None, {})
        ref = ref_grid_blocks(t)
        assert human.grid_blocks.__wrapped__(t) == ref, t
        found += len(ref)
    assert found > 300


BRACKET_PARTS = ["[", "]", "[[", "]]", "[0.5, 1]", "[1 2]", ",", " ", "\n", "0.25", "-3", "x", "= ", ": ", "→ ",
                 "np.array(", "torch.tensor(", "(", ")", "q1", "[[1, 2], [3, 4]]", "é"]


def test_brackets_and_vectors_from_literal_scans_are_the_plain_ones():
    """``bracket_blocks`` (brackets paired from the note's scans of "[" and "]") and ``_vec_tails`` (one scan
    per separator of ``name = [..]``): what the single scans give, on random texts and every note."""
    rnd = random.Random(25)
    texts = ["".join(rnd.choice(BRACKET_PARTS) for _ in range(rnd.randint(0, 40))) for _ in range(30000)]
    found = 0
    for t in texts + [t for _, t, _ in NOTES]:
        human._PER_TEXT = (None, {})
        ref = ref_bracket_blocks(t)
        assert human.bracket_blocks.__wrapped__(t) == ref, t
        assert _spans(human._vec_tails(t)) == _spans(human._VEC_TAIL.finditer(t)), t
        found += len(ref)
    assert found > 500


def test_line_prefilters_keep_every_line_that_can_name_a_row():
    """``word_rows`` without token words reads only lines with a "(" or "第" (a row number's mark); every line with
    two pairs of ``inline_key_values`` holds two "=" or ":" before a number, as its scan counts them."""
    rnd = random.Random(24)
    parts = ROW_PARTS + ["I = 0.26", ", ", "love: 0.5", "cats=-1", " = ", ":", "\t", "\u2028", "x", "(", "第"]
    for _ in range(30000):
        line = "".join(rnd.choice(parts) for _ in range(rnd.randint(0, 30))).replace("\n", " ")
        if "(" not in line and "第" not in line:
            assert all(not (m.group("n") or m.group("n2")) for m in forms._WORD_ROW.finditer(line)), line
        if len(list(forms._PAIR.finditer(line))) >= 2:
            assert len(list(forms._PAIR_SEP.finditer(line))) >= 2, line


@pytest.mark.parametrize("h,w,dim,heads,rng,input_", [(4, 4, 8, 2, "torch", "normal"), (3, 3, 4, 2, "torch", "ramp"),
                                                      (2, 3, 2, 1, "torch", "normal"), (1, 1, 2, 1, "torch", "randint"),
                                                      (3, 3, 4, 2, "numpy", "normal")])
def test_stored_weights_give_the_trace_of_drawn_ones(h, w, dim, heads, rng, input_):
    """A checked note's stored weights are not drawn (the torch stream only passes over them, the scalar path of
    fewer than 16 values drawn as it is): with any of them given, every tensor is the drawn trace's, bit for bit."""
    from itertools import combinations

    from attnwalk.api import walk

    opts = dict(h=h, w=w, dim=dim, heads=heads, rng=rng, input=input_)
    full = walk(**opts)
    names = [n for n in full.steps if n.startswith(("w_", "b_"))]
    for k in range(len(names) + 1):
        for given in combinations(names, k):
            trace = walk(weights={n: full[n] for n in given}, **opts)
            for n in full.steps:
                assert np.asarray(trace[n]).tobytes() == np.asarray(full[n]).tobytes(), (n, given)


def test_literal_led_patterns_match_as_the_plain_ones():
    """``_FLAT``, ``_TABLE_RUN`` and ``_NUM_SCAN`` start with the character every match starts with (their
    lookbehinds checked after it): the same matches as the patterns they were written from."""
    num = human.NUM
    plain_flat = re.compile(r"(?<![\[\w])\[(?P<body>\s*" + num + r"(?:\s*,\s*" + num + r")+\s*)\](?!\s*[\[,])")
    plain_table = re.compile(r"(?:^\|[^\n]*\|[ \t]*\n){3,}", re.M)
    rnd = random.Random(15)
    parts = ["[", "]", "[[", "]]", "0", "1.5", "-2", "−3", "4%", "1e-3", ",", " ", "\n", "|", "| 1 |", "|a|\n", "a",
             "x[", "_", "^", ".", "\t", "5."]
    texts = ["".join(rnd.choice(parts) for _ in range(rnd.randint(0, 30))) for _ in range(20000)]
    texts += [t for _, t, _ in NOTES]
    for t in texts:
        assert _spans(human._FLAT.finditer(t)) == _spans(plain_flat.finditer(t)), t
        assert _spans(human._TABLE_RUN.finditer(t)) == _spans(plain_table.finditer(t)), t
        assert _spans(human._NUM_SCAN.finditer(t)) == _spans(human.NUM_RE.finditer(t)), t


HOSTILE = {
    "titles": lambda k: "# 4 heads, 2 keys\n" * k,
    "titles_then_spaces": lambda k: ("# 4" + " " * 50 + "\n") * k,
    "one_long_run": lambda k: "`q`: (1, 2) " * k,
    "many_runs": lambda k: "Q is 4 × 4& (1, 2)& shape (1, 2)& b_q has 4 entries& 4 rows (queries)&" * k,
    "anchors_without_matches": lambda k: "(1, 2 × 3 shape entries (keys) " * k,
    "lists_on_lines": lambda k: "q1 = [0.5, 0.25]\n[0.1, 0.2]\n" * k,
    "prose_before_sizes": lambda k: ("word " * 20 + "q (1, 2) ") * k,
    "fences": lambda k: "```\n1 2\n" * k,
    "heads": lambda k: "Head 1 head_0 头 2 " * k,
    "comment_lines": lambda k: "# [1, 2]  # row\n" * k,
}


def _work(text: str) -> float:
    human._PER_TEXT = (None, {})
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        for rx, anchor, outside in SIZE_PATTERNS:
            list(shapes._in_runs(rx, text, anchor, outside))
        list(shapes._titles(text))
        list(shapes._lines_with(text, shapes._VALS_LINE))
        list(forms._lines_holding(text, "["))
        human._numbers(text)
        list(shapes._named(text, WANTED))
        [human._head_at(text, p) for p in range(0, len(text), 97)]
        human.code_blocks.__wrapped__(text)
        list(human.line_matches(notations._ROW_COMMENT, text, "#"))
        best = min(best, time.process_time() - start)
    return best


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_fast_paths_stay_linear(name):
    """Four times the items cost well under the sixteen times of a reader that rescans per item."""
    build = HOSTILE[name]
    _work(build(10))
    assert_grows_linearly(lambda k: _work(build(k)), 1000, 4000, floor=0.002)
