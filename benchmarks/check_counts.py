"""Verdict counts of ``attnwalk check`` on every note we have, to compare a change of the reader with
the code before it (issue 12: the reading may get faster, the verdicts may not change).

    python benchmarks/check_counts.py --record before.json   # on the old code
    python benchmarks/check_counts.py --compare before.json  # on the new: exit 1 on any difference

Each note is recorded as its (verified, wrong, not understood) counts and a digest of every
number's line, text, status and labels, so a changed verdict shows even where counts balance.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEEDS = Path("/work/shared/seeds")
SEED_OPTS = dict(h=3, w=3, heads=2, seed=42, pe_on="o")  # the seeds' own config (README's check example)


def notes() -> list[tuple[str, Path, dict | None]]:
    from attnwalk.scenario import load_scenario

    out: list[tuple[str, Path, dict | None]] = []
    out += [(str(p.relative_to(ROOT)), p, None) for p in sorted((ROOT / "examples/notes").glob("*.md"))]
    hand2 = load_scenario(ROOT / "examples/scenarios/hand-2x2.toml")
    for p in sorted((ROOT / "examples/handwritten").glob("*.md")) + sorted(SEEDS.glob("*.md")):
        name = str(p.relative_to(ROOT)) if p.is_relative_to(ROOT) else str(p)  # the same in every worktree
        out.append((name, p, hand2 if p.name.startswith("004_") else SEED_OPTS))
    for p in sorted((ROOT / "tests/corpus").rglob("*.md")):
        toml = p.with_suffix(".toml")
        out.append((str(p.relative_to(ROOT)), p, load_scenario(toml) if toml.exists() else None))
    return out


def generated(tmp: Path) -> list[tuple[str, Path, dict | None]]:
    """The benchmark's yolo 4x4 note (16x16 matrices) and its sdpa/mha kin, rendered afresh."""
    import contextlib
    import io

    from attnwalk.cli import main

    out = []
    for name, opts in (("yolo-4x4", ["--h", "4", "--w", "4", "--dim", "8", "--heads", "2", "--input", "normal"]),
                       ("yolo-4x4-vi", ["--h", "4", "--w", "4", "--heads", "2", "--lang", "vi"]),
                       ("sdpa-5", ["--variant", "sdpa", "--tokens", "5"])):
        note = tmp / f"{name}.md"
        with contextlib.redirect_stdout(io.StringIO()):
            if main(["render", *opts, "-o", str(note)]) not in (0, None):
                continue
        out.append((f"<render {' '.join(opts)}>", note, None))
    return out


def record() -> dict:
    import tempfile

    from attnwalk.check import CheckError, check_file

    result = {}
    tmp = Path(tempfile.mkdtemp(prefix="attnwalk-counts-"))
    for name, path, opts in notes() + generated(tmp):
        try:
            rep = check_file(path, opts)
        except CheckError as err:
            result[name] = {"error": str(err)}
            continue
        digest = hashlib.sha256(json.dumps([(r.line, r.text, r.status, r.operand, r.fix,
                                             [(ok, str(lab), str(exp)) for ok, lab, exp in r.checks])
                                            for r in rep.recs], ensure_ascii=False).encode()).hexdigest()
        result[name] = {"verified": len(rep.verified), "wrong": len(rep.wrong), "unknown": len(rep.unknown),
                        "digest": digest}
    return result


def _in_repo(name: str) -> str:
    """A record's note name relative to its checkout (older records hold absolute paths)."""
    at = name.find("/examples/handwritten/")
    return name[at + 1:] if name.startswith("/") and at >= 0 else name


def main() -> int:
    ap = argparse.ArgumentParser()
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--record", metavar="FILE")
    g.add_argument("--compare", metavar="FILE")
    args = ap.parse_args()
    now = record()
    if args.record:
        Path(args.record).write_text(json.dumps(now, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        for k, v in now.items():
            print(k, v)
        return 0
    before = {_in_repo(k): v for k, v in json.loads(Path(args.compare).read_text(encoding="utf-8")).items()}
    bad = 0
    for k in sorted(set(before) | set(now)):
        if before.get(k) != now.get(k):
            bad += 1
            print(f"DIFFERENT {k}: before {before.get(k)}, now {now.get(k)}")
    print(f"{len(now)} notes, {bad} different")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
