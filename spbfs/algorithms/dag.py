"""Directed acyclic graphs: Kahn's algorithm as a peel by in-degrees.

Each generation is the set of vertices whose remaining in-degree is zero once the earlier
generations are removed: the rounds of :func:`spbfs.semiring.peel` with the in-degrees as
counts (the CPU's is one worklist kernel for every round; a distributed graph's are one
``plus_pair`` product of the generation's indicator with ``A`` each).  A graph is acyclic
exactly when every vertex is peeled.
"""

from __future__ import annotations

import numpy as np

from ..semiring import Vector, peel, plus_pair, vxm
from ._shared import by_masks, prepare

__all__ = ["is_directed_acyclic_graph", "topological_generations"]


def topological_generations(A):
    """Generation of every vertex (``-1`` for vertices on or behind a cycle).

    Generation 0 holds the vertices without in-edges; generation ``g + 1`` those whose
    in-edges all come from generations ``<= g``, as ``networkx.topological_generations``.

    Parameters
    ----------
    A : scipy.sparse / cupyx.scipy.sparse matrix or array, 2-D array, or Matrix
        ``A[i, j]`` stored is an edge ``i -> j`` (values ignored, duplicates once; a
        self-loop is a cycle).

    Returns
    -------
    ndarray of int64

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs.algorithms.dag import topological_generations
    >>> A = sp.csr_array(np.array([[0, 1, 1, 0], [0, 0, 1, 0], [0, 0, 0, 0], [0, 0, 0, 0]]))
    >>> topological_generations(A)
    array([0, 1, 2, 0])
    """
    M = prepare(A).canonical()
    xp, n = M.xp, M.n
    indeg = M.in_degree.astype(np.int64)
    if by_masks(M):
        return _generations_by_masks(M.unit(np.int64), indeg)
    ids, rounds = peel([(M, indeg)], xp.ones(n, bool))
    gen = xp.full(n, -1, np.int64)
    gen[ids] = rounds
    return gen


def _generations_by_masks(M, indeg):
    """:func:`topological_generations` with the generation as a boolean mask (a
    distributed graph's vertex arrays): one ``plus_pair`` product per generation."""
    xp, n = M.xp, M.n
    gen = xp.full(n, -1, np.int64)
    current = indeg == 0
    g = 0
    while current.any():
        gen = xp.where(current, g, gen)
        x = Vector(n, "bitmap", present=current, values=xp.ones(n, np.int64))
        indeg = indeg - vxm(x, M, plus_pair, dtype=np.int64).to_dense(0)
        current = (indeg == 0) & (gen < 0)
        g += 1
    return gen


def is_directed_acyclic_graph(A):
    """True when the directed graph ``A`` has no cycle (self-loops are cycles).

    Parameters
    ----------
    A : scipy.sparse / cupyx.scipy.sparse matrix or array, 2-D array, or Matrix

    Returns
    -------
    bool

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs.algorithms.dag import is_directed_acyclic_graph
    >>> is_directed_acyclic_graph(sp.csr_array(np.array([[0, 1], [1, 0]])))
    False
    """
    M = prepare(A).canonical()
    if by_masks(M):
        return bool((topological_generations(M) >= 0).all())
    # every vertex peeled, in any order (a backend need not keep the rounds in lock step)
    ids, _ = peel([(M, M.in_degree.astype(np.int64))], M.xp.ones(M.n, bool), lockstep=False)
    return int(ids.size) == M.n
