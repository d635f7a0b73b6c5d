"""n or nnz of 2**31 or more takes int64 indices on every path; nothing overflows.

The index-type decisions are checked at n = 2**31 + 5 without allocating anything of size
n.  The end-to-end search at that size needs about 60 GB of host memory (CSR row pointers,
levels and parents of 2**31 + 5 int64 entries each); it runs where that much is available
(the device hosts have 128 GB and more) and is skipped, saying why, elsewhere.
"""

import numpy as np
import pytest
import scipy.sparse as sp

import spbfs
from spbfs.core.arrays import index_dtype

BIG_N = 2**31 + 5
NEEDED_BYTES = 64 << 30


def _available_bytes():
    try:
        with open("/proc/meminfo") as f:
            info = dict(line.split(":", 1) for line in f)
        return int(info["MemAvailable"].split()[0]) * 1024
    except (OSError, KeyError, ValueError):
        return 0


def test_index_dtype_switches_to_int64_at_2_31():
    assert index_dtype(2**31 - 1) == np.int32
    assert index_dtype(BIG_N) == np.int64
    assert index_dtype(10, nnz=2**31) == np.int64


def test_out_of_range_ids_above_2_31_are_named_not_wrapped():
    rows = np.array([0, BIG_N], dtype=np.int64)  # BIG_N is outside [0, BIG_N)
    A = sp.coo_array((BIG_N, BIG_N))
    A.coords = (rows, np.array([1, 2], dtype=np.int64))
    A.data = np.ones(2)
    with pytest.raises(ValueError, match=f"A.row has an entry {BIG_N} outside"):
        spbfs.bfs(A, 0)


@pytest.mark.bigmem
@pytest.mark.skipif(_available_bytes() < NEEDED_BYTES,
                    reason=f"needs {NEEDED_BYTES >> 30} GB of free host memory")
def test_search_at_n_2_31_plus_5_uses_int64_throughout():
    top = BIG_N - 1
    rows = np.array([top, 0, 2**31 + 1, 7], dtype=np.int64)
    cols = np.array([0, 2**31 + 1, 7, 2**31], dtype=np.int64)
    A = sp.coo_array((np.ones(4), (rows, cols)), shape=(BIG_N, BIG_N))
    levels, parents = spbfs.bfs(A, top, return_parents=True, direction="push")
    assert levels.dtype == np.int64 and parents.dtype == np.int64
    path = [top, 0, 2**31 + 1, 7, 2**31]
    assert levels[path].tolist() == [0, 1, 2, 3, 4]
    assert parents[path].tolist() == [top, top, 0, 2**31 + 1, 7]
    assert int((levels >= 0).sum()) == 5
