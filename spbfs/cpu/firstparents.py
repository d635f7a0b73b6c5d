"""The parents of NetworkX's Dijkstra paths from its pop order, in one compiled pass.

NetworkX's path to ``v`` extends the path of the vertex whose push set ``v``'s final
distance: of ``v``'s *tight* in-neighbours ``u`` (``dist[u] + w == dist[v]``), the one
popped first.  :func:`first_tight_parents` reads the popped rows' entries once, the rows
split over the threads, and keeps for each column the smallest pop rank of a tight row
reaching it (an atomic minimum): where the array form found every tight entry, then
sorted them by column and rank.
"""

from __future__ import annotations

import numpy as np

from ._atomic import fetch_min
from ._jit import kernel
from .threads import get_num_threads, run_kernel, split

__all__ = ["first_tight_parents"]

#: Popped rows' entries from which the rows are split over the threads.
PARALLEL_ENTRIES = 1 << 16


@kernel
def _walk(lo, hi, indptr, indices, data, dist, order, listed, best):  # pragma: no cover
    for k in range(lo, hi):
        r = order[k]
        dr = dist[r]
        for e in range(indptr[r], indptr[r + 1]):
            c = indices[e]
            # the tight test first: one read at random per entry, few entries pass it
            if dr + data[e] == dist[c] and listed[c] and c != r and best[c] > k:
                fetch_min(best, c, k)


def first_tight_parents(indptr, indices, data, dist, order, sources):
    """Per row, its tight in-neighbour of smallest position in ``order`` (-1 for the rows
    not in ``order``, the ``sources`` and the rows no tight entry reaches).

    Parameters
    ----------
    indptr, indices, data : numpy.ndarray
        CSR rows of the weighted graph (any integer dtypes; ``data`` int64 or float64,
        added to the distances as float64).
    dist : numpy.ndarray
        float64 distances of every row.
    order : numpy.ndarray
        int64 rows in pop order.
    sources : array-like of int
        The search's sources (they have no parent).

    Returns
    -------
    numpy.ndarray
        int64 parent of each row.

    Examples
    --------
    A triangle 0 - 1 - 2 with ``0 - 2`` as long as the path through 1:

    >>> import numpy as np
    >>> indptr, indices = np.array([0, 2, 4, 6]), np.array([1, 2, 0, 2, 0, 1])
    >>> data = np.array([1.0, 2.0, 1.0, 1.0, 2.0, 1.0])
    >>> first_tight_parents(indptr, indices, data, np.array([0.0, 1.0, 2.0]),
    ...                     np.array([0, 1, 2]), [0]).tolist()
    [-1, 0, 0]
    """
    n = indptr.size - 1
    order = np.ascontiguousarray(order, np.int64)
    listed = np.zeros(n, bool)
    listed[order] = True
    listed[np.asarray(sources, np.int64)] = False
    best = np.full(n, order.size, np.int64)
    reach = np.zeros(order.size + 1, np.int64)  # entries of order[:k]
    np.cumsum(indptr[order + 1] - indptr[order], out=reach[1:])
    threads = get_num_threads() if reach[-1] >= PARALLEL_ENTRIES else 1
    run_kernel(_walk, split(order.size, threads, reach), indptr, indices,
               np.ascontiguousarray(data), dist, order, listed, best)
    found = best < order.size
    parent = np.full(n, -1, np.int64)
    parent[found] = order[best[found]]
    return parent
