"""The sparsity pattern of a CSR matrix: immutable, shareable across threads.

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

from ..core.arrays import array_module, index_dtype, to_numpy
from ..core.seam import optional_primitive
from ._backend import backend_for

# index_dtype's home is spbfs.core.arrays; it is re-exported here for the modules that
# import it from this one
__all__ = ["Pattern", "csr_from_coo", "index_dtype", "row_ids"]

#: Stored entries sorted at once when a GPU pattern is made canonical (bounds that sort's
#: memory: about 40 bytes per entry of a piece).
CANONICAL_PIECE = 1 << 26


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
    idt = index_dtype(max(n, int(cols.max()) + 1 if cols.size else 0), rows.size)
    order = xp.lexsort(xp.stack([cols, rows])) if rows.size else xp.arange(0)
    counts = xp.bincount(rows, minlength=n) if rows.size else xp.zeros(n, np.int64)
    indptr = xp.zeros(n + 1, idt)
    xp.cumsum(counts, out=indptr[1:])
    return indptr, cols[order].astype(idt), data[order]


def row_ids(indptr, dtype=np.int64):
    """The row of every stored entry of a CSR, from its row pointers (numpy or cupy).

    Examples
    --------
    >>> import numpy as np
    >>> row_ids(np.array([0, 2, 2, 3])).tolist()
    [0, 0, 2]
    """
    xp = array_module(indptr)
    n = indptr.size - 1
    if xp is np:
        return np.repeat(np.arange(n, dtype=dtype), np.diff(indptr))
    nnz = int(indptr[-1])  # cupy.repeat takes no array of counts: a binary search instead
    return xp.searchsorted(indptr[1:], xp.arange(nnz, dtype=indptr.dtype),
                           side="right").astype(dtype)


def _sync(xp):
    """Finish the current CUDA stream's work before a result is published to other streams."""
    if xp is not np:
        xp.cuda.get_current_stream().synchronize()


class Pattern:
    """Row pointers and column indices of an ``n x ncols`` CSR matrix (square by default).

    Immutable once built: derived forms are computed once, under a lock,
    and cached.  Build patterns only from checked arrays (see
    :func:`spbfs.core.validation.check_compressed`); ``canonical=True`` says the
    rows are already sorted and duplicate-free (no check).

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

    def __init__(self, indptr, indices, n: int, *, ncols: int | None = None,
                 symmetric: bool = False, canonical: bool = False):
        self.indptr, self.indices = indptr, indices
        self.n = int(n)
        self.ncols = self.n if ncols is None else int(ncols)
        self.symmetric = bool(symmetric)
        self.xp = array_module(indptr)
        self._lock = threading.RLock()
        # canonical=True: the builder knows the rows are sorted and duplicate-free
        self._derived: dict = {"canonical": ()} if canonical else {}

    @property
    def shape(self) -> tuple:
        """``(rows, columns)``."""
        return (self.n, self.ncols)

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

    def assume(self, key, value):
        """Record a value the builder knows, as :meth:`_once` would compute it (``key``:
        ``"max_out_degree"``, ...).

        Examples
        --------
        >>> import numpy as np
        >>> p = Pattern(np.array([0, 1, 2]), np.array([1, 0]), 2)
        >>> p.assume("max_out_degree", 1)
        >>> p.max_out_degree
        1
        """
        with self._lock:
            self._derived.setdefault(key, value)

    def known(self, key):
        """The value recorded under ``key`` (by :meth:`assume` or a first use), else None:
        what costs nothing to ask.

        Examples
        --------
        >>> import numpy as np
        >>> p = Pattern(np.array([0, 1, 2]), np.array([1, 0]), 2)
        >>> p.known("max_out_degree") is None, p.max_out_degree, p.known("max_out_degree")
        (True, 1, 1)
        """
        return self._derived.get(key)

    def derived(self, key, build):
        """A value that depends on this pattern alone, built by ``build()`` on first use and
        kept while the pattern lives (as its transpose is); ``key`` names it.

        Examples
        --------
        >>> import numpy as np
        >>> p = Pattern(np.array([0, 1]), np.array([0]), 1)
        >>> p.derived("twice", lambda: 2 * p.nnz), p.derived("twice", lambda: 0)
        (2, 2)
        """
        return self._once(("derived", key), build)

    @property
    def out_degree(self):
        """Stored entries per row."""
        return self._once("out_degree", lambda: self.xp.diff(self.indptr))

    @property
    def max_out_degree(self) -> int:
        """Largest row length (0 for an empty matrix), as a host int."""
        return self._once("max_out_degree",
                          lambda: int(self.out_degree.max()) if self.n and self.nnz else 0)

    @property
    def nonempty_rows(self):
        """Ids of the rows that store entries, ascending, in the index dtype."""
        return self._once("nonempty_rows", lambda: self.xp.flatnonzero(self.out_degree).astype(
            self.indices.dtype))

    def transpose(self, values=False):
        """``(pattern of A.T, gather map)``; the map is None for a symmetric pattern, unless
        ``values`` asks for the map that carries each entry's value to its mirror entry."""
        if self.symmetric and not values:
            return self, None
        return self._once("transpose", self._build_transpose)

    def _build_transpose(self):
        xp, n, m, nnz = self.xp, self.n, self.ncols, self.nnz
        idt = self.indices.dtype
        pdt = index_dtype(nnz)
        transposed = optional_primitive(backend_for(xp), "csr_transpose")
        if transposed is not None:  # the backend's own counting sort, over threads
            t_indptr, t_indices, pos = transposed(self.indptr, self.indices, m, idt, pdt)
            return (Pattern(t_indptr.astype(self.indptr.dtype, copy=False), t_indices, m,
                            ncols=n), pos)
        if xp is np:  # scipy's CSR -> CSC is a counting sort that carries the positions along
            pos = np.arange(nnz, dtype=pdt)
            csc = sp.csr_array((pos, self.indices, self.indptr), shape=(n, m)).tocsc()
            return (Pattern(csc.indptr.astype(self.indptr.dtype, copy=False),
                            csc.indices.astype(idt, copy=False), m, ncols=n), csc.data)
        perm = xp.argsort(self.indices, kind="stable").astype(pdt)  # stable: rows stay sorted
        rows = row_ids(self.indptr, idt)
        indptr = xp.zeros(m + 1, self.indptr.dtype)
        xp.cumsum(xp.bincount(self.indices, minlength=m), out=indptr[1:])
        t = Pattern(indptr, rows[perm], m, ncols=n)
        return t, perm

    def symmetrized(self):
        """``(pattern of A + A.T with duplicates kept, gather map)``; ``(symmetric pattern,
        None)`` when A's pattern already is its own transpose (then nothing is doubled: the
        values decide, see :meth:`Matrix.symmetrized`)."""
        if self.n != self.ncols:
            raise ValueError(f"only a square matrix can be symmetrised, got shape {self.shape}")
        if self.symmetric:
            return self, None
        if self.equals_transpose():
            return self._once("as_symmetric", lambda: (
                Pattern(self.indptr, self.indices, self.n, symmetric=True), None))
        return self.doubled()

    def doubled(self):
        """``(pattern of A + A.T with duplicates kept, gather map)``, always doubled."""
        return self._once("symmetrized", self._build_symmetrized)

    def equals_transpose(self) -> bool:
        """Whether ``A.T`` stores the same entries in the same order as ``A`` (a symmetric
        pattern with sorted rows), computed once from the transpose (kept): equal row
        pointers, then equal column indices."""
        return self._once("equals_transpose", self._build_equals_transpose)

    def _build_equals_transpose(self):
        if self.symmetric:
            return True
        if self.n != self.ncols:
            return False
        t, _ = self.transpose()  # its counting sort counts the columns (a bincount did too)
        return bool((t.indptr == self.indptr).all() and (t.indices == self.indices).all())

    def _build_symmetrized(self):
        xp, n, nnz = self.xp, self.n, self.nnz
        rows = row_ids(self.indptr)
        cols = self.indices.astype(np.int64)
        pos = xp.arange(nnz, dtype=index_dtype(nnz))
        indptr, indices, gather = csr_from_coo(xp.concatenate([rows, cols]),
                                               xp.concatenate([cols, rows]),
                                               xp.concatenate([pos, pos]), n)
        return Pattern(indptr, indices, n, symmetric=True), gather

    def rows(self):
        """Row index of every stored entry (int64)."""
        return self._once("rows", lambda: row_ids(self.indptr))

    def keys(self):
        """``row * ncols + column`` of every stored entry (int64): sorted and unique exactly
        when the pattern is canonical."""
        return self._once("keys", lambda: self.rows() * self.ncols
                          + self.indices.astype(np.int64))

    def canonical(self):
        """``(sorted duplicate-free pattern, gather map, segment starts)``, or None when this
        pattern already is one.  Entry ``k`` of the canonical pattern combines the entries
        ``map[starts[k]:starts[k + 1]]`` of this one."""
        return self._once("canonical", self._build_canonical) or None

    def _build_canonical(self):
        if self._rows_sorted_and_unique():
            return ()  # already canonical (an empty tuple: falsy, yet cached)
        if self.xp is np:
            return self._canonical_by_rows()
        return self._canonical_in_pieces()

    def sorted_unique(self) -> Pattern:
        """This pattern with each row's columns sorted and repeats dropped, itself when it
        already is: :meth:`canonical` without the maps that values would need (on the GPU,
        no gather map or segment starts: the pieces' keys sorted in place).

        Examples
        --------
        >>> import numpy as np
        >>> P = Pattern(np.array([0, 3, 3]), np.array([1, 0, 1]), 2).sorted_unique()
        >>> P.indptr.tolist(), P.indices.tolist(), P.sorted_unique() is P
        ([0, 2, 2], [0, 1], True)
        """
        if self._rows_sorted_and_unique():
            return self
        if self.xp is np:
            return self._canonical_by_rows()[0]
        return self._canonical_in_pieces(positions=False)[0]

    def _rows_sorted_and_unique(self) -> bool:
        """Each row's columns strictly increasing, checked with one flag per entry (no
        keys): every entry's column lies above the previous one's unless a row starts
        there."""
        xp, idx = self.xp, self.indices
        if idx.size < 2:
            return True
        first = xp.zeros(idx.size, bool)
        inner = self.indptr[1:-1]
        first[inner[inner < idx.size]] = True
        return not bool(((idx[1:] <= idx[:-1]) & ~first[1:]).any())

    def _canonical_in_pieces(self, piece=None, positions=True):
        """GPU: the rows sorted in pieces of at most ``piece`` stored entries
        (:data:`CANONICAL_PIECE`; a longer row is a piece alone), each by one sort of its
        ``row * ncols + column`` keys, so the sort's memory is bounded by the piece, and
        the gather map and segment starts are int32 while the entries fit (neither made,
        both None, without ``positions``)."""
        xp, n, nnz, ncols = self.xp, self.n, self.nnz, self.ncols
        piece = piece or CANONICAL_PIECE
        indptr, idt, pdt = self.indptr, self.indices.dtype, index_dtype(nnz)
        cuts = xp.searchsorted(indptr, xp.arange(piece, nnz, piece), side="right") - 1
        bounds = np.unique(np.concatenate([[0], to_numpy(cuts), [n]]))
        ends = to_numpy(indptr[xp.asarray(bounds)]).tolist()
        order = xp.empty(nnz, pdt) if positions else None
        counts = xp.zeros(n, np.int64)
        cols, starts = [], []
        pieces = zip(bounds[:-1].tolist(), bounds[1:].tolist(), ends[:-1], ends[1:], strict=True)
        for r0, r1, a, b in pieces:
            if a == b:
                continue
            keys = row_ids(indptr[r0:r1 + 1] - a) * ncols + self.indices[a:b].astype(np.int64)
            if positions:
                local = xp.argsort(keys)
                keys = keys[local]
                order[a:b] = local + a
            else:
                keys.sort()
            first = xp.ones(keys.size, bool)
            first[1:] = keys[1:] != keys[:-1]
            at = xp.flatnonzero(first)
            unique = keys[at]
            if positions:
                starts.append((at + a).astype(pdt))
            cols.append((unique % ncols).astype(idt))
            counts[r0:r1] = xp.bincount(unique // ncols, minlength=r1 - r0)
        new_indptr = xp.zeros(n + 1, indptr.dtype)
        xp.cumsum(counts, out=new_indptr[1:])
        return (Pattern(new_indptr, xp.concatenate(cols), n, ncols=ncols,
                        symmetric=self.symmetric, canonical=True), order,
                xp.concatenate(starts) if positions else None)

    def _canonical_by_rows(self):
        """CPU: scipy sorts each row (carrying the positions along), then equal neighbours
        in a row are duplicates; no global sort of the keys."""
        pos = np.arange(self.nnz, dtype=index_dtype(self.nnz))
        S = sp.csr_array((pos, self.indices.copy(), self.indptr.copy()), shape=self.shape)
        S.has_sorted_indices = False
        S.sort_indices()
        rows, cols = self.rows(), S.indices
        first = np.ones(cols.size, bool)
        first[1:] = (cols[1:] != cols[:-1]) | (rows[1:] != rows[:-1])
        starts = np.flatnonzero(first)
        indptr = np.zeros(self.n + 1, self.indptr.dtype)
        np.cumsum(np.bincount(rows[starts], minlength=self.n), out=indptr[1:])
        return (Pattern(indptr, cols[starts], self.n, ncols=self.ncols,
                        symmetric=self.symmetric, canonical=True), S.data, starts)

    def nbytes(self) -> int:
        """Bytes of the row pointers and column indices."""
        return int(self.indptr.nbytes + self.indices.nbytes)
