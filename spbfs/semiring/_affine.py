"""The affine pull: ``y = alpha * ((x * scale) @ A) + constant`` over ``plus_first`` or
``plus_times``, with the step's L1 change and totals (PageRank's iteration as one operation).

The generic path is one ``vxm`` and whole-array updates; a backend with a ``pull_affine``
primitive (the CPU: :mod:`spbfs.cpu.rank`) does the step in one pass over the transpose,
writing the next step's scaled vector as it goes, and offers a Gauss-Seidel sweep.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..core.seam import optional_primitive
from ..core.validation import check_choice
from ._backend import backend_for
from ._dispatch import distributed
from ._matrix import Matrix
from ._named import monoids
from ._optypes import Semiring
from ._vxm import vxm

__all__ = ["AffineStep", "pull_affine"]

_SWEEPS = ("jacobi", "gauss-seidel")


class AffineStep(NamedTuple):
    """One :func:`pull_affine` step: the new vector, it times ``scale`` (the next step's
    ``scaled``), and three totals as Python floats.

    Examples
    --------
    >>> AffineStep(None, None, 0.5, 1.0, 0.0).change
    0.5
    """

    #: ``alpha * ((x * scale) @ A) + constant``
    y: object
    #: ``y * scale``
    scaled: object
    #: ``sum |y - x|``
    change: float
    #: ``sum y``
    total: float
    #: ``sum y[j]`` over the ``j`` whose ``scale[j]`` is zero
    zero_scale_total: float


def pull_affine(x, A, semiring, *, scale, alpha=1.0, constant=0.0, scaled=None, out=None,
                sweep="jacobi"):
    """One step ``y = alpha * ((x * scale) @ A) + constant`` of a square ``A``, with its L1
    change, as PageRank's iteration.

    ``y[j] = alpha * sum_i x[i] scale[i] A[i, j] + constant[j]`` over ``plus_times``
    (``plus_first``: ``A``'s values not read, every entry weighs 1); a ``j`` with no
    in-entry gets ``constant[j]``.

    Parameters
    ----------
    x : 1-D float64 array of n
        The current vector (full).
    A : square sparse matrix/array or Matrix
        ``A[i, j]`` stored: an edge ``i -> j``; float64 values for ``plus_times``.
    semiring : Semiring
        ``plus_times`` or ``plus_first`` (``Semiring(monoids.plus, ops.first)``).
    scale : 1-D float64 array of n
        Multiplies ``x`` before the product (PageRank: one over each out-weight, 0 where
        there is none).
    alpha : float
        Multiplies the product.
    constant : float or 1-D float64 array of n
        Added to every entry.
    scaled : 1-D float64 array of n, optional
        ``x * scale`` when the caller has it (the previous step's ``scaled``).
    out : pair of 1-D float64 arrays of n, optional
        Where ``y`` and ``y * scale`` are written, on a backend that writes in place (the
        CPU); neither may be ``x`` or ``scaled``.
    sweep : {"jacobi", "gauss-seidel"}
        "gauss-seidel": a row reads the values this step already wrote for the rows
        before it in its block of rows (on the CPU, blocks of ``2**14`` rows, the same on
        any number of threads; GAP's pull PageRank reads them wherever another thread has
        written them); such a step converges to the same fixed point, usually in fewer
        steps.  A backend without it (the GPU, ranks) takes the Jacobi step.

    Returns
    -------
    AffineStep
        ``(y, scaled, change, total, zero_scale_total)``.

    Examples
    --------
    PageRank's step on a 3-cycle with a chord (every vertex has out-edges):

    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs import semiring
    >>> A = sp.csr_array(np.array([[0, 1.0, 1.0], [0, 0, 1.0], [1.0, 0, 0]]))
    >>> x = np.full(3, 1 / 3); inv = np.array([0.5, 1.0, 1.0])
    >>> step = semiring.pull_affine(x, A, semiring.plus_times, scale=inv, alpha=0.85,
    ...                             constant=0.05)
    >>> step.y.round(4), round(step.change, 4), round(step.total, 4)
    (array([0.3333, 0.1917, 0.475 ]), 0.2833, 1.0)
    """
    if not isinstance(semiring, Semiring):
        raise TypeError(f"semiring must be a Semiring, got {type(semiring).__name__}")
    check_choice(sweep, "sweep", _SWEEPS)
    if distributed(A, x) is None:
        M = Matrix.from_any(A)
        if M.nrows != M.ncols:
            raise ValueError(f"A must be square, got shape {M.shape}")
        step = _backend_step(M, x, semiring, scale, alpha, constant, scaled, out, sweep)
        if step is not None:
            return step
    return _generic_step(x, A, semiring, scale, alpha, constant, scaled)


def _served(M, x, semiring):
    """Whether a backend's ``pull_affine`` computes this product: float64 throughout,
    ``plus`` with ``first`` or ``times``."""
    multiply = semiring.multiply.c_expr
    return (semiring.monoid is monoids.plus and multiply in ("x", "(x * a)")
            and x.dtype == np.float64 and (multiply == "x" or M.dtype == np.float64))


def _backend_step(M, x, semiring, scale, alpha, constant, scaled, out, sweep):
    """The step by the backend's ``pull_affine``, or None where it has none."""
    kernel = optional_primitive(backend_for(M.xp), "pull_affine")
    if kernel is None or not _served(M, x, semiring):
        return None
    xp = M.xp
    if scaled is None:
        scaled = xp.multiply(x, scale)
    y, y_scaled = out if out is not None else (xp.empty(M.n), xp.empty(M.n))
    T = M.T
    tdata = T.data if semiring.multiply.c_expr != "x" else None
    change, total, zero = kernel(T.indptr, T.indices, tdata, scaled, x, scale, float(alpha),
                                 constant, y, y_scaled, sweep == "gauss-seidel",
                                 derived=T.pattern.derived)
    return AffineStep(y, y_scaled, change, total, zero)


def _generic_step(x, A, semiring, scale, alpha, constant, scaled):
    """The step as one ``vxm`` and whole-array updates (any backend, ranks)."""
    xp = A.xp if isinstance(A, Matrix) or distributed(A) is not None else (
        Matrix.from_any(A).xp)
    if scaled is None:
        scaled = xp.multiply(x, scale)
    y = vxm(scaled, A, semiring).to_dense(0.0)
    xp.multiply(y, alpha, out=y)
    xp.add(y, constant, out=y)
    change = float(xp.abs(xp.subtract(y, x)).sum())
    total = float(y.sum())
    zero = float(xp.multiply(y, (scale == 0).astype(np.float64)).sum())
    return AffineStep(y, xp.multiply(y, scale), change, total, zero)
