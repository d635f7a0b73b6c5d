"""spbfs.centrality.betweenness_centrality against NetworkX as the oracle (numpy in CI, cupy
on the device): networkx.betweenness_centrality for all sources and
networkx.betweenness_centrality_subset (targets: every vertex) for a set of sources, on
directed and undirected graphs with self-loops, duplicates, explicit zeros and isolated
vertices.
"""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from conftest import graphs
from hypothesis import given
from hypothesis import strategies as st

from spbfs.centrality import betweenness_centrality

DEVICES = ["numpy", pytest.param("cupy", marks=pytest.mark.gpu)]


def _on(device, A):
    """A scipy matrix on the device: cupyx CSR (float64 values, int32 indices) for cupy."""
    if device == "numpy":
        return A
    import cupyx.scipy.sparse as csp

    A = sp.csr_matrix(A, dtype=np.float64)
    A.indices, A.indptr = A.indices.astype(np.int32), A.indptr.astype(np.int32)
    return csp.csr_matrix(A)


def _host(a):
    return a.get() if hasattr(a, "get") else np.asarray(a)


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


def _graph(A, directed):
    coo = sp.coo_array(A)
    G = nx.DiGraph() if directed else nx.Graph()
    G.add_nodes_from(range(A.shape[0]))
    G.add_edges_from(zip(coo.row.tolist(), coo.col.tolist(), strict=True))
    return G


def _array(d, n):
    return np.array([d[i] for i in range(n)])


def _close(got, expected):
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("device", DEVICES)
@given(A=multigraphs(max_n=30, max_m=120), directed=st.booleans(), normalized=st.booleans(),
       batch=st.integers(1, 40))
def test_matches_networkx(device, A, directed, normalized, batch):
    n = A.shape[0]
    got = betweenness_centrality(_on(device, A), normalized=normalized, directed=directed,
                                 batch=batch)
    assert type(got).__module__.split(".")[0] == device
    got = _host(got)
    assert got.dtype == np.float64 and got.shape == (n,)
    expected = nx.betweenness_centrality(_graph(A, directed), normalized=normalized,
                                         endpoints=False)
    _close(got, _array(expected, n))


@pytest.mark.parametrize("device", DEVICES)
@given(A=multigraphs(max_n=25, max_m=100), directed=st.booleans(), normalized=st.booleans(),
       data=st.data())
def test_sources_match_networkx_subset(device, A, directed, normalized, data):
    n = A.shape[0]
    sources = data.draw(st.lists(st.integers(0, n - 1), unique=True, max_size=n))
    batch = data.draw(st.integers(1, 8))
    got = _host(betweenness_centrality(_on(device, A), normalized=normalized,
                                       directed=directed, sources=np.array(sources, np.int64),
                                       batch=batch))
    expected = nx.betweenness_centrality_subset(_graph(A, directed), sources, list(range(n)),
                                                normalized=normalized)
    _close(got, _array(expected, n))


@given(A=multigraphs(max_n=25, max_m=100), directed=st.booleans(), cut=st.integers(0, 25))
def test_disjoint_sources_add_up(A, directed, cut):
    n = A.shape[0]
    cut = min(cut, n)
    first = betweenness_centrality(A, directed=directed, sources=np.arange(cut), batch=3)
    rest = betweenness_centrality(A, directed=directed, sources=np.arange(cut, n), batch=5)
    _close(first + rest, betweenness_centrality(A, directed=directed))
    twice = betweenness_centrality(A, directed=directed, sources=[0, 0], batch=1)
    _close(twice, 2 * betweenness_centrality(A, directed=directed, sources=[0]))


@pytest.mark.parametrize("n", [0, 1, 2, 3])
@pytest.mark.parametrize("directed", [True, False])
def test_tiny_graphs(n, directed):
    A = sp.csr_array(np.ones((n, n)))  # complete, with self-loops
    got = betweenness_centrality(A, directed=directed)
    assert got.shape == (n,) and got.dtype == np.float64
    expected = nx.betweenness_centrality(_graph(A, directed))
    _close(got, _array(expected, n))


def test_path_star_and_dense_input():
    P = sp.csr_array(np.diag(np.ones(4), 1))  # 0 -> 1 -> 2 -> 3 -> 4
    _close(betweenness_centrality(P, normalized=False), [0, 3, 4, 3, 0])
    _close(betweenness_centrality(P, normalized=False, directed=False), [0, 3, 4, 3, 0])
    star = np.zeros((5, 5))
    star[0, 1:] = star[1:, 0] = 1
    star[1, 2] = np.nan  # dense: NaN is no edge
    _close(betweenness_centrality(star, directed=False), [1, 0, 0, 0, 0])


def test_kronecker_graph():
    from spbfs.generate import kronecker

    u, v = kronecker(7, edgefactor=8, seed=4)
    A = sp.coo_array((np.ones(u.size), (u, v)), shape=(128, 128)).tocsr()
    for directed in (True, False):
        expected = nx.betweenness_centrality(_graph(A, directed))
        _close(betweenness_centrality(A, directed=directed, batch=48), _array(expected, 128))


@pytest.mark.parametrize("kwargs, exc, words", [
    (dict(A=sp.csr_array((2, 3))), ValueError, "A must be square"),
    (dict(A="graph"), TypeError, "A must be"),
    (dict(sources=[0, 5]), ValueError, "sources has an entry 5 outside"),
    (dict(sources=[-1]), ValueError, "sources has an entry -1 outside"),
    (dict(sources=[[0]]), ValueError, "sources must be a 1-D"),
    (dict(sources=[0.5]), TypeError, "sources must hold integer"),
    (dict(sources=1), TypeError, "sources must be a 1-D"),
    (dict(batch=0), ValueError, "batch must be at least 1"),
    (dict(batch=2.0), TypeError, "batch must be an integer"),
])
def test_bad_input(kwargs, exc, words):
    kwargs = dict(kwargs)
    A = kwargs.pop("A", sp.csr_array(np.array([[0, 1.0], [1.0, 0]])))
    with pytest.raises(exc, match=words):
        betweenness_centrality(A, **kwargs)


@pytest.mark.gpu
def test_gpu_matches_cpu_on_kronecker():
    import cupy

    from spbfs.generate import kronecker

    u, v = kronecker(11, edgefactor=16, seed=2)
    A = sp.coo_array((np.ones(u.size), (u, v)), shape=(2048, 2048)).tocsr()
    sources = np.arange(0, 2048, 7)
    for directed in (True, False):
        got = betweenness_centrality(_on("cupy", A), directed=directed,
                                     sources=cupy.asarray(sources))
        assert isinstance(got, cupy.ndarray)
        _close(got.get(), betweenness_centrality(A, directed=directed, sources=sources))
