"""Which entries of one graph's rows are entries of another graph's rows, the two graphs'
rows matched by a map (their shared nodes), in one pass over both graphs' rows.

For each row ``x`` of the first graph the columns of its partner row ``to[x]`` in the
second graph are stamped (with ``x``) in an array over the second graph's rows, and each
entry ``x -> y`` of the first graph is found where ``to[y]`` carries that stamp.  Every row
of either graph is read once, in order; the stamps (one int a node) stay in cache.
"""

from __future__ import annotations

import numpy as np

from ._jit import kernel

__all__ = ["entries_in"]


@kernel
def _entries_in(indptr, indices, to, oindptr, oindices, out):  # pragma: no cover
    stamp = np.full(oindptr.size - 1, -1, np.int64)
    for x in range(indptr.size - 1):
        r = to[x]
        if r < 0:
            for e in range(indptr[x], indptr[x + 1]):
                out[e] = False
            continue
        for f in range(oindptr[r], oindptr[r + 1]):
            stamp[oindices[f]] = x
        for e in range(indptr[x], indptr[x + 1]):
            y = to[indices[e]]
            out[e] = y >= 0 and stamp[y] == x


def entries_in(indptr, indices, to, oindptr, oindices):
    """Whether each entry ``x -> y`` of a CSR graph is an entry ``to[x] -> to[y]`` of
    another.

    Parameters
    ----------
    indptr, indices : numpy.ndarray
        The first graph's rows.
    to : numpy.ndarray
        int64, along the first graph's rows: the row of the same node in the other graph,
        -1 where it has none.
    oindptr, oindices : numpy.ndarray
        The other graph's rows.

    Returns
    -------
    numpy.ndarray
        bool, along ``indices``.

    Examples
    --------
    >>> import numpy as np
    >>> # first graph: 0 -> 1, 0 -> 2, 1 -> 2; the other: its row 1 = node 0, row 0 = node 1
    >>> entries_in(np.array([0, 2, 3, 3]), np.array([1, 2, 2]), np.array([1, 0, -1]),
    ...            np.array([0, 0, 1]), np.array([0]))
    array([ True, False, False])
    """
    out = np.empty(indices.size, np.bool_)
    _entries_in(indptr, indices, np.ascontiguousarray(to, dtype=np.int64), oindptr,
                oindices, out)
    return out
