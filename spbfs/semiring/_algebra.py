"""GraphBLAS-style operations on matrices and vectors, for any semiring, on CPU and GPU.

``mxm``, ``ewise_add``, ``ewise_mult``, ``reduce``, ``apply``, ``select``, ``extract`` and
``assign``, named and defined as in python-graphblas.  Every operation works on the
coordinates of canonical operands (sorted, duplicate-free: duplicates of an input count as
one entry holding their sum, as scipy's ``sum_duplicates``) with whole-array numpy/cupy
calls; what depends on the operators goes through the backend: elementwise ``binary`` /
``index_unary`` (numpy functions on the CPU, kernels generated from the operators' C
expressions on the GPU) and ``segment_reduce`` (a monoid over runs of entries).  So
user-defined semirings run on both devices.

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

from .._array import array_module, is_cupy
from .._backend import backend_for
from ._cpu import expand
from ._matrix import Matrix
from ._named import select_ops
from ._ops import BinaryOp, IndexUnaryOp, Monoid, Semiring
from ._pattern import Pattern, index_dtype
from ._vector import Vector

__all__ = ["apply", "assign", "ewise_add", "ewise_mult", "extract", "mxm", "reduce",
           "select"]

#: Products (or probes) handled per step of mxm, bounding its temporary memory.
CHUNK = 1 << 24


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
    nrows, ncols = c.shape
    idt = index_dtype(max(nrows, ncols), c.keys.size)
    indptr = xp.zeros(nrows + 1, idt)
    if c.keys.size:
        xp.cumsum(xp.bincount(c.rows(), minlength=nrows), out=indptr[1:])
    pattern = Pattern(indptr, c.cols().astype(idt), nrows, ncols=ncols)
    return Matrix._from_pattern(pattern, c.values)


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
    """The allowed positions of an output (sorted keys) and how to use them."""

    def __init__(self, mask, shape, structural, complement, xp):
        if len(shape) == 1:
            keys = _vector_mask_keys(mask, shape[0], structural, xp)
        else:
            M = _as_matrix(mask, "mask")
            if M.shape != tuple(shape):
                raise ValueError(f"mask has shape {M.shape}, the result has shape {shape}")
            if M.xp is not xp:
                raise TypeError("mask must live on the same device as the operands")
            keys = M.pattern.keys()
            if not structural:
                keys = keys[M.data != 0]
        self.keys, self.complement = keys, bool(complement)

    def allows(self, keys):
        inside, _ = _member(keys, self.keys)
        return ~inside if self.complement else inside


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
        if A.on_gpu:  # one merge kernel per masked dot product: cheaper than any saxpy
            return _finish(_mxm_dot(A, B, semiring, m, shape, dtype), m, out, replace)
        flops, dot_work = _flops(A, B), _dot_work(A, B, m, shape)
        native = _native_operands(A, B, semiring)
        if native is not None and flops <= NATIVE_MASKED_RATIO * dot_work:
            C = native[0].to_scipy() @ native[1].to_scipy()  # scipy's compiled SpGEMM
            C.sort_indices()
            C = Matrix(C.indptr, C.indices, C.data.astype(dtype, copy=False), shape[0],
                       ncols=shape[1], check=False)
            return _finish(_coords(C, "C"), m, out, replace)
        if dot_work <= flops:
            return _finish(_mxm_dot(A, B, semiring, m, shape, dtype), m, out, replace)
    return _finish(_mxm_saxpy(A, B, semiring, m, shape, dtype), m, out, replace)


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


def _flops(A, B) -> int:
    if A.nnz == 0:
        return 0
    return int(B.out_degree[A.indices].astype(np.int64).sum())


def _dot_work(A, B, m, shape) -> int:
    """Probes of the masked dot products: the shorter list of every allowed position."""
    if m.keys.size == 0:
        return 0
    rows, cols = m.keys // shape[1], m.keys % shape[1]
    return int(A.xp.minimum(A.out_degree[rows], B.T.out_degree[cols]).astype(np.int64).sum())


def _chunks(work):
    """Split positions ``0..len(work)`` into runs of about CHUNK total work (host ints)."""
    xp = array_module(work)
    if work.size == 0:
        return []
    cum = xp.cumsum(work.astype(np.int64))
    total = int(cum[-1])
    cuts = xp.searchsorted(cum, xp.arange(CHUNK, total, CHUNK, dtype=np.int64), side="left")
    bounds = [0, *(int(c) + 1 for c in (cuts.get() if xp is not np else cuts)), int(work.size)]
    return [(a, b) for a, b in zip(bounds[:-1], bounds[1:], strict=True) if b > a]


def _mxm_saxpy(A, B, semiring, m, shape, dtype):
    """Row-by-row products in chunks of about CHUNK, filtered by the mask, then combined."""
    xp, backend, mul = A.xp, backend_for(A.xp), semiring.multiply
    ncols = shape[1]
    per_entry = B.out_degree[A.indices].astype(np.int64) if A.nnz else xp.zeros(0, np.int64)
    cum = xp.concatenate([xp.zeros(1, np.int64), xp.cumsum(per_entry)])
    per_row = cum[A.indptr[1:]] - cum[A.indptr[:-1]]
    arow = A.pattern.rows()
    keys_out, vals_out = [], []
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
        keys_out.append(uk)
        vals_out.append(uv)
    return _concat_coords(keys_out, vals_out, shape, dtype, xp)


def _concat_coords(keys, values, shape, dtype, xp):
    if not keys:
        return _Coords(xp.zeros(0, np.int64), xp.zeros(0, dtype), shape, xp)
    return _Coords(xp.concatenate(keys), xp.concatenate(values), shape, xp)


def _mxm_dot(A, B, semiring, m, shape, dtype):
    """Each allowed position ``(i, j)`` as the dot product of row i of A and column j of B
    (row j of B.T): the shorter of the two lists is expanded and each of its entries probed
    in the other matrix's sorted keys, so a position costs ``min(deg_A(i), deg_B.T(j))``
    searches.  Nothing outside the mask is computed."""
    xp, backend = A.xp, backend_for(A.xp)
    BT = B.T.canonical()
    mi, mj = m.keys // shape[1], m.keys % shape[1]
    if mi.size == 0:
        return _concat_coords([], [], shape, dtype, xp)
    merged = backend.masked_dot(A.canonical(), BT, mi, mj, semiring, dtype)
    if merged is not None:  # the backend's merge kernel: the keys stay sorted
        present, values = merged
        return _Coords(m.keys[present], values[present], shape, xp)
    short_a = A.out_degree[mi] <= BT.out_degree[mj]
    keys_out, vals_out = [], []
    for sel, probe_a in ((xp.flatnonzero(short_a), True), (xp.flatnonzero(~short_a), False)):
        if sel.size:
            k, v = _dot_products(A, BT, semiring, m.keys[sel], mi[sel], mj[sel], probe_a, dtype,
                                 backend)
            keys_out += k
            vals_out += v
    c = _concat_coords(keys_out, vals_out, shape, dtype, xp)
    order = xp.argsort(c.keys, kind="stable")  # the two groups interleave
    return _Coords(c.keys[order], c.values[order], shape, xp)


def _dot_products(A, BT, semiring, keys, mi, mj, probe_a, dtype, backend):
    """Dot products of the positions ``keys`` (rows ``mi``, columns ``mj``): expand A's rows
    and probe B.T's keys (``probe_a``), or the reverse."""
    mul = semiring.multiply
    inner = A.ncols
    S, rows, other, other_rows = (A, mi, BT, mj) if probe_a else (BT, mj, A, mi)
    other_keys = other.pattern.keys()
    work = S.out_degree[rows]
    keys_out, vals_out = [], []
    for lo, hi in _chunks(work):
        ps, owner = expand(S.indptr, rows[lo:hi])
        k = S.indices[ps].astype(np.int64)
        hit, po = _member(other_rows[lo:hi][owner] * inner + k, other_keys)
        ps, owner, po, k = ps[hit], owner[hit], po[hit], k[hit]
        if owner.size == 0:
            continue
        pa, pb = (ps, po) if probe_a else (po, ps)
        j = mj[lo:hi][owner]
        vals = backend.binary(mul, A.data[pa] if "x" in mul.uses else None,
                              BT.data[pb] if "a" in mul.uses else None,
                              k if "i" in mul.uses else None, j, dtype)
        starts = _segments(owner)  # owner is sorted: the probes go position by position
        keys_out.append(keys[lo:hi][owner[starts]])
        vals_out.append(backend.segment_reduce(semiring.monoid, vals, starts, dtype))
    return keys_out, vals_out


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
    if semiring.monoid.name == "plus" and semiring.multiply.name == "times":
        C = xp.asarray(A.to_scipy() @ B).astype(dtype, copy=False)
    else:
        C = _spmm_generic(A, B, semiring, dtype, shape)
    if mask is not None:
        allowed = xp.asarray(mask)
        if allowed.shape != shape:
            raise ValueError(f"mask has shape {allowed.shape}, the result has shape {shape}")
        allowed = allowed != 0
        C = xp.where(~allowed if complement else allowed, C,
                     xp.asarray(semiring.monoid.identity(dtype), dtype))
    return C


def _spmm_generic(A, B, semiring, dtype, shape):
    xp, backend, mul = A.xp, backend_for(A.xp), semiring.multiply
    width = shape[1]
    C = xp.full(shape, semiring.monoid.identity(dtype), dtype=dtype)
    arow = A.pattern.rows()
    cols = xp.arange(width, dtype=np.int64)[None, :]
    per_entry = xp.full(A.nnz, max(width, 1), np.int64)
    for lo, hi in _chunks(per_entry):
        k = A.indices[lo:hi].astype(np.int64)
        vals = backend.binary(
            mul, A.data[lo:hi][:, None] if "x" in mul.uses else None,
            B[k, :] if "a" in mul.uses else None, k[:, None] if "i" in mul.uses else None,
            xp.broadcast_to(cols, (hi - lo, width)), dtype)
        rows = arow[lo:hi]
        starts = _segments(rows)
        part = backend.segment_reduce(semiring.monoid, vals, starts, dtype)
        r = rows[starts]
        if lo and int(arow[lo - 1]) == int(r[0]):  # a row split between two chunks
            part[0] = backend.binary(semiring.monoid.as_binary(), C[r[0]], part[0], None,
                                     cols[0], dtype)
        C[r] = part
    return C


# ----------------------------------------------------------------------------- element-wise
def _binary_op(op, name="op") -> BinaryOp:
    if isinstance(op, Monoid):
        return op.as_binary()
    if isinstance(op, BinaryOp):
        return op
    raise TypeError(f"{name} must be a BinaryOp or a Monoid, got {type(op).__name__}")


def _pair_operands(A, B):
    a, b = _coords(A, "A"), _coords(B, "B")
    if a.shape != b.shape:
        raise ValueError(f"A has shape {a.shape} but B has shape {b.shape}")
    if a.xp is not b.xp:
        raise TypeError("B must live on the same device as A")
    return a, b


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
    op = _binary_op(op)
    a, b = _pair_operands(A, B)
    xp, backend = a.xp, backend_for(a.xp)
    dtype = op.result_dtype(a.dtype, b.dtype)
    in_a, pos = _member(b.keys, a.keys)
    values = a.values.astype(dtype, copy=True)
    if bool(in_a.any()):
        both, at = b.take(in_a), pos[in_a]
        values[at] = backend.binary(op, values[at], both.values, both.rows(), both.cols(),
                                    dtype)
    union = _merge(_Coords(a.keys, values, a.shape, xp, a.rows(), a.cols()), b.take(~in_a),
                   dtype)
    m = _mask_of(mask, a.shape, structural, complement, xp)
    return _finish(union, m, out, replace)


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
    op = _binary_op(op)
    a, b = _pair_operands(A, B)
    xp = a.xp
    dtype = op.result_dtype(a.dtype, b.dtype)
    hit, pos = _member(a.keys, b.keys)
    both = a.take(hit)
    values = backend_for(xp).binary(op, both.values, b.values[pos[hit]], both.rows(),
                                    both.cols(), dtype)
    m = _mask_of(mask, a.shape, structural, complement, xp)
    return _finish(_Coords(both.keys, values, a.shape, xp), m, out, replace)


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
    xp = M.xp
    deg = M.out_degree
    rows = xp.flatnonzero(deg)
    starts = M.indptr[:-1][rows].astype(np.int64)
    values = backend_for(xp).segment_reduce(monoid, M.data, starts, out_dtype)
    return Vector(M.nrows, "sparse", indices=rows, values=values)


def _scalar(monoid, values, dtype, xp):
    if values.size == 0:
        return np.dtype(dtype).type(monoid.identity(np.dtype(dtype)))
    r = backend_for(xp).segment_reduce(monoid, values, xp.zeros(1, np.int64), dtype)
    return (r.get() if xp is not np else r)[0].item()


# ----------------------------------------------------------------------------- apply/select
def _entry_indices(c: _Coords, op):
    """Row and column (int64) of every entry, for the operators that read them."""
    reads = getattr(op, "uses", "xaij" if isinstance(op, BinaryOp) else "vij")
    i = c.rows().astype(np.int64, copy=False) if "i" in reads else None
    j = c.cols().astype(np.int64, copy=False)
    return i, j


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
    c = _coords(A, "A")
    backend = backend_for(c.xp)
    i, j = _entry_indices(c, op)
    if isinstance(op, IndexUnaryOp):
        if left is not None or right is not None:
            raise ValueError("left/right bind a BinaryOp's operand; an IndexUnaryOp takes thunk")
        dtype = op.result_dtype(c.dtype)
        values = backend.index_unary(op, c.values, i, j, thunk, dtype)
    elif isinstance(op, BinaryOp):
        if (left is None) == (right is None):
            raise ValueError("apply with a BinaryOp needs exactly one of left= or right=")
        scalar = np.asarray(left if left is not None else right)
        if scalar.ndim or scalar.dtype.kind not in "biuf":
            raise TypeError(f"{'left' if left is not None else 'right'} must be a number")
        if left is not None:
            dtype = op.result_dtype(scalar.dtype, c.dtype)
            values = backend.binary(op, scalar[()], c.values, i, j, dtype)
        else:
            dtype = op.result_dtype(c.dtype, scalar.dtype)
            values = backend.binary(op, c.values, scalar[()], i, j, dtype)
    else:
        raise TypeError(f"op must be an IndexUnaryOp or a BinaryOp, got {type(op).__name__}")
    if mask is None and out is None and not isinstance(A, Vector):
        return Matrix._from_pattern(_as_matrix(A, "A").pattern, values)  # same pattern
    m = _mask_of(mask, c.shape, structural, complement, c.xp)
    return _finish(_Coords(c.keys, values, c.shape, c.xp, c._rows, c._cols), m, out, replace)


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
    c = _coords(A, "A")
    i, j = _entry_indices(c, op)
    keep = backend_for(c.xp).index_unary(op, c.values, i, j, thunk, np.bool_)
    m = _mask_of(mask, c.shape, structural, complement, c.xp)
    return _finish(c.take(keep.astype(bool, copy=False)), m, out, replace)


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
    if xp is np:  # scipy's fancy indexing (C++), then the canonical form
        S = M.to_scipy()
        S = S[r] if rows is not None else S
        S = S[:, c] if cols is not None else S
        E = Matrix(S.indptr, S.indices, S.data, S.shape[0], ncols=S.shape[1], check=False)
        return _finish(_coords(E, "A"), m, out, replace)
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
    if isinstance(B, numbers.Number) or (hasattr(B, "ndim") and B.ndim == 0):
        value = xp.asarray(B)
        bi = xp.repeat(xp.arange(r.size, dtype=np.int64), int(c.size))
        bj = xp.tile(xp.arange(c.size, dtype=np.int64), int(r.size))
        bvals = xp.full(bi.shape, value, dtype=np.result_type(M.dtype, value.dtype))
    else:
        Bm = _as_matrix(B, "B")
        if Bm.shape != (int(r.size), int(c.size)):
            raise ValueError(f"B has shape {Bm.shape}, the region is ({r.size}, {c.size})")
        if Bm.xp is not xp:
            raise TypeError("B must live on the same device as A")
        bi, bj = Bm.pattern.rows(), Bm.indices.astype(np.int64)
        bvals = Bm.data
    in_rows = xp.zeros(M.nrows, bool)
    in_rows[r] = True
    in_cols = xp.zeros(M.ncols, bool)
    in_cols[c] = True
    a = _coords(M, "A")
    kept = a.take(~(in_rows[a.rows()] & in_cols[a.cols()]))
    dtype = np.result_type(M.dtype, bvals.dtype)
    region = r[bi] * M.ncols + c[bj]
    order = xp.argsort(region, kind="stable")  # the region alone is sorted, then merged
    T = _merge(kept, _Coords(region[order], bvals[order], M.shape, xp), dtype)
    m = _mask_of(mask, M.shape, structural, complement, xp)
    if m is None:
        return _result(T)
    return _finish(T, m, M, replace)
