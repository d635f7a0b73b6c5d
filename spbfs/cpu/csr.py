"""The CPU backend's CSR merges (scipy's compiled routines): the union of two patterns and
the splice of a region into a matrix, on canonical CSR arrays."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..core.csr import expand

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


def csr_assign(indptr, indices, data, ncols, region_rows, in_cols, rows, cols, values):
    """A canonical CSR whose entries in a region are replaced: the entries of the rows
    ``region_rows`` at the columns where ``in_cols`` (bool per column) is True are removed,
    then the entries ``(rows, cols, values)`` (inside the region, sorted by row, then
    column) are written: ``(indptr, indices, data)``, ``data`` of ``values``' dtype.

    Only the region's rows are searched; the other entries are copied with one masked copy
    per array (an old entry at a written place is overwritten, not removed and inserted).

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
    touched = np.sort(region_rows)
    pos, owner = expand(indptr, touched)
    keys = touched[owner] * ncols + indices[pos]  # the region rows' entries, sorted
    new_keys = rows * ncols + cols
    at = np.searchsorted(keys, new_keys)
    hit = keys[np.minimum(at, keys.size - 1)] == new_keys if keys.size else at < 0
    written = np.zeros(keys.size, bool)
    written[at[hit]] = True
    dropped = in_cols[indices[pos]] & ~written
    drop = pos[dropped]
    # each written entry's place: the entries before it (its row's start plus the entries
    # of its row left of it) less the removed ones, plus the entries inserted before it
    before = indptr[rows] + at - np.searchsorted(keys, rows * ncols)
    inserted = ~hit
    final = before - np.searchsorted(drop, before) + np.cumsum(inserted) - inserted
    size = indices.size - drop.size + int(np.count_nonzero(inserted))
    copied = np.ones(size, bool)
    copied[final[inserted]] = False
    keep = None
    if drop.size:
        keep = np.ones(indices.size, bool)
        keep[drop] = False
    out = []
    for old, new, dtype in ((indices, cols, indices.dtype), (data, values, values.dtype)):
        arr = np.empty(size, dtype)
        arr[copied] = old if keep is None else old[keep]
        arr[final] = new
        out.append(arr)
    n = indptr.size - 1
    new_indptr = indptr.astype(np.int64)
    new_indptr[1:] += np.cumsum(np.bincount(rows[inserted], minlength=n)
                                - np.bincount(touched[owner[dropped]], minlength=n))
    return new_indptr, out[0], out[1]
