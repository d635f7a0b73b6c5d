"""The GPU backend's ``greedy_colors`` (:func:`spbfs.semiring.greedy_colors`): Jones and
Plassmann's rounds in one kernel a round (``color_kernels.cu``), a warp a waiting vertex,
where the generic path pushes colour bits and counts with two products a round and reads
the device each round.

A waiting vertex resumes its scan where it found a neighbour not yet coloured, and the
first round takes the vertices in priority order, so a chain of them is often coloured in
one round.  Rounds run :data:`ROUNDS_PER_READ` at a time between reads of the device (a
round with nothing listed costs its launch).
"""

from __future__ import annotations

import numpy as np

from . import kernels

__all__ = ["greedy_colors"]

_THREADS = 256
#: Rounds launched between two reads of the device (the waiting count, the overflow flag).
ROUNDS_PER_READ = 8
#: 64-bit words of colour bits a vertex gathers (at most the kernels' ``MAX_WORDS``): a
#: vertex whose neighbours before it hold every colour below ``64 * COLOUR_WORDS`` leaves
#: the colouring to the generic path.
COLOUR_WORDS = 64


def greedy_colors(indptr, indices, order, colour):
    """:func:`spbfs.semiring.greedy_colors` on canonical cupy CSR arrays: the vertices of
    ``order`` (by decreasing priority) coloured into ``colour`` (int64, all -1).  Returns
    True, or False (``colour`` all -1 again) where a vertex needs a colour of
    ``64 * COLOUR_WORDS`` or more.

    Examples
    --------
    >>> import cupy                                                          # doctest: +SKIP
    >>> colour = cupy.full(3, -1)                                            # doctest: +SKIP
    >>> greedy_colors(cupy.array([0, 2, 4, 6]), cupy.array([1, 2, 0, 2, 0, 1]),
    ...               cupy.array([2, 0, 1]), colour)                         # doctest: +SKIP
    True
    >>> colour.tolist()                                                      # doctest: +SKIP
    [1, 2, 0]
    """
    import cupy

    n = int(colour.size)
    if not n:
        return True
    mod = kernels.color_module(indices.dtype, indptr.dtype)
    order = cupy.ascontiguousarray(order, np.int64)
    rank = cupy.empty(n, np.int64)
    mod.get_function("color_rank")((kernels.blocks(n),), (_THREADS,), (order, np.int64(n), rank))
    resume = indptr[:-1].copy()
    lists = (order.copy(), cupy.empty(n, np.int64))
    counts = cupy.zeros(3, np.uint64)
    counts[0] = n
    overflow = cupy.zeros(1, np.int32)
    step = mod.get_function("color_round")
    grid = (kernels.blocks(n, cap=4 * kernels.sm_count(), threads=_THREADS // 32),)
    words = np.int32(min(COLOUR_WORDS, 64))
    done = 0
    while True:
        for r in range(done, done + ROUNDS_PER_READ):
            step(grid, (_THREADS,), (indptr, indices, rank, colour, resume, lists[r % 2],
                                     lists[(r + 1) % 2], counts, np.int32(r), words, overflow))
        done += ROUNDS_PER_READ
        waiting, failed = int(counts[done % 3].get()), int(overflow.get()[0])
        if failed:
            colour.fill(-1)
            return False
        if not waiting:
            return True
        if done > n + ROUNDS_PER_READ:  # a round colours at least the first waiting vertex
            raise RuntimeError(f"greedy_colors: {waiting} vertices still waiting after "
                               f"{done} rounds on {n} vertices")
