"""A checked sparse matrix prepared for the semiring operations."""

from __future__ import annotations

import functools

import numpy as np
import scipy.sparse as sp

from ..core.arrays import array_module, index_dtype, is_cupy
from ..core.validation import check_compressed, check_coordinates
from . import _cache
from ._pattern import Pattern, csr_from_coo

# index_dtype (home: spbfs.core.arrays) is re-exported for the modules that import it here
__all__ = ["Matrix", "csr_from_coo", "index_dtype", "pointer_matrix"]

#: Sparse formats whose arrays are checked and whose pattern is cached per input matrix.
_CACHED_FORMATS = ("csr", "csc", "coo")


class Matrix:
    """Sparse matrix in CSR form (any shape): a shared :class:`Pattern` plus values.

    ``A[i, j]`` stored (an explicit zero too) is an edge ``i -> j``.  The
    arrays live in one array module (numpy or cupy), which selects the
    backend.  :meth:`from_any` checks and converts an input once: the pattern
    (and its transpose and symmetrised form, built on first use) is cached
    per input matrix, so later calls on the same scipy/cupyx matrix reuse it;
    values are read from the input on every call.  A Matrix may be shared by
    threads: what it derives is computed once and never changes.

    Parameters
    ----------
    indptr, indices, data : array
        CSR arrays (numpy or cupy); checked unless ``check=False``.
    n : int
        Number of rows.
    ncols : int, optional
        Number of columns (default ``n``: square).
    symmetric : bool
        The caller guarantees the matrix is symmetric, values included: it is its own
        transpose (no transpose is built).
    canonical : bool
        The caller guarantees every row's columns strictly increase (skips that check
        where an operation needs sorted, duplicate-free rows; verified with ``check``).
    check : bool
        Check the arrays (ValueError naming the defect).  Internal callers
        that built the arrays themselves pass False.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from spbfs.semiring import Matrix
    >>> M = Matrix.from_any(sp.csr_array(([1, 1], ([0, 1], [1, 2])), shape=(3, 3)))
    >>> M.n, M.nnz, M.out_degree.tolist(), M.in_degree.tolist()
    (3, 2, [1, 1, 0], [0, 1, 1])
    >>> import numpy as np
    >>> Matrix(np.array([0, 1, 1]), np.array([5]), np.ones(1), 2)
    Traceback (most recent call last):
        ...
    ValueError: Matrix.indices has an entry 5 outside [0, 2)
    """

    def __init__(self, indptr, indices, data, n, *, ncols=None, symmetric=False,
                 canonical=False, check=True):
        n = int(n)
        ncols = n if ncols is None else int(ncols)
        if check:
            nnz = check_compressed(indptr, indices, data, n, ncols, "Matrix")
            indices, data = indices[:nnz], data[:nnz]
            _check_values(data, "Matrix")
        pattern = Pattern(indptr, indices, n, ncols=ncols, symmetric=symmetric,
                          canonical=canonical)
        if check and canonical and not pattern._rows_sorted_and_unique():
            raise ValueError("Matrix(canonical=True): a row's columns do not strictly increase")
        self._setup(pattern, data, None, data.dtype, values_symmetric=symmetric)

    def _setup(self, pattern, data, gather, dtype, values_symmetric=False):
        self._pattern = pattern
        self._data = data
        self._gather = gather  # (array or Matrix, gather map or None): values on demand
        self._dtype = np.dtype(dtype)
        self._transpose = None
        # a symmetric pattern whose values equal their transpose's: the matrix is its own
        # transpose (other values on a symmetric pattern get a transpose of their own)
        self._self_transpose = bool(values_symmetric) and pattern.symmetric

    @classmethod
    def _from_pattern(cls, pattern, data=None, *, gather=None, dtype=None,
                      values_symmetric=False) -> Matrix:
        """A Matrix on an existing (checked) pattern; values given or gathered on demand.
        ``values_symmetric``: with a symmetric pattern, the values equal their transpose's."""
        self = cls.__new__(cls)
        self._setup(pattern, data, gather, data.dtype if data is not None else dtype,
                    values_symmetric)
        return self

    @property
    def pattern(self) -> Pattern:
        """The immutable sparsity pattern (shared with every Matrix of the same input)."""
        return self._pattern

    @property
    def indptr(self):
        """CSR row pointers."""
        return self._pattern.indptr

    @property
    def indices(self):
        """CSR column indices."""
        return self._pattern.indices

    @property
    def n(self) -> int:
        """Number of rows (the vertex count of a square matrix)."""
        return self._pattern.n

    @property
    def nrows(self) -> int:
        """Number of rows."""
        return self._pattern.n

    @property
    def ncols(self) -> int:
        """Number of columns."""
        return self._pattern.ncols

    @property
    def shape(self) -> tuple:
        """``(nrows, ncols)``."""
        return self._pattern.shape

    @property
    def symmetric(self) -> bool:
        """True when the pattern is known to be symmetric."""
        return self._pattern.symmetric

    @property
    def xp(self):
        """The array module (numpy or cupy) of the arrays."""
        return self._pattern.xp

    @property
    def data(self):
        """Stored values, in CSR order (gathered from the input on first access)."""
        d = self._data
        if d is None:
            src, gather_map = self._gather
            if isinstance(src, Matrix):
                src = src.data
            d = self._data = src if gather_map is None else src[gather_map]
        return d

    @property
    def nnz(self) -> int:
        """Number of stored entries (edges, duplicates counted)."""
        return self._pattern.nnz

    @property
    def dtype(self):
        """dtype of the stored values."""
        return self._dtype

    @property
    def on_gpu(self) -> bool:
        """True when the arrays are cupy arrays."""
        return self.xp is not np

    @property
    def out_degree(self):
        """Stored entries per row."""
        return self._pattern.out_degree

    @property
    def in_degree(self):
        """Stored entries per column."""
        return self._pattern.transpose()[0].out_degree

    @property
    def max_out_degree(self) -> int:
        """Largest row length, as a host int (computed once per pattern)."""
        return self._pattern.max_out_degree

    @property
    def nonempty_rows(self):
        """Ids of the rows that store entries (computed once per pattern)."""
        return self._pattern.nonempty_rows

    @property
    def entry_rows(self):
        """Row of every stored entry, int64 (computed once per pattern)."""
        return self._pattern.rows()

    @property
    def T(self) -> Matrix:
        """The transpose, as a Matrix (its pattern is built once and shared); the matrix
        itself when it is symmetric, values included.

        Examples
        --------
        A symmetric pattern with other values in each direction:

        >>> import numpy as np
        >>> M = Matrix(np.array([0, 1, 2]), np.array([1, 0]), np.array([1.0, 2.0]), 2,
        ...            symmetric=True)
        >>> M.T is M, M.with_values(np.array([1.0, 5.0])).T.data.tolist()
        (True, [5.0, 1.0])
        """
        if self._self_transpose:
            return self
        t = self._transpose
        if t is None:
            tp, gather_map = self._pattern.transpose(values=True)
            t = Matrix._from_pattern(tp, gather=(self, gather_map), dtype=self._dtype)
            t._transpose = self
            self._transpose = t
        return t

    @property
    def values_at_hand(self) -> bool:
        """Whether :attr:`data` is read without a gather."""
        return self._data is not None

    @property
    def transpose_values_at_hand(self) -> bool:
        """Whether ``T.data`` is read without a gather (symmetric, or already gathered)."""
        t = self._transpose
        return self._self_transpose or (t is not None and t.values_at_hand)

    def canonical(self, monoid=None) -> Matrix:
        """This matrix with sorted column indices and no duplicates; itself when it already
        is canonical.

        Parameters
        ----------
        monoid : Monoid, optional
            How the values of a duplicated position combine: summed by default, as scipy's
            ``sum_duplicates``; ``monoids.min`` keeps the lightest of parallel edges, as
            the shortest-path searches read them.

        Examples
        --------
        >>> import numpy as np
        >>> from spbfs.semiring import monoids
        >>> M = Matrix(np.array([0, 2, 2]), np.array([1, 1]), np.array([2.0, 5.0]), 2)
        >>> M.canonical().data.tolist(), M.canonical(monoids.min).data.tolist()
        ([7.0], [2.0])
        """
        found = self._pattern.canonical()
        if found is None:
            return self
        pattern, order, starts = found
        from ._backend import backend_for
        from ._named import monoids

        data = backend_for(self.xp).segment_reduce(monoid or monoids.plus, self.data[order],
                                                   starts, self._dtype)
        return Matrix._from_pattern(pattern, data, values_symmetric=self._self_transpose)

    def astype(self, dtype) -> Matrix:
        """The same matrix with its values cast to ``dtype``; itself when they already are.

        Examples
        --------
        >>> import numpy as np
        >>> M = Matrix(np.array([0, 1, 1]), np.array([1]), np.array([7]), 2)
        >>> M.astype(np.float64).data.tolist(), M.astype(M.dtype) is M
        ([7.0], True)
        """
        dtype = np.dtype(dtype)
        if dtype == self._dtype:
            return self
        return self.with_values(self.data.astype(dtype), symmetric=self._self_transpose)

    def unit(self, dtype=np.float64) -> Matrix:
        """The same pattern with every stored value 1 (of ``dtype``): an unweighted view.

        Examples
        --------
        >>> import numpy as np
        >>> M = Matrix(np.array([0, 1, 1]), np.array([1]), np.array([7.5]), 2)
        >>> M.unit(np.int64).data.tolist()
        [1]
        """
        return self.with_values(self.xp.ones(self.nnz, dtype), symmetric=True)

    def with_values(self, data, *, symmetric=False) -> Matrix:
        """The same pattern with other values (``data`` in CSR order); ``symmetric``: the
        caller guarantees that, on a symmetric pattern, the values equal their transpose's
        (the matrix is then its own transpose)."""
        if data.shape != (self.nnz,):
            raise ValueError(f"data must have shape ({self.nnz},), got {data.shape}")
        return Matrix._from_pattern(self._pattern, data, values_symmetric=symmetric)

    def to_scipy(self):
        """The matrix as a scipy (or cupyx) CSR matrix sharing the arrays.

        cupyx holds bool, float32/64 and complex values only: another dtype on the GPU
        raises TypeError.
        """
        shape = self.shape
        if self.on_gpu:
            import cupyx.scipy.sparse as csp

            if self.data.dtype.kind not in "bfc" or self.data.dtype == np.float16:
                raise TypeError(f"cupyx.scipy.sparse cannot hold {self.data.dtype} values: "
                                "apply a cast first, or build a scipy matrix from "
                                ".data/.indices/.indptr copied to the host (.get())")
            return csp.csr_matrix((self.data, self.indices, self.indptr), shape=shape)
        return sp.csr_array((self.data, self.indices, self.indptr), shape=shape)

    def to_scipy_operator(self):
        """A scipy (or cupyx) sparse matrix equal to this one, for products: the transposed
        (CSC) view of the matrix this one is the transpose of while its values have not been
        gathered into CSR order (a product needs no gather then), else :meth:`to_scipy`.

        Examples
        --------
        >>> import numpy as np, scipy.sparse as sp
        >>> from spbfs.semiring import Matrix
        >>> M = Matrix.from_any(sp.csr_array(np.array([[0, 2.0], [0, 0]])))
        >>> M.T.to_scipy_operator().format, (M.T.to_scipy_operator() @ np.ones(2)).tolist()
        ('csc', [0.0, 2.0])
        """
        source = self._gather[0] if self._gather is not None else None
        if self._data is None and source is not None and source is self._transpose:
            return source.to_scipy().T
        return self.to_scipy()

    def symmetrized(self, values: bool = True) -> Matrix:
        """``A`` with every edge also stored reversed (duplicates kept); ``A`` itself, marked
        symmetric, when it already equals its transpose (the pattern's check is made once
        per pattern).  ``values=False``: the caller reads only the pattern, so a symmetric
        pattern is enough (its values are then ``A``'s, not checked); otherwise the values
        must equal their transpose's too (checked on each call)."""
        if self._self_transpose or (self.symmetric and not values):
            return self
        sym, gather_map = self._pattern.symmetrized()
        if gather_map is None:  # the pattern is its own transpose
            if not values:  # the caller reads only the pattern
                return Matrix._from_pattern(sym, gather=(self, None), dtype=self._dtype,
                                            values_symmetric=True)
            _, to_transpose = self._pattern.transpose(values=True)
            data = self.data
            # the transpose's entries come in sorted order: compare A's in that order too
            # (a pattern only found equal to its transpose has sorted rows already)
            mine = (data[self.xp.argsort(self._pattern.keys(), kind="stable")]
                    if self.symmetric else data)
            if bool((data[to_transpose] == mine).all()):
                return Matrix._from_pattern(sym, data, values_symmetric=True)
            sym, gather_map = self._pattern.doubled()
        return Matrix._from_pattern(sym, gather=(self, gather_map), dtype=self._dtype,
                                    values_symmetric=True)

    @classmethod
    def from_any(cls, A, *, name: str = "A") -> Matrix:
        """Check and convert ``A`` (scipy/cupyx sparse or dense 2-D array).

        Sparse inputs keep explicit zeros as edges; their arrays are checked
        (ValueError naming the defect, before anything reads them) and the
        pattern is cached per input matrix (see :func:`spbfs.clear_cache`).
        Dense inputs follow scipy.sparse.csgraph: zero, NaN and inf entries
        are not edges.
        """
        if isinstance(A, Matrix):
            return A
        hook = getattr(A, "__spbfs_matrix__", None)   # a distributed graph: its own matrix
        if hook is not None:
            return hook()
        if not _is_sparse(A):
            return cls._from_dense(A, name)
        if getattr(A, "format", None) in _CACHED_FORMATS:
            cached = _cache.lookup(A)
            if cached is None:
                cached = _cache.store(A, _prepare_sparse(A, name))
        else:  # lil, dok, dia, bsr: edited in place by design, so converted on every call
            A = _other_format_to_csr(A, name)
            cached = _prepare_sparse(A, name)
        pattern, gather_map, nnz = cached
        data = A.data
        _check_values(data, name)
        if gather_map is None:
            return cls._from_pattern(pattern, data[:nnz] if data.size != nnz else data)
        return cls._from_pattern(pattern, gather=(data, gather_map), dtype=data.dtype)

    @classmethod
    def _from_dense(cls, A, name):
        xp = np
        if is_cupy(A):
            import cupy as xp
        elif not (isinstance(A, np.ndarray) or (hasattr(A, "__array__")
                                                and not isinstance(A, str))):
            raise TypeError(
                f"{name} must be a scipy.sparse matrix/array, a cupyx.scipy.sparse matrix "
                f"or a 2-D array, got {type(A).__name__}"
            )
        dense = xp.asarray(A)
        if dense.ndim != 2:
            raise ValueError(f"{name} must be 2-D, got {dense.ndim}-D")
        _check_values(dense, name)
        keep = dense != 0
        if dense.dtype.kind == "f":
            keep &= xp.isfinite(dense)
        r, c = xp.nonzero(keep)
        n, ncols = dense.shape
        indptr, indices, data = csr_from_coo(r, c, dense[r, c], n)
        return cls(indptr, indices, data, n, ncols=ncols, check=False)

    def __repr__(self) -> str:
        where = "gpu" if self.on_gpu else "cpu"
        return f"Matrix(shape={self.shape}, nnz={self.nnz}, dtype={self.dtype}, {where})"


def _is_sparse(A) -> bool:
    """True for scipy.sparse and cupyx.scipy.sparse matrices and arrays."""
    if sp.issparse(A):
        return True
    if is_cupy(A):
        import cupyx.scipy.sparse as csp

        return bool(csp.issparse(A))
    return False


def _check_values(data, name):
    if data.dtype.kind not in "biuf":
        raise TypeError(f"{name} must have a numeric dtype, got {data.dtype}")


def _owned(arr, dtype):
    """A private copy of an index array (read-only on the CPU): the cached pattern."""
    out = arr.astype(dtype, copy=True)
    if isinstance(out, np.ndarray):
        out.flags.writeable = False
    return out


def _prepare_sparse(A, name):
    """``(pattern, gather map into A.data or None, nnz)`` of a checked scipy/cupyx matrix."""
    shape = getattr(A, "shape", ())
    if len(shape) != 2:
        raise ValueError(f"{name} must be 2-D, got shape {shape}")
    n, ncols = int(shape[0]), int(shape[1])
    fmt = A.format
    try:
        if fmt in ("csr", "csc"):
            major, minor = (n, ncols) if fmt == "csr" else (ncols, n)
            nnz = check_compressed(A.indptr, A.indices, A.data, major, minor, name)
            idt = index_dtype(max(n, ncols), nnz)
            pattern = Pattern(_owned(A.indptr, idt), _owned(A.indices[:nnz], idt), major,
                              ncols=minor)
            if fmt == "csr":
                return pattern, None, nnz
            # a CSC of A is a CSR of A.T: transposing it gives A's rows and where they came from
            return (*pattern.transpose(), nnz)
        if fmt == "coo":
            rows, cols = A.row, A.col
            check_coordinates(rows, cols, A.data, shape, name)
            nnz = int(rows.size)
            positions = array_module(rows).arange(nnz)
            indptr, indices, gather_map = csr_from_coo(rows, cols, positions, n)
            return Pattern(indptr, indices, n, ncols=ncols), gather_map, nnz
        raise TypeError(f"{name} has the unsupported sparse format {fmt!r}")
    except MemoryError as exc:
        if is_cupy(A):
            from ..gpu.memory import out_of_memory

            raise out_of_memory(f"preparing {name}", exc) from exc
        raise


def _other_format_to_csr(A, name):
    """CSR of a lil/dok/dia/bsr matrix, after scipy's own full check where it has one."""
    if hasattr(A, "check_format"):
        try:
            A.check_format(full_check=True)
        except ValueError as exc:
            raise ValueError(f"{name} is malformed: {exc}") from None
    return A.tocsr()


def pointer_matrix(f) -> Matrix:
    """The ``n x n`` matrix with one entry per row, ``P[u, f[u]] = True``.

    ``vxm(x, P, semiring)`` sends each ``x[u]`` to ``f[u]`` and combines what meets there
    with the semiring's monoid (a scatter-reduce: the hooking step of FastSV).

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs import semiring
    >>> P = semiring.pointer_matrix(np.array([1, 1, 0]))
    >>> semiring.vxm(np.array([5, 3, 4]), P, semiring.min_first).to_dense(-1).tolist()
    [4, 3, -1]
    """
    from ._dispatch import distributed

    algebra = distributed(f)
    if algebra is not None:
        return algebra.pointer_matrix(f)
    xp = array_module(f)
    n = int(f.size)
    dtype = index_dtype(n, n)
    indptr = _host_steps(n + 1, dtype) if xp is np else xp.arange(n + 1, dtype=dtype)
    P = Matrix(indptr, f, xp.ones(n, bool), n, canonical=True, check=False)
    P.pattern.assume("max_out_degree", min(n, 1))
    return P


@functools.lru_cache(maxsize=8)
def _host_steps(size, dtype):
    """A read-only ``arange(size)``, shared: a pointer matrix's row offsets (algorithms make
    one per step, on the same few sizes)."""
    out = np.arange(size, dtype=dtype)
    out.flags.writeable = False
    return out
