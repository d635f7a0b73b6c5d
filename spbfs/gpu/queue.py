"""The GPU backend's queue searches (:func:`spbfs.semiring.queue_order` and its levels):
three kernels a level (``queue_kernels.cu``), where the generic path runs a masked
``min_plus`` product and two sorts a level.

The frontier's arcs are numbered in the queue's order through the prefix sum of its
degrees; each vertex not seen yet keeps the lowest number of an arc into it (one
``atomicMin``), the arcs holding those numbers are listed in ascending order (a stream
compaction), and their targets are the next level in the queue's order, with the frontier
vertex of each as its parent.
"""

from __future__ import annotations

import numpy as np

from . import kernels

__all__ = ["queue_levels", "queue_order"]

_THREADS = 256


def _search(indptr, indices, sources, order, found_by):
    """Fill ``order`` (from ``sources`` on) and ``found_by`` (the parent of each vertex of
    ``order``) level by level, yielding each level's end in ``order``."""
    import cupy

    n = int(indptr.size) - 1
    mod = kernels.queue_module(indices.dtype, indptr.dtype)
    claim, first, take = (mod.get_function(k) for k in ("queue_claim", "queue_first",
                                                         "queue_take"))
    end = int(sources.size)
    order[:end] = sources
    seen = cupy.zeros(n, bool)
    seen[sources] = True
    key = cupy.full(n, np.iinfo(np.uint64).max, np.uint64)
    start = 0   # the frontier: order[start:end]
    while end > start:
        q = order[start:end]
        offs, total = kernels.edge_offsets(indptr, q)
        if total == 0:
            return
        nq = np.int64(end - start)
        grid = (kernels.blocks(total, threads=_THREADS),)
        claim(grid, (_THREADS,), (indptr, indices, q, offs, nq, seen, key))
        is_first = cupy.empty(total, bool)
        first(grid, (_THREADS,), (indptr, indices, q, offs, nq, seen, key, is_first))
        arcs = cupy.flatnonzero(is_first)
        count = int(arcs.size)
        if not count:
            return
        take((kernels.blocks(count, threads=_THREADS),), (_THREADS,),
             (indptr, indices, q, offs, nq, arcs, np.int64(count), order[end:],
              found_by[end:], seen, key))
        start, end = end, end + count
        yield end


def queue_levels(indptr, indices, sources):
    """Yield ``(children, parents)`` (int64 cupy arrays) per level of the queue search from
    the queue ``sources`` (distinct vertices, int64 cupy), as
    :func:`spbfs.semiring._queue.levels_in_queue_order`.

    Examples
    --------
    >>> import cupy                                                          # doctest: +SKIP
    >>> levels = queue_levels(cupy.array([0, 2, 3, 3]), cupy.array([2, 1, 2]),
    ...                       cupy.array([0]))                               # doctest: +SKIP
    >>> [(c.tolist(), p.tolist()) for c, p in levels]                        # doctest: +SKIP
    [([2, 1], [0, 0])]
    """
    import cupy

    n = int(indptr.size) - 1
    order, found_by = cupy.empty(n, np.int64), cupy.empty(n, np.int64)
    start = int(sources.size)
    for end in _search(indptr, indices, sources, order, found_by):
        yield order[start:end], found_by[start:end]
        start = end


def queue_order(indptr, indices, source, parents):
    """The order of :func:`spbfs.semiring.queue_order` on CSR cupy arrays; ``parents``
    (every entry the same negative null) is filled in place.

    Examples
    --------
    >>> import cupy                                                          # doctest: +SKIP
    >>> parents = cupy.full(3, -1)                                           # doctest: +SKIP
    >>> queue_order(cupy.array([0, 2, 3, 3]), cupy.array([2, 1, 2]), 0, parents).tolist()
    ... # doctest: +SKIP
    [0, 2, 1]
    >>> parents.tolist()                                                     # doctest: +SKIP
    [-1, 0, 0]
    """
    import cupy

    n = int(parents.size)
    order, found_by = cupy.empty(n, np.int64), cupy.empty(n, np.int64)
    end = max(_search(indptr, indices, cupy.full(1, source, np.int64), order, found_by),
              default=1)   # the levels' ends grow
    parents[order[1:end]] = found_by[1:end]
    return order[:end]
