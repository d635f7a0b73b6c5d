"""``A[rows][:, cols]`` for a permutation ``cols`` (``csr_permuted``): a renumbering of a
CSR matrix in two passes over threads, each output row's columns sorted in place, where
scipy's fancy indexing gathers, maps and sorts on one thread (degree orderings: twenty
seconds of one at 128M entries, :func:`spbfs.triangle_count`'s first call); and so the
lower triangle of a renumbered pattern (``csr_lower_permuted``) and an induced subgraph's
pattern in any numbering (``csr_induced``: the forest's core numbered hubs first).
"""

from __future__ import annotations

import numpy as np

from ._jit import kernel
from .runsort import RADIX_BITS, sort_run
from .threads import get_num_threads, run_kernel, split

__all__ = ["csr_induced", "csr_lower_permuted", "csr_permuted"]

#: Entries from which the rows are split over threads.
PARALLEL_ENTRIES = 1 << 16
U = np.uintp


@kernel(inline="always")
def _row_scratch(out_ptr, r0, r1, keys, values):  # pragma: no cover - compiled
    """:func:`~spbfs.cpu.runsort.sort_run`'s buffers for the rows ``r0..r1``: spare keys
    and values as long as the longest row (no values where ``values`` is empty) and the
    digit counts."""
    longest = 0
    for i in range(r0, r1):
        longest = max(longest, out_ptr[i + 1] - out_ptr[i])
    return (np.empty(longest, keys.dtype), np.empty(longest if values.size else 0, values.dtype),
            np.empty((1 << RADIX_BITS) + 1, np.int64))


@kernel
def _fill(r0, r1, indptr, indices, data, rows, inverse, out_ptr, out_idx, out_val):
    """Rows ``r0..r1`` of the result: row ``i`` is row ``rows[i]`` with each column ``j``
    renamed ``inverse[j]``, sorted by the new names (:func:`~spbfs.cpu.runsort.sort_run`)."""
    spare, spare_values, counts = _row_scratch(out_ptr, r0, r1, out_idx, out_val)
    for i in range(r0, r1):
        src = rows[i]
        lo, hi = out_ptr[i], out_ptr[i + 1]
        base = indptr[src]
        for k in range(hi - lo):
            out_idx[lo + k] = inverse[indices[base + k]]
            out_val[lo + k] = data[base + k]
        sort_run(out_idx, out_val, lo, hi, inverse.size, spare, spare_values, counts)


def csr_permuted(indptr, indices, data, rows, cols):
    """CSR arrays ``(indptr, indices, data)`` of ``A[rows][:, cols]``, each row's columns
    sorted, where ``cols`` is a permutation of ``A``'s columns (``rows``: any row ids);
    None otherwise (the operations' general path).

    Examples
    --------
    >>> import numpy as np
    >>> ptr, idx, val = np.array([0, 2, 3]), np.array([0, 1, 1]), np.array([5, 6, 7])
    >>> p = np.array([1, 0])
    >>> [a.tolist() for a in csr_permuted(ptr, idx, val, p, p)]
    [[0, 1, 3], [0, 0, 1], [7, 6, 5]]
    """
    ncols = cols.size
    inverse = np.full(ncols, -1, indices.dtype if ncols <= np.iinfo(indices.dtype).max
                      else np.int64)
    inverse[cols] = np.arange(ncols, dtype=inverse.dtype)
    if ncols and int(inverse.min()) < 0:  # a repeat or a gap: not a permutation
        return None
    counts = np.take(indptr, rows + 1) - np.take(indptr, rows)
    nnz = int(counts.sum())
    out_ptr = np.zeros(rows.size + 1, indptr.dtype if nnz <= np.iinfo(indptr.dtype).max
                       else np.int64)
    np.cumsum(counts, out=out_ptr[1:])
    out_idx = np.empty(nnz, inverse.dtype)
    out_val = np.empty(nnz, data.dtype)
    threads = get_num_threads() if nnz >= PARALLEL_ENTRIES else 1
    run_kernel(_fill, split(rows.size, threads, out_ptr), indptr, indices, data, rows, inverse,
               out_ptr, out_idx, out_val)
    return out_ptr, out_idx, out_val


@kernel
def _kept_counts(r0, r1, indptr, indices, order, inverse, lower, counts):
    """``counts[i]`` for rows ``r0..r1``: the columns of row ``order[i]`` kept, those that
    ``inverse`` numbers (``>= 0``), below ``i`` too with ``lower``."""
    for i in range(r0, r1):
        src = order[i]
        top = i if lower else order.size
        c = 0
        for p in range(indptr[src], indptr[src + 1]):
            k = inverse[indices[p]]
            if 0 <= k < top:
                c += 1
        counts[i] = c


@kernel
def _kept_fill(r0, r1, indptr, indices, order, inverse, lower, out_ptr, out_idx):
    """Rows ``r0..r1``: row ``i`` holds the new numbers of row ``order[i]``'s kept columns
    (:func:`_kept_counts`), sorted (:func:`~spbfs.cpu.runsort.sort_run`)."""
    no_values = out_idx[:0]
    spare, _, counts = _row_scratch(out_ptr, r0, r1, out_idx, no_values)
    for i in range(r0, r1):
        src = order[i]
        top = i if lower else order.size
        lo, hi = out_ptr[i], out_ptr[i + 1]
        at = lo
        for p in range(indptr[src], indptr[src + 1]):
            k = inverse[indices[p]]
            if 0 <= k < top:
                out_idx[at] = k
                at += 1
        sort_run(out_idx, no_values, lo, hi, top, spare, no_values, counts)


def _kept_rows(indptr, indices, order, inverse, lower):
    """The rows ``order`` with their kept columns renumbered and sorted
    (:func:`_kept_counts`), in two passes over threads: ``(indptr, indices)``."""
    n = order.size
    threads = get_num_threads() if indices.size >= PARALLEL_ENTRIES else 1
    reach = np.zeros(n + 1, indptr.dtype)  # the entries of the rows numbered below i
    np.cumsum(np.take(indptr, order + 1) - np.take(indptr, order), out=reach[1:])
    ranges = split(n, threads, reach)   # both passes read every entry of their rows
    counts = np.empty(n, indptr.dtype)
    run_kernel(_kept_counts, ranges, indptr, indices, order, inverse, lower, counts)
    out_ptr = np.zeros(n + 1, indptr.dtype)
    np.cumsum(counts, out=out_ptr[1:])
    out_idx = np.empty(int(out_ptr[-1]), inverse.dtype)
    run_kernel(_kept_fill, ranges, indptr, indices, order, inverse, lower, out_ptr, out_idx)
    return out_ptr, out_idx


def csr_lower_permuted(indptr, indices, order):
    """CSR arrays ``(indptr, indices)`` of the strict lower triangle of the pattern of
    ``A[order][:, order]`` for a permutation ``order`` of a square ``A``'s rows, each row
    sorted, in two passes over threads (a count, then the kept columns renamed and sorted):
    half the entries of :func:`csr_permuted`'s result, and no values; None where ``order``
    is not a permutation.

    Examples
    --------
    >>> import numpy as np
    >>> ptr, idx = np.array([0, 2, 3, 4]), np.array([1, 2, 0, 0])   # 0 - 1, 0 - 2
    >>> [a.tolist() for a in csr_lower_permuted(ptr, idx, np.array([2, 1, 0]))]
    [[0, 0, 0, 2], [0, 1]]
    """
    n = order.size
    inverse = np.full(n, -1, indices.dtype if n <= np.iinfo(indices.dtype).max else np.int64)
    inverse[order] = np.arange(n, dtype=inverse.dtype)
    if n and int(inverse.min()) < 0:
        return None
    return _kept_rows(indptr, indices, order, inverse, True)


def csr_induced(indptr, indices, keep, index_of):
    """CSR arrays ``(indptr, indices)`` of the pattern of ``A[keep][:, keep]`` for distinct
    ``keep`` in any order (``index_of``: each vertex's position in ``keep``, -1 if not
    kept), each row sorted, in two passes over threads (a count, then the kept columns
    renamed and sorted), where scipy's fancy indexing takes one thread and sorts the
    columns asked for first.

    Examples
    --------
    >>> import numpy as np
    >>> ptr, idx = np.array([0, 2, 3, 4]), np.array([1, 2, 0, 0])   # 0 - 1, 0 - 2
    >>> keep, index_of = np.array([2, 0]), np.array([1, -1, 0])
    >>> [a.tolist() for a in csr_induced(ptr, idx, keep, index_of)]
    [[0, 1, 2], [1, 0]]
    """
    return _kept_rows(indptr, indices, keep, index_of, False)
