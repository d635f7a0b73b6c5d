"""All-pairs distances (NetworkX's Floyd-Warshall family) from batched ``min_plus`` SSSP.

:func:`spbfs.sssp` with every vertex as a source runs the ``n`` searches as one
iteration on a dense ``n x n`` block, which is what these functions return
anyway (on the host copy for graphs too small to pay a GPU's launches).  The predecessors,
and with them ``floyd_warshall_predecessor_and_distance``'s distances, come from every
source's Dijkstra search in one compiled call on the host copy
(:func:`spbfs.cpu.nxdijkstra.dijkstra_parents`).
"""

from __future__ import annotations

from collections import defaultdict
from itertools import islice

import numpy as np

from ..algorithms.sssp import sssp
from ..core.arrays import to_numpy
from ..cpu.fwkeys import floyd_key_orders
from ..cpu.nxdijkstra import dijkstra_parents
from ._registry import dispatched
from ._shortest import _weight_is_name

__all__ = []

_DOCS = ("Non-negative all-int or all-float weights (others run in NetworkX). Distances "
         "are sums along the path from its start (NetworkX's Floyd-Warshall adds in another "
         "order, so float sums may differ in the last bit); a missing weight counts as the "
         "int 1 where NetworkX's Floyd-Warshall uses 1.0.")
_DICT_DOCS = _DOCS + (" Bool weights run in NetworkX (its distance of an edge is the edge's "
                      "bool where no path is shorter).")


#: Stored entries from which all-pairs searches (these distances, ``global_efficiency``) run
#: on a configured GPU: below, the host's finish first (``floyd_warshall`` of a 200-node
#: graph of 4,000 entries: 49 ms on an H200, 38 ms on its host's CPU, 10-12 ms on a 2-core
#: VM; 1,000 nodes and 40,000 entries: 53 ms on the H200, 249 ms on the 2-core VM;
#: ``global_efficiency`` of 1,024 nodes and 14,452 entries: 133 ms on the H200, 29 ms on
#: the 2-core VM).
ALL_PAIRS_GPU_MIN_ENTRIES = 1 << 14


def _all_distances(G, weight):
    values, kind = G.weights(weight)
    n = len(G)
    if n == 0:
        return np.zeros((0, 0)), kind
    M = G.weighted_csr(weight, G.on_gpu(ALL_PAIRS_GPU_MIN_ENTRIES))
    D = to_numpy(sssp(M, np.arange(n)))
    return D.reshape(n, n), kind


def _dict_weights(G, weight):
    """``G.weights(weight)`` for the distance dicts, declining bools: NetworkX's distance of
    an edge is the edge's own weight where no path is shorter, a bool there."""
    values, kind = G.weights(weight)
    if weight in G._some_bools:
        raise NotImplementedError(f"edge attribute {weight!r} has bools: NetworkX's "
                                  "distance of such an edge is the bool")
    return values, kind


def _dist_dicts(G, D, values, kind):
    """NetworkX's ``{u: defaultdict(inf, {v: distance})}`` of the distance matrix ``D``
    (edge weights ``values`` of ``kind``), every node in each dict (its loop reads each
    pair: inf where unreachable), keyed in NetworkX's order
    (:func:`~spbfs.cpu.fwkeys.floyd_key_orders`); ``dist[u][u]`` is NetworkX's
    ``min(w, 0)`` of a self-loop's weight ``w``: that weight where it is a zero (``0.0``),
    else the int 0."""
    inf = float("inf")
    labels = G.node_objects()
    if kind == "int":
        finite = np.isfinite(D)
        D = np.where(finite, D, 0).astype(np.int64).astype(object)
        D[~finite] = inf
    rows = G.entry_rows()
    zero_loop = (rows == G._indices) & (values == 0)
    diagonal = np.zeros(len(G), object)  # int zeros
    diagonal[rows[zero_loop]] = values[zero_loop].tolist()
    diagonal = diagonal.tolist()

    orders = floyd_key_orders(G._indptr, G._indices, G.is_directed())
    keys = labels[orders].tolist()
    values = np.take_along_axis(D, orders, axis=1).tolist()
    for i, d in enumerate(diagonal):  # column 0 is node i itself
        values[i][0] = d
    return {u: defaultdict(lambda: inf, zip(k, v, strict=True))
            for u, k, v in zip(G, keys, values, strict=True)}


@dispatched(can_run=_weight_is_name, docs=_DICT_DOCS)
def floyd_warshall(G, weight="weight"):
    """NetworkX's ``floyd_warshall``: ``{u: defaultdict(inf, {v: distance})}``.

    Examples
    --------
    >>> import networkx as nx
    >>> d = nx.floyd_warshall(nx.path_graph(3), backend="spbfs")
    >>> dict(d[0]), d[0][2]
    ({0: 0, 1: 1, 2: 2}, 2)
    """
    values, kind = _dict_weights(G, weight)
    D, _ = _all_distances(G, weight)
    return _dist_dicts(G, D, values, kind)


@dispatched(can_run=_weight_is_name, docs=_DOCS)
def floyd_warshall_numpy(G, nodelist=None, weight="weight"):
    """NetworkX's ``floyd_warshall_numpy``: the distance matrix (``inf`` unreachable).

    Examples
    --------
    >>> import networkx as nx
    >>> nx.floyd_warshall_numpy(nx.path_graph(3), backend="spbfs")
    array([[0., 1., 2.],
           [1., 0., 1.],
           [2., 1., 0.]])
    """
    import networkx as nx

    if nodelist is not None:
        if not (len(nodelist) == len(G) == len(set(nodelist))):
            raise nx.NetworkXError("nodelist must contain every node in G with no repeats."
                                   "If you wanted a subgraph of G use G.subgraph(nodelist)")
        for node in nodelist:
            if node not in G:
                raise nx.NetworkXError("nodelist must contain every node in G with no "
                                       "repeats.")
    D, _ = _all_distances(G, weight)
    if nodelist is not None:
        perm = np.fromiter(map(G.index.__getitem__, nodelist), np.int64, count=len(G))
        D = D[np.ix_(perm, perm)]
    return np.ascontiguousarray(D, dtype=np.float64)


@dispatched(can_run=_weight_is_name, docs=_DICT_DOCS + " Among equally short paths ``pred`` "
            "follows Dijkstra's choice, not Floyd-Warshall's, and its dicts list their "
            "targets in another order (``dist`` keeps NetworkX's).")
def floyd_warshall_predecessor_and_distance(G, weight="weight"):
    """NetworkX's ``floyd_warshall_predecessor_and_distance``: ``(pred, dist)``.

    Examples
    --------
    >>> import networkx as nx
    >>> pred, dist = nx.floyd_warshall_predecessor_and_distance(nx.path_graph(3),
    ...                                                         backend="spbfs")
    >>> pred[0], dict(dist[2])
    ({1: 0, 2: 1}, {2: 0, 1: 1, 0: 2})
    """
    # every source's search in one compiled call on the host copy, the GPU configured or
    # not (one device search per source cost 1.3 s for 200 nodes on an H200, NetworkX 1.6
    # s), its distances with its parents: sums along each path from its start, as sssp's
    values, kind = _dict_weights(G, weight)
    parents, D = dijkstra_parents(G._indptr, G._indices, values.astype(np.float64),
                                  np.arange(len(G)), distances=True) if len(G) else (
        None, np.zeros((0, 0)))
    dist = _dist_dicts(G, D, values, kind)
    loops = _self_loops(G)
    labels = G.node_objects()
    rows, cols = np.nonzero(parents >= 0)   # each row's targets in node order
    pairs = zip(labels[cols].tolist(), labels[parents[rows, cols]].tolist(), strict=True)
    pred = {}
    for i, (u, count) in enumerate(zip(G, np.bincount(rows, minlength=len(G)).tolist(),
                                       strict=True)):
        if count or i in loops:  # a row's dict: its loop first, then its pairs in turn
            pred[u] = p = {u: u} if i in loops else {}
            p.update(islice(pairs, count))
    return pred, dict(dist)


def _self_loops(G):
    rows = G.entry_rows()
    return set(rows[rows == G._indices].tolist())
