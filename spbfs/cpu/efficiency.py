"""Sums of ``1 / d`` over BFS distances in NetworkX's order (``global_efficiency``,
``local_efficiency``): a host kernel over levels already found by a many-source BFS.

NetworkX adds ``1 / d`` one pair at a time, sources in order and each source's targets in
BFS order, so by distance; :func:`inverse_distance_sums` counts each source's distances
and adds ``1 / d`` that many times from the nearest, which gives NetworkX's float sum to
the last bit without making the list of pairs.
"""

from __future__ import annotations

import numpy as np

from ._jit import kernel

__all__ = ["inverse_distance_sums"]


@kernel
def _sums(levels, starts, widths, rows, bounds, totals, counts):  # pragma: no cover - compiled
    for g in range(totals.size):
        total = totals[g]
        lo = starts[g]
        hi = lo + widths[g]
        for q in range(bounds[g], bounds[g + 1]):
            r = rows[q]
            top = 0
            for c in range(lo, hi):
                d = levels[r, c]
                if d >= counts.size:
                    return -1
                if d > 0:
                    counts[d] += 1
                    top = max(top, d)
            for d in range(1, top + 1):
                inverse = 1.0 / d
                for _ in range(counts[d]):
                    total += inverse
                counts[d] = 0
        totals[g] = total
    return 0


def inverse_distance_sums(levels, starts, widths, rows, bounds, totals):
    """Add to ``totals[g]``, one at a time, ``1 / d`` for every positive ``d`` among
    ``levels[r, starts[g]:starts[g] + widths[g]]``, for the rows ``r`` of
    ``rows[bounds[g]:bounds[g + 1]]`` in order, each row's from its smallest ``d``.

    Parameters
    ----------
    levels : 2-D array of int32 or int64
        BFS levels (0 at a source, negative where unreached), C-contiguous.
    starts, widths : 1-D array of int64
        Each group's columns.
    rows : 1-D array of int64
        The rows of every group, group after group.
    bounds : 1-D array of int64
        ``len(totals) + 1`` offsets into ``rows``.
    totals : 1-D array of float64
        Added to in place (their first values start the sums).

    Raises
    ------
    ValueError
        If a level in a group's columns is not below the widest group's width (a BFS
        reaching only those columns gives levels below their count).

    Examples
    --------
    A path 0 - 1 - 2 searched from each end: ``1 + 1/2`` twice, on top of 0.

    >>> import numpy as np
    >>> levels = np.array([[0, 1, 2], [2, 1, 0]], np.int32)
    >>> totals = np.zeros(1)
    >>> inverse_distance_sums(levels, np.array([0]), np.array([3]), np.array([0, 1]),
    ...                       np.array([0, 2]), totals)
    >>> totals.tolist()
    [3.0]
    """
    widths = np.asarray(widths, np.int64)
    counts = np.zeros((int(widths.max()) if widths.size else 0) + 1, np.int64)
    if _sums(np.ascontiguousarray(levels), np.asarray(starts, np.int64), widths,
             np.asarray(rows, np.int64), np.asarray(bounds, np.int64), totals, counts) < 0:
        raise ValueError("levels must be below their group's width (a BFS's levels within "
                         "the columns it reaches)")
