"""The CPU backend's weak components: one union-find pass over the arcs in a kernel, where
the generic path (:func:`spbfs.algorithms.components.connected_components`) runs FastSV,
a few products over the symmetrised pattern.

Every arc joins the trees of its two ends, the smaller root becoming the root of both, so
a tree's root is always its smallest vertex; a pass in vertex order then numbers the
components by their smallest vertex (scipy's numbering).  Arcs are read as they are
stored: an arc joins its ends whichever way it points, so no symmetrised copy is made.
"""

from __future__ import annotations

import numpy as np

from ._jit import kernel

__all__ = ["weak_components"]


@kernel
def tree_root(parent, v):
    """The root of ``v``'s tree, halving the path on the way."""
    while parent[v] != v:
        parent[v] = parent[parent[v]]
        v = parent[v]
    return v


@kernel
def _label(ip, ix, parent, symmetric):
    """Join the ends of every arc (of every arc ``u -> v`` with ``v < u`` when the pattern
    is ``symmetric``: its reverse stands for the rest), then replace ``parent`` by the
    labels; returns how many components there are."""
    n = parent.size
    for v in range(n):
        parent[v] = v
    for u in range(n):
        a = u
        for p in range(ip[u], ip[u + 1]):
            v = ix[np.uintp(p)]
            if symmetric and v >= u:
                continue
            a = tree_root(parent, a)
            b = tree_root(parent, v)
            if a < b:
                parent[b] = a
            elif b < a:
                parent[a] = b
    # every vertex's parent is smaller than it (a root is linked under a smaller one, and
    # halving points at a grandparent), so in vertex order a parent is labelled first
    k = 0
    for v in range(n):
        p = parent[v]
        if p == v:
            parent[v] = k
            k += 1
        else:
            parent[v] = parent[p]
    return k


def weak_components(indptr, indices, symmetric=False):
    """``(number of components, labels)`` of the weak components of a CSR pattern (an
    arc ``A[u, v]`` joins ``u`` and ``v`` either way; ``symmetric``: every arc is stored
    both ways, so half of them are read), numbered by their smallest vertex; labels int32
    (None for graphs of ``2**31`` vertices or more: the generic path runs).

    Examples
    --------
    >>> import numpy as np
    >>> weak_components(np.array([0, 1, 1, 1, 2]), np.array([1, 2]))
    (2, array([0, 0, 1, 1], dtype=int32))
    """
    n = indptr.size - 1
    if n > np.iinfo(np.int32).max:
        return None
    labels = np.empty(n, np.int32)
    k = _label(indptr, indices, labels, bool(symmetric))
    return int(k), labels
