"""Shared fixtures and hypothesis strategies."""

import os
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import settings
from hypothesis import strategies as st

# Scripts launched under mpiexec (mpi/) or in a child interpreter by the tests, and the
# modules the tests share (helpers/): not test modules themselves.  The tests mirror the
# package (core/, cpu/, gpu/, semiring/, algorithms/, dist/, nx/, graph500/; the faces and
# package-wide checks at the top) and import the helpers by name.
collect_ignore_glob = ["mpi/*", "helpers/*"]
sys.path.insert(0, str(Path(__file__).resolve().parent / "helpers"))

settings.register_profile("ci", max_examples=60, deadline=None)
# SPBFS_HYPOTHESIS_PROFILE=quick: fewer examples, for time-boxed runs on a lent GPU
settings.register_profile("quick", max_examples=8, deadline=None)
settings.load_profile(os.environ.get("SPBFS_HYPOTHESIS_PROFILE", "ci"))


def _gpu_available() -> bool:
    try:
        import cupy
    except ImportError:
        return False
    try:
        return bool(cupy.cuda.is_available())
    except Exception:
        return False


def pytest_collection_modifyitems(config, items):
    if _gpu_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU and CuPy")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@st.composite
def unsorted_csr(draw, nrows, ncols, max_nnz):
    """An ``nrows x ncols`` scipy CSR (ones) whose rows keep their entries in the order
    drawn: unsorted columns, duplicates (and, square, self-loops) included."""
    nnz = draw(st.integers(0, max_nnz))
    rows = np.sort(np.array(draw(st.lists(st.integers(0, nrows - 1), min_size=nnz,
                                          max_size=nnz)), np.int64))
    cols = np.array(draw(st.lists(st.integers(0, ncols - 1), min_size=nnz, max_size=nnz)),
                    np.int32)
    indptr = np.zeros(nrows + 1, np.int64)
    np.cumsum(np.bincount(rows, minlength=nrows), out=indptr[1:])
    A = sp.csr_array((np.ones(nnz), cols, indptr), shape=(nrows, ncols))
    A.has_sorted_indices = False
    return A


@st.composite
def graphs(draw, max_n=40, max_m=200, weights="int"):
    """A random square scipy CSR matrix: self-loops, duplicates, explicit zeros, isolated
    vertices and int32 or int64 index arrays all occur."""
    n = draw(st.integers(1, max_n))
    m = draw(st.integers(0, max_m))
    rows = np.array(draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m)), dtype=np.int64)
    cols = np.array(draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m)), dtype=np.int64)
    if weights == "int":
        data = np.array(draw(st.lists(st.integers(0, 3), min_size=m, max_size=m)), dtype=np.int64)
    else:  # multiples of 1/4: sums are exact, so ties are real ties
        data = np.array(draw(st.lists(st.integers(0, 40), min_size=m, max_size=m)),
                        dtype=np.float64) / 4
    # Build without summing duplicates so explicit zeros stay stored.
    A = sp.coo_array((data, (rows, cols)), shape=(n, n)).tocsr()
    idx_dtype = draw(st.sampled_from([np.int32, np.int64]))
    A.indices = A.indices.astype(idx_dtype)
    A.indptr = A.indptr.astype(idx_dtype)
    return A


@pytest.fixture
def path_graph():
    """0 -> 1 -> 2 -> 3, plus an isolated vertex 4."""
    return sp.csr_array(([1, 1, 1], ([0, 1, 2], [1, 2, 3])), shape=(5, 5))


@st.composite
def multigraphs(draw, max_n=40, max_m=200, weights="int", symmetric=False):
    """``graphs()`` with duplicated entries (other values), rows in random order and, for
    ``symmetric=True``, every entry also stored transposed: a CSR that keeps its
    duplicates and explicit zeros (scipy's tocsr would sum them)."""
    A = sp.coo_array(draw(graphs(max_n=max_n, max_m=max_m, weights=weights)))
    n, rows, cols, data = A.shape[0], A.row, A.col, A.data
    if rows.size:
        pick = np.array(draw(st.lists(st.integers(0, rows.size - 1), max_size=12)), np.int64)
        extra = np.array(draw(st.lists(st.integers(0, 3), min_size=pick.size,
                                       max_size=pick.size)), data.dtype)
        rows, cols = np.concatenate([rows, rows[pick]]), np.concatenate([cols, cols[pick]])
        data = np.concatenate([data, extra])
    if symmetric:
        rows, cols = np.concatenate([rows, cols]), np.concatenate([cols, rows])
        data = np.concatenate([data, data])
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    order = rng.permutation(rows.size)
    order = order[np.argsort(rows[order], kind="stable")]  # rows grouped, columns unsorted
    idt = draw(st.sampled_from([np.int32, np.int64]))
    indptr = np.zeros(n + 1, idt)
    np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
    return sp.csr_array((data[order], cols[order].astype(idt), indptr), shape=(n, n))


#: numpy in CI, cupy on a GPU machine (gpu-marked).
DEVICES = ["numpy", pytest.param("cupy", marks=pytest.mark.gpu)]


def on_device(device, A):
    """A scipy matrix on the device: cupyx CSR (float64 values, int32 indices) for cupy."""
    if device == "numpy":
        return A
    import cupyx.scipy.sparse as csp

    A = sp.csr_matrix(A, dtype=np.float64)
    A.indices, A.indptr = A.indices.astype(np.int32), A.indptr.astype(np.int32)
    return csp.csr_matrix(A)


def to_host(a):
    """A numpy copy of a numpy or cupy array."""
    return a.get() if hasattr(a, "get") else np.asarray(a)
