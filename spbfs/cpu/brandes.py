"""The CPU's one-source Brandes dependencies (``brandes_source``):
:func:`spbfs.semiring.source_dependencies` whole, one parallel call a level (two for a pull)
and nothing of size ``n`` made per level.

Forward, level by level from the source (GAP's ``bc``, with Beamer's pull for large
levels):

* a **push** level: threads take chunks of the level's vertices by ``fetch_add``; each
  out-neighbour still unreached is claimed for the next level by a compare-and-swap of its
  level, and every out-neighbour on the next level gets the vertex's path count added (a
  compare-and-swap loop on the count's bits: counts are whole numbers, so the order of the
  adds changes nothing);
* a **pull** level (where the level's out-edges outnumber the unreached vertices'
  in-edges): threads take ranges of the vertices; each unreached one sums the counts of
  its in-neighbours on the level, which a bitmap of the level names (an in-neighbour of an
  unreached vertex is on the level or unreached; the bitmap, ``n / 8`` bytes, stays in a
  core's cache where the levels would not).

Either way a thread lists the vertices it reached in a small buffer and appends it to one
queue (a ``fetch_add`` a buffer), so the queue holds the vertices level after level.
Backward, from the deepest level up to level 1, ``t[w] = (1 + delta[w]) / sigma[w]`` of
the level below is handed up the edges between the two levels, read from whichever side
has fewer (the old form of betweenness chose so too: each edge between two levels is read
once, from one side, and the edges within a level or back up are read only by a level that
is pulled): a **pull** has each vertex of the level sum ``t`` over its out-neighbours on the
level below (a bitmap of it), in its row's order, the same sums on any number of threads;
a **push** has each vertex of the level below add its ``t`` to its in-neighbours on the
level (atomic adds: the sums' order, so their last bits, may vary between runs).
"""

from __future__ import annotations

import numpy as np

from ._atomic import add_float, cas, fetch_add, fetch_or
from ._jit import kernel
from .kept import KeptPool
from .threads import get_num_threads, run_kernel, split

__all__ = ["brandes_source"]

#: Vertices a thread takes at a time from a level (pushes, the backward pulls).
CHUNK = 64
#: Vertices a thread lists before it appends them to the queue.
BUFFER = 256
#: Edges (read by a level) from which the level is split over threads.
PARALLEL_EDGES = 1 << 15
#: A pull reads every vertex's level: counted as ``n / PULL_SCAN`` edges in Beamer's rule.
PULL_SCAN = 16
#: A backward level is pushed where its pull would read this many times the push's edges
#: (a push's edge is an atomic add, a pull's a read).
PUSH_COST = 2
U = np.uintp


@kernel(inline="always")
def _flush(buffer, count, queue, tail):
    """Append ``buffer[:count]`` to ``queue`` at a place taken by ``fetch_add``."""
    at = fetch_add(tail, 0, count)
    for k in range(count):
        queue[at + k] = buffer[k]


@kernel(inline="always")
def _on(bitmap, v):
    """Bit ``v`` of ``bitmap`` (1 where ``v`` is on the level it holds)."""
    return (bitmap[U(v) >> U(6)] >> (U(v) & U(63))) & U(1)


@kernel
def _mark(lo, hi, queue, bitmap, atomic):
    """Set the bits of ``queue[lo:hi]`` in ``bitmap`` (atomically where other threads set
    bits of the same words at once)."""
    for q in range(lo, hi):
        v = U(queue[q])
        if atomic:
            fetch_or(bitmap, v >> U(6), U(1) << (v & U(63)))
        else:
            bitmap[v >> U(6)] |= U(1) << (v & U(63))


@kernel
def _push(r, queue, lo, hi, claimed, chunk, d, indptr, indices, tindptr, level, sigma, bits,
          tail, stats):
    """Range ``r`` of a push level (``queue[lo:hi]`` on level ``d``), ``chunk`` vertices at
    a time taken from ``claimed``: ``stats[r]`` = the out-edges and in-edges of the
    vertices this range reached."""
    buffer = np.empty(BUFFER, queue.dtype)
    count = 0
    out_edges = 0
    in_edges = 0
    nxt = np.int32(d + 2)  # level + 1: 0 is unreached
    while True:
        q0 = lo + fetch_add(claimed, 0, chunk)
        if q0 >= hi:
            break
        for q in range(q0, min(q0 + chunk, hi)):
            u = queue[q]
            su = sigma[u]
            for p in range(U(indptr[u]), U(indptr[u + 1])):
                v = indices[p]
                lv = level[v]
                if lv == 0:
                    if cas(level, v, 0, nxt):
                        buffer[count] = v
                        count += 1
                        out_edges += indptr[v + 1] - indptr[v]
                        in_edges += tindptr[v + 1] - tindptr[v]
                        if count == BUFFER:
                            _flush(buffer, count, queue, tail)
                            count = 0
                    lv = level[v]
                if lv == nxt:
                    add_float(bits, v, su)
    _flush(buffer, count, queue, tail)
    stats[r, 0] = out_edges
    stats[r, 1] = in_edges


@kernel
def _pull(v0, v1, r, d, indptr, tindptr, tindices, front, level, sigma, queue, tail, stats):
    """Range ``r`` (``v0..v1``) of a pull level: each unreached vertex of ``v0..v1`` with an
    in-neighbour on level ``d`` (set in ``front``) joins level ``d + 1`` with the sum of
    those in-neighbours' path counts; ``stats[r]`` = the out-edges and in-edges of the
    vertices it reached."""
    buffer = np.empty(BUFFER, queue.dtype)
    count = 0
    out_edges = 0
    in_edges = 0
    for v in range(v0, v1):
        if level[v]:
            continue
        s = 0.0
        found = False
        for p in range(U(tindptr[v]), U(tindptr[v + 1])):
            u = tindices[p]
            if _on(front, u):
                s += sigma[u]
                found = True
        if found:
            level[v] = d + 2
            sigma[v] = s
            buffer[count] = v
            count += 1
            out_edges += indptr[v + 1] - indptr[v]
            in_edges += tindptr[v + 1] - tindptr[v]
            if count == BUFFER:
                _flush(buffer, count, queue, tail)
                count = 0
    _flush(buffer, count, queue, tail)
    stats[r, 0] = out_edges
    stats[r, 1] = in_edges


@kernel
def _gather(queue, lo, hi, claimed, chunk, indptr, indices, below, sigma, t, delta):
    """A backward pull: ``delta`` and ``t`` of the vertices ``queue[lo:hi]`` from their
    out-neighbours on the level below (set in ``below``), ``chunk`` at a time taken from
    ``claimed``."""
    while True:
        q0 = lo + fetch_add(claimed, 0, chunk)
        if q0 >= hi:
            break
        for q in range(q0, min(q0 + chunk, hi)):
            u = queue[q]
            acc = 0.0
            for p in range(U(indptr[u]), U(indptr[u + 1])):
                w = indices[p]
                if _on(below, w):
                    acc += t[w]
            du = sigma[u] * acc
            delta[u] = du
            t[u] = (1.0 + du) / sigma[u]


@kernel
def _scatter(queue, lo, hi, claimed, chunk, tindptr, tindices, level_bits, t, delta,
             atomic):
    """A backward push: each vertex ``queue[lo:hi]`` of the level below adds its ``t`` to
    ``delta`` of its in-neighbours on the level (set in ``level_bits``), atomically where
    other threads add at once; ``chunk`` at a time taken from ``claimed``."""
    delta_bits = delta.view(np.int64)
    while True:
        q0 = lo + fetch_add(claimed, 0, chunk)
        if q0 >= hi:
            break
        for q in range(q0, min(q0 + chunk, hi)):
            w = queue[q]
            tw = t[w]
            for p in range(U(tindptr[w]), U(tindptr[w + 1])):
                u = tindices[p]
                if _on(level_bits, u):
                    if atomic:
                        add_float(delta_bits, u, tw)
                    else:
                        delta[u] += tw


@kernel
def _clear(lo, hi, queue, level, sigma):
    """Zero the levels and path counts of ``queue[lo:hi]`` (the workspace kept clean)."""
    for q in range(lo, hi):
        u = queue[q]
        level[u] = 0
        sigma[u] = 0.0


@kernel
def _finish(queue, lo, hi, sigma, t, delta):
    """After a backward push: ``delta = sigma * sum`` and ``t`` of ``queue[lo:hi]``."""
    for q in range(lo, hi):
        u = queue[q]
        du = sigma[u] * delta[u]
        delta[u] = du
        t[u] = (1.0 + du) / sigma[u]


def _ranges(work):
    """One range a thread, one where the work (edges, vertices) is small."""
    return [(r, r + 1) for r in range(get_num_threads() if work >= PARALLEL_EDGES else 1)]


def _chunk(vertices, ranges):
    """Vertices a range takes at a time: :data:`CHUNK`, fewer where a level has few vertices
    for its threads (a level of hubs: a chunk of 64 could hold most of its edges)."""
    return max(1, min(CHUNK, vertices // (8 * len(ranges))))


def _marked(bitmap, queue, lo, hi):
    """``bitmap`` holding the bits of ``queue[lo:hi]`` alone."""
    bitmap[:] = 0
    ranges = split(hi - lo, len(_ranges(hi - lo))) if hi > lo else [(0, 0)]
    run_kernel(_mark, [(lo + q0, lo + q1) for q0, q1 in ranges], queue, bitmap,
               len(ranges) > 1)
    return bitmap


def brandes_source(indptr, indices, tindptr, tindices, source, delta):
    """Brandes' dependencies of every vertex on the one ``source`` (unweighted: shortest
    paths by hops), added into ``delta`` (float64 zeros, n; it stays zero where unreached
    and at the source): ``delta[v]`` sums ``sigma[v] / sigma[w] * (1 + delta[w])`` over the
    edges ``v -> w`` with ``w`` one level below ``v``.  ``indptr, indices`` is the graph's
    CSR (row ``v``: ``v``'s out-neighbours), ``tindptr, tindices`` its transpose's.
    Returns the number of levels below the source.

    Examples
    --------
    >>> import numpy as np
    >>> ptr, idx = np.array([0, 1, 3, 4]), np.array([1, 0, 2, 1])  # the path 0 - 1 - 2
    >>> delta = np.zeros(3)
    >>> brandes_source(ptr, idx, ptr, idx, 0, delta), delta
    (2, array([0., 1., 0.]))
    """
    ws = _workspaces.checkout(delta.size)
    depth = _search(indptr, indices, tindptr, tindices, source, delta, ws)
    _workspaces.give_back(ws, delta.size)  # clean again (a search that raised: dropped)
    return depth


class _Workspace:
    """A search's arrays on ``n`` vertices (:class:`~spbfs.cpu.kept.KeptPool`): the levels
    (plus one, 0 where unreached) and path counts are zero between searches, which clear
    the entries they reached."""

    def __init__(self, n):
        self.n = n
        self.level = np.zeros(n, np.int32)
        self.sigma = np.zeros(n)
        self.t = np.empty(n)
        self.queue = np.empty(n, np.int64)
        self.bitmap = np.zeros(n // 64 + 1, np.uint64)  # a level's vertices


_workspaces = KeptPool(_Workspace, keep=2)


def _search(indptr, indices, tindptr, tindices, source, delta, ws):
    """:func:`brandes_source` on the workspace ``ws``: the levels forwards, then backwards;
    the entries it reached cleared at the end."""
    n = ws.n
    level, sigma, t, queue, bitmap = ws.level, ws.sigma, ws.t, ws.queue, ws.bitmap
    bits = sigma.view(np.int64)  # the path counts' bits, for the pushes' atomic adds
    tail = np.zeros(1, np.int64)
    claimed = np.zeros(1, np.int64)
    level[source] = 1
    sigma[source] = 1.0
    queue[0] = source
    tail[0] = 1
    starts = [0, 1]  # level d is queue[starts[d]:starts[d + 1]]
    out_edges = [int(indptr[source + 1] - indptr[source])]  # of each level
    in_edges = [int(tindptr[source + 1] - tindptr[source])]
    unreached_in = int(tindptr[-1]) - in_edges[0]
    d = 0
    while starts[-1] > starts[-2]:
        lo, hi = starts[-2], starts[-1]
        claimed[0] = 0
        # Beamer's rule, the pull's scan of every vertex's level counted: the unreached
        # rows pull
        if out_edges[-1] > unreached_in + n // PULL_SCAN:
            _marked(bitmap, queue, lo, hi)
            ranges = split(n, len(_ranges(unreached_in + n // PULL_SCAN)), tindptr)
            stats = np.empty((len(ranges), 2), np.int64)  # each range writes its row
            run_kernel(_pull, [(v0, v1, r) for r, (v0, v1) in enumerate(ranges)], d, indptr,
                       tindptr, tindices, bitmap, level, sigma, queue, tail, stats)
        else:
            ranges = _ranges(out_edges[-1])
            chunk = _chunk(hi - lo, ranges)
            stats = np.empty((len(ranges), 2), np.int64)  # each range writes its row
            run_kernel(_push, [(r,) for r, _ in ranges], queue, lo, hi, claimed, chunk, d,
                       indptr, indices, tindptr, level, sigma, bits, tail, stats)
        found = stats.sum(axis=0).tolist()
        out_edges.append(found[0])
        in_edges.append(found[1])
        unreached_in -= in_edges[-1]
        starts.append(int(tail[0]))
        d += 1
    depth = len(starts) - 3  # levels 0..depth (the last one found is empty)
    _finish(queue, starts[depth], starts[depth + 1], sigma, t, delta)  # delta 0 there
    for d in range(depth - 1, 0, -1):
        lo, hi, below = starts[d], starts[d + 1], starts[d + 2]
        claimed[0] = 0
        if out_edges[d] <= PUSH_COST * in_edges[d + 1]:
            _marked(bitmap, queue, hi, below)
            ranges = _ranges(out_edges[d])
            chunk = _chunk(hi - lo, ranges)
            run_kernel(_gather, [()] * len(ranges), queue, lo, hi, claimed, chunk, indptr,
                       indices, bitmap, sigma, t, delta)
        else:
            _marked(bitmap, queue, lo, hi)
            ranges = _ranges(in_edges[d + 1])
            chunk, atomic = _chunk(below - hi, ranges), len(ranges) > 1
            run_kernel(_scatter, [()] * len(ranges), queue, hi, below, claimed, chunk, tindptr,
                       tindices, bitmap, t, delta, atomic)
            _finish(queue, lo, hi, sigma, t, delta)
    run_kernel(_clear, split(starts[-1], len(_ranges(starts[-1]))), queue, level, sigma)
    return depth
