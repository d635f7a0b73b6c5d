"""Queue order: the order in which a first-in-first-out search from one vertex reaches the
others when it takes each vertex's out-arcs in storage order (the breadth-first order of
``scipy.sparse.csgraph``).

The generic path is one masked ``vxm`` over ``min_plus`` per level: the frontier carries
``queue position * W`` and every arc its storage position (``W`` above all of them), so the
minimum over a vertex's in-arcs names the parent the queue gives it, and sorting the level
by that key gives the queue's order.  A backend with a ``queue_order`` primitive (the CPU:
one queue kernel) searches in one call, so a search that reaches few vertices costs a few
microseconds instead of a product per level.
"""

from __future__ import annotations

import numpy as np

from ..core.validation import check_source
from ._backend import backend_for
from ._matrix import Matrix
from ._named import min_plus
from ._operators import vxm
from ._vector import Vector

__all__ = ["queue_order"]


def queue_order(A, source, *, null=-1, dtype=np.int64):
    """The vertices a first-in-first-out search from ``source`` reaches, in its order, and
    the parent it gives each.

    The search takes the out-arcs of each vertex it dequeues in storage order and enqueues
    every target not seen yet, so each level is ordered by its parents' positions, then by
    the arcs' positions in their rows (scipy's ``breadth_first_order``).

    Parameters
    ----------
    A : scipy/cupyx sparse matrix, 2-D array or Matrix
        Square; ``A[u, v]`` stored is an arc ``u -> v`` (values are not read).
    source : int
        Start vertex.
    null : int
        The parent of ``source`` and of unreached vertices; negative.
    dtype : int32 or int64
        Of ``parents`` (int32 needs ids that fit).

    Returns
    -------
    order : ndarray of int64
        The reached vertices, ``source`` first.
    parents : ndarray of ``dtype``, shape (n,)
        The vertex that enqueued each one; ``null`` for ``source`` and unreached vertices.

    Raises
    ------
    ValueError, TypeError
        ``A`` is not square, ``source`` is not a vertex id of it, ``null`` is not negative
        or ``dtype`` not int32 / int64 (or too narrow for the ids).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs import semiring
    >>> A = sp.csr_array((np.ones(4), np.array([2, 1, 3, 3]), np.array([0, 2, 3, 4, 4])),
    ...                  shape=(4, 4))
    >>> order, parents = semiring.queue_order(A, 0)
    >>> order.tolist(), parents.tolist()
    ([0, 2, 1, 3], [-1, 0, 0, 2])
    """
    M = Matrix.from_any(A, name="A")
    if M.shape[0] != M.shape[1]:
        raise ValueError(f"A must be square, got shape {M.shape}")
    source = check_source(source, M.n)
    dtype = np.dtype(dtype)
    if dtype not in (np.dtype(np.int32), np.dtype(np.int64)) or M.n > np.iinfo(dtype).max:
        raise TypeError(f"dtype must be int32 or int64 and hold {M.n} ids, got {dtype}")
    if not isinstance(null, (int, np.integer)) or not np.iinfo(dtype).min <= null < 0:
        raise ValueError(f"null must be a negative integer of dtype {dtype}, got {null!r}")
    parents = M.xp.full(M.n, null, dtype)
    kernel = getattr(backend_for(M.xp), "queue_order", None)
    order = kernel(M.indptr, M.indices, source, parents) if kernel is not None else None
    return (order if order is not None else _levels(M, source, parents)), parents


def _levels(M, source, parents):
    """The generic path: fills ``parents`` and returns the order."""
    order = [M.xp.asarray([source], dtype=np.int64)]
    for children, found_by in levels_in_queue_order(M, [source]):
        parents[children] = found_by
        order.append(children)
    return M.xp.concatenate(order)


def levels_in_queue_order(M, sources):
    """Yield ``(children, parents)`` (int64 device arrays) per level of the queue search of
    :func:`queue_order` started from the queue ``sources`` (distinct vertices, in queue
    order): one masked ``min_plus`` product per level, each level sorted by its key."""
    xp, n = M.xp, M.n
    S = M.pattern.derived("storage positions", lambda: M.with_values(
        xp.arange(M.nnz, dtype=np.int64)))
    width = max(M.nnz, 1)
    visited = xp.zeros(n, bool)
    queue = xp.asarray(np.asarray(sources, dtype=np.int64))   # the current level
    visited[queue] = True
    start = 0   # queue position of queue[0]
    while queue.size:
        by_id = xp.argsort(queue)
        keys = (start + by_id.astype(np.int64)) * width
        found = vxm(Vector(n, "sparse", indices=queue[by_id], values=keys), S, min_plus,
                    mask=visited, complement=True)
        if not found.indices.size:
            return
        order = xp.argsort(found.values)
        children = found.indices[order].astype(np.int64)
        visited[children] = True
        yield children, queue[found.values[order] // width - start]
        start += int(queue.size)
        queue = children
