"""spbfs.semiring.queue_order: the CPU queue kernel, the GPU's kernels a level and the
generic levels of products give scipy's breadth-first order and predecessors, on CSR rows
in any storage order."""

from __future__ import annotations

import importlib
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csg
from conftest import DEVICES, to_host, unsorted_csr
from hypothesis import given
from hypothesis import strategies as st

from spbfs import semiring


@st.composite
def unsorted_digraphs(draw):
    """A CSR whose rows keep their arcs in a random order, duplicates and loops included."""
    n = draw(st.integers(1, 25))
    return draw(unsorted_csr(n, n, 4 * n)), draw(st.integers(0, n - 1))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("generic", [False, True], ids=["kernel", "generic"])
@given(case=unsorted_digraphs())
def test_order_and_parents_are_scipys(device, generic, case):
    A, s = case
    want_order, want_pred = csg.breadth_first_order(A.copy(), s)
    M = A
    if device == "cupy":
        import cupyx.scipy.sparse as csp

        M = csp.csr_matrix(sp.csr_matrix(A))
    with pytest.MonkeyPatch.context() as patch:
        if generic:   # the levels of products: the path of a backend without the primitive
            patch.delattr(_backend(device), "queue_order")
        order, parents = semiring.queue_order(M, s, null=-9999, dtype=np.int32)
    assert to_host(order).tolist() == want_order.tolist()
    assert to_host(parents).tolist() == want_pred.tolist()


def _backend(device):
    return importlib.import_module("spbfs.gpu.backend" if device == "cupy"
                                   else "spbfs.cpu.backend")


@pytest.mark.gpu
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_gpu_kernels_on_a_graph_of_many_blocks(index_dtype):
    """Levels of many thousand arcs (many blocks of threads, rows of no arcs in the
    frontier), int64 parents: scipy's order and predecessors."""
    import cupyx.scipy.sparse as csp

    A = sp.random_array((6000, 6000), density=0.0008, format="csr", random_state=5)
    A = sp.csr_matrix(A + sp.eye_array(6000, format="csr")[::-1])
    want_order, want_pred = csg.breadth_first_order(A, 17)
    A.indices, A.indptr = A.indices.astype(index_dtype), A.indptr.astype(index_dtype)
    order, parents = semiring.queue_order(csp.csr_matrix(A), 17, null=-9999)
    assert to_host(order).tolist() == want_order.tolist()
    assert to_host(parents).tolist() == want_pred.tolist()


@pytest.mark.gpu
@given(case=unsorted_digraphs(), more=st.lists(st.integers(0, 24), max_size=4))
def test_gpu_levels_from_several_sources_are_the_generic_levels(case, more):
    """The GPU's ``queue_levels`` yields the levels of products of the generic path (run
    on the CPU here), from a queue of several sources."""
    import cupyx.scipy.sparse as csp

    from spbfs.semiring._queue import levels_in_queue_order

    A, s = case
    sources = list(dict.fromkeys([s, *(v % A.shape[0] for v in more)]))

    def levels(M):
        return [(to_host(c).tolist(), to_host(p).tolist())
                for c, p in levels_in_queue_order(semiring.Matrix.from_any(M), sources)]

    assert levels(csp.csr_matrix(sp.csr_matrix(A))) == levels(A)


def test_bad_arguments_name_themselves():
    A = sp.csr_array(np.eye(3))
    with pytest.raises(ValueError, match="null"):
        semiring.queue_order(A, 0, null=0)
    with pytest.raises(TypeError, match="dtype"):
        semiring.queue_order(A, 0, dtype=np.float64)
    with pytest.raises(ValueError, match="source"):
        semiring.queue_order(A, 3)
    with pytest.raises(ValueError, match="square"):
        semiring.queue_order(sp.csr_array(np.ones((2, 3))), 0)


def test_eight_threads_search_one_matrix():
    rng = np.random.default_rng(3)
    A = sp.random_array((400, 400), density=0.02, rng=rng, format="csr")
    sources = list(range(0, 400, 7))
    want = [csg.breadth_first_order(A, s) for s in sources]
    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(lambda s: semiring.queue_order(A, s, null=-9999, dtype=np.int32),
                            sources))
    for (o, p), (wo, wp) in zip(got, want, strict=True):
        assert np.array_equal(o, wo) and np.array_equal(p, wp)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("generic", [False, True], ids=["kernel", "generic"])
@given(case=unsorted_digraphs(), target=st.integers(0, 24))
def test_meet_gives_networkxs_bidirectional_path(device, generic, case, target):
    """The path through the meeting vertex is the one NetworkX's bidirectional search
    returns on the graph whose adjacency dicts list the arcs in storage order."""
    import networkx as nx

    A, s = case
    n = A.shape[0]
    t = target % n
    G = nx.DiGraph()
    G.add_nodes_from(range(n))
    G.add_edges_from(zip(np.repeat(np.arange(n), np.diff(A.indptr)).tolist(),
                         A.indices.tolist(), strict=True))
    B = sp.csr_array(A.T.tocsr())   # each row: the sources in the order they were added
    if s == t:
        with pytest.raises(ValueError, match="differ"):
            semiring.queue_meet(A, B, s, t)
        return
    F, R = A, B
    if device == "cupy":
        import cupyx.scipy.sparse as csp

        F, R = csp.csr_matrix(sp.csr_matrix(A)), csp.csr_matrix(sp.csr_matrix(B))
    with pytest.MonkeyPatch.context() as patch:
        if generic:   # the levels of products (the GPU's path) on the CPU too
            patch.delattr(_backend("numpy"), "queue_meet")
        path = semiring.queue_meet(F, R, s, t)
    try:
        want = nx.bidirectional_shortest_path(G, s, t)
    except nx.NetworkXNoPath:
        assert path is None
        return
    assert path == want


@pytest.mark.parametrize("n", [300, 5000])
def test_meet_calls_one_after_another_and_at_once_agree_with_the_generic_path(n):
    """The CPU's kept bit sets are cleared after each call (word by word where a search saw
    few vertices, whole where it saw more than the set has words): many pairs on one
    graph, some without a path, one after another and from eight threads, give the
    generic path's answers."""
    rng = np.random.default_rng(5)
    A = sp.random_array((n, n), density=2.4 / n, rng=rng, format="csr")
    B = sp.csr_array(A.T.tocsr())
    pairs = [(int(s), int(t)) for s, t in rng.integers(0, n, (200, 2)) if s != t]
    with pytest.MonkeyPatch.context() as patch:
        patch.delattr(_backend("numpy"), "queue_meet")
        want = [semiring.queue_meet(A, B, s, t) for s, t in pairs]
    assert any(w is None for w in want) and any(w is not None and len(w) > 3 for w in want)
    assert [semiring.queue_meet(A, B, s, t) for s, t in pairs] == want
    with ThreadPoolExecutor(8) as pool:
        assert list(pool.map(lambda st: semiring.queue_meet(A, B, *st), pairs * 4)) == want * 4


def test_meet_arguments_name_themselves():
    A = sp.csr_array(np.eye(3))
    with pytest.raises(ValueError, match="target"):
        semiring.queue_meet(A, A, 0, 3)
    with pytest.raises(ValueError, match="shape"):
        semiring.queue_meet(A, sp.csr_array(np.eye(2)), 0, 1)


def _hop_count(A, s, t):
    """scipy's unweighted distance from ``s`` to ``t`` as an int, -1 where unreachable."""
    d = csg.shortest_path(A, unweighted=True, indices=s)[t]
    return -1 if np.isinf(d) else int(d)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("generic", [False, True], ids=["kernel", "generic"])
@given(case=unsorted_digraphs(), target=st.integers(0, 24))
def test_hops_are_scipys_distance(device, generic, case, target):
    """The hop count of the searches that take the level with fewer arcs first is scipy's
    unweighted distance (duplicates, loops and rows in any order)."""
    A, s = case
    t = target % A.shape[0]
    B = sp.csr_array(A.T.tocsr())
    F, R = A, B
    if device == "cupy":
        import cupyx.scipy.sparse as csp

        F, R = csp.csr_matrix(sp.csr_matrix(A)), csp.csr_matrix(sp.csr_matrix(B))
    with pytest.MonkeyPatch.context() as patch:
        if generic:
            patch.delattr(_backend("numpy"), "queue_hops")
        assert semiring.queue_hops(F, R, s, t) == _hop_count(A, s, t)


@pytest.mark.parametrize("n", [300, 5000])
def test_hops_one_after_another_and_at_once_are_scipys(n):
    """The kept bit sets are cleared after each count: many pairs on one graph, some
    without a path, one after another and from eight threads, give scipy's distances; a
    hub next to the source is read last."""
    rng = np.random.default_rng(9)
    A = sp.random_array((n, n), density=2.4 / n, rng=rng, format="csr")
    hub = sp.csr_array((np.ones(n - 1), (np.zeros(n - 1, int), np.arange(1, n))), shape=(n, n))
    A = sp.csr_array(A + hub * (rng.random(n) < 0.5))
    B = sp.csr_array(A.T.tocsr())
    pairs = [(int(s), int(t)) for s, t in rng.integers(0, n, (150, 2))]
    dist = csg.shortest_path(A, unweighted=True)
    want = [-1 if np.isinf(dist[s, t]) else int(dist[s, t]) for s, t in pairs]
    assert -1 in want and max(want) > 3
    assert [semiring.queue_hops(A, B, s, t) for s, t in pairs] == want
    with ThreadPoolExecutor(8) as pool:
        assert list(pool.map(lambda st: semiring.queue_hops(A, B, *st), pairs * 4)) == want * 4


def test_hops_arguments_name_themselves():
    A = sp.csr_array(np.eye(3))
    with pytest.raises(ValueError, match="target"):
        semiring.queue_hops(A, A, 0, 3)
    with pytest.raises(ValueError, match="shape"):
        semiring.queue_hops(A, sp.csr_array(np.eye(2)), 0, 1)
    assert semiring.queue_hops(A, A, 1, 1) == 0
