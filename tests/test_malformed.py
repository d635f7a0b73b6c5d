"""Malformed matrices and bad arguments never crash the process.

The cases live in ``tests/helpers/malformed_cases.py`` (hypothesis-built CSR/CSC/COO
structures with one defect each, for every public function, and bad arguments); they run
under pytest in a child interpreter, so a segmentation fault or abort fails this test
with the child's output instead of killing the test run.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "tests" / "helpers" / "malformed_cases.py"


def _run_cases(device):
    env = dict(os.environ, SPBFS_FUZZ_DEVICE=device)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x", str(CASES)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=900, env=env, cwd=ROOT)
    out = (r.stdout + r.stderr)[-6000:]
    assert r.returncode == 0, f"child exited with {r.returncode} (negative: killed by a " \
                              f"signal):\n{out}"
    assert " passed" in r.stdout and "failed" not in r.stdout, out


def test_malformed_inputs_raise_documented_errors_on_the_cpu():
    _run_cases("cpu")


@pytest.mark.gpu
def test_malformed_inputs_raise_documented_errors_on_the_gpu():
    _run_cases("gpu")
