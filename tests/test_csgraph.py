"""spbfs.csgraph as a drop-in for scipy.sparse.csgraph (scipy is the oracle)."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph
from conftest import graphs
from hypothesis import given
from hypothesis import strategies as st
from scipy.sparse.csgraph import NegativeCycleError

import spbfs.csgraph

FORMATS = ["csr", "unsorted", "csc", "unsorted csc", "coo", "dense", "list"]


def _as(A, fmt, rng_seed=0):
    """A in another input form scipy reads as the same graph (dense: zeros are no edge)."""
    if fmt == "csr":
        return A
    if fmt in ("unsorted", "unsorted csc"):  # reverse every row (column): same entries
        A = A.tocsr() if fmt == "unsorted" else A.tocsc()
        order = np.concatenate([np.arange(A.indptr[i + 1] - 1, A.indptr[i] - 1, -1)
                                for i in range(A.shape[0])]).astype(np.int64)
        B = type(A)((A.data[order], A.indices[order], A.indptr), shape=A.shape)
        B.has_sorted_indices = False
        return B
    if fmt in ("dense", "list"):
        dense = A.toarray().astype(float)
        return dense.tolist() if fmt == "list" else dense
    return A.asformat(fmt)


def _positive(A):
    """A with weights > 0 (multiples of 1/4: sums are exact, so ties are real ties)."""
    A = A.copy()
    A.data = A.data.astype(float) + 0.25
    return A


# ----------------------------------------------------------------------------- traversal
@given(graphs(), st.data(), st.booleans(), st.sampled_from(FORMATS))
def test_breadth_first_order_equals_scipy(A, data, directed, fmt):
    G = _as(A, fmt)
    source = data.draw(st.integers(0, A.shape[0] - 1))
    order, pred = csgraph.breadth_first_order(G, source, directed=directed)
    got_order, got_pred = spbfs.csgraph.breadth_first_order(G, source, directed=directed)
    assert got_order.dtype == order.dtype == np.int32
    assert got_pred.dtype == pred.dtype == np.int32
    np.testing.assert_array_equal(got_order, order)
    np.testing.assert_array_equal(got_pred, pred)
    alone = spbfs.csgraph.breadth_first_order(G, source, directed, return_predecessors=False)
    np.testing.assert_array_equal(alone, order)


@given(graphs(weights="quarters"), st.data(), st.booleans(),
       st.sampled_from(["csr", "csc", "coo", "dense", "matrix"]))
def test_breadth_first_tree_equals_scipy(A, data, directed, fmt):
    G = sp.csr_matrix(A) if fmt == "matrix" else _as(A, fmt)
    source = data.draw(st.integers(0, A.shape[0] - 1))
    tree = csgraph.breadth_first_tree(G, source, directed=directed)
    got = spbfs.csgraph.breadth_first_tree(G, source, directed=directed)
    assert type(got) is type(tree)
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got.toarray(), tree.toarray())
    np.testing.assert_array_equal(got.nnz, tree.nnz)


def test_breadth_first_order_errors():
    A = sp.csr_array(([1], ([0], [1])), shape=(2, 2))
    with pytest.raises(ValueError, match="i_start"):
        spbfs.csgraph.breadth_first_order(A, 2)
    with pytest.raises(TypeError, match="i_start"):
        spbfs.csgraph.breadth_first_order(A, 0.5)
    with pytest.raises(ValueError, match="square"):
        spbfs.csgraph.breadth_first_tree(sp.csr_array((2, 3)), 0)


def test_masked_array_input():
    data = np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 3.0], [0.0, 0.0, 0.0]])
    G = np.ma.masked_array(data, mask=[[True, False, True], [True, True, False],
                                       [True, True, True]])  # 0 -> 1 (weight 0), 1 -> 2
    order, pred = spbfs.csgraph.breadth_first_order(G, 0)
    np.testing.assert_array_equal(order, [0, 1, 2])
    expected = csgraph.breadth_first_tree(G, 0).toarray()
    np.testing.assert_array_equal(spbfs.csgraph.breadth_first_tree(G, 0).toarray(), expected)
    np.testing.assert_array_equal(spbfs.csgraph.dijkstra(G, indices=0), [0.0, 0.0, 3.0])


# ----------------------------------------------------------------------------- shortest paths
@given(graphs(weights="quarters"), st.data(), st.booleans(), st.sampled_from(FORMATS))
def test_dijkstra_equals_scipy(A, data, directed, fmt):
    """Positive weights: distances and predecessors equal scipy's exactly."""
    A = _positive(A)
    G = _as(A, fmt)
    n = A.shape[0]
    indices = data.draw(st.one_of(st.none(), st.integers(-n, n - 1),
                                  st.lists(st.integers(0, n - 1), max_size=5)))
    dist, pred = csgraph.dijkstra(G, directed, indices, return_predecessors=True)
    got, got_pred = spbfs.csgraph.dijkstra(G, directed, indices, return_predecessors=True)
    assert got.dtype == np.float64 and got_pred.dtype == np.int32
    assert got.shape == dist.shape and got_pred.shape == pred.shape
    np.testing.assert_array_equal(got, dist)
    np.testing.assert_array_equal(got_pred, pred)


@given(graphs(), st.data(), st.booleans(), st.sampled_from(["D", "BF", "J", "auto", "FW"]))
def test_unweighted_equals_scipy(A, data, directed, method):
    indices = None if method == "FW" else data.draw(
        st.lists(st.integers(0, A.shape[0] - 1), min_size=1, max_size=4))
    dist, pred = csgraph.shortest_path(A, "D", directed, True, True, indices=indices)
    got, got_pred = spbfs.csgraph.shortest_path(A, method, directed, True, True,
                                                indices=indices)
    np.testing.assert_array_equal(got, dist)
    np.testing.assert_array_equal(got_pred, pred)


@given(graphs(weights="quarters"), st.data(), st.booleans(), st.booleans())
def test_limit_and_min_only_equal_scipy(A, data, directed, unweighted):
    A = _positive(A)
    n = A.shape[0]
    limit = data.draw(st.sampled_from([0.0, 0.5, 1.0, 2.25, 7.0, np.inf]))
    indices = data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=4))
    kwargs = dict(directed=directed, indices=indices, unweighted=unweighted, limit=limit,
                  return_predecessors=True)
    for min_only in (False, True):
        expected = csgraph.dijkstra(A, min_only=min_only, **kwargs)
        got = spbfs.csgraph.dijkstra(A, min_only=min_only, **kwargs)
        assert len(got) == len(expected)
        for g, e in zip(got, expected, strict=True):
            assert g.dtype == e.dtype and g.shape == e.shape
            np.testing.assert_array_equal(g, e)


def _check_tree(A, directed, dist, pred, sources):
    """Every predecessor is the tail of a shortest-path edge; chains end at the source."""
    coo = A.tocoo()
    edges = {}
    for u, v, w in zip(coo.row.tolist(), coo.col.tolist(), coo.data.tolist(), strict=True):
        for a, b in ((u, v), (v, u)) if not directed else ((u, v),):
            edges[(a, b)] = min(edges.get((a, b), np.inf), w)
    n = A.shape[0]
    for row, s in enumerate(sources):
        for v in range(n):
            p = pred[row, v]
            if v == s or not np.isfinite(dist[row, v]):
                assert p == -9999
                continue
            assert (p, v) in edges and dist[row, p] + edges[(p, v)] == dist[row, v]
        cur = np.arange(n)
        for _ in range(n + 1):  # a bounded walk to the root proves there is no cycle
            cur = np.where(pred[row, cur] >= 0, pred[row, cur], cur)
        assert np.all((cur == s) | ~np.isfinite(dist[row]))


@given(graphs(weights="quarters"), st.data(), st.booleans())
def test_zero_weights_give_a_shortest_path_tree(A, data, directed):
    sources = data.draw(st.lists(st.integers(0, A.shape[0] - 1), min_size=1, max_size=3))
    dist = csgraph.dijkstra(A, directed, sources)
    got, pred = spbfs.csgraph.dijkstra(A, directed, sources, return_predecessors=True)
    np.testing.assert_array_equal(got, dist)
    _check_tree(A, directed, got, pred, sources)


@st.composite
def signed_graphs(draw):
    A = draw(graphs(max_n=12, max_m=30))
    A = A.astype(float)
    A.data = np.array(draw(st.lists(st.integers(-2, 6), min_size=A.nnz, max_size=A.nnz)),
                      dtype=float)
    return A


@given(signed_graphs(), st.booleans(), st.sampled_from(["BF", "J", "FW", "auto"]))
def test_negative_weights_match_scipy(A, directed, method):
    try:
        expected = csgraph.shortest_path(A, method, directed)
    except NegativeCycleError:
        with pytest.raises(NegativeCycleError, match="Negative cycle"):
            spbfs.csgraph.shortest_path(A, method, directed)
        return
    got, pred = spbfs.csgraph.shortest_path(A, method, directed, return_predecessors=True)
    np.testing.assert_array_equal(got, expected)
    if method != "FW":  # Floyd-Warshall ignores self-loops, the tree check does not
        _check_tree(A, directed, got, pred, range(A.shape[0]))


@given(signed_graphs(), st.booleans(), st.sampled_from(["BF", "J", "auto"]), st.data())
def test_negative_weights_from_some_sources_match_scipy(A, directed, method, data):
    """From a few sources: Bellman-Ford raises for a negative cycle they reach, Johnson's
    (and 'auto', which is Johnson's with negative weights) for any in the graph."""
    n = A.shape[0]
    indices = data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=3))
    try:
        expected = csgraph.shortest_path(A, method, directed, indices=indices)
    except NegativeCycleError:
        with pytest.raises(NegativeCycleError, match="Negative cycle"):
            spbfs.csgraph.shortest_path(A, method, directed, indices=indices)
        return
    got = spbfs.csgraph.shortest_path(A, method, directed, indices=indices)
    np.testing.assert_array_equal(got, expected)


def test_johnson_raises_for_a_negative_cycle_no_source_reaches():
    G = np.array([[0, 2.0, 0, 0], [0, 0, 0, 0], [0, 0, 0, -1.0], [0, 0, -1.0, 0]])
    with pytest.raises(NegativeCycleError):
        csgraph.johnson(G, indices=0)
    with pytest.raises(NegativeCycleError, match="node 2"):
        spbfs.csgraph.johnson(G, indices=0)
    np.testing.assert_array_equal(spbfs.csgraph.bellman_ford(G, indices=0),
                                  csgraph.bellman_ford(G, indices=0))


def test_auto_means_floyd_warshall_for_dense_enough_graphs():
    G = np.array([[-1.0]])  # a negative self-loop: Floyd-Warshall ignores it, others do not
    np.testing.assert_array_equal(spbfs.csgraph.shortest_path(G), csgraph.shortest_path(G))
    for method in ("BF", "J"):
        with pytest.raises(NegativeCycleError):
            csgraph.shortest_path(G, method)
        with pytest.raises(NegativeCycleError):
            spbfs.csgraph.shortest_path(G, method)
    with pytest.raises(NegativeCycleError):  # with indices, 'auto' is Johnson
        spbfs.csgraph.shortest_path(G, indices=0)


def test_functions_agree_with_their_scipy_names():
    G = np.array([[0, 3.0, 0, 0], [0, 0, -1.0, 4.0], [0, 0, 0, 1.0], [0, 0, 0, 0]])
    for name in ("bellman_ford", "johnson", "floyd_warshall"):
        expected = getattr(csgraph, name)(G, return_predecessors=True)
        got = getattr(spbfs.csgraph, name)(G, return_predecessors=True)
        for g, e in zip(got, expected, strict=True):
            np.testing.assert_array_equal(g, e)


def test_coo_duplicates_add_up_csr_duplicates_do_not():
    rows, cols, w = np.array([0, 0]), np.array([1, 1]), np.array([1.0, 5.0])
    coo = sp.coo_array((w, (rows, cols)), shape=(2, 2))
    csr = sp.csr_array((w, cols, np.array([0, 2, 2])), shape=(2, 2))
    for G, expected in ((coo, 6.0), (csr, 1.0)):
        assert csgraph.dijkstra(G, indices=0)[1] == expected
        assert spbfs.csgraph.dijkstra(G, indices=0)[1] == expected


def test_bsr_padding_is_not_an_edge():
    """A BSR block's padding zeros are not edges (scipy's validate_graph from 1.18): the
    answers equal those of the CSR of the same nonzeros."""
    dense = np.array([[1, 0, 1, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]], bool)
    bsr, csr = sp.bsr_array(dense, blocksize=(2, 2)), sp.csr_array(dense)
    assert bsr.nnz == 12 and csr.nnz == 5
    for directed in (False, True):
        for connection in ("weak", "strong"):
            got = spbfs.csgraph.connected_components(bsr, directed, connection)
            expected = csgraph.connected_components(csr, directed, connection)
            assert got[0] == expected[0]
            np.testing.assert_array_equal(got[1], expected[1])
        for g, e in zip(spbfs.csgraph.breadth_first_order(bsr, 1, directed),
                        csgraph.breadth_first_order(csr, 1, directed), strict=True):
            np.testing.assert_array_equal(g, e)


def test_nan_and_inf_weights_are_never_shorter():
    A = sp.csr_array(([np.nan, np.inf, 2.0], ([0, 0, 0], [1, 2, 2])), shape=(3, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = spbfs.csgraph.dijkstra(A, indices=0, return_predecessors=True)
    expected = csgraph.dijkstra(A, indices=0, return_predecessors=True)
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_array_equal(g, e)


@pytest.mark.parametrize("indices,shape", [(None, (4, 4)), (2, (4,)), (-1, (4,)),
                                           ([0, 3], (2, 4)), ([[0], [1]], (2, 1, 4)),
                                           (np.array([[0, 1], [2, 3]]), (2, 2, 4)),
                                           ([], (0, 4))])
def test_indices_shapes(indices, shape):
    G = np.array([[0, 1.0, 0, 0], [0, 0, 2.0, 0], [0, 0, 0, 1.0], [1.0, 0, 0, 0]])
    got, pred = spbfs.csgraph.shortest_path(G, indices=indices, return_predecessors=True)
    expected, expected_pred = csgraph.shortest_path(G, indices=indices,
                                                    return_predecessors=True)
    assert got.shape == pred.shape == expected.shape == shape
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(pred, expected_pred)


def test_many_sources_run_in_batches(monkeypatch):
    rng = np.random.default_rng(0)
    n, m = 300, 1500
    A = sp.csr_array((rng.integers(1, 9, m) / 4, (rng.integers(0, n, m),
                                                  rng.integers(0, n, m))), shape=(n, n))
    monkeypatch.setattr(spbfs.csgraph, "BATCH_ENTRIES", 8 * (A.nnz + n))  # 8 per batch
    got, pred = spbfs.csgraph.dijkstra(A, return_predecessors=True)
    dist, expected_pred = csgraph.dijkstra(A, return_predecessors=True)
    np.testing.assert_array_equal(got, dist)
    np.testing.assert_array_equal(pred, expected_pred)


@pytest.mark.parametrize(
    "call,error,word",
    [
        (lambda G: spbfs.csgraph.shortest_path(G, method="XX"), ValueError, "method"),
        (lambda G: spbfs.csgraph.shortest_path(G, method="FW", indices=[0]), ValueError,
         "indices"),
        (lambda G: spbfs.csgraph.dijkstra(G, indices=4), ValueError, "indices"),
        (lambda G: spbfs.csgraph.dijkstra(G, indices=[0, -5]), ValueError, "indices"),
        (lambda G: spbfs.csgraph.dijkstra(G, indices=[0.5]), TypeError, "indices"),
        (lambda G: spbfs.csgraph.dijkstra(G, limit=-1), ValueError, "limit"),
        (lambda G: spbfs.csgraph.dijkstra(G, limit="far"), TypeError, "limit"),
        (lambda G: spbfs.csgraph.dijkstra(np.ones((2, 3))), ValueError, "square"),
        (lambda G: spbfs.csgraph.dijkstra("G"), TypeError, "csgraph"),
    ],
)
def test_bad_arguments(call, error, word):
    G = np.array([[0, 1.0, 0, 0], [0, 0, 2.0, 0], [0, 0, 0, 1.0], [1.0, 0, 0, 0]])
    with pytest.raises(error, match=word):
        call(G)


def test_dijkstra_warns_on_negative_weights_as_scipy():
    G = np.array([[0, -1.0], [0, 0]])
    with pytest.warns(UserWarning, match="negative weights") as record:
        got = spbfs.csgraph.dijkstra(G)
    assert record[0].filename == __file__  # points at the caller, as warnings should
    with pytest.warns(UserWarning, match="negative weights"):
        np.testing.assert_array_equal(got, csgraph.dijkstra(G))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        spbfs.csgraph.shortest_path(G)  # "auto" picks Johnson for negative weights


def test_negative_cycle_message_names_the_source():
    G = np.array([[0, 1.0, 0, 0], [0, 0, -3.0, 0], [0, 1.0, 0, 0], [0, 0, 0, 0]])
    # 1 -> 2 -> 1 costs -2; vertex 3 reaches nothing
    with pytest.raises(NegativeCycleError, match="node 0"):
        spbfs.csgraph.bellman_ford(G, indices=[3, 0])
    np.testing.assert_array_equal(spbfs.csgraph.bellman_ford(G, indices=3),
                                  csgraph.bellman_ford(G, indices=3))


def test_empty_graph():
    A = sp.csr_array((0, 0))
    assert spbfs.csgraph.shortest_path(A).shape == (0, 0)
    assert spbfs.csgraph.dijkstra(A, min_only=True).shape == (0,)
    k, labels = spbfs.csgraph.connected_components(A)
    assert k == 0 and labels.shape == (0,) and labels.dtype == np.int32


@pytest.mark.gpu
def test_gpu_matches_cpu():
    import cupy
    import cupyx.scipy.sparse as csp

    rng = np.random.default_rng(1)
    n, m = 2000, 8000
    A = sp.csr_array((rng.integers(1, 9, m) / 4, (rng.integers(0, n, m),
                                                  rng.integers(0, n, m))), shape=(n, n))
    G = csp.csr_matrix(A)
    order, pred = spbfs.csgraph.breadth_first_order(G, 0, directed=False)
    expected = csgraph.breadth_first_order(A, 0, directed=False)
    assert isinstance(order, cupy.ndarray)
    np.testing.assert_array_equal(order.get(), expected[0])
    np.testing.assert_array_equal(pred.get(), expected[1])
    got, got_pred = spbfs.csgraph.dijkstra(G, indices=np.arange(0, n, 97),
                                          return_predecessors=True)
    dist, dist_pred = csgraph.dijkstra(A, indices=np.arange(0, n, 97),
                                       return_predecessors=True)
    np.testing.assert_array_equal(got.get(), dist)
    np.testing.assert_array_equal(got_pred.get(), dist_pred)
    tree = spbfs.csgraph.breadth_first_tree(G, 0)
    np.testing.assert_array_equal(tree.get().toarray(), csgraph.breadth_first_tree(A, 0).toarray())


# ----------------------------------------------------------------------------- every name
def test_every_public_name_with_scipys_signature():
    import inspect

    for name in csgraph.__all__:
        ours = getattr(spbfs.csgraph, name)
        if name == "NegativeCycleError":
            assert ours is NegativeCycleError
            continue
        assert inspect.signature(ours) == inspect.signature(getattr(csgraph, name)), name


@given(graphs(), st.data(), st.booleans(), st.sampled_from(["csr", "unsorted", "csc", "coo",
                                                            "dense"]))
def test_depth_first_order_and_tree_equal_scipy(A, data, directed, fmt):
    G = _as(A, fmt)
    source = data.draw(st.integers(0, A.shape[0] - 1))
    order, pred = csgraph.depth_first_order(G, source, directed=directed)
    got_order, got_pred = spbfs.csgraph.depth_first_order(G, source, directed=directed)
    assert got_order.dtype == got_pred.dtype == np.int32
    np.testing.assert_array_equal(got_order, order)
    np.testing.assert_array_equal(got_pred, pred)
    tree = spbfs.csgraph.depth_first_tree(G, source, directed)
    np.testing.assert_array_equal(tree.toarray(),
                                  csgraph.depth_first_tree(G, source, directed).toarray())


def _forest_weight(T):
    return float(T.sum())


@given(graphs(weights="quarters"), st.sampled_from(["csr", "coo", "dense", "matrix"]))
def test_minimum_spanning_tree_equals_scipy(A, fmt):
    G = sp.csr_matrix(A) if fmt == "matrix" else _as(A, fmt)
    T = csgraph.minimum_spanning_tree(G)
    got = spbfs.csgraph.minimum_spanning_tree(G)
    assert type(got) is type(T) and got.dtype == np.float64
    assert got.nnz == T.nnz
    assert _forest_weight(got) == _forest_weight(T)
    # a forest spanning the same components
    n_got, lab_got = csgraph.connected_components(got, directed=False)
    n_ref, lab_ref = csgraph.connected_components(T, directed=False)
    assert n_got == n_ref


def test_minimum_spanning_tree_distinct_weights_is_scipys():
    rng = np.random.default_rng(3)
    n, m = 300, 3000
    A = sp.csr_array((rng.permutation(m) + 1.0, (rng.integers(0, n, m), rng.integers(0, n, m))),
                     shape=(n, n))
    np.testing.assert_array_equal(spbfs.csgraph.minimum_spanning_tree(A).toarray(),
                                  csgraph.minimum_spanning_tree(A).toarray())


@given(graphs(), st.booleans(), st.sampled_from(["csr", "csc"]))
def test_reverse_cuthill_mckee_equals_scipy(A, symmetric, fmt):
    G = A.asformat(fmt)
    if symmetric:
        G = (G + G.T).asformat(fmt)
    np.testing.assert_array_equal(spbfs.csgraph.reverse_cuthill_mckee(G, symmetric),
                                  csgraph.reverse_cuthill_mckee(G, symmetric))


@st.composite
def rectangles(draw, max_n=30, max_m=120):
    nr, nc = draw(st.integers(0, max_n)), draw(st.integers(0, max_n))
    m = draw(st.integers(0, max_m)) if nr and nc else 0
    rows = draw(st.lists(st.integers(0, max(nr - 1, 0)), min_size=m, max_size=m))
    cols = draw(st.lists(st.integers(0, max(nc - 1, 0)), min_size=m, max_size=m))
    data = draw(st.lists(st.integers(1, 20), min_size=m, max_size=m))
    return sp.csr_array((np.array(data, float), (np.array(rows, np.int64),
                                                 np.array(cols, np.int64))), shape=(nr, nc))


@given(rectangles(), st.sampled_from(["csr", "csc", "coo"]))
def test_bipartite_matching_and_structural_rank_equal_scipy(B, fmt):
    G = B.asformat(fmt)
    for perm_type in ("row", "column"):
        np.testing.assert_array_equal(spbfs.csgraph.maximum_bipartite_matching(G, perm_type),
                                      csgraph.maximum_bipartite_matching(G, perm_type))
    assert spbfs.csgraph.structural_rank(G) == csgraph.structural_rank(G)


@given(rectangles(), st.booleans())
def test_min_weight_full_matching_cost_equals_scipy(B, maximize):
    try:
        rows, cols = csgraph.min_weight_full_bipartite_matching(B, maximize=maximize)
    except ValueError:
        with pytest.raises(ValueError, match="no full matching exists"):
            spbfs.csgraph.min_weight_full_bipartite_matching(B, maximize=maximize)
        return
    got_rows, got_cols = spbfs.csgraph.min_weight_full_bipartite_matching(B, maximize=maximize)
    assert got_rows.size == rows.size and (np.diff(got_rows) > 0).all()  # sorted, each once
    assert len(set(got_cols.tolist())) == got_cols.size
    D = B.toarray()
    assert (D[got_rows, got_cols] != 0).all()
    assert D[got_rows, got_cols].sum() == D[rows, cols].sum()


@given(graphs(), st.data(), st.sampled_from(["dinic", "edmonds_karp"]), st.booleans())
def test_maximum_flow_equals_scipy(A, data, method, matrix):
    n = A.shape[0]
    if n < 2:
        return
    G = A.astype(np.int32)
    G = sp.csr_matrix(G) if matrix else G
    s = data.draw(st.integers(0, n - 1))
    t = data.draw(st.integers(0, n - 1).filter(lambda v: v != s))
    ref = csgraph.maximum_flow(G, s, t, method=method)
    got = spbfs.csgraph.maximum_flow(G, s, t, method=method)
    assert type(got) is type(ref) and type(got.flow) is type(ref.flow)
    assert got.flow_value == ref.flow_value
    for part in ("data", "indices", "indptr"):
        np.testing.assert_array_equal(getattr(got.flow, part), getattr(ref.flow, part))


def test_maximum_flow_errors_are_scipys():
    G = sp.csr_array([[0, 1], [0, 0]])
    for call, error in [((np.array([[0, 1], [0, 0]]), 0, 1), TypeError),
                        ((G.tocsc(), 0, 1), TypeError),
                        ((G.astype(float), 0, 1), ValueError),
                        ((G, 0, 0), ValueError), ((G, 0, 2), ValueError),
                        ((sp.csr_array([[0, 1, 2], [2, 1, 0]]), 0, 1), ValueError)]:
        with pytest.raises(error):
            spbfs.csgraph.maximum_flow(*call)
    with pytest.raises(ValueError, match="not supported"):
        spbfs.csgraph.maximum_flow(G, 0, 1, method="push_relabel")


@given(graphs(weights="quarters"), st.data(), st.booleans(), st.booleans())
def test_yen_equals_scipy(A, data, directed, unweighted):
    n = A.shape[0]
    if not A.nnz:  # scipy 1.17's yen fails on a graph without edges (a memoryview error)
        return
    A = _positive(A)
    A.indices, A.indptr = A.indices.astype(np.int32), A.indptr.astype(np.int32)  # scipy's
    s = data.draw(st.integers(0, n - 1))
    t = data.draw(st.integers(0, n - 1))
    K = data.draw(st.integers(1, 5))
    dist = csgraph.yen(A, s, t, K, directed=directed, unweighted=unweighted)
    got = spbfs.csgraph.yen(A, s, t, K, directed=directed, unweighted=unweighted)
    np.testing.assert_array_equal(got, dist)


@pytest.mark.parametrize("fmt", ["dense", "csr", "coo", "csc"])
@pytest.mark.parametrize("normed", [False, True])
@pytest.mark.parametrize("use_out_degree", [False, True])
@pytest.mark.parametrize("symmetrized", [False, True])
@pytest.mark.parametrize("form", ["array", "function", "lo"])
def test_laplacian_equals_scipy(fmt, normed, use_out_degree, symmetrized, form):
    rng = np.random.default_rng(5)
    D = rng.integers(0, 4, (12, 12)) * (rng.random((12, 12)) < 0.3)
    G = D.astype(float) if fmt == "dense" else sp.csr_array(D.astype(float)).asformat(fmt)
    kw = dict(normed=normed, use_out_degree=use_out_degree, symmetrized=symmetrized, form=form,
              return_diag=True)
    if fmt == "dense" and form != "array":
        kw["copy"] = True
    L, d = csgraph.laplacian(G, **kw)
    got, got_d = spbfs.csgraph.laplacian(G, **kw)
    np.testing.assert_allclose(got_d, d)
    if form == "array":
        assert type(got) is type(L)
        dense = got.toarray() if sp.issparse(got) else got
        np.testing.assert_allclose(dense, L.toarray() if sp.issparse(L) else L)
    else:
        x = rng.random((12, 3))
        np.testing.assert_allclose(got(x) if form == "function" else got @ x,
                                   L(x) if form == "function" else L @ x)


def test_conversions_and_path_utilities_are_scipys():
    G = np.array([[0, 1.0, 3.0], [0, 0, 1.0], [np.inf, 0, 0]])
    S = spbfs.csgraph.csgraph_from_dense(G)
    assert (S != csgraph.csgraph_from_dense(G)).nnz == 0
    np.testing.assert_array_equal(spbfs.csgraph.csgraph_to_dense(S, null_value=-1),
                                  csgraph.csgraph_to_dense(S, null_value=-1))
    masked = spbfs.csgraph.csgraph_masked_from_dense(G)
    np.testing.assert_array_equal(masked.mask, csgraph.csgraph_masked_from_dense(G).mask)
    assert spbfs.csgraph.csgraph_from_masked(masked).nnz == S.nnz
    np.testing.assert_array_equal(spbfs.csgraph.csgraph_to_masked(S).mask, masked.mask)
    dist, pred = spbfs.csgraph.shortest_path(S, return_predecessors=True)
    np.testing.assert_array_equal(spbfs.csgraph.construct_dist_matrix(S, pred), dist)
    np.testing.assert_array_equal(spbfs.csgraph.reconstruct_path(S, pred[0]).toarray(),
                                  csgraph.reconstruct_path(S, pred[0]).toarray())
    # integral floats are indices; NaN or fractions are refused (scipy 1.18, gh-23577)
    np.testing.assert_array_equal(
        spbfs.csgraph.reconstruct_path(S, pred[0].astype(float)).toarray(),
        csgraph.reconstruct_path(S, pred[0]).toarray())
    for bad in (np.array([np.nan] * 3), np.array([-9999, 0, 0.5])):
        with pytest.raises(ValueError, match="integral"):
            spbfs.csgraph.reconstruct_path(S, bad)


# ----------------------------------------------------------------------------- device algorithms
# The GPU paths are array algorithms written for numpy and cupy alike: run here on numpy,
# against the CPU's compiled kernels and scipy (tests/gpu/test_csgraph_gpu.py runs them on
# a GPU).
@given(graphs(weights="float"), st.booleans())
def test_device_boruvka_rounds_equal_the_cpu_kernel(A, symmetric):
    from spbfs.cpu.spanning import boruvka

    A = (A + A.T).tocsr() if symmetric else A
    n = A.shape[0]
    rows = np.repeat(np.arange(n), np.diff(A.indptr))
    want = np.zeros(A.nnz, bool)
    boruvka(n, rows, A.indices, A.data.astype(float), want)
    got = spbfs.csgraph._boruvka_rounds(np, n, rows, A.indices, A.data.astype(float))
    np.testing.assert_array_equal(got, want)


@given(graphs(weights="float"), st.booleans(), st.sampled_from(["csr", "csc"]))
def test_device_cuthill_mckee_equals_scipy(A, symmetric, fmt):
    A = sp.csr_matrix(A)
    A.data = A.data - 2.0                # some sums cancel: scipy drops those entries
    G = ((A + A.T) if symmetric else A).asformat(fmt)
    for mode in (False, True):
        got = spbfs.csgraph._reverse_cuthill_mckee_device(G, mode)
        if got is None:  # symmetric_mode on an asymmetric pattern, or arrays not canonical
            assert (mode and not symmetric) or not (mode or G.has_canonical_format)
            continue
        want = csgraph.reverse_cuthill_mckee(G, mode)
        np.testing.assert_array_equal(got, want)
        if G.indices.dtype == np.int32:  # as cupyx holds them
            assert got.dtype == want.dtype


@given(graphs(), st.integers(0, 3))
def test_device_maximum_matching_is_maximum(A, cut):
    B = sp.csr_array(A[:, :max(1, A.shape[1] - cut)])
    nrows, ncols = B.shape
    rows, cols = spbfs.csgraph._maximum_matching_arrays(
        np, nrows, ncols, B.indptr.astype(np.int64), B.indices.astype(np.int64))
    matched = np.flatnonzero(rows >= 0)
    assert matched.size == csgraph.structural_rank(B) == int((cols >= 0).sum())
    np.testing.assert_array_equal(cols[rows[matched]], matched)
    dense = B.toarray() != 0
    pattern = np.zeros_like(dense)
    r, c = np.repeat(np.arange(nrows), np.diff(B.indptr)), B.indices
    pattern[r, c] = True
    assert pattern[matched, rows[matched]].all()


@given(graphs(), st.data())
def test_device_edmonds_karp_equals_scipy(A, data):
    from spbfs.algorithms.flow import edmonds_karp_arrays, residual_arrays
    from spbfs.cpu.flow import residual_graph

    n = A.shape[0]
    if n < 2:
        return
    A = sp.csr_array(A).astype(np.int32)
    A.sum_duplicates()
    rows = np.repeat(np.arange(n), np.diff(A.indptr)).astype(np.int64)
    ip, ix, cap, reverse, keys = residual_arrays(
        np, n, rows, A.indices.astype(np.int64), A.data.astype(np.int64))
    for got, want in zip((ip, ix, cap, reverse), residual_graph(A.indptr, A.indices, A.data),
                         strict=True):
        np.testing.assert_array_equal(got, want)
    source = data.draw(st.integers(0, n - 1))
    sink = data.draw(st.integers(0, n - 1).filter(lambda v: v != source))
    flow = edmonds_karp_arrays(np, n, ip, ix, cap, reverse, keys, source, sink)
    want = csgraph.maximum_flow(A, source, sink, method="edmonds_karp").flow
    assert (sp.csr_array((flow, ix, ip), shape=(n, n)) != want).nnz == 0


@pytest.mark.parametrize("normed", [False, True])
@pytest.mark.parametrize("use_out_degree", [False, True])
@pytest.mark.parametrize("symmetrized", [False, True])
@pytest.mark.parametrize("form", ["array", "function", "lo"])
@pytest.mark.parametrize("dense", [False, True])
def test_device_laplacian_equals_scipy(normed, use_out_degree, symmetrized, form, dense):
    rng = np.random.default_rng(3)
    A = sp.random(15, 15, density=0.3, random_state=rng, format="csr")
    A.data = rng.integers(1, 5, A.nnz).astype(float)
    A.setdiag(rng.integers(0, 2, 15).astype(float))
    G = A.toarray() if dense else A
    kw = {"normed": normed, "use_out_degree": use_out_degree, "symmetrized": symmetrized,
          "form": form, "return_diag": True}
    want, want_d = csgraph.laplacian(G.copy(), **kw)
    got, d = spbfs.csgraph._laplacian_device(G.copy(), normed, True, use_out_degree, True,
                                             form, None, symmetrized)
    np.testing.assert_allclose(d, want_d)
    if form == "array":
        dense_of = lambda M: M.toarray() if sp.issparse(M) else M  # noqa: E731
        np.testing.assert_allclose(dense_of(got), dense_of(want))
    else:
        x = rng.random((15, 2))
        np.testing.assert_allclose(got(x) if form == "function" else got @ x,
                                   want(x) if form == "function" else want @ x)


@given(graphs(weights="float"), st.booleans())
def test_device_conversions_and_dist_matrix_equal_scipy(A, directed):
    dense = A.toarray()
    dense[dense == 1] = np.inf
    want = csgraph.csgraph_from_dense(dense)
    got = spbfs.csgraph._from_dense_arrays(dense, 0, True, True)
    assert got.nnz == want.nnz and (got != want).nnz == 0
    for null in (0, np.inf):
        np.testing.assert_array_equal(spbfs.csgraph._to_dense_device(A, null),
                                      csgraph.csgraph_to_dense(A, null))
    _, pred = csgraph.shortest_path(A, directed=directed, return_predecessors=True)
    np.testing.assert_allclose(spbfs.csgraph._dist_matrix_device(A, pred, directed, np.inf),
                               csgraph.construct_dist_matrix(A, pred, directed))


@pytest.mark.parametrize("value", [np.inf, np.nan, 0.0, 3.0])
@pytest.mark.parametrize("directed", [True, False])
def test_floyd_warshall_unweighted_drops_stored_inf_and_nan_as_scipy(value, directed):
    """scipy's Floyd-Warshall reads a dense copy, where a stored inf or NaN is no edge,
    unweighted too (its other methods count them as edges there: spbfs's also)."""
    G = sp.csr_array((np.array([value, 2.0, 1.0]), (np.array([1, 0, 3]), np.array([0, 2, 1]))),
                     shape=(4, 4))
    for fw in (lambda g, **k: g.floyd_warshall(G, directed=directed, **k),
               lambda g, **k: g.shortest_path(G, method="FW", directed=directed, **k)):
        expected = fw(csgraph, unweighted=True, return_predecessors=True)
        got = fw(spbfs.csgraph, unweighted=True, return_predecessors=True)
        np.testing.assert_array_equal(got[0], expected[0])
        np.testing.assert_array_equal(got[1], expected[1])
    np.testing.assert_array_equal(
        spbfs.csgraph.shortest_path(G, method="BF", unweighted=True, directed=directed),
        csgraph.shortest_path(G, method="BF", unweighted=True, directed=directed))


_ODD_WEIGHTS = np.array([0.0, 1.0, 2.0, 2.5, np.inf, np.nan])


@given(st.data(), st.sampled_from(["FW", "BF", "J", "D", "auto"]), st.booleans(),
       st.booleans())
def test_shortest_paths_with_zero_inf_and_nan_weights_match_scipy(data, method, unweighted,
                                                                  directed):
    """Stored zeros, infs and NaNs (scipy's rules differ by method: its Floyd-Warshall reads
    a dense copy), every method, weighted or not, directed or not."""
    n = data.draw(st.integers(1, 8))
    m = data.draw(st.integers(0, 3 * n))
    rows, cols, kinds = (np.array(data.draw(st.lists(st.integers(0, hi), min_size=m,
                                                     max_size=m)), dtype=np.int64)
                         for hi in (n - 1, n - 1, _ODD_WEIGHTS.size - 1))
    G = sp.csr_array((_ODD_WEIGHTS[kinds], (rows, cols)), shape=(n, n))
    G.sum_duplicates()
    expected = csgraph.shortest_path(G, method, directed, unweighted=unweighted)
    got = spbfs.csgraph.shortest_path(G, method, directed, unweighted=unweighted)
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("fmt", ["csr", "csc"])
@pytest.mark.parametrize("entry, shape", [
    ((0, 3), (2, 4)), ((0, 1), (2, 4)), ((3, 1), (4, 2)), ((0, 10**6), (2, 10**6 + 1)),
])
def test_reverse_cuthill_mckee_symmetric_mode_of_a_non_square_matrix(fmt, entry, shape):
    """scipy reads the first ``shape[0]`` slices and raises IndexError for a neighbour past
    them (found by a fuzz: the compiled search wrote past its arrays, and crashed)."""
    G = sp.csr_array((np.ones(1), ([entry[0]], [entry[1]])), shape=shape).asformat(fmt)

    def order(module):
        try:
            return module.reverse_cuthill_mckee(G, symmetric_mode=True).tolist()
        except IndexError:
            return IndexError

    assert order(spbfs.csgraph) == order(csgraph)


# ----------------------------------------------------------------------------- scipy's reading
def _both(call):
    """``call`` of scipy's module and of spbfs's, each an answer or its exception's type."""
    out = []
    for module in (csgraph, spbfs.csgraph):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                got = call(module)
            out.append(got.toarray() if sp.issparse(got) else got)
        except Exception as error:  # the type must match too
            out.append(type(error))
    return out


def _assert_same(call):
    want, got = _both(call)
    if isinstance(want, type):
        assert got is want
    else:
        for w, g in zip(want if isinstance(want, tuple) else (want,),
                        got if isinstance(got, tuple) else (got,), strict=True):
            np.testing.assert_array_equal(g, w)
            assert np.asarray(g).dtype == np.asarray(w).dtype


READERS = {
    "dijkstra": lambda m, G: m.dijkstra(G, indices=0),
    "bellman_ford": lambda m, G: m.bellman_ford(G, indices=0, directed=False),
    "johnson": lambda m, G: m.johnson(G, indices=0),
    "floyd_warshall": lambda m, G: m.floyd_warshall(G),
    "minimum_spanning_tree": lambda m, G: m.minimum_spanning_tree(G),
    "breadth_first_tree": lambda m, G: m.breadth_first_tree(G, 0),
    "undirected breadth_first_tree": lambda m, G: m.breadth_first_tree(G, 0, directed=False),
    "depth_first_tree": lambda m, G: m.depth_first_tree(G, 0),
    "connected_components": lambda m, G: m.connected_components(G),
}


@pytest.mark.parametrize("reader", sorted(READERS))
@pytest.mark.parametrize("dtype", [np.int8, np.bool_, np.float32, np.float64, np.complex128])
@pytest.mark.parametrize("fmt", ["coo", "csr", "csc"])
def test_repeated_entries_read_as_scipy_reads_them(reader, dtype, fmt):
    """Found by a fuzz.  scipy casts to float64 before summing the repeated entries of a
    CSR/CSC input (int8 100 + 100 is 200, two True are 2), sums a COO input's in its own
    dtype, and Floyd-Warshall takes their minimum (COO refused); complex values are
    cast."""
    values = np.array([100, 100, 1]).astype(dtype)
    rows, cols = np.array([0, 0, 1]), np.array([1, 1, 2])
    if fmt == "coo":
        G = sp.coo_array((values, (rows, cols)), shape=(3, 3))
    elif fmt == "csr":
        G = sp.csr_array((values, cols, np.array([0, 2, 3, 3])), shape=(3, 3))
    else:
        G = sp.csc_array((values, rows, np.array([0, 0, 2, 3])), shape=(3, 3))
    _assert_same(lambda m: READERS[reader](m, G))


@pytest.mark.parametrize("reader", sorted(READERS))
@pytest.mark.parametrize("dense", [
    np.array([[0, 5e-9, 0], [0, 0, 1e-8], [2e-8, 0, 0]]),      # within 1e-8 of zero: none
    np.array([[0, 2j, 0], [0, 0, 1e-9 + 1j], [0, 0, 0]]),      # complex: compared exactly
    np.ma.masked_array([[0.0, 0.0, 1], [0, 0, 0], [0, 0, 0]],  # an unmasked zero
                       mask=[[True, False, False], [True, True, True], [True, True, True]]),
])
def test_dense_input_read_as_scipy_reads_it(reader, dense):
    """Found by a fuzz: a float entry within 1e-8 of zero is no edge (scipy's
    ``masked_values``), complex input is read (not refused), and Floyd-Warshall reads a
    masked array's unmasked zero as no edge, the other functions as an edge of weight 0."""
    _assert_same(lambda m: READERS[reader](m, dense))


def test_floyd_warshall_refuses_what_scipy_refuses():
    G = sp.coo_array(np.array([[0, 1.0], [1.0, 0]]))
    with pytest.raises(ValueError, match="lil, csr, or csc"):
        spbfs.csgraph.floyd_warshall(G)
    _assert_same(lambda m: m.shortest_path(G.tolil(), method="FW"))


def test_minimum_spanning_tree_takes_nan_weights_last():
    """Found by a fuzz: scipy's Kruskal sorts NaN after inf; spbfs picked the NaN edge."""
    G = sp.csr_array((np.array([np.nan, np.inf, 1.0]), (np.array([0, 2, 0]),
                                                         np.array([1, 1, 2]))), shape=(3, 3))
    _assert_same(lambda m: m.minimum_spanning_tree(G))
    rng = np.random.default_rng(1)
    for _ in range(200):
        n, m = int(rng.integers(2, 7)), int(rng.integers(1, 14))
        w = rng.choice([np.nan, np.inf, 1.0, 2.0, 0.5, -1.0], size=m)
        G = sp.csr_array((w, (rng.integers(0, n, m), rng.integers(0, n, m))), shape=(n, n))
        want, got = _both(lambda mod, G=G: mod.minimum_spanning_tree(G))
        np.testing.assert_array_equal(got, want)


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")
def test_minimum_spanning_tree_of_a_numpy_matrix_is_a_csr_matrix():
    want, got = (type(m.minimum_spanning_tree(np.matrix([[0, 1.0], [1.0, 0]])))
                 for m in (csgraph, spbfs.csgraph))
    assert got is want is sp.csr_matrix


@pytest.mark.parametrize("unweighted", [False, True])
def test_dijkstra_with_a_nan_limit_reaches_only_the_sources(unweighted):
    """Found by a fuzz: scipy's ``d <= limit`` is false for NaN; spbfs ignored the limit."""
    G = sp.csr_array(np.array([[0, 1.0, 0], [0, 0, 2.0], [0, 0, 0]]))
    _assert_same(lambda m: m.dijkstra(G, indices=[0, 1], limit=np.nan, unweighted=unweighted))


def test_every_reached_vertex_has_a_predecessor_when_rounding_closes_a_cycle():
    """Found by a fuzz: -1e-9 + 1e-9 rounds a cycle of weight zero a little below zero, so
    no edge into it was exactly tight and two reached vertices got -9999.  They now hang
    off the edges tight to within rounding: a tree from the source (scipy's own answer
    here is a cycle, 3 <-> 4)."""
    G = sp.csr_array((np.array([1e-9, -1e-9, -1e-9, -1e-9]),
                      (np.array([4, 5, 3, 6]), np.array([3, 3, 4, 5]))), shape=(7, 7))
    dist, pred = spbfs.csgraph.bellman_ford(G, indices=6, return_predecessors=True)
    np.testing.assert_array_equal(dist, csgraph.bellman_ford(G, indices=6))
    assert pred.tolist() == [-9999, -9999, -9999, 5, 3, 6, -9999]


@pytest.mark.parametrize("search", ["breadth_first_order", "depth_first_order"])
def test_undirected_search_of_an_unsorted_csc_follows_its_stored_order(search):
    """Found by a fuzz: scipy scans a CSC input's columns as stored (it transposes the
    input in place); spbfs scanned them sorted."""
    G = sp.csc_array((np.ones(2), np.array([2, 1]), np.array([0, 2, 2, 2])), shape=(3, 3))
    _assert_same(lambda m: getattr(m, search)(G, 0, directed=False))


@given(st.integers(1, 8), st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7),
                                             st.sampled_from([1, 2, -1])), max_size=20),
       st.sampled_from([sp.csr_array, sp.csc_array, sp.csr_matrix]),
       st.sampled_from([np.int32, np.int64]), st.booleans())
def test_reverse_cuthill_mckee_of_arrays_as_stored(n, entries, cls, index, symmetric_mode):
    """Found by a fuzz: for indices not canonical (unsorted, repeated) scipy's ``A + A.T``
    lists each row in its own order, which breaks ties of degree; and an int64-indexed
    sparse array gives int64."""
    entries = [(r % n, c % n, v) for r, c, v in entries]
    entries.sort(key=lambda e: e[0])                 # rows grouped, columns as drawn
    counts = np.bincount([r for r, _, _ in entries], minlength=n)
    indptr = np.concatenate([[0], np.cumsum(counts)]).astype(index)
    indices = np.array([c for _, c, _ in entries], dtype=index)
    G = cls((np.array([v for _, _, v in entries], float), indices, indptr), shape=(n, n))
    _assert_same(lambda m: m.reverse_cuthill_mckee(G, symmetric_mode))


def test_integral_float_and_bool_vertex_ids_are_read_as_scipy():
    """scipy converts vertex ids with ``int``; spbfs takes the integral ones (a fraction
    still raises rather than being cut)."""
    G = np.array([[0, 1.0], [1.0, 0]])
    _assert_same(lambda m: m.dijkstra(G, indices=1.0))
    _assert_same(lambda m: m.dijkstra(G, indices=np.array([True, False])))
    _assert_same(lambda m: m.breadth_first_order(G, np.float64(1.0)))
    with pytest.raises(TypeError, match="indices"):
        spbfs.csgraph.dijkstra(G, indices=0.5)


def _host_answer(answer):
    """A device answer (cupy array, cupyx matrix, tuple of them) on the host."""
    if isinstance(answer, tuple):
        return tuple(_host_answer(a) for a in answer)
    answer = answer.get() if hasattr(answer, "get") else answer
    return answer.toarray() if sp.issparse(answer) else np.asarray(answer)


@pytest.mark.gpu
@pytest.mark.parametrize("reader", sorted(READERS))
def test_gpu_reads_input_as_scipy(reader):
    """The reading above with device input: dense arrays with entries within 1e-8 of zero
    and complex ones, and NaN weights for the spanning tree."""
    import cupy
    import cupyx.scipy.sparse as csp

    nan_graph = sp.csr_array((np.array([np.nan, np.inf, 1.0]), (np.array([0, 2, 0]),
                                                                np.array([1, 1, 2]))),
                             shape=(3, 3))
    for host, device in [
            (d, cupy.asarray(d)) for d in (np.array([[0, 5e-9, 0], [0, 0, 1e-8], [2e-8, 0, 3.0]]),
                                           np.array([[0, 2j, 0], [0, 0, 1e-9 + 1j], [0, 0, 0]]))
    ] + [(nan_graph, csp.csr_matrix(nan_graph))]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = _host_answer(READERS[reader](csgraph, host))
            got = _host_answer(READERS[reader](spbfs.csgraph, device))
        for w, g in zip(want if isinstance(want, tuple) else (want,),
                        got if isinstance(got, tuple) else (got,), strict=True):
            np.testing.assert_array_equal(g, w)


@pytest.mark.gpu
def test_gpu_drops_stored_zeros_beside_negative_weights():
    """cupyx's ``eliminate_zeros`` moved a negative value's column onto a zero's (one H200,
    cupy 14.2): Floyd-Warshall of a dense device array with a negative weight lost the
    edge, and the symmetrised Laplacian read the same way."""
    import cupy

    G = np.array([[0, -1.0, 0], [0, 0, 2.0], [0, 0, 0]])
    np.testing.assert_array_equal(spbfs.csgraph.floyd_warshall(cupy.asarray(G)).get(),
                                  csgraph.floyd_warshall(G))
    A = sp.csr_array(np.array([[0, -1.0, 3.0], [1.0, 0, 2.0], [0, -2.0, 0]]))
    import cupyx.scipy.sparse as csp

    got = spbfs.csgraph.laplacian(csp.csr_matrix(A), symmetrized=True)
    np.testing.assert_array_equal(got.get().toarray(),
                                  csgraph.laplacian(A, symmetrized=True).toarray())


@pytest.mark.parametrize("maximize", [False, True])
def test_min_weight_matching_refuses_infinite_gains(maximize):
    """Found by a fuzz: with a -inf weight spbfs said no full matching exists, where one
    does (scipy's answer there is arbitrary: it says the same for some such graphs and
    returns a matching for others)."""
    weight = np.inf if maximize else -np.inf
    A = sp.csr_array(np.array([[weight, 1.0], [0, 1.0]]))
    with pytest.raises(ValueError, match="-inf weights"):
        spbfs.csgraph.min_weight_full_bipartite_matching(A, maximize=maximize)


@pytest.mark.parametrize("dtype", [np.bool_, np.int8])
@pytest.mark.parametrize("form", ["function", "lo"])
@pytest.mark.parametrize("normed", [False, True])
def test_laplacian_operator_of_repeated_entries_as_scipy(dtype, form, normed):
    """Found by a fuzz: scipy's operator forms take the degrees from ``graph.sum``, which
    widens each repeated entry before adding (two True count 2); spbfs summed them in the
    matrix's dtype first."""
    A = sp.csr_array((np.ones(3, dtype), np.array([1, 0, 1]), np.array([0, 3, 3])),
                     shape=(2, 2))
    want, got = (m.laplacian(A, form=form, normed=normed, use_out_degree=True)
                 for m in (csgraph, spbfs.csgraph))
    apply = (lambda f: f @ np.eye(2)) if form == "lo" else (lambda f: f(np.eye(2)))
    np.testing.assert_allclose(apply(got), apply(want))
