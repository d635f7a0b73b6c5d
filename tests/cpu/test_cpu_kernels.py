"""The compiled CPU backend: its threaded level search, its thread setting, and a read-only
install (no writable cache directory) that still imports and runs."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from oracle import oracle_levels

import spbfs
from spbfs.cpu import bfs as cpu_bfs
from spbfs.cpu.threads import default_num_threads
from spbfs.graph500.generate import kronecker


def _kronecker(scale=10, seed=3, directed=False):
    u, v = kronecker(scale, 8, seed=seed)
    n = 1 << scale
    A = sp.csr_array((np.ones(u.size), (u, v)), shape=(n, n))
    return A if directed else A + A.T


def _check_tree(A, source, levels, parents, directed):
    np.testing.assert_array_equal(levels, oracle_levels(A, source, directed))
    found = np.flatnonzero(levels > 0)
    p = parents[found]
    assert np.all(levels[p] == levels[found] - 1)
    B = (A if directed else A + A.T).toarray() != 0
    assert np.all(B[p, found])
    assert parents[source] == source and np.all(parents[levels < 0] == -1)


@pytest.fixture
def threaded(monkeypatch):
    """Every level split over 3 threads, however small."""
    monkeypatch.setattr(cpu_bfs, "PARALLEL_PUSH_EDGES", 0)
    monkeypatch.setattr(cpu_bfs, "PARALLEL_PULL_VERTICES", 0)
    spbfs.set_num_threads(3)
    yield
    spbfs.set_num_threads(None)


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("direction", ["auto", "push", "pull"])
def test_threaded_levels_match_scipy(threaded, directed, direction):
    A = _kronecker(directed=directed)
    for s in (0, 5, 77):
        levels, parents = spbfs.bfs(A, s, return_parents=True, directed=directed,
                                    direction=direction)
        _check_tree(A, s, levels, parents, directed)
        np.testing.assert_array_equal(spbfs.bfs(A, s, directed=directed, direction=direction),
                                      levels)


def test_eight_threads_on_one_matrix_with_threaded_levels(threaded):
    A = _kronecker(scale=11, seed=5)
    spbfs.clear_cache(A)
    sources = [int(s) for s in np.random.default_rng(2).choice(A.shape[0], 24)]

    def one(s):
        levels, parents = spbfs.bfs(A, s, return_parents=True)
        _check_tree(A, s, levels, parents, False)
        return True

    with ThreadPoolExecutor(8) as pool:
        assert all(pool.map(one, sources * 2))


def test_thread_setting(monkeypatch):
    monkeypatch.setenv("SPBFS_NUM_THREADS", "3")
    assert spbfs.get_num_threads() == 3
    spbfs.set_num_threads(1)
    assert spbfs.get_num_threads() == 1
    spbfs.set_num_threads(None)
    monkeypatch.setenv("SPBFS_NUM_THREADS", "zero")
    with pytest.raises(ValueError, match="SPBFS_NUM_THREADS"):
        spbfs.get_num_threads()
    with pytest.raises(ValueError, match="n must be a positive integer"):
        spbfs.set_num_threads(0)
    monkeypatch.delenv("SPBFS_NUM_THREADS")
    monkeypatch.setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "64")  # ranks sharing the host
    default_num_threads.cache_clear()
    assert spbfs.get_num_threads() == 1
    monkeypatch.delenv("OMPI_COMM_WORLD_LOCAL_SIZE")
    default_num_threads.cache_clear()


def test_a_read_only_install_imports_and_runs(tmp_path):
    """No writable cache anywhere (every __pycache__ a file, NUMBA_CACHE_DIR and the user's
    cache directory unusable): kernels compile without a cache and give the right answer."""
    package = tmp_path / "spbfs"
    shutil.copytree(Path(spbfs.__file__).parent, package,
                    ignore=shutil.ignore_patterns("__pycache__"))
    for folder in [package, *[p for p in package.rglob("*") if p.is_dir()]]:
        (folder / "__pycache__").touch()
    env = dict(os.environ, PYTHONPATH=str(tmp_path), NUMBA_CACHE_DIR="/dev/null/none",
               XDG_CACHE_HOME="/dev/null/none", HOME="/dev/null")
    code = ("import numpy as np, scipy.sparse as sp, spbfs\n"
            "from spbfs.cpu import bfs\n"
            f"assert spbfs.__file__.startswith({str(tmp_path)!r})\n"
            "A = sp.csr_array(np.eye(6, k=1))\n"
            "levels, parents = spbfs.bfs(A, 1, return_parents=True)\n"
            "print(levels.tolist(), parents.tolist(), type(bfs._push._cache).__name__)\n"
            "from spbfs.cpu import strong, weak\n"
            "print(spbfs.connected_components(A, connection='strong')[0],\n"
            "      type(strong._search._cache).__name__,\n"
            "      spbfs.connected_components(A)[0], type(weak._second_round._cache).__name__)\n"
            "from spbfs import csgraph\nfrom spbfs.cpu import queue\n"
            "print(csgraph.breadth_first_order(A, 1)[0].tolist(),\n"
            "      type(queue._search._cache).__name__)\n"
            "from spbfs.cpu import products\n"
            "B = A + A.T\n"
            "print(spbfs.pagerank(B).round(3).tolist())\n"
            "print(spbfs.betweenness_centrality(B, normalized=False, directed=False).tolist(),\n"
            "      type(products._row_differs._cache).__name__)\n"
            "from spbfs.cpu import _spin, threads\n"
            "print(threads.run_ranges(lambda lo, hi: hi - lo, [(0, 1), (1, 4)]),\n"
            "      type(_spin.spin_while._cache).__name__)\n"
            "from spbfs.cpu import _thunks\n"
            "words = np.array([1, 3], np.uint64)\n"
            "print(threads.run_kernel(bfs._count_bits, [(0, 1), (1, 2)], words),\n"
            "      _thunks.thunk(bfs._count_bits, 2, (words,)))\n"
            "from spbfs.cpu import fwkeys, treepaths\n"
            "blocks, _ = treepaths.tree_paths(np.arange(3), np.array([-1, 0, 1]), [0])\n"
            "print([b.tolist() for b in blocks], type(treepaths._fill._cache).__name__,\n"
            "      fwkeys.floyd_key_orders(B.indptr, B.indices, False)[2].tolist(),\n"
            "      type(fwkeys._orders._cache).__name__)\n"
            "from spbfs.cpu import floyd\n"
            "floyd.PARALLEL_CELLS = 0\n"
            "D = np.array([[0, 1, np.inf], [1, 0, 2], [np.inf, 2, 0]])\n"
            "P, R = np.array([[-1, 0, -1], [1, -1, 1], [-1, 2, -1]]), np.full((3, 3), -1)\n"
            "floyd.floyd_warshall_rows(D, P, R)\n"
            "print(D[0].tolist(), P[0].tolist(), type(floyd._rounds._cache).__name__)\n"
            "from spbfs.cpu import firstparents\n"
            "firstparents.PARALLEL_ENTRIES = 0\n"
            "print(firstparents.first_tight_parents(np.array([0, 1, 2, 2]), np.array([1, 2]),\n"
            "      np.ones(2), np.array([0.0, 1.0, 2.0]), np.arange(3), [0]).tolist(),\n"
            "      type(firstparents._walk._cache).__name__)\n"
            "from spbfs.cpu import nodesets, toposort\n"
            "nodesets.PARALLEL_ENTRIES = 0\n"
            "print(nodesets.dominates(B.indptr, B.indices, [1, 4], 6, symmetric=True),\n"
            "      nodesets.dominates(B.indptr, B.indices, [1, 3], 6, symmetric=True),\n"
            "      type(nodesets._undominated._cache).__name__)\n"
            "C = sp.csr_array(A)\n"
            "print(toposort.generations(C.indptr, C.indices, 6,\n"
            "                           toposort.in_degrees(C.indices, 6))[1].tolist(),\n"
            "      type(toposort._generations._cache).__name__)\n")
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[0] == "[-1, 0, 1, 2, 3, 4] [-1, 1, 1, 2, 3, 4] NullCache"
    # the components kernels too
    assert out.stdout.split("\n")[1] == "6 NullCache 1 NullCache"
    assert out.stdout.split("\n")[2] == "[1, 2, 3, 4, 5] NullCache"   # and the queue
    # pagerank's dense push and betweenness's block product (skipped identity rows)
    assert out.stdout.split("\n")[3] == str(
        spbfs.pagerank(sp.csr_array(np.eye(6, k=1) + np.eye(6, k=-1))).round(3).tolist())
    assert out.stdout.split("\n")[4] == "[0.0, 4.0, 6.0, 6.0, 4.0, 0.0] NullCache"
    assert out.stdout.split("\n")[5] == "[1, 3] NullCache"  # the pool's spinning waits
    # no cache for a thunk either: the pool's workers call the kernel from Python
    assert out.stdout.split("\n")[6] == "[1, 2] None"
    # NetworkX's path dicts and Floyd-Warshall's key orders
    assert out.stdout.split("\n")[7] == ("[[[0]], [[0, 1]], [[0, 1, 2]]] NullCache "
                                          "[2, 1, 3, 0, 4, 5] NullCache")
    # and its loop, in rounds over the pool's threads
    assert out.stdout.split("\n")[8] == "[0.0, 1.0, 3.0] [-1, 0, 1] NullCache"
    # and Dijkstra's path parents, over the pool's threads
    assert out.stdout.split("\n")[9] == "[-1, 0, 1] NullCache"
    # domination's pass over the rows (stopping early), and the generations' kept counts
    assert out.stdout.split("\n")[10] == "True False NullCache"
    assert out.stdout.split("\n")[11] == "[0, 1, 2, 3, 4, 5, 6] NullCache"


def test_import_compiles_nothing():
    code = "import sys, spbfs; print('numba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.stdout.strip() == "False", out.stderr


@pytest.mark.parametrize("threads", [1, 3])
@pytest.mark.parametrize("dtype", [np.float64, np.int64, np.float32])
def test_push_of_a_plain_array_matches_scipy(monkeypatch, threads, dtype):
    """``vxm`` of a plain array pushes rows into dense accumulators (``spmv_scatter``):
    values as scipy's product, entries exactly the columns holding an entry."""
    from spbfs import semiring
    from spbfs.cpu import backend, products

    monkeypatch.setattr(products, "PARALLEL_WORK", 0)
    calls = []
    monkeypatch.setattr(backend, "spmv_scatter",
                        lambda *a: calls.append(1) or products.spmv_scatter(*a))
    spbfs.set_num_threads(threads)
    try:
        rng = np.random.default_rng(4)
        A = sp.random(300, 200, density=0.02, format="csr", random_state=rng,
                      data_rvs=lambda k: rng.integers(1, 9, k)).astype(dtype)
        keep = np.ones(200, dtype)
        keep[7] = 0  # an empty column
        A = (A @ sp.diags(keep, dtype=dtype)).tocsr()
        A.eliminate_zeros()
        x = rng.integers(-5, 6, 300).astype(dtype)
        y = semiring.vxm(x, A, semiring.plus_times)
        assert calls and y.format == "bitmap"
        np.testing.assert_array_equal(y.present, np.diff(A.tocsc().indptr) > 0)
        np.testing.assert_allclose(y.to_dense(0), A.T @ x, rtol=1e-6)
        pushed = semiring.vxm(semiring.Vector.full(x), A, semiring.plus_times,
                              direction="push")
        np.testing.assert_allclose(y.to_dense(0), pushed.to_dense(0), rtol=1e-6)
    finally:
        spbfs.set_num_threads(None)


@pytest.mark.parametrize("complement", [False, True])
def test_block_product_skips_identity_rows_exactly(complement):
    """``mxm`` of a dense block over a ``second`` multiply reads only the block's rows that
    hold a value other than the identity; the result equals the product computed whole."""
    from spbfs import semiring

    rng = np.random.default_rng(6)
    A = sp.random(120, 90, density=0.05, format="csr", random_state=rng)
    B = rng.integers(1, 5, (90, 6)).astype(np.float64)
    B[rng.random(90) < 0.6] = 0.0  # rows of the plus identity
    B[3] = [0, 0, 2, 0, 0, 0]
    mask = rng.random((120, 6)) < 0.5
    plus_second = semiring.Semiring(semiring.monoids.plus, semiring.ops.second)
    C = semiring.mxm(A, B, plus_second, mask=mask, complement=complement)
    whole = (A != 0).astype(np.float64) @ B  # second: each stored entry adds B's row
    allowed = ~mask if complement else mask
    np.testing.assert_array_equal(np.where(allowed, whole, 0.0), C)

    min_second = semiring.Semiring(semiring.monoids.min, semiring.ops.second)
    B2 = np.where(B == 0, np.inf, B)  # rows of the min identity
    C2 = semiring.mxm(A, B2, min_second)
    expect = np.full((120, 6), np.inf)
    rows, cols = A.nonzero()
    np.minimum.at(expect, rows, B2[cols])
    np.testing.assert_array_equal(expect, C2)


def test_block_product_over_any_second_reads_every_row():
    """``any`` has no identity: its placeholder rows are not skipped."""
    from spbfs import semiring

    A = sp.csr_array(np.array([[1.0, 1.0], [0.0, 1.0]]))
    B = np.array([[0.0, 0.0], [3.0, 3.0]])
    any_second = semiring.Semiring(semiring.monoids.any, semiring.ops.second)
    C = semiring.mxm(A, B, any_second)
    assert set(C[0].tolist()) <= {0.0, 3.0} and C[1].tolist() == [3.0, 3.0]


def test_eight_threads_on_the_dense_push_and_the_block_product(monkeypatch):
    """pagerank (``spmv_scatter``) and betweenness (``spmm`` skipping identity rows), each
    split over 3 threads, from 8 Python threads on one matrix: the single-thread answers."""
    from spbfs.cpu import products

    A = _kronecker(scale=11, seed=7)
    spbfs.clear_cache(A)
    sources = np.arange(0, 2048, 97)
    want_pr = spbfs.pagerank(A)
    want_bc = spbfs.betweenness_centrality(A, sources=sources)
    monkeypatch.setattr(products, "PARALLEL_WORK", 0)
    spbfs.set_num_threads(3)
    try:
        def one(_):
            np.testing.assert_allclose(spbfs.pagerank(A), want_pr, rtol=1e-12)
            np.testing.assert_allclose(spbfs.betweenness_centrality(A, sources=sources),
                                       want_bc, rtol=1e-12)
            return True

        with ThreadPoolExecutor(8) as pool:
            assert all(pool.map(one, range(16)))
    finally:
        spbfs.set_num_threads(None)


@pytest.fixture
def three_threads(monkeypatch):
    """Every call split over 3 threads, however small."""
    from spbfs.cpu import products

    monkeypatch.setattr(products, "PARALLEL_WORK", 1)
    spbfs.set_num_threads(3)
    yield
    spbfs.set_num_threads(None)


@pytest.mark.parametrize("kind", ["tril", "triu"])
@pytest.mark.parametrize("k", [-2, 0, 3])
def test_triangle_selection_over_ranges_matches_scipy(three_threads, kind, k):
    A = sp.random_array((300, 280), density=0.06, rng=np.random.default_rng(k + 5),
                        format="csr")
    got = spbfs.semiring.select(A, kind, k).to_scipy()
    want = (sp.tril if kind == "tril" else sp.triu)(A, k).tocsr()
    assert got.nnz == want.nnz
    assert np.array_equal(got.toarray(), want.toarray())


def test_repeated_triangle_selection_keeps_only_the_pattern(three_threads):
    """tril / triu keep their row pointers with the input's pattern: later calls on the same
    matrix read its current values, each offset keeps its own, and what a caller does to a
    result leaves the next one alone."""
    A = sp.random_array((200, 200), density=0.08, rng=np.random.default_rng(3), format="csr")
    first = spbfs.semiring.select(A, "tril", -1)
    first.indptr[:] = 0  # the caller's own arrays
    first.indices[:] = 0
    A.data *= -2.0  # the same pattern, new values
    for kind, k in [("tril", -1), ("tril", 2), ("triu", -1), ("tril", -1)]:
        got = spbfs.semiring.select(A, kind, k).to_scipy()
        want = (sp.tril if kind == "tril" else sp.triu)(A, k).tocsr()
        assert got.nnz == want.nnz
        assert np.array_equal(got.toarray(), want.toarray())


def test_element_wise_merges_over_ranges_match_scipy(three_threads):
    rng = np.random.default_rng(11)
    A = sp.random_array((300, 250), density=0.05, rng=rng, format="csr")
    B = sp.random_array((300, 250), density=0.08, rng=rng, format="csr")
    B = sp.csr_array(sp.diags_array((np.arange(300) >= 40) * 1.0) @ B)  # rows only A stores
    B.eliminate_zeros()
    union = spbfs.semiring.ewise_add(A, B, spbfs.semiring.ops.plus).to_scipy()
    assert union.nnz == (A + B).nnz
    assert np.allclose(union.toarray(), (A + B).toarray())
    both = spbfs.semiring.ewise_mult(A, B, spbfs.semiring.ops.times).to_scipy()
    assert both.nnz == A.multiply(B).nnz
    assert np.allclose(both.toarray(), A.multiply(B).toarray())


def test_pool_hands_results_in_order_and_raises_a_range_error(three_threads):
    from spbfs.cpu.threads import run_ranges

    def spell(lo, hi):
        if lo == 7:
            raise ZeroDivisionError(f"range {lo}")
        return list(range(lo, hi))

    assert run_ranges(spell, [(0, 3), (3, 5), (5, 7)]) == [[0, 1, 2], [3, 4], [5, 6]]
    with pytest.raises(ZeroDivisionError, match="range 7"):
        run_ranges(spell, [(0, 3), (3, 7), (7, 9)])
    time.sleep(0.01)  # the workers sleep now: woken by the next call
    assert run_ranges(spell, [(0, 1), (1, 2), (2, 3)]) == [[0], [1], [2]]


def test_pool_from_eight_threads_and_from_inside_a_range(three_threads):
    """Calls racing for the spinning workers (the losers run on the sleeping pool) and a
    call made from one of the workers' ranges all give their own results."""
    from spbfs.cpu.threads import run_ranges

    def total(lo, hi):
        return int(np.arange(lo, hi).sum())

    def nested(lo, hi):
        return sum(run_ranges(total, [(lo, (lo + hi) // 2), ((lo + hi) // 2, hi)]))

    def job(seed):
        rng = np.random.default_rng(seed)
        for _ in range(50):
            cuts = np.sort(rng.integers(0, 10_000, 2)).tolist()
            ranges = [(0, cuts[0]), (cuts[0], cuts[1]), (cuts[1], 10_000)]
            assert sum(run_ranges(total, ranges)) == 49_995_000
            assert sum(run_ranges(nested, ranges)) == 49_995_000
        return True

    with ThreadPoolExecutor(8) as pool:
        assert all(pool.map(job, range(8)))


def test_pool_grows_while_a_call_holds_it(three_threads):
    """The caller's own range asks for more workers than the held pool has: a new pool
    serves it, and the old one stops once the outer call ends (no wait on itself)."""
    from spbfs.cpu import threads

    def inner(lo, hi):
        return sum(threads.run_ranges(lambda a, b: b - a, [(k, k + 1) for k in range(5)]))

    done = []
    worker = threading.Thread(target=lambda: done.append(
        threads.run_ranges(inner, [(0, 1), (1, 2), (2, 3)])))
    worker.start()
    worker.join(60)
    assert done == [[5, 5, 5]]
    assert threads._spinning.size >= 4


def test_row_overlap_over_ranges_counts_the_shared_columns(three_threads, monkeypatch):
    from spbfs.cpu import overlap

    monkeypatch.setattr(overlap, "PARALLEL_ENTRIES", 1)
    rng = np.random.default_rng(5)
    A = sp.random_array((200, 200), density=0.06, rng=rng, format="csr")
    A.sort_indices()
    T = A.T.tocsr()
    T.sort_indices()
    got = overlap.row_overlap(A.indptr, A.indices, T.indptr, T.indices)
    want = np.asarray((A.astype(bool).multiply(T.astype(bool))).sum(axis=1)).ravel()
    np.testing.assert_array_equal(got, want)


def test_first_equal_finds_each_bit_pattern_first_position():
    from spbfs.cpu.distinct import first_equal

    rng = np.random.default_rng(2)
    x = rng.integers(0, 40, 5000) / rng.integers(1, 40, 5000)
    x[::97] = np.nan
    x[::89] = -0.0
    first = first_equal(x)
    bits = x.view(np.int64)
    _, where, inverse = np.unique(bits, return_index=True, return_inverse=True)
    np.testing.assert_array_equal(first, where[inverse])  # the first of each bit pattern
    assert first_equal(np.zeros(0)).size == 0


@pytest.mark.parametrize("length", [0, 1, 16, 17, 40, 300, 2048, 5000])
def test_sort_run_sorts_stably_with_digits_for_the_runs_length(length):
    """``sort_run`` against numpy's stable argsort: insertion, and radix digits of 4 to 11
    bits by the run's length, over key bounds of one digit to several."""
    from spbfs.cpu.runsort import RADIX_BITS, sort_run

    rng = np.random.default_rng(length)
    for bound in (1, 7, 1 << 11, 1 << 20, 1 << 40):
        keys = rng.integers(0, bound, length + 6)
        values = np.arange(keys.size)
        lo, hi = 3, 3 + length  # a run inside a longer array: the rest untouched
        expect = keys.copy()
        order = np.argsort(keys[lo:hi], kind="stable")
        expect[lo:hi] = keys[lo:hi][order]
        expect_values = values.copy()
        expect_values[lo:hi] = values[lo:hi][order]
        sort_run(keys, values, lo, hi, bound, np.empty(length, np.int64),
                 np.empty(length, np.int64), np.empty((1 << RADIX_BITS) + 1, np.int64))
        np.testing.assert_array_equal(keys, expect)
        np.testing.assert_array_equal(values, expect_values)


def test_eight_threads_extract_a_core_numbered_hubs_first(three_threads, monkeypatch):
    """``extract_pattern`` in a hubs-first order (the CPU's ``csr_induced``, each call split
    over 3 threads) and searches of the pruned graph, from 8 Python threads on one matrix:
    scipy's induced subgraph and its levels every time."""
    from spbfs.algorithms import forest
    from spbfs.algorithms._level_loop import search
    from spbfs.algorithms._shared import prepare
    from spbfs.cpu import permute

    monkeypatch.setattr(permute, "PARALLEL_ENTRIES", 1)
    A = _kronecker(scale=11, seed=7)
    S = sp.csr_array(((A + A.T) > 0).astype(np.int8))
    M = prepare(S, directed=False)
    F = forest.Forest(M, hubs_first=True)
    keep = F.core
    want = S[keep][:, keep].toarray() != 0
    sources = [int(s) for s in F.core[::97]]
    want_levels = {s: oracle_levels(S, s, directed=False) for s in sources}

    def one(_):
        got = spbfs.semiring.extract_pattern(S, keep).to_scipy().toarray()
        np.testing.assert_array_equal(got, want)
        for s in sources:
            np.testing.assert_array_equal(search(F, s), want_levels[s])
        return True

    with ThreadPoolExecutor(8) as pool:
        assert all(pool.map(one, range(16)))
