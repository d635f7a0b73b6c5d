"""k-core decomposition by parallel peeling: every vertex of degree ``<= k`` leaves at
once, and one ``plus_times`` product of the leaving set's indicator with the adjacency
matrix lowers its neighbours' degrees; ``k`` rises to the smallest remaining degree when
nothing is left to peel."""

from __future__ import annotations

import numpy as np

from ..semiring import Vector, ewise_add, monoids, ops, plus_times, reduce, vxm
from ._shared import prepare

__all__ = ["core_number"]


def core_number(A, directed=False):
    """Core number of every vertex, as ``networkx.core_number``.

    Parameters
    ----------
    A : scipy.sparse / cupyx.scipy.sparse matrix or array, 2-D array, or Matrix
        ``A[i, j]`` stored is an edge (values ignored, duplicates once).  No self-loops.
    directed : bool
        True: a directed graph, whose degree is in + out (a pair of opposite edges counts
        twice), as NetworkX's.  False: ``A`` must be symmetric.

    Returns
    -------
    ndarray of int64

    Raises
    ------
    ValueError
        ``A`` not square or with self-loops.

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
    P = M.with_values(xp.ones(M.nnz, np.int64))
    if M.nnz and bool((M.entry_rows == M.indices).any()):
        raise ValueError("A has self-loops; core numbers are defined without them")
    S = ewise_add(P, P.T, ops.plus) if directed else P
    deg = (reduce(S, monoids.plus, axis=1).to_dense(0).astype(np.int64) if S.nnz
           else xp.zeros(n, np.int64))
    core = xp.full(n, -1, np.int64)
    alive = xp.ones(n, bool)
    k = 0
    while True:
        left = int(alive.sum())
        if not left:
            return core
        k = max(k, int(deg[alive].min()))
        while True:
            peel = xp.flatnonzero(alive & (deg <= k))
            if not peel.size:
                break
            core[peel] = k
            alive[peel] = False
            x = Vector.sparse(peel.astype(S.indices.dtype), xp.ones(peel.size, np.int64),
                              size=n)
            lost = vxm(x, S, plus_times, dtype=np.int64).to_sparse()
            deg[lost.indices] -= lost.values
