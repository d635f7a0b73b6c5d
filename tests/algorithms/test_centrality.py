"""spbfs.centrality.betweenness_centrality against NetworkX as the oracle (numpy in CI, cupy
on the device): networkx.betweenness_centrality for all sources and
networkx.betweenness_centrality_subset (targets: every vertex) for a set of sources, on
directed and undirected graphs with self-loops, duplicates, explicit zeros and isolated
vertices.
"""

import contextlib

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from conftest import DEVICES, multigraphs, on_device, to_host
from hypothesis import given
from hypothesis import strategies as st

from spbfs.algorithms.centrality import betweenness_centrality


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
    got = betweenness_centrality(on_device(device, A), normalized=normalized, directed=directed,
                                 batch=batch)
    assert type(got).__module__.split(".")[0] == device
    got = to_host(got)
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
    got = to_host(betweenness_centrality(on_device(device, A), normalized=normalized,
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
    from spbfs.graph500.generate import kronecker

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

    from spbfs.graph500.generate import kronecker

    u, v = kronecker(11, edgefactor=16, seed=2)
    A = sp.coo_array((np.ones(u.size), (u, v)), shape=(2048, 2048)).tocsr()
    sources = np.arange(0, 2048, 7)
    for directed in (True, False):
        got = betweenness_centrality(on_device("cupy", A), directed=directed,
                                     sources=cupy.asarray(sources))
        assert isinstance(got, cupy.ndarray)
        _close(got.get(), betweenness_centrality(A, directed=directed, sources=sources))


@pytest.mark.parametrize("directed", [True, False])
def test_edge_betweenness_with_batches_and_unreached_tails(directed):
    """Edge betweenness sums each source's terms per edge: batches cut between the sources,
    and edges whose tail a source does not reach still give NetworkX's values."""
    from spbfs.algorithms.centrality import edge_betweenness_centrality

    A = sp.random(60, 60, density=0.08, random_state=np.random.default_rng(4), format="csr")
    if not directed:
        A = (A + A.T).tocsr()
    G = _graph(A, directed)
    expected = nx.edge_betweenness_centrality(G)
    E = edge_betweenness_centrality(A, directed=directed, batch=7).to_scipy()
    got = {(u, v): E[u, v] for u, v in G.edges}
    assert got.keys() == expected.keys()
    np.testing.assert_allclose([got[e] for e in expected], list(expected.values()),
                               rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("device", DEVICES)
def test_deep_searches(device):
    """A search hundreds of levels deep: a path of 300 vertices (with a branch at its far
    end) gives NetworkX's vertex and edge betweenness."""
    from spbfs.algorithms.centrality import edge_betweenness_centrality

    n = 300
    u = np.r_[np.arange(n - 2), n - 3]
    v = np.r_[np.arange(1, n - 1), n - 1]
    A = sp.coo_array((np.ones(u.size), (u, v)), shape=(n, n)).tocsr()
    G = _graph(A, True)
    sources = np.array([0, 5, 150])
    got = to_host(betweenness_centrality(on_device(device, A), sources=sources, batch=2))
    expected = nx.betweenness_centrality_subset(G, sources.tolist(), list(range(n)),
                                                normalized=True)
    _close(got, _array(expected, n))
    E = edge_betweenness_centrality(on_device(device, A)).to_scipy()
    E = E.get() if hasattr(E, "get") else E
    expected = nx.edge_betweenness_centrality(G)
    np.testing.assert_allclose([E[e] for e in expected], list(expected.values()), rtol=1e-12)


@given(multigraphs(max_n=40, max_m=160), st.booleans(),
       st.sampled_from(["kernel", "kernel in parallel", "auto", "push", "pull"]), st.data())
def test_one_source_level_by_level_equals_the_blocks(A, directed, levels, data):
    """One source's search level by level (``source_dependencies``: the CPU's kernels, also
    with every level split over three threads; the generic path's levels pushed, or pulled
    where that reads fewer edges, forced either way here) gives the dense blocks'
    dependencies; NetworkX's subset betweenness is the oracle of both."""
    from unittest import mock

    import spbfs
    from spbfs.algorithms import centrality
    from spbfs.cpu import brandes
    from spbfs.semiring import _dependencies

    n = A.shape[0]
    s = data.draw(st.integers(0, n - 1))
    generic = {"auto": _dependencies._pulled, "push": lambda x, *_: x,
               "pull": lambda x, *_: x.to_bitmap()}.get(levels)
    with contextlib.ExitStack() as stack:
        if generic is not None:
            stack.enter_context(mock.patch.object(_dependencies, "_pulled", generic))
            stack.enter_context(mock.patch.object(_dependencies, "optional_primitive",
                                                  lambda *_: None))
        if levels == "kernel in parallel":
            stack.enter_context(mock.patch.object(brandes, "PARALLEL_EDGES", 1))
            spbfs.set_num_threads(3)
            stack.callback(spbfs.set_num_threads, None)
        got = betweenness_centrality(A, normalized=False, directed=directed, sources=[s])
    with mock.patch.object(centrality, "_sparse_searches", lambda M: False):
        blocks = betweenness_centrality(A, normalized=False, directed=directed, sources=[s])
    _close(got, blocks)
    expected = nx.betweenness_centrality_subset(_graph(A, directed), [s], list(range(n)))
    _close(got, np.array([expected[v] for v in range(n)]))


def test_one_source_from_eight_threads():
    """Eight callers at once on one matrix, each a one-source search on sparse vectors."""
    from concurrent.futures import ThreadPoolExecutor

    from spbfs.graph500.generate import kronecker

    u, v = kronecker(11, 8, seed=4)
    A = sp.csr_array((np.ones(u.size), (u, v)), shape=(2048, 2048))
    sources = [int(s) for s in np.flatnonzero(np.diff(A.indptr))[:8]]
    expected = [betweenness_centrality(A, directed=False, sources=[s]) for s in sources]
    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(lambda k: betweenness_centrality(A, directed=False,
                                                              sources=[sources[k % 8]]),
                            range(32)))
    for k, g in enumerate(got):
        np.testing.assert_array_equal(g, expected[k % 8])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("directed", [True, False])
def test_hits_matches_networkx_on_both_devices(device, directed):
    """Lanczos (20 vectors a restart on 300 vertices) against NetworkX's ARPACK call,
    hubs and authorities, normalised and not; ``max_iter=1`` restarts once."""
    import spbfs

    G = nx.gnm_random_graph(300, 1200, seed=3, directed=directed)
    A = nx.to_scipy_sparse_array(G, nodelist=range(300), dtype=float)
    want_h, want_a = nx.hits(G)
    h, a = spbfs.hits(on_device(device, A), max_iter=1)
    np.testing.assert_allclose(to_host(a), [want_a[v] for v in range(300)], atol=1e-8)
    np.testing.assert_allclose(to_host(h), [want_h[v] for v in range(300)], atol=1e-8)
    h, a = spbfs.hits(on_device(device, A), normalized=False)
    assert float(np.linalg.norm(to_host(a))) == pytest.approx(1.0)
    np.testing.assert_allclose(to_host(h), A @ to_host(a), atol=1e-12)


def test_spectral_norms_of_huge_and_tiny_weights():
    """The final L2 norm is taken without overflow or underflow, as NetworkX's
    ``math.hypot`` (found by a fuzz: weights of 1e200 gave all zeros)."""
    from spbfs.algorithms.centrality_spectral import eigenvector_centrality, katz_centrality

    for scale in (1e200, 1e-200):
        A = sp.csr_array(np.array([[0, scale, 0], [scale, 0, 0], [0, 0, 0]]))
        H = nx.from_scipy_sparse_array(A, create_using=nx.DiGraph)
        np.testing.assert_allclose(eigenvector_centrality(A, weight=True),
                                   list(nx.eigenvector_centrality(H, weight="weight").values()),
                                   rtol=1e-12)
    import spbfs

    # HITS: the vectors of A.T @ A taken over the largest weight's square (1e300 gave a
    # LinAlgError, 1e-300 zeros; NetworkX's ARPACK raises on both)
    C = sp.csr_array(np.array([[0, 2.0, 1.0, 0], [0, 0, 3.0, 0], [1.0, 0, 0, 0.5],
                               [0, 0, 0, 0]]))
    want = spbfs.hits(C)
    for scale in (1e300, 1e-300):
        for got, expected in zip(spbfs.hits(C * scale), want, strict=True):
            np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-15)
        h, a = spbfs.hits(C * scale, normalized=False)
        np.testing.assert_allclose(np.linalg.norm(a), 1.0)
        np.testing.assert_allclose(h, (C * scale) @ a, rtol=1e-12)
    B = sp.csr_array(([1e300], ([1], [2])), shape=(3, 3))
    HB = nx.from_scipy_sparse_array(B, create_using=nx.DiGraph)
    np.testing.assert_allclose(katz_centrality(B, alpha=0.3, weight=True),
                               list(nx.katz_centrality(HB, alpha=0.3, weight="weight").values()),
                               rtol=1e-12)


@pytest.mark.parametrize("device", DEVICES)
def test_hits_on_a_tied_leading_value_sums_to_one(device):
    """Where the leading singular value is tied (every bipartite graph: one edge, a path;
    two equal parts) the vectors are not unique, but the normalised ones are non-negative,
    sum to 1 and are leading singular vectors (found by a fuzz: one edge gave +-0.71
    summing to 0, a 7-vertex graph entries of 1e15)."""
    import spbfs

    G = nx.Graph([(1, 5), (1, 4), (1, 6), (5, 2), (5, 3), (3, 4), (1, 2), (5, 4), (2, 6),
                  (3, 0)])
    graphs = [nx.Graph([(0, 1)]), nx.path_graph(6), G,
              nx.disjoint_union(nx.cycle_graph(4), nx.cycle_graph(4))]
    for H in graphs:
        A = nx.to_scipy_sparse_array(H, nodelist=sorted(H), dtype=float)
        top = np.linalg.svd(A.toarray(), compute_uv=False)[0]
        h, a = (to_host(v) for v in spbfs.hits(on_device(device, A)))
        for v in (h, a):
            assert v.min() >= 0 and v.sum() == pytest.approx(1.0)
        np.testing.assert_allclose(A.T @ (A @ a), top**2 * a, atol=1e-9)
        np.testing.assert_allclose(h, (A @ a) / (A @ a).sum(), atol=1e-12)


def test_hits_from_a_start_without_the_leading_vector():
    """A start with nothing along the leading singular vector: its Krylov space closes
    on a smaller one, and Lanczos goes on from a fresh vector, as ARPACK restarts (found
    by a fuzz: hubs of singular value 1 came back where the leading one is 3)."""
    import spbfs

    A = sp.csr_array(np.array([[0, 3.0, 0, 0], [0, 0, 1.0, 0], [0, 0, 0, 1.0], [0, 0, 0, 0]]))
    for start in ([0, 0, 1.0, 1.0], [1.0, 0, 0, 0]):
        h, a = spbfs.hits(A, nstart=np.array(start))
        np.testing.assert_allclose(h, [1, 0, 0, 0], atol=1e-12)
        np.testing.assert_allclose(a, [0, 1, 0, 0], atol=1e-12)
    with pytest.raises(ValueError, match="nstart"):
        spbfs.hits(A, nstart=np.zeros(4))
    # a start that is itself a smaller singular vector: its block's exact pair passed the
    # residual test at once (the same fuzz, after the first fix)
    B = sp.csr_array(np.array([[0, 1.0, 0], [1.0, 0, 0], [1.0, 0, 0]]))
    h, a = spbfs.hits(B, nstart=np.array([0, 1.0, 0]))
    np.testing.assert_allclose(a, [1, 0, 0], atol=1e-12)
    np.testing.assert_allclose(h, [0, 0.5, 0.5], atol=1e-12)
