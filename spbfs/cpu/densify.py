"""Dense arrays from a graph's rows, row by row in one compiled pass.

NetworkX's ``to_numpy_array`` fills an ``n x n`` array with ``nonedge`` and then scatters
every edge's weight into it; :func:`dense_rows` writes each output row whole while it is in
the core's cache (the fill, then that row's entries), so the array's memory is written once
and the entries cost a cached store each.  Rows are split over threads (each output row is
one graph row's).
"""

from __future__ import annotations

import numpy as np

from ._jit import kernel
from .threads import get_num_threads, run_kernel, split

__all__ = ["dense_rows", "google_rows", "outer_minus_sparse"]

#: Output entries from which the rows are split over threads.
PARALLEL_ENTRIES = 1 << 20
U = np.uintp  # ids read as unsigned: numba's negative-index test skipped
ONE = np.uintp(1)


@kernel
def _rows(r0, r1, indptr, indices, pos, weights, nonedge, out):  # pragma: no cover - compiled
    """Graph rows ``r0..r1``: output row ``pos[r]`` set to ``nonedge``, then each entry's
    weight at column ``pos[column]`` (rows and columns at -1 left out)."""
    width = out.shape[1]
    for r in range(U(r0), U(r1)):
        i = pos[r]
        if i < 0:
            continue
        row = out[i]
        for j in range(width):
            row[j] = nonedge
        for e in range(U(indptr[r]), U(indptr[r + ONE])):
            j = pos[U(indices[e])]
            if j >= 0:
                row[j] = weights[e]
    return 0


def dense_rows(indptr, indices, pos, weights, nonedge, size):
    """The ``size x size`` float64 array (C order) with ``weights[e]`` at ``(pos[r],
    pos[c])`` for each stored entry ``e = (r, c)`` and ``nonedge`` elsewhere, as NetworkX's
    ``to_numpy_array`` builds it (a later entry of one position over an earlier one).

    Parameters
    ----------
    indptr, indices : numpy.ndarray
        CSR rows of the graph (any integer dtypes).
    pos : numpy.ndarray
        int64 output position of each graph row, -1 for rows left out; every position
        below ``size`` is some row's.
    weights : numpy.ndarray
        float64, one per stored entry.
    nonedge : float
        The value where there is no entry.
    size : int
        Rows (and columns) of the output.

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> import numpy as np
    >>> indptr, indices = np.array([0, 1, 3, 4]), np.array([1, 0, 2, 1])
    >>> dense_rows(indptr, indices, np.array([0, 1, 2]), np.arange(4.0), np.nan, 3)
    array([[nan,  0., nan],
           [ 1., nan,  2.],
           [nan,  3., nan]])
    """
    out = np.empty((size, size))
    _by_rows(_rows, pos.size, out, indptr, indices, np.ascontiguousarray(pos, np.int64),
             np.ascontiguousarray(weights, np.float64), float(nonedge), out)
    return out


def _by_rows(rows_kernel, rows, out, *args):
    """``rows_kernel(r0, r1, *args)`` over ``rows`` rows, split over the threads when
    ``out`` is large enough."""
    threads = get_num_threads() if out.size >= PARALLEL_ENTRIES else 1
    run_kernel(rows_kernel, split(rows, threads), *args)


@kernel
def _outer_rows(r0, r1, left, right, denom, indptr, indices, data,
                out):  # pragma: no cover - compiled
    """Rows ``r0..r1`` of ``0.0 - left[i] * right[j] / denom``, then each stored entry of
    the row added."""
    width = out.shape[1]
    for i in range(U(r0), U(r1)):
        li = left[i]
        row = out[i]
        for j in range(width):
            row[j] = 0.0 - li * right[j] / denom
        for e in range(U(indptr[i]), U(indptr[i + ONE])):
            row[U(indices[e])] += data[e]
    return 0


def outer_minus_sparse(left, right, denom, indptr, indices, data):
    """NetworkX's modularity matrices, ``A - outer(left, right) / denom`` with ``A`` a CSR
    array of float64 ``data``, as NumPy computes it step by step (the outer product in the
    vectors' dtype, divided, subtracted from 0.0, then each stored entry added), each row
    written while it is in the core's cache.

    Parameters
    ----------
    left, right : numpy.ndarray
        int64 or float64 vectors of one dtype (the product is taken in it).
    denom : float
        The divisor.
    indptr, indices, data : numpy.ndarray
        ``A``'s rows, columns ascending or not (no repeated column in a row).

    Returns
    -------
    numpy.ndarray
        ``(left.size, right.size)`` float64, C order.

    Examples
    --------
    >>> import numpy as np
    >>> k = np.array([1, 2])
    >>> outer_minus_sparse(k, k, 3.0, np.array([0, 1, 2]), np.array([1, 0]), np.ones(2))
    array([[-0.33333333,  0.33333333],
           [ 0.33333333, -1.33333333]])
    """
    out = np.empty((left.size, right.size))
    _by_rows(_outer_rows, left.size, out, left, right, float(denom), indptr, indices,
             np.ascontiguousarray(data, np.float64), out)
    return out


@kernel
def _google_rows(r0, r1, out, sums, alpha, shift):  # pragma: no cover - compiled
    width = out.shape[1]
    for i in range(U(r0), U(r1)):
        row = out[i]
        s = sums[i]
        for j in range(width):
            row[j] = alpha * (row[j] / s) + shift[j]
    return 0


def google_rows(A, sums, alpha, shift):
    """NetworkX's last steps of ``google_matrix`` in ``A``'s memory (float64, C order):
    ``alpha * (A / sums[:, None]) + shift``, each element's three operations in NumPy's
    order, in one pass instead of three.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[1.0, 3.0], [2.0, 2.0]])
    >>> google_rows(A, A.sum(axis=1), 0.5, np.array([0.25, 0.25]))
    array([[0.375, 0.625],
           [0.5  , 0.5  ]])
    """
    _by_rows(_google_rows, A.shape[0], A, A, sums, float(alpha), shift)
    return A
