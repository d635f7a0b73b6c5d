"""A call the NetworkX backend declines says why (issue 63)."""

import pytest

nx = pytest.importorskip("networkx")


@pytest.fixture
def weighted():
    G = nx.karate_club_graph()  # has "weight" on every edge
    return G


@pytest.mark.parametrize(
    "call,reason",
    [
        (lambda G: nx.betweenness_centrality(G, weight="weight", backend="spbfs"),
         "weighted betweenness runs in NetworkX"),
        (lambda G: list(nx.bfs_edges(G, 0, sort_neighbors=sorted, backend="spbfs")),
         "sort_neighbors"),
        (lambda G: nx.single_source_dijkstra_path_length(G, 0, weight=lambda u, v, d: 1,
                                                         backend="spbfs"),
         "callable"),
    ],
)
def test_an_explicit_backend_call_raises_with_the_reason(weighted, call, reason):
    with pytest.raises(NotImplementedError) as info:
        call(weighted)
    message = str(info.value)
    assert "is not implemented by 'spbfs' backend for the given arguments, because: " in message
    assert reason in message, message
    assert "backend='spbfs'" in message


def test_automatic_dispatch_still_falls_back_to_networkx(weighted):
    G = nx.gnm_random_graph(1200, 5000, seed=3)
    for u, v in G.edges:
        G[u][v]["weight"] = (u + v) % 5 + 1
    previous = nx.config.backend_priority
    try:
        nx.config.backend_priority = ["spbfs"]
        got = nx.betweenness_centrality(G, k=4, seed=1, weight="weight")  # declined: NetworkX
    finally:
        nx.config.backend_priority = previous
    assert got == pytest.approx(nx.betweenness_centrality(G, k=4, seed=1, weight="weight",
                                                          backend="networkx"))


def test_can_run_called_directly_returns_the_reason():
    from spbfs.nx import backend_interface

    G = nx.path_graph(3)
    reason = backend_interface.can_run("betweenness_centrality", (G,), {"weight": "weight"})
    assert reason == "weighted betweenness runs in NetworkX"
