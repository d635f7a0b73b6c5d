"""Operands as coordinates, output masks and the ``out<mask, replace> = result`` step
that every operation of :mod:`spbfs.semiring` ends with (see :mod:`spbfs.semiring._products`
for the output controls)."""

from __future__ import annotations

import numpy as np

from ..core.arrays import array_module, index_dtype, is_cupy
from ..core.csr import csr_keep
from ._backend import backend_for
from ._matrix import Matrix, _is_sparse
from ._pattern import Pattern
from ._vector import Vector


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


def dense_mask(mask, wanted):
    """``mask`` unless it is a sparse matrix (whose ``asarray`` is a 0-D object array, which
    would be reported as a shape it does not have): ``wanted`` names what it must be."""
    if _is_sparse(mask):
        raise TypeError(f"mask must be {wanted}, got a sparse {type(mask).__name__}")
    return mask


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
        self.indptr, self.indices, self.tags = backend_for(np).csr_union(
            A.shape, A.indptr, A.indices, B.indptr, B.indices, b_tags)
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
