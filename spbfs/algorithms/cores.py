"""k-core decomposition by peeling: every vertex of degree ``<= k`` leaves, lowering its
neighbours' degrees, and ``k`` rises to the smallest remaining degree when nothing is left
to peel.  A symmetric pattern is peeled by :func:`spbfs.semiring.peel_levels` (on the CPU one
bucket pass; elsewhere a worklist ``peel`` per level); a directed one (a pair of opposite
arcs counts twice) by one ``plus_times`` product of the leaving set's indicator with the
adjacency matrix per round, level by level (:func:`spbfs.semiring.rising_levels`)."""

from __future__ import annotations

import numpy as np

from ..core.validation import check_number
from ..semiring import (
    Vector,
    ewise_add,
    ewise_mult,
    monoids,
    mxm,
    ops,
    peel_levels,
    plus_pair,
    plus_times,
    reduce,
    rising_levels,
    select,
    vxm,
)
from ._shared import by_masks, check_undirected, prepare

__all__ = ["core_number", "k_truss"]


def core_number(A, directed=False):
    """Core number of every vertex, as ``networkx.core_number``.

    Parameters
    ----------
    A : scipy.sparse / cupyx.scipy.sparse matrix or array, 2-D array, or Matrix
        ``A[i, j]`` stored is an edge (values ignored, duplicates once).  No self-loops.
    directed : bool
        True: a directed graph, whose degree is in + out (a pair of opposite edges counts
        twice), as NetworkX's.  False: ``A`` must be symmetric (its pattern: an undirected
        graph's; checked).

    Returns
    -------
    ndarray of int64

    Raises
    ------
    ValueError
        ``A`` not square, with self-loops, or (``directed=False``) not symmetric.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs.algorithms.cores import core_number
    >>> A = sp.csr_array(np.array([[0, 1, 1, 0], [1, 0, 1, 0], [1, 1, 0, 1], [0, 0, 1, 0]]))
    >>> core_number(A)
    array([2, 2, 2, 1])
    """
    M = prepare(A).canonical()
    xp, n = M.xp, M.n
    P = M.unit(np.int64)
    if M.nnz and _has_loops(M):
        raise ValueError("A has self-loops; core numbers are defined without them")
    if not directed:
        check_undirected(M)
    S = ewise_add(P, P.T, ops.plus) if directed else P
    deg = (reduce(S, monoids.plus, axis=1).to_dense(0).astype(np.int64) if S.nnz
           else xp.zeros(n, np.int64))
    if by_masks(M):
        return _cores_by_masks(S, deg)
    counts = deg  # each vertex's degree less k (deg is this call's own array)
    if not directed:  # a symmetric pattern's entries each count one
        return peel_levels(S, counts)

    def by_products(active, rest):  # a pair of opposite arcs counts twice
        removed = [rest[counts[rest] <= 0]]
        leaving = removed[0]
        while leaving.size:
            active[leaving] = False
            x = Vector.sparse(leaving.astype(S.indices.dtype, copy=False),
                              xp.ones(leaving.size, np.int64), size=n, sort=False, check=False)
            lost = vxm(x, S, plus_times, dtype=np.int64).to_sparse()
            counts[lost.indices] -= lost.values
            # only a vertex whose degree just fell can fall to k now
            near = lost.indices
            leaving = near[active[near] & (counts[near] <= 0)]
            removed.append(leaving)
        return xp.concatenate(removed)

    return rising_levels(counts, by_products)


def _has_loops(M):
    """Whether ``M`` stores a diagonal entry."""
    if by_masks(M):   # no entry arrays: select the diagonal (no communication)
        return select(M, "diag").nnz > 0
    return bool((M.entry_rows == M.indices).any())


def _cores_by_masks(S, deg):
    """:func:`core_number`'s peeling with the leaving set as a boolean mask (a distributed
    graph's vertex arrays): one ``plus_times`` product per round."""
    xp, n = S.xp, S.n
    core = xp.full(n, -1, np.int64)
    alive = xp.ones(n, bool)
    most = np.iinfo(np.int64).max
    k = 0
    while alive.any():
        k = max(k, int(xp.where(alive, deg, most).min()))
        peel = alive & (deg <= k)
        while peel.any():
            core = xp.where(peel, k, core)
            alive = alive & ~peel
            x = Vector(n, "bitmap", present=peel, values=xp.ones(n, np.int64))
            deg = deg - vxm(x, S, plus_times, dtype=np.int64).to_dense(0)
            peel = alive & (deg <= k)
    return core


def k_truss(A, k):
    """The edges of the ``k``-truss of an undirected graph, as ``networkx.k_truss``: the
    largest subgraph whose every edge lies on at least ``k - 2`` of its triangles.

    Each round counts every edge's triangles with one ``plus_pair`` product masked by the
    remaining edges (``S = P .* (P @ P)``) and drops the edges below ``k - 2`` at once,
    until none is dropped.

    Parameters
    ----------
    A : scipy.sparse / cupyx.scipy.sparse matrix or array, 2-D array, or Matrix
        Symmetric pattern without self-loops (values ignored, duplicates once).
    k : int

    Returns
    -------
    Matrix
        The kept pattern (symmetric; columns sorted), values 1.

    Raises
    ------
    ValueError
        ``A`` not square, not symmetric or with self-loops.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs.algorithms.cores import k_truss
    >>> A = sp.csr_array(np.array([[0, 1, 1, 0], [1, 0, 1, 0], [1, 1, 0, 1], [0, 0, 1, 0]]))
    >>> k_truss(A, 3).to_scipy().toarray()
    array([[0., 1., 1., 0.],
           [1., 0., 1., 0.],
           [1., 1., 0., 0.],
           [0., 0., 0., 0.]])
    """
    need = check_number(k, "k") - 2.0
    M = prepare(A).canonical()
    xp = M.xp
    if M.nnz and _has_loops(M):
        raise ValueError("A has self-loops; the k-truss is defined without them")
    P = M.unit(np.float64)
    if by_masks(M):
        return _truss_by_masks(M, P, need)
    PT = P.T.canonical()
    if not (P.nnz == PT.nnz and bool(xp.array_equal(P.indptr, PT.indptr))
            and bool(xp.array_equal(P.indices, PT.indices))):
        raise ValueError("A must be symmetric (an undirected graph)")
    while P.nnz:
        support = ewise_add(P.with_values(xp.zeros(P.nnz)),
                            mxm(P, P, plus_pair, P, structural=True), ops.plus).canonical()
        keep = select(support, "valuege", need)
        if keep.nnz == P.nnz:
            break
        P = keep.unit(np.float64)
    return P


def _truss_by_masks(M, P, need):
    """:func:`k_truss` on a distributed graph: the same rounds, an edge without triangles
    simply absent from the masked product (no explicit zeros to add)."""
    if not (M.symmetric or P.nnz == P.T.nnz == ewise_mult(P, P.T, ops.pair).nnz):
        raise ValueError("A must be symmetric (an undirected graph)")
    while P.nnz and need > 0:
        support = mxm(P, P, plus_pair, P, structural=True)
        keep = select(support, "valuege", need)
        if keep.nnz == P.nnz:
            break
        P = keep.unit(np.float64)
    return P
