"""The CPU backend's ``quotient`` (:func:`spbfs.semiring.quotient`): the rows grouped by
label (a counting sort), then each group's entries totalled per column label in a dense
array, the labels met sorted: one pass over the entries, where the generic path makes two
sparse products."""

from __future__ import annotations

import numpy as np

from ..core.arrays import stable_order
from ._jit import kernel
from .threads import get_num_threads, run_ranges, split

__all__ = ["quotient", "tally_labels"]

U = np.uintp
ONE = U(1)

#: Entries from which the labels are split over the threads.
PARALLEL_ENTRIES = 1 << 18


@kernel(inline="always")
def tally_labels(p0, p1, ix, labels, data, stamp, seen, tally, found, count):
    """Entries ``p0..p1``: each column's label ``b`` totals the entry's weight in
    ``tally[b]``, reset where ``seen[b]`` is not ``stamp`` (then set, and ``b`` listed in
    ``found`` from ``count`` on); returns the labels listed so far.  Ids are read unsigned
    (no negative-index test on each of the scattered reads).  Inlined where it is called
    (the quotient's merge, Louvain's scoring)."""
    for p in range(p0, p1):
        b = U(labels[U(ix[p])])
        if seen[b] != stamp:
            seen[b] = stamp
            tally[b] = 0.0
            found[count] = b
            count += 1
        tally[b] += data[p]
    return count


@kernel
def _merge(a0, a1, pos, ip, ix, data, labels, order, starts, seen, tally, out_ptr, out_ix,
           out_val):
    """Labels ``a0..a1``: each one's rows (``order[starts[a]:starts[a + 1]]``) merged into
    row ``a`` of the result, written from ``pos`` on (``out_ptr[a]`` where it starts);
    returns where the last ends."""
    for a in range(a0, a1):
        out_ptr[a] = pos
        begin = pos
        for t in range(starts[a], starts[a + 1]):
            i = U(order[t])
            pos = tally_labels(U(ip[i]), U(ip[i + ONE]), ix, labels, data, a, seen, tally,
                               out_ix, pos)
        out_ix[begin:pos].sort()
        for q in range(begin, pos):
            out_val[q] = tally[U(out_ix[q])]
    return pos


def quotient(indptr, indices, data, labels, k):
    """:func:`spbfs.semiring.quotient` on CSR arrays (``data`` float64, ``labels`` int64 in
    ``0 .. k-1``): ``(indptr, indices, data)`` of the canonical ``k x k`` result.  The
    labels are split over the threads by their entries, each thread totalling in its own
    dense arrays and writing its rows where its labels' entries would lie (a row holds at
    most its rows' entries), then the rows are closed up.

    Examples
    --------
    >>> import numpy as np
    >>> ptr, idx, val = quotient(np.array([0, 2, 3, 5]), np.array([1, 2, 0, 0, 2]),
    ...                          np.array([1.0, 2.0, 1.0, 2.0, 5.0]), np.array([0, 0, 1]), 2)
    >>> ptr.tolist(), idx.tolist(), val.tolist()
    ([0, 2, 4], [0, 1, 0, 1], [2.0, 2.0, 2.0, 5.0])
    """
    order = stable_order(labels, k)
    starts = np.zeros(k + 1, np.int64)
    np.cumsum(np.bincount(labels, minlength=k), out=starts[1:])
    nnz = int(indices.size)
    reach = np.zeros(order.size + 1, np.int64)  # entries of the rows order[:t]
    np.cumsum(np.diff(indptr)[order], out=reach[1:])
    reach = reach[starts]   # entries of the labels below a
    threads = get_num_threads() if nnz >= PARALLEL_ENTRIES else 1
    ranges = split(k, threads, reach)
    out_ptr = np.empty(k + 1, np.int64)
    out_ix, out_val = np.empty(nnz, np.int64), np.empty(nnz, np.float64)
    ends = run_ranges(lambda a0, a1: _merge(a0, a1, int(reach[a0]), indptr, indices, data,
                                            labels, order, starts, np.full(k, -1, np.int64),
                                            np.empty(k), out_ptr, out_ix, out_val), ranges)
    index = np.int32 if k < 2**31 else np.int64
    if len(ranges) == 1:
        used = int(ends[0]) if k else 0
        out_ptr[k] = used
        return out_ptr, out_ix[:used].astype(index), out_val[:used].copy()
    pieces = [(int(reach[a0]), int(end)) for (a0, _), end in zip(ranges, ends, strict=True)]
    shift = np.zeros(k, np.int64)  # each row's move to close up the gaps before it
    closed = 0
    for (a0, a1), (lo, hi) in zip(ranges, pieces, strict=True):
        shift[a0:a1] = lo - closed
        closed += hi - lo
    out_ptr[:k] -= shift
    out_ptr[k] = closed
    keep = np.concatenate([np.arange(lo, hi) for lo, hi in pieces])
    return out_ptr, out_ix[keep].astype(index), out_val[keep]
