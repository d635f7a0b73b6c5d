"""Clustering coefficients and transitivity from masked ``plus_times`` products.

With ``P`` the pattern without self-loops (duplicates once):

* undirected: ``t = 2 * triangles`` per vertex (:func:`~spbfs.algorithms.triangles.triangles`),
  ``c = t / (d (d - 1))``;
* directed (Fagiolo, as NetworkX): ``S = P + P.T``, ``t = diag(S^3)`` = row sums of
  ``S .* (S @ S)`` (one product masked by ``S``), ``c = t / (2 (d_tot (d_tot - 1) - 2 d_bi))``
  with ``d_bi`` the row sums of ``P .* P.T``;
* square clustering (undirected): with ``C = P @ P`` (``plus_pair``), the squares at ``v``
  are ``sum_{x != v} C[v, x] (C[v, x] - 1) / 2``, and the denominator is
  ``(d - 1) sum_{u ~ v} d_u - d (d - 1) - t - squares`` (NetworkX's formula).
"""

from __future__ import annotations

import numpy as np

from ..core.arrays import array_module
from ..semiring import (
    apply,
    ewise_add,
    ewise_mult,
    monoids,
    mxm,
    ops,
    plus_pair,
    plus_times,
    reduce,
    select,
)
from ._shared import by_masks, prepare
from .triangles import triangles

__all__ = ["clustering", "square_clustering", "square_parts", "transitivity"]


def _pattern(A):
    """The pattern without self-loops, float64 ones, duplicates merged."""
    M = select(prepare(A).canonical(), "offdiag")
    return M.unit(np.float64)


def _row_sums(M):
    if M.nnz == 0:
        return M.xp.zeros(M.n, np.float64)
    return reduce(M, monoids.plus, axis=1).to_dense(0.0).astype(np.float64)


def _ratio(num, den, xp):
    safe = xp.where(num == 0, 1.0, den)
    return xp.where(num == 0, 0.0, num / safe)


def clustering(A, directed=False):
    """Clustering coefficient of every vertex (unweighted), as ``networkx.clustering``.

    Parameters
    ----------
    A : scipy.sparse / cupyx.scipy.sparse matrix or array, 2-D array, or Matrix
        ``A[i, j]`` stored is an edge ``i -> j``; values, duplicates and self-loops are
        ignored.  With ``directed=False`` the pattern must be symmetric.
    directed : bool
        True: NetworkX's directed clustering (Fagiolo's), over in- and out-edges.

    Returns
    -------
    ndarray of float64
        ``c[v]`` (0 where ``v`` has no triangle); numpy for CPU input, cupy for GPU input.

    Raises
    ------
    ValueError
        ``A`` not square, or not symmetric with ``directed=False``.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs.algorithms.clustering import clustering
    >>> A = sp.csr_array(np.array([[0, 1, 1, 1], [1, 0, 1, 0], [1, 1, 0, 0], [1, 0, 0, 0]]))
    >>> clustering(A).round(4)
    array([0.3333, 1.    , 1.    , 0.    ])
    """
    P = _pattern(A)
    xp = P.xp
    if not directed:
        t = 2.0 * triangles(P).astype(np.float64)
        d = P.out_degree.astype(np.float64)
        return _ratio(t, d * (d - 1.0), xp)
    PT = P.T
    S = ewise_add(P, PT, ops.plus)
    t = _row_sums(ewise_mult(S, mxm(S, S, plus_times, S, structural=True), ops.times))
    dtot = (P.out_degree + PT.out_degree).astype(np.float64)
    dbi = _row_sums(ewise_mult(P, PT, ops.times))
    return _ratio(t, 2.0 * (dtot * (dtot - 1.0) - 2.0 * dbi), xp)


def transitivity(A):
    """Fraction of connected triples that are triangles, as ``networkx.transitivity``.

    Parameters
    ----------
    A : scipy.sparse / cupyx.scipy.sparse matrix or array, 2-D array, or Matrix
        Symmetric pattern (an undirected graph); values, duplicates and self-loops ignored.

    Returns
    -------
    float
        ``3 * triangles / triads`` (0 without triangles).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs.algorithms.clustering import transitivity
    >>> A = sp.csr_array(np.array([[0, 1, 1, 1], [1, 0, 1, 0], [1, 1, 0, 0], [1, 0, 0, 0]]))
    >>> round(transitivity(A), 4)
    0.6
    """
    P = _pattern(A)
    t = float((2 * triangles(P)).sum())
    d = P.out_degree.astype(np.float64)
    return 0.0 if t == 0 else t / float((d * (d - 1.0)).sum())


def square_clustering(A):
    """Squares clustering coefficient of every vertex, as ``networkx.square_clustering``.

    Parameters
    ----------
    A : scipy.sparse / cupyx.scipy.sparse matrix or array, 2-D array, or Matrix
        Symmetric pattern (an undirected graph); values, duplicates and self-loops ignored.

    Returns
    -------
    ndarray of float64

    Notes
    -----
    On a distributed graph the product ``P @ P`` (unmasked: every pair of vertices two
    steps apart) is formed by each rank for its rows, from the whole rows of their
    neighbours fetched from the owners: a hub's row goes to every rank that holds one of
    its neighbours, so memory and traffic grow with ``P`` times the edges around hubs.
    It is correct everywhere but does not scale to skewed graphs on many ranks.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs.algorithms.clustering import square_clustering
    >>> A = sp.csr_array(np.array([[0, 1, 0, 1], [1, 0, 1, 0], [0, 1, 0, 1], [1, 0, 1, 0]]))
    >>> square_clustering(A)
    array([1., 1., 1., 1.])
    """
    squares, potential = square_parts(A)
    xp = array_module(squares)
    return xp.where(potential > 0, squares / xp.where(potential > 0, potential, 1.0), 0.0)


def square_parts(A):
    """``(squares, potential)`` per vertex: :func:`square_clustering` is their ratio where
    ``potential > 0`` (0 elsewhere, which NetworkX writes as the int 0).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs.algorithms.clustering import square_parts
    >>> A = sp.csr_array(np.array([[0, 1, 0, 1], [1, 0, 1, 0], [0, 1, 0, 1], [1, 0, 1, 0]]))
    >>> square_parts(A)
    (array([1., 1., 1., 1.]), array([1., 1., 1., 1.]))
    """
    P = _pattern(A)
    d = P.out_degree.astype(np.float64)
    C = select(mxm(P, P, plus_pair), "offdiag")
    if by_masks(P):   # sum C (C - 1) without apply (no distributed apply on matrices)
        squares = (_row_sums(ewise_mult(C, C, ops.times)) - _row_sums(C)) / 2.0
    else:
        squares = _row_sums(ewise_mult(C, apply(C, ops.minus, right=1.0), ops.times)) / 2.0
    t = 2.0 * triangles(P).astype(np.float64)
    nbr_degrees = mxm(P, d[:, None], plus_times)[:, 0]
    potential = (d - 1.0) * nbr_degrees - d * (d - 1.0) - t - squares
    return squares, P.xp.where(d - 1.0 <= 0, 0.0, potential)
