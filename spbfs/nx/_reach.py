"""Reachability sets (``descendants``, ``ancestors``, ``node_connected_component``) from one
:func:`spbfs.bfs` (direction-optimising, no visiting order needed)."""

from __future__ import annotations

import numpy as np

from ..algorithms.bfs import bfs
from ..core.arrays import to_numpy
from ._registry import dispatched

__all__ = []


def _reached(G, row):
    """Rows reachable from ``row`` (``row`` included)."""
    levels = to_numpy(bfs(G.csr(), row))
    return np.flatnonzero(levels >= 0)


def _missing(G, node):
    import networkx as nx

    if node not in G:
        raise nx.NetworkXError(f"The node {node} is not in the graph.")


@dispatched(docs="Same set as NetworkX.")
def descendants(G, source):
    """NetworkX's ``descendants``: the nodes reachable from ``source``.

    Examples
    --------
    >>> import networkx as nx
    >>> sorted(nx.descendants(nx.DiGraph([(0, 1), (1, 2), (3, 1)]), 1, backend="spbfs"))
    [2]
    """
    _missing(G, source)
    s = G.index[source]
    rows = _reached(G, s)
    return set(G.labels(rows[rows != s]))


@dispatched(docs="Same set as NetworkX.")
def ancestors(G, source):
    """NetworkX's ``ancestors``: the nodes that reach ``source``.

    Examples
    --------
    >>> import networkx as nx
    >>> sorted(nx.ancestors(nx.DiGraph([(0, 1), (1, 2), (3, 1)]), 1, backend="spbfs"))
    [0, 3]
    """
    _missing(G, source)
    R = G.reverse(ordered=False)
    s = R.index[source]
    rows = _reached(R, s)
    return set(R.labels(rows[rows != s]))


@dispatched(docs="Same set as NetworkX.")
def node_connected_component(G, n):
    """NetworkX's ``node_connected_component`` (undirected graphs).

    Examples
    --------
    >>> import networkx as nx
    >>> nx.node_connected_component(nx.Graph([(0, 1), (2, 3)]), 3, backend="spbfs")
    {2, 3}
    """
    if n not in G:
        raise KeyError(n)
    return set(G.labels(_reached(G, G.index[n])))
