"""Sub-matrices: ``extract`` (``A[rows][:, cols]``) and ``assign`` (``C[rows, cols] = B``)."""

from __future__ import annotations

import numbers

import numpy as np

from ..core.csr import expand
from ..core.seam import optional_primitive
from ._backend import backend_for
from ._masks import (
    _as_matrix,
    _Coords,
    _coords,
    _csr_matrix,
    _finish,
    _finish_csr,
    _mask_of,
    _merge,
    _result,
)
from ._matrix import Matrix
from ._pattern import Pattern


# ----------------------------------------------------------------------------- extract/assign
def _index_array(idx, bound, name, xp):
    """``idx`` (None: all) as an int64 array of positions in ``[0, bound)``."""
    if idx is None:
        return xp.arange(bound, dtype=np.int64)
    arr = xp.asarray(idx)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array of indices, got {arr.ndim}-D")
    if arr.size and arr.dtype.kind not in "iu":
        raise TypeError(f"{name} must hold integers, got dtype {arr.dtype}")
    arr = arr.astype(np.int64, copy=False)
    if arr.size:
        lo, hi = int(arr.min()), int(arr.max())
        if lo < 0 or hi >= bound:
            raise ValueError(f"{name} has an entry {lo if lo < 0 else hi} outside [0, {bound})")
    return arr


def extract(A, rows=None, cols=None, mask=None, *, complement=False, structural=False,
            replace=False, out=None):
    """``A[rows][:, cols]`` for index arrays (repeats allowed; None takes all), as
    GraphBLAS' extract: the result has shape ``(len(rows), len(cols))``.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs import semiring
    >>> A = sp.csr_array(np.arange(9).reshape(3, 3))
    >>> semiring.extract(A, [2, 0], [1, 1]).to_scipy().toarray()
    array([[7, 7],
           [1, 1]])
    """
    M = _as_matrix(A, "A")
    xp = M.xp
    r = _index_array(rows, M.nrows, "rows", xp)
    c = _index_array(cols, M.ncols, "cols", xp)
    m = _mask_of(mask, (int(r.size), int(c.size)), structural, complement, xp)
    permuted = optional_primitive(backend_for(xp), "csr_permuted")
    found = permuted(M.indptr, M.indices, M.data, r, c) if (
        permuted is not None and cols is not None and c.size == M.ncols) else None
    if found is not None:  # every column renumbered: the backend's own pass
        return _finish_csr(_csr_matrix(*found, (int(r.size), int(c.size))), m, out, replace)
    if xp is np:  # scipy's fancy indexing (C++; explicit zeros kept), rows kept sorted
        S = M.to_scipy()
        S = S[r] if rows is not None else S
        if cols is not None:
            S = S[:, c]
            S.sort_indices()
        return _finish_csr(_csr_matrix(S.indptr, S.indices, S.data, S.shape), m, out, replace)
    pos, owner = expand(M.indptr, r)
    col = M.indices[pos].astype(np.int64)
    if cols is None:
        out_col = col
    else:
        order = xp.argsort(c, kind="stable")
        sc = c[order]
        lo = xp.searchsorted(sc, col, side="left")
        hi = xp.searchsorted(sc, col, side="right")
        hit = hi > lo
        pos, owner, lo, hi = pos[hit], owner[hit], lo[hit], hi[hit]
        # an entry whose column is asked for t times becomes t entries
        offs = xp.concatenate([xp.zeros(1, np.int64), xp.cumsum(hi - lo)])
        slot, rep = expand(offs, xp.arange(lo.size, dtype=np.int64))
        pos, owner = pos[rep], owner[rep]
        out_col = order[lo[rep] + slot - offs[rep]]
    shape = (int(r.size), int(c.size))
    keys = owner * shape[1] + out_col
    order = xp.argsort(keys, kind="stable")
    coords = _Coords(keys[order], M.data[pos][order], shape, xp)
    return _finish(coords, m, out, replace)


def extract_pattern(A, keep):
    """The pattern of ``A[keep][:, keep]`` (the sub-graph ``keep`` induces, vertex ``i`` of
    it being ``keep[i]``), for distinct ``keep`` in any order: a square Matrix of
    ``len(keep)`` rows, each row's columns sorted, whose stored values are all True, with
    ``A``'s index dtypes.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs import semiring
    >>> A = sp.csr_array(np.array([[0, 1, 1], [1, 0, 0], [1, 0, 1]]))
    >>> semiring.extract_pattern(A, np.array([0, 2])).to_scipy().toarray()
    array([[False,  True],
           [ True,  True]])
    >>> semiring.extract_pattern(A, np.array([2, 0])).to_scipy().toarray()
    array([[ True,  True],
           [ True, False]])
    """
    M = Matrix.from_any(A, name="A")  # a backend's kernel reads repeats and any row order
    xp = M.xp
    keep = _index_array(keep, M.nrows, "keep", xp)
    if M.nrows != M.ncols:
        raise ValueError(f"A must be square, got shape {M.shape}")
    k = int(keep.size)
    index_of = xp.full(M.nrows, -1, M.indices.dtype)
    index_of[keep] = xp.arange(k, dtype=M.indices.dtype)
    if k > 1 and not bool((index_of[keep] == xp.arange(k, dtype=index_of.dtype)).all()):
        raise ValueError("keep must be distinct")  # a repeat's first place was overwritten
    kernel = optional_primitive(backend_for(xp), "csr_induced")
    if kernel is not None:
        indptr, indices = kernel(M.indptr, M.indices, keep, index_of)
    else:
        M = M.canonical()
        S = extract(Matrix(M.indptr, M.indices, xp.ones(M.nnz, bool), M.nrows, check=False),
                    keep, keep)
        indptr = S.indptr.astype(M.indptr.dtype, copy=False)
        indices = S.indices.astype(M.indices.dtype, copy=False)
    # a backend's rows come in their stored order renumbered, repeats kept
    pattern = Pattern(indptr, indices, k, symmetric=bool(M.symmetric)).sorted_unique()
    values = xp.broadcast_to(xp.ones(1, bool), (pattern.nnz,))
    return Matrix._from_pattern(pattern, values)


def assign(A, B, rows=None, cols=None, mask=None, *, complement=False, structural=False,
           replace=False):
    """``A`` with the region ``rows x cols`` replaced by ``B`` (a matrix of that shape, or a
    scalar for every position of the region), as GraphBLAS' assign: entries of ``A`` in the
    region that ``B`` does not store are removed.  ``rows``/``cols`` must not repeat.  A
    mask applies to the whole result (``A<mask> = ...``).  The result's dtype is A's and
    B's promoted together, with a mask or without.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs import semiring
    >>> A = sp.csr_array(np.ones((3, 3)))
    >>> B = sp.csr_array(np.array([[5.0, 0], [0, 6.0]]))
    >>> semiring.assign(A, B, [0, 2], [0, 2]).to_scipy().toarray()
    array([[5., 1., 0.],
           [1., 1., 1.],
           [0., 1., 6.]])
    """
    M = _as_matrix(A, "A")
    xp = M.xp
    r = _index_array(rows, M.nrows, "rows", xp)
    c = _index_array(cols, M.ncols, "cols", xp)
    for arr, name in ((r, "rows"), (c, "cols")):
        if arr.size != int(xp.unique(arr).size):
            raise ValueError(f"{name} must not repeat an index")
    m = _mask_of(mask, M.shape, structural, complement, xp)
    region_rows, region_cols, values = _region(M, B, r, c)
    dtype = np.result_type(M.dtype, values.dtype)
    in_cols = xp.zeros(M.ncols, bool)
    in_cols[c] = True
    if xp is np and m is None:  # splice the region's rows: the others are copied as they are
        spliced = backend_for(np).csr_assign(M.indptr, M.indices, M.data, M.ncols, r, in_cols,
                                             region_rows, region_cols, values.astype(dtype))
        return _csr_matrix(*spliced, M.shape)
    in_rows = xp.zeros(M.nrows, bool)
    in_rows[r] = True
    a = _coords(M, "A")
    kept = a.take(~(in_rows[a.rows()] & in_cols[a.cols()]))
    T = _merge(kept, _Coords(region_rows * M.ncols + region_cols, values, M.shape, xp,
                             region_rows, region_cols), dtype)
    if m is None:
        return _result(T)
    return _finish(T, m, M.astype(dtype), replace)  # promoted as without a mask


def _region(M: Matrix, B, r, c):
    """The entries that assign writes: rows, columns (int64) and values, sorted by row then
    column, from a scalar ``B`` (every position of the region) or a matrix."""
    xp = M.xp
    if isinstance(B, numbers.Number) or (hasattr(B, "ndim") and B.ndim == 0):
        value = xp.asarray(B)
        rows, cols = xp.sort(r), xp.sort(c)  # the grid of sorted rows and columns is sorted
        rows, cols = xp.repeat(rows, int(cols.size)), xp.tile(cols, int(rows.size))
        return rows, cols, xp.full(rows.shape, value, np.result_type(M.dtype, value.dtype))
    Bm = _as_matrix(B, "B")
    if Bm.shape != (int(r.size), int(c.size)):
        raise ValueError(f"B has shape {Bm.shape}, the region is ({r.size}, {c.size})")
    if Bm.xp is not xp:
        raise TypeError("B must live on the same device as A")
    rows, cols = r[Bm.pattern.rows()], c[Bm.indices]
    order = xp.argsort(rows * M.ncols + cols)
    return rows[order], cols[order], Bm.data[order]
