"""The CLI's start-up shortens how long OpenBLAS's idle workers spin, unless the user chose."""

import os
import subprocess
import sys

import pytest

CODE = """
from attnwalk.engine.blas import narrow_for_startup
narrow_for_startup()
import ctypes
import numpy
paths = sorted({l.split()[-1] for l in open("/proc/self/maps") if "openblas" in l.lower() and "/" in l})
lib = ctypes.CDLL(paths[0]) if paths else None
fn = getattr(lib, "openblas_thread_timeout", None)
print(fn() if fn is not None else "none")
"""


def _timeout_read_by_openblas(**env_changes) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_THREAD_TIMEOUT", "OPENBLAS_NUM_THREADS")}
    env.update(env_changes)
    out = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, env=env, check=True).stdout
    value = out.split()[-1]
    if value == "none":
        pytest.skip("this NumPy's BLAS is not an OpenBLAS exporting openblas_thread_timeout")
    return value


def test_openblas_reads_the_short_spin_the_cli_sets():
    from attnwalk.engine.blas import SPIN_TIMEOUT

    assert _timeout_read_by_openblas() == SPIN_TIMEOUT == "20"


def test_a_users_spin_timeout_is_kept_even_with_their_thread_count():
    assert _timeout_read_by_openblas(OPENBLAS_THREAD_TIMEOUT="26", OPENBLAS_NUM_THREADS="2") == "26"
