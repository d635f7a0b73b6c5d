"""Checked front end of the semiring operators ``vxm`` and ``mxv``."""

from __future__ import annotations

import numpy as np

from ..core.arrays import array_module
from ..core.seam import optional_primitive
from ..core.validation import check_choice
from ._backend import backend_for
from ._dispatch import distributed
from ._masks import dense_mask
from ._matrix import Matrix
from ._named import monoids
from ._optypes import Semiring, computable
from ._vector import Vector

_DIRECTIONS = ("auto", "push", "pull")


def as_vector(x, size, name="x") -> Vector:
    """``x`` as a :class:`Vector` of length ``size`` (a plain array is full)."""
    if isinstance(x, Vector):
        v = x
    elif hasattr(x, "ndim") or isinstance(x, (list, tuple)):
        xp = array_module(x)
        arr = xp.asarray(x)
        if arr.ndim != 1:
            raise ValueError(f"{name} must be 1-D, got {arr.ndim}-D")
        v = Vector.full(arr)
    else:
        raise TypeError(f"{name} must be a Vector or a 1-D array, got {type(x).__name__}")
    if v.values.dtype.kind not in "biuf":
        raise TypeError(f"{name} must have a numeric dtype, got {v.values.dtype}")
    if v.size != size:
        raise ValueError(f"{name} has size {v.size}, the matrix needs {size}")
    return v


def numeric_dtype(dtype, name="dtype"):
    """``dtype`` as a numpy dtype of numbers a kernel computes in (bool, integer, float32
    or float64), or TypeError."""
    try:
        out = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"{name} must be a numeric dtype, got {dtype!r}") from None
    if out.kind not in "biuf":
        raise TypeError(f"{name} must be a numeric dtype, got {out}")
    return computable(out, f"the {name} argument")


def as_mask(mask, size, xp):
    """``mask`` as a boolean array of length ``size`` (a Vector's structure)."""
    if mask is None:
        return None
    if isinstance(mask, Vector):
        m = mask.to_bitmap().present
    else:
        m = xp.asarray(dense_mask(mask, "a Vector or a 1-D bool array"))
        if m.ndim != 1:
            raise ValueError(f"mask must be 1-D, got {m.ndim}-D")
        if m.dtype != bool:
            m = m != 0
    if m.size != size:
        raise ValueError(f"mask has size {m.size}, the matrix needs {size}")
    if array_module(m) is not xp:
        raise TypeError("mask must live on the same device as the matrix")
    return m


def vxm(x, A, semiring, *, mask=None, complement=False, direction="auto", dtype=None):
    """Row vector times matrix over a semiring: ``y[j] = add_i mul(x[i], A[i, j])``.

    A sparse ``x`` is pushed (masked SpMSpV: each stored ``x[i]`` scatters
    along row ``i``); a bitmap ``x`` is pulled (masked SpMV: each allowed
    ``j`` gathers from column ``j``, stopping early for ``any``/``lor``).
    Both give the same result; ``direction`` forces one.

    Parameters
    ----------
    x : Vector or 1-D array
        A plain array is a full (dense) vector.
    A : scipy.sparse / cupyx.scipy.sparse matrix, 2-D array, or Matrix
        ``A[i, j]`` stored means an edge ``i -> j``; each stored entry is read as it is (a
        duplicated position once per copy, where ``mxm`` reads their sum).
    semiring : Semiring
        For example :data:`spbfs.semiring.any_pair`.
    mask : Vector or 1-D bool array, optional
        Output entries may only be written where the mask is true (its
        structure for a Vector).
    complement : bool
        Use the complement of ``mask`` (write only where it is false).
    direction : {"auto", "push", "pull"}
        ``"auto"`` follows the format of ``x`` (a plain array, unmasked, over a
        multiply that reads ``A``'s values, is pushed on the CPU while only the
        rows' values are at hand; its result is still a bitmap).
    dtype : dtype, optional
        Output dtype (default from the semiring and operand dtypes).  One that cannot
        hold the semiring's own result type (int32 from float values) has the values the
        multiply reads cast to it first, so products and sums are taken in it, as numpy's
        ``dtype=`` of a reduction does; a wider one (int64 counts of bools) casts nothing.
        A multiply whose products of such values do not fit (``div`` of ints) raises
        TypeError.  Each product is cast to the output dtype before the monoid adds it, so
        narrow integers wrap as numpy's do (``126 + 4`` is -126 in int8); int64 with uint64
        values are multiplied in float64, numpy's common type.

    Returns
    -------
    Vector
        Sparse format after a push, bitmap format after a pull.  The array
        module (numpy/cupy) follows the inputs.

    Examples
    --------
    One BFS step from vertex 0, masking out the visited set:

    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from spbfs import semiring
    >>> A = sp.csr_array(np.array([[0, 1, 1], [1, 0, 1], [1, 1, 0]]))
    >>> frontier = semiring.Vector.sparse([0], size=3)
    >>> visited = np.array([True, False, False])
    >>> y = semiring.vxm(frontier, A, semiring.lor_land, mask=visited, complement=True)
    >>> y.indices.tolist(), y.values.tolist()
    ([1, 2], [True, True])
    >>> semiring.vxm(frontier.to_bitmap(), A, semiring.any_secondi).to_dense(-1)
    array([-1,  0,  0])
    """
    if not isinstance(semiring, Semiring):
        raise TypeError(f"semiring must be a Semiring, got {type(semiring).__name__}")
    check_choice(direction, "direction", _DIRECTIONS)
    algebra = distributed(A, x)
    if algebra is not None:
        return algebra.vxm(x, A, semiring, mask=mask, complement=complement, dtype=dtype)
    M = Matrix.from_any(A)
    v = as_vector(x, M.nrows)
    m = as_mask(mask, M.ncols, M.xp)
    if array_module(v.values) is not M.xp:
        raise TypeError("x must live on the same device as A")
    out_dtype = semiring.result_dtype(v.dtype, M.dtype)
    common = semiring.multiply.operand_dtype(v.dtype, M.dtype)
    if common is not None:  # int64 with uint64: multiplied in float64, as numpy does
        v, M = _cast_operands(v, M, semiring, common)
    if dtype is not None:
        v, M, out_dtype = _narrowed(v, M, semiring, out_dtype, numeric_dtype(dtype))
    if direction == "auto":
        if not isinstance(x, Vector) and _push_full(M, semiring, m):
            return _push_dense(M, v, semiring, out_dtype)
        direction = "push" if v.format == "sparse" else "pull"
    if direction == "push":
        return push(M, v.to_sparse(), semiring, m, bool(complement), out_dtype)
    return pull(M, v.to_bitmap(), semiring, m, bool(complement), out_dtype)


def mxv(A, x, semiring, *, mask=None, complement=False, direction="auto", dtype=None):
    """Matrix times column vector: ``y[i] = add_j mul(x[j], A[i, j])``.

    The same as ``vxm(x, A.T, ...)`` (the multiply sees ``x`` first).

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from spbfs import semiring
    >>> A = sp.csr_array(np.array([[0, 2.0], [3.0, 0]]))
    >>> semiring.mxv(A, np.array([1.0, 10.0]), semiring.plus_times).values
    array([20.,  3.])
    """
    algebra = distributed(A, x)
    if algebra is not None:
        return algebra.mxv(A, x, semiring, mask=mask, complement=complement, dtype=dtype)
    return vxm(x, Matrix.from_any(A).T, semiring, mask=mask, complement=complement,
               direction=direction, dtype=dtype)


def _narrowed(v, M, semiring, natural, dtype):
    """The operands for an output ``dtype`` that cannot hold the semiring's own result type
    ``natural``: the values the multiply reads cast to ``dtype`` first, so that every
    backend multiplies and adds in ``dtype`` (the named operators' numpy form; a compiled
    kernel would otherwise truncate its partial sums instead of its operands).  A wider
    ``dtype`` (a count of bools in int64) leaves them as they are.  A multiply whose
    products of ``dtype`` values do not fit it (``div`` of ints) raises TypeError: its
    partial sums would be cut in an order the backend picks."""
    if not np.can_cast(natural, dtype, "safe"):
        uses = semiring.multiply.uses
        products = semiring.result_dtype(dtype if "x" in uses else v.dtype,
                                         dtype if "a" in uses else M.dtype)
        if not np.can_cast(products, dtype, "safe"):
            raise TypeError(f"dtype {dtype} cannot hold the {semiring.multiply.name} products "
                            f"of {dtype} values ({products}): give a dtype that can")
        v, M = _cast_operands(v, M, semiring, dtype)
    return v, M, dtype


def _cast_operands(v, M, semiring, dtype):
    """``v`` and ``M`` with the values the multiply reads cast to ``dtype``."""
    uses = semiring.multiply.uses
    if "x" in uses and v.dtype != dtype:
        v = Vector(v.size, v.format, indices=v.indices, values=v.values.astype(dtype),
                   present=v.present, absent=v.absent)
    if "a" in uses:
        M = M.astype(dtype)
    return v, M


def _push_full(M, semiring, mask) -> bool:
    """Whether an unmasked product of a plain array is pushed (rows scattered, values read in
    place) rather than pulled: on the CPU while only the rows' values are at hand.
    Gathering them reads every value at a random place, as long as several pushes (Kronecker
    scale 18, 7.6M entries, 2 cores: 100-230 ms against 18 ms a push, 13 ms a pull), and a
    repeated plain call (pagerank's few iterations) would gather them again each time."""
    return (mask is None and not M.on_gpu and "a" in semiring.multiply.uses
            and M.values_at_hand and not M.transpose_values_at_hand)


def _push_dense(M, v, semiring, dtype) -> Vector:
    """The push of a plain array (every entry present): through the backend's scatter where
    it has one and the monoid is ``plus`` (no frontier list, no presence kept per entry:
    the result's entries are the columns holding an entry, known from the pattern), else as
    a sparse frontier."""
    scatter = optional_primitive(backend_for(M.xp), "spmv_scatter")
    if scatter is None or semiring.monoid is not monoids.plus or dtype.kind not in "iuf":
        return push(M, v.to_sparse(), semiring, None, False, dtype).to_bitmap()
    values = scatter(M.indptr, M.indices, _values(M, semiring), M.ncols, v.values, semiring,
                     dtype)
    present = M.pattern.derived("columns_present", lambda: _columns_present(M))
    return Vector(M.ncols, "bitmap", present=present.copy(), values=values, absent=0)


def _columns_present(M):
    """Whether each column holds an entry."""
    xp = M.xp
    present = xp.zeros(M.ncols, bool)
    present[M.indices] = True
    return present


def _values(M, semiring):
    """``M.data`` if the multiply reads matrix values, else None (nothing gathered)."""
    return M.data if "a" in semiring.multiply.uses else None


def pull_cheaper(A, frontier_edges: int) -> bool:
    """Whether a pull (``vxm`` of a bitmap, reading every entry of ``A``) is expected to
    cost less than a push of a frontier with ``frontier_edges`` out-edges, for a product
    that cannot stop early (``min_plus``, ``plus_times``): the backend's estimate, for an
    algorithm that chooses each round's direction itself.  False where the backend states
    none (the CPU: its push reads only the frontier's edges, and pulls are not faster per
    entry there) and for a distributed matrix (its ranks choose for their blocks).

    Parameters
    ----------
    A : sparse matrix/array or Matrix
        The matrix of the product.
    frontier_edges : int
        The out-edges of the frontier (the entries a push reads).

    Returns
    -------
    bool

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> pull_cheaper(sp.csr_array(sp.eye(3)), 3)
    False
    """
    if distributed(A) is not None:  # each rank chooses push or pull for its own blocks
        return False
    M = Matrix.from_any(A)
    prefers = optional_primitive(backend_for(M.xp), "prefers_pull")
    return prefers is not None and prefers(M.nnz, int(frontier_edges))


def push(M, x, semiring, mask, complement, dtype) -> Vector:
    """Unchecked push (SpMSpV) on a prepared Matrix and sparse Vector."""
    idx, val = backend_for(M.xp).spmspv(M.indptr, M.indices, _values(M, semiring), M.ncols,
                                        x.indices, x.values, semiring, mask, complement, dtype)
    return Vector(M.ncols, "sparse", indices=idx, values=semiring.monoid.truths(val))


def pull(M, x, semiring, mask, complement, dtype) -> Vector:
    """Unchecked pull (masked SpMV) on a prepared Matrix and bitmap Vector."""
    T = M.T
    present, val = backend_for(M.xp).spmv(T.indptr, T.indices, _values(T, semiring), x.present,
                                          x.values,
                                          semiring, mask, complement, dtype)
    return Vector(M.ncols, "bitmap", present=present, values=semiring.monoid.truths(val))
