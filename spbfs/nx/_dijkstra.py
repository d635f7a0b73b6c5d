"""Weighted shortest paths: ``min_plus`` distances, NetworkX's Dijkstra order and paths.

The distances come from :func:`spbfs.sssp` (several sources at once with
``min_only``).  NetworkX's Dijkstra pops vertices in the order
:func:`~spbfs.nx._shortest.dijkstra_order` reproduces, and the path to ``v``
extends the path of the vertex whose push set ``v``'s final distance: the
earliest-popped *tight* in-neighbour (``d[u] + w == d[v]``).  Every vertex's is
found in one vectorised pass over the edges, on the graph's device; one
target's path, hop by hop back over the in-edges of the path's vertices alone.
The Bellman-Ford family gives the same distances for the non-negative weights
spbfs accepts (others run in NetworkX); see the caveats in
:data:`BELLMAN_FORD_DOCS`.
"""

from __future__ import annotations

import numpy as np

from ._registry import dispatched
from ._shortest import _length_to, _lengths_dict, _weight_is_name, dijkstra_search
from ._traversal import paths_from_parents, start_labels

__all__ = ["BELLMAN_FORD_DOCS"]

BELLMAN_FORD_DOCS = ("Non-negative all-int or all-float weights (others, and callables, run "
                     "in NetworkX): the same distances as NetworkX; dicts come in Dijkstra's "
                     "order, not Bellman-Ford's queue order, and among equally short paths the "
                     "one returned is Dijkstra's.")
DIJKSTRA_DOCS = ("Same values, types, order and paths as NetworkX for non-negative all-int or "
                 "all-float weights; other weights and callables run in NetworkX.")


def _path_rows(G, weight, order, d, t, sources):
    """The rows of NetworkX's path to row ``t``: back from ``t``, each hop to the tight
    in-neighbour popped first, reading the in-edges of the path's rows alone."""
    n = len(G)
    R = G.reverse(ordered=False)   # in-edges as rows (the graph itself when undirected)
    values, _ = R.weights(weight)
    rank = np.full(n, n, np.int64)
    rank[order] = np.arange(order.size)
    chain = [t]
    while chain[-1] not in sources:
        v = chain[-1]
        lo, hi = R._indptr[v], R._indptr[v + 1]
        u = R._indices[lo:hi].astype(np.int64)
        u = u[(d[u] + values[lo:hi] == d[v]) & (rank[u] < n) & (u != v)]
        if not u.size:  # cannot happen for exact distances
            raise NotImplementedError("could not reproduce NetworkX's Dijkstra path")
        chain.append(int(u[np.argmin(rank[u])]))
    return chain[::-1]


def _sources(G, sources):
    import networkx as nx

    if not sources:
        raise ValueError("sources must not be empty")
    for s in sources:
        if s not in G:
            raise nx.NodeNotFound(f"Node {s} not found in graph")
    seen = {}
    for s in sources:  # NetworkX's first occurrence, as given
        seen.setdefault(G.index[s], s)
    return np.fromiter(seen, np.int64, count=len(seen)), seen


def _target_path(G, chain, target, first):
    path = G.labels(np.array(chain, np.int64))
    path[0], path[-1] = first[chain[0]], target
    return path


def _multi(G, sources, target, cutoff, weight, lengths=True, paths=True):
    """NetworkX's ``multi_source_dijkstra`` on rows: ``(dist, paths)`` (None for what is
    not wanted), or one ``(length, path)`` with a ``target``."""
    import networkx as nx

    G.weights(weight)  # weights spbfs declines: before an iterator of sources is read
    rows, first = _sources(G, sources)
    if target in sources:
        return 0, [target]
    if target is None and (G._indptr[rows + 1] == G._indptr[rows]).all():
        return (dict.fromkeys(first.values(), 0) if lengths else None,
                {s: [s] for s in first.values()} if paths else None)
    t = G.index.get(target) if target is not None and target in G else None
    order, d, parent, kind = dijkstra_search(G, rows, weight, cutoff, t,
                                             paths and target is None)
    if target is None:
        keys = start_labels(G, first)[order].tolist() if lengths and paths else None
        return (_lengths_dict(G, order, d, kind, first, keys) if lengths else None,
                paths_from_parents(G, order, parent, first, keys=keys) if paths else None)
    if t is None or order[-1] != t:
        raise nx.NetworkXNoPath(f"No path to {target}.")
    length = int(d[t]) if kind == "int" else float(d[t])
    return length, _target_path(G, _path_rows(G, weight, order, d, t, first), target, first)


@dispatched(can_run=_weight_is_name, docs=DIJKSTRA_DOCS)
def multi_source_dijkstra(G, sources, target=None, cutoff=None, weight="weight"):
    """NetworkX's ``multi_source_dijkstra``: ``(dist, paths)``, or one ``(length, path)``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.multi_source_dijkstra(nx.path_graph(4), {0, 3}, backend="spbfs")
    ({0: 0, 3: 0, 1: 1, 2: 1}, {0: [0], 3: [3], 1: [0, 1], 2: [3, 2]})
    """
    return _multi(G, sources, target, cutoff, weight)


@dispatched(can_run=_weight_is_name, docs=DIJKSTRA_DOCS)
def multi_source_dijkstra_path(G, sources, cutoff=None, weight="weight"):
    """NetworkX's ``multi_source_dijkstra_path``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.multi_source_dijkstra_path(nx.path_graph(3), {0}, backend="spbfs")
    {0: [0], 1: [0, 1], 2: [0, 1, 2]}
    """
    return _multi(G, sources, None, cutoff, weight, lengths=False)[1]


@dispatched(can_run=_weight_is_name, docs=DIJKSTRA_DOCS)
def multi_source_dijkstra_path_length(G, sources, cutoff=None, weight="weight"):
    """NetworkX's ``multi_source_dijkstra_path_length``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.multi_source_dijkstra_path_length(nx.path_graph(3), {0}, backend="spbfs")
    {0: 0, 1: 1, 2: 2}
    """
    return _multi(G, sources, None, cutoff, weight, paths=False)[0]


@dispatched(can_run=_weight_is_name, docs=DIJKSTRA_DOCS)
def single_source_dijkstra(G, source, target=None, cutoff=None, weight="weight"):
    """NetworkX's ``single_source_dijkstra``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.single_source_dijkstra(nx.path_graph(3), 0, 2, backend="spbfs")
    (2, [0, 1, 2])
    """
    return _multi(G, {source}, target, cutoff, weight)


@dispatched(can_run=_weight_is_name, docs=DIJKSTRA_DOCS)
def single_source_dijkstra_path(G, source, cutoff=None, weight="weight"):
    """NetworkX's ``single_source_dijkstra_path``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.single_source_dijkstra_path(nx.path_graph(3), 2, backend="spbfs")
    {2: [2], 1: [2, 1], 0: [2, 1, 0]}
    """
    return _multi(G, {source}, None, cutoff, weight, lengths=False)[1]


@dispatched(can_run=_weight_is_name, docs=DIJKSTRA_DOCS)
def dijkstra_path(G, source, target, weight="weight"):
    """NetworkX's ``dijkstra_path``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.dijkstra_path(nx.path_graph(3), 0, 2, backend="spbfs")
    [0, 1, 2]
    """
    return _multi(G, {source}, target, None, weight)[1]


@dispatched(can_run=_weight_is_name, docs=DIJKSTRA_DOCS)
def dijkstra_path_length(G, source, target, weight="weight"):
    """NetworkX's ``dijkstra_path_length``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.dijkstra_path_length(nx.path_graph(3), 0, 2, backend="spbfs")
    2
    """
    return _length_to(G, source, target, weight, "dijkstra")


def _checked(G, weight, items):
    """``items`` (a generator) once ``weight`` is checked: weights spbfs declines raise
    NotImplementedError here, while NetworkX's dispatcher can still run its own code, not
    at the first item (an automatic dispatch would end in that error)."""
    G.weights(weight)
    return items


def _each_source(G, cutoff, weight, lengths=True, paths=True):
    """NetworkX's all-pairs generators: ``(node, result)`` for every node, the result
    :func:`_multi` gives for that node alone (``(dist, paths)``, or the one of them
    asked for).  A node without arcs out has its dicts made at once, with no search:
    most of a call that takes the first few nodes of a graph with isolated ones."""
    indptr = G._indptr
    for row, node in enumerate(G):
        if indptr[row] == indptr[row + 1]:
            dist, path = {node: 0} if lengths else None, {node: [node]} if paths else None
        else:
            dist, path = _multi(G, {node}, None, cutoff, weight, lengths, paths)
        yield node, ((dist, path) if lengths and paths else dist if lengths else path)


@dispatched(can_run=_weight_is_name, docs=DIJKSTRA_DOCS)
def all_pairs_dijkstra(G, cutoff=None, weight="weight"):
    """NetworkX's ``all_pairs_dijkstra``: ``(node, (dist, paths))`` for every node.

    Examples
    --------
    >>> import networkx as nx
    >>> dict(nx.all_pairs_dijkstra(nx.path_graph(2), backend="spbfs"))[1]
    ({1: 0, 0: 1}, {1: [1], 0: [1, 0]})
    """
    return _checked(G, weight, _each_source(G, cutoff, weight))


@dispatched(can_run=_weight_is_name, docs=DIJKSTRA_DOCS)
def all_pairs_dijkstra_path(G, cutoff=None, weight="weight"):
    """NetworkX's ``all_pairs_dijkstra_path``.

    Examples
    --------
    >>> import networkx as nx
    >>> dict(nx.all_pairs_dijkstra_path(nx.path_graph(2), backend="spbfs"))
    {0: {0: [0], 1: [0, 1]}, 1: {1: [1], 0: [1, 0]}}
    """
    return _checked(G, weight, _each_source(G, cutoff, weight, lengths=False))


@dispatched(can_run=_weight_is_name, docs=DIJKSTRA_DOCS)
def all_pairs_dijkstra_path_length(G, cutoff=None, weight="weight"):
    """NetworkX's ``all_pairs_dijkstra_path_length``.

    Examples
    --------
    >>> import networkx as nx
    >>> dict(nx.all_pairs_dijkstra_path_length(nx.path_graph(2), backend="spbfs"))
    {0: {0: 0, 1: 1}, 1: {1: 0, 0: 1}}
    """
    return _checked(G, weight, _each_source(G, cutoff, weight, paths=False))


# ---------------------------------------------------------------- Bellman-Ford


def _bf_source(G, source):
    import networkx as nx

    if source not in G:
        raise nx.NodeNotFound(f"Source {source} not in G")


@dispatched(can_run=_weight_is_name, docs=BELLMAN_FORD_DOCS)
def single_source_bellman_ford(G, source, target=None, weight="weight"):
    """NetworkX's ``single_source_bellman_ford`` (non-negative weights).

    Examples
    --------
    >>> import networkx as nx
    >>> nx.single_source_bellman_ford(nx.path_graph(3), 0, 2, backend="spbfs")
    (2, [0, 1, 2])
    """
    import networkx as nx

    _bf_source(G, source)
    if source == target:
        return 0, [source]
    if target is None:
        return _multi(G, {source}, None, None, weight)
    try:
        return _multi(G, {source}, target, None, weight)
    except nx.NetworkXNoPath:
        raise nx.NetworkXNoPath(f"Node {target} not reachable from {source}") from None


@dispatched(can_run=_weight_is_name, docs=BELLMAN_FORD_DOCS)
def single_source_bellman_ford_path(G, source, weight="weight"):
    """NetworkX's ``single_source_bellman_ford_path`` (non-negative weights).

    Examples
    --------
    >>> import networkx as nx
    >>> nx.single_source_bellman_ford_path(nx.path_graph(3), 0, backend="spbfs")
    {0: [0], 1: [0, 1], 2: [0, 1, 2]}
    """
    _bf_source(G, source)
    return _multi(G, {source}, None, None, weight, lengths=False)[1]


@dispatched(can_run=_weight_is_name, docs=BELLMAN_FORD_DOCS)
def single_source_bellman_ford_path_length(G, source, weight="weight"):
    """NetworkX's ``single_source_bellman_ford_path_length`` (non-negative weights).

    Examples
    --------
    >>> import networkx as nx
    >>> nx.single_source_bellman_ford_path_length(nx.path_graph(3), 0, backend="spbfs")
    {0: 0, 1: 1, 2: 2}
    """
    _bf_source(G, source)
    return _multi(G, {source}, None, None, weight, paths=False)[0]


@dispatched(can_run=_weight_is_name, docs=BELLMAN_FORD_DOCS)
def bellman_ford_path(G, source, target, weight="weight"):
    """NetworkX's ``bellman_ford_path`` (non-negative weights).

    Examples
    --------
    >>> import networkx as nx
    >>> nx.bellman_ford_path(nx.path_graph(3), 0, 2, backend="spbfs")
    [0, 1, 2]
    """
    return single_source_bellman_ford(G, source, target, weight)[1]


@dispatched(can_run=_weight_is_name, docs=BELLMAN_FORD_DOCS)
def bellman_ford_path_length(G, source, target, weight="weight"):
    """NetworkX's ``bellman_ford_path_length`` (non-negative weights).

    Examples
    --------
    >>> import networkx as nx
    >>> nx.bellman_ford_path_length(nx.path_graph(3), 0, 2, backend="spbfs")
    2
    """
    return _length_to(G, source, target, weight, "bellman-ford")


@dispatched(can_run=_weight_is_name, docs=BELLMAN_FORD_DOCS)
def all_pairs_bellman_ford_path(G, weight="weight"):
    """NetworkX's ``all_pairs_bellman_ford_path`` (non-negative weights).

    Examples
    --------
    >>> import networkx as nx
    >>> dict(nx.all_pairs_bellman_ford_path(nx.path_graph(2), backend="spbfs"))
    {0: {0: [0], 1: [0, 1]}, 1: {1: [1], 0: [1, 0]}}
    """
    return _checked(G, weight, _each_source(G, None, weight, lengths=False))


@dispatched(can_run=_weight_is_name, docs=BELLMAN_FORD_DOCS)
def all_pairs_bellman_ford_path_length(G, weight="weight"):
    """NetworkX's ``all_pairs_bellman_ford_path_length`` (non-negative weights).

    Examples
    --------
    >>> import networkx as nx
    >>> dict(nx.all_pairs_bellman_ford_path_length(nx.path_graph(2), backend="spbfs"))
    {0: {0: 0, 1: 1}, 1: {1: 0, 0: 1}}
    """
    return _checked(G, weight, _each_source(G, None, weight, paths=False))


@dispatched(can_run=_weight_is_name, docs="Non-negative all-int or all-float weights have no "
            "negative cycle: False at once; other weights run in NetworkX.")
def negative_edge_cycle(G, weight="weight", heuristic=True):
    """NetworkX's ``negative_edge_cycle``: False for the non-negative weights spbfs takes.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.negative_edge_cycle(nx.cycle_graph(3), backend="spbfs")
    False
    """
    G.weights(weight)  # negative or unsupported weights: NotImplementedError, NetworkX runs
    return False
