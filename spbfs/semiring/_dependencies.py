"""Brandes' dependencies on one source: the ``plus_first`` path counts pushed level by level
from the source, then the dependencies pushed back up (the one-source step of betweenness).

The generic path runs a ``vxm`` a level each way over sparse vectors (a level whose push
would read more edges than the rows it may write is pulled instead); a backend with a
``brandes_source`` primitive (the CPU: :mod:`spbfs.cpu.brandes`) runs every level in its own
kernels, with nothing of size ``n`` made per level.
"""

from __future__ import annotations

import numpy as np

from ..core.seam import optional_primitive
from ._backend import backend_for
from ._matrix import Matrix
from ._named import monoids, ops
from ._optypes import Semiring
from ._vector import Vector
from ._vxm import vxm

__all__ = ["source_dependencies"]

#: ``y[j] = sum over the stored A[i, j] of x[i]``: path counts pushed from a sparse ``x``.
_COUNTS = Semiring(monoids.plus, ops.first, name="plus_first")


def source_dependencies(A, source, AT=None):
    """Brandes' dependency of every vertex on the shortest paths from ``source``.

    ``sigma[v]`` counts the shortest paths (by hops) from ``source`` to ``v``;
    ``delta[v]`` sums ``sigma[v] / sigma[w] * (1 + delta[w])`` over the edges ``v -> w``
    with ``w`` one level further from the source (Brandes, 2001).  Betweenness centrality
    is the sum of ``delta`` over the sources.

    Parameters
    ----------
    A : square sparse matrix/array or Matrix (CPU or GPU)
        ``A[i, j]`` stored is an edge ``i -> j``; values ignored.
    source : int
        The source vertex (checked by the caller).
    AT : Matrix, optional
        ``A.T`` when the caller holds it (the pulls read it).

    Returns
    -------
    ndarray of float64
        ``delta``: zero at the source and where it does not reach.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs import semiring
    >>> A = sp.csr_array(np.array([[0, 1, 1, 0], [0, 0, 0, 1], [0, 0, 0, 1], [0, 0, 0, 0]]))
    >>> semiring.source_dependencies(A, 0)
    array([0. , 0.5, 0.5, 0. ])
    """
    M = Matrix.from_any(A)
    MT = M.T if AT is None else AT
    kernel = optional_primitive(backend_for(M.xp), "brandes_source")
    if kernel is not None:
        delta = M.xp.zeros(M.n)
        kernel(M.indptr, M.indices, MT.indptr, MT.indices, int(source), delta)
        return delta
    return _levels(M, MT, int(source))


def _levels(M, MT, s):
    """The generic path: each level's vertices push their path counts through
    ``plus_first`` to the unvisited vertices (the push reads the frontier's edges alone),
    then each level from the deepest up pushes ``(1 + delta) / sigma`` back along the
    reversed edges and keeps what lands on the level above.  A level whose push would read
    more edges than the rows it may write hold is pulled instead (the vector as a bitmap:
    each such row sums its in-edges, no scatter to merge), as the middle levels of a
    small-world graph are: the unvisited rows forwards, the level above backwards."""
    xp, n = M.xp, M.n
    out_edges, in_edges = M.out_degree, MT.out_degree  # what a push, a pull of a row reads
    sigma = xp.zeros(n, np.float64)
    sigma[s] = 1.0
    visited = xp.zeros(n, bool)
    visited[s] = True
    level = xp.zeros(n, np.int32)
    frontier = Vector.sparse(xp.asarray([s]), xp.ones(1), size=n, check=False)
    unvisited_edges = int(in_edges.sum()) - int(in_edges[s])
    levels = []
    while True:
        x = _pulled(frontier, out_edges, unvisited_edges)
        y = vxm(x, M, _COUNTS, mask=visited, complement=True).to_sparse()
        if not y.indices.size:
            break
        visited[y.indices] = True
        sigma[y.indices] = y.values
        unvisited_edges -= int(in_edges[y.indices].sum())
        levels.append(y.indices)
        level[y.indices] = len(levels)
        frontier = y
    delta = xp.zeros(n, np.float64)
    for d in range(len(levels), 1, -1):
        w, above = levels[d - 1], levels[d - 2]
        t = Vector.sparse(w, (1.0 + delta[w]) / sigma[w], size=n, sort=False, check=False)
        x = _pulled(t, in_edges, int(out_edges[above].sum()))
        if x.format == "sparse":
            y = vxm(t, MT, _COUNTS)
            keep = level[y.indices] == d - 1
            v, flow = y.indices[keep], y.values[keep]
        else:
            on_level = xp.zeros(n, bool)
            on_level[above] = True
            y = vxm(x, MT, _COUNTS, mask=on_level).to_sparse()
            v, flow = y.indices, y.values
        delta[v] = sigma[v] * flow
    return delta


def _pulled(x, push_edges, pull_edges):
    """The sparse vector ``x`` as a bitmap (a pull) where pushing it reads more edges
    (``push_edges``: the edges a push reads per vertex) than the ``pull_edges`` a pull of
    the rows it may write reads; else ``x``."""
    if int(push_edges[x.indices].sum()) > pull_edges:
        return x.to_bitmap()
    return x
