"""Matrix products over any semiring: ``mxm`` (sparse x sparse, masked, and sparse x dense).

The operations of :mod:`spbfs.semiring`, on CPU and GPU.

``mxm``, ``ewise_add``, ``ewise_mult``, ``reduce``, ``apply``, ``select``, ``extract`` and
``assign``, named and defined as in python-graphblas.  Every operation works on canonical
operands (sorted, duplicate-free: duplicates of an input count as one entry holding their
sum, as scipy's ``sum_duplicates``) with whole-array numpy/cupy calls: on their CSR arrays
where that is direct (select, apply, reduce; on the CPU also the element-wise operations
(a compiled merge), masks, extract and assign (scipy's row copies)), otherwise on
their coordinates.  What depends on the operators goes through the backend: elementwise
``binary`` / ``index_unary`` and ``segment_reduce`` (a monoid over runs of entries), and
where a backend has them whole products (``spgemm``, ``spmm``), all of them kernels
generated from the operators' C expressions (numba on the CPU, CUDA on the GPU).  So
user-defined semirings run compiled on both devices.

Every operation that produces a result takes the same output controls:

* ``mask``: a matrix (or vector) of the result's shape; only its positions may be written.
  By value (stored and non-zero) unless ``structural=True`` (stored).
* ``complement``: write only where the mask does not allow.
* ``out`` and ``replace``: ``C<mask> = result`` into an existing ``out``: positions the mask
  allows take the result's entries (or lose theirs); the others keep ``out``'s entries,
  unless ``replace=True`` clears them.  Without ``out`` the result alone is returned.
  For a dense result (``mxm`` with a dense ``B``) ``out`` is a dense array of the result's
  shape and dtype, written in place (cleared positions hold the monoid's identity); with no
  mask or with ``replace=True`` the product is written straight into it, so a loop of
  products reuses one buffer instead of allocating a block per call.
"""

from __future__ import annotations

import numpy as np

from ..core.arrays import array_module
from ..core.csr import expand
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
    _reduce_by_key,
    dense_mask,
)
from ._matrix import Matrix
from ._optypes import Semiring
from ._vector import Vector

#: Products handled per step of the generic mxm (the GPU's), bounding its temporary memory.
CHUNK = 1 << 24



# ----------------------------------------------------------------------------- mxm
def mxm(A, B, semiring, mask=None, *, complement=False, structural=False, replace=False,
        out=None):
    """Matrix times matrix over a semiring: ``C[i, j] = add_k mul(A[i, k], B[k, j])``.

    Sparse ``B`` (SpGEMM) gives a :class:`Matrix`; a dense 2-D array ``B`` (SpMM, e.g. a
    block of ``w`` vectors) gives a dense array, with the monoid's identity where no
    product lands.  The multiply sees ``x = A[i, k]``, ``a = B[k, j]``, ``i = k`` and
    ``j``.  ``plus_times`` without a mask goes to scipy's / cuSPARSE's product when no
    product can cancel (all values positive).  Otherwise the CPU runs its compiled SpGEMM
    (Gustavson's saxpy, the mask applied inside: a non-complemented mask's rows bound the
    work), and the GPU computes each position a (non-complemented) mask allows as a dot
    product of a row of A and a column of B, or forms the products in chunks and filters
    them by the mask before they are combined.

    Parameters
    ----------
    A, B : Matrix, scipy/cupyx sparse, or 2-D array (``B`` dense: SpMM)
    semiring : Semiring
    mask, complement, structural, replace, out
        Output controls (see :mod:`spbfs.semiring`); for a dense result the mask is a 2-D
        boolean array and masked-out entries hold the identity (or, with ``out`` and
        without ``replace``, keep ``out``'s values).

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
    >>> block = np.empty((3, 2))
    >>> semiring.mxm(A, np.ones((3, 2)), semiring.plus_times, out=block) is block
    True
    """
    _check_semiring(semiring)
    algebra = distributed(A, B)
    if algebra is not None:
        C = algebra.mxm(A, B, semiring, mask, complement=complement, structural=structural)
        return C if out is None else _dense_into(out, C, mask, complement, replace)
    if _is_dense(B):
        return _spmm(A, B, semiring, mask, complement, replace, out)
    A = _as_matrix(A, "A")
    B = _as_matrix(B, "B")
    if A.ncols != B.nrows:
        raise ValueError(f"A has {A.ncols} columns but B has {B.nrows} rows")
    if A.xp is not B.xp:
        raise TypeError("B must live on the same device as A")
    shape = (A.nrows, B.ncols)
    m = _mask_of(mask, shape, structural, complement, A.xp)
    C = _native_product(A, B) if m is None and _exact_native_product(A, B, semiring) else None
    if C is not None:
        # scipy's / cuSPARSE's product: duplicate-free, its rows possibly unsorted (sorted
        # later only if an operation needs the canonical form)
        C = Matrix(C.indptr, C.indices, C.data, shape[0], ncols=shape[1], check=False)
        return C if out is None else _finish(_coords(C, "C"), None, out, replace)
    dtype = semiring.result_dtype(A.dtype, B.dtype)
    A, B = _in_common_dtype(A, B, semiring)
    # the backend's SpGEMM kernel (a backend without one, the GPU's, takes the generic path)
    spgemm = optional_primitive(backend_for(A.xp), "spgemm")
    if spgemm is not None and m is not None and not m.complement and _dots_cheaper(A, B, m):
        spgemm = None  # the masked dot products below
    found = None if spgemm is None else spgemm(
        A.canonical(), B.canonical(), semiring, None if m is None else m.matrix.canonical(),
        m is not None and m.structural, complement, dtype)
    if found is not None:  # the backend's kernel, masked inside
        C = _truths(_csr_matrix(*found, shape), semiring)
        if out is None:
            return C
        return _finish(_coords(C, "C"), m, out, replace)
    if m is not None and not m.complement:  # one merge kernel per masked dot product
        # the products hold allowed positions only: the mask is left to ``out``
        return _finish(_truths(_mxm_dot(A, B, semiring, m, shape, dtype), semiring),
                       None if out is None else m, out, replace)
    C = _truths(_mxm_saxpy(A, B, semiring, m, shape, dtype), semiring)
    return _finish_csr(C, None if out is None else m, out, replace)


def _truths(C, semiring):
    """``C`` (a Matrix or coordinates) with its values as the monoid's results (a lone
    product of ``lor`` / ``land`` over numbers is its truth, as the fold of several is)."""
    semiring.monoid.truths(C.data if isinstance(C, Matrix) else C.values)
    return C


def _in_common_dtype(A, B, semiring):
    """``A`` and ``B`` with their values in the multiply's common dtype where the kernels
    need one (int64 with uint64: float64, as numpy computes), else as they are."""
    common = semiring.multiply.operand_dtype(A.dtype, B.dtype)
    return (A, B) if common is None else (A.astype(common), B.astype(common))


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


def _native_product(A, B):
    """scipy's / cuSPARSE's ``A @ B``, or None where cuSPARSE's SpGEMM gives up: its default
    algorithm runs out of resources (``CuSparseError``) on some products of a million
    entries that the generic path computes (Louvain's on an H100)."""
    try:
        return A.to_scipy() @ B.to_scipy()
    except Exception as exc:  # cupy's error class, named so the CPU path imports no cupy
        if type(exc).__name__ != "CuSparseError":
            raise
        return None


def _flops(A, B) -> int:
    if A.nnz == 0:
        return 0
    return int(B.out_degree[A.indices].astype(np.int64).sum())


def _chunks(work):
    """Split positions ``0..len(work)`` into runs of about CHUNK total work (host ints)."""
    xp = array_module(work)
    if work.size == 0:
        return []
    size = CHUNK
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


#: A masked product whose saxpy would do this many times the work of its dot products
#: runs as dot products (SuiteSparse's choice between its dot3 and saxpy methods).
DOTS_OVER_SAXPY = 2


def _dots_cheaper(A, B, m) -> bool:
    """Whether dot products cost less than the backend's masked saxpy by
    :data:`DOTS_OVER_SAXPY`: the saxpy expands each entry of the rows of A that the mask
    names into a row of B, the dot products scatter those rows of A once and scan a column
    of B per allowed position (mean row and column lengths of B).  Dots win for a few long
    rows of A under a short mask (NetworkX's link predictions of 1000 pairs from a hub: the
    call 23 -> 5 ms); a mask over a product's every row (triangles, k-truss) keeps the
    saxpy."""
    mask = m.matrix.canonical()
    expanded = float(A.out_degree[mask.nonempty_rows].sum()) if A.nnz else 0.0
    saxpy = expanded * B.nnz / max(B.nrows, 1)
    dots = expanded + mask.nnz * B.nnz / max(B.ncols, 1)
    return saxpy > DOTS_OVER_SAXPY * dots


def _mxm_dot(A, B, semiring, m, shape, dtype):
    """Each allowed position ``(i, j)`` as the dot product of row i of A and column j of B
    (row j of B.T); nothing outside the mask is computed.  The backend's merge kernel, or
    :func:`_dot_products`."""
    xp, backend = A.xp, backend_for(A.xp)
    BT = B.T.canonical()
    mi, mj = m.positions()
    if mi.size:
        A = A.canonical()
        present, values = backend.masked_dot(A, BT, mi, mj, semiring, dtype)
    else:
        present, values = xp.zeros(0, bool), xp.zeros(0, dtype)
    return _Coords(m.keys[present], values[present], shape, xp, mi[present], mj[present])


def _spmm(A, B, semiring, mask, complement, replace=False, out=None):
    """Sparse A times a dense block B: a dense result (identity where nothing lands), or
    ``out<mask, replace> = result`` in place."""
    A = _as_matrix(A, "A")
    xp = A.xp
    if array_module(B) is not xp:
        raise TypeError("B must live on the same device as A")
    B = xp.asarray(B)
    if B.ndim != 2 or B.shape[0] != A.ncols:
        raise ValueError(f"B must be a 2-D array with {A.ncols} rows, got shape {B.shape}")
    dtype = semiring.result_dtype(A.dtype, B.dtype)
    A, B = _in_common_dtype(A, B, semiring)
    shape = (A.nrows, B.shape[1])
    allowed = None
    if mask is not None:
        allowed = xp.asarray(dense_mask(mask, "a 2-D bool array for a dense B"))
        if allowed.shape != shape:
            raise ValueError(f"mask has shape {allowed.shape}, the result has shape {shape}")
        if allowed.dtype != np.bool_:
            allowed = allowed != 0
    if out is None:
        return semiring.monoid.truths(backend_for(xp).spmm(A, B, semiring, allowed, complement,
                                                            dtype))
    _check_dense_out(out, shape, dtype, xp, (B, allowed))
    if out.flags.c_contiguous and (not semiring.monoid.is_logical or dtype == np.bool_):
        # the kernel writes out, leaving the masked-out positions as they are unless
        # replace asks for the identity there; a logical monoid over numbers takes its
        # truths in a copy first
        return backend_for(xp).spmm(A, B, semiring, allowed, complement, dtype, out=out,
                                    keep=allowed is not None and not replace)
    C = semiring.monoid.truths(backend_for(xp).spmm(A, B, semiring, allowed, complement, dtype))
    return _dense_into(out, C, allowed, complement, replace)


def _check_dense_out(out, shape, dtype, xp, operands):
    """``out`` can hold a dense result of this shape and dtype and shares no memory with
    the operands it is computed from."""
    if not hasattr(out, "shape") or array_module(out) is not xp:
        raise TypeError("out must be a dense array on the device of A for a dense product, "
                        f"got {type(out).__name__}")
    if tuple(out.shape) != shape or out.dtype != dtype:
        raise ValueError(f"out has shape {tuple(out.shape)} and dtype {out.dtype}; the "
                         f"result has shape {shape} and dtype {np.dtype(dtype)}")
    if any(a is not None and xp.may_share_memory(out, a) for a in operands):
        raise ValueError("out shares memory with B or the mask: the product would read "
                         "what it writes")


def _dense_into(out, C, mask, complement, replace):
    """``out<mask, replace> = C`` for dense ``C`` whose masked-out positions hold the
    identity (so ``replace`` is a plain copy)."""
    xp = array_module(out)
    if mask is None or replace:
        xp.copyto(out, C)
    else:
        xp.copyto(out, C, where=~mask if complement else mask)
    return out
