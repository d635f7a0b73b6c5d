"""Direction-optimising breadth-first search written with semiring operators."""

from __future__ import annotations

from ._validation import UNREACHED, check_choice, check_positive, check_source
from .semiring import Matrix, Vector, any_pair, any_secondi
from .semiring._operators import pull, push

__all__ = ["ALPHA", "BETA", "bfs", "prepare"]

#: Beamer's defaults: push -> pull when frontier edges exceed unexplored edges / ALPHA,
#: pull -> push when the frontier has fewer than n / BETA vertices.
ALPHA = 15.0
BETA = 18.0


def prepare(A, directed: bool = True) -> Matrix:
    """Check ``A`` and return the :class:`~spbfs.semiring.Matrix` BFS runs on.

    With ``directed=False`` every edge is usable both ways (as scipy's
    ``directed=False``).  There is no need to call this: every function
    caches the prepared form of a scipy/cupyx sparse input itself (see
    :func:`spbfs.clear_cache`), so a repeated plain call costs what a call on
    the prepared Matrix costs.  Useful to keep one object for a dense input.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> M = prepare(sp.csr_array(([1], ([0], [1])), shape=(2, 2)), directed=False)
    >>> M.nnz, M.symmetric
    (2, True)
    """
    M = Matrix.from_any(A)
    if M.nrows != M.ncols:
        raise ValueError(f"A must be square (a graph's adjacency matrix), got shape {M.shape}")
    return M if directed else M.symmetrized()


def bfs(A, source, *, return_parents=False, directed=True, direction="auto",
        alpha=ALPHA, beta=BETA):
    """Breadth-first search levels (and parents) from ``source``.

    Each level is one masked ``vxm`` over a Boolean-style semiring:
    ``any_pair`` for levels, ``any_secondi`` when parents are wanted (the
    parent is the index of the frontier vertex).  A sparse frontier is
    pushed (SpMSpV); a large one is pulled (masked SpMV with early exit),
    switching per level by Beamer's rule.

    Parameters
    ----------
    A : scipy.sparse / cupyx.scipy.sparse matrix or array, 2-D array, or Matrix
        ``A[i, j]`` stored (even an explicit zero) is an edge ``i -> j``.
        Dense arrays: zero, NaN and inf are not edges (as scipy.sparse.csgraph).
    source : int or 1-D array of int
        Start vertex, or ``k`` start vertices: then levels (and parents) have shape
        ``(k, n)``, int32 unless n needs int64, computed as one multi-source search
        (:func:`spbfs.msbfs.bfs_many`).
    return_parents : bool
        Also return the BFS tree as a parent array.
    directed : bool
        False makes every edge usable in both directions.
    direction : {"auto", "push", "pull"}
        ``"auto"`` is direction-optimising; the others force one direction.
    alpha, beta : float
        Beamer's switching factors: push -> pull when the frontier's edges
        exceed the unexplored edges / ``alpha``; pull -> push when the frontier
        has fewer than ``n / beta`` vertices.

    Returns
    -------
    levels : ndarray
        Hop count from ``source``; -1 where unreachable.  int32 unless the
        graph needs int64 indices.  numpy for CPU input, cupy for GPU input.
    parents : ndarray, optional
        ``parents[source] == source``; -1 where unreachable.

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
    """
    check_choice(direction, "direction", ("auto", "push", "pull"))
    alpha = check_positive(alpha, "alpha")
    beta = check_positive(beta, "beta")
    if isinstance(source, (list, tuple)) or getattr(source, "ndim", 0) == 1:
        from .msbfs import bfs_many  # an array of sources: one multi-source search

        tuned = {} if alpha == ALPHA else {"alpha": alpha}  # bfs_many has its own default
        return bfs_many(A, source, return_parents=return_parents, directed=directed,
                        direction=direction, beta=beta, **tuned)
    M = prepare(A, directed)
    source = check_source(source, M.n)
    if M.on_gpu:
        from .gpu import bfs as gpu_bfs

        return gpu_bfs.bfs(M, source, return_parents=return_parents, direction=direction,
                           alpha=alpha, beta=beta)
    return _bfs_levels(M, source, return_parents, direction, alpha, beta)


def _bfs_levels(M, source, return_parents, direction, alpha, beta):
    """The level loop, on a prepared Matrix, with the backend chosen by its arrays."""
    xp, n = M.xp, M.n
    idt = M.indices.dtype
    semiring = any_secondi if return_parents else any_pair
    levels = xp.full(n, UNREACHED, dtype=idt)
    levels[source] = 0
    parents = xp.full(n, UNREACHED, dtype=idt) if return_parents else None
    if return_parents:
        parents[source] = source
    visited = xp.zeros(n, bool)
    visited[source] = True
    indptr = M.indptr
    tindptr = M.T.indptr if direction != "push" else None  # in-degrees steer "auto" only
    unexplored_edges = M.nnz - (_degree_sum(tindptr, source) if tindptr is not None else 0)
    frontier = Vector(n, "sparse", indices=xp.asarray([source], dtype=idt),
                      values=xp.ones(1, bool))
    pulling = direction == "pull"
    # Pulling reads the visited set as the frontier: an unvisited vertex's visited
    # in-neighbours all lie in the current frontier (else it would be visited already).
    visited_vector = Vector(n, "bitmap", present=visited, values=visited)
    level = 0
    while frontier.indices.size:
        level += 1
        if direction == "auto":
            pulling = beamer_pull(pulling, frontier.indices, n, indptr, unexplored_edges, alpha,
                                  beta)
        if pulling:
            found = pull(M, visited_vector, semiring, visited, True, semiring.result_dtype(
                bool, M.dtype)).to_sparse()
        else:
            found = push(M, frontier, semiring, visited, True,
                         semiring.result_dtype(bool, M.dtype))
        new = found.indices
        visited[new] = True
        levels[new] = level
        if return_parents:
            parents[new] = found.values
        if tindptr is not None:
            unexplored_edges -= _degree_sum(tindptr, new)
        frontier = found
    return (levels, parents) if return_parents else levels


def _degree_sum(indptr, rows) -> int:
    """Stored entries in ``rows`` of a CSR (no degree array of size n is kept)."""
    return int((indptr[rows + 1] - indptr[rows]).sum())


def beamer_pull(pulling, frontier, n, indptr, unexplored_edges, alpha, beta) -> bool:
    """Beamer's rule: whether the next level pulls.  Push -> pull when the frontier's
    out-edges exceed ``unexplored_edges / alpha``; pull -> push when the frontier has fewer
    than ``n / beta`` vertices.

    Examples
    --------
    >>> import numpy as np
    >>> beamer_pull(False, np.array([0]), 4, np.array([0, 3, 3, 3, 3]), 3, 2.0, 18.0)
    True
    """
    if pulling:
        return frontier.size >= n / beta
    return _degree_sum(indptr, frontier) > unexplored_edges / alpha
