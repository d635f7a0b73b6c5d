"""The CPU backend's peeling: one serial worklist kernel removes, until none is left, the
active vertices whose count in any of two degree arrays falls to zero (O(n + m), where the
generic path of :func:`spbfs.semiring.peel` runs one masked product per round); and the
levels of a peeling with a rising threshold (:func:`spbfs.semiring.peel_levels`, core
numbers) in one pass of Batagelj and Zaversnik's buckets (O(n + m + the largest count),
where the generic path runs a ``peel`` per level)."""

from __future__ import annotations

import numpy as np

from ._jit import kernel

__all__ = ["peel", "peel_levels"]


@kernel
def _drop_row(u, r, ip, ix, deg, active, queue, rounds, end, vals, mode):
    """Subtract row ``u``'s arcs from its active targets' counts (folding ``vals[u]`` into
    theirs for mode 1 min / 2 max); targets left at zero join the queue with round ``r``.
    Returns the queue's new end."""
    for p in range(np.uint64(ip[u]), np.uint64(ip[u + 1])):  # unsigned reads
        v = ix[p]
        if active[v]:
            if mode == 1 and vals[u] < vals[v]:
                vals[v] = vals[u]
            elif mode == 2 and vals[u] > vals[v]:
                vals[v] = vals[u]
            deg[v] -= 1
            if deg[v] == 0:
                active[v] = False
                queue[end] = v
                rounds[end] = r
                end += 1
    return end


@kernel
def _peel(ip0, ix0, deg0, ip1, ix1, deg1, active, queue, rounds, end, vals, mode, cap):
    """Process the queue (removed vertices whose arcs still count, round 0) and every
    vertex removed on the way, appended with its round; returns the queue's end.  FIFO
    order takes the rounds in turn, so a vertex's round is one more than the round of the
    vertex whose removal brought it to zero: the rounds of the generic path.  Values fold
    along the first CSR only."""
    head = 0
    second = ix1.size > 0  # else a one-pair call: its row offsets are not read
    while head < end:
        u = queue[head]
        r = rounds[head] + 1
        if r == cap:  # FIFO: every later vertex is of this round or the next
            break
        head += 1
        end = _drop_row(u, r, ip0, ix0, deg0, active, queue, rounds, end, vals, mode)
        if second:
            end = _drop_row(u, r, ip1, ix1, deg1, active, queue, rounds, end, vals, 0)
    return end


_MODES = {None: 0, "min": 1, "max": 2}


def peel(ip0, ix0, deg0, ip1, ix1, deg1, active, removed, values=None, monoid=None,
         max_rounds=-1, lockstep=True):
    """Subtract the arcs of ``removed`` (row ``u`` of the first CSR counts against ``deg0``,
    of the second against ``deg1``, for active targets only), then remove every active
    vertex left at zero, until none is; ``deg0``, ``deg1`` (int64) and ``active`` are
    updated in place.  With ``values`` and a ``min``/``max`` ``monoid``, every arc ``u ->
    v`` of the first CSR to an active ``v`` also folds ``values[u]`` into ``values[v]``.
    Returns ``(vertices removed here, their rounds)`` (``removed`` is round 0), in
    removal order; None for a monoid the kernel lacks (the generic path runs).  With
    ``max_rounds`` (-1: none), the arcs of round ``max_rounds - 1`` are not subtracted.
    The worklist is first in, first out: its order is the rounds' whatever ``lockstep``
    says.

    Examples
    --------
    >>> import numpy as np
    >>> ip, ix = np.array([0, 1, 2, 2]), np.array([1, 2])       # the path 0 -> 1 -> 2
    >>> indeg = np.array([0, 1, 1]); active = np.array([False, True, True])
    >>> ids, rounds = peel(ip, ix, indeg, np.zeros(4, np.int64), ix[:0], indeg * 0 + 9,
    ...                    active, np.array([0]))
    >>> ids.tolist(), rounds.tolist()
    ([1, 2], [1, 2])
    """
    name = None if monoid is None else monoid.name
    if values is not None and name not in ("min", "max"):
        return None
    n, k = active.size, removed.size
    queue = np.empty(n + k, np.int64)
    queue[:k] = removed
    rounds = np.empty(n + k, np.int64)  # a slot is written as its vertex joins the queue
    rounds[:k] = 0
    vals = np.zeros(1, np.int64) if values is None else values
    end = _peel(ip0, ix0, deg0, ip1, ix1, deg1, active, queue, rounds, k, vals, _MODES[name],
                max_rounds)
    return queue[k:end], rounds[k:end]


@kernel
def _levels(ip, ix, count, level):
    """Batagelj and Zaversnik: the vertices in buckets by count, taken in rising order;
    each leaves at its count (its level), and each neighbour still above that count moves
    down one bucket (swapped to its bucket's front, which then starts one further)."""
    n = count.size
    top = 0
    for v in range(n):
        top = max(top, count[v])
    start = np.zeros(top + 2, np.int64)
    for v in range(n):
        start[count[v] + 1] += 1
    for c in range(top + 1):
        start[c + 1] += start[c]
    order = np.empty(n, np.int64)
    pos = np.empty(n, np.int64)
    for v in range(n):  # a stable counting sort: each bucket in vertex order
        pos[v] = start[count[v]]
        order[pos[v]] = v
        start[count[v]] += 1
    for c in range(top, 0, -1):  # the buckets' starts again
        start[c] = start[c - 1]
    start[0] = 0
    for i in range(n):
        v = order[i]
        cv = count[v]
        level[v] = cv
        for p in range(np.uint64(ip[v]), np.uint64(ip[v + 1])):  # unsigned reads
            u = ix[p]
            cu = count[u]
            if cu > cv:
                first = start[cu]
                w = order[first]
                if w != u:
                    pu = pos[u]
                    order[first], order[pu] = u, w
                    pos[u], pos[w] = first, pu
                start[cu] += 1
                count[u] = cu - 1


def peel_levels(indptr, indices, counts):
    """The levels of :func:`spbfs.semiring.peel_levels` on a CSR pattern (``counts``:
    non-negative int64, used up).

    Examples
    --------
    >>> import numpy as np
    >>> ip, ix = np.array([0, 1, 3, 4, 4]), np.array([1, 0, 2, 1])   # a path 0 - 1 - 2, 3
    >>> peel_levels(ip, ix, np.array([1, 2, 1, 0])).tolist()
    [1, 1, 1, 0]
    """
    level = np.empty(counts.size, np.int64)
    if counts.size:
        _levels(indptr, indices, counts, level)
    return level
