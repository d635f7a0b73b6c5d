"""Operations on the stored entries of one operand: ``reduce`` (by a monoid, to a vector or a
scalar), ``apply`` (a unary, binary or index-unary operator) and ``select`` (keep entries)."""

from __future__ import annotations

import numpy as np

from ..core.seam import optional_primitive
from ..core.validation import check_number
from ._backend import backend_for
from ._dispatch import distributed
from ._elementwise import _index_args
from ._masks import (
    _as_matrix,
    _Coords,
    _coords,
    _csr_matrix,
    _finish,
    _finish_csr,
    _keep_entries,
    _mask_of,
)
from ._matrix import Matrix
from ._named import select_ops
from ._optypes import BinaryOp, IndexUnaryOp, Monoid, computable
from ._vector import Vector


# ----------------------------------------------------------------------------- reduce
def reduce(A, monoid, axis=None, *, dtype=None):
    """Reduce the stored values with a monoid: a scalar (``axis=None``), or a sparse
    :class:`Vector` with one entry per non-empty row (``axis=1``) or column (``axis=0``).
    ``lor`` and ``land`` reduce the values' truth (a one-entry row of 3 gives 1), in the
    values' dtype unless ``dtype`` says another.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs import semiring
    >>> A = sp.csr_array(np.array([[1, 5, 0], [0, 0, 0], [2, 0, 7]]))
    >>> semiring.reduce(A, semiring.monoids.plus)
    15
    >>> v = semiring.reduce(A, semiring.monoids.max, axis=1)
    >>> v.indices.tolist(), v.values.tolist()
    ([0, 2], [5, 7])
    """
    if not isinstance(monoid, Monoid):
        raise TypeError(f"monoid must be a Monoid, got {type(monoid).__name__}")
    if axis not in (None, 0, 1):
        raise ValueError(f"axis must be None, 0 or 1, got {axis!r}")
    algebra = distributed(A)
    if algebra is not None:
        return algebra.reduce(A, monoid, axis, dtype=dtype)
    if isinstance(A, Vector):
        if axis not in (None, 0):
            raise ValueError("a Vector has one axis: axis must be None or 0")
        c = _coords(A, "A")
        return _scalar(monoid, _truth_values(monoid, c.values), dtype or c.dtype, c.xp)
    M = _as_matrix(A, "A")
    out_dtype = np.dtype(dtype or M.dtype)
    if axis is None:
        return _scalar(monoid, _truth_values(monoid, M.data), out_dtype, M.xp)
    M = M if axis == 1 else M.T.canonical()
    rows, starts = M.pattern.derived("row_segments", lambda: _row_segments(M))
    values = backend_for(M.xp).segment_reduce(monoid, _truth_values(monoid, M.data), starts,
                                              out_dtype)
    return Vector(M.nrows, "sparse", indices=rows.copy(), values=values)  # the caller's own


def _truth_values(monoid, values):
    """``values`` as booleans for a logical monoid (``lor``, ``land``: a one-entry row
    reduces to its truth, 1, not its value), else as they are."""
    if monoid.is_logical and values.dtype != bool:
        return values != 0
    return values


#: The named predicates that compare each value with the thunk.
_VALUE_COMPARISONS = frozenset(getattr(select_ops, name) for name in (
    "valuegt", "valuege", "valuelt", "valuele", "valueeq", "valuene"))


def _exact_thunk(op, thunk, dtype):
    """The thunk a named value comparison of integers ``dtype`` makes exactly: an integer
    thunk in the values' range in their dtype (int64 with uint64 would compare in float64,
    wrong from ``2**53`` up, and a CUDA kernel would read -1 as ``2**64 - 1``), one past it
    as an infinity (every value is below or above it), else the thunk as it is."""
    if (op not in _VALUE_COMPARISONS or dtype is None or np.dtype(dtype).kind not in "iu"
            or not isinstance(thunk, (int, np.integer)) or isinstance(thunk, bool)):
        return thunk
    info, value = np.iinfo(dtype), int(thunk)
    if value < info.min:
        return -np.inf
    if value > info.max:
        return np.inf
    return np.dtype(dtype).type(value)


def _row_segments(M):
    """``(rows, starts)``, int64: the non-empty rows of ``M`` and where each one's entries
    start (the segments a row-wise reduction reduces)."""
    rows = M.nonempty_rows.astype(np.int64)
    return rows, M.indptr[:-1][rows].astype(np.int64)


def _scalar(monoid, values, dtype, xp):
    dtype = np.dtype(dtype)
    if values.size == 0:
        return dtype.type(monoid.identity(dtype))
    if values.dtype == bool and dtype.kind != "b" and monoid.is_logical:
        return dtype.type(_scalar(monoid, values, bool, xp)).item()
    if xp is np and monoid.ufunc is not None:  # no segment machinery
        split_over_threads = optional_primitive(backend_for(xp), "reduce_values")
        found = split_over_threads and split_over_threads(monoid, values, dtype)
        if found is not None:
            return found
        return monoid.ufunc.reduce(values.astype(dtype, copy=False), dtype=dtype).item()
    r = backend_for(xp).segment_reduce(monoid, values, xp.zeros(1, np.int64), dtype)
    return (r.get() if xp is not np else r)[0].item()


# ----------------------------------------------------------------------------- apply/select
def _entry_args(A, op):
    """``(operand, v, i, j)``: a matrix operand canonical (its CSR arrays are used as they
    are), a Vector as coordinates; its values, and the ``i`` and ``j`` arguments of ``op``
    over its entries (:func:`_index_args`)."""
    if isinstance(A, Vector):
        c = _coords(A, "A")
        return (c, c.values, *_index_args(op, c.keys.size, c.xp, c.rows, c.cols))
    M = _as_matrix(A, "A")
    p = M.pattern
    return (M, M.data, *_index_args(op, M.nnz, M.xp, p.rows, lambda: p.indices))


def _finish_entries(src, values, keep, mask, out, replace):
    """The result of apply (new ``values``) or select (the entries ``keep`` selects) on the
    operand of :func:`_entry_args`, after the mask and ``out``."""
    if isinstance(src, Matrix):
        C = src if values is None else Matrix._from_pattern(src.pattern, values)
        return _finish_csr(C if keep is None else _keep_entries(C, keep), mask, out, replace)
    c = src if values is None else _Coords(src.keys, values, src.shape, src.xp, src._rows,
                                           src._cols)
    return _finish(c if keep is None else c.take(keep), mask, out, replace)


def apply(A, op, left=None, right=None, mask=None, *, thunk=0, complement=False,
          structural=False, replace=False, out=None):
    """Apply an operator to every stored value: an :class:`IndexUnaryOp` (``op(v, i, j,
    thunk)``, e.g. ``unary.abs``), or a :class:`BinaryOp` with one side bound to a scalar
    (``left``: ``op(left, v)``; ``right``: ``op(v, right)``).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs import semiring
    >>> A = sp.csr_array(np.array([[0, -2.0], [3.0, 0]]))
    >>> semiring.apply(A, semiring.unary.abs).to_scipy().toarray()
    array([[0., 2.],
           [3., 0.]])
    >>> semiring.apply(A, semiring.ops.minus, left=10.0).to_scipy().data
    array([12.,  7.])
    """
    if not isinstance(op, (IndexUnaryOp, BinaryOp)):
        raise TypeError(f"op must be an IndexUnaryOp or a BinaryOp, got {type(op).__name__}")
    src, v, i, j = _entry_args(A, op)
    backend = backend_for(src.xp)
    if v is not None:
        computable(v.dtype, "A's values")
    if isinstance(op, IndexUnaryOp):
        if left is not None or right is not None:
            raise ValueError("left/right bind a BinaryOp's operand; an IndexUnaryOp takes thunk")
        values = backend.index_unary(op, v, i, j, thunk, op.result_dtype(v.dtype))
    else:
        if (left is None) == (right is None):
            raise ValueError("apply with a BinaryOp needs exactly one of left= or right=")
        given = left if left is not None else right
        scalar = np.asarray(given)
        if scalar.ndim or scalar.dtype.kind not in "biuf":
            raise TypeError(f"{'left' if left is not None else 'right'} must be a number, got "
                            f"{given!r}")
        common = None if v is None else op.operand_dtype(scalar.dtype, v.dtype)
        if common is not None:  # int64 with uint64: computed in float64, as numpy does
            scalar, v = scalar.astype(common), v.astype(common)
        if left is not None:
            values = backend.binary(op, scalar[()], v, i, j,
                                    op.result_dtype(scalar.dtype, v.dtype))
        else:
            values = backend.binary(op, v, scalar[()], i, j,
                                    op.result_dtype(v.dtype, scalar.dtype))
    m = _mask_of(mask, src.shape, structural, complement, src.xp)
    return _finish_entries(src, values, None, m, out, replace)


def select(A, kind, thunk=0, mask=None, *, complement=False, structural=False,
           replace=False, out=None):
    """Keep the stored entries a predicate accepts: ``"tril"``, ``"triu"``, ``"diag"``,
    ``"offdiag"`` (``thunk`` is the diagonal offset, as GraphBLAS), ``"nonzero"``, the
    ``select_ops`` by value (``valuegt``...), or your own :class:`IndexUnaryOp` returning
    bool (a numpy function and a C expression in ``v``, ``i``, ``j``, ``thunk``).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs import semiring
    >>> A = sp.csr_array(np.arange(1, 10).reshape(3, 3))
    >>> semiring.select(A, "tril", -1).to_scipy().toarray()
    array([[0, 0, 0],
           [4, 0, 0],
           [7, 8, 0]])
    """
    if isinstance(kind, str):
        op = getattr(select_ops, kind, None)
        if op is None or kind.startswith("_"):
            raise ValueError(f"kind must be one of {sorted(vars(select_ops))} or an "
                             f"IndexUnaryOp, got {kind!r}")
    elif isinstance(kind, IndexUnaryOp):
        op = kind
    else:
        raise TypeError(f"kind must be a str or an IndexUnaryOp, got {type(kind).__name__}")
    check_number(thunk, "thunk", real=False)
    thunk = _exact_thunk(op, thunk, getattr(A, "dtype", None))
    algebra = distributed(A)
    if algebra is not None:
        return algebra.select(A, op, thunk, mask, complement=complement, replace=replace,
                              out=out)
    src = A if isinstance(A, Vector) else _as_matrix(A, "A")
    at = _coords(A, "A") if isinstance(A, Vector) else src  # a Vector's shape: its coordinates'
    m = _mask_of(mask, at.shape, structural, complement, at.xp)
    # the backend's compiled selection of CSR entries (a backend without one, the GPU's,
    # evaluates the predicate elementwise and keeps what it accepts)
    select_csr = optional_primitive(backend_for(at.xp), "select_csr")
    if isinstance(src, Matrix) and select_csr is not None:
        src = src.canonical()
        C = _csr_matrix(*select_csr(op, src.indptr, src.indices, src.data, thunk,
                                    derived=src.pattern.derived), src.shape)
        return _finish_csr(C, m, out, replace)
    src, v, i, j = _entry_args(src, op)
    keep = backend_for(src.xp).index_unary(op, v, i, j, thunk, np.bool_)
    return _finish_entries(src, None, keep.astype(bool, copy=False), m, out, replace)
