"""The held-out measure of ``attnwalk check`` (issue 8): on real hand-written notes, how many of the
numbers torch proves wrong does check find (recall), how many right numbers does it call wrong (false
positives), and how many numbers does it verify or leave not understood.

    python benchmarks/heldout.py          # tests/corpus/heldout (notes check was never tuned on)
    python benchmarks/heldout.py --real   # tests/corpus/real (the notes it was tuned on), for comparison
    python benchmarks/heldout.py --dir tests/corpus/heldout2   # the second held-out round
    python benchmarks/heldout.py --dir tests/corpus/heldout3   # the third
    python benchmarks/heldout.py --dir tests/corpus/heldout4   # the fourth
    python benchmarks/heldout.py --dir tests/corpus/heldout5   # the fifth
    python benchmarks/heldout.py --dir tests/corpus/heldout6   # the sixth
    python benchmarks/heldout.py --dir tests/corpus/heldout7   # the seventh
    python benchmarks/heldout.py --dir tests/corpus/heldout8   # the eighth
    python benchmarks/heldout.py --dir tests/corpus/heldout9   # the ninth
    python benchmarks/heldout.py --dir tests/corpus/heldout10  # the tenth
    python benchmarks/heldout.py --dir tests/corpus/heldout11  # the eleventh
    python benchmarks/heldout.py --dir tests/corpus/heldout12  # the twelfth
    python benchmarks/heldout.py --dir tests/corpus/heldout13  # the thirteenth (notes written after public styles)
    python benchmarks/heldout.py --dir tests/corpus/heldout14  # the fourteenth (written after public styles, too)
    python benchmarks/heldout.py --dir tests/corpus/heldout15  # the fifteenth (written after public styles, too)
    python benchmarks/heldout.py --dir tests/corpus/heldout16  # the sixteenth (real public notes again)
    python benchmarks/heldout.py --dir tests/corpus/heldout17  # the seventeenth (real: quiz, challenge, TF, PDF pages)
    python benchmarks/heldout.py --dir tests/corpus/heldout18  # the eighteenth (real: codecogs, online judges)

The truth is torch's (tests/corpus/heldout/truth.py: each note's scenario and claims file), never
attnwalk's engine. tests/corpus/heldout/FIRST_RUN.md keeps the table of the first run, before any
change to check: the honest held-out figure.
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HELDOUT = ROOT / "tests" / "corpus" / "heldout"
REAL = ROOT / "tests" / "corpus" / "real"


@functools.cache
def truth_module():
    """tests/corpus/heldout/truth.py, loaded by path (the tests folder is not a package)."""
    spec = importlib.util.spec_from_file_location("heldout_truth", HELDOUT / "truth.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def table(folder: Path) -> tuple[list[str], dict]:
    """The Markdown table of every note in ``folder`` and the totals."""
    truth = truth_module()
    rows = ["| note | torch: wrong | check found | recall | false positives | verified | not understood |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    total = dict(truth_wrong=0, found=0, fp=0, verified=0, unknown=0)
    for name in sorted(p.stem for p in folder.glob("*.md") if p.with_suffix(".toml").exists()):
        m = truth.measure(folder, name)
        recall = f"{m['found'] / m['truth_wrong']:.0%}" if m["truth_wrong"] else "–"
        fps = ", ".join(f"{ln}:{t}" for ln, t in m["false_pos"])
        rows.append(f"| {name} | {m['truth_wrong']} | {m['found']} | {recall} | {len(m['false_pos'])}"
                    f"{f' ({fps})' if fps else ''} | {m['verified']} | {m['unknown']} |")
        for key, value in (("truth_wrong", m["truth_wrong"]), ("found", m["found"]), ("fp", len(m["false_pos"])),
                           ("verified", m["verified"]), ("unknown", m["unknown"])):
            total[key] += value
    recall = f"{total['found'] / total['truth_wrong']:.0%}" if total["truth_wrong"] else "–"
    rows.append(f"| **all** | {total['truth_wrong']} | {total['found']} | {recall} | {total['fp']} | "
                f"{total['verified']} | {total['unknown']} |")
    return rows, total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--real", action="store_true", help="measure tests/corpus/real instead")
    parser.add_argument("--dir", type=Path, help="measure this folder of notes (NAME.md, NAME.toml, NAME.claims.json)")
    args = parser.parse_args(argv)
    if args.dir is not None and not args.dir.is_dir():
        parser.error(f"--dir: {args.dir} is not a folder")
    rows, _ = table(args.dir if args.dir is not None else REAL if args.real else HELDOUT)
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
