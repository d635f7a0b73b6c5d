"""Degree, spectral (eigenvector, Katz, HITS), closeness and harmonic centrality through
:mod:`spbfs.algorithms.degree`, :mod:`~spbfs.algorithms.centrality_spectral` and
:mod:`~spbfs.algorithms.closeness`."""

from __future__ import annotations

import numpy as np

from ..algorithms.centrality_spectral import eigenvector_centrality as _eigenvector
from ..algorithms.centrality_spectral import hits as _hits
from ..algorithms.centrality_spectral import katz_centrality as _katz
from ..algorithms.closeness import closeness_from_sums, reach_sums
from ..algorithms.degree import centrality_of_degrees, degrees
from ..algorithms.pagerank import PowerIterationFailedConvergence
from ..core.arrays import to_numpy
from ._link_analysis import node_values, result_dict
from ._registry import dispatched

__all__ = []


def _simple(arguments):
    if arguments["G"].is_multigraph():
        return "multigraphs: NetworkX counts parallel edges; spbfs keeps one per pair"
    return True


def _degree(G, kind):
    if len(G) <= 1:
        return dict.fromkeys(G.nodes, 1)
    d = to_numpy(degrees(G.csr(), G.is_directed(), kind))
    # One float per distinct degree, shared by every vertex of that degree: a graph has
    # few distinct degrees, and making a float per vertex cost more than the dict.
    distinct = np.flatnonzero(np.bincount(d))
    table = np.empty(int(distinct[-1]) + 1, object)
    table[distinct] = centrality_of_degrees(distinct, len(G)).tolist()
    return G.node_dict(table[d].tolist())


@dispatched(can_run=_simple, docs="Multigraphs run in NetworkX.")
def degree_centrality(G):
    """NetworkX's ``degree_centrality``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.degree_centrality(nx.path_graph(3), backend="spbfs")
    {0: 0.5, 1: 1.0, 2: 0.5}
    """
    return _degree(G, "total")


@dispatched(can_run=_simple, docs="Multigraphs run in NetworkX.")
def in_degree_centrality(G):
    """NetworkX's ``in_degree_centrality`` (directed graphs).

    Examples
    --------
    >>> import networkx as nx
    >>> nx.in_degree_centrality(nx.DiGraph([(0, 1), (2, 1)]), backend="spbfs")
    {0: 0.0, 1: 1.0, 2: 0.0}
    """
    return _degree(G, "in")


@dispatched(can_run=_simple, docs="Multigraphs run in NetworkX.")
def out_degree_centrality(G):
    """NetworkX's ``out_degree_centrality`` (directed graphs).

    Examples
    --------
    >>> import networkx as nx
    >>> nx.out_degree_centrality(nx.DiGraph([(0, 1), (2, 1)]), backend="spbfs")
    {0: 0.5, 1: 0.0, 2: 0.5}
    """
    return _degree(G, "out")


def _start(G, nstart):
    """``nstart`` as an array, and the key order NetworkX's result follows."""
    if nstart is None:
        return None, G.nodes
    if set(nstart) != set(G.nodes):
        raise NotImplementedError("nstart must name every node exactly")
    return node_values(G, nstart, "nstart"), list(nstart)


def _ordered(G, values, keys):
    values = to_numpy(values).tolist()
    if keys is G.nodes:
        return G.node_dict(values)
    return {k: values[G.index[k]] for k in keys}


def _matrix(G, weight):
    return G.weighted_csr(weight) if weight is not None else G.csr()


@dispatched(can_run=_simple, docs="The same power iteration on ``A.T + I`` as NetworkX, one "
            "``plus_times`` product per step; equal to rounding.")
def eigenvector_centrality(G, max_iter=100, tol=1.0e-6, nstart=None, weight=None):
    """NetworkX's ``eigenvector_centrality``.

    Examples
    --------
    >>> import networkx as nx
    >>> c = nx.eigenvector_centrality(nx.path_graph(3), backend="spbfs")
    >>> {k: round(v, 4) for k, v in c.items()}
    {0: 0.5, 1: 0.7071, 2: 0.5}
    """
    import networkx as nx

    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("cannot compute centrality for the null graph")
    x0, keys = _start(G, nstart)
    if x0 is not None and not (x0 != 0).any():
        raise nx.NetworkXError("initial vector cannot have all zero values")
    try:
        x = _eigenvector(_matrix(G, weight), max_iter=max_iter, tol=tol, nstart=x0,
                         weight=weight is not None)
    except PowerIterationFailedConvergence as err:
        raise nx.PowerIterationFailedConvergence(max_iter) from err
    return _ordered(G, x, keys)


@dispatched(can_run=_simple, docs="NetworkX's iteration, one ``plus_times`` product per step.")
def katz_centrality(G, alpha=0.1, beta=1.0, max_iter=1000, tol=1.0e-6, nstart=None,
                    normalized=True, weight=None):
    """NetworkX's ``katz_centrality``.

    Examples
    --------
    >>> import networkx as nx
    >>> c = nx.katz_centrality(nx.path_graph(3), backend="spbfs")
    >>> {k: round(v, 4) for k, v in c.items()}
    {0: 0.5599, 1: 0.6108, 2: 0.5599}
    """
    import networkx as nx

    if len(G) == 0:
        return {}
    x0, keys = _start(G, nstart)
    try:
        b = float(beta)
    except (TypeError, ValueError, AttributeError) as err:
        if set(beta) != set(G.nodes):
            raise nx.NetworkXError("beta dictionary must have a value for every node") from err
        b = node_values(G, beta, "beta")
    try:
        x = _katz(_matrix(G, weight), alpha=alpha, beta=b, max_iter=max_iter, tol=tol,
                  nstart=x0, normalized=normalized, weight=weight is not None)
    except PowerIterationFailedConvergence as err:
        raise nx.PowerIterationFailedConvergence(max_iter) from err
    return _ordered(G, x, keys)


def _hits_can_run(arguments):
    """NetworkX's ``svds`` raises for one node (``k`` must be below ``n``) and for an
    ``nstart`` that is not ``n`` floats (its values, in their order, are the start
    vector): those calls run in NetworkX, as multigraphs do."""
    reason = _simple(arguments)
    if reason is not True:
        return reason
    n, nstart = len(arguments["G"]), arguments.get("nstart")
    if n == 1:
        return "a graph of one node: NetworkX's svds raises"
    if nstart is not None:
        start = np.array(list(nstart.values()))
        if start.dtype.kind not in "fc" or start.shape != (n,):
            return "an nstart that is not a float per node: NetworkX's svds raises"
    return True


@dispatched(can_run=_hits_can_run, docs="Restarted Lanczos on ``A.T @ A`` with NetworkX's "
            "``svds`` settings (20 vectors a restart, ``max_iter`` restarts, ``tol`` on the "
            "singular value): equal to about ``tol``; where the two largest singular values "
            "tie, the vectors are not unique and may differ from NetworkX's. Multigraphs, "
            "and the calls where NetworkX's ARPACK raises (one node, no edge of nonzero "
            "weight, an ``nstart`` that is not a float per node), run in NetworkX.")
def hits(G, max_iter=100, tol=1.0e-8, nstart=None, normalized=True):
    """NetworkX's ``hits``: ``(hubs, authorities)``.

    Examples
    --------
    >>> import networkx as nx
    >>> h, a = nx.hits(nx.DiGraph([(0, 1), (0, 2), (1, 2)]), backend="spbfs")
    >>> {k: round(v, 3) for k, v in a.items()}
    {0: 0.0, 1: 0.382, 2: 0.618}
    """
    import networkx as nx

    if len(G) == 0:
        return {}, {}
    if max_iter > 0 and not G.weights("weight")[0].any():
        raise NotImplementedError("no edge of nonzero weight: NetworkX's ARPACK raises "
                                  "(its start vector is zero)")
    x0 = None if nstart is None else node_values(G, nstart, "nstart")
    try:
        h, a = _hits(G.weighted_csr("weight"), max_iter=max_iter, tol=tol,
                     nstart=x0, normalized=normalized)
    except PowerIterationFailedConvergence as err:
        raise nx.PowerIterationFailedConvergence(max_iter) from err
    return result_dict(G, h), result_dict(G, a)


@dispatched(can_run=lambda a: True if a.get("u") is None or a["u"] in a["G"] else
            "a node u not in G runs in NetworkX (its NodeNotFound)",
            docs="Many-source BFS (or ``min_plus`` SSSP with ``distance``), 64 sources at a "
            "time; equal to rounding (sums in another order).")
def closeness_centrality(G, u=None, distance=None, wf_improved=True):
    """NetworkX's ``closeness_centrality`` (distances into each node).

    Examples
    --------
    >>> import networkx as nx
    >>> nx.closeness_centrality(nx.path_graph(3), backend="spbfs")
    {0: 0.6666666666666666, 1: 1.0, 2: 0.6666666666666666}
    """
    n = len(G)
    weighted = distance is not None
    M = _matrix(G, distance)
    if weighted:
        G.weights(distance)  # unsupported weights run in NetworkX
    if u is not None:
        _, (count, total, _) = reach_sums(M, [G.index[u]], weight=weighted, reverse=True)
        return float(closeness_from_sums(count, total, n, wf_improved)[0])
    (count, total, _), _ = reach_sums(M, weight=weighted)
    return result_dict(G, closeness_from_sums(count, total, n, wf_improved))


@dispatched(docs="Many-source BFS (or ``min_plus`` SSSP with ``distance``); equal to "
            "rounding (sums in another order); nodes without any path keep NetworkX's int 0.")
def harmonic_centrality(G, nbunch=None, distance=None, sources=None):
    """NetworkX's ``harmonic_centrality``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.harmonic_centrality(nx.path_graph(3), backend="spbfs")
    {0: 1.5, 1: 2.0, 2: 1.5}
    """
    weighted = distance is not None
    M = _matrix(G, distance)  # weights spbfs declines: before an iterator argument is read
    if weighted:
        G.weights(distance)
    index = G.index
    if nbunch is None:
        targets, t_rows = G.node_set()  # set(G): NetworkX's order of targets, kept
    else:
        targets = dict.fromkeys({v for v in nbunch if v in index})
        t_rows = np.fromiter(map(index.__getitem__, targets), np.int64, count=len(targets))
    if sources is None:
        starts, s_rows = G.node_set()
    else:
        starts = {v for v in sources if v in index}
        s_rows = np.fromiter(map(index.__getitem__, starts), np.int64, count=len(starts))
    n = len(G)
    value = np.zeros(n)
    if len(targets) < len(starts):  # NetworkX's transposed search: from the targets
        keep = np.zeros(n, bool)
        keep[s_rows] = True
        _, (_, _, inverse) = reach_sums(M, t_rows, weight=weighted, reverse=True, keep=keep)
        value[t_rows] = inverse
    elif s_rows.size:
        (_, _, inverse), _ = reach_sums(M, s_rows, weight=weighted)
        value = inverse
    # in the targets' set order, as NetworkX; a node without any path keeps the int 0
    value = value[t_rows]
    out = value.astype(object)
    out[value == 0] = 0
    result = targets.copy()
    result.update(zip(targets, out.tolist(), strict=True))
    return result
