"""NetworkX's Dijkstra from every source in one compiled call: its pop order and parents.

NetworkX's ``_dijkstra_multisource`` pops ``(distance, push count)`` pairs from a heap: among
equal distances the vertex pushed first (by the count of pushes so far, a vertex pushed again
when its distance improves) comes first.  :func:`dijkstra_parents` runs that search from
each source with an indexed binary heap keyed the same way (a decrease-key takes the new
push count, where NetworkX pushes a new entry and skips the stale one: the same pops), then
gives each vertex the tight in-neighbour popped first (``dist[v] + w == dist[u]``), the
sources and loops excepted: the parents of :func:`spbfs.nx._shortest.dijkstra_search`,
found for all sources at once instead of one search and its array rounds per source, the
sources split over the threads.
"""

from __future__ import annotations

import numpy as np

from ._jit import kernel
from .threads import get_num_threads, run_kernel, split

__all__ = ["dijkstra_parents"]

#: Entries read (sources times stored entries) from which the sources' searches are split
#: over the threads.
PARALLEL_WORK = 1 << 16


@kernel(inline="always")
def _less(hd, hc, i, j):  # pragma: no cover - compiled
    return hd[i] < hd[j] or (hd[i] == hd[j] and hc[i] < hc[j])


@kernel(inline="always")
def _swap(hd, hc, hv, pos, i, j):  # pragma: no cover - compiled
    hd[i], hd[j] = hd[j], hd[i]
    hc[i], hc[j] = hc[j], hc[i]
    hv[i], hv[j] = hv[j], hv[i]
    pos[hv[i]] = i
    pos[hv[j]] = j


@kernel(inline="always")
def _up(hd, hc, hv, pos, i):  # pragma: no cover - compiled
    while i > 0:
        p = (i - 1) >> 1
        if not _less(hd, hc, i, p):
            break
        _swap(hd, hc, hv, pos, i, p)
        i = p


@kernel(inline="always")
def _down(hd, hc, hv, pos, size, i):  # pragma: no cover - compiled
    while True:
        c = 2 * i + 1
        if c >= size:
            break
        if c + 1 < size and _less(hd, hc, c + 1, c):
            c += 1
        if not _less(hd, hc, c, i):
            break
        _swap(hd, hc, hv, pos, i, c)
        i = c


@kernel
def _all_parents(lo, hi, indptr, indices, w, sources, parent,
                 dist_out):  # pragma: no cover - compiled
    """The searches from ``sources[lo:hi]``, each into its row of ``parent`` (and of
    ``dist_out`` where that has rows), with scratch arrays of the call's own."""
    n = indptr.size - 1
    dist = np.empty(n, np.float64)
    state = np.zeros(n, np.int8)  # 0 unseen, 1 in the heap, 2 popped
    pos = np.empty(n, np.int64)
    hd = np.empty(n, np.float64)
    hc = np.empty(n, np.int64)
    hv = np.empty(n, np.int64)
    order = np.empty(n, np.int64)
    for k in range(lo, hi):
        s = sources[k]
        for x in range(n):
            state[x] = 0
            dist[x] = np.inf
        dist[s] = 0.0
        hd[0] = 0.0
        hc[0] = 0
        hv[0] = s
        pos[s] = 0
        state[s] = 1
        size = 1
        count = 1
        popped = 0
        while size > 0:
            v = hv[0]
            size -= 1
            if size > 0:
                _swap(hd, hc, hv, pos, 0, size)
                _down(hd, hc, hv, pos, size, 0)
            state[v] = 2
            order[popped] = v
            popped += 1
            dv = dist[v]
            for e in range(indptr[v], indptr[v + 1]):
                u = indices[e]
                if state[u] == 2:
                    continue
                d = dv + w[e]
                if state[u] == 0:
                    dist[u] = d
                    state[u] = 1
                    hd[size] = d
                    hc[size] = count
                    hv[size] = u
                    pos[u] = size
                    size += 1
                    _up(hd, hc, hv, pos, size - 1)
                    count += 1
                elif d < dist[u]:
                    dist[u] = d
                    i = pos[u]
                    hd[i] = d
                    hc[i] = count
                    _up(hd, hc, hv, pos, i)
                    count += 1
        row = parent[k]
        for x in range(n):
            row[x] = -1
        for r in range(popped):
            v = order[r]
            dv = dist[v]
            for e in range(indptr[v], indptr[v + 1]):
                u = indices[e]
                if u != v and u != s and row[u] < 0 and dv + w[e] == dist[u]:
                    row[u] = v
        if dist_out.shape[0] > 0:
            for x in range(n):
                dist_out[k, x] = dist[x]


def dijkstra_parents(indptr, indices, weights, sources, distances=False):
    """For each source, NetworkX's Dijkstra from it and each vertex's parent: the tight
    in-neighbour (``dist[v] + w == dist[u]``) that the search popped first, -1 for the
    source, unreached vertices and vertices whose only tight arcs are loops.

    Parameters
    ----------
    indptr, indices : numpy.ndarray
        CSR rows in NetworkX's adjacency order (any integer dtypes).
    weights : numpy.ndarray
        float64 non-negative weight of each stored entry.
    sources : numpy.ndarray
        int64 sources.
    distances : bool
        Also return the distances (``inf`` unreached).

    Returns
    -------
    parent : numpy.ndarray
        int64, one row per source.
    dist : numpy.ndarray
        float64, one row per source (with ``distances``).

    Examples
    --------
    >>> import numpy as np
    >>> indptr, indices = np.array([0, 2, 3, 4, 4]), np.array([2, 1, 3, 3])
    >>> dijkstra_parents(indptr, indices, np.ones(4), np.array([0, 1])).tolist()
    [[-1, 0, 0, 2], [-1, -1, -1, 1]]
    """
    sources = np.ascontiguousarray(sources, dtype=np.int64)
    n = len(indptr) - 1
    parent = np.empty((sources.size, n), np.int64)
    dist = np.empty((sources.size if distances else 0, n), np.float64)
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    indptr, indices = np.ascontiguousarray(indptr), np.ascontiguousarray(indices)
    # the sources split over the threads, from PARALLEL_WORK entries read in all
    threads = get_num_threads() if sources.size * indices.size >= PARALLEL_WORK else 1
    run_kernel(_all_parents, split(sources.size, threads), indptr, indices, weights, sources,
               parent, dist)
    return (parent, dist) if distances else parent
