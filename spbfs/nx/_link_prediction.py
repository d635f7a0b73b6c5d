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
from ._recognition import int_items
from ._registry import dispatched

__all__ = []

CHUNK = 1 << 20


def _non_edge_chunks(G):
    """``(ends, u, v)`` of the pairs of NetworkX's ``non_edges`` (an undirected graph), in
    its order (the same set operations), :data:`CHUNK` pairs or more at a time: each
    node's partners as one list, their labels and rows by C loops, no pair tuple made."""
    firsts, partners, size = [], [], 0
    for u, others in _non_edge_rows(G):
        firsts.append(u)
        partners.append(others)
        size += len(others)
        if size >= CHUNK:
            yield _block_rows(G, firsts, partners)
            firsts, partners, size = [], [], 0
    if size:
        yield _block_rows(G, firsts, partners)


def _non_edge_rows(G):
    """``(u, [v...])`` of each node ``u`` NetworkX's ``non_edges`` pops, with at least one
    partner."""
    indptr, indices = G._indptr, G._indices
    nodes = set(G.nodes)
    index = G.index
    while nodes:
        u = nodes.pop()
        r = index[u]
        others = list(nodes - set(G.labels(indices[indptr[r]:indptr[r + 1]])))
        if others:
            yield u, others


def _block_rows(G, firsts, partners):
    """``((first labels, second labels), u, v)`` of the pairs ``(firsts[i], w)``, ``w`` in
    ``partners[i]`` in turn."""
    counts = list(map(len, partners))
    seconds = list(chain.from_iterable(partners))
    u = np.repeat(_label_rows(G, firsts), counts)
    ends = list(chain.from_iterable(map(repeat, firsts, counts))), seconds
    return ends, u, _label_rows(G, seconds)


def _label_rows(G, labels):
    """The rows of node labels ``labels`` (a list of nodes), by C loops."""
    rows = _int_label_rows(G, labels)
    return _index_rows(G, labels) if rows is None else rows


def _index_rows(G, labels):
    """The rows of node labels ``labels`` (each a node), read from the label dict."""
    return np.fromiter(map(G.index.__getitem__, labels), np.int64, count=len(labels))


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
    return tuple(_index_rows(G, labels) for labels in ends)


def _pair_chunks(G, pairs):
    """``(ends, u, v)`` (:func:`_chunk_rows`) of lists of :data:`CHUNK` pairs taken from
    the iterator ``pairs`` as they are asked for."""
    while chunk := list(islice(pairs, CHUNK)):
        yield _chunk_rows(G, chunk)


def _scores(G, chunks, score):
    """``(a, b, score)`` of each pair of the ``(ends, u, v)`` chunks, scored a chunk at a
    time as the triples are read (``score(M, u, v)`` on the configured device's matrix),
    the triples made by C loops: no generator resumed per pair."""
    M = G.csr()

    def scored(chunk):
        ends, u, v = chunk
        values = to_numpy(score(M, M.xp.asarray(u), M.xp.asarray(v))).tolist()
        return zip(*ends, values, strict=True)

    return chain.from_iterable(map(scored, chunks))


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
    ``G``'s labels are its rows and every label is an int of the graph (see
    :func:`_int_label_rows`); None otherwise."""
    if not ends[0]:
        return None
    u = _int_label_rows(G, ends[0])
    v = _int_label_rows(G, ends[1]) if u is not None else None
    return None if v is None else (u, v)


def _int_label_rows(G, labels):
    """The rows of the list ``labels`` where ``G``'s labels are its rows and every label is
    an int of the graph (:func:`~spbfs.nx._recognition.int_items`); None otherwise."""
    rows = int_items(G, labels) if labels else None
    if rows is None or int(rows.min()) < 0 or int(rows.max()) >= len(G):
        return None  # an absent node: the checks name it
    return rows


# ------------------------------------------------------------- the CPU's compiled pass

def _host_predict(G, ebunch, kind):
    """NetworkX's ``_apply_prediction`` on the CPU: the pairs checked and scored now
    (NodeNotFound as NetworkX's; the non-edges a chunk at a time as they are read), a pair
    that makes NetworkX raise raising when it is reached."""
    if ebunch is None:
        return _host_chunks(G, kind)
    return _host_triples(G, *_chunk_rows(G, list(ebunch), checked=False), kind)


def _host_chunks(G, kind):
    return chain.from_iterable(map(lambda rows: _host_triples(G, *rows, kind),
                                   _non_edge_chunks(G)))


def _host_triples(G, ends, u, v, kind):
    """``(a, b, value)`` for the pairs of labels ``ends`` (their first and their second
    items) and rows ``u`` and ``v``: a ``zip`` (C loops), or where NetworkX raises at a
    pair, a generator of those before it that raises there."""
    values, stop, error = _host_values(G, u, v, kind)
    first, second = ends
    if stop is None:
        return zip(first, second, values, strict=True)
    return _raising(zip(first[:stop], second[:stop], values[:stop], strict=True), error)


def _raising(triples, error):
    import networkx as nx

    yield from triples
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
        values = _int_zeros_at(ratio, union == 0)
    else:
        values = _int_zeros_at(total, common == 0)
    if kind == "aa":
        bad = np.flatnonzero(np.isinf(total))
        if bad.size:
            return values, int(bad[0]), ZeroDivisionError
    return values, None, None


def _int_zeros_at(x, ints):
    """The floats of ``x`` as a list, NetworkX's int 0 where ``ints`` (the floats made
    only where they are kept)."""
    if not ints.any():
        return x.tolist()
    out = np.zeros(x.size, object)  # int zeros
    keep = np.flatnonzero(~ints)
    out[keep] = x[keep]
    return out.tolist()


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
    chunks = (_non_edge_chunks(G) if ebunch is None else
              _pair_chunks(G, _checked(G, ebunch)))

    def score(M, u, v):
        try:
            return _ccpa(M, u, v, alpha)
        except ValueError as err:
            raise nx.NetworkXAlgorithmError(str(err)) from None

    return _scores(G, chunks, score)
