"""CPU backend: masked SpMSpV (push) and masked SpMV (pull) with numpy.

Every function works on whole arrays: a level of BFS is a handful of
vectorised numpy calls.  The only Python loop is over "rounds" of the
early-exit pull, whose count grows with log(max degree), never with the
number of vertices or edges.

These kernels take raw CSR arrays; validation happens in the front end
(:mod:`spbfs.semiring._operators`).  The GPU backend implements the same
two functions with the same signatures.

The CSR helpers at the end serve the CPU paths of :mod:`spbfs.semiring._algebra`:
the union of two patterns (scipy's compiled merge), the entries a flag array keeps,
and the splice of a region into a matrix, all on canonical CSR arrays.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._array import array_module, to_numpy
from ._ops import ANY_TERMINAL

#: In-edges each vertex scans in the first round of an early-exit pull.
FIRST_PULL_CHUNK = 1
#: Factor by which the pull chunk grows each round.
PULL_CHUNK_GROWTH = 4


def expand(indptr, rows, counts=None, starts=None):
    """Edge positions of ``rows`` of a CSR and, per edge, the index into ``rows``.

    ``starts``/``counts`` restrict each row to ``counts`` edges from position
    ``starts`` (defaults: the whole row).  Returns ``(pos, owner)`` with
    ``pos`` int64 positions into ``indices``/``data`` and ``owner`` the index
    (into ``rows``) each edge came from; both ordered row by row.

    Examples
    --------
    >>> import numpy as np
    >>> pos, owner = expand(np.array([0, 2, 2, 5]), np.array([2, 0]))
    >>> pos.tolist(), owner.tolist()
    ([2, 3, 4, 0, 1], [0, 0, 0, 1, 1])
    """
    xp = array_module(indptr)  # numpy here; the operations also call it on cupy arrays
    if starts is None:
        starts = indptr[rows]
    if counts is None:
        counts = indptr[rows + 1] - starts
    counts = counts.astype(np.int64, copy=False)
    total = int(counts.sum())
    ends = xp.cumsum(counts)
    seg = ends - counts
    if xp is np:
        pos = np.repeat(starts.astype(np.int64) - seg, counts)
        owner = np.repeat(np.arange(rows.size, dtype=np.int64), counts)
    else:  # cupy.repeat takes no array of counts: find each edge's row by binary search
        owner = xp.searchsorted(ends, xp.arange(total, dtype=np.int64), side="right")
        pos = (starts.astype(np.int64) - seg)[owner]
    pos += xp.arange(total, dtype=np.int64)
    return pos, owner


def _multiply(op, x_val, data, i, j, dtype):
    """Apply a semiring multiply to gathered edge operands (only those it uses)."""
    x = x_val if "x" in op.uses else None
    a = data if "a" in op.uses else None
    out = op.func(x, a, i, j, dtype)
    return out.astype(dtype, copy=False)


def _allowed(mask, complement, idx):
    keep = mask[idx]
    return ~keep if complement else keep


def row_chunks(indptr, rows, size):
    """Slices of ``rows`` (of a CSR, numpy or cupy) that hold about ``size`` stored
    entries each, in order (a row of more than ``size`` entries fills a chunk alone).

    Examples
    --------
    >>> import numpy as np
    >>> row_chunks(np.array([0, 3, 4, 9, 10]), np.array([0, 1, 2, 3]), 4)
    [slice(0, 2, None), slice(2, 3, None), slice(3, 4, None)]
    """
    xp = array_module(indptr)
    ends = xp.cumsum(indptr[rows + 1] - indptr[rows])
    total = int(ends[-1]) if ends.size else 0
    cuts = to_numpy(xp.searchsorted(ends, xp.arange(size, total, size), side="left")) + 1
    bounds = [0] + np.unique(cuts[cuts < rows.size]).tolist() + [int(rows.size)]
    return [slice(a, b) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]


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


def bitmap_search(M, source, semiring, values, transpose, parent_ids=None):
    """None: the CPU has no separate bitmap engine; :func:`spbfs.semiring.level_search`
    runs its masked :func:`spmspv` / :func:`spmv` (vectorised, with early-exit pulls)."""
    return None


def spmm(A, B, semiring, mask, complement, dtype):
    """None: on the CPU :func:`spbfs.semiring.mxm` multiplies a dense block by scipy's
    compiled product (``plus_times``) or one column at a time by vectorised gathers and a
    ``reduceat``, on the rows the mask allows somewhere."""
    return None


def masked_dot(A, BT, rows, cols, semiring, dtype):
    """None: on the CPU the masked dot products are the vectorised probes of
    :mod:`spbfs.semiring._algebra` (the GPU backend runs one merge kernel)."""
    return None


# ----------------------------------------------------------------------------- CSR helpers
def csr_union(shape, a_indptr, a_indices, b_indptr, b_indices, b_tags=None):
    """The union of two canonical CSR patterns (sorted, duplicate-free rows) by scipy's
    compiled merge of int8 tags: ``(indptr, indices, tags)``, canonical, ``tags`` 1 where
    only the first pattern stores the entry, 2 only the second, 3 both.

    ``b_tags`` (2 or 0 per entry of the second pattern; default all 2) leaves out the
    second pattern's entries tagged 0 where the first does not store them: scipy drops
    only zero sums, and the sums 1, 2, 3 never are.

    Examples
    --------
    >>> import numpy as np
    >>> indptr, indices, tags = csr_union((2, 3), np.array([0, 2, 2]), np.array([0, 2]),
    ...                                   np.array([0, 1, 2]), np.array([2, 1]))
    >>> indptr.tolist(), indices.tolist(), tags.tolist()
    ([0, 2, 3], [0, 2, 1], [1, 3, 2])
    """
    if b_tags is None:
        b_tags = np.full(b_indices.size, 2, np.int8)
    first = sp.csr_array((np.ones(a_indices.size, np.int8), a_indices, a_indptr), shape=shape)
    union = first + sp.csr_array((b_tags, b_indices, b_indptr), shape=shape)
    return union.indptr, union.indices, union.data


def csr_keep(indptr, indices, keep):
    """Row pointers and column indices of the CSR entries that ``keep`` (bool per entry)
    selects, in their order (numpy or cupy).

    Examples
    --------
    >>> import numpy as np
    >>> indptr, indices = csr_keep(np.array([0, 2, 3]), np.array([0, 2, 1]),
    ...                            np.array([False, True, True]))
    >>> indptr.tolist(), indices.tolist()
    ([0, 1, 2], [2, 1])
    """
    xp = array_module(indptr)
    if xp is np:
        return count_before(keep, indptr), indices[keep]
    kept = xp.flatnonzero(keep)
    return xp.searchsorted(kept, indptr.astype(kept.dtype)), indices[keep]


_M1, _M2, _M4, _H01 = (np.uint64(m) for m in (0x5555555555555555, 0x3333333333333333,
                                              0x0F0F0F0F0F0F0F0F, 0x0101010101010101))


def swar_popcount(words):
    """Set bits of each uint64 by SWAR arithmetic (numpy before 2.0 has no popcount).

    Examples
    --------
    >>> import numpy as np
    >>> swar_popcount(np.array([0, 1, 2**64 - 1, 0b1011], np.uint64)).tolist()
    [0, 1, 64, 3]
    """
    words = words - ((words >> np.uint64(1)) & _M1)
    words = (words & _M2) + ((words >> np.uint64(2)) & _M2)
    words = (words + (words >> np.uint64(4))) & _M4
    return (words * _H01) >> np.uint64(56)


_popcount = getattr(np, "bitwise_count", swar_popcount)


def count_before(flags, bounds):
    """How many of ``flags`` (bool) are True before each position in ``bounds`` (ints):
    the flags packed 64 to a word, a running count per word, and the bits of the word a
    position falls in (a per-row count of a CSR's flagged entries, with ``bounds`` its
    row pointers, in two passes over ``flags / 64`` words).

    Examples
    --------
    >>> import numpy as np
    >>> count_before(np.array([True, False, True, True]), np.array([0, 1, 3, 4])).tolist()
    [0, 1, 2, 3]
    """
    nwords = flags.size // 64 + 1
    packed = np.zeros(nwords * 8, np.uint8)
    packed[:(flags.size + 7) // 8] = np.packbits(flags, bitorder="little")
    words = packed.view("<u8")
    running = np.zeros(nwords + 1, np.int64)
    np.cumsum(_popcount(words), out=running[1:])
    word = bounds >> 6
    below = (np.uint64(1) << (bounds & 63).astype(np.uint64)) - np.uint64(1)
    return running[word] + _popcount(words[word] & below).astype(np.int64)


def csr_assign(indptr, indices, data, ncols, region_rows, in_cols, rows, cols, values):
    """A canonical CSR whose entries in a region are replaced: the entries of the rows
    ``region_rows`` at the columns where ``in_cols`` (bool per column) is True are removed,
    then the entries ``(rows, cols, values)`` (inside the region, sorted by row, then
    column) are written: ``(indptr, indices, data)``, ``data`` of ``values``' dtype.

    Only the region's rows are searched; the other entries are copied with one masked copy
    per array (an old entry at a written place is overwritten, not removed and inserted).

    Examples
    --------
    >>> import numpy as np
    >>> indptr, indices, data = csr_assign(
    ...     np.array([0, 2, 3]), np.array([0, 2, 1]), np.array([1., 2., 3.]), 3,
    ...     np.array([0, 1]), np.array([False, True, True]),
    ...     np.array([0, 1]), np.array([1, 1]), np.array([7., 8.]))
    >>> indptr.tolist(), indices.tolist(), data.tolist()
    ([0, 2, 3], [0, 1, 1], [1.0, 7.0, 8.0])
    """
    touched = np.sort(region_rows)
    pos, owner = expand(indptr, touched)
    keys = touched[owner] * ncols + indices[pos]  # the region rows' entries, sorted
    new_keys = rows * ncols + cols
    at = np.searchsorted(keys, new_keys)
    hit = keys[np.minimum(at, keys.size - 1)] == new_keys if keys.size else at < 0
    written = np.zeros(keys.size, bool)
    written[at[hit]] = True
    dropped = in_cols[indices[pos]] & ~written
    drop = pos[dropped]
    # each written entry's place: the entries before it (its row's start plus the entries
    # of its row left of it) less the removed ones, plus the entries inserted before it
    before = indptr[rows] + at - np.searchsorted(keys, rows * ncols)
    inserted = ~hit
    final = before - np.searchsorted(drop, before) + np.cumsum(inserted) - inserted
    size = indices.size - drop.size + int(np.count_nonzero(inserted))
    copied = np.ones(size, bool)
    copied[final[inserted]] = False
    keep = None
    if drop.size:
        keep = np.ones(indices.size, bool)
        keep[drop] = False
    out = []
    for old, new, dtype in ((indices, cols, indices.dtype), (data, values, values.dtype)):
        arr = np.empty(size, dtype)
        arr[copied] = old if keep is None else old[keep]
        arr[final] = new
        out.append(arr)
    n = indptr.size - 1
    new_indptr = indptr.astype(np.int64)
    new_indptr[1:] += np.cumsum(np.bincount(rows[inserted], minlength=n)
                                - np.bincount(touched[owner[dropped]], minlength=n))
    return new_indptr, out[0], out[1]


# The packed any_secondi product (:mod:`spbfs.semiring._cpu_packed`) is part of this
# backend; it imports the helpers above.
from ._cpu_packed import packed_pull, packed_push, unpack_bitplanes  # noqa: E402, F401
