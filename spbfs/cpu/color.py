"""The CPU backend's ``greedy_colors`` (:func:`spbfs.semiring.greedy_colors`): the greedy
colouring in one compiled pass over the vertices in priority order, where the generic path
runs Jones and Plassmann's rounds of pushes."""

from __future__ import annotations

import numpy as np

from ._jit import kernel

__all__ = ["greedy_colors"]


@kernel
def _greedy(indptr, indices, order, colour, seen):
    """Each vertex of ``order`` in turn takes the smallest colour that no coloured neighbour
    holds (``seen[c] == v``: colour ``c`` is taken around ``v``)."""
    for v in order:
        for p in range(indptr[v], indptr[v + 1]):
            c = colour[indices[p]]
            if c >= 0:
                seen[c] = v
        c = 0
        while seen[c] == v:
            c += 1
        colour[v] = c


def greedy_colors(indptr, indices, order, colour):
    """:func:`spbfs.semiring.greedy_colors` on canonical CSR arrays: the vertices coloured in
    ``order`` into ``colour`` (int64, all -1).  Returns True (done).

    Examples
    --------
    >>> import numpy as np
    >>> colour = np.full(3, -1)
    >>> greedy_colors(np.array([0, 2, 4, 6]), np.array([1, 2, 0, 2, 0, 1]), np.array([2, 0, 1]),
    ...               colour)
    True
    >>> colour.tolist()
    [1, 2, 0]
    """
    n = colour.size
    # a colour never exceeds a degree: n + 1 slots, none a vertex's mark at first
    _greedy(indptr, indices, np.asarray(order, np.int64), colour, np.full(n + 1, -1, np.int64))
    return True
