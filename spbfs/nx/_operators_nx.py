"""Graph operators: ``complement``, ``reverse``, ``difference``, ``symmetric_difference``,
``intersection``, ``compose``, ``union``, ``disjoint_union`` and ``full_join``.

The kept or made edges are found on arrays (the complement's pattern, the transpose, the
entries of ``G`` that ``H`` lacks, found by a search in ``H``'s sorted keys); the result
graph is then built as NetworkX's ``add_edge`` calls leave it (the same adjacency orders,
one data dict per edge shared by its two entries) with C loops (``map``, ``zip``,
``islice``) from those arrays.
"""

from __future__ import annotations

from copy import deepcopy
from itertools import chain, islice, repeat

import numpy as np

from ..core.arrays import to_numpy
from ._graph import row_methods
from ._registry import dispatched

__all__ = ["build_graph", "deep_copies"]


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


def _types(make):
    """The types of the labels ``make()`` iterates and, recursively, of the items of those
    that are tuples."""
    types = set(map(type, make()))
    if tuple in types:
        types |= _types(lambda: chain.from_iterable(x for x in make() if type(x) is tuple))
    return types


def _label_types(G):
    """The types of ``G``'s node labels and of the keys of the adjacency rows of the graph
    it was converted from (the labels its ``edges()`` hands out: ``add_edge(0, 1.0)`` on
    a graph with a node ``1`` keys row ``0`` by ``1.0``), made once per converted graph."""
    def build():
        source = G._source() if G._source is not None else None
        adj = {} if source is None else source._succ if G.is_directed() else source._adj
        return _types(lambda: chain(G.nodes, chain.from_iterable(adj.values())))
    return G._once(("label types",), build)


def _check_labels(*graphs):
    """NotImplementedError (NetworkX runs the call) where the graphs' labels may compare
    equal while of different types (``0``, ``0.0``, ``False``; a type and its subclass):
    NetworkX's result then holds the label objects of its ``add_edge`` calls (a neighbour
    keyed by ``1.0`` under a node ``1``, an ``H``'s ``0.0`` for ``G``'s ``0``), the
    converted graphs only their nodes."""
    import numbers

    types = set().union(*map(_label_types, graphs))
    numeric = [t for t in types if issubclass(t, numbers.Number)]
    if len(numeric) > 1 or any(a is not b and issubclass(a, b) for a in types for b in types):
        raise NotImplementedError("labels of types that compare equal (such as 0, 0.0 and "
                                  "False): NetworkX's result keeps the label objects of "
                                  "its add_edge calls")


#: The caveat of the operators that decline such labels (:func:`_check_labels`).
_LABELS = (" Labels of types that compare equal (``0``, ``0.0``, ``False``) run in "
           "NetworkX (its result keeps the objects of its ``add_edge`` calls).")


def _no_multigraph(arguments):
    # (an empty graph is falsy: `is not None`, so an empty multigraph is one too)
    graphs = (arguments.get("G"), arguments.get("H"))
    if any(g.is_multigraph() for g in graphs if g is not None):
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
            "attributes deep-copied as NetworkX copies them." + _LABELS)
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
    _check_labels(G)
    orig = G.networkx_graph()
    n = len(G)
    # NetworkX adds (v, u) for G's edges (u, v) in G's order: build_graph's stable sorts
    # by each end transpose them
    pu, pv = G._indices.astype(np.int64), G.entry_rows()
    nodes = G.nodes
    node_dicts = list(map(orig._node.__getitem__, nodes))
    node_dicts = deep_copies(node_dicts) if any(map(bool, node_dicts)) else _fresh(n)
    # the stored entries' dicts, row after row in adjacency order: entry e's is the dict of
    # the edge nodes[pv[e]] -> nodes[pu[e]] (C loops over the rows' values, no lookups)
    values, _ = row_methods(orig)
    datas = list(chain.from_iterable(map(values, map(orig._succ.__getitem__, nodes))))
    if len(datas) != pu.size:
        raise RuntimeError("the NetworkX graph changed after it was converted; convert it "
                           "again")
    datas = deep_copies(datas) if any(map(bool, datas)) else None
    return build_graph(type(orig), nodes, node_dicts, pu, pv, datas,
                       deepcopy(orig.graph))


#: The types ``copy.deepcopy`` hands back as they are.
_ATOMIC = frozenset({type(None), int, float, bool, complex, str, bytes})


def deep_copies(dicts):
    """``[copy.deepcopy(d) for d in dicts]``: where every one is a plain dict whose keys and
    values are of types ``deepcopy`` keeps as they are (numbers, strings, None), a shallow
    copy each, which is then the same (the types checked by C loops over all of them);
    else ``deepcopy`` itself.

    Examples
    --------
    >>> a = [{"weight": 1.5}, {}]
    >>> b = deep_copies(a)
    >>> b == a, b[0] is a[0]
    (True, False)
    >>> deep_copies([{"w": [1]}])[0]["w"] is not None
    True
    """
    if set(map(type, dicts)) <= {dict}:
        kinds = set(map(type, chain.from_iterable(dicts)))  # the keys
        kinds.update(map(type, chain.from_iterable(map(dict.values, dicts))))
        if kinds <= _ATOMIC:
            return list(map(dict.copy, dicts))
    return list(map(deepcopy, dicts))


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
            "NetworkX." + _LABELS)
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
    _check_labels(G, H)
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


# ----------------------------------------------------------------- the binary operators

def _from_calls(cls, nodes, node_dicts, a, b, datas=None, graph=None):
    """A graph of class ``cls`` on ``nodes`` (attributes ``node_dicts``) left by the calls
    ``add_edge(nodes[a[k]], nodes[b[k]])`` in the order ``k``, each a new edge (no edge made
    twice, in either direction when undirected), with the data dict ``datas[k]`` (new empty
    dicts if None): each row lists its neighbours in the order of the calls that made them,
    an undirected edge's dict shared by its two entries."""
    H = cls()
    if graph:
        H.graph.update(graph)
    n = len(nodes)
    H._node = dict(zip(nodes, node_dicts, strict=True))
    labels = np.fromiter(nodes, object, count=n)
    k = a.size
    datas = np.fromiter(_fresh(k) if datas is None else datas, object, count=k)
    if H.is_directed():
        out = np.argsort(a, kind="stable")
        H._adj = H._succ = _nested(nodes, labels[b[out]].tolist(), datas[out].tolist(),
                                   np.bincount(a, minlength=n))
        into = np.argsort(b, kind="stable")
        H._pred = _nested(nodes, labels[a[into]].tolist(), datas[into].tolist(),
                          np.bincount(b, minlength=n))
        return H
    other = a != b  # a loop has one entry
    call = np.arange(k)
    rows = np.concatenate([a, b[other]])
    cols = np.concatenate([b, a[other]])
    calls = np.concatenate([call, call[other]])
    order = np.argsort(rows * max(k, 1) + calls, kind="stable")
    H._adj = _nested(nodes, labels[cols[order]].tolist(), datas[calls[order]].tolist(),
                     np.bincount(rows, minlength=n))
    return H


def _edge_key(a, b, n, directed):
    if directed:
        return a * n + b
    return np.minimum(a, b) * n + np.maximum(a, b)


def _graph_edges(G):
    """``G.edges()`` as rows ``(u, v)``: each undirected edge once, from its first end."""
    entries = G.edge_entries()
    return G.entry_rows()[entries], G._indices[entries].astype(np.int64)


def _all_edge_datas(orig, G):
    """The data dicts of ``orig``'s edges in ``G.edges()`` order (:func:`_graph_edges`):
    every entry's dict (:meth:`~spbfs.nx.SpbfsGraph.entry_datas`), those of the edges' first
    entries taken; no lookup per edge."""
    return G.entry_datas(orig)[G.edge_entries()].tolist()


def _node_copies(orig, nodes):
    return list(map(dict.copy, map(orig._node.__getitem__, nodes)))


def _source_class(G):
    import networkx as nx

    graph = G._source() if G._source is not None else None
    if graph is not None:
        return type(graph)
    return nx.DiGraph if G.is_directed() else nx.Graph


def _same_kind(G, H):
    import networkx as nx

    if G.is_directed() != H.is_directed():
        raise nx.NetworkXError("All graphs must be directed or undirected.")


def _union_parts(G, H, labels):
    """NetworkX's ``union_all([G, H])`` of graphs relabelled ``labels`` (two lists of node
    labels, or None to keep them): the class, nodes, node dicts, edge calls and edge dicts,
    and the graph attributes."""
    import networkx as nx

    _same_kind(G, H)
    nodes = [G.nodes if labels[0] is None else labels[0],
             H.nodes if labels[1] is None else labels[1]]
    for g, names in zip((G, H), labels, strict=True):
        if names is None:  # labels kept (each graph's edges join its own nodes only)
            _check_labels(g)
    for g, names in zip((G, H), nodes, strict=True):
        if len(set(names)) != len(g):
            raise NotImplementedError("the renamed labels coincide: NetworkX merges them")
    if not set(nodes[0]).isdisjoint(nodes[1]):
        raise nx.NetworkXError(
            "The node sets of the graphs are not disjoint.\nUse `rename` to specify "
            "prefixes for the graphs or use\ndisjoint_union(G1, G2, ..., GN).")
    origs = [G.networkx_graph(), H.networkx_graph()]
    graph = {}
    node_dicts, a, b, datas = [], [], [], []
    offset = 0
    for g, orig in zip((G, H), origs, strict=True):
        graph.update(orig.graph)
        node_dicts += _node_copies(orig, g.nodes)
        rows, cols = _graph_edges(g)
        a.append(rows + offset)
        b.append(cols + offset)
        datas += map(dict.copy, _all_edge_datas(orig, g))
        offset += len(g)
    cls = _source_class(G) if labels[0] is None else type(origs[0])
    return (cls, nodes[0] + nodes[1], node_dicts, np.concatenate(a), np.concatenate(b),
            datas, graph)


def _renamed(G, prefix):
    if prefix is None:
        return None
    return list(map("{}{}".format, repeat(prefix), G.nodes))


def _binary_can_run(arguments):
    reason = _no_multigraph(arguments)
    if reason is not True:
        return reason
    G = arguments.get("G")
    if type(G).__name__ != "SpbfsGraph" and type(G) not in _plain_classes():
        return f"a {type(G).__name__} (a Graph subclass) runs in NetworkX"
    return True


def _plain_classes():
    import networkx as nx

    return (nx.Graph, nx.DiGraph)


@dispatched(can_run=_binary_can_run, docs="The two graphs' nodes and edges concatenated on "
            "arrays; the graph built as NetworkX's ``add_nodes_from`` and ``add_edges_from`` "
            "build it (adjacency orders, copied attributes); multigraphs and Graph "
            "subclasses run in NetworkX." + _LABELS)
def union(G, H, rename=()):
    """NetworkX's ``union``: ``G`` and ``H`` (disjoint node sets) side by side.

    Parameters
    ----------
    G, H : SpbfsGraph
        Graphs of the same kind, with disjoint node sets after renaming.
    rename : iterable of str, optional
        Prefixes of ``G``'s and ``H``'s node labels.

    Returns
    -------
    networkx.Graph
        Of ``G``'s class.

    Examples
    --------
    >>> import networkx as nx
    >>> list(nx.union(nx.path_graph(2), nx.path_graph(2), rename=("a", "b"),
    ...               backend="spbfs").edges)
    [('a0', 'a1'), ('b0', 'b1')]
    """
    prefixes = list(islice(rename, 2)) + [None, None]
    cls, nodes, node_dicts, a, b, datas, graph = _union_parts(
        G, H, (_renamed(G, prefixes[0]), _renamed(H, prefixes[1])))
    return _from_calls(cls, nodes, node_dicts, a, b, datas, graph)


@dispatched(can_run=_binary_can_run, docs="``union`` of the graphs relabelled "
            "``0 .. len(G) + len(H) - 1``; multigraphs and Graph subclasses run in NetworkX.")
def disjoint_union(G, H):
    """NetworkX's ``disjoint_union``: the union of ``G`` and ``H`` relabelled by integers.

    Parameters
    ----------
    G, H : SpbfsGraph
        Graphs of the same kind.

    Returns
    -------
    networkx.Graph
        Of ``G``'s class, nodes ``0 .. len(G) + len(H) - 1``.

    Examples
    --------
    >>> import networkx as nx
    >>> list(nx.disjoint_union(nx.path_graph(2), nx.path_graph(2), backend="spbfs").edges)
    [(0, 1), (2, 3)]
    """
    nG = len(G)
    cls, nodes, node_dicts, a, b, datas, graph = _union_parts(
        G, H, (list(range(nG)), list(range(nG, nG + len(H)))))
    return _from_calls(cls, nodes, node_dicts, a, b, datas, graph)


@dispatched(can_run=_binary_can_run, docs="``union`` and the edges between the two node "
            "sets (both ways when directed), made in NetworkX's order; multigraphs and "
            "Graph subclasses run in NetworkX." + _LABELS)
def full_join(G, H, rename=(None, None)):
    """NetworkX's ``full_join``: the union of ``G`` and ``H`` with every edge between them.

    Parameters
    ----------
    G, H : SpbfsGraph
        Graphs of the same kind, with disjoint node sets after renaming.
    rename : tuple of str or None
        Prefixes of ``G``'s and ``H``'s node labels.

    Returns
    -------
    networkx.Graph
        Of ``G``'s class.

    Examples
    --------
    >>> import networkx as nx
    >>> sorted(nx.full_join(nx.path_graph(2), nx.Graph([(2, 3)]), backend="spbfs").edges)
    [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    """
    prefixes = list(islice(rename, 2)) + [None, None]
    cls, nodes, node_dicts, a, b, datas, graph = _union_parts(
        G, H, (_renamed(G, prefixes[0]), _renamed(H, prefixes[1])))
    rename[0], rename[1]  # noqa: B018  (NetworkX's IndexError for a shorter rename)
    nG, nH = len(G), len(H)
    gi = np.repeat(np.arange(nG), nH)
    hj = np.tile(np.arange(nG, nG + nH), nG)
    a, b = [a, gi], [b, hj]
    if G.is_directed():  # then H's nodes to G's
        a.append(np.repeat(np.arange(nG, nG + nH), nG))
        b.append(np.tile(np.arange(nG), nH))
    a, b = np.concatenate(a), np.concatenate(b)
    datas = datas + _fresh(a.size - len(datas))
    return _from_calls(cls, nodes, node_dicts, a, b, datas, graph)


@dispatched(can_run=_binary_can_run, docs="``H``'s nodes placed by a lookup in ``G``'s; "
            "``H``'s edges searched in ``G``'s sorted keys; the graph built as NetworkX's "
            "``add_nodes_from`` and ``add_edges_from`` build it (``H``'s attributes updating "
            "``G``'s); multigraphs and Graph subclasses run in NetworkX." + _LABELS)
def compose(G, H):
    """NetworkX's ``compose``: the nodes and edges of both, ``H``'s attributes taking
    precedence.

    Parameters
    ----------
    G, H : SpbfsGraph
        Graphs of the same kind.

    Returns
    -------
    networkx.Graph
        Of ``G``'s class.

    Examples
    --------
    >>> import networkx as nx
    >>> list(nx.compose(nx.path_graph(3), nx.Graph([(2, 0), (3, 1)]), backend="spbfs").edges)
    [(0, 1), (0, 2), (1, 2), (1, 3)]
    """
    _same_kind(G, H)
    _check_labels(G, H)
    directed = G.is_directed()
    gorig, horig = G.networkx_graph(), H.networkx_graph()
    graph = dict(gorig.graph)
    graph.update(horig.graph)
    nG = len(G)
    at = np.fromiter(map(G.index.get, H.nodes, repeat(-1)), np.int64, count=len(H))
    new = at < 0
    at[new] = nG + np.arange(int(np.count_nonzero(new)))
    nodes = list(G.nodes) + H.labels(np.flatnonzero(new))
    node_dicts = _node_copies(gorig, G.nodes)
    hdicts = np.fromiter(map(horig._node.__getitem__, H.nodes), object, count=len(H))
    node_dicts += map(dict.copy, hdicts[new].tolist())
    shared = np.fromiter(node_dicts, object, count=len(nodes))[at[~new]].tolist()
    list(map(dict.update, shared, hdicts[~new].tolist()))
    gu, gv = _graph_edges(G)
    hu, hv = _graph_edges(H)
    datas = np.fromiter(map(dict.copy, _all_edge_datas(gorig, G)), object, count=gu.size)
    hdatas = np.fromiter(_all_edge_datas(horig, H), object, count=hu.size)
    hu, hv = at[hu], at[hv]
    n = len(nodes)
    gkeys = _edge_key(gu, gv, n, directed)
    hkeys = _edge_key(hu, hv, n, directed)
    order = np.argsort(gkeys)
    pos = np.minimum(np.searchsorted(gkeys[order], hkeys), max(gkeys.size - 1, 0))
    found = (gkeys[order[pos]] == hkeys) if gkeys.size else np.zeros(hkeys.size, bool)
    list(map(dict.update, datas[order[pos[found]]].tolist(), hdatas[found].tolist()))
    added = ~found
    a = np.concatenate([gu, hu[added]])
    b = np.concatenate([gv, hv[added]])
    datas = datas.tolist() + list(map(dict.copy, hdatas[added].tolist()))
    return _from_calls(_source_class(G), nodes, node_dicts, a, b, datas, graph)


def _edge_set(G):
    """``set(G.edges)`` and, undirected, each edge's reverse added as NetworkX's
    ``intersection_all`` adds them (the same set, built by C loops)."""
    from operator import itemgetter

    rows, cols = _graph_edges(G)
    edges = set(zip(G.labels(rows), G.labels(cols), strict=True))
    if not G.is_directed():
        listed = list(edges)
        edges.update(zip(map(itemgetter(1), listed), map(itemgetter(0), listed),
                         strict=True))
    return edges


def _node_hashes(G):
    """``hash`` of each node of ``G``, by row (an int ``i`` hashes to ``i``)."""
    if G._identity:
        return np.arange(len(G), dtype=np.int64)
    return np.fromiter(map(hash, G.nodes), np.int64, count=len(G))


def _rows_in(other, W):
    """The row of each node of ``W`` in ``other`` (by ``W``'s rows), -1 where ``other``
    lacks it."""
    if W._identity and other._identity:  # both labelled 0, 1, ...
        to = np.arange(len(W), dtype=np.int64)
        to[len(other):] = -1
        return to
    return np.fromiter(map(other.index.get, W.nodes, repeat(-1)), np.int64, count=len(W))


def _positions(W, nodes):
    """The position in ``nodes`` (a list of nodes of ``W``) of each node of ``W`` (by
    ``W``'s rows), -1 where absent."""
    if W._identity:  # the labels are the rows
        at = np.full(len(W), -1, np.int64)
        at[np.array(nodes, dtype=np.int64)] = np.arange(len(nodes))
        return at
    index = dict(zip(nodes, range(len(nodes)), strict=True))
    return np.fromiter(map(index.get, W.nodes, repeat(-1)), np.int64, count=len(W))


def _walked_edges(W, other):
    """The edges of NetworkX's ``set(W.edges)`` (each undirected edge's reverse added) that
    ``other`` holds, in that set's order: the keys of the set's simulated table
    (:mod:`spbfs.cpu.pysets`), edge ``k`` of ``W.edges()`` as ``k`` and its reverse as
    ``m + k`` (``m`` edges), with their hashes; and the edges of ``W.edges()`` as rows of
    ``W``.  Membership: one pass over both graphs' rows
    (:func:`spbfs.cpu.rowmatch.entries_in`)."""
    from ..cpu.pysets import pair_set_order, set_order, tuple_hashes
    from ..cpu.rowmatch import entries_in

    rows, cols = _graph_edges(W)
    hashes = _node_hashes(W)
    forward = tuple_hashes(hashes[rows], hashes[cols])
    member = entries_in(W._indptr, W._indices, _rows_in(other, W), other._indptr,
                        other._indices)
    member = member[W.edge_entries()]
    if W.is_directed():
        keys = set_order(forward, keep=member)
        return keys, forward[keys], rows, cols
    backward = tuple_hashes(hashes[cols], hashes[rows])
    # an undirected edge is in the other's set both ways or not at all
    keys = pair_set_order(forward, backward, rows == cols, np.concatenate([member, member]))
    edge = keys % rows.size
    return keys, np.where(keys < rows.size, forward[edge], backward[edge]), rows, cols


@dispatched(can_run=_binary_can_run, docs="The order of the edge set NetworkX intersects "
            "(the smaller one's table, CPython's hashing and probing simulated) and its "
            "intersection's table, from the arrays; membership by one pass over both "
            "graphs' rows; the node set intersected by C loops; multigraphs and Graph "
            "subclasses run in NetworkX." + _LABELS)
def intersection(G, H):
    """NetworkX's ``intersection``: the nodes and edges in both graphs, without attributes.

    Parameters
    ----------
    G, H : SpbfsGraph
        Graphs of the same kind.

    Returns
    -------
    networkx.Graph
        Of ``G``'s class.

    Examples
    --------
    >>> import networkx as nx
    >>> list(nx.intersection(nx.cycle_graph(4), nx.path_graph(5), backend="spbfs").edges)
    [(0, 1), (1, 2), (2, 3)]
    """
    from ..cpu.pysets import model_holds, set_order

    _check_labels(G, H)
    if not model_holds():
        return _intersection_by_sets(G, H)
    _same_kind(G, H)
    nodes = list(set(G.nodes) & set(H.nodes))
    # ``edge_set(G) &= edge_set(H)`` walks H's set unless G's is the smaller (each set
    # holds every entry: an undirected edge both ways, a loop once); the intersection is a
    # new set, given the keys in that order
    W, other = (G, H) if H.nnz > G.nnz else (H, G)
    walked, hashes, rows, cols = _walked_edges(W, other)
    keys = walked[set_order(hashes)]
    m = rows.size
    edge = keys % max(m, 1)
    ahead = keys < m
    if not W.is_directed():  # each edge is there both ways: the first one makes it
        _, first = np.unique(edge, return_index=True)
        first.sort()
        edge, ahead = edge[first], ahead[first]
    at = _positions(W, nodes)
    a = at[np.where(ahead, rows[edge], cols[edge])]
    b = at[np.where(ahead, cols[edge], rows[edge])]
    return _from_calls(_source_class(G), nodes, _fresh(len(nodes)), a, b)


def _intersection_by_sets(G, H):
    """:func:`intersection` by NetworkX's own Python sets (built by C loops from the
    arrays), where this interpreter's sets are not the simulated ones."""
    from operator import itemgetter

    gedges, hedges = _edge_set(G), _edge_set(H)
    _same_kind(G, H)
    nodes = list(set(G.nodes) & set(H.nodes))
    edges = list(gedges & hedges)
    index = dict(zip(nodes, range(len(nodes)), strict=True))
    n = len(nodes)
    a = np.fromiter(map(index.__getitem__, map(itemgetter(0), edges)), np.int64,
                    count=len(edges))
    b = np.fromiter(map(index.__getitem__, map(itemgetter(1), edges)), np.int64,
                    count=len(edges))
    if not G.is_directed():  # each edge is there both ways: the first one makes it
        _, first = np.unique(_edge_key(a, b, n, False), return_index=True)
        first.sort()
        a, b = a[first], b[first]
    return _from_calls(_source_class(G), nodes, _fresh(n), a, b)


def _sym_can_run(arguments):
    reason = _binary_can_run(arguments)
    if reason is True and arguments["G"].is_directed() != arguments["H"].is_directed():
        return "a directed and an undirected graph run in NetworkX"
    return reason


@dispatched(can_run=_sym_can_run, docs="Each graph's entries searched in the other's sorted "
            "keys; the graph built as NetworkX's ``add_edge`` calls build it; multigraphs, "
            "Graph subclasses and graphs of two kinds run in NetworkX." + _LABELS)
def symmetric_difference(G, H):
    """NetworkX's ``symmetric_difference``: the edges in exactly one of ``G`` and ``H``
    (same node sets).

    Parameters
    ----------
    G, H : SpbfsGraph
        Graphs of the same kind on the same nodes.

    Returns
    -------
    networkx.Graph
        Of ``G``'s class, without attributes.

    Examples
    --------
    >>> import networkx as nx
    >>> list(nx.symmetric_difference(nx.cycle_graph(4), nx.complete_graph(4),
    ...                              backend="spbfs").edges)
    [(0, 2), (1, 3)]
    """
    import networkx as nx

    if set(G.nodes) != set(H.nodes):
        raise nx.NetworkXError("Node sets of graphs not equal")
    _check_labels(G, H)
    gu, gv = _graph_edges(G)
    hu, hv = _graph_edges(H)
    gkeep = _missing_in(G, H, gu, gv)
    hkeep = _missing_in(H, G, hu, hv)
    at = np.fromiter(map(G.index.__getitem__, H.nodes), np.int64, count=len(H))
    a = np.concatenate([gu[gkeep], at[hu[hkeep]]])
    b = np.concatenate([gv[gkeep], at[hv[hkeep]]])
    return _from_calls(_source_class(G), G.nodes, _fresh(len(G)), a, b)
