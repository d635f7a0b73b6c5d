"""NetworkX's ``shortest_path``: the unweighted, Dijkstra or Bellman-Ford function it names."""

from __future__ import annotations

from ._dijkstra import (
    all_pairs_bellman_ford_path,
    all_pairs_dijkstra_path,
    bellman_ford_path,
    single_source_bellman_ford_path,
    single_source_dijkstra_path,
)
from ._paths import (
    all_pairs_shortest_path,
    bidirectional_shortest_path,
    single_source_shortest_path,
)
from ._registry import dispatched

__all__ = []


def _can_run(arguments):
    method, weight = arguments.get("method"), arguments.get("weight")
    if method not in ("dijkstra", "bellman-ford"):
        return f"method={method!r} runs in NetworkX (which rejects it)"
    if callable(weight):
        return "a callable weight runs in NetworkX"
    if weight is not None and arguments.get("source") is not None \
            and arguments.get("target") is not None and method == "dijkstra":
        return ("one weighted path: NetworkX's bidirectional Dijkstra picks among equally "
                "short paths its own way; it runs there")
    return True


@dispatched(can_run=_can_run, docs="Unweighted: NetworkX's BFS paths (and its bidirectional "
            "search's path between two nodes). Weighted: Dijkstra's paths for non-negative "
            "all-int or all-float weights; one weighted source-target path (bidirectional "
            "Dijkstra) runs in NetworkX; ``method='bellman-ford'`` as the ``bellman_ford`` "
            "functions (dicts in Dijkstra's order).")
def shortest_path(G, source=None, target=None, weight=None, method="dijkstra"):
    """NetworkX's ``shortest_path``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.shortest_path(nx.path_graph(4), 0, 3, backend="spbfs")
    [0, 1, 2, 3]
    >>> nx.shortest_path(nx.path_graph(3), target=0, backend="spbfs")
    {0: [0], 1: [1, 0], 2: [2, 1, 0]}
    """
    if method not in ("dijkstra", "bellman-ford"):
        raise ValueError(f"method not supported: {method}")
    method = "unweighted" if weight is None else method
    if method != "unweighted":
        G.weights(weight)  # unsupported weights run in NetworkX now, not mid-iteration
    if source is None and target is None:
        if method == "unweighted":
            return all_pairs_shortest_path(G)
        if method == "dijkstra":
            return all_pairs_dijkstra_path(G, weight=weight)
        return all_pairs_bellman_ford_path(G, weight=weight)
    if source is None:
        R = G.reverse()
        if method == "unweighted":
            paths = single_source_shortest_path(R, target)
        elif method == "dijkstra":
            paths = single_source_dijkstra_path(R, target, weight=weight)
        else:
            paths = single_source_bellman_ford_path(R, target, weight=weight)
        return {node: path[::-1] for node, path in paths.items()}
    if target is None:
        if method == "unweighted":
            return single_source_shortest_path(G, source)
        if method == "dijkstra":
            return single_source_dijkstra_path(G, source, weight=weight)
        return single_source_bellman_ford_path(G, source, weight=weight)
    if method == "unweighted":
        return bidirectional_shortest_path(G, source, target)
    return bellman_ford_path(G, source, target, weight)
