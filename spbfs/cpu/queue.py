"""The CPU backend's queue searches, each one kernel (O(reached vertices + their arcs)):
the queue order of :func:`spbfs.semiring.queue_order` and the two-sided search of
:func:`spbfs.semiring.queue_meet`, where the generic paths run a product and two sorts per
level."""

from __future__ import annotations

import numpy as np

from ._bits import has_bit, mark_bit
from ._jit import kernel
from ._prefetch import prefetch_read
from .kept import KeptPool

__all__ = ["queue_hops", "queue_meet", "queue_order"]


#: Queue entries ahead of the one being expanded whose row is prefetched (its ``indptr``
#: entry ``AHEAD`` ahead, its first ``indices`` line half as far): the rows lie at random
#: in the arrays.  On the VM, the 81,741-vertex search of a scale-17 Kronecker graph took
#: 3.3 ms against 4.9 without (3.7 with the prefetch and a parent array as the marks).
AHEAD = 8


@kernel
def _search(ip, ix, source, order, parents, seen):
    """Fill ``order`` in the queue's order and ``parents`` (negative: not seen); returns
    how many vertices were reached.  ``seen`` is a bit set (every bit clear), one bit a
    vertex: the test per arc reads a few kilobytes where the parents span 8 bytes a
    vertex."""
    order[0] = source
    mark_bit(seen, source)
    head, end = 0, 1
    while head < end:
        if head + AHEAD < end:
            prefetch_read(ip, np.uintp(order[head + AHEAD]))
        if head + AHEAD // 2 < end:
            prefetch_read(ix, np.uintp(ip[np.uintp(order[head + AHEAD // 2])]))
        u = np.uintp(order[head])   # unsigned indices: no wrap-around test per access
        head += 1
        for p in range(np.uintp(ip[u]), np.uintp(ip[u + 1])):
            v = np.uintp(ix[p])
            if mark_bit(seen, v):
                parents[v] = u
                order[end] = v
                end += 1
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
    n = parents.size
    order = np.empty(n, np.int64)
    seen = np.zeros((n + 63) // 64, np.uint64)
    end = _search(indptr, indices, np.int64(source), order, parents, seen)
    return order[:end]


@kernel
def _grow(ip, ix, seen, other, q, up, start, end):
    """One level of one side: the vertices ``q[start:end]`` put their unseen targets on the
    queue (from ``q[end]``, each with its finder's queue index in ``up``), in storage order,
    until a target the other side has seen comes up.  ``seen`` and ``other`` are bit sets
    (one bit a vertex: 16 KiB for 131,072 vertices, in the first-level cache, where a
    parent array a side took 2.7 ns an arc on a hub's 11.7k).  Returns ``(queue end, that
    target or -1)``."""
    tail = end
    for i in range(start, end):
        v = np.uintp(q[i])   # unsigned indices: no wrap-around test per access
        for p in range(np.uintp(ip[v]), np.uintp(ip[v + 1])):
            w = np.uintp(ix[p])
            if mark_bit(seen, w):
                q[tail] = w
                up[tail] = i
                tail += 1
            if has_bit(other, w):
                return tail, np.int64(w)
    return tail, np.int64(-1)


@kernel
def _position(q, end, v):
    """Index of ``v`` in ``q[:end]`` (it is there)."""
    for i in range(end):
        if q[i] == v:
            return i
    return -1


@kernel
def _chain(q, up, i, path, at, step):
    """Write ``q[i], q[up[i]], ...`` (to the start, whose ``up`` is -1) into ``path`` from
    ``at`` on by ``step``."""
    while i >= 0:
        path[at] = q[i]
        at += step
        i = up[i]


@kernel
def _depth(up, i):
    """How many queue entries the chain from index ``i`` to the start holds."""
    count = 0
    while i >= 0:
        count += 1
        i = up[i]
    return count


@kernel
def _unset(seen, q, end):
    """Clear the bits of ``q[:end]`` (every bit set), or the whole set where that is
    fewer words."""
    if end >= seen.size:
        seen[:] = 0
    else:
        for i in range(end):
            seen[np.uintp(q[i]) >> np.uintp(6)] = 0


@kernel
def _meet_path(fp, fx, bp, bx, source, target, fseen, bseen, fq, bq, fup, bup):
    """Grow the side with the shorter level (the forward one on ties) a level at a time
    until a vertex the other side has seen comes up; return the path through it (empty
    when there is none: the forward side's chain from the start, then the backward side's
    on to the target).  ``fseen``/``bseen`` (bit sets, every bit clear on entry) mark what
    each side has seen, ``fq``/``bq`` are its queue and ``fup``/``bup`` the queue index of
    the vertex that found each entry; the bits set are cleared at the end, the sets as
    they were made."""
    mark_bit(fseen, source)
    mark_bit(bseen, target)
    fq[0] = source
    bq[0] = target
    fup[0] = -1
    bup[0] = -1
    f0, f1, b0, b1 = 0, 1, 0, 1   # the current level of each queue
    meet = -1
    while meet < 0 and f1 > f0 and b1 > b0:
        if f1 - f0 <= b1 - b0:
            tail, meet = _grow(fp, fx, fseen, bseen, fq, fup, f0, f1)
            f0, f1 = f1, tail
        else:
            tail, meet = _grow(bp, bx, bseen, fseen, bq, bup, b0, b1)
            b0, b1 = b1, tail
    _unset(fseen, fq, f1)
    _unset(bseen, bq, b1)
    if meet < 0:
        return np.empty(0, np.int64)
    forward = _position(fq, f1, meet)    # the meeting vertex is on both queues
    backward = bup[_position(bq, b1, meet)]
    length = _depth(fup, forward)
    path = np.empty(length + _depth(bup, backward), np.int64)
    _chain(fq, fup, forward, path, length - 1, -1)
    _chain(bq, bup, backward, path, length, 1)
    return path


@kernel
def _level(ip, ix, seen, other, q, start, end):
    """Put the unseen targets of ``q[start:end]`` on the queue (from ``q[end]``) until one
    the other side has seen comes up.  Returns ``(queue end, the new level's arcs out, met)``."""
    tail = end
    arcs = 0
    for i in range(start, end):
        v = np.uintp(q[i])   # unsigned indices: no wrap-around test per access
        for p in range(np.uintp(ip[v]), np.uintp(ip[v + 1])):
            w = np.uintp(ix[p])
            if has_bit(other, w):
                return tail, arcs, True
            if mark_bit(seen, w):
                q[tail] = w
                tail += 1
                arcs += ip[w + 1] - ip[w]
    return tail, arcs, False


@kernel
def _hops(fp, fx, bp, bx, source, target, fseen, bseen, fq, bq):
    """The hop count of :func:`spbfs.semiring.queue_hops` (-1: none), the side whose level
    has fewer arcs out grown a level at a time; the bits set are cleared at the end."""
    mark_bit(fseen, source)
    mark_bit(bseen, target)
    fq[0] = source
    bq[0] = target
    f0, f1, b0, b1 = 0, 1, 0, 1   # the current level of each queue
    farcs, barcs = fp[source + 1] - fp[source], bp[target + 1] - bp[target]
    fdepth, bdepth = 0, 0
    hops = -1
    while f1 > f0 and b1 > b0:
        if farcs <= barcs:
            tail, farcs, met = _level(fp, fx, fseen, bseen, fq, f0, f1)
            f0, f1 = f1, tail
            fdepth += 1
        else:
            tail, barcs, met = _level(bp, bx, bseen, fseen, bq, b0, b1)
            b0, b1 = b1, tail
            bdepth += 1
        if met:
            hops = fdepth + bdepth
            break
    _unset(fseen, fq, f1)
    _unset(bseen, bq, b1)
    return hops


def _scratch(n):
    """Both sides' bit sets (every bit clear), queues and finders' queue indices for a
    graph of ``n`` vertices, the ids in the narrowest dtype: 16 bytes and 2 bits a vertex
    below 2**31 vertices."""
    ids = np.int32 if n <= np.iinfo(np.int32).max else np.int64
    words = (n + 63) // 64
    return (np.zeros(words, np.uint64), np.zeros(words, np.uint64),
            *(np.empty(n, ids) for _ in range(4)))


#: The searches' bit sets and queues, kept between calls: a call sets only the bits of the
#: vertices it sees and clears them again, so a query that sees a few vertices of a large
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


def queue_hops(fptr, fidx, bptr, bidx, source, target):
    """The hop count of :func:`spbfs.semiring.queue_hops` on CSR arrays (forward arcs,
    backward arcs): -1 where no path joins two distinct vertices.

    Examples
    --------
    >>> import numpy as np
    >>> ptr, idx = np.array([0, 1, 3, 4]), np.array([1, 0, 2, 1])   # the path 0 - 1 - 2
    >>> queue_hops(ptr, idx, ptr, idx, 0, 2), queue_hops(ptr, idx, ptr, idx, 2, 1)
    (2, 1)
    """
    n = fptr.size - 1
    scratch = _kept.checkout(n)
    hops = _hops(fptr, fidx, bptr, bidx, np.int64(source), np.int64(target), *scratch[:4])
    _kept.give_back(scratch, n)
    return int(hops)
