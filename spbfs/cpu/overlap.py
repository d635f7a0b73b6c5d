"""Per row, the columns two CSR matrices share, in one compiled pass over both.

A directed graph's reciprocity counts, for each vertex, the successors that are also its
predecessors: the overlap of row ``i`` of the pattern with row ``i`` of its transpose.  Row
``i`` of the first matrix stamps its columns with ``i`` in an array of the columns, and row
``i`` of the second counts the stamps it finds (``O(nnz)``, no merge's chain of dependent
comparisons), where the element-wise product ``P .* P.T`` makes a matrix of the shared
entries first.  The rows are split over threads by their entries, each range stamping an
array of its own.
"""

from __future__ import annotations

import numpy as np

from ._jit import kernel
from .threads import get_num_threads, run_kernel, split

__all__ = ["row_overlap"]

#: Entries (both matrices') from which the rows are split over threads, each range with
#: its own stamps.
PARALLEL_ENTRIES = 1 << 16


@kernel
def _overlap(lo, hi, r, aptr, aidx, bptr, bidx, out, stamps):  # pragma: no cover - compiled
    # rows lo..hi: row i's columns of A stamped with i in this range's own stamps, then B's
    # counted where they find the stamp: independent reads, not a merge's chain of
    # dependent comparisons
    stamp = stamps[r]
    for i in range(lo, hi):
        for e in range(aptr[i], aptr[i + 1]):
            stamp[aidx[e]] = i
        c = 0
        for e in range(bptr[i], bptr[i + 1]):
            c += stamp[bidx[e]] == i
        out[i] = c
    return 0


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
    work = aidx.size + bidx.size
    ranges = split(n, get_num_threads() if work >= PARALLEL_ENTRIES else 1, aptr + bptr)
    stamps = np.full((len(ranges), max(n, int(aidx.max(initial=-1)) + 1)), -1, np.int64)
    run_kernel(_overlap, [(lo, hi, r) for r, (lo, hi) in enumerate(ranges)], aptr, aidx,
               bptr, bidx, out, stamps)
    return out
