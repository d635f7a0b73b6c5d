"""Shared fixtures and hypothesis strategies."""

import os

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import settings
from hypothesis import strategies as st

# Scripts launched under mpiexec (mpi/) or in a child interpreter (fuzz/) by the tests,
# not test modules themselves.
collect_ignore_glob = ["mpi/*", "fuzz/*"]

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
