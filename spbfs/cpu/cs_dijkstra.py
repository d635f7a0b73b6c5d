"""The CPU's single-pair Dijkstra for :func:`spbfs.csgraph.yen`'s spur searches.

One search from a vertex to a target over positive weights (``inf``: no arc), with an
indexed binary heap (decrease-key, so it holds at most one entry per vertex), stopping when
the target is settled.  Vertices marked ``gone`` are never entered (Yen's root path: its
arcs out are removed, and the target is never on it), and arcs out of the start to a vertex
marked ``blocked`` are skipped (the arcs that earlier paths sharing the root take).

Predecessors follow the rule of :func:`spbfs.csgraph.dijkstra`'s (scipy's): among the arcs
``u -> v`` on a shortest path to ``v``, the ``u`` nearest the start, ties to the largest
``u``.  With positive weights a vertex's predecessor is final once it is settled, so the
early stop keeps the path to the target exact.  Only the vertices a search touched are
reset afterwards, so a search costs what it reads, and the work arrays are reused across
searches (one set per caller: a call is thread-safe on its own arrays).
"""

from __future__ import annotations

import numpy as np

from ._jit import kernel

__all__ = ["SpurSearch", "spur_path"]


@kernel
def _sift_up(hk, hv, pos, i):
    key = hk[i]
    v = hv[i]
    while i > 0:
        up = (i - 1) >> 1
        if hk[up] <= key:
            break
        hk[i] = hk[up]
        hv[i] = hv[up]
        pos[hv[i]] = i
        i = up
    hk[i] = key
    hv[i] = v
    pos[v] = i


@kernel
def _sift_down(hk, hv, pos, size, i):
    key = hk[i]
    v = hv[i]
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        if child + 1 < size and hk[child + 1] < hk[child]:
            child += 1
        if hk[child] >= key:
            break
        hk[i] = hk[child]
        hv[i] = hv[child]
        pos[hv[i]] = i
        i = child
    hk[i] = key
    hv[i] = v
    pos[v] = i


@kernel
def transpose(ip, ix, w):
    """The transpose's CSR arrays ``(indptr, indices, weights)``, rows in order."""
    n = ip.size - 1
    tip = np.zeros(n + 1, np.int64)
    for e in range(ix.size):
        tip[ix[e] + 1] += 1
    for v in range(n):
        tip[v + 1] += tip[v]
    nxt = tip[:-1].copy()
    tix = np.empty(ix.size, np.int64)
    tw = np.empty(ix.size, np.float64)
    for u in range(n):
        for e in range(ip[u], ip[u + 1]):
            q = nxt[ix[e]]
            nxt[ix[e]] = q + 1
            tix[q] = u
            tw[q] = w[e]
    return tip, tix, tw


@kernel
def distances(ip, ix, w, start, dist, pos, hk, hv):
    """Dijkstra from ``start`` over all vertices: fill ``dist`` (inf where unreached;
    ``pos``: -1 on entry, scratch)."""
    dist[:] = np.inf
    dist[start] = 0.0
    hk[0] = 0.0
    hv[0] = start
    pos[start] = 0
    size = 1
    while size:
        u = hv[0]
        du = hk[0]
        pos[u] = -2
        size -= 1
        if size:
            hk[0] = hk[size]
            hv[0] = hv[size]
            pos[hv[0]] = 0
            _sift_down(hk, hv, pos, size, 0)
        for e in range(ip[u], ip[u + 1]):
            v = ix[e]
            if pos[v] == -2:
                continue
            nd = du + w[e]
            if nd < dist[v]:
                dist[v] = nd
                if pos[v] < 0:
                    hk[size] = nd
                    hv[size] = v
                    size += 1
                    _sift_up(hk, hv, pos, size - 1)
                else:
                    i = pos[v]
                    hk[i] = nd
                    _sift_up(hk, hv, pos, i)
    pos[:] = -1


@kernel
def spur_path(ip, ix, w, h, start, target, gone, blocked, dist, pred, pos, hk, hv, touched,
              path):
    """Shortest path ``start -> target``: its length (inf if none) and, in ``path``, its
    vertices from ``target`` back to ``start``; returns ``(length, vertices)``.

    A* with ``h`` (each vertex's distance to ``target`` in the whole graph: a consistent
    lower bound in any graph with fewer arcs; inf: never reaches it).  Every vertex with
    ``distance + h`` up to the target's distance is settled (with a margin for rounding),
    so every arc on a shortest path into a vertex of the path has been relaxed with its
    tail's final distance and the predecessor rule is exact; a vertex whose distance
    drops after it was settled (``h`` off by rounding) is settled again.

    ``dist`` (inf), ``pred`` (-1) and ``pos`` (-1) are length-n work arrays in that state
    on entry and left so; ``hk``, ``hv``, ``touched``, ``path``: length-n scratch."""
    length = np.inf
    count = 0
    if h[start] == np.inf:
        return length, count
    nt = 0
    dist[start] = 0.0
    pred[start] = -1
    touched[nt] = start
    nt += 1
    hk[0] = h[start]
    hv[0] = start
    pos[start] = 0
    size = 1
    limit = np.inf
    while size:
        u = hv[0]
        if hk[0] > limit:
            break
        pos[u] = -2                      # settled
        size -= 1
        if size:
            hk[0] = hk[size]
            hv[0] = hv[size]
            pos[hv[0]] = 0
            _sift_down(hk, hv, pos, size, 0)
        du = dist[u]
        if u == target:                  # nothing through the target reaches the path
            if limit == np.inf:
                limit = du + 1e-9 * abs(du)
            continue
        for e in range(ip[u], ip[u + 1]):
            v = ix[e]
            hv_ = h[v]
            if hv_ == np.inf or gone[v] or (u == start and blocked[v]):
                continue
            nd = du + w[e]
            dv = dist[v]
            if nd < dv:
                if dv == np.inf:
                    touched[nt] = v
                    nt += 1
                dist[v] = nd
                pred[v] = u
                if pos[v] < 0:           # new, or settled and reopened
                    hk[size] = nd + hv_
                    hv[size] = v
                    size += 1
                    _sift_up(hk, hv, pos, size - 1)
                else:
                    i = pos[v]
                    hk[i] = nd + hv_
                    _sift_up(hk, hv, pos, i)
            elif nd == dv and nd < np.inf:
                p = pred[v]
                if du < dist[p] or (du == dist[p] and u > p):
                    pred[v] = u
    if limit < np.inf:
        length = dist[target]
        v = target
        while v != -1:
            path[count] = v
            count += 1
            v = pred[v]
    for q in range(nt):
        v = touched[q]
        dist[v] = np.inf
        pred[v] = -1
        pos[v] = -1
    for q in range(size):
        pos[hv[q]] = -1
    return length, count


class SpurSearch:
    """Repeated :func:`spur_path` searches on one graph, with their work arrays.

    Examples
    --------
    >>> import numpy as np
    >>> ip = np.array([0, 2, 3, 4, 4]); ix = np.array([1, 2, 3, 3]); w = np.ones(4)
    >>> s = SpurSearch(ip, ix, w, 3)
    >>> length, path = s(0, (), ())
    >>> float(length), path.tolist()
    (2.0, [3, 2, 0])
    >>> length, path = s(0, (), (2,))
    >>> float(length), path.tolist()
    (2.0, [3, 1, 0])
    """

    def __init__(self, ip, ix, w, target):
        n = ip.size - 1
        self.ip, self.ix, self.w = ip, ix, np.asarray(w, np.float64)
        self.target = target
        self.gone = np.zeros(n, np.bool_)
        self.blocked = np.zeros(n, np.bool_)
        self.dist = np.full(n, np.inf)
        self.pred = np.full(n, -1, np.int64)
        self.pos = np.full(n, -1, np.int64)
        self.hk = np.empty(n)
        self.hv = np.empty(n, np.int64)
        self.touched = np.empty(n, np.int64)
        self.path = np.empty(n, np.int64)
        tip, tix, tw = transpose(ip, ix, self.w)
        self.h = np.empty(n)
        distances(tip, tix, tw, target, self.h, self.pos, self.hk, self.hv)

    def __call__(self, start, gone, blocked):
        """``(length, path from the target to start)`` avoiding the vertices ``gone`` and the
        arcs from ``start`` to the vertices ``blocked``."""
        gone = np.asarray(gone, np.int64)
        blocked = np.asarray(blocked, np.int64)
        self.gone[gone] = True
        self.blocked[blocked] = True
        try:
            length, count = spur_path(self.ip, self.ix, self.w, self.h, start, self.target,
                                      self.gone, self.blocked, self.dist, self.pred,
                                      self.pos, self.hk, self.hv, self.touched, self.path)
        finally:
            self.gone[gone] = False
            self.blocked[blocked] = False
        return length, self.path[:count].copy()
