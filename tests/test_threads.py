"""Concurrent calls on one matrix return exactly what each call returns alone.

8 threads x many sources on one matrix (plain, prepared, and a first call racing to build
the cache), on the CPU in CI and on the GPU on the device (gpu-marked), plus searches on
two CuPy streams at once.
"""

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import scipy.sparse as sp
from oracle import oracle_levels

import spbfs

THREADS = 8


def _graph(n=3000, seed=0):
    A = sp.random(n, n, density=3.0 / n, random_state=seed, format="csr")
    A.data = np.random.default_rng(seed).integers(1, 5, A.nnz).astype(np.float64)
    return A


def _host(a):
    return a.get() if hasattr(a, "get") else a


def _check_concurrently(A, A_in, sources, directed, parents):
    """Every search of ``sources`` x 3 run on THREADS threads equals scipy's levels."""
    expected = {s: oracle_levels(A, s, directed) for s in sources}

    def one(s):
        if parents:
            levels, par = spbfs.bfs(A_in, s, directed=directed, return_parents=True)
            levels, par = _host(levels), _host(par)
            reached = np.flatnonzero(levels > 0)
            ok_tree = bool(np.all(levels[par[reached]] == levels[reached] - 1))
        else:
            levels, ok_tree = _host(spbfs.bfs(A_in, s, directed=directed)), True
        return s, np.array_equal(levels, expected[s]) and ok_tree

    with ThreadPoolExecutor(THREADS) as pool:
        results = list(pool.map(one, [s for s in sources for _ in range(3)]))
    wrong = [s for s, ok in results if not ok]
    assert not wrong, f"{len(wrong)} of {len(results)} concurrent searches wrong: {wrong[:5]}"


def _sources(A, k=29):
    return [int(s) for s in np.random.default_rng(1).choice(A.shape[0], k, replace=False)]


@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("parents", [False, True])
def test_cpu_threads_on_a_plain_matrix_including_the_first_call(directed, parents):
    A = _graph(seed=2 + directed)
    spbfs.clear_cache(A)  # the first calls race to build the cached pattern
    _check_concurrently(A, A, _sources(A), directed, parents)


def test_cpu_threads_on_a_prepared_matrix_and_sssp():
    A = _graph(seed=5)
    M = spbfs.prepare(A, directed=False)
    _check_concurrently(A, M, _sources(A), False, True)
    import scipy.sparse.csgraph as csgraph

    expected = csgraph.dijkstra(A, indices=_sources(A, 8))
    with ThreadPoolExecutor(THREADS) as pool:
        got = list(pool.map(lambda s: spbfs.sssp(A, s), _sources(A, 8)))
    np.testing.assert_allclose(np.stack(got), expected)


@pytest.mark.gpu
@pytest.mark.parametrize("prepared", [False, True])
def test_gpu_threads_on_one_cupyx_matrix(prepared):
    cupy = pytest.importorskip("cupy")
    import cupyx.scipy.sparse as csp

    A = _graph(n=20000, seed=6)
    A_gpu = csp.csr_matrix(A.astype(np.float32))
    target = spbfs.prepare(A_gpu) if prepared else A_gpu
    _check_concurrently(A, target, _sources(A), True, True)
    cupy.cuda.get_current_stream().synchronize()


@pytest.mark.gpu
def test_gpu_searches_on_two_streams_do_not_race():
    cupy = pytest.importorskip("cupy")
    import cupyx.scipy.sparse as csp

    A = _graph(n=20000, seed=7)
    A_gpu = csp.csr_matrix(A.astype(np.float32))
    sources = _sources(A, 16)
    expected = {s: oracle_levels(A, s, False) for s in sources}
    streams = [cupy.cuda.Stream(non_blocking=True) for _ in range(2)]

    def on_stream(k):
        wrong = []
        with streams[k]:
            for s in sources[k::2] * 3:
                levels = spbfs.bfs(A_gpu, s, directed=False)
                streams[k].synchronize()
                if not np.array_equal(levels.get(), expected[s]):
                    wrong.append(s)
        return wrong

    with ThreadPoolExecutor(2) as pool:
        wrong = sum(pool.map(on_stream, [0, 1]), [])
    assert not wrong


def test_cpu_threads_share_the_sweeps_and_the_wide_search(monkeypatch):
    """Louvain's and label propagation's sweeps (rounds over four threads each, every class a
    round) and the wide many-source search, called from THREADS threads at once: each call
    returns what it returns alone (a call finding the pool held runs its rounds on the
    sleeping threads)."""
    from spbfs.algorithms import communities
    from spbfs.algorithms.msbfs import bfs_many
    from spbfs.cpu import mode

    monkeypatch.setattr(mode, "SWEEP_PARALLEL_ENTRIES", 0)
    monkeypatch.setattr(mode, "ROUND_ENTRIES", 1)
    A = _graph(n=2000, seed=5)
    A = (A + A.T).tocsr()
    sources = np.arange(200)
    calls = [lambda: communities.louvain(A, seed=1), lambda: communities.label_propagation(A),
             lambda: bfs_many(A, sources, directed=False)]
    spbfs.set_num_threads(4)
    try:
        alone = [np.asarray(call()) for call in calls]
        with ThreadPoolExecutor(THREADS) as pool:
            results = list(pool.map(lambda i: (i, np.asarray(calls[i]())),
                                    [i for _ in range(4) for i in range(len(calls))]))
    finally:
        spbfs.set_num_threads(None)
    wrong = [i for i, got in results if not np.array_equal(got, alone[i])]
    assert not wrong, f"concurrent calls differ from a call alone: {wrong}"


def test_cpu_threads_build_networkx_paths_and_floyd_warshall_dicts(monkeypatch):
    """NetworkX's path dicts (the parents and the paths each one compiled pass, the parents
    split over the pool's threads), Floyd-Warshall's dicts (key orders and NetworkX's
    loop, both split over the pool's threads) and link prediction over the non-edges,
    called from THREADS threads at once: each call returns what it returns alone."""
    import networkx as nx

    from spbfs.cpu import firstparents, floyd, fwkeys
    from spbfs.nx import convert_from_nx

    monkeypatch.setattr(fwkeys, "PARALLEL_CELLS", 0)
    monkeypatch.setattr(floyd, "PARALLEL_CELLS", 0)
    monkeypatch.setattr(firstparents, "PARALLEL_ENTRIES", 0)
    G = nx.gnm_random_graph(120, 600, seed=3)
    for k, (u, v) in enumerate(G.edges):
        G.edges[u, v]["weight"] = 1 + k % 7
    g = convert_from_nx(G, edge_attrs={"weight": 1})
    calls = [lambda: nx.single_source_dijkstra(g, 0),
             lambda: nx.floyd_warshall_predecessor_and_distance(g),
             lambda: list(nx.common_neighbor_centrality(g))]

    def plain(result):  # defaultdicts compared as dicts, in their order
        if isinstance(result, tuple):
            return tuple(plain(part) for part in result)
        if isinstance(result, dict):
            return [(k, plain(v)) for k, v in result.items()]
        return result

    spbfs.set_num_threads(4)
    try:
        alone = [plain(call()) for call in calls]
        with ThreadPoolExecutor(THREADS) as pool:
            results = list(pool.map(lambda i: (i, plain(calls[i]())),
                                    [i for _ in range(4) for i in range(len(calls))]))
    finally:
        spbfs.set_num_threads(None)
    wrong = [i for i, got in results if got != alone[i]]
    assert not wrong, f"concurrent calls differ from a call alone: {wrong}"


def test_cpu_threads_read_node_sets_and_topological_generations(monkeypatch):
    """Domination (a pass over the rows split over the pool's threads, stopping early),
    node expansions (the set's marks) and topological generations (the graph's kept
    in-degrees, copied per call), called from THREADS threads at once on one converted
    graph each: each call returns what it returns alone."""
    import networkx as nx

    from spbfs.cpu import nodesets
    from spbfs.nx import convert_from_nx

    monkeypatch.setattr(nodesets, "PARALLEL_ENTRIES", 0)
    G = nx.gnm_random_graph(3000, 9000, seed=4)
    g = convert_from_nx(G)
    D = convert_from_nx(nx.DiGraph([(u, v) for u, v in G.edges if u < v]))
    half, most = set(range(1500)), set(range(3000)) - {7}
    calls = [lambda: nx.is_dominating_set(g, half), lambda: nx.is_dominating_set(g, most),
             lambda: nx.node_expansion(g, half), lambda: nx.boundary_expansion(g, half),
             lambda: list(nx.topological_generations(D))]
    spbfs.set_num_threads(4)
    try:
        alone = [call() for call in calls]
        with ThreadPoolExecutor(THREADS) as pool:
            results = list(pool.map(lambda i: (i, calls[i]()),
                                    [i for _ in range(4) for i in range(len(calls))]))
    finally:
        spbfs.set_num_threads(None)
    assert alone[:2] == [nx.is_dominating_set(G, half), nx.is_dominating_set(G, most)]
    wrong = [i for i, got in results if got != alone[i]]
    assert not wrong, f"concurrent calls differ from a call alone: {wrong}"
