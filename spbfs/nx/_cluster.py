"""Triangles and clustering through :mod:`spbfs.algorithms.triangles` and
:mod:`spbfs.algorithms.clustering`."""

from __future__ import annotations

import numpy as np

from ..algorithms.clustering import clustering as _clustering
from ..algorithms.clustering import square_parts
from ..algorithms.clustering import transitivity as _transitivity
from ..algorithms.triangles import triangles as _triangles
from ..core.arrays import to_numpy
from ..semiring import (
    apply,
    ewise_mult,
    extract,
    monoids,
    mxm,
    ops,
    plus_pair,
    plus_times,
    reduce,
    select,
)
from ._registry import dispatched

__all__ = ["select_nodes"]


def select_nodes(G, nodes, values):
    """NetworkX's ``nodes`` argument: all (None), one node (its value) or a bunch (a dict).

    ``values`` is a list in row order.
    """
    if nodes is None:
        return G.node_dict(values)
    if type(nodes) is list and len(nodes) == len(G) and nodes == G.nodes:
        return G.node_dict(values)  # every node in G's order (list(G): the same objects)
    if nodes in G:
        return values[G.index[nodes]]
    present = G.present(nodes)  # NetworkX's nbunch: the nodes of G, in the given order
    if len(present) == len(G) and present == list(G.nodes):  # every node, in G's order
        return G.node_dict(values)
    return dict(zip(present, map(values.__getitem__, map(G.index.__getitem__, present)),
                    strict=True))


def _zeros_as_int(values):
    """NetworkX writes a coefficient without triangles as the int 0."""
    out = values.tolist()
    for i in np.flatnonzero(values == 0).tolist():
        out[i] = 0
    return out


def _decline(arguments, *, directed=True, weighted=False, multigraph=True):
    G = arguments["G"]
    if not weighted and arguments.get("weight") is not None:
        return "weighted clustering runs in NetworkX"
    if not directed and G.is_directed():
        return "directed graphs: NetworkX raises its own error"
    if not multigraph and G.is_multigraph():
        return "multigraphs: NetworkX raises its own error"
    return True


@dispatched(can_run=lambda a: True if a.get("nodes") is None or not a["G"].is_multigraph()
            else "multigraph with nodes: NetworkX raises its own error",
            docs="Masked ``plus_pair`` products on the degree-ordered lower triangle.")
def triangles(G, nodes=None):
    """NetworkX's ``triangles`` (undirected graphs).

    Examples
    --------
    >>> import networkx as nx
    >>> nx.triangles(nx.complete_graph(4), backend="spbfs")
    {0: 3, 1: 3, 2: 3, 3: 3}
    """
    if not len(G):  # NetworkX's answers for nodes, or its error for nodes not in G
        return select_nodes(G, nodes, [])
    t = to_numpy(_triangles(G.csr())).tolist()
    return select_nodes(G, nodes, t)


def _clustering_values(G):
    if not len(G):
        return np.zeros(0)
    return to_numpy(_clustering(G.csr(), directed=G.is_directed()))


@dispatched(can_run=lambda a: _decline(a, multigraph=False), docs="Unweighted only (a "
            "``weight`` runs in NetworkX); directed graphs by Fagiolo's formula, as NetworkX.")
def clustering(G, nodes=None, weight=None):
    """NetworkX's ``clustering`` (unweighted).

    Examples
    --------
    >>> import networkx as nx
    >>> nx.clustering(nx.complete_graph(3), backend="spbfs")
    {0: 1.0, 1: 1.0, 2: 1.0}
    """
    return select_nodes(G, nodes, _zeros_as_int(_clustering_values(G)))


@dispatched(can_run=lambda a: _decline(a, multigraph=False), docs="Unweighted only.")
def average_clustering(G, nodes=None, weight=None, count_zeros=True):
    """NetworkX's ``average_clustering`` (unweighted).

    Examples
    --------
    >>> import networkx as nx
    >>> nx.average_clustering(nx.complete_graph(3), backend="spbfs")
    1.0
    """
    c = select_nodes(G, nodes, _zeros_as_int(_clustering_values(G)))
    c = list(c.values()) if isinstance(c, dict) else [c]
    if not count_zeros:
        c = [v for v in c if abs(v) > 0]
    return sum(c) / len(c)


@dispatched(can_run=lambda a: _decline(a, directed=False, multigraph=False),
            docs="Triangles and connected triples counted from the pattern (unweighted); "
            "directed graphs and multigraphs run in NetworkX.")
def transitivity(G):
    """NetworkX's ``transitivity`` (undirected graphs).

    Examples
    --------
    >>> import networkx as nx
    >>> nx.transitivity(nx.complete_graph(4), backend="spbfs")
    1.0
    """
    if not len(G):
        return 0
    t = _transitivity(G.csr())
    return 0 if t == 0 else t


@dispatched(can_run=lambda a: _decline(a, directed=False),
            docs="Undirected graphs (directed ones run in NetworkX).")
def square_clustering(G, nodes=None):
    """NetworkX's ``square_clustering`` (undirected graphs).

    Examples
    --------
    >>> import networkx as nx
    >>> nx.square_clustering(nx.cycle_graph(4), backend="spbfs")
    {0: 1.0, 1: 1.0, 2: 1.0, 3: 1.0}
    """
    if not len(G):
        return select_nodes(G, nodes, [])
    if nodes is None:
        squares, potential = (to_numpy(a) for a in square_parts(G.csr()))
        return select_nodes(G, None, _square_ratios(squares, potential))
    index = G.index
    single = nodes in G
    bunch = [nodes] if single else G.present(nodes)
    rows, at = np.unique(np.fromiter(map(index.__getitem__, bunch), np.int64,
                                     count=len(bunch)), return_inverse=True)
    c = _square_ratios(*(to_numpy(a) for a in _square_parts_of(G.csr(), rows)))
    if single:
        return c[0]
    return dict(zip(bunch, map(c.__getitem__, at.tolist()), strict=True))


def _square_ratios(squares, potential):
    positive = potential > 0
    c = (squares / np.where(positive, potential, 1.0)).tolist()
    for i in np.flatnonzero(~positive).tolist():  # NetworkX's int 0
        c[i] = 0
    return c


def _square_parts_of(A, rows):
    """:func:`spbfs.algorithms.clustering.square_parts` of the (distinct, sorted) ``rows``
    alone, from their rows ``S`` of the pattern ``P`` (without self-loops): ``C = S P``
    holds each row's own entry ``C[v, v] = d_v`` besides the others, whose ``d_v (d_v -
    1)`` comes off the sum of ``C (C - 1)``; ``t`` sums ``C`` over the row's neighbours
    (``S P`` masked by ``S``), ``2 triangles``.  Every value is an integer in float64: the
    same as the whole graph's."""
    P = select(A, "offdiag").unit(np.float64)
    xp = P.xp
    S = extract(P, rows)
    d = P.out_degree.astype(np.float64)
    dv = d[xp.asarray(rows)]
    C = mxm(S, P, plus_pair)
    sums = _sums(ewise_mult(C, apply(C, ops.minus, right=1.0), ops.times), S.nrows)
    squares = (sums - dv * (dv - 1.0)) / 2.0
    t = _sums(mxm(S, P, plus_pair, mask=S, structural=True), S.nrows)
    nbr_degrees = mxm(S, d[:, None], plus_times)[:, 0]
    potential = (dv - 1.0) * nbr_degrees - dv * (dv - 1.0) - t - squares
    return squares, xp.where(dv - 1.0 <= 0, 0.0, potential)


def _sums(M, n):
    if M.nnz == 0:
        return M.xp.zeros(n, np.float64)
    return reduce(M, monoids.plus, axis=1).to_dense(0.0).astype(np.float64)
