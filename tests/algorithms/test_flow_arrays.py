"""spbfs.algorithms.flow (the maximum flow by array operations that the GPU runs) with numpy,
against scipy.sparse.csgraph.maximum_flow: the same flow, entry by entry, for both methods."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import maximum_flow

from spbfs.algorithms.flow import dinic_arrays, edmonds_karp_arrays, residual_arrays
from spbfs.cpu.flow import residual_graph

METHODS = {"dinic": dinic_arrays, "edmonds_karp": edmonds_karp_arrays}


def _flow(A, source, sink, method, trace=None):
    """The flow of the array algorithm as a CSR matrix, and its value."""
    A = sp.csr_array(A)
    n = A.shape[0]
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(A.indptr))
    residual = residual_arrays(np, n, rows, A.indices.astype(np.int64),
                               A.data.astype(np.int64))
    ip, ix = residual[:2]
    kwargs = {} if trace is None else {"trace": trace}
    flow = METHODS[method](np, n, *residual, source, sink, **kwargs)
    if method == "dinic":
        flow, done = flow
        assert done
    assert flow.dtype == np.int64 and flow.shape == ix.shape
    return sp.csr_array((flow, ix, ip), shape=(n, n)), int(flow[ip[source]:ip[source + 1]].sum())


def _check(A, source, sink, method, trace=None):
    A = sp.csr_array(A).astype(np.int32)
    want = maximum_flow(A, source, sink, method=method)
    got, value = _flow(A, source, sink, method, trace)
    assert value == want.flow_value
    assert got.shape == want.flow.shape
    assert (got != want.flow).nnz == 0
    # the same pattern as scipy's flow (the residual graph's), explicit zeros included
    W = sp.csr_array(want.flow)
    W.sort_indices()
    np.testing.assert_array_equal(got.indptr, W.indptr)
    np.testing.assert_array_equal(got.indices, W.indices)
    return value


# ----------------------------------------------------------------------------- scipy's examples
CLRS_26_1 = [[0, 16, 13, 0, 0, 0],
             [0, 0, 10, 12, 0, 0],
             [0, 4, 0, 0, 14, 0],
             [0, 0, 9, 0, 0, 20],
             [0, 0, 0, 7, 0, 4],
             [0, 0, 0, 0, 0, 0]]
BACKWARDS = [[0, 10, 0, 0, 10, 0, 0, 0],
             [0, 0, 10, 0, 0, 0, 0, 0],
             [0, 0, 0, 10, 0, 0, 0, 0],
             [0, 0, 0, 0, 0, 0, 0, 10],
             [0, 0, 0, 10, 0, 10, 0, 0],
             [0, 0, 0, 0, 0, 0, 10, 0],
             [0, 0, 0, 0, 0, 0, 0, 10],
             [0, 0, 0, 0, 0, 0, 0, 0]]
DISCONNECTED = [[0, 5, 0, 0],
                [0, 0, 0, 0],
                [0, 0, 9, 3],
                [0, 0, 0, 0]]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("graph, source, sink, value", [
    ([[0, 5], [0, 0]], 0, 1, 5),
    ([[0, 5, 0], [0, 0, 3], [0, 0, 0]], 0, 2, 3),
    (CLRS_26_1, 0, 5, 23),
    (BACKWARDS, 0, 7, 20),
    (DISCONNECTED, 0, 3, 0),
], ids=["simple", "bottleneck", "clrs_26_1", "backwards", "disconnected"])
def test_scipy_examples(graph, source, sink, value, method):
    assert _check(np.array(graph), source, sink, method) == value


@pytest.mark.parametrize("method", METHODS)
def test_long_path(method):
    """scipy's large-graph case (shorter): one path of n - 1 arcs, n - 1 levels."""
    n = 2000
    A = sp.csr_array((np.ones(n - 1, np.int32), np.arange(1, n),
                      np.array([*range(n), n - 1])), shape=(n, n))
    trace = {} if method == "dinic" else None
    assert _check(A, 0, n - 1, method, trace) == 1
    if trace is not None:
        assert trace["phases"] == 1 and trace["paths"] == 1


# ----------------------------------------------------------------------------- made by hand
@pytest.mark.parametrize("method", METHODS)
def test_source_without_out_arcs(method):
    A = sp.csr_array(np.array([[0, 0, 0], [4, 0, 2], [0, 0, 0]]))
    assert _check(A, 0, 2, method) == 0


@pytest.mark.parametrize("method", METHODS)
def test_sink_out_of_reach(method):
    A = sp.csr_array(np.array([[0, 3, 0, 0], [0, 0, 2, 0], [0, 1, 0, 0], [5, 0, 0, 0]]))
    assert _check(A, 0, 3, method) == 0


@pytest.mark.parametrize("method", METHODS)
def test_parallel_paths(method):
    """Four disjoint two-arc paths and a cross arc between them, capacities unequal."""
    A = sp.lil_array((10, 10), dtype=np.int32)
    for k, (a, b) in enumerate([(3, 5), (2, 2), (7, 1), (4, 4)]):
        A[0, 1 + k], A[1 + k, 9] = a, b
    A[1, 2] = 6
    assert _check(A.tocsr(), 0, 9, method) == 3 + 2 + 1 + 4


@pytest.mark.parametrize("method", METHODS)
def test_zero_capacities_stored(method):
    """Explicit zeros are arcs of the pattern (their flow entries stored) with no room."""
    data = np.array([2, 0, 3, 0, 1, 4], np.int32)
    rows, cols = np.array([0, 0, 1, 1, 2, 3]), np.array([1, 2, 3, 2, 3, 0])
    A = sp.csr_array((data, (rows, cols)), shape=(4, 4))
    assert A.nnz == 6
    assert _check(A, 0, 3, method) == 2


@pytest.mark.parametrize("method", METHODS)
def test_many_paths_a_phase(method):
    """Complete layers (every vertex of a layer to every vertex of the next): many paths
    per phase, the dead ends found level by level."""
    rng = np.random.default_rng(3)
    layers = [[0], list(range(1, 7)), list(range(7, 13)), list(range(13, 19)), [19]]
    A = np.zeros((20, 20), np.int32)
    for lo, hi in zip(layers, layers[1:], strict=False):
        for u in lo:
            A[u, hi] = rng.integers(1, 6, len(hi))
    A[7, 3] = A[14, 8] = 2                     # arcs back a level
    _check(sp.csr_array(A), 0, 19, method)


def test_residual_arrays_are_the_cpu_kernels_graph():
    A = sp.random(60, 60, density=0.1, random_state=np.random.default_rng(0), format="csr")
    A.data = np.random.default_rng(1).integers(0, 9, A.nnz).astype(np.float64)
    A = sp.csr_array(A).astype(np.int32)
    n = A.shape[0]
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(A.indptr))
    got = residual_arrays(np, n, rows, A.indices.astype(np.int64), A.data.astype(np.int64))
    for a, b in zip(got[:4], residual_graph(A.indptr, A.indices, A.data), strict=True):
        np.testing.assert_array_equal(a, b)
    ip, ix, keys = got[0], got[1], got[4]
    np.testing.assert_array_equal(keys, np.repeat(np.arange(n), np.diff(ip)) * n + ix)
    assert residual_arrays(np, 2, np.array([0, 0]), np.array([1, 1]), np.array([1, 2])) is None


# ----------------------------------------------------------------------------- random
@st.composite
def networks(draw, max_n=14):
    """A random digraph with integer capacities 0-20 (self-loops, explicit zeros), and a
    source and a sink."""
    n = draw(st.integers(2, max_n))
    density = draw(st.floats(0.05, 0.9))
    seed = draw(st.integers(0, 2 ** 32 - 1))
    rng = np.random.default_rng(seed)
    pattern = rng.random((n, n)) < density
    rows, cols = np.nonzero(pattern)
    data = rng.integers(0, 21, rows.size).astype(np.int32)
    A = sp.csr_array((data, (rows, cols)), shape=(n, n))
    source = draw(st.integers(0, n - 1))
    sink = draw(st.integers(0, n - 1).filter(lambda v: v != source))
    return A, source, sink


@settings(max_examples=400, deadline=None)
@given(networks())
def test_random_networks(network):
    A, source, sink = network
    for method in METHODS:
        _check(A, source, sink, method)


@pytest.mark.parametrize("symmetric", [False, True])
def test_medium_random_graph(symmetric):
    """A few thousand vertices, a few phases of many paths (the source and the sink of
    highest degree), and the compactions of the arc list between paths."""
    rng = np.random.default_rng(7 + symmetric)
    n = 3000
    A = sp.random(n, n, density=6 / n, random_state=rng, format="csr")
    A.data = rng.integers(0, 20, A.nnz).astype(np.float64)
    if symmetric:
        A = (A + A.T).tocsr()
    A = sp.csr_array(A).astype(np.int32)
    degree = np.diff(A.indptr)
    source, sink = (int(v) for v in np.argsort(degree, kind="stable")[::-1][:2])
    trace = {}
    _check(A, source, sink, "dinic", trace)
    assert trace["paths"] > 10 and trace["compactions"] > 1
    _check(A, source, sink, "edmonds_karp")
    for source, sink in rng.choice(n, (4, 2), replace=False).tolist():
        _check(A, source, sink, "dinic")


@given(st.integers(0, 12), st.integers(0, 2**31))
@settings(max_examples=60, deadline=None)
def test_dinic_stopped_and_finished_by_the_cpu_kernel_is_scipys(max_steps, seed):
    """``max_steps`` stops the array Dinic between paths; the CPU kernel's new phases from
    that flow end in scipy's flow (what the GPU's ``maximum_flow`` does past its budget)."""
    from spbfs.csgraph import _dinic_rest

    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 14))
    A = sp.random_array((n, n), density=0.35, rng=rng, format="csr")
    A.data = rng.integers(0, 9, A.nnz).astype(np.float64)
    A = sp.csr_array(A).astype(np.int32)
    source, sink = (int(v) for v in rng.choice(n, 2, replace=False))
    want = maximum_flow(A, source, sink, method="dinic")
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(A.indptr))
    residual = residual_arrays(np, n, rows, A.indices.astype(np.int64),
                               A.data.astype(np.int64))
    ip, ix, cap, reverse = residual[:4]
    flow, done = dinic_arrays(np, n, *residual, source, sink, max_steps=max_steps)
    if not done:
        flow = flow + _dinic_rest(ip, ix, cap - flow, reverse, source, sink)
    got = sp.csr_array((flow, ix, ip), shape=(n, n))
    assert (got != want.flow).nnz == 0
