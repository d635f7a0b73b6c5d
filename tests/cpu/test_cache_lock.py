"""numba's disk cache under spbfs's lock: processes that compile different signatures of
one cached kernel at once leave a cache that gives every signature its own code."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

MODULE = """
from spbfs.cpu._jit import kernel


@kernel
def doubled_sum(a):
    s = a[0] * 0
    for x in a:
        s += x * 2
    return s
"""
DTYPES = ["int16", "int32", "int64", "uint32", "float32", "float64"]


@pytest.mark.skipif(os.name != "posix", reason="the lock is fcntl's")
def test_concurrent_compiles_leave_every_signature_its_own_code(tmp_path):
    """Without the lock, six processes each compiling one signature from an empty cache
    left it pairing a signature with another's code in 4 of 15 rounds."""
    (tmp_path / "cachedmod.py").write_text(MODULE)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(tmp_path), *filter(None, [os.environ.get("PYTHONPATH")])]),
        "NUMBA_CACHE_DIR": ""}
    one = ("import sys, numpy as np, cachedmod; "
           "print(cachedmod.doubled_sum(np.arange(10, dtype=sys.argv[1])))")
    check = ("import numpy as np, cachedmod; "
             f"print([float(cachedmod.doubled_sum(np.arange(10, dtype=d))) for d in {DTYPES}])")
    for _ in range(3):
        for cache in tmp_path.glob("__pycache__/cachedmod.*"):
            cache.unlink()
        runs = [subprocess.Popen([sys.executable, "-c", one, d], env=env, cwd=tmp_path,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
                for d in DTYPES]
        for run in runs:
            _, err = run.communicate(timeout=300)
            assert run.returncode == 0, err
        out = subprocess.run([sys.executable, "-c", check], env=env, cwd=tmp_path,
                             capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr
        assert out.stdout.strip() == str([90.0] * len(DTYPES))
        assert len(list(tmp_path.glob("__pycache__/cachedmod.doubled_sum-*.nbc"))) == 6


def test_a_save_stopped_between_its_writes_names_no_stale_code(tmp_path):
    """numba's save wrote the index before the data: stopped in between, the index named a
    data file left by an older version of the source, whose code later loads ran (the
    cause of a segmentation fault in ``spbfs.cpu.permute`` seen with a long-lived cache).
    spbfs's save writes the data first, so the entry stays unnamed."""
    from numba.core.caching import IndexDataCacheFile

    import spbfs.cpu._jit  # noqa: F401 - installs the save

    old = IndexDataCacheFile(str(tmp_path), "f", ("old source", 1))
    old.save("old signature", "old code")  # data file 1, then the source changes:
    new = IndexDataCacheFile(str(tmp_path), "f", ("new source", 2))
    assert new.load("new signature") is None

    def stopped(self, name, data):
        raise KeyboardInterrupt("stopped between the writes")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(IndexDataCacheFile, "_save_data", stopped)
        with pytest.raises(KeyboardInterrupt):
            new.save("new signature", "new code")
    assert new.load("new signature") is None  # numba's order loaded "old code" here
    new.save("new signature", "new code")
    assert new.load("new signature") == "new code"
