"""Recognition tests: trees and forests, regular graphs, dominating sets, triads and
tournaments, isolates, self-loops and negative weights, from the pattern's row and column
counts, :func:`spbfs.algorithms.components.connected_components`, ``select`` and
element-wise products of the pattern with its transpose."""

from __future__ import annotations

import struct

import numpy as np

from ..algorithms.components import connected_components as _connected_components
from ..algorithms.degree import degrees as _degrees
from ..core.arrays import to_numpy
from ..cpu.nodesets import dominates
from ..semiring import ewise_mult, ops
from ._registry import dispatched

__all__ = ["edge_position", "int_items", "no_multigraph", "present_rows", "raw_weights"]

_MULTI = ("multigraphs run in NetworkX: spbfs merges parallel edges, which NetworkX counts "
          "one by one here")


def no_multigraph(arguments):
    """A ``can_run`` declining multigraphs (their parallel edges are merged in conversion)."""
    return _MULTI if arguments["G"].is_multigraph() else True


def raw_weights(G, attr, *, from_source=False):
    """Edge attribute ``attr`` per stored entry as converted (any sign, NaN included): an
    int64 or float64 array; NotImplementedError where its values are not all ints or all
    floats (NetworkX's arithmetic on them cannot be reproduced).  ``from_source``: an
    attribute not converted is read from the converted graph
    (:meth:`SpbfsGraph.edge_attribute`)."""
    if attr is None:
        return np.ones(G.nnz, np.int64)
    values, kind = G.edge_attribute(attr, from_source=from_source)
    if values is None:
        raise NotImplementedError(kind)
    return values


def edge_position(G, u, v):
    """The stored entry of the edge ``u -> v`` of ``G`` (as converted), or -1."""
    index = G.index
    if u not in index or v not in index:
        return -1
    i, j = index[u], index[v]
    row = G._indices[G._indptr[i]:G._indptr[i + 1]]
    found = np.flatnonzero(row == j)
    return int(G._indptr[i] + found[0]) if found.size else -1


def _components(G) -> int:
    """The number of (weak) components."""
    return int(_connected_components(G.csr(), directed=G.is_directed(), return_labels=False))


def _nonempty(G, what="G has no nodes."):
    import networkx as nx

    if not len(G):
        raise nx.NetworkXPointlessConcept(what)


_TREE = ("Edges counted from the pattern, components by "
         "``spbfs.algorithms.components.connected_components``; multigraphs run in NetworkX.")


@dispatched(can_run=no_multigraph, docs=_TREE)
def is_forest(G):
    """NetworkX's ``is_forest``: every (weak) component has one edge fewer than nodes.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.is_forest(nx.Graph([(0, 1), (2, 3)]), backend="spbfs")
    True
    """
    _nonempty(G)
    return G.number_of_edges() == len(G) - _components(G)


@dispatched(can_run=no_multigraph, docs=_TREE)
def is_tree(G):
    """NetworkX's ``is_tree``: connected, with one edge fewer than nodes.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.is_tree(nx.path_graph(4), backend="spbfs"), nx.is_tree(nx.cycle_graph(4),
    ...                                                            backend="spbfs")
    (True, False)
    """
    _nonempty(G)
    return G.number_of_edges() == len(G) - 1 and _components(G) == 1


def _in_degree_at_most_one(G) -> bool:
    return bool((G.csr().in_degree <= 1).all())


@dispatched(can_run=no_multigraph, docs=_TREE + " In-degrees are the pattern's column counts.")
def is_arborescence(G):
    """NetworkX's ``is_arborescence``: a directed tree of in-degrees at most 1.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.is_arborescence(nx.DiGraph([(0, 1), (0, 2)]), backend="spbfs")
    True
    """
    return is_tree(G) and _in_degree_at_most_one(G)


@dispatched(can_run=no_multigraph, docs=_TREE + " In-degrees are the pattern's column counts.")
def is_branching(G):
    """NetworkX's ``is_branching``: a directed forest of in-degrees at most 1.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.is_branching(nx.DiGraph([(0, 1), (2, 1)]), backend="spbfs")
    False
    """
    return is_forest(G) and _in_degree_at_most_one(G)


@dispatched(can_run=lambda a: True if a["n"] in a["G"] else
            "a node not in G runs in NetworkX (its degree view's own answer or error)",
            docs="Row and column counts of the pattern.")
def is_isolate(G, n):
    """NetworkX's ``is_isolate``: whether node ``n`` has no neighbours.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.Graph([(1, 2)]); G.add_node(3)
    >>> nx.is_isolate(G, 2, backend="spbfs"), nx.is_isolate(G, 3, backend="spbfs")
    (False, True)
    """
    i = G.index[n]
    if G._indptr[i + 1] > G._indptr[i]:
        return False
    return not G.is_directed() or int(to_numpy(G.csr(False).in_degree)[i]) == 0


@dispatched(can_run=lambda a: True if a.get("edge") is None or (
    not a["G"].is_multigraph() and len(a["edge"]) == 2)
    else "an edge of a multigraph, or an edge with a key, runs in NetworkX",
    docs="One comparison over the converted weights (a multigraph's parallel edges by "
         "their least weight); weights not all ints or all floats run in NetworkX.")
def is_negatively_weighted(G, edge=None, weight="weight"):
    """NetworkX's ``is_negatively_weighted``.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.Graph([(0, 1, {"weight": -2}), (1, 2, {"weight": 3})])
    >>> nx.is_negatively_weighted(G, backend="spbfs")
    True
    >>> nx.is_negatively_weighted(G, (1, 2), backend="spbfs")
    False
    """
    import networkx as nx

    if edge is not None:
        at = edge_position(G, *edge)
        if at < 0:
            raise nx.NetworkXError(f"Edge {edge!r} does not exist.")
        if weight is None:
            return False
        return bool(raw_weights(G, weight)[at] < 0)
    if weight is None:
        return False
    return bool((raw_weights(G, weight) < 0).any())


@dispatched(can_run=no_multigraph, docs="The pattern's diagonal entries, counted once per "
            "converted graph; multigraphs run in NetworkX.")
def number_of_selfloops(G):
    """NetworkX's ``number_of_selfloops``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.number_of_selfloops(nx.Graph([(1, 1), (1, 2)]), backend="spbfs")
    1
    """
    return G.self_loop_count()


def _degree(G):
    """NetworkX's ``G.degree`` per row (a self-loop counted twice in a Graph)."""
    return _degrees(G.csr(), directed=G.is_directed())


def _all_equal(d) -> bool:
    return bool((d == d[0]).all()) if d.size else True


@dispatched(can_run=no_multigraph, docs="Degrees from the pattern's row and column counts; "
            "multigraphs run in NetworkX.")
def is_regular(G):
    """NetworkX's ``is_regular``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.is_regular(nx.DiGraph([(1, 2), (2, 3), (3, 1)]), backend="spbfs")
    True
    """
    import networkx as nx

    if not len(G):
        raise nx.NetworkXPointlessConcept("Graph has no nodes.")
    M = G.csr()
    if not G.is_directed():
        return _all_equal(_degree(G))
    return _all_equal(M.in_degree) and _all_equal(M.out_degree)


@dispatched(can_run=no_multigraph, docs="Degrees from the pattern's row counts; multigraphs "
            "run in NetworkX.")
def is_k_regular(G, k):
    """NetworkX's ``is_k_regular`` (undirected graphs).

    Examples
    --------
    >>> import networkx as nx
    >>> nx.is_k_regular(nx.cycle_graph(4), 2, backend="spbfs")
    True
    """
    return bool((_degree(G) == k).all())


#: Containers that iterate the same items again (a generator is read once).
_REITERABLE = (list, tuple, set, frozenset, dict)


def int_items(G, nodes):
    """The items of ``nodes`` as int64, in their order, where ``G``'s labels are its row
    numbers and every item is an int; None otherwise.  One C loop, not a dict lookup per
    item: ``struct`` packs the items as 64-bit ints, taking only ints (and other integers:
    ``__index__``) and raising for a float, a string or an int beyond int64.  On the VM a
    set of 65,536 ints took 1.8 ms so, 2.6 ms as the two loops of ``sum`` (to check that
    every item is an int) and ``numpy.fromiter`` (which truncates floats).

    Examples
    --------
    >>> import networkx as nx
    >>> from spbfs.nx import convert_from_nx
    >>> G = convert_from_nx(nx.path_graph(3))
    >>> int_items(G, {2, 0, 7}).tolist(), int_items(G, [1.0]), int_items(G, iter([1]))
    ([0, 2, 7], None, None)
    """
    if not G._identity or type(nodes) not in _REITERABLE:
        return None
    items = np.empty(len(nodes), np.int64)
    try:
        struct.Struct(f"{items.size}q").pack_into(items, 0, *nodes)
    except (struct.error, TypeError, ValueError, OverflowError):
        return None
    return items


def present_rows(G, nodes):
    """NetworkX's ``nbunch_iter(nodes)`` as rows: the items that are nodes, in their
    order, repeats kept.

    Examples
    --------
    >>> import networkx as nx
    >>> from spbfs.nx import convert_from_nx
    >>> present_rows(convert_from_nx(nx.path_graph(3)), [2, 7, 0, 2]).tolist()
    [2, 0, 2]
    """
    items = int_items(G, nodes)
    if items is not None:
        return items[(items >= 0) & (items < len(G))]
    return np.fromiter(map(G.index.__getitem__, G.present(nodes)), np.int64)


@dispatched(docs="One compiled pass over the set's rows marking their neighbours, or for an "
            "undirected graph over the nodes up to the first that is neither in the set nor "
            "next to it, split over the host's threads, with the GPU configured too (the set "
            "is read there; the device's push took 17 ms on one H200 for half of a "
            "1.2M-edge graph, the host's pass 1 ms on the VM's two threads).")
def is_dominating_set(G, nbunch):
    """NetworkX's ``is_dominating_set``: every node is in ``nbunch`` or a successor of one.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.is_dominating_set(nx.star_graph(4), [0], backend="spbfs")
    True
    """
    return dominates(G._indptr, G._indices, present_rows(G, nbunch), len(G),
                     symmetric=not G.is_directed())


@dispatched(docs="Three nodes, directed, no self-loop (``select`` on the diagonal).")
def is_triad(G):
    """NetworkX's ``is_triad``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.is_triad(nx.DiGraph([(0, 1), (1, 2)]), backend="spbfs")
    True
    """
    return len(G) == 3 and G.is_directed() and G.self_loop_count() == 0


@dispatched(docs="No self-loop, ``n(n-1)/2`` arcs and no arc both ways (an element-wise "
            "product of the pattern and its transpose).")
def is_tournament(G):
    """NetworkX's ``is_tournament`` (directed graphs).

    Examples
    --------
    >>> import networkx as nx
    >>> nx.is_tournament(nx.DiGraph([(0, 1), (1, 2), (2, 0)]), backend="spbfs")
    True
    """
    n = len(G)
    if G.nnz != n * (n - 1) // 2 or G.self_loop_count():
        return False
    M = G.csr()
    return ewise_mult(M, M.T, ops.pair).nnz == 0


@dispatched(docs="The pattern's row counts, sorted.")
def score_sequence(G):
    """NetworkX's ``score_sequence``: the sorted out-degrees (directed graphs).

    Examples
    --------
    >>> import networkx as nx
    >>> nx.tournament.score_sequence(nx.DiGraph([(0, 1), (0, 2), (1, 2)]), backend="spbfs")
    [0, 1, 2]
    """
    # the host's rows (one per successor, as NetworkX counts them): the device's degrees and
    # their copy back cost more than this pass over n row counts
    return np.sort(np.diff(G._indptr).astype(np.int64)).tolist()
