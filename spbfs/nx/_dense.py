"""All-pairs distances: NetworkX's Floyd-Warshall family.

The dict functions run NetworkX's own triple loop, in its order, as one compiled call over
the host's threads (:func:`spbfs.cpu.floyd.floyd_warshall_rows`): the same sums in the same
order, so the distances are NetworkX's to the last bit and each predecessor is the one its
loop keeps among equally short paths; the pivot at which a pair is first reached orders
the keys of the predecessor dicts as NetworkX's are.  ``floyd_warshall_numpy``, whose
result is the matrix alone, runs :func:`spbfs.sssp` with every vertex as a source (one
iteration on a dense ``n x n`` block, on the GPU when configured and the graph is large
enough to pay its launches).
"""

from __future__ import annotations

from collections import defaultdict
from operator import getitem

import numpy as np

from ..algorithms.sssp import sssp
from ..core.arrays import to_numpy
from ..cpu.floyd import floyd_warshall_rows
from ..cpu.fwkeys import floyd_key_orders
from ._registry import dispatched
from ._shortest import _weight_is_name

__all__ = []

_DOCS = ("Non-negative all-int or all-float weights (others run in NetworkX); a missing "
         "weight counts as the int 1 where NetworkX's Floyd-Warshall uses 1.0.")
_DICT_DOCS = _DOCS + (" NetworkX's own loop in its order, compiled and split over the "
                      "host's threads (with the GPU configured too: the loop is over once "
                      "the dicts are made): the same distances to the last bit, "
                      "predecessors and key orders. Bool weights run in NetworkX (its "
                      "distance of an edge is the edge's bool where no path is shorter).")
_NUMPY_DOCS = _DOCS + (" Distances are sums along the path from its start (NetworkX adds "
                       "in its loop's order, so float sums may differ in the last bit).")


#: Stored entries from which all-pairs searches (``floyd_warshall_numpy``,
#: ``global_efficiency``) run on a configured GPU: below, the host's finish first
#: (``floyd_warshall`` of a 200-node graph of 4,000 entries by batched searches: 49 ms on
#: an H200, 38 ms on its host's CPU, 10-12 ms on a 2-core VM; 1,000 nodes and 40,000
#: entries: 53 ms on the H200, 249 ms on the 2-core VM; ``global_efficiency`` of 1,024
#: nodes and 14,452 entries: 133 ms on the H200, 29 ms on the 2-core VM).
ALL_PAIRS_GPU_MIN_ENTRIES = 1 << 14


def _dict_weights(G, weight):
    """``G.weights(weight)`` for the distance dicts, declining bools: NetworkX's distance of
    an edge is the edge's own weight where no path is shorter, a bool there."""
    values, kind = G.weights(weight)
    if weight in G._some_bools:
        raise NotImplementedError(f"edge attribute {weight!r} has bools: NetworkX's "
                                  "distance of such an edge is the bool")
    return values, kind


def _floyd_warshall(G, values, tracked=True):
    """NetworkX's Floyd-Warshall loop on ``G`` (edge weights ``values`` per stored entry):
    ``(dist, pred, reached)``, ``n x n`` arrays (:func:`~spbfs.cpu.floyd.floyd_warshall_rows`;
    unless ``tracked``, the distances alone and two empty arrays).  ``reached`` orders each
    row's predecessor keys as NetworkX adds them: its edges as ``G.edges()`` lists them (an
    undirected edge ``(u, v)`` sets ``pred[u][v]`` then ``pred[v][u]``), then the pairs its
    loop reaches, pivot by pivot; -1 where none."""
    n = len(G)
    rows, cols = G.entry_rows(), G._indices
    dist = np.full((n, n), np.inf)
    np.minimum.at(dist, (rows, cols), values.astype(np.float64))  # parallel edges
    np.fill_diagonal(dist, 0.0)  # NetworkX's min(w, 0) of a loop, w >= 0
    if not tracked:
        none = np.zeros((0, 0), np.int64)
        floyd_warshall_rows(dist, none, none)
        return dist, none, none
    pred = np.full((n, n), -1, np.int64)
    pred[rows, cols] = rows
    entry = np.arange(rows.size, dtype=np.int64)
    if G.is_directed():
        firsts = [(rows, cols, entry)]
    else:  # G.edges() lists (u, v) once, from the earlier node
        listed = cols >= rows
        firsts = [(rows[listed], cols[listed], 2 * entry[listed]),
                  (cols[listed], rows[listed], 2 * entry[listed] + 1)]
    after = 2 * rows.size + 1
    reached = np.full((n, n), after, np.int64)
    for r, c, stamp in firsts:
        np.minimum.at(reached, (r, c), stamp)  # a parallel edge's key is set once
    reached[reached == after] = -1
    floyd_warshall_rows(dist, pred, reached, after)
    return dist, pred, reached


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


def _pred_dicts(G, pred, reached):
    """NetworkX's ``dict(pred)``: a dict per node with a predecessor, in the order its
    first edge made it, each keyed in the order :func:`_floyd_warshall`'s ``reached``
    gives (each row's keys sorted to its front, then the rows' lists cut)."""
    present = pred >= 0
    held = np.flatnonzero(present.any(axis=1))
    order = np.argsort(np.where(present, reached, np.iinfo(np.int64).max)[held], axis=1)
    labels = G.node_objects()
    counts = list(map(slice, present[held].sum(axis=1).tolist()))
    keys = map(getitem, labels[order].tolist(), counts)
    values = map(getitem, labels[np.take_along_axis(pred[held], order, axis=1)].tolist(),
                  counts)
    dicts = list(map(dict, map(zip, keys, values)))
    made = reached[held, order[:, 0]].argsort() if held.size else held
    return dict(zip(labels[held[made]].tolist(), map(dicts.__getitem__, made.tolist()),
                    strict=True))


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
    dist, _, _ = _floyd_warshall(G, values, tracked=False)
    return _dist_dicts(G, dist, values, kind)


@dispatched(can_run=_weight_is_name, docs=_NUMPY_DOCS)
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
    G.weights(weight)
    n = len(G)
    if n == 0:
        return np.zeros((0, 0))
    M = G.weighted_csr(weight, G.on_gpu(ALL_PAIRS_GPU_MIN_ENTRIES))
    D = to_numpy(sssp(M, np.arange(n))).reshape(n, n)
    if nodelist is not None:
        perm = np.fromiter(map(G.index.__getitem__, nodelist), np.int64, count=len(G))
        D = D[np.ix_(perm, perm)]
    return np.ascontiguousarray(D, dtype=np.float64)


@dispatched(can_run=_weight_is_name, docs=_DICT_DOCS)
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
    values, kind = _dict_weights(G, weight)
    dist, pred, reached = _floyd_warshall(G, values)
    return _pred_dicts(G, pred, reached), dict(_dist_dicts(G, dist, values, kind))
