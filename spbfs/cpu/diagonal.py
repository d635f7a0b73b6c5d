"""``(e - s A) + D`` for a CSR matrix ``A`` and a diagonal ``D``, as scipy's sparse
operators compute it (NetworkX's Laplacian ``D - A`` and Bethe Hessian ``(r^2 - 1) I - r A +
D``), in one compiled pass over ``A``'s rows instead of one to three sparse sums.

Each row's entries keep their order with the diagonal merged in at its column; an
off-diagonal value is ``0 - s * a``, a diagonal one ``(e - s * a) + d`` (``a`` 0 where the
row has no diagonal entry), in ``A``'s value type, as scipy's element-wise steps round them;
zeros are dropped, as scipy's sums drop them.
"""

from __future__ import annotations

import numpy as np

from ._jit import kernel

__all__ = ["shifted_diagonal"]


U = np.uintp  # positions read as unsigned: numba's negative-index test skipped
ONE = np.uintp(1)


@kernel
def _merge(indptr, indices, data, s, e, diag, scaled, scale, out_ptr, out_idx,
           out_val):  # pragma: no cover - compiled
    """The rows written one after another, nonzeros only; ``out_ptr`` their bounds.  With
    ``scaled``, each value ``v`` of entry ``(i, j)`` is stored as ``scale[i] * (v *
    scale[j])`` (in a variable of its own: ``v`` keeps its type, an int64 never passing
    through a float).  One store for every entry, the diagonal's included: a helper for
    the stores made the pass 3-4 times slower."""
    zero = s * 0  # a zero of the value type
    k = U(0)
    for i in range(U(indptr.size) - ONE):
        placed = False
        p = U(indptr[i])
        p1 = U(indptr[i + ONE])
        while True:
            if not placed and (p == p1 or indices[p] >= i):  # the diagonal, before column j
                placed = True
                col = np.int64(i)
                stored = p < p1 and indices[p] == i
                v = (e - s * (data[p] if stored else zero)) + diag[i]
                if stored:
                    p += ONE
            elif p < p1:
                col = np.int64(indices[p])
                v = 0 - s * data[p]
                p += ONE
            else:
                break
            if scaled:  # scipy's products leave out L's zeros and those of the scale
                w = scale[i] * (v * scale[U(col)])
                if w != 0 and v != 0 and scale[i] != 0 and scale[U(col)] != 0:
                    out_idx[k] = col
                    out_val[k] = w
                    k += ONE
            elif v != 0:
                out_idx[k] = col
                out_val[k] = v
                k += ONE
        out_ptr[i + ONE] = k
    return k


def shifted_diagonal(indptr, indices, data, s, e, diag, scale=None):
    """The CSR arrays of ``(e I - s A) + diag(diag)`` for a square CSR ``A`` whose rows hold
    each column once, in ascending order; ``s``, ``e`` and ``diag`` of ``data``'s dtype.
    With ``scale`` (float64, one a row), each entry is then scaled as NetworkX's normalised
    Laplacian ``DH @ (L @ DH)`` rounds it, ``scale[i] * (v * scale[j])``, into float64
    values, zeros again left out, and so is every entry where ``v`` or either scale is 0
    (scipy's products hold no term for them: a NaN scale, a negative degree's, gives NaN
    only where both are stored).

    Returns
    -------
    indptr, indices, data : numpy.ndarray
        ``indices`` of ``indices``' dtype, zeros left out (views of arrays with room for
        ``A``'s entries and a diagonal).

    Examples
    --------
    >>> import numpy as np
    >>> ptr, idx, val = shifted_diagonal(np.array([0, 1, 3, 4]), np.array([1, 0, 2, 1]),
    ...                                  np.array([1, 1, 1, 1]), 1, 0, np.array([1, 2, 1]))
    >>> ptr.tolist(), idx.tolist(), val.tolist()
    ([0, 2, 5, 7], [0, 1, 0, 1, 2, 1, 2], [1, -1, -1, 2, -1, -1, 1])
    >>> _, _, val = shifted_diagonal(np.array([0, 1, 3, 4]), np.array([1, 0, 2, 1]),
    ...                              np.array([1, 1, 1, 1]), 1, 0, np.array([1, 2, 1]),
    ...                              scale=np.array([1.0, 0.5, 0.0]))
    >>> val.tolist()
    [1.0, -0.5, -0.5, 0.5]
    """
    n = indptr.size - 1
    room = int(indptr[-1]) + n
    out_ptr = np.zeros(n + 1, np.int64)
    out_idx = np.empty(room, indices.dtype)
    scaled = scale is not None
    scale = np.ascontiguousarray(scale, np.float64) if scaled else np.zeros(0)
    out_val = np.empty(room, np.float64 if scaled else data.dtype)
    total = _merge(indptr, indices, data, data.dtype.type(s), data.dtype.type(e),
                   np.ascontiguousarray(diag, data.dtype), scaled, scale, out_ptr, out_idx,
                   out_val)
    return out_ptr, out_idx[:total], out_val[:total]
