"""The CPU backend's products: masked SpMSpV (push), masked SpMV (pull), the element-wise
operators and the segmented reductions, with numpy.

Every function works on whole arrays: a level of BFS is a handful of
vectorised numpy calls.  The only Python loop is over "rounds" of the
early-exit pull, whose count grows with log(max degree), never with the
number of vertices or edges.

These kernels take raw CSR arrays; validation happens in the front end
(:mod:`spbfs.semiring._operators`).  The GPU backend (:mod:`spbfs.gpu.backend`)
implements the same functions with the same signatures.
"""

from __future__ import annotations

import numpy as np

from ..core.csr import expand, row_chunks
from ..core.seam import ANY_TERMINAL

#: In-edges each vertex scans in the first round of an early-exit pull.
FIRST_PULL_CHUNK = 1
#: Factor by which the pull chunk grows each round.
PULL_CHUNK_GROWTH = 4


def _multiply(op, x_val, data, i, j, dtype):
    """Apply a semiring multiply to gathered edge operands (only those it uses)."""
    x = x_val if "x" in op.uses else None
    a = data if "a" in op.uses else None
    out = op.func(x, a, i, j, dtype)
    return out.astype(dtype, copy=False)


def _allowed(mask, complement, idx):
    keep = mask[idx]
    return ~keep if complement else keep


def reduce_by_index(monoid, j, vals, n):
    """Reduce ``vals`` grouped by output index ``j``: sorted unique ``j`` and results.

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs.semiring import monoids
    >>> reduce_by_index(monoids.min, np.array([3, 1, 3]), np.array([5, 7, 2]), 4)
    (array([1, 3]), array([7, 2]))
    """
    if j.size == 0:
        return j.astype(np.int64), vals
    if monoid.is_any:
        if j.size * 16 < n:  # few hits: sort them
            idx, first = np.unique(j, return_index=True)
            return idx, vals[first]
        present = np.zeros(n, bool)
        present[j] = True
        out = np.empty(n, vals.dtype)
        out[j] = vals
        idx = np.flatnonzero(present)
        return idx, out[idx]
    if j.size * 16 >= n:  # many hits: a dense accumulator (ufunc.at), no sort
        acc = np.full(n, monoid.identity(vals.dtype), dtype=vals.dtype)
        monoid.ufunc.at(acc, j, vals)
        present = np.zeros(n, bool)
        present[j] = True
        idx = np.flatnonzero(present)
        return idx, acc[idx]
    order = np.argsort(j, kind="stable")
    js = j[order]
    starts = np.flatnonzero(np.concatenate(([True], js[1:] != js[:-1])))
    return js[starts], monoid.ufunc.reduceat(vals[order], starts).astype(vals.dtype, copy=False)


def spmspv(indptr, indices, data, n, x_idx, x_val, semiring, mask, complement, dtype):
    """Push: ``y = x @ A`` for a sparse ``x``, masked; returns sorted ``(y_idx, y_val)``.

    Parameters
    ----------
    indptr, indices, data : ndarray
        CSR of ``A`` (row = source vertex).
    n : int
        Number of columns (length of ``y``).
    x_idx, x_val : ndarray
        Stored indices and values of ``x``.
    semiring : Semiring
    mask : ndarray of bool or None
        Output entries allowed where ``mask`` is True (False if ``complement``).
    complement : bool
    dtype : numpy.dtype
        Output dtype.
    """
    products = int((indptr[x_idx + 1] - indptr[x_idx]).sum())
    if products <= PUSH_CHUNK or products * 16 < n:  # few products: one pass, sorted
        return reduce_by_index(semiring.monoid, *_push_products(
            indptr, indices, data, x_idx, x_val, semiring, mask, complement, dtype), n)
    # many: the frontier's rows in chunks of about PUSH_CHUNK products, into a dense
    # accumulator (the chunks' temporaries stay in cache instead of faulting in pages)
    monoid = semiring.monoid
    acc = np.full(n, monoid.identity(dtype), dtype=dtype)
    present = np.zeros(n, bool)
    for rows in row_chunks(indptr, x_idx, PUSH_CHUNK):
        j, vals = _push_products(indptr, indices, data, x_idx[rows], x_val[rows], semiring,
                                 mask, complement, dtype)
        if monoid.is_any:
            acc[j] = vals
        else:
            monoid.ufunc.at(acc, j, vals)
        present[j] = True
    idx = np.flatnonzero(present)
    return idx, acc[idx]


#: Products per chunk of a push (:func:`spmspv`) with many products.
PUSH_CHUNK = 1 << 16


def _push_products(indptr, indices, data, x_idx, x_val, semiring, mask, complement, dtype):
    """Output index and value of every product of a push, after the mask."""
    op = semiring.multiply
    pos, owner = expand(indptr, x_idx)
    j = indices[pos]
    if mask is not None:
        keep = _allowed(mask, complement, j)
        pos, owner, j = pos[keep], owner[keep], j[keep]
    vals = _multiply(op, x_val[owner] if "x" in op.uses else None,
                     data[pos] if "a" in op.uses else None,
                     x_idx[owner] if "i" in op.uses else None, j, dtype)
    return j, vals


def spmv(tindptr, tindices, tdata, x_present, x_val, semiring, mask, complement, dtype):
    """Pull: ``y = x @ A`` for a bitmap ``x``, masked; returns ``(y_present, y_val)``.

    ``tindptr, tindices, tdata`` is the CSR of ``A.T`` (row ``j`` lists the
    in-neighbours of ``j``).  Monoids with a terminal value (``any``, ``lor``,
    ...) scan in-edges in growing chunks and drop a vertex as soon as its
    result can no longer change (early exit); others scan every in-edge once.
    """
    monoid = semiring.monoid
    if monoid.terminal is None and mask is None and bool(x_present.all()):
        return _pull_every_edge(tindptr, tindices, tdata, x_val, semiring, dtype)
    n_out = tindptr.size - 1
    y_present = np.zeros(n_out, bool)
    y_val = np.zeros(n_out, dtype)
    wanted = np.arange(n_out) if mask is None else np.flatnonzero(
        ~mask if complement else mask)
    for first in range(0, wanted.size, PULL_BLOCK):  # blocks of outputs: arrays in cache
        _pull_rows(tindptr, tindices, tdata, x_present, x_val, semiring,
                   wanted[first:first + PULL_BLOCK], y_present, y_val, dtype)
    return y_present, y_val


#: Outputs per block of a pull (:func:`spmv`, the packed pull): a block's temporaries stay
#: in cache and reuse memory rather than fault in fresh pages.
PULL_BLOCK = 1 << 14


def _pull_rows(tindptr, tindices, tdata, x_present, x_val, semiring, active, y_present, y_val,
               dtype):
    """:func:`spmv` into the outputs ``active`` (sorted), in place."""
    monoid, op = semiring.monoid, semiring.multiply
    lo = tindptr[active].astype(np.int64)
    hi = tindptr[active + 1].astype(np.int64)
    live = hi > lo
    active, lo, hi = active[live], lo[live], hi[live]
    terminal = monoid.terminal
    if terminal is not None and terminal != ANY_TERMINAL:
        terminal = terminal(dtype)
    chunk = FIRST_PULL_CHUNK if terminal is not None else None
    while active.size:
        if chunk == 1:  # every active row has an edge left: probe one each, no expansion
            take, pos, owner = 1, lo, np.arange(active.size)
        else:
            take = hi - lo if chunk is None else np.minimum(hi - lo, chunk)
            pos, owner = expand(tindptr, active, counts=take, starts=lo)
        src = tindices[pos]
        hit = x_present[src]
        pos, owner, src = pos[hit], owner[hit], src[hit]
        done = np.zeros(active.size, bool)
        if pos.size:
            vals = _multiply(op, np.take(x_val, src) if "x" in op.uses else None,
                             tdata[pos] if "a" in op.uses else None, src, active[owner], dtype)
            starts = np.flatnonzero(np.concatenate(([True], owner[1:] != owner[:-1])))
            who = owner[starts]
            out = active[who]
            if monoid.is_any:
                y_val[out] = vals[starts]
                done[who] = True
            else:
                part = monoid.ufunc.reduceat(vals, starts).astype(dtype, copy=False)
                y_val[out] = np.where(y_present[out], monoid.ufunc(y_val[out], part), part)
                if terminal is not None:
                    done[who] = y_val[out] == terminal
            y_present[out] = True
        if chunk is None:
            break
        lo += take
        keep = (lo < hi) & ~done
        active, lo, hi = active[keep], lo[keep], hi[keep]
        chunk *= PULL_CHUNK_GROWTH


def _pull_every_edge(tindptr, tindices, tdata, x_val, semiring, dtype):
    """:func:`spmv` of a full ``x`` into every output: each in-edge once, in CSR order, one
    ``reduceat`` over the rows (no expansion of edge positions, no hit filtering)."""
    op, n_out = semiring.multiply, tindptr.size - 1
    nnz = int(tindptr[-1])
    src = tindices[:nnz]
    deg = np.diff(tindptr)
    rows = np.repeat(np.arange(n_out), deg) if "j" in op.uses else None
    # np.take: numpy's fancy indexing with int32 indices costs about twice as much
    vals = _multiply(op, np.take(x_val, src) if "x" in op.uses else None,
                     tdata[:nnz] if "a" in op.uses else None, src, rows, dtype)
    if vals.shape != src.shape:  # an operator that reads no per-edge operand
        vals = np.broadcast_to(vals, src.shape)
    nonempty = np.flatnonzero(deg)
    y_val = np.zeros(n_out, dtype)
    if nonempty.size:
        y_val[nonempty] = semiring.monoid.ufunc.reduceat(vals, tindptr[nonempty])
    return deg > 0, y_val


def binary(op, x, a, i, j, dtype):
    """``op(x, a, i, j)`` elementwise over gathered operands (those the operator reads);
    ``j`` (the output index) is always given and sets the shape.

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs.semiring import ops
    >>> binary(ops.minus, np.array([5, 7]), np.array([1, 2]), None, np.array([0, 1]), np.int64)
    array([4, 5])
    """
    out = _multiply(op, x, a, i, j, np.dtype(dtype))
    # an operator that reads only a bound scalar gives a scalar: one value per position
    return out if out.shape == j.shape else np.broadcast_to(out, j.shape).copy()


def index_unary(op, v, i, j, thunk, dtype):
    """``op(v, i, j, thunk)`` elementwise (an :class:`~spbfs.semiring.IndexUnaryOp`).

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs.semiring import select_ops
    >>> index_unary(select_ops.tril, None, np.array([0, 1]), np.array([1, 0]), 0, bool)
    array([False,  True])
    """
    return np.asarray(op.func(v, i, j, thunk, np.dtype(dtype))).astype(dtype, copy=False)


def segment_reduce(monoid, values, starts, dtype):
    """Reduce ``values[starts[k]:starts[k + 1]]`` (the last segment to the end) along axis 0.

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs.semiring import monoids
    >>> segment_reduce(monoids.max, np.array([3, 9, 4, 1]), np.array([0, 2]), np.int64)
    array([9, 4])
    """
    dtype = np.dtype(dtype)
    if starts.size == 0:
        return np.zeros((0,) + values.shape[1:], dtype)
    if monoid.is_any:
        return values[starts].astype(dtype, copy=False)
    if values.ndim == 2 and values.shape[1] > 1:  # rows of a block: reduce contiguous runs
        runs = np.ascontiguousarray(values.T, dtype=dtype)
        return np.ascontiguousarray(monoid.ufunc.reduceat(runs, starts, axis=1).T)
    return monoid.ufunc.reduceat(values.astype(dtype, copy=False), starts, axis=0).astype(
        dtype, copy=False)


def spmm(A, B, semiring, mask, complement, dtype):
    """None: on the CPU :func:`spbfs.semiring.mxm` multiplies a dense block by scipy's
    compiled product (``plus_times``) or one column at a time by vectorised gathers and a
    ``reduceat``, on the rows the mask allows somewhere."""
    return None


def masked_dot(A, BT, rows, cols, semiring, dtype):
    """None: on the CPU the masked dot products are the vectorised probes of
    :mod:`spbfs.semiring._products` (the GPU backend runs one merge kernel)."""
    return None
