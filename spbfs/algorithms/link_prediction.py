"""Link prediction scores for vertex pairs from one masked product each.

Every function takes an undirected graph (NetworkX's are not implemented for directed ones):
a matrix whose pattern is not symmetric is refused with a ValueError, as are vertex ids that
are not integers (a float array, even of whole numbers, as for every vertex id in spbfs:
:func:`spbfs.core.validation.check_sources`).

The pairs become the mask ``Q`` of an ``mxm``: ``(W @ P)[u, v]`` is computed only at the
asked positions (masked dot products of two sorted rows).  With ``P`` the pattern without
self-loops, ``(P @ P)[u, v]`` counts the common neighbours other than ``u`` and ``v``;
weighting the middle vertex ``w`` by ``1 / deg(w)`` or ``1 / log deg(w)`` gives the resource
allocation and Adamic-Adar indices.
"""

from __future__ import annotations

import numpy as np

from ..core.arrays import to_numpy
from ..core.validation import check_sources
from ..semiring import Matrix, ewise_add, extract, mxm, ops, plus_times, select
from ._shared import by_masks, check_undirected, prepare
from .degree import degrees
from .msbfs import bfs_many

__all__ = ["adamic_adar_index", "common_neighbor_centrality", "common_neighbors",
           "jaccard_coefficient", "resource_allocation_index"]


def _pairs(u, v, n, xp):
    """``u`` and ``v`` as int64 arrays of ``xp`` of one length, their entries vertex ids in
    ``[0, n)``: integer arrays of any integer dtype or lists of ints (a 0-d id or a 2-D
    array is flattened), checked as every vertex id in spbfs is
    (:func:`~spbfs.core.validation.check_sources`: a TypeError naming the argument for a
    float, bool or other dtype, never a truncation)."""
    u, v = _ids(u, n, xp, "u"), _ids(v, n, xp, "v")
    if u.shape != v.shape:
        raise ValueError(f"u and v must have the same length, got {u.size} and {v.size}")
    return u, v


def _ids(ids, n, xp, name):
    if not hasattr(ids, "ndim"):
        ids = np.asarray(ids)
    return check_sources(ids.reshape(-1), n, xp, name=name)


def _pattern(A):
    """``A``'s pattern with unit values, and without its diagonal: made once per pattern
    and kept with it (the selection copies every entry; a NetworkX query scores a few
    pairs per call)."""
    M = check_undirected(prepare(A).canonical())

    def operands():
        U = M.unit(np.float64)
        return U, select(U, "offdiag")
    if by_masks(M):   # a distributed graph keeps no pattern object
        return operands()
    return M.pattern.derived("link prediction operands", operands)


def _query(P):
    """The array module of the pairs and the scores: the matrix's, or for one whose
    vertex arrays are spread over ranks the module each rank holds (the pairs and
    scores are the same on every rank)."""
    xp = P.xp
    return getattr(xp, "base", xp) if by_masks(P) else xp


def _at_pairs(W, P, u, v, scale=None):
    """``(W @ P)[u[i], v[i]]`` for every pair (``W`` with column ``w`` times
    ``scale[w]`` when given)."""
    xp, n = P.xp, P.n
    if by_masks(P):
        return _at_pairs_by_blocks(W, P, u, v, scale)
    if not u.size:
        return xp.zeros(0, np.float64)
    uniq, inverse = xp.unique(u * n + v, return_inverse=True)
    qu, qv = uniq // n, uniq % n
    # the pairs' rows of W alone (a query names a few), scaled there: not all of W a call
    rows = xp.unique(qu)
    W = extract(W, rows)
    if scale is not None:
        W = _scaled(W, scale)
    indptr = xp.zeros(rows.size + 1, np.int64)
    indptr[1:] = xp.cumsum(xp.bincount(xp.searchsorted(rows, qu), minlength=rows.size))
    Q = Matrix(indptr, qv, xp.zeros(uniq.size, np.float64), int(rows.size), ncols=n,
               check=False)
    C = ewise_add(Q, mxm(W, P, plus_times, Q, structural=True), ops.plus).canonical()
    return C.data[inverse.ravel()]


def _at_pairs_by_blocks(W, P, u, v, scale):
    """:func:`_at_pairs` on a matrix whose vertex arrays take element-wise work only (a
    distributed graph's): for up to 64 distinct ``u`` at a time, the block of their
    indicator columns goes through ``W.T`` (row ``w``: ``W[u_i, w]``) and ``P.T`` (row
    ``v``: ``(W @ P)[u_i, v]``), and each pair reads its entry: two block products per 64
    distinct ``u``, ``O(nnz)`` each."""
    xp, hq, n = P.xp, _query(P), P.n
    out = hq.zeros(u.size, np.float64)
    if not u.size:
        return out
    sources, slot = np.unique(to_numpy(u), return_inverse=True)
    slot = slot.ravel()
    for lo in range(0, sources.size, 64):
        group = sources[lo:lo + 64]
        X = xp.zeros((n, group.size), np.float64)
        X[group, np.arange(group.size)] = 1.0
        Y = mxm(W.T, X, plus_times)
        if scale is not None:
            Y = Y * scale[:, None]
        Z = mxm(P.T, Y, plus_times)
        mine = (slot >= lo) & (slot < lo + 64)
        out[hq.asarray(mine)] = Z[to_numpy(v)[mine], slot[mine] - lo]
    return out


def _scaled(P, scale):
    """``P`` with column ``w`` multiplied by ``scale[w]``."""
    return P.with_values(scale[P.indices])


def common_neighbors(A, u, v):
    """Number of common neighbours of each pair ``(u[i], v[i])`` other than the pair itself
    (``len(networkx.common_neighbors(G, u, v))``).

    Parameters
    ----------
    A : scipy.sparse / cupyx.scipy.sparse matrix or array, 2-D array, or Matrix
        Symmetric pattern (an undirected graph; checked); values ignored.
    u, v : 1-D arrays of int
        The pairs' ends: vertex ids of an integer dtype (a float array, even of whole
        numbers, is refused, never truncated).

    Returns
    -------
    ndarray of float64

    Raises
    ------
    ValueError
        ``A`` not square or not symmetric; a vertex id outside ``[0, n)``; ``u`` and
        ``v`` of different lengths.
    TypeError
        ``u`` or ``v`` not of integer vertex ids.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs.algorithms.link_prediction import common_neighbors
    >>> A = sp.csr_array(np.array([[0, 1, 1, 0], [1, 0, 1, 1], [1, 1, 0, 1], [0, 1, 1, 0]]))
    >>> common_neighbors(A, [0, 1], [3, 2])
    array([2., 2.])
    """
    _, P = _pattern(A)
    u, v = _pairs(u, v, P.n, _query(P))
    return _at_pairs(P, P, u, v)


def jaccard_coefficient(A, u, v):
    """Jaccard coefficient of each pair, as ``networkx.jaccard_coefficient``: common
    neighbours (other than the pair) over the size of the union of the neighbourhoods
    (which counts the pair and self-loops); 0 for an empty union.

    Parameters
    ----------
    A : scipy.sparse / cupyx.scipy.sparse matrix or array, 2-D array, or Matrix
        Symmetric pattern (an undirected graph; checked); values ignored.
    u, v : 1-D arrays of int
        The pairs' ends: vertex ids of an integer dtype (a float array, even of whole
        numbers, is refused, never truncated).

    Returns
    -------
    ndarray of float64

    Raises
    ------
    ValueError
        ``A`` not square or not symmetric; a vertex id outside ``[0, n)``; ``u`` and
        ``v`` of different lengths.
    TypeError
        ``u`` or ``v`` not of integer vertex ids.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs.algorithms.link_prediction import jaccard_coefficient
    >>> A = sp.csr_array(np.array([[0, 1, 1, 0], [1, 0, 1, 1], [1, 1, 0, 1], [0, 1, 1, 0]]))
    >>> jaccard_coefficient(A, [0, 1], [3, 2])
    array([1. , 0.5])
    """
    M, P = _pattern(A)
    xp = _query(P)
    u, v = _pairs(u, v, P.n, xp)
    common = _at_pairs(P, P, u, v)
    full = _at_pairs(M, M.T, u, v)  # |N(u) ∩ N(v)| with the pair and loops counted
    deg = M.out_degree.astype(np.float64)
    union = deg[u] + deg[v] - full
    return xp.where(union > 0, common / xp.where(union > 0, union, 1.0), 0.0)


def resource_allocation_index(A, u, v):
    """Resource allocation index, ``sum over common neighbours w of 1 / deg(w)``, as
    ``networkx.resource_allocation_index`` (a self-loop counts twice in ``deg``).

    Parameters
    ----------
    A : scipy.sparse / cupyx.scipy.sparse matrix or array, 2-D array, or Matrix
        Symmetric pattern (an undirected graph; checked); values ignored.
    u, v : 1-D arrays of int
        The pairs' ends: vertex ids of an integer dtype (a float array, even of whole
        numbers, is refused, never truncated).

    Returns
    -------
    ndarray of float64

    Raises
    ------
    ValueError
        ``A`` not square or not symmetric; a vertex id outside ``[0, n)``; ``u`` and
        ``v`` of different lengths.
    TypeError
        ``u`` or ``v`` not of integer vertex ids.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs.algorithms.link_prediction import resource_allocation_index
    >>> A = sp.csr_array(np.array([[0, 1, 1, 0], [1, 0, 1, 1], [1, 1, 0, 1], [0, 1, 1, 0]]))
    >>> resource_allocation_index(A, [0], [3])
    array([0.66666667])
    """
    M, P = _pattern(A)
    xp = P.xp
    u, v = _pairs(u, v, P.n, _query(P))
    deg = degrees(M, directed=False).astype(np.float64)
    inv = xp.where(deg > 0, 1.0 / xp.where(deg > 0, deg, 1.0), 0.0)
    return _at_pairs(P, P, u, v, scale=inv)


def adamic_adar_index(A, u, v):
    """Adamic-Adar index, ``sum over common neighbours w of 1 / log(deg(w))``, as
    ``networkx.adamic_adar_index`` (``inf`` for a pair ``(u, u)`` where ``u`` has a
    neighbour of degree 1, where NetworkX divides by zero).

    Parameters
    ----------
    A : scipy.sparse / cupyx.scipy.sparse matrix or array, 2-D array, or Matrix
        Symmetric pattern (an undirected graph; checked); values ignored.
    u, v : 1-D arrays of int
        The pairs' ends: vertex ids of an integer dtype (a float array, even of whole
        numbers, is refused, never truncated).

    Returns
    -------
    ndarray of float64

    Raises
    ------
    ValueError
        ``A`` not square or not symmetric; a vertex id outside ``[0, n)``; ``u`` and
        ``v`` of different lengths.
    TypeError
        ``u`` or ``v`` not of integer vertex ids.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs.algorithms.link_prediction import adamic_adar_index
    >>> A = sp.csr_array(np.array([[0, 1, 1, 0], [1, 0, 1, 1], [1, 1, 0, 1], [0, 1, 1, 0]]))
    >>> adamic_adar_index(A, [0], [3]).round(4)
    array([1.8205])
    """
    M, P = _pattern(A)
    xp = P.xp
    u, v = _pairs(u, v, P.n, _query(P))
    deg = degrees(M, directed=False).astype(np.float64)
    ok = deg > 1  # a common neighbour of u != v has degree >= 2
    inv = xp.where(ok, 1.0 / xp.log(xp.where(ok, deg, 2.0)), 0.0)
    score = _at_pairs(P, P, u, v, scale=inv)
    # (u, u) whose u has a neighbour of degree 1: NetworkX's 1 / log(1)
    same = u == v
    if not bool(same.any()):
        return score
    leaves = (deg == 1).astype(np.float64)[:, None]
    if by_masks(P):
        leaf_next = mxm(P, leaves, plus_times)[:, 0] > 0
        return _query(P).where(same & leaf_next[u], np.inf, score)
    rows = xp.unique(u[same])  # those rows alone, not every row a call
    leaf_next = mxm(extract(P, rows), leaves, plus_times)[:, 0] > 0
    hit = xp.zeros(u.size, bool)
    hit[same] = leaf_next[xp.searchsorted(rows, u[same])]
    return xp.where(hit, np.inf, score)


def common_neighbor_centrality(A, u, v, alpha=0.8):
    """Common-neighbour and centrality based score (CCPA) of each pair, as
    ``networkx.common_neighbor_centrality``: ``alpha * common + (1 - alpha) * n / d(u, v)``
    (``d`` the hop distance, ``inf`` when unreachable; just ``common`` for ``alpha = 1``).

    The distances come from many-source BFS of the distinct ``u``, 64 at a time.

    Parameters
    ----------
    A : scipy.sparse / cupyx.scipy.sparse matrix or array, 2-D array, or Matrix
        Symmetric pattern (an undirected graph; checked); values ignored.
    u, v : 1-D arrays of int
        The pairs' ends: vertex ids of an integer dtype (a float array, even of whole
        numbers, is refused, never truncated); pairs of distinct vertices.
    alpha : float

    Returns
    -------
    ndarray of float64

    Raises
    ------
    ValueError
        A pair ``(w, w)`` (NetworkX: "Self loops are not supported"); ``A`` not square or
        not symmetric; a vertex id outside ``[0, n)``; ``u`` and ``v`` of different
        lengths.
    TypeError
        ``u`` or ``v`` not of integer vertex ids.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs.algorithms.link_prediction import common_neighbor_centrality
    >>> A = sp.csr_array(np.array([[0, 1, 1, 0], [1, 0, 1, 1], [1, 1, 0, 1], [0, 1, 1, 0]]))
    >>> common_neighbor_centrality(A, [0], [3])
    array([2.])
    """
    M, P = _pattern(A)
    xp, n = _query(P), P.n
    u, v = _pairs(u, v, n, xp)
    if bool((u == v).any()):
        raise ValueError("Self loops are not supported")
    common = _at_pairs(P, P, u, v)
    if alpha == 1:
        return common
    sources, slot = xp.unique(u, return_inverse=True)
    slot = slot.ravel()
    dist = xp.full(u.size, np.inf)
    # the pairs grouped by their 64 sources (a stable sort of 16-bit keys is a radix
    # sort): each group reads its own pairs, not a mask over all of them
    groups = -(-int(sources.size) // 64)
    group = slot // 64
    by_group = xp.argsort(group.astype(np.uint16) if groups <= 1 << 16 else group,
                          kind="stable")
    bounds = to_numpy(xp.searchsorted(group[by_group], xp.arange(groups + 1))).tolist()
    for k in range(groups):
        levels = bfs_many(M, sources[64 * k:64 * k + 64])
        mine = by_group[bounds[k]:bounds[k + 1]]
        d = levels[slot[mine] - 64 * k, v[mine]]   # distributed: read from the owners
        dist[mine] = xp.where(d >= 0, d, np.inf)
    return alpha * common + (1 - alpha) * n / dist
