"""Efficiency: ``efficiency``, ``global_efficiency`` and ``local_efficiency`` from many-source
BFS (:func:`spbfs.bfs` with a list of sources).

NetworkX adds ``1 / d`` over the pairs in its own order (sources in node order, each
source's targets in BFS order, so by distance): each source's distances are counted and
``1 / d`` added that many times from the nearest, one at a time
(:func:`spbfs.cpu.efficiency.inverse_distance_sums`, on the host's copy of the levels),
so totals equal NetworkX's float for float.  Local efficiency runs the searches of every
node's neighbourhood subgraph at once, on one block-diagonal graph whose nodes are the stored
entries ``(v, x)`` (``x`` a neighbour of ``v``), ``(v, x) -> (v, y)`` where ``x -> y``.
"""

from __future__ import annotations

from itertools import chain

import numpy as np
import scipy.sparse as sp

from ..algorithms.bfs import bfs
from ..core.arrays import to_numpy
from ..core.csr import expand
from ..cpu.efficiency import inverse_distance_sums
from ..cpu.pysum import python_sum
from ._dense import ALL_PAIRS_GPU_MIN_ENTRIES
from ._registry import dispatched
from ._traversal import bidirectional_hops

__all__ = []

#: Distances computed together (a batch of sources times the nodes searched), int32.
BATCH_ENTRIES = 1 << 22
#: Neighbourhood-subgraph nodes searched together by local efficiency (their distances make
#: a square array of this side).
BLOCK_NODES = 1 << 10
#: Nodes up to which local efficiency finds stored entries in a table of every position
#: (int32: 16 MB at most).
TABLE_NODES = 1 << 11


@dispatched(docs="Two level searches towards each other, the level with fewer arcs first "
            "(a BFS's length).")
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
    hops = bidirectional_hops(G, u, v)
    return 1 / hops if hops > 0 else 0


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
        rows = np.arange(min(batch, n - start))
        levels = to_numpy(bfs(M, start + rows))
        inverse_distance_sums(levels, np.zeros(1, np.int64), np.array([n]), rows,
                              np.array([0, rows.size]), total)
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


def _entry_finder(keys, n):
    """The stored entry of each key ``row * n + column`` (-1 where none), from the sorted
    ``keys`` of the entries: a table of every position for up to :data:`TABLE_NODES`
    nodes, else a binary search (on the VM, 18 of local efficiency's 87 ms at 1,024 nodes
    were binary searches)."""
    if n <= TABLE_NODES:
        table = np.full(n * n, -1, np.int32)
        table[keys] = np.arange(keys.size, dtype=np.int32)
        return table.__getitem__

    def search(probe):
        at = np.minimum(np.searchsorted(keys, probe), keys.size - 1)
        return np.where(keys[at] == probe, at, -1)
    return search


def _block_totals(indptr, indices, find, source_entry, local, vs):
    """The sum of ``1 / d`` over each node of ``vs``'s neighbourhood subgraph, in NetworkX's
    order: one many-source BFS on the block-diagonal graph of those subgraphs (the host's
    int64 CSR ``indptr``, ``indices``; ``local``: scratch of one int64 per entry, read only
    where this block writes it)."""
    n = indptr.size - 1
    e, block = expand(indptr, vs)  # the subgraphs' nodes: the entries (v, x)
    m = e.size
    deg = indptr[vs + 1] - indptr[vs]
    if m == 0:
        return np.zeros(vs.size)
    local[e] = np.arange(m)  # the entries of vs's rows: all that the block reads
    at, which = expand(indptr, indices[e])  # x -> y for each (v, x)
    probe = vs[block[which]] * n + indices[at]
    f = find(probe)
    found = f >= 0  # (v, y) is an entry: y is in v's subgraph too
    B = sp.csr_array((np.ones(int(found.sum()), bool), (which[found], local[f[found]])),
                     shape=(m, m))
    levels = to_numpy(bfs(B, np.arange(m)))
    # each subgraph's sources in NetworkX's order, over their own subgraph's columns
    ends = np.cumsum(deg)
    totals = np.zeros(vs.size)
    inverse_distance_sums(levels, ends - deg, deg, local[source_entry[e]],
                          np.append(0, ends), totals)
    return totals


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
    indices = to_numpy(M.indices).astype(np.int64)
    local = np.empty(indices.size, np.int64)
    deg = np.diff(indptr)
    rows = to_numpy(M.entry_rows).astype(np.int64) * n
    find = _entry_finder(rows + to_numpy(M.indices), n)
    source_entry = find(rows + _source_order(G, M))
    totals = np.zeros(n)
    order = np.argsort(deg, kind="stable")  # nodes of similar degree share a batch
    cum = np.cumsum(deg[order])  # a batch of m entries has m x m distances
    start = 0
    while start < n:
        stop = max(start + 1, int(np.searchsorted(cum, (cum[start - 1] if start else 0)
                                                  + BLOCK_NODES, side="right")))
        vs = order[start:stop]
        totals[vs] = _block_totals(indptr, indices, find, source_entry, local, vs)
        start = stop
    denom = (deg * (deg - 1)).astype(np.float64)
    eff = np.divide(totals, denom, out=np.zeros(n), where=denom > 0)
    return python_sum(eff) / n  # NetworkX's sum() of the nodes' efficiencies
