"""The CPU backend's ``quotient`` (:func:`spbfs.semiring.quotient`): the rows grouped by
label (a counting sort), then each group's entries totalled per column label in a dense
array, the labels met sorted: one pass over the entries, where the generic path makes two
sparse products."""

from __future__ import annotations

import numpy as np

from ._jit import kernel

__all__ = ["quotient"]


@kernel
def _merge(ip, ix, data, labels, order, starts, seen, tally, out_ptr, out_ix, out_val):
    """Each label's rows (``order[starts[a]:starts[a + 1]]``) merged into row ``a`` of the
    result; returns its entry count."""
    pos = 0
    for a in range(starts.size - 1):
        out_ptr[a] = pos
        begin = pos
        for t in range(starts[a], starts[a + 1]):
            i = order[t]
            for p in range(ip[i], ip[i + 1]):
                b = labels[ix[p]]
                if seen[b] != a:
                    seen[b] = a
                    tally[b] = 0.0
                    out_ix[pos] = b
                    pos += 1
                tally[b] += data[p]
        out_ix[begin:pos].sort()
        for q in range(begin, pos):
            out_val[q] = tally[out_ix[q]]
    out_ptr[starts.size - 1] = pos
    return pos


def quotient(indptr, indices, data, labels, k):
    """:func:`spbfs.semiring.quotient` on CSR arrays (``data`` float64, ``labels`` int64 in
    ``0 .. k-1``): ``(indptr, indices, data)`` of the canonical ``k x k`` result.

    Examples
    --------
    >>> import numpy as np
    >>> ptr, idx, val = quotient(np.array([0, 2, 3, 5]), np.array([1, 2, 0, 0, 2]),
    ...                          np.array([1.0, 2.0, 1.0, 2.0, 5.0]), np.array([0, 0, 1]), 2)
    >>> ptr.tolist(), idx.tolist(), val.tolist()
    ([0, 2, 4], [0, 1, 0, 1], [2.0, 2.0, 2.0, 5.0])
    """
    order = np.argsort(labels, kind="stable")
    starts = np.zeros(k + 1, np.int64)
    np.cumsum(np.bincount(labels, minlength=k), out=starts[1:])
    nnz = int(indices.size)
    out_ptr = np.empty(k + 1, np.int64)
    out_ix, out_val = np.empty(nnz, np.int64), np.empty(nnz, np.float64)
    used = _merge(indptr, indices, data, labels, order, starts, np.full(k, -1, np.int64),
                  np.zeros(k), out_ptr, out_ix, out_val)
    index = np.int32 if k < 2**31 else np.int64
    return (out_ptr, out_ix[:used].astype(index), out_val[:used].copy())
