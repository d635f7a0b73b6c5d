"""Unweighted shortest paths: BFS trees in NetworkX's visiting order, as paths.

NetworkX's BFS path to ``w`` extends the path of the vertex that found ``w``
first; :func:`~spbfs.nx._traversal.bfs_levels_ordered` yields exactly those
parents, level by level, so every path (and the dict's order) is NetworkX's.
The paths themselves are the output: building them is the only per-vertex
Python work.
"""

from __future__ import annotations

import numpy as np

from ._registry import dispatched
from ._shortest import single_source_shortest_path_length
from ._traversal import (
    bfs_levels_ordered,
    bidirectional_hops,
    bidirectional_rows,
    paths_from_parents,
)

__all__ = ["bfs_tree_rows"]


def bfs_tree_rows(G, row, cutoff=None):
    """``(order, parent)``: rows in NetworkX's BFS order from ``row`` (``row`` first) and the
    row that found each first (``parent[row] = -1``; unreached rows keep -1).

    Examples
    --------
    >>> import networkx as nx
    >>> from spbfs.nx import convert_from_nx
    >>> order, parent = bfs_tree_rows(convert_from_nx(nx.path_graph(3)), 1)
    >>> order.tolist(), parent.tolist()
    ([1, 0, 2], [1, -1, 1])
    """
    parent = np.full(len(G), -1, np.int64)
    levels = [np.array([row], np.int64)]
    for children, parents in bfs_levels_ordered(G, [row], depth_limit=cutoff, whole=True):
        parent[children] = parents
        levels.append(children)
    return np.concatenate(levels), parent


def _node_not_found(G, node, message):
    import networkx as nx

    if node not in G:
        raise nx.NodeNotFound(message)


@dispatched(docs="The same paths as NetworkX (each node's BFS parent in queue order), the dict "
            "in its order.")
def single_source_shortest_path(G, source, cutoff=None):
    """NetworkX's ``single_source_shortest_path``: the BFS tree's paths, in BFS order.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.single_source_shortest_path(nx.path_graph(3), 0, backend="spbfs")
    {0: [0], 1: [0, 1], 2: [0, 1, 2]}
    """
    _node_not_found(G, source, f"Source {source} not in G")
    s = G.index[source]
    order, parent = bfs_tree_rows(G, s, cutoff=float("inf") if cutoff is None else cutoff)
    return paths_from_parents(G, order, parent, {s: source})


@dispatched(docs="A search of the reverse arcs: NetworkX's paths, in its order.")
def single_target_shortest_path(G, target, cutoff=None):
    """NetworkX's ``single_target_shortest_path``: paths into ``target``, in BFS order.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.DiGraph([(0, 1), (1, 2)])
    >>> nx.single_target_shortest_path(G, 2, backend="spbfs")
    {2: [2], 1: [1, 2], 0: [0, 1, 2]}
    """
    _node_not_found(G, target, f"Target {target} not in G")
    R = G.reverse()
    t = R.index[target]
    order, parent = bfs_tree_rows(R, t, cutoff=float("inf") if cutoff is None else cutoff)
    return paths_from_parents(R, order, parent, {t: target}, forward=False)


@dispatched(docs="A search of the reverse arcs: NetworkX's dict, in its order.")
def single_target_shortest_path_length(G, target, cutoff=None):
    """NetworkX's ``single_target_shortest_path_length``: hops to ``target``, in BFS order.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.single_target_shortest_path_length(nx.DiGraph([(0, 1), (1, 2)]), 2,
    ...                                       backend="spbfs")
    {2: 0, 1: 1, 0: 2}
    """
    import networkx as nx

    if target not in G:
        raise nx.NodeNotFound(f"Target {target} is not in G")
    return single_source_shortest_path_length(G.reverse(), target, cutoff)


@dispatched(docs="One search per node, yielded lazily in node order (each as "
            "single_source_shortest_path).")
def all_pairs_shortest_path(G, cutoff=None):
    """NetworkX's ``all_pairs_shortest_path``: ``(node, paths)`` for every node.

    Examples
    --------
    >>> import networkx as nx
    >>> dict(nx.all_pairs_shortest_path(nx.path_graph(2), backend="spbfs"))
    {0: {0: [0], 1: [0, 1]}, 1: {1: [1], 0: [1, 0]}}
    """
    for node in G:
        yield node, single_source_shortest_path(G, node, cutoff)


@dispatched(docs="One search per node, yielded lazily in node order (each as "
            "single_source_shortest_path_length).")
def all_pairs_shortest_path_length(G, cutoff=None):
    """NetworkX's ``all_pairs_shortest_path_length``: ``(node, lengths)`` for every node.

    Examples
    --------
    >>> import networkx as nx
    >>> dict(nx.all_pairs_shortest_path_length(nx.path_graph(2), backend="spbfs"))
    {0: {0: 0, 1: 1}, 1: {1: 0, 0: 1}}
    """
    for node in G:
        yield node, single_source_shortest_path_length(G, node, cutoff)


@dispatched(docs="NetworkX's path (its bidirectional search's meeting vertex), from two queue "
            "searches towards each other; on the host copy with device='gpu'.")
def bidirectional_shortest_path(G, source, target):
    """NetworkX's ``bidirectional_shortest_path``: the same path NetworkX finds, from
    :func:`spbfs.semiring.queue_meet` on the graph's arcs and its reverse arcs (each in
    NetworkX's adjacency order).

    Examples
    --------
    >>> import networkx as nx
    >>> nx.bidirectional_shortest_path(nx.path_graph(5), 0, 4, backend="spbfs")
    [0, 1, 2, 3, 4]
    """

    _node_not_found(G, source, f"Source {source} is not in G")
    _node_not_found(G, target, f"Target {target} is not in G")
    if source == target:
        return [source]
    path = G.labels(np.array(bidirectional_rows(G, source, target), np.int64))
    path[0], path[-1] = source, target
    return path


@dispatched(docs="Two level searches towards each other, the level with fewer arcs first; on "
            "the host copy with device='gpu'.")
def has_path(G, source, target):
    """NetworkX's ``has_path``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.has_path(nx.DiGraph([(0, 1)]), 1, 0, backend="spbfs")
    False
    """
    _node_not_found(G, source, f"Source {source} is not in G")
    _node_not_found(G, target, f"Target {target} is not in G")
    return source == target or bidirectional_hops(G, source, target) >= 0
