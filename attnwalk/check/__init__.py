"""``attnwalk check``: verify the numbers of published notes without changing them (DESIGN §7).

The config comes from the note's YAML front matter (with its stored weights), a scenario file
or the render options; the note is read with markdown-it-py, every number is matched against
the recomputed trace (labelled values) or against its own arithmetic (claims), and each wrong
number is reported as ``FILE:LINE: label: published X, expected Y``.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import compress, repeat
from operator import attrgetter, gt, not_
from pathlib import Path

from .checker import Checker, NumRec
from .clozes import unclozed
from .code_names import raw_score_names
from .commas import as_points, as_printed
from .exponentials import tensor_exponentials
from .labels import TraceView
from .notations import entrywise_weighted_sums, rounded_weight_sums, settle
from .open_brackets import opened_lists, starred_envs
from .relations import as_approx
from .restated_scores import restated_score_exponentials
from .source import FRONT_RE, fences, forget, front_matter, is_program, segments, unescaped_lists
from .unscaled import unscaled_exponentials
from .url_latex import math_images
from .weighted_rows import weighted_value_lines

# Characters of a note's text (after its front matter) that check reads: reading is linear but not free
# (~3 s a MiB of a dense generated note on the development machine), so a larger note, which would take
# minutes, is refused rather than left to look hung.
MAX_BODY = 8 * 2**20

# Options that do not change the weights: a stored note's weights stay valid under them.
WEIGHT_NEUTRAL = {"pe_on", "lang", "decimals"}


class CheckError(ValueError):
    """A note that cannot be checked (no config, bad front matter): one line for the user."""


class NoConfig(CheckError):
    """Neither front matter nor options give a config (``--skip-no-config`` skips such notes)."""


@dataclass
class Report:
    path: str
    recs: list[NumRec] = field(default_factory=list)
    notes: list[tuple[int, str]] = field(default_factory=list)  # remarks that never fail a check
    diff: str | None = None  # check --diff / --fix: the unified diff of the fixes
    source: str = ""  # the file's text as ``recs``' lines count it (columns of --format json / github), if known
    cells: dict[int, tuple[int, bool]] | None = None  # a notebook: line -> (its cell's number, in an output)

    def where(self, line: int) -> str:
        """`` (cell 4)`` / `` (cell 4, output)`` after a notebook's message: an editor shows a notebook's cells,
        not the lines of its JSON; empty for a note."""
        cell = self.cells.get(line) if self.cells else None
        return f" (cell {cell[0]}{', output' if cell[1] else ''})" if cell else ""

    def note_lines(self) -> list[str]:
        return [f"{self.path}:{line}: note: {text}" for line, text in self.notes]

    @property
    def wrong(self) -> list[NumRec]:
        return [r for r in self.recs if r.status == "wrong"]

    @property
    def verified(self) -> list[NumRec]:
        return [r for r in self.recs if r.status == "verified"]

    @property
    def unknown(self) -> list[NumRec]:
        return [r for r in self.recs if r.status == "unknown"]

    def failure_lines(self) -> list[str]:
        out = []
        for r in self.wrong:
            label, published, expected = failure_of(r, self.source)
            out.append(f"{self.path}:{r.line}: {label}: published {published}, expected {expected}"
                       f"{self.where(r.line)}")
        return out

    def summary(self) -> str:
        return (f"{self.path}: {len(self.verified)} verified, {len(self.wrong)} wrong, "
                f"{len(self.unknown)} not understood")


def failure_of(r: NumRec, source: str = "") -> tuple[str, str, str]:
    """A wrong number's label (one line, no trailing ``:``/``=``), the number as published and the value expected.
    A percentage's record may hold its digits only (``29.4`` of ``29.4%``) where its expected value has the sign:
    the message said ``published 29.4, expected 29.2%``; where ``source`` (the file's text) prints the sign after
    it, the published number is written with it, as ``--fix`` writes ``29.2%``."""
    label, expected = r.failure()
    published = r.text
    if expected.endswith("%") and not published.endswith("%") and f"{published}%" in _line(source, r.line):
        published += "%"
    return " ".join(label.split()).rstrip(":= "), published, expected


def _line(source: str, n: int) -> str:
    """Line ``n`` (1-based) of ``source``, empty past its end."""
    start = 0
    for _ in range(n - 1):
        start = source.find("\n", start) + 1
        if not start:
            return ""
    end = source.find("\n", start)
    return source[start:] if end < 0 else source[start:end]


def resolve(text: str, options: dict | None = None) -> tuple[dict, dict | None, bool, int]:
    """(config options, stored weights or None, strict, front-matter lines) for a note."""
    _nesting_guard(text)
    try:
        fm = front_matter(text)
    except ValueError as err:
        raise CheckError(str(err)) from None
    _alias_guard(fm.data)
    cfg = fm.data.get("config") if isinstance(fm.data.get("config"), dict) else None
    options = dict(options or {})
    if cfg is None and not options:
        raise NoConfig("no config: the note has no front matter config; allowed: a front matter config, "
                       "--scenario or render options")
    merged = {**(cfg or {}), **options}
    weights = None
    stored = fm.data.get("weights")
    if cfg is not None and isinstance(stored, dict) and set(options) <= WEIGHT_NEUTRAL:
        import numpy as np

        weights = {}
        for name, w in stored.items():
            if cfg.get(name) is not None:
                continue  # given exactly in the config itself (sdpa w_q, ...): the config is the source
            try:
                # stored as shortest float32 reprs: back to the float32 values, exactly
                weights[name] = np.asarray(w["data"], dtype=np.float32).astype(np.float64).reshape(w["shape"])
            except (KeyError, TypeError, ValueError):
                raise CheckError(f"front matter: weights[{str(name)[:40]!r}] is not a {{shape, data}} map; "
                                 "allowed: {shape: [rows, ...], data: [numbers]}, as many numbers as the shape holds"
                                 ) from None
    generator = str(fm.data.get("generator", ""))
    strict = generator.startswith("attnwalk") and "decimals" not in options
    return merged, weights, strict, fm.lines


# Front matter of hostile notes: libyaml's C parser recurses once per level of ``[[[[...`` (100,000
# levels crash the process), and YAML aliases let 100 bytes stand for 9**9 strings ("billion laughs").
MAX_NESTING = 100
MAX_EXPANDED = 20_000_000  # values the front matter may stand for: 5x a dim-1024 note's stored weights


def _nesting_guard(text: str) -> None:
    m = FRONT_RE.match(text)
    depth = top = 0
    for ch in re.sub(r"[^\[\]{}]+", "", m.group(1)) if m else "":
        depth += 1 if ch in "[{" else -1
        top = max(top, depth)
    if top > MAX_NESTING:
        raise CheckError(f"front matter: lists or maps nested {top} deep; allowed: YAML front matter nested at most "
                         f"{MAX_NESTING} deep")


def _alias_guard(data) -> None:
    """Count the values the front matter stands for, aliases expanded; refuse past MAX_EXPANDED."""
    seen, stack = 0, [data]
    while stack:
        node = stack.pop()
        items = node.values() if isinstance(node, dict) else node
        seen += len(items)
        if seen > MAX_EXPANDED:
            raise CheckError(f"front matter: stands for more than {MAX_EXPANDED:,} values (YAML aliases?); allowed: "
                             "plain YAML front matter")
        stack.extend(x for x in items if isinstance(x, (dict, list)))


def symbols(trace) -> dict[str, Fraction]:
    cfg, d = trace.config, trace.derived
    out: dict[str, Fraction] = {}

    def put(names, value):
        if value is None:
            return
        for n in names:
            out[n] = Fraction(value) if not isinstance(value, float) else Fraction(str(value))

    variant = cfg.get("variant", "yolo")
    if variant in ("yolo", "mha"):  # sdpa takes q, k, v as they come: no dim / heads to split
        put(("dim", "C"), cfg.get("dim"))
        put(("num_heads", "heads"), cfg.get("heads"))
        put(("head_dim",), d.get("head_dim"))
    if variant == "yolo":
        put(("attn_ratio",), cfg.get("attn_ratio"))
        put(("key_dim",), d.get("key_dim"))
        put(("nh_kd",), d.get("nh_kd"))
        put(("H",), cfg.get("h"))
        put(("W",), cfg.get("w"))
    put(("d_k",), d.get("key_dim", d.get("d_k")) or _given_dk(d.get("scale")))
    put(("N",), d.get("n"))
    put(("B",), cfg.get("batch"))
    put(("std", "init_std"), cfg.get("init_std"))
    put(("seed",), cfg.get("seed"))
    if d.get("scale") is not None:
        out["scale"] = Fraction(d["scale"])
    return out


def _given_dk(scale) -> int | None:
    """The d_k of given scores (no Q, K: a width of 0) scaled by a number the note names: 1/√d_k where that is a
    whole d_k (× 0.5 is ÷ √4); None (d_k not understood) otherwise: a d_k of 0 is no note's."""
    if not scale or not 2.0 ** -26 < abs(float(scale)) < 1:
        return None  # d_k from 2 to 2^52, exact in float64 (a scale of 1e-200 was squared to 0.0: 1 / 0.0)
    dk = 1 / float(scale) ** 2
    return round(dk) if abs(dk - round(dk)) < 1e-9 else None


def check_text(text: str, options: dict | None = None, path: str = "<note>", exact: bool = False) -> Report:
    """Check one note's text; ``options`` override its front matter (or replace it). ``exact``: decide
    every number on the exact (reference) path, as before the float-first bounds (benchmarks, tests). The text is
    read as ``unix_text`` gives it (no BOM, LF line ends), so raw CRLF or CR text gets the verdicts a file's does."""
    import gc

    text = unix_text(text)  # the one place every entry's text is normalised (check_file, notebooks, --fix)

    # Reading a note allocates hundreds of thousands of small acyclic objects (tokens, nodes, records),
    # freed by reference counting; the cycle collector would rescan them all, for a quarter of the time.
    paused = gc.isenabled()
    gc.disable()
    try:
        return _check_text(text, options, path, exact)
    finally:
        if paused:
            gc.enable()


def _check_text(text: str, options: dict | None, path: str, exact: bool) -> Report:
    from ..api import walk
    from ..errors import ConfigError

    opts, weights, strict, skip = resolve(text, options)
    try:
        trace = _walk_once(walk, opts, weights)
    except (ConfigError, TypeError) as err:
        raise CheckError(f"config: {err}") from None
    except ValueError as err:
        raise CheckError(f"weights: {err}") from None
    body = text
    if skip:
        body = "\n" * skip + text.split("\n", skip)[skip] if text.count("\n") >= skip else ""
    body = unescaped_lists(body)  # pandoc's escaped lists (\[\[..\]\]) read as the lists they render as
    body = starred_envs(opened_lists(body))  # GitBook's \[0.34, 0.22] and \begin{align\*} (open_brackets)
    body = math_images(body)  # formulas URL-encoded in image links (latex.codecogs.com) read as inline math
    body = unclozed(body)  # flash cards' clozes ({{c1::0.6698}}) read as their answers (check/clozes.py)
    body, commas = as_points(as_approx(body))  # ≒ read as ≈; a note of decimal commas (0,7071) read with points
    forget()  # (what source kept of the last note)
    segs = segments(body)
    checker = Checker(TraceView(trace, strict), symbols(trace), exact=exact)
    checker.raw_names = frozenset() if strict else raw_score_names(body)  # ``S = Q @ K.T`` in code (heldout15)
    recs = checker.run(segs)
    failed: list[str] = []  # readers of hand-written notation that raised (bugs): named in the report
    recs = _merge_human(body, trace, recs, failed)
    notes = checker.notes + [(1, f"a reader of hand-written notation failed on this note ({f}); the numbers only "
                                 "it reads are counted as not understood. This is a bug in attnwalk: please report "
                                 "it with the note") for f in failed]
    recs = settle(body, recs)  # percentages restating a decimal, 1,000s, hypotheticals: judged for what they are
    recs = rounded_weight_sums(body, trace, recs)  # a note's sums of its rounded weights: the output they restate
    recs = entrywise_weighted_sums(body, trace, recs)  # ..and such sums written entry by entry in one list
    recs = weighted_value_lines(body, trace, recs)  # ..and their products one a line: 0.4064 × [..] = [..]
    recs = tensor_exponentials(body, trace, recs)  # exp(a) = v of a printed score row: a claim about e^ŝ too
    recs = restated_score_exponentials(body, trace, recs)  # ..and of a wrong score row restated from above
    recs = unscaled_exponentials(body, trace, recs)  # e^x = v of a raw score row where the softmax scales
    return Report(path, as_printed(recs, commas), notes)


_TRACES: dict = {}  # (options, weights) -> Trace, the last one only: a large trace is hundreds of MB


def _walk_once(walk, opts: dict, weights: dict | None):
    """The trace of ``opts`` and ``weights``, computed once for consecutive notes of one config
    (``check --scenario s.toml a.md b.md``, the rechecks of ``--fix``)."""
    try:
        key = (repr(sorted(opts.items())),
               None if weights is None else tuple((k, v.shape, v.tobytes()) for k, v in sorted(weights.items())))
        hash(key)
    except (TypeError, ValueError, AttributeError):
        return walk(weights=weights, **opts)
    trace = _TRACES.get(key)
    if trace is None:
        trace = walk(weights=weights, **opts)
        _TRACES.clear()
        _TRACES[key] = trace
    return trace


def _merge_human(body: str, trace, recs: list[NumRec], failed: list[str]) -> list[NumRec]:
    """Add the hand-written forms' verdicts (``human.find``; readers that raise are added to ``failed``) to
    numbers nothing else understood, and count every other number of the note (integers too) as not understood."""
    from . import human

    hits = human.find(body, trace, failed)
    # The k-th number of the note with a given (line, magnitude) is the k-th record of the Checker with
    # them; a number past them is a new record. The per-number work is done with C-level maps (a note
    # has thousands of numbers), Python only for the keys below.
    starts, texts = human._numbers(body)
    lines = _lines_of(human._line_starts(body), starts)
    code = [(f.start, f.end) for f in fences(body)
            if is_program(f.info, f.content)]  # program code: counted only where a matrix was read
    if code:  # the numbers inside a block (a <= offset < b: by bisection, offsets ascending) less the hits
        blocks = [(i, j, [k for k in range(i, j) if starts[k] in hits])
                  for i, j in ((bisect_left(starts, a), bisect_left(starts, b)) for a, b in code)]
        if any(len(kept) < j - i for i, j, kept in blocks):
            starts, texts, lines = (_cut(v, blocks) for v in (starts, texts, lines))
    # notations._mag of a printed number (one sign first at most, one "%" last at most, never "…"): one strip
    mags = list(map(str.strip, texts, repeat("-−–%")))
    rec_lines = list(map(attrgetter("line"), recs))
    rmags = list(map(str.removesuffix, map(str.rstrip, map(
        str.lstrip, map(attrgetter("text"), recs), repeat("-−–")), repeat("%…")), repeat("...")))
    # records nothing decided (NumRec.status "unknown": no check, no operand): few, where a hit can count
    undecided = [k for k in compress(range(len(recs)), map(not_, map(attrgetter("checks"), recs)))
                 if not recs[k].operand]
    # A key (line, magnitude) never spans two lines, so the merge is line by line; a line whose numbers are its
    # records' magnitudes in the same order, all decided, changes nothing (each number is the k-th of its key,
    # whose k-th record is decided: a generated note's thousands of verified numbers). Only the other lines'
    # numbers and records are walked below.
    nsel, rsel = _unsettled(lines, mags, rec_lines, rmags, {rec_lines[k] for k in undecided})
    keys = list(zip(map(lines.__getitem__, nsel), map(mags.__getitem__, nsel)))
    rkeys = list(zip(map(rec_lines.__getitem__, rsel), map(rmags.__getitem__, rsel)))
    have = Counter(rkeys)
    # Only the keys where a hit can count are walked in Python: those with more numbers than records (the
    # numbers past them are new records) and those with an undecided record. Every other number is the k-th of
    # its key, whose k-th record is decided: a hit on it changes nothing.
    counts = Counter(keys)
    hot = set(compress(counts, map(gt, counts.values(), map(have.get, counts, repeat(0)))))
    hot.update((rec_lines[k], rmags[k]) for k in undecided)
    # keys with no record at all (integers, most of them): each of their numbers is a new record, found in C;
    # only the others are walked in Python, counting occurrences
    fresh = {key for key in hot if key not in have}
    new = list(compress(nsel, map(fresh.__contains__, keys)))
    seen: dict[tuple[int, str], int] = {}
    matched = []  # (key, occurrence, hit) of the numbers that have a record
    walked = []
    for n, key in compress(zip(nsel, keys), map((hot - fresh).__contains__, keys)):
        k = seen.get(key, 0)
        seen[key] = k + 1
        if k >= have[key]:
            walked.append(n)
        elif (hit := hits.get(starts[n])) is not None:
            matched.append((key, k, hit))
    if walked:
        new = sorted(new + walked)  # in the note's order
    if matched:
        need = {key for key, _, _ in matched}
        slots: dict[tuple[int, str], list[NumRec]] = {}
        for key, r in compress(zip(rkeys, map(recs.__getitem__, rsel)), map(need.__contains__, rkeys)):
            slots.setdefault(key, []).append(r)
        for key, k, hit in matched:
            rec = slots[key][k]
            if rec.status == "unknown":
                rec.checks.append((hit.ok, hit.label, hit.expected))
                rec.fix = None if hit.ok or hit.fix is None else (hit.fix, "label")
    new_starts = [starts[n] for n in new]
    added = [NumRec(lines[n], texts[n].replace("−", "-").replace("–", "-")) for n in new]
    for rec, at in compress(zip(added, new_starts), map(hits.__contains__, new_starts)):
        hit = hits[at]
        rec.checks.append((hit.ok, hit.label, hit.expected))
        rec.fix = None if hit.ok or hit.fix is None else (hit.fix, "label")
    # each new record after the records of its line and those before (the Checker's records come by line,
    # the new ones in the note's order): a stable sort, in C
    return sorted(recs + added, key=attrgetter("line"))


def _cut(values: list, blocks: list[tuple[int, int, list[int]]]) -> list:
    """``values`` less each block's ``values[i:j]`` but the items at its ``kept`` indices (blocks in order,
    disjoint): by slices, the numbers outside program code copied whole."""
    out: list = []
    last = 0
    for i, j, kept in blocks:
        out += values[last:i]
        out += map(values.__getitem__, kept)
        last = j
    out += values[last:]
    return out


def _unsettled(lines: list[int], mags: list[str], rec_lines: list[int], rmags: list[str],
               undecided: set[int]) -> tuple[list[int], list[int]]:
    """(indices of the numbers, indices of the records) on the lines the merge must walk: the lines holding a
    number (``lines``, ascending) whose magnitudes differ from their records' (``rec_lines``, by line, each
    line's in the order read), or with a record in ``undecided``. By NumPy, the lines' bounds in both lists,
    then one list comparison a line."""
    import numpy as np

    if not lines:
        return [], []
    at = np.fromiter(lines, np.int64, len(lines))
    firsts = np.flatnonzero(at[1:] != at[:-1]) + 1
    line_of = at[np.concatenate(([0], firsts))]
    rec_at = np.fromiter(rec_lines, np.int64, len(rec_lines))
    if (rec_at[1:] < rec_at[:-1]).any():  # records not by line (Checker.run gives them so): every line walked
        return list(range(len(lines))), list(range(len(rec_lines)))
    nsel: list[int] = []
    rsel: list[int] = []
    for line, a, b, c, d in zip(line_of.tolist(), [0, *firsts.tolist()], [*firsts.tolist(), len(lines)],
                                np.searchsorted(rec_at, line_of, side="left").tolist(),
                                np.searchsorted(rec_at, line_of, side="right").tolist()):
        if mags[a:b] != rmags[c:d] or line in undecided:
            nsel += range(a, b)
            rsel += range(c, d)
    return nsel, rsel


def _lines_of(line_starts: list[int], offsets: list[int]) -> list[int]:
    """``bisect_right(line_starts, at)`` for each offset (its 1-based line), by NumPy's binary search: ~60 ns a
    number where a ``bisect`` call each costs ~250 (a note's thousands of numbers)."""
    import numpy as np

    return np.searchsorted(np.fromiter(line_starts, np.int64, len(line_starts)),
                           np.fromiter(offsets, np.int64, len(offsets)), side="right").tolist()


def check_file(path: str | Path, options: dict | None = None, fix: str | None = None, exact: bool = False) -> Report:
    """Check the note at ``path``. ``fix``: None (read only), "diff" (the fixes as a diff, nothing
    written) or "write" (the fixed note replaces the file atomically; the report is of the fixed note)."""
    from ..errors import ConfigError
    from ..readfile import read_text

    p = Path(path)
    if p.suffix.lower() == ".ipynb":  # a Jupyter notebook: its cells as one note, lines placed in the file
        from .notebook import check_notebook

        return check_notebook(p, options, fix, exact)
    try:  # a regular file only (a FIFO would block, /dev/zero never end), of bounded size
        raw = read_text(p, str(path)[:80], "Markdown file", keep_bom=True)
    except ConfigError as err:
        raise CheckError(str(err)) from None
    # read with LF line ends (CRLF, CR: the front matter and the readers expect LF; the lines stay the same);
    # --fix edits the raw text, so its BOM and line ends stay byte for byte
    text = unix_text(raw)
    body = len(text) - (m.end() if (m := FRONT_RE.match(text)) else 0)
    if body > MAX_BODY:
        raise CheckError(f"{str(path)[:80]}: {body:,} characters after the front matter; allowed: a note of at "
                         f"most {MAX_BODY:,} (split it into several notes)")
    if fix is None:
        report = check_text(text, options, str(path), exact)
        report.source = text
        return report
    from .fix import fixed_text, left_note

    fixed = fixed_text(raw, lambda t: check_text(unix_text(t), options, str(path)))
    diff = write_fixed(p, raw, fixed, fix)
    after = check_text(unix_text(fixed), options, str(path))
    report = after if fix == "write" else check_text(text, options, str(path))
    report.source = unix_text(fixed) if fix == "write" else text
    report.notes += left_note(after, fix)
    report.diff = diff
    return report


def unix_text(raw: str) -> str:
    """A note's text as the readers take it: no BOM, CRLF and lone CR line ends as LF (the same lines, as
    markdown-it counts them: the merge read a CR-only note as one line, every number of it twice)."""
    text = raw.removeprefix("\ufeff")
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def write_fixed(path: Path, old: str, new: str, fix: str) -> str:
    """The unified diff of a file's ``old`` text to its ``new`` one; ``fix == "write"``: ``new`` replaces the
    file atomically where it differs (CheckError, one line, when it cannot be written)."""
    from ..errors import ConfigError
    from ..writefile import rewrite_atomic
    from .fix import unified_diff

    diff = unified_diff(old, new, path)
    if fix == "write" and new != old:
        try:
            rewrite_atomic(path, old, new, "--fix")  # only over the text read (a concurrent edit is kept)
        except ConfigError as err:
            raise CheckError(f"{path}: cannot write: {err}") from None
    return diff
