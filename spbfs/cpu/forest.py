"""The CPU backend's forest outputs: a pruned search's levels and parents on the whole graph
in one compiled pass over its vertices, split over the threads.

Examples
--------
>>> import numpy as np
>>> where = np.array([0, -2, -1])          # a core vertex, a tree vertex, no edge
>>> one = np.array([0])
>>> levels = np.empty(3, np.int64)
>>> forest_outputs(where, one, None, 0, one, one, one + 1, levels, None)
True
>>> levels.tolist()
[0, 1, -1]
"""

from __future__ import annotations

import numpy as np

from ._jit import kernel
from .threads import get_num_threads, run_ranges, split

__all__ = ["forest_outputs", "prunes_forests"]

#: Vertices from which the pass is split over threads.
PARALLEL_VERTICES = 1 << 16
#: Graphs of fewer vertices are searched whole: the outputs' pass and the search's set-up
#: cost more than the smaller search saves.
PRUNE_VERTICES = 1 << 16


def prunes_forests(n: int) -> bool:
    """Whether searches of a symmetric graph of ``n`` vertices run pruned here: from
    :data:`PRUNE_VERTICES` on (Kronecker scale 18, 2 threads: 17.6 -> 12.5 ms a search;
    docs/benchmarks.md).

    Examples
    --------
    >>> prunes_forests(1000), prunes_forests(1 << 20)
    (False, True)
    """
    return n >= PRUNE_VERTICES


@kernel
def _outputs(lo, hi, where, core_levels, core_parents, shift, tree_parent, attach_core,
             tree_depth, levels, parents, with_levels, with_parents):
    for v in range(lo, hi):
        w = where[v]
        lev = -1
        par = -1
        if w >= 0:
            if with_levels:
                lev = core_levels[w] + shift if core_levels[w] >= 0 else -1
            if with_parents:
                par = core_parents[w]
        elif w <= -2:
            s = -2 - w
            a = attach_core[s]
            above = core_levels[a] if with_levels else core_parents[a]
            if above >= 0:
                if with_levels:
                    lev = above + shift + tree_depth[s]
                par = tree_parent[s]
        if with_levels:
            levels[v] = lev
        if with_parents:
            parents[v] = par


def forest_outputs(where, core_levels, core_parents, shift, tree_parent, attach_core,
                   tree_depth, levels, parents):
    """Fill ``levels`` and ``parents`` (either may be None) of the whole graph from the
    core's (see :func:`spbfs.semiring.forest_outputs`)."""
    n = int(where.size)
    with_levels, with_parents = levels is not None, parents is not None
    empty = np.zeros(0, where.dtype)
    core_levels = core_levels if with_levels else empty
    core_parents = core_parents if with_parents else empty
    levels = levels if with_levels else empty
    parents = parents if with_parents else empty
    threads = get_num_threads() if n >= PARALLEL_VERTICES else 1
    run_ranges(lambda lo, hi: _outputs(lo, hi, where, core_levels, core_parents, shift,
                                       tree_parent, attach_core, tree_depth, levels, parents,
                                       with_levels, with_parents),
               split(n, threads))
    return True
