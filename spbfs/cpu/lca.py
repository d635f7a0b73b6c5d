"""NetworkX's lowest common ancestors of many pairs of a DAG's nodes, in one compiled pass.

NetworkX takes the first element of the Python set ``ancestors(v) & ancestors(w)`` (each
set holding the node itself) and walks down from it, each step to the first successor, in
adjacency order, that is a common ancestor, until none is.  Here the ancestors are rows of
bits by topological generation (a node's bit above its ancestors'), filled in that order:
a pair's common ancestors are an AND, its highest bit ``m`` a lowest common ancestor, and
where the AND holds exactly ``m``'s ancestors, ``m`` is the only one (every walk ends
there).  For the other pairs the Python sets are simulated (:mod:`spbfs.cpu.pysets`): a
node's set, once, from its breadth-first order over the predecessors (NetworkX's
``ancestors``), then its key added; the intersection, from the smaller set's order (the
second one's where the sizes are equal); its first slot is the walk's start.  Pairs
without a common source (the sources' bits come first) are left at the first words.
"""

from __future__ import annotations

import numpy as np

from ._bits import popcount
from ._jit import kernel
from .pysets import _fill, _final_size, _grown, _place

__all__ = ["Ancestors"]

_ONE = np.uint64(1)


@kernel(inline="always")
def _top_bit(x):  # pragma: no cover - compiled
    """The position of the highest set bit of ``x`` (not 0)."""
    b = 0
    for shift in (32, 16, 8, 4, 2, 1):
        if x >> np.uint64(shift):
            x >>= np.uint64(shift)
            b += shift
    return b


@kernel
def _source_reach(indptr, indices, by_rank, sources, words):  # pragma: no cover
    """The descendants (itself included) of each source (``by_rank[:sources]``) as a row
    of bits by node, filled in reverse topological order."""
    n = by_rank.size
    below = np.zeros((n, words), np.uint64)
    for r in range(n - 1, -1, -1):
        v = by_rank[r]
        row = below[v]
        for e in range(indptr[v], indptr[v + 1]):
            c = indices[e]
            for k in range(words):
                row[k] |= below[c, k]
        row[v >> 6] |= _ONE << np.uint64(v & 63)
    out = np.empty((sources, words), np.uint64)
    for r in range(sources):
        out[r] = below[by_rank[r]]
    return out


@kernel
def _meeting(v0, v1, bits, reach, by_rank, head):  # pragma: no cover - compiled
    """The pairs ``(v, w)``, ``v0 <= v < v1``, ``w >= v``, in that order, that have a
    common ancestor: ``w`` below one of ``v``'s sources (its bits among the first
    ``head`` words)."""
    n = bits.shape[0]
    words = reach.shape[1]
    sources = reach.shape[0]
    total = 0
    for v in range(v0, v1):
        total += n - v
    out_v = np.empty(total, np.int64)
    out_w = np.empty(total, np.int64)
    meet = np.empty(words, np.uint64)
    found = 0
    for v in range(v0, v1):
        meet[:] = 0
        for k in range(head):
            x = bits[v, k]
            while x:
                low = x & (~x + _ONE)
                r = k * 64 + _top_bit(low)
                x ^= low
                if r < sources:
                    for j in range(words):
                        meet[j] |= reach[r, j]
        for k in range(v >> 6, words):
            x = meet[k]
            if k == v >> 6:
                x &= ~((_ONE << np.uint64(v & 63)) - _ONE)
            while x:
                low = x & (~x + _ONE)
                out_v[found] = v
                out_w[found] = k * 64 + _top_bit(low)
                found += 1
                x ^= low
    return out_v[:found], out_w[:found]


@kernel
def _bit_rows(rindptr, rindices, by_rank, rank, words):  # pragma: no cover - compiled
    """Each node's ancestors (itself included) as a row of bits, bit ``rank[x]`` for
    ``x``, filled in topological order (a node's predecessors before it)."""
    n = by_rank.size
    bits = np.zeros((n, words), np.uint64)
    counts = np.zeros(n, np.int64)
    for r in range(n):
        v = by_rank[r]
        row = bits[v]
        for e in range(rindptr[v], rindptr[v + 1]):
            p = rindices[e]
            for k in range(words):
                row[k] |= bits[p, k]
        row[r >> 6] |= _ONE << np.uint64(r & 63)
        c = 0
        for k in range(words):
            c += np.int64(popcount(row[k]))
        counts[v] = c
    return bits, counts


@kernel
def _set_order(v, rindptr, rindices, hashes, seen, queue, keys, hs, out):
    # pragma: no cover - compiled
    """The iteration order of NetworkX's ``ancestors(v)`` with ``v`` added, into ``out``:
    the set given the breadth-first order over the predecessors, then ``v``."""
    stamp = v + 1
    queue[0] = v
    seen[v] = stamp
    head, tail = 0, 1
    while head < tail:
        x = queue[head]
        head += 1
        for e in range(rindptr[x], rindptr[x + 1]):
            y = rindices[e]
            if seen[y] != stamp:
                seen[y] = stamp
                queue[tail] = y
                tail += 1
    adds = np.empty(tail, np.int32)
    for a in range(tail - 1):  # element by element: no slice's shape check compiled
        adds[a] = queue[a + 1]
    adds[tail - 1] = v
    keys[0, :8] = -1
    which, size, _ = _fill(keys, hs, 0, 8, 0, hashes[adds], adds)
    k = 0
    for s in range(size):
        if keys[which, s] >= 0:
            out[k] = keys[which, s]
            k += 1
    return k


@kernel(inline="always")
def _first_key(sel, k, hashes, keys, hs):  # pragma: no cover - compiled
    """The first key of a set made empty, then given the keys ``sel[:k]`` in order: its
    first occupied slot (its tables in the two halves of ``keys``, ``hs`` by turns)."""
    half = keys.size // 2
    size, used, at = 8, 0, 0
    for s in range(8):
        keys[s] = -1
    for i in range(k):
        e = sel[i]
        _place(keys, hs, at, size, hashes[e], e)
        used += 1
        if used * 5 >= (size - 1) * 3:
            new = _grown(used)
            to = half - at
            for s in range(to, to + new):
                keys[s] = -1
            for s in range(at, at + size):
                if keys[s] >= 0:
                    _place(keys, hs, to, new, hs[s], keys[s])
            at, size = to, new
    for s in range(at, at + size):
        if keys[s] >= 0:
            return keys[s]
    return -1


@kernel
def _pairs(pairs_v, pairs_w, indptr, indices, rindptr, rindices, hashes, bits, counts,
           rank, by_rank, head, pool, offset, seen, queue, keys, hs, rkeys,
           rhs):  # pragma: no cover - compiled
    """NetworkX's lowest common ancestor of each pair ``(pairs_v[i], pairs_w[i])``, -1
    where none; and the pool of set orders, maybe grown."""
    n = by_rank.size
    words = bits.shape[1]
    total = pairs_v.size
    out = np.full(total, -1, np.int64)
    common = np.empty(words, np.uint64)
    sel = np.empty(n, np.int32)
    for step in range(total):
        v = pairs_v[step]
        w = pairs_w[step]
        meet = False
        for k in range(head):
            if bits[v, k] & bits[w, k]:
                meet = True
                break
        if not meet:
            continue
        top = -1
        held = 0
        for k in range(words):
            x = bits[v, k] & bits[w, k]
            common[k] = x
            if x:
                top = k
                held += np.int64(popcount(x))
        if top < 0:
            continue
        m = by_rank[top * 64 + _top_bit(common[top])]
        if held != counts[m]:  # several lowest: NetworkX's start, then its walk
            through = v if counts[w] > counts[v] else w
            if offset[through] < 0:
                c = counts[through]
                used = offset[n]
                if used + c > pool.size:
                    grown = np.empty(max(2 * pool.size, used + c), np.int32)
                    for a in range(used):
                        grown[a] = pool[a]
                    pool = grown
                _set_order(through, rindptr, rindices, hashes, seen, queue, keys, hs,
                           pool[used:used + c])
                offset[through] = used
                offset[n] = used + c
            k = 0
            for e in range(offset[through], offset[through] + counts[through]):
                x = pool[e]
                r = rank[x]
                sel[k] = x  # (kept where its bit is set: no branch)
                k += np.int64((common[r >> 6] >> np.uint64(r & 63)) & _ONE)
            cur = _first_key(sel, k, hashes, rkeys, rhs)
            while True:
                nxt = -1
                for e in range(indptr[cur], indptr[cur + 1]):
                    y = indices[e]
                    r = rank[y]
                    if (common[r >> 6] >> np.uint64(r & 63)) & _ONE:
                        nxt = y
                        break
                if nxt < 0:
                    break
                cur = nxt
            m = cur
        out[step] = m
    return out, pool


@kernel
def _range_lcas(v0, v1, reach, indptr, indices, rindptr, rindices, hashes, bits, counts,
                rank, by_rank, head, pool, offset, seen, queue, keys, hs, rkeys,
                rhs):  # pragma: no cover - compiled
    """:func:`_meeting` then :func:`_pairs`, in one call (the GIL released throughout)."""
    v, w = _meeting(v0, v1, bits, reach, by_rank, head)
    lca, pool = _pairs(v, w, indptr, indices, rindptr, rindices, hashes, bits, counts,
                       rank, by_rank, head, pool, offset, seen, queue, keys, hs, rkeys, rhs)
    return v, w, lca, pool


class Ancestors:
    """Every node's ancestors of a DAG as rows of bits, and the simulated Python sets of
    those nodes whose sets a pair needs (made on first use), for :meth:`lcas`.

    Parameters
    ----------
    indptr, indices : numpy.ndarray
        The successors of each node, in adjacency order.
    rindptr, rindices : numpy.ndarray
        The predecessors of each node, in NetworkX's predecessor order.
    generation : numpy.ndarray
        Each node's topological generation.
    hashes : numpy.ndarray
        ``hash`` of each node's label (int64 or uint64).

    Examples
    --------
    >>> import numpy as np
    >>> # 0 -> 1, 0 -> 2, 1 -> 3, 2 -> 3
    >>> anc = Ancestors(np.array([0, 2, 3, 4, 4]), np.array([1, 2, 3, 3]),
    ...                 np.array([0, 0, 1, 2, 4]), np.array([0, 0, 1, 2]),
    ...                 np.array([0, 1, 1, 2]), np.arange(4))
    >>> v, w, lca = anc.lcas(0, 4)
    >>> [(int(a), int(b), int(c)) for a, b, c in zip(v, w, lca) if a != b]
    [(0, 1, 0), (0, 2, 0), (0, 3, 0), (1, 2, 0), (1, 3, 1), (2, 3, 2)]
    """

    def __init__(self, indptr, indices, rindptr, rindices, generation, hashes):
        n = generation.size
        self.indptr = np.ascontiguousarray(indptr, dtype=np.int64)
        self.indices = np.ascontiguousarray(indices, dtype=np.int64)
        self.rindptr = np.ascontiguousarray(rindptr, dtype=np.int64)
        self.rindices = np.ascontiguousarray(rindices, dtype=np.int64)
        self.hashes = np.ascontiguousarray(hashes).view(np.uint64)
        self.by_rank = np.argsort(generation, kind="stable").astype(np.int64)
        self.rank = np.empty(n, np.int64)
        self.rank[self.by_rank] = np.arange(n)
        self.bits, self.counts = _bit_rows(self.rindptr, self.rindices, self.by_rank,
                                           self.rank, (n + 63) // 64)
        sources = int(np.count_nonzero(generation == 0))
        # the sources' words: a common ancestor means a common source
        self.head = (sources + 63) // 64
        self.reach = _source_reach(self.indptr, self.indices, self.by_rank, sources,
                                   (n + 63) // 64)
        self.pool = np.empty(max(n, 1024), np.int32)
        self.offset = np.full(n + 1, -1, np.int64)
        self.offset[n] = 0
        self.seen = np.zeros(n, np.int64)
        self.queue = np.empty(n, np.int64)
        top = _final_size(n)
        self.keys, self.hs = np.empty((2, top), np.int32), np.empty((2, top), np.uint64)
        self.rkeys, self.rhs = np.empty(2 * top, np.int32), np.empty(2 * top, np.uint64)

    def lcas(self, v0, v1):
        """The pairs ``(v, w)`` of ``combinations_with_replacement`` with ``v0 <= v < v1``
        that have a common ancestor, in that order, and NetworkX's lowest common ancestor
        of each: three int64 arrays (one compiled call, without the GIL)."""
        v, w, lca, self.pool = _range_lcas(
            v0, v1, self.reach, self.indptr, self.indices, self.rindptr, self.rindices,
            self.hashes, self.bits, self.counts, self.rank, self.by_rank, self.head,
            self.pool, self.offset, self.seen, self.queue, self.keys, self.hs, self.rkeys,
            self.rhs)
        return v, w, lca

    def pair_lcas(self, v, w):
        """NetworkX's lowest common ancestor of each pair ``(v[i], w[i])``, -1 where none."""
        v = np.ascontiguousarray(v, dtype=np.int64)
        w = np.ascontiguousarray(w, dtype=np.int64)
        lca, self.pool = _pairs(
            v, w, self.indptr, self.indices, self.rindptr, self.rindices, self.hashes,
            self.bits, self.counts, self.rank, self.by_rank, self.head, self.pool,
            self.offset, self.seen, self.queue, self.keys, self.hs, self.rkeys, self.rhs)
        return lca
