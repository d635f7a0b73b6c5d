"""The CPU's sparse graph Laplacian of a float64 CSR matrix in one kernel: the COO arrays
``scipy.sparse.csgraph.laplacian`` builds (``tocoo``, negate, ``setdiag``), without the
intermediate copies.

The result holds the off-diagonal entries in CSR order, negated (and, ``normed``, divided
by the scale of their row, then of their column), then one diagonal entry per vertex: the
degree (column sums, or row sums for out-degrees, less the stored diagonal), or for
``normed`` 1 (0 for an isolated vertex), whose scale is the degree's square root (1 when
isolated).  Sums are added in scipy's order: column sums row by row in storage order (its
product with ones), row sums by ``numpy.add.reduceat`` (its CSR row sums).
"""

from __future__ import annotations

import numpy as np

from ._jit import kernel

__all__ = ["laplacian_coo"]


@kernel
def _degrees(ip, ix, data, out_degree, total, w):
    """``w``: each vertex's sum less its stored diagonal; the column sums accumulated into
    ``total`` (zeros) here, the row sums given in it (``out_degree``)."""
    n = ip.size - 1
    diag = np.zeros(n)
    for i in range(n):
        for p in range(ip[i], ip[i + 1]):
            j = ix[p]
            a = data[p]
            if not out_degree:
                total[j] += a
            if i == j:
                diag[i] += a
    for i in range(n):
        w[i] = total[i] - diag[i]


@kernel
def _fill(ip, ix, data, normed, w, diag, row, col, out):
    """The COO entries into ``row``, ``col``, ``out``; returns how many."""
    n = ip.size - 1
    k = 0
    for i in range(n):
        for p in range(ip[i], ip[i + 1]):
            j = ix[p]
            if j == i:
                continue
            row[k] = i
            col[k] = j
            if normed:
                out[k] = -((data[p] / w[i]) / w[j])
            else:
                out[k] = -data[p]
            k += 1
    for i in range(n):
        row[k + i] = i
        col[k + i] = i
        out[k + i] = diag[i]
    return k + n


def laplacian_coo(ip, ix, data, normed, out_degree):
    """``(row, col, values, diag)`` of the Laplacian of the float64 CSR arrays; ``diag``:
    the degrees, or the scales when ``normed``.

    Examples
    --------
    >>> import numpy as np
    >>> ip = np.array([0, 2, 3, 3]); ix = np.array([1, 2, 2]); data = np.array([1., 2., 4.])
    >>> row, col, val, d = laplacian_coo(ip, ix, data, False, False)
    >>> row.tolist(), col.tolist(), val.tolist(), d.tolist()
    ([0, 0, 1, 0, 1, 2], [1, 2, 2, 0, 1, 2], [-1.0, -2.0, -4.0, 0.0, 1.0, 6.0], [0.0, 1.0, 6.0])
    """
    n = ip.size - 1
    w = np.empty(n)
    total = np.zeros(n)
    if out_degree:  # as scipy's CSR row sums: a reduceat over the non-empty rows
        rows = np.flatnonzero(np.diff(ip))
        if rows.size:
            total[rows] = np.add.reduceat(data, ip[rows].astype(np.intp, copy=False))
    _degrees(ip, ix, data, out_degree, total, w)
    diag = w
    if normed:
        isolated = w == 0
        w = np.where(isolated, 1, np.sqrt(w))
        diag = (1 - isolated).astype(np.float64)
    size = ix.size + n
    row = np.empty(size, ix.dtype)
    col = np.empty(size, ix.dtype)
    out = np.empty(size)
    count = _fill(ip, ix, data, normed, w, diag, row, col, out)
    if count < size:
        row, col, out = row[:count], col[:count], out[:count]
    return row, col, out, w
