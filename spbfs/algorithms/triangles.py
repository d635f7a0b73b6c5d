"""Per-vertex triangle counts of an undirected graph, by two masked ``plus_pair`` products
on the lower triangle of the degree-ordered pattern.

Vertices are first renumbered by increasing degree (:func:`spbfs.semiring.lower_pattern`), so
that "lower" means "of smaller degree", and ``L`` is the strict lower triangle of the
pattern (self-loops and values dropped, duplicates counted once).  Then

* ``C1 = L .* (L @ L.T)``: ``C1[a, b]`` (``a > b``, ``a ~ b``) counts the ``c < b`` adjacent
  to both ``a`` and ``b``;
* ``C2 = L .* (L @ L)``:  ``C2[a, c]`` (``a > c``, ``a ~ c``) counts the ``b`` with
  ``a > b > c`` adjacent to both.

Proof that ``triangles = rowsum(C1) + colsum(C1) + colsum(C2)``: a triangle of the graph
has three distinct corners, so exactly one way to name them ``a > b > c``, and its three
edges ``(a, b)``, ``(a, c)``, ``(b, c)`` are all stored in ``L`` (row > column).  In
``C1 = L .* (L L^T)``, ``C1[i, j] = sum_k L[i, k] L[j, k]`` over the stored ``L[i, j]``,
i.e. the number of ``k < j < i`` with ``i ~ k``, ``j ~ k``, ``i ~ j``: the triangle is
counted once, at ``(i, j) = (a, b)`` with ``k = c``, and nowhere else (any other position
would name its corners in another order).  So row ``v`` of ``C1`` sums the triangles whose
largest corner is ``v`` and column ``v`` those whose middle corner is ``v``.  In
``C2 = L .* (L L)``, ``C2[i, j] = sum_k L[i, k] L[k, j]`` counts ``i > k > j`` with all three
edges: the triangle is counted once, at ``(a, c)`` with ``k = b``, so column ``v`` of ``C2``
sums the triangles whose smallest corner is ``v``.  Every triangle at ``v`` has ``v`` as
exactly one of its largest, middle or smallest corners, which gives the sum.  Renumbering
changes none of this (it is a graph isomorphism); the counts are then put back in the
original vertex order.

Why this form: with vertices ordered by degree, ``L @ L.T`` enumerates, for every vertex,
the pairs of its higher-degree neighbours (a well-known ``O(m^1.5)`` bound), and
``L @ L`` the pairs (higher, lower) neighbour.  Both products are masked by ``L``; the
backends choose how: on the GPU one merge kernel per masked dot product (the unmasked
product is never formed: at Kronecker scale 22 it overflows cuSPARSE's 32-bit counts), on
the CPU scipy's compiled SpGEMM followed by the mask while that costs at most a few times
the masked dot products (see ``spbfs.semiring.NATIVE_MASKED_RATIO``).
"""

from __future__ import annotations

import numpy as np

from ..semiring import (
    ewise_mult,
    lower_pattern,
    monoids,
    mxm,
    ops,
    plus_pair,
    reduce,
    select,
)
from ._shared import by_masks, prepare

__all__ = ["triangle_count", "triangles"]


def triangles(A):
    """Number of triangles at every vertex of an undirected graph, as ``networkx.triangles``.

    Parameters
    ----------
    A : scipy.sparse / cupyx.scipy.sparse matrix or array, 2-D array, or Matrix
        Symmetric adjacency matrix: the pattern (which positions are stored, explicit
        zeros included) must equal its transpose.  Values are ignored, duplicates count
        once and self-loops are ignored.  In a dense array zero, NaN and inf are not edges.

    Returns
    -------
    ndarray of int64
        ``t[v]``: triangles having ``v`` as a corner (numpy for CPU input, cupy for GPU
        input).  ``t.sum() // 3`` is the number of triangles.

    Raises
    ------
    ValueError
        ``A`` is not square or its pattern is not symmetric (a directed graph: use
        ``A + A.T`` for its undirected version).
    TypeError
        ``A`` is not a matrix.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs.algorithms.triangles import triangles
    >>> A = sp.csr_array(np.array([[0, 1, 1, 0], [1, 0, 1, 1], [1, 1, 0, 1], [0, 1, 1, 0]]))
    >>> triangles(A)
    array([1, 2, 2, 1])
    """
    M = prepare(A).canonical()  # square, duplicates merged
    xp, n = M.xp, M.n
    if by_masks(M):
        return _triangles_by_masks(M)
    L, perm = _lower_by_degree(M)
    # masked products over plus_pair, never the unmasked ones: C1 = L .* (L @ L.T) and
    # C2 = L .* (L @ L), each entry a dot product of two sorted rows
    C1 = mxm(L, L.T, plus_pair, L, structural=True)
    C2 = mxm(L, L, plus_pair, L, structural=True)
    counts = (_sums(C1, 1, n, xp) + _sums(C1, 0, n, xp) + _sums(C2, 0, n, xp))
    out = xp.empty(n, np.int64)
    out[perm] = xp.rint(counts).astype(np.int64)
    return out


def triangle_count(A) -> int:
    """Number of triangles of an undirected graph (``sum(nx.triangles(G).values()) // 3``).

    One masked product over ``plus_pair`` on the lower triangle ``L`` of the degree-ordered
    pattern, ``C = L .* (L @ L.T)``, whose entries sum to the count: each triangle
    ``a > b > c`` is counted once, at ``(a, b)`` (the module's proof); :func:`triangles`
    needs a second product for the per-vertex counts.  LAGraph's ``TriangleCount`` calls
    this the dot-product method of the "Sandia" family.

    Parameters
    ----------
    A : scipy.sparse / cupyx.scipy.sparse matrix or array, 2-D array, or Matrix
        Symmetric adjacency matrix, as :func:`triangles` takes it (values ignored,
        duplicates counted once, self-loops ignored).

    Returns
    -------
    int

    Raises
    ------
    ValueError
        ``A`` is not square or its pattern is not symmetric.
    TypeError
        ``A`` is not a matrix.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs.algorithms.triangles import triangle_count
    >>> A = sp.csr_array(np.array([[0, 1, 1, 0], [1, 0, 1, 1], [1, 1, 0, 1], [0, 1, 1, 0]]))
    >>> triangle_count(A)
    2
    """
    M = prepare(A).canonical()
    if by_masks(M):   # a distributed graph: from the per-vertex counts
        return int(_triangles_by_masks(M).sum()) // 3
    L, _ = _lower_by_degree(M)
    C = mxm(L, L.T, plus_pair, L, structural=True)
    return int(reduce(C, monoids.plus, dtype=np.int64)) if C.nnz else 0


def _lower_by_degree(M):
    """``(L, perm)``: the strict lower triangle of the pattern of the symmetric ``M``
    renumbered by increasing degree (``perm[i]``: the vertex numbered ``i``), int32 ones
    (a count of common neighbours fits; sums are taken in int64 or float64); made once
    per pattern and kept with it, as its transpose is (the renumbering sorts every row
    again: most of a call's time on one thread at scale 18, all of it on sixteen)."""
    return M.pattern.derived("lower triangle by degree", lambda: _renumbered_lower(M))


def _renumbered_lower(M):
    xp = M.xp
    if not M.pattern.equals_transpose():  # M is canonical: the same as a symmetric pattern
        raise ValueError("A must be symmetric (an undirected graph): its pattern differs from "
                         "the pattern of A.T; pass A + A.T for the undirected version of a "
                         "directed graph")
    perm = xp.argsort(M.out_degree, kind="stable")
    return lower_pattern(M, perm, np.int32), perm


def _triangles_by_masks(M):
    """:func:`triangles` on a matrix whose vertex arrays take element-wise work only (a
    distributed graph's): the same two masked products on the lower triangle of the degree
    order, without renumbering: ``L`` keeps the entries ``(a, b)`` whose key ``deg * n +
    id`` is larger at ``a`` (:meth:`~spbfs.dist.matrix.DistMatrix.select_ends`)."""
    xp, n = M.xp, M.n
    P = select(M.unit(np.float64), "offdiag")
    if not M.symmetric and not _symmetric_pattern(P):
        raise ValueError("A must be symmetric (an undirected graph): its pattern differs from "
                         "the pattern of A.T; pass A + A.T for the undirected version of a "
                         "directed graph")
    key = M.unit(np.float64).out_degree.astype(np.int64) * n + xp.arange(n)
    L = P.select_ends(key, np.greater)
    C1 = mxm(L, L.T, plus_pair, L, structural=True)
    C2 = mxm(L, L, plus_pair, L, structural=True)
    counts = (_sums(C1, 1, n, xp) + _sums(C1, 0, n, xp) + _sums(C2, 0, n, xp))
    return xp.rint(counts).astype(np.int64)


def _symmetric_pattern(P):
    """Whether ``P``'s pattern equals its transpose's (the entries both hold are all)."""
    return P.nnz == P.T.nnz == ewise_mult(P, P.T, ops.pair).nnz


def _sums(C, axis, n, xp):
    """Row (axis=1) or column (axis=0) sums of ``C`` as a dense float64 array."""
    if C.nnz == 0:
        return xp.zeros(n, np.float64)
    return reduce(C, monoids.plus, axis=axis, dtype=np.float64).to_dense(0.0)
