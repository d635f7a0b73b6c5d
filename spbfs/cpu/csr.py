"""The CPU backend's CSR merges on canonical CSR arrays: the union of two patterns (scipy's
compiled routine) and the splice of a region into a matrix (numba kernels)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ._jit import kernel
from .threads import get_num_threads, run_kernel, split

__all__ = ["csr_assign", "csr_union"]


def csr_union(shape, a_indptr, a_indices, b_indptr, b_indices, b_tags=None):
    """The union of two canonical CSR patterns (sorted, duplicate-free rows) by scipy's
    compiled merge of int8 tags: ``(indptr, indices, tags)``, canonical, ``tags`` 1 where
    only the first pattern stores the entry, 2 only the second, 3 both.

    ``b_tags`` (2 or 0 per entry of the second pattern; default all 2) leaves out the
    second pattern's entries tagged 0 where the first does not store them: scipy drops
    only zero sums, and the sums 1, 2, 3 never are.

    Examples
    --------
    >>> import numpy as np
    >>> indptr, indices, tags = csr_union((2, 3), np.array([0, 2, 2]), np.array([0, 2]),
    ...                                   np.array([0, 1, 2]), np.array([2, 1]))
    >>> indptr.tolist(), indices.tolist(), tags.tolist()
    ([0, 2, 3], [0, 2, 1], [1, 3, 2])
    """
    if b_tags is None:
        b_tags = np.full(b_indices.size, 2, np.int8)
    first = sp.csr_array((np.ones(a_indices.size, np.int8), a_indices, a_indptr), shape=shape)
    union = first + sp.csr_array((b_tags, b_indices, b_indptr), shape=shape)
    return union.indptr, union.indices, union.data


@kernel
def _assign_count(touched, indptr, indices, in_cols, nlo, nhi, cnt):
    for t in range(touched.size):
        i = touched[t]
        c = nhi[t] - nlo[t]
        for p in range(indptr[i], indptr[i + 1]):
            if not in_cols[indices[p]]:
                c += 1
        cnt[t] = c


@kernel
def _assign_fill(r0, r1, indptr, indices, data, slot, in_cols, nlo, nhi, cols, values, c_ptr,
                 c_idx, c_val):
    one = np.uint64(1)
    i = r0
    while i < r1:
        e = i
        while e < r1 and slot[e] < 0:
            e += 1
        if e > i:  # rows outside the region: one block copy
            s = np.uint64(indptr[i])
            q0 = np.uint64(c_ptr[i])
            for t in range(np.uint64(indptr[e]) - s):
                c_idx[q0 + t] = indices[s + t]
                c_val[q0 + t] = data[s + t]
            i = e
            continue
        t = slot[i]
        q = c_ptr[i]
        p = indptr[i]
        p1 = indptr[i + 1]
        u = nlo[t]
        u1 = nhi[t]
        while p < p1 or u < u1:
            if u < u1 and (p >= p1 or cols[u] <= indices[p]):
                c_idx[q] = cols[u]
                c_val[q] = values[u]
                q += 1
                u += 1
            else:
                j = indices[p]
                if not in_cols[j]:  # an old entry outside the region's columns stays
                    c_idx[q] = j
                    c_val[q] = data[p]
                    q += 1
                p += 1
        i += one


def csr_assign(indptr, indices, data, ncols, region_rows, in_cols, rows, cols, values):
    """A canonical CSR whose entries in a region are replaced: the entries of the rows
    ``region_rows`` at the columns where ``in_cols`` (bool per column) is True are removed,
    then the entries ``(rows, cols, values)`` (inside the region, sorted by row, then
    column) are written: ``(indptr, indices, data)``, ``data`` of ``values``' dtype.

    Compiled: the region's rows are counted, then each range of rows is copied in blocks
    of untouched rows and merged where the region's rows are.

    Examples
    --------
    >>> import numpy as np
    >>> indptr, indices, data = csr_assign(
    ...     np.array([0, 2, 3]), np.array([0, 2, 1]), np.array([1., 2., 3.]), 3,
    ...     np.array([0, 1]), np.array([False, True, True]),
    ...     np.array([0, 1]), np.array([1, 1]), np.array([7., 8.]))
    >>> indptr.tolist(), indices.tolist(), data.tolist()
    ([0, 2, 3], [0, 1, 1], [1.0, 7.0, 8.0])
    """
    n = indptr.size - 1
    touched = np.unique(region_rows)
    nlo = np.searchsorted(rows, touched, side="left")
    nhi = np.searchsorted(rows, touched, side="right")
    cnt = np.empty(touched.size, np.int64)
    _assign_count(touched, indptr, indices, in_cols, nlo, nhi, cnt)
    deg = np.diff(indptr).astype(np.int64)
    deg[touched] = cnt
    size = indices.size + int(cnt.sum()) - int((indptr[touched + 1] - indptr[touched]).sum())
    # the input's index dtypes where they hold the result (no conversion later)
    big = size > np.iinfo(indptr.dtype).max if indptr.dtype.kind == "i" else True
    c_ptr = np.empty(n + 1, np.int64 if big else indptr.dtype)
    c_ptr[0] = 0
    np.cumsum(deg, out=c_ptr[1:])
    c_idx = np.empty(size, indices.dtype)
    c_val = np.empty(size, values.dtype)
    slot = np.full(n, -1, np.int64)
    slot[touched] = np.arange(touched.size)
    ranges = split(n, get_num_threads() if size >= PARALLEL_WORK else 1, c_ptr)
    run_kernel(_assign_fill, ranges, indptr, indices, data, slot, in_cols, nlo, nhi, cols,
               values, c_ptr, c_idx, c_val)
    return c_ptr, c_idx, c_val


#: Entries from which an assign is split over threads.
PARALLEL_WORK = 1 << 16
