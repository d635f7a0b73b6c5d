"""Distributed Kronecker generator: each rank makes its own slice of the Graph500 edge list.

:func:`spbfs.graph500.generate.kronecker` is counter based, so rank ``r`` of ``P`` generates edges
``[M r / P, M (r + 1) / P)`` with no communication, and the concatenation over ranks is the
single-process list for the same seed.
"""

from __future__ import annotations

from ..graph500 import generate as _gen

__all__ = ["kronecker", "slice_bounds"]


def slice_bounds(m: int, rank: int, P: int):
    """Edges ``[start, stop)`` of ``m`` that rank ``rank`` of ``P`` handles (balanced split).

    Examples
    --------
    >>> [slice_bounds(10, r, 4) for r in range(4)]
    [(0, 2), (2, 5), (5, 7), (7, 10)]
    """
    return m * rank // P, m * (rank + 1) // P


def _rank_size(comm):
    if comm is None:
        from mpi4py import MPI

        comm = MPI.COMM_WORLD
    if hasattr(comm, "rank") and hasattr(comm, "size") and not callable(comm.size):
        return int(comm.rank), int(comm.size), getattr(comm, "xp", None)
    return comm.Get_rank(), comm.Get_size(), None


def kronecker(scale, edgefactor=16, seed=1, *, comm=None, xp=None):
    """This rank's slice of the Graph500 Kronecker edge list.

    Parameters
    ----------
    scale, edgefactor, seed : int
        As :func:`spbfs.graph500.generate.kronecker`.
    comm : Communicator or mpi4py.MPI.Comm, optional
        Decides the slice (rank and size); ``MPI.COMM_WORLD`` by default.
    xp : module, optional
        numpy or cupy; default the communicator's array module (numpy for an mpi4py comm).

    Returns
    -------
    u, v : arrays of int64
        Endpoints of edges ``slice_bounds(M, rank, P)`` of the whole list
        (``M = edgefactor * 2**scale``).

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs import dist
    >>> from spbfs.graph500 import generate
    >>> u, v = dist.kronecker(6, edgefactor=4, seed=5)        # one rank: the whole list
    >>> U, V = generate.kronecker(6, edgefactor=4, seed=5)
    >>> bool(np.array_equal(u, U) and np.array_equal(v, V))
    True
    """
    rank, P, cxp = _rank_size(comm)
    m = _gen.kronecker_edge_count(scale, edgefactor)
    start, stop = slice_bounds(m, rank, P)
    return _gen.kronecker(scale, edgefactor, seed, start=start, stop=stop, xp=xp or cxp)
