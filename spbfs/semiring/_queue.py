"""Queue order: the order in which a first-in-first-out search from one vertex reaches the
others when it takes each vertex's out-arcs in storage order (the breadth-first order of
``scipy.sparse.csgraph``).

The generic path is one masked ``vxm`` over ``min_plus`` per level: the frontier carries
``queue position * W`` and every arc its storage position (``W`` above all of them), so the
minimum over a vertex's in-arcs names the parent the queue gives it, and sorting the level
by that key gives the queue's order.  A backend with a ``queue_order`` primitive (the CPU:
one queue kernel) searches in one call, so a search that reaches few vertices costs a few
microseconds instead of a product per level; the GPU's ``queue_order`` and ``queue_levels``
run three kernels a level and no sort.  :func:`queue_meet` grows two such queues
towards each other (NetworkX's bidirectional search), with a ``queue_meet`` primitive on the
CPU likewise.
"""

from __future__ import annotations

import numpy as np

from ..core.arrays import to_numpy
from ..core.seam import optional_primitive
from ..core.validation import check_source
from ._backend import backend_for
from ._matrix import Matrix
from ._named import min_plus
from ._vector import Vector
from ._vxm import vxm

__all__ = ["queue_hops", "queue_meet", "queue_order"]

#: The id dtypes of a queue order's parents and their limits (``np.iinfo`` costs 1-2 us a
#: call, about a tenth of a search that reaches a few thousand vertices).
_ID_LIMITS = {np.dtype(t): (int(np.iinfo(t).min), int(np.iinfo(t).max))
              for t in (np.int32, np.int64)}


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
    lowest, highest = _ID_LIMITS.get(dtype, (0, -1))
    if M.n > highest:
        raise TypeError(f"dtype must be int32 or int64 and hold {M.n} ids, got {dtype}")
    if not isinstance(null, (int, np.integer)) or not lowest <= null < 0:
        raise ValueError(f"null must be a negative integer of dtype {dtype}, got {null!r}")
    parents = M.xp.full(M.n, null, dtype)
    kernel = optional_primitive(backend_for(M.xp), "queue_order")
    order = kernel(M.indptr, M.indices, source, parents) if kernel is not None else None
    return (order if order is not None else _levels(M, source, parents)), parents


def queue_meet(A, B, source, target):
    """Two queue searches towards each other, NetworkX's bidirectional search: from
    ``source`` along the arcs of ``A`` and from ``target`` along those of ``B`` (the
    reverse arcs, in the order to take them: ``A`` itself for an undirected graph).

    The side whose current level is shorter (the forward one on ties) takes the vertices of
    that level in queue order and their arcs in storage order, enqueueing every target it
    has not seen, until a target the other side has seen comes up: the meeting vertex.
    The path runs from ``source`` to it by the forward side's parents and on to ``target``
    by the backward side's.

    Parameters
    ----------
    A, B : scipy/cupyx sparse matrix, 2-D array or Matrix
        Square, the same shape; stored ``A[u, v]`` is an arc ``u -> v`` and stored
        ``B[v, u]`` the same arc taken backwards (values are not read).
    source, target : int
        Distinct vertices.

    Returns
    -------
    list of int or None
        The path's vertices from ``source`` to ``target`` (NetworkX's
        ``bidirectional_shortest_path``), or None when no path joins them.  A backend with
        a ``queue_meet`` primitive (the CPU) costs what the two searches see, with no array
        of ``n`` made per call.

    Raises
    ------
    ValueError, TypeError
        Shapes that differ or are not square, ``source``/``target`` not vertex ids or equal.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs import semiring
    >>> E = sp.csr_array((np.ones(4), ([0, 0, 1, 3], [1, 2, 3, 4])), shape=(5, 5))
    >>> P = (E + E.T).tocsr()   # edges 0-1, 0-2, 1-3, 3-4
    >>> semiring.queue_meet(P, P, 0, 4), semiring.queue_meet(P, P, 0, 2)
    ([0, 1, 3, 4], [0, 2])
    """
    F, R, source, target = _meet_operands(A, B, source, target)
    if source == target:
        raise ValueError(f"source and target must differ, got {source} twice")
    kernel = optional_primitive(backend_for(F.xp), "queue_meet")
    if kernel is not None:
        return kernel(F.indptr, F.indices, R.indptr, R.indices, source, target)
    xp = F.xp
    forward, backward = xp.full(F.n, -1, np.int64), xp.full(F.n, -1, np.int64)
    meet = _meet_levels(F, R, source, target, forward, backward)
    if meet < 0:
        return None
    forward, backward = to_numpy(forward), to_numpy(backward)
    return _parent_chain(forward, meet)[::-1] + _parent_chain(backward, meet)[1:]


def queue_hops(A, B, source, target):
    """The arcs of a shortest ``source -> target`` path of ``A`` (``B``: the reverse arcs,
    as :func:`queue_meet` takes them), or -1 where there is none.

    Two level searches grow towards each other, each step taking a whole level of the side
    whose level has fewer arcs out (the forward one on ties), until an arc reaches a vertex
    the other side has seen.  Before a step the sides have seen every vertex within ``a``
    arcs of ``source`` and ``b`` of ``target`` and no vertex twice, so the distance is more
    than ``a + b``; the arc found ends a walk of ``a + 1 + j`` arcs with ``j <= b``, so it
    is ``a + b + 1``.  A hub next to ``source`` is then taken last, not first as in
    NetworkX's search, which takes the side with fewer vertices (only the length is
    returned: NetworkX's path is :func:`queue_meet`'s).

    Parameters
    ----------
    A, B : scipy/cupyx sparse matrix, 2-D array or Matrix
        Square, the same shape; stored ``A[u, v]`` is an arc ``u -> v`` and stored
        ``B[v, u]`` the same arc taken backwards (``A`` itself for an undirected graph).
    source, target : int
        Vertices (the same one: 0).

    Returns
    -------
    int
        The hop count; -1 when no path joins them.  A backend with a ``queue_hops``
        primitive (the CPU) costs the arcs the two searches read; the generic path is
        :func:`queue_meet`'s.

    Raises
    ------
    ValueError, TypeError
        Shapes that differ or are not square, ``source``/``target`` not vertex ids.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs import semiring
    >>> E = sp.csr_array((np.ones(4), ([0, 0, 1, 3], [1, 2, 3, 4])), shape=(5, 5))
    >>> P = (E + E.T).tocsr()   # edges 0-1, 0-2, 1-3, 3-4
    >>> semiring.queue_hops(P, P, 0, 4), semiring.queue_hops(E, E.T.tocsr(), 4, 0)
    (3, -1)
    """
    F, R, source, target = _meet_operands(A, B, source, target)
    if source == target:
        return 0
    kernel = optional_primitive(backend_for(F.xp), "queue_hops")
    if kernel is not None:
        return kernel(F.indptr, F.indices, R.indptr, R.indices, source, target)
    path = queue_meet(F, R, source, target)
    return -1 if path is None else len(path) - 1


def _meet_operands(A, B, source, target):
    """``A`` and ``B`` as matrices of one square shape and the two vertex ids, checked."""
    F, R = Matrix.from_any(A, name="A"), Matrix.from_any(B, name="B")
    if F.shape[0] != F.shape[1] or F.shape != R.shape:
        raise ValueError(f"A and B must be square and of one shape, got {F.shape} and "
                         f"{R.shape}")
    return F, R, check_source(source, F.n), check_source(target, F.n, "target")


def _parent_chain(parent, v):
    """``[v, parent[v], parent[parent[v]], ...]`` up to a vertex whose parent is negative.

    Examples
    --------
    >>> import numpy as np
    >>> _parent_chain(np.array([-1, 0, 1]), 2)
    [2, 1, 0]
    """
    out = [int(v)]
    while parent[out[-1]] >= 0:
        out.append(int(parent[out[-1]]))
    return out


def _meet_levels(F, R, source, target, forward, backward):
    """The generic path of :func:`queue_meet`: each side's levels one product at a time;
    the first vertex of a level, in queue order, that the other side has seen is where
    they meet (NetworkX stops at the first such arc, and a vertex both sides see is new to
    the side that sees it second)."""
    xp = F.xp
    sides = []
    for M, start, parents in ((F, source, forward), (R, target, backward)):
        seen = xp.zeros(M.n, bool)
        seen[start] = True
        sides.append([levels_in_queue_order(M, [start]), parents, seen, 1])
    while True:
        this, other = sides if sides[0][3] <= sides[1][3] else sides[::-1]
        level = next(this[0], None)
        if level is None:
            return -1
        children, parents = level
        hit = xp.flatnonzero(other[2][children])
        if hit.size:
            first = int(hit[0])
            meet = int(children[first])
            this[1][meet] = parents[first]
            return meet
        this[1][children] = parents
        this[2][children] = True
        this[3] = int(children.size)


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
    order): a backend's ``queue_levels`` (the GPU's kernels), else one masked ``min_plus``
    product per level, each level sorted by its key."""
    xp, n = M.xp, M.n
    kernel = optional_primitive(backend_for(xp), "queue_levels")
    if kernel is not None:
        yield from kernel(M.indptr, M.indices, xp.asarray(np.asarray(sources, np.int64)))
        return
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
