"""The CPU's minimum spanning forest: Borůvka rounds in a kernel.

Each round every tree picks its lightest outgoing edge, the trees those edges join are
merged (union-find), and the edges inside a tree are dropped from the next round's list, so
a round reads only the edges still between trees (a logarithmic number of rounds, no sort).
Edges compare by ``(weight, position)``: a strict order, so the forest is the unique minimum
one under it, the forest Kruskal's algorithm finds taking equal weights in stored order.
"""

from __future__ import annotations

import numpy as np

from ._jit import kernel
from .weak import tree_root

__all__ = ["boruvka"]


@kernel
def _lighter(w, e, f):
    return w[e] < w[f] or (w[e] == w[f] and e < f)


@kernel
def boruvka(n, rows, cols, w, keep):
    """Set ``keep[e]`` for the edges (``rows[e]``, ``cols[e]``, weight ``w[e]``) of the
    minimum spanning forest; returns how many there are."""
    m = rows.size
    parent = np.arange(n)
    best = np.full(n, -1, np.int64)
    touched = np.empty(n, np.int64)
    live = np.empty(m, np.int64)
    k = 0
    for e in range(m):
        if rows[e] != cols[e]:
            live[k] = e
            k += 1
    kept = 0
    while k:
        t = 0
        j = 0
        for q in range(k):
            e = live[q]
            a = tree_root(parent, rows[e])
            b = tree_root(parent, cols[e])
            if a == b:
                continue
            live[j] = e
            j += 1
            if best[a] < 0:
                touched[t] = a
                t += 1
                best[a] = e
            elif _lighter(w, e, best[a]):
                best[a] = e
            if best[b] < 0:
                touched[t] = b
                t += 1
                best[b] = e
            elif _lighter(w, e, best[b]):
                best[b] = e
        k = j
        if t == 0:
            break
        for q in range(t):
            r = touched[q]
            e = best[r]
            best[r] = -1
            a = tree_root(parent, rows[e])
            b = tree_root(parent, cols[e])
            if a != b:
                if a < b:
                    parent[b] = a
                else:
                    parent[a] = b
                keep[e] = True
                kept += 1
    return kept
