"""Degrees, degree centrality and isolated vertices, from row and column counts of the
pattern (duplicates merged): ``reduce`` over ``plus`` and the pattern's own counts."""

from __future__ import annotations

import numpy as np

from ..core.validation import check_choice
from ..semiring import monoids, reduce, select
from ._shared import check_undirected, prepare

__all__ = ["centrality_of_degrees", "degree_centrality", "degrees", "isolates"]

_KINDS = ("total", "in", "out")


def degrees(A, directed=True, kind="total"):
    """Degree of every vertex as NetworkX counts it (a self-loop counts twice in ``"total"``).

    Parameters
    ----------
    A : scipy.sparse / cupyx.scipy.sparse matrix or array, 2-D array, or Matrix
        ``A[i, j]`` stored is an edge ``i -> j``; values ignored, duplicates count once.
        With ``directed=False`` the pattern must store every edge both ways.
    directed : bool
        False: ``A`` is an undirected graph's symmetric adjacency matrix.
    kind : {"total", "in", "out"}
        For a directed graph: in + out, in or out edges.

    Returns
    -------
    ndarray of int64

    Raises
    ------
    ValueError
        ``A`` not square, not symmetric with ``directed=False``, or an unknown ``kind``.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs.algorithms.degree import degrees
    >>> A = sp.csr_array(np.array([[1, 1, 0], [0, 0, 1], [0, 0, 0]]))
    >>> degrees(A), degrees(A, kind="in")
    (array([3, 2, 1]), array([1, 1, 1]))
    """
    check_choice(kind, "kind", _KINDS)
    M = prepare(A).canonical()
    out = M.out_degree.astype(np.int64)
    if not directed:  # the self-loops per row, counted once per pattern where kept
        check_undirected(M)   # (its answer kept with the pattern too)
        pattern = getattr(M, "pattern", None)  # a distributed matrix keeps none
        return out + (_loops(M) if pattern is None
                      else pattern.derived("self-loops per row", lambda: _loops(M)))
    if kind == "out":
        return out
    inn = M.in_degree.astype(np.int64)
    return inn if kind == "in" else inn + out


def _loops(M):
    loops = select(M, "diag")
    return loops.out_degree.astype(np.int64) if loops.nnz else M.xp.zeros(M.n, np.int64)


def degree_centrality(A, directed=True, kind="total"):
    """Degree centrality, ``degree / (n - 1)``, as ``networkx.degree_centrality`` (and its
    ``in_`` / ``out_`` forms).

    Parameters
    ----------
    A, directed, kind
        As for :func:`degrees`.

    Returns
    -------
    ndarray of float64
        All ones for a graph of one vertex (NetworkX's convention).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs.algorithms.degree import degree_centrality
    >>> A = sp.csr_array(np.array([[0, 1, 1], [1, 0, 0], [1, 0, 0]]))
    >>> degree_centrality(A, directed=False)
    array([1. , 0.5, 0.5])
    """
    d = degrees(A, directed, kind)
    n = int(d.shape[0])
    if n <= 1:
        return d.astype(np.float64) * 0 + 1.0
    return centrality_of_degrees(d, n)


def centrality_of_degrees(d, n):
    """Degree centrality of degrees ``d`` in a graph of ``n > 1`` vertices.

    Examples
    --------
    >>> import numpy as np
    >>> centrality_of_degrees(np.array([0, 1, 2]), 3)
    array([0. , 0.5, 1. ])
    """
    return d * (1.0 / (n - 1))


def isolates(A):
    """The vertices without any edge (a self-loop is an edge), ascending.

    Parameters
    ----------
    A : scipy.sparse / cupyx.scipy.sparse matrix or array, 2-D array, or Matrix

    Returns
    -------
    ndarray of int64
        On a distributed graph: the same array on every rank (a list of vertices, not a
        vertex array).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs.algorithms.degree import isolates
    >>> isolates(sp.csr_array(np.array([[0, 1, 0], [0, 0, 0], [0, 0, 0]])))
    array([2])
    """
    M = prepare(A).canonical()
    xp = M.xp
    touched = M.out_degree > 0
    if M.nnz and not M.symmetric:  # else a column's entries are its row's
        touched = touched | (reduce(M.unit(np.int64), monoids.plus,
                                    axis=0).to_dense(0) > 0)
    return xp.flatnonzero(~touched).astype(np.int64)
