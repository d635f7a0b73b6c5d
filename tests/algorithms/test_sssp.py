"""sssp against scipy's dijkstra."""

from unittest import mock

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph
from conftest import DEVICES, graphs, on_device, to_host
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import spbfs


@given(graphs(weights="quarters"), st.data(), st.booleans())
def test_distances_match_dijkstra(A, data, directed):
    source = data.draw(st.integers(0, A.shape[0] - 1))
    expected = csgraph.dijkstra(A, directed=directed, indices=source)
    dist, pred = spbfs.sssp(A, source, directed=directed, return_predecessors=True)
    np.testing.assert_allclose(dist, expected)
    _check_tree(A, source, dist, pred, directed)


def test_zero_weight_cycle_gives_acyclic_tree():
    A = sp.csr_array(([1.0, 0.0, 0.0], ([0, 1, 2], [1, 2, 1])), shape=(3, 3))
    dist, pred = spbfs.sssp(A, 0, return_predecessors=True)
    np.testing.assert_array_equal(dist, [0, 1, 1])
    np.testing.assert_array_equal(pred, [-1, 0, 1])


@pytest.mark.parametrize(
    "A,word",
    [
        (sp.csr_array(np.array([[0, -1.0], [0, 0]])), "negative"),
        (sp.csr_array(([np.nan], ([0], [1])), shape=(2, 2)), "NaN"),
    ],
)
def test_bad_weights(A, word):
    with pytest.raises(ValueError, match=word):
        spbfs.sssp(A, 0)


@pytest.mark.parametrize("bad,word", [(-1.0, "negative"), (np.nan, "NaN")])
def test_bad_weights_found_by_the_kernels_pass_over_threads(monkeypatch, bad, word):
    """The CPU kernel checks the weights in the pass that finds the largest one, split
    over threads: a bad weight anywhere raises before anything is computed (a NaN ahead of
    a negative one, as the generic check's minimum)."""
    from spbfs.cpu import delta
    from spbfs.semiring import relax_buckets

    monkeypatch.setattr(delta, "PARALLEL_MAX", 1)
    spbfs.set_num_threads(3)
    try:
        for at in (0, 17, 49):
            data = np.ones(50)
            data[at] = bad
            if bad != bad:
                data[(at + 1) % 50] = -2.0
            A = sp.csr_array((data, (np.arange(50) % 10, np.arange(50) // 5)), shape=(10, 10))
            with pytest.raises(ValueError, match=word):
                relax_buckets(A, np.array([0]), 1.0)
    finally:
        spbfs.set_num_threads(None)


def test_unreachable_is_inf():
    A = sp.csr_array((3, 3))
    np.testing.assert_array_equal(spbfs.sssp(A, 1), [np.inf, 0, np.inf])


# ----------------------------------------------------------------------------- many sources


def _check_tree(A, source, dist, pred, directed):
    """``pred`` is a tree of tight edges reaching every reachable vertex, without cycles."""
    n = A.shape[0]
    reached = np.isfinite(dist)
    assert pred[source] == -1 and np.all(pred[~reached] == -1)
    child = np.flatnonzero(reached & (np.arange(n) != source))
    assert np.all(pred[child] >= 0)
    coo = A.tocoo()
    edges = list(zip(coo.row.tolist(), coo.col.tolist(), coo.data.tolist(), strict=True))
    if not directed:
        edges += [(j, i, w) for i, j, w in edges]
    tight = {(i, j) for i, j, w in edges if dist[i] + w == dist[j]}
    assert all((int(pred[j]), int(j)) in tight for j in child)
    cur = child.copy()
    for _ in range(n):  # a bounded walk to the root proves there is no cycle
        cur = pred[cur[cur != source]]
    assert cur.size == 0 or np.all(cur == source)


def _check_many(A, sources, dist, pred, directed):
    dist, pred = to_host(dist), to_host(pred)
    n = A.shape[0]
    assert dist.shape == pred.shape == (len(sources), n)
    assert dist.dtype == np.float64
    if len(sources):
        expected = csgraph.dijkstra(A, directed=directed, indices=np.asarray(sources))
        np.testing.assert_allclose(dist, expected.reshape(len(sources), n))
    for row, s in enumerate(sources):
        _check_tree(A, int(s), dist[row], pred[row], directed)


@pytest.mark.parametrize("device", DEVICES)
@given(A=graphs(weights="quarters"), data=st.data(), directed=st.booleans())
def test_many_sources_match_dijkstra(device, A, data, directed):
    n = A.shape[0]
    sources = data.draw(st.lists(st.integers(0, n - 1), max_size=10))
    dist, pred = spbfs.sssp(on_device(device, A), np.array(sources, dtype=np.int64),
                            directed=directed, return_predecessors=True)
    _check_many(A, sources, dist, pred, directed)
    alone = spbfs.sssp(on_device(device, A), sources, directed=directed)
    np.testing.assert_array_equal(to_host(alone), to_host(dist))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("pull", [False, True])
@given(A=graphs(weights="quarters"), data=st.data(), directed=st.booleans())
def test_rounds_pushed_or_pulled_match_dijkstra(device, pull, A, data, directed):
    """Every round in the direction the backend's hint names (a pull reads every entry)."""
    from spbfs.semiring._backend import backend_for

    M = on_device(device, A)
    source = data.draw(st.integers(0, A.shape[0] - 1))
    backend = backend_for(spbfs.semiring.Matrix.from_any(M).xp)
    with mock.patch.object(backend, "prefers_pull", lambda nnz, edges: pull, create=True):
        dist = spbfs.sssp(M, source, directed=directed)
    expected = csgraph.dijkstra(A, directed=directed, indices=source)
    np.testing.assert_allclose(to_host(dist), expected)


@pytest.mark.parametrize("device", DEVICES)
@given(A=graphs(weights="quarters"), data=st.data(), directed=st.booleans())
def test_nearest_source_matches_dijkstra_min_only(device, A, data, directed):
    n = A.shape[0]
    sources = data.draw(st.lists(st.integers(0, n - 1), max_size=6))
    dist = spbfs.sssp(on_device(device, A), sources, directed=directed, min_only=True)
    expected = csgraph.dijkstra(A, directed=directed, indices=sources, min_only=True)
    np.testing.assert_allclose(to_host(dist), expected)


def test_nearest_source_bad_input_names_the_argument():
    A = sp.csr_array(np.array([[0, 4.0, 1.0], [0, 0, 0], [0, 2.0, 0]]))
    with pytest.raises(ValueError, match=r"source must lie in \[0, 3\), got 3"):
        spbfs.sssp(A, [0, 3], min_only=True)
    with pytest.raises(ValueError, match="return_predecessors is not available with min_only"):
        spbfs.sssp(A, [0], min_only=True, return_predecessors=True)
    np.testing.assert_array_equal(spbfs.sssp(A, 2, min_only=True), [np.inf, 2, 0])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("k", [1, 64, 65, 130])
@pytest.mark.parametrize("directed", [True, False])
def test_many_sources_several_words(device, k, directed):
    """Predecessors for more than 64 sources come from several 64-source searches."""
    rng = np.random.default_rng(k)
    n, m = 90, 260
    A = sp.csr_array((rng.integers(0, 8, m) / 2, (rng.integers(0, n, m), rng.integers(0, n, m))),
                     shape=(n, n))
    sources = rng.integers(0, n, k)
    dist, pred = spbfs.sssp(on_device(device, A), sources, directed=directed,
                            return_predecessors=True)
    _check_many(A, sources, dist, pred, directed)


def test_many_sources_rows_equal_one_source_calls():
    rng = np.random.default_rng(3)
    n, m = 400, 2400
    A = sp.csr_array((rng.random(m), (rng.integers(0, n, m), rng.integers(0, n, m))),
                     shape=(n, n))
    sources = [5, 17, 5, 399]
    dist = spbfs.sssp(A, sources)
    for row, s in enumerate(sources):
        np.testing.assert_array_equal(dist[row], spbfs.sssp(A, s))


@pytest.mark.parametrize(("shape", "k", "searches"), [
    ("grid", 12, 11),     # 10,000 vertices of mean out-degree 4: a search a source
    ("small grid", 12, 0),  # a small sparse graph's sources: batched
    ("dense", 4, 3),      # few sources: a search a distinct source
    ("dense", 12, 0),     # many sources on a dense graph: the batched rounds
])
def test_many_sources_one_search_each_or_batched(shape, k, searches):
    """Distances from many sources by one ``relax_buckets`` each (few sources, or a large
    sparse graph: a 300 x 300 grid's batched rounds took 50x longer) or by the batched
    rounds, equal to scipy's either way, repeats and order kept."""
    from spbfs.algorithms import sssp as sssp_module

    rng = np.random.default_rng(k)
    if shape.endswith("grid"):
        side = 100 if shape == "grid" else 20
        at = np.arange(side * side).reshape(side, side)
        u = np.concatenate([at[:, :-1].ravel(), at[:-1, :].ravel()])
        v = np.concatenate([at[:, 1:].ravel(), at[1:, :].ravel()])
        n, m = side * side, u.size
    else:
        n, m = 200, 4000
        u, v = rng.integers(0, n, m), rng.integers(0, n, m)
    A = sp.csr_array((rng.integers(1, 9, m).astype(float), (u, v)), shape=(n, n))
    sources = rng.choice(n, k - 1, replace=False).tolist()
    sources.append(sources[0])
    calls = []
    real = sssp_module.relax_buckets
    with mock.patch.object(sssp_module, "relax_buckets",
                           lambda *a: calls.append(1) or real(*a)):
        dist = spbfs.sssp(A, sources, directed=False)
    assert len(calls) == searches
    np.testing.assert_array_equal(dist, csgraph.dijkstra(A, directed=False, indices=sources))


def test_many_sources_duplicate_edges_count_with_the_smallest_weight():
    # 0 -> 1 stored twice (5 and 1), 1 -> 2 (zero weight), 2 -> 1 (zero: a zero cycle)
    A = sp.csr_array((np.array([5.0, 1.0, 0.0, 0.0]), np.array([1, 1, 2, 1]),
                      np.array([0, 2, 3, 4])), shape=(3, 3))
    assert A.nnz == 4
    dist, pred = spbfs.sssp(A, [0, 1], return_predecessors=True)
    np.testing.assert_array_equal(dist, [[0, 1, 1], [np.inf, 0, 0]])
    np.testing.assert_array_equal(pred, [[-1, 0, 1], [-1, -1, 1]])
    np.testing.assert_array_equal(dist, csgraph.dijkstra(A, indices=[0, 1]))


@pytest.mark.parametrize("device", DEVICES)
def test_many_sources_empty_one_vertex_and_isolated(device):
    A = sp.csr_array((3, 3))
    dist, pred = spbfs.sssp(on_device(device, A), [], return_predecessors=True)
    assert to_host(dist).shape == to_host(pred).shape == (0, 3)
    assert to_host(spbfs.sssp(on_device(device, A), np.zeros(0, int))).shape == (0, 3)
    np.testing.assert_array_equal(to_host(spbfs.sssp(on_device(device, A), [1])),
                                  [[np.inf, 0, np.inf]])
    one = sp.csr_array((1, 1))
    dist, pred = spbfs.sssp(on_device(device, one), [0, 0], return_predecessors=True)
    np.testing.assert_array_equal(to_host(dist), [[0], [0]])
    np.testing.assert_array_equal(to_host(pred), [[-1], [-1]])


def test_one_source_keeps_its_shape():
    A = sp.csr_array(np.array([[0, 4.0, 1.0], [0, 0, 0], [0, 2.0, 0]]))
    assert spbfs.sssp(A, 0).shape == (3,)
    assert spbfs.sssp(A, np.int64(0)).shape == (3,)
    assert spbfs.sssp(A, np.array(0)).shape == (3,)
    assert spbfs.sssp(A, [0]).shape == (1, 3)


@pytest.mark.parametrize(
    "source,exc,word",
    [
        ([0, 3], ValueError, r"source must lie in \[0, 3\), got 3"),
        ([-1], ValueError, r"source must lie in \[0, 3\), got -1"),
        ([[0, 1]], ValueError, "source must be a 1-D array"),
        (np.array([0.5]), TypeError, "source must hold integer"),
    ],
)
def test_many_sources_bad_input_names_the_argument(source, exc, word):
    A = sp.csr_array(np.array([[0, 4.0, 1.0], [0, 0, 0], [0, 2.0, 0]]))
    with pytest.raises(exc, match=word):
        spbfs.sssp(A, source)


def test_many_sources_bad_weights():
    with pytest.raises(ValueError, match="negative"):
        spbfs.sssp(sp.csr_array(np.array([[0, -1.0], [0, 0]])), [0, 1])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("bad", [-1.0, np.nan])
def test_a_bad_duplicate_beside_a_good_one_is_refused(device, bad):
    """Edge 0 -> 1 stored as ``bad`` and 3: the check read their sum (2), the searches
    each copy (found while fixing the distributed reduce: many sources gave -1)."""
    A = sp.csr_array((np.array([bad, 3.0, 1.0]), np.array([1, 1, 2]), np.array([0, 2, 3, 3])),
                     shape=(3, 3))
    for sources in (0, [0, 1]):
        with pytest.raises(ValueError, match="negative" if bad < 0 else "NaN"):
            spbfs.sssp(on_device(device, A), sources)


@given(A=graphs(weights="quarters"), data=st.data(), directed=st.booleans(),
       width=st.sampled_from([1e-6, 1e-3, 0.25, 1.0, 4.0, 1e9]))
def test_delta_stepping_any_bucket_width_matches_dijkstra(A, data, directed, width):
    """Buckets narrower than any weight (one distance each; bucket numbers past 2**15 too),
    about as wide, and one bucket for everything (a frontier Bellman-Ford): the same
    distances, zero weights too."""
    from spbfs.algorithms import sssp as module

    A = sp.csr_array(A)
    A.data[::3] = 0.0  # zero-weight edges: a bucket's vertices reach each other for free
    n = A.shape[0]
    source = data.draw(st.integers(0, n - 1))
    sources = data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=4))
    with mock.patch.object(module, "BUCKET_DEGREES", width):
        dist = spbfs.sssp(A, source, directed=directed)
        nearest = spbfs.sssp(A, sources, directed=directed, min_only=True)
    np.testing.assert_allclose(dist, csgraph.dijkstra(A, directed=directed, indices=source))
    np.testing.assert_allclose(nearest, csgraph.dijkstra(A, directed=directed, indices=sources,
                                                         min_only=True))


def test_delta_stepping_on_a_kronecker_graph_from_threads():
    """Kronecker scale 12 with weights 1-255, eight callers at once: Dijkstra's distances."""
    from concurrent.futures import ThreadPoolExecutor

    from spbfs.graph500.generate import kronecker

    u, v = kronecker(12, 16, seed=2)
    w = np.random.default_rng(2).integers(1, 256, u.size).astype(np.float64)
    A = sp.csr_array((np.r_[w, w], (np.r_[u, v], np.r_[v, u])), shape=(4096, 4096))
    A.sum_duplicates()
    sources = [int(s) for s in np.flatnonzero(np.diff(A.indptr))[:8]]
    expected = csgraph.dijkstra(A, indices=sources)
    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(lambda s: spbfs.sssp(A, s), sources * 2))
    for k, d in enumerate(got):
        np.testing.assert_allclose(d, expected[k % 8])


@pytest.mark.parametrize("width", [1e-250, 1e-100, 1.0])
def test_delta_stepping_bucket_numbers_past_two_to_the_53(width):
    """Weights near 1e300 and buckets so narrow that their numbers are floats far past
    2**53 (no integer holds them): every distance still Dijkstra's."""
    from spbfs.algorithms import sssp as module

    n = 50
    rng = np.random.default_rng(1)
    rows, cols = rng.integers(0, n, 3 * n), rng.integers(0, n, 3 * n)
    A = sp.csr_array((rng.random(3 * n) * 1e300, (rows, cols)), shape=(n, n))
    A.sum_duplicates()
    with mock.patch.object(module, "BUCKET_DEGREES", width):
        dist = spbfs.sssp(A, 0)
    np.testing.assert_allclose(dist, csgraph.dijkstra(A, indices=0), rtol=1e-14)


@pytest.mark.parametrize("weight", [1e308, 1.7e308, 5e307, 1e-308, 1e-310, 5e-324])
def test_weights_near_the_float_limits(weight):
    """A bucket width that overflowed (``delta must be positive``) or whose inverse did
    (subnormal weights: OverflowError, ZeroDivisionError): scipy's distances, inf where a
    length overflows."""
    A = sp.csr_array(([weight] * 3, ([0, 1, 2], [1, 2, 3])), shape=(5, 5))
    for source in (0, 2):
        np.testing.assert_array_equal(spbfs.sssp(A, source),
                                      csgraph.dijkstra(A, indices=source))
    # a mean out-degree of 2 divides the width again: it underflowed to 0 (a fuzz's find)
    B = sp.csr_array(np.full((2, 2), weight))
    np.testing.assert_array_equal(spbfs.sssp(B, 0), csgraph.dijkstra(B, indices=0))


# -- the CPU's delta-stepping kernels (spbfs/cpu/delta.py) ---------------------------------

@pytest.mark.parametrize("n", [2, 1 << 18, 1 << 40])
def test_delta_stepping_tags_tell_whole_distances_apart(n):
    """A listing's tag is a hash of its distance's pattern, not its low bits (all zero for
    whole numbers, which would make every stale listing look current)."""
    from spbfs.cpu.delta import _tag

    tag_bits = 63 - max(n - 1, 1).bit_length()
    values = np.unique(np.r_[np.arange(1.0, 2001.0), np.arange(1, 2001) / 7, [0.0, 2.0**60]])
    tags = {_tag(int(b), tag_bits) for b in values.view(np.int64)}
    assert len(tags) == values.size
    assert all(0 <= t < 1 << tag_bits for t in tags)


@pytest.fixture
def crowded(monkeypatch):
    """Every search shared by 3 threads, pools of one block (spills every round)."""
    from spbfs.cpu import delta

    monkeypatch.setattr(delta, "PARALLEL_ENTRIES", 0)
    monkeypatch.setattr(delta, "_pool_blocks", lambda n, threads, sources, span: 1)
    spbfs.set_num_threads(3)
    yield
    spbfs.set_num_threads(None)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])  # set once, kept
@given(A=graphs(weights="quarters"), data=st.data(),
       delta=st.sampled_from([1e-9, 0.01, 0.25, 1.0, 7.0, 1e12]), zeros=st.booleans())
def test_relax_buckets_kernel_matches_dijkstra(crowded, A, data, delta, zeros):
    """The kernels on 3 threads with full pools (vertices spilled and listed again), any
    bucket width (the narrowest widened to 2**16 buckets), zero weights, several sources;
    the generic rounds give the same distances."""
    from spbfs.semiring import _relax, relax_buckets

    A = sp.csr_array(A)
    if zeros:
        A.data[::3] = 0.0
    n = A.shape[0]
    sources = np.array(data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=4)))
    expected = csgraph.dijkstra(A, indices=sources, min_only=True)
    got = relax_buckets(A, sources, delta)
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, expected)
    M = spbfs.semiring.Matrix.from_any(A.astype(np.float64))
    dist = np.full(n, np.inf)
    dist[sources] = 0.0
    generic = _relax._rounds(M, np.unique(sources), dist, delta)
    np.testing.assert_array_equal(generic, expected)


def test_relax_buckets_kernel_on_kronecker_from_eight_callers(crowded):
    """Kronecker scale 11, weights 1-255, zero weights on a third of the edges: eight
    callers at once, each split over 3 threads with pools that spill: Dijkstra's."""
    from concurrent.futures import ThreadPoolExecutor

    from spbfs.graph500.generate import kronecker
    from spbfs.semiring import relax_buckets

    u, v = kronecker(11, 16, seed=4)
    w = np.random.default_rng(4).integers(0, 256, u.size).astype(np.float64)
    A = sp.csr_array((np.r_[w, w], (np.r_[u, v], np.r_[v, u])), shape=(2048, 2048))
    A.sum_duplicates()
    sources = [int(s) for s in np.flatnonzero(np.diff(A.indptr))[:8]]
    expected = csgraph.dijkstra(A, indices=sources)
    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(lambda s: relax_buckets(A, np.array([s]), 3.0), sources * 2))
    for k, d in enumerate(got):
        np.testing.assert_array_equal(d, expected[k % 8])



def test_relax_buckets_kernel_helpers_that_never_join(crowded):
    """Searches made inside the pool's ranges run their ranges one after another: the
    leading range does every round alone and the helpers, started after it ended, leave at
    once; the distances are Dijkstra's."""
    from spbfs.cpu.threads import run_ranges
    from spbfs.graph500.generate import kronecker
    from spbfs.semiring import relax_buckets

    u, v = kronecker(9, 16, seed=2)
    w = np.random.default_rng(2).integers(1, 256, u.size).astype(np.float64)
    A = sp.csr_array((np.r_[w, w], (np.r_[u, v], np.r_[v, u])), shape=(512, 512))
    A.sum_duplicates()
    sources = np.flatnonzero(np.diff(A.indptr))[:4]
    got = run_ranges(lambda k, _: relax_buckets(A, np.array([sources[k]]), 3.0),
                     [(k, k + 1) for k in range(4)])
    np.testing.assert_array_equal(np.array(got), csgraph.dijkstra(A, indices=sources))

def test_relax_buckets_bad_delta():
    from spbfs.semiring import relax_buckets

    with pytest.raises(ValueError, match="delta"):
        relax_buckets(sp.csr_array(np.eye(2)), np.array([0]), 0.0)


def test_infinite_weights_are_edges_no_path_improves_by():
    """An edge of weight inf reaches nothing (scipy's Dijkstra's answer), on one thread and
    shared by three (the CPU's buckets span the finite weights; inf made them infinitely
    wide, a crash)."""
    from spbfs.cpu import delta

    A = sp.csr_array(np.array([[0, 1.0, 0, np.inf], [0, 0, np.inf, 2.0], [0, 0, 0, 0],
                               [0, 0, 0, 0]]))
    np.testing.assert_array_equal(spbfs.sssp(A, 0), csgraph.dijkstra(A, indices=0))

    rng = np.random.default_rng(3)
    B = sp.random(3000, 3000, density=0.004, random_state=rng, format="csr")
    B.data = rng.integers(1, 50, B.nnz).astype(np.float64)
    B.data[::7] = np.inf
    spbfs.set_num_threads(3)
    try:
        with mock.patch.object(delta, "PARALLEL_ENTRIES", 0):
            got = spbfs.sssp(B, 5)
    finally:
        spbfs.set_num_threads(None)
    np.testing.assert_array_equal(got, csgraph.dijkstra(B, indices=5))


@pytest.mark.parametrize("directed", [True, False])
def test_an_infinite_weight_gives_no_predecessor(directed):
    """A vertex reached by no path (an edge of weight inf alone leads to it) has no
    predecessor, as scipy's -9999: the tight-edge test reads inf == inf as tight."""
    A = sp.csr_array(np.array([[0, 1.0, np.inf, 0], [0, 0, 0, 0], [0, 0, 0, np.inf],
                               [0, 0, 0, 0]]))
    for source in (0, [0, 1]):
        dist, pred = spbfs.sssp(A, source, return_predecessors=True, directed=directed)
        want_dist, want_pred = csgraph.dijkstra(A, directed=directed, indices=source,
                                                return_predecessors=True)
        np.testing.assert_array_equal(dist, want_dist)
        np.testing.assert_array_equal(pred, np.where(want_pred < 0, -1, want_pred))
