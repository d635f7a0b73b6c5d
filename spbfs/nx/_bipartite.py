"""``bipartite_betweenness_centrality`` (NetworkX's ``bipartite.betweenness_centrality``):
the backend's unnormalised betweenness (Brandes as batched products,
:func:`spbfs.betweenness_centrality`) divided by each side's largest possible value, as
NetworkX divides it."""

from __future__ import annotations

from itertools import filterfalse, islice

import numpy as np

from ._link_analysis import betweenness_centrality
from ._recognition import no_multigraph
from ._registry import dispatched

__all__ = []


def _largest(n, m):
    """NetworkX's largest betweenness of a node on the side of ``n`` nodes, the other side
    holding ``m`` (ZeroDivisionError for an empty other side, as NetworkX's)."""
    s, t = divmod(n - 1, m)
    return (m**2 * (s + 1) ** 2 + m * (s + 1) * (2 * t - s - 1) - t * (2 * s - t + 3)) / 2.0


@dispatched("bipartite_betweenness_centrality", can_run=no_multigraph,
            docs="Unweighted betweenness (Brandes as batched products) divided by each "
            "side's largest value on arrays; equal to rounding. Multigraphs run in NetworkX.")
def bipartite_betweenness_centrality(G, nodes):
    """NetworkX's ``bipartite.betweenness_centrality``: betweenness divided by the largest
    value a node of its side can have.

    Parameters
    ----------
    G : SpbfsGraph
        A bipartite graph.
    nodes : iterable of node
        The nodes of one side (the top); the others are the bottom.

    Returns
    -------
    dict
        Node -> centrality, in ``G``'s node order.

    Raises
    ------
    ZeroDivisionError
        A side is empty, or its largest value is 0 (as NetworkX's).
    KeyError
        A node of ``nodes`` is not in ``G``.

    Examples
    --------
    >>> import networkx as nx
    >>> from networkx.algorithms import bipartite
    >>> bipartite.betweenness_centrality(nx.path_graph(4), [1, 3], backend="spbfs")
    {0: 0.0, 1: 1.0, 2: 1.0, 3: 0.0}
    """
    top = set(nodes)
    n = len(top)
    in_top = np.zeros(len(G), bool)
    rows = np.fromiter(map(G.index.__getitem__, G.present(top)), np.int64)
    in_top[rows] = True
    m = len(G) - rows.size  # set(G) - top
    top_max, bottom_max = _largest(n, m), _largest(m, n)
    if top:  # NetworkX divides the top's values first, in the set's order
        first = next(iter(top))
        if top_max == 0:
            raise KeyError(first) if first not in G else ZeroDivisionError(
                "float division by zero")
        missing = list(islice(filterfalse(G.__contains__, top), 1))
        if missing:
            raise KeyError(missing[0])
    if m and bottom_max == 0:
        raise ZeroDivisionError("float division by zero")
    bc = betweenness_centrality(G, normalized=False)
    values = np.fromiter(bc.values(), np.float64, count=len(G))
    values /= np.where(in_top, top_max, bottom_max)
    return G.node_dict(values.tolist())
