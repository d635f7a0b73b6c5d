"""The CPU's Cuthill-McKee order: breadth-first levels with each vertex's new neighbours
sorted by degree, in a kernel (the order within a level depends on the order of the level
before: sequential by nature).

The order is scipy's (``scipy.sparse.csgraph.reverse_cuthill_mckee`` before its final
reversal): components are started from the unvisited vertex first in ``seeds`` (the
vertices by increasing degree); the queue takes each vertex's unvisited neighbours in row
order, then sorts that group by degree, keeping ties in row order.
"""

from __future__ import annotations

import numpy as np

from ._jit import kernel

__all__ = ["cuthill_mckee"]

#: Groups up to this size are sorted by insertion; larger ones by a merge sort.
_INSERTION = 32


@kernel
def _sort_group(order, lo, hi, degree):
    """Stable sort of ``order[lo:hi]`` by ``degree``."""
    if hi - lo <= _INSERTION:
        for k in range(lo + 1, hi):
            v = order[k]
            d = degree[v]
            j = k
            while j > lo and degree[order[j - 1]] > d:
                order[j] = order[j - 1]
                j -= 1
            order[j] = v
        return
    group = order[lo:hi].copy()
    keys = np.empty(hi - lo, degree.dtype)
    for k in range(hi - lo):
        keys[k] = degree[group[k]]
    perm = np.argsort(keys, kind="mergesort")
    for k in range(hi - lo):
        order[lo + k] = group[perm[k]]


@kernel
def cuthill_mckee(ip, ix, degree, seeds, order):
    """Fill ``order`` with the Cuthill-McKee order of the pattern (``ip``, ``ix``)."""
    n = order.size
    seen = np.zeros(n, np.bool_)
    count = 0
    for z in range(n):
        if count == n:
            break
        s = seeds[z]
        if seen[s]:
            continue
        seen[s] = True
        order[count] = s
        count += 1
        head = count - 1
        while head < count:
            i = order[head]
            head += 1
            first = count
            for p in range(ip[i], ip[i + 1]):
                j = ix[p]
                if not seen[j]:
                    seen[j] = True
                    order[count] = j
                    count += 1
            if count - first > 1:
                _sort_group(order, first, count, degree)
    return count
