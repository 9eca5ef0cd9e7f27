"""attnwalk's speed goals, each as a ratio against a baseline measured in the same run.

Run by hand from the repository root (never in CI; timings are not tests):

    python benchmarks/run.py [--threads 2] [--repeat 5] [--skip engine,export,render,check,check-large,build]
                             [--check-baseline DIR] [--engine-baseline DIR] [--render-baseline DIR]

1. engine   yolo forward recording every tensor vs a PyTorch float64 forward (same threads),
            N = 1600 (dim 256, 4 heads, 40x40, YOLO11 scale) and N = 4096 (64x64)   target <= 1.0
            (median), repeated forwards in one process and one forward per fresh process (>= 5 pairs);
            each run's wall and CPU ratio and the rusage/vmstat evidence printed; (info) the forward
            followed by reading every recorded tensor whole (scores_scaled and exp are recipes until
            read), and the engine before reused buffers; --engine-baseline DIR: another attnwalk's
            engine (DIR holds its `attnwalk` package) in the same fresh-process rounds
2. export   `render --format json` at N = 1600, seconds                               target <= 10 s
            (`--format npz` and the same floats through json's C encoder printed beside it, as information)
3. render   `attnwalk render` 3x3 vs `python -c "import numpy, jinja2"`                target <= 1.3
            (info: the same with an empty template cache; the heavy modules render imports: none;
            the load average; where the start-up goes: the modules `-X importtime` finds slowest beyond the
            baseline's, medians of 5 runs)
            --render-baseline DIR: also another attnwalk's render in the same interleaved runs (DIR holds its
            `attnwalk` package and links to this checkout's templates and examples: `mkdir DIR && git archive
            main attnwalk | tar -x -C DIR && ln -s "$PWD/templates" "$PWD/examples" DIR/`)
4. check    numbers verified per second on a note with 16x16 matrices, float-first vs the exact
            path (same run, in process and from a cold start)                              target >= 100k/s
            --check-baseline DIR: also another attnwalk's check (DIR holds its `attnwalk` package,
            e.g. `mkdir DIR && git archive main attnwalk | tar -x -C DIR`), timed in the same run;
            (info) checking a YOLO11-scale note (N = 1600) vs rendering it (--skip check-large: not);
            where a check's time goes (phases, kinds of text, stages, forms), the numbers each reader decides,
            and the bound of a block fast path (the plain matrices decided at no cost)
5. build    no-op rebuild of the course vs one `render` start-up                      target <= 1.5
            full build of 16 walkthroughs x 2 languages, all CPUs vs one process      info
Engine, render and build compare medians of interleaved runs, so machine load hits both sides.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ATTNWALK = [sys.executable, "-m", "attnwalk"]
ROWS: list[tuple[str, str, str, str]] = []


def report(name: str, value: str, ratio: float | None, target: str, ok: bool | None) -> None:
    verdict = "" if ok is None else ("ok" if ok else "MISSED")
    line = (name, value, "" if ratio is None else f"{ratio:.2f}", f"{target} {verdict}".strip())
    ROWS.append(line)
    print(f"{line[0]:<44} {line[1]:>22} {line[2]:>7}  {line[3]}", flush=True)


def interleaved(fns: list, repeat: int) -> list[float]:
    """Median seconds of each function, the functions run in turn ``repeat`` times."""
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            start = time.perf_counter()
            fn()
            times[i].append(time.perf_counter() - start)
    return [statistics.median(t) for t in times]


def run_cmd(cmd: list[str], env: dict | None = None) -> None:
    subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True, env=env, cwd=REPO)


# 1. engine -------------------------------------------------------------------------------------

ENGINE_SIDES = (40, 64)  # N = 1600 (YOLO11 scale) and N = 4096
VMSTAT = ("thp_fault_alloc", "thp_fault_fallback", "compact_stall", "compact_fail")
# One forward of each side in a fresh process (imports and inputs first, then the forward alone):
# what `attnwalk render` at that size pays, where no earlier forward left memory to reuse.
ENGINE_COLD = """import json, os, resource, sys, time
side, which, threads = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
sys.path.insert(0, sys.argv[4])
if len(sys.argv) > 5:  # another attnwalk (--engine-baseline), first on the path
    sys.path.insert(0, sys.argv[5])
from attnwalk.engine import blas
blas.narrow_for_startup()  # BLAS set up as `attnwalk render` sets it up, before NumPy loads
import attnwalk
assert len(sys.argv) <= 5 or attnwalk.__file__.startswith(sys.argv[5]), attnwalk.__file__
import run as bench
os.environ["ATTNWALK_MAX_MEMORY"] = "8G"
sides = bench.engine_sides(side, threads)
fn = sides["engine" if which == "baseline" else which]
import gc
gc.collect()  # the collection the imports left due runs before either side's forward, not inside it
stats = bench.measured(fn)
print(json.dumps(stats))
"""


def engine_sides(side: int, threads: int) -> dict:
    """The yolo benchmark problem's forwards, on ``threads``: ``engine`` (the trace dropped, as torch's
    tensors are), ``engine_read`` (then every recorded tensor read whole: the recipes computed, as an
    export or a render of every stage would), ``torch`` (PyTorch float64)."""
    import torch
    import torch.nn.functional as F

    from attnwalk.config import make_config
    from attnwalk.engine import blas, yolo
    from attnwalk.inputs import draw

    torch.set_num_threads(threads)
    os.environ["ATTNWALK_THREADS"] = str(threads)
    setter = blas._openblas_setter()
    if setter is not None:
        setter(threads)
    cfg = make_config(variant="yolo", h=side, w=side, dim=256, heads=4, input="normal", seed=0)
    weights, x = draw(cfg)
    d = cfg.derived
    tw = {k: torch.from_numpy(v) for k, v in weights.items()}
    tx = torch.from_numpy(x)

    def torch_forward():
        with torch.no_grad():
            B, C, H, W = tx.shape
            qkv = F.conv2d(tx, tw["w_qkv"], tw["b_qkv"])
            q, k, v = qkv.view(B, 4, -1, H * W).split([d["key_dim"], d["key_dim"], d["head_dim"]], dim=2)
            attn = ((q.transpose(-2, -1) @ k) * d["scale"]).softmax(dim=-1)
            o = (v @ attn.transpose(-2, -1)).view(B, C, H, W)
            o = o + F.conv2d(v.reshape(B, C, H, W), tw["w_pe"], tw["b_pe"], padding=1, groups=C)
            return F.conv2d(o, tw["w_proj"], tw["b_proj"])

    def engine():
        yolo.forward(cfg, weights, x)  # the trace is dropped, as torch's tensors are

    def engine_read():
        trace = yolo.forward(cfg, weights, x)
        for name in trace.names():
            trace[name]  # noqa: B018 - a recipe (scores_scaled, exp) is computed on its first read

    return {"engine": engine, "engine_read": engine_read, "torch": torch_forward}


def vmstat() -> dict[str, int]:
    """The kernel's memory counters (/proc/vmstat); empty where there are none."""
    try:
        with open("/proc/vmstat", encoding="ascii") as fh:
            return {k: int(v) for k, v in (line.split() for line in fh)}
    except OSError:
        return {}


def measured(fn) -> dict:
    """Call ``fn`` once: wall, user and system seconds (all threads), minor page faults, vmstat deltas,
    and the process's peak RSS so far (MiB)."""
    import resource

    v0 = vmstat()  # read outside the rusage window: its parsing is no part of either side's CPU time
    r0, t0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    fn()
    t1, r1, v1 = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF), vmstat()
    return {"wall": t1 - t0, "user": r1.ru_utime - r0.ru_utime, "sys": r1.ru_stime - r0.ru_stime,
            "minflt": r1.ru_minflt - r0.ru_minflt, "peak_rss_mib": peak_rss_mib(r1),
            **{k: v1.get(k, 0) - v0.get(k, 0) for k in VMSTAT}}


def peak_rss_mib(usage) -> float:
    """This process's peak resident memory (MiB): VmHWM, which starts afresh at exec (ru_maxrss would
    carry over a large parent's peak into a subprocess), else ru_maxrss."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            return next(int(line.split()[1]) for line in fh if line.startswith("VmHWM:")) / 1024
    except (OSError, StopIteration, ValueError):
        return usage.ru_maxrss / 1024


def page_reporting() -> str:
    """Whether a virtio balloon reports free pages to the host (they are then backed again on first touch)."""
    import glob

    for path in glob.glob("/sys/bus/virtio/drivers/virtio_balloon/virtio*/features"):
        with open(path, encoding="ascii") as fh:
            bits = fh.read().strip()
        if len(bits) > 5 and bits[5] == "1":  # VIRTIO_BALLOON_F_REPORTING
            try:
                with open("/sys/module/page_reporting/parameters/page_reporting_order", encoding="ascii") as fh:
                    order = int(fh.read())
                return f"free page reporting on (blocks of {4 << order >> 10} MiB)"
            except (OSError, ValueError):
                return "free page reporting on"
        return "free page reporting off"
    return "no virtio balloon"


def evidence(label: str, runs: list[dict]) -> str:
    """One line: medians of a side's runs (CPU, faults) and the vmstat counters summed over them."""
    med = {k: statistics.median(r[k] for r in runs) for k in ("wall", "user", "sys", "minflt")}
    counters = " ".join(f"{k} {sum(r[k] for r in runs)}" for k in VMSTAT)
    rss = max(r.get("peak_rss_mib", 0) for r in runs)
    return (f"{label}: user {med['user']:.2f} s, sys {med['sys']:.2f} s, {med['minflt']:,.0f} minor faults "
            f"(medians), peak RSS {rss:,.0f} MiB; {counters}")


def compare_runs(name: str, runs_a: list[dict], runs_b: list[dict], what: str, target: str | None,
                 labels: tuple[str, str] = ("engine", "torch")) -> None:
    """Report the ratio of median walls, the ratio of median CPU times, every run's wall and CPU ratio
    (sorted: two modes would show as a gap) and the evidence."""
    wall_a = statistics.median(r["wall"] for r in runs_a)
    wall_b = statistics.median(r["wall"] for r in runs_b)
    ratio = wall_a / wall_b
    report(name, f"{wall_a * 1e3:.0f} ms vs {wall_b * 1e3:.0f} ms", ratio, target or "info",
           None if target is None else ratio <= 1.0)
    cpu_a, cpu_b = (statistics.median(r["user"] + r["sys"] for r in runs) for runs in (runs_a, runs_b))
    print(f"    CPU time (user + sys, medians): {cpu_a * 1e3:.0f} ms vs {cpu_b * 1e3:.0f} ms, "
          f"ratio {cpu_a / cpu_b:.2f}; load average {os.getloadavg()[0]:.1f}")
    # Wall time of one pair moves with other jobs' load; CPU time (user + sys, all threads) much less.
    for kind, cost in (("wall", lambda r: r["wall"]), ("CPU", lambda r: r["user"] + r["sys"])):
        pairs = sorted(cost(a) / cost(b) for a, b in zip(runs_a, runs_b))
        print(f"    each run, {kind} ({what}): " + " ".join(f"{p:.2f}" for p in pairs)
              + f"; {sum(p > 1.0 for p in pairs)} of {len(pairs)} above 1.0")
    print(f"    {evidence(labels[0], runs_a)}")
    print(f"    {evidence(labels[1], runs_b)}")


def bench_engine(threads: int, repeat: int, baseline: str | None = None) -> None:
    """yolo forward recording every tensor against PyTorch float64, for each size: repeated forwards
    interleaved in one process, then one forward per fresh process (what `attnwalk render` pays), each
    with the target median ratio <= 1.0 and every run's ratio printed; at N = 4096 also, as information,
    the engine before reused 4 KiB-page buffers (fresh arrays on NumPy's huge pages)."""
    try:
        import torch  # noqa: F401
    except ImportError:
        report("engine vs torch f64", "skipped: no torch", None, "<= 1.0", None)
        return
    from attnwalk.engine import pages

    print(f"  machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}, {page_reporting()}, "
          f"THP {_sys_text('/sys/kernel/mm/transparent_hugepage/enabled')}, "
          f"defrag {_sys_text('/sys/kernel/mm/transparent_hugepage/defrag')}")
    os.environ.setdefault("ATTNWALK_MAX_MEMORY", "8G")
    for side in ENGINE_SIDES:
        sides = engine_sides(side, threads)
        engine, engine_read, torch_forward = sides["engine"], sides["engine_read"], sides["torch"]
        engine(), engine_read(), torch_forward()  # warm up (thread pools; the engine's buffers)
        runs_e, runs_r, runs_t = interleaved_runs([engine, engine_read, torch_forward], repeat)
        compare_runs(f"engine N={side * side} (dim 256, 4 heads, {threads} thr)", runs_e, runs_t,
                     "engine/torch, interleaved", "<= 1.0")
        compare_runs(f"  forward + every tensor read N={side * side}", runs_r, runs_t,
                     "engine read/torch, interleaved", None)
        if side == ENGINE_SIDES[-1]:
            pages.release()
            pages.REUSE, pages.HUGE_PAGES = False, True
            try:
                runs_b, runs_t = interleaved_runs([engine, torch_forward], repeat)
            finally:
                pages.REUSE, pages.HUGE_PAGES = True, False
            compare_runs(f"  before: fresh arrays, huge pages N={side * side}", runs_b, runs_t,
                         "engine/torch, interleaved", None)
        del engine, engine_read, torch_forward, sides
        cold = fresh_process_runs(side, threads, max(5, repeat), baseline)
        compare_runs(f"  first forward, fresh process N={side * side}", cold["engine"], cold["torch"],
                     "engine/torch, one process each", "<= 1.0")
        compare_runs(f"  same, + every tensor read N={side * side}", cold["engine_read"], cold["torch"],
                     "engine read/torch, one process each", None)
        if baseline:
            compare_runs(f"  same, --engine-baseline N={side * side}", cold["baseline"], cold["torch"],
                         "baseline/torch, one process each", None, ("baseline", "torch"))
            compare_runs(f"  this engine vs --engine-baseline N={side * side}", cold["engine"], cold["baseline"],
                         "engine/baseline, one process each", None, ("engine", "baseline"))


def fresh_process_runs(side: int, threads: int, pairs: int, baseline: str | None = None) -> dict[str, list[dict]]:
    """``pairs`` first forwards of each side, each in a fresh process (ENGINE_COLD), the sides in turn
    (``baseline``: also another attnwalk's engine, found in that folder)."""
    cold: dict[str, list[dict]] = {"engine": [], "engine_read": [], "torch": []}
    if baseline:
        cold["baseline"] = []
    for _ in range(pairs):
        for which in cold:
            extra = [str(Path(baseline).resolve())] if which == "baseline" else []
            out = subprocess.run([sys.executable, "-c", ENGINE_COLD, str(side), which, str(threads),
                                  str(Path(__file__).resolve().parent), *extra], capture_output=True, text=True,
                                 check=True, cwd=REPO).stdout
            cold[which].append(json.loads(out.strip().splitlines()[-1]))
    return cold


def interleaved_runs(fns: list, repeat: int) -> list[list[dict]]:
    """``measured`` runs of each function, the functions called in turn ``repeat`` times."""
    runs: list[list[dict]] = [[] for _ in fns]
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            runs[i].append(measured(fn))
    return runs


def _sys_text(path: str) -> str:
    try:
        with open(path, encoding="ascii") as fh:
            text = fh.read().strip()
    except OSError:
        return "unknown"
    return text[text.index("[") + 1 : text.index("]")] if "[" in text else text


# 2. export -------------------------------------------------------------------------------------

def bench_export() -> None:
    opts = ["render", "--h", "40", "--w", "40", "--dim", "256", "--heads", "4", "--input", "normal"]
    with tempfile.TemporaryDirectory(prefix="attnwalk-bench-") as tmp:
        for fmt, target in (("json", 10.0), ("npz", None)):
            out = Path(tmp) / f"trace.{fmt}"
            start = time.perf_counter()
            run_cmd(ATTNWALK + opts + ["--format", fmt, "-o", str(out)])
            secs = time.perf_counter() - start
            size = out.stat().st_size / 1e6
            report(f"render --format {fmt} N=1600", f"{secs:.1f} s, {size:.0f} MB", None,
                   f"<= {target:.0f} s" if target else "info", secs <= target if target else None)
            out.unlink()
    # Baseline: the same tensors through json's C encoder (the export before orjson), one process.
    import json

    import attnwalk

    trace = attnwalk.walk(h=40, w=40, dim=256, heads=4, input="normal")
    dumps = json.JSONEncoder(separators=(",", ":")).encode
    start = time.perf_counter()
    for name in trace.names():
        for block in trace[name].reshape(-1, trace[name].shape[-1]) if trace[name].ndim else [trace[name]]:
            dumps(block.tolist())
    report("  baseline: same floats via json's encoder", f"{time.perf_counter() - start:.1f} s", None, "info", None)


# 3. render start-up ----------------------------------------------------------------------------

def compile_package() -> None:
    """Compile attnwalk's bytecode as an installed wheel has it."""
    import compileall

    compileall.compile_dir(str(REPO / "attnwalk"), quiet=1)


def bench_render(repeat: int, baseline: str | None = None) -> float:
    args = ["render", "--h", "3", "--w", "3", "--heads", "2", "--seed", "42"]
    render = ATTNWALK + args
    base = [sys.executable, "-c", "import numpy, jinja2"]
    # as `pip install` does: bytecode compiled once, so no run compiles attnwalk's modules (where the
    # environment sets PYTHONDONTWRITEBYTECODE, every run would, while numpy's and jinja2's are compiled)
    compile_package()
    run_cmd(render)  # warm the template cache
    print(f"{'load average':<44} {' '.join(f'{x:.1f}' for x in os.getloadavg()):>22}", flush=True)
    sides = [lambda: run_cmd(base), lambda: run_cmd(render)]
    if baseline is not None:
        import compileall

        compileall.compile_dir(str(Path(baseline) / "attnwalk"), quiet=1)
        # the baseline package first on sys.path: -m would put the working folder (this checkout) first
        other = {**os.environ, "PYTHONPATH": str(Path(baseline).resolve()), "PYTHONSAFEPATH": "1"}
        run_cmd(render, env=other)
        sides.append(lambda: run_cmd(render, env=other))
    times, cpu = interleaved_cpu(sides, repeat * 3)
    t_base, t_render = times[:2]
    ratio = t_render / t_base
    report("render 3x3 vs import numpy, jinja2", f"{t_render * 1e3:.0f} ms vs {t_base * 1e3:.0f} ms", ratio,
           "<= 1.3", ratio <= 1.3)
    report("same, CPU time (user + system)", f"{cpu[1] * 1e3:.0f} ms vs {cpu[0] * 1e3:.0f} ms", cpu[1] / cpu[0],
           "info", None)
    if baseline is not None:
        report("same, the baseline's render vs import", f"{times[2] * 1e3:.0f} ms vs {t_base * 1e3:.0f} ms",
               times[2] / t_base, "info", None)
        report("render 3x3 vs the baseline's", f"{t_render * 1e3:.0f} ms vs {times[2] * 1e3:.0f} ms",
               t_render / times[2], "info", None)
        report("same, CPU time", f"{cpu[1] * 1e3:.0f} ms vs {cpu[2] * 1e3:.0f} ms", cpu[1] / cpu[2], "info", None)
    # the first run after install: an empty template cache (jinja compiles the templates once)
    cold = []
    for _ in range(max(3, repeat)):
        with tempfile.TemporaryDirectory(prefix="attnwalk-bench-") as cache:
            start = time.perf_counter()
            run_cmd(render, env={**os.environ, "XDG_CACHE_HOME": cache})
            cold.append(time.perf_counter() - start)
    t_cold = statistics.median(cold)
    report("render 3x3, template cache cold", f"{t_cold * 1e3:.0f} ms", t_cold / t_base, "info", None)
    heavy = heavy_imports()
    report("heavy modules imported by render", ", ".join(heavy) or "none", None, "none", not heavy)
    for name, ms in slowest_imports(args, base):
        report(f"  import {name}", f"{ms:.1f} ms", None, "info", None)
    return t_render


def interleaved_cpu(fns: list, repeat: int) -> tuple[list[float], list[float]]:
    """Like ``interleaved`` for functions that each run one child process: median wall and CPU seconds."""
    import resource

    wall: list[list[float]] = [[] for _ in fns]
    cpu: list[list[float]] = [[] for _ in fns]
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            fn()
            wall[i].append(time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu[i].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return [statistics.median(t) for t in wall], [statistics.median(t) for t in cpu]


def slowest_imports(args: list[str], base: list[str], runs: int = 5, top: int = 8) -> list[tuple[str, float]]:
    """The modules a render imports beyond ``base``'s, slowest first: median self time of ``runs`` runs under
    ``-X importtime`` (its own overhead included), with their sum first."""
    def times(cmd: list[str]) -> dict[str, float]:
        err = subprocess.run([cmd[0], "-X", "importtime", *cmd[1:]], capture_output=True, text=True, check=True,
                             cwd=REPO).stderr
        out = {}
        for line in err.splitlines():
            if line.startswith("import time:") and "|" in line and "self [us]" not in line:
                own, _cum, name = line[len("import time:"):].split("|")
                out[name.strip()] = int(own) / 1e3
        return out

    seen = set(times(base))
    runs_ = [times(ATTNWALK + args) for _ in range(runs)]
    extra = {m: statistics.median(r.get(m, 0.0) for r in runs_) for m in runs_[0] if m not in seen}
    ranked = sorted(extra.items(), key=lambda kv: -kv[1])
    return [(f"(all {len(extra)} beyond the baseline's)", sum(extra.values()))] + ranked[:top]


def heavy_imports() -> list[str]:
    """Which of torch, sympy, pydantic a 3x3 render imports (each would cost start-up; none should)."""
    code = ("import sys, io, contextlib; from attnwalk.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()): main(['render'])\n"
            "print(','.join(m for m in ('torch', 'sympy', 'pydantic') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    return [m for m in out.stdout.strip().split(",") if m]


# 4. check --------------------------------------------------------------------------------------

CHECK_NOTE = ["render", "--h", "4", "--w", "4", "--dim", "8", "--heads", "2", "--input", "normal"]  # N = 16
CHECK_RUN = """import statistics, sys, time
t = time.perf_counter()
from attnwalk.check import _TRACES, check_text
from attnwalk.check.checker import Checker
text, exact, repeat = open(sys.argv[1], encoding="utf-8").read(), sys.argv[2] == "exact", int(sys.argv[3])
n = len(check_text(text, exact=exact).verified)
cold = time.perf_counter() - t
warm, cpu = [], []
for _ in range(repeat):
    _TRACES.clear()  # each check computes its trace, as one `attnwalk check note.md` does
    t, c = time.perf_counter(), time.process_time()
    check_text(text, exact=exact)
    warm.append(time.perf_counter() - t)
    cpu.append(time.process_time() - c)  # this process's CPU time (a check runs in one process)
spent, inside = [0.0], [0]
def timed(fn):
    def wrap(self, *a, **k):
        if inside[0]:  # called by another verifying function (_arith -> _compare): counted there
            return fn(self, *a, **k)
        inside[0], t = 1, time.perf_counter()
        try:
            return fn(self, *a, **k)
        finally:
            inside[0] = 0
            spent[0] += time.perf_counter() - t
    return wrap
for name in ("_compare", "_compare_many", "_arith"):  # _compare_many: the bulk comparisons (issue 12)
    if hasattr(Checker, name):
        setattr(Checker, name, timed(getattr(Checker, name)))
check_text(text, exact=exact)
print(n, cold, statistics.median(warm), spent[0], statistics.median(cpu))
"""


def bench_check(repeat: int, baseline: str | None = None, skip_large: bool = False) -> None:
    """Numbers verified per second on a yolo 4x4 note (16x16 attention matrices, ~3.3k numbers): the
    float-first path against the exact path it replaced (``exact=True``, kept as the reference), each in
    its own processes (the exact path's sympy and mpmath garbage would slow the other down): from a
    cold start (imports included) and warm (median of repeated checks in one process). The verification
    stage alone (comparisons and arithmetic claims, nested calls counted once) is printed too, and
    where a float-first check's time goes: the rest is reading the note. ``baseline``: a folder holding
    another attnwalk package (the code before a change), whose float-first check runs interleaved, and whose
    phases are printed beside this one's (each side in its own processes, interleaved). ``skip_large``: leave
    out the N = 1600 note (``--skip check-large``)."""
    import io
    from contextlib import redirect_stdout

    from attnwalk.cli import main

    with tempfile.TemporaryDirectory(prefix="attnwalk-bench-") as tmp:
        note = Path(tmp) / "note.md"
        with redirect_stdout(io.StringIO()):
            main(CHECK_NOTE + ["-o", str(note)])
        text = note.read_text(encoding="utf-8")
        runs: dict[str, list] = {"exact": [], "fast": []}
        if baseline:
            runs["baseline"] = []
        for _ in range(max(3, repeat // 2)):
            for path in runs:
                env, cwd = None, REPO
                if path == "baseline":  # its package first on the path, from a folder without ours
                    env, cwd = {**os.environ, "PYTHONPATH": str(Path(baseline).resolve())}, tmp
                out = subprocess.run([sys.executable, "-c", CHECK_RUN, str(note), path.replace("baseline", "fast"),
                                      str(repeat)], capture_output=True, text=True, check=True, cwd=cwd,
                                     env=env).stdout.split()
                runs[path].append((int(out[0]), *map(float, out[1:])))
    n = runs["fast"][0][0]
    assert all(r[0] == n for rs in runs.values() for r in rs), runs
    med = {p: [statistics.median(r[k] for r in rs) for k in (1, 2, 3, 4)] for p, rs in runs.items()}
    (c_e, w_e, s_e, _), (c_f, w_f, s_f, u_f) = med["exact"], med["fast"]
    report("check 16x16 note, exact path, warm", f"{n / w_e:,.0f} numbers/s", None, "before", None)
    report("check 16x16 note, float-first, warm", f"{n / w_f:,.0f} numbers/s", w_e / w_f, ">= 100k/s",
           n / w_f >= 1e5)
    report("check 16x16 note, exact path, cold start", f"{n / c_e:,.0f} numbers/s", None, "before", None)
    report("check 16x16 note, float-first, cold start", f"{n / c_f:,.0f} numbers/s", c_e / c_f, "info", None)
    report("check: verification stage, exact path", f"{n / s_e:,.0f} numbers/s", None, "before", None)
    report("check: verification stage, float-first", f"{n / s_f:,.0f} numbers/s", s_e / s_f, "info", None)
    if baseline:
        c_b, w_b, _, u_b = med["baseline"]
        report("check 16x16 note, baseline, warm", f"{n / w_b:,.0f} numbers/s", None, "before", None)
        report("  float-first vs baseline, warm", f"{w_f * 1e3:.0f} ms vs {w_b * 1e3:.0f} ms", w_b / w_f, "info", None)
        report("  same, CPU time of a warm check", f"{u_f * 1e3:.0f} ms vs {u_b * 1e3:.0f} ms", u_b / u_f, "info",
               None)
        report("check 16x16 note, baseline, cold start", f"{n / c_b:,.0f} numbers/s", None, "before", None)
        report("  float-first vs baseline, cold", f"{c_f * 1e3:.0f} ms vs {c_b * 1e3:.0f} ms", c_b / c_f, "info", None)
        phases = check_phases_in_processes(text, repeat, {"this": None, "baseline": baseline})
    else:
        phases = check_phases_in_processes(text, repeat, {"this": None})
    for side, best in phases.items():
        print(f"  ({n} numbers) where a float-first check's time goes, {side} (fastest of {max(3, repeat)} checks "
              "in each of 3 processes, each phase): " + ", ".join(f"{k} {v * 1e3:.1f} ms" for k, v in best.items()))
        ours = sum(best[k] for k in ("Markdown", "reading claims", "verifying", "merging"))
        print(f"  Markdown + reading claims + verifying + merging, {side}: {ours * 1e3:.1f} ms (their share of the "
              "100k/s goal: <= 25 ms)")
    kinds = reading_by_kind(text, max(3, repeat))
    print(f"  where reading claims and verifying go, this, by kind of text (fastest of {max(3, repeat)} checks, "
          "each kind; a table row's cells inside it): "
          + ", ".join(f"{k} {v * 1e3:.1f} ms ({n})" for k, (v, n) in kinds.items()))
    stages = reading_by_stage(text, max(3, repeat))
    print(f"  where reading claims and verifying go, this, by stage, each stage's own time (fastest of "
          f"{max(3, repeat)} checks, each stage; timing adds ~0.4 us to each of ~7k calls): "
          + ", ".join(f"{k} {v * 1e3:.1f} ms" for k, v in stages.items()))
    parts = forms_by_reader(text, max(3, repeat))
    print(f"  where the hand-written forms go, this, each part's own time (fastest of {max(3, repeat)} checks, "
          "each part; the number scan is the merge's too): " + ", ".join(f"{k} {v * 1e3:.1f} ms"
                                                                       for k, v in parts.items()))
    by_reader = numbers_by_reader(text)
    print("  numbers by the reader that decides them, this (records made, verified): "
          + ", ".join(f"{k} {n:,} ({v:,})" for k, (n, v) in by_reader.items()))
    real, free = block_path_bound(text, max(15, repeat))
    print(f"  bound of a block fast path, this: a warm check {real * 1e3:.1f} ms CPU, with its plain matrices decided "
          f"at no cost {free * 1e3:.1f} ms ({n / real:,.0f} vs {n / free:,.0f} numbers/s at most; fastest of "
          f"{max(15, repeat)}, interleaved)")
    if not skip_large:
        bench_check_large()


# one process's phases (``check_phases``), the package first on sys.path being the one measured
CHECK_PHASES_RUN = """import json, sys
sys.path.insert(1, sys.argv[3])
import run as bench
text = open(sys.argv[1], encoding="utf-8").read()
phases = [bench.check_phases(text) for _ in range(int(sys.argv[2]))]
print(json.dumps({k: min(p[k] for p in phases) for k in phases[0]}))
"""


def check_phases_in_processes(text: str, repeat: int, sides: dict) -> dict[str, dict[str, float]]:
    """``check_phases`` of each side (None: this checkout; else a folder holding an attnwalk package) in fresh
    processes, the sides interleaved (3 processes each, ``repeat`` checks in each): the fastest of each phase."""
    with tempfile.TemporaryDirectory(prefix="attnwalk-bench-") as tmp:
        note = Path(tmp) / "note.md"
        note.write_text(text, encoding="utf-8")
        runs: dict[str, list[dict]] = {side: [] for side in sides}
        for _ in range(3):
            for side, folder in sides.items():
                env = {**os.environ, "PYTHONPATH": str(Path(folder).resolve() if folder else REPO)}
                out = subprocess.run([sys.executable, "-c", CHECK_PHASES_RUN, str(note), str(max(3, repeat)),
                                      str(REPO / "benchmarks")], capture_output=True, text=True, check=True, cwd=tmp,
                                     env=env).stdout
                runs[side].append(json.loads(out))
    return {side: {k: min(r[k] for r in rs) for k in rs[0]} for side, rs in runs.items()}


def bench_check_large() -> None:
    """`attnwalk check` of a YOLO11-scale note (N = 1600, ~0.9 MB) against rendering it: a course's CI checks
    what `build` wrote, so checking should cost about what writing did (one process each, median of 3)."""
    with tempfile.TemporaryDirectory(prefix="attnwalk-bench-") as tmp:
        note = str(Path(tmp) / "large.md")
        render = ATTNWALK + ["render", "--h", "40", "--w", "40", "--dim", "256", "--heads", "4", "-o", note]
        check = ATTNWALK + ["check", note]
        t_render, t_check = interleaved([lambda: run_cmd(render), lambda: run_cmd(check)], 3)
        size = Path(note).stat().st_size
    report("check N=1600 note vs rendering it", f"{t_check:.1f} s vs {t_render:.1f} s ({size / 1e6:.1f} MB)",
           t_check / t_render, "info", None)


def check_phases(text: str) -> dict[str, float]:
    """Seconds of one float-first check of ``text`` by phase (each phase's functions wrapped in turn)."""
    import attnwalk.check as C
    from attnwalk.check import checker, human

    spent: dict[str, float] = {}
    phases = [("front matter", C, "resolve"), ("trace", C, "_walk_once"), ("Markdown", C, "segments"),
              ("hand-written forms", human, "find"), ("merging", C, "_merge_human"),
              ("reading claims", checker.Checker, "run"), ("verifying", checker.Checker, "_compare"),
              ("verifying", checker.Checker, "_compare_many"), ("verifying", checker.Checker, "_arith")]
    phases = [p for p in phases if hasattr(p[1], p[2])]  # older code (a baseline) lacks _compare_many
    saved = [(mod, name, getattr(mod, name)) for _, mod, name in phases]

    depth: dict[str, int] = {}

    def wrap(label, fn):
        def timed(*a, **k):
            if depth.get(label):  # inside another function of the same phase (_arith -> _compare): counted there
                return fn(*a, **k)
            depth[label] = 1
            start = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                depth[label] = 0
                spent[label] = spent.get(label, 0.0) + time.perf_counter() - start
        return timed

    C._TRACES.clear()
    C.check_text(text)  # warm
    for label, mod, name in phases:
        setattr(mod, name, wrap(label, getattr(mod, name)))
    try:
        C._TRACES.clear()
        start = time.perf_counter()
        C.check_text(text)
        total = time.perf_counter() - start
    finally:
        for mod, name, fn in saved:
            setattr(mod, name, fn)
    spent["merging"] -= spent.get("hand-written forms", 0.0)  # find runs inside the merge
    spent["reading claims"] -= spent.get("verifying", 0.0)  # compare and arith run inside the reading
    spent["total"] = total
    return spent


def reading_by_kind(text: str, repeat: int) -> dict[str, tuple[float, int]]:
    """Seconds (fastest of ``repeat`` warm checks, each kind) and count of the texts the Checker reads, by kind:
    prose with a relation (=, ≈, :) and without, matrix paragraphs (a ``⟦..⟧`` body: ``$$ A_0 = \\begin{bmatrix}``),
    code blocks, table rows (their cells included), and the plain matrices decided together at the end: where
    reading claims and verifying go, for the next round to aim at."""
    from attnwalk.check import _TRACES, check_text
    from attnwalk.check import checker as K

    spent: dict[str, float] = {}
    count: dict[str, int] = {}
    saved = K.Checker._text, K.Checker._row, K.Checker._flush_plain
    depth = [0]

    def timed(kind_of, fn):
        def wrap(self, *a):
            if depth[0]:  # a cell's text inside a row: counted with the row
                return fn(self, *a)
            kind = kind_of(*a)
            depth[0], start = 1, time.perf_counter()
            try:
                return fn(self, *a)
            finally:
                depth[0] = 0
                spent[kind] = spent.get(kind, 0.0) + time.perf_counter() - start
                count[kind] = count.get(kind, 0) + 1
        return wrap

    def text_kind(nt, line, kind):
        if kind == "code":
            return "code"
        if "⟦" in nt:
            return "matrix paragraphs"
        return "prose with a relation" if K._REL_CHAR.search(nt) else "prose without"

    best: dict[str, float] = {}
    check_text(text)  # warm
    K.Checker._text = timed(text_kind, saved[0])
    K.Checker._row = timed(lambda seg: "table rows", saved[1])
    K.Checker._flush_plain = timed(lambda: "plain matrices at the end", saved[2])
    try:
        for _ in range(repeat):
            spent.clear()
            count.clear()
            _TRACES.clear()
            check_text(text)
            for k, v in spent.items():
                best[k] = min(best.get(k, v), v)
    finally:
        K.Checker._text, K.Checker._row, K.Checker._flush_plain = saved
    return {k: (best[k], count[k]) for k in sorted(best, key=best.get, reverse=True)}


def _own_timer(spent: dict[str, float], root: str | None = None):
    """A factory ``timed(label, fn)`` of wrappers that add each call's own time (less that of the wrapped calls
    inside it) to ``spent[label]``; with ``root``, a call is timed only inside the call labelled ``root``."""
    stack: list[float] = []  # the time of the wrapped calls inside the one running, per level

    def timed(label, fn):
        def wrap(*a, **k):
            if root is not None and not stack and label != root:
                return fn(*a, **k)
            stack.append(0.0)
            start = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                took = time.perf_counter() - start
                inner = stack.pop()
                spent[label] = spent.get(label, 0.0) + took - inner
                if stack:
                    stack[-1] += took
        wrap.__name__ = getattr(fn, "__name__", label)
        wrap.__wrapped__ = fn  # (check.gates asks the wrapped form's gate)
        return wrap
    return timed


def _fastest_each(text: str, repeat: int, spent: dict[str, float]) -> dict[str, float]:
    """Seconds of each label of ``spent`` (filled by the wrappers installed), the fastest of ``repeat`` checks."""
    from attnwalk.check import _TRACES, check_text

    best: dict[str, float] = {}
    for _ in range(repeat):
        spent.clear()
        _TRACES.clear()
        check_text(text)
        for k, v in spent.items():
            best[k] = min(best.get(k, v), v)
    return best


def forms_by_reader(text: str, repeat: int) -> dict[str, float]:
    """Seconds (fastest of ``repeat`` warm checks, each part) of the hand-written forms (``human.find``) by part,
    each part's own time (the parts it calls counted where they belong): the note's scan of numbers (which the
    merge needs anyway: whoever asks first pays it), the LaTeX matrices, the code grids, the shapes, the other
    block forms, the forms after the blocks, the judging, the gates (``check.gates``: each form's trigger, asked
    once a note), and the rest: what a shared index of matrices could save."""
    from attnwalk.check import check_text, forms, human, shapes

    parts = [("number scan", human, "_scan"), ("LaTeX matrices", human, "latex_blocks"),
             ("code grids", human, "grid_blocks"), ("shapes", shapes, "claims"), ("judging", human, "best_reading"),
             ("gates", forms, "opens"), ("hand-written forms", human, "find")]
    parts = [p for p in parts if hasattr(p[1], p[2])]  # older code (a baseline) has no gates
    saved = [(mod, name, getattr(mod, name)) for _, mod, name in parts]
    saved_forms = list(forms.BLOCK_FORMS), list(forms.AFTER_FORMS)
    spent: dict[str, float] = {}
    timed = _own_timer(spent)

    check_text(text)  # warm
    for label, mod, name in parts:
        setattr(mod, name, timed(label, getattr(mod, name)))
    forms.BLOCK_FORMS[:] = [timed("other block forms", f) for f in saved_forms[0]]
    # each form after the blocks timed by name; those under AFTER_NAMED are summed below (26 forms, most ~0.1 ms)
    forms.AFTER_FORMS[:] = [timed(f"after: {f.__name__}", f) for f in saved_forms[1]]
    try:
        best = _fastest_each(text, repeat, spent)
    finally:
        for mod, name, fn in saved:
            setattr(mod, name, fn)
        forms.BLOCK_FORMS[:], forms.AFTER_FORMS[:] = saved_forms
    best["the rest"] = best.pop("hand-written forms")
    small = [k for k, v in best.items() if k.startswith("after: ") and v < AFTER_NAMED]
    best["other forms after the blocks"] = sum(best.pop(k) for k in small)
    return dict(sorted(best.items(), key=lambda kv: -kv[1]))


AFTER_NAMED = 0.5e-3  # seconds: a form after the blocks that takes this long is named in ``forms_by_reader``


def reading_by_stage(text: str, repeat: int) -> dict[str, float]:
    """Seconds (fastest of ``repeat`` warm checks, each stage) of reading claims and verifying (``Checker.run``) by
    stage, each stage's own time (the stages it calls counted where they belong): LaTeX flattening, tokens, parsing,
    label lookups, float enclosures of arithmetic, comparisons and records, the claims' own logic (``_chain`` and
    the checks it runs, bindings, schemas), the token walk, the fast readers' matching, table rows and the rest
    (``run``'s own: context, segments): whether one stage holds what the 100k/s goal still needs."""
    from attnwalk.check import bounds, check_text, checker

    K = checker.Checker
    parts = [("LaTeX flattening", checker, "normalize"), ("tokens", checker, "tokenize"),
             ("parsing", checker, "parse_chain"), ("label lookups", checker, "label_at"),
             ("enclosures", bounds, "claim"), ("comparisons and records", K, "_compare"),
             ("comparisons and records", K, "_compare_many"), ("comparisons and records", K, "_record_plain"),
             ("comparisons and records", K, "_rec"), ("comparisons and records", K, "_decimals"),
             ("claims' own logic", K, "_chain"), ("the token walk", K, "_at"), ("the token walk", K, "_text"),
             ("fast readers", K, "_labelled_values"), ("fast readers", K, "_dot_lines"), ("table rows", K, "_row"),
             ("table rows", K, "_cell"), ("reading claims", K, "run")]
    parts = [p for p in parts if hasattr(p[1], p[2])]
    saved = [(mod, name, getattr(mod, name)) for _, mod, name in parts]
    spent: dict[str, float] = {}
    timed = _own_timer(spent, root="reading claims")  # another reader's call (the merge's) is not reading's

    check_text(text)  # warm
    for label, mod, name in parts:
        setattr(mod, name, timed(label, getattr(mod, name)))
    try:
        best = _fastest_each(text, repeat, spent)
    finally:
        for mod, name, fn in reversed(saved):
            setattr(mod, name, fn)
    best["the rest"] = best.pop("reading claims")
    return dict(sorted(best.items(), key=lambda kv: -kv[1]))


# the readers of ``Checker`` whose records ``numbers_by_reader`` counts, by what they read (a method
# called inside another counts its own records: a table cell's text inside its row counts as the row's)
READERS = [("plain matrices", "_check_plain"), ("plain matrices", "_flush_plain"), ("lists", "_compare_many"),
           ("table rows", "_row"), ("labelled values", "_labelled_values"), ("worked dot products", "_dot_lines"),
           ("the token walk", "_text")]


def numbers_by_reader(text: str) -> dict[str, tuple[int, int]]:
    """(records made, of them verified) of one check of ``text`` by the Checker's reader that made each record
    (``READERS``; "plain matrices" and "lists" are the block path: ``PlainMat.cells``, ``bounds.close_many``,
    ``_new_passes``), the Checker's records no reader of ``READERS`` made ("elsewhere in the Checker": none in our
    notes), and the rest of the report's records, the merge's and the post-passes' (integers, the hand-written
    forms' numbers): how many numbers a faster block path could reach at all."""
    from itertools import islice

    from attnwalk.check import _TRACES, check_text
    from attnwalk.check import checker as K

    made: dict[str, set] = {}
    stack: list[set] = []  # the record keys made by the wrapped calls inside the one running, per level
    checkers: list = []

    def counted(label, fn):
        def wrap(self, *a):
            before = len(self.recs)
            stack.append(set())
            try:
                return fn(self, *a)
            finally:
                new = set(islice(self.recs, before, None))  # the Checker's dict of records only grows, in order
                inner = stack.pop()
                made.setdefault(label, set()).update(new - inner)
                if stack:
                    stack[-1] |= new
        return wrap

    def run(self, segs):
        checkers.append(self)
        return saved_run(self, segs)

    saved_run = K.Checker.run
    saved = [(name, getattr(K.Checker, name)) for _, name in READERS]
    for (label, name), (_, fn) in zip(READERS, saved):
        setattr(K.Checker, name, counted(label, fn))
    K.Checker.run = run
    try:
        _TRACES.clear()
        report = check_text(text)
    finally:
        for name, fn in saved:
            setattr(K.Checker, name, fn)
        K.Checker.run = saved_run
    (ck,) = checkers
    elsewhere = set(ck.recs).difference(*made.values())
    if elsewhere:
        made["elsewhere in the Checker"] = elsewhere
    out = {label: (len(keys), sum(ck.recs[key].status == "verified" for key in keys)) for label, keys in made.items()}
    out["the merge and post-passes (integers, hand-written forms)"] = (
        len(report.recs) - len(ck.recs), len(report.verified) - sum(r.status == "verified" for r in ck.recs.values()))
    return dict(sorted(out.items(), key=lambda kv: -kv[1][0]))


def block_path_bound(text: str, repeat: int) -> tuple[float, float]:
    """CPU seconds (fastest of ``repeat``, interleaved) of a warm check of ``text`` and of the same check with its
    plain matrices decided at no cost (``_check_plain``'s bulk cells and ``_flush_plain``: their records handed
    over from an earlier check, made outside the timing; the verdicts asserted equal): the most any faster block
    path (cells parsed, compared and recorded in bulk) can save, the rest of the check being as it is."""
    from attnwalk.check import _TRACES, check_text
    from attnwalk.check import checker as K

    C = K.Checker
    real_plain, real_flush, real_run = C._check_plain, C._flush_plain, C.run
    bodies: set = set()  # (segment, body start, end) of the matrices _check_plain recorded in bulk
    kept: dict = {}  # their records, by key

    def plain_seen(self, ref, node):
        n = len(self.plain_done)
        real_plain(self, ref, node)
        if len(self.plain_done) > n:
            bodies.add(self.plain_done[-1])

    def run_seen(self, segs):
        out = real_run(self, segs)
        kept.update(((sid, at), rec) for (sid, at), rec in self.recs.items()
                    if any(s == sid and a <= at < b for s, a, b in bodies))
        return out

    fresh: dict = {}

    def plain_free(self, ref, node):
        if (self.seg_id, *node.body) not in bodies:
            return real_plain(self, ref, node)
        self.plain_done.append((self.seg_id, *node.body))  # what the token walk reads of a recorded matrix

    def flush_free(self):
        real_flush(self)  # (none left pending: every bulk matrix was handed over)
        self.recs.update(fresh)

    def check(free: bool):
        nonlocal fresh
        if free:
            fresh = {key: K.NumRec(r.line, r.text, list(r.checks), r.operand, r.fix) for key, r in kept.items()}
            C._check_plain, C._flush_plain = plain_free, flush_free
        try:
            _TRACES.clear()
            start = time.process_time()
            report = check_text(text)
            return time.process_time() - start, report
        finally:
            C._check_plain, C._flush_plain = real_plain, real_flush

    C._check_plain, C.run = plain_seen, run_seen
    try:
        check(False)
    finally:
        C._check_plain, C.run = real_plain, real_run
    verdicts = [[(r.line, r.text, r.status) for r in check(free)[1].recs] for free in (False, True)]
    assert verdicts[0] == verdicts[1], "the bound's check must give the same verdicts"
    real, free = [], []
    for _ in range(repeat):
        real.append(check(False)[0])
        free.append(check(True)[0])
    return min(real), min(free)


def bench_check_many(repeat: int, baseline: str | None = None) -> None:
    """`attnwalk check` of the course's notes (examples/notes/*.md and *.ipynb, as its CI runs it): over worker
    processes (the default on 2+ CPUs) against one process (``ATTNWALK_THREADS=1``) and, with ``baseline``, that
    package's check, in fresh processes, interleaved; wall and CPU time (the workers' included). The outputs must
    be the same bytes on every side."""
    notes = sorted(str(p) for p in (REPO / "examples" / "notes").iterdir() if p.suffix in (".md", ".ipynb"))
    notes = [p for p in notes if p.endswith(".md")] + [p for p in notes if p.endswith(".ipynb")]  # the CI's order
    outputs: dict[str, set] = {}

    def side(name: str, threads: str, folder: str | None):
        env = {**os.environ, "ATTNWALK_THREADS": threads, "PYTHONPATH": str(Path(folder).resolve() if folder else REPO)}

        def go():
            with tempfile.TemporaryDirectory(prefix="attnwalk-bench-") as tmp:  # cwd: no other package beside it
                out = subprocess.run(ATTNWALK + ["check", *notes], capture_output=True, cwd=tmp, env=env)
            outputs.setdefault(name, set()).add((out.returncode, out.stdout, out.stderr))
        return go

    sides = {"workers": side("workers", "2", None), "one process": side("one process", "1", None)}
    if baseline:
        sides["baseline"] = side("baseline", "1", baseline)
    (wall, cpu) = interleaved_cpu(list(sides.values()), max(3, repeat))
    assert all(len(v) == 1 for v in outputs.values()) and len(set().union(*outputs.values())) == 1, \
        "check of many files: the sides' outputs differ"
    t = dict(zip(sides, wall))
    c = dict(zip(sides, cpu))
    report(f"check {len(notes)} course notes, 2 workers vs 1 process",
           f"{t['workers'] * 1e3:.0f} ms vs {t['one process'] * 1e3:.0f} ms", t["workers"] / t["one process"], "info",
           None)
    report("  same, CPU time (workers included)", f"{c['workers'] * 1e3:.0f} ms vs {c['one process'] * 1e3:.0f} ms",
           c["workers"] / c["one process"], "info", None)
    if baseline:
        report("  2 workers vs baseline (1 process)", f"{t['workers'] * 1e3:.0f} ms vs {t['baseline'] * 1e3:.0f} ms",
               t["workers"] / t["baseline"], "info", None)
        report("  same, CPU time", f"{c['workers'] * 1e3:.0f} ms vs {c['baseline'] * 1e3:.0f} ms",
               c["workers"] / c["baseline"], "info", None)


# 5. build --------------------------------------------------------------------------------------

def bench_build(repeat: int, t_render: float) -> None:
    from attnwalk.build import CACHE_NAME, build

    with tempfile.TemporaryDirectory(prefix="attnwalk-bench-") as tmp:
        course = Path(tmp) / "examples"
        shutil.copytree(REPO / "examples", course, ignore=shutil.ignore_patterns(CACHE_NAME))
        manifest = course / "course.toml"

        big = Path(tmp) / "big"
        big.mkdir()
        (big / "course.toml").write_text("".join(
            f'[[walkthrough]]\nname = "n{i}"\noptions = {{ h = 6, w = 6, dim = 8, heads = 2, seed = {i} }}\n'
            f'langs = ["vi", "en"]\noutput = "notes/{{name}}.{{lang}}.md"\n\n' for i in range(16)), encoding="utf-8")

        def full(workers):
            def go():
                shutil.rmtree(big / "notes", ignore_errors=True)
                (big / CACHE_NAME).unlink(missing_ok=True)
                build(big / "course.toml", workers=workers)
            return go

        full(None)()
        t_serial, t_parallel = interleaved([full(1), full(None)], max(3, repeat // 2))
        report("build 16 walkthroughs x 2 langs, CPUs vs 1", f"{t_parallel * 1e3:.0f} ms vs {t_serial * 1e3:.0f} ms",
               t_parallel / t_serial, "info", None)
        noop_cmd = ATTNWALK + ["build", str(manifest)]
        quiet = [lambda: subprocess.run(noop_cmd, capture_output=True, check=True)]
        interleaved(quiet, 1)
        (t_noop,) = interleaved(quiet, repeat)
        ratio = t_noop / t_render
        report("no-op rebuild vs one render start-up", f"{t_noop * 1e3:.0f} ms vs {t_render * 1e3:.0f} ms", ratio,
               "<= 1.5", ratio <= 1.5)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, default=2, help="threads for the engine and torch [2]")
    parser.add_argument("--repeat", type=int, default=5, help="runs per median [5]")
    parser.add_argument("--skip", default="",
                        help="comma-separated: engine,export,render,check,check-large,check-many,build")
    parser.add_argument("--engine-baseline", metavar="DIR", help="a folder holding another attnwalk package, whose "
                        "engine's first forward is timed in the same fresh-process rounds")
    parser.add_argument("--check-baseline", metavar="DIR", help="a folder holding another attnwalk package, whose "
                        "check is timed beside this one")
    parser.add_argument("--render-baseline", metavar="DIR", help="a folder holding another attnwalk package (and "
                        "links to templates/ and examples/), whose render is timed beside this one")
    args = parser.parse_args()
    skip = set(filter(None, args.skip.split(",")))
    print(f"attnwalk benchmarks: python {sys.version.split()[0]}, {os.cpu_count()} CPUs, "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print(f"{'benchmark':<44} {'measured':>22} {'ratio':>7}  target")
    t_render = None
    if "render" not in skip or "build" not in skip:
        t_render = bench_render(args.repeat, args.render_baseline)
    if "engine" not in skip:
        bench_engine(args.threads, args.repeat, args.engine_baseline)
    if "export" not in skip:
        bench_export()
    if "check" not in skip:
        bench_check(args.repeat, args.check_baseline, "check-large" in skip)
    if "check-many" not in skip:
        bench_check_many(args.repeat, args.check_baseline)
    if "build" not in skip:
        bench_build(args.repeat, t_render)


if __name__ == "__main__":
    main()
