"""Local (one-rank) kernels on raw CSR arrays, written once for numpy and cupy.

No Python loop runs over vertices or edges: only over pull rounds (their count grows with
log(max degree)).  On the CPU :func:`expand` is the numpy version of
:func:`spbfs.semiring._cpu.expand`; on the GPU it avoids ``repeat`` with array counts.
"""

from __future__ import annotations

import numpy as np

from ..semiring import _cpu

#: First chunk of a row each vertex scans in an early-exit pull; it grows 4x per round.
FIRST_PULL_CHUNK = 4


def xp_of(a):
    """numpy or cupy, whichever holds ``a``."""
    if type(a).__module__.split(".")[0] == "cupy":
        import cupy

        return cupy
    return np


def expand(indptr, rows, starts=None, counts=None):
    """Positions of the edges of ``rows`` and, per edge, its index into ``rows``.

    Same contract as :func:`spbfs.semiring._cpu.expand`; works on cupy arrays too.

    Examples
    --------
    >>> import numpy as np
    >>> pos, seg = expand(np.array([0, 2, 2, 5]), np.array([2, 0]))
    >>> pos.tolist(), seg.tolist()
    ([2, 3, 4, 0, 1], [0, 0, 0, 1, 1])
    """
    xp = xp_of(indptr)
    if xp is np:
        return _cpu.expand(indptr, rows, counts=counts, starts=starts)
    if starts is None:
        starts = indptr[rows]
    if counts is None:
        counts = indptr[rows + 1] - starts
    counts = counts.astype(xp.int64, copy=False)
    nz = xp.flatnonzero(counts)
    c = counts[nz]
    ends = xp.cumsum(c)
    total = int(ends[-1]) if ends.size else 0
    if total == 0:
        return xp.zeros(0, xp.int64), xp.zeros(0, xp.int64)
    mark = xp.zeros(total, xp.int64)
    mark[ends[:-1]] = 1
    which = xp.cumsum(mark)                       # index into nz
    pos = xp.arange(total, dtype=xp.int64)
    pos += (starts[nz].astype(xp.int64) - (ends - c))[which]
    return pos, nz[which]


def first_per_key(keys, vals, n):
    """Unique ``keys`` (``0 <= key < n``) and one value of each (the first on the CPU).

    Examples
    --------
    >>> import numpy as np
    >>> k, v = first_per_key(np.array([5, 1, 5]), np.array([10, 11, 12]), 8)
    >>> k.tolist(), v.tolist()
    ([1, 5], [11, 10])
    """
    xp = xp_of(keys)
    if keys.size == 0:
        return keys, vals
    if keys.size * 8 < n:
        k, first = xp.unique(keys, return_index=True)
        return k, vals[first]
    seen = xp.zeros(n, bool)
    seen[keys] = True
    out = xp.empty(n, vals.dtype)
    out[keys[::-1]] = vals[::-1]                   # numpy: the last write is the first pair
    k = xp.flatnonzero(seen)
    return k, out[k]


def unique_keys(keys, n):
    """Sorted unique ``keys`` in ``[0, n)``.

    Examples
    --------
    >>> import numpy as np
    >>> unique_keys(np.array([3, 1, 3]), 4).tolist()
    [1, 3]
    """
    xp = xp_of(keys)
    if keys.size * 8 < n:
        return xp.unique(keys)
    seen = xp.zeros(n, bool)
    seen[keys] = True
    return xp.flatnonzero(seen)


def push(indptr, indices, rows, blocked):
    """Push from ``rows``: every edge target not ``blocked`` (None: all), with its row.

    Returns ``(targets, source_index)``; ``source_index`` indexes ``rows``.  Duplicates kept.

    Examples
    --------
    >>> import numpy as np
    >>> t, s = push(np.array([0, 2, 3]), np.array([1, 0, 1]), np.array([0, 1]),
    ...             np.array([True, False]))
    >>> t.tolist(), s.tolist()
    ([1, 1], [0, 1])
    """
    xp = xp_of(indptr)
    if rows.size == 0:
        return xp.zeros(0, indices.dtype), xp.zeros(0, xp.int64)
    pos, seg = expand(indptr, rows)
    t = indices[pos]
    if blocked is None:
        return t, seg
    keep = ~blocked[t]
    return t[keep], seg[keep]


def pull(indptr, indices, rows, hit, first_chunk=FIRST_PULL_CHUNK):
    """Early-exit pull: for each row, one column ``c`` of that row with ``hit[c]``.

    Rows are scanned in chunks (``first_chunk``, then 4x larger each round); a row leaves as
    soon as it finds a hit.  Returns ``(found_rows, cols)``: the rows (values of ``rows``)
    that found one and the column found.

    Examples
    --------
    >>> import numpy as np
    >>> r, c = pull(np.array([0, 3, 4, 6]), np.array([0, 1, 2, 0, 1, 2]),
    ...             np.array([0, 1, 2]), np.array([False, False, True]))
    >>> r.tolist(), c.tolist()
    ([0, 2], [2, 2])
    """
    xp = xp_of(indptr)
    lo = indptr[rows].astype(xp.int64)
    hi = indptr[rows + 1].astype(xp.int64)
    live = hi > lo
    active, lo, hi = rows[live], lo[live], hi[live]
    found_rows, found_cols = [], []
    chunk = int(first_chunk)
    while active.size:
        take = xp.minimum(hi - lo, chunk)
        pos, seg = expand(indptr, active, starts=lo, counts=take)
        col = indices[pos]
        h = xp.flatnonzero(hit[col])
        done = xp.zeros(active.size, bool)
        if h.size:
            s = seg[h]
            first = xp.ones(s.size, bool)
            first[1:] = s[1:] != s[:-1]
            who = s[first]
            found_rows.append(active[who])
            found_cols.append(col[h[first]])
            done[who] = True
        lo += take
        keep = (lo < hi) & ~done
        active, lo, hi = active[keep], lo[keep], hi[keep]
        chunk *= 4
    if not found_rows:
        return rows[:0], indices[:0]
    return xp.concatenate(found_rows), xp.concatenate(found_cols)


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


def csr_unique(rows, cols, nrows, ncols, idx_dtype):
    """CSR (duplicates dropped, columns sorted) of the pairs ``(rows, cols)``.

    Returns ``(indptr, indices)``; ``indices`` in ``idx_dtype``, ``indptr`` int32 when the
    edge count fits, else int64.

    Examples
    --------
    >>> import numpy as np
    >>> ip, ix = csr_unique(np.array([1, 0, 1]), np.array([2, 1, 2]), 2, 3, np.int32)
    >>> ip.tolist(), ix.tolist()
    ([0, 1, 2], [1, 2])
    """
    xp = xp_of(rows)
    if rows.size == 0:
        return xp.zeros(nrows + 1, np.int32), xp.zeros(0, idx_dtype)
    if nrows * max(ncols, 1) < 2**62:
        key = rows.astype(xp.int64) * ncols + cols.astype(xp.int64)
        key = xp.sort(key)
        keep = xp.ones(key.size, bool)
        keep[1:] = key[1:] != key[:-1]
        key = key[keep]
        del keep
        per_row = xp.bincount(key // ncols, minlength=nrows)
        c = (key % ncols).astype(idx_dtype)
        del key
    else:  # pragma: no cover - only beyond 2**62 row-column pairs
        order = xp.lexsort(xp.stack([cols, rows]))
        r, c = rows[order], cols[order]
        keep = xp.ones(r.size, bool)
        keep[1:] = (r[1:] != r[:-1]) | (c[1:] != c[:-1])
        r, c = r[keep], c[keep].astype(idx_dtype)
        per_row = xp.bincount(r, minlength=nrows)
    nnz = int(c.size)
    ip_dtype = np.int32 if nnz < 2**31 else np.int64
    indptr = xp.zeros(nrows + 1, ip_dtype)
    indptr[1:] = xp.cumsum(per_row).astype(ip_dtype)
    return indptr, c


def seed_source(source, sd, P, rank, nvis, lvl, par, dvis, dlvl, dpar, xp):
    """Mark the BFS source visited at level 0 (its own parent) on the rank(s) that hold it.

    ``sd`` is the source's delegate number (-1 for a normal vertex); ``par``/``dpar`` are
    ``None`` when parents are not wanted.  Returns the first normal and delegate frontiers
    ``(fn, fd)`` as int64 local ids / delegate numbers.

    Examples
    --------
    >>> import numpy as np
    >>> nvis, lvl = np.zeros(2, bool), np.full(2, -1)
    >>> fn, fd = seed_source(3, -1, 2, 1, nvis, lvl, None, np.zeros(0, bool), None, None, np)
    >>> fn.tolist(), fd.tolist(), lvl.tolist()
    ([1], [], [-1, 0])
    """
    empty = xp.zeros(0, np.int64)
    fn, fd = empty, empty
    if sd >= 0:
        dvis[sd] = True
        dlvl[sd] = 0
        if dpar is not None:
            dpar[sd] = source
        fd = xp.asarray([sd], dtype=np.int64)
    elif source % P == rank:
        j = source // P
        nvis[j] = True
        lvl[j] = 0
        if par is not None:
            par[j] = source
        fn = xp.asarray([j], dtype=np.int64)
    return fn, fd
