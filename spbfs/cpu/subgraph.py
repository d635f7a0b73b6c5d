"""The adjacency of an undirected subgraph as NetworkX's ``copy`` builds it, in one compiled
pass over the kept rows.

NetworkX's ``G.subgraph(nodes).copy()`` adds the edges ``(u, v)`` row after row (``u`` in
the new graph's node order, ``v`` in ``u``'s adjacency order); an undirected edge is made
where it first comes, so node ``u``'s neighbours are those of earlier rows that made an edge
to it (in the order of those rows), then its own row's neighbours not earlier than it (in
its adjacency order).  :func:`undirected_copy` lists that order and, for each slot, the
edge (numbered in the order the edges were made): a row that makes an edge to a later row
appends it to that row's list, which is then its first slots; no sort or search of the
kept entries.
"""

from __future__ import annotations

import numpy as np

from ._jit import kernel

__all__ = ["undirected_copy"]


@kernel
def _count(indptr, indices, rows, position, keep, use_keep, earlier,
           total):  # pragma: no cover - compiled
    """Per kept row, the kept entries to earlier rows; the entries of the rows in all."""
    t = 0
    for i in range(rows.size):
        r = rows[i]
        c = 0
        for e in range(indptr[r], indptr[r + 1]):
            p = position[indices[e]]
            if p >= 0 and p < i and (not use_keep or keep[e]):
                c += 1
        earlier[i] = c
        t += indptr[r + 1] - indptr[r]
    total[0] = t


@kernel
def _fill(indptr, indices, rows, position, keep, use_keep, start, made, slot_nbr, slot_edge,
          counts, incoming_src, incoming_edge, fill):  # pragma: no cover - compiled
    k = rows.size
    local = 0   # the entry's number among all entries of the rows, row after row
    edges = 0
    out = 0
    for i in range(k):
        # the edges earlier rows made to i, in their order: the first slots of i
        for j in range(start[i], start[i] + fill[i]):
            slot_nbr[out] = incoming_src[j]
            slot_edge[out] = incoming_edge[j]
            out += 1
        own = 0
        r = rows[i]
        for e in range(indptr[r], indptr[r + 1]):
            p = position[indices[e]]
            if p >= 0 and (not use_keep or keep[e]):
                if p >= i:  # made here: numbered, and told to row p
                    made[local] = True
                    slot_nbr[out] = p
                    slot_edge[out] = edges
                    out += 1
                    own += 1
                    if p > i:
                        q = start[p] + fill[p]
                        incoming_src[q] = i
                        incoming_edge[q] = edges
                        fill[p] += 1
                    edges += 1
            local += 1
        counts[i] = fill[i] + own
    return edges, out


def undirected_copy(indptr, indices, rows, n, keep=None):
    """The adjacency NetworkX's ``copy`` gives the undirected subgraph on ``rows`` (in that
    order) of a CSR in adjacency order, keeping the entries ``keep`` marks (all where None;
    the same for both entries of an edge).

    Parameters
    ----------
    indptr, indices : numpy.ndarray
        CSR rows in adjacency order, symmetric (any integer dtypes).
    rows : numpy.ndarray
        int64 distinct rows, in the new graph's node order.
    n : int
        Rows of the graph.
    keep : numpy.ndarray, optional
        bool per stored entry.

    Returns
    -------
    made : numpy.ndarray
        bool per entry of ``rows``' rows (row after row, in stored order): the entries whose
        edge is made there, in the order the edges are numbered.
    nbr, edge : numpy.ndarray
        int64 per slot of the new adjacency, node after node: the neighbour's position in
        ``rows`` and the edge's number.
    counts : numpy.ndarray
        int64 slots per node.

    Examples
    --------
    >>> import numpy as np
    >>> indptr, indices = np.array([0, 2, 4, 6]), np.array([1, 2, 0, 2, 0, 1])
    >>> made, nbr, edge, counts = undirected_copy(indptr, indices, np.array([2, 0]), 3)
    >>> made.tolist(), nbr.tolist(), edge.tolist(), counts.tolist()
    ([True, False, False, False], [1, 0], [0, 0], [1, 1])
    """
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    k = rows.size
    position = np.full(n, -1, np.int64)
    position[rows] = np.arange(k)
    use_keep = keep is not None
    keep = (np.ascontiguousarray(keep, dtype=np.bool_) if use_keep
            else np.zeros(1, np.bool_))
    earlier = np.empty(k, np.int64)
    total = np.zeros(1, np.int64)
    _count(indptr, indices, rows, position, keep, use_keep, earlier, total)
    start = np.zeros(k + 1, np.int64)
    np.cumsum(earlier, out=start[1:])
    size = int(total[0])
    made = np.zeros(size, np.bool_)
    slot_nbr = np.empty(size, np.int64)
    slot_edge = np.empty(size, np.int64)
    counts = np.empty(k, np.int64)
    incoming_src = np.empty(max(int(start[-1]), 1), np.int64)
    incoming_edge = np.empty(max(int(start[-1]), 1), np.int64)
    fill = np.zeros(k, np.int64)
    _, out = _fill(indptr, indices, rows, position, keep, use_keep, start, made, slot_nbr,
                   slot_edge, counts, incoming_src, incoming_edge, fill)
    return made, slot_nbr[:out], slot_edge[:out], counts
