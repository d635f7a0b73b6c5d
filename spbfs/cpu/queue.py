"""The CPU backend's queue searches, each one kernel (O(reached vertices + their arcs)):
the queue order of :func:`spbfs.semiring.queue_order` and the two-sided search of
:func:`spbfs.semiring.queue_meet`, where the generic paths run a product and two sorts per
level."""

from __future__ import annotations

import numpy as np

from ._jit import kernel
from .kept import KeptPool

__all__ = ["queue_meet", "queue_order"]


@kernel
def _search(ip, ix, source, order, parents):
    """Fill ``order`` in the queue's order and ``parents`` (negative: not seen); returns
    how many vertices were reached."""
    null = parents[source]
    order[0] = source
    parents[source] = source   # seen; reset at the end
    head, end = 0, 1
    while head < end:
        u = np.uintp(order[head])   # unsigned indices: no wrap-around test per access
        head += 1
        for p in range(np.uintp(ip[u]), np.uintp(ip[u + 1])):
            v = np.uintp(ix[p])
            if parents[v] < 0:
                parents[v] = u
                order[end] = v
                end += 1
    parents[source] = null
    return end


def queue_order(indptr, indices, source, parents):
    """The order of :func:`spbfs.semiring.queue_order` on CSR arrays; ``parents`` (every
    entry the same negative null) is filled in place.

    Examples
    --------
    >>> import numpy as np
    >>> parents = np.full(3, -1)
    >>> queue_order(np.array([0, 2, 3, 3]), np.array([2, 1, 2]), 0, parents).tolist()
    [0, 2, 1]
    >>> parents.tolist()
    [-1, 0, 0]
    """
    order = np.empty(parents.size, np.int64)
    end = _search(indptr, indices, np.int64(source), order, parents)
    return order[:end]


@kernel
def _grow(ip, ix, par, other, q, start, end):
    """One level of one side: the vertices ``q[start:end]`` put their unseen targets on the
    queue (from ``q[end]``), in storage order, until a target the other side has seen comes
    up.  Returns ``(queue end, that target or -1)``."""
    tail = end
    for i in range(start, end):
        v = np.uintp(q[i])   # unsigned indices: no wrap-around test per access
        for p in range(np.uintp(ip[v]), np.uintp(ip[v + 1])):
            w = np.uintp(ix[p])
            if par[w] < 0:
                par[w] = v
                q[tail] = w
                tail += 1
            if other[w] >= 0:
                return tail, np.int64(w)
    return tail, np.int64(-1)


@kernel
def _meet_path(fp, fx, bp, bx, source, target, fpar, bpar, fq, bq):
    """Grow the side with the shorter level (the forward one on ties) a level at a time
    until a vertex the other side has seen comes up; return the path through it (empty
    when there is none: the forward parents' chain from the start, then the backward
    parents' on to the target).  ``fpar``/``bpar`` (every entry -1 on entry) get the vertex
    that found each one on that side and ``fq``/``bq`` each side's queue; the entries set
    (the queues' vertices) are set back to -1 at the end, the arrays as they were made."""
    fpar[source] = source  # seen; starts are reset below
    bpar[target] = target
    fq[0] = source
    bq[0] = target
    f0, f1, b0, b1 = 0, 1, 0, 1   # the current level of each queue
    meet = -1
    while meet < 0 and f1 > f0 and b1 > b0:
        if f1 - f0 <= b1 - b0:
            tail, meet = _grow(fp, fx, fpar, bpar, fq, f0, f1)
            f0, f1 = f1, tail
        else:
            tail, meet = _grow(bp, bx, bpar, fpar, bq, b0, b1)
            b0, b1 = b1, tail
    fpar[source] = -1
    bpar[target] = -1
    forward = 0   # the forward chain's length (meet included), then the backward chain's
    backward = 0
    v = meet
    while v >= 0:
        forward += 1
        v = fpar[v]
    v = bpar[meet] if meet >= 0 else -1
    while v >= 0:
        backward += 1
        v = bpar[v]
    path = np.empty(forward + backward, np.int64)
    v = meet
    for i in range(forward - 1, -1, -1):
        path[i] = v
        v = fpar[v]
    v = bpar[meet] if meet >= 0 else -1
    for i in range(forward, forward + backward):
        path[i] = v
        v = bpar[v]
    for i in range(f1):
        fpar[fq[i]] = -1
    for i in range(b1):
        bpar[bq[i]] = -1
    return path


def _scratch(n):
    """Both sides' parents (every entry -1) and queues for a graph of ``n`` vertices, in
    the narrowest id dtype: 16 bytes a vertex below 2**31 vertices."""
    ids = np.int32 if n <= np.iinfo(np.int32).max else np.int64
    return (np.full(n, -1, ids), np.full(n, -1, ids), np.empty(n, ids), np.empty(n, ids))


#: The searches' parents and queues, kept between calls: a call sets only the entries of
#: the vertices it sees and sets them back, so a query that sees a few vertices of a large
#: graph costs those (making and filling the arrays cost most of such a call).
_kept = KeptPool(_scratch, keep=2)


def queue_meet(fptr, fidx, bptr, bidx, source, target):
    """The path of :func:`spbfs.semiring.queue_meet` on CSR arrays (forward arcs, backward
    arcs), or None.

    Examples
    --------
    >>> import numpy as np
    >>> ptr, idx = np.array([0, 1, 3, 4]), np.array([1, 0, 2, 1])   # the path 0 - 1 - 2
    >>> queue_meet(ptr, idx, ptr, idx, 0, 2), queue_meet(ptr, idx, ptr, idx, 2, 0)
    ([0, 1, 2], [2, 1, 0])
    """
    n = fptr.size - 1
    scratch = _kept.checkout(n)
    path = _meet_path(fptr, fidx, bptr, bidx, np.int64(source), np.int64(target), *scratch)
    _kept.give_back(scratch, n)
    return path.tolist() if path.size else None
