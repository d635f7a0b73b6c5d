"""The spbfs NetworkX backend against NetworkX itself: values, types and order."""

import warnings
from unittest import mock

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

nx = pytest.importorskip("networkx")

pytestmark = [
    pytest.mark.skipif("spbfs" not in nx.utils.backends.backends,
                       reason="spbfs is not installed with its networkx.backends entry point"),
    pytest.mark.filterwarnings("ignore:Note. conversions to backend graphs:UserWarning"),
]

from spbfs.nx import (  # noqa: E402  (after the skip: needs networkx)
    SpbfsGraph,
    _components,
    backend_interface,
    convert_from_nx,
    convert_to_nx,
    get_info,
)

CLASSES = [nx.Graph, nx.DiGraph, nx.MultiGraph, nx.MultiDiGraph]
LABELS = {
    "int": lambda n: list(range(n)),
    "shuffled": lambda n: [(7 * i + 3) % (n + 11) + 100 for i in range(n)],
    "str": lambda n: [f"v{i}" for i in range(n)],
    "tuple": lambda n: [(i, "x") for i in range(n)],
    "mixed": lambda n: [i if i % 2 else f"s{i}" for i in range(n)],
}


@st.composite
def nx_graphs(draw, weights=("none", "int", "float", "zero")):
    """A NetworkX graph: any class, labels of several kinds, insertion order shuffled,
    self-loops, isolated nodes, parallel edges and tied weights all occur."""
    n = draw(st.integers(1, 18))
    cls = draw(st.sampled_from(CLASSES))
    labels = LABELS[draw(st.sampled_from(sorted(LABELS)))](n)
    labels = draw(st.permutations(labels))
    kind = draw(st.sampled_from(weights))
    m = draw(st.integers(0, 3 * n))
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)),
                          min_size=m, max_size=m))
    values = draw(st.lists(st.integers(0, 4), min_size=m, max_size=m))
    G = cls()
    G.add_nodes_from(labels)
    for (i, j), w in zip(pairs, values, strict=True):
        if kind == "none":
            G.add_edge(labels[i], labels[j])
        elif kind == "int":
            G.add_edge(labels[i], labels[j], weight=w)
        elif kind == "float":
            G.add_edge(labels[i], labels[j], weight=w / 4)
        else:
            G.add_edge(labels[i], labels[j], weight=w % 2)
    return G


def outcome(func):
    """``("ok", value)`` or ``("error", type, message)``: what a call does."""
    try:
        return ("ok", func())
    except Exception as exc:  # noqa: BLE001 - the exception itself is compared
        return ("error", type(exc), str(exc))


def typed(mapping):
    """A dict's items with the value types: order and int/float must match too."""
    return [(k, v, type(v)) for k, v in mapping.items()]


def same(func):
    """Assert that ``func(backend)`` does the same with NetworkX and with spbfs."""
    expected = outcome(lambda: func(None))
    got = outcome(lambda: func("spbfs"))
    assert got == expected


DEVICES = pytest.mark.parametrize("device", ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])


def pick(G, data):
    nodes = list(G)
    return data.draw(st.sampled_from(nodes)), data.draw(st.sampled_from(nodes))


@DEVICES
@given(G=nx_graphs(), data=st.data())
def test_traversals_match_networkx(device, G, data):
    with nx.config.backends.spbfs(device=device):
        _traversals(G, data)


def _traversals(G, data):
    s, t = pick(G, data)
    limit = data.draw(st.sampled_from([None, 0, 1, 2, 2.5]))
    same(lambda b: list(nx.bfs_edges(G, s, backend=b)))
    same(lambda b: list(nx.bfs_edges(G, s, reverse=True, depth_limit=limit, backend=b)))
    same(lambda b: list(nx.bfs_predecessors(G, s, depth_limit=limit, backend=b)))
    same(lambda b: list(nx.bfs_successors(G, s, depth_limit=limit, backend=b)))
    same(lambda b: list(nx.bfs_layers(G, [s, t], backend=b)))
    same(lambda b: list(nx.bfs_layers(G, s, backend=b)))
    distance = data.draw(st.integers(-1, 4))
    same(lambda b: nx.descendants_at_distance(G, s, distance, backend=b))

    def tree(b):
        T = nx.bfs_tree(G, s, depth_limit=limit, backend=b)
        shared = all(T.succ[u][v] is T.pred[v][u] for u, v in T.edges)  # one dict an edge
        distinct = len({id(d) for *_, d in T.edges(data=True)}) == T.number_of_edges()
        return (type(T), list(T.nodes), list(T.edges), [list(T.pred[v]) for v in T],
                [list(T.succ[v]) for v in T], shared, distinct,
                len({id(d) for _, d in T.nodes(data=True)}) == len(T))

    same(tree)


@DEVICES
@given(G=nx_graphs(), data=st.data())
def test_unweighted_lengths_match_networkx(device, G, data):
    with nx.config.backends.spbfs(device=device):
        _unweighted(G, data)


def _unweighted(G, data):
    s, t = pick(G, data)
    cutoff = data.draw(st.sampled_from([None, 0, 1, 3]))
    same(lambda b: typed(nx.single_source_shortest_path_length(G, s, cutoff, backend=b)))
    same(lambda b: nx.shortest_path_length(G, s, t, backend=b))
    same(lambda b: typed(nx.shortest_path_length(G, s, backend=b)))
    same(lambda b: typed(nx.shortest_path_length(G, target=t, backend=b)))
    same(lambda b: [(v, typed(d)) for v, d in nx.shortest_path_length(G, backend=b)])


@DEVICES
@given(G=nx_graphs(weights=("int", "float", "zero")), data=st.data())
def test_weighted_lengths_match_networkx(device, G, data):
    with nx.config.backends.spbfs(device=device):
        _weighted(G, data)


def _weighted(G, data):
    s, t = pick(G, data)
    cutoff = data.draw(st.sampled_from([None, 0, 0.5, 1, 2]))
    same(lambda b: typed(nx.single_source_dijkstra_path_length(G, s, cutoff, backend=b)))
    same(lambda b: typed(nx.single_source_dijkstra_path_length(G, s, weight="nope",
                                                                backend=b)))
    for method in ("dijkstra", "bellman-ford"):
        same(lambda b, m=method: (lambda x: (x, type(x)))(
            nx.shortest_path_length(G, s, t, weight="weight", method=m, backend=b)))
    same(lambda b: typed(nx.shortest_path_length(G, s, weight="weight", backend=b)))
    same(lambda b: typed(nx.shortest_path_length(G, target=t, weight="weight", backend=b)))
    same(lambda b: [(v, typed(d)) for v, d in nx.shortest_path_length(G, weight="weight",
                                                                       backend=b)])


@DEVICES
@given(G=nx_graphs())
def test_components_match_networkx(device, G):
    from spbfs.nx import FUNCTIONS

    if "connected_components" not in FUNCTIONS:
        pytest.skip("spbfs.components is not present")
    kind = "weakly_connected" if G.is_directed() else "connected"
    with nx.config.backends.spbfs(device=device):
        # weak and undirected components in NetworkX's order; strong ones too by the host's
        # search (its Tarjan search's order: the CPU's, and the GPU's below
        # STRONG_GPU_MIN_ENTRIES arcs), as a set of sets from the device's
        same(lambda b: list(getattr(nx, f"{kind}_components")(G, backend=b)))
        same(lambda b: getattr(nx, f"number_{kind}_components")(G, backend=b))
        same(lambda b: getattr(nx, f"is_{kind}")(G, backend=b))
        if G.is_directed():
            same(lambda b: list(nx.strongly_connected_components(G, backend=b)))
            same(lambda b: nx.number_strongly_connected_components(G, backend=b))
            with mock.patch.object(_components, "STRONG_GPU_MIN_ENTRIES", 0):  # the device's
                same(lambda b: set(map(frozenset,
                                       nx.strongly_connected_components(G, backend=b))))
                same(lambda b: nx.number_strongly_connected_components(G, backend=b))
                same(lambda b: nx.is_strongly_connected(G, backend=b))
    with pytest.raises(nx.NetworkXPointlessConcept):
        getattr(nx, f"is_{kind}")(G.__class__(), backend="spbfs")


@DEVICES
def test_larger_graphs_match_networkx(device):
    G = nx.gnm_random_graph(3000, 12000, seed=5, directed=True)
    for i, (u, v) in enumerate(G.edges):
        G[u][v]["weight"] = (i * 7919) % 5  # small ints: many ties and zero-weight edges
    with nx.config.backends.spbfs(device=device, gpu_min_edges=0):
        for s in (0, 17):
            same(lambda b, s=s: list(nx.bfs_edges(G, s, backend=b)))
            same(lambda b, s=s: list(nx.bfs_layers(G, [s, 5], backend=b)))
            same(lambda b, s=s: typed(nx.single_source_dijkstra_path_length(G, s, backend=b)))
            same(lambda b, s=s: typed(nx.shortest_path_length(G, target=s, backend=b)))
            # one source-target searches run on the host copy whatever the device
            same(lambda b, s=s: nx.shortest_path(G, s, 2999 - s, backend=b))
            same(lambda b, s=s: nx.shortest_path_length(G, s, 2999 - s, backend=b))
            same(lambda b, s=s: nx.has_path(G, 2999 - s, s, backend=b))


def test_dijkstra_ties_follow_networkx_pop_order():
    # zero-weight edges and equal distances: the order is NetworkX's heap order
    G = nx.DiGraph()
    G.add_weighted_edges_from([(0, 5, 1), (0, 3, 1), (0, 4, 0), (4, 2, 0), (3, 1, 0),
                               (5, 6, 1), (2, 6, 1), (1, 7, 1), (3, 7, 1), (4, 8, 1)])
    expected = nx.single_source_dijkstra_path_length(G, 0)
    got = nx.single_source_dijkstra_path_length(G, 0, backend="spbfs")
    assert typed(got) == typed(expected)


def test_directed_reverse_uses_predecessor_order():
    G = nx.DiGraph()
    G.add_edges_from([(3, 0), (1, 0), (2, 0), (4, 1), (4, 3)])  # pred[0] order: 3, 1, 2
    assert list(nx.bfs_edges(G, 0, reverse=True, backend="spbfs")) == \
        list(nx.bfs_edges(G, 0, reverse=True)) == [(0, 3), (0, 1), (0, 2), (3, 4)]


def test_source_object_is_returned_as_given():
    G = nx.path_graph(3)  # node 1 == 1.0 and hashes alike
    for func in (lambda b: list(nx.bfs_edges(G, 1.0, backend=b)),
                 lambda b: list(nx.bfs_successors(G, 1.0, backend=b)),
                 lambda b: typed(nx.single_source_shortest_path_length(G, 1.0, backend=b)),
                 lambda b: typed(nx.single_source_dijkstra_path_length(G, 1.0, backend=b))):
        assert repr(func("spbfs")) == repr(func(None))


def test_results_hold_the_graphs_own_node_objects():
    G = nx.path_graph(1000)  # labelled by the row numbers
    nodes = {id(node) for node in G}
    g = convert_from_nx(G)
    assert g.labels(np.array([999])) == [999]  # a few: new ints, no table of the nodes made
    reached = nx.descendants(g, 0)
    paths = nx.single_source_shortest_path(g, 0)
    assert reached == set(range(1, 1000)) and paths == nx.single_source_shortest_path(G, 0)
    assert {id(node) for node in reached} <= nodes
    assert {id(node) for path in paths.values() for node in path} <= nodes
    assert g.labels(np.array([999]))[0] is list(G)[999]  # the table, once made


# ------------------------------------------------------------------ conversion cache


def test_conversion_is_cached_and_invalidated_by_add_edge():
    G = nx.path_graph(4)
    assert list(nx.bfs_edges(G, 0, backend="spbfs")) == [(0, 1), (1, 2), (2, 3)]
    cache = G.__networkx_cache__["backends"]["spbfs"]
    (converted,) = cache.values()
    assert isinstance(converted, SpbfsGraph)
    nx.bfs_layers(G, 0, backend="spbfs")
    assert list(G.__networkx_cache__["backends"]["spbfs"].values()) == [converted]  # reused
    G.add_edge(0, 3)
    assert not G.__networkx_cache__  # NetworkX clears its cache on every change
    assert list(nx.bfs_edges(G, 0, backend="spbfs")) == [(0, 1), (0, 3), (1, 2)]
    (fresh,) = G.__networkx_cache__["backends"]["spbfs"].values()
    assert fresh is not converted


def test_weighted_conversion_reuses_the_cached_pattern():
    G = nx.gnp_random_graph(30, 0.2, seed=3)
    nx.set_edge_attributes(G, 2, "weight")
    nx.single_source_shortest_path_length(G, 0, backend="spbfs")
    (plain,) = G.__networkx_cache__["backends"]["spbfs"].values()
    d = nx.single_source_dijkstra_path_length(G, 0, backend="spbfs")
    assert d == nx.single_source_dijkstra_path_length(G, 0)
    weighted = [g for g in G.__networkx_cache__["backends"]["spbfs"].values() if g is not plain]
    assert weighted and weighted[0]._indices is plain._indices


@pytest.mark.parametrize("directed", [False, True])
def test_a_conversion_preserving_every_attribute_serves_later_weighted_calls(directed):
    """``edge_boundary(data=True)`` converts with ``preserve_edge_attrs``; NetworkX's cache
    hands that conversion to later weighted calls, which read the weights then (they raised
    NotImplementedError before)."""
    G = nx.gnp_random_graph(40, 0.15, seed=8, directed=directed)
    for k, (u, v) in enumerate(G.edges):
        G[u][v]["weight"] = 0.5 + (k % 7)
    S = list(range(0, 40, 3))
    assert (list(nx.edge_boundary(G, S, data=True, backend="spbfs"))
            == list(nx.edge_boundary(G, S, data=True)))
    assert nx.volume(G, S, weight="weight", backend="spbfs") == nx.volume(G, S, weight="weight")
    assert (nx.single_source_dijkstra_path_length(G, 0, backend="spbfs")
            == nx.single_source_dijkstra_path_length(G, 0))


def test_attribute_edit_after_cached_conversion_needs_cache_clear():
    # NetworkX's documented caveat: G[u][v][key] = val does not clear the cache
    G = nx.Graph([(0, 1, {"weight": 1}), (1, 2, {"weight": 1})])
    assert nx.single_source_dijkstra_path_length(G, 0, backend="spbfs")[2] == 2
    G[1][2]["weight"] = 5
    G.__networkx_cache__.clear()
    assert nx.single_source_dijkstra_path_length(G, 0, backend="spbfs")[2] == 6


# ------------------------------------------------------------ declining and errors


def test_missing_nodes_raise_networkx_errors():
    G = nx.DiGraph([(0, 1)])
    with pytest.raises(nx.NetworkXError, match="The node 9 is not in the digraph."):
        list(nx.bfs_edges(G, 9, backend="spbfs"))
    with pytest.raises(nx.NetworkXError, match="The node 9 is not in the graph."):
        list(nx.bfs_layers(G, [0, 9], backend="spbfs"))
    with pytest.raises(nx.NodeNotFound, match="Source 9 is not in G"):
        nx.single_source_shortest_path_length(G, 9, backend="spbfs")
    with pytest.raises(nx.NodeNotFound, match="Node 9 not found in graph"):
        nx.single_source_dijkstra_path_length(G, 9, backend="spbfs")
    with pytest.raises(nx.NetworkXNoPath, match="No path between 1 and 0."):
        nx.shortest_path_length(G, 1, 0, backend="spbfs")
    with pytest.raises(ValueError, match="method not supported: astar"):
        nx.shortest_path_length(G, 0, 1, method="astar")
    gen = nx.bfs_edges(G, 9, backend="spbfs")  # a generator: raises when iterated, as NetworkX
    with pytest.raises(nx.NetworkXError):
        next(gen)


@pytest.mark.parametrize("call", [
    lambda G, b: list(nx.bfs_edges(G, 0, sort_neighbors=sorted, backend=b)),
    lambda G, b: nx.single_source_dijkstra_path_length(G, 0, weight=lambda u, v, d: 2,
                                                       backend=b),
    lambda G, b: nx.shortest_path_length(G, 0, weight="weight", method="bellman-ford",
                                         backend=b),
])
def test_unsupported_arguments_decline(call):
    G = nx.path_graph(5)
    with pytest.raises(NotImplementedError):
        call(G, "spbfs")
    with nx.config(backend_priority=["spbfs"], fallback_to_nx=True), \
            nx.config.backends.spbfs(min_nodes=0):
        assert outcome(lambda: call(G, None)) == outcome(lambda: call(nx.path_graph(5), None))


@pytest.mark.parametrize("weights", [[1, 2.5], [1, -1], [1.0, float("nan")],
                                     [1.0, float("inf")], [1, None], [np.float64(1), 2.0]])
def test_weights_networkx_arithmetic_cannot_match_fall_back(weights):
    G = nx.Graph()
    G.add_edge(0, 1, weight=weights[0])
    G.add_edge(1, 2, weight=weights[1])
    with pytest.raises(NotImplementedError):
        nx.single_source_dijkstra_path_length(G, 0, backend="spbfs")
    with nx.config(backend_priority=["spbfs"]), nx.config.backends.spbfs(min_nodes=0), \
            warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # repr: NaN != NaN
        assert repr(outcome(lambda: typed(nx.single_source_dijkstra_path_length(G, 0)))) == \
            repr(outcome(lambda: typed(nx.single_source_dijkstra_path_length(
                G, 0, backend="networkx"))))


def test_can_run_and_should_run():
    G = nx.path_graph(5)
    assert backend_interface.can_run("bfs_edges", (G, 0), {}) is True
    assert "sort_neighbors" in backend_interface.can_run("bfs_edges", (G, 0),
                                                         {"sort_neighbors": sorted})
    assert "not a graph" in backend_interface.can_run("bfs_edges", ([1, 2], 0), {})
    assert "signature" in backend_interface.can_run("bfs_edges", (G,), {"oops": 1})
    assert backend_interface.can_run("no_such_function", (G,), {}) is not True
    with nx.config.backends.spbfs(min_nodes=10):
        assert "min_nodes" in backend_interface.should_run("bfs_edges", (G, 0), {})
        assert backend_interface.should_run("bfs_edges", (nx.path_graph(10), 0), {}) is True
        assert backend_interface.should_run("bfs_edges", (convert_from_nx(G), 0), {}) is True


def test_info_lists_every_function_and_settings():
    info = get_info()
    assert set(info["functions"]) >= {
        "bfs_edges", "bfs_tree", "bfs_predecessors", "bfs_successors", "bfs_layers",
        "descendants_at_distance", "single_source_shortest_path_length",
        "shortest_path_length", "single_source_dijkstra_path_length"}
    cfg = nx.config.backends.spbfs
    assert (cfg.device, cfg.min_nodes) == ("auto", 1000)
    with pytest.raises(ValueError, match="device"):
        cfg.device = "tpu"
    with pytest.raises(ValueError, match="min_nodes"):
        cfg.min_nodes = -1
    with cfg(device="cpu"):
        assert nx.shortest_path_length(nx.path_graph(3), 0, 2, backend="spbfs") == 2


def test_device_gpu_without_gpu_says_so():
    from spbfs.nx._config import gpu_available

    if gpu_available():
        pytest.skip("a GPU is present")
    with nx.config.backends.spbfs(device="gpu"), pytest.raises(RuntimeError, match="no CUDA"):
        list(nx.bfs_edges(nx.path_graph(3), 0, backend="spbfs"))


# ------------------------------------------------------------------ SpbfsGraph


def test_graph_from_a_matrix():
    A = sp.csr_array(([2, 1, 1, 4], ([0, 0, 1, 2], [2, 1, 2, 0])), shape=(4, 4))
    G = SpbfsGraph(A, nodes="abcd")
    assert (len(G), G.number_of_edges(), G.is_directed(), "a" in G, "z" in G, [] in G) == \
        (4, 4, True, True, False, False)
    H = convert_to_nx(G)
    first = [G.nodes[j] for j in G._indices[:2]]  # row "a" in its stored order
    assert list(nx.bfs_edges(G, "a")) == list(nx.bfs_edges(H, "a")) == [("a", v) for v in first]
    assert typed(nx.single_source_dijkstra_path_length(G, "a")) == \
        typed(nx.single_source_dijkstra_path_length(H, "a"))
    assert nx.single_source_dijkstra_path_length(G, "a", weight="other") == {
        "a": 0, "c": 1, "b": 1}
    assert list(nx.bfs_edges(G, "a", reverse=True)) == list(nx.bfs_edges(H, "a", reverse=True))
    U = SpbfsGraph(A + A.T, directed=False)
    assert U.number_of_edges() == 3 and not U.is_directed()
    for pair in [(2, 1), (3, 1)]:
        assert outcome(lambda p=pair: nx.shortest_path_length(U, *p)) == \
            outcome(lambda p=pair: nx.shortest_path_length(convert_to_nx(U), *p))


@pytest.mark.parametrize("make,error", [
    (lambda: SpbfsGraph(sp.csr_array((2, 3))), "square"),
    (lambda: SpbfsGraph(sp.csr_array((2, 2)), nodes=[1]), "nodes has 1 labels"),
    (lambda: SpbfsGraph(sp.csr_array((2, 2)), nodes=[1, 1]), "distinct"),
    (lambda: SpbfsGraph(sp.csr_array(([1], ([0], [1])), shape=(2, 2)), directed=False),
     "symmetric"),
    (lambda: SpbfsGraph(sp.csr_array(([1, 2], ([0, 1], [1, 0])), shape=(2, 2)),
                        directed=False), "values included"),
    (lambda: convert_from_nx({0: [1]}), "networkx graphs"),
])
def test_bad_graph_input(make, error):
    with pytest.raises((ValueError, TypeError), match=error):
        make()
