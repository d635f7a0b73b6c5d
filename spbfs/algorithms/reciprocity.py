"""Reciprocity: the share of edges whose reverse edge exists, from ``P .* P.T``."""

from __future__ import annotations

import numpy as np

from ..semiring import ewise_mult, monoids, ops, reduce, select
from ._shared import prepare

__all__ = ["overall_reciprocity", "reciprocity"]


def _pattern(A):
    M = prepare(A).canonical()
    return M.unit(np.int64)


def reciprocity(A):
    """Per vertex: ``2 * |in ∩ out| / (|in| + |out|)``, as ``networkx.reciprocity(G, nodes)``.

    Parameters
    ----------
    A : scipy.sparse / cupyx.scipy.sparse matrix or array, 2-D array, or Matrix
        A directed graph (``A[i, j]`` stored: edge ``i -> j``; values ignored, duplicates
        once; a self-loop is its own reverse).

    Returns
    -------
    ndarray of float64
        ``nan`` for a vertex without edges (NetworkX raises for those).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs.algorithms.reciprocity import reciprocity
    >>> reciprocity(sp.csr_array(np.array([[0, 1, 1], [1, 0, 0], [0, 0, 0]])))
    array([0.66666667, 1.        , 0.        ])
    """
    P = _pattern(A)
    xp = P.xp
    both = ewise_mult(P, P.T, ops.pair)
    overlap = (reduce(both, monoids.plus, axis=1).to_dense(0).astype(np.float64) if both.nnz
               else xp.zeros(P.n, np.float64))
    total = (P.out_degree + P.in_degree).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return xp.where(total > 0, 2.0 * overlap / xp.where(total > 0, total, 1.0), np.nan)


def overall_reciprocity(A):
    """Share of the edges whose reverse is an edge too (self-loops excluded from the
    reciprocated ones), as ``networkx.overall_reciprocity``.

    Parameters
    ----------
    A : scipy.sparse / cupyx.scipy.sparse matrix or array, 2-D array, or Matrix

    Returns
    -------
    float
        ``nan`` without edges (NetworkX raises).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs.algorithms.reciprocity import overall_reciprocity
    >>> overall_reciprocity(sp.csr_array(np.array([[0, 1, 1], [1, 0, 0], [0, 0, 0]])))
    0.6666666666666666
    """
    P = _pattern(A)
    if P.nnz == 0:
        return float("nan")
    both = select(ewise_mult(P, P.T, ops.pair), "offdiag")
    return both.nnz / P.nnz
