"""The CPU's transpose over threads (``spbfs.cpu.transpose.csr_transpose``, behind
``Matrix.T``) against scipy's ``tocsc``: the same arrays, each column's rows ascending, and
the positions every entry came from."""

from unittest import mock

import numpy as np
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import spbfs
from spbfs.cpu import transpose


@settings(deadline=None, max_examples=60)
@given(st.integers(0, 30), st.integers(1, 30), st.integers(0, 300), st.integers(1, 4),
       st.integers(0, 2**32 - 1))
def test_equals_scipy_on_any_threads(n, ncols, nnz, threads, seed):
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, max(n, 1), nnz if n else 0)
    cols = rng.integers(0, ncols, rows.size)
    A = sp.csr_array((np.arange(rows.size), (rows, cols)), shape=(n, ncols))
    spbfs.set_num_threads(threads)
    try:
        with mock.patch.object(transpose, "PARALLEL_ENTRIES", 1):
            ptr, idx, pos = transpose.csr_transpose(A.indptr, A.indices, ncols, np.int32,
                                                    np.int64)
    finally:
        spbfs.set_num_threads(None)
    C = sp.csr_array((np.arange(A.nnz), A.indices, A.indptr), shape=A.shape).tocsc()
    np.testing.assert_array_equal(ptr, C.indptr)
    np.testing.assert_array_equal(idx, C.indices)
    np.testing.assert_array_equal(pos, C.data)


def test_matrix_transpose_on_threads_keeps_values():
    """``Matrix.T`` over four threads: its values gathered through the positions."""
    from spbfs.graph500.generate import kronecker
    from spbfs.semiring import Matrix

    u, v = kronecker(12, 8, seed=2)
    A = sp.csr_array((np.arange(u.size, dtype=float), (u, v)), shape=(4096, 4096))
    spbfs.set_num_threads(4)
    try:
        with mock.patch.object(transpose, "PARALLEL_ENTRIES", 1):
            T = Matrix.from_any(A).T.to_scipy()
    finally:
        spbfs.set_num_threads(None)
    assert (T != A.T.tocsr()).nnz == 0
