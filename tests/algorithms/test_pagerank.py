"""spbfs.pagerank against networkx.pagerank as the oracle (numpy in CI, cupy on the device).

Graphs come with self-loops, duplicates (one edge holding their sum, as NetworkX sees the
summed matrix), explicit zeros (zero-weight edges), isolated and dangling vertices.
"""

import functools

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from conftest import DEVICES, multigraphs, on_device, to_host
from hypothesis import given
from hypothesis import strategies as st

from spbfs.algorithms.pagerank import PowerIterationFailedConvergence, pagerank


def _vec(device, v):
    if v is None or device == "numpy":
        return v
    import cupy

    return cupy.asarray(v)


def _digraph(A, weight=True):
    """The NetworkX DiGraph of a matrix: duplicates summed, explicit zeros kept as edges."""
    coo = sp.coo_array(A)
    n = A.shape[0]
    keys = coo.row.astype(np.int64) * n + coo.col
    uniq, inverse = np.unique(keys, return_inverse=True)
    sums = np.bincount(inverse.ravel(), weights=coo.data.astype(np.float64),
                       minlength=uniq.size)
    G = nx.DiGraph()
    G.add_nodes_from(range(n))
    G.add_weighted_edges_from(zip((uniq // n).tolist(), (uniq % n).tolist(), sums.tolist(),
                                  strict=True))
    return G


def _nx_pagerank(A, **kw):
    n = A.shape[0]
    for key in ("personalization", "dangling"):
        if kw.get(key) is not None:
            kw[key] = dict(enumerate(np.asarray(kw[key]).tolist()))
    weight = "weight" if kw.pop("weight", True) else None
    r = nx.pagerank(_digraph(A), weight=weight, **kw)
    return np.array([r[i] for i in range(n)])


def _steps(B, tol, **kw):
    """The fewest ``max_iter`` (below 300) at which ``pagerank(B, tol=tol, **kw)``
    converges."""
    for k in range(1, 300):
        try:
            pagerank(B, tol=tol, max_iter=k, **kw)
            return k
        except PowerIterationFailedConvergence:
            pass
    return None


def _exact(A, alpha=0.85, personalization=None, dangling=None, weight=True):
    """NetworkX's fixed point solved directly: ``x = x @ S * alpha + (1 - alpha) * p`` with
    ``S`` the row-normalised weights and ``d`` in the rows of zero out-weight."""
    n = A.shape[0]
    W = _digraph_matrix(A, weight)
    p = np.full(n, 1.0 / n) if personalization is None else personalization / personalization.sum()
    d = p if dangling is None else dangling / dangling.sum()
    out = W.sum(axis=1)
    S = np.where(out[:, None] > 0, W / np.where(out > 0, out, 1.0)[:, None], d[None, :])
    return np.linalg.solve(np.eye(n) - alpha * S.T, (1 - alpha) * p) if alpha < 1 else None


def _digraph_matrix(A, weight):
    """The dense matrix NetworkX sees: duplicates summed, every stored edge 1 unweighted."""
    coo = sp.coo_array(A)
    W = np.zeros(A.shape)
    np.add.at(W, (coo.row, coo.col), coo.data.astype(np.float64) if weight else 0.0)
    if not weight:
        W[coo.row, coo.col] = 1.0
    return W


def _assert_converged(got, exact, n, alpha, tol):
    """``got`` is the fixed point to within what the stopping rule (the L1 change below
    ``n * tol``) promises: a step contracts the error by alpha, so the error left is at
    most ``alpha / (1 - alpha)`` times the last change (twice that for the normalised
    system's iterate)."""
    bound = 2 * alpha / (1 - alpha) * n * tol + 1e-12
    assert np.abs(got - exact).sum() <= bound


@st.composite
def distributions(draw, n):
    """None, or n non-negative values that are not all zero."""
    if draw(st.booleans()):
        return None
    v = np.array(draw(st.lists(st.integers(0, 4), min_size=n, max_size=n)), np.float64)
    if v.sum() == 0:
        v[draw(st.integers(0, n - 1))] = 1.0
    return v


@pytest.mark.parametrize("device", DEVICES)
@given(A=multigraphs(weights="float"), data=st.data(), weight=st.booleans(),
       alpha=st.sampled_from([0.0, 0.5, 0.85, 0.95]))
def test_matches_networkx(device, A, data, weight, alpha):
    n = A.shape[0]
    p = data.draw(distributions(n))
    d = data.draw(distributions(n))
    kw = dict(alpha=alpha, personalization=p, dangling=d, weight=weight)
    exact = _exact(A, **kw)
    try:
        expected = _nx_pagerank(A, **kw)
    except nx.PowerIterationFailedConvergence:
        expected = None
    try:
        got = pagerank(on_device(device, A), **dict(kw, personalization=_vec(device, p),
                                                 dangling=_vec(device, d)))
    except PowerIterationFailedConvergence:
        assert expected is None  # NetworkX's step converges no faster than spbfs's
        return
    assert type(got).__module__.split(".")[0] == device
    got = to_host(got)
    assert got.dtype == np.float64 and got.shape == (n,)
    assert abs(got.sum() - 1.0) < 1e-9
    _assert_converged(got, exact, n, alpha, 1e-6)
    if expected is not None:
        _assert_converged(expected, exact, n, alpha, 1e-6)  # the bound holds NetworkX's too
        W = _digraph_matrix(A, weight)
        dangling_vertices = W.sum(axis=1) == 0
        if d is not None or alpha == 1 or not dangling_vertices.any() or (
                (_digraph_matrix(A, False) != 0)[:, dangling_vertices].any()):
            # NetworkX's own step (no dangling vertex, an edge into one, or a dangling
            # distribution of its own): the same iterates
            assert np.abs(got - expected).sum() < 1e-9


@pytest.mark.parametrize("device", DEVICES)
def test_small_cases(device):
    # one vertex, with and without a self-loop; two isolated vertices
    for A in (sp.csr_array((1, 1)), sp.csr_array(np.ones((1, 1))), sp.csr_array((2, 2))):
        got = to_host(pagerank(on_device(device, A)))
        np.testing.assert_allclose(got, _nx_pagerank(A), atol=1e-12)


def test_empty_graph_and_dense_input():
    assert pagerank(np.zeros((0, 0))).shape == (0,)
    got = pagerank(sp.csr_array((0, 0)))
    assert got.shape == (0,) and got.dtype == np.float64
    D = np.array([[0, 2.0, 0], [0, 0, 1.0], [1.0, 0, np.nan]])  # NaN: no edge (dense rule)
    np.testing.assert_allclose(pagerank(D), pagerank(sp.csr_array(np.nan_to_num(D))),
                               atol=1e-15)


def test_explicit_zero_weight_edge_is_dangling():
    # 0 -> 1 with weight 0: vertex 0 has zero out-weight, so it is dangling for weight=True
    A = sp.csr_array((np.array([0.0, 1.0]), (np.array([0, 1]), np.array([1, 2]))),
                     shape=(3, 3))
    np.testing.assert_allclose(pagerank(A), _nx_pagerank(A), atol=1e-12)
    np.testing.assert_allclose(pagerank(A, weight=False), _nx_pagerank(A, weight=False),
                               atol=1e-12)


def test_a_stored_false_weighs_zero():
    # 1 -> 2 stored as False: an edge of weight 0, so 1 is dangling (found by a fuzz: a
    # bool matrix was read as every edge weighing 1)
    A = sp.csr_array((np.array([True, False]), ([0, 1], [1, 2])), shape=(3, 3))
    np.testing.assert_allclose(pagerank(A), _nx_pagerank(A.astype(float)), atol=1e-12)
    np.testing.assert_allclose(pagerank(A), pagerank(A.astype(np.int8)), atol=1e-15)
    np.testing.assert_allclose(pagerank(A, weight=False), _nx_pagerank(A, weight=False),
                               atol=1e-12)


def test_duplicates_sum_and_unweighted_count_once():
    A = sp.coo_array((np.array([1.0, 2.0, 1.0]), (np.array([0, 0, 0]), np.array([1, 1, 2]))),
                     shape=(3, 3)).tocsr()
    A.has_canonical_format = False
    B = sp.csr_array(np.array([[0, 3.0, 1.0], [0, 0, 0], [0, 0, 0]]))
    np.testing.assert_allclose(pagerank(A), pagerank(B), atol=1e-15)
    C = sp.csr_array(np.array([[0, 1.0, 1.0], [0, 0, 0], [0, 0, 0]]))
    np.testing.assert_allclose(pagerank(A, weight=False), pagerank(C), atol=1e-15)


def test_no_convergence_raises():
    A = sp.random(50, 50, density=0.1, random_state=0, format="csr")
    with pytest.raises(nx.PowerIterationFailedConvergence):
        _nx_pagerank(A, max_iter=2)
    with pytest.raises(PowerIterationFailedConvergence, match="within 2 iterations") as info:
        pagerank(A, max_iter=2)
    assert isinstance(info.value, RuntimeError) and info.value.num_iterations == 2
    with pytest.raises(PowerIterationFailedConvergence):
        pagerank(A, max_iter=0)


def test_kronecker_graph():
    from spbfs.graph500.generate import kronecker

    u, v = kronecker(8, edgefactor=8, seed=3)
    A = sp.coo_array((np.ones(u.size), (u, v)), shape=(256, 256)).tocsr()
    exact = _exact(A)
    for tol in (1e-6, 1e-10):
        _assert_converged(pagerank(A, tol=tol), exact, 256, 0.85, tol)
        _assert_converged(_nx_pagerank(A, tol=tol), exact, 256, 0.85, tol)


def test_isolated_dangling_rank_settled_in_fewer_steps():
    """Where no edge enters a dangling vertex (a symmetric Kronecker graph's isolated
    vertices) the normalised system's step reaches NetworkX's fixed point in fewer steps
    than NetworkX's own (8 against 9 from the uniform start, 6 from the degree start an
    undirected graph takes); where edges enter them (the directed graph), or with a
    dangling distribution of its own, spbfs takes NetworkX's step."""
    from spbfs.graph500.generate import kronecker

    n = 1 << 17
    u, v = kronecker(17, edgefactor=16, seed=1)
    A = sp.coo_array((np.ones(u.size), (u, v)), shape=(n, n)).tocsr()
    S = ((A + A.T) > 0).astype(np.float64)
    tol = 1e-4 / n
    uniform = np.ones(n)  # as the default, but named: NetworkX's step

    steps = functools.partial(_steps, tol=tol)

    assert (steps(S), steps(S, dangling=uniform)) == (6, 9)
    assert steps(S, nstart=uniform) == 8  # the uniform start, named
    assert steps(A) == steps(A, dangling=uniform) == 10
    exact = pagerank(S, tol=1e-12 / n, dangling=uniform)
    _assert_converged(pagerank(S, tol=tol), exact, n, 0.85, tol)
    _assert_converged(pagerank(S, tol=tol, dangling=uniform), exact, n, 0.85, tol)


def test_undirected_start_chosen_by_its_first_step():
    """An undirected graph starts from the degree start where its walks mix fast (a
    Kronecker graph: fewer steps than the uniform start) and from the uniform one where
    they mix slowly (a grid, a lollipop: the same steps as ``nstart`` uniform); the choice
    is kept with the pattern, so a second call returns the first's ranks, and every
    answer lies within the rule's bound of the exact ranks."""
    import networkx as nx

    from spbfs.graph500.generate import kronecker

    steps = functools.partial(_steps, tol=1e-8)

    u, v = kronecker(11, edgefactor=16, seed=2)
    K = sp.coo_array((np.ones(u.size), (u, v)), shape=(2048, 2048)).tocsr()
    K = ((K + K.T) > 0).astype(np.float64)
    slow = [nx.to_scipy_sparse_array(g, format="csr", dtype=np.float64)
            for g in (nx.grid_2d_graph(30, 30), nx.lollipop_graph(30, 120))]
    for B in (K, *slow):
        n = B.shape[0]
        first = pagerank(B, tol=1e-8)
        assert np.array_equal(first, pagerank(B, tol=1e-8))
        _assert_converged(first, _exact(B), n, 0.85, 1e-8)
    assert steps(K) < steps(K, nstart=np.ones(2048))
    for B in slow:
        assert steps(B) == steps(B, nstart=np.ones(B.shape[0]))


def test_weighted_undirected_start_from_strengths():
    """A weighted graph known to be undirected (a Matrix marked symmetric, as the NetworkX
    backend makes for a Graph) starts from its strengths where that is faster: fewer steps
    than from ``nstart`` uniform on a Barabasi-Albert graph with random weights, the same
    answer on a second call, and within the rule's bound of a direct solve; a weighted
    scipy array (symmetry not known) keeps the uniform start."""
    import networkx as nx

    from spbfs.semiring import Matrix

    G = nx.barabasi_albert_graph(1500, 3, seed=1)
    rng = np.random.default_rng(0)
    for u, v in G.edges:
        G[u][v]["weight"] = float(rng.integers(1, 10))
    A = nx.to_scipy_sparse_array(G, format="csr", dtype=np.float64)
    n, tol = A.shape[0], 1e-4 / A.shape[0]
    M = Matrix(A.indptr, A.indices, A.data, n, symmetric=True)

    steps = functools.partial(_steps, tol=tol)

    assert steps(M) < steps(M, nstart=np.ones(n)) == steps(A) == steps(A, nstart=np.ones(n))
    first = pagerank(M, tol=tol)
    assert np.array_equal(first, pagerank(M, tol=tol))
    _assert_converged(first, _exact(A), n, 0.85, tol)


@pytest.mark.parametrize("hot_bits", [0, 4, 8])
def test_kronecker_graph_through_the_renumbered_layout(monkeypatch, hot_bits):
    """The CPU's step over its renumbered layout (spbfs/cpu/renumber.py), forced on a small
    graph (no source hot, 16, 256 of 512): NetworkX's answers, unweighted and uniform or
    personalised."""
    from spbfs.cpu import rank, renumber
    from spbfs.graph500.generate import kronecker

    monkeypatch.setattr(rank, "LAYOUT_ENTRIES", 0)
    monkeypatch.setattr(renumber, "HOT_BITS", hot_bits)
    monkeypatch.setattr(renumber, "HOT_SHARE", 0.0)
    built = []
    build = renumber._build
    monkeypatch.setattr(renumber, "_build", lambda *a: built.append(1) or build(*a))
    u, v = kronecker(9, edgefactor=8, seed=4)
    A = sp.coo_array((np.ones(u.size, bool), (u, v)), shape=(512, 512)).tocsr()
    p = np.random.default_rng(0).random(512)
    for kw in ({}, {"personalization": p}, {"tol": 1e-10}, {"dangling": p}):
        _assert_converged(pagerank(A, **kw), _exact(A, personalization=kw.get("personalization"),
                                                     dangling=kw.get("dangling")),
                          512, 0.85, kw.get("tol", 1e-6))
    # a dangling distribution of its own: NetworkX's step, the same iterates
    assert np.abs(pagerank(A, dangling=p) - _nx_pagerank(A, dangling=p)).sum() < 1e-12
    assert built  # the layout was built (and kept with the transpose's pattern)


def test_weights_all_one_take_the_unweighted_product():
    """Float weights of 1 everywhere: the out-weights are the out-degrees and the product
    reads no values; the same bytes as weight=False, and NetworkX's answer."""
    from spbfs.graph500.generate import kronecker

    u, v = kronecker(8, edgefactor=8, seed=5)
    A = sp.coo_array((np.ones(u.size), (u, v)), shape=(256, 256)).tocsr()
    A.sum_duplicates()
    A.data[:] = 1.0
    assert pagerank(A).tobytes() == pagerank(A, weight=False).tobytes()
    _assert_converged(pagerank(A), _exact(A), 256, 0.85, 1e-6)
    B = A.copy()
    B.data[-1] = 2.0  # one weight of 2: the weighted product
    _assert_converged(pagerank(B), _exact(B), 256, 0.85, 1e-6)
    assert pagerank(B).tobytes() != pagerank(B, weight=False).tobytes()

@pytest.mark.parametrize("kwargs, exc, words", [
    (dict(A=sp.csr_array((2, 3))), ValueError, "A must be square"),
    (dict(A="graph"), TypeError, "A must be"),
    (dict(A=sp.csr_array(np.array([[0, -1.0], [1.0, 0]]))), ValueError, "negative weights"),
    (dict(A=sp.csr_array(([np.nan], ([0], [1])), shape=(2, 2))), ValueError, "NaN"),
    (dict(alpha=1.5), ValueError, "alpha"),
    (dict(alpha="x"), TypeError, "alpha"),
    (dict(tol=-1.0), ValueError, "tol"),
    (dict(max_iter=-1), ValueError, "max_iter"),
    (dict(max_iter=2.5), TypeError, "max_iter"),
    (dict(weight="weight"), TypeError, "weight"),
    (dict(personalization=np.ones(3)), ValueError, "personalization"),
    (dict(personalization=np.zeros(2)), ValueError, "personalization"),
    (dict(personalization=np.array([1.0, -1.0])), ValueError, "personalization"),
    (dict(personalization=np.array([1.0, np.inf])), ValueError, "personalization"),
    (dict(personalization={0: 1.0}), TypeError, "personalization"),
    (dict(dangling=np.zeros(2)), ValueError, "dangling"),
    (dict(dangling=np.ones((2, 1))), ValueError, "dangling"),
])
def test_bad_input(kwargs, exc, words):
    kwargs = dict(kwargs)
    A = kwargs.pop("A", sp.csr_array(np.array([[0, 1.0], [1.0, 0]])))
    with pytest.raises(exc, match=words):
        pagerank(A, **kwargs)


@pytest.mark.gpu
def test_gpu_matches_cpu_on_kronecker():
    import cupy

    from spbfs.graph500.generate import kronecker

    u, v = kronecker(12, edgefactor=16, seed=2)
    A = sp.coo_array((np.ones(u.size), (u, v)), shape=(4096, 4096)).tocsr()
    got = pagerank(on_device("cupy", A), personalization=cupy.arange(4096, dtype=np.float64))
    assert isinstance(got, cupy.ndarray)
    expected = pagerank(A, personalization=np.arange(4096, dtype=np.float64))
    assert np.abs(got.get() - expected).sum() < 1e-9


@pytest.mark.gpu
def test_gpu_undirected_start_matches_cpu():
    """The undirected start on the GPU: the same choice and ranks as the CPU's, from the
    degrees of a Kronecker graph and from the strengths of a Matrix marked symmetric."""
    import cupy

    from spbfs.graph500.generate import kronecker
    from spbfs.semiring import Matrix

    u, v = kronecker(12, edgefactor=16, seed=2)
    K = sp.coo_array((np.ones(u.size), (u, v)), shape=(4096, 4096)).tocsr()
    K = ((K + K.T) > 0).astype(np.float64)
    W = sp.triu(K, format="csr")
    W.data = np.random.default_rng(3).integers(1, 9, W.nnz).astype(np.float64)
    W = (W + W.T).tocsr()
    pairs = [(on_device("cupy", K), K)]
    for xp in (cupy, np):
        pairs.append(Matrix(xp.asarray(W.indptr), xp.asarray(W.indices), xp.asarray(W.data),
                            4096, symmetric=True))
    pairs = [pairs[0], tuple(pairs[1:])]
    for on_gpu, on_cpu in pairs:
        got = pagerank(on_gpu, tol=1e-10)
        assert isinstance(got, cupy.ndarray)
        assert np.abs(got.get() - pagerank(on_cpu, tol=1e-10)).sum() < 1e-9
