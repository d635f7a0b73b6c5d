"""Node sets given as Python containers (spbfs/nx/_cuts.py's fast reading of ints on graphs
labelled by their rows, spbfs/cpu/nodesets.py's kernels) against NetworkX itself: the same
values and types, and edge boundaries in the same order."""

import numpy as np
import pytest

nx = pytest.importorskip("networkx")

from spbfs.cpu.nodesets import (  # noqa: E402
    boundary_entries,
    boundary_total,
    dominates,
    mark_neighbours,
)
from spbfs.nx import convert_from_nx  # noqa: E402
from spbfs.nx._cuts import _slots, int_items, set_rows  # noqa: E402


def _weighted(G, seed):
    rng = np.random.default_rng(seed)
    for *_, d in G.edges(data=True):
        d["weight"] = float(rng.random()) * 3
    return G


def _graphs():
    G = nx.gnm_random_graph(300, 900, seed=1)
    G.add_edges_from([(4, 4), (250, 250)])
    D = nx.gnm_random_graph(300, 1200, seed=2, directed=True)
    D.add_edge(8, 8)
    return {"graph": _weighted(G, 3), "digraph": _weighted(D, 4)}


GRAPHS = _graphs()
BUNCHES = {
    "evens": lambda: set(range(0, 300, 2)),
    "random set": lambda: set(np.random.default_rng(5).choice(300, 120, replace=False).tolist()),
    "small set, large ints": lambda: {250, 3, 17, 100},  # a table of 8: not in order
    "list": lambda: [5, 5, 7, 299, 0, 12, 7],
    "absent ints": lambda: [5, -1, 1000, 7, 2 ** 40],
    "tuple": lambda: (9, 2, 290),
    "frozenset": lambda: frozenset(range(100, 300, 7)),
    "dict": lambda: dict.fromkeys([40, 3, 200]),
    "bools and numpy ints": lambda: [True, np.int64(4), np.int32(9)],
    "floats": lambda: [1.0, 2.0, 7.0],
    "generator": lambda: iter([3, 4, 5]),
    "mixed": lambda: [3, "x", 4],
}


def same(f, G, make, *args, **kwargs):
    """``f(G, make(), *args)`` through spbfs and in NetworkX (a new bunch each): the same
    value and type, or the same exception."""
    try:
        want = f(G, make(), *args, **kwargs)
    except Exception as exc:  # noqa: BLE001
        with pytest.raises(type(exc)):
            f(G, make(), *args, backend="spbfs", **kwargs)
        return
    got = f(G, make(), *args, backend="spbfs", **kwargs)
    assert type(got) is type(want)
    assert got == want, (got, want)


@pytest.mark.parametrize("bunch", sorted(BUNCHES))
@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_set_functions(name, bunch):
    G = GRAPHS[name]
    make = BUNCHES[bunch]
    for weight in (None, "weight"):
        same(nx.volume, G, make, weight=weight)
    same(nx.node_boundary, G, make)
    same(nx.is_dominating_set, G, make)
    same(nx.is_dominating_set, G, lambda: list(range(300)) + list(make()))
    same(nx.node_boundary, G, make, set(range(0, 300, 3)))
    same(nx.boundary_expansion, G, make)
    if bunch not in ("absent ints", "mixed"):
        same(nx.node_expansion, G, make)
    else:
        with pytest.raises(nx.NetworkXError):
            nx.node_expansion(G, make(), backend="spbfs")
    H = G.copy()  # (data=True converts with every attribute kept: a cache of its own)
    for other in (None, {1, 2, 3, 200}, set(range(150))):
        for data in (False, True):
            got = list(nx.edge_boundary(H, make(), other, data=data, backend="spbfs"))
            assert got == list(nx.edge_boundary(H, make(), other, data=data))
    comp = set(G) - set(G.nbunch_iter(make()))
    for f in (nx.cut_size, nx.normalized_cut_size, nx.conductance, nx.edge_expansion,
              nx.mixing_expansion):
        if bunch in ("generator", "dict", "absent ints", "mixed", "list"):
            continue  # NetworkX's own errors or repeated nodes in len(S)
        for weight in (None, "weight"):
            same(f, G, make, comp, weight=weight)
            # T left out: set(G) - set(S) (cut_size and mixing_expansion: the edges leaving
            # S, which NetworkX refuses on a directed graph)
            if not G.is_directed() or f not in (nx.cut_size, nx.mixing_expansion):
                same(f, G, make, weight=weight)


def test_set_rows_order_and_items():
    G = convert_from_nx(nx.path_graph(300))
    for nodes in ({250, 3, 17, 100}, set(range(0, 300, 5)), {299, 1, 2, 3, 4, 5, 6, 7, 8}):
        assert set_rows(G, nodes).tolist() == list({n for n in nodes if n in G})
    assert int_items(G, [1.5]) is None and int_items(G, b"12345678") is None
    # integers of any kind read as they hash (numpy ints, bools); floats, strings and ints
    # beyond int64 leave the set to the dict lookups, as NetworkX's ``in`` sees them
    assert int_items(G, [np.int64(7), True, -3, np.uint8(2)]).tolist() == [7, 1, -3, 2]
    for other in ([2**63], [3, 4.0], [3, "4"], [None]):
        assert int_items(G, other) is None
    for nodes in ([np.int32(5), 2.0, True, 10**30, "x", 299], {np.int64(3), False}):
        assert set_rows(G, nodes).tolist() == [G.index[n] for n in {n for n in nodes if n in G}]
    L = convert_from_nx(nx.path_graph(["a", "b"]))
    assert int_items(L, [0]) is None
    for k in (0, 4, 5, 100, 3000, 50001):
        table = set(range(k))
        assert list(table) == sorted(table) and _slots(k) > k


@pytest.mark.parametrize("threads", [1, 3])
def test_kernels_against_numpy(monkeypatch, threads):
    """The kernels against numpy; the marks with the rows split over the threads (from any
    number of entries), each neighbour counted once though several threads mark it."""
    import spbfs
    from spbfs.cpu import nodesets

    monkeypatch.setattr(nodesets, "PARALLEL_ENTRIES", 1)
    spbfs.set_num_threads(threads)
    try:
        _kernels_against_numpy()
    finally:
        spbfs.set_num_threads(None)


def _kernels_against_numpy():
    rng = np.random.default_rng(7)
    A = nx.to_scipy_sparse_array(nx.gnm_random_graph(200, 800, seed=8, directed=True))
    indptr, indices = A.indptr, A.indices
    for _ in range(5):
        rows = rng.choice(200, rng.integers(1, 60), replace=False)
        state, count = mark_neighbours(indptr, indices, rows, 200)
        nbrs = set(indices[np.concatenate([np.arange(indptr[r], indptr[r + 1])
                                           for r in rows])].tolist())
        assert set(np.flatnonzero(state == 2).tolist()) == nbrs - set(rows.tolist())
        assert count == len(nbrs - set(rows.tolist()))
        assert mark_neighbours(indptr, indices, rows, 200, exclude=False)[1] == len(nbrs)
        twice = np.concatenate([rows, rows])  # repeats: the same marks
        assert mark_neighbours(indptr, indices, twice, 200)[0].tolist() == state.tolist()
        at, owner = boundary_entries(indptr, indices, rows, 200, undirected=False)
        want = [e for i, r in enumerate(rows) for e in range(indptr[r], indptr[r + 1])
                if indices[e] not in set(rows.tolist())]
        assert at.tolist() == want
        assert boundary_total(indptr, indices, rows, 200, undirected=False) == len(want)
        weights = rng.random(indices.size)
        total = boundary_total(indptr, indices, rows, 200, undirected=False, weights=weights,
                               start=0.25)
        assert total == sum(weights[want].tolist(), 0.25)  # Python's sum, in the same order
        assert rows[owner].tolist() == [int(np.searchsorted(indptr, e, "right") - 1)
                                         for e in want]


@pytest.mark.parametrize("threads", [1, 3])
def test_domination_by_rows(monkeypatch, threads):
    """``dominates`` on a symmetric pattern (read row by row, stopping at the first row
    outside the set and its neighbourhood) equals the set's marks' answer, with the rows
    split over the threads."""
    import spbfs
    from spbfs.cpu import nodesets

    monkeypatch.setattr(nodesets, "PARALLEL_ENTRIES", 1)
    rng = np.random.default_rng(11)
    G = nx.gnm_random_graph(400, 1500, seed=12)
    G.add_edges_from([(5, 5), (6, 6)])
    G.add_nodes_from(range(400, 420))  # isolated rows
    A = nx.to_scipy_sparse_array(G, nodelist=range(420))
    indptr, indices = A.indptr, A.indices
    spbfs.set_num_threads(threads)
    try:
        answers = set()
        for size in (3, 150, 300, 390, 419):
            for _ in range(4):
                rows = rng.choice(420, size, replace=False)
                rows = np.union1d(rows, np.arange(400, 420)) if size >= 390 else rows
                want = bool(np.count_nonzero(mark_neighbours(indptr, indices, rows, 420)[0])
                            == 420)
                assert dominates(indptr, indices, rows, 420, symmetric=True) is want
                assert dominates(indptr, indices, rows, 420) is want
                answers.add(want)
        assert answers == {True, False}
        star = nx.to_scipy_sparse_array(nx.star_graph(2000))   # every leaf next to 0
        assert dominates(star.indptr, star.indices, np.arange(1, 2001), 2001, symmetric=True)
        assert not dominates(star.indptr, star.indices, np.arange(2, 2001), 2001,
                             symmetric=True)
    finally:
        spbfs.set_num_threads(None)


@pytest.mark.parametrize("threads", [1, 3])
def test_block_edges_against_numpy(monkeypatch, threads):
    """The entries inside one block and between two, and the self-loops among them, with
    the rows split over the threads (from any number of entries here)."""
    import spbfs
    from spbfs.cpu import nodesets

    monkeypatch.setattr(nodesets, "PARALLEL_ENTRIES", 1)
    rng = np.random.default_rng(9)
    G = nx.gnm_random_graph(300, 1500, seed=9, directed=True)
    G.add_edges_from((v, v) for v in range(0, 300, 7))
    A = nx.to_scipy_sparse_array(G)
    rows = np.repeat(np.arange(300), np.diff(A.indptr))
    spbfs.set_num_threads(threads)
    try:
        for blocks in (1, 4, 40):
            block = rng.integers(-1, blocks, 300)
            inside = (block[rows] >= 0) & (block[A.indices] >= 0)
            same = inside & (block[rows] == block[A.indices])
            loops = rows == A.indices
            assert nodesets.block_edges(A.indptr, A.indices, block) == (
                int(same.sum()), int((same & loops).sum()))
            assert nodesets.block_edges(A.indptr, A.indices, block, same=False) == (
                int((inside & ~same).sum()), 0)
    finally:
        spbfs.set_num_threads(None)
