"""The CPU's depth-first order: one sequential search in a kernel (a depth-first order is
sequential by nature; there is no product form of it).

The order is scipy's (``scipy.sparse.csgraph.depth_first_order``): from the vertex on top
of the stack, the first arc not yet leading to a visited vertex is followed, its head
pushed; a vertex with no such arc is popped.  Undirected, a vertex's arcs are its row of
the first pattern, then (only when that row offers nothing) its row of the second.  Each
vertex keeps its scan position, so the search reads every arc once (scipy's rescans a row
from its start each time the vertex is back on top).
"""

from __future__ import annotations

import numpy as np

from ._jit import kernel

__all__ = ["depth_first"]


@kernel
def _next_child(ip, ix, pos, seen, v):
    """The first unvisited head among ``v``'s arcs from ``pos[v]`` on (-1: none)."""
    p = pos[v]
    end = ip[v + 1]
    while p < end:
        w = ix[p]
        p += 1
        if not seen[w]:
            pos[v] = p
            return w
    pos[v] = p
    return -1


@kernel
def depth_first(ip1, ix1, ip2, ix2, two, start, order, pred):
    """Fill ``order`` (visit order) and ``pred`` (parent; left as given where none) from
    ``start``; the arcs of row ``v`` of (``ip1``, ``ix1``), then, if ``two``, of
    (``ip2``, ``ix2``).  Returns how many vertices were reached."""
    n = pred.size
    pos1 = np.empty(n, np.int64)
    pos2 = np.empty(n, np.int64)
    for v in range(n):
        pos1[v] = ip1[v]
        pos2[v] = ip2[v] if two else 0
    seen = np.zeros(n, np.bool_)
    stack = np.empty(n, np.int64)
    seen[start] = True
    order[0] = start
    stack[0] = start
    top = 0
    count = 1
    while top >= 0 and count < n:
        v = stack[top]
        w = _next_child(ip1, ix1, pos1, seen, v)
        if w < 0 and two:
            w = _next_child(ip2, ix2, pos2, seen, v)
        if w < 0:
            top -= 1
            continue
        seen[w] = True
        pred[w] = v
        order[count] = w
        count += 1
        top += 1
        stack[top] = w
    return count
