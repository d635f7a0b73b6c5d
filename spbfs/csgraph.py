"""Drop-in replacements for scipy.sparse.csgraph traversal functions."""

from __future__ import annotations

import numpy as np

from ._validation import SCIPY_NULL, check_source
from .bfs import prepare
from .semiring import Vector, min_first
from .semiring._operators import push

__all__ = ["breadth_first_order"]


def breadth_first_order(csgraph, i_start, directed=True, return_predecessors=True):
    """Breadth-first order from ``i_start``, as ``scipy.sparse.csgraph.breadth_first_order``.

    Same arguments, dtypes (int32) and sentinel (-9999 for the start and
    unreached vertices).  Each level is one masked ``vxm`` over ``min_first``
    with the frontier's queue positions as values, so every vertex gets the
    earliest-queued frontier vertex as predecessor, as scipy's queue does;
    a level is ordered by (predecessor's queue position, vertex id), which is
    scipy's order for directed graphs whose rows have sorted indices.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs import csgraph
    >>> A = sp.csr_array(np.array([[0, 1, 1, 0], [0, 0, 0, 1], [0, 0, 0, 1], [0, 0, 0, 0]]))
    >>> order, pred = csgraph.breadth_first_order(A, 0)
    >>> order.tolist(), pred.tolist()
    ([0, 1, 2, 3], [-9999, 0, 0, 1])
    """
    M = prepare(csgraph, directed)
    source = check_source(i_start, M.n, "i_start")
    xp = M.xp
    visited = xp.zeros(M.n, bool)
    visited[source] = True
    pred = xp.full(M.n, SCIPY_NULL, dtype=np.int32)
    queue = xp.asarray([source], dtype=M.indices.dtype)  # current level, in queue order
    levels = [queue]
    while queue.size:
        by_id = xp.argsort(queue)
        frontier = Vector(M.n, "sparse", indices=queue[by_id], values=by_id.astype(np.int64))
        found = push(M, frontier, min_first, visited, True, np.dtype(np.int64))
        order = xp.lexsort(xp.stack([found.indices, found.values]))
        new = found.indices[order]
        visited[new] = True
        pred[new] = queue[found.values[order]]
        queue = new
        levels.append(new)
    node_array = xp.concatenate(levels).astype(np.int32)
    return (node_array, pred) if return_predecessors else node_array
