"""The key order of each of NetworkX's Floyd-Warshall distance dicts, every row in one pass.

NetworkX's ``floyd_warshall`` makes ``dist[u]`` by setting ``dist[u][u]``, then one key per
edge as ``G.edges()`` lists them, then the other nodes as its triple loop reads them (node
order).  :func:`floyd_key_orders` writes those orders as the rows of an ``n x n`` array, the
rows split over the threads (a row's marks in a byte array of the thread's own).
"""

from __future__ import annotations

import numpy as np

from ._jit import kernel
from .threads import get_num_threads, run_kernel, split

__all__ = ["floyd_key_orders"]

#: Cells (``n * n``) from which the rows are split over the threads.
PARALLEL_CELLS = 1 << 16
_SEEN, _TAKEN = 1, 2


@kernel
def _orders(lo, hi, indptr, indices, directed, out):  # pragma: no cover - compiled
    """Rows ``lo .. hi - 1`` of the key orders (see :func:`floyd_key_orders`)."""
    n = out.shape[0]
    mark = np.zeros(n, np.uint8)
    for u in range(lo, hi):
        row = out[u]
        row[0] = u
        k = 1
        mark[u] = _TAKEN
        for e in range(indptr[u], indptr[u + 1]):
            if mark[indices[e]] == 0:
                mark[indices[e]] = _SEEN
        if not directed:  # an edge to an earlier node comes with that node's row
            for v in range(u):
                if mark[v] == _SEEN:
                    row[k] = v
                    k += 1
                    mark[v] = _TAKEN
        for e in range(indptr[u], indptr[u + 1]):
            c = indices[e]
            if mark[c] == _SEEN and (directed or c > u):
                row[k] = c
                k += 1
                mark[c] = _TAKEN
        for v in range(n):
            if mark[v] == 0:
                row[k] = v
                k += 1
            mark[v] = 0


def floyd_key_orders(indptr, indices, directed):
    """Per row ``u``, the order in which NetworkX's Floyd-Warshall makes ``dist[u]``'s keys.

    ``u`` itself; then its edges as ``G.edges()`` lists them: for an undirected graph the
    neighbours before ``u`` in node order (their edges are listed with their own rows),
    then its later neighbours in its row's order; for a directed one its row's order; each
    neighbour once; then every other node in node order.

    Parameters
    ----------
    indptr, indices : numpy.ndarray
        CSR rows in NetworkX's adjacency order (any integer dtypes).
    directed : bool

    Returns
    -------
    numpy.ndarray
        int64, ``n x n``: row ``u`` a permutation of the rows starting with ``u``.

    Examples
    --------
    The path 0 - 2 - 1, node 2's row listing 1 first:

    >>> import numpy as np
    >>> indptr, indices = np.array([0, 1, 2, 4]), np.array([2, 2, 1, 0])
    >>> floyd_key_orders(indptr, indices, False).tolist()
    [[0, 2, 1], [1, 2, 0], [2, 0, 1]]
    """
    indptr, indices = np.ascontiguousarray(indptr), np.ascontiguousarray(indices)
    n = indptr.size - 1
    out = np.empty((n, n), np.int64)
    threads = get_num_threads() if n * n >= PARALLEL_CELLS else 1
    run_kernel(_orders, split(n, threads), indptr, indices, bool(directed), out)
    return out
