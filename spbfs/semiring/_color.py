"""Greedy colouring: ``greedy_colors``.

The sequential greedy colouring of an undirected graph in an order of priorities (highest
first: each vertex takes the smallest colour none of its neighbours before it holds).  The
generic path computes it as Jones and Plassmann do: in rounds, every vertex whose
neighbours before it are all coloured takes the lowest colour missing from the bits they
sent it, then sends its own colour bit (a ``bor`` push) and one count (a ``plus_pair``
push) to its neighbours after it.  A backend with a ``greedy_colors`` primitive (the CPU:
one compiled pass in priority order; the GPU: the same rounds, a kernel each, a warp
scanning a waiting vertex's neighbours) gives the same colours in one call.
"""

from __future__ import annotations

import numpy as np

from ..core.seam import optional_primitive
from ._backend import backend_for
from ._matrix import Matrix
from ._named import ops, plus_pair
from ._optypes import Monoid, Semiring
from ._transform import select
from ._vector import Vector
from ._vxm import vxm

__all__ = ["greedy_colors"]

#: Bit sets of colours sent along arcs: ``bor`` of the senders' bits.
_BOR_FIRST = Semiring(Monoid("bor", np.bitwise_or, lambda dt: 0, "(a | b)"), ops.first)


def greedy_colors(A, priority):
    """The greedy colouring of an undirected graph, vertices taken by decreasing priority.

    Each vertex takes the smallest colour that none of its neighbours of higher priority
    holds, so each colour class is the lexicographically first maximal independent set of
    the vertices not coloured before it (``networkx.greedy_color`` with a strategy that
    returns the vertices in that order gives the same colours).

    Parameters
    ----------
    A : scipy.sparse / cupyx.scipy.sparse matrix or array, 2-D array, or Matrix
        Symmetric pattern; values and self-loops are ignored.
    priority : 1-D array of n distinct numbers
        The order: the highest is coloured first.

    Returns
    -------
    ndarray of int64
        The colour of every vertex (``0 .. c-1``), on ``A``'s device.

    Raises
    ------
    ValueError
        ``A`` is not square, or ``priority`` is not a 1-D array of ``n`` values.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs import semiring
    >>> A = sp.csr_array(np.array([[0, 1, 1, 0], [1, 0, 1, 0], [1, 1, 0, 1], [0, 0, 1, 0]]))
    >>> semiring.greedy_colors(A, np.array([4, 3, 2, 1])).tolist()
    [0, 1, 2, 0]
    """
    M = Matrix.from_any(A, name="A")
    if M.nrows != M.ncols:
        raise ValueError(f"A must be square, got shape {(M.nrows, M.ncols)}")
    xp, n = M.xp, M.n
    priority = xp.asarray(priority)
    if priority.ndim != 1 or priority.shape[0] != n:
        raise ValueError(f"priority must be a 1-D array of length {n}, got shape "
                         f"{priority.shape}")
    M = M.canonical()
    colour = xp.full(n, -1, np.int64)
    kernel = optional_primitive(backend_for(xp), "greedy_colors")
    if kernel is not None and kernel(M.indptr, M.indices, _descending(priority, xp), colour):
        return colour
    return _rounds(select(M, "offdiag"), priority.astype(np.float64), colour)


def _rounds(M, priority, colour):
    """Jones and Plassmann's rounds on the off-diagonal pattern ``M``, into ``colour``."""
    xp, n = M.xp, M.n
    rows_of, idt = M.entry_rows, M.indices.dtype
    before = priority[M.indices] > priority[rows_of]  # entry (v, u): u is coloured before v
    waiting = xp.bincount(rows_of[before], minlength=n)
    after = select(M.with_values(~before), "nonzero")  # row u: its neighbours after it
    # taken[w, v]: bit b set when a neighbour of v before it has colour 64 w + b
    taken = xp.zeros((1, n), np.uint64)
    ready = xp.flatnonzero(waiting == 0).astype(idt)
    while ready.size:
        got = _lowest_free(taken, ready, xp)
        colour[ready] = got
        top = int(got.max()) // 64  # one host read: the last word this round sets
        bit = xp.left_shift(np.uint64(1), (got & 63).astype(np.uint64))
        for w in range(top + 1):
            if w == taken.shape[0]:
                taken = xp.concatenate([taken, xp.zeros((1, n), np.uint64)])
            # a sender of another word sends 0, bor's identity
            sent = bit if top == 0 else xp.where(got >> 6 == w, bit, np.uint64(0))
            told = vxm(Vector.sparse(ready, sent, size=n, sort=False, check=False), after,
                       _BOR_FIRST).to_sparse()
            taken[w, told.indices] |= told.values
        told = vxm(Vector.sparse(ready, size=n, sort=False, check=False), after, plus_pair,
                   dtype=np.int64).to_sparse()
        waiting[told.indices] -= told.values
        ready = told.indices[waiting[told.indices] == 0]
    return colour


def _lowest_free(taken, vertices, xp):
    """Per vertex, the smallest colour whose bit is clear in its words of ``taken``."""
    free = ~taken[:, vertices]
    has = free != 0
    w = xp.argmax(has, axis=0)  # the first word with a clear bit (0 where none has)
    free = xp.take_along_axis(free, w[None, :], axis=0)[0]
    low = free & (~free + np.uint64(1))  # the lowest clear bit
    _, place = xp.frexp(low.astype(np.float64))  # 2**b = 0.5 * 2**(b + 1): exact
    out = 64 * w.astype(np.int64) + place.astype(np.int64) - 1
    return xp.where(has.any(axis=0), out, 64 * taken.shape[0])


def _descending(priority, xp):
    """The vertices by descending priority, ties by id (a stable sort): where the priorities
    are a permutation of ``0 .. n-1`` (``color_classes``' random ones), its inverse read
    backwards, one scatter instead of a sort (131,072 vertices on the VM: 8.6 ms sorted)."""
    n = priority.size
    if n and priority.dtype.kind in "iu" and int(priority.min()) == 0 \
            and int(priority.max()) == n - 1:
        inverse = xp.full(n, -1, np.int64)
        inverse[priority] = xp.arange(n, dtype=np.int64)
        if bool((inverse >= 0).all()):  # every slot written: a permutation
            return xp.ascontiguousarray(inverse[::-1])
    return xp.argsort(-priority.astype(np.float64), kind="stable")
