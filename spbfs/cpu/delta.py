"""The CPU's delta-stepping (``delta_stepping``): :func:`spbfs.semiring.relax_buckets` whole,
one parallel call a bucket round and no array made per round (GAP's ``sssp``, Meyer and
Sanders).

Distances are float64 (non-negative: their bit patterns, read as int64, are in the same
order, so an improvement is a compare-and-swap of the bits, :mod:`spbfs.cpu._atomic`).
Bucket ``b`` holds the distances ``d`` with ``floor(d * (1 / delta)) = b``.  Each
improvement lists its vertex in the bin of its new bucket, in the bins of the thread that
made it: one linked list of blocks per bucket (taken modulo ``C``, a power of two above the
buckets a pending distance can span, ``max weight / delta + 3``), blocks from the thread's
own pool and free list.  As in GAP, a vertex stays listed where it was when it improves
again; a listing is taken only while the vertex's distance is still in that bucket.  A
round (one call of :func:`_relax` a range, then :func:`_next_bucket`):

1. each range empties the current bucket's bins of its threads into its own frontier row,
   each vertex once (a stamp per round) and only while its distance is in the bucket, and
   publishes the row;
2. every range relaxes the out-edges of chunks of the published rows, taken by
   ``fetch_add`` (its own row first; a row not yet published is left to its own range,
   so no range ever waits for another); each improvement lowers its head's distance and
   lists it;
3. each range relaxes the vertices it listed in the current bucket itself while they fill
   at most :data:`FUSE_BLOCKS` blocks (GAP's bucket fusion: no round for a bucket's tail);
4. the lowest bucket whose bins still hold a listing is the next round's.

A thread whose pool is full marks the vertex ``spilled``; the round's end grows the pools
and lists the spilled vertices where their distances are (rare: a pool has room for ``2 n``
listings and takes back the blocks of each emptied bucket).
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from ._atomic import cas, fetch_add
from ._jit import kernel
from .threads import get_num_threads, run_ranges, split

__all__ = ["delta_stepping"]

#: Frontier vertices a thread takes at a time.
CHUNK = 64
#: Weights from which their largest is found by several threads.
PARALLEL_MAX = 1 << 16
#: Frontier vertices from which a round is split over threads.
PARALLEL_VERTICES = 256
#: Vertices a bin's block holds (bins are linked lists of blocks).
BLOCK = 32
#: A thread relaxes the vertices it listed in the current bucket itself, without a round,
#: while they fill at most this many blocks (GAP's bucket fusion: fewer than 1,000).
FUSE_BLOCKS = 32
#: The share of the width :func:`spbfs.semiring.relax_buckets` is given that these kernels
#: take: their rounds cost little, and narrower buckets scan fewer edges again (GAP's
#: scale-18 graph, one thread: 66-91 ms a source at a quarter of sssp's width, 113-144 at
#: the whole; the generic rounds, a masked push and numpy lists each, keep the whole).
WIDTH_SHARE = 0.25
#: Most buckets a pending distance may span (``delta`` is raised to keep within them).
MAX_SPAN = 1 << 16
U = np.uintp
NONE = -1


@intrinsic
def _bits(typingctx, x):
    """The bit pattern of a float64 as an int64 (same order for non-negative values)."""
    if x != types.float64:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(64))

    return types.int64(x), codegen


@kernel
def _insert(t, slot, v, heads, fill, blk_v, blk_next, free, used):
    """List ``v`` in thread ``t``'s bin ``slot``; False when its pool has no block left."""
    kb = heads[t, slot]
    i = fill[t, slot]
    if kb == NONE or i == BLOCK:
        kb = free[t]
        if kb != NONE:
            free[t] = blk_next[t, kb]
        elif used[t] < blk_next.shape[1]:
            kb = used[t]
            used[t] += 1
        else:
            return False
        blk_next[t, kb] = heads[t, slot]
        heads[t, slot] = kb
        i = 0
    blk_v[t, kb * BLOCK + i] = v
    fill[t, slot] = i + 1
    return True


@kernel
def _next_bucket(bucket, mask, heads, fill, blk_next):
    """The lowest bucket from ``bucket`` on whose bins hold a listing (every thread's),
    and about how many they hold; ``(-1, 0)`` when every bin is empty."""
    threads = heads.shape[0]
    for _ in range(mask + 1):
        slot = bucket & mask
        entries = 0
        for t in range(threads):
            kb = heads[t, slot]
            if kb != NONE:
                entries += fill[t, slot]
                kb = blk_next[t, kb]
                while kb != NONE:
                    entries += BLOCK
                    kb = blk_next[t, kb]
        if entries:
            return bucket, entries
        bucket += 1
    return -1, 0


@kernel(inline="always")
def _drain(t, slot, bucket, stamp, heads, fill, blk_v, blk_next, free, dist, per, taken,
           out, size):
    """Empty thread ``t``'s bin ``slot`` into ``out`` from ``size`` on, each vertex whose
    distance is in ``bucket`` once (``taken``: the round's stamp; two threads taking one
    vertex at once both keep it, a repeat of work only); the new size."""
    kb = heads[t, slot]
    count = fill[t, slot]
    heads[t, slot] = NONE
    fill[t, slot] = 0
    while kb != NONE:
        base = kb * BLOCK
        for i in range(count):
            v = blk_v[t, base + i]
            if taken[v] != stamp and np.int64(dist[v] * per) == bucket:
                taken[v] = stamp
                out[size] = v
                size += 1
        after = blk_next[t, kb]
        blk_next[t, kb] = free[t]  # the block back to its thread's free list
        free[t] = kb
        kb = after
        count = BLOCK  # every block but the newest is full
    return size


@kernel(inline="always")
def _relax_one(u, t, indptr, indices, data, dist, bits, per, mask, heads, fill, blk_v,
               blk_next, free, used, spilled):
    """``u``'s out-edges relaxed by thread ``t``, each improvement listed in ``t``'s bin of
    its new bucket (:func:`_insert` written out: a call per improvement cost a quarter of
    the time); the number of vertices spilled.  Inlined where it is called."""
    lost = 0
    cap = blk_next.shape[1]
    du = dist[u]
    for p in range(U(indptr[u]), U(indptr[u + 1])):
        v = U(indices[p])
        nd = du + data[p]
        nb = _bits(nd)
        ob = bits[v]
        while nb < ob:
            if cas(bits, v, ob, nb):
                slot = np.int64(nd * per) & mask  # floor: nd >= 0
                kb = heads[t, slot]
                i = fill[t, slot]
                if kb == NONE or i == BLOCK:
                    kb = free[t]
                    if kb != NONE:
                        free[t] = blk_next[t, kb]
                    elif used[t] < cap:
                        kb = used[t]
                        used[t] += 1
                    else:
                        spilled[v] = True
                        lost += 1
                        break
                    blk_next[t, kb] = heads[t, slot]
                    heads[t, slot] = kb
                    i = 0
                blk_v[t, kb * BLOCK + i] = v
                fill[t, slot] = i + 1
                break
            ob = bits[v]
    return lost


@kernel
def _relax(r, parts, bucket, stamp, frontier, sizes, claimed, ready, indptr, indices, data,
           dist, bits, per, mask, taken, heads, fill, blk_v, blk_next, free, used, spilled):
    """Range ``r`` of ``parts``: the bins of the current bucket of threads ``r``, ``r +
    parts``, ... drained into frontier row ``r`` (published by ``ready``), then chunks of
    every published row taken by ``fetch_add`` (its own first; a row not yet published is
    left to its range, so no range waits for another), then (bucket fusion, GAP's) the
    vertices it listed in the current bucket itself while they are few: every out-edge
    relaxed, each improvement listed in row ``r``'s bins.  Returns the vertices spilled."""
    t = r
    slot = bucket & mask
    size = 0
    for row in range(r, heads.shape[0], parts):
        size = _drain(row, slot, bucket, stamp, heads, fill, blk_v, blk_next, free, dist, per,
                      taken, frontier[r], size)
    sizes[r] = size
    fetch_add(ready, r, 1)  # publishes the row (a locked instruction: a full fence)
    lost = 0
    for k in range(parts):
        s = (r + k) % parts
        if fetch_add(ready, s, 0) == 0:  # not drained yet: its own range does it
            continue
        row = frontier[s]
        end = sizes[s]
        while True:
            q0 = fetch_add(claimed, s, CHUNK)
            if q0 >= end:
                break
            for q in range(q0, min(q0 + CHUNK, end)):
                lost += _relax_one(row[q], t, indptr, indices, data, dist, bits, per, mask,
                                   heads, fill, blk_v, blk_next, free, used, spilled)
    slot = bucket & mask
    while True:
        kb = heads[t, slot]
        blocks = 0
        while kb != NONE and blocks <= FUSE_BLOCKS:
            blocks += 1
            kb = blk_next[t, kb]
        if blocks == 0 or blocks > FUSE_BLOCKS:  # none, or too many: the next round's
            break
        kb = heads[t, slot]
        count = fill[t, slot]
        heads[t, slot] = NONE
        fill[t, slot] = 0
        while kb != NONE:
            base = kb * BLOCK
            for i in range(count):
                v = blk_v[t, base + i]
                if np.int64(dist[v] * per) == bucket:
                    lost += _relax_one(v, t, indptr, indices, data, dist, bits, per, mask,
                                       heads, fill, blk_v, blk_next, free, used,
                                       spilled)
            after = blk_next[t, kb]
            blk_next[t, kb] = free[t]
            free[t] = kb
            kb = after
            count = BLOCK
    return lost


@kernel
def _list_spilled(spilled, dist, per, mask, heads, fill, blk_v, blk_next, free, used):
    """List every spilled vertex in thread 0's bin of its distance (pools grown first)."""
    for v in range(spilled.size):
        if spilled[v]:
            spilled[v] = False
            _insert(0, np.int64(dist[v] * per) & mask, v, heads, fill, blk_v, blk_next, free,
                    used)


def _pool_blocks(n, threads, sources, span):
    """The blocks a thread's pool starts with: room for ``2 n`` listings (a vertex is listed
    again each time its distance improves) and a part-filled block per bin; pages are
    touched only as blocks are taken, so room no thread takes costs no memory."""
    return max(2 * n, sources) // BLOCK + span + 1


def _max_weight(data):
    """The largest weight (0 for none), the threads splitting the entries (numpy's maximum
    releases the GIL)."""
    if not data.size:
        return 0.0
    ranges = split(data.size, get_num_threads() if data.size >= PARALLEL_MAX else 1)
    return max(run_ranges(lambda lo, hi: float(data[lo:hi].max()), ranges))


def _grown(blk_v, blk_next):
    """The pools with twice as many blocks (the old ones kept in place)."""
    threads, blocks = blk_next.shape
    v = np.empty((threads, 2 * blocks * BLOCK), blk_v.dtype)
    v[:, :blocks * BLOCK] = blk_v
    nxt = np.empty((threads, 2 * blocks), blk_next.dtype)
    nxt[:, :blocks] = blk_next
    return v, nxt


def delta_stepping(indptr, indices, data, sources, delta, dist):
    """Shortest distances from ``sources`` (at distance 0) by delta-stepping over the
    non-negative float64 weights ``data``, written into ``dist`` (float64, n); buckets
    :data:`WIDTH_SHARE` times ``delta`` wide (raised where the weights would span more than
    :data:`MAX_SPAN` buckets).  Returns the number of bucket rounds.

    Examples
    --------
    >>> import numpy as np
    >>> dist = np.empty(3)
    >>> delta_stepping(np.array([0, 2, 3, 3]), np.array([1, 2, 2]), np.array([4.0, 1.0, 2.0]),
    ...                np.array([0]), 4.0, dist)
    3
    >>> dist
    array([0., 4., 1.])
    """
    n = dist.size
    w_max = _max_weight(data)
    if not (delta > 0 and np.isfinite(delta)):
        delta = 1.0
    delta *= WIDTH_SHARE
    if w_max / delta > MAX_SPAN - 3:
        delta = w_max / (MAX_SPAN - 3)
    per = 1.0 / delta  # bucket of d: floor(d * per), the one rule throughout
    span = 1 << max(int(w_max * per) + 3, 2).bit_length()  # a power of two: slot = b & mask
    threads = max(1, get_num_threads())
    dist[:] = np.inf
    bits = dist.view(np.int64)
    taken = np.zeros(n, np.int64)
    sources = np.unique(np.asarray(sources, np.int64))
    blocks = _pool_blocks(n, threads, sources.size, span)
    heads = np.full((threads, span), NONE, np.int64)
    fill = np.zeros((threads, span), np.int64)
    blk_v = np.empty((threads, blocks * BLOCK), np.int64)
    blk_next = np.empty((threads, blocks), np.int64)
    free = np.full(threads, NONE, np.int64)
    used = np.zeros(threads, np.int64)
    spilled = np.zeros(n, bool)
    frontier = np.empty((threads, n), np.int64)  # a row a range (pages touched as used)
    sizes = np.zeros(threads, np.int64)
    claimed = np.zeros(threads, np.int64)
    ready = np.zeros(threads, np.int64)
    dist[sources] = 0.0  # the sources: distance 0, listed in bucket 0 of thread 0's bins
    spilled[sources] = True
    _list_spilled(spilled, dist, per, span - 1, heads, fill, blk_v, blk_next, free, used)
    mask = span - 1
    rounds = 0
    bucket, entries = _next_bucket(0, mask, heads, fill, blk_next)
    while bucket >= 0:
        rounds += 1
        parts = min(threads, (entries + PARALLEL_VERTICES - 1) // PARALLEL_VERTICES)
        claimed[:] = 0
        ready[:] = 0
        lost = run_ranges(
            lambda r, _, parts=parts, bucket=bucket, stamp=rounds, blk_v=blk_v,
            blk_next=blk_next: _relax(
                r, parts, bucket, stamp, frontier, sizes, claimed, ready, indptr, indices,
                data, dist, bits, per, mask, taken, heads, fill, blk_v, blk_next, free, used,
                spilled), [(r, r + 1) for r in range(parts)])
        if sum(lost):
            while blk_next.shape[1] - int(used[0]) < sum(lost) // BLOCK + span + 1:
                blk_v, blk_next = _grown(blk_v, blk_next)
            _list_spilled(spilled, dist, per, mask, heads, fill, blk_v, blk_next, free, used)
            blk_v, blk_next = _grown(blk_v, blk_next)  # room for the next rounds
        bucket, entries = _next_bucket(bucket, mask, heads, fill, blk_next)
    return rounds
