"""GraphBLAS-style operations on matrices and vectors, for any semiring, on CPU and GPU.

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

import numbers

import numpy as np
import scipy.sparse as sp

from .._array import array_module, is_cupy
from .._backend import backend_for
from ._cpu import csr_assign, csr_keep, csr_union, expand, row_chunks
from ._matrix import Matrix
from ._named import select_ops
from ._ops import BinaryOp, IndexUnaryOp, Monoid, Semiring
from ._pattern import Pattern, index_dtype
from ._vector import Vector

__all__ = ["apply", "assign", "ewise_add", "ewise_mult", "extract", "mxm", "reduce",
           "select"]

#: Products (or probes) handled per step of mxm on the GPU, bounding its temporary memory.
CHUNK = 1 << 24
#: The same on the CPU: temporaries that stay in cache (fresh pages of large ones cost more
#: than the work on them).
CPU_CHUNK = 1 << 16


# ----------------------------------------------------------------------------- coordinates
class _Coords:
    """Sorted unique keys (``row * ncols + col``, or the index of a vector), their values and
    the shape: the common form of a matrix or a vector inside the operations."""

    __slots__ = ("keys", "values", "shape", "xp", "_rows", "_cols")

    def __init__(self, keys, values, shape, xp, rows=None, cols=None):
        self.keys, self.values, self.shape, self.xp = keys, values, shape, xp
        self._rows, self._cols = rows, cols  # known rows/columns spare a division

    @property
    def ncols(self) -> int:
        return self.shape[-1]

    def rows(self):
        if self._rows is None:
            self._rows = self.keys // self.ncols if len(self.shape) == 2 else self.keys
        return self._rows

    def cols(self):
        if self._cols is None:
            self._cols = self.keys % self.ncols if len(self.shape) == 2 else self.keys
        return self._cols

    def take(self, keep) -> _Coords:
        sub = (None if arr is None else arr[keep] for arr in (self._rows, self._cols))
        return _Coords(self.keys[keep], self.values[keep], self.shape, self.xp, *sub)

    @property
    def dtype(self):
        return self.values.dtype


def _as_matrix(A, name) -> Matrix:
    if isinstance(A, Vector):
        raise TypeError(f"{name} must be a matrix, got a Vector")
    return Matrix.from_any(A, name=name).canonical()


def _coords(A, name) -> _Coords:
    """A matrix or a vector operand as canonical coordinates."""
    if isinstance(A, Vector):
        v = A.to_sparse()
        xp = array_module(v.values)
        return _Coords(v.indices.astype(np.int64, copy=False), v.values, (v.size,), xp)
    M = _as_matrix(A, name)
    return _Coords(M.pattern.keys(), M.data, M.shape, M.xp, M.pattern.rows(), M.indices)


def _result(c: _Coords):
    """A canonical Matrix (or a sparse Vector) from coordinates."""
    xp = c.xp
    if len(c.shape) == 1:
        return Vector(c.shape[0], "sparse", indices=c.keys, values=c.values)
    indptr = xp.zeros(c.shape[0] + 1, np.int64)
    if c.keys.size:
        xp.cumsum(xp.bincount(c.rows(), minlength=c.shape[0]), out=indptr[1:])
    return _csr_matrix(indptr, c.cols(), c.values, c.shape)


def _canonical_pattern(indptr, indices, shape) -> Pattern:
    """A Pattern on canonical CSR arrays, in the index dtype of every result."""
    idt = index_dtype(max(shape), indices.size)
    return Pattern(indptr.astype(idt, copy=False), indices.astype(idt, copy=False), shape[0],
                   ncols=shape[1], canonical=True)


def _csr_matrix(indptr, indices, values, shape) -> Matrix:
    """A Matrix on canonical CSR arrays."""
    return Matrix._from_pattern(_canonical_pattern(indptr, indices, shape), values)


def _member(keys, sorted_keys):
    """Whether each of ``keys`` occurs in ``sorted_keys``, and where."""
    xp = array_module(keys)
    if sorted_keys.size == 0:
        return xp.zeros(keys.shape, bool), xp.zeros(keys.shape, np.int64)
    pos = xp.searchsorted(sorted_keys, keys)
    pos = xp.minimum(pos, sorted_keys.size - 1)
    return sorted_keys[pos] == keys, pos


def _same_device(xp, *named):
    for name, obj in named:
        if obj is not None and (is_cupy(obj) or isinstance(obj, (Vector, Matrix))):
            arr = obj.values if isinstance(obj, Vector) else getattr(obj, "indptr", obj)
            if array_module(arr) is not xp:
                raise TypeError(f"{name} must live on the same device as the other operands")


# ----------------------------------------------------------------------------- masks
class _Mask:
    """The allowed positions of an output and how to use them: a canonical ``matrix`` (for
    a matrix result) and the sorted keys of the allowed positions (built on first use)."""

    def __init__(self, mask, shape, structural, complement, xp):
        self.structural, self.complement = bool(structural), bool(complement)
        self.matrix = self._keys = None
        if len(shape) == 1:
            self._keys = _vector_mask_keys(mask, shape[0], structural, xp)
            return
        M = _as_matrix(mask, "mask")
        if M.shape != tuple(shape):
            raise ValueError(f"mask has shape {M.shape}, the result has shape {shape}")
        if M.xp is not xp:
            raise TypeError("mask must live on the same device as the operands")
        self.matrix = M

    @property
    def keys(self):
        """Sorted keys (``row * ncols + col``) of the allowed positions, complement aside."""
        if self._keys is None:
            keys = self.matrix.pattern.keys()
            self._keys = keys if self.structural else keys[self.matrix.data != 0]
        return self._keys

    def allows(self, keys):
        inside, _ = _member(keys, self.keys)
        return ~inside if self.complement else inside

    def positions(self):
        """Rows and columns of the allowed positions of a matrix mask, complement aside,
        in the order of :attr:`keys` (no division of the keys)."""
        M = self.matrix
        rows, cols = M.pattern.rows(), M.indices
        if not self.structural:
            allowed = M.data != 0
            rows, cols = rows[allowed], cols[allowed]
        return rows.astype(np.int64, copy=False), cols.astype(np.int64, copy=False)


def _vector_mask_keys(mask, size, structural, xp):
    if isinstance(mask, Vector):
        if mask.size != size:
            raise ValueError(f"mask has size {mask.size}, the result has size {size}")
        v = mask.to_sparse()
        keys = v.indices if structural else v.indices[v.values != 0]
    else:
        arr = xp.asarray(mask)
        if arr.ndim != 1 or arr.size != size:
            raise ValueError(f"mask must be a 1-D array of size {size}, got shape {arr.shape}")
        keys = xp.flatnonzero(arr)
    if array_module(keys) is not xp:
        raise TypeError("mask must live on the same device as the operands")
    return keys.astype(np.int64, copy=False)


def _mask_of(mask, shape, structural, complement, xp):
    return None if mask is None else _Mask(mask, shape, structural, complement, xp)


def _finish(c: _Coords, mask: _Mask | None, out, replace):
    """Apply the mask, then ``out<mask, replace> = c``; returns a Matrix or Vector."""
    if mask is not None:
        c = c.take(mask.allows(c.keys))
    if out is None:
        return _result(c)
    o = _coords(out, "out")
    if o.shape != c.shape:
        raise ValueError(f"out has shape {o.shape}, the result has shape {c.shape}")
    if mask is None or replace:
        kept = o.take(o.xp.zeros(o.keys.shape, bool))
    else:
        kept = o.take(~mask.allows(o.keys))
    return _result(_merge(kept, c, o.dtype))


def _finish_csr(C: Matrix, mask: _Mask | None, out, replace):
    """:func:`_finish` for a canonical Matrix result: on the CPU without ``out``, the mask
    is applied to the CSR arrays (one compiled merge); otherwise through coordinates."""
    if out is None and (mask is None or C.xp is np):
        return C if mask is None else _mask_csr(C, mask)
    return _finish(_coords(C, "C"), mask, out, replace)


def _mask_tags(mask: _Mask, tag: int):
    """Per entry of a CPU matrix mask: ``tag`` (int8) where it allows, else 0."""
    M = mask.matrix
    if mask.structural:
        return np.full(M.nnz, tag, np.int8)
    return (M.data != 0).view(np.int8) * np.int8(tag)


def _mask_csr(C: Matrix, mask: _Mask) -> Matrix:
    """The entries of a canonical CPU matrix that a matrix mask allows."""
    u = _Union(C, mask.matrix, None if mask.structural else _mask_tags(mask, 2))
    allowed = u.first_shared()
    if allowed is None:  # every entry of C is allowed (only with a structural mask)
        return _keep_entries(C, np.zeros(C.nnz, bool)) if mask.complement else C
    return _keep_entries(C, ~allowed if mask.complement else allowed)


def _keep_entries(C: Matrix, keep) -> Matrix:
    """The entries of a canonical matrix that ``keep`` (bool per entry) selects."""
    indptr, indices = csr_keep(C.indptr, C.indices, keep)
    return _csr_matrix(indptr, indices, C.data[keep], C.shape)


class _Union:
    """The union of two canonical CPU matrices' patterns (:func:`_cpu.csr_union`) and where
    each operand's entries are in it.  ``b_tags``: see ``csr_union`` (a value mask)."""

    def __init__(self, A: Matrix, B: Matrix, b_tags=None):
        self.indptr, self.indices, self.tags = csr_union(A.shape, A.indptr, A.indices,
                                                         B.indptr, B.indices, b_tags)
        self.both = self.tags == 3
        self.first_is_union = self.tags.size == A.nnz  # B stores nothing A does not
        self.second_is_union = b_tags is None and self.tags.size == B.nnz

    def first_shared(self):
        """Per entry of A: whether B stores it too (None: all are)."""
        if self.second_is_union:
            return None
        return self.both if self.first_is_union else self.both[self.tags != 2]

    def second_shared(self):
        """Per entry of B: whether A stores it too (None: all are)."""
        if self.first_is_union:
            return None
        return self.both if self.second_is_union else self.both[self.tags != 1]


def _merge(first: _Coords, second: _Coords, dtype) -> _Coords:
    """Two coordinate lists with sorted, disjoint keys as one sorted list: each entry's place
    is its own rank plus the number of the other list's keys before it (no sort)."""
    xp = first.xp
    at_1 = xp.arange(first.keys.size) + xp.searchsorted(second.keys, first.keys)
    at_2 = xp.arange(second.keys.size) + xp.searchsorted(first.keys, second.keys)
    total = first.keys.size + second.keys.size
    merged = []
    for mine, theirs in ((first.keys, second.keys),
                         (first.values.astype(dtype, copy=False),
                          second.values.astype(dtype, copy=False)),
                         (first.rows(), second.rows()), (first.cols(), second.cols())):
        arr = xp.empty(total, np.result_type(mine.dtype, theirs.dtype))
        arr[at_1], arr[at_2] = mine, theirs
        merged.append(arr)
    return _Coords(merged[0], merged[1], first.shape, xp, merged[2], merged[3])


def _segments(sorted_keys):
    """Start of every run of equal keys."""
    xp = array_module(sorted_keys)
    first = xp.ones(sorted_keys.shape, bool)
    if sorted_keys.size > 1:
        first[1:] = sorted_keys[1:] != sorted_keys[:-1]
    return xp.flatnonzero(first)


def _reduce_by_key(monoid, keys, values, dtype, backend):
    """Sorted unique keys and the monoid of the values sharing each key."""
    xp = array_module(keys)
    order = xp.argsort(keys, kind="stable")
    sk = keys[order]
    starts = _segments(sk)
    return sk[starts], backend.segment_reduce(monoid, values[order], starts, dtype)


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


# ----------------------------------------------------------------------------- reduce
def reduce(A, monoid, axis=None, *, dtype=None):
    """Reduce the stored values with a monoid: a scalar (``axis=None``), or a sparse
    :class:`Vector` with one entry per non-empty row (``axis=1``) or column (``axis=0``).

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
    if isinstance(A, Vector):
        if axis not in (None, 0):
            raise ValueError("a Vector has one axis: axis must be None or 0")
        c = _coords(A, "A")
        return _scalar(monoid, c.values, dtype or c.dtype, c.xp)
    M = _as_matrix(A, "A")
    out_dtype = np.dtype(dtype or M.dtype)
    if axis is None:
        return _scalar(monoid, M.data, out_dtype, M.xp)
    M = M if axis == 1 else M.T.canonical()
    rows = M.nonempty_rows.astype(np.int64)  # cached with the pattern
    starts = M.indptr[:-1][rows].astype(np.int64)
    values = backend_for(M.xp).segment_reduce(monoid, M.data, starts, out_dtype)
    return Vector(M.nrows, "sparse", indices=rows, values=values)


def _scalar(monoid, values, dtype, xp):
    dtype = np.dtype(dtype)
    if values.size == 0:
        return dtype.type(monoid.identity(dtype))
    if xp is np and monoid.ufunc is not None:  # one pass, no segment machinery
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
    if isinstance(op, IndexUnaryOp):
        if left is not None or right is not None:
            raise ValueError("left/right bind a BinaryOp's operand; an IndexUnaryOp takes thunk")
        values = backend.index_unary(op, v, i, j, thunk, op.result_dtype(v.dtype))
    else:
        if (left is None) == (right is None):
            raise ValueError("apply with a BinaryOp needs exactly one of left= or right=")
        scalar = np.asarray(left if left is not None else right)
        if scalar.ndim or scalar.dtype.kind not in "biuf":
            raise TypeError(f"{'left' if left is not None else 'right'} must be a number")
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
    if not isinstance(thunk, numbers.Number):
        raise TypeError(f"thunk must be a number, got {thunk!r}")
    src = A if isinstance(A, Vector) else _as_matrix(A, "A")
    compare = _BY_DIAGONAL.get(op) if isinstance(src, Matrix) and src.xp is np else None
    if compare is not None:  # j against i + thunk, the columns in their own dtype
        rows = src.pattern.rows()
        keep = compare(src.indices, rows + thunk if thunk else rows)
    else:
        src, v, i, j = _entry_args(src, op)
        keep = backend_for(src.xp).index_unary(op, v, i, j, thunk, np.bool_)
    m = _mask_of(mask, src.shape, structural, complement, src.xp)
    return _finish_entries(src, None, keep.astype(bool, copy=False), m, out, replace)


#: The positional selections, as comparisons of ``j`` with ``i + thunk`` (CPU fast path).
_BY_DIAGONAL = {select_ops.tril: np.less_equal, select_ops.triu: np.greater_equal,
                select_ops.diag: np.equal, select_ops.offdiag: np.not_equal}


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


def assign(A, B, rows=None, cols=None, mask=None, *, complement=False, structural=False,
           replace=False):
    """``A`` with the region ``rows x cols`` replaced by ``B`` (a matrix of that shape, or a
    scalar for every position of the region), as GraphBLAS' assign: entries of ``A`` in the
    region that ``B`` does not store are removed.  ``rows``/``cols`` must not repeat.  A
    mask applies to the whole result (``A<mask> = ...``).

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
        return _csr_matrix(*csr_assign(M.indptr, M.indices, M.data, M.ncols, r, in_cols,
                                       region_rows, region_cols, values.astype(dtype)),
                           M.shape)
    in_rows = xp.zeros(M.nrows, bool)
    in_rows[r] = True
    a = _coords(M, "A")
    kept = a.take(~(in_rows[a.rows()] & in_cols[a.cols()]))
    T = _merge(kept, _Coords(region_rows * M.ncols + region_cols, values, M.shape, xp,
                             region_rows, region_cols), dtype)
    if m is None:
        return _result(T)
    return _finish(T, m, M, replace)


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
