"""The GPU backend's forest outputs: a pruned search's levels and parents on the whole graph
in one grid-stride pass over its vertices (``forest_outputs``, whose docstring shows it);
and the GPU's pruning share.
"""

from __future__ import annotations

import numpy as np

from . import kernels

__all__ = ["forest_outputs", "hub_numbering", "pruning_share"]

_THREADS = 256
_BLOCKS = 8  # a multiprocessor's resident blocks of the pass
_ILP = 2  # vertices a thread has in flight (FOREST_ILP in forest_kernels.cu)
_NULL = np.uint64(0)


#: The trees' share of the vertices with an edge from which searches run pruned on the GPU.
#: One H200, 2**26 vertices, median search (``benchmarks/bench_forest.py --device gpu``): a
#: random tree with a tenth more edges (0.62 in trees) 8.65 -> 5.31 ms; Kronecker scale 26
#: (0.25) 1.88 -> 1.88 ms (the core's search 1.24 ms, the outputs' pass with the parents'
#: mapping 0.55: bound by its scattered reads, docs/gpu.md).
PRUNE_SHARE = 0.5


def pruning_share(n: int) -> float:
    """The trees' share of the vertices with an edge from which searches of a symmetric
    graph run pruned on the GPU (:data:`PRUNE_SHARE`, whatever ``n``).

    Examples
    --------
    >>> pruning_share(1 << 26)
    0.5
    """
    return PRUNE_SHARE


#: The share of a symmetric graph's stored entries in the rows of its ``n / 64`` vertices of
#: largest degree from which its searches run on its core numbered hubs first
#: (:class:`spbfs.algorithms.forest.Forest`), whatever its trees' share.  One H200,
#: ``spbfs graph500 --scale 26``: 707.6 GTEPS (median 1.453 ms) against 474.7 (2.169) whole;
#: the top 64th of a Kronecker graph's vertices holds 0.43-0.73 of its entries (scale 16-26),
#: of a uniform random graph's (32 entries a row) about 0.02 (docs/gpu.md).
HUB_SKEW = 0.25


def hub_numbering(n: int) -> float:
    """The share of a symmetric graph's stored entries in its ``n / 64`` rows of largest
    degree from which its searches run on its core numbered hubs first on the GPU
    (:data:`HUB_SKEW`, whatever ``n``).

    Examples
    --------
    >>> hub_numbering(1 << 26)
    0.25
    """
    return HUB_SKEW


def _arg(a):
    return _NULL if a is None else a


def forest_outputs(where, core, tree, core_levels, core_parents, shift, tree_parent,
                   attach_core, tree_depth, levels, parents):
    """Write ``levels`` and ``parents`` (either may be None) of the whole graph from the
    core's in one pass over its vertices through ``where`` (``tree`` is not read; see
    :func:`spbfs.semiring.forest_outputs`).

    Examples
    --------
    >>> import cupy                                                      # doctest: +SKIP
    >>> parents = cupy.empty(4, cupy.int32)   # core 0 and 3, 1 below 0  # doctest: +SKIP
    >>> where = cupy.array([0, -2, -1, 1], cupy.int32)                   # doctest: +SKIP
    >>> one = cupy.array([0], cupy.int32)                               # doctest: +SKIP
    >>> forest_outputs(where, cupy.array([0, 3], cupy.int32), one + 1, None,
    ...                cupy.array([0, -1], cupy.int32), 0, one, one, one + 1, None,
    ...                parents)                                          # doctest: +SKIP
    True
    >>> parents.tolist()                                                # doctest: +SKIP
    [0, 0, -1, -1]
    """
    n = int(where.size)
    if not n:
        return True
    func = kernels.forest_module(where.dtype).get_function("forest_outputs")
    func((kernels.blocks(-(-n // _ILP), cap=kernels.sm_count() * _BLOCKS),), (_THREADS,),
         (np.int64(n), where, core, _arg(core_levels), _arg(core_parents), np.int64(shift),
          tree_parent, attach_core, tree_depth, _arg(levels), _arg(parents)))
    return True
