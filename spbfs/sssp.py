"""Single-source shortest paths over the min_plus semiring."""

from __future__ import annotations

import numpy as np

from ._validation import UNREACHED, check_source
from .bfs import bfs, prepare
from .semiring import Vector, min_plus
from .semiring._matrix import csr_from_coo
from .semiring._operators import push

__all__ = ["sssp"]


def sssp(A, source, *, directed=True, return_predecessors=False):
    """Shortest path lengths from ``source`` (non-negative edge weights).

    A frontier-based Bellman-Ford: each round pushes the vertices whose
    distance improved through ``min_plus`` (``y = x @ A`` with
    ``y[j] = min_i x[i] + A[i, j]``) and keeps the improvements.  It ends in
    at most ``n`` rounds and usually in about the graph's hop diameter.

    Parameters
    ----------
    A : sparse matrix/array or 2-D array or Matrix
        ``A[i, j]`` is the weight of edge ``i -> j``; stored zeros are
        zero-weight edges; in dense input zero, NaN and inf mean no edge.
    source : int
    directed : bool
        False lets every edge be used both ways.
    return_predecessors : bool
        Also return a shortest-path tree (``-1`` for the source and for
        unreachable vertices, like scipy's ``-9999`` but Graph500-style).

    Returns
    -------
    dist : ndarray of float64
        ``inf`` where unreachable.
    predecessors : ndarray, optional
        Computed from exact equality ``dist[i] + A[i, j] == dist[j]``; with
        floating-point weights whose sums round (say 1e16 + 1) a vertex may
        have no such edge chain from the source and is then left at -1.

    Raises
    ------
    ValueError
        If ``A`` has negative or NaN weights.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> import spbfs
    >>> A = sp.csr_array(np.array([[0, 4.0, 1.0], [0, 0, 0], [0, 2.0, 0]]))
    >>> spbfs.sssp(A, 0)
    array([0., 3., 1.])
    >>> spbfs.sssp(A, 1, directed=False, return_predecessors=True)[1].tolist()
    [2, -1, 1]
    """
    M = prepare(A, directed)
    source = check_source(source, M.n)
    xp = M.xp
    if M.data.dtype.kind not in "biuf":
        raise TypeError(f"A must have numeric weights, got {M.data.dtype}")
    weights = M.data.astype(np.float64, copy=False)
    if M.nnz:
        if bool(xp.isnan(weights).any()):
            raise ValueError("A has NaN weights; shortest paths need numbers")
        if float(weights.min()) < 0:
            raise ValueError("A has negative weights; sssp needs non-negative weights")
    if weights is not M.data:
        M = M.with_values(weights)
    dist = xp.full(M.n, np.inf)
    dist[source] = 0.0
    frontier = Vector(M.n, "sparse", indices=xp.asarray([source], dtype=M.indices.dtype),
                      values=xp.zeros(1))
    for _ in range(M.n):
        if not frontier.indices.size:
            break
        y = push(M, frontier, min_plus, None, False, np.dtype(np.float64))
        better = y.values < dist[y.indices]
        idx, val = y.indices[better], y.values[better]
        dist[idx] = val
        frontier = Vector(M.n, "sparse", indices=idx, values=val)
    if not return_predecessors:
        return dist
    return dist, _predecessors(M, dist, source)


def _predecessors(M, dist, source):
    """A shortest-path tree: BFS parents in the subgraph of tight edges.

    At the fixpoint ``dist[j] <= dist[i] + A[i, j]`` for every edge, and the
    edges with equality ("tight") contain a shortest path to every reached
    vertex; a BFS over them gives an acyclic tree even with zero weights.
    """
    from .semiring import Matrix

    xp = M.xp
    rows = M.pattern.rows()
    tight = xp.isfinite(dist[rows]) & (dist[rows] + M.data == dist[M.indices])
    indptr, indices, data = csr_from_coo(rows[tight], M.indices[tight], M.data[tight], M.n)
    _, pred = bfs(Matrix(indptr, indices, data, M.n, check=False), source, return_parents=True)
    pred[source] = UNREACHED
    return pred
