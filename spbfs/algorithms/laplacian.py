"""The graph Laplacian, as ``scipy.sparse.csgraph.laplacian``: every option (``normed``,
``use_out_degree``, ``symmetrized``, ``form='array'|'function'|'lo'``, ``copy``, ``dtype``).

The degrees of a sparse graph are the row sums of a ``plus`` :func:`spbfs.semiring.reduce`
(out-degree) or the column sums of ones times the graph over ``plus_times`` (in-degree; no
transpose is built) (on the host for dtypes the kernels lack: complex,
``longdouble``); the Laplacian is then the graph's entries negated (and scaled by the
inverse square roots of the degrees when ``normed``) with the degrees on the diagonal, in the
form scipy returns: a COO matrix or array for sparse input (the same object, modified, when
``copy=False`` and the input is COO, as scipy's), a dense array for dense input (the input
itself, modified, when ``copy=False``), or a function / ``LinearOperator`` computing
``L @ v`` without forming ``L``.  CPU only (scipy and numpy arrays).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..semiring import Matrix, Vector, monoids, plus_times, reduce, vxm

__all__ = ["laplacian"]

_FORMS = ("array", "function", "lo")


def laplacian(csgraph, normed=False, return_diag=False, use_out_degree=False, *, copy=True,
              form="array", dtype=None, symmetrized=False):
    """The Laplacian matrix of a directed graph, as ``scipy.sparse.csgraph.laplacian``.

    ``L = D - A`` with ``D`` the diagonal of in-degrees (column sums; out-degrees, row
    sums, with ``use_out_degree``) not counting self-loops; ``normed``: ``D^-1/2 L D^-1/2``
    (isolated vertices scaled by 1); ``symmetrized``: the Laplacian of ``A + A.T``.

    Parameters
    ----------
    csgraph : array_like or sparse array or matrix, shape (N, N)
    normed : bool
    return_diag : bool
        Also return the degrees (the scaling factors when ``normed``).
    use_out_degree : bool
    copy : bool
        False: a dense or COO input is overwritten with the result (as scipy).
    form : {"array", "function", "lo"}
    dtype : dtype, optional
        Of the result; the input's (float64 for integer input when ``normed``) if None.
    symmetrized : bool

    Returns
    -------
    lap : ndarray, sparse COO array/matrix, function or LinearOperator
    diag : ndarray, optional

    Raises
    ------
    ValueError
        A non-square or non-2-D input, or an unknown ``form``.

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs import csgraph
    >>> G = np.array([[0, 1, 1], [1, 0, 1], [1, 1, 0]])
    >>> csgraph.laplacian(G)
    array([[ 2, -1, -1],
           [-1,  2, -1],
           [-1, -1,  2]])
    >>> L, d = csgraph.laplacian(G, normed=True, return_diag=True)
    >>> d
    array([1.41421356, 1.41421356, 1.41421356])
    >>> L = csgraph.laplacian(G.astype(float), form="function")
    >>> L(np.ones((3, 1))).ravel()
    array([0., 0., 0.])
    """
    if csgraph.ndim != 2 or csgraph.shape[0] != csgraph.shape[1]:
        raise ValueError("csgraph must be a square matrix or array")
    if normed and (np.issubdtype(csgraph.dtype, np.signedinteger)
                   or np.issubdtype(csgraph.dtype, np.uint)):
        csgraph = csgraph.astype(np.float64)
    axis = 1 if use_out_degree else 0
    sparse = sp.issparse(csgraph)
    if form == "array":
        build = _sparse if sparse else _dense
    else:
        build = _sparse_function if sparse else _dense_function
    lap, d = build(csgraph, normed, axis, copy, form, dtype, symmetrized)
    return (lap, d) if return_diag else lap


def _sums(m, axis):
    """Row (axis 1) or column (axis 0) sums of a sparse matrix as a dense host array: a
    ``plus`` reduce where the kernels hold the dtype; scipy's own ``sum`` for integer or
    bool values with repeated entries (it widens each before adding: two True count 2,
    where the matrix's own value, their sum in its dtype, is True)."""
    dt = m.dtype
    repeated = dt.kind in "iub" and not getattr(m, "has_canonical_format", True)
    if not repeated and (dt.kind in "iub" or dt in (np.float32, np.float64)):
        acc = np.result_type(dt, np.int_) if dt.kind in "iub" else dt
        M = Matrix.from_any(m.tocsr() if m.format != "csr" else m)
        if axis == 0:  # column sums: ones pushed through the rows (no transpose built)
            y = vxm(Vector.full(np.ones(m.shape[0], acc)), M, plus_times, dtype=acc)
            return np.where(y.present, y.values, 0).astype(acc, copy=False)
        v = reduce(M, monoids.plus, axis=1, dtype=acc)
        out = np.zeros(m.shape[0], dtype=acc)
        out[np.asarray(v.indices)] = v.values
        return out
    return np.asarray(m.sum(axis=axis)).ravel()


def _apply(m, d):
    return lambda v: v * d[:, np.newaxis] - m @ v


def _apply_normed(m, d, nd):
    lap = _apply(m, d)
    return lambda v: nd[:, np.newaxis] * lap(v * nd[:, np.newaxis])


def _apply_sym(m, d):
    return (lambda v: v * d[:, np.newaxis] - m @ v
            - np.transpose(np.conjugate(np.transpose(np.conjugate(v)) @ m)))


def _apply_normed_sym(m, d, nd):
    lap = _apply_sym(m, d)
    return lambda v: nd[:, np.newaxis] * lap(v * nd[:, np.newaxis])


def _function(md, form, shape, dtype, diag):
    if form == "function":
        return md, diag.astype(dtype, copy=False)
    if form == "lo":
        from scipy.sparse.linalg import LinearOperator

        return (LinearOperator(matvec=md, matmat=md, shape=shape, dtype=dtype),
                diag.astype(dtype, copy=False))
    raise ValueError(f"Invalid form: {form!r}")


def _flo(graph, sums, diagonal, normed, axis, form, dtype, symmetrized):
    """The function forms from the degree sums (``sums(axis)``) and the diagonal."""
    total = sums(axis)
    diag = total - diagonal
    if symmetrized:
        total = total + sums(1 - axis)
        diag = total - diagonal - diagonal
    if normed:
        isolated = diag == 0
        w = np.where(isolated, 1, np.sqrt(diag))
        make = _apply_normed_sym if symmetrized else _apply_normed
        return _function(make(graph, total, 1.0 / w), form, graph.shape, dtype, w)
    make = _apply_sym if symmetrized else _apply
    return _function(make(graph, total), form, graph.shape, dtype, diag)


def _sparse_function(graph, normed, axis, copy, form, dtype, symmetrized):
    dtype = graph.dtype if dtype is None else dtype
    return _flo(graph, lambda a: _sums(graph, a), graph.diagonal(), normed, axis, form,
                dtype, symmetrized)


def _dense_function(graph, normed, axis, copy, form, dtype, symmetrized):
    m = np.array(graph) if copy else np.asarray(graph)
    dtype = m.dtype if dtype is None else dtype
    return _flo(m, lambda a: m.sum(axis=a), m.diagonal(), normed, axis, form, dtype,
                symmetrized)


def _sparse(graph, normed, axis, copy, form, dtype, symmetrized):
    dtype = graph.dtype if dtype is None else dtype
    needs_copy = False
    if graph.format in ("lil", "dok"):
        m = graph.tocoo()
    else:
        m = graph
        needs_copy = bool(copy)
    if symmetrized:
        m = m + m.T.conj()
    w = _sums(m, axis) - m.diagonal()
    if normed:
        m = m.tocoo(copy=needs_copy)
        isolated = w == 0
        w = np.where(isolated, 1, np.sqrt(w))
        m.data /= w[m.row]
        m.data /= w[m.col]
        m.data *= -1
        m.setdiag(1 - isolated)
    else:
        m = m.copy() if m.format == "dia" else m.tocoo(copy=needs_copy)
        m.data *= -1
        m.setdiag(w)
    return m.astype(dtype, copy=False), w.astype(dtype)


def _dense(graph, normed, axis, copy, form, dtype, symmetrized):
    if form != "array":
        raise ValueError(f'{form!r} must be "array"')
    dtype = graph.dtype if dtype is None else dtype
    m = np.array(graph) if copy else np.asarray(graph)
    if symmetrized:
        m += m.T.conj()
    np.fill_diagonal(m, 0)
    w = m.sum(axis=axis)
    if normed:
        isolated = w == 0
        w = np.where(isolated, 1, np.sqrt(w))
        m /= w
        m /= w[:, np.newaxis]
        m *= -1
        m.flat[::len(w) + 1] = 1 - isolated
    else:
        m *= -1
        m.flat[::len(w) + 1] = w
    return m.astype(dtype, copy=False), w.astype(dtype, copy=False)
