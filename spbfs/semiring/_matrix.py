"""A validated square sparse matrix prepared for the semiring operators."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._array import array_module, is_cupy

INT32_MAX = np.iinfo(np.int32).max


def index_dtype(n: int, nnz: int = 0) -> np.dtype:
    """int32 when ``n`` and ``nnz`` fit, else int64 (never overflow silently)."""
    return np.dtype(np.int32 if max(n, nnz) <= INT32_MAX else np.int64)


def csr_from_coo(rows, cols, data, n):
    """CSR arrays from COO arrays, keeping duplicates (no summing), rows sorted.

    Works on numpy and cupy arrays alike.

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


class Matrix:
    """Square sparse matrix in CSR form, with its transpose built on demand.

    ``A[i, j]`` stored (an explicit zero too) is an edge ``i -> j``.  The
    arrays live in one array module (numpy or cupy), which selects the
    backend.  Build one with :meth:`from_any` once and pass it to many
    operator calls to avoid repeated validation and conversion.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from spbfs.semiring import Matrix
    >>> M = Matrix.from_any(sp.csr_array(([1, 1], ([0, 1], [1, 2])), shape=(3, 3)))
    >>> M.n, M.nnz, M.out_degree.tolist(), M.in_degree.tolist()
    (3, 2, [1, 1, 0], [0, 1, 1])
    """

    def __init__(self, indptr, indices, data, n, *, symmetric=False):
        self.indptr, self.indices, self.data = indptr, indices, data
        self.n = int(n)
        self.symmetric = bool(symmetric)
        self.xp = array_module(indptr)
        self._transpose = self if symmetric else None
        self._out_degree = None

    @property
    def nnz(self) -> int:
        """Number of stored entries (edges, duplicates counted)."""
        return int(self.indices.size)

    @property
    def dtype(self):
        """dtype of the stored values."""
        return self.data.dtype

    @property
    def on_gpu(self) -> bool:
        """True when the arrays are cupy arrays."""
        return self.xp is not np

    @property
    def out_degree(self):
        """Stored entries per row."""
        if self._out_degree is None:
            self._out_degree = self.xp.diff(self.indptr)
        return self._out_degree

    @property
    def in_degree(self):
        """Stored entries per column."""
        return self.T.out_degree

    @property
    def T(self) -> Matrix:
        """The transpose, as a Matrix (computed once and cached)."""
        if self._transpose is None:
            t = self.to_scipy().tocsc()  # CSC of A is CSR of A.T; duplicates are kept
            self._transpose = Matrix(t.indptr.astype(self.indptr.dtype, copy=False),
                                     t.indices.astype(self.indices.dtype, copy=False),
                                     t.data, self.n)
            self._transpose._transpose = self
        return self._transpose

    def to_scipy(self):
        """The matrix as a scipy (or cupyx) CSR matrix sharing the arrays."""
        if self.on_gpu:
            import cupyx.scipy.sparse as csp

            return csp.csr_matrix((self.data, self.indices, self.indptr), shape=(self.n, self.n))
        return sp.csr_array((self.data, self.indices, self.indptr), shape=(self.n, self.n))

    def symmetrized(self) -> Matrix:
        """``A`` with every edge also stored reversed (duplicates kept)."""
        if self.symmetric:
            return self
        xp = self.xp
        rows = xp.repeat(xp.arange(self.n, dtype=np.int64), self.out_degree)
        cols = self.indices.astype(np.int64)
        r = xp.concatenate([rows, cols])
        c = xp.concatenate([cols, rows])
        d = xp.concatenate([self.data, self.data])
        indptr, indices, data = csr_from_coo(r, c, d, self.n)
        return Matrix(indptr, indices, data, self.n, symmetric=True)

    @classmethod
    def from_any(cls, A, *, name: str = "A") -> Matrix:
        """Validate and convert ``A`` (scipy/cupyx sparse or dense 2-D array).

        Dense inputs follow scipy.sparse.csgraph: zero, NaN and inf entries
        are not edges.  Sparse inputs keep explicit zeros as edges.
        """
        if isinstance(A, Matrix):
            return A
        if is_cupy(A):
            return cls._from_cupy(A, name)
        if sp.issparse(A):
            csr = A.tocsr()
        elif isinstance(A, np.ndarray) or (hasattr(A, "__array__") and not isinstance(A, str)):
            dense = np.asarray(A)
            if dense.ndim != 2:
                raise ValueError(f"{name} must be 2-D, got {dense.ndim}-D")
            if dense.dtype == object or dense.dtype.kind not in "biuf":
                raise TypeError(f"{name} must be numeric, got dtype {dense.dtype}")
            keep = dense != 0
            if dense.dtype.kind == "f":
                keep &= np.isfinite(dense)
            r, c = np.nonzero(keep)
            csr = sp.csr_array((dense[r, c], (r, c)), shape=dense.shape)
        else:
            raise TypeError(
                f"{name} must be a scipy.sparse matrix/array, a cupyx.scipy.sparse matrix "
                f"or a 2-D array, got {type(A).__name__}"
            )
        if csr.ndim != 2 or csr.shape[0] != csr.shape[1]:
            raise ValueError(f"{name} must be square, got shape {csr.shape}")
        if csr.dtype.kind not in "biuf":
            raise TypeError(f"{name} must have a numeric dtype, got {csr.dtype}")
        n = csr.shape[0]
        idt = index_dtype(n, csr.nnz)
        return cls(csr.indptr.astype(idt, copy=False), csr.indices.astype(idt, copy=False),
                   csr.data, n)

    @classmethod
    def _from_cupy(cls, A, name):
        import cupy
        import cupyx.scipy.sparse as csp

        if csp.issparse(A):
            csr = A.tocsr()
        elif isinstance(A, cupy.ndarray):
            if A.ndim != 2:
                raise ValueError(f"{name} must be 2-D, got {A.ndim}-D")
            keep = A != 0
            if A.dtype.kind == "f":
                keep &= cupy.isfinite(A)
            r, c = cupy.nonzero(keep)
            csr = csp.coo_matrix((A[r, c], (r, c)), shape=A.shape).tocsr()
        else:
            raise TypeError(f"{name}: unsupported type {type(A).__name__}")
        if csr.shape[0] != csr.shape[1]:
            raise ValueError(f"{name} must be square, got shape {csr.shape}")
        n = csr.shape[0]
        idt = index_dtype(n, csr.nnz)
        return cls(csr.indptr.astype(idt, copy=False), csr.indices.astype(idt, copy=False),
                   csr.data, n)

    def __repr__(self) -> str:
        where = "gpu" if self.on_gpu else "cpu"
        return f"Matrix(n={self.n}, nnz={self.nnz}, dtype={self.dtype}, {where})"
