"""Construction helpers on raw arrays, written once for numpy and cupy: binning by
destination rank and the deduplicating CSR build."""

from __future__ import annotations

import numpy as np


def xp_of(a):
    """numpy or cupy, whichever holds ``a``."""
    if type(a).__module__.split(".")[0] == "cupy":
        import cupy

        return cupy
    return np


def bin_by(dest, P):
    """Stable order grouping items by destination rank, and the count per rank.

    Examples
    --------
    >>> import numpy as np
    >>> order, counts = bin_by(np.array([1, 0, 1, 0]), 2)
    >>> order.tolist(), counts.tolist()
    ([1, 3, 0, 2], [2, 2])
    """
    xp = xp_of(dest)
    if P == 1:
        return xp.arange(dest.size), np.array([dest.size], np.int64)
    counts = xp.bincount(dest, minlength=P)
    key = dest.astype(np.int8 if P <= 127 else np.int16 if P <= 32767 else np.int32)
    order = xp.argsort(key, kind="stable") if xp is np else xp.argsort(key)
    counts = counts.get() if xp is not np else counts
    return order, np.asarray(counts, np.int64)


def csr_unique(row_parts, col_parts, nrows, ncols, idx_dtype, xp=np):
    """CSR (duplicates dropped, columns sorted) of the pairs ``(rows, cols)`` given as lists
    of pieces.

    The lists are emptied as their pieces become one array of row-major keys, so a piece's
    memory is released as the keys fill; the keys are then sorted in place.  The peak is
    about twice the keys (8 bytes per pair), not the five times that temporaries of the
    whole arrays take.

    Returns ``(indptr, indices)`` of ``xp`` (numpy or cupy, where the pieces are);
    ``indices`` in ``idx_dtype``, ``indptr`` int32 when the edge count fits, else int64.

    Examples
    --------
    >>> import numpy as np
    >>> rows, cols = [np.array([1, 0]), np.array([1])], [np.array([2, 1]), np.array([2])]
    >>> ip, ix = csr_unique(rows, cols, 2, 3, np.int32)
    >>> ip.tolist(), ix.tolist(), rows
    ([0, 1, 2], [1, 2], [])
    """
    total = sum(int(r.size) for r in row_parts)
    if total == 0:
        row_parts.clear()
        col_parts.clear()
        return xp.zeros(nrows + 1, np.int32), xp.zeros(0, idx_dtype)
    ncols = max(ncols, 1)
    if nrows * ncols >= 2**62:  # pragma: no cover - only beyond 2**62 row-column pairs
        rows, cols = xp.concatenate(row_parts), xp.concatenate(col_parts)
        row_parts.clear()
        col_parts.clear()
        order = xp.lexsort(xp.stack([cols, rows]))
        r, c = rows[order], cols[order]
        keep = xp.ones(r.size, bool)
        keep[1:] = (r[1:] != r[:-1]) | (c[1:] != c[:-1])
        r, c = r[keep], c[keep].astype(idx_dtype)
        ip_dtype = np.int32 if c.size < 2**31 else np.int64
        indptr = xp.zeros(nrows + 1, ip_dtype)
        indptr[1:] = xp.cumsum(xp.bincount(r, minlength=nrows)).astype(ip_dtype)
        return indptr, c
    key = xp.empty(total, np.int64)
    at = 0
    while row_parts:
        r, c = row_parts.pop(0), col_parts.pop(0)
        part = key[at:at + r.size]
        part[...] = r
        part *= ncols
        part += c
        at += r.size
        del r, c, part
    key.sort()
    keep = xp.empty(key.size, bool)
    keep[0] = True
    xp.not_equal(key[1:], key[:-1], out=keep[1:])
    key = key[keep]
    del keep
    ip_dtype = np.int32 if key.size < 2**31 else np.int64
    starts = xp.arange(nrows + 1, dtype=np.int64)
    starts *= ncols
    indptr = xp.searchsorted(key, starts).astype(ip_dtype)
    del starts
    xp.remainder(key, ncols, out=key)
    return indptr, key.astype(idx_dtype)


def csr_sorted(rows, cols, weights, nrows, ncols, idx_dtype):
    """CSR of the weighted pairs ``(rows, cols)``, columns sorted within rows and every
    pair kept (duplicates too): ``(indptr, indices, weights)``.

    Examples
    --------
    >>> import numpy as np
    >>> ip, ix, w = csr_sorted(np.array([1, 0, 1]), np.array([2, 1, 2]),
    ...                        np.array([5.0, 1.0, 3.0]), 2, 3, np.int32)
    >>> ip.tolist(), ix.tolist(), w.tolist()
    ([0, 1, 3], [1, 2, 2], [1.0, 5.0, 3.0])
    """
    xp = xp_of(rows)
    order = xp.lexsort(xp.stack([cols, rows])) if rows.size else xp.zeros(0, np.int64)
    r, c = rows[order], cols[order].astype(idx_dtype)
    nnz = int(c.size)
    ip_dtype = np.int32 if nnz < 2**31 else np.int64
    indptr = xp.zeros(nrows + 1, ip_dtype)
    if nnz:
        indptr[1:] = xp.cumsum(xp.bincount(r, minlength=nrows)).astype(ip_dtype)
    return indptr, c, weights[order]
