"""Multi-source BFS (spbfs.msbfs.bfs_many) against scipy.sparse.csgraph, row by row.

Written once, run on numpy (CI) and on cupy (gpu-marked, on the device).  Graphs have
self-loops, duplicates, explicit zeros and isolated vertices; sources repeat; k runs from 0
past 64 (several 64-source groups); parents are checked as BFS trees of the graph.
"""

from unittest import mock

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph
from conftest import DEVICES, graphs, on_device, to_host
from hypothesis import given
from hypothesis import strategies as st
from oracle import check_parents, oracle_levels

import spbfs
from spbfs.algorithms import msbfs
from spbfs.algorithms.msbfs import WORD, bfs_many

DIRECTIONS = ["auto", "push", "pull"]


def _expected(A, sources, directed):
    """(k, n) hop counts from scipy, one search per source."""
    n = A.shape[0]
    if len(sources) == 0:
        return np.zeros((0, n), np.int64)
    d = csgraph.shortest_path(A, unweighted=True, directed=directed, indices=np.asarray(sources))
    return np.where(np.isinf(d), -1, d).astype(np.int64).reshape(len(sources), n)


def _check(A, sources, levels, parents, directed):
    levels, parents = to_host(levels), to_host(parents)
    n = A.shape[0]
    assert levels.shape == parents.shape == (len(sources), n)
    np.testing.assert_array_equal(levels, _expected(A, sources, directed))
    for row, s in enumerate(sources):
        check_parents(A, int(s), levels[row], parents[row], directed)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("packed_from", [1, msbfs.PACKED_FROM])  # few sources packed too
@given(A=graphs(), data=st.data(), directed=st.booleans(),
       direction=st.sampled_from(DIRECTIONS))
def test_rows_match_scipy(device, packed_from, A, data, directed, direction):
    n = A.shape[0]
    sources = data.draw(st.lists(st.integers(0, n - 1), max_size=12))
    G = on_device(device, A)
    with mock.patch.object(msbfs, "PACKED_FROM", packed_from):
        levels, parents = bfs_many(G, sources, return_parents=True, directed=directed,
                                   direction=direction)
        alone = bfs_many(G, sources, directed=directed, direction=direction)
    _check(A, sources, levels, parents, directed)
    np.testing.assert_array_equal(to_host(alone), to_host(levels))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("k", [1, 63, 64, 65, 150])
@pytest.mark.parametrize("directed", [True, False])
def test_many_words(device, k, directed):
    """More than 64 sources: several groups of one word each; repeats and every vertex."""
    rng = np.random.default_rng(k)
    n, m = 120, 300
    A = sp.csr_array((np.ones(m), (rng.integers(0, n, m), rng.integers(0, n, m))),
                     shape=(n, n))
    sources = rng.integers(0, n, k)
    levels, parents = bfs_many(on_device(device, A), sources, return_parents=True,
                               directed=directed)
    _check(A, sources, levels, parents, directed)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("wide", [0, msbfs.WIDE_ENTRIES])
@pytest.mark.parametrize("directed", [True, False])
def test_many_words_levels_alone(device, wide, directed):
    """The levels alone of sources filling three words: every group in one wide search
    (``WIDE_ENTRIES`` as it is) or the groups one after another (0), scipy's either way."""
    rng = np.random.default_rng(3)
    n, m = 300, 700
    A = sp.csr_array((np.ones(m), (rng.integers(0, n, m), rng.integers(0, n, m))),
                     shape=(n, n))
    sources = rng.integers(0, n, 260)
    assert np.unique(sources).size > 2 * WORD
    with (mock.patch.object(msbfs, "WIDE_ENTRIES", wide),
          mock.patch.object(msbfs, "_wide_levels", wraps=msbfs._wide_levels) as spy):
        levels = bfs_many(on_device(device, A), sources, directed=directed)
    assert spy.called == (wide > 0)
    np.testing.assert_array_equal(to_host(levels), _expected(A, sources, directed))


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_larger_graph_all_directions(direction):
    rng = np.random.default_rng(7)
    n, m = 3000, 24000
    A = sp.csr_array((np.ones(m), (rng.integers(0, n, m), rng.integers(0, n, m))),
                     shape=(n, n))
    sources = rng.choice(n, 70, replace=False)
    levels, parents = bfs_many(A, sources, return_parents=True, direction=direction)
    _check(A, sources, levels, parents, True)


def test_repeated_sources_give_equal_rows(path_graph):
    levels, parents = bfs_many(path_graph, [1, 3, 1, 1], return_parents=True, directed=False)
    np.testing.assert_array_equal(levels[0], levels[2])
    np.testing.assert_array_equal(levels[0], levels[3])
    np.testing.assert_array_equal(levels[1], [3, 2, 1, 0, -1])
    np.testing.assert_array_equal(parents[0], [1, 1, 1, 2, -1])


@pytest.mark.parametrize("n", [200, 33000])
def test_deep_searches(n):
    """Depths past 126 and 32766 (the level codes need wider lanes)."""
    A = sp.csr_array((np.ones(n - 1), (np.arange(n - 1), np.arange(1, n))), shape=(n, n))
    sources = [0, n - 1, n // 2, 0]
    levels, parents = bfs_many(A, sources, return_parents=True, directed=False)
    for row, s in enumerate(sources):
        np.testing.assert_array_equal(levels[row], np.abs(np.arange(n) - s))
        check_parents(A, s, levels[row], parents[row], directed=False)
    assert bfs_many(A, [0])[0, -1] == n - 1


@pytest.mark.parametrize("device", DEVICES)
def test_empty_one_vertex_and_isolated(device, path_graph):
    empty = bfs_many(on_device(device, path_graph), [], return_parents=True)
    assert [to_host(a).shape for a in empty] == [(0, 5), (0, 5)]
    assert to_host(bfs_many(on_device(device, path_graph), np.zeros(0, int))).shape == (0, 5)
    one = sp.csr_array((1, 1))
    levels, parents = bfs_many(on_device(device, one), [0, 0], return_parents=True)
    np.testing.assert_array_equal(to_host(levels), [[0], [0]])
    np.testing.assert_array_equal(to_host(parents), [[0], [0]])
    levels = bfs_many(on_device(device, path_graph), [4, 0])
    np.testing.assert_array_equal(to_host(levels), [[-1, -1, -1, -1, 0], [0, 1, 2, 3, -1]])


def test_zero_vertices():
    levels, parents = bfs_many(sp.csr_array((0, 0)), [], return_parents=True)
    assert levels.shape == parents.shape == (0, 0)


def test_explicit_zeros_self_loops_and_duplicates():
    # 0 -> 1 (explicit zero, stored twice), 1 -> 1, 1 -> 2 (zero)
    A = sp.csr_array((np.array([0.0, 0.0, 5.0, 0.0]), np.array([1, 1, 1, 2]),
                      np.array([0, 2, 4, 4])), shape=(3, 3))
    assert A.nnz == 4
    levels, parents = bfs_many(A, [0, 1, 2], return_parents=True)
    np.testing.assert_array_equal(levels, [[0, 1, 2], [-1, 0, 1], [-1, -1, 0]])
    np.testing.assert_array_equal(parents, [[0, 0, 1], [-1, 1, 1], [-1, -1, 2]])


def test_dense_input_follows_csgraph_null_values():
    D = np.array([[0, 1, np.inf], [np.nan, 0, 2.0], [0, 0, 0]])
    np.testing.assert_array_equal(bfs_many(D, [0, 2]), [[0, 1, 2], [-1, -1, 0]])


def test_prepared_matrix_and_dtype(path_graph):
    """The call spbfs.bfs makes for an array of sources: a prepared Matrix and the flags."""
    M = spbfs.prepare(path_graph, directed=False)
    levels = bfs_many(M, np.array([3, 0]), directed=False)
    assert levels.dtype == M.indices.dtype == np.int32
    np.testing.assert_array_equal(levels, [[3, 2, 1, 0, -1], [0, 1, 2, 3, -1]])
    np.testing.assert_array_equal(bfs_many(M, [3], directed=True), levels[:1])


def test_int64_index_matrix_gives_int32_results():
    """Levels and vertex ids are int32 whenever n fits, whatever the matrix's index type."""
    from spbfs.semiring import Matrix

    M = Matrix(np.array([0, 1, 2, 2], np.int64), np.array([1, 2], np.int64), np.ones(2), 3)
    levels, parents = bfs_many(M, [0, 1], return_parents=True)
    assert levels.dtype == parents.dtype == np.int32
    np.testing.assert_array_equal(levels, [[0, 1, 2], [-1, 0, 1]])
    np.testing.assert_array_equal(parents, [[0, 0, 1], [-1, 1, 1]])


def test_source_arrays_of_any_integer_type(path_graph):
    for sources in ([1, 2], (1, 2), range(1, 3), np.array([1, 2], np.uint8),
                    np.array([1, 2], np.int64)):
        np.testing.assert_array_equal(bfs_many(path_graph, sources)[:, 3], [2, 1])


def test_bfs_dispatches_arrays_of_sources(path_graph):
    """``spbfs.bfs(A, sources)`` with a 1-D array runs bfs_many (once the dispatch is in)."""
    try:
        levels, parents = spbfs.bfs(path_graph, np.array([0, 2]), return_parents=True)
    except (TypeError, ValueError):
        pytest.skip("spbfs.bfs does not dispatch arrays of sources yet")
    np.testing.assert_array_equal(levels, [[0, 1, 2, 3, -1], [-1, -1, 0, 1, -1]])
    np.testing.assert_array_equal(parents, [[0, 0, 1, 2, -1], [-1, -1, 2, 2, -1]])


def test_word_size():
    assert WORD == 64


@pytest.mark.parametrize(
    "A,sources,exc,word",
    [
        (sp.csr_array((3, 3)), [0, 3], ValueError, r"sources must lie in \[0, 3\), got 3"),
        (sp.csr_array((3, 3)), [-1, 2], ValueError, r"sources must lie in \[0, 3\), got -1"),
        (sp.csr_array((3, 3)), [[0, 1]], ValueError, "sources must be a 1-D array"),
        (sp.csr_array((3, 3)), np.zeros((0, 2), int), ValueError, "sources must be a 1-D"),
        (sp.csr_array((3, 3)), [0.0, 1.0], TypeError, "sources must hold integer"),
        (sp.csr_array((3, 3)), [True], TypeError, "sources must hold integer"),
        (sp.csr_array((3, 3)), 1, TypeError, "sources must be a 1-D array"),
        (sp.csr_array((3, 3)), "01", TypeError, "sources must be a 1-D array"),
        (sp.csr_array((3, 4)), [0], ValueError, "square"),
    ],
)
def test_bad_input_names_the_argument(A, sources, exc, word):
    with pytest.raises(exc, match=word):
        bfs_many(A, sources)


@pytest.mark.parametrize("kwargs,word", [({"direction": "sideways"}, "direction"),
                                         ({"alpha": 0}, "alpha"), ({"beta": -1}, "beta")])
def test_bad_options(path_graph, kwargs, word):
    with pytest.raises(ValueError, match=word):
        bfs_many(path_graph, [0], **kwargs)


@pytest.mark.gpu
def test_gpu_kronecker_matches_cpu():
    import cupy

    from spbfs.graph500.generate import kronecker
    from spbfs.graph500.harness import build_undirected

    u, v = kronecker(12, 8, seed=2)
    M = build_undirected(u, v, 1 << 12)
    sources = np.random.default_rng(0).choice(1 << 12, 100, replace=False)
    cpu_levels, cpu_parents = bfs_many(M, sources, return_parents=True)
    G = build_undirected(cupy.asarray(u), cupy.asarray(v), 1 << 12)
    levels, parents = bfs_many(G, cupy.asarray(sources), return_parents=True)
    assert isinstance(levels, cupy.ndarray) and isinstance(parents, cupy.ndarray)
    np.testing.assert_array_equal(levels.get(), cpu_levels)
    A = M.to_scipy()
    for row, s in enumerate(sources[:10]):
        check_parents(A, int(s), cpu_levels[row], parents[row].get(), directed=False)


def test_oracle_helper_agrees(path_graph):
    """The module's expectation helper is the repository's oracle, row by row."""
    got = _expected(path_graph, [0, 3], True)
    np.testing.assert_array_equal(got[1], oracle_levels(path_graph, 3, True))
