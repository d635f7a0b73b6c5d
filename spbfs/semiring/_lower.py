"""The strict lower triangle of a renumbered pattern (``lower_pattern``): the degree-ordered
graph of triangle counting, made in one pass where the generic path renumbers the whole
matrix and selects half of it."""

from __future__ import annotations

from ..core.seam import optional_primitive
from ._backend import backend_for
from ._extract import _index_array, extract
from ._masks import _as_matrix
from ._matrix import Matrix
from ._transform import select

__all__ = ["lower_pattern"]


def lower_pattern(A, order, dtype=bool):
    """The strict lower triangle of the pattern of ``A[order][:, order]`` (``order[i]``: the
    vertex numbered ``i``): entry ``(i, k)`` for each ``k < i`` whose vertices ``order[i]``
    and ``order[k]`` are joined, each row sorted, every stored value 1 of ``dtype``.

    Parameters
    ----------
    A : scipy/cupyx sparse matrix, 2-D array or Matrix
        Square; its pattern is read (a duplicated position once).
    order : 1-D integer array
        A permutation of ``A``'s rows.
    dtype : dtype
        Of the stored ones (int32 lets ``plus_pair`` products count in it).

    Returns
    -------
    Matrix

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs import semiring
    >>> A = sp.csr_array(np.array([[0, 1, 1], [1, 0, 0], [1, 0, 0]]))   # 1 - 0 - 2
    >>> semiring.lower_pattern(A, np.array([2, 1, 0]), np.int32).to_scipy().toarray()
    array([[0, 0, 0],
           [0, 0, 0],
           [1, 1, 0]], dtype=int32)
    """
    M = _as_matrix(A, "A").canonical()
    xp, n = M.xp, M.nrows
    if M.ncols != n:
        raise ValueError(f"A must be square, got shape {M.shape}")
    order = _index_array(order, n, "order", xp)
    if order.size != n:
        raise ValueError(f"order must be a permutation of A's {n} rows, got {order.size} ids")
    kernel = optional_primitive(backend_for(xp), "csr_lower_permuted")
    found = kernel(M.indptr, M.indices, order) if kernel is not None else None
    if found is None:
        if int(xp.unique(order).size) != n:
            raise ValueError("order must be a permutation of A's rows")
        P = Matrix(M.indptr, M.indices, xp.ones(M.nnz, dtype), n, check=False)
        return select(extract(P, order, order), "tril", -1)
    indptr, indices = found
    return Matrix(indptr, indices, xp.ones(int(indices.size), dtype), n, check=False)
