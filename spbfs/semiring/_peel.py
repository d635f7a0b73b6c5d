"""Peeling: remove vertices whose degree falls to zero, then what that leaves at zero, until
nothing changes (the trimming of strong components; k-core style loops).

The generic path is one masked ``vxm`` over ``plus_pair`` per round (each round subtracts the
removed vertices' arcs from their active neighbours' counts); a backend with a ``peel``
primitive (the CPU: one worklist kernel) does every round in one call, so a long chain
(a deep DAG peels one vertex per round) costs O(n + m), not a product per round.
:func:`peel_levels` peels with a rising threshold (core numbers): a ``peel`` per level, or
a backend's ``peel_levels`` primitive (the CPU: Batagelj and Zaversnik's bucket pass).
"""

from __future__ import annotations

import numpy as np

from ..core.arrays import array_module
from ..core.seam import optional_primitive
from ._backend import backend_for
from ._matrix import Matrix
from ._named import ops, plus_pair
from ._optypes import Semiring
from ._vector import Vector
from ._vxm import vxm

__all__ = ["peel", "peel_levels", "rising_levels"]


def peel(pairs, active, removed=None, *, values=None, monoid=None, max_rounds=None,
         lockstep=True):
    """Remove, until none is left, the active vertices whose count falls to zero.

    Removing ``u`` subtracts one from ``degrees[v]`` for every stored ``A[u, v]`` of each
    ``(A, degrees)`` pair whose ``v`` is still active; a vertex is removed (``active[v] =
    False``) once any of its counts is zero.  Rounds: the first removed vertices are round
    0, and a vertex removed once the round ``r`` vertices are is round ``r + 1`` (Kahn's
    levels when the counts are in-degrees).  With ``values``, each such arc of the first
    pair also folds ``values[u]`` into ``values[v]`` with ``monoid`` before ``v`` can be
    removed: on a DAG peeled by in-degrees, ``values[v]`` ends as the monoid over every
    vertex that reaches ``v``.

    Parameters
    ----------
    pairs : list of one or two ``(A, degrees)``
        A square matrix (scipy/cupyx sparse or Matrix) and an int64 array of n counts,
        updated in place.
    active : 1-D bool array of n
        The vertices still present, updated in place.
    removed : 1-D int array, optional
        Distinct vertices the caller has just made inactive whose arcs still count: they
        are subtracted first.  None: every active vertex with a zero count is removed first.
    values : 1-D array of n, optional
        Updated in place along the first pair's arcs.
    monoid : Monoid, optional
        Folds ``values`` (required with them), for example ``monoids.min``.
    max_rounds : int, optional
        Remove the vertices of rounds ``0 .. max_rounds - 1`` only: the arcs of the last
        round's vertices are not subtracted, and later vertices stay active (a long path
        costs ``max_rounds`` rounds, not one per vertex).
    lockstep : bool
        True: every vertex of a round is removed before the next round's (what defines
        the rounds above).  False (only without ``max_rounds``): a backend may remove
        vertices as soon as they reach zero, in any order in which each follows the
        vertices that brought it there (the GPU then peels a deep DAG in one launch, not a
        round trip per round).  The removed set and the folded values are the same
        wherever every count is the number of arcs from vertices that are removed, and
        so are the rounds: a vertex's round is one more than the largest round among the
        vertices whose arcs counted against it (Kahn's levels; with two pairs, or counts
        below that number, the rounds, though not the removed set, may depend on the
        order).

    Returns
    -------
    ids : ndarray of int64
        The vertices this call removed (``removed`` not included), each after the vertices
        that brought its count to zero.
    rounds : ndarray of int64
        The round of each.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs import semiring
    >>> A = sp.csr_array(np.array([[0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1], [0, 0, 1, 0]]))
    >>> indeg = np.array([0, 1, 2, 1]); active = np.ones(4, bool)
    >>> ids, rounds = semiring.peel([(A, indeg)], active)
    >>> ids.tolist(), rounds.tolist(), active.tolist()
    ([0, 1], [0, 1], [False, False, True, True])
    """
    if not 1 <= len(pairs) <= 2:
        raise ValueError(f"pairs must hold one or two (A, degrees), got {len(pairs)}")
    mats = []
    for A, degrees in pairs:
        M = Matrix.from_any(A)
        if M.shape != (active.size, active.size):
            raise ValueError(f"pairs: a matrix of shape {M.shape} for {active.size} vertices")
        if degrees.dtype != np.int64 or degrees.shape != active.shape:
            raise TypeError("pairs: degrees must be int64 arrays of one count per vertex")
        mats.append((M, degrees))
    xp = mats[0][0].xp
    if active.dtype != np.bool_:
        raise TypeError(f"active must be a bool array, got {active.dtype}")
    if (values is None) != (monoid is None):
        raise ValueError("values and monoid go together")
    cap = -1 if max_rounds is None else int(max_rounds)
    if max_rounds is not None and cap < 1:
        raise ValueError(f"max_rounds must be at least 1, got {max_rounds}")
    if max_rounds is not None and not lockstep:
        raise ValueError("max_rounds counts rounds in lock step: lockstep must be True")
    first = xp.zeros(0, np.int64)
    if removed is None:
        zero = mats[0][1] == 0
        for _, degrees in mats[1:]:
            zero |= degrees == 0
        first = xp.flatnonzero(active & zero).astype(np.int64)
        active[first] = False
        removed = first
    else:
        removed = xp.asarray(removed, dtype=np.int64)
        if removed.size > 1 and int(xp.unique(removed).size) < removed.size:  # O(k log k)
            raise ValueError("removed must hold distinct vertices (a vertex is given twice)")
    kernel = optional_primitive(backend_for(xp), "peel")
    found = None
    if kernel is not None:
        (M0, d0), (M1, d1) = mats if len(mats) == 2 else (mats[0], _no_arcs(xp, active.size))
        found = kernel(M0.indptr, M0.indices, d0, M1.indptr, M1.indices, d1, active, removed,
                       values, monoid, cap, bool(lockstep))
    ids, rounds = found if found is not None else _rounds(mats, active, removed, values,
                                                          monoid, cap)
    if first.size:
        ids = xp.concatenate([first, ids])
        rounds = xp.concatenate([xp.zeros(first.size, np.int64), rounds])
    return ids, rounds


def _no_arcs(xp, n):
    """A pair whose matrix stores nothing (the second of a one-pair call)."""
    return Matrix(xp.zeros(n + 1, np.int64), xp.zeros(0, np.int64), xp.zeros(0, bool), n,
                  check=False), xp.ones(n, np.int64)


def _rounds(mats, active, removed, values, monoid, cap):
    """The generic path: one masked product per pair and round (rounds below ``cap``; -1:
    all)."""
    xp, n = mats[0][0].xp, active.size
    fold = None if monoid is None else Semiring(monoid, ops.first)
    out, rounds = [], []
    while removed.size and len(out) + 1 != cap:
        if fold is not None:
            y = vxm(Vector(n, "sparse", indices=removed, values=values[removed]), mats[0][0],
                    fold, mask=active)
            values[y.indices] = monoid.ufunc(values[y.indices], y.values)
        x = Vector(n, "sparse", indices=removed, values=xp.ones(removed.size, np.int64))
        touched = []
        for M, degrees in mats:
            y = vxm(x, M, plus_pair, mask=active)
            degrees[y.indices] -= y.values
            touched.append(y.indices)
        touched = xp.unique(xp.concatenate(touched)).astype(np.int64)
        lost = xp.zeros(touched.size, bool)
        for _, degrees in mats:
            lost |= degrees[touched] == 0
        removed = touched[lost]
        active[removed] = False
        out.append(removed)
        rounds.append(xp.full(removed.size, len(out), np.int64))
    if not out:
        return xp.zeros(0, np.int64), xp.zeros(0, np.int64)
    return xp.concatenate(out), xp.concatenate(rounds)


def peel_levels(A, counts):
    """Each vertex's level in a peeling with a rising threshold ``k``: the active vertices
    whose count is at most ``k`` leave, and every vertex whose count falls to ``k`` as they
    go; removing ``u`` subtracts one from the count of each active ``v`` with a stored
    ``A[u, v]``; when none is left at ``k``, ``k`` rises to the smallest count left.  A
    vertex's level is the ``k`` at which it leaves: with the degrees of a symmetric
    pattern without self-loops as ``counts``, its core number.

    Parameters
    ----------
    A : square scipy/cupyx sparse matrix, 2-D array or Matrix
        Values are not read.
    counts : 1-D int64 array of n
        Non-negative starting counts (the degrees); used up (its values after the call
        are not specified).

    Returns
    -------
    ndarray of int64
        The levels.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs import semiring
    >>> A = sp.csr_array(np.array([[0, 1, 1, 0], [1, 0, 1, 0], [1, 1, 0, 1], [0, 0, 1, 0]]))
    >>> semiring.peel_levels(A, np.array([2, 2, 3, 1]))
    array([2, 2, 2, 1])
    """
    M = Matrix.from_any(A)
    n = M.n
    if M.shape != (n, n):
        raise ValueError(f"A must be square, got shape {M.shape}")
    if counts.dtype != np.int64 or counts.shape != (n,):
        raise TypeError(f"counts must be an int64 array of {n} counts")
    if n and int(counts.min()) < 0:
        raise ValueError("counts must be non-negative")
    kernel = optional_primitive(backend_for(M.xp), "peel_levels")
    if kernel is not None:
        return kernel(M.indptr, M.indices, counts)
    return rising_levels(counts, lambda active, rest: peel(
        [(M, counts)], active, lockstep=False)[0])


def rising_levels(counts, drop):
    """The levels of a peeling with a rising threshold, level by level: ``k`` rises to the
    smallest count left (``counts``: each vertex's count less ``k``, updated in place), then
    ``drop(active, rest)`` removes the vertices left (``rest``, ``active``) whose count is
    down to zero and every vertex whose count falls to zero as they go, and returns them:
    their level is ``k`` (the generic path of :func:`peel_levels`, and a directed graph's
    core numbers, whose opposite arcs count twice).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs import semiring
    >>> A = sp.csr_array(np.array([[0, 1, 0], [1, 0, 0], [0, 0, 0]]))   # an edge, a lone vertex
    >>> counts = np.array([1, 1, 0])
    >>> semiring.rising_levels(counts,
    ...                        lambda active, rest: semiring.peel([(A, counts)], active)[0])
    array([1, 1, 0])
    """
    xp, n = array_module(counts), counts.shape[0]
    level = xp.full(n, -1, np.int64)
    active = xp.ones(n, bool)
    rest = xp.arange(n)  # the vertices left, narrowed at each k (most leave early)
    k = 0
    while True:
        rest = rest[active[rest]]
        if not rest.size:
            return level
        low = int(counts[rest].min())
        if low:  # k rises to the smallest count left
            k += low
            counts[rest] -= low
        level[drop(active, rest)] = k
