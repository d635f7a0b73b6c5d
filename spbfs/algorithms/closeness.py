"""Closeness and harmonic centrality from many-source searches, 64 sources at a time.

Unweighted graphs use :func:`~spbfs.algorithms.msbfs.bfs_many` (one bit-packed product per
level for 64 sources), weighted ones :func:`~spbfs.algorithms.sssp.sssp` with a batch of
sources (one ``min_plus`` SpMM per round).  Each block of distances ``D[s, v]`` is folded at
once into per-vertex sums over its column (distances *into* ``v``, NetworkX's convention for
directed graphs) and per-source sums over its row.
"""

from __future__ import annotations

import numpy as np

from ..core.arrays import array_module, to_numpy
from ..semiring import min_plus, monoids, mxm, reduce
from ._shared import by_masks, prepare
from .msbfs import bfs_many
from .sssp import sssp

__all__ = ["closeness_centrality", "closeness_from_sums", "harmonic_centrality", "reach_sums"]

BATCH = 64


def _check_rows(rows, n, name):
    if rows is None:
        return np.arange(n, dtype=np.int64)
    arr = np.asarray(to_numpy(rows))
    if arr.ndim != 1 or (arr.size and arr.dtype.kind not in "iu"):
        raise TypeError(f"{name} must be a 1-D array of vertex ids")
    arr = arr.astype(np.int64)
    if arr.size and (arr.min() < 0 or arr.max() >= n):
        raise ValueError(f"{name} has a vertex outside [0, {n})")
    return arr


def reach_sums(A, sources=None, *, weight=False, reverse=False, keep=None):
    """Per-vertex sums over the shortest-path distances from ``sources``.

    Parameters
    ----------
    A : scipy.sparse / cupyx.scipy.sparse matrix or array, 2-D array, or Matrix
        ``A[i, j]`` stored is an edge ``i -> j`` (its value the length with ``weight``).
    sources : 1-D array of int, optional
        Start vertices (default all).
    weight : bool
        True: distances are sums of the stored (non-negative) values, an edge stored more
        than once counting with its smallest (as :func:`spbfs.sssp`); else hop counts.
    reverse : bool
        Search the reversed graph (distances *to* the sources).
    keep : 1-D bool array of n, optional
        Only these vertices count as the far end of a distance.

    Returns
    -------
    into : tuple of three ndarrays of n
        Per vertex ``v``: sources reaching it, the sum of ``d(s, v)`` and the sum of
        ``1 / d(s, v)`` over ``d > 0`` (host arrays).
    out : tuple of three ndarrays of len(sources)
        The same per source, over the vertices it reaches (those in ``keep``).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs.algorithms.closeness import reach_sums
    >>> A = sp.csr_array(np.array([[0, 1, 0], [0, 0, 1], [0, 0, 0]]))
    >>> (count, total, inverse), _ = reach_sums(A)
    >>> count, total, inverse
    (array([1., 2., 3.]), array([0., 1., 3.]), array([0. , 1. , 1.5]))
    """
    M = prepare(A)
    if not weight:  # hop counts read the pattern: duplicates once
        M = M.canonical()
    # weighted: duplicates stay, and the searches (sssp, min_plus products) take the
    # smallest weight of each edge, as spbfs.sssp and scipy's dijkstra do (canonical()
    # would sum them)
    if reverse:
        M = M.T if weight else M.T.canonical()
    n = M.n
    src = _check_rows(sources, n, "sources")
    if by_masks(M):
        return _reach_sums_by_blocks(M, src, weight, keep)
    keep = np.ones(n, bool) if keep is None else np.asarray(to_numpy(keep), bool)
    xp = M.xp
    keep = xp.asarray(keep)
    into = [xp.zeros(n) for _ in range(3)]
    out = [xp.zeros(src.size) for _ in range(3)]
    if weight and M.nnz and float(M.data.min()) < 0:
        raise ValueError("A has negative weights; distances need non-negative ones")
    for lo in range(0, src.size, BATCH):
        block = xp.asarray(src[lo:lo + BATCH])
        if weight:
            D = sssp(M, block).reshape(-1, n)
        else:
            levels = bfs_many(M, block).reshape(-1, n)
            D = xp.where(levels >= 0, levels, np.inf).astype(np.float64)
        finite = xp.isfinite(D) & keep[None, :]
        Dz = xp.where(finite, D, 0.0)
        inv = xp.where(finite & (D > 0), 1.0 / xp.where(D > 0, D, 1.0), 0.0)
        rows = slice(lo, lo + block.size)
        for acc, part in ((into, slice(None)), (out, rows)):
            axis = 0 if acc is into else 1
            acc[0][part] += finite.sum(axis=axis)
            acc[1][part] += Dz.sum(axis=axis)
            acc[2][part] += inv.sum(axis=axis)
    return tuple(map(to_numpy, into)), tuple(map(to_numpy, out))


def _reach_sums_by_blocks(M, src, weight, keep):
    """:func:`reach_sums` on a matrix whose vertex arrays take element-wise work only (a
    distributed graph's): each batch's distances as an ``(n, k)`` block, folded along
    its rows (per vertex) and its columns (per source).  Hop counts come from the
    many-source search, weighted distances from Bellman-Ford on the whole block (one
    ``min_plus`` product through the transpose per round, until no distance falls).
    The per-vertex sums are vertex arrays, the per-source ones host arrays."""
    xp, n = M.xp, M.n
    keep = xp.ones(n, bool) if keep is None else xp.asarray(to_numpy(keep).astype(bool))
    into = [xp.zeros(n) for _ in range(3)]
    out = [np.zeros(src.size) for _ in range(3)]
    if weight:   # parallel arcs: the lightest counts, as in the searches of one device
        M = M.canonical(monoids.min)
        if M.nnz and float(reduce(M, monoids.min)) < 0:
            raise ValueError("A has negative weights; distances need non-negative ones")
    for lo in range(0, src.size, BATCH):
        block = src[lo:lo + BATCH]
        if weight:
            D = _distances_block(M, block)
        else:
            levels = bfs_many(M, block).T   # (n, k)
            D = xp.where(levels >= 0, levels, np.inf).astype(np.float64)
        finite = xp.isfinite(D) & keep[:, None]
        Dz = xp.where(finite, D, 0.0)
        inv = xp.where(finite & (D > 0), 1.0 / xp.where(D > 0, D, 1.0), 0.0)
        rows = slice(lo, lo + block.size)
        for i, part in enumerate((finite.astype(np.float64), Dz, inv)):
            into[i] = into[i] + part.sum(axis=1)
            out[i][rows] += to_numpy(part.column_sums())
    return tuple(into), tuple(out)


def _distances_block(M, sources):
    """Weighted distances from ``sources`` (host ids) as an ``(n, k)`` block (Bellman-Ford
    on the whole block)."""
    xp, n = M.xp, M.n
    M = M.astype(np.float64)
    k = int(sources.size)
    D = xp.full((n, k), np.inf)
    D[sources, np.arange(k)] = 0.0
    MT = M.T
    for _ in range(n):
        relaxed = xp.minimum(D, mxm(MT, D, min_plus))
        if not (relaxed < D).any():
            break
        D = relaxed
    return D


def closeness_centrality(A, wf_improved=True, weight=False):
    """Closeness centrality (of distances into each vertex), as
    ``networkx.closeness_centrality``.

    ``c[v] = (r - 1) / sum_u d(u, v)``, times ``(r - 1) / (n - 1)`` with ``wf_improved``,
    where ``r`` counts the vertices that reach ``v`` (``v`` included).

    Parameters
    ----------
    A : scipy.sparse / cupyx.scipy.sparse matrix or array, 2-D array, or Matrix
    wf_improved : bool
        Wasserman and Faust's scaling by the reached fraction.
    weight : bool
        True: distances are sums of the stored (non-negative) values; an edge stored more
        than once (duplicate entries of a CSR) counts with its smallest value, as in
        :func:`spbfs.sssp` and scipy's ``dijkstra``.  False: hop counts.

    Returns
    -------
    ndarray of float64 (host)
        On a distributed graph a DistArray (the searches run 64 sources at a time over
        the ranks: ``n / 64`` many-source searches in all, each rank holding an ``(n / P,
        64)`` block).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs.algorithms.closeness import closeness_centrality
    >>> A = sp.csr_array(np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]]))
    >>> closeness_centrality(A)
    array([0.66666667, 1.        , 0.66666667])
    """
    (count, total, _), _ = reach_sums(A, weight=weight)
    return closeness_from_sums(count, total, count.size, wf_improved)


def closeness_from_sums(count, total, n, wf_improved=True):
    """Closeness from the reach counts and distance sums of :func:`reach_sums`.

    Examples
    --------
    >>> import numpy as np
    >>> closeness_from_sums(np.array([3.0]), np.array([2.0]), 3)
    array([1.])
    """
    xp = array_module(count)
    ok = (total > 0) & (n > 1)
    c = xp.where(ok, (count - 1.0) / xp.where(ok, total, 1.0), 0.0)
    if wf_improved and n > 1:
        c = c * ((count - 1.0) / (n - 1))  # NetworkX's rounding: c *= s
    return c


def harmonic_centrality(A, sources=None, weight=False):
    """Harmonic centrality, ``h[v] = sum over sources u of 1 / d(u, v)`` (``d > 0``), as
    ``networkx.harmonic_centrality``.

    Parameters
    ----------
    A : scipy.sparse / cupyx.scipy.sparse matrix or array, 2-D array, or Matrix
    sources : 1-D array of int, optional
        Default every vertex; a repeated one counts once (NetworkX takes their set).
    weight : bool
        True: distances are sums of the stored (non-negative) values; an edge stored more
        than once (duplicate entries of a CSR) counts with its smallest value, as in
        :func:`spbfs.sssp` and scipy's ``dijkstra``.  False: hop counts.

    Returns
    -------
    ndarray of float64 (host)
        On a distributed graph a DistArray (the searches run 64 sources at a time over
        the ranks: ``n / 64`` many-source searches in all, each rank holding an ``(n / P,
        64)`` block).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs.algorithms.closeness import harmonic_centrality
    >>> harmonic_centrality(sp.csr_array(np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]])))
    array([1.5, 2. , 1.5])
    """
    if sources is not None and np.ndim(sources) == 1:   # a set of sources, as NetworkX's
        sources = np.unique(to_numpy(sources))
    (_, _, inverse), _ = reach_sums(A, sources, weight=weight)
    return inverse
