"""The CPU backend's level search: compiled kernels for masked ``vxm`` with ``any_pair`` /
``any_secondi`` (:func:`spbfs.semiring.level_search`), the engine of :func:`spbfs.bfs` on the
CPU.

One level is one kernel call (or one per thread, over ranges):

* push (top-down): the frontier queue's out-edges; an unvisited target is claimed by writing
  its level and parent and appended to the next queue.  Threads take chunks of the queue
  from a shared counter and claim by a compare-and-swap of the level (one thread wins a
  target), listing their claims apart, then copy them after the earlier threads'.
* pull (bottom-up): each unvisited vertex scans its in-edges against the frontier bitmap
  (1 bit per vertex, cache-resident) and stops at the first hit, its parent.  Threads take
  chunks of 64-vertex words from a shared counter, one at a time (a level's work is where
  its unvisited vertices are, which no split made in advance knows); each writes the next
  frontier's words of its chunks.

Each kernel also sums the out- and in-degrees of the vertices it found, the sizes
:func:`spbfs.algorithms.bfs.search` steers by.  The queue and bitmaps live in a
:class:`Workspace` checked out of a pool per search (concurrent searches never share one;
repeated searches reuse them, so no fresh pages are faulted in per call).
"""

from __future__ import annotations

import numpy as np

from ..core.remote import mapped_ids, remote_parents
from ..core.seam import LevelSearch
from ..core.seam import bitmap_searchable as supports
from ._atomic import cas, fetch_add
from ._bits import popcount
from ._jit import kernel
from .kept import KeptPool
from .threads import get_num_threads, run_kernel, split

__all__ = ["CpuBitmapSearch", "supports"]

_ONE, _SIX, _LOW = np.uint64(1), np.uint64(6), np.uint64(63)
U = np.uintp
#: ``parent_ids`` that keep every id as it is.
_IDENTITY = np.array([1 << 62, 1, 0], np.int64)
#: Frontier out-edges from which a push is split over threads, and vertices from which a
#: pull is (below that, one thread: dispatching costs more than it saves).
PARALLEL_PUSH_EDGES = 1 << 15
PARALLEL_PULL_VERTICES = 1 << 15
#: The 64-vertex words a pulling thread takes at a time (GAP's bottom-up step takes 1,024
#: vertices): threads that meet few unvisited vertices take more chunks.
PULL_CHUNK_WORDS = 32
#: A pushing thread takes chunks of at most this many frontier vertices (GAP's top-down step
#: takes 64), and a frontier makes at least this many chunks a thread.
PUSH_CHUNK = 1024
PUSH_CHUNKS_A_THREAD = 8
#: Frontier vertices from which a frontier is turned from a bitmap into a queue, or copied
#: from the threads' claim lists into the queue, over threads (below, one thread's pass
#: costs less than a parallel call).
PARALLEL_QUEUE = 1 << 16


# ----------------------------------------------------------------------------- kernels
@kernel
def _mapped(pmap, u):
    """The stored id of parent ``u`` (``parent_ids`` of :func:`spbfs.semiring.level_search`):
    ``u * stride + offset`` below ``split``, else ``table[u - split]``."""
    q = np.int64(u)
    if q < pmap[0]:
        return q * pmap[1] + pmap[2]
    return pmap[3 + q - pmap[0]]


@kernel
def _push(indptr, indices, tindptr, queue, qlo, qhi, out, levels, owner, pmap, level, stats):
    """Expand ``queue[qlo:qhi]``: claim unvisited targets (``levels``, ``owner``), append
    them to ``out``; ``stats`` += (out-degree sum, in-degree sum) of those; returns the count."""
    found = 0
    out_deg = 0
    in_deg = 0
    for i in range(qlo, qhi):
        u = queue[i]
        w = np.uint64(u)
        for k in range(np.uint64(indptr[w]), np.uint64(indptr[w + _ONE])):
            v = np.uint64(indices[k])
            if levels[v] < 0:
                levels[v] = level
                owner[v] = _mapped(pmap, u)
                out[found] = v
                found += 1
                out_deg += indptr[v + _ONE] - indptr[v]
                in_deg += tindptr[v + _ONE] - tindptr[v]
    stats[0] += out_deg
    stats[1] += in_deg
    return found


@kernel
def _copy(t, count, at, sources, target):
    """``target[at:at + count] = sources[t, :count]``."""
    for i in range(U(count)):
        target[U(at) + i] = sources[t, i]
    return 0


@kernel
def _push_part(t, counter, chunk, indptr, indices, tindptr, queue, qlo, qhi, parts, levels,
               owner, pmap, level, stats):
    """:func:`_push` of thread ``t`` over the chunks of ``chunk`` frontier vertices of
    ``queue[qlo:qhi]`` it takes from ``counter`` (one at a time): a target is claimed by a
    compare-and-swap of its level (one thread wins it) and listed in ``parts[t]``;
    ``stats[t]`` = the claimed vertices' degree sums; returns their count."""
    part = parts[t]
    found = 0
    out_deg = 0
    in_deg = 0
    while True:
        i0 = U(qlo) + U(fetch_add(counter, 0, chunk))
        if i0 >= U(qhi):
            break
        for i in range(i0, min(i0 + U(chunk), U(qhi))):
            u = queue[i]
            w = np.uint64(u)
            for k in range(np.uint64(indptr[w]), np.uint64(indptr[w + _ONE])):
                v = np.uint64(indices[k])
                seen = levels[v]
                if seen < 0 and cas(levels, v, seen, level):
                    owner[v] = _mapped(pmap, u)
                    part[found] = v
                    found += 1
                    out_deg += indptr[v + _ONE] - indptr[v]
                    in_deg += tindptr[v + _ONE] - tindptr[v]
    stats[t, 0] = out_deg
    stats[t, 1] = in_deg
    return found


@kernel
def _pull(t, counter, words, tindptr, tindices, indptr, levels, owner, pmap, level, front,
          nxt, stats):
    """The chunks of ``PULL_CHUNK_WORDS`` 64-vertex words thread ``t`` takes from
    ``counter`` (one at a time, until ``words``): every unvisited vertex looks for an
    in-neighbour in the ``front`` bitmap and stops at the first; the found ones are set in
    ``nxt`` (the chunk's words only); ``stats[t]`` = degree sums; returns the count."""
    n = U(levels.size)
    found = 0
    out_deg = 0
    in_deg = 0
    while True:
        w0 = U(fetch_add(counter, 0, PULL_CHUNK_WORDS))
        if w0 >= U(words):
            break
        w1 = min(w0 + U(PULL_CHUNK_WORDS), U(words))
        for w in range(w0, w1):
            nxt[w] = 0
        # unsigned indices: numba adds no wraparound fix-up for negative ones
        for v in range(w0 << _SIX, min(w1 << _SIX, n)):
            if levels[v] != -1:  # visited, or without in-edges
                continue
            for k in range(U(tindptr[v]), U(tindptr[v + _ONE])):
                u = U(tindices[k])
                if (front[u >> _SIX] >> (u & _LOW)) & _ONE:
                    levels[v] = level
                    owner[v] = _mapped(pmap, tindices[k])
                    nxt[v >> _SIX] |= _ONE << (v & _LOW)
                    found += 1
                    out_deg += indptr[v + _ONE] - indptr[v]
                    in_deg += tindptr[v + _ONE] - tindptr[v]
                    break
    stats[t, 0] = out_deg
    stats[t, 1] = in_deg
    return found


@kernel
def _queue_to_bits(queue, qlo, qhi, bits):
    bits[:] = 0
    for i in range(qlo, qhi):
        v = np.uint64(queue[i])
        bits[v >> _SIX] |= _ONE << (v & _LOW)


@kernel
def _count_bits(w0, w1, bits):
    """The set bits of ``bits[w0:w1]``."""
    count = 0
    for w in range(U(w0), U(w1)):
        count += popcount(bits[w])
    return count


@kernel
def _bits_to_queue(w0, w1, at, bits, queue):
    """The set bits of ``bits[w0:w1]`` as vertex ids in ``queue`` from ``at``, in order;
    returns the end."""
    end = U(at)
    for w in range(U(w0), U(w1)):
        word = bits[w]
        while word:
            low = word & (~word + _ONE)
            queue[end] = (w << _SIX) | popcount(low - _ONE)
            end += _ONE
            word ^= low
    return end


@kernel
def _start(v0, v1, levels, owner, clear_owner, tindptr):
    """Vertices ``v0..v1``: levels -1, or -2 for a vertex without in-edges (a pull skips it
    at once; only :func:`_unmark` makes it -1 again); owners -1 if asked (unsigned
    indices: no wraparound test, so the loops vectorise)."""
    for v in range(U(v0), U(v1)):
        levels[v] = -1 if tindptr[v + U(1)] > tindptr[v] else -2
    if clear_owner:
        for v in range(U(v0), U(v1)):
            owner[v] = -1


@kernel
def _start_source(levels, owner, pmap, source):
    """The source at level 0, its own parent (mapped)."""
    if source >= 0:
        levels[source] = 0
        owner[source] = _mapped(pmap, source)


@kernel
def _unmark(v0, v1, levels):
    """Levels -2 (no in-edges, unreached) back to -1 for the vertices ``v0..v1``."""
    for v in range(U(v0), U(v1)):
        if levels[v] == -2:
            levels[v] = -1


def _vertex_ranges(n):
    """Ranges of the vertices for a pass over them all (fresh outputs are paged in by the
    threads that first write them, side by side)."""
    return split(n, get_num_threads() if n >= PARALLEL_PULL_VERTICES else 1)


@kernel
def _claim(ids, values, with_values, levels, owner, level, queue, qhi, bits, queued, indptr,
           tindptr, stats):
    """Vertices ``ids`` found elsewhere at ``level``: the unvisited ones join it (level,
    value, the frontier queue from ``qhi`` or the frontier bitmap); ``stats`` += their
    degree sums; returns how many joined."""
    joined = 0
    for k in range(ids.size):
        v = ids[k]
        if levels[v] >= 0:
            continue
        levels[v] = level
        if with_values:
            owner[v] = values[k]
        if queued:
            queue[qhi + joined] = v
        else:
            bits[v >> 6] |= _ONE << np.uint64(v & 63)
        joined += 1
        stats[0] += indptr[v + 1] - indptr[v]
        stats[1] += tindptr[v + 1] - tindptr[v]
    return joined


@kernel
def _push_remote(indptr, indices, queue, qlo, qhi, out):
    """Set in ``out`` (uint32 words) the bit of each column the frontier's rows reach."""
    for i in range(qlo, qhi):
        u = queue[i]
        for k in range(indptr[u], indptr[u + 1]):
            t = indices[k]
            out[t >> 5] |= np.uint32(1) << np.uint32(t & 31)


# ----------------------------------------------------------------------------- workspace
class Workspace:
    """Reusable buffers of a search on ``n`` vertices: the frontier queue, two frontier
    bitmaps, the claim owners (when parents are not kept) and the threads' claim lists.

    Examples
    --------
    >>> import numpy as np
    >>> Workspace(100, np.dtype(np.int32)).bits[0].size
    2
    """

    def __init__(self, n: int, idt):
        self.n, self.idt = n, np.dtype(idt)
        words = (n + 63) // 64
        self.queue = np.empty(max(n, 1), self.idt)
        self.bits = [np.zeros(words, np.uint64), np.zeros(words, np.uint64)]
        self.owner = np.empty(n, self.idt)
        self.parts = np.empty((0, 0), self.idt)

    def claim_lists(self, threads: int):
        """``threads`` lists of up to ``n`` claimed vertices each."""
        if self.parts.shape[0] < threads:
            self.parts = np.empty((threads, max(self.n, 1)), self.idt)
        return self.parts


#: The pool every CPU search checks its workspace out of.
workspaces = KeptPool(lambda n, idt: Workspace(n, idt))


# ----------------------------------------------------------------------------- the search
class CpuBitmapSearch(LevelSearch):
    """:class:`~spbfs.semiring.LevelSearch` on the CPU with the compiled kernels.

    Made by :func:`spbfs.semiring.level_search` for numpy input (see :func:`supports`).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs import semiring
    >>> A = sp.csr_array(np.eye(4, k=1))
    >>> with semiring.level_search(A, 0, semiring.any_pair) as s:
    ...     s.advance(False, 2)
    ...     type(s).__name__, s.sizes(), s.levels.tolist()
    ('CpuBitmapSearch', [(1, 1, 0), (1, 1, 1), (1, 1, 1)], [0, 1, 2, -1])
    """

    def __init__(self, M, source: int, values: bool, transpose: bool, parent_ids=None):
        n, idt = M.n, M.indices.dtype
        T = M.T if transpose and not M.symmetric else M
        self.indptr, self.indices = M.indptr, M.indices
        # in-degrees count the unexplored edges; a push-only search on a directed graph
        # counts out-degrees instead (the count only steers "auto")
        self.tindptr, self.tindices = T.indptr, T.indices
        self.n, self.edges = n, int(M.nnz)
        self.ws = workspaces.checkout(n, np.dtype(idt))
        self._levels = np.empty(n, idt)
        self.parents = np.empty(n, idt) if values else None
        owner = self.parents if values else self.ws.owner
        self.owner = owner
        self.pmap = _IDENTITY if parent_ids is None else np.asarray(parent_ids, np.int64)
        run_kernel(_start, _vertex_ranges(n), self._levels, owner, values, self.tindptr)
        _start_source(self._levels, owner, self.pmap, source)
        self._marked = True
        self.level = 0
        self.qlo, self.qhi = 0, 0
        self.cur = 0  # the bitmap holding the frontier when it is not queued
        self.queued = True
        if source >= 0:
            self.ws.queue[0] = source
            self.qhi = 1
            self._pending = [(1, int(self.indptr[source + 1] - self.indptr[source]),
                              int(self.tindptr[source + 1] - self.tindptr[source]))]
        else:
            self._pending = [(0, 0, 0)]
        self.frontier = self._pending[0][0]
        self.frontier_edges = self._pending[0][1]
        self._stats = np.zeros(2, np.int64)

    @property
    def levels(self):
        """Hop count of every vertex found so far, ``-1`` elsewhere."""
        if self._marked:
            run_kernel(_unmark, _vertex_ranges(self._levels.size), self._levels)
            self._marked = False
        return self._levels

    def close(self) -> None:
        if self.ws is not None:
            ws, self.ws = self.ws, None
            workspaces.give_back(ws, ws.n, ws.idt)

    def sizes(self) -> list:
        out, self._pending = self._pending, []
        return out

    def advance(self, pulling: bool, count: int = 1) -> None:
        if pulling and count != 1:
            raise ValueError("a pull advances one level")
        for _ in range(count):
            self.level += 1
            if self.frontier == 0:
                self._pending.append((0, 0, 0))
                continue
            self._stats[:] = 0
            found = self._pull() if pulling else self._push()
            self.frontier = found
            self.frontier_edges = int(self._stats[0])
            self._pending.append((found, int(self._stats[0]), int(self._stats[1])))

    # -- the hooks of a distributed search (spbfs.dist; see LevelSearch)
    def claim_mapped(self, words, ids) -> None:
        found = mapped_ids(words, ids).astype(self._levels.dtype)
        self._claim(found, np.full(found.size, -1, found.dtype) if self.parents is not None
                    else None)

    def remote_parents(self, R, column_levels, column_ids) -> None:
        remote_parents(R.indptr, R.indices, self.levels, self.parents, column_levels,
                       column_ids)

    def _claim(self, ids, values=None) -> None:
        ids = np.asarray(ids)
        self._stats[:] = 0
        joined = _claim(ids, ids if values is None else np.asarray(values), values is not None,
                        self._levels, self.owner, self._levels.dtype.type(self.level),
                        self.ws.queue, self.qhi, self.ws.bits[self.cur], self.queued,
                        self.indptr, self.tindptr, self._stats)
        if self.queued:
            self.qhi += joined
        nf, mf, mu = self._pending[-1] if self._pending else (0, 0, 0)
        entry = (nf + joined, mf + int(self._stats[0]), mu + int(self._stats[1]))
        if self._pending:
            self._pending[-1] = entry
        else:
            self._pending.append(entry)
        self.frontier += joined
        self.frontier_edges += int(self._stats[0])

    def visited_words(self, word0: int, count: int):
        bits = self._levels[32 * word0: 32 * (word0 + count)] >= 0
        return np.packbits(bits, bitorder="little").view(np.uint32)

    def claim_words(self, word0: int, words) -> None:
        bits = np.unpackbits(np.asarray(words).view(np.uint8), bitorder="little").view(bool)
        self._claim(np.flatnonzero(bits).astype(self._levels.dtype) + 32 * word0)

    def push_out(self, R, out) -> None:
        self._queue_frontier()
        out[:] = 0
        _push_remote(R.indptr, R.indices, self.ws.queue, self.qlo, self.qhi, out)

    def _queue_frontier(self) -> None:
        if self.queued:
            return
        bits, queue = self.ws.bits[self.cur], self.ws.queue
        ranges = split(bits.size, get_num_threads() if self.frontier >= PARALLEL_QUEUE else 1)
        if len(ranges) > 1:  # each range's count, then its ids after the earlier ranges'
            counts = run_kernel(_count_bits, ranges, bits)
            starts = np.cumsum([0, *counts[:-1]]).tolist()
            run_kernel(_bits_to_queue,
                       [(w0, w1, at) for (w0, w1), at in zip(ranges, starts, strict=True)],
                       bits, queue)
            end = sum(counts)
        else:
            end = _bits_to_queue(0, bits.size, 0, bits, queue)
        self.qlo, self.qhi = 0, int(end)
        self.queued = True

    def _push(self) -> int:
        ws = self.ws
        self._queue_frontier()
        qlo, qhi, level = self.qlo, self.qhi, self._levels.dtype.type(self.level)
        threads = get_num_threads() if self.frontier_edges >= PARALLEL_PUSH_EDGES else 1
        if threads < 2 or qhi - qlo < threads:
            # the next queue follows the current one in the same array (each vertex once)
            found = _push(self.indptr, self.indices, self.tindptr, ws.queue, qlo, qhi,
                          ws.queue[qhi:], self._levels, self.owner, self.pmap, level,
                          self._stats)
        else:
            # chunks small enough that a thread meeting hubs takes fewer of them
            chunk = min(PUSH_CHUNK, max(1, (qhi - qlo) // (PUSH_CHUNKS_A_THREAD * threads)))
            counter = np.zeros(1, np.int64)
            parts = ws.claim_lists(threads)
            stats = np.zeros((threads, 2), np.int64)
            counts = run_kernel(_push_part, [(t,) for t in range(threads)], counter, chunk,
                                self.indptr, self.indices, self.tindptr, ws.queue, qlo, qhi,
                                parts, self._levels, self.owner, self.pmap, level, stats)
            # then each thread's claims after the earlier threads' in the next queue
            starts = (qhi + np.cumsum([0, *counts[:-1]])).tolist()
            if sum(counts) >= PARALLEL_QUEUE:
                run_kernel(_copy, [(t, c, at) for t, (c, at) in enumerate(
                    zip(counts, starts, strict=True))], parts, ws.queue)
            else:  # a few copies on this thread cost less than a parallel call
                for t, (c, at) in enumerate(zip(counts, starts, strict=True)):
                    ws.queue[at:at + c] = parts[t, :c]
            self._stats += stats.sum(axis=0)
            found = sum(counts)
        self.qlo, self.qhi = qhi, qhi + found
        return found

    def _pull(self) -> int:
        ws = self.ws
        if self.queued:
            _queue_to_bits(ws.queue, self.qlo, self.qhi, ws.bits[self.cur])
            self.queued = False
        front, nxt = ws.bits[self.cur], ws.bits[1 - self.cur]
        level = self._levels.dtype.type(self.level)
        threads = get_num_threads() if self.n >= PARALLEL_PULL_VERTICES else 1
        counter = np.zeros(1, np.int64)
        stats = np.zeros((threads, 2), np.int64)
        found = run_kernel(_pull, [(t,) for t in range(threads)], counter, front.size,
                           self.tindptr, self.tindices, self.indptr, self._levels, self.owner,
                           self.pmap, level, front, nxt, stats)
        self._stats += stats.sum(axis=0)
        self.cur = 1 - self.cur
        return int(sum(found))


def bitmap_search(M, source, semiring, values, transpose, parent_ids=None, levels=True):
    """The compiled level search where it computes this semiring (:func:`supports`), else
    None.  It keeps the levels whatever ``levels`` says: they are its visited set.

    Examples
    --------
    >>> from spbfs import semiring
    >>> bitmap_search(None, 0, semiring.min_plus, False, True) is None
    True
    """
    if not supports(semiring, values):
        return None
    return CpuBitmapSearch(M, source, values, transpose, parent_ids)
