"""The compiled CPU paths of the NetworkX backend's link prediction
(spbfs/cpu/pairs.py), against NetworkX itself: the same pairs, order, types and errors,
values to rounding (sums in another order)."""

import math

import numpy as np
import pytest

nx = pytest.importorskip("networkx")


def _graphs():
    G = nx.gnm_random_graph(60, 150, seed=1)
    G.add_edges_from([(3, 3), (7, 7), (60, 61)])  # self-loops, a component of two
    G.add_edges_from((0, k) for k in range(20, 45))  # a hub
    G.add_node(62)  # isolated
    L = nx.relabel_nodes(G, {i: f"n{i}" for i in G})
    return {"ints": G, "labels": L}


GRAPHS = _graphs()


def _close(got, want):
    assert [(u, v) for u, v, _ in got] == [(u, v) for u, v, _ in want]
    for (_, _, p), (_, _, q) in zip(got, want, strict=True):
        assert type(p) is type(q), (p, q)
        assert math.isclose(p, q, rel_tol=1e-12), (p, q)


def _pairs(G):
    nodes = list(G)
    rng = np.random.default_rng(2)
    pairs = [(nodes[0], w) for w in nodes]  # the hub with everyone (itself included)
    pairs += [(nodes[a], nodes[b]) for a, b in rng.integers(0, len(nodes), (200, 2))]
    return pairs


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_link_prediction_pairs(name):
    G = GRAPHS[name]
    pairs = _pairs(G)
    for f in (nx.jaccard_coefficient, nx.resource_allocation_index):
        _close(list(f(G, pairs, backend="spbfs")), list(f(G, pairs)))
        _close(list(f(G, backend="spbfs")), list(f(G)))
    leafless = [(u, v) for u, v in pairs if u != v]
    _close(list(nx.adamic_adar_index(G, leafless, backend="spbfs")),
           list(nx.adamic_adar_index(G, leafless)))
    distinct = [(u, v) for u, v in pairs if u != v]
    _close(list(nx.common_neighbor_centrality(G, distinct, alpha=1, backend="spbfs")),
           list(nx.common_neighbor_centrality(G, distinct, alpha=1)))
    with pytest.raises(nx.NetworkXAlgorithmError):
        list(nx.common_neighbor_centrality(G, pairs, alpha=1, backend="spbfs"))


def test_link_prediction_edge_cases():
    G = GRAPHS["ints"]
    # a node with a neighbour of degree 1: NetworkX's 1 / log(1)
    with pytest.raises(ZeroDivisionError):
        list(nx.adamic_adar_index(G, [(60, 60)], backend="spbfs"))
    with pytest.raises(ZeroDivisionError):
        list(nx.adamic_adar_index(G, [(60, 60)]))
    # labels given as floats and lists on a graph labelled by its rows
    pairs = [(0.0, 21), [2, 3.0], (np.int64(5), 7)]
    for f in (nx.jaccard_coefficient, nx.resource_allocation_index, nx.adamic_adar_index):
        got, want = list(f(G, pairs, backend="spbfs")), list(f(G, pairs))
        _close(got, want)
        assert [type(u) for u, _, _ in got] == [type(u) for u, _, _ in want]
    with pytest.raises(nx.NodeNotFound):
        nx.resource_allocation_index(G, [(0, 99)], backend="spbfs")
    assert list(nx.jaccard_coefficient(G, [(62, 62)], backend="spbfs")) == [(62, 62, 0)]


def _taken(it):
    """The items of ``it`` up to an error, and the error's type (or None)."""
    out = []
    try:
        for item in it:
            out.append(item)
    except (ZeroDivisionError, nx.NetworkXAlgorithmError) as exc:
        return out, type(exc)
    return out, None


def test_link_prediction_raises_where_networkx_does():
    G = GRAPHS["ints"]
    pairs = [(0, 21), (1, 2), (60, 60), (3, 4)]
    got, error = _taken(nx.adamic_adar_index(G, pairs, backend="spbfs"))
    want, expected = _taken(nx.adamic_adar_index(G, pairs))
    assert error is expected is ZeroDivisionError
    _close(got, want)
    pairs = [(0, 21), (5, 5), (3, 4)]
    got, error = _taken(nx.common_neighbor_centrality(G, pairs, alpha=1, backend="spbfs"))
    want, expected = _taken(nx.common_neighbor_centrality(G, pairs, alpha=1))
    assert error is expected is nx.NetworkXAlgorithmError and got == want


def test_common_neighbours_kernel():
    from spbfs.cpu.pairs import common_neighbours

    rng = np.random.default_rng(9)
    G = nx.gnm_random_graph(120, 900, seed=9)
    G.add_edges_from((0, k) for k in range(1, 120))
    G.add_edges_from([(4, 4), (9, 9)])
    A = nx.to_scipy_sparse_array(G, nodelist=range(120), format="csr")
    A.sort_indices()
    nbrs = [set(A.indices[A.indptr[i]:A.indptr[i + 1]].tolist()) for i in range(120)]
    scale = rng.random(120)
    # many pairs of the hub (its row marked), single pairs (searches), repeats, (u, u)
    u = np.concatenate([np.zeros(60, np.int64), rng.integers(0, 120, 300), [4, 9, 0]])
    v = np.concatenate([rng.integers(0, 120, 60), rng.integers(0, 120, 300), [4, 9, 0]])
    common, shared, total = common_neighbours(A.indptr, A.indices, u, v, scale)
    for i, (a, b) in enumerate(zip(u.tolist(), v.tolist(), strict=True)):
        both = nbrs[a] & nbrs[b]
        assert shared[i] == len(both) and common[i] == len(both - {a, b})
        assert total[i] == sum(scale[w] for w in sorted(both - {a, b}))


def test_reciprocity_of_nodes():
    D = nx.gnm_random_graph(80, 400, seed=3, directed=True)
    D.add_edges_from([(5, 5), (6, 6), (6, 7), (7, 6)])
    D.add_node(80)  # isolated
    L = nx.relabel_nodes(D, {i: f"n{i}" for i in D})
    for G in (D, L):
        nodes = list(G)
        for bunch in (nodes, nodes[:-1], nodes[::-1], nodes[3:9] + nodes[3:5], nodes[:5]):
            got = nx.reciprocity(G, bunch, backend="spbfs")
            want = nx.reciprocity(G, bunch)
            assert list(got.items()) == list(want.items())
        assert nx.reciprocity(G, nodes[6], backend="spbfs") == nx.reciprocity(G, nodes[6])
        with pytest.raises(nx.NetworkXError):
            nx.reciprocity(G, nodes[80], backend="spbfs")


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("kind", ["int", "float", "zero"])
def test_floyd_warshall_is_networkx_loop(directed, kind):
    """NetworkX's predecessors and distances to the last bit, every dict in its order
    (the predecessor dicts' rows in the order their first edges made them), on graphs
    with many ties, loops, zero weights and a node in shuffled order."""
    rng = np.random.default_rng(4)
    G0 = nx.gnm_random_graph(70, 300, seed=5, directed=directed)
    G = G0.__class__()
    G.add_nodes_from(rng.permutation(70).tolist() + [70])
    G.add_edges_from(G0.edges)
    G.add_edges_from([(3, 3), (9, 9)])
    for *_, d in G.edges(data=True):
        d["weight"] = (float(rng.random()) if kind == "float" else
                       int(rng.integers(0 if kind == "zero" else 1, 4)))

    def ordered(result):
        pred, dist = result
        return ([(u, list(d.items())) for u, d in pred.items()],
                [(u, [(v, x, type(x)) for v, x in d.items()]) for u, d in dist.items()])

    assert ordered(nx.floyd_warshall_predecessor_and_distance(G, backend="spbfs")) == ordered(
        nx.floyd_warshall_predecessor_and_distance(G, backend="networkx"))


def _form(H):
    return (type(H).__name__, list(H.nodes(data=True)), list(H.edges(data=True)),
            dict(H.graph), [list(H.pred[n]) for n in H] if H.is_directed() else None)


@pytest.mark.parametrize("attrs", ["none", "atomic", "lists", "numpy"])
def test_reverse_copies_as_deepcopy(attrs):
    D = nx.gnm_random_graph(50, 200, seed=6, directed=True)
    D.add_edge(4, 4)
    D.graph["name"] = ["g"]
    rng = np.random.default_rng(7)
    for u, v, d in D.edges(data=True):
        if attrs == "atomic":
            d.update(weight=float(rng.random()), label=f"{u}-{v}", k=u)
        elif attrs == "lists":
            d["path"] = [u, v]
        elif attrs == "numpy":
            d["weight"] = np.float64(rng.random())
    if attrs != "none":
        D.nodes[3]["color"] = "red" if attrs == "atomic" else ["red"]
    R = nx.reverse(D, backend="spbfs")
    assert _form(R) == _form(nx.reverse(D))
    for u, v, d in R.edges(data=True):
        assert d is not D.edges[v, u]
        for key, value in d.items():
            if isinstance(value, list):
                assert value is not D.edges[v, u][key]
    assert R.graph["name"] is not D.graph["name"]


@pytest.mark.parametrize("directed", [False, True])
def test_is_simple_path(directed):
    G = nx.gnm_random_graph(40, 160, seed=8, directed=directed)
    G.add_edge(5, 5)
    L = nx.relabel_nodes(G, {i: f"n{i}" for i in G})
    rng = np.random.default_rng(9)
    for H in (G, L):
        nodes = list(H)
        paths = [[], [nodes[0]], ["absent"], [[1]], [nodes[5], nodes[5]]]
        paths += [list(p) for p in nx.all_simple_paths(H, nodes[0], nodes[7], cutoff=4)][:20]
        paths += [[nodes[i] for i in rng.integers(0, 40, k)] for k in (2, 3, 5, 40)]
        paths += [[nodes[1], "absent"], [nodes[1], [2]], (nodes[2], nodes[3])]
        for path in paths:
            try:
                want = nx.is_simple_path(H, path)
            except TypeError:
                with pytest.raises(TypeError):
                    nx.is_simple_path(H, path, backend="spbfs")
                continue
            assert nx.is_simple_path(H, path, backend="spbfs") is want, path


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_common_neighbor_centrality_with_distances(name):
    G = GRAPHS[name]
    distinct = [(u, v) for u, v in _pairs(G) if u != v]
    _close(list(nx.common_neighbor_centrality(G, distinct, backend="spbfs")),
           list(nx.common_neighbor_centrality(G, distinct)))
    got = list(nx.common_neighbor_centrality(G, backend="spbfs"))
    want = list(nx.common_neighbor_centrality(G))
    _close(got, want)
