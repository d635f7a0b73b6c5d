"""The CPU's bipartite matchings in kernels.

* :func:`hopcroft_karp`: maximum cardinality (Hopcroft and Karp): rounds of a
  breadth-first search from every unmatched row, layering the rows by their distance
  (through matched columns), then depth-first searches along the layers from each
  unmatched row in turn, each augmenting path flipping the matching and closing its rows
  for the round.  Searches, layers and tie rules are scipy's, so the matching is too; two
  prunings leave the paths found unchanged and skip work scipy repeats: a search explores
  a row once (a second visit comes after the first one's subtree failed), and a failed
  search closes every row it explored for the round (the layered graph only loses arcs
  within a round, so none of them can reach a free column later in it).
* :func:`min_weight_full`: minimum weight full matching of the rows (no more rows than
  columns) by successive shortest augmenting paths: from each row in turn a Dijkstra search
  over reduced costs (row and column potentials keep them non-negative; a binary heap holds
  the columns reached), settling columns until a free one (or reaching a free one as near
  as the last settled); then the potentials move and the path flips.  Square problems with
  finite costs start from Jonker and Volgenant's initialisation (column reduction,
  reduction transfer, rounds of augmenting row reduction), which leaves few rows to
  search from.  Only the vertices a search touched are reset, so a search costs what it
  reads.  Raises nothing: returns False when a row cannot be matched.
"""

from __future__ import annotations

import numpy as np

from ._jit import kernel

__all__ = ["hopcroft_karp", "min_weight_full"]

#: Rounds of augmenting row reduction (Jonker and Volgenant take two; on the Kronecker
#: benchmark graphs more rounds leave fewer rows to search from, within the bound on the
#: entries they read).
_ROW_REDUCTIONS = 8


@kernel
def hopcroft_karp(ip, ix, ncols, x, y):
    """Fill ``x`` (the column of each row) and ``y`` (the row of each column), -1 where
    unmatched, with a maximum matching of the rows (``ip``, ``ix``: CSR) to the columns."""
    nrows = ip.size - 1
    INF = np.iinfo(np.int32).max
    free = nrows                      # the row every unmatched column points at
    dist = np.empty(nrows + 1, np.int32)
    queue = np.empty(nrows + 1, np.int32)
    stack = np.empty(nrows + 1, np.int32)
    parent = np.empty(nrows, np.int32)
    seen = np.full(nrows, -1, np.int64)     # the search (numbered) that last explored a row
    search = 0
    visited = np.empty(nrows, np.int32)
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
        # stop once a free column is reached: every row below its level is labelled, and
        # a row labelled on its level would be a dead end of the searches
        while head < tail and dist[free] == INF:
            r = queue[head]
            head += 1
            for p in range(ip[r], ip[r + 1]):
                owner = y[ix[p]]
                if dist[owner] == INF:
                    dist[owner] = dist[r] + 1
                    if owner == free:
                        break
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
            nseen = 0
            search += 1
            while top and not done:
                top -= 1
                r = stack[top]
                if seen[r] == search:   # explored before in this search: it failed
                    continue
                seen[r] = search
                visited[nseen] = r
                nseen += 1
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
            if not done:                # nothing it reached leads to a free column
                for q in range(nseen):  # this round: none will
                    dist[visited[q]] = INF
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
def _jv_init(ip, ix, cost, x, y, v, free):
    """Jonker and Volgenant's initialisation of a square problem: column reduction,
    reduction transfer, then :data:`_ROW_REDUCTIONS` rounds of augmenting row reduction.
    Leaves a partial matching (``x``, ``y``) and column prices ``v`` under which every
    matched row's column is one of its cheapest (``cost - v``); returns the number of free
    rows (listed first in ``free``), or -1 when a row or a column has no entry (no full
    matching)."""
    nrows = ip.size - 1
    ncols = v.size
    # column reduction: each column's cheapest row, the columns taken last to first, a
    # row that is the cheapest of several columns keeps the first of them
    for j in range(ncols):
        v[j] = np.inf
    for i in range(nrows):
        for p in range(ip[i], ip[i + 1]):
            j = ix[p]
            if cost[p] < v[j]:
                v[j] = cost[p]
                y[j] = i
    many = np.zeros(nrows, np.bool_)
    for j in range(ncols - 1, -1, -1):
        i = y[j]
        if i < 0:
            return -1
        if x[i] < 0:
            x[i] = j
        else:
            y[j] = -1
            many[i] = True
    # reduction transfer: a row matched once hands its slack to its column
    nfree = 0
    for i in range(nrows):
        j1 = x[i]
        if j1 < 0:
            free[nfree] = i
            nfree += 1
            continue
        if many[i]:
            continue
        low = np.inf
        own = np.inf
        for p in range(ip[i], ip[i + 1]):
            j = ix[p]
            if j == j1:
                own = min(own, cost[p])
            else:
                low = min(low, cost[p] - v[j])
        if low < np.inf:
            v[j1] = own - low
    # augmenting row reduction: a free row takes its cheapest column, lowering its price
    # to the second cheapest's (the row it displaces goes next when the price fell).
    # Rows can outbid each other for long (forever when no full matching exists), so the
    # entries it reads are bounded; the rows still free then go to the searches.
    budget = 4 * (ip[nrows] - ip[0]) + 4 * nrows
    for _ in range(_ROW_REDUCTIONS):
        k = 0
        pending = nfree
        nfree = 0
        while k < pending:
            i = free[k]
            budget -= ip[i + 1] - ip[i] + 1
            if budget < 0:             # free[k:pending] stay free (nfree <= k)
                for q in range(k, pending):
                    free[nfree] = free[q]
                    nfree += 1
                return nfree
            k += 1
            j1 = -1
            j2 = -1
            u1 = np.inf
            u2 = np.inf
            for p in range(ip[i], ip[i + 1]):
                j = ix[p]
                d = cost[p] - v[j]
                if d < u2:
                    if d >= u1:
                        u2 = d
                        j2 = j
                    else:
                        u2 = u1
                        j2 = j1
                        u1 = d
                        j1 = j
            if j1 < 0:
                return -1
            if j2 < 0:               # one entry: left to the shortest augmenting paths
                free[nfree] = i
                nfree += 1
                continue
            i0 = y[j1]
            if u1 < u2:
                v[j1] -= u2 - u1
            elif i0 >= 0:
                j1 = j2
                i0 = y[j1]
            if i0 >= 0:
                x[i0] = -1
            x[i] = j1
            y[j1] = i
            if i0 >= 0:
                if u1 < u2:
                    k -= 1
                    free[k] = i0
                else:
                    free[nfree] = i0
                    nfree += 1
    return nfree


@kernel
def min_weight_full(ip, ix, cost, ncols, x, init):
    """Fill ``x`` with the column of each row in a minimum-cost matching of every row
    (``ip``, ``ix``, ``cost``: CSR, at most as many rows as columns); False if some row
    cannot be matched.  ``init`` (square problems, finite costs): start from
    :func:`_jv_init`'s partial matching and prices."""
    nrows = ip.size - 1
    u = np.zeros(nrows)
    v = np.zeros(ncols)
    y = np.full(ncols, -1, np.int64)
    for r in range(nrows):
        x[r] = -1
    if init and nrows == ncols:
        free = np.empty(nrows, np.int64)
        if _jv_init(ip, ix, cost, x, y, v, free) < 0:
            return False
    # row potentials: a matched row's entry to its column, a free row's cheapest, so
    # every reduced cost ``cost - u - v`` starts non-negative (zero on the matching)
    for r in range(nrows):
        low = np.inf
        own = np.inf
        for p in range(ip[r], ip[r + 1]):
            d = cost[p] - v[ix[p]]
            low = min(low, d)
            if ix[p] == x[r]:
                own = min(own, d)
        if x[r] >= 0:
            low = own
        u[r] = low if low < np.inf else 0.0
    shortest = np.full(ncols, np.inf)
    path = np.full(ncols, -1, np.int64)
    settled = np.zeros(ncols, np.bool_)
    touched = np.empty(ncols, np.int64)
    rows_seen = np.empty(nrows, np.int64)
    cols_done = np.empty(ncols, np.int64)
    hk = np.empty(ix.size + 1)
    hv = np.empty(ix.size + 1, np.int64)
    for cur in range(nrows):
        if x[cur] >= 0:
            continue
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
            base = low - u[i]
            for p in range(ip[i], ip[i + 1]):
                j = ix[p]
                if settled[j]:
                    continue
                reduced = base + cost[p] - v[j]
                if reduced < shortest[j]:
                    if shortest[j] == np.inf:
                        touched[nt] = j
                        nt += 1
                    shortest[j] = reduced
                    path[j] = i
                    if reduced == low and y[j] < 0:
                        sink = j         # a free column as near as the nearest: done
                        break
                    size = _heap_push(hk, hv, size, reduced, j)
            if sink >= 0:
                break
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
