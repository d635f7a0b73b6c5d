"""The CPU backend's forest outputs: a pruned search's levels and parents on the whole graph,
each written once in a compiled pass over its vertices split over the threads.

Examples
--------
>>> import numpy as np
>>> levels = np.empty(4, np.int64)          # core 0 and 3, vertex 1 below 0, 2 alone
>>> forest_outputs(np.array([0, -2, -1, 1]), np.array([0, 3]), np.array([0, -1]), None, 0,
...                np.array([0]), np.array([0]), np.array([1]), levels, None)
True
>>> levels.tolist()
[0, 1, -1, -1]
"""

from __future__ import annotations

from ._jit import kernel
from .threads import get_num_threads, run_kernel, split

__all__ = ["forest_outputs", "pruning_share"]

#: Vertices from which the passes are split over threads.
PARALLEL_VERTICES = 1 << 16
#: Graphs of fewer vertices are searched whole: the outputs' passes and the search's set-up
#: cost more than the smaller search saves.
PRUNE_VERTICES = 1 << 16
#: The trees' share of the vertices with an edge from which searches run pruned here: 2
#: threads, median search (``benchmarks/bench_forest.py``, docs/benchmarks.md): Kronecker
#: scale 20 (0.22 in trees) 40.3 -> 35.0 ms, scale 18 (0.20) 8.9 -> 7.2 ms; a random tree
#: with a tenth more edges (0.62) 110.5 -> 50.1 ms at 2**20 vertices.
PRUNE_SHARE = 0.1


def pruning_share(n: int):
    """The trees' share of the vertices with an edge from which searches of a symmetric
    graph of ``n`` vertices run pruned: :data:`PRUNE_SHARE` from :data:`PRUNE_VERTICES`
    vertices on, None (never) below.

    Examples
    --------
    >>> pruning_share(1000), pruning_share(1 << 20)
    (None, 0.1)
    """
    return PRUNE_SHARE if n >= PRUNE_VERTICES else None


@kernel
def _levels(lo, hi, where, core_levels, shift, attach_core, tree_depth, out):
    for g in range(lo, hi):
        w = where[g]
        at = w if w >= 0 else attach_core[-2 - w] if w <= -2 else -1
        lev = core_levels[at] if at >= 0 else -1
        if lev < 0:
            out[g] = -1
        elif w >= 0:
            out[g] = lev + shift
        else:
            out[g] = lev + shift + tree_depth[-2 - w]


@kernel
def _parents(lo, hi, where, core, core_parents, guide, attach_core, tree_parent, out):
    for g in range(lo, hi):
        w = where[g]
        at = w if w >= 0 else attach_core[-2 - w] if w <= -2 else -1
        if at < 0 or guide[at] < 0:
            out[g] = -1
        elif w >= 0:
            out[g] = core[core_parents[at]]
        else:
            out[g] = tree_parent[-2 - w]


def forest_outputs(where, core, core_levels, core_parents, shift, tree_parent, attach_core,
                   tree_depth, levels, parents):
    """Write ``levels`` and ``parents`` (either may be None) of the whole graph from the
    core's (see :func:`spbfs.semiring.forest_outputs`)."""
    ranges = split(where.size, get_num_threads() if where.size >= PARALLEL_VERTICES else 1)
    if levels is not None:
        run_kernel(_levels, ranges, where, core_levels, shift, attach_core, tree_depth, levels)
    if parents is not None:
        guide = core_levels if levels is not None else core_parents  # reached or not
        run_kernel(_parents, ranges, where, core, core_parents, guide, attach_core,
                   tree_parent, parents)
    return True
