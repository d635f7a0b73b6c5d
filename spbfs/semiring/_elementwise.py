"""Element-wise operations: ``ewise_add`` (union of patterns) and ``ewise_mult``
(intersection), on matrices and vectors, with any binary operator or monoid."""

from __future__ import annotations

import numpy as np

from ..core.csr import csr_keep
from ._backend import backend_for
from ._masks import (
    _as_matrix,
    _canonical_pattern,
    _Coords,
    _coords,
    _csr_matrix,
    _finish,
    _finish_csr,
    _mask_of,
    _member,
    _merge,
    _Union,
)
from ._matrix import Matrix
from ._ops import BinaryOp, Monoid
from ._pattern import Pattern
from ._vector import Vector


# ----------------------------------------------------------------------------- element-wise
def _binary_op(op, name="op") -> BinaryOp:
    if isinstance(op, Monoid):
        return op.as_binary()
    if isinstance(op, BinaryOp):
        return op
    raise TypeError(f"{name} must be a BinaryOp or a Monoid, got {type(op).__name__}")


def _pair_operands(A, B):
    """Both operands, checked: canonical matrices, or coordinates when one is a Vector."""
    if isinstance(A, Vector) or isinstance(B, Vector):
        a, b = _coords(A, "A"), _coords(B, "B")
    else:
        a, b = _as_matrix(A, "A"), _as_matrix(B, "B")
    if a.shape != b.shape:
        raise ValueError(f"A has shape {a.shape} but B has shape {b.shape}")
    if a.xp is not b.xp:
        raise TypeError("B must live on the same device as A")
    return a, b


def _ewise(A, B, op, union, mask, complement, structural, replace, out):
    """ewise_add (``union``) or ewise_mult: matrices on the CPU through one compiled merge
    of their patterns, vectors and GPU matrices through coordinates."""
    op = _binary_op(op)
    a, b = _pair_operands(A, B)
    m = _mask_of(mask, a.shape, structural, complement, a.xp)
    dtype = op.result_dtype(a.dtype, b.dtype)
    if isinstance(a, Matrix) and a.xp is np:
        C = (_ewise_add_csr if union else _ewise_mult_csr)(a, b, op, dtype)
        return _finish_csr(C, m, out, replace)
    if isinstance(a, Matrix):
        a, b = _coords(a, "A"), _coords(b, "B")
    c = (_ewise_add_coords if union else _ewise_mult_coords)(a, b, op, dtype)
    return _finish(c, m, out, replace)


def _index_args(op, size, xp, rows, cols):
    """The ``i`` and ``j`` arguments of an operator over ``size`` entries: int64 rows and
    columns (``rows()``, ``cols()``), each built only if the operator reads it; on the CPU
    a stand-in of the right length for unread columns (they set the result's length)."""
    reads = op.uses
    i = rows().astype(np.int64, copy=False) if "i" in reads else None
    if "j" in reads or xp is not np:
        return i, cols().astype(np.int64, copy=False)
    return i, np.broadcast_to(np.int64(0), (size,))


def _shared_pattern(u: _Union, a: Matrix, b: Matrix) -> Pattern:
    """The pattern of the entries both operands store (the smaller one when it is a subset
    of the other: no new arrays)."""
    if u.first_is_union:
        return b.pattern
    if u.second_is_union:
        return a.pattern
    return _canonical_pattern(*csr_keep(u.indptr, u.indices, u.both), a.shape)


def _union_pattern(u: _Union, a: Matrix, b: Matrix) -> Pattern:
    """The pattern of the entries either operand stores (the larger one when it holds the
    other: no new arrays)."""
    if u.first_is_union:
        return a.pattern
    if u.second_is_union:
        return b.pattern
    return _canonical_pattern(u.indptr, u.indices, a.shape)


def _shared_values(u: _Union, a: Matrix, b: Matrix, op, dtype, pattern=None):
    """``op`` over the entries both operands store, in canonical order (``pattern``: theirs,
    built here only if the operator reads positions)."""
    in_a, in_b = u.first_shared(), u.second_shared()
    x = a.data if in_a is None else a.data[in_a]
    y = b.data if in_b is None else b.data[in_b]
    if pattern is None and ("i" in op.uses or "j" in op.uses):
        pattern = _shared_pattern(u, a, b)
    i, j = _index_args(op, x.size, np, lambda: pattern.rows(), lambda: pattern.indices)
    return backend_for(np).binary(op, x, y, i, j, dtype)


def _ewise_mult_csr(a: Matrix, b: Matrix, op, dtype) -> Matrix:
    u = _Union(a, b)
    pattern = _shared_pattern(u, a, b)
    return Matrix._from_pattern(pattern, _shared_values(u, a, b, op, dtype, pattern))


#: ewise_add operators that scipy's compiled union computes exactly on positive floating
#: values: it drops zero results, and meets a one-sided entry with an implicit 0.
_SCIPY_UNIONS = {"plus": lambda a, b: a + b, "max": lambda a, b: a.maximum(b)}


def _native_union(a: Matrix, b: Matrix, op, dtype) -> Matrix | None:
    """``ewise_add`` of two canonical CPU matrices as scipy's union with its values (one
    compiled merge), when that is exact: ``plus`` or ``max`` over positive floating values
    of the result's dtype (a sum or maximum of those is never zero); else None."""
    union, dtype = _SCIPY_UNIONS.get(op.name), np.dtype(dtype)
    if union is None or dtype.kind != "f" or a.dtype != dtype or b.dtype != dtype:
        return None
    if not (bool((a.data > 0).all()) and bool((b.data > 0).all())):
        return None
    C = union(a.to_scipy(), b.to_scipy())  # canonical operands: a canonical result
    return _csr_matrix(C.indptr, C.indices, C.data, a.shape)


def _ewise_add_csr(a: Matrix, b: Matrix, op, dtype) -> Matrix:
    native = _native_union(a, b, op, dtype)
    if native is not None:
        return native
    u = _Union(a, b)
    values = np.empty(u.tags.size, dtype)
    if u.first_is_union:
        values[:] = a.data
    else:
        values[u.tags != 2] = a.data
        values[u.tags == 2] = b.data[~u.second_shared()]
    values[u.both] = _shared_values(u, a, b, op, dtype)
    return Matrix._from_pattern(_union_pattern(u, a, b), values)


def ewise_add(A, B, op, mask=None, *, complement=False, structural=False, replace=False,
              out=None):
    """Element-wise union: ``op(A[i, j], B[i, j])`` where both are stored, the one stored
    value elsewhere (two matrices, or two vectors).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs import semiring
    >>> A = sp.csr_array(np.array([[1.0, 0], [0, 2.0]]))
    >>> B = sp.csr_array(np.array([[3.0, 5.0], [0, 0]]))
    >>> semiring.ewise_add(A, B, semiring.ops.minus).to_scipy().toarray()
    array([[-2.,  5.],
           [ 0.,  2.]])
    """
    return _ewise(A, B, op, True, mask, complement, structural, replace, out)


def _ewise_add_coords(a: _Coords, b: _Coords, op, dtype) -> _Coords:
    backend = backend_for(a.xp)
    in_a, pos = _member(b.keys, a.keys)
    values = a.values.astype(dtype, copy=True)
    if bool(in_a.any()):
        both, at = b.take(in_a), pos[in_a]
        values[at] = backend.binary(op, values[at], both.values, *_index_args(
            op, at.size, a.xp, both.rows, both.cols), dtype)
    return _merge(_Coords(a.keys, values, a.shape, a.xp, a.rows(), a.cols()), b.take(~in_a),
                  dtype)


def ewise_mult(A, B, op, mask=None, *, complement=False, structural=False, replace=False,
               out=None):
    """Element-wise intersection: ``op(A[i, j], B[i, j])`` where both are stored.

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs import semiring
    >>> x = semiring.Vector.sparse([0, 2], [2.0, 3.0], size=4)
    >>> y = semiring.Vector.sparse([2, 3], [10.0, 1.0], size=4)
    >>> z = semiring.ewise_mult(x, y, semiring.ops.times)
    >>> z.indices.tolist(), z.values.tolist()
    ([2], [30.0])
    """
    return _ewise(A, B, op, False, mask, complement, structural, replace, out)


def _ewise_mult_coords(a: _Coords, b: _Coords, op, dtype) -> _Coords:
    hit, pos = _member(a.keys, b.keys)
    both = a.take(hit)
    values = backend_for(a.xp).binary(op, both.values, b.values[pos[hit]], *_index_args(
        op, both.keys.size, a.xp, both.rows, both.cols), dtype)
    return _Coords(both.keys, values, a.shape, a.xp)
