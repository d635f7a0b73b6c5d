"""The paths of a parent tree, grouped by length, in one compiled pass.

NetworkX's ``single_source_*_path`` results hold a path from the start to every node reached.
:func:`tree_paths` writes them all as row numbers: the paths of one depth form one block of
equal-length rows (a 2-D array whose ``tolist`` makes that depth's lists in one C loop), the
rows of a block in the order given.  The depths come from one walk up the parents from each
vertex to the first vertex whose depth is known, so the order need not list parents first.
"""

from __future__ import annotations

import numpy as np

from ._jit import kernel

__all__ = ["tree_paths"]


@kernel
def _depths(order, parent, depth):  # pragma: no cover - compiled
    """Fill ``depth`` (0 at the starts, -1 elsewhere on entry) for the vertices of
    ``order``: each walks up its parents to a vertex of known depth, then sets the depths
    along the way.  Returns the number of vertices walked whose chain breaks (a parent
    below 0, or a cycle): 0 for a tree."""
    n = depth.size
    for i in range(order.size):
        v = order[i]
        if depth[v] >= 0:
            continue
        u = v
        steps = 0
        while depth[u] < 0:
            u = parent[u]
            steps += 1
            if u < 0 or steps > n:
                return 1
        d = depth[u] + steps
        u = v
        while depth[u] < 0:
            depth[u] = d
            d -= 1
            u = parent[u]
    return 0


@kernel
def _fill(order, parent, depth, offsets, forward, flat, by_depth):  # pragma: no cover
    """Write each vertex's path (start first where ``forward``) as the next row of its
    depth's block of ``flat``, and its position in ``order`` at the next place of its
    depth's run of ``by_depth``."""
    seen = np.zeros(offsets.size, np.int64)
    rows_before = np.zeros(offsets.size, np.int64)
    for k in range(1, offsets.size):
        rows_before[k] = rows_before[k - 1] + (offsets[k] - offsets[k - 1]) // k
    for i in range(order.size):
        v = order[i]
        k = depth[v]
        at = offsets[k] + seen[k] * (k + 1)
        by_depth[rows_before[k] + seen[k]] = i
        seen[k] += 1
        u = v
        for j in range(k, -1, -1):
            flat[at + (j if forward else k - j)] = u
            u = parent[u]


def tree_paths(order, parent, starts, forward=True):
    """The path of every vertex of ``order`` in the tree ``parent``, as blocks by depth.

    Parameters
    ----------
    order : numpy.ndarray
        int64 vertices (distinct), each a start or led by ``parent`` to one.
    parent : numpy.ndarray
        int64 parent of each vertex (any value at the starts).
    starts : numpy.ndarray
        int64 roots of the tree.
    forward : bool
        Paths from the start (True) or to it.

    Returns
    -------
    blocks : list of numpy.ndarray
        ``blocks[k]``: the paths of ``k`` edges, one row each (``k + 1`` int64 vertices), in
        the order of ``order``.
    by_depth : numpy.ndarray
        The positions in ``order`` of the rows of ``blocks[0]``, then of ``blocks[1]``, ...

    Raises
    ------
    ValueError
        Where ``parent`` leads some vertex of ``order`` to no start.

    Examples
    --------
    >>> import numpy as np
    >>> blocks, by_depth = tree_paths(np.array([0, 2, 1]), np.array([-1, 0, 0]),
    ...                               np.array([0]))
    >>> [b.tolist() for b in blocks], by_depth.tolist()
    ([[[0]], [[0, 2], [0, 1]]], [0, 1, 2])
    """
    order = np.ascontiguousarray(order, np.int64)
    parent = np.ascontiguousarray(parent, np.int64)
    depth = np.full(parent.size, -1, np.int64)
    depth[np.asarray(starts, np.int64)] = 0
    if _depths(order, parent, depth):
        raise ValueError("parent does not lead every vertex of order to a start")
    counts = np.bincount(depth[order], minlength=1)
    lengths = np.arange(1, counts.size + 1)
    offsets = np.concatenate([[0], np.cumsum(counts * lengths)])
    flat = np.empty(int(offsets[-1]), np.int64)
    by_depth = np.empty(order.size, np.int64)
    _fill(order, parent, depth, offsets, forward, flat, by_depth)
    blocks = [flat[offsets[k]:offsets[k + 1]].reshape(-1, k + 1) for k in range(counts.size)]
    return blocks, by_depth
