"""spbfs.components.connected_components against scipy.sparse.csgraph as the oracle."""

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph
from conftest import graphs, multigraphs
from hypothesis import given
from hypothesis import strategies as st

import spbfs.cpu.backend
import spbfs.csgraph
from spbfs.algorithms.components import connected_components
from spbfs.semiring import Matrix


def _reaches(A):
    """Boolean reachability matrix (every vertex reaches itself)."""
    d = csgraph.shortest_path(A, unweighted=True, directed=True)
    return np.isfinite(d)


def _check_strong(A, n_components, labels):
    """Same partition as scipy; reverse topological numbering; blocks in scipy's order."""
    k, expected = csgraph.connected_components(A, directed=True, connection="strong")
    assert n_components == k
    assert labels.dtype == np.int32 and labels.shape == expected.shape
    pairs = set(zip(expected.tolist(), labels.tolist(), strict=True))
    assert len(pairs) == k  # one spbfs label per scipy component: the same partition
    assert set(labels.tolist()) == set(range(k))
    coo = A.tocoo()
    cross = labels[coo.row] != labels[coo.col]
    # an edge u -> v between components: v's component has the smaller label
    assert np.all(labels[coo.col[cross]] < labels[coo.row[cross]])
    # blocks: the smallest vertex reaching a component never decreases along the labels
    # (scipy's depth-first search visits the components in that order)
    reach = _reaches(A)
    n = A.shape[0]
    smallest_reaching = np.array([np.flatnonzero(reach[:, v])[0] for v in range(n)])
    by_label = np.full(k, n)
    np.minimum.at(by_label, labels, smallest_reaching)
    assert np.all(np.diff(by_label) >= 0)


@given(graphs(), st.booleans())
def test_weak_and_undirected_labels_equal_scipy(A, directed):
    n_components, labels = connected_components(A, directed=directed, connection="weak")
    k, expected = csgraph.connected_components(A, directed=directed, connection="weak")
    assert n_components == k
    assert labels.dtype == expected.dtype == np.int32
    np.testing.assert_array_equal(labels, expected)
    # "strong" is ignored for an undirected graph, as in scipy
    if not directed:
        np.testing.assert_array_equal(connected_components(A, False, "strong")[1], expected)


@given(graphs())
def test_strong_components(A):
    n_components, labels = connected_components(A, connection="strong")
    _check_strong(A, n_components, labels)


@given(multigraphs(max_n=60, max_m=240))
def test_strong_search_kernel_equals_the_generic_path(A):
    """The CPU's depth-first search and the forward-backward path (the GPU's) give the same
    labels, numbered by the documented rule."""
    got = connected_components(A, connection="strong")
    with pytest.MonkeyPatch.context() as patch:
        patch.delattr(spbfs.cpu.backend, "strong_components")
        expected = connected_components(A, connection="strong")
    assert got[0] == expected[0]
    np.testing.assert_array_equal(got[1], expected[1])
    assert got[1].dtype == expected[1].dtype


@given(multigraphs(max_n=60, max_m=240), st.sampled_from([np.float64, np.int64]))
def test_strong_search_numbering_is_scipys(A, dtype):
    """The search's orders (the csgraph face's): the order the depth-first search finishes
    the components, which has the rule's checked properties and, through spbfs.csgraph,
    the installed scipy's labels exactly (its search's arc order; float64 input as
    stored, other dtypes sorted by scipy < 1.18's conversion); the generic path (the
    GPU's) falls back to the rule."""
    A = A.astype(dtype)
    for numbering in ("finish", "finish-reversed"):
        n_components, labels = connected_components(A, connection="strong",
                                                    strong_numbering=numbering)
        _check_strong(A, n_components, labels)
    np.testing.assert_array_equal(
        spbfs.csgraph.connected_components(A, connection="strong")[1],
        csgraph.connected_components(A, connection="strong")[1])
    with pytest.MonkeyPatch.context() as patch:
        patch.delattr(spbfs.cpu.backend, "strong_components")
        generic = connected_components(A, connection="strong", strong_numbering="finish")
    np.testing.assert_array_equal(generic[1], connected_components(A, connection="strong")[1])


def test_strong_numbering_is_checked():
    with pytest.raises(ValueError, match="strong_numbering"):
        connected_components(sp.eye_array(3, format="csr"), strong_numbering="scipy")


@given(multigraphs(max_n=60, max_m=240), st.booleans())
def test_weak_search_kernel_equals_the_generic_path(A, directed):
    """The CPU's union-find over the arcs as stored and FastSV over the symmetrised pattern
    (the GPU's path) give the same labels, scipy's."""
    got = connected_components(A, directed=directed)
    with pytest.MonkeyPatch.context() as patch:
        patch.delattr(spbfs.cpu.backend, "weak_components")
        expected = connected_components(A, directed=directed)
    assert got[0] == expected[0]
    np.testing.assert_array_equal(got[1], expected[1])
    assert got[1].dtype == expected[1].dtype
    # a pattern known to be symmetric: the kernel reads each edge one way only
    S = (A + A.T).tocsr()
    flagged = Matrix(S.indptr, S.indices, S.data, S.shape[0], symmetric=True)
    np.testing.assert_array_equal(connected_components(flagged)[1],
                                  csgraph.connected_components(S)[1])


def test_weak_search_on_a_long_path_and_from_threads():
    """A path numbered against its arcs' direction (every union links a larger root under a
    smaller one), and eight threads on shared matrices, the kernel's first calls among them."""
    from concurrent.futures import ThreadPoolExecutor

    n = 5000
    path = sp.csr_array((np.ones(n - 1), (np.arange(1, n), np.arange(n - 1))), shape=(n, n))
    assert connected_components(path)[0] == 1
    rng = np.random.default_rng(3)
    graphs_ = [sp.random(400, 400, density=0.004, random_state=rng, format="csr")
               for _ in range(4)]
    expected = [csgraph.connected_components(G, connection="weak") for G in graphs_]
    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(lambda i: connected_components(graphs_[i % 4]), range(32)))
    for i, (k, labels) in enumerate(got):
        assert k == expected[i % 4][0]
        np.testing.assert_array_equal(labels, expected[i % 4][1])


def test_strong_search_from_threads():
    """One matrix, eight threads, the kernel's first calls among them: every answer right."""
    from concurrent.futures import ThreadPoolExecutor

    rng = np.random.default_rng(7)
    graphs_ = [sp.random(400, 400, density=0.01, random_state=rng, format="csr")
               for _ in range(4)]
    expected = [csgraph.connected_components(G, connection="strong") for G in graphs_]
    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(lambda i: connected_components(graphs_[i % 4], connection="strong"),
                            range(32)))
    for i, (k, labels) in enumerate(got):
        assert k == expected[i % 4][0]
        pairs = set(zip(expected[i % 4][1].tolist(), labels.tolist(), strict=True))
        assert len(pairs) == k


@given(graphs(max_n=60, max_m=120), st.sampled_from(["csc", "coo", "lil", "dense", "list"]))
def test_other_formats(A, fmt):
    if fmt == "dense":
        G = A.toarray().astype(float)
        G[G == 0] = np.inf  # not an edge either way ...
        G[np.diag_indices_from(G)] = np.nan  # ... nor NaN
        A = sp.csr_array(np.where(np.isfinite(G), G, 0))  # the graph scipy sees
    elif fmt == "list":
        G = A.toarray().tolist()
        A = sp.csr_array(A.toarray())
    else:
        G = A.asformat(fmt)
    for directed, connection in ((True, "weak"), (False, "weak"), (True, "strong")):
        n_components, labels = connected_components(G, directed, connection)
        if connection == "strong":
            _check_strong(A, n_components, labels)
        else:
            k, expected = csgraph.connected_components(A, directed, connection)
            assert n_components == k
            np.testing.assert_array_equal(labels, expected)


@pytest.mark.parametrize(
    "edges,n,expected",
    [
        ([(0, 1)], 2, [1, 0]),                                  # scipy's int64 test
        ([(0, 1), (1, 2), (2, 3)], 4, [3, 2, 1, 0]),            # a chain: order forced
        ([(3, 2), (2, 1), (1, 0)], 4, [0, 1, 2, 3]),
        ([], 3, [0, 1, 2]),                                     # no edges
        ([(0, 1), (1, 0), (1, 2), (2, 3), (3, 2)], 5, [1, 1, 0, 0, 2]),  # chain of cycles
    ],
)
def test_strong_labels_equal_scipy_where_forced(edges, n, expected):
    rows = [e[0] for e in edges]
    cols = [e[1] for e in edges]
    A = sp.csr_array((np.ones(len(edges)), (rows, cols)), shape=(n, n))
    scipy_labels = csgraph.connected_components(A, connection="strong")[1]
    np.testing.assert_array_equal(scipy_labels, expected)
    k, labels = connected_components(A, connection="strong")
    assert k == len(set(expected))
    np.testing.assert_array_equal(labels, expected)


def test_strong_numbering_rule_inside_a_block():
    # a star 0 -> 1, 2, 3: one block; sinks first, larger smallest vertex first (scipy 1.17's
    # depth-first search gives the same, scipy 1.18's gives [3, 0, 1, 2])
    A = sp.csr_array((np.ones(3), ([0, 0, 0], [1, 2, 3])), shape=(4, 4))
    np.testing.assert_array_equal(connected_components(A, connection="strong")[1], [3, 2, 1, 0])
    # 0 -> 1 -> 2 and 0 -> 3: heights 0 (2, 3), 1 (1), 2 (0)
    A = sp.csr_array((np.ones(3), ([0, 1, 0], [1, 2, 3])), shape=(4, 4))
    np.testing.assert_array_equal(connected_components(A, connection="strong")[1], [3, 2, 1, 0])


def test_explicit_zeros_self_loops_duplicates_are_edges():
    A = sp.csr_array((np.array([0.0, 0.0, 5.0, 1.0]), np.array([1, 0, 0, 3]),
                      np.array([0, 1, 3, 3, 4])), shape=(4, 4))  # 0->1 (0), 1->0 twice, 3->3
    k, labels = connected_components(A, connection="strong")
    assert k == 3 and labels[0] == labels[1] and len({labels[0], labels[2], labels[3]}) == 3
    np.testing.assert_array_equal(connected_components(A, directed=False)[1], [0, 0, 1, 2])


def test_masked_array_uses_unmasked_entries():
    data = np.array([[0.0, 0.0], [0.0, 0.0]])
    G = np.ma.masked_array(data, mask=[[True, False], [True, True]])  # 0 -> 1, weight 0
    assert connected_components(G)[0] == 1
    assert connected_components(data)[0] == 2


@pytest.mark.parametrize("n", [0, 1])
def test_empty_and_one_vertex(n):
    A = sp.csr_array((n, n))
    for directed, connection in ((True, "weak"), (True, "strong"), (False, "weak")):
        k, labels = connected_components(A, directed, connection)
        expected = csgraph.connected_components(A, directed, connection)
        assert k == expected[0] == n
        assert labels.dtype == np.int32
        np.testing.assert_array_equal(labels, expected[1])
        assert connected_components(A, directed, connection, return_labels=False) == n


def test_return_labels_false_gives_an_int():
    A = sp.csr_array(([1.0], ([0], [1])), shape=(3, 3))
    k = connected_components(A, return_labels=False)
    assert isinstance(k, int) and k == 2


def test_connection_is_case_insensitive():
    A = sp.csr_array(([1.0], ([0], [1])), shape=(2, 2))
    assert connected_components(A, connection="STRONG")[0] == 2
    assert connected_components(A, connection="Weak")[0] == 1


@pytest.mark.parametrize(
    "kwargs,error,word",
    [
        ({"connection": "medium"}, ValueError, "connection"),
        ({"connection": 3}, TypeError, "connection"),
    ],
)
def test_bad_connection(kwargs, error, word):
    A = sp.csr_array((2, 2))
    with pytest.raises(error, match=word):
        connected_components(A, **kwargs)


@pytest.mark.parametrize(
    "A,error,word",
    [
        (sp.csr_array((2, 3)), ValueError, "square"),
        (np.zeros((2, 3)), ValueError, "square"),
        (np.zeros(3), ValueError, "2-D"),
        ("graph", TypeError, "A must be"),
        (np.array([["a", "b"], ["c", "d"]]), TypeError, "numeric"),
    ],
)
def test_bad_graph(A, error, word):
    with pytest.raises(error, match=word):
        connected_components(A)


def test_csgraph_wrapper_is_the_same_function():
    A = sp.csr_array(([1.0, 1.0], ([0, 2], [1, 3])), shape=(5, 5))
    for connection in ("weak", "strong"):
        k, labels = spbfs.csgraph.connected_components(A, connection=connection)
        expected_k, expected = connected_components(A, connection=connection)
        assert k == expected_k
        np.testing.assert_array_equal(labels, expected)
    with pytest.raises(ValueError, match="connection"):
        spbfs.csgraph.connected_components(A, connection="x")


def test_long_chain_and_cycles_are_fast_enough():
    # a chain of 2000 two-vertex cycles: trimming cannot help, colouring peels it
    n = 4000
    u = np.arange(n - 1)
    A = sp.csr_array((np.ones(n - 1 + n // 2), (np.concatenate([u, np.arange(1, n, 2)]),
                      np.concatenate([u + 1, np.arange(0, n, 2)]))), shape=(n, n))
    k, labels = connected_components(A, connection="strong")
    expected_k, expected = csgraph.connected_components(A, connection="strong")
    assert k == expected_k == n // 2
    np.testing.assert_array_equal(labels, expected)  # a chain: the order is forced


@pytest.mark.gpu
def test_gpu_matches_cpu():
    import cupy
    import cupyx.scipy.sparse as csp

    rng = np.random.default_rng(0)
    n, m = 3000, 6000
    A = sp.csr_array((np.ones(m), (rng.integers(0, n, m), rng.integers(0, n, m))),
                     shape=(n, n))
    G = csp.csr_matrix(A)
    for directed, connection in ((True, "weak"), (False, "weak"), (True, "strong")):
        k, labels = connected_components(A, directed, connection)
        kg, labels_gpu = connected_components(G, directed, connection)
        assert isinstance(labels_gpu, cupy.ndarray) and kg == k
        np.testing.assert_array_equal(labels_gpu.get(), labels)


def _on_gpu(A, symmetric=False):
    import cupy

    return Matrix(cupy.asarray(A.indptr), cupy.asarray(A.indices), cupy.asarray(A.data),
                  A.shape[0], symmetric=symmetric, check=False)


@pytest.mark.gpu
@given(multigraphs(max_n=60, max_m=240), st.booleans())
def test_gpu_weak_union_find_equals_scipy(A, directed):
    """The GPU's union-find kernel over the arcs as stored (duplicates, unsorted rows) and,
    with it removed, FastSV: scipy's labels, int32 on the device."""
    import spbfs.gpu.backend

    k, expected = csgraph.connected_components(A, directed=directed)
    for generic in (False, True):
        with pytest.MonkeyPatch.context() as patch:
            if generic:
                patch.delattr(spbfs.gpu.backend, "weak_components")
            got_k, got = connected_components(_on_gpu(A), directed=directed)
        assert got_k == k and got.dtype == np.int32
        np.testing.assert_array_equal(got.get(), expected)
    S = (A + A.T).tocsr()
    got_k, got = connected_components(_on_gpu(S, symmetric=True))
    np.testing.assert_array_equal(got.get(), csgraph.connected_components(S)[1])


@pytest.mark.gpu
def test_gpu_weak_union_find_on_large_graphs():
    """Many threads linking at once: a Kronecker digraph (hubs: contended roots), a path
    numbered against its arcs (every link a chain's length from its root) and a graph of
    many small components, each against scipy."""
    from spbfs.graph500.generate import kronecker

    u, v = kronecker(16, 8, 3)
    n = 1 << 16
    kron = sp.csr_array((np.ones(u.size), (u, v)), shape=(n, n))
    m = 200_000
    path = sp.csr_array((np.ones(m - 1), (np.arange(1, m), np.arange(m - 1))), shape=(m, m))
    rng = np.random.default_rng(5)
    sparse = sp.random(m, m, density=0.5 / m, random_state=rng, format="csr")
    for A in (kron, path, sparse):
        k, expected = csgraph.connected_components(A, connection="weak")
        got_k, got = connected_components(_on_gpu(A))
        assert got_k == k
        np.testing.assert_array_equal(got.get(), expected)
