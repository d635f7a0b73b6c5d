"""Element-wise operations: ``ewise_add`` (union of patterns), ``ewise_union`` (union with
fill values for missing entries) and ``ewise_mult`` (intersection), on matrices and vectors,
with any binary operator or monoid."""

from __future__ import annotations

import numpy as np

from ..core.seam import optional_primitive
from ._backend import backend_for
from ._dispatch import distributed
from ._masks import (
    _as_matrix,
    _Coords,
    _coords,
    _csr_matrix,
    _finish,
    _finish_csr,
    _mask_of,
    _member,
    _merge,
)
from ._matrix import Matrix
from ._optypes import BinaryOp, Monoid, computable
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


def _cast(operand, dtype):
    """A Matrix or coordinates with their values cast to ``dtype``."""
    if isinstance(operand, Matrix):
        return operand.astype(dtype)
    return _Coords(operand.keys, operand.values.astype(dtype), operand.shape, operand.xp,
                   operand._rows, operand._cols)


def _ewise(A, B, op, union, mask, complement, structural, replace, out, fills=None):
    """ewise_add (``union``; with ``fills``, ewise_union) or ewise_mult: matrices through
    the backend's compiled merge of their CSR rows where it has one (the CPU's), otherwise
    (vectors, GPU matrices) through coordinates."""
    op = _binary_op(op)
    a, b = _pair_operands(A, B)
    m = _mask_of(mask, a.shape, structural, complement, a.xp)
    for operand, name in ((a, "A"), (b, "B")):
        computable(operand.dtype, f"{name}'s values")
    dtype = op.result_dtype(a.dtype, b.dtype)
    common = op.operand_dtype(a.dtype, b.dtype)
    if common is not None:  # int64 with uint64: combined in float64, as numpy does
        a, b = _cast(a, common), _cast(b, common)
    if fills is not None:  # each stands for a missing entry of its operand, in its dtype
        fills = (_fill(fills[0], a.dtype, "a_fill"), _fill(fills[1], b.dtype, "b_fill"))
    ewise_csr = optional_primitive(backend_for(a.xp), "ewise_csr")
    if isinstance(a, Matrix) and ewise_csr is not None:
        a, b = a.canonical(), b.canonical()
        C = _csr_matrix(*ewise_csr(op, union, a.indptr, a.indices, a.data, b.indptr,
                                   b.indices, b.data, dtype, fills), a.shape)
        return _finish_csr(C, m, out, replace)
    if isinstance(a, Matrix):
        a, b = _coords(a, "A"), _coords(b, "B")
    c = (_ewise_add_coords(a, b, op, dtype, fills) if union
         else _ewise_mult_coords(a, b, op, dtype))
    return _finish(c, m, out, replace)


def _fill(value, dtype, name):
    """``value`` as a scalar of ``dtype``; TypeError unless it is a number."""
    scalar = np.asarray(value)
    if scalar.ndim or scalar.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be a number, got {value!r}")
    return np.dtype(dtype).type(scalar[()])


def _index_args(op, size, xp, rows, cols):
    """The ``i`` and ``j`` arguments of an operator over ``size`` entries: int64 rows and
    columns (``rows()``, ``cols()``), each built only if the operator reads it; on the CPU
    a stand-in of the right length for unread columns (they set the result's length)."""
    reads = op.uses
    i = rows().astype(np.int64, copy=False) if "i" in reads else None
    if "j" in reads or xp is not np:
        return i, cols().astype(np.int64, copy=False)
    return i, np.broadcast_to(np.int64(0), (size,))


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
    algebra = distributed(A, B)
    if algebra is not None:
        return algebra.ewise_add(A, B, op, mask=mask, complement=complement,
                                 structural=structural)
    return _ewise(A, B, op, True, mask, complement, structural, replace, out)


def _ewise_add_coords(a: _Coords, b: _Coords, op, dtype, fills=None) -> _Coords:
    backend = backend_for(a.xp)
    in_a, pos = _member(b.keys, a.keys)
    cast = a.values.astype(dtype, copy=True)
    # A's lone entries: their values, or op(x, b_fill) (every entry of A; those B stores
    # too are written again below)
    values = cast if fills is None else backend.binary(
        op, a.values, fills[1], *_index_args(op, a.keys.size, a.xp, a.rows, a.cols), dtype)
    if bool(in_a.any()):
        both, at = b.take(in_a), pos[in_a]
        values[at] = backend.binary(op, cast[at], both.values, *_index_args(
            op, at.size, a.xp, both.rows, both.cols), dtype)
    only_b = b.take(~in_a)
    if fills is not None:
        filled = backend.binary(op, fills[0], only_b.values, *_index_args(
            op, only_b.keys.size, a.xp, only_b.rows, only_b.cols), dtype)
        only_b = _Coords(only_b.keys, filled, b.shape, a.xp, only_b._rows, only_b._cols)
    return _merge(_Coords(a.keys, values, a.shape, a.xp, a.rows(), a.cols()), only_b, dtype)


def ewise_union(A, B, op, a_fill, b_fill, mask=None, *, complement=False, structural=False,
                replace=False, out=None):
    """Element-wise union with fill values (GraphBLAS's ``eWiseUnion``): ``op(A[i, j],
    B[i, j])`` where both are stored, ``op(A[i, j], b_fill)`` where only A is and
    ``op(a_fill, B[i, j])`` where only B is (two matrices, or two vectors).  Each fill
    stands for a missing entry of its operand, in that operand's dtype.

    Parameters
    ----------
    A, B : matrices or Vectors of one shape
    op : BinaryOp or Monoid
    a_fill, b_fill : number
        The values of A's and B's missing entries.
    mask, complement, structural, replace, out
        As :func:`ewise_add`.

    Returns
    -------
    Matrix or Vector

    Examples
    --------
    ``A - B`` as scipy computes it (an entry missing from either is 0), where
    :func:`ewise_add` keeps B's lone values as they are:

    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs import semiring
    >>> A = sp.csr_array(np.array([[1.0, 0], [0, 2.0]]))
    >>> B = sp.csr_array(np.array([[3.0, 5.0], [0, 0]]))
    >>> semiring.ewise_union(A, B, semiring.ops.minus, 0, 0).to_scipy().toarray()
    array([[-2., -5.],
           [ 0.,  2.]])
    """
    algebra = distributed(A, B)
    if algebra is not None:
        return algebra.ewise_union(A, B, op, a_fill, b_fill, mask=mask,
                                   complement=complement, structural=structural)
    return _ewise(A, B, op, True, mask, complement, structural, replace, out, (a_fill, b_fill))


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
    algebra = distributed(A, B)
    if algebra is not None:
        return algebra.ewise_mult(A, B, op, mask=mask, complement=complement,
                                  structural=structural)
    return _ewise(A, B, op, False, mask, complement, structural, replace, out)


def _ewise_mult_coords(a: _Coords, b: _Coords, op, dtype) -> _Coords:
    hit, pos = _member(a.keys, b.keys)
    both = a.take(hit)
    values = backend_for(a.xp).binary(op, both.values, b.values[pos[hit]], *_index_args(
        op, both.keys.size, a.xp, both.rows, both.cols), dtype)
    return _Coords(both.keys, values, a.shape, a.xp)
