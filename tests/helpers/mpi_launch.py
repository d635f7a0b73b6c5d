"""Launch ``mpiexec -n P python -m mpi4py SCRIPT ...`` from a pytest process (shared helper).

``-m mpi4py`` turns an exception on one rank into MPI_Abort of the job, so a failure ends the
run with a message and a non-zero exit instead of a hang; the subprocess timeout is a
backstop.  Used by ``tests/dist/test_dist.py`` and ``tests/dist/test_dist_faults.py``.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MPI_SCRIPTS = ROOT / "tests" / "mpi"
TIMEOUT = 120


@functools.cache
def mpiexec():
    """``(mpiexec, extra arguments)``: the one next to the interpreter (the venv's mpich),
    else the one on PATH (Open MPI gets ``--oversubscribe --allow-run-as-root``); None if
    there is none."""
    here = Path(sys.executable).parent / "mpiexec"
    exe = str(here) if here.exists() else shutil.which("mpiexec")
    if exe is None:
        return None
    try:
        info = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30)
        text = info.stdout + info.stderr
    except (OSError, subprocess.TimeoutExpired):
        return None
    open_mpi = any(mark in text for mark in ("Open MPI", "OpenRTE", "open-mpi"))
    extra = ["--oversubscribe", "--allow-run-as-root", "--bind-to", "none"] if open_mpi else []
    return exe, extra


def launch(P, script, *args, module=None, timeout=TIMEOUT, env=None):
    """Run ``mpiexec -n P python -m mpi4py (script | -m module) args``.

    Parameters
    ----------
    P : int
        Number of ranks.
    script : str or Path
        The script (a bare name is looked up in ``tests/mpi/``); ignored with ``module``.
    *args : str
        Arguments after the script.
    module : str, optional
        Run ``-m module`` instead of a script.
    timeout : float
        Seconds before the job counts as hung (the test fails).
    env : dict, optional
        Extra environment variables.

    Returns
    -------
    subprocess.CompletedProcess
        With text ``stdout`` and ``stderr``.  Skips the test when there is no mpiexec.
    """
    found = mpiexec()
    if found is None:
        pytest.skip("no mpiexec")
    exe, extra = found
    full_env = dict(os.environ)
    full_env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT),
                                                           full_env.get("PYTHONPATH")]))
    full_env.setdefault("HYDRA_LAUNCHER", "fork")      # mpich: no ssh, single host
    full_env.setdefault("OMP_NUM_THREADS", "1")
    full_env.setdefault("NCCL_NVLS_ENABLE", "0")
    full_env.setdefault("PYTHONUNBUFFERED", "1")
    full_env.update(env or {})
    if module:
        target = ["-m", module]
    else:
        path = Path(script)
        target = [str(path if path.is_absolute() else MPI_SCRIPTS / path)]
    cmd = [exe, *extra, "-n", str(P), sys.executable, "-m", "mpi4py", *target, *args]
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                              env=full_env, cwd=ROOT)
    except subprocess.TimeoutExpired as e:  # pragma: no cover - the failure we guard against
        pytest.fail(f"{' '.join(cmd)} hung for {timeout} s:\n{e.stdout}\n{e.stderr}")
