"""Node sets' neighbourhoods and boundaries in one compiled pass over their rows.

NetworkX's ``node_expansion``, ``node_boundary`` and ``edge_boundary`` read the adjacency of
every node of a set (often half the graph).  :func:`mark_neighbours` marks the rows next to
the set in a byte array (one pass over the set's entries, no array the size of those
entries), and :func:`boundary_entries` lists the entries NetworkX's ``edge_boundary``
yields, in its order, in one pass too.
"""

from __future__ import annotations

import numpy as np

from ._jit import kernel

__all__ = ["boundary_entries", "mark_neighbours"]

#: Values of the byte array :func:`mark_neighbours` fills.
OUTSIDE, IN_SET, NEXT = 0, 1, 2


@kernel
def _mark(indptr, indices, rows, state):  # pragma: no cover - compiled
    count = 0
    for i in range(rows.size):
        r = rows[i]
        for e in range(indptr[r], indptr[r + 1]):
            c = indices[e]
            if state[c] == 0:
                state[c] = 2
                count += 1
    return count


def mark_neighbours(indptr, indices, rows, n, exclude=True):
    """A byte per row: ``NEXT`` (2) for a successor of one of ``rows`` not itself in ``rows``
    (or, with ``exclude=False``, any successor of them), ``IN_SET`` (1) for ``rows`` (with
    ``exclude``), ``OUTSIDE`` (0) for the others; and the number marked ``NEXT``.

    Parameters
    ----------
    indptr, indices : numpy.ndarray
        CSR rows (any integer dtypes).
    rows : numpy.ndarray
        int64 rows of the set (repeats allowed).
    n : int
        Rows of the graph.
    exclude : bool
        Whether the set's own rows are left out of the neighbourhood.

    Returns
    -------
    state : numpy.ndarray
        uint8, one per row.
    count : int
        Rows marked ``NEXT``.

    Examples
    --------
    >>> import numpy as np
    >>> indptr, indices = np.array([0, 1, 3, 5, 6]), np.array([1, 0, 2, 1, 3, 2])
    >>> state, count = mark_neighbours(indptr, indices, np.array([1]), 4)
    >>> state.tolist(), count
    ([2, 1, 2, 0], 2)
    >>> mark_neighbours(indptr, indices, np.array([0, 2]), 4, exclude=False)[1]
    2
    """
    state = np.zeros(n, np.uint8)
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    if exclude:
        state[rows] = IN_SET
    count = _mark(indptr, indices, rows, state) if rows.size else 0
    return state, int(count)


@kernel
def _boundary(indptr, indices, rows, pos1, member2, has2, undirected, at,
              owner):  # pragma: no cover - compiled
    k = 0
    for i in range(rows.size):
        r = rows[i]
        r2 = has2 and member2[r] != 0
        for e in range(indptr[r], indptr[r + 1]):
            c = indices[e]
            p = pos1[c]
            if has2:
                keep = member2[c] != 0 or (p >= 0 and r2)
                if undirected and p >= 0 and p < i:
                    keep = False
            else:
                keep = p < 0
            if keep:
                at[k] = e
                owner[k] = i
                k += 1
    return k


def boundary_entries(indptr, indices, rows, n, member2=None, undirected=True):
    """The stored entries NetworkX's ``edge_boundary(G, nbunch1, nbunch2)`` yields, in its
    order: ``rows`` (``nbunch1``'s rows, distinct, in its set's order) one after another,
    each row's entries in their stored order; an entry to a row outside ``rows`` where
    ``member2`` is None, else an entry with one end in ``member2`` (a bool or byte per row)
    and the other in ``rows`` (an undirected edge inside ``rows`` once, from the end that
    comes first).

    Parameters
    ----------
    indptr, indices : numpy.ndarray
        CSR rows in adjacency order (any integer dtypes).
    rows : numpy.ndarray
        int64 distinct rows.
    n : int
        Rows of the graph.
    member2 : numpy.ndarray, optional
        Per row, whether it is in the second set.
    undirected : bool
        Whether the graph is undirected.

    Returns
    -------
    at, owner : numpy.ndarray
        int64 entries kept and, for each, its row's position in ``rows``.

    Examples
    --------
    >>> import numpy as np
    >>> indptr, indices = np.array([0, 1, 3, 5, 6]), np.array([1, 0, 2, 1, 3, 2])
    >>> at, owner = boundary_entries(indptr, indices, np.array([1, 2]), 4)
    >>> at.tolist(), owner.tolist()
    ([1, 4], [0, 1])
    """
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    pos1 = np.full(n, -1, np.int64)
    pos1[rows] = np.arange(rows.size)
    size = int((indptr[rows + 1].astype(np.int64) - indptr[rows]).sum()) if rows.size else 0
    at = np.empty(size, np.int64)
    owner = np.empty(size, np.int64)
    has2 = member2 is not None
    m2 = (np.ascontiguousarray(member2, dtype=np.uint8) if has2
          else np.zeros(0, np.uint8))
    k = _boundary(indptr, indices, rows, pos1, m2, has2, bool(undirected), at, owner)
    return at[:k], owner[:k]
