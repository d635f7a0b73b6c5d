"""The sparsity pattern of a square CSR matrix: immutable, shareable across threads.

A :class:`Pattern` holds ``indptr`` and ``indices`` only.  What is derived from
them (degrees, the transpose, the symmetrised pattern) is built on first use
under the pattern's lock and never changes afterwards, so one pattern serves
every call on the same matrix from any thread or CUDA stream.  Derived
patterns come with a *gather map*: position ``k`` of the derived pattern holds
the value at position ``map[k]`` of this one, so values are carried over
without being part of the cached structure (they are read afresh per call).
"""

from __future__ import annotations

import threading

import numpy as np
import scipy.sparse as sp

from .._array import array_module

__all__ = ["Pattern", "csr_from_coo", "index_dtype"]

INT32_MAX = np.iinfo(np.int32).max


def index_dtype(n: int, nnz: int = 0) -> np.dtype:
    """int32 when ``n`` and ``nnz`` fit, else int64 (never overflow silently).

    Examples
    --------
    >>> index_dtype(10), index_dtype(2**31 + 5)
    (dtype('int32'), dtype('int64'))
    """
    return np.dtype(np.int32 if max(n, nnz) <= INT32_MAX else np.int64)


def csr_from_coo(rows, cols, data, n):
    """CSR arrays from COO arrays, keeping duplicates (no summing), rows sorted.

    Works on numpy and cupy arrays alike.  Pass ``data = arange(rows.size)``
    to get the gather map of the conversion.

    Examples
    --------
    >>> import numpy as np
    >>> indptr, indices, data = csr_from_coo(np.array([1, 0, 1]), np.array([0, 1, 0]),
    ...                                      np.array([1., 2., 3.]), 2)
    >>> indptr, indices, data
    (array([0, 1, 3], dtype=int32), array([1, 0, 0], dtype=int32), array([2., 1., 3.]))
    """
    xp = array_module(rows)
    idt = index_dtype(n, rows.size)
    order = xp.lexsort(xp.stack([cols, rows])) if rows.size else xp.arange(0)
    counts = xp.bincount(rows, minlength=n) if rows.size else xp.zeros(n, np.int64)
    indptr = xp.zeros(n + 1, idt)
    xp.cumsum(counts, out=indptr[1:])
    return indptr, cols[order].astype(idt), data[order]


def _sync(xp):
    """Finish the current CUDA stream's work before a result is published to other streams."""
    if xp is not np:
        xp.cuda.get_current_stream().synchronize()


class Pattern:
    """Row pointers and column indices of a square ``n x n`` CSR matrix.

    Immutable once built: derived forms are computed once, under a lock,
    and cached.  Build patterns only from checked arrays (see
    :func:`spbfs._validation.check_compressed`).

    Examples
    --------
    >>> import numpy as np
    >>> p = Pattern(np.array([0, 2, 3, 3]), np.array([1, 2, 2]), 3)
    >>> p.out_degree.tolist(), p.max_out_degree
    ([2, 1, 0], 2)
    >>> t, perm = p.transpose()
    >>> t.indptr.tolist(), t.indices.tolist(), perm.tolist()
    ([0, 0, 1, 3], [0, 0, 1], [0, 1, 2])
    """

    def __init__(self, indptr, indices, n: int, *, symmetric: bool = False):
        self.indptr, self.indices = indptr, indices
        self.n = int(n)
        self.symmetric = bool(symmetric)
        self.xp = array_module(indptr)
        self._lock = threading.RLock()
        self._derived: dict = {}

    @property
    def nnz(self) -> int:
        """Number of stored entries."""
        return int(self.indices.size)

    def _once(self, key, build):
        """``build()`` computed once per pattern, under the lock, then shared."""
        value = self._derived.get(key)
        if value is None:
            with self._lock:
                value = self._derived.get(key)
                if value is None:
                    value = build()
                    _sync(self.xp)
                    self._derived[key] = value
        return value

    @property
    def out_degree(self):
        """Stored entries per row."""
        return self._once("out_degree", lambda: self.xp.diff(self.indptr))

    @property
    def max_out_degree(self) -> int:
        """Largest row length (0 for an empty matrix), as a host int."""
        return self._once("max_out_degree",
                          lambda: int(self.out_degree.max()) if self.n and self.nnz else 0)

    def transpose(self):
        """``(pattern of A.T, gather map)``; the map is None for a symmetric pattern."""
        if self.symmetric:
            return self, None
        return self._once("transpose", self._build_transpose)

    def _build_transpose(self):
        xp, n, nnz = self.xp, self.n, self.nnz
        idt = self.indices.dtype
        pdt = index_dtype(nnz)
        if xp is np:  # scipy's CSR -> CSC is a counting sort that carries the positions along
            pos = np.arange(nnz, dtype=pdt)
            csc = sp.csr_array((pos, self.indices, self.indptr), shape=(n, n)).tocsc()
            return (Pattern(csc.indptr.astype(self.indptr.dtype, copy=False),
                            csc.indices.astype(idt, copy=False), n), csc.data)
        perm = xp.argsort(self.indices, kind="stable").astype(pdt)  # stable: rows stay sorted
        rows = xp.repeat(xp.arange(n, dtype=idt), self.out_degree)
        indptr = xp.zeros(n + 1, self.indptr.dtype)
        xp.cumsum(xp.bincount(self.indices, minlength=n), out=indptr[1:])
        t = Pattern(indptr, rows[perm], n)
        return t, perm

    def symmetrized(self):
        """``(pattern of A + A.T with duplicates kept, gather map)``."""
        if self.symmetric:
            return self, None
        return self._once("symmetrized", self._build_symmetrized)

    def _build_symmetrized(self):
        xp, n, nnz = self.xp, self.n, self.nnz
        rows = xp.repeat(xp.arange(n, dtype=np.int64), self.out_degree)
        cols = self.indices.astype(np.int64)
        pos = xp.arange(nnz, dtype=index_dtype(nnz))
        indptr, indices, gather = csr_from_coo(xp.concatenate([rows, cols]),
                                               xp.concatenate([cols, rows]),
                                               xp.concatenate([pos, pos]), n)
        return Pattern(indptr, indices, n, symmetric=True), gather

    def nbytes(self) -> int:
        """Bytes of the row pointers and column indices."""
        return int(self.indptr.nbytes + self.indices.nbytes)
