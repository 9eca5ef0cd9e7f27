"""Start-up benchmark: `attnwalk render` on the 3x3 example against `python -c "import numpy, jinja2"`.

Goal (issue 2): render takes at most about twice the baseline. Run by hand, not in CI:

    python benchmarks/bench_render.py [--runs 15]

Prints medians and the ratio against the baseline measured in the same run; also checks that
the render path imports neither torch nor sympy. "cold" runs start with an empty template cache.
"""

from __future__ import annotations

import argparse
import compileall
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RENDER = [sys.executable, "-m", "attnwalk", "render", "--h", "3", "--w", "3", "--heads", "2", "--seed", "42"]
BASELINE = [sys.executable, "-c", "import numpy, jinja2"]


def median_seconds(cmd: list[str], runs: int, env: dict | None = None, fresh_cache: bool = False) -> float:
    times = []
    for _ in range(runs):
        run_env = dict(env or os.environ)
        if fresh_cache:
            run_env["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="attnwalk-bench-")
        start = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True, env=run_env)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def heavy_imports() -> list[str]:
    code = ("import sys, io, contextlib; from attnwalk.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()): main(['render'])\n"
            "print(','.join(m for m in ('torch', 'sympy', 'pydantic') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    return [m for m in out.split(",") if m]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    runs = parser.parse_args().runs
    # attnwalk's bytecode compiled once, as `pip install` does (numpy's and jinja2's already are)
    compileall.compile_dir(str(Path(__file__).resolve().parent.parent / "attnwalk"), quiet=1)
    subprocess.run(RENDER, stdout=subprocess.DEVNULL, check=True)  # warm the template cache
    # Interleave so that machine load affects both sides alike.
    base = median_seconds(BASELINE, runs)
    warm = median_seconds(RENDER, runs)
    cold = median_seconds(RENDER, max(3, runs // 3), fresh_cache=True)
    base2 = median_seconds(BASELINE, runs)
    baseline = min(base, base2)
    print(f"baseline  python -c 'import numpy, jinja2': {baseline * 1e3:7.1f} ms")
    print(f"render    (template cache warm):           {warm * 1e3:7.1f} ms   ratio {warm / baseline:.2f}")
    print(f"render    (first run, cache cold):         {cold * 1e3:7.1f} ms   ratio {cold / baseline:.2f}")
    heavy = heavy_imports()
    print(f"heavy modules imported by render: {', '.join(heavy) if heavy else 'none'}")


if __name__ == "__main__":
    main()
