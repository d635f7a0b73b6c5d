"""Forest pruning: searches of a graph's core with its trees set after, against scipy."""

import threading

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import DEVICES, on_device, to_host
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import check_parents, oracle_levels

import spbfs
from spbfs.algorithms import forest
from spbfs.algorithms._level_loop import search
from spbfs.algorithms._shared import prepare
from spbfs.graph500.generate import kronecker
from spbfs.graph500.harness import build_undirected


def _undirected(n, u, v):
    A = sp.coo_array((np.ones(len(u)), (u, v)), shape=(n, n)).tocsr()
    return sp.csr_array(((A + A.T) > 0).astype(np.int8))


@st.composite
def forests_with_cycles(draw):
    """Random trees (the shapes pruning removes) joined by a few extra edges, with
    edgeless vertices and self-loops."""
    n = draw(st.integers(1, 60))
    parents = draw(st.lists(st.integers(0, 10**6), min_size=n, max_size=n))
    keep = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    u = [i for i in range(1, n) if keep[i]]
    v = [parents[i] % i for i in u]
    extra = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)),
                          max_size=max(1, n // 4)))
    u += [a for a, _ in extra]
    v += [b for _, b in extra]
    return _undirected(n, np.array(u, np.int64), np.array(v, np.int64))


def _tree_heavy(n, seed):
    """A random tree on ``n`` vertices with ``n / 10`` more edges: most vertices in trees."""
    rng = np.random.default_rng(seed)
    parent = (rng.random(n) * np.arange(n)).astype(np.int64)
    extra = n // 10
    return _undirected(n, np.concatenate([np.arange(1, n), rng.integers(0, n, extra)]),
                       np.concatenate([parent[1:], rng.integers(0, n, extra)]))


def _check_every_source(A, F):
    for s in range(A.shape[0]):
        levels, parents = search(F, s, return_parents=True)
        np.testing.assert_array_equal(levels, oracle_levels(A, s, directed=False))
        check_parents(A, s, levels, parents, directed=False)
        np.testing.assert_array_equal(search(F, s, return_parents=True, return_levels=False),
                                      parents)
        np.testing.assert_array_equal(search(F, s), levels)


@settings(max_examples=60, deadline=None)
@given(forests_with_cycles(), st.integers(1, 6), st.booleans())
def test_pruned_search_matches_scipy_from_every_source(A, rounds, hubs_first):
    _check_every_source(A, forest.Forest(prepare(A), max_rounds=rounds, hubs_first=hubs_first))


@pytest.mark.parametrize("n", [1, 2, 3, 40])
def test_paths_stars_and_pairs(n):
    path = _undirected(n, np.arange(n - 1), np.arange(1, n))
    star = _undirected(n, np.zeros(n - 1, np.int64), np.arange(1, n))
    for A in (path, star):
        for rounds in (1, 2, forest.ROUNDS):
            _check_every_source(A, forest.Forest(prepare(A), max_rounds=rounds))


def test_the_core_and_the_trees_are_what_peeling_leaves():
    # a triangle 0-1-2 with a path 2-3-4 and a leaf 5 on 0; 6 has no edge
    A = _undirected(7, np.array([0, 1, 2, 2, 3, 0]), np.array([1, 2, 0, 3, 4, 5]))
    F = forest.Forest(prepare(A))
    assert F.core.tolist() == [0, 1, 2]
    by_vertex = dict(zip(F.tree.tolist(), zip(F.tree_parent.tolist(), F.tree_attach.tolist(),
                                              F.tree_depth.tolist(), strict=True), strict=True))
    assert by_vertex == {3: (2, 2, 1), 4: (3, 2, 2), 5: (0, 0, 1)}
    assert F.matrix.nnz == 6 and F.pruned == pytest.approx(4 / 7)
    assert F.path(4) == [4, 3, 2] and F.path(1) == [1]


def test_search_prunes_after_build_after_searches():
    A = _tree_heavy(1 << 16, seed=2)
    M = prepare(A, directed=False)
    for _ in range(forest.BUILD_AFTER - 1):
        assert forest.forest_of(M) is None  # the first searches run whole
    F = forest.forest_of(M)
    assert isinstance(F, forest.Forest) and F.tree_share >= spbfs.semiring.pruning_share(M)
    assert forest.forest_of(M) is F
    for s in (int(F.core[0]), int(F.tree[0]), int(F.tree[-1])):
        levels, parents = search(M, s, return_parents=True)
        np.testing.assert_array_equal(levels, oracle_levels(A, s, directed=False))
        check_parents(A, s, levels, parents, directed=False)


def test_graphs_without_trees_are_searched_whole():
    n = 1 << 16
    rng = np.random.default_rng(5)
    M = prepare(_undirected(n, rng.integers(0, n, 6 * n), rng.integers(0, n, 6 * n)),
                directed=False)
    for _ in range(forest.BUILD_AFTER + 1):
        assert forest.forest_of(M) is None
    assert forest.Forest(M).tree_share < spbfs.semiring.pruning_share(M)
    assert not forest.numbers_hubs_first(M)  # degrees too even to number hubs first


def test_skewed_graphs_without_trees_are_searched_on_a_core_numbered_hubs_first():
    """64 hubs each joined to a 32nd of the other vertices, every other vertex to two hubs
    and one random vertex: no trees, but the largest 64th of the degrees hold a third of
    the entries."""
    n, hubs = 1 << 16, 64
    rng = np.random.default_rng(6)
    others = np.arange(hubs, n)
    A = _undirected(n, np.concatenate([others, others, others]),
                    np.concatenate([others % hubs, (others + 1) % hubs,
                                    rng.integers(hubs, n, others.size)]))
    M = prepare(A, directed=False)
    for _ in range(forest.BUILD_AFTER - 1):
        assert forest.forest_of(M) is None
    F = forest.forest_of(M)
    assert F.tree.size == 0 and forest.numbers_hubs_first(M)
    assert sorted(F.core[:hubs].tolist()) == list(range(hubs))  # the hubs numbered first
    for s in (0, hubs, n - 1):
        levels, parents = search(M, s, return_parents=True)
        np.testing.assert_array_equal(levels, oracle_levels(A, s, directed=False))
        check_parents(A, s, levels, parents, directed=False)


def test_small_or_directed_graphs_are_searched_whole():
    A = sp.random(200, 200, density=0.02, random_state=1, format="csr")
    n = 1 << 16
    rng = np.random.default_rng(2)
    directed = sp.csr_array((np.ones(4 * n), (rng.integers(0, n, 4 * n),
                                              rng.integers(0, n, 4 * n))), shape=(n, n))
    for M in (prepare(A, directed=False), prepare(directed)):
        assert forest.forest_of(M) is None and forest.forest_of(M) is None


def test_threads_share_one_forest():
    A = _tree_heavy(1 << 16, seed=3)
    M = prepare(A, directed=False)
    sources = list(range(0, 1 << 16, (1 << 16) // (2 * forest.BUILD_AFTER)))  # built midway
    out, errors = {}, []

    def run(s):
        try:
            out[s] = spbfs.bfs(M, s)
        except Exception as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(s,)) for s in sources]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert isinstance(forest.forest_of(M), forest.Forest)
    for s in sources:
        np.testing.assert_array_equal(out[s], oracle_levels(A, s, directed=False))


def test_peeling_stops_after_max_rounds_on_both_paths():
    n = 30
    A = _undirected(n, np.arange(n - 1), np.arange(1, n))
    for kernel in (True, False):
        degree = np.diff(A.indptr).astype(np.int64) - 1
        active = degree >= 0
        M = spbfs.semiring.Matrix.from_any(A)
        if not kernel:  # the generic path: a matrix the CPU kernel is not asked about
            from spbfs.semiring import _peel
            active[[0, n - 1]] = False
            ids, rounds = _peel._rounds([(M, degree)], active, np.array([0, n - 1]),
                                        None, None, 3)
            assert sorted(ids.tolist()) == [1, 2, 27, 28] and rounds.max() == 2
        else:
            ids, rounds = spbfs.semiring.peel([(M, degree)], active, max_rounds=3)
            assert sorted(ids.tolist()) == [0, 1, 2, 27, 28, 29] and rounds.max() == 2
    with pytest.raises(ValueError, match="max_rounds"):
        spbfs.semiring.peel([(M, degree)], active, max_rounds=0)


@pytest.mark.parametrize("device", DEVICES)
def test_extract_pattern_is_the_induced_subgraph(device):
    A = sp.random(300, 300, density=0.1, random_state=4, format="csr")
    rng = np.random.default_rng(4)
    xp = np if device == "numpy" else pytest.importorskip("cupy")
    for keep in (np.array([1, 4, 5, 17, 30, 49]), rng.permutation(300)[:200],
                 rng.permutation(300)):  # sorted, any order, a permutation
        got = spbfs.semiring.extract_pattern(on_device(device, A), xp.asarray(keep))
        indptr, indices = to_host(got.indptr), to_host(got.indices)
        for row in range(keep.size):  # each row's columns sorted
            assert (np.diff(indices[indptr[row]:indptr[row + 1]]) > 0).all()
        found = sp.csr_array((np.ones(indices.size), indices, indptr), shape=(keep.size,) * 2)
        np.testing.assert_array_equal(found.toarray() != 0, A[keep][:, keep].toarray() != 0)
    with pytest.raises(ValueError, match="keep must be distinct"):
        spbfs.semiring.extract_pattern(A, np.array([4, 1, 4]))


@pytest.mark.parametrize("device", DEVICES)
def test_pruned_kronecker_searches_on_each_device(device):
    u, v = kronecker(16, 8, seed=4)
    M = build_undirected(u, v, 1 << 16)
    A = sp.csr_array((np.ones(M.nnz), M.indices, M.indptr), shape=(M.n, M.n))
    G = on_device(device, A)
    F = forest.Forest(prepare(G))
    assert F.tree_share >= spbfs.semiring.pruning_share(M)  # pruned on the CPU
    # skewed: its core numbered hubs first, by degree class, the graph's order within one
    exponent = np.frexp(np.diff(M.indptr)[to_host(F.core)].astype(float))[1]
    assert forest.numbers_hubs_first(prepare(G)) and (np.diff(exponent) <= 0).all()
    core = to_host(F.core)
    assert all((np.diff(core[exponent == e]) > 0).all() for e in np.unique(exponent))
    for s in (int(F.core[0]), int(F.tree[0]), int(F.tree[-1]), int(F.tree[len(F.tree) // 2])):
        levels, parents = (to_host(a) for a in search(F, s, return_parents=True))
        np.testing.assert_array_equal(levels, oracle_levels(A, s, directed=False))
        check_parents(A, s, levels, parents, directed=False)
        alone = to_host(search(F, s, return_parents=True, return_levels=False))
        np.testing.assert_array_equal(alone >= 0, levels >= 0)
        check_parents(A, s, levels, alone, directed=False)


def test_forest_outputs_generic_path_matches_the_kernel(monkeypatch):
    """``spbfs.semiring.forest_outputs`` without a backend kernel (array operations) writes
    what the CPU kernel writes, levels and parents alone or together, shifted or not."""
    from spbfs.semiring import _forest

    F = forest.Forest(prepare(_tree_heavy(400, 3)))
    args = (F.where, F.core, F.tree)
    tail = (F.tree_parent, F._attach_core, F.tree_depth)
    written = {}
    for generic in (False, True):
        if generic:
            monkeypatch.setattr(_forest, "optional_primitive", lambda *a: None)
        for source in (0, 7, int(F.core.size) - 1):
            core_levels, core_parents = search(F.matrix, source, return_parents=True)
            for shift in (0, 3):
                for want in ("levels", "parents", "both"):
                    levels = np.empty(F.n, F.idt) if want != "parents" else None
                    parents = np.empty(F.n, F.idt) if want != "levels" else None
                    _forest.forest_outputs(*args, core_levels if levels is not None else None,
                                           core_parents if parents is not None else None,
                                           shift, *tail, levels=levels, parents=parents)
                    written.setdefault((source, shift, want), []).append((levels, parents))
    for (levels_a, parents_a), (levels_b, parents_b) in written.values():
        for a, b in ((levels_a, levels_b), (parents_a, parents_b)):
            if a is not None:
                np.testing.assert_array_equal(a, b)
