"""Common neighbours of vertex pairs in one compiled pass over the pairs' rows.

Link prediction asks for a few pairs at a time, often many holding one hub.  The pairs are
taken by their first vertex ``u``: where it pays, ``u``'s row is marked in a byte array once
and each pair's other row is read against the marks; otherwise the shorter of the pair's two
sorted rows is walked and each of its columns looked for in the longer one by a binary
search that starts where the previous one ended.  Nothing is read of the rest of the graph
(a masked product pays its set-up per call, and extracts and scales the pairs' rows), and
the sums add the common neighbours in ascending order either way.
"""

from __future__ import annotations

import numpy as np

from ._jit import kernel

__all__ = ["common_neighbours", "path_arcs"]


@kernel
def _search(indptr, indices, a, b, scale, scaled):  # pragma: no cover - compiled
    """The pair's counts and sum: the shorter row walked, each column searched for in the
    longer one (a binary search starting where the previous one ended)."""
    s0, s1 = indptr[a], indptr[a + 1]
    l0, l1 = indptr[b], indptr[b + 1]
    if s1 - s0 > l1 - l0:
        s0, s1, l0, l1 = l0, l1, s0, s1
    c = 0
    f = 0
    t = 0.0
    lo = l0
    for e in range(s0, s1):
        w = indices[e]
        hi = l1
        while lo < hi:  # the first position of the longer row at or past w
            mid = (lo + hi) >> 1
            if indices[mid] < w:
                lo = mid + 1
            else:
                hi = mid
        if lo == l1:
            break
        if indices[lo] == w:
            f += 1
            if w != a and w != b:
                c += 1
                if scaled:
                    t += scale[w]
    return c, f, t


@kernel
def _common(indptr, indices, u, v, order, scale, scaled, mark, common, shared,
            total):  # pragma: no cover - compiled
    m = order.size
    i = 0
    while i < m:
        a = u[order[i]]
        da = indptr[a + 1] - indptr[a]
        j = i
        by_search = 0
        by_mark = da
        while j < m and u[order[j]] == a:
            b = v[order[j]]
            db = indptr[b + 1] - indptr[b]
            by_search += 8 * min(da, db)
            by_mark += min(db, 8 * da)
            j += 1
        marked = by_mark < by_search
        if marked:  # a's row marked once for its pairs: each other row read once
            for e in range(indptr[a], indptr[a + 1]):
                mark[indices[e]] = 1
        for k in range(i, j):
            p = order[k]
            b = v[p]
            db = indptr[b + 1] - indptr[b]
            if marked and db <= 8 * da:
                c = 0
                f = 0
                t = 0.0
                for e in range(indptr[b], indptr[b + 1]):
                    w = indices[e]
                    if mark[w]:
                        f += 1
                        if w != a and w != b:
                            c += 1
                            if scaled:
                                t += scale[w]
            else:
                c, f, t = _search(indptr, indices, a, b, scale, scaled)
            common[p] = c
            shared[p] = f
            total[p] = t
        if marked:
            for e in range(indptr[a], indptr[a + 1]):
                mark[indices[e]] = 0
        i = j


def common_neighbours(indptr, indices, u, v, scale=None):
    """For each pair ``(u[i], v[i])`` of a CSR with sorted, distinct columns: the common
    neighbours other than ``u[i]`` and ``v[i]`` (NetworkX's ``common_neighbors``), all
    common neighbours (the two ends included), and the sum of ``scale`` over the first
    kind, added in ascending column order.

    Parameters
    ----------
    indptr, indices : numpy.ndarray
        CSR rows, each sorted without repeats (any integer dtypes).
    u, v : numpy.ndarray
        int64 rows of the pairs.
    scale : numpy.ndarray, optional
        float64 per row (default: zeros, and the sums are 0).

    Returns
    -------
    common, shared : numpy.ndarray
        int64 counts.
    total : numpy.ndarray
        float64 sums.

    Examples
    --------
    >>> import numpy as np
    >>> indptr, indices = np.array([0, 2, 5, 7, 9]), np.array([1, 2, 0, 2, 3, 0, 1, 1, 3])
    >>> c, s, t = common_neighbours(indptr, indices, np.array([0, 1]), np.array([1, 3]),
    ...                             np.arange(4.0))
    >>> c.tolist(), s.tolist(), t.tolist()
    ([1, 0], [1, 1], [2.0, 0.0])
    """
    u = np.ascontiguousarray(u, dtype=np.int64)
    v = np.ascontiguousarray(v, dtype=np.int64)
    scaled = scale is not None
    if not scaled:
        scale = np.zeros(1, np.float64)
    common = np.empty(u.size, np.int64)
    shared = np.empty(u.size, np.int64)
    total = np.empty(u.size, np.float64)
    if u.size:
        order = np.argsort(u, kind="stable")
        mark = np.zeros(len(indptr) - 1, np.uint8)
        _common(indptr, indices, u, v, order, scale, scaled, mark, common, shared, total)
    return common, shared, total


@kernel
def _path_arcs(indptr, indices, rows):  # pragma: no cover - compiled
    for k in range(rows.size - 1):
        u = rows[k]
        v = rows[k + 1]
        lo = indptr[u]
        end = indptr[u + 1]
        hi = end
        while lo < hi:
            mid = (lo + hi) >> 1
            if indices[mid] < v:
                lo = mid + 1
            else:
                hi = mid
        if lo == end or indices[lo] != v:
            return False
    return True


def path_arcs(indptr, indices, rows):
    """Whether every arc ``rows[k] -> rows[k + 1]`` is stored, each found by a binary search
    of its row (columns sorted): one compiled call for the whole path.

    Parameters
    ----------
    indptr, indices : numpy.ndarray
        CSR rows, each sorted (any integer dtypes).
    rows : numpy.ndarray
        int64 rows of the path.

    Returns
    -------
    bool

    Examples
    --------
    >>> import numpy as np
    >>> indptr, indices = np.array([0, 1, 3, 4]), np.array([1, 0, 2, 1])
    >>> path_arcs(indptr, indices, np.array([0, 1, 2])), path_arcs(indptr, indices,
    ...                                                           np.array([0, 2]))
    (True, False)
    """
    return bool(_path_arcs(indptr, indices, rows))
