"""Per row, the columns two CSR matrices share, in one compiled pass over both.

A directed graph's reciprocity counts, for each vertex, the successors that are also its
predecessors: the overlap of row ``i`` of the pattern with row ``i`` of its transpose.  Row
``i`` of the first matrix stamps its columns with ``i`` in an array of the columns, and row
``i`` of the second counts the stamps it finds (``O(nnz)``, no merge's chain of dependent
comparisons), where the element-wise product ``P .* P.T`` makes a matrix of the shared
entries first.
"""

from __future__ import annotations

import numpy as np

from ._jit import kernel

__all__ = ["row_overlap"]


@kernel
def _overlap(aptr, aidx, bptr, bidx, out, stamp):  # pragma: no cover - compiled
    # row i's columns of A stamped with i, then B's counted where they find the stamp:
    # independent reads, not a merge's chain of dependent comparisons
    for i in range(out.size):
        for e in range(aptr[i], aptr[i + 1]):
            stamp[aidx[e]] = i
        c = 0
        for e in range(bptr[i], bptr[i + 1]):
            c += stamp[bidx[e]] == i
        out[i] = c


def row_overlap(aptr, aidx, bptr, bidx):
    """The number of columns row ``i`` of ``A`` and row ``i`` of ``B`` share, for every row.

    Parameters
    ----------
    aptr, aidx, bptr, bidx : numpy.ndarray
        CSR arrays of two matrices with the same number of rows, each row's columns
        distinct (any integer dtypes).

    Returns
    -------
    numpy.ndarray
        int64 counts.

    Examples
    --------
    >>> import numpy as np
    >>> row_overlap(np.array([0, 2, 3]), np.array([0, 1, 0]),
    ...             np.array([0, 1, 3]), np.array([1, 0, 1])).tolist()
    [1, 1]
    """
    n = len(aptr) - 1
    out = np.empty(n, np.int64)
    stamp = np.full(max(n, int(aidx.max(initial=-1)) + 1), -1, np.int64)
    _overlap(aptr, aidx, bptr, bidx, out, stamp)
    return out
