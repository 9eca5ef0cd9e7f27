"""The CLI starts OpenBLAS with one thread (start-up) and widens it for large problems."""

import subprocess
import sys

CODE = """
from attnwalk.engine.blas import narrow_for_startup
narrow_for_startup()
import ctypes, os
import numpy, attnwalk
from attnwalk.engine.blas import worker_count
paths = sorted({l.split()[-1] for l in open("/proc/self/maps") if "openblas" in l.lower() and "/" in l})
lib = ctypes.CDLL(paths[0])
get = next(getattr(lib, n) for n in ("scipy_openblas_get_num_threads64_", "scipy_openblas_get_num_threads",
                                     "openblas_get_num_threads64_", "openblas_get_num_threads") if hasattr(lib, n))
attnwalk.walk(h=3, w=3)
small = get()
attnwalk.walk(h=24, w=24, dim=64, heads=4)
print(small, get(), worker_count(), os.environ["OPENBLAS_NUM_THREADS"])
"""


def test_one_blas_thread_for_a_small_note_then_every_cpu_for_a_large_one():
    env = {k: v for k, v in __import__("os").environ.items() if k not in ("OPENBLAS_NUM_THREADS", "ATTNWALK_THREADS")}
    out = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, env=env, check=True).stdout
    small, large, cpus, env_value = out.split()
    assert (int(small), env_value) == (1, "1")
    assert int(large) == min(int(cpus), 64)


def test_a_users_choice_of_blas_threads_is_kept():
    env = {**__import__("os").environ, "OPENBLAS_NUM_THREADS": "1"}
    code = CODE.replace("print(small, get(), worker_count(), os.environ[\"OPENBLAS_NUM_THREADS\"])",
                        "print(small, get())")
    small, large = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                                  check=True).stdout.split()
    assert (small, large) == ("1", "1")
