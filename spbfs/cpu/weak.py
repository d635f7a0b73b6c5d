"""The CPU backend's weak components: Afforest (Sutton, Ben-Nun and Barak, 2018; GAP's
``cc``), a concurrent union-find over sampled arcs, where the generic path
(:func:`spbfs.algorithms.components.connected_components`) runs FastSV, a few products over
the symmetrised pattern.

Two rounds join each vertex with its first and its second stored neighbour, every thread
over its own vertices: first each vertex points at its first neighbour where that is
smaller (a store into its own entry, no atomic operation) and notes the two links left,
then those links (the first round's others and the second round's) join the two trees by
a compare-and-swap (:mod:`spbfs.cpu._atomic`), and every vertex is pointed at its root.
The largest tree so far is read from a sample of 1,024 vertices, and only the vertices
outside it read the rest of their arcs: on a symmetric pattern an arc between the largest
tree and another vertex is also stored the other way, where that vertex reads it; on a
pattern that is not symmetric every vertex reads the rest of its arcs.  A link always puts
a root under a smaller vertex, so a tree's root is always its smallest vertex; the roots,
counted per thread, are numbered in vertex order and every vertex takes its root's number
(scipy's numbering: components in the order of their smallest vertex), in place.  Arcs
are read as they are stored: an arc joins its ends whichever way it points, so no
symmetrised copy is made.  At Kronecker scale 18 on 2 threads this takes about as long
as GAP's ``cc`` (``benchmarks/bench_gap.py``), where one thread's union-find over every
arc took five times as long.
"""

from __future__ import annotations

import numpy as np

from ._atomic import cas, fetch_add
from ._jit import kernel
from .threads import get_num_threads, run_kernel, split

__all__ = ["weak_components"]

U = np.uintp  # vertex ids read as unsigned: numba's test for a negative index is skipped

#: Arcs sampled per vertex before the largest tree is skipped (GAP's ``neighbor_rounds``;
#: the two rounds are written out in :func:`_first_links` and :func:`_second_round`).
SAMPLE_ROUNDS = 2
#: Vertices whose root is read to find the largest tree (GAP's ``num_samples``).
SAMPLES = 1024
#: Vertices a thread takes at a time in the last pass (from a shared counter).
CHUNK = 256
#: Vertices a thread takes at a time in the second round's links.
SAMPLE_CHUNK = 2048
#: Below this many stored arcs one thread does it all (a pool's wake-ups cost more).
PARALLEL_ARCS = 1 << 16


@kernel
def tree_root(parent, v):
    """The root of ``v``'s tree, halving the path on the way."""
    while parent[v] != v:
        parent[v] = parent[parent[v]]
        v = parent[v]
    return v


@kernel
def _link(comp, u, v):
    """Join the trees of ``u`` and ``v`` (GAP's ``Link``): the larger root goes under the
    smaller vertex by a compare-and-swap, retried from the new roots when another thread
    moved it first."""
    p1 = comp[U(u)]
    p2 = comp[U(v)]
    while p1 != p2:
        high = max(p1, p2)
        low = min(p1, p2)
        p_high = comp[U(high)]
        if p_high == low:
            return
        if p_high == high and cas(comp, U(high), high, low):
            return
        p1 = comp[U(comp[U(high)])]
        p2 = comp[U(low)]


@kernel
def _first_links(lo, hi, ip, ix, comp, pairs):
    """Point every vertex ``u`` of ``lo..hi`` at its first stored neighbour where that is
    smaller, at itself elsewhere: the first round's links without an atomic operation
    (each thread writes its own vertices' entries alone).  The links left for
    :func:`_second_round` go to ``pairs[2 u]`` (the first neighbour where it is larger)
    and ``pairs[2 u + 1]`` (the second neighbour), ``-1`` for none: that round then reads
    two numbers a vertex in order instead of a line of the arcs at random."""
    for u in range(lo, hi):
        p = ip[u]
        e = ip[u + 1]
        root = u
        first = -1
        second = -1
        if p < e:  # selects, not branches: the first neighbour is smaller half the time
            v = ix[U(p)]
            smaller = v < u
            root = v if smaller else u
            first = -1 if smaller else v
            if p + 1 < e:
                second = ix[U(p + 1)]
        comp[U(u)] = root
        pairs[U(2 * u)] = first
        pairs[U(2 * u + 1)] = second
    return 0


@kernel
def _second_round(pairs, comp, counter, chunk):
    """The first round's other links and the second round's (``pairs``, from
    :func:`_first_links`), ``chunk`` vertices at a time from ``counter[0]`` (the links'
    cost varies along the vertices)."""
    n = comp.size
    while True:
        lo = fetch_add(counter, 0, chunk)
        if lo >= n:
            return 0
        for u in range(lo, min(lo + chunk, n)):
            v = pairs[U(2 * u)]
            if v >= 0:
                _link(comp, u, v)
            v = pairs[U(2 * u + 1)]
            if v >= 0:
                _link(comp, u, v)


@kernel
def _largest_tree(comp):
    """The root that most of :data:`SAMPLES` pseudo-random vertices have (fixed seed)."""
    n = comp.size
    roots = np.empty(SAMPLES, comp.dtype)
    state = np.uint64(0x9E3779B97F4A7C15)
    for s in range(SAMPLES):
        state ^= state << np.uint64(13)
        state ^= state >> np.uint64(7)
        state ^= state << np.uint64(17)
        v = np.int64(state % np.uint64(n))
        while comp[U(v)] != v:
            v = comp[U(v)]
        roots[s] = v
    roots.sort()
    best, count, run = roots[0], 0, 0
    for s in range(SAMPLES):
        run = run + 1 if s > 0 and roots[s] == roots[s - 1] else 1
        if run > count:
            count = run
            best = roots[s]
    return best


@kernel
def _root_of(comp, v):
    """Point ``v`` at its root (following its links), and return that root."""
    c = comp[U(v)]
    g = comp[U(c)]
    while c != g:
        comp[U(v)] = g
        c = g
        g = comp[U(c)]
    return c


@kernel
def _compress(lo, hi, comp):
    """Point every vertex of ``lo..hi`` at its root."""
    for v in range(lo, hi):
        _root_of(comp, v)
    return 0


@kernel
def _rest(ip, ix, comp, skip, counter, chunk):
    """Join every vertex whose root is not ``skip`` with its stored neighbours from the
    :data:`SAMPLE_ROUNDS`-th on, ``chunk`` vertices at a time from ``counter[0]``."""
    n = comp.size
    while True:
        lo = fetch_add(counter, 0, chunk)
        if lo >= n:
            return 0
        for u in range(lo, min(lo + chunk, n)):
            if comp[U(u)] == skip:
                continue
            for p in range(ip[u] + SAMPLE_ROUNDS, ip[u + 1]):
                _link(comp, u, ix[U(p)])


@kernel
def _count_roots(lo, hi, comp):
    """Point every vertex of ``lo..hi`` at its root; how many of them are roots."""
    k = 0
    for v in range(lo, hi):
        k += _root_of(comp, v) == v
    return k


@kernel
def _number_roots(lo, hi, first, comp):
    """Number the roots of ``lo..hi`` in vertex order from ``first``, stored as
    ``-1 - number`` (told apart from the other vertices' roots)."""
    k = first
    for v in range(lo, hi):  # selects, not branches: a third of the vertices are roots
        c = comp[U(v)]
        root = c == v
        comp[U(v)] = -1 - k if root else c
        k += root
    return 0


@kernel
def _number_rest(lo, hi, comp):
    """Every vertex of ``lo..hi`` gets its root's number: a root's entry holds ``-1 -
    number`` until its own thread rewrites it as the number (each entry changes once, so
    a reader tells the two apart by the sign).  Selects, not branches."""
    for v in range(lo, hi):
        c = comp[U(v)]
        y = comp[U(c if c >= 0 else v)]  # the root's entry (a root's own: c)
        comp[U(v)] = y if y >= 0 else -1 - y
    return 0


def weak_components(indptr, indices, symmetric=False):
    """``(number of components, labels)`` of the weak components of a CSR pattern (an
    arc ``A[u, v]`` joins ``u`` and ``v`` either way; ``symmetric``: every arc is stored
    both ways, so the largest component's vertices need not read theirs), numbered by their
    smallest vertex; labels int32 (None for graphs of ``2**31`` vertices or more: the
    generic path runs).

    Examples
    --------
    >>> import numpy as np
    >>> weak_components(np.array([0, 1, 1, 1, 2]), np.array([1, 2]))
    (2, array([0, 0, 1, 1], dtype=int32))
    """
    n = indptr.size - 1
    if n > np.iinfo(np.int32).max:
        return None
    comp = np.empty(n, np.int32)
    if n == 0:
        return 0, comp
    threads = get_num_threads() if int(indptr[-1]) >= PARALLEL_ARCS else 1
    ranges = split(n, threads)
    pairs = np.empty(2 * n, np.int32)
    workers = [()] * len(ranges)  # each takes chunks from a counter
    run_kernel(_first_links, ranges, indptr, indices, comp, pairs)
    run_kernel(_second_round, workers, pairs, comp, np.zeros(1, np.int64), SAMPLE_CHUNK)
    run_kernel(_compress, ranges, comp)
    skip = int(_largest_tree(comp)) if symmetric else -1
    run_kernel(_rest, workers, indptr, indices, comp, skip, np.zeros(1, np.int64), CHUNK)
    counts = run_kernel(_count_roots, ranges, comp)
    firsts = np.concatenate([[0], np.cumsum(counts)[:-1]]).tolist()
    run_kernel(_number_roots,
               [(lo, hi, f) for (lo, hi), f in zip(ranges, firsts, strict=True)], comp)
    run_kernel(_number_rest, ranges, comp)
    return int(sum(counts)), comp
