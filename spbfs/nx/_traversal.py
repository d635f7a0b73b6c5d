"""Breadth-first traversals in NetworkX's exact visiting order.

NetworkX's BFS is a queue: level ``L + 1`` lists the new vertices in the order of (queue
position of the parent that found them first, position of the vertex in that parent's
adjacency dict).  The converted CSR keeps each adjacency dict's order, so that queue is
:func:`spbfs.semiring.queue_order`'s: a whole search is one call (one kernel on the CPU)
cut into levels, and a search read level by level (a depth limit, several sources, the two
sides of a bidirectional search) runs its levels one masked ``min_plus`` product at a time
(:func:`spbfs.semiring._queue.levels_in_queue_order`).  The same code runs on the CPU and,
with ``nx.config.backends.spbfs.device``, on the GPU.
"""

from __future__ import annotations

import gc
from itertools import chain, islice, repeat

import numpy as np

from ..core.arrays import to_numpy
from ..cpu.treepaths import tree_paths
from ..semiring import queue_hops, queue_meet, queue_order
from ..semiring._queue import levels_in_queue_order
from ._registry import dispatched, not_supported

__all__ = ["bfs_levels_ordered", "bidirectional_hops", "bidirectional_rows", "paths_from_parents",
           "start_labels"]


def bfs_levels_ordered(g, sources, depth_limit=None, whole=False):
    """Yield ``(children, parents)`` row numbers level by level, in NetworkX's order.

    Parameters
    ----------
    g : SpbfsGraph
    sources : sequence of int
        The first queue (row numbers, in queue order).
    depth_limit : number, optional
        Levels are expanded while ``depth < depth_limit`` (NetworkX's rule).
    whole : bool
        The caller reads every level: from one source without a finite ``depth_limit``
        the whole search is one :func:`spbfs.semiring.queue_order` (the CSR keeps each
        adjacency dict's order, so its queue is NetworkX's), cut into levels.

    Yields
    ------
    children, parents : ndarray of int64
        The vertices of the next level in queue order, and the vertex whose
        adjacency found each first (host arrays).

    Examples
    --------
    >>> import networkx as nx
    >>> from spbfs.nx import convert_from_nx
    >>> g = convert_from_nx(nx.Graph([(0, 3), (0, 1), (3, 2), (1, 2)]))
    >>> [(g.labels(c), g.labels(p)) for c, p in bfs_levels_ordered(g, [g.index[0]])]
    [([3, 1], [0, 0]), ([2], [3])]
    """
    gpu = g.on_gpu()
    if whole and len(sources) == 1 and _unlimited(g, depth_limit):
        yield from _queue_levels(g.matrix(gpu), int(sources[0]))
        return
    levels = levels_in_queue_order(g.matrix(gpu), sources)
    depth = 0
    while depth_limit is None or depth < depth_limit:
        step = next(levels, None)
        if step is None:
            return
        yield tuple(to_numpy(a) for a in step)
        depth += 1


def _unlimited(g, depth_limit):
    """Whether ``depth_limit`` stops no search of ``g`` (None, or no fewer than its
    nodes): the search is then one :func:`spbfs.semiring.queue_order`."""
    return depth_limit is None or depth_limit >= len(g)


def _queue_levels(M, source):
    """The levels of :func:`spbfs.semiring.queue_order` from ``source``: the order is level
    by level, and the queue positions of the parents grow along it, so each level ends
    where the parents' positions reach its own first position."""
    order, parents = (to_numpy(a) for a in queue_order(M, source))
    position = np.empty(parents.size, np.int64)
    position[order] = np.arange(order.size)
    parent_at = position[parents[order[1:]]]   # of order[1:], non-decreasing
    end = 1
    while end < order.size:
        stop = 1 + int(np.searchsorted(parent_at, end, side="left"))
        yield order[end:stop], parents[order[end:stop]]
        end = stop


def bidirectional_rows(G, source, target, ordered=True):
    """The rows of the ``source -> target`` path of NetworkX's bidirectional search
    (:func:`spbfs.semiring.queue_meet` on the arcs and the reverse arcs; ``ordered=False``
    takes the reverse arcs in the transpose's order: another shortest path, the same
    length), for distinct nodes of ``G``; NetworkXNoPath where none joins them.

    It runs on the host copy of the graph whatever the configured device: the search takes
    one vertex after another (NetworkX's order decides the path), so a GPU has no parallel
    work in it and its per-level launches and reads cost more than NetworkX's whole search
    (5 ms against 3 ms on a 1.2M-edge graph, docs/benchmarks.md).

    Examples
    --------
    >>> import networkx as nx
    >>> from spbfs.nx import convert_from_nx
    >>> bidirectional_rows(convert_from_nx(nx.path_graph(4)), 0, 3)
    [0, 1, 2, 3]
    """
    import networkx as nx

    path = queue_meet(G.matrix(False), G.reverse(ordered).matrix(False), G.index[source],
                      G.index[target])
    if path is None:
        raise nx.NetworkXNoPath(f"No path between {source} and {target}.")
    return path


def bidirectional_hops(G, source, target):
    """The length of a shortest ``source -> target`` path between nodes of ``G`` (-1 where
    none joins them): :func:`spbfs.semiring.queue_hops` on the arcs and the reverse arcs,
    on the host copy whatever the configured device (as :func:`bidirectional_rows`).

    Examples
    --------
    >>> import networkx as nx
    >>> from spbfs.nx import convert_from_nx
    >>> bidirectional_hops(convert_from_nx(nx.path_graph(4)), 0, 3)
    3
    """
    return queue_hops(G.matrix(False), G.reverse(False).matrix(False), G.index[source],
                      G.index[target])


def start_labels(G, first):
    """The node objects by row, as an object array, with the starting rows' as NetworkX
    reports them (``first``: row -> the object as given)."""
    labels = G.node_objects()
    if any(obj is not G.nodes[row] for row, obj in first.items()):
        labels = labels.copy()
        for row, obj in first.items():
            labels[row] = obj
    return labels


def paths_from_parents(G, order, parent, first, forward=True, keys=None):
    """NetworkX's ``{node: path}`` dict for vertices ``order`` (any order).

    ``first`` maps the starting rows to their node objects as NetworkX reports them;
    ``forward=False`` builds paths that end at the start (``single_target_*``); ``keys``:
    the dict's keys where the caller has them (``start_labels(G, first)[order]``).

    Examples
    --------
    >>> import numpy as np, networkx as nx
    >>> from spbfs.nx import convert_from_nx
    >>> G = convert_from_nx(nx.path_graph(3))
    >>> paths_from_parents(G, np.array([0, 1, 2]), np.array([-1, 0, 1]), {0: 0})
    {0: [0], 1: [0, 1], 2: [0, 1, 2]}
    """
    order = np.asarray(order, np.int64)
    starts = np.fromiter(first, np.int64, count=len(first))
    blocks, by_depth = tree_paths(order, parent, starts, forward)
    labels = start_labels(G, first)
    if keys is None:
        keys = labels[order].tolist()
    if (by_depth[1:] > by_depth[:-1]).all():  # BFS order: the blocks follow each other
        return dict(zip(keys, chain.from_iterable(labels[b].tolist() for b in blocks),
                        strict=True))
    values = np.empty(order.size, object)
    at = 0
    for block in blocks:
        rows = labels[block].tolist()
        values[by_depth[at:at + len(rows)]] = np.fromiter(rows, object, count=len(rows))
        at += len(rows)
    return dict(zip(keys, values, strict=True))  # the array's items: no list of them made


def node_row(g, node, error):
    """Row number of ``node``; ``error(node)`` is raised when it is not in the graph."""
    try:
        return g.index[node]
    except KeyError:
        raise error(node) from None


def _neighbors_error(g):
    import networkx as nx

    kind = "digraph" if g.is_directed() else "graph"
    return lambda node: nx.NetworkXError(f"The node {node} is not in the {kind}.")


def _edges(G, source, reverse, depth_limit, zipped=False):
    """``(parent labels, child labels, parent rows)`` of NetworkX's ``bfs_edges``: per level,
    or for a whole search (no depth limit short of the graph) once, every edge in queue
    order (a parent's children still follow each other: one call to label them all, and no
    level to find).  ``zipped``: the caller only zips the labels, so a whole search's
    children come as an object array of the nodes (a zip reads it as fast as a list, and
    no list is made: on the VM 4.4 against 5.7 ms for the 81,741 pairs of a scale-17
    graph)."""
    g = G.reverse() if reverse and G.is_directed() else G
    s = node_row(g, source, _neighbors_error(g))
    if _unlimited(g, depth_limit):
        order, parents = (to_numpy(a) for a in queue_order(g.matrix(g.on_gpu()), s))
        if order.size > 1:
            rows = parents[order[1:]]
            labels = g.labels(rows)
            # the source's children come first; NetworkX reports the source object it was
            # given, not the stored label
            first = int(np.count_nonzero(rows == s))
            labels[:first] = repeat(source, first)
            yield labels, (g.node_objects()[order[1:]] if zipped else
                           g.labels(order[1:])), rows
        return
    first = True
    for children, parents in bfs_levels_ordered(g, [s], depth_limit, whole=True):
        kids = g.labels(children)
        # NetworkX reports the source object it was given, not the stored label
        yield ([source] * len(kids) if first else g.labels(parents)), kids, parents
        first = False


_NO_SORT = not_supported(sort_neighbors=None)


@dispatched(can_run=_NO_SORT, docs="Same order as NetworkX; ``sort_neighbors`` runs in "
            "NetworkX.")
def bfs_edges(G, source, reverse=False, depth_limit=None, sort_neighbors=None):
    """NetworkX's ``bfs_edges`` on an :class:`~spbfs.nx.SpbfsGraph` (a lazy iterator).

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.path_graph(4)
    >>> list(nx.bfs_edges(G, 1, backend="spbfs"))
    [(1, 0), (1, 2), (2, 3)]
    """
    # an iterator of C loops (the levels are still searched lazily): a generator resumed
    # once per edge costs more than the search on a large graph
    return chain.from_iterable(zip(parents, kids, strict=True) for parents, kids, _
                               in _edges(G, source, reverse, depth_limit, zipped=True))


@dispatched(can_run=_NO_SORT, docs="Same order as NetworkX; ``sort_neighbors`` runs in "
            "NetworkX.")
def bfs_tree(G, source, reverse=False, depth_limit=None, sort_neighbors=None):
    """NetworkX's ``bfs_tree``: a ``networkx.DiGraph`` built from the BFS edges.

    Examples
    --------
    >>> import networkx as nx
    >>> T = nx.bfs_tree(nx.path_graph(4), 1, backend="spbfs")
    >>> list(T.edges)
    [(1, 0), (1, 2), (2, 3)]
    """
    import networkx as nx

    T = nx.DiGraph()
    # a pause of the cyclic GC while the tree's dicts are made: each full collection would
    # otherwise walk every object of the (large) input graph (NetworkX itself pays that)
    paused = gc.isenabled()
    gc.disable()
    try:
        parents, kids, runs = [], [], []
        for p, k, rows in _edges(G, source, reverse, depth_limit):  # rows: host arrays
            runs += (np.flatnonzero(rows[1:] != rows[:-1]) + 1 + len(kids)).tolist()
            runs.append(len(kids) + len(k))  # a level ends a parent's run
            parents += p
            kids += k
        _fill_tree(T, source, parents, kids, runs)
    finally:
        if paused:
            gc.enable()
    return T


def _fill_tree(T, source, parents, kids, runs):
    """The dicts of the DiGraph ``T`` (new) as ``add_edges_from`` leaves them for the tree
    edges ``parents[i] -> kids[i]`` in BFS order (every kid new, its parent added before
    it), built in bulk by C loops: nodes in order of addition, one shared data dict per
    edge, each kid's one parent, each parent's children in edge order (``runs``: where each
    run of one parent's edges ends)."""
    nodes = [source, *kids]
    T._node.update(zip(nodes, iter(T.node_attr_dict_factory, None), strict=False))
    T._succ.update(zip(nodes, iter(T.adjlist_inner_dict_factory, None), strict=False))
    data = list(islice(iter(T.edge_attr_dict_factory, None), len(kids)))
    T._pred[source] = T.adjlist_inner_dict_factory()
    one_parent = zip(zip(parents, data, strict=True), strict=True)  # ((parent, data),) each
    T._pred.update(zip(kids, map(T.adjlist_inner_dict_factory, one_parent), strict=True))
    # each parent's children: one run of its edges (a parent is expanded once), its new
    # dict taking the run's pairs in turn
    ends = np.asarray(runs, np.int64)
    starts = np.concatenate([[0], ends[:-1]])
    ran = ends > starts
    children = map(dict, map(islice, repeat(zip(kids, data, strict=True)),
                             (ends - starts)[ran].tolist()))
    T._succ.update(zip(map(parents.__getitem__, starts[ran].tolist()), children, strict=True))


@dispatched(can_run=_NO_SORT, docs="Same order as NetworkX; ``sort_neighbors`` runs in "
            "NetworkX.")
def bfs_predecessors(G, source, depth_limit=None, sort_neighbors=None):
    """NetworkX's ``bfs_predecessors``: ``(node, parent)`` pairs in BFS order.

    Examples
    --------
    >>> import networkx as nx
    >>> list(nx.bfs_predecessors(nx.path_graph(4), 1, backend="spbfs"))
    [(0, 1), (2, 1), (3, 2)]
    """
    return chain.from_iterable(zip(kids, parents, strict=True) for parents, kids, _
                               in _edges(G, source, False, depth_limit, zipped=True))


@dispatched(can_run=_NO_SORT, docs="Same order as NetworkX; ``sort_neighbors`` runs in "
            "NetworkX.")
def bfs_successors(G, source, depth_limit=None, sort_neighbors=None):
    """NetworkX's ``bfs_successors``: ``(node, [children])`` in BFS order.

    Examples
    --------
    >>> import networkx as nx
    >>> list(nx.bfs_successors(nx.path_graph(4), 1, backend="spbfs"))
    [(1, [0, 2]), (2, [3])]
    """
    # every parent's children lie in one level (the source's in the first): C loops per
    # level, not a generator resumed per parent
    return chain.from_iterable(map(_successor_runs, _levels_or_source(G, source, depth_limit)))


def _levels_or_source(G, source, depth_limit):
    """The levels of :func:`_edges`, or one level of the source and no children where there
    are none (NetworkX then yields ``(source, [])``)."""
    empty = True
    for level in _edges(G, source, False, depth_limit):
        empty = False
        yield level
    if empty:
        yield [source], [], np.empty(0, np.int64)


def _successor_runs(level):
    """``(parent, [children])`` of one level of :func:`_levels_or_source`: the children of
    one parent are contiguous, so the level splits where the parent row changes."""
    parents, kids, rows = level
    cuts = [0, *(np.flatnonzero(rows[1:] != rows[:-1]) + 1).tolist(), len(kids)]
    return zip(map(parents.__getitem__, cuts[:-1]),
               map(kids.__getitem__, map(slice, cuts[:-1], cuts[1:])), strict=True)


@dispatched(docs="Each layer's nodes in NetworkX's order (its queue order); several sources "
            "start one search.")
def bfs_layers(G, sources):
    """NetworkX's ``bfs_layers``: the lists of nodes at each distance, in BFS order.

    Examples
    --------
    >>> import networkx as nx
    >>> list(nx.bfs_layers(nx.path_graph(5), [0, 4], backend="spbfs"))
    [[0, 4], [1, 3], [2]]
    """
    import networkx as nx

    if sources in G:
        sources = [sources]
    first = list(set(sources))  # NetworkX's first layer is in set order
    rows = []
    for node in first:
        if node not in G:
            raise nx.NetworkXError(f"The node {node} is not in the graph.")
        rows.append(G.index[node])
    if not first:
        return
    yield first
    for children, _ in bfs_levels_ordered(G, rows):
        yield G.labels(children)


@dispatched(docs="A set, as NetworkX's, from a search stopped at that depth.")
def descendants_at_distance(G, source, distance):
    """NetworkX's ``descendants_at_distance``: the set of nodes ``distance`` hops away.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.descendants_at_distance(nx.path_graph(5), 2, 2, backend="spbfs")
    {0, 4}
    """
    import networkx as nx

    if source not in G:
        raise nx.NetworkXError(f"The node {source} is not in the graph.")
    if distance == 0:
        return {source}
    for depth, (children, _) in enumerate(bfs_levels_ordered(G, [G.index[source]]), 1):
        if depth == distance:
            return set(G.labels(children))
    return set()
