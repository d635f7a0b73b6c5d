"""The most frequent value over each row: ``row_mode``.

Per row ``i`` of a sparse ``A``, the values ``x[j]`` of its stored columns ``j`` form a
multiset; ``row_mode`` gives the value that occurs most often in it (the largest on a tie),
how often, and how often a given value ``own[i]`` occurs.  Label propagation takes a
vertex's new label from exactly this (the product of ``A`` with the one-hot label matrix,
then an arg-max per row); a backend with a ``row_mode`` primitive counts each row in one
pass (the CPU: one kernel; the GPU: a warp per row, a block and a hash table per long row),
where the generic path sorts the ``(row, value)`` pairs of the entries and reads the runs.
"""

from __future__ import annotations

import numpy as np

from ..core.arrays import array_module
from ._backend import backend_for
from ._matrix import Matrix

__all__ = ["row_mode"]


def row_mode(A, x, *, own=None, mask=None, null=-1):
    """The most frequent value of ``x`` over each row's stored columns.

    Parameters
    ----------
    A : scipy/cupyx sparse matrix, 2-D array or Matrix
        ``m x n``; only its pattern is read (duplicates count as often as stored).
    x : 1-D integer array, length ``n``
        The value of each column (a label), above the dtype's smallest value.
    own : 1-D integer array, length ``m``, optional
        A value per row whose count is returned too (a vertex's own label).
    mask : 1-D bool array, length ``m``, optional
        Rows to compute; the others get ``null`` and counts of 0.
    null : int
        The value of a row without entries (or masked out).

    Returns
    -------
    value : array of int64, length ``m``
        The most frequent value (the largest among those tied), ``null`` for empty rows.
    count : array of int64
        How often ``value`` occurs in the row (0 for empty rows).
    own_count : array of int64, or None
        How often ``own[i]`` occurs in row ``i`` (None without ``own``).

    Raises
    ------
    ValueError, TypeError
        An argument of the wrong length, kind or device.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs import semiring
    >>> A = sp.csr_array(np.array([[1, 1, 1, 0], [0, 1, 0, 1], [0, 0, 0, 0]]))
    >>> x = np.array([7, 5, 7, 9])
    >>> value, count, own_count = semiring.row_mode(A, x, own=np.array([5, 5, 5]))
    >>> value.tolist(), count.tolist(), own_count.tolist()
    ([7, 9, -1], [2, 1, 0], [1, 1, 0])
    """
    M = Matrix.from_any(A, name="A")
    xp = M.xp
    x = _operand(x, M.ncols, "x", "iu", xp)
    own = None if own is None else _operand(own, M.nrows, "own", "iu", xp)
    mask = None if mask is None else _operand(mask, M.nrows, "mask", "b", xp)
    if not isinstance(null, (int, np.integer)):
        raise TypeError(f"null must be an integer, got {null!r}")
    value = xp.full(M.nrows, null, np.int64)
    count = xp.zeros(M.nrows, np.int64)
    own_count = None if own is None else xp.zeros(M.nrows, np.int64)
    if M.nnz:
        kernel = getattr(backend_for(xp), "row_mode", None)
        if kernel is None or not kernel(M.indptr, M.indices, x, own, mask, value, count,
                                        own_count):
            _runs(M, x, own, mask, value, count, own_count)
    return value, count, own_count


def _operand(arr, size, name, kinds, xp):
    if array_module(arr) is not xp:
        raise TypeError(f"{name} must live on the same device as A")
    if arr.ndim != 1 or arr.shape[0] != size:
        raise ValueError(f"{name} must be a 1-D array of length {size}, got shape {arr.shape}")
    if arr.dtype.kind not in kinds:
        raise TypeError(f"{name} must be of kind {kinds!r}, got dtype {arr.dtype}")
    return arr.astype(np.int64, copy=False) if kinds != "b" else arr


def _runs(M, x, own, mask, value, count, own_count):
    """The generic path: the entries' ``(row, value)`` pairs sorted, their runs counted,
    and per row the run of the largest ``(count, value)``."""
    xp = M.xp
    rows, vals = M.entry_rows.astype(np.int64), x[M.indices]
    if mask is not None:
        keep = mask[rows]
        rows, vals = rows[keep], vals[keep]
    if not rows.size:
        return
    order = xp.lexsort(xp.stack([vals, rows]))
    rows, vals = rows[order], vals[order]
    ends = xp.flatnonzero(xp.concatenate([(rows[1:] != rows[:-1]) | (vals[1:] != vals[:-1]),
                                          xp.ones(1, bool)]))
    run_rows, run_vals = rows[ends], vals[ends]
    run_counts = xp.diff(ends, prepend=-1)
    if own_count is not None:
        mine = run_vals == own[run_rows]
        own_count[run_rows[mine]] = run_counts[mine]
    best = xp.lexsort(xp.stack([run_vals, run_counts, run_rows]))  # the last run per row
    last = best[xp.flatnonzero(xp.concatenate([run_rows[best][1:] != run_rows[best][:-1],
                                               xp.ones(1, bool)]))]
    value[run_rows[last]] = run_vals[last]
    count[run_rows[last]] = run_counts[last]
