"""Graph operators: ``complement``, ``reverse`` and ``difference``.

The kept or made edges are found on arrays (the complement's pattern, the transpose, the
entries of ``G`` that ``H`` lacks, found by a search in ``H``'s sorted keys); the result
graph is then built as NetworkX's ``add_edge`` calls leave it (the same adjacency orders,
one data dict per edge shared by its two entries) with C loops (``map``, ``zip``,
``islice``) from those arrays.
"""

from __future__ import annotations

from copy import deepcopy
from itertools import islice, repeat

import numpy as np

from ..core.arrays import to_numpy
from ._registry import dispatched

__all__ = ["build_graph"]


def _nested(keys, labels, values, counts):
    pairs = zip(labels, values, strict=True)
    return dict(zip(keys, map(dict, map(islice, repeat(pairs), counts.tolist())), strict=True))


def _fresh(k):
    return list(map(dict, repeat((), k)))


def build_graph(cls, nodes, node_dicts, pu, pv, datas=None, graph=None):
    """A graph of class ``cls`` on ``nodes`` (node ``i`` = ``nodes[i]``, attributes
    ``node_dicts``) with the edges ``pu[k] -> pv[k]`` added by ``add_edge`` in that order,
    each with the data dict ``datas[k]`` (new empty dicts if None), as NetworkX's own
    ``add_edge`` calls leave it.  Undirected: both entries of each edge given, grouped by
    row (``pu`` ascending), the edge made at its entry with ``pv >= pu`` (the entries with
    ``pv >= pu`` in the order of the calls), its mirror entry sharing its dict."""
    H = cls()
    if graph:
        H.graph.update(graph)
    n = len(nodes)
    H._node = dict(zip(nodes, node_dicts, strict=True))
    labels = np.fromiter(nodes, object, count=n)
    counts = np.bincount(pu, minlength=n)
    if H.is_directed():  # each end's dict fills in the order of the add_edge calls
        datas = np.fromiter(_fresh(pu.size) if datas is None else datas, object,
                            count=pu.size)
        out = np.argsort(pu, kind="stable")
        H._adj = H._succ = _nested(nodes, labels[pv[out]].tolist(), datas[out].tolist(),
                                   counts)
        into = np.argsort(pv, kind="stable")
        H._pred = _nested(nodes, labels[pu[into]].tolist(), datas[into].tolist(),
                          np.bincount(pv, minlength=n))
        return H
    first = pv >= pu
    made = np.flatnonzero(first)
    dicts = np.fromiter(_fresh(made.size) if datas is None else datas, object,
                        count=made.size)
    edge = np.empty(pu.size, np.int64)
    edge[made] = np.arange(made.size)
    key = pu[made] * n + pv[made]
    sort = np.argsort(key)
    later = ~first
    edge[later] = sort[np.searchsorted(key[sort], pv[later] * n + pu[later])]
    rank = np.arange(pu.size) - (np.cumsum(counts) - counts)[pu]
    order = np.argsort(pu * (2 * n) + np.where(first, n + rank, pv), kind="stable")
    H._adj = _nested(nodes, labels[pv[order]].tolist(), dicts[edge[order]].tolist(), counts)
    return H


def _no_multigraph(arguments):
    if any(g.is_multigraph() for g in (arguments.get("G"), arguments.get("H")) if g):
        return "multigraphs run in NetworkX (edge keys)"
    return True


@dispatched(can_run=_no_multigraph, docs="The complement of the pattern (all pairs less the "
            "stored entries and the diagonal), built as NetworkX's ``add_edges_from`` "
            "builds it; multigraphs run in NetworkX.")
def complement(G):
    """NetworkX's ``complement``.

    Examples
    --------
    >>> import networkx as nx
    >>> sorted(nx.complement(nx.path_graph(4), backend="spbfs").edges)
    [(0, 2), (0, 3), (1, 3)]
    """
    n = len(G)
    cls = type(G.networkx_graph())
    rows, cols = G.entry_rows(), G._indices.astype(np.int64)
    keep = np.ones(n * n, bool)
    keep[rows * n + cols] = False
    keep[np.arange(n) * (n + 1)] = False
    at = np.flatnonzero(keep)
    return build_graph(cls, G.nodes, _fresh(n), at // n, at % n)


@dispatched(can_run=lambda a: True if a.get("copy", True) else
            "copy=False returns NetworkX's reverse view", docs="The transpose, each row in "
            "the order NetworkX's ``add_edges_from`` of the reversed edges fills it; "
            "attributes deep-copied as NetworkX copies them.")
def reverse(G, copy=True):
    """NetworkX's ``reverse`` with ``copy=True``.

    Examples
    --------
    >>> import networkx as nx
    >>> list(nx.reverse(nx.DiGraph([(0, 1), (1, 2)]), backend="spbfs").edges)
    [(1, 0), (2, 1)]
    """
    import networkx as nx

    if not G.is_directed():
        raise nx.NetworkXError("Cannot reverse an undirected graph.")
    orig = G.networkx_graph()
    n = len(G)
    # NetworkX adds (v, u) for G's edges (u, v) in G's order: build_graph's stable sorts
    # by each end transpose them
    pu, pv = G._indices.astype(np.int64), G.entry_rows()
    nodes = G.nodes
    node_dicts = list(map(orig._node.__getitem__, nodes))
    node_dicts = (list(map(deepcopy, node_dicts)) if any(map(bool, node_dicts))
                  else _fresh(n))
    labels = np.fromiter(nodes, object, count=n)
    datas = list(map(dict.__getitem__, map(orig._succ.__getitem__, labels[pv].tolist()),
                     labels[pu].tolist()))
    datas = list(map(deepcopy, datas)) if any(map(bool, datas)) else None
    return build_graph(type(orig), nodes, node_dicts, pu, pv, datas,
                       deepcopy(orig.graph))


def _missing_in(G, H, rows, cols):
    """Whether each edge ``rows[k] -> cols[k]`` of ``G`` (rows of ``G``) is absent from
    ``H`` (a search in ``H``'s sorted keys)."""
    n = len(H)
    M = H.csr(False)
    keys = to_numpy(M.entry_rows).astype(np.int64) * n + to_numpy(M.indices)
    hrow = np.fromiter(map(H.index.__getitem__, G.nodes), np.int64, count=len(G))
    probe = hrow[rows] * n + hrow[cols]
    if not keys.size:
        return np.ones(probe.size, bool)
    at = np.minimum(np.searchsorted(keys, probe), keys.size - 1)
    return keys[at] != probe


@dispatched(can_run=_no_multigraph, docs="``G``'s entries looked up in ``H``'s sorted keys; "
            "the result built as NetworkX's ``add_edge`` calls build it; multigraphs run in "
            "NetworkX.")
def difference(G, H):
    """NetworkX's ``difference``: the edges of ``G`` not in ``H`` (same node sets).

    Examples
    --------
    >>> import networkx as nx
    >>> list(nx.difference(nx.cycle_graph(4), nx.path_graph(4), backend="spbfs").edges)
    [(0, 3)]
    """
    import networkx as nx

    if G.is_multigraph() != H.is_multigraph():
        raise nx.NetworkXError("G and H must both be graphs or multigraphs.")
    if set(G.nodes) != set(H.nodes):
        raise nx.NetworkXError("Node sets of graphs not equal")
    rows, cols = G.entry_rows(), G._indices.astype(np.int64)
    keep = _missing_in(G, H, rows, cols)
    if not G.is_directed():  # NetworkX's G.edges() has each edge once, from its first end
        keep &= cols >= rows
    cls = type(G.networkx_graph())
    n = len(G)
    pu, pv = rows[keep], cols[keep]
    if not G.is_directed():  # both entries, the mirror after, in its row's order
        pu, pv = _mirrored(G, pu, pv)
    return build_graph(cls, G.nodes, _fresh(n), pu, pv)


def _mirrored(G, pu, pv):
    """The entries ``pu -> pv`` (each undirected edge once, ``pv >= pu``) and their mirrors,
    grouped by row: the mirrors first (``build_graph`` orders them by their far end), then
    the entries in their order."""
    loops = pu == pv
    mu, mv = pv[~loops], pu[~loops]
    allu, allv = np.concatenate([mu, pu]), np.concatenate([mv, pv])
    order = np.argsort(allu, kind="stable")
    return allu[order], allv[order]
