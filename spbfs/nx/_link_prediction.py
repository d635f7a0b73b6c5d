"""Link prediction through :mod:`spbfs.algorithms.link_prediction`: the pairs are scored in
chunks, each chunk one masked product, and yielded in NetworkX's order (``ebunch``'s, or
``networkx.non_edges``' when it is None)."""

from __future__ import annotations

from itertools import islice

import numpy as np

from ..algorithms.link_prediction import (
    adamic_adar_index as _adamic_adar,
)
from ..algorithms.link_prediction import (
    common_neighbor_centrality as _ccpa,
)
from ..algorithms.link_prediction import (
    jaccard_coefficient as _jaccard,
)
from ..algorithms.link_prediction import (
    resource_allocation_index as _resource_allocation,
)
from ..core.arrays import to_numpy
from ._registry import dispatched

__all__ = []

CHUNK = 1 << 20


def _non_edges(G):
    """NetworkX's ``non_edges`` order for an undirected graph (the same set operations)."""
    indptr, indices = G._indptr, G._indices
    nodes = set(G.nodes)
    while nodes:
        u = nodes.pop()
        r = G.index[u]
        for v in nodes - set(G.labels(indices[indptr[r]:indptr[r + 1]])):
            yield u, v


def _checked(G, ebunch):
    """The pairs of ``ebunch``, checked at once (NetworkX raises before iterating)."""
    import networkx as nx

    pairs = list(ebunch)
    index = G.index
    try:  # the label dict's own lookups; an unhashable label is no node either
        missing = next((w for u, v in pairs for w in (u, v) if w not in index), index)
    except TypeError:
        missing = next(w for u, v in pairs for w in (u, v) if w not in G)
    if missing is not index:
        raise nx.NodeNotFound(f"Node {missing} not in G.")
    return iter(pairs)


def _predict(G, ebunch, score, zero):
    """NetworkX's ``_apply_prediction``: checks now, scores lazily."""
    pairs = _non_edges(G) if ebunch is None else _checked(G, ebunch)
    return ((u, v, 0 if zero(G, u, v, p) else p) for u, v, p in _scores(G, pairs, score))


def _no_sum(G, u, v, p):  # NetworkX's sum over no common neighbour is the int 0
    return not p


def _finite_sum(G, u, v, p):
    if p == float("inf"):  # NetworkX's 1 / log(1) for a neighbour of degree 1
        raise ZeroDivisionError("float division by zero")
    return not p


def _empty_union(G, u, v, p):
    rows = G._indptr
    a, b = G.index[u], G.index[v]
    return rows[a] == rows[a + 1] and rows[b] == rows[b + 1]


def _scores(G, pairs, score):
    M = G.csr()
    index = G.index
    while True:
        chunk = list(islice(pairs, CHUNK))
        if not chunk:
            return
        u = np.fromiter((index[a] for a, _ in chunk), np.int64, count=len(chunk))
        v = np.fromiter((index[b] for _, b in chunk), np.int64, count=len(chunk))
        values = to_numpy(score(M, M.xp.asarray(u), M.xp.asarray(v))).tolist()
        for (a, b), s in zip(chunk, values, strict=True):
            yield a, b, s


_DOCS = "Same pairs and order as NetworkX; values equal to rounding (sums in another order)."


@dispatched(docs=_DOCS)
def jaccard_coefficient(G, ebunch=None):
    """NetworkX's ``jaccard_coefficient``: ``(u, v, p)`` triples.

    Examples
    --------
    >>> import networkx as nx
    >>> list(nx.jaccard_coefficient(nx.cycle_graph(4), [(0, 2)], backend="spbfs"))
    [(0, 2, 1.0)]
    """
    return _predict(G, ebunch, _jaccard, _empty_union)


@dispatched(docs=_DOCS)
def resource_allocation_index(G, ebunch=None):
    """NetworkX's ``resource_allocation_index``.

    Examples
    --------
    >>> import networkx as nx
    >>> list(nx.resource_allocation_index(nx.cycle_graph(4), [(0, 2)], backend="spbfs"))
    [(0, 2, 1.0)]
    """
    return _predict(G, ebunch, _resource_allocation, _no_sum)


@dispatched(docs=_DOCS)
def adamic_adar_index(G, ebunch=None):
    """NetworkX's ``adamic_adar_index``.

    Examples
    --------
    >>> import networkx as nx
    >>> [(u, v, round(p, 4)) for u, v, p in nx.adamic_adar_index(nx.cycle_graph(4), [(0, 2)],
    ...                                                          backend="spbfs")]
    [(0, 2, 2.8854)]
    """
    return _predict(G, ebunch, _adamic_adar, _finite_sum)


@dispatched(docs=_DOCS + " Distances by many-source BFS from the pairs' first nodes.")
def common_neighbor_centrality(G, ebunch=None, alpha=0.8):
    """NetworkX's ``common_neighbor_centrality``.

    Examples
    --------
    >>> import networkx as nx
    >>> list(nx.common_neighbor_centrality(nx.cycle_graph(4), [(0, 2)], backend="spbfs"))
    [(0, 2, 2.0)]
    """
    import networkx as nx

    pairs = _non_edges(G) if ebunch is None else _checked(G, ebunch)

    def score(M, u, v):
        try:
            return _ccpa(M, u, v, alpha)
        except ValueError as err:
            raise nx.NetworkXAlgorithmError(str(err)) from None

    if alpha == 1:  # NetworkX's len(common_neighbors): an int
        return ((u, v, int(p)) for u, v, p in _scores(G, pairs, score))
    return _scores(G, pairs, score)
