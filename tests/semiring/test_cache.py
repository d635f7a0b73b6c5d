"""The per-input cache of prepared patterns: reused by plain calls, never stale.

Each test changes a matrix the way users do and checks the next call against scipy.
"""

import gc
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph
from oracle import oracle_levels

import spbfs
from spbfs.semiring import Matrix, _cache


def _random(n=60, density=0.05, seed=0, fmt="csr"):
    return sp.random(n, n, density=density, random_state=seed, format=fmt,
                     data_rvs=lambda k: np.random.default_rng(seed).integers(1, 9, k) * 1.0)


def _dijkstra(A, source):
    return csgraph.dijkstra(A, indices=source)


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
def test_a_plain_call_reuses_the_pattern(fmt):
    A = _random(fmt=fmt)
    first = Matrix.from_any(A)
    again = Matrix.from_any(A)
    assert again.pattern is first.pattern
    assert again.T.pattern is first.T.pattern  # the transpose is built once per input
    sym = spbfs.prepare(A, directed=False)
    assert spbfs.prepare(A, directed=False).pattern is sym.pattern
    np.testing.assert_array_equal(spbfs.bfs(A, 3), oracle_levels(A, 3))


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
def test_in_place_value_edits_are_seen(fmt):
    A = _random(fmt=fmt)
    np.testing.assert_allclose(spbfs.sssp(A, 0), _dijkstra(A, 0))
    A.data *= 3.0
    A.data[::2] += 1.0
    np.testing.assert_allclose(spbfs.sssp(A, 0), _dijkstra(A, 0))
    np.testing.assert_allclose(spbfs.sssp(A, 0, directed=False),
                               csgraph.dijkstra(A, indices=0, directed=False))


def test_a_new_entry_is_seen():
    A = sp.csr_array(([1.0, 1.0], ([0, 1], [1, 2])), shape=(4, 4))
    np.testing.assert_array_equal(spbfs.bfs(A, 0), [0, 1, 2, -1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sp.SparseEfficiencyWarning)
        A[2, 3] = 1.0
    np.testing.assert_array_equal(spbfs.bfs(A, 0), [0, 1, 2, 3])


def test_eliminate_zeros_and_sum_duplicates_are_seen():
    A = sp.csr_array((np.array([1.0, 0.0, 2.0, 3.0]), np.array([1, 2, 2, 2]),
                      np.array([0, 2, 4, 4])), shape=(3, 3))
    np.testing.assert_array_equal(spbfs.bfs(A, 0), [0, 1, 1])
    A.eliminate_zeros()
    np.testing.assert_array_equal(spbfs.bfs(A, 0), [0, 1, 2])
    A.sum_duplicates()
    assert A.nnz == 2
    np.testing.assert_allclose(spbfs.sssp(A, 0), [0.0, 1.0, 6.0])


def test_sort_indices_keeps_values_aligned():
    # row 0 stores column 2 before column 1: sort_indices reorders indices and data in place
    A = sp.csr_array((np.array([5.0, 1.0]), np.array([2, 1]), np.array([0, 2, 2, 2])),
                     shape=(3, 3))
    A.has_sorted_indices  # noqa: B018 - scipy computes and remembers the flag
    np.testing.assert_allclose(spbfs.sssp(A, 0), [0.0, 1.0, 5.0])
    A.sort_indices()
    np.testing.assert_allclose(spbfs.sssp(A, 0), [0.0, 1.0, 5.0])
    A.data[0] = 7.0  # now the weight of edge 0 -> 1
    np.testing.assert_allclose(spbfs.sssp(A, 0), [0.0, 7.0, 5.0])


def test_replaced_arrays_and_resize_are_seen():
    A = _random(n=30, seed=4)
    B = _random(n=30, seed=5)
    spbfs.bfs(A, 0)
    A.indices, A.indptr, A.data = B.indices.copy(), B.indptr.copy(), B.data.copy()
    np.testing.assert_array_equal(spbfs.bfs(A, 0), oracle_levels(B, 0))
    A.resize((40, 40))
    assert spbfs.bfs(A, 0).shape == (40,)


def test_in_place_index_writes_need_clear_cache_and_never_crash():
    A = sp.csr_array(([1.0, 1.0], ([0, 1], [1, 2])), shape=(3, 3))
    np.testing.assert_array_equal(spbfs.bfs(A, 0), [0, 1, 2])
    A.indices[0] = 2  # the documented blind spot: same arrays, same flags
    np.testing.assert_array_equal(spbfs.bfs(A, 0), [0, 1, 2])  # stale, but consistent
    spbfs.clear_cache(A)
    np.testing.assert_array_equal(spbfs.bfs(A, 0), [0, -1, 1])
    A.indices[0] = 99  # corrupted in place after caching: the private copy is unaffected
    spbfs.bfs(A, 0)
    spbfs.clear_cache(A)
    with pytest.raises(ValueError, match=r"A.indices has an entry 99 outside \[0, 3\)"):
        spbfs.bfs(A, 0)


def test_the_cached_pattern_is_private_and_read_only():
    A = _random()
    M = Matrix.from_any(A)
    assert not np.shares_memory(M.indices, A.indices)
    assert not M.indices.flags.writeable and not M.indptr.flags.writeable


def test_entries_die_with_their_matrix():
    spbfs.clear_cache()
    A = _random(seed=7)
    spbfs.bfs(A, 0)
    assert len(_cache._entries) == 1
    del A
    gc.collect()
    assert len(_cache._entries) == 0


def test_formats_edited_in_place_are_converted_every_call():
    L = sp.lil_array((3, 3))
    L[0, 1] = 1
    np.testing.assert_array_equal(spbfs.bfs(L, 0), [0, 1, -1])
    L[1, 2] = 1
    np.testing.assert_array_equal(spbfs.bfs(L, 0), [0, 1, 2])


def test_a_collection_inside_store_does_not_hang():
    """A garbage collection started by the cache's own allocation frees another cached
    matrix (kept in a reference cycle), whose weakref callback drops its entry on the same
    thread: with a plain lock taken twice, this hung within a few hundred rounds.  Run in a
    child process with a time limit, so a hang fails the test."""
    import subprocess
    import sys

    script = """
import gc, numpy as np, scipy.sparse as sp, spbfs
rng = np.random.default_rng(0)
for i in range(600):
    gc.disable()
    for _ in range(3):
        G = sp.csr_array(np.eye(2)); G.me = G   # cyclic garbage whose pattern is cached
        spbfs.bfs(G, 0)
        del G
    gc.set_threshold(int(rng.integers(1, 60))); gc.enable()
    spbfs.bfs(sp.csr_array(np.eye(3)), 0)
print("done")
"""
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0 and run.stdout.strip() == "done", run.stderr[-2000:]
