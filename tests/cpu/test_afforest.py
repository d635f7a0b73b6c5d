"""The CPU's weak components (Afforest, :mod:`spbfs.cpu.weak`) split over threads, against
scipy.sparse.csgraph: every arc sampled, skipped or linked by a compare-and-swap."""

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph
from conftest import multigraphs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import spbfs
from spbfs.cpu import weak
from spbfs.cpu._atomic import cas, fetch_add
from spbfs.cpu._jit import kernel
from spbfs.graph500.generate import kronecker


@pytest.fixture
def split_small(monkeypatch):
    """Every call split over 3 threads, however small, a few vertices per chunk."""
    monkeypatch.setattr(weak, "PARALLEL_ARCS", 0)
    monkeypatch.setattr(weak, "CHUNK", 3)
    monkeypatch.setattr(weak, "SAMPLE_CHUNK", 2)
    spbfs.set_num_threads(3)
    yield
    spbfs.set_num_threads(None)


def _check(A, symmetric):
    k, labels = weak.weak_components(A.indptr, A.indices, symmetric)
    k_ref, expected = csgraph.connected_components(A, directed=True, connection="weak")
    assert k == k_ref
    assert labels.dtype == np.int32
    np.testing.assert_array_equal(labels, expected)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])  # set once, kept
@given(multigraphs(max_n=60, max_m=240), st.booleans())
def test_threaded_labels_equal_scipy(split_small, A, symmetric):
    if symmetric:
        A = sp.csr_array(A + A.T)  # the largest tree's vertices then skip their arcs
    _check(A, symmetric)


@pytest.mark.parametrize("symmetric", [True, False])
@pytest.mark.parametrize("threads", [1, 2, 8])
def test_kronecker_with_isolated_vertices(symmetric, threads):
    u, v = kronecker(14, 8, seed=5)
    n = 1 << 14
    A = sp.csr_array((np.ones(u.size), (u, v)), shape=(n, n))
    if symmetric:
        A = sp.csr_array(A + A.T)
    assert A.nnz >= weak.PARALLEL_ARCS  # split over the threads
    spbfs.set_num_threads(threads)
    try:
        _check(A, symmetric)
    finally:
        spbfs.set_num_threads(None)


def test_a_path_against_its_order_and_eight_callers(split_small):
    """A path whose every arc links a larger root under a smaller one, a star, and eight
    threads calling at once on shared matrices (each call split over three more)."""
    n = 3000
    path = sp.csr_array((np.ones(n - 1), (np.arange(1, n), np.arange(n - 1))), shape=(n, n))
    star = sp.csr_array((np.ones(n - 1), (np.zeros(n - 1, int), np.arange(1, n))),
                        shape=(n, n))
    rng = np.random.default_rng(11)
    graphs_ = [path, sp.csr_array(path + path.T), sp.csr_array(star + star.T),
               *(sp.csr_array(sp.random(500, 500, density=0.003, random_state=rng,
                                        format="csr")) for _ in range(3))]
    expected = [csgraph.connected_components(G, connection="weak") for G in graphs_]
    sym = [False, True, True, False, False, False]

    def one(i):
        G = graphs_[i % len(graphs_)]
        return weak.weak_components(G.indptr, G.indices, sym[i % len(graphs_)])

    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(one, range(48)))
    for i, (k, labels) in enumerate(got):
        assert k == expected[i % len(graphs_)][0]
        np.testing.assert_array_equal(labels, expected[i % len(graphs_)][1])


@kernel
def _race(counts, slots, rounds):
    for _ in range(rounds):
        fetch_add(counts, 0, 1)
        k = 0
        while not cas(slots, 0, k, k + 1):
            k = slots[0]
    return 0


def test_atomics_lose_no_update():
    counts, slots = np.zeros(1, np.int64), np.zeros(1, np.int32)
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda _: _race(counts, slots, 20000), range(8)))
    assert counts[0] == slots[0] == 160000
