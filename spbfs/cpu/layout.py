"""ForceAtlas2's repulsion on the CPU: every node against every node in one compiled pass.

NetworkX computes the repulsion as ``einsum("ijk, ij -> ik", diff, factor)`` over dense
``n x n`` arrays (``diff`` the pairwise differences of the positions, ``factor`` the masses'
products over the squared distances).  :func:`repulsion` computes the same sums without
those arrays: a tile of :data:`TILE` nodes ``i`` at a time against every node ``j``, each
node's sum taken over ``j`` one after another, in NetworkX's order, with each quantity in
NetworkX's dtype (the differences, distances and squared distances in the positions' dtype,
float32 for positions drawn by ``random_layout``; the masses' products, the factors and the
sums in float64), so the result equals NetworkX's bit for bit (but in one dimension,
where NetworkX's ``einsum`` sums in another order: equal to rounding there).  The tile's
lanes are independent sums, which the compiler vectorises without reordering any of them.
"""

from __future__ import annotations

import numpy as np

from ._jit import kernel
from .threads import get_num_threads, run_kernel, split

__all__ = ["repulsion"]

#: Nodes ``i`` summed side by side (the vector lanes of the inner loops).
TILE = 16
#: Pairs from which :func:`repulsion` runs on ``spbfs.get_num_threads()`` threads.
THREADED_PAIRS = 1 << 18


@kernel(error_model="numpy")  # a zero distance divides to inf, as numpy's does
def _repel(lo, hi, p, mass, size, adjust, scaling, out):  # pragma: no cover - compiled
    """The repulsion on nodes ``lo..hi-1`` into ``out[lo:hi]`` (see :func:`repulsion`)."""
    n, dim = p.shape
    xi = np.zeros((dim, TILE), p.dtype)   # the tile's positions
    d = np.zeros((dim, TILE), p.dtype)    # their differences from node j
    sq = np.zeros(TILE, p.dtype)          # squared distances, then distances (p's dtype)
    mi = np.zeros(TILE)
    si = np.zeros(TILE)
    fac = np.zeros(TILE)
    acc = np.zeros((dim, TILE))
    for i0 in range(lo, hi, TILE):
        width = min(TILE, hi - i0)
        for t in range(TILE):  # lanes past hi: node i0's values, never written out
            i = i0 + t if t < width else i0
            mi[t] = mass[i]
            si[t] = size[i]
            for k in range(dim):
                xi[k, t] = p[i, k]
                acc[k, t] = 0.0
        for j in range(n):
            mj = mass[j]
            sj = size[j]
            for t in range(TILE):
                sq[t] = 0
            for k in range(dim):  # np.linalg.norm's sum of squares, in its order
                pj = p[j, k]
                for t in range(TILE):
                    dk = xi[k, t] - pj
                    d[k, t] = dk
                    sq[t] += dk * dk
            for t in range(TILE):
                if adjust:  # NetworkX's distance += -size_i - size_j, kept in p's dtype
                    sq[t] = np.sqrt(sq[t]) + (-si[t] - sj)
                else:
                    sq[t] = np.sqrt(sq[t])
                d2 = sq[t] * sq[t]
                fac[t] = mi[t] * mj / d2 * scaling
            if i0 <= j < i0 + width:  # no force of a node on itself (NetworkX's diagonal)
                fac[j - i0] = 0.0
            for k in range(dim):
                for t in range(TILE):
                    acc[k, t] += np.float64(d[k, t]) * fac[t]
        for t in range(width):
            for k in range(dim):
                out[i0 + t, k] = acc[k, t]


@kernel(error_model="numpy")
def _repel_2d(lo, hi, p, mass, scaling, out):  # pragma: no cover - compiled
    """:func:`_repel` in two dimensions without size adjustment, each lane's step one loop
    of scalars that the compiler vectorises over the tile (the same operations in the same
    order and dtypes); a node of the tile meets itself in a separate loop that gives its
    own term the factor 0."""
    n = p.shape[0]
    x = np.zeros(TILE, p.dtype)
    y = np.zeros(TILE, p.dtype)
    mi = np.zeros(TILE)
    ax = np.zeros(TILE)
    ay = np.zeros(TILE)
    for i0 in range(lo, hi, TILE):
        width = min(TILE, hi - i0)
        for t in range(TILE):  # lanes past hi: node i0's values, never written out
            i = i0 + t if t < width else i0
            x[t] = p[i, 0]
            y[t] = p[i, 1]
            mi[t] = mass[i]
            ax[t] = 0.0
            ay[t] = 0.0
        for j in range(n):
            xj = p[j, 0]
            yj = p[j, 1]
            mj = mass[j]
            if i0 <= j < i0 + width:
                own = j - i0
                for t in range(TILE):
                    dx = x[t] - xj
                    dy = y[t] - yj
                    d = np.sqrt(dx * dx + dy * dy)
                    f = 0.0 if t == own else mi[t] * mj / (d * d) * scaling
                    ax[t] += np.float64(dx) * f
                    ay[t] += np.float64(dy) * f
            else:
                for t in range(TILE):
                    dx = x[t] - xj
                    dy = y[t] - yj
                    d = np.sqrt(dx * dx + dy * dy)
                    f = mi[t] * mj / (d * d) * scaling
                    ax[t] += np.float64(dx) * f
                    ay[t] += np.float64(dy) * f
        for t in range(width):
            out[i0 + t, 0] = ax[t]
            out[i0 + t, 1] = ay[t]


def repulsion(p, mass, size, scaling_ratio, adjust_sizes=False, threads=None):
    """NetworkX's ForceAtlas2 repulsion on every node, as NetworkX sums it.

    Parameters
    ----------
    p : numpy.ndarray
        ``(n, dim)`` positions, float32 or float64.
    mass, size : numpy.ndarray
        ``(n,)`` float64 masses and sizes of the nodes.
    scaling_ratio : float
        The repulsion's scale.
    adjust_sizes : bool
        Subtract both nodes' sizes from their distance (NetworkX's ``node_size`` given).
    threads : int or None
        Threads to use (default ``spbfs.get_num_threads()`` from :data:`THREADED_PAIRS`
        pairs on, else 1).

    Returns
    -------
    numpy.ndarray
        ``(n, dim)`` float64: ``sum_j (p[i] - p[j]) * mass[i] mass[j] / d2[i, j] *
        scaling_ratio`` over ``j != i``, ``d2`` the squared distance (less the sizes when
        ``adjust_sizes``), each sum taken over ``j`` in order, so equal bit for bit to
        NetworkX's ``einsum`` over its dense arrays (for ``dim`` of 2 or more).

    Examples
    --------
    >>> import numpy as np
    >>> p = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]], dtype=np.float32)
    >>> repulsion(p, np.ones(3), np.ones(3), 2.0)
    array([[-2. , -1. ],
           [ 2.4, -0.8],
           [-0.4,  1.8]])
    """
    p = np.ascontiguousarray(p)
    if p.dtype not in (np.float32, np.float64):
        p = p.astype(np.float64)
    n = p.shape[0]
    mass = np.ascontiguousarray(mass, dtype=np.float64)
    size = np.ascontiguousarray(size, dtype=np.float64)
    out = np.empty(p.shape)
    if threads is None:
        threads = get_num_threads() if n * n >= THREADED_PAIRS else 1
    parts = split(n, max(1, min(threads, -(-n // TILE))))
    if p.shape[1] == 2 and not adjust_sizes:
        run_kernel(_repel_2d, parts, p, mass, float(scaling_ratio), out)
    else:
        run_kernel(_repel, parts, p, mass, size, bool(adjust_sizes), float(scaling_ratio), out)
    return out
