"""The CPU's bipartite matchings in kernels.

* :func:`hopcroft_karp`: maximum cardinality (Hopcroft and Karp): rounds of a
  breadth-first search from every unmatched row, layering the rows by their distance
  (through matched columns), then depth-first searches along the layers from each
  unmatched row in turn, each augmenting path flipping the matching and closing its rows
  for the round.  Searches, layers and tie rules are scipy's, so the matching is too.
* :func:`min_weight_full`: minimum weight full matching of the rows (no more rows than
  columns) by successive shortest augmenting paths: from each row in turn a Dijkstra search
  over reduced costs (row and column potentials keep them non-negative; a binary heap holds
  the columns reached), settling columns until a free one; then the potentials move and the
  path flips.  Only the vertices a search touched are reset, so a search costs what it
  reads.  Raises nothing: returns False when a row cannot be matched.
"""

from __future__ import annotations

import numpy as np

from ._jit import kernel

__all__ = ["hopcroft_karp", "min_weight_full"]


@kernel
def hopcroft_karp(ip, ix, ncols, x, y):
    """Fill ``x`` (the column of each row) and ``y`` (the row of each column), -1 where
    unmatched, with a maximum matching of the rows (``ip``, ``ix``: CSR) to the columns."""
    nrows = ip.size - 1
    INF = np.iinfo(np.int64).max
    free = nrows                      # the row every unmatched column points at
    dist = np.empty(nrows + 1, np.int64)
    queue = np.empty(nrows + 1, np.int64)
    stack = np.empty(nrows + 1, np.int64)
    parent = np.empty(nrows, np.int64)
    for r in range(nrows):
        x[r] = -1
    for c in range(ncols):
        y[c] = free
    while True:
        tail = 0
        for r in range(nrows):
            if x[r] < 0:
                dist[r] = 0
                queue[tail] = r
                tail += 1
            else:
                dist[r] = INF
        dist[free] = INF
        head = 0
        while head < tail:
            r = queue[head]
            head += 1
            if dist[r] < dist[free]:
                for p in range(ip[r], ip[r + 1]):
                    owner = y[ix[p]]
                    if dist[owner] == INF:
                        dist[owner] = dist[r] + 1
                        queue[tail] = owner
                        tail += 1
        if dist[free] == INF:
            break
        for root in range(nrows):
            if x[root] >= 0:
                continue
            stack[0] = root
            top = 1
            done = False
            while top and not done:
                top -= 1
                r = stack[top]
                for p in range(ip[r], ip[r + 1]):
                    c = ix[p]
                    owner = y[c]
                    if dist[owner] != dist[r] + 1:
                        continue
                    if owner == free:       # an augmenting path: flip it back to the root
                        done = True
                        while True:
                            dist[r] = INF
                            previous = x[r]
                            y[c] = r
                            x[r] = c
                            c = previous
                            if r == root:
                                break
                            r = parent[r]
                        break
                    stack[top] = owner
                    top += 1
                    parent[owner] = r
    for c in range(ncols):
        if y[c] == free:
            y[c] = -1


@kernel
def _heap_push(hk, hv, size, key, value):
    i = size
    hk[i] = key
    hv[i] = value
    while i > 0:
        up = (i - 1) >> 1
        if hk[up] <= hk[i]:
            break
        hk[up], hk[i] = hk[i], hk[up]
        hv[up], hv[i] = hv[i], hv[up]
        i = up
    return size + 1


@kernel
def _heap_pop(hk, hv, size):
    size -= 1
    hk[0] = hk[size]
    hv[0] = hv[size]
    i = 0
    while True:
        left = 2 * i + 1
        if left >= size:
            break
        small = left
        if left + 1 < size and hk[left + 1] < hk[left]:
            small = left + 1
        if hk[i] <= hk[small]:
            break
        hk[small], hk[i] = hk[i], hk[small]
        hv[small], hv[i] = hv[i], hv[small]
        i = small
    return size


@kernel
def min_weight_full(ip, ix, cost, ncols, x):
    """Fill ``x`` with the column of each row in a minimum-cost matching of every row
    (``ip``, ``ix``, ``cost``: CSR, at most as many rows as columns); False if some row
    cannot be matched."""
    nrows = ip.size - 1
    u = np.zeros(nrows)       # row potentials: each row's cheapest entry, so every
    for r in range(nrows):    # reduced cost starts non-negative
        low = np.inf
        for p in range(ip[r], ip[r + 1]):
            low = min(low, cost[p])
        u[r] = low if low < np.inf else 0.0
    v = np.zeros(ncols)
    y = np.full(ncols, -1, np.int64)
    shortest = np.full(ncols, np.inf)
    path = np.full(ncols, -1, np.int64)
    settled = np.zeros(ncols, np.bool_)
    touched = np.empty(ncols, np.int64)
    rows_seen = np.empty(nrows, np.int64)
    cols_done = np.empty(ncols, np.int64)
    hk = np.empty(ix.size + 1)
    hv = np.empty(ix.size + 1, np.int64)
    for r in range(nrows):
        x[r] = -1
    for cur in range(nrows):
        nt = 0
        nr = 0
        nd = 0
        size = 0
        low = 0.0
        i = cur
        sink = -1
        while sink < 0:
            rows_seen[nr] = i
            nr += 1
            for p in range(ip[i], ip[i + 1]):
                j = ix[p]
                if settled[j]:
                    continue
                reduced = low + cost[p] - u[i] - v[j]
                if reduced < shortest[j]:
                    if shortest[j] == np.inf:
                        touched[nt] = j
                        nt += 1
                    shortest[j] = reduced
                    path[j] = i
                    size = _heap_push(hk, hv, size, reduced, j)
            j = -1
            while size:
                key = hk[0]
                c = hv[0]
                size = _heap_pop(hk, hv, size)
                if not settled[c] and key == shortest[c]:
                    j = c
                    break
            if j < 0:
                for q in range(nt):
                    shortest[touched[q]] = np.inf
                    settled[touched[q]] = False
                return False
            low = shortest[j]
            settled[j] = True
            cols_done[nd] = j
            nd += 1
            if y[j] < 0:
                sink = j
            else:
                i = y[j]
        # potentials: the rows and columns the search settled
        u[cur] += low
        for q in range(1, nr):
            r = rows_seen[q]
            u[r] += low - shortest[x[r]]
        for q in range(nd):
            j = cols_done[q]
            v[j] -= low - shortest[j]
        # flip the path
        j = sink
        while True:
            i = path[j]
            y[j] = i
            previous = x[i]
            x[i] = j
            if i == cur:
                break
            j = previous
        for q in range(nt):
            shortest[touched[q]] = np.inf
            settled[touched[q]] = False
    return True
