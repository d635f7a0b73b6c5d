"""Spectral centralities: eigenvector and Katz as power iterations (one ``plus_times`` product
of the adjacency matrix or its transpose with a dense vector per step, whole-array updates
otherwise), HITS by restarted Lanczos as NetworkX's ARPACK call, with NetworkX's update
rules and stopping tests."""

from __future__ import annotations

import math
import numbers

import numpy as np

from ..core.validation import check_integer, check_number
from ..semiring import monoids, mxv, plus_times, reduce
from ._shared import prepare
from .pagerank import PowerIterationFailedConvergence

__all__ = ["eigenvector_centrality", "hits", "katz_centrality"]


def _weighted(A, weight):
    """The canonical matrix with float64 values (all ones when ``weight`` is False)."""
    M = prepare(A).canonical()
    if not weight:
        return M.unit(np.float64)
    if M.dtype.kind not in "biuf":
        raise TypeError(f"A must have numeric weights, got {M.dtype}")
    M = M.astype(np.float64)
    if M.nnz and not math.isfinite(float(reduce(M, monoids.plus))):  # NaN or inf somewhere
        raise ValueError("A has NaN or infinite weights")
    return M


def _times(M, x):
    """``M @ x`` for a dense vector ``x`` (zero where no edge leaves)."""
    return mxv(M, x, plus_times).to_dense(0.0)


def _norm(x, xp):
    """The L2 norm of a vector, a float (every array module's and a distributed graph's);
    a sum of squares that overflows or underflows is taken again over ``x`` divided by its
    largest magnitude, as ``math.hypot`` (NetworkX's norm) scales."""
    with np.errstate(over="ignore", under="ignore"):
        squares = float((x * x).sum())
    if 0.0 < squares < math.inf or squares != squares:
        return math.sqrt(squares)
    largest = float(abs(x).max()) if x.size else 0.0
    if not 0.0 < largest < math.inf:
        return math.sqrt(squares) if largest == 0.0 else largest
    y = x / largest
    return largest * math.sqrt(float((y * y).sum()))


def _check_iterations(max_iter, tol):
    check_integer(max_iter, "max_iter")
    if not isinstance(tol, numbers.Real) or not tol >= 0:
        raise ValueError(f"tol must be a non-negative number, got {tol!r}")


def _vector(v, n, name, xp, default):
    if v is None:
        return xp.full(n, check_number(default, name))
    try:
        arr = xp.asarray(v, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a number or a 1-D array of {n} numbers, got "
                        f"{type(v).__name__}") from None
    if arr.shape != (n,):
        raise ValueError(f"{name} must be a 1-D array of {n} values, got shape {arr.shape}")
    return arr


def eigenvector_centrality(A, max_iter=100, tol=1.0e-6, nstart=None, weight=False):
    """Eigenvector centrality (of in-edges), as ``networkx.eigenvector_centrality``.

    The power iteration on ``A.T + I``: ``x <- (A.T @ x + x) / ||A.T @ x + x||_2`` from
    ``nstart / sum(nstart)`` until the L1 change is below ``n * tol``.

    Parameters
    ----------
    A : scipy.sparse / cupyx.scipy.sparse matrix or array, 2-D array, or Matrix
        ``A[i, j]`` stored is an edge ``i -> j`` (duplicates summed).
    max_iter : int
    tol : float
    nstart : 1-D array of n floats, optional
        Starting vector (not all zero).  Default all ones.
    weight : bool
        True: the stored values are the weights; False: every edge weighs 1.

    Returns
    -------
    ndarray of float64
        Unit L2 norm.

    Raises
    ------
    ValueError
        ``A`` not square or empty, ``nstart`` all zero or of the wrong shape.
    PowerIterationFailedConvergence
        No convergence in ``max_iter`` iterations.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs.algorithms.centrality_spectral import eigenvector_centrality
    >>> A = sp.csr_array(np.array([[0, 1, 1], [1, 0, 0], [1, 0, 0]]))
    >>> eigenvector_centrality(A).round(4)
    array([0.7071, 0.5   , 0.5   ])
    """
    _check_iterations(max_iter, tol)
    M = _weighted(A, weight)
    xp, n = M.xp, M.n
    if n == 0:
        raise ValueError("eigenvector centrality of a graph without vertices is undefined")
    x = _vector(nstart, n, "nstart", xp, 1.0)
    if not bool((x != 0).any()):
        raise ValueError("nstart cannot have all zero values")
    x = x / x.sum()
    MT = M.T
    for _ in range(max_iter):
        last = x
        x = _times(MT, last) + last
        norm = _norm(x, xp) or 1.0
        x = x / norm
        if float(xp.abs(x - last).sum()) < n * tol:
            return x
    raise PowerIterationFailedConvergence(max_iter)


def katz_centrality(A, alpha=0.1, beta=1.0, max_iter=1000, tol=1.0e-6, nstart=None,
                    normalized=True, weight=False):
    """Katz centrality, as ``networkx.katz_centrality``: ``x <- alpha * A.T @ x + beta``.

    Parameters
    ----------
    A : scipy.sparse / cupyx.scipy.sparse matrix or array, 2-D array, or Matrix
    alpha : float
        Attenuation factor.
    beta : float or 1-D array of n floats
    max_iter : int
    tol : float
        Stop when the L1 change is below ``n * tol``.
    nstart : 1-D array of n floats, optional
        Starting vector (default zeros).
    normalized : bool
        Divide by the L2 norm at the end.
    weight : bool
        True: the stored values are the weights.

    Returns
    -------
    ndarray of float64
        Empty for a graph without vertices (NetworkX's empty dict).

    Raises
    ------
    PowerIterationFailedConvergence
        No convergence in ``max_iter`` iterations.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs.algorithms.centrality_spectral import katz_centrality
    >>> A = sp.csr_array(np.array([[0, 1, 1], [1, 0, 0], [1, 0, 0]]))
    >>> katz_centrality(A).round(4)
    array([0.6108, 0.5599, 0.5599])
    """
    _check_iterations(max_iter, tol)
    M = _weighted(A, weight)
    xp, n = M.xp, M.n
    x = _vector(nstart, n, "nstart", xp, 0.0)
    b = _vector(None if np.ndim(beta) == 0 else beta, n, "beta", xp,
                beta if np.ndim(beta) == 0 else 0.0)
    if n == 0:  # the null graph: nothing to iterate (NetworkX's empty dict)
        return x
    MT = M.T
    for _ in range(max_iter):
        last = x
        x = alpha * _times(MT, last) + b
        if float(xp.abs(x - last).sum()) < n * tol:
            if normalized:
                norm = _norm(x, xp)
                if norm:
                    x = x / norm
            return x
    raise PowerIterationFailedConvergence(max_iter)


#: Lanczos vectors per restart of :func:`hits` (at most ``n``): ARPACK's ``ncv`` for one
#: singular triple, as NetworkX's ``svds`` call builds.
LANCZOS_VECTORS = 20


def hits(A, max_iter=100, tol=1.0e-8, nstart=None, normalized=True, weight=True):
    """Hubs and authorities, as ``networkx.hits``: the leading right singular vector ``a``
    of ``A`` (the leading eigenvector of ``A.T @ A``) by restarted Lanczos, as NetworkX's
    ARPACK ``svds``: each restart builds ``min(n, 20)`` Lanczos vectors from the last Ritz
    vector (one ``A @ x`` and one ``A.T @ y`` product each, reorthogonalised in full), until
    the Ritz value's residual is at most ``tol`` times it; then one power step more (exact
    zeros where no edge enters) and ``h = A @ a``.

    Parameters
    ----------
    A : scipy.sparse / cupyx.scipy.sparse matrix or array, 2-D array, or Matrix
    max_iter : int
        Most restarts (NetworkX's ``maxiter`` of ARPACK).
    tol : float
        Relative accuracy of the leading singular value (ARPACK's ``tol``).
    nstart : 1-D array of n floats, optional
        Starting authorities (default uniform), not all zero.  A start with nothing
        along the leading vector goes on from a fresh vector once its Krylov space
        closes, as ARPACK does.
    normalized : bool
        Scale both to sum 1; else ``a`` has unit L2 norm and ``h = A @ a``.
    weight : bool
        True: the stored values are the weights.

    Returns
    -------
    hubs, authorities : ndarray of float64
        Empty for a graph without vertices.  Where the two largest singular values are
        equal the vectors are not unique, and NetworkX may pick another.

    Raises
    ------
    PowerIterationFailedConvergence
        No convergence in ``max_iter`` restarts.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs.algorithms.centrality_spectral import hits
    >>> h, a = hits(sp.csr_array(np.array([[0, 1, 1], [0, 0, 1], [0, 0, 0]])))
    >>> h.round(4), a.round(4)
    (array([0.618, 0.382, 0.   ]), array([0.   , 0.382, 0.618]))
    """
    _check_iterations(max_iter, tol)
    M = _weighted(A, weight)
    xp, n = M.xp, M.n
    if n == 0:
        return xp.zeros(0), xp.zeros(0)
    if max_iter <= 0:
        raise PowerIterationFailedConvergence(max_iter)
    a = _vector(nstart, n, "nstart", xp, 1.0)
    if _norm(a, xp) == 0:   # NetworkX's ARPACK raises too
        raise ValueError("nstart must have a nonzero entry")
    MT = M.T
    lowest, largest = ((float(reduce(M, monoids.min)), float(reduce(M, monoids.max)))
                       if M.nnz else (0.0, 0.0))
    # A.T @ A over the largest weight's square: the same vectors, and no product overflows
    # or underflows where the weights are near the floats' limits
    scale = max(abs(lowest), abs(largest)) or 1.0

    def normal(x):
        return _times(MT, _times(M, x / scale)) / scale

    for _ in range(max_iter):
        a, converged = _lanczos_restart(normal, a, tol, xp)
        if converged:
            break
    else:
        raise PowerIterationFailedConvergence(max_iter)
    if lowest >= 0:
        # A.T @ A is non-negative: |a| is a leading eigenvector as a is (its Rayleigh
        # quotient is no smaller).  Where the leading value is tied (a bipartite graph, a
        # graph of equal parts) the Ritz vector may mix signs and sum to about 0, which
        # the normalisation divides by; |a| is the non-negative one NetworkX's answers are
        a = abs(a)
    elif float(a.sum()) < 0:
        a = -a
    # one power step more: a vertex no edge enters gets exactly 0 (the Ritz vector's
    # rounding left -1e-17 there), the others move by less than the tolerance
    a = normal(a)
    norm = _norm(a, xp)
    a = a / norm if norm else a
    h = _times(M, a)
    if normalized:
        hs, as_ = float(h.sum()), float(a.sum())
        return h / (hs or 1.0), a / (as_ or 1.0)
    return h, a


def _fresh_orthogonal(V, n, xp):
    """``(w, |w|)``: a fixed spread vector made orthogonal to the orthonormal ``V`` (twice,
    for rounding), or ``(None, 0.0)`` where nothing of it is left."""
    k = xp.arange(n).astype(np.float64)
    w = (k * 0.6180339887498949 + 0.3819660112501051 * len(V)) % 1.0 - 0.5
    w = _orthogonalised(_orthogonalised(w, V), V)
    beta = _norm(w, xp)
    return (w, beta) if beta > 1e-8 * math.sqrt(n) else (None, 0.0)


def _orthogonalised(w, V):
    """``w`` less its parts along the orthonormal vectors ``V`` (one Gram-Schmidt pass)."""
    for c, u in [((u * w).sum(), u) for u in V]:
        w = w - c * u
    return w


def _lanczos_restart(B, v, tol, xp):
    """One restart of Lanczos on the symmetric positive semi-definite map ``B`` from ``v``:
    orthonormal vectors (a list of arrays: a distributed graph's arrays are one vector
    each) until the leading Ritz value's residual ``|beta_j s_j|`` is at most ``tol``
    times it or ``min(n, LANCZOS_VECTORS)`` are built; returns the leading Ritz vector
    (unit L2 norm) and whether it converged.  A Krylov space that closes (``beta``
    vanishing) goes on from a fresh vector orthogonal to it, as ARPACK restarts (a start
    with nothing along the leading vector found a smaller one), and then fills its basis
    before it takes a Ritz pair (the closed block's exact pair passed the residual test);
    the whole space spanned, the answer is exact.  ``B = 0`` on it gives the zero vector,
    as a power iteration's."""
    norm = _norm(v, xp)
    if norm == 0:
        return v, True
    n = int(v.shape[0])
    steps = min(n, LANCZOS_VECTORS)
    V = [v / norm]
    alphas, betas = [], []
    deflated = False   # a block closed: every vector is built before a Ritz pair is taken
    while True:
        w = B(V[-1])
        alphas.append(float((V[-1] * w).sum()))
        before = _norm(w, xp)
        for _ in range(2):   # full reorthogonalisation, again where it cancelled (DGKS)
            w = _orthogonalised(w, V)
            beta = _norm(w, xp)
            if beta > 0.7071 * before:
                break
            before = beta
        m = len(alphas)
        T = np.diag(alphas) + np.diag(betas, 1) + np.diag(betas, -1)
        values, vectors = np.linalg.eigh(T)
        theta, s = float(values[-1]), vectors[:, -1]
        closed = beta <= 1e-14 * max(abs(theta), abs(alphas[0]), 1e-300)
        fresh = False
        if closed and m < steps:   # a new block of T, its coupling zero
            w, beta = _fresh_orthogonal(V, n, xp)
            fresh = w is not None
            closed = not fresh   # V spans the whole space
            deflated = deflated or fresh
        small = abs(beta * float(s[-1])) <= tol * theta
        converged = closed or (small and not fresh and (not deflated or m == steps))
        if converged or m == steps:
            break
        betas.append(0.0 if fresh else beta)
        V.append(w / beta)
    if theta <= 0:   # B is zero on the space spanned: the power iteration's zero vector
        return xp.zeros_like(v), True
    ritz = sum(float(c) * u for c, u in zip(s, V, strict=True))
    return ritz / _norm(ritz, xp), converged
