"""Shortest distances by buckets: the ``min_plus`` fixpoint from a set of sources, the lowest
bucket of distances relaxed first (Meyer and Sanders' delta-stepping).

The generic path pushes each bucket's improved vertices through a masked ``vxm`` over
``min_plus`` per round and keeps the buckets' lists in numpy; a backend with a
``delta_stepping`` primitive (the CPU: :mod:`spbfs.cpu.delta`) runs every round in its own
kernels, with per-thread bins and no array made per round.
"""

from __future__ import annotations

import math

import numpy as np

from ..core.arrays import to_numpy
from ..core.seam import optional_primitive
from ._backend import backend_for
from ._matrix import Matrix
from ._named import min_plus, monoids
from ._transform import reduce
from ._vector import Vector
from ._vxm import vxm

__all__ = ["checked_weights", "relax_buckets"]

#: The errors of a negative and of a NaN weight (the CPU's kernel raises the same).
NEGATIVE = "A has negative weights; shortest paths need non-negative weights"
NAN = "A has NaN weights; shortest paths need numbers"
#: What the ``delta_stepping`` primitive returns for a negative weight (-2: a NaN weight).
BAD_NEGATIVE = -1


def relax_buckets(A, sources, delta):
    """Shortest distances from ``sources`` over non-negative weights, bucket by bucket.

    The fixpoint of ``d = min(d, d (min.+) A)`` from ``d = 0`` at the sources and ``inf``
    elsewhere: ``d[j]`` is the least sum of weights over the paths from a source to ``j``.
    Vertices are relaxed in buckets of distances ``delta`` wide, the lowest first, so most
    are pushed once (a frontier Bellman-Ford pushes each about three times on a Kronecker
    graph with random weights); ``delta`` changes the work, never the answer.

    Parameters
    ----------
    A : square sparse matrix/array or Matrix (CPU or GPU)
        ``A[i, j]`` stored is an edge ``i -> j`` of weight ``A[i, j]``: numbers, not
        negative (checked: the CPU's kernel in the pass that finds the largest weight,
        else :func:`checked_weights`); a duplicate edge is one more edge (the least weight
        counts).
    sources : 1-D int array
        The vertices at distance 0.
    delta : float
        The buckets' width (positive).  A backend may take another: the CPU's kernels an
        eighth of it below 8 threads and a half from 8 (their rounds cost little, and
        narrower buckets scan fewer edges again), or a wider one where the weights would
        span too many buckets.

    Returns
    -------
    ndarray of float64
        ``inf`` where no source reaches.

    Raises
    ------
    TypeError
        ``A``'s values are not numbers.
    ValueError
        A weight is negative or NaN, or ``delta`` is not positive and finite.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs import semiring
    >>> A = sp.csr_array(np.array([[0, 4.0, 1.0], [0, 0, 0], [0, 2.0, 0]]))
    >>> semiring.relax_buckets(A, np.array([0]), 1.0)
    array([0., 3., 1.])
    """
    M = Matrix.from_any(A)
    xp, n = M.xp, M.n
    if not (delta > 0 and math.isfinite(delta)):
        raise ValueError(f"delta must be positive and finite, got {delta!r}")
    sources = xp.asarray(sources, dtype=np.int64)
    kernel = optional_primitive(backend_for(xp), "delta_stepping")
    if kernel is not None and M.dtype == np.float64:
        dist = xp.empty(n)
        rounds = kernel(M.indptr, M.indices, M.data, sources, float(delta), dist)
        if rounds < 0:  # the kernel's pass over the weights found a bad one
            raise ValueError(NEGATIVE if rounds == BAD_NEGATIVE else NAN)
        return dist
    M = checked_weights(M)
    dist = xp.full(n, np.inf)
    dist[sources] = 0.0
    return _rounds(M, xp.unique(sources), dist, float(delta))


def checked_weights(M):
    """``M`` with float64 values, after checking they are numbers (TypeError) and not
    negative nor NaN (ValueError): one pass of ``min`` on the CPU (numpy's minimum is NaN
    where any weight is), a second of ``plus`` elsewhere (a device's or the ranks' minimum
    may step over a NaN).

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs.semiring import Matrix
    >>> checked_weights(Matrix(np.array([0, 1]), np.array([0]), np.array([2]), 1)).dtype
    dtype('float64')
    """
    if M.dtype.kind not in "biuf":
        raise TypeError(f"A must have numeric weights, got {M.dtype}")
    if M.nnz:
        # every stored weight counts: reduce reads duplicates summed, which hid a negative
        # copy beside a larger one (the searches read each copy)
        each = M.canonical(monoids.min)
        low = float(reduce(each, monoids.min, dtype=np.float64))
        if low < 0:
            raise ValueError(NEGATIVE)
        if math.isnan(low) or (M.xp is not np and math.isnan(
                float(reduce(each, monoids.plus, dtype=np.float64)))):
            raise ValueError(NAN)
    return M.astype(np.float64)


def _rounds(M, frontier, dist, delta):
    """The generic path: one masked ``min_plus`` push per round, buckets kept in numpy.

    Bucket ``k`` holds the distances in ``[k delta, (k + 1) delta)`` (``floor(d / delta)``,
    the one rule used throughout).  The lowest bucket's vertices whose distance improved
    are pushed through ``min_plus``, masked by the vertices of lower buckets (final, so
    nothing is written to them), until the bucket holds no improvement; an improvement
    into a higher bucket is listed there unless the vertex is listed in that bucket or a
    lower one already, and a vertex whose distance moved to a lower bucket since it was
    listed is dropped when the list is taken (it was pushed there)."""
    xp, n = M.xp, M.n
    waiting = {}  # bucket -> arrays of vertices improved into it
    listed = xp.full(n, np.inf)  # the lowest bucket each vertex is listed in
    settled = xp.zeros(n, bool)
    bucket = 0.0
    while True:
        pushed = []
        while frontier.size:
            pushed.append(frontier)
            x = Vector.sparse(frontier, dist[frontier], size=n, sort=False, check=False)
            y = vxm(x, M, min_plus, mask=settled, complement=True, direction="push")
            better = y.values < dist[y.indices]
            found, value = y.indices[better], y.values[better]
            dist[found] = value
            into = xp.floor(value / delta)
            near = into <= bucket
            frontier = found[near]
            if not bool(near.all()):
                found, into = found[~near], into[~near]
                lower = into < listed[found]
                found, into = found[lower], into[lower]
                listed[found] = into
                _wait(xp, waiting, found, into)
        if not waiting:
            return dist
        if pushed:  # the bucket's vertices: final
            settled[xp.concatenate(pushed)] = True
        bucket = min(waiting)
        listed_here = xp.concatenate(waiting.pop(bucket))
        frontier = listed_here[xp.floor(dist[listed_here] / delta) == bucket]  # not lower


def _wait(xp, waiting, vertices, buckets):
    """Add ``vertices`` to the lists of their ``buckets`` (whole float64 bucket numbers, the
    lists' keys as they are, so that a key equals ``floor(d / delta)`` of the distances
    filed under it however large)."""
    if not vertices.size:
        return
    low = float(buckets.min())
    if float(buckets.max()) - low < 2**15 and low < 2**52:  # exact as small integers:
        keys = (buckets - low).astype(np.int16)  # a stable sort of them is a radix sort
    else:
        keys = buckets
    order = xp.argsort(keys, kind="stable")
    vertices, buckets = vertices[order], buckets[order]
    cuts = xp.flatnonzero(buckets[1:] != buckets[:-1]) + 1
    starts = [0, *to_numpy(cuts).tolist()]
    ends = [*starts[1:], int(vertices.size)]
    firsts = to_numpy(buckets[xp.asarray(starts)]).tolist()
    for key, lo, hi in zip(firsts, starts, ends, strict=True):
        waiting.setdefault(key, []).append(vertices[lo:hi])
