"""The GPU backend: the primitives of the backend seam (:mod:`spbfs.core.seam`) on cupy
arrays, chosen for cupy operands by :func:`spbfs.semiring._backend.backend_for` (imported only
then, so importing spbfs never needs a GPU).

Every required primitive of the seam (:data:`spbfs.core.seam.REQUIRED`), with the signature
declared there and the same contract as the CPU backend's (:mod:`spbfs.cpu.backend`), for
any semiring: the kernels are generated from the operators' C expressions
(``monoid.c_expr`` in ``a``, ``b``; ``multiply.c_expr`` in ``x``, ``a``, ``i``, ``j``), so
user-defined semirings run on the GPU too.

* ``spmspv`` (push): one thread per edge of the frontier's rows (binary search in the prefix
  sum of frontier degrees: load balanced whatever the degrees), masked, combined into a
  dense accumulator with a CAS loop of the monoid (a plain write for ``any``), then
  compacted to sorted indices.
* ``spmv`` (pull): each allowed output's in-edges scanned by the warp that owns 32
  consecutive outputs, stopping at the first hit (``any``) or at the monoid's terminal
  value (``lor``, ...); rows of more than ``_PULL_HEAVY`` entries get a block each.
* ``spmm``: a warp per (row, 32 columns) sharing edges by shuffles; ``masked_dot``: masked
  dot products by a galloping merge of two sorted rows; ``binary``, ``index_unary``,
  ``segment_reduce``: elementwise and segmented kernels from the operators' expressions;
  ``packed_push``, ``packed_pull``, ``unpack_bitplanes``: the many-source ``any_secondi``
  product on bit-packed frontiers.
* ``bitmap_search``: the bitmap level-search engine (:mod:`spbfs.gpu.bfs`; its level loop
  runs on the device), None for semirings it does not compute.

Of the optional primitives (:data:`spbfs.core.seam.OPTIONAL`) it has ``queue_order`` and
``queue_levels`` (the queue search, three kernels a level, :mod:`spbfs.gpu.queue`),
``greedy_colors`` (Jones and Plassmann's rounds, a kernel a round, :mod:`spbfs.gpu.color`),
``row_mode`` (a warp or a block a row, :mod:`spbfs.gpu.mode`), ``mode_sweeps`` and
``modularity_sweep`` (those kernels over each colour class's row list, no host read inside
a sweep), ``peel`` (a queue on the
device, runs of small rounds in one block, :mod:`spbfs.gpu.peel`), ``weak_components`` (a
concurrent union-find, :mod:`spbfs.gpu.components`), ``csr_induced`` (the forest's core,
:mod:`spbfs.gpu.build`), ``forest_outputs`` (:mod:`spbfs.gpu.forest`), ``delta_stepping``
(frontier Bellman-Ford rounds on the device, :mod:`spbfs.gpu.relax`), and ``prefers_pull``,
``pruning_share`` and ``hub_numbering`` (cost hints); the others (``spgemm``,
``ewise_csr``, ``select_csr``, ``queue_meet``, ``spmv_scatter``, ``strong_components``) are
left to the operations' generic paths.

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

from ..core.seam import ANY_TERMINAL
from . import bfs, kernels
from .build import csr_induced
from .color import greedy_colors
from .components import weak_components
from .forest import forest_outputs, hub_numbering, pruning_share
from .mode import mode_sweeps, modularity_sweep, row_mode
from .peel import peel
from .queue import queue_levels, queue_order
from .relax import delta_stepping

__all__ = ["binary", "bitmap_search", "csr_induced", "delta_stepping", "forest_outputs",
           "greedy_colors", "hub_numbering", "index_unary", "masked_dot", "mode_sweeps",
           "modularity_sweep",
           "packed_pull", "packed_push", "peel", "prefers_pull", "pruning_share", "queue_levels",
           "queue_order", "row_mode", "segment_reduce", "spmm", "spmspv", "spmv",
           "unpack_bitplanes", "weak_components"]

_THREADS = 256
#: Rows of more entries than this get a block of warps each in ``spmm`` (one warp otherwise).
_SPMM_HEAVY = 2048

#: A pull's rows of more entries than this go to a block of _PULL_HEAVY_THREADS each, the
#: blocks spread over the SMs: left to the warp that owns 32 consecutive rows, a run of hubs
#: (rows ordered by degree, or a distributed rank's delegates, all at the end) holds a few
#: SMs for the whole product (H100, Kronecker scale 20, plus_times: 2**15 -> 256 took the
#: pull from 1.44 to 0.69 ms, and from 21 to 0.68 ms with the hubs last).
_PULL_HEAVY = 256
_PULL_HEAVY_THREADS = 1024
#: Values per partial result when one segment is reduced (a scalar reduction).
_SCALAR_CHUNK = 1 << 12


#: A push's cost in pulled entries: a fixed part (its frontier list, edge offsets and
#: compaction, each read on the host) and a part per frontier edge (a binary search and a CAS
#: loop).  Fitted to ``min_plus`` rounds on one H100, Kronecker scales 17, 20 and 22 (3.7M to
#: 128M entries): a push 0.9-1.5 ms plus 35 ps an edge, a pull 0.2 ms plus 25 ps an entry.
_PUSH_FIXED_ENTRIES = 1 << 25
_PUSH_ENTRIES_PER_EDGE = 1.4


def prefers_pull(nnz: int, frontier_edges: int) -> bool:
    """Whether pulling over all ``nnz`` entries costs less than pushing a frontier with
    ``frontier_edges`` out-edges (a product whose monoid has no early exit).  On the GPU a
    push's fixed cost is that of pulling about 2**25 entries: below that every product
    pulls.

    Examples
    --------
    >>> prefers_pull(3_700_000, 50), prefers_pull(128_000_000, 1_000_000)
    (True, False)
    """
    return nnz < _PUSH_ENTRIES_PER_EDGE * frontier_edges + _PUSH_FIXED_ENTRIES


def _grid(work: int) -> int:
    return kernels.blocks(work, threads=_THREADS)


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


def _terminal(monoid, dtype):
    """The monoid's terminal value as a kernel argument (0 where it has none)."""
    terminal = monoid.terminal
    return dtype.type(0 if terminal is None or terminal == ANY_TERMINAL else terminal(dtype))


def spmspv(indptr, indices, data, n, x_idx, x_val, semiring, mask, complement, dtype):
    """Push: ``y = x @ A`` for a sparse ``x``, masked; returns sorted ``(y_idx, y_val)``.

    Same contract as :func:`spbfs.cpu.products.spmspv`, on cupy arrays.

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
    offs, total = kernels.edge_offsets(indptr, x_idx)
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


#: Warps per block of ``packed_pull`` (``TILE_WARPS`` in packed_kernels.cu).
_TILE_WARPS = 2


def _strides(out):
    """``out``'s strides in elements, as kernel arguments."""
    return tuple(np.int64(st // out.itemsize) for st in out.strides)


def _dense_words(n, idx, words):
    """The sparse words ``(idx, words)`` as a dense array of ``n`` words (0 elsewhere)."""
    import cupy

    dense = cupy.zeros(n, np.uint64)
    dense[idx] = words
    return dense


def packed_push(indptr, indices, data, x_idx, x_val, want_idx, want_val, out):
    """Push of :func:`spbfs.semiring.packed_any_secondi`: a thread per out-edge of
    ``x``'s rows claims its bits of a dense copy of ``want`` (one ``atomicAnd``).

    Same contract as :func:`spbfs.cpu.packed.packed_push`, on cupy arrays.

    Examples
    --------
    >>> import cupy                                                          # doctest: +SKIP
    >>> out = cupy.full((2, 2), -1)                                          # doctest: +SKIP
    >>> packed_push(cupy.array([0, 1, 1]), cupy.array([1], cupy.int32), None,
    ...             cupy.array([0]), cupy.array([3], cupy.uint64), cupy.array([1]),
    ...             cupy.array([2], cupy.uint64), out)                       # doctest: +SKIP
    >>> out.tolist()                                                         # doctest: +SKIP
    [[-1, -1], [-1, 0]]
    """
    import cupy

    x_idx = cupy.ascontiguousarray(x_idx, np.int64)
    offs, total = kernels.edge_offsets(indptr, x_idx)
    if total == 0:
        return
    want = _dense_words(out.shape[1], want_idx, want_val)
    mod = kernels.packed_module(indices.dtype, indptr.dtype, out.dtype, data is not None)
    mod.get_function("packed_push")(
        (_grid(total),), (_THREADS,),
        (indptr, indices, _operand(data, True), x_idx, cupy.ascontiguousarray(x_val), offs,
         np.int64(x_idx.size), np.int64(total), want, out, *_strides(out)))


def packed_pull(tindptr, tindices, tdata, x_words, want_idx, want_val, out):
    """Pull of :func:`spbfs.semiring.packed_any_secondi`: a warp per tile of 32 columns
    finds their witnesses (a lane per column, then the warp for long scans) in shared
    memory, and writes them out row by row (coalesced).

    Same contract as :func:`spbfs.cpu.packed.packed_pull`, on cupy arrays.

    Examples
    --------
    >>> import cupy                                                          # doctest: +SKIP
    >>> out = cupy.full((2, 2), -1)                                          # doctest: +SKIP
    >>> packed_pull(cupy.array([0, 0, 1]), cupy.array([0], cupy.int32), None,
    ...             cupy.array([3, 0], cupy.uint64), cupy.array([1]),
    ...             cupy.array([2], cupy.uint64), out)                       # doctest: +SKIP
    >>> out.tolist()                                                         # doctest: +SKIP
    [[-1, -1], [-1, 0]]
    """
    import cupy

    n = out.shape[1]
    want = _dense_words(n, want_idx, want_val)
    tiles = (n + 31) // 32
    blocks = int(max(1, min((tiles + _TILE_WARPS - 1) // _TILE_WARPS, kernels.sm_count() * 32)))
    mod = kernels.packed_module(tindices.dtype, tindptr.dtype, out.dtype, tdata is not None)
    mod.get_function("packed_pull")(
        (blocks,), (_TILE_WARPS * 32,),
        (tindptr, tindices, _operand(tdata, True), cupy.ascontiguousarray(x_words), want,
         np.int64(n), np.int32(out.shape[0]), out, *_strides(out)))


def unpack_bitplanes(planes, present, out):
    """:func:`spbfs.semiring.unpack_bitplanes` on the GPU: a thread per column keeps the
    column's plane words in registers and writes its codes row after row (coalesced).

    Same contract as :func:`spbfs.cpu.packed.unpack_bitplanes`, on cupy arrays.

    Examples
    --------
    >>> import cupy                                                          # doctest: +SKIP
    >>> out = cupy.empty((2, 3), cupy.int32)                                 # doctest: +SKIP
    >>> unpack_bitplanes([cupy.array([1, 2, 0], cupy.uint64)],
    ...                  cupy.array([3, 2, 0], cupy.uint64), out)            # doctest: +SKIP
    >>> out.tolist()                                                         # doctest: +SKIP
    [[1, -1, -1], [0, 1, -1]]
    """
    import cupy

    n = out.shape[1]
    stacked = (cupy.stack([cupy.ascontiguousarray(p) for p in planes]) if planes else
               cupy.zeros((1, n), np.uint64))
    kernels.bitplane_module(out.dtype).get_function("unpack_bitplanes")(
        (_grid(n),), (_THREADS,),
        (stacked, np.int32(len(planes)), cupy.ascontiguousarray(present), np.int64(n),
         np.int32(out.shape[0]), out, *_strides(out)))


def spmv(tindptr, tindices, tdata, x_present, x_val, semiring, mask, complement, dtype):
    """Pull: ``y = x @ A`` for a bitmap ``x``, masked; returns ``(y_present, y_val)``.

    Same contract as :func:`spbfs.cpu.products.spmv` (``tindptr``... is the
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
    term = _terminal(monoid, dtype)
    mod = _module(semiring, x_val.dtype, tdata.dtype, dtype, tindices.dtype, tindptr.dtype,
                  np.int64)
    m, use_mask, comp = _mask_args(mask, complement, n)
    mod.get_function("sr_pull")(
        (_grid(n),), (_THREADS,),
        (tindptr, tindices, tdata, x_present, x_val, np.int64(n), m, use_mask, comp,
         np.int64(_PULL_HEAVY), term, y, present))
    # rows of more than _PULL_HEAVY entries: listed on the device (no host sync), a block
    # each; at most nnz / _PULL_HEAVY of them
    rows = cupy.empty(int(tindices.size) // (_PULL_HEAVY + 1) + 1, np.int64)
    count = cupy.zeros(1, np.uint64)
    mod.get_function("sr_heavy_rows")(
        (_grid(n),), (_THREADS,),
        (tindptr, np.int64(n), np.int64(_PULL_HEAVY), m, use_mask, comp, rows, count))
    mod.get_function("sr_pull_heavy")(
        (int(min(rows.size, kernels.sm_count() * 2)),), (_PULL_HEAVY_THREADS,),
        (tindptr, tindices, tdata, x_present, x_val, rows, count, term, y, present))
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
    term = _terminal(semiring.monoid, dtype)
    mod.get_function("sr_masked_dot")(
        (_grid(npos),), (_THREADS,),
        (A.indptr.astype(ptr, copy=False), A.indices.astype(idx, copy=False), x,
         BT.indptr.astype(ptr, copy=False), BT.indices.astype(idx, copy=False), a,
         cupy.ascontiguousarray(rows, np.int64), cupy.ascontiguousarray(cols, np.int64),
         np.int64(npos), np.int32("x" in op.uses), np.int32("a" in op.uses), term, out,
         present))
    return present, out


def spmm(A, B, semiring, mask, complement, dtype, out=None, keep=False):
    """SpMM: ``C[i, c] = (+)_k mul(A[i, k], B[k, c], k, c)`` for a dense block ``B``, on the
    positions the dense bool ``mask`` allows (its complement with ``complement``), the
    monoid's identity elsewhere and where row i of ``A`` is empty; written into ``out``
    (C-contiguous, sharing no memory with ``B`` or the mask) when given; with ``keep``, the
    positions the mask does not allow keep ``out``'s values.

    A warp per (row, 32 columns) shares 32 edges at a time by shuffles, so each edge reads
    its row of ``B`` with one coalesced load; a tile the mask allows nowhere is skipped, and
    rows of more than ``_SPMM_HEAVY`` entries get a block of 32 warps each.

    Examples
    --------
    >>> import cupy, cupyx.scipy.sparse as csp                          # doctest: +SKIP
    >>> from spbfs.semiring import Matrix, plus_times                   # doctest: +SKIP
    >>> A = Matrix.from_any(csp.csr_matrix(cupy.array([[0, 2.0], [1.0, 1.0]])))  # doctest: +SKIP
    >>> spmm(A, cupy.ones((2, 3)), plus_times, None, False, cupy.float64)  # doctest: +SKIP
    array([[2., 2., 2.],
           [2., 2., 2.]])
    """
    import cupy

    dtype = np.dtype(dtype)
    m, w = A.nrows, int(B.shape[1])
    C = cupy.empty((m, w), dtype) if out is None else out
    if C.size == 0:
        return C
    op, monoid = semiring.multiply, semiring.monoid
    x = _operand(A.data if "x" in op.uses else None, True)
    b = cupy.ascontiguousarray(B)  # indexed even when the multiply ignores it
    mod = _module(semiring, x.dtype, b.dtype, dtype, A.indices.dtype, A.indptr.dtype, np.int64)
    mask_arr, use_mask, comp = _mask_args(mask, complement, m)
    keep = np.int32(bool(keep) and mask is not None and out is not None)
    ident, term = dtype.type(monoid.identity(dtype)), _terminal(monoid, dtype)
    tiles = (w + 31) // 32
    heavy = cupy.flatnonzero(cupy.diff(A.indptr) > _SPMM_HEAVY)
    args = (A.indptr, A.indices, x, np.int32("x" in op.uses), b)
    mod.get_function("sr_spmm")(
        (_grid(m * tiles * 32),), (_THREADS,),
        (*args, np.int64(m), np.int64(w), mask_arr, use_mask, comp, keep,
         np.int64(_SPMM_HEAVY), ident, term, C))
    if heavy.size:
        blocks = int(min(heavy.size * tiles, kernels.sm_count() * 4))
        mod.get_function("sr_spmm_heavy")(
            (blocks,), (1024,),
            (*args, heavy.astype(np.int64), np.int64(heavy.size), np.int64(w), mask_arr,
             use_mask, comp, keep, ident, term, C))
    return C


def bitmap_search(M, source, semiring, values, transpose, parent_ids=None, levels=True):
    """The bitmap kernels' :class:`~spbfs.semiring.LevelSearch` where they compute this
    semiring (:func:`spbfs.gpu.bfs.supports`), else None (the masked spmspv/spmv serve);
    ``levels`` False (with ``values``): kernels that write the parents alone.

    Examples
    --------
    >>> from spbfs import semiring
    >>> bitmap_search(None, 0, semiring.min_plus, False, True) is None
    True
    """
    if not bfs.supports(semiring, values):
        return None
    return bfs.BitmapSearch(M, source, values, transpose, parent_ids, levels)


def _kernel_name(kind: str, expr: str) -> str:
    return f"spbfs_{kind}_{hashlib.sha1(expr.encode()).hexdigest()[:12]}"


def _arg(arr):
    """An operand for an elementwise kernel: the array, or a scalar 0 when not read."""
    return np.int8(0) if arr is None else arr


def binary(op, x, a, i, j, dtype):
    """``op(x, a, i, j)`` elementwise, generated from ``op.c_expr`` (same contract as
    :func:`spbfs.cpu.products.binary`).

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
    (same contract as :func:`spbfs.cpu.products.segment_reduce`).

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
