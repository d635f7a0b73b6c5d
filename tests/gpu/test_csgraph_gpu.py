"""spbfs.csgraph with GPU inputs: every public function given cupyx matrices (and cupy
arrays where scipy takes dense ones) returns device types, equal to scipy's result on the
host copy (skipped without a GPU)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse import csgraph as scipy_csgraph

from spbfs import csgraph

cupy = pytest.importorskip("cupy")
try:
    _HAVE_GPU = bool(cupy.cuda.is_available())
except Exception:  # pragma: no cover - a broken driver counts as no GPU
    _HAVE_GPU = False
if not _HAVE_GPU:
    pytest.skip("no CUDA GPU", allow_module_level=True)

import cupyx.scipy.sparse as csp  # noqa: E402

pytestmark = pytest.mark.gpu


# ----------------------------------------------------------------------------- helpers
def _graph(n, density, seed, symmetric=False, weights=(1, 9)):
    """A scipy CSR of float64 integer weights (exact sums), int32 indices."""
    rng = np.random.default_rng(seed)
    A = sp.random(n, n, density=density, random_state=rng, format="csr")
    A.data = rng.integers(weights[0], weights[1], A.nnz).astype(np.float64)
    if symmetric:
        A = sp.triu(A, 1)
        A = (A + A.T).tocsr()
    A.indices, A.indptr = A.indices.astype(np.int32), A.indptr.astype(np.int32)
    return sp.csr_matrix(A)


def _kron(scale, seed=1):
    """A small Graph500 Kronecker graph, undirected, weights 1..64 (the benchmark's)."""
    from spbfs.graph500.generate import kronecker

    u, v = kronecker(scale, 16, seed)
    keep = u != v
    n = 1 << scale
    A = sp.csr_matrix((np.ones(int(keep.sum())), (u[keep], v[keep])), shape=(n, n))
    A = ((A + A.T) != 0).astype(np.float64).tocsr()
    A = sp.triu(A, 1).tocsr()
    A.data = np.random.default_rng(seed).integers(1, 65, A.nnz).astype(np.float64)
    A = (A + A.T).tocsr()
    A.indices, A.indptr = A.indices.astype(np.int32), A.indptr.astype(np.int32)
    return A


def dev(A):
    """The cupyx copy of a scipy matrix (or the cupy copy of a dense array)."""
    if sp.issparse(A):
        return {"csr": csp.csr_matrix, "csc": csp.csc_matrix, "coo": csp.coo_matrix}[
            A.format](A)
    return cupy.asarray(A)


def host(x):
    """The host copy of a device result, asserting it is one."""
    assert type(x).__module__.startswith("cupy"), f"a host result: {type(x)}"
    return x.get()


def same_partition(a, b):
    (na, la), (nb, lb) = a, b
    return na == nb and len(set(zip(la.tolist(), lb.tolist(), strict=True))) == na


GRAPHS = {
    "random": lambda: _graph(300, 0.02, 1),
    "sparse": lambda: _graph(400, 0.004, 2),        # many components
    "symmetric": lambda: _graph(300, 0.02, 3, symmetric=True),
    "kron": lambda: _kron(9),
}


@pytest.fixture(params=sorted(GRAPHS))
def graph(request):
    return GRAPHS[request.param]()


# ----------------------------------------------------------------------------- traversal
@pytest.mark.parametrize("directed", [True, False])
def test_breadth_first_order_and_tree(graph, directed):
    want_order, want_pred = scipy_csgraph.breadth_first_order(graph, 0, directed)
    order, pred = csgraph.breadth_first_order(dev(graph), 0, directed)
    np.testing.assert_array_equal(host(order), want_order)
    np.testing.assert_array_equal(host(pred), want_pred)
    tree = csgraph.breadth_first_tree(dev(graph), 0, directed)
    assert isinstance(tree, csp.csr_matrix)
    assert (host(tree) != scipy_csgraph.breadth_first_tree(graph, 0, directed)).nnz == 0


@pytest.mark.parametrize("directed", [True, False])
def test_depth_first_order_and_tree_host_copy(graph, directed):
    want_order, want_pred = scipy_csgraph.depth_first_order(graph, 0, directed)
    order, pred = csgraph.depth_first_order(dev(graph), 0, directed)
    np.testing.assert_array_equal(host(order), want_order)
    np.testing.assert_array_equal(host(pred), want_pred)
    tree = csgraph.depth_first_tree(dev(graph), 0, directed)
    assert (host(tree) != scipy_csgraph.depth_first_tree(graph, 0, directed)).nnz == 0


@pytest.mark.parametrize("directed,connection", [(False, "weak"), (True, "weak"),
                                                 (True, "strong")])
def test_connected_components(graph, directed, connection):
    want = scipy_csgraph.connected_components(graph, directed, connection)
    n, labels = csgraph.connected_components(dev(graph), directed, connection)
    assert same_partition(want, (n, host(labels)))


@pytest.mark.parametrize("fmt", ["csc", "coo", "dense"])
def test_other_input_forms(fmt):
    """CSC, COO and dense (cupy) inputs give what scipy gives for the same forms."""
    A = _graph(150, 0.03, 12)
    G = A.toarray() if fmt == "dense" else A.asformat(fmt)
    order, pred = csgraph.breadth_first_order(dev(G), 0, directed=False)
    want_order, want_pred = scipy_csgraph.breadth_first_order(G, 0, directed=False)
    np.testing.assert_array_equal(host(order), want_order)
    np.testing.assert_array_equal(host(pred), want_pred)
    np.testing.assert_allclose(host(csgraph.dijkstra(dev(G), indices=[0, 1])),
                               scipy_csgraph.dijkstra(G, indices=[0, 1]))
    assert same_partition(scipy_csgraph.connected_components(G, directed=False),
                          tuple(x if isinstance(x, int) else host(x)
                                for x in csgraph.connected_components(dev(G), directed=False)))
    tree = host(csgraph.minimum_spanning_tree(dev(G)))
    want = scipy_csgraph.minimum_spanning_tree(G)
    assert tree.nnz == want.nnz and np.isclose(tree.sum(), want.sum())
    lap = host(csgraph.laplacian(dev(G), normed=True))
    lap = lap.toarray() if sp.issparse(lap) else lap
    want = scipy_csgraph.laplacian(G, normed=True)
    np.testing.assert_allclose(lap, want.toarray() if sp.issparse(want) else want, atol=1e-12)


# ----------------------------------------------------------------------------- shortest paths
@pytest.mark.parametrize("method", ["auto", "D", "BF", "J", "FW"])
@pytest.mark.parametrize("directed", [True, False])
def test_shortest_path(graph, method, directed):
    indices = None if method == "FW" else [0, 5, 17]
    want, want_pred = scipy_csgraph.shortest_path(graph, method, directed, True,
                                                  indices=indices)
    dist, pred = csgraph.shortest_path(dev(graph), method, directed, True, indices=indices)
    np.testing.assert_allclose(host(dist), want)
    # equal distances; the predecessors form a shortest-path tree (ties may differ)
    pred = host(pred)
    np.testing.assert_array_equal(pred < 0, want_pred < 0)


def test_shortest_path_dense_cupy_input():
    A = _graph(60, 0.1, 4).toarray()
    want = scipy_csgraph.shortest_path(A, indices=[0, 3])
    np.testing.assert_allclose(host(csgraph.shortest_path(cupy.asarray(A), indices=[0, 3])),
                               want)


def test_dijkstra_limit_min_only_unweighted(graph):
    want = scipy_csgraph.dijkstra(graph, indices=[0, 9], limit=12.0)
    np.testing.assert_allclose(host(csgraph.dijkstra(dev(graph), indices=[0, 9], limit=12.0)),
                               want)
    want = scipy_csgraph.dijkstra(graph, indices=[0, 9], min_only=True)
    np.testing.assert_allclose(host(csgraph.dijkstra(dev(graph), indices=[0, 9],
                                                     min_only=True)), want)
    want = scipy_csgraph.shortest_path(graph, unweighted=True, indices=3)
    np.testing.assert_allclose(host(csgraph.shortest_path(dev(graph), unweighted=True,
                                                          indices=3)), want)


def test_negative_weights_and_cycles():
    A = _graph(80, 0.05, 5, weights=(-2, 9))
    dag = sp.csr_matrix(sp.triu(A, 1))
    want = scipy_csgraph.bellman_ford(dag, indices=0)
    np.testing.assert_allclose(host(csgraph.bellman_ford(dev(dag), indices=0)), want)
    np.testing.assert_allclose(host(csgraph.johnson(dev(dag), indices=[0, 1])),
                               scipy_csgraph.johnson(dag, indices=[0, 1]))
    with pytest.raises(scipy_csgraph.NegativeCycleError):
        csgraph.bellman_ford(dev(A), directed=False, indices=0)


@pytest.mark.parametrize("directed", [True, False])
def test_yen(graph, directed):
    source, sink = 0, graph.shape[0] - 1
    want = scipy_csgraph.yen(graph, source, sink, 4, directed=directed,
                             return_predecessors=True)
    dist, pred = csgraph.yen(dev(graph), source, sink, 4, directed=directed,
                             return_predecessors=True)
    np.testing.assert_allclose(host(dist), want[0])
    np.testing.assert_array_equal(host(pred), want[1])


# ----------------------------------------------------------------------------- spanning tree
def test_minimum_spanning_tree(graph):
    want = scipy_csgraph.minimum_spanning_tree(graph)
    got = csgraph.minimum_spanning_tree(dev(graph))
    assert isinstance(got, csp.csr_matrix)
    got = host(got)
    assert got.nnz == want.nnz and np.isclose(got.sum(), want.sum())
    # the forest spbfs's CPU kernel finds, the same rule: equal
    assert (got != csgraph.minimum_spanning_tree(graph)).nnz == 0


def test_minimum_spanning_tree_distinct_weights_is_scipys():
    A = _graph(200, 0.05, 6, symmetric=True)
    A.data = np.arange(1, A.nnz + 1, dtype=np.float64)   # distinct: one forest
    A = sp.csr_matrix(sp.triu(A, 1))
    want = scipy_csgraph.minimum_spanning_tree(A)
    assert (host(csgraph.minimum_spanning_tree(dev(A))) != want).nnz == 0


# ----------------------------------------------------------------------------- reordering
@pytest.mark.parametrize("symmetric_mode", [False, True])
@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_reverse_cuthill_mckee(graph, symmetric_mode, fmt):
    G = graph.asformat(fmt)
    want = scipy_csgraph.reverse_cuthill_mckee(G, symmetric_mode)
    got = csgraph.reverse_cuthill_mckee(dev(G), symmetric_mode)
    np.testing.assert_array_equal(host(got), want)


# ----------------------------------------------------------------------------- laplacian
@pytest.mark.parametrize("normed", [False, True])
@pytest.mark.parametrize("use_out_degree", [False, True])
@pytest.mark.parametrize("symmetrized", [False, True])
@pytest.mark.parametrize("form", ["array", "function", "lo"])
@pytest.mark.parametrize("dense", [False, True])
def test_laplacian(normed, use_out_degree, symmetrized, form, dense):
    A = _graph(120, 0.05, 7)
    A = A.toarray() if dense else A
    kw = {"normed": normed, "use_out_degree": use_out_degree, "symmetrized": symmetrized,
          "form": form, "return_diag": True}
    want, want_d = scipy_csgraph.laplacian(A, **kw)
    got, d = csgraph.laplacian(dev(A), **kw)
    np.testing.assert_allclose(host(d), want_d)
    if form == "array":
        if not dense:
            assert isinstance(got, csp.coo_matrix)
        got = host(got)
        got = got.toarray() if sp.issparse(got) else got
        want = want.toarray() if sp.issparse(want) else want
        np.testing.assert_allclose(got, want, atol=1e-12)
    else:
        v = np.random.default_rng(0).standard_normal((A.shape[0], 2))
        out = got(cupy.asarray(v)) if form == "function" else got.matmat(cupy.asarray(v))
        want_out = want(v) if form == "function" else want.matmat(v)
        np.testing.assert_allclose(host(out), want_out, atol=1e-10)


def test_laplacian_dense_in_place():
    A = _graph(50, 0.1, 8).toarray()
    G = cupy.asarray(A)
    L = csgraph.laplacian(G, copy=False)
    np.testing.assert_allclose(host(G), scipy_csgraph.laplacian(A))
    assert L.data.ptr == G.data.ptr


# ----------------------------------------------------------------------------- matching
def test_bipartite_matching_and_structural_rank():
    for seed, shape in ((1, (80, 120)), (2, (120, 80)), (3, (100, 100))):
        rng = np.random.default_rng(seed)
        B = sp.random(*shape, density=0.02, random_state=rng, format="csr")
        B.indices, B.indptr = B.indices.astype(np.int32), B.indptr.astype(np.int32)
        B = sp.csr_matrix(B)
        want = scipy_csgraph.maximum_bipartite_matching(B, "column")
        col_of_row = host(csgraph.maximum_bipartite_matching(dev(B), "column"))
        row_of_col = host(csgraph.maximum_bipartite_matching(dev(B), "row"))
        assert isinstance(col_of_row, np.ndarray) and col_of_row.dtype == np.int32
        assert_maximum_matching(B, col_of_row, row_of_col, (want >= 0).sum())
        assert csgraph.structural_rank(dev(B)) == scipy_csgraph.structural_rank(B)


def test_bipartite_matching_of_a_kronecker_graph():
    A = _kron(12)
    want = scipy_csgraph.maximum_bipartite_matching(A, "column")
    got = [host(csgraph.maximum_bipartite_matching(dev(A), t)) for t in ("column", "row")]
    assert_maximum_matching(A, *got, (want >= 0).sum())


def assert_maximum_matching(B, col_of_row, row_of_col, size):
    """The two permutations describe one matching of ``size`` pairs, each an entry of B."""
    rows = np.flatnonzero(col_of_row >= 0)
    assert rows.size == size == (row_of_col >= 0).sum()
    np.testing.assert_array_equal(row_of_col[col_of_row[rows]], rows)
    assert (sp.csr_array(B)[rows, col_of_row[rows]] != 0).all()


def test_structural_rank_kronecker():
    A = _kron(10)
    assert csgraph.structural_rank(dev(A)) == scipy_csgraph.structural_rank(A)


def test_min_weight_full_bipartite_matching_host_copy():
    A = _graph(100, 0.05, 9)
    A = (A + sp.diags(np.arange(1.0, 101.0))).tocsr()   # a full matching exists
    A.indices, A.indptr = A.indices.astype(np.int32), A.indptr.astype(np.int32)
    for maximize in (False, True):
        r1, c1 = scipy_csgraph.min_weight_full_bipartite_matching(A, maximize)
        r2, c2 = csgraph.min_weight_full_bipartite_matching(dev(A), maximize)
        r2, c2 = host(r2), host(c2)
        assert np.isclose(A[r1, c1].sum(), A[r2, c2].sum())


# ----------------------------------------------------------------------------- flow
@pytest.mark.parametrize("method", ["edmonds_karp", "dinic"])
def test_maximum_flow(graph, method):
    capacities = graph.astype(np.int32)
    want = scipy_csgraph.maximum_flow(capacities, 0, graph.shape[0] - 1, method=method)
    got = csgraph.maximum_flow(dev(graph), 0, graph.shape[0] - 1, method=method)
    assert got.flow_value == want.flow_value
    assert isinstance(got.flow, csp.csr_matrix)
    assert (host(got.flow) != want.flow).nnz == 0


def test_maximum_flow_rejects_fractional_capacities():
    with pytest.raises(ValueError, match="integers"):
        csgraph.maximum_flow(csp.csr_matrix(cupy.asarray([[0, 1.5], [0, 0]])), 0, 1)


@pytest.mark.parametrize("method", ["edmonds_karp", "dinic"])
def test_maximum_flow_on_the_device_between_hubs(monkeypatch, method):
    """Both methods run on the device (the CPU kernels are refused) and give scipy's flow,
    entry by entry, between the two highest-degree vertices of a Kronecker graph (many
    augmenting paths a phase), and on a random digraph with zero capacities stored."""
    import spbfs.cpu.flow

    def host_copy(*args, **kwargs):
        raise AssertionError("maximum_flow took the host copy")

    monkeypatch.setattr(spbfs.cpu.flow, method, host_copy)
    A = _kron(10)
    hubs = np.argsort(np.diff(A.indptr))[::-1]
    B = _graph(500, 0.01, 11, weights=(0, 6))
    for G, source, sink in ((A, int(hubs[0]), int(hubs[1])), (B, 0, 499), (B, 7, 3)):
        want = scipy_csgraph.maximum_flow(G.astype(np.int32), source, sink, method=method)
        got = csgraph.maximum_flow(dev(G), source, sink, method=method)
        assert got.flow_value == want.flow_value
        assert isinstance(got.flow, csp.csr_matrix)
        assert (host(got.flow) != want.flow).nnz == 0


@pytest.mark.parametrize("steps", [1, 3, 40])
def test_dinic_past_the_device_budget_hands_over_to_the_host(monkeypatch, steps):
    """Dinic's method stopped after ``steps`` path-levels on the device and finished by the
    host's kernel from the device's flow: scipy's flow, entry by entry."""
    monkeypatch.setattr(csgraph, "DEVICE_DINIC_STEPS", steps)
    A = _kron(10)
    hubs = np.argsort(np.diff(A.indptr))[::-1]
    B = _graph(500, 0.01, 11, weights=(0, 6))
    for G, source, sink in ((A, int(hubs[0]), int(hubs[1])), (B, 0, 499), (B, 7, 3)):
        want = scipy_csgraph.maximum_flow(G.astype(np.int32), source, sink, method="dinic")
        got = csgraph.maximum_flow(dev(G), source, sink, method="dinic")
        assert got.flow_value == want.flow_value
        assert (host(got.flow) != want.flow).nnz == 0


# ----------------------------------------------------------------------------- conversions
def test_conversions():
    A = _graph(40, 0.1, 10)
    D = A.toarray()
    D[0, 1] = np.inf
    got = csgraph.csgraph_from_dense(cupy.asarray(D))
    assert isinstance(got, csp.csr_matrix)
    assert (host(got) != scipy_csgraph.csgraph_from_dense(D)).nnz == 0
    for null in (0, np.inf):
        np.testing.assert_array_equal(host(csgraph.csgraph_to_dense(dev(A), null)),
                                      scipy_csgraph.csgraph_to_dense(A, null))
    masked = csgraph.csgraph_masked_from_dense(cupy.asarray(A.toarray()))
    np.testing.assert_array_equal(masked.mask,
                                  scipy_csgraph.csgraph_masked_from_dense(A.toarray()).mask)
    np.testing.assert_array_equal(csgraph.csgraph_to_masked(dev(A)).mask,
                                  scipy_csgraph.csgraph_to_masked(A).mask)


@pytest.mark.parametrize("directed", [True, False])
def test_construct_dist_matrix_and_reconstruct_path(directed):
    A = _graph(60, 0.08, 11)
    dist, pred = scipy_csgraph.shortest_path(A, directed=directed, return_predecessors=True)
    want = scipy_csgraph.construct_dist_matrix(A, pred, directed)
    got = csgraph.construct_dist_matrix(dev(A), cupy.asarray(pred), directed)
    np.testing.assert_allclose(host(got), want)
    want = scipy_csgraph.reconstruct_path(A, pred[0], directed)
    got = csgraph.reconstruct_path(dev(A), cupy.asarray(pred[0]), directed)
    assert (host(got) != want).nnz == 0
