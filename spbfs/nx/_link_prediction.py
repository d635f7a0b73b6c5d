"""Link prediction: the pairs are scored in chunks and yielded in NetworkX's order
(``ebunch``'s, or ``networkx.non_edges``' when it is None).  Each chunk is one compiled pass
over the pairs' rows on the host (:func:`spbfs.cpu.pairs.common_neighbours`), with the GPU
configured too (the pairs are Python objects: on one H200 the device's masked products took
6-22 ms for 1,000 pairs where NetworkX takes 18 ms to 1.35 s); ``common_neighbor_centrality``
with ``alpha < 1`` (its distances) is one masked product of
:mod:`spbfs.algorithms.link_prediction` on the configured device."""

from __future__ import annotations

import math
from itertools import chain, islice, repeat
from operator import itemgetter

import numpy as np

from ..algorithms.link_prediction import (
    common_neighbor_centrality as _ccpa,
)
from ..core.arrays import to_numpy
from ..cpu.pairs import common_neighbours
from ._registry import dispatched

__all__ = []

CHUNK = 1 << 20


def _non_edges(G):
    """NetworkX's ``non_edges`` order for an undirected graph (the same set operations), an
    iterator over the pairs of each node in turn by C loops."""
    return chain.from_iterable(_non_edge_rows(G))


def _non_edge_rows(G):
    indptr, indices = G._indptr, G._indices
    nodes = set(G.nodes)
    index = G.index
    while nodes:
        u = nodes.pop()
        r = index[u]
        yield zip(repeat(u), nodes - set(G.labels(indices[indptr[r]:indptr[r + 1]])))


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


def _rows(G, ends):
    """The rows of the pairs' two ends ``ends`` (their first and their second labels,
    every label checked a node already)."""
    index = G.index
    return tuple(np.fromiter(map(index.__getitem__, labels), np.int64, count=len(labels))
                 for labels in ends)


def _chunks(pairs):
    """Lists of :data:`CHUNK` pairs taken from the iterator ``pairs`` as they are asked
    for."""
    while chunk := list(islice(pairs, CHUNK)):
        yield chunk


def _scores(G, pairs, score):
    """``(a, b, score)`` of each pair, scored a chunk at a time as the triples are read
    (``score(M, u, v)`` on the configured device's matrix), the triples made by C loops:
    no generator resumed per pair."""
    M = G.csr()

    def scored(chunk):
        ends, u, v = _chunk_rows(G, chunk)
        values = to_numpy(score(M, M.xp.asarray(u), M.xp.asarray(v))).tolist()
        return zip(*ends, values, strict=True)

    return chain.from_iterable(map(scored, _chunks(pairs)))


def _chunk_rows(G, pairs, checked=True):
    """``((first labels, second labels), u, v)`` of a list of pairs by C loops: the labels,
    and the rows read by :func:`_int_rows` where it can.  Unless ``checked``, pairs that
    are not all two-item tuples or lists, or whose rows that does not read, are checked
    first (NetworkX's errors, raised now)."""
    plain = checked or _two_items(pairs)
    if not plain:
        _checked(G, pairs)
    try:
        ends = _ends(pairs)
    except (TypeError, KeyError, IndexError):  # pairs that unpack but take no index
        ends = tuple(zip(*pairs, strict=True)) if pairs else ((), ())
    rows = _int_rows(G, ends) if plain else None
    if rows is None:
        if plain and not checked:
            _checked(G, pairs)
        rows = _rows(G, ends)
    return ends, *rows


def _two_items(pairs):
    """Whether every item of ``pairs`` is a tuple or a list of two items."""
    return set(map(type, pairs)) <= {tuple, list} and set(map(len, pairs)) <= {2}


def _ends(pairs):
    """The first and the second items of ``pairs`` (indexable), as two lists."""
    return list(map(itemgetter(0), pairs)), list(map(itemgetter(1), pairs))


def _int_rows(G, ends):
    """The rows of the pairs' ends ``ends`` (their first and their second labels) where
    ``G``'s labels are its rows and every label is an int of the graph, read by C loops
    (``sum`` is an int only where every label adds as one: a float or a string leaves the
    fast path); None otherwise."""
    if not G._identity or not ends[0]:
        return None
    try:
        if any(type(sum(labels)) is not int for labels in ends):
            return None
        u, v = (np.fromiter(labels, np.int64, count=len(labels)) for labels in ends)
    except (TypeError, OverflowError, ValueError):
        return None
    if min(int(u.min()), int(v.min())) < 0 or max(int(u.max()), int(v.max())) >= len(G):
        return None  # an absent node: the checks name it
    return u, v


# ------------------------------------------------------------- the CPU's compiled pass

def _host_predict(G, ebunch, kind):
    """NetworkX's ``_apply_prediction`` on the CPU: the pairs checked now (NodeNotFound as
    NetworkX's), their triples yielded lazily, a pair that makes NetworkX raise raising
    when it is reached."""
    if ebunch is None:
        return _host_chunks(G, _non_edges(G), kind)
    return _host_triples(G, *_chunk_rows(G, list(ebunch), checked=False), kind)


def _host_chunks(G, pairs, kind):
    for chunk in _chunks(pairs):
        yield from _host_triples(G, *_chunk_rows(G, chunk), kind)


def _host_triples(G, ends, u, v, kind):
    """``(a, b, value)`` for the pairs of labels ``ends`` (their first and their second
    items) and rows ``u`` and ``v`` (a generator)."""
    import networkx as nx

    values, stop, error = _host_values(G, u, v, kind)
    first, second = ends
    if stop is None:
        yield from zip(first, second, values, strict=True)
        return
    yield from zip(first[:stop], second[:stop], values[:stop], strict=True)
    if error is ZeroDivisionError:
        raise ZeroDivisionError("float division by zero")
    raise nx.NetworkXAlgorithmError("Self loops are not supported")


def _host_values(G, u, v, kind):
    """The pairs' values as NetworkX makes them (ints where its sum is empty or its union
    is), and the position of the first pair where NetworkX raises, with the error's kind
    (or None, None)."""
    M = G.csr(False)
    scale = _scale(G, kind) if kind in ("ra", "aa") else None
    common, shared, total = common_neighbours(M.indptr, M.indices, u, v, scale)
    if kind == "cn":  # NetworkX raises at a pair (u, u)
        loops = np.flatnonzero(u == v)
        return common.tolist(), (int(loops[0]) if loops.size else None), "self loop"
    if kind == "jaccard":
        _, size = _degree(G)
        union = size[u] + size[v] - shared
        ratio = np.zeros(u.size, np.float64)
        np.divide(common, union, out=ratio, where=union > 0)
        values, ints = ratio.astype(object), union == 0
    else:
        values, ints = total.astype(object), common == 0
    values[ints] = 0  # NetworkX's int 0
    values = values.tolist()
    if kind == "aa":
        bad = np.flatnonzero(np.isinf(total))
        if bad.size:
            return values, int(bad[0]), ZeroDivisionError
    return values, None, None


def _degree(G):
    """NetworkX's ``G.degree`` per row (a self-loop counted twice), and the number of
    distinct neighbours; kept with the graph."""
    def build():
        M = G.csr(False)
        size = np.diff(M.indptr).astype(np.int64)
        loops = np.zeros(len(G), np.int64)
        rows = np.repeat(np.arange(len(G)), size)
        loops[rows[rows == M.indices]] = 1
        return size + loops, size
    return G._once(("link degree",), build)


def _scale(G, kind):
    """Per row, NetworkX's term for a common neighbour of that degree: ``1 / d`` (resource
    allocation) or ``1 / log(d)`` (Adamic-Adar; ``inf`` for ``d = 1``, where NetworkX divides
    by zero), each computed by Python's own ``math`` on the distinct degrees."""
    def build():
        degree, _ = _degree(G)
        values, at = np.unique(degree, return_inverse=True)
        terms = []
        for d in values.tolist():
            if d == 0:
                terms.append(0.0)
            elif kind == "ra":
                terms.append(1 / d)
            else:
                terms.append(float("inf") if d == 1 else 1 / math.log(d))
        return np.array(terms, np.float64)[at.ravel()]
    return G._once(("link scale", kind), build)


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
    return _host_predict(G, ebunch, "jaccard")


@dispatched(docs=_DOCS)
def resource_allocation_index(G, ebunch=None):
    """NetworkX's ``resource_allocation_index``.

    Examples
    --------
    >>> import networkx as nx
    >>> list(nx.resource_allocation_index(nx.cycle_graph(4), [(0, 2)], backend="spbfs"))
    [(0, 2, 1.0)]
    """
    return _host_predict(G, ebunch, "ra")


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
    return _host_predict(G, ebunch, "aa")


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

    if alpha == 1:  # NetworkX's len(common_neighbors), an int
        return _host_predict(G, ebunch, "cn")
    pairs = _non_edges(G) if ebunch is None else _checked(G, ebunch)

    def score(M, u, v):
        try:
            return _ccpa(M, u, v, alpha)
        except ValueError as err:
            raise nx.NetworkXAlgorithmError(str(err)) from None

    return _scores(G, pairs, score)
