"""The backend's shortest-path family against NetworkX: paths, order and types included."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

nx = pytest.importorskip("networkx")

from test_nx_backend import DEVICES, nx_graphs, pick, same, typed  # noqa: E402

pytestmark = [
    pytest.mark.skipif("spbfs" not in nx.utils.backends.backends,
                       reason="spbfs is not installed with its networkx.backends entry point"),
    pytest.mark.filterwarnings("ignore:Note. conversions to backend graphs:UserWarning"),
]


def items(mapping):
    return list(mapping.items())


@DEVICES
@given(G=nx_graphs(), data=st.data())
def test_unweighted_paths_match_networkx(device, G, data):
    s, t = pick(G, data)
    cutoff = data.draw(st.sampled_from([None, 0, 1, 3]))
    with nx.config.backends.spbfs(device=device):
        same(lambda b: items(nx.single_source_shortest_path(G, s, cutoff, backend=b)))
        same(lambda b: items(nx.single_target_shortest_path(G, t, cutoff, backend=b)))
        same(lambda b: typed(nx.single_target_shortest_path_length(G, t, cutoff, backend=b)))
        same(lambda b: [(v, items(p)) for v, p in nx.all_pairs_shortest_path(G, backend=b)])
        same(lambda b: [(v, typed(p)) for v, p in nx.all_pairs_shortest_path_length(
            G, cutoff, backend=b)])
        same(lambda b: nx.bidirectional_shortest_path(G, s, t, backend=b))
        same(lambda b: nx.has_path(G, s, t, backend=b))
        same(lambda b: nx.shortest_path(G, s, t, backend=b))
        same(lambda b: items(nx.shortest_path(G, target=t, backend=b)))
        same(lambda b: nx.descendants(G, s, backend=b))
        same(lambda b: nx.ancestors(G, s, backend=b))


@DEVICES
@given(G=nx_graphs(weights=("int", "float", "zero")), data=st.data())
def test_dijkstra_paths_match_networkx(device, G, data):
    s, t = pick(G, data)
    sources = set(data.draw(st.lists(st.sampled_from(list(G)), min_size=1, max_size=3)))
    cutoff = data.draw(st.sampled_from([None, 0, 0.5, 1, 2]))

    def pair(x):
        return x if not isinstance(x[0], dict) else (typed(x[0]), items(x[1]))

    with nx.config.backends.spbfs(device=device):
        same(lambda b: pair(nx.single_source_dijkstra(G, s, cutoff=cutoff, backend=b)))
        same(lambda b: nx.single_source_dijkstra(G, s, t, backend=b))
        same(lambda b: pair(nx.multi_source_dijkstra(G, sources, cutoff=cutoff, backend=b)))
        same(lambda b: nx.multi_source_dijkstra(G, sources, t, backend=b))
        same(lambda b: typed(nx.multi_source_dijkstra_path_length(G, sources, backend=b)))
        same(lambda b: items(nx.multi_source_dijkstra_path(G, sources, backend=b)))
        same(lambda b: nx.dijkstra_path(G, s, t, backend=b))
        same(lambda b: nx.dijkstra_path_length(G, s, t, backend=b))
        same(lambda b: items(nx.single_source_dijkstra_path(G, s, backend=b)))
        same(lambda b: [(v, pair(x)) for v, x in nx.all_pairs_dijkstra(G, backend=b)])
        same(lambda b: items(nx.shortest_path(G, s, weight="weight", backend=b)))


@given(G=nx_graphs(weights=("int", "float", "zero")), data=st.data())
def test_bellman_ford_and_floyd_warshall_values_match_networkx(G, data):
    s, t = pick(G, data)

    def values(x):  # dict order and tie-breaking paths are documented differences
        return sorted(x.items(), key=repr)

    same(lambda b: values(nx.single_source_bellman_ford_path_length(G, s, backend=b)))
    same(lambda b: nx.bellman_ford_path_length(G, s, t, backend=b))
    same(lambda b: nx.negative_edge_cycle(G, backend=b))
    same(lambda b: {u: dict(d) for u, d in nx.floyd_warshall(G, backend=b).items()})
    same(lambda b: nx.floyd_warshall_numpy(G, backend=b).tolist())


def test_multi_source_ties_follow_push_order():
    G = nx.path_graph(5)
    for backend in (None, "spbfs"):
        dist, paths = nx.multi_source_dijkstra(G, [4, 0], backend=backend)
        assert list(dist) == [4, 0, 3, 1, 2]
        assert paths[2] == [4, 3, 2]


def test_bidirectional_path_is_networkx_choice():
    G = nx.cycle_graph(6)
    G.add_edge(0, 3)
    expected = nx.bidirectional_shortest_path(G, 1, 4)
    assert nx.bidirectional_shortest_path(G, 1, 4, backend="spbfs") == expected


@DEVICES
def test_long_paths_match_networkx(device):
    """Paths of about 11 hops, forward and backward, in BFS and Dijkstra order, from a start
    given as another object equal to its node, on graphs labelled by strings and by ints."""
    import random

    rng = random.Random(4)
    grid = nx.grid_2d_graph(12, 12)   # BFS and Dijkstra trees of about 11 hops a path
    for u, v in grid.edges:
        grid.edges[u, v]["weight"] = rng.randint(1, 9)
    graphs = [nx.convert_node_labels_to_integers(grid), nx.relabel_nodes(
        grid, {node: f"n{node}" for node in grid}), nx.DiGraph(grid)]
    with nx.config.backends.spbfs(device=device):
        for G in graphs:
            s = next(iter(G))
            same(lambda b, G=G, s=s: items(nx.single_source_shortest_path(G, s, backend=b)))
            same(lambda b, G=G, s=s: items(nx.single_target_shortest_path(G, s, backend=b)))
            same(lambda b, G=G, s=s: items(nx.single_source_dijkstra_path(G, s, backend=b)))
        G = graphs[0]
        same(lambda b: items(nx.single_source_shortest_path(G, 0.0, backend=b)))
