"""The CPU backend's queue order: one first-in-first-out search in a kernel (O(reached
vertices + their arcs)), where the generic path of :func:`spbfs.semiring.queue_order` runs a
product and two sorts per level."""

from __future__ import annotations

import numpy as np

from ._jit import kernel

__all__ = ["queue_order"]


@kernel
def _search(ip, ix, source, order, parents):
    """Fill ``order`` in the queue's order and ``parents`` (negative: not seen); returns
    how many vertices were reached."""
    null = parents[source]
    order[0] = source
    parents[source] = source   # seen; reset at the end
    head, end = 0, 1
    while head < end:
        u = order[head]
        head += 1
        for p in range(ip[u], ip[u + 1]):
            v = ix[p]
            if parents[v] < 0:
                parents[v] = u
                order[end] = v
                end += 1
    parents[source] = null
    return end


def queue_order(indptr, indices, source, parents):
    """The order of :func:`spbfs.semiring.queue_order` on CSR arrays; ``parents`` (every
    entry the same negative null) is filled in place.

    Examples
    --------
    >>> import numpy as np
    >>> parents = np.full(3, -1)
    >>> queue_order(np.array([0, 2, 3, 3]), np.array([2, 1, 2]), 0, parents).tolist()
    [0, 2, 1]
    >>> parents.tolist()
    [-1, 0, 0]
    """
    order = np.empty(parents.size, np.int64)
    end = _search(indptr, indices, np.int64(source), order, parents)
    return order[:end]
