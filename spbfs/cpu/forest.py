"""The CPU backend's forest outputs: a pruned search's levels and parents on the whole graph,
filled with -1, then the core's copied (parents mapped to the graph's ids) and the trees'
set in compiled passes split over the threads.

Examples
--------
>>> import numpy as np
>>> levels = np.empty(4, np.int64)          # core 0 and 3, vertex 1 below 0, 2 alone
>>> forest_outputs(np.array([0, -2, -1, 1]), np.array([0, 3]), np.array([1]),
...                np.array([0, -1]), None, 0, np.array([0]), np.array([0]), np.array([1]),
...                levels, None)
True
>>> levels.tolist()
[0, 1, -1, -1]
"""

from __future__ import annotations

from ._jit import kernel
from .threads import get_num_threads, run_kernel, split

__all__ = ["forest_outputs", "hub_numbering", "pruning_share"]

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


#: The share of a symmetric graph's stored entries in its ``n / 64`` rows of largest degree
#: from which its searches run on its core numbered hubs first
#: (:class:`spbfs.algorithms.forest.Forest`), whatever its trees' share: 2 threads, Kronecker
#: (seed 1, 16 keys, parents alone), median search whole / core in the graph's order / core
#: hubs first: scale 18 3.99 / 3.63 / 2.71 ms, scale 20 19.1 / 16.8 / 10.9, scale 22 88.8 /
#: 75.8 / 53.0 (the top 64th of a Kronecker graph's vertices holds 0.43-0.73 of its entries
#: at scale 16-26, of a uniform random graph's (32 entries a row) about 0.02).
HUB_SKEW = 0.25


def hub_numbering(n: int):
    """The share of a symmetric graph's stored entries in its ``n / 64`` rows of largest
    degree from which its searches run on its core numbered hubs first: :data:`HUB_SKEW`
    from :data:`PRUNE_VERTICES` vertices on, None (never) below.

    Examples
    --------
    >>> hub_numbering(1000), hub_numbering(1 << 20)
    (None, 0.25)
    """
    return HUB_SKEW if n >= PRUNE_VERTICES else None


@kernel
def _core_levels(lo, hi, core, core_levels, shift, out):
    for i in range(lo, hi):
        x = core_levels[i]
        out[core[i]] = x + shift if x >= 0 else -1


@kernel
def _core_parents(lo, hi, core, core_parents, out):
    for i in range(lo, hi):
        p = core_parents[i]
        out[core[i]] = core[p] if p >= 0 else -1


@kernel
def _tree_levels(lo, hi, tree, attach_core, core_levels, tree_depth, shift, out):
    for s in range(lo, hi):
        above = core_levels[attach_core[s]]
        if above >= 0:
            out[tree[s]] = above + shift + tree_depth[s]


@kernel
def _tree_parents(lo, hi, tree, attach_core, guide, tree_parent, out):
    for s in range(lo, hi):
        if guide[attach_core[s]] >= 0:
            out[tree[s]] = tree_parent[s]


def _ranges(count):
    return split(count, get_num_threads() if count >= PARALLEL_VERTICES else 1)


def forest_outputs(where, core, tree, core_levels, core_parents, shift, tree_parent,
                   attach_core, tree_depth, levels, parents):
    """Write ``levels`` and ``parents`` (either may be None) of the whole graph from the
    core's (see :func:`spbfs.semiring.forest_outputs`): filled with -1, then a pass over
    the core and one over the trees (a pass over every vertex through ``where`` takes a
    mispredicted branch a vertex: 7x the core's pass at 2**20 vertices)."""
    for out in (levels, parents):
        if out is not None:
            out.fill(-1)
    cores, trees = _ranges(core.size), _ranges(tree.size)
    if levels is not None:
        run_kernel(_core_levels, cores, core, core_levels, shift, levels)
        run_kernel(_tree_levels, trees, tree, attach_core, core_levels, tree_depth, shift,
                   levels)
    if parents is not None:
        guide = core_levels if levels is not None else core_parents  # reached or not
        run_kernel(_core_parents, cores, core, core_parents, parents)
        run_kernel(_tree_parents, trees, tree, attach_core, guide, tree_parent, parents)
    return True
