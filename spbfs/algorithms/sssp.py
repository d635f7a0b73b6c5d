"""Shortest paths over the min_plus semiring, from one source or a batch of sources."""

from __future__ import annotations

import math

import numpy as np

from ..core.arrays import index_dtype, to_numpy
from ..core.validation import UNREACHED, check_source, check_sources
from ..semiring import (
    Matrix,
    Vector,
    extract,
    min_plus,
    monoids,
    mxm,
    pull_cheaper,
    relax_buckets,
    vxm,
)
from ..semiring._matrix import csr_from_coo
from ..semiring._relax import checked_weights
from ._shared import BETA, by_masks, prepare
from .bfs import bfs
from .msbfs import PACKED_ALPHA, WORD, packed_search

__all__ = ["sssp"]

#: Delta-stepping's bucket width in units of the mean weight over the mean out-degree.
BUCKET_DEGREES = 4.0
#: The share of the vertices changed from which a round of the many-source search relaxes
#: every row through the kept transpose (the unchanged rows again, harmlessly) instead of
#: extracting the changed rows' edges and gathering their distances; also wherever the
#: backend expects a pull over every entry to cost less than a push of the changed rows'
#: (:func:`~spbfs.semiring.pull_cheaper`: one H200, all sources of a 1,000-node gnm graph,
#: 8.2-9.6 ms with every round whole, 16-24 ms from half, 33 ms only when all changed).
WHOLE_SHARE = 0.5
#: Entries read for the mean weight of the bucket width.
WIDTH_SAMPLE = 1 << 16
#: Distances from fewer sources than this, or over a graph of a mean out-degree under
#: ``BATCH_FROM_DEGREE``, come from one ``relax_buckets`` a source, not the batched rounds
#: (graph500 Kronecker scale 17 with weights 1-255 on one H200: 1 source 4.8 against 23.8
#: ms, 4: 15.6 against 24.1, 16: 65.5 against 21.6; scale 16 on the VM's two threads: 4
#: sources 40 against 263 ms, 64: 635 against 790; a 300 x 300 grid: 1 source 20 against
#: 982 ms on the VM, 16: 89 against 4,540; on the H200 16: 159 against 233).
#: All pairs of a small sparse graph stay batched (a gnm graph of 1,000 nodes and 4,000
#: arcs on the VM: 34-67 ms batched against 92-95 one by one; 3,000 and 9,000: 554-840
#: against 405-503), hence the degree's rule only from ``SPARSE_ONE_BY_ONE_FROM`` vertices.
BATCH_FROM_SOURCES = 8
BATCH_FROM_DEGREE = 8
SPARSE_ONE_BY_ONE_FROM = 1 << 13


def sssp(A, source, *, directed=True, return_predecessors=False, min_only=False):
    """Shortest path lengths from ``source``, or from each of an array of sources
    (non-negative edge weights).

    On one device's matrix, :func:`spbfs.semiring.relax_buckets`: delta-stepping (Meyer
    and Sanders), each round pushing the vertices of the lowest bucket of distances (width
    :data:`BUCKET_DEGREES` times the mean weight over the mean out-degree) whose distance
    improved through ``min_plus`` (``y = x @ A`` with ``y[j] = min_i x[i] + A[i, j]``) and
    keeping the improvements, improvements beyond the bucket waiting for theirs (on the
    CPU two kernels a round, with per-thread bins; the GPU runs every improved vertex in
    each round, rounds launched on the device without a host read between them).  On a
    graph over ranks a frontier-based Bellman-Ford: each round pushes every vertex whose
    distance improved, in at most ``n`` rounds and usually about the graph's hop
    diameter.

    With an array of ``k`` distinct sources, fewer than :data:`BATCH_FROM_SOURCES` or on
    a graph of many vertices whose mean out-degree is under :data:`BATCH_FROM_DEGREE`
    (many rounds), and no predecessors asked for, one
    :func:`~spbfs.semiring.relax_buckets` a source.
    Otherwise the searches run as one iteration on a dense ``k x n`` block ``D``: each
    round takes the vertices whose distance improved for some source (``changed``) and
    computes ``min(D, D[:, changed] (min.+) A[changed, :])`` with one SpMM over
    ``min_plus`` (``mxm`` of the extracted edges, transposed, with the dense block), so a
    round costs one sparse product whatever ``k``.  On a graph over ranks (a
    :class:`~spbfs.dist.DistGraph`) the searches run one after another, their rows
    stacked (``G.gather`` gives ``(k, n)``).  Duplicate edges count with their smallest
    weight, as in the one-source search.

    Parameters
    ----------
    A : sparse matrix/array or 2-D array or Matrix
        ``A[i, j]`` is the weight of edge ``i -> j``; stored zeros are
        zero-weight edges (a BSR matrix's, its blocks' padding, are not); in dense input
        zero, NaN and inf mean no edge; in a masked array the unmasked entries are the
        edges, zeros included (as scipy.sparse.csgraph).
    source : int or 1-D array-like of int
        One start vertex, or ``k`` of them (repeats allowed; empty gives shape
        ``(0, n)``).
    directed : bool
        False lets every edge be used both ways.
    return_predecessors : bool
        Also return a shortest-path tree (``-1`` for the source and for
        unreachable vertices, like scipy's ``-9999`` but Graph500-style).
    min_only : bool
        With an array of sources, one search from all of them at once: each vertex's
        distance to its nearest source, shape ``(n,)`` (scipy's ``min_only``; without
        ``return_predecessors``).

    Returns
    -------
    dist : ndarray of float64, shape (n,) or (k, n)
        ``inf`` where unreachable; row ``s`` for ``source[s]`` with an array.
    predecessors : ndarray, optional
        Same shape.  Computed from exact equality ``dist[i] + A[i, j] == dist[j]``;
        with floating-point weights whose sums round (say 1e16 + 1) a vertex may
        have no such edge chain from the source and is then left at -1.  For an
        array of sources, the trees of 64 sources at a time come from one
        multi-source BFS (:func:`spbfs.algorithms.msbfs.bfs_many`'s level loop) over the
        edges that are tight for some of them, each edge carrying a ``uint64``
        word of the sources it is tight for (semiring ``bor_band``).

    Raises
    ------
    ValueError
        If ``A`` has negative or NaN weights, or a source is out of range, or
        ``source`` is an array that is not 1-D, or ``min_only`` is asked with
        ``return_predecessors``, or ``return_predecessors`` on a distributed graph (the
        tight-edge tree reads the matrix's pattern, which a graph over ranks does not
        hold).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> import spbfs
    >>> A = sp.csr_array(np.array([[0, 4.0, 1.0], [0, 0, 0], [0, 2.0, 0]]))
    >>> spbfs.sssp(A, 0)
    array([0., 3., 1.])
    >>> spbfs.sssp(A, 1, directed=False, return_predecessors=True)[1].tolist()
    [2, -1, 1]
    >>> spbfs.sssp(A, [0, 2])
    array([[ 0.,  3.,  1.],
           [inf,  2.,  0.]])
    >>> spbfs.sssp(A, [0, 2], min_only=True)
    array([0., 2., 0.])
    """
    if min_only and return_predecessors:
        raise ValueError("return_predecessors is not available with min_only")
    if _is_array(source) and not min_only:
        return _sssp_many(A, source, directed, return_predecessors)
    M = _numeric(prepare(A, directed))
    _check_predecessors(M, return_predecessors)
    n = M.n
    xp = M.xp
    if min_only:  # every source starts at 0: one search (host ids on a graph over ranks)
        source = check_sources(source if _is_array(source) else [source], n,
                               np if by_masks(M) else xp, name="source")
    else:
        source = check_source(source, n)
    # one device's matrix: relax_buckets (delta-stepping on the CPU, rounds on the device
    # on the GPU); a graph over ranks (its vectors stay bitmaps): the frontier Bellman-Ford
    # below
    if not by_masks(M) and M.nnz:
        dist = relax_buckets(M, xp.unique(xp.asarray(source, np.int64).reshape(-1)),
                             bucket_width(M))  # the weights checked there
        if not return_predecessors:
            return dist
        return dist, _predecessors(M, dist, source)
    M = checked_weights(M)
    dist = xp.full(n, np.inf)
    changed = xp.zeros(n, bool)
    # a graph over ranks' arrays take one vertex id at a time: its sources one by one
    for start in np.unique(source).tolist() if by_masks(M) else (source,):
        dist[start] = 0.0
        changed[start] = True
    degree = M.out_degree
    for _ in range(n):
        frontier_edges = int((degree * changed).sum())  # the round's one read on the host
        if frontier_edges == 0:
            break
        # push the vertices whose distance improved; keep the improvements
        frontier = Vector(n, "bitmap", present=changed, values=dist)
        y = vxm(frontier, M, min_plus, direction="push").to_bitmap()
        changed = y.present & (y.values < dist)
        dist = xp.where(changed, y.values, dist)
    if not return_predecessors:
        return dist
    return dist, _predecessors(M, dist, source)


def bucket_width(M):
    """Delta-stepping's bucket width: :data:`BUCKET_DEGREES` times the mean weight over the
    mean out-degree (Meyer and Sanders' width for random weights, scaled to the graph), the
    mean weight read from at most :data:`WIDTH_SAMPLE` entries spread evenly over the
    matrix (any width gives the same distances); 1 without positive weights.

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs.semiring import Matrix
    >>> bucket_width(Matrix(np.array([0, 1, 2]), np.array([1, 0]), np.array([2.0, 4.0]), 2))
    12.0
    """
    step = max(M.nnz // WIDTH_SAMPLE, 1)
    mean = float(M.data[::step].mean()) if M.nnz else 0.0
    if not (mean > 0 and math.isfinite(mean)):
        return 1.0
    width = BUCKET_DEGREES * (mean / max(M.nnz / max(M.n, 1), 1.0))
    # weights near the largest float overflow the width, subnormal ones underflow it
    return width if 0.0 < width < math.inf else mean


def _predecessors(M, dist, source):
    """A shortest-path tree: BFS parents in the subgraph of tight edges.

    At the fixpoint ``dist[j] <= dist[i] + A[i, j]`` for every edge, and the
    edges with equality ("tight") into a reached vertex contain a shortest path to
    every reached vertex; a BFS over them gives an acyclic tree even with zero weights.
    """
    from ..semiring import Matrix

    xp = M.xp
    rows = M.pattern.rows()
    # a finite end: an edge of weight inf (or a sum past the largest float) into an
    # unreached vertex is not tight, though inf == inf
    reached = dist[M.indices]
    tight = xp.isfinite(reached) & (dist[rows] + M.data == reached)
    indptr, indices, data = csr_from_coo(rows[tight], M.indices[tight], M.data[tight], M.n)
    pred = bfs(Matrix(indptr, indices, data, M.n, check=False), source, return_parents=True,
               return_levels=False)
    pred[source] = UNREACHED
    return pred


def _check_predecessors(M, return_predecessors):
    """ValueError for predecessors on a graph over ranks: the tight-edge tree reads the
    matrix's pattern, which such a graph does not hold."""
    if return_predecessors and by_masks(M):
        raise ValueError("return_predecessors is not available on a distributed graph")


def _rows(xp, arrays, n):
    """The searches' distances as ``(k, n)`` rows of a block (a graph over ranks' rows)."""
    block = xp.stack(arrays, axis=1) if arrays else xp.full((n, 0), np.inf)
    return block.T


def _is_array(source) -> bool:
    """An array-like of sources (any number of dimensions but 0), not one vertex id."""
    return isinstance(source, (list, tuple, range)) or getattr(source, "ndim", 0) != 0


def _numeric(M):
    """``M`` with float64 values, after checking they are numbers (their signs are checked
    where they are read: :func:`~spbfs.semiring._relax.checked_weights`)."""
    if M.dtype.kind not in "biuf":
        raise TypeError(f"A must have numeric weights, got {M.dtype}")
    return M.astype(np.float64)


def _sssp_many(A, sources, directed, return_predecessors):
    """Distances (and predecessors) of shape ``(k, n)``: one batched Bellman-Ford (on a
    graph over ranks, whose vertex arrays take element-wise work only, one search a
    source, stacked as :func:`~spbfs.algorithms.msbfs.bfs_many` does)."""
    M = prepare(A, directed)
    xp, n = M.xp, M.n
    if by_masks(M):
        _check_predecessors(M, return_predecessors)
        src = check_sources(sources, n, np, name="source")
        return _rows(xp, [sssp(M, s) for s in src.tolist()], n)
    src = check_sources(sources, n, xp, name="source")
    M = checked_weights(M).canonical(monoids.min)  # parallel edges: the lightest
    host = to_numpy(src)
    uniq, inverse = np.unique(host, return_inverse=True)  # sorted: the first changed set
    if not return_predecessors and _one_by_one(M, uniq.size):
        width = bucket_width(M)
        dist = xp.stack([relax_buckets(M, xp.asarray([s]), width) for s in uniq.tolist()])
        return dist if np.array_equal(uniq, host) else dist[xp.asarray(inverse.reshape(-1))]
    rows = xp.asarray(uniq)
    k = int(rows.size)
    dist = xp.full((n, k), np.inf)   # a row per vertex: the products' layout, no transposes
    dist[rows, xp.arange(k)] = 0.0
    changed = rows  # sorted, distinct
    relaxed = xp.empty_like(dist)  # each round's products, written in place
    for _ in range(n):
        if not changed.size:
            break
        if changed.size >= WHOLE_SHARE * n or pull_cheaper(
                M, int(M.out_degree[changed].sum())):  # every row through the kept transpose
            mxm(M.T, dist, min_plus, out=relaxed)
        else:  # every vertex x changed (M's transpose is kept)
            mxm(extract(M.T, None, changed), dist[changed], min_plus, out=relaxed)
        better = relaxed < dist
        xp.minimum(dist, relaxed, out=dist)
        changed = xp.flatnonzero(better.any(axis=1))
    dist = xp.ascontiguousarray(dist.T)
    pred = _predecessors_many(M, dist, rows) if return_predecessors else None
    if not np.array_equal(uniq, host):  # back to the caller's order, repeats included
        take = xp.asarray(inverse.reshape(-1))
        dist = dist[take]
        pred = pred[take] if return_predecessors else None
    return (dist, pred) if return_predecessors else dist


def _one_by_one(M, k):
    """Whether ``k`` (distinct, at least one) sources' distances come faster from a search
    each than from the batched rounds, whose every round reads the whole ``n x k`` block:
    fewer than :data:`BATCH_FROM_SOURCES`, or from :data:`SPARSE_ONE_BY_ONE_FROM` vertices
    a mean out-degree under :data:`BATCH_FROM_DEGREE` (a mesh or a road map: many
    rounds; on a smaller graph a search's own cost, not the rounds, decides)."""
    return 0 < k and (k < BATCH_FROM_SOURCES or (M.n >= SPARSE_ONE_BY_ONE_FROM
                                                  and M.nnz < BATCH_FROM_DEGREE * M.n))


def _predecessors_many(M, dist, sources):
    """Shortest-path trees of ``sources`` (distinct), 64 at a time.

    An edge ``i -> j`` is tight for source ``s`` when ``dist[s, i] + A[i, j] ==
    dist[s, j]``; each edge gets the word of the group's sources it is tight for, and
    one bit-packed multi-source BFS over the edges tight for some source gives every
    source a BFS tree of its own tight edges (acyclic even with zero weights).
    """
    xp, n = M.xp, M.n
    idt = index_dtype(n)  # vertex ids: int32 unless n needs more (as bfs_many)
    k = int(sources.size)
    rows = M.pattern.rows()
    cols = M.indices
    pred = xp.empty((k, n), idt)
    for first in range(0, k, WORD):
        group = slice(first, first + WORD)
        word = xp.zeros(M.nnz, xp.uint64)
        for bit, d in enumerate(dist[group]):  # the group's sources, whole edge arrays
            dv = d[cols]
            tight = xp.isfinite(dv) & (d[rows] + M.data == dv)  # as in _predecessors
            word |= tight.astype(xp.uint64) << xp.uint64(bit)
        keep = word != 0  # M is canonical: the kept entries stay in CSR order
        indptr = xp.zeros(n + 1, M.indptr.dtype)
        xp.cumsum(xp.bincount(rows[keep], minlength=n), out=indptr[1:])
        T = Matrix(indptr, cols[keep], word[keep], n, check=False)
        packed_search(T, sources[group], pred[group], "auto", PACKED_ALPHA, BETA, masked=True)
    pred[xp.arange(k), sources] = UNREACHED
    return pred
