"""PageRank and betweenness through :func:`spbfs.pagerank` and
:func:`spbfs.betweenness_centrality`, with NetworkX's arguments and rescaling."""

from __future__ import annotations

import numpy as np

from ..algorithms.centrality import betweenness_centrality as _betweenness
from ..algorithms.centrality import edge_betweenness_centrality as _edge_betweenness
from ..algorithms.msbfs import bfs_many
from ..algorithms.pagerank import PowerIterationFailedConvergence
from ..algorithms.pagerank import pagerank as _pagerank
from ..core.arrays import to_numpy
from ._registry import dispatched

__all__ = ["node_values", "result_dict"]


def node_values(G, mapping, name):
    """A dict keyed by node as a float64 array in row order (missing nodes 0)."""
    out = np.zeros(len(G), np.float64)
    if not mapping:
        return out
    keys = [k for k in mapping if k in G]
    rows = np.fromiter(map(G.index.__getitem__, keys), np.int64, count=len(keys))
    try:
        out[rows] = np.fromiter((mapping[k] for k in keys), np.float64, count=len(keys))
    except (TypeError, ValueError):
        raise NotImplementedError(f"{name} has values that are not numbers") from None
    return out


def result_dict(G, values):
    """``{node: float}`` in node order from a host or device array."""
    return G.node_dict(to_numpy(values).tolist())


def _no_multigraph(arguments):
    G = arguments["G"]
    if G.is_multigraph():
        return "multigraph: NetworkX sums parallel edges' weights; spbfs keeps one per pair"
    return True


@dispatched(can_run=_no_multigraph, docs="NetworkX's power iteration (scipy form) as one "
            "``plus_times`` product per iteration; equal to rounding, except where no edge "
            "enters a dangling vertex and ``dangling`` is None: there the normalised "
            "linear system's step, the same ranks within ``tol`` in fewer steps; an "
            "undirected graph (with ``personalization``, ``nstart`` and ``dangling`` None) "
            "may start from its degrees or strengths, where the first call finds that "
            "faster. Multigraphs and non-numeric or negative weights run in NetworkX.")
def pagerank(G, alpha=0.85, personalization=None, max_iter=100, tol=1.0e-6, nstart=None,
             weight="weight", dangling=None):
    """NetworkX's ``pagerank``.

    Examples
    --------
    >>> import networkx as nx
    >>> pr = nx.pagerank(nx.DiGraph([(0, 1), (1, 2), (2, 0), (0, 2)]), backend="spbfs")
    >>> {k: round(v, 4) for k, v in pr.items()}
    {0: 0.3878, 1: 0.2148, 2: 0.3974}
    """
    import networkx as nx

    n = len(G)
    if n == 0:
        return {}
    p = d = start = None
    if personalization is not None:
        p = node_values(G, personalization, "personalization")
        if p.sum() == 0:
            raise ZeroDivisionError
    if dangling is not None:
        d = node_values(G, dangling, "dangling")
    if nstart is not None:
        start = node_values(G, nstart, "nstart")
    M = G.weighted_csr(weight) if weight is not None else G.csr()
    try:
        x = _pagerank(M, alpha=alpha, personalization=p, max_iter=max_iter, tol=tol,
                      weight=weight is not None, dangling=d, nstart=start)
    except PowerIterationFailedConvergence as err:
        raise nx.PowerIterationFailedConvergence(max_iter) from err
    except ValueError as err:  # NetworkX's own arithmetic on inputs spbfs rejects
        raise NotImplementedError(str(err)) from err
    return result_dict(G, x)


def _betweenness_can_run(arguments):
    if arguments.get("weight") is not None:
        return "weighted betweenness runs in NetworkX"
    return True


def _rescale(bc, n, normalized, directed, endpoints, sampled):
    """NetworkX's ``_rescale`` on an array (``sampled``: rows of the ``k`` sources)."""
    N = n if endpoints else n - 1
    if N < 2:
        return bc
    k = None if sampled is None else sampled.size
    K = N if k is None else k
    correction = 1 if directed else 2
    if k is None or endpoints:
        scale = 1 / (K * (N - 1)) if normalized else N / (K * correction)
        return bc * scale
    if normalized:
        s_src = 1 / ((K - 1) * (N - 1)) if K > 1 else np.nan
        s_other = 1 / (K * (N - 1))
    else:
        s_src = N / ((K - 1) * correction) if K > 1 else np.nan
        s_other = N / (K * correction)
    scale = np.full(n, s_other)
    scale[sampled] = s_src
    return bc * scale


def _reach_counts(M, rows):
    """Per vertex: searches from ``rows`` that reach it; per source: vertices it reaches."""
    into = np.zeros(M.n, np.float64)
    out = np.zeros(rows.size, np.float64)
    for lo in range(0, rows.size, 64):
        reached = to_numpy(bfs_many(M, rows[lo:lo + 64])) >= 0
        into += reached.sum(axis=0)
        out[lo:lo + 64] = reached.sum(axis=1)
    return into, out


@dispatched(can_run=_betweenness_can_run, docs="Unweighted (Brandes as batched SpMM); "
            "``k``/``seed`` sample the same sources as NetworkX; ``weight`` runs in NetworkX.")
def betweenness_centrality(G, k=None, normalized=True, weight=None, endpoints=False,
                           seed=None):
    """NetworkX's ``betweenness_centrality`` (unweighted).

    Examples
    --------
    >>> import networkx as nx
    >>> nx.betweenness_centrality(nx.path_graph(3), backend="spbfs")
    {0: 0.0, 1: 1.0, 2: 0.0}
    """
    n = len(G)
    if k == n:
        k = None
    if k is None:
        rows, sampled = np.arange(n), None
    else:
        nodes = seed.sample(list(G.nodes), k)
        rows = np.fromiter(map(G.index.__getitem__, nodes), np.int64, count=len(nodes))
        sampled = rows
    if n == 0:
        return {}
    M = G.csr()
    bc = to_numpy(_betweenness(M, normalized=False, directed=True,
                               sources=M.xp.asarray(rows))).astype(np.float64)
    if endpoints:
        into, out = _reach_counts(M, rows)
        bc += into - np.bincount(rows, minlength=n)  # every reached w != s: + 1
        np.add.at(bc, rows, out - 1)  # the source: + (reached - 1)
    bc = _rescale(bc, n, normalized, G.is_directed(), endpoints, sampled)
    return result_dict(G, bc)


def _edge_can_run(arguments):
    if arguments.get("weight") is not None:
        return "weighted betweenness runs in NetworkX"
    if arguments["G"].is_multigraph():
        return "multigraph edge keys: runs in NetworkX"
    return True


@dispatched(can_run=_edge_can_run, docs="Unweighted (Brandes as batched SpMM, edge values from "
            "one masked product per batch of sources); ``k``/``seed`` sample as NetworkX; "
            "``weight`` and multigraphs run in NetworkX.")
def edge_betweenness_centrality(G, k=None, normalized=True, weight=None, seed=None):
    """NetworkX's ``edge_betweenness_centrality`` (unweighted).

    Examples
    --------
    >>> import networkx as nx
    >>> bc = nx.edge_betweenness_centrality(nx.path_graph(3), backend="spbfs")
    >>> {e: round(v, 4) for e, v in bc.items()}
    {(0, 1): 0.6667, (1, 2): 0.6667}
    """
    n = len(G)
    if k == n:
        k = None
    if k is None:
        rows = np.arange(n)
    else:
        nodes = seed.sample(list(G.nodes), k)
        rows = np.fromiter(map(G.index.__getitem__, nodes), np.int64, count=len(nodes))
    entries = G.edge_entries()
    directed = G.is_directed()
    values = np.zeros(0)  # no edge: NetworkX's rescale still runs (k=0 divides by zero)
    if entries.size:
        M = G.csr()
        E = _edge_betweenness(M, normalized=False, directed=directed,
                              sources=M.xp.asarray(rows))
        raw = to_numpy(E.data).astype(np.float64) * (1.0 if directed or n < 2 else 2.0)
        values = raw[G.csr_positions()[entries]]  # E holds M's pattern: each edge, in order
    values = _edge_rescale(values, n, normalized, directed, n if k is None else rows.size)
    return G.edge_dict(values.tolist())


def _edge_rescale(values, n, normalized, directed, k):
    """NetworkX's ``_rescale`` for edges (``endpoints=True``) with ``k`` sampled sources."""
    if n < 2:
        return values
    correction = 1 if directed else 2
    return values * (1 / (k * (n - 1)) if normalized else n / (k * correction))
