"""Betweenness centrality: Brandes' algorithm as batched sparse-times-dense products.

As LAGraph's ``LAGr_Betweenness``, ``k`` sources are searched at once, their state held in
dense ``n x k`` blocks (column ``b`` belongs to source ``s[b]``):

* forward: ``F <- A.T @ F`` over ``plus_second``, masked by the complement of the visited
  set, counts the shortest paths reaching each new vertex (``F`` holds the path counts of
  the current frontier, ``sigma`` their running sum, ``level`` the depth of each vertex);
* backward, from the deepest level ``d`` up to level 2: ``T = (1 + delta) / sigma`` on
  level ``d`` (zero elsewhere), then ``delta += sigma * (A @ T)`` masked by level ``d - 1``:
  Brandes' dependency ``delta[v] = sum over successors w of sigma[v] / sigma[w] *
  (1 + delta[w])``;
* the centrality is the sum of ``delta`` over the sources (a source's own ``delta`` stays
  zero: level 1 hands nothing to level 0).

Every step is one ``mxm`` of the sparse pattern with a dense block (SpMM) plus whole-array
updates; the only Python loops are over batches and levels.  Edge betweenness adds one
masked product per batch: each edge's terms as a dot product of two sparse factors built
from the blocks (:func:`_edge_factors`).
"""

from __future__ import annotations

import numbers

import numpy as np

from ..core.arrays import array_module, to_numpy
from ..core.validation import check_integer
from ..semiring import (
    Matrix,
    Semiring,
    ewise_add,
    monoids,
    mxm,
    ops,
    plus_times,
    pull_cheaper,
    source_dependencies,
)
from ._shared import by_masks, prepare

#: ``C[i, :] = sum over the stored A[i, k] of B[k, :]``: path counts, no edge value read.
_PATHS = Semiring(monoids.plus, ops.second, name="plus_second")

__all__ = ["betweenness_centrality", "edge_betweenness_centrality"]


def betweenness_centrality(A, normalized=True, directed=True, sources=None, batch=64):
    """Shortest-path betweenness centrality of every vertex (unweighted), as
    ``networkx.betweenness_centrality(G, normalized=normalized, endpoints=False)``.

    Parameters
    ----------
    A : scipy.sparse / cupyx.scipy.sparse matrix or array, 2-D array, or Matrix
        ``A[i, j]`` stored (an explicit zero too) is an edge ``i -> j``; values are
        ignored, duplicates count once and self-loops change nothing.  In a dense array
        zero, NaN and inf are not edges.
    normalized : bool
        Divide by ``(n - 1) * (n - 2)`` (for ``n > 2``), NetworkX's rule for directed and
        undirected graphs alike.  Without it an undirected graph's values are halved (each
        unordered pair counted once), as NetworkX does.
    directed : bool
        False: every edge is usable both ways (NetworkX's ``Graph`` of the same edges).
    sources : 1-D array of ints, optional
        Accumulate only the shortest paths starting at these vertices (each listed vertex
        counted as often as it is listed), with the same scaling as for all sources, so
        the results of disjoint sets of sources add up to the full centrality.  Default:
        every vertex.
    batch : int
        Sources searched at once (the width ``k`` of the dense ``n x k`` blocks: memory
        is about ``38 * n * k`` bytes: four float64 blocks, an int32 one and two masks).

    Returns
    -------
    ndarray of float64
        Centrality of every vertex (numpy for CPU input, cupy for GPU input).

    Raises
    ------
    ValueError
        ``A`` not square, a source outside ``[0, n)``, ``sources`` not 1-D, ``batch`` < 1.
    TypeError
        ``A`` not a matrix, ``sources`` not integers, ``batch`` not an integer.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs.algorithms.centrality import betweenness_centrality
    >>> A = sp.csr_array(np.array([[0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1], [0, 0, 0, 0]]))
    >>> betweenness_centrality(A)          # the path 0 -> 1 -> 2 -> 3
    array([0.        , 0.33333333, 0.33333333, 0.        ])
    >>> betweenness_centrality(A, normalized=False, directed=False)
    array([0., 2., 2., 0.])
    >>> betweenness_centrality(A, normalized=False, sources=[0])
    array([0., 2., 1., 0.])
    """
    batch = check_integer(batch, "batch", 1)
    M = prepare(A, directed, values=False).canonical()  # square; both directions when undirected
    xp, n = M.xp, M.n
    src = _sources(sources, n)  # duplicates merged; the products read no edge values
    MT = M.T
    bc = xp.zeros(n, np.float64)
    for lo in range(0, int(src.size), int(batch)):
        bc += _dependencies(M, MT, src[lo:lo + batch])
    return bc * _scale(n, normalized, directed)


def _sources(sources, n):
    """``sources`` (None: every vertex) as a checked host int64 array of vertex ids."""
    if sources is None:
        return np.arange(n, dtype=np.int64)
    if isinstance(sources, numbers.Integral) and not isinstance(sources, (bool, np.bool_)):
        raise TypeError(f"sources must be a 1-D array of vertex ids (e.g. [{sources}]), "
                        "got an integer")
    arr = np.asarray(to_numpy(sources) if hasattr(sources, "ndim") else sources)
    if arr.ndim != 1:
        raise ValueError(f"sources must be a 1-D array of vertex ids, got shape {arr.shape}")
    if arr.size and arr.dtype.kind not in "iu":
        raise TypeError(f"sources must hold integer vertex ids, got dtype {arr.dtype}")
    arr = arr.astype(np.int64)
    if arr.size:
        lo, hi = int(arr.min()), int(arr.max())
        if lo < 0 or hi >= n:
            raise ValueError(f"sources has an entry {lo if lo < 0 else hi} outside [0, {n})")
    return arr


def _dependencies(M, MT, s):
    """Sum over the sources ``s`` of Brandes' dependencies of every vertex."""
    if s.size == 1 and _sparse_searches(M):
        return source_dependencies(M, int(s[0]), MT)
    return _brandes(M, MT, s)[2].sum(axis=1)


def _sparse_searches(M) -> bool:
    """Whether one source's search runs level by level (:func:`source_dependencies`):
    where the algebra keeps vectors sparse (not over ranks) and pushing the whole matrix
    costs no more than pulling it (the CPU; the GPU pulls large frontiers)."""
    return not by_masks(M) and M.nnz > 0 and not pull_cheaper(M, M.nnz)


def _brandes(M, MT, s):
    """Brandes' search from the sources ``s``: ``(sigma, level, delta, depth)``, the first
    three ``n x k`` blocks; ``level`` is each vertex's depth in each search, ``depth + 1``
    where the search does not reach it."""
    xp, n, k = M.xp, M.n, int(s.size)
    cols = np.arange(k)
    sigma = xp.zeros((n, k), np.float64)  # shortest paths from s[b] to v
    sigma[s, cols] = 1.0
    # two blocks written in place by turns (the products' outputs, then inverse and t):
    # a fresh n x k block per product costs more in page faults than the product's writes
    frontier, spare = sigma.copy(), xp.empty_like(sigma)
    allowed = xp.ones((n, k), np.bool_)  # not visited yet
    allowed[s, cols] = False
    found = xp.empty_like(allowed)
    # level counts the steps at which v is still unvisited: its depth once found (an add
    # per step; a masked write of the depth is several times slower)
    level = xp.zeros((n, k), np.int32)
    depth = 0
    while True:
        # paths to the unvisited vertices one step further
        frontier, spare = mxm(MT, frontier, _PATHS, mask=allowed, replace=True,
                              out=spare), frontier
        level += allowed
        xp.not_equal(frontier, 0, out=found)
        if not bool(found.any()):
            break
        depth += 1
        xp.greater(allowed, found, out=allowed)  # and not found
        sigma += frontier
    # Each vertex's delta is set once, from the level below it: delta = sigma * flows,
    # where flows holds the products' outputs, each written on its own level only (the
    # rest of the block kept).  So t = (1 + delta) / sigma = 1 / sigma + flows on level d,
    # and sigma multiplies once.
    flows = xp.zeros((n, k), np.float64)
    inverse, t = frontier, spare  # the forward's blocks, reused
    # 1 / sigma where reached (sigma >= 1), 1 elsewhere: finite, so that a product with a
    # level's mask clears the rest (faster than a masked write)
    xp.divide(1.0, xp.maximum(sigma, 1.0, out=inverse), out=inverse)
    on_level = xp.equal(level, depth, out=found)
    for d in range(depth, 1, -1):
        xp.multiply(xp.add(flows, inverse, out=t), on_level, out=t)
        below = xp.equal(level, d - 1, out=allowed if on_level is found else found)
        mxm(M, t, _PATHS, mask=below, out=flows)
        on_level = below
    return sigma, level, xp.multiply(flows, sigma, out=flows), depth


def edge_betweenness_centrality(A, normalized=True, directed=True, sources=None, batch=64):
    """Shortest-path betweenness of every edge (unweighted), as
    ``networkx.edge_betweenness_centrality``.

    After the searches of a batch of sources (the blocks of
    :func:`betweenness_centrality`), the edge ``v -> w`` earns ``sigma[v] / sigma[w] *
    (1 + delta[w])`` from each source for which ``w`` lies one level below ``v``: one
    ``plus_times`` product masked by the edges, of factors that pair ``sigma[v]`` with
    ``(1 + delta[w]) / sigma[w]`` exactly where the levels differ by one.

    Parameters
    ----------
    A : scipy.sparse / cupyx.scipy.sparse matrix or array, 2-D array, or Matrix
        ``A[i, j]`` stored is an edge ``i -> j``; values ignored, duplicates count once.
    normalized : bool
        Divide by ``n (n - 1)`` (NetworkX's rule for edges); without it an undirected
        graph's values are halved.
    directed : bool
        False: ``A`` is an undirected graph (its pattern must be symmetric); an edge's value
        sums both directions and is stored at both ``(i, j)`` and ``(j, i)``.
    sources : 1-D array of ints, optional
        Only the shortest paths from these vertices (same scaling as all sources).
    batch : int
        Sources searched at once.

    Returns
    -------
    Matrix
        The pattern of ``A`` (duplicates merged, columns sorted) holding each edge's
        betweenness (float64); numpy or cupy arrays as ``A``.

    Raises
    ------
    ValueError
        ``A`` not square or (``directed=False``) not symmetric, a bad source, ``batch`` < 1.

    Notes
    -----
    On a distributed graph this is a fallback that does not scale: every rank gathers the
    whole graph (:meth:`~spbfs.dist.matrix.DistMatrix.whole`), computes the single-device
    result and keeps its own rows (a distributed matrix of the graph's partition).  The
    distributed form (the two factors as distributed sparse matrices, their product
    masked by the graph) is left to do.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs.algorithms.centrality import edge_betweenness_centrality
    >>> A = sp.csr_array(np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]]))
    >>> edge_betweenness_centrality(A, directed=False).to_scipy().toarray()
    array([[0.        , 0.66666667, 0.        ],
           [0.66666667, 0.        , 0.66666667],
           [0.        , 0.66666667, 0.        ]])
    """
    batch = check_integer(batch, "batch", 1)
    M = prepare(A).canonical()
    xp, n = M.xp, M.n
    if by_masks(M):   # the documented fallback: the whole graph on every rank
        return M.spread(edge_betweenness_centrality(M.whole(), normalized, directed,
                                                    sources, batch))
    M = M.unit(np.float64)
    MT = M.T.canonical()
    if not directed and not (M.nnz == MT.nnz and bool(xp.array_equal(M.indptr, MT.indptr))
                             and bool(xp.array_equal(M.indices, MT.indices))):
        raise ValueError("directed=False needs A with a symmetric pattern")
    src = _sources(sources, n)
    total = M.with_values(xp.zeros(M.nnz, np.float64))
    for lo in range(0, int(src.size), int(batch)):
        tails, heads = _edge_factors(*_brandes(M, MT, src[lo:lo + batch]),
                                     undirected=not directed)
        terms = mxm(tails, heads.T, plus_times, mask=M, structural=True)
        total = ewise_add(total, terms, monoids.plus)  # M's pattern: terms has a subset
    scale = 1.0
    if n > 1:
        if normalized:
            scale = 1.0 / (n * (n - 1))
        elif not directed:
            scale = 0.5
    return M.with_values(total.data * scale)


def _edge_factors(sigma, level, delta, depth, undirected):
    """Two sparse ``n x (k (depth + 1))`` factors whose product, sampled at the edges, is
    each edge's sum over the sources of its Brandes term: ``tails[v, b (depth + 1) +
    level[v, b]] = sigma[v, b]`` and ``heads[w, b (depth + 1) + level[w, b] - 1] = (1 +
    delta[w, b]) / sigma[w, b]`` (reached vertices only), so that row ``v`` of ``tails``
    meets row ``w`` of ``heads`` exactly at the sources where ``w`` lies one level below
    ``v``.  ``undirected``: the factors side by side, ``[tails, heads]`` and ``[heads,
    tails]``, so the product at ``(v, w)`` also holds the term of ``w -> v`` (the edge's
    two directions summed)."""
    xp, k = array_module(sigma), sigma.shape[1]
    stride = depth + 1
    start = xp.arange(k, dtype=np.int64) * stride
    reached = level <= depth
    t = xp.where(reached, (1.0 + delta) / xp.where(reached, sigma, 1.0), 0.0)
    keep = (reached, reached & (level > 0))
    cols = (level + start, level - 1 + start)
    vals = (sigma, t)
    if undirected:
        width = k * stride
        keep = (xp.hstack(keep), xp.hstack(keep[::-1]))
        cols = (xp.hstack((cols[0], cols[1] + width)), xp.hstack((cols[1], cols[0] + width)))
        vals = (xp.hstack(vals), xp.hstack(vals[::-1]))
    ncols = stride * keep[0].shape[1]
    return tuple(_rows_of(kp, c, v, ncols) for kp, c, v in zip(keep, cols, vals, strict=True))


def _rows_of(keep, cols, vals, ncols):
    """The CSR matrix holding ``vals[i, j]`` at ``(i, cols[i, j])`` where ``keep[i, j]``
    (``cols`` increasing along each row)."""
    xp = array_module(keep)
    counts = keep.sum(axis=1)
    indptr = xp.concatenate((xp.zeros(1, np.int64), xp.cumsum(counts)))
    index = np.int32 if ncols <= np.iinfo(np.int32).max else np.int64
    return Matrix(indptr, cols[keep].astype(index), vals[keep], keep.shape[0], ncols=ncols,
                  canonical=True, check=False)


def _scale(n, normalized, directed) -> float:
    """NetworkX's rescaling (``endpoints=False``, all sources)."""
    if n - 1 < 2:  # no pair (s, t) with an inner vertex: every value is 0
        return 1.0
    if normalized:
        return 1.0 / ((n - 1) * (n - 2))
    return 1.0 if directed else 0.5
