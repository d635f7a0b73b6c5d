"""GPU backend: masked SpMSpV (push) and masked SpMV (pull) for any semiring.

The same two functions as :mod:`spbfs.semiring._cpu`, with the same
signatures, on cupy arrays.  The kernels are generated from the semiring's C
expressions (``monoid.c_expr`` in ``a``, ``b``; ``multiply.c_expr`` in ``x``,
``a``, ``i``, ``j``), so user-defined semirings run on the GPU too.

* push: one thread per edge of the frontier's rows (binary search in the
  prefix sum of frontier degrees: load balanced whatever the degrees), masked,
  combined into a dense accumulator with a CAS loop of the monoid (a plain
  write for ``any``), then compacted to sorted indices.
* pull: one thread per allowed output, scanning its in-edges and stopping at
  the first hit (``any``) or at the monoid's terminal value (``lor``, ...).

``bitmap_search`` is the bitmap fast path of the level search (:mod:`spbfs.gpu.bfs`).

Examples
--------
>>> import cupy, cupyx.scipy.sparse as csp                  # doctest: +SKIP
>>> from spbfs import semiring                              # doctest: +SKIP
>>> A = csp.csr_matrix(cupy.array([[0, 2.0], [3.0, 0]]))    # doctest: +SKIP
>>> x = semiring.Vector.sparse(cupy.array([0]), cupy.array([1.0]), size=2)  # doctest: +SKIP
>>> semiring.vxm(x, A, semiring.min_plus).values            # doctest: +SKIP
array([3.])
"""

from __future__ import annotations

import hashlib

import numpy as np

from ..semiring._ops import ANY_TERMINAL
from . import kernels

__all__ = ["binary", "bitmap_search", "index_unary", "masked_dot", "segment_reduce", "spmspv",
           "spmv"]

_THREADS = 256
#: Values per partial result when one segment is reduced (a scalar reduction).
_SCALAR_CHUNK = 1 << 12


def _grid(work: int) -> int:
    return int(max(1, min((work + _THREADS - 1) // _THREADS, kernels.sm_count() * 32)))


def _module(semiring, x_dtype, a_dtype, dtype, idx_dtype, ptr_dtype, xi_dtype):
    monoid, op = semiring.monoid, semiring.multiply
    terminal = monoid.terminal
    return kernels.semiring_module(
        monoid.c_expr, op.c_expr, monoid.is_any,
        terminal is not None and terminal != ANY_TERMINAL,
        np.dtype(x_dtype).str, np.dtype(a_dtype).str, np.dtype(dtype).str,
        np.dtype(idx_dtype).str, np.dtype(ptr_dtype).str, np.dtype(xi_dtype).str)


def _operand(arr, used: bool):
    """A kernel operand: zero-stride (broadcast) arrays are materialised only if read; an
    operand the semiring never reads (None) is a one-element placeholder."""
    import cupy

    if arr is None:
        return cupy.zeros(1, bool)
    if used and (arr.ndim != 1 or (arr.size > 1 and arr.strides[0] != arr.itemsize)):
        return cupy.ascontiguousarray(arr)
    return arr


def _mask_args(mask, complement, n):
    import cupy

    if mask is None:
        return cupy.zeros(1, bool), np.int32(0), np.int32(0)
    return cupy.ascontiguousarray(mask), np.int32(1), np.int32(bool(complement))


def spmspv(indptr, indices, data, n, x_idx, x_val, semiring, mask, complement, dtype):
    """Push: ``y = x @ A`` for a sparse ``x``, masked; returns sorted ``(y_idx, y_val)``.

    Same contract as :func:`spbfs.semiring._cpu.spmspv`, on cupy arrays.

    Examples
    --------
    >>> import cupy                                                  # doctest: +SKIP
    >>> from spbfs.semiring import plus_times                        # doctest: +SKIP
    >>> indptr, indices = cupy.array([0, 1, 2]), cupy.array([1, 0])  # doctest: +SKIP
    >>> spmspv(indptr, indices, cupy.array([2.0, 3.0]), 2, cupy.array([0]),
    ...        cupy.array([5.0]), plus_times, None, False, cupy.float64)  # doctest: +SKIP
    (array([1]), array([10.]))
    """
    import cupy

    dtype = np.dtype(dtype)
    op = semiring.multiply
    x_idx = cupy.ascontiguousarray(x_idx)
    x_val = _operand(x_val, True)
    nx = int(x_idx.size)
    if nx == 0:
        return cupy.zeros(0, np.int64), cupy.zeros(0, dtype)
    starts = indptr[x_idx]
    offs = cupy.empty(nx + 1, np.int64)
    offs[0] = 0
    cupy.cumsum((indptr[x_idx + 1] - starts).astype(np.int64), out=offs[1:])
    total = int(offs[-1])
    if total == 0:
        return cupy.zeros(0, np.int64), cupy.zeros(0, dtype)
    data = _operand(data, "a" in op.uses)
    mod = _module(semiring, x_val.dtype, data.dtype, dtype, indices.dtype, indptr.dtype,
                  x_idx.dtype)
    identity = semiring.monoid.identity(dtype)
    y = cupy.full(n, identity, dtype=dtype) if not semiring.monoid.is_any else cupy.empty(
        n, dtype)
    present = cupy.zeros(n, bool)
    m, use_mask, comp = _mask_args(mask, complement, n)
    mod.get_function("sr_push")(
        (_grid(total),), (_THREADS,),
        (indptr, indices, data, x_idx, x_val, offs, np.int64(nx), np.int64(total), m,
         use_mask, comp, y, present))
    idx = cupy.flatnonzero(present)
    return idx, y[idx]


def spmv(tindptr, tindices, tdata, x_present, x_val, semiring, mask, complement, dtype):
    """Pull: ``y = x @ A`` for a bitmap ``x``, masked; returns ``(y_present, y_val)``.

    Same contract as :func:`spbfs.semiring._cpu.spmv` (``tindptr``... is the
    CSR of ``A.T``), on cupy arrays.

    Examples
    --------
    >>> import cupy                                                  # doctest: +SKIP
    >>> from spbfs.semiring import any_secondi                       # doctest: +SKIP
    >>> t_indptr, t_indices = cupy.array([0, 1, 2]), cupy.array([1, 0])  # doctest: +SKIP
    >>> present, vals = spmv(t_indptr, t_indices, cupy.ones(2, bool), cupy.array([True, False]),
    ...                      cupy.array([True, False]), any_secondi, None, False,
    ...                      cupy.int64)                             # doctest: +SKIP
    >>> present.tolist(), vals.tolist()                              # doctest: +SKIP
    ([False, True], [0, 0])
    """
    import cupy

    dtype = np.dtype(dtype)
    op, monoid = semiring.multiply, semiring.monoid
    n = int(tindptr.size) - 1
    x_present = cupy.ascontiguousarray(x_present)
    x_val = _operand(x_val, True)
    tdata = _operand(tdata, "a" in op.uses)
    y = cupy.zeros(n, dtype)
    present = cupy.zeros(n, bool)
    if n == 0:
        return present, y
    terminal = monoid.terminal
    if terminal is None or terminal == ANY_TERMINAL:
        term = dtype.type(0)
    else:
        term = dtype.type(terminal(dtype))
    mod = _module(semiring, x_val.dtype, tdata.dtype, dtype, tindices.dtype, tindptr.dtype,
                  np.int64)
    m, use_mask, comp = _mask_args(mask, complement, n)
    mod.get_function("sr_pull")(
        (_grid(n),), (_THREADS,),
        (tindptr, tindices, tdata, x_present, x_val, np.int64(n), m, use_mask, comp, term,
         y, present))
    return present, y


def masked_dot(A, BT, rows, cols, semiring, dtype):
    """Masked SpGEMM as dot products in one kernel: ``out[p] = (+)_k mul(A[rows[p], k],
    B[k, cols[p]], k, cols[p])`` by a galloping merge of the two sorted rows (``A`` and
    ``BT`` canonical Matrices); returns ``(present, values)`` per position.

    Examples
    --------
    >>> import cupy, cupyx.scipy.sparse as csp                          # doctest: +SKIP
    >>> from spbfs.semiring import Matrix, plus_pair                    # doctest: +SKIP
    >>> A = Matrix.from_any(csp.csr_matrix(cupy.eye(3)))                # doctest: +SKIP
    >>> masked_dot(A, A, cupy.array([0, 0]), cupy.array([0, 1]), plus_pair,
    ...            cupy.int64)                                          # doctest: +SKIP
    (array([ True, False]), array([1, 0]))
    """
    import cupy

    dtype = np.dtype(dtype)
    npos = int(rows.size)
    out, present = cupy.empty(npos, dtype), cupy.empty(npos, bool)
    if npos == 0:
        return present, out
    op = semiring.multiply
    ptr = np.promote_types(A.indptr.dtype, BT.indptr.dtype)
    idx = np.promote_types(A.indices.dtype, BT.indices.dtype)
    x = _operand(A.data if "x" in op.uses else None, True)
    a = _operand(BT.data if "a" in op.uses else None, True)
    mod = _module(semiring, x.dtype, a.dtype, dtype, idx, ptr, np.int64)
    terminal = semiring.monoid.terminal
    term = dtype.type(0 if terminal is None or terminal == ANY_TERMINAL else terminal(dtype))
    mod.get_function("sr_masked_dot")(
        (_grid(npos),), (_THREADS,),
        (A.indptr.astype(ptr, copy=False), A.indices.astype(idx, copy=False), x,
         BT.indptr.astype(ptr, copy=False), BT.indices.astype(idx, copy=False), a,
         cupy.ascontiguousarray(rows, np.int64), cupy.ascontiguousarray(cols, np.int64),
         np.int64(npos), np.int32("x" in op.uses), np.int32("a" in op.uses), term, out,
         present))
    return present, out


def bitmap_search(M, source, semiring, values, transpose, parent_ids=None):
    """The bitmap kernels' :class:`~spbfs.semiring.LevelSearch` where they compute this
    semiring (:func:`spbfs.gpu.bfs.supports`), else None (the masked spmspv/spmv serve).

    Examples
    --------
    >>> from spbfs import semiring
    >>> bitmap_search(None, 0, semiring.min_plus, False, True) is None
    True
    """
    from . import bfs

    if not bfs.supports(semiring, values):
        return None
    return bfs.BitmapSearch(M, source, values, transpose, parent_ids)


def _kernel_name(kind: str, expr: str) -> str:
    return f"spbfs_{kind}_{hashlib.sha1(expr.encode()).hexdigest()[:12]}"


def _arg(arr):
    """An operand for an elementwise kernel: the array, or a scalar 0 when not read."""
    return np.int8(0) if arr is None else arr


def binary(op, x, a, i, j, dtype):
    """``op(x, a, i, j)`` elementwise, generated from ``op.c_expr`` (same contract as
    :func:`spbfs.semiring._cpu.binary`).

    Examples
    --------
    >>> import cupy                                                  # doctest: +SKIP
    >>> from spbfs.semiring import ops                               # doctest: +SKIP
    >>> binary(ops.minus, cupy.array([5, 7]), cupy.array([1, 2]), None,
    ...        cupy.array([0, 1]), cupy.int64)                       # doctest: +SKIP
    array([4, 5])
    """
    import cupy

    dtype = np.dtype(dtype)
    out = cupy.empty(j.shape, dtype)
    if out.size == 0:
        return out
    reads = op.uses
    operands = (_arg(x if "x" in reads else None), _arg(a if "a" in reads else None),
                _arg(i if "i" in reads else None), j)
    return kernels.run_elementwise(op.c_expr, ("x", "a", "i", "j"), operands, out,
                                   _kernel_name("binary", op.c_expr))


def index_unary(op, v, i, j, thunk, dtype):
    """``op(v, i, j, thunk)`` elementwise, generated from ``op.c_expr``.

    Examples
    --------
    >>> import cupy                                                  # doctest: +SKIP
    >>> from spbfs.semiring import select_ops                        # doctest: +SKIP
    >>> index_unary(select_ops.tril, None, cupy.array([0, 1]), cupy.array([1, 0]), 0,
    ...             bool)                                            # doctest: +SKIP
    array([False,  True])
    """
    import cupy

    dtype = np.dtype(dtype)
    shape = next(arr.shape for arr in (v, i, j) if arr is not None)
    out = cupy.empty(shape, dtype)
    if out.size == 0:
        return out
    return kernels.run_elementwise(op.c_expr, ("v", "i", "j", "thunk"),
                                   (_arg(v), _arg(i), _arg(j), thunk), out,
                                   _kernel_name("unary", op.c_expr))


def segment_reduce(monoid, values, starts, dtype):
    """Reduce ``values[starts[k]:starts[k + 1]]`` along axis 0 with the monoid's C expression
    (same contract as :func:`spbfs.semiring._cpu.segment_reduce`).

    Examples
    --------
    >>> import cupy                                                  # doctest: +SKIP
    >>> from spbfs.semiring import monoids                           # doctest: +SKIP
    >>> segment_reduce(monoids.max, cupy.array([3, 9, 4, 1]), cupy.array([0, 2]),
    ...                cupy.int64)                                   # doctest: +SKIP
    array([9, 4])
    """
    import cupy

    dtype = np.dtype(dtype)
    width = int(np.prod(values.shape[1:], dtype=np.int64)) if values.ndim > 1 else 1
    out = cupy.empty((int(starts.size),) + values.shape[1:], dtype)
    if out.size == 0:
        return out
    if monoid.is_any:
        return values[starts].astype(dtype, copy=False)
    vals = cupy.ascontiguousarray(values.astype(dtype, copy=False))
    if starts.size == 1 and values.ndim == 1 and values.size > _SCALAR_CHUNK:
        # one long segment (a scalar reduction): partial results in parallel, then theirs
        parts = segment_reduce(monoid, vals[int(starts[0]):],
                               cupy.arange(0, values.size - int(starts[0]), _SCALAR_CHUNK,
                                           dtype=np.int64), dtype)
        return segment_reduce(monoid, parts, starts[:1] * 0, dtype)
    starts = cupy.ascontiguousarray(starts.astype(np.int64, copy=False))
    mod = kernels.segment_module(monoid.c_expr, dtype)
    mod.get_function("segment_reduce")(
        (_grid(out.size),), (_THREADS,),
        (vals, starts, np.int64(starts.size), np.int64(values.shape[0]), np.int64(width), out))
    return out
