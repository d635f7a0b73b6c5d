"""The quotient of a matrix by a labelling of its vertices: ``quotient``.

``P.T A P`` for the one-hot ``P`` of the labels (``P[i, labels[i]] = 1``): each label's rows
and columns merged into one, the values of the entries that meet added.  Louvain's and
Leiden's next level is this graph of communities.  The generic path is those two
``mxm``; a backend with a ``quotient`` primitive merges the entries in one pass (the CPU:
rows grouped by label, each group's columns totalled in a dense array).
"""

from __future__ import annotations

import numpy as np

from ..core.arrays import array_module
from ..core.seam import optional_primitive
from ..core.validation import check_integer
from ._backend import backend_for
from ._matrix import Matrix
from ._named import plus_times
from ._products import mxm

__all__ = ["quotient"]


def quotient(A, labels, k):
    """``P.T A P`` over ``plus_times``, ``P`` the ``n x k`` one-hot matrix of ``labels``.

    Parameters
    ----------
    A : scipy/cupyx sparse matrix, 2-D array or Matrix
        Square, ``n x n``, numeric values.
    labels : 1-D integer array, length ``n``
        Each vertex's label, in ``0 .. k-1``.
    k : int
        The number of labels: the result is ``k x k``.

    Returns
    -------
    Matrix
        Canonical, float64 values: entry ``(a, b)`` the sum of ``A[i, j]`` over ``i``
        labelled ``a`` and ``j`` labelled ``b`` (stored where some entry of ``A`` meets it).

    Raises
    ------
    ValueError, TypeError
        ``A`` not square, ``labels`` of the wrong length, kind or device, or a label
        outside ``0 .. k-1``.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs import semiring
    >>> A = sp.csr_array(np.array([[0, 1.0, 2.0], [1.0, 0, 0], [2.0, 0, 5.0]]))
    >>> semiring.quotient(A, np.array([0, 0, 1]), 2).to_scipy().toarray()
    array([[2., 2.],
           [2., 5.]])
    """
    M = Matrix.from_any(A, name="A")
    xp, n = M.xp, M.nrows
    if M.ncols != n:
        raise ValueError(f"A must be square, got shape {M.shape}")
    k = check_integer(k, "k", minimum=0)
    if array_module(labels) is not xp:
        raise TypeError("labels must live on the same device as A")
    if labels.ndim != 1 or labels.shape[0] != n:
        raise ValueError(f"labels must be a 1-D array of length {n}, got shape "
                         f"{labels.shape}")
    if labels.dtype.kind not in "iu":
        raise TypeError(f"labels must be of an integer dtype, got {labels.dtype}")
    labels = labels.astype(np.int64, copy=False)
    if n and (int(labels.min()) < 0 or int(labels.max()) >= k):
        raise ValueError(f"labels must lie in [0, {k})")
    data = M.data.astype(np.float64, copy=False)
    kernel = optional_primitive(backend_for(xp), "quotient")
    if kernel is not None:
        indptr, indices, values = kernel(M.indptr, M.indices, data, labels, k)
        return Matrix(indptr, indices, values, k, canonical=True, check=False)
    P = Matrix(xp.arange(n + 1, dtype=np.int64), labels, xp.ones(n, np.float64), n, ncols=k,
               canonical=True, check=False)
    # a product's rows may come unsorted (its kernels' threads): the result is canonical
    return mxm(mxm(P.T, M.with_values(data), plus_times), P, plus_times).canonical()
