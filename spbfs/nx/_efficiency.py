"""Efficiency: ``efficiency``, ``global_efficiency`` and ``local_efficiency`` from many-source
BFS (:func:`spbfs.bfs` with a list of sources).

NetworkX adds ``1 / d`` over the pairs in its own order (sources in node order, each
source's targets in BFS order, so by distance): the distances of a batch of sources are
turned into ``1 / d``, sorted in each row from the nearest, and added one at a time in
that order (``cumsum``; the zeros of unreachable pairs add nothing), so totals equal
NetworkX's float for float.  Local efficiency runs the searches of every node's
neighbourhood subgraph at once, on one block-diagonal graph whose nodes are the stored
entries ``(v, x)`` (``x`` a neighbour of ``v``), ``(v, x) -> (v, y)`` where ``x -> y``.
"""

from __future__ import annotations

from itertools import chain

import numpy as np
import scipy.sparse as sp

from ..algorithms.bfs import bfs
from ..core.arrays import to_numpy
from ..core.csr import expand
from ._dense import ALL_PAIRS_GPU_MIN_ENTRIES
from ._registry import dispatched
from ._traversal import bidirectional_rows

__all__ = []

#: Distances computed together (a batch of sources times the nodes searched), int32.
BATCH_ENTRIES = 1 << 22
#: Neighbourhood-subgraph nodes searched together by local efficiency (their distances make
#: a square array of this side).
BLOCK_NODES = 1 << 10


def _level_counts(levels):
    """How many entries of each row of ``levels`` lie at each positive distance: an
    int64 array of the rows by the largest distance (column ``d - 1``: distance ``d``)."""
    levels = np.asarray(levels)
    rows = levels.shape[0]
    top = max(int(levels.max()), 0) if levels.size else 0
    at = np.maximum(levels, 0).astype(np.int64)
    at += (top + 1) * np.arange(rows)[:, None]
    counts = np.bincount(at.ravel(), minlength=rows * (top + 1))
    return counts.reshape(rows, top + 1)[:, 1:]


def _inverse_run(levels):
    """``1 / d`` of the positive distances of each row, largest first, the rows one after
    another (the other pairs' zeros, which add nothing, left out): repeats of each row's
    distance counts, where a sort of every pair took most of the call."""
    counts = _level_counts(levels)
    inverse = 1.0 / np.arange(1, counts.shape[1] + 1)
    return np.repeat(np.tile(inverse, counts.shape[0]), counts.ravel())


def _inverse_sorted(levels, width):
    """``1 / d`` of the positive distances of each row, largest first, then zeros: the
    first ``width`` columns, from each row's distance counts (a column's distance is the
    number of distances whose running count it has reached, plus one)."""
    counts = _level_counts(levels)
    reached = np.cumsum(counts, axis=1)
    column = np.arange(width)
    rank = np.zeros((counts.shape[0], width), np.intp)
    for d in range(counts.shape[1]):  # a pass per distance (a graph's diameter at most)
        rank += column >= reached[:, d:d + 1]
    return np.append(1.0 / np.arange(1, counts.shape[1] + 1), 0.0)[rank]


@dispatched(docs="Two queue searches towards each other (a BFS's length).")
def efficiency(G, u, v):
    """NetworkX's ``efficiency``: ``1 / d(u, v)``, 0 without a path (undirected graphs).

    Examples
    --------
    >>> import networkx as nx
    >>> nx.efficiency(nx.path_graph(3), 0, 2, backend="spbfs")
    0.5
    """
    import networkx as nx

    if u not in G:
        raise nx.NodeNotFound(f"Source {u} is not in G")
    if v not in G:
        raise nx.NodeNotFound(f"Target {v} is not in G")
    if u == v:  # NetworkX's 1 / shortest_path_length, 0 here
        raise ZeroDivisionError("division by zero")
    try:
        return 1 / (len(bidirectional_rows(G, u, v)) - 1)
    except nx.NetworkXNoPath:
        return 0


@dispatched(docs="Many-source BFS in batches; ``1 / d`` added in NetworkX's order.")
def global_efficiency(G):
    """NetworkX's ``global_efficiency`` (undirected graphs).

    Examples
    --------
    >>> import networkx as nx
    >>> nx.global_efficiency(nx.path_graph(3), backend="spbfs")
    0.8333333333333334
    """
    n = len(G)
    denom = n * (n - 1)
    if denom == 0:
        return 0
    M = G.csr(G.on_gpu(ALL_PAIRS_GPU_MIN_ENTRIES))  # small graphs: the host's searches
    total = np.zeros(1)
    batch = max(1, BATCH_ENTRIES // n)
    for start in range(0, n, batch):  # batches of sources, in node order
        levels = to_numpy(bfs(M, np.arange(start, min(start + batch, n))))
        total = np.cumsum(np.concatenate([total, _inverse_run(levels)]))[-1:]
    return float(total[0]) / denom


def _source_order(G, M):
    """For each node's neighbourhood subgraph ``G.subgraph(G[v])``, the rows of its nodes in
    the order NetworkX's subgraph view lists them (the set of ``G[v]`` when it holds fewer
    than half the nodes, else node order), laid out as ``M``'s entries."""
    deg = np.diff(to_numpy(M.indptr)).astype(np.int64)
    by_node = to_numpy(M.indices).astype(np.int64)  # canonical: rows ascending = node order
    small = 2 * deg < len(G)
    if not small.any():
        return by_node
    orig = G.networkx_graph()
    adj = orig._succ if orig.is_directed() else orig._adj
    rows = list(map(adj.__getitem__, G.nodes))
    # a set made one node at a time, as NetworkX's show_nodes makes it from a generator
    flat = chain.from_iterable(map(set, map(iter, rows)))
    by_set = np.fromiter(map(G.index.__getitem__, flat), np.int64, count=by_node.size)
    owner = np.repeat(np.arange(len(G)), deg)
    return np.where(small[owner], by_set, by_node)


def _block_totals(M, keys, source_entry, vs):
    """The sum of ``1 / d`` over each node of ``vs``'s neighbourhood subgraph, in NetworkX's
    order: one many-source BFS on the block-diagonal graph of those subgraphs."""
    n = M.n
    indptr, indices = to_numpy(M.indptr), to_numpy(M.indices).astype(np.int64)
    e, block = expand(indptr, vs)  # the subgraphs' nodes: the entries (v, x)
    m = e.size
    deg = indptr[vs + 1] - indptr[vs]
    if m == 0:
        return np.zeros(vs.size)
    local = np.full(indices.size, -1, np.int64)
    local[e] = np.arange(m)
    at, which = expand(indptr, indices[e])  # x -> y for each (v, x)
    probe = vs[block[which]] * n + indices[at]
    f = np.minimum(np.searchsorted(keys, probe), keys.size - 1)
    found = keys[f] == probe  # (v, y) is an entry: y is in v's subgraph too
    B = sp.csr_array((np.ones(int(found.sum()), bool), (which[found], local[f[found]])),
                     shape=(m, m))
    levels = to_numpy(bfs(B, np.arange(m)))
    k = int(deg.max())
    # each source's own subgraph's columns alone (the others unreached), -1 past its end
    first = (np.cumsum(deg) - deg)[block]
    column = np.arange(k)
    own = np.take_along_axis(levels, np.minimum(first[:, None] + column, m - 1), axis=1)
    own[column >= deg[block][:, None]] = -1
    inv = _inverse_sorted(own, k)[local[source_entry[e]]]  # rows in source order
    out = np.zeros((vs.size, k, k))
    out[block, np.arange(m) - first] = inv
    return np.cumsum(out.reshape(vs.size, k * k), axis=1)[:, -1]


@dispatched(docs="The neighbourhood subgraphs of nodes of similar degree searched together "
            "as one block-diagonal graph (many-source BFS); ``1 / d`` added in NetworkX's "
            "order.")
def local_efficiency(G):
    """NetworkX's ``local_efficiency`` (undirected graphs).

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.complete_graph(4); G.add_edge(3, 4)
    >>> nx.local_efficiency(G, backend="spbfs")
    0.7
    """
    n = len(G)
    if not n:
        raise ZeroDivisionError("division by zero")  # NetworkX's mean over no nodes
    M = G.csr(False)
    indptr = to_numpy(M.indptr).astype(np.int64)
    deg = np.diff(indptr)
    keys = to_numpy(M.entry_rows).astype(np.int64) * n + to_numpy(M.indices)
    source_entry = np.searchsorted(keys, to_numpy(M.entry_rows).astype(np.int64) * n
                                   + _source_order(G, M))
    totals = np.zeros(n)
    order = np.argsort(deg, kind="stable")  # nodes of similar degree share a batch
    cum = np.cumsum(deg[order])  # a batch of m entries has m x m distances
    start = 0
    while start < n:
        stop = max(start + 1, int(np.searchsorted(cum, (cum[start - 1] if start else 0)
                                                  + BLOCK_NODES, side="right")))
        vs = order[start:stop]
        totals[vs] = _block_totals(M, keys, source_entry, vs)
        start = stop
    denom = (deg * (deg - 1)).astype(np.float64)
    eff = np.divide(totals, denom, out=np.zeros(n), where=denom > 0)
    return float(np.cumsum(eff)[-1]) / n
