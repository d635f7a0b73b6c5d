"""CPython's set tables as simulated by spbfs/cpu/pysets.py (the order a Python set
iterates), and ``intersection``, whose result follows the order of NetworkX's edge sets:
the same nodes, edges and adjacency orders as NetworkX's own result."""

import numpy as np
import pytest

from spbfs.cpu import pysets
from spbfs.cpu.rowmatch import entries_in

nx = pytest.importorskip("networkx")


@pytest.mark.parametrize("size", [0, 1, 5, 6, 19, 20, 77, 1000, 50001, 70000])
def test_set_order_is_pythons(size):
    rng = np.random.default_rng(size)
    keys = list(dict.fromkeys(rng.integers(-3, 1 << 62, size).tolist()))
    keys += [-1, -2, 0] if size else []  # hash(-1) == hash(-2)
    hashes = np.fromiter(map(hash, keys), np.int64, len(keys))
    assert [keys[e] for e in pysets.set_order(hashes)] == list(set(keys))
    # every third key added, the others left out
    adds = np.arange(0, len(keys), 3)
    assert [keys[e] for e in pysets.set_order(hashes, adds)] == list(set(keys[::3]))
    keep = rng.random(len(keys)) < 0.5
    want = [k for k in set(keys) if keep[keys.index(k)]] if size < 2000 else None
    if want is not None:
        assert [keys[e] for e in pysets.set_order(hashes, keep=keep)] == want


def test_tuple_hashes_and_pair_sets():
    rng = np.random.default_rng(1)
    labels = ["a", 3, -1, 2.5, ("t", 1), None, 10**20, -7] + list(range(100, 900))
    rows = rng.integers(0, len(labels), 5000)
    cols = rng.integers(0, len(labels), 5000)
    # as an undirected graph's edges: each pair of ends once, either way round
    edges = list({frozenset(e): e for e in zip(rows.tolist(), cols.tolist(),
                                               strict=True)}.values())
    pairs = [(labels[u], labels[v]) for u, v in edges]
    hashes = np.fromiter(map(hash, labels), np.int64, len(labels))
    u = np.array([e[0] for e in edges])
    v = np.array([e[1] for e in edges])
    first = pysets.tuple_hashes(hashes[u], hashes[v])
    assert first.view(np.int64).tolist() == list(map(hash, pairs))
    second = pysets.tuple_hashes(hashes[v], hashes[u])
    s = set(pairs)
    s.update((b, a) for a, b in list(s))  # NetworkX's undirected edge set
    keys = pairs + [(b, a) for a, b in pairs]
    order = pysets.pair_set_order(first, second, u == v)
    assert [keys[e] for e in order] == list(s)


def test_model_holds():
    assert pysets.matches_python(60000, seed=5)
    assert pysets.model_holds()


def test_entries_in():
    G = nx.gnm_random_graph(50, 200, seed=3, directed=True)
    H = nx.gnm_random_graph(50, 200, seed=4, directed=True)
    H.add_edges_from(list(G.edges)[:50])
    A = nx.to_scipy_sparse_array(G, nodelist=range(50), format="csr")
    B = nx.to_scipy_sparse_array(H, nodelist=range(49, -1, -1), format="csr")
    to = np.arange(49, -1, -1)
    to[7] = -1  # node 7 missing from the other graph
    got = entries_in(A.indptr, A.indices, to, B.indptr, B.indices)
    rows = np.repeat(np.arange(50), np.diff(A.indptr))
    want = [int(r) != 7 and int(c) != 7 and H.has_edge(int(r), int(c))
            for r, c in zip(rows, A.indices, strict=True)]
    assert got.tolist() == want


def _same_graph(R, W):
    assert type(R) is type(W)
    assert list(R.nodes(data=True)) == list(W.nodes(data=True))
    assert {u: list(d.items()) for u, d in R._adj.items()} == \
        {u: list(d.items()) for u, d in W._adj.items()}
    if R.is_directed():
        assert {u: list(d) for u, d in R._pred.items()} == \
            {u: list(d) for u, d in W._pred.items()}
    # one dict per edge, shared by its entries
    for u, v, d in R.edges(data=True):
        assert R.is_directed() or d is R._adj[v][u]


def _pair(kind, seed):
    directed = kind.startswith("di")
    G = nx.gnm_random_graph(300, 1500, seed=seed, directed=directed)
    H = nx.gnm_random_graph(320, 1500, seed=seed + 1, directed=directed)
    H.add_edges_from(list(G.edges)[::3])
    G.add_edges_from([(5, 5), (6, 6)])
    H.add_edges_from([(5, 5), (7, 7), (4, 8), (8, 4)])
    if kind.endswith("labels"):
        names = {i: f"n{i}" if i % 3 else (i, "x") for i in range(320)}
        G, H = nx.relabel_nodes(G, names), nx.relabel_nodes(H, names)
    return G, H


@pytest.mark.parametrize("kind", ["graph", "digraph", "graph-labels", "digraph-labels"])
@pytest.mark.parametrize("seed", [1, 2])
def test_intersection_is_networkx(kind, seed):
    G, H = _pair(kind, seed)
    for a, b in ((G, H), (H, G), (G, G), (H, nx.Graph(H) if kind.startswith("g") else H)):
        _same_graph(nx.intersection(a, b, backend="spbfs"), nx.intersection(a, b))


def test_intersection_sizes_and_labels():
    # equal set sizes (H's walked), nodes only in one graph, a large int label
    G = nx.Graph([(0, 1), (1, 2), (2, 3), (10**30, 0)])
    H = nx.Graph([(1, 0), (2, 1), (3, 4), (10**30, 2)])
    _same_graph(nx.intersection(G, H, backend="spbfs"), nx.intersection(G, H))
    E = nx.empty_graph(5)
    _same_graph(nx.intersection(E, G, backend="spbfs"), nx.intersection(E, G))
    _same_graph(nx.intersection(G, E, backend="spbfs"), nx.intersection(G, E))
    with pytest.raises(nx.NetworkXError):
        nx.intersection(G, nx.DiGraph(G), backend="spbfs")


def test_intersection_of_large_sets():
    # past 50,000 keys (the tables' growth rule changes), most edges shared
    G = nx.gnm_random_graph(5000, 40000, seed=5)
    H = nx.gnm_random_graph(5000, 30000, seed=6)
    H.add_edges_from(list(G.edges)[:25000])
    _same_graph(nx.intersection(G, H, backend="spbfs"), nx.intersection(G, H))
