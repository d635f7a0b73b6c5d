"""``lowest_common_ancestor`` on directed acyclic graphs, with NetworkX's choice among
several lowest common ancestors.

NetworkX intersects the two nodes' ancestor sets (each node with its ancestors, the set of
a breadth-first search over the reverse graph), starts at the first element of that
intersection and walks down, each step to the first successor (in adjacency order) that is
a common ancestor, until none is.  Here the ancestors are the queue order of one search over
the reverse graph (:func:`spbfs.semiring.queue_order`, NetworkX's predecessor order, so the
Python sets are built with the same insertion order and iterate alike, by C loops), and the
walk is on arrays: every common ancestor's first common successor found from the CSR rows,
then the chain from the start followed by pointer doubling.
"""

from __future__ import annotations

import numpy as np

from ..core.arrays import to_numpy
from ..semiring import queue_order
from ._recognition import no_multigraph
from ._registry import dispatched
from ._structure import is_directed_acyclic_graph

__all__ = []


def _ancestor_set(R, row, node):
    """NetworkX's ``nx.ancestors(G, node)`` with ``node`` added: the same Python set, its
    elements inserted in the order of the reverse graph's breadth-first search."""
    order = to_numpy(queue_order(R.matrix(R.on_gpu()), row)[0])
    found = set(R.labels(order[1:]))
    found.add(node)
    return found


def _walk_down(G, common, start):
    """Where NetworkX's walk from ``start`` through the set ``common`` ends: each step to
    the first successor of the current node that is in ``common``."""
    n = len(G)
    index = G.index
    rows = np.fromiter(map(index.__getitem__, common), np.int64, count=len(common))
    member = np.zeros(n, bool)
    member[rows] = True
    indptr = G._indptr.astype(np.int64)
    counts = indptr[rows + 1] - indptr[rows]
    owner = np.repeat(rows, counts)  # each entry of the common rows, by row in order
    first = np.cumsum(counts) - counts
    entries = np.repeat(indptr[rows] - first, counts) + np.arange(int(counts.sum()))
    cols = G._indices[entries].astype(np.int64)
    keep = member[cols]
    nxt = np.arange(n)
    kept_rows, at = np.unique(owner[keep], return_index=True)  # rows ascending: the
    nxt[kept_rows] = cols[keep][at]  # first kept entry of each row (entries in row order)
    while True:  # pointer doubling: the chain's end, in O(log length) steps
        jumped = nxt[nxt]
        if np.array_equal(jumped, nxt):
            break
        nxt = jumped
    return G.labels(nxt[[index[start]]])[0]


def _lca_can_run(arguments):
    return no_multigraph(arguments)


@dispatched(can_run=_lca_can_run, docs="Ancestors by one breadth-first search (queue "
            "order) over the reverse graph per node; NetworkX's choice among several lowest "
            "common ancestors (its sets built in the same order, its walk on arrays); "
            "multigraphs run in NetworkX.")
def lowest_common_ancestor(G, node1, node2, default=None):
    """NetworkX's ``lowest_common_ancestor`` of a directed acyclic graph.

    Parameters
    ----------
    G : SpbfsGraph
        Directed and acyclic.
    node1, node2 : node
        Nodes of ``G``.
    default : object
        Returned when the two nodes have no common ancestor.

    Returns
    -------
    node or ``default``
        The lowest common ancestor NetworkX returns.

    Raises
    ------
    networkx.NetworkXError
        ``G`` has a cycle.
    networkx.NetworkXPointlessConcept
        ``G`` has no nodes.
    networkx.NodeNotFound
        A node is not in ``G``.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.DiGraph([(0, 1), (0, 2), (1, 3), (2, 4)])
    >>> nx.lowest_common_ancestor(G, 3, 4, backend="spbfs")
    0
    """
    import networkx as nx

    if not G.is_directed():
        raise nx.NetworkXNotImplemented("not implemented for undirected type")
    if not is_directed_acyclic_graph(G):
        raise nx.NetworkXError("LCA only defined on directed acyclic graphs.")
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("LCA meaningless on null graphs.")
    pair = (node1, node2)
    missing = {node for node in pair if node not in G}
    if missing:
        raise nx.NodeNotFound(f"Node(s) {missing} from pair {pair} not in G.")
    R = G.reverse()
    first = _ancestor_set(R, R.index[node1], node1)
    second = first if node2 == node1 else _ancestor_set(R, R.index[node2], node2)
    common = first & second
    if not common:
        return default
    return _walk_down(G, common, next(iter(common)))
