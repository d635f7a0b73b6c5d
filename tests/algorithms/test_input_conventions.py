"""Every public algorithm reads its input matrix as scipy.sparse.csgraph does, through one
conversion (:func:`spbfs.algorithms._shared.as_graph`, called by ``prepare``): a masked
array's unmasked entries are its edges (zeros included, masked entries never), and a BSR
matrix's stored zeros (mostly its blocks' padding) are not edges (scipy's
``validate_graph`` from 1.18; on an older scipy the oracle is the CSR of its nonzeros).
"""

import numpy as np
import pytest
import scipy
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph
from hypothesis import given
from hypothesis import strategies as st

import spbfs

#: scipy drops a BSR's stored zeros itself from 1.18 (gh-24706); before, they are edges.
SCIPY_DROPS_BSR_ZEROS = tuple(int(p) for p in scipy.__version__.split(".")[:2]) >= (1, 18)


def _bsr_oracle(B):
    """What scipy.sparse.csgraph (1.18 and later) reads a BSR matrix as."""
    if SCIPY_DROPS_BSR_ZEROS:
        return B
    C = B.tocsr()
    C.eliminate_zeros()
    return C


def _levels(order, n):
    """The reached set of scipy's breadth_first_order as a 0/1 mask."""
    reached = np.zeros(n, bool)
    reached[order] = True
    return reached


@st.composite
def masked_graphs(draw, max_n=12):
    """A square float masked array: weights 0 (an edge of weight 0 where unmasked) to 3,
    masked entries with any value (never edges)."""
    n = draw(st.integers(1, max_n))
    values = draw(st.lists(st.integers(0, 3), min_size=n * n, max_size=n * n))
    mask = draw(st.lists(st.booleans(), min_size=n * n, max_size=n * n))
    data = np.array(values, np.float64).reshape(n, n)
    return np.ma.masked_array(data, mask=np.array(mask).reshape(n, n))


@st.composite
def bsr_graphs(draw, max_blocks=5):
    """A square BSR matrix of 2x2 or 3x3 blocks whose nonzeros are drawn: every stored
    block pads the pattern with zeros."""
    b = draw(st.sampled_from([2, 3]))
    n = b * draw(st.integers(1, max_blocks))
    values = draw(st.lists(st.sampled_from([0.0, 0.0, 0.0, 1.0, 2.5]), min_size=n * n,
                           max_size=n * n))
    return sp.bsr_array(np.array(values).reshape(n, n), blocksize=(b, b))


# ----------------------------------------------------------------------------- masked arrays
def test_masked_entries_are_not_edges_and_unmasked_zeros_are():
    """0 -> 2 is unmasked with weight 0 (an edge), 0 -> 1 is masked (no edge)."""
    data = np.array([[0, 1.0, 0], [0, 0, 2.0], [0, 0, 0]])
    G = np.ma.masked_array(data, mask=[[True, True, False], [True, True, False],
                                       [True, True, True]])
    order = csgraph.breadth_first_order(G, 0, return_predecessors=False)
    np.testing.assert_array_equal(spbfs.bfs(G, 0) >= 0, _levels(order, 3))
    np.testing.assert_array_equal(spbfs.bfs(G, 0), [0, -1, 1])
    np.testing.assert_array_equal(spbfs.sssp(G, 0), csgraph.dijkstra(G, indices=0))
    np.testing.assert_array_equal(spbfs.sssp(G, [0, 1]), csgraph.dijkstra(G, indices=[0, 1]))
    k, labels = spbfs.connected_components(G, connection="strong")
    assert k == csgraph.connected_components(G, connection="strong")[0]


@given(masked_graphs(), st.data(), st.booleans())
def test_masked_arrays_match_scipy(G, data, directed):
    n = G.shape[0]
    source = data.draw(st.integers(0, n - 1))
    order = csgraph.breadth_first_order(G, source, directed, return_predecessors=False)
    np.testing.assert_array_equal(spbfs.bfs(G, source, directed=directed) >= 0,
                                  _levels(order, n))
    np.testing.assert_array_equal(spbfs.bfs(G, [source], directed=directed)[0] >= 0,
                                  _levels(order, n))
    expected = csgraph.dijkstra(G, directed=directed, indices=source)
    np.testing.assert_array_equal(spbfs.sssp(G, source, directed=directed), expected)
    np.testing.assert_array_equal(spbfs.sssp(G, [source], directed=directed)[0], expected)
    for connection in ("weak", "strong"):
        got = spbfs.connected_components(G, directed, connection)
        assert got[0] == csgraph.connected_components(G, directed, connection)[0]


# ----------------------------------------------------------------------------- BSR padding
def test_bsr_padding_is_not_an_edge():
    """The block [[0, 1], [0, 0]] stores 1 -> 0 as a padding zero: not an edge."""
    B = sp.bsr_array(np.array([[0, 1.0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 1], [0, 0, 0, 0]]),
                     blocksize=(2, 2))
    assert B.nnz == 8
    G = _bsr_oracle(B)
    np.testing.assert_array_equal(spbfs.bfs(B, 1), [-1, 0, -1, -1])
    np.testing.assert_array_equal(spbfs.sssp(B, 1), csgraph.dijkstra(G, indices=1))
    k, labels = spbfs.connected_components(B, connection="strong")
    expected = csgraph.connected_components(G, connection="strong")
    assert k == expected[0] == 4


@given(bsr_graphs(), st.data(), st.booleans())
def test_bsr_matches_scipy(B, data, directed):
    n = B.shape[0]
    G = _bsr_oracle(B)
    source = data.draw(st.integers(0, n - 1))
    order = csgraph.breadth_first_order(G, source, directed, return_predecessors=False)
    np.testing.assert_array_equal(spbfs.bfs(B, source, directed=directed) >= 0,
                                  _levels(order, n))
    expected = csgraph.dijkstra(G, directed=directed, indices=source)
    np.testing.assert_array_equal(spbfs.sssp(B, source, directed=directed), expected)
    np.testing.assert_array_equal(spbfs.sssp(B, [source], directed=directed)[0], expected)
    for connection in ("weak", "strong"):
        got = spbfs.connected_components(B, directed, connection)
        assert got[0] == csgraph.connected_components(G, directed, connection)[0]


# ----------------------------------------------------------------------------- every algorithm
def _symmetric(A):
    """The undirected version of ``A`` without self-loops (for functions that need one)."""
    S = sp.csr_array(abs(A) + abs(A).T)
    S.setdiag(0)
    S.eliminate_zeros()
    return S


#: name -> call of ``A`` (directed input) or of ``S`` (a symmetric input without loops).
CALLS = {
    "bfs": lambda A, S: spbfs.bfs(A, 0),
    "bfs_many": lambda A, S: spbfs.bfs(A, [0, 1]),
    "sssp": lambda A, S: spbfs.sssp(A, 0),
    "sssp_many": lambda A, S: spbfs.sssp(A, [0, 1]),
    "connected_components": lambda A, S: spbfs.connected_components(A, connection="strong"),
    "pagerank": lambda A, S: spbfs.pagerank(A),
    "katz_centrality": lambda A, S: spbfs.katz_centrality(A, max_iter=10000),
    "hits": lambda A, S: spbfs.hits(A, max_iter=10000),
    "closeness_centrality": lambda A, S: spbfs.closeness_centrality(A, weight=True),
    "harmonic_centrality": lambda A, S: spbfs.harmonic_centrality(A),
    "betweenness_centrality": lambda A, S: spbfs.betweenness_centrality(A),
    "degrees": lambda A, S: spbfs.degrees(A),
    "isolates": lambda A, S: spbfs.isolates(A),
    "reciprocity": lambda A, S: spbfs.overall_reciprocity(A),
    "is_directed_acyclic_graph": lambda A, S: spbfs.is_directed_acyclic_graph(A),
    "core_number": lambda A, S: spbfs.core_number(S),
    "triangles": lambda A, S: spbfs.triangles(S),
    "clustering": lambda A, S: spbfs.clustering(S),
    "label_propagation": lambda A, S: spbfs.label_propagation(S),
    "jaccard_coefficient": lambda A, S: spbfs.jaccard_coefficient(S, [0, 1], [2, 3]),
}


def _same(got, expected):
    if isinstance(got, tuple):
        for g, e in zip(got, expected, strict=True):
            _same(g, e)
    else:
        np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(expected, np.float64))


@pytest.mark.parametrize("name", sorted(CALLS))
def test_every_algorithm_reads_masked_and_bsr_inputs_as_csgraph(name):
    """Each public algorithm answers for a masked array as for the CSR of its unmasked
    entries (``csgraph_from_masked``), and for a BSR matrix as for the CSR of its
    nonzeros."""
    rng = np.random.default_rng(7)
    data = rng.integers(1, 4, size=(6, 6)).astype(np.float64)
    mask = rng.random((6, 6)) < 0.6
    G = np.ma.masked_array(data, mask=mask)
    call = CALLS[name]
    C = csgraph.csgraph_from_masked(G)
    _same(call(G, _symmetric(C)), call(C, _symmetric(C)))
    dense = np.where(mask, 0.0, data)
    B = sp.bsr_array(dense, blocksize=(3, 3))
    assert B.nnz > np.count_nonzero(dense)   # padding stored
    C = sp.csr_array(dense)
    S = sp.bsr_array(_symmetric(C).toarray(), blocksize=(2, 2))
    _same(call(B, S), call(C, _symmetric(C)))
