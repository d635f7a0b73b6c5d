"""The CPU's delta-stepping (``delta_stepping``): :func:`spbfs.semiring.relax_buckets` whole,
every bucket round in one parallel call and no array made per round (GAP's ``sssp``, Meyer
and Sanders).

Distances are float64 (non-negative: their bit patterns, read as int64, are in the same
order, so an improvement is a compare-and-swap of the bits, :mod:`spbfs.cpu._atomic`).
Bucket ``b`` holds the distances ``d`` with ``floor(d * (1 / delta)) = b``.  Each
improvement lists its vertex in the bin of its new bucket, in the bins of the thread that
made it: one linked list of blocks per bucket (taken modulo ``C``, a power of two above the
buckets a pending distance can span, ``max weight / delta + 3``), blocks from the thread's
own pool and free list.  As in GAP, a vertex stays listed where it was when it improves
again.  A listing holds the vertex and a tag, a hash of its distance's pattern as
listed: it is relaxed only while the vertex's distance still has that tag, so each
improvement is relaxed at most once and a stale listing is skipped without an array of
marks per vertex (round stamps, 8 bytes a vertex, written at random by every thread: GAP's
scale-22 graph on 16 threads took 94 ms a source with tags against 109-120 with stamps; two
threads at scale 18, the same).  Two distances with one tag cost a relaxation more, never
a wrong distance: a relaxation from a vertex's current distance is always safe.  A
round:

1. the leading range (thread 0, :func:`_advance`) gives the last round's blocks back to
   their threads' free lists, finds the lowest bucket whose bins hold a listing, detaches
   its blocks, every thread's, into one list, and opens the round;
2. every range in the round takes chunks of that list by ``fetch_add`` and relaxes the
   out-edges of each listing whose vertex still has its distance, listing each
   improvement in its own bins: the work is shared whichever thread listed it;
3. each range relaxes the vertices it listed in the current bucket itself while they fill
   at most :data:`FUSE_BLOCKS` blocks (GAP's bucket fusion: no round for a bucket's tail);
4. the leader closes the round and waits for the helping ranges inside it.

The rounds are one call (GAP's one parallel region): a call through the thread pool per
round cost 35-40 us, a tenth of a search on GAP's scale-18 graph.  The helpers spin
between rounds and join the open ones they see; none is waited for that has not joined,
so a helper that starts late, or never (ranges run one after another inside a worker, or
queued behind another caller's), cannot stall the search.

A thread whose pool is full marks the vertex ``spilled``; the call then ends after the
round, the pools grow and the spilled vertices are listed where their distances are, and
the rounds go on in a new call (rare: a pool has room for ``2 n`` listings).
"""

from __future__ import annotations

import numpy as np

from ._atomic import cas, fetch_add, float_bits
from ._jit import kernel
from ._spin import (
    ROUND_ACTIVE,
    ROUND_DONE,
    ROUND_SEQ,
    _store,
    close_round,
    enter_round,
    round_reads,
)
from .kept import KeptPool
from .threads import get_num_threads, run_kernel, run_ranges, split

__all__ = ["delta_stepping"]

#: A bucket's blocks a thread takes at a time (64 listings).
CHUNK_BLOCKS = 2
#: Weights from which their range is found by several threads.
PARALLEL_MAX = 1 << 16
#: What :func:`delta_stepping` returns for a negative weight, a NaN weight.
NEGATIVE, NAN = -1, -2
#: Stored entries from which a search's rounds are shared by threads.
PARALLEL_ENTRIES = 1 << 14
#: Vertices a bin's block holds (bins are linked lists of blocks).
BLOCK = 32
#: A thread relaxes the vertices it listed in the current bucket itself, without a round,
#: while they fill at most this many blocks (GAP's bucket fusion: fewer than 1,000).
FUSE_BLOCKS = 32
#: The share of the width :func:`spbfs.semiring.relax_buckets` is given that these kernels
#: take: their rounds cost little, and narrower buckets scan fewer edges again (GAP's
#: scale-18 graph, one thread: 66-91 ms a source at a quarter of sssp's width, 113-144 at
#: the whole; the generic rounds, a masked push and numpy lists each, keep the whole;
#: with the rounds in one call, two threads: an eighth 3-8 % under a quarter at scales 18
#: and 20, a sixteenth no better).
WIDTH_SHARE = 0.125
#: The share from :data:`WIDER_FROM_THREADS` threads: a round costs more where more threads
#: meet at its end (GAP's scale-22 graph, 16 threads, a call a round: medians 193 ms at
#: half of sssp's width against 231 at a quarter).
WIDE_SHARE = 0.5
WIDER_FROM_THREADS = 8
#: Most buckets a pending distance may span (``delta`` is raised to keep within them).
MAX_SPAN = 1 << 16
#: The narrowest bucket: its inverse is a finite float (subnormal weights made it infinite).
MIN_WIDTH = 2.0 ** -1000
U = np.uintp
#: 2**64 over the golden ratio, odd: a distance's pattern times it, top bits kept, is its tag.
HASH = np.uint64(0x9E3779B97F4A7C15)
NONE = -1
#: The rounds' control block (:func:`_search`), int64 entries; those written by several
#: threads on cache lines of their own: the round's state (even: open, odd: closed,
#: :data:`DONE`), the helpers inside it, the chunks claimed, the vertices spilled; then the
#: round the leader publishes, and the search's state in and out of the call.
SEQ, ACTIVE, CLAIMED, LOST = ROUND_SEQ, ROUND_ACTIVE, 16, 24
P_BUCKET, P_COUNT = 32, 33
BUCKET, COUNT, ROUNDS = 40, 41, 42
CONTROL = 48
DONE = ROUND_DONE


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
def _advance(bucket, mask, heads, fill, blk_next, free, taken_blocks, count, claimed):
    """Between rounds: the blocks the last round took (``taken_blocks[:count]``) back to
    their threads' free lists; then the lowest bucket from ``bucket`` on whose bins hold a
    listing (every thread's), its blocks detached from the bins into ``taken_blocks`` (each
    as ``((block * threads + thread) << 6) | filled``) and ``claimed`` reset.  Returns the
    bucket (``-1`` when every bin is empty), its listings and its blocks."""
    threads = heads.shape[0]
    for q in range(count):
        g = taken_blocks[q] >> 6
        t = g % threads
        kb = g // threads
        blk_next[t, kb] = free[t]
        free[t] = kb
    claimed[0] = 0
    for _ in range(mask + 1):
        slot = bucket & mask
        entries = 0
        blocks = 0
        for t in range(threads):
            kb = heads[t, slot]
            filled = fill[t, slot]
            heads[t, slot] = NONE
            fill[t, slot] = 0
            while kb != NONE:
                taken_blocks[blocks] = ((kb * threads + t) << 6) | filled
                blocks += 1
                entries += filled
                kb = blk_next[t, kb]
                filled = BLOCK  # every block but the newest is full
        if blocks:
            return bucket, entries, blocks
        bucket += 1
    return -1, 0, 0


@kernel(inline="always")
def _tag(pattern, tag_bits):
    """A distance's tag: the top ``tag_bits`` bits of its pattern times an odd constant
    (Fibonacci hashing: a whole number's low bits are all zero)."""
    return np.int64((np.uint64(pattern) * HASH) >> np.uint64(64 - tag_bits))


@kernel(inline="always")
def _relax_one(u, t, indptr, indices, data, dist, bits, per, mask, tag_bits, heads, fill,
               blk_v, blk_next, free, used, spilled):
    """``u``'s out-edges relaxed by thread ``t``, each improvement listed in ``t``'s bin of
    its new bucket (:func:`_insert` written out: a call per improvement cost a quarter of
    the time); the number of vertices spilled.  Inlined where it is called."""
    lost = 0
    cap = blk_next.shape[1]
    du = dist[u]
    for p in range(U(indptr[u]), U(indptr[u + 1])):
        v = U(indices[p])
        nd = du + data[p]
        nb = float_bits(nd)
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
                blk_v[t, kb * BLOCK + i] = (np.int64(v) << tag_bits) | _tag(nb, tag_bits)
                fill[t, slot] = i + 1
                break
            ob = bits[v]
    return lost


@kernel
def _round(t, bucket, taken_blocks, count, claimed, indptr, indices, data, dist, bits, per,
           mask, tag_bits, heads, fill, blk_v, blk_next, free, used, spilled):
    """Thread ``t``'s share of a round: chunks of the bucket's blocks
    (``taken_blocks[:count]``, any thread's) taken by ``fetch_add`` on ``claimed[0]``, each
    listing whose vertex still has the distance it was listed with relaxed (its tag: see
    :func:`delta_stepping`), every improvement listed in the bins of thread ``t``; then
    (bucket fusion, GAP's) the vertices it listed in the current bucket itself while they
    are few.  Returns the vertices spilled."""
    threads = heads.shape[0]
    tag_mask = (np.int64(1) << tag_bits) - 1
    lost = 0
    while True:
        q0 = fetch_add(claimed, 0, CHUNK_BLOCKS)
        if q0 >= count:
            break
        for q in range(q0, min(q0 + CHUNK_BLOCKS, count)):
            g = taken_blocks[q] >> 6
            filled = taken_blocks[q] & 63
            owner = g % threads
            base = (g // threads) * BLOCK
            for i in range(filled):
                listing = blk_v[owner, base + i]
                v = listing >> tag_bits
                if _tag(bits[v], tag_bits) == listing & tag_mask:
                    lost += _relax_one(v, t, indptr, indices, data, dist, bits, per, mask,
                                       tag_bits, heads, fill, blk_v, blk_next, free, used,
                                       spilled)
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
        filled = fill[t, slot]
        heads[t, slot] = NONE
        fill[t, slot] = 0
        while kb != NONE:
            base = kb * BLOCK
            for i in range(filled):
                listing = blk_v[t, base + i]
                v = listing >> tag_bits
                if _tag(bits[v], tag_bits) == listing & tag_mask:
                    lost += _relax_one(v, t, indptr, indices, data, dist, bits, per, mask,
                                       tag_bits, heads, fill, blk_v, blk_next, free, used,
                                       spilled)
            after = blk_next[t, kb]
            blk_next[t, kb] = free[t]  # its own thread's list: no other thread's at once
            free[t] = kb
            kb = after
            filled = BLOCK
    return lost


@kernel
def _search(r, ctl, reads, taken_blocks, indptr, indices, data, dist, bits, per, mask,
            tag_bits, heads, fill, blk_v, blk_next, free, used, spilled):
    """The bucket rounds in one parallel call (GAP's one parallel region): range 0 leads,
    the others help (see :func:`_lead`, :func:`_help`).  Returns the vertices spilled."""
    claimed = ctl[CLAIMED:CLAIMED + 1]
    if r == 0:  # r, not a literal 0: one compiled _round for both
        return _lead(r, ctl, claimed, reads, taken_blocks, indptr, indices, data, dist, bits,
                     per, mask, tag_bits, heads, fill, blk_v, blk_next, free, used, spilled)
    return _help(r, ctl, claimed, reads, taken_blocks, indptr, indices, data, dist, bits,
                 per, mask, tag_bits, heads, fill, blk_v, blk_next, free, used, spilled)


@kernel
def _lead(t, ctl, claimed, reads, taken_blocks, indptr, indices, data, dist, bits, per, mask,
          tag_bits, heads, fill, blk_v, blk_next, free, used, spilled):
    """The leading range, thread ``t`` (0): from ``(ctl[BUCKET], ctl[COUNT])`` on, each round's
    bucket found (:func:`_advance`) and published (``ctl[SEQ]`` set even: open), its share
    taken, the round closed (``ctl[SEQ]`` odd) and the helpers inside it waited for; until
    every bin is empty (``ctl[BUCKET]`` -1) or a round spilled (its bucket and blocks left
    in ``ctl`` for the caller).  ``ctl[SEQ]`` is :data:`DONE` as it returns."""
    bucket = ctl[BUCKET]
    count = ctl[COUNT]
    rounds = 0
    lost = 0
    seq = 0
    while True:
        bucket, entries, count = _advance(bucket, mask, heads, fill, blk_next, free,
                                          taken_blocks, count, claimed)
        if bucket < 0:
            break
        rounds += 1
        ctl[P_BUCKET] = bucket
        ctl[P_COUNT] = count
        seq += 2
        _store(ctl, SEQ, seq)  # open: the published round is seen with it
        lost += _round(t, bucket, taken_blocks, count, claimed, indptr, indices, data, dist,
                       bits, per, mask, tag_bits, heads, fill, blk_v, blk_next, free, used,
                       spilled)
        close_round(ctl, reads)
        if lost + ctl[LOST]:
            break
    ctl[BUCKET] = bucket
    ctl[COUNT] = count
    ctl[ROUNDS] = rounds
    _store(ctl, SEQ, DONE)
    return lost


@kernel
def _help(t, ctl, claimed, reads, taken_blocks, indptr, indices, data, dist, bits, per, mask,
          tag_bits, heads, fill, blk_v, blk_next, free, used, spilled):
    """A helping range, thread ``t``: it joins each open round it sees (``ctl[ACTIVE]``
    raised, then ``ctl[SEQ]`` read again: a round closed meanwhile is left), takes its
    share and leaves, until ``ctl[SEQ]`` is :data:`DONE`.  A helper that starts late, or
    never (the ranges run one after another inside a worker), only takes part in fewer
    rounds: the leader waits for none but those inside a round."""
    last = 0
    while True:
        seq = enter_round(ctl, last, reads)
        if seq == DONE:
            return 0
        lost = _round(t, ctl[P_BUCKET], taken_blocks, ctl[P_COUNT], claimed, indptr, indices,
                      data, dist, bits, per, mask, tag_bits, heads, fill, blk_v, blk_next, free,
                      used, spilled)
        if lost:
            fetch_add(ctl, LOST, lost)
        fetch_add(ctl, ACTIVE, -1)
        last = seq


@kernel
def _list(vertices, dist, bits, per, mask, tag_bits, heads, fill, blk_v, blk_next, free, used):
    """List ``vertices`` in thread 0's bins of their distances, tagged with them (pools grown
    first)."""
    for v in vertices:
        _insert(0, np.int64(dist[v] * per) & mask,
                (np.int64(v) << tag_bits) | _tag(bits[v], tag_bits), heads, fill, blk_v,
                blk_next, free, used)


def _pool_blocks(n, threads, sources, span):
    """The blocks a thread's pool starts with: room for ``2 n`` listings (a vertex is listed
    again each time its distance improves) and a part-filled block per bin; pages are
    touched only as blocks are taken, so room no thread takes costs no memory."""
    return max(2 * n, sources) // BLOCK + span + 1


@kernel
def _weight_range(lo, hi, data):
    """``(smallest, largest, whether one is NaN)`` of ``data[lo:hi]``."""
    low = np.inf
    high = 0.0
    nan = False
    for p in range(U(lo), U(hi)):
        w = data[p]
        low = min(low, w)
        high = max(high, w)
        nan |= w != w
    return low, high, nan


_INF_BITS = int(np.array(np.inf).view(np.int64))


@kernel
def _bits_range(lo, hi, r, bits, out):
    """``out[r] = (smallest, largest, largest finite)`` of the int64 patterns
    ``bits[lo:hi]`` of float64 weights: a branch-free pass the compiler vectorises.
    Patterns with the sign bit (a negative weight, -0.0, a NaN with its sign set) are the
    negative ones; :data:`_INF_BITS` is an infinite weight, above it a NaN."""
    low = np.iinfo(np.int64).max
    high = np.iinfo(np.int64).min
    finite = 0
    for p in range(U(lo), U(hi)):
        b = bits[p]
        low = min(low, b)
        high = max(high, b)
        finite = max(finite, b if b < _INF_BITS else 0)
    out[r, 0] = low
    out[r, 1] = high
    out[r, 2] = finite


def _checked_largest(data):
    """The largest finite weight (0 for none), or :data:`NEGATIVE` / :data:`NAN` where a
    weight is negative / NaN: one pass over the weights' bit patterns (the threads
    splitting the entries), and the exact pass of the values only where a pattern has its
    sign bit (-0.0 is a weight of zero).  An infinite weight is an edge no path improves
    by: the buckets span the finite ones (its inf made the width infinite before)."""
    if not data.size:
        return 0.0
    ranges = split(data.size, get_num_threads() if data.size >= PARALLEL_MAX else 1)
    out = np.empty((len(ranges), 3), np.int64)
    run_kernel(_bits_range, [(lo, hi, r) for r, (lo, hi) in enumerate(ranges)],
               data.view(np.int64), out)
    if int(out[:, 0].min()) < 0:  # a sign bit: the values say which
        found = run_ranges(lambda lo, hi: _weight_range(lo, hi, data), ranges)
        if any(nan for _, _, nan in found):
            return NAN
        if min(low for low, _, _ in found) < 0:
            return NEGATIVE
    elif int(out[:, 1].max()) > _INF_BITS:
        return NAN
    return float(np.array(int(out[:, 2].max())).view(np.float64))


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
    :data:`WIDTH_SHARE` times ``delta`` wide (:data:`WIDE_SHARE` times from
    :data:`WIDER_FROM_THREADS` threads; raised where the weights would span more than
    :data:`MAX_SPAN` buckets).  Returns the number of bucket rounds, or :data:`NEGATIVE` /
    :data:`NAN` (nothing computed) where a weight is negative / NaN: they are checked in
    the pass that finds the largest.

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
    w_max = _checked_largest(data)
    if w_max < 0:  # a bad weight: nothing computed
        return int(w_max)
    threads = max(1, get_num_threads()) if data.size >= PARALLEL_ENTRIES else 1
    if not (delta > 0 and np.isfinite(delta)):
        delta = 1.0
    share = WIDE_SHARE if threads >= WIDER_FROM_THREADS else WIDTH_SHARE
    # within MAX_SPAN buckets of the largest weight, and wide enough that 1 / delta is finite
    delta = max(delta * share, w_max / (MAX_SPAN - 3), MIN_WIDTH)
    per = 1.0 / delta  # bucket of d: floor(d * per), the one rule throughout
    span = 1 << max(int(w_max * per) + 3, 2).bit_length()  # a power of two: slot = b & mask
    sources = np.unique(np.asarray(sources, np.int64))
    ws = _workspaces.checkout(n, threads)
    heads, fill, blk_v, blk_next, taken_blocks = ws.bins(
        span, _pool_blocks(n, threads, sources.size, span))
    spilled = ws.spilled
    tag_bits = 63 - max(n - 1, 1).bit_length()  # a listing: (v << tag_bits) | tag
    free = np.full(threads, NONE, np.int64)
    used = np.zeros(threads, np.int64)
    run_ranges(lambda lo, hi: dist[lo:hi].__setitem__(slice(None), np.inf),
               split(n, threads if n >= PARALLEL_MAX else 1))  # numpy's fill frees the GIL
    bits = dist.view(np.int64)
    dist[sources] = 0.0  # the sources: distance 0, listed in bucket 0 of thread 0's bins
    mask = span - 1
    _list(sources, dist, bits, per, mask, tag_bits, heads, fill, blk_v, blk_next, free, used)
    ctl = np.zeros(CONTROL, np.int64)
    rounds = 0
    while True:
        ctl[SEQ] = ctl[ACTIVE] = ctl[LOST] = 0
        lost = run_kernel(_search, [(r,) for r in range(threads)], ctl, round_reads(),
                          taken_blocks, indptr, indices, data, dist, bits, per, mask,
                          tag_bits, heads, fill, blk_v, blk_next, free, used, spilled)
        rounds += int(ctl[ROUNDS])
        if ctl[BUCKET] < 0:
            break
        lost = sum(lost) + int(ctl[LOST])  # a round spilled: the pools grown, the
        while blk_next.shape[1] - int(used[0]) < lost // BLOCK + span + 1:  # spilled
            blk_v, blk_next = _grown(blk_v, blk_next)  # listed again, then on
        listed = np.flatnonzero(spilled)
        spilled[listed] = False
        _list(listed, dist, bits, per, mask, tag_bits, heads, fill, blk_v, blk_next, free,
              used)
        blk_v, blk_next = _grown(blk_v, blk_next)  # room for the next rounds
        if taken_blocks.size < blk_next.size:
            taken_blocks = np.concatenate([taken_blocks, np.empty(
                blk_next.size - taken_blocks.size, np.int64)])
        ws.keep(blk_v, blk_next, taken_blocks)
    _workspaces.give_back(ws, n, threads)  # every bin empty again (one that raised: dropped)
    return rounds


class _Workspace:
    """A search's arrays kept between calls (:class:`~spbfs.cpu.kept.KeptPool`): the
    spilled flags of ``n`` vertices (clear between searches), and per thread the bins
    (every one empty between searches: a search ends when they are) and the pools of
    blocks."""

    def __init__(self, n, threads):
        self.threads = threads
        self.spilled = np.zeros(n, bool)
        self.heads = self.fill = None
        self.blk_v = self.blk_next = self.taken_blocks = None

    def bins(self, span, blocks):
        """``(heads, fill, blk_v, blk_next, taken_blocks)`` for ``span`` bins a thread and
        pools of at least ``blocks`` blocks."""
        if self.heads is None or self.heads.shape[1] != span:
            self.heads = np.full((self.threads, span), NONE, np.int64)
            self.fill = np.zeros((self.threads, span), np.int64)
        if self.blk_next is None or self.blk_next.shape[1] < blocks:
            self.keep(np.empty((self.threads, blocks * BLOCK), np.int64),
                      np.empty((self.threads, blocks), np.int64),
                      np.empty(self.threads * blocks, np.int64))
        return self.heads, self.fill, self.blk_v, self.blk_next, self.taken_blocks

    def keep(self, blk_v, blk_next, taken_blocks):
        self.blk_v, self.blk_next, self.taken_blocks = blk_v, blk_next, taken_blocks


_workspaces = KeptPool(_Workspace, keep=2)
