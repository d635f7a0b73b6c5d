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
from .runsort import RADIX_BITS, sort_run

__all__ = ["cuthill_mckee", "degrees", "symmetric_pattern"]


@kernel
def cuthill_mckee(ip, ix, degree, seeds, order):
    """Fill ``order`` with the Cuthill-McKee order of the pattern (``ip``, ``ix``)."""
    n = order.size
    seen = np.zeros(n, np.bool_)
    count = 0
    # each group (a row's new neighbours: at most its longest row) sorted stably by degree,
    # the degrees as keys moved with it
    longest = 0
    for i in range(n):
        longest = max(longest, ip[i + 1] - ip[i])
    keys = np.empty(longest, degree.dtype)
    spare = np.empty(longest, degree.dtype)
    spare_order = np.empty(longest, order.dtype)
    counts = np.empty((1 << RADIX_BITS) + 1, np.int64)
    bound = degree.max() + 1 if n else 1
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
                size = count - first
                for k in range(size):
                    keys[k] = degree[order[first + k]]
                sort_run(keys, order[first:count], 0, size, bound, spare, spare_order, counts)
    return count


@kernel
def symmetric_pattern(ip, ix, data, positive):
    """The pattern of ``A + A.T`` for a canonical CSR ``A`` (sorted rows, no duplicates):
    ``(indptr, indices, degree)`` (rows sorted; ``degree`` as :func:`degrees`), an entry
    kept where the sum is non-zero (as scipy's sum drops cancelled and explicit zeros;
    ``positive``: every value is, so no sum cancels and A.T's values are not needed).
    A.T by a counting sort, then each row of A merged with the same row of A.T."""
    n = ip.size - 1
    nnz = ix.size
    tip = np.zeros(n + 1, ip.dtype)
    for e in range(nnz):
        tip[ix[e] + 1] += 1
    for v in range(n):
        tip[v + 1] += tip[v]
    nxt = tip[:-1].copy()
    tix = np.empty(nnz, ix.dtype)
    tdata = np.empty(0 if positive else nnz, data.dtype)
    for u in range(n):
        for e in range(ip[u], ip[u + 1]):
            q = nxt[ix[e]]
            nxt[ix[e]] = q + 1
            tix[q] = u
            if not positive:
                tdata[q] = data[e]
    out_ip = np.empty(n + 1, np.int64)
    out_ix = np.empty(2 * nnz, ix.dtype)
    degree = np.empty(n, np.int64)
    r = 0
    out_ip[0] = 0
    for i in range(n):
        a, a_end = ip[i], ip[i + 1]
        b, b_end = tip[i], tip[i + 1]
        diagonal = 0
        if positive:
            while a < a_end or b < b_end:
                if b == b_end or (a < a_end and ix[a] < tix[b]):
                    j = ix[a]
                    a += 1
                elif a == a_end or tix[b] < ix[a]:
                    j = tix[b]
                    b += 1
                else:
                    j = ix[a]
                    a += 1
                    b += 1
                out_ix[r] = j
                r += 1
                if j == i:
                    diagonal = 1
        else:
            while a < a_end or b < b_end:
                if b == b_end or (a < a_end and ix[a] < tix[b]):
                    j = ix[a]
                    value = data[a]
                    a += 1
                elif a == a_end or tix[b] < ix[a]:
                    j = tix[b]
                    value = tdata[b]
                    b += 1
                else:
                    j = ix[a]
                    value = data[a] + tdata[b]
                    a += 1
                    b += 1
                if value != 0:
                    out_ix[r] = j
                    r += 1
                    if j == i:
                        diagonal = 1
        out_ip[i + 1] = r
        degree[i] = r - out_ip[i] + diagonal
    return out_ip, out_ix[:r], degree


@kernel
def degrees(ip, ix, degree):
    """``degree``: each row's length, plus one for a row holding its diagonal."""
    n = ip.size - 1
    for i in range(n):
        d = ip[i + 1] - ip[i]
        for p in range(ip[i], ip[i + 1]):
            if ix[p] == i:
                d += 1
                break
        degree[i] = d
