"""Matrix products over any semiring: ``mxm`` (sparse x sparse, masked, and sparse x dense).

The operations of :mod:`spbfs.semiring`, on CPU and GPU.

``mxm``, ``ewise_add``, ``ewise_mult``, ``reduce``, ``apply``, ``select``, ``extract`` and
``assign``, named and defined as in python-graphblas.  Every operation works on canonical
operands (sorted, duplicate-free: duplicates of an input count as one entry holding their
sum, as scipy's ``sum_duplicates``) with whole-array numpy/cupy calls: on their CSR arrays
where that is direct (select, apply, reduce; on the CPU also the element-wise operations,
masks, extract and assign, through scipy's compiled merges and row copies), otherwise on
their coordinates.  What depends on the operators goes through the backend: elementwise
``binary`` / ``index_unary`` (numpy functions on the CPU, kernels generated from the
operators' C expressions on the GPU) and ``segment_reduce`` (a monoid over runs of
entries).  So user-defined semirings run on both devices.

Every operation that produces a result takes the same output controls:

* ``mask``: a matrix (or vector) of the result's shape; only its positions may be written.
  By value (stored and non-zero) unless ``structural=True`` (stored).
* ``complement``: write only where the mask does not allow.
* ``out`` and ``replace``: ``C<mask> = result`` into an existing ``out``: positions the mask
  allows take the result's entries (or lose theirs); the others keep ``out``'s entries,
  unless ``replace=True`` clears them.  Without ``out`` the result alone is returned.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..core.arrays import array_module
from ..core.csr import expand, row_chunks
from ._backend import backend_for
from ._extract import extract
from ._masks import (
    _as_matrix,
    _Coords,
    _coords,
    _csr_matrix,
    _finish,
    _finish_csr,
    _Mask,
    _mask_of,
    _mask_tags,
    _member,
    _reduce_by_key,
    _segments,
)
from ._matrix import Matrix
from ._ops import Semiring
from ._vector import Vector

#: Products (or probes) handled per step of mxm on the GPU, bounding its temporary memory.
CHUNK = 1 << 24
#: The same on the CPU: temporaries that stay in cache (fresh pages of large ones cost more
#: than the work on them).
CPU_CHUNK = 1 << 16



# ----------------------------------------------------------------------------- mxm
def mxm(A, B, semiring, mask=None, *, complement=False, structural=False, replace=False,
        out=None):
    """Matrix times matrix over a semiring: ``C[i, j] = add_k mul(A[i, k], B[k, j])``.

    Sparse ``B`` (SpGEMM) gives a :class:`Matrix`; a dense 2-D array ``B`` (SpMM, e.g. a
    block of ``w`` vectors) gives a dense array, with the monoid's identity where no
    product lands.  The multiply sees ``x = A[i, k]``, ``a = B[k, j]``, ``i = k`` and
    ``j``.  ``plus_times`` without a mask goes to scipy's / cuSPARSE's product when no
    product can cancel (all values positive); other semirings, and masked products, use
    the generic path.  With a (non-complemented) mask each allowed position is computed
    as a dot product of a row of A and a column of B when that is less work than the full
    product, so the unmasked product is never built; otherwise the products are formed in
    chunks and filtered by the mask before they are combined.

    Parameters
    ----------
    A, B : Matrix, scipy/cupyx sparse, or 2-D array (``B`` dense: SpMM)
    semiring : Semiring
    mask, complement, structural, replace, out
        Output controls (see :mod:`spbfs.semiring`); for a dense result the mask is a 2-D
        boolean array and masked-out entries hold the identity.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs import semiring
    >>> A = sp.csr_array(np.array([[0, 1.0, 4.0], [0, 0, 2.0], [0, 0, 0]]))
    >>> C = semiring.mxm(A, A, semiring.min_plus)
    >>> C.to_scipy().toarray()
    array([[0., 0., 3.],
           [0., 0., 0.],
           [0., 0., 0.]])
    >>> semiring.mxm(A, np.ones((3, 2)), semiring.plus_times)
    array([[5., 5.],
           [2., 2.],
           [0., 0.]])
    """
    _check_semiring(semiring)
    if _is_dense(B):
        return _spmm(A, B, semiring, mask, complement)
    A = _as_matrix(A, "A")
    B = _as_matrix(B, "B")
    if A.ncols != B.nrows:
        raise ValueError(f"A has {A.ncols} columns but B has {B.nrows} rows")
    if A.xp is not B.xp:
        raise TypeError("B must live on the same device as A")
    shape = (A.nrows, B.ncols)
    m = _mask_of(mask, shape, structural, complement, A.xp)
    if m is None and _exact_native_product(A, B, semiring):
        # scipy's / cuSPARSE's product: duplicate-free, its rows possibly unsorted (sorted
        # later only if an operation needs the canonical form)
        C = A.to_scipy() @ B.to_scipy()
        C = Matrix(C.indptr, C.indices, C.data, shape[0], ncols=shape[1], check=False)
        return C if out is None else _finish(_coords(C, "C"), None, out, replace)
    dtype = semiring.result_dtype(A.dtype, B.dtype)
    if m is not None and not m.complement:
        # the products below hold allowed positions only: the mask is left to ``out``
        m_out = None if out is None else m
        if A.on_gpu:  # one merge kernel per masked dot product: cheaper than any saxpy
            return _finish(_mxm_dot(A, B, semiring, m, shape, dtype), m_out, out, replace)
        flops, dot_work = _flops(A, B), _dot_work(A, B, m)
        native = _native_operands(A, B, semiring)
        if native is not None and flops <= NATIVE_MASKED_RATIO * dot_work:
            C = _masked_native_product(native[0].to_scipy() @ native[1].to_scipy(), m)
            C = _csr_matrix(C.indptr, C.indices, C.data.astype(dtype, copy=False), shape)
            return _finish_csr(C, None if out is None else m, out, replace)
        if dot_work <= flops:
            return _finish(_mxm_dot(A, B, semiring, m, shape, dtype), m_out, out, replace)
    C = _mxm_saxpy(A, B, semiring, m, shape, dtype)
    return _finish_csr(C, None if out is None else m, out, replace)


def _check_semiring(semiring):
    if not isinstance(semiring, Semiring):
        raise TypeError(f"semiring must be a Semiring, got {type(semiring).__name__}")


def _is_dense(B) -> bool:
    return not isinstance(B, (Matrix, Vector)) and hasattr(B, "ndim") and hasattr(
        B, "dtype") and not hasattr(B, "tocsr")


def _exact_native_product(A, B, semiring) -> bool:
    """plus_times whose products cannot cancel to an explicit zero (scipy and cuSPARSE drop
    those): positive numeric values on both sides (float32/64 only for cuSPARSE)."""
    if semiring.monoid.name != "plus" or semiring.multiply.name != "times":
        return False
    kinds = "f" if A.on_gpu else "iuf"
    if A.dtype.kind not in kinds or B.dtype.kind not in kinds or np.float16 in (A.dtype,
                                                                                B.dtype):
        return False
    if A.on_gpu and _flops(A, B) > np.iinfo(np.int32).max:
        return False  # cuSPARSE counts the product's entries in int32: it would overflow
    return bool((A.data > 0).all()) and bool((B.data > 0).all())


#: On the CPU a masked plus_times / plus_pair product is scipy's unmasked SpGEMM, then the
#: mask, while its multiply-adds are at most this many times the masked dot products' probes
#: (compiled code against vectorised probes; degree-ordered triangle counts are ~1x).
NATIVE_MASKED_RATIO = 4


def _native_operands(A, B, semiring):
    """Operands whose scipy product is exactly the semiring's (plus_times on positive
    values; plus_pair as the patterns' product, exact below 2**53), else None."""
    if semiring.monoid.name == "plus" and semiring.multiply.name == "pair":
        xp = A.xp
        return (A.with_values(xp.ones(A.nnz, np.float64)),
                B.with_values(xp.ones(B.nnz, np.float64)))
    return (A, B) if _exact_native_product(A, B, semiring) else None


def _masked_native_product(C, mask: _Mask):
    """The entries of scipy's product ``C`` (rows unsorted; no entry zero, see
    :func:`_native_operands`) that a (not complemented) matrix mask allows, sorted: scipy's
    element-wise product with the mask's pattern tagged 1 where it allows (its merge takes
    unsorted rows, and drops the zero products of the rest)."""
    M = mask.matrix
    C = C.multiply(sp.csr_array((_mask_tags(mask, 1), M.indices, M.indptr), shape=M.shape))
    C.sort_indices()
    return C


def _flops(A, B) -> int:
    if A.nnz == 0:
        return 0
    return int(B.out_degree[A.indices].astype(np.int64).sum())


def _dot_work(A, B, m) -> int:
    """Probes of the masked dot products: the shorter list of every allowed position."""
    if m.keys.size == 0:
        return 0
    rows, cols = m.positions()
    return int(A.xp.minimum(A.out_degree[rows], B.T.out_degree[cols]).astype(np.int64).sum())


def _chunks(work):
    """Split positions ``0..len(work)`` into runs of about CHUNK total work on the GPU,
    CPU_CHUNK on the CPU (host ints)."""
    xp = array_module(work)
    if work.size == 0:
        return []
    size = CPU_CHUNK if xp is np else CHUNK
    cum = xp.cumsum(work.astype(np.int64))
    total = int(cum[-1])
    cuts = xp.searchsorted(cum, xp.arange(size, total, size, dtype=np.int64), side="left")
    bounds = [0, *(int(c) + 1 for c in (cuts.get() if xp is not np else cuts)), int(work.size)]
    return [(a, b) for a, b in zip(bounds[:-1], bounds[1:], strict=True) if b > a]


def _mxm_saxpy(A, B, semiring, m, shape, dtype) -> Matrix:
    """Row-by-row products in chunks of whole rows (:func:`_chunks`), filtered by the
    mask, combined per chunk: a canonical Matrix of the allowed entries."""
    xp, backend, mul = A.xp, backend_for(A.xp), semiring.multiply
    ncols = shape[1]
    per_entry = B.out_degree[A.indices].astype(np.int64) if A.nnz else xp.zeros(0, np.int64)
    cum = xp.concatenate([xp.zeros(1, np.int64), xp.cumsum(per_entry)])
    per_row = cum[A.indptr[1:]] - cum[A.indptr[:-1]]
    arow = A.pattern.rows()
    counts, cols_out, vals_out = [xp.zeros(1, np.int64)], [], []
    for r0, r1 in _chunks(per_row):  # whole rows per chunk: no output key spans two chunks
        lo, hi = int(A.indptr[r0]), int(A.indptr[r1])
        k = A.indices[lo:hi]
        pos_b, owner = expand(B.indptr, k)
        i = arow[lo:hi][owner]
        j = B.indices[pos_b].astype(np.int64)
        keys = i * ncols + j
        if m is not None:
            keep = m.allows(keys)
            pos_b, owner, j, keys = pos_b[keep], owner[keep], j[keep], keys[keep]
        vals = backend.binary(mul, A.data[lo:hi][owner] if "x" in mul.uses else None,
                              B.data[pos_b] if "a" in mul.uses else None,
                              k[owner].astype(np.int64) if "i" in mul.uses else None, j, dtype)
        uk, uv = _reduce_by_key(semiring.monoid, keys, vals, dtype, backend)
        rows = uk // ncols
        counts.append(xp.bincount(rows - r0, minlength=r1 - r0))
        cols_out.append(uk - rows * ncols)
        vals_out.append(uv)
    if not cols_out:  # no rows
        return _csr_matrix(counts[0], xp.zeros(0, np.int64), xp.zeros(0, dtype), shape)
    # the chunks are consecutive runs of whole rows: one count per row
    return _csr_matrix(xp.cumsum(xp.concatenate(counts)), xp.concatenate(cols_out),
                       xp.concatenate(vals_out), shape)


def _mxm_dot(A, B, semiring, m, shape, dtype):
    """Each allowed position ``(i, j)`` as the dot product of row i of A and column j of B
    (row j of B.T); nothing outside the mask is computed.  The backend's merge kernel, or
    :func:`_dot_products`."""
    xp, backend = A.xp, backend_for(A.xp)
    BT = B.T.canonical()
    mi, mj = m.positions()
    if mi.size:
        A = A.canonical()
        merged = backend.masked_dot(A, BT, mi, mj, semiring, dtype)
        present, values = merged or _dot_products(A, BT, semiring, mi, mj, dtype, backend)
    else:
        present, values = xp.zeros(0, bool), xp.zeros(0, dtype)
    return _Coords(m.keys[present], values[present], shape, xp, mi[present], mj[present])


def _dot_products(A, BT, semiring, mi, mj, dtype, backend):
    """``(present, values)`` of the positions (rows ``mi``, columns ``mj``): the shorter of
    the two lists of each is expanded and its entries probed in the other matrix's sorted
    keys, so a position costs ``min(deg_A(i), deg_B.T(j))`` searches."""
    xp, mul, inner = A.xp, semiring.multiply, A.ncols
    present, values = xp.zeros(mi.size, bool), xp.empty(mi.size, dtype)
    short_a = A.out_degree[mi] <= BT.out_degree[mj]
    for probe_a in (True, False):  # expand A's rows and probe B.T's keys, or the reverse
        at = xp.flatnonzero(short_a if probe_a else ~short_a)
        S, rows, other, other_rows = ((A, mi[at], BT, mj[at]) if probe_a else
                                      (BT, mj[at], A, mi[at]))
        other_keys, cols = other.pattern.keys(), mj[at]
        base = other_rows * inner  # each probe's key: its position's base plus its k
        for lo, hi in _chunks(S.out_degree[rows]):
            ps, owner = expand(S.indptr, rows[lo:hi])
            hit, po = _member(base[lo:hi][owner] + S.indices[ps], other_keys)
            hit = xp.flatnonzero(hit)  # the hits are few: index them, not mask each array
            if hit.size == 0:
                continue
            ps, owner, po = ps[hit], owner[hit], po[hit]
            pa, pb = (ps, po) if probe_a else (po, ps)
            k = S.indices[ps].astype(np.int64) if "i" in mul.uses else None
            vals = backend.binary(mul, A.data[pa] if "x" in mul.uses else None,
                                  BT.data[pb] if "a" in mul.uses else None, k,
                                  cols[lo:hi][owner], dtype)
            starts = _segments(owner)  # owner is sorted: the probes go position by position
            done = at[lo:hi][owner[starts]]
            values[done] = backend.segment_reduce(semiring.monoid, vals, starts, dtype)
            present[done] = True
    return present, values


def _spmm(A, B, semiring, mask, complement):
    """Sparse A times a dense block B: a dense result (identity where nothing lands)."""
    A = _as_matrix(A, "A")
    xp = A.xp
    if array_module(B) is not xp:
        raise TypeError("B must live on the same device as A")
    B = xp.asarray(B)
    if B.ndim != 2 or B.shape[0] != A.ncols:
        raise ValueError(f"B must be a 2-D array with {A.ncols} rows, got shape {B.shape}")
    dtype = semiring.result_dtype(A.dtype, B.dtype)
    shape = (A.nrows, B.shape[1])
    allowed = None
    if mask is not None:
        allowed = xp.asarray(mask)
        if allowed.shape != shape:
            raise ValueError(f"mask has shape {allowed.shape}, the result has shape {shape}")
        if allowed.dtype != np.bool_:
            allowed = allowed != 0
    C = backend_for(xp).spmm(A, B, semiring, allowed, complement, dtype)
    if C is not None:  # the backend's kernel, masked inside
        return C
    live = None
    if allowed is not None:  # only the rows the mask allows somewhere
        allowed = ~allowed if complement else allowed  # True where a value may land
        live = xp.flatnonzero(allowed.any(axis=1))
        if live.size * 2 > shape[0]:
            live = None
    used = None
    plus_times = semiring.monoid.name == "plus" and semiring.multiply.name == "times"
    if plus_times and B.shape[0]:  # rows of B that are all zero add nothing (finite A)
        used = xp.flatnonzero(B.any(axis=1))
        if used.size * 2 > B.shape[0] or not bool(xp.isfinite(A.data).all()):
            used = None
    rows = A if live is None and used is None else extract(A, live, used)
    block = B if used is None else B[used]
    if plus_times:
        part = xp.asarray(rows.to_scipy_operator() @ block).astype(dtype, copy=False)
    else:
        part = _spmm_generic(rows, block, semiring, dtype, (rows.nrows, shape[1]))
    identity = xp.asarray(semiring.monoid.identity(dtype), dtype)
    if live is None:
        return part if allowed is None else xp.where(allowed, part, identity)
    C = xp.full(shape, identity, dtype)
    C[live] = xp.where(allowed[live], part, identity)
    return C


#: Entries of A per chunk of the generic dense-block product: the chunk's gathers, products
#: and reductions stay in cache and their buffers are reused rather than faulted in afresh
#: (full-length temporaries cost 5-10x more per value on the CPU).
SPMM_CHUNK = 1 << 14


def _spmm_generic(A, B, semiring, dtype, shape):
    """The block product one column of ``B`` at a time, over chunks of A's rows (about
    :data:`SPMM_CHUNK` entries each on the CPU): per chunk a gather of the column along
    the chunk's entries, the multiply and one segmented reduction over its rows (1-D
    arrays only: numpy's reductions of 2-D segments cost far more per value).  The
    result is the transpose of a C-ordered ``width x nrows`` array."""
    xp, backend, mul = A.xp, backend_for(A.xp), semiring.multiply
    width = shape[1]
    CT = xp.full((width, shape[0]), semiring.monoid.identity(dtype), dtype=dtype)
    if A.nnz == 0 or width == 0:
        return CT.T
    rows = xp.flatnonzero(A.out_degree)
    starts = A.indptr[rows].astype(np.int64)
    columns = xp.ascontiguousarray(B.T) if "a" in mul.uses else None
    zero = xp.asarray(0, np.int64)
    chunks = []
    size = A.nnz if A.on_gpu else SPMM_CHUNK  # a GPU kernel takes the whole product
    for part in row_chunks(A.indptr, rows, size):
        r0, r1 = part.start, part.stop
        lo = int(starts[r0])
        hi = int(starts[r1]) if r1 < rows.size else A.nnz
        k = A.indices[lo:hi].astype(np.int64)  # numpy's take converts other indices per call
        first, last = int(rows[r0]), int(rows[r1 - 1])
        out = slice(first, last + 1) if last - first == r1 - r0 - 1 else rows[r0:r1]
        chunks.append((k, A.data[lo:hi] if "x" in mul.uses else None, starts[r0:r1] - lo, out,
                       xp.broadcast_to(zero, k.shape)))
    for c in range(width):  # the block's width (a batch of vectors), not its vertices
        column, j = None if columns is None else columns[c], xp.asarray(c, np.int64)
        for k, x, segments, out, shape_only in chunks:  # one column of B stays in cache
            vals = backend.binary(mul, x, None if column is None else xp.take(column, k),
                                  k if "i" in mul.uses else None,
                                  xp.broadcast_to(j, k.shape) if "j" in mul.uses else shape_only,
                                  dtype)
            CT[c, out] = backend.segment_reduce(semiring.monoid, vals, segments, dtype)
    return CT.T
