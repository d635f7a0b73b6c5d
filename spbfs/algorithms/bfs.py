"""Direction-optimising breadth-first search written with semiring operators."""

from __future__ import annotations

from ..core.validation import check_choice, check_positive, check_source
from ._level_loop import search
from ._shared import ALPHA, BETA, prepare
from .msbfs import bfs_many

__all__ = ["ALPHA", "BETA", "bfs", "prepare", "search"]

def bfs(A, source, *, return_parents=False, return_levels=True, directed=True,
        direction="auto", alpha=None, beta=BETA):
    """Breadth-first search levels (and parents) from ``source``.

    Each level is one masked ``vxm`` over a Boolean-style semiring:
    ``any_pair`` for levels, ``any_secondi`` when parents are wanted (the
    parent is the index of the frontier vertex).  A sparse frontier is
    pushed (SpMSpV); a large one is pulled (masked SpMV with early exit),
    switching per level by Beamer's rule.

    Parameters
    ----------
    A : scipy.sparse / cupyx.scipy.sparse matrix or array, 2-D array, or Matrix
        ``A[i, j]`` stored (even an explicit zero) is an edge ``i -> j``; a BSR matrix's
        stored zeros (its blocks' padding) are not.  Dense arrays: zero, NaN and inf are
        not edges; masked arrays: the unmasked entries are, zeros included (as
        scipy.sparse.csgraph; :func:`spbfs.prepare` reads every algorithm's input so).
    source : int or 1-D array of int
        Start vertex, or ``k`` start vertices: then levels (and parents) have shape
        ``(k, n)``, int32 unless n needs int64, computed as one multi-source search
        (:func:`spbfs.algorithms.msbfs.bfs_many`); on a distributed graph, DistArray
        blocks of shape ``(n, k)`` (column ``i`` for source ``i``), one search per source.
    return_parents : bool
        Also return the BFS tree as a parent array.
    return_levels : bool
        False with ``return_parents``: return the parents alone (Graph500's search output).
        The GPU then writes no levels: 4 bytes a vertex less memory and traffic.
    directed : bool
        False makes every edge usable in both directions.
    direction : {"auto", "push", "pull"}
        ``"auto"`` is direction-optimising; the others force one direction.
    alpha, beta : float
        Beamer's switching factors: push -> pull when the frontier's edges
        exceed the unexplored edges / ``alpha``; pull -> push when the frontier
        has fewer than ``n / beta`` vertices.  ``alpha=None`` takes the engine's
        (:attr:`spbfs.semiring.LevelSearch.alpha`): Beamer's 15 on the CPU, 40 on a
        GPU (measured, docs/gpu.md); over several ranks each rank's engine's.

    Returns
    -------
    levels : ndarray
        Hop count from ``source``; -1 where unreachable.  int32 unless the
        graph needs int64 indices.  numpy for CPU input, cupy for GPU input; for a
        :class:`spbfs.dist.DistGraph`, a DistArray of the owned vertices
        (``G.gather(levels)`` assembles it, as for :func:`spbfs.dist.bfs`).
    parents : ndarray, optional
        ``parents[source] == source``; -1 where unreachable.  Alone when
        ``return_levels=False``.

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> import spbfs
    >>> A = sp.csr_array(np.array([[0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0], [1, 0, 0, 0]]))
    >>> spbfs.bfs(A, 0)
    array([ 0,  1,  2, -1], dtype=int32)
    >>> levels, parents = spbfs.bfs(A, 0, return_parents=True, directed=False)
    >>> levels.tolist(), parents.tolist()
    ([0, 1, 2, 1], [0, 0, 1, 0])
    >>> spbfs.bfs(A, 0, return_parents=True, return_levels=False, directed=False).tolist()
    [0, 0, 1, 0]
    """
    check_choice(direction, "direction", ("auto", "push", "pull"))
    if not return_levels and not return_parents:
        raise ValueError("return_levels=False needs return_parents=True: there would be "
                         "nothing to return")
    alpha = None if alpha is None else check_positive(alpha, "alpha")
    beta = check_positive(beta, "beta")
    if isinstance(source, (list, tuple)) or getattr(source, "ndim", 0) == 1:
        tuned = {} if alpha is None else {"alpha": alpha}  # bfs_many has its own default
        out = bfs_many(A, source, return_parents=return_parents, directed=directed,
                       direction=direction, beta=beta, **tuned)
        return out if return_levels else out[1]
    M = prepare(A, directed, values=False)
    return search(M, check_source(source, M.n), return_parents=return_parents,
                  return_levels=return_levels, direction=direction, alpha=alpha, beta=beta)
