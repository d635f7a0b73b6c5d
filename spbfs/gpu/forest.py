"""The GPU backend's forest outputs: a pruned search's levels and parents on the whole graph,
a memset of -1 (all bits set) and one grid-stride pass over the core and the trees
(``forest_outputs``, whose docstring shows it); and the GPU's pruning share.
"""

from __future__ import annotations

import numpy as np

from . import kernels

__all__ = ["forest_outputs", "pruning_share"]

_THREADS = 256
_NULL = np.uint64(0)


#: The trees' share of the vertices with an edge from which searches run pruned on the GPU.
#: One H200, 2**26 vertices, median search (``benchmarks/bench_forest.py --device gpu``): a
#: random tree with a tenth more edges (0.62 in trees) 8.79 -> 5.93 ms; Kronecker scale 26
#: (0.25) 1.93 -> 2.41 ms, the core's search 1.27 ms but the parents' mapping and the
#: outputs' write most of the rest.
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


def _arg(a):
    return _NULL if a is None else a


def forest_outputs(core, core_levels, core_parents, shift, tree, tree_parent, attach_core,
                   tree_depth, levels, parents):
    """Fill ``levels`` and ``parents`` (either may be None) of the whole graph from the
    core's (see :func:`spbfs.semiring.forest_outputs`).

    Examples
    --------
    >>> import cupy                                                      # doctest: +SKIP
    >>> parents = cupy.empty(4, cupy.int32)     # core 0 and 3, 1 below 0  # doctest: +SKIP
    >>> one = cupy.array([0], cupy.int32)                               # doctest: +SKIP
    >>> forest_outputs(cupy.array([0, 3], cupy.int32), None, cupy.array([0, -1], cupy.int32),
    ...                0, one + 1, one, one, one + 1, None, parents)     # doctest: +SKIP
    True
    >>> parents.tolist()                                                # doctest: +SKIP
    [0, 0, -1, -1]
    """
    import cupy

    stream = cupy.cuda.get_current_stream().ptr
    for out in (levels, parents):  # -1 is every bit set (a memset runs at full bandwidth;
        if out is not None:        # cupy's fill took 0.34 ms for 2**26 int32 on an H200)
            cupy.cuda.runtime.memsetAsync(out.data.ptr, 0xFF, out.nbytes, stream)
    work = max(int(core.size), int(tree.size))
    if not work:
        return True
    func = kernels.forest_module(core.dtype).get_function("forest_outputs")
    func((kernels.blocks(work, threads=_THREADS),), (_THREADS,),
         (core, np.int64(core.size), _arg(core_levels), _arg(core_parents), np.int64(shift),
          tree, np.int64(tree.size), tree_parent, attach_core, tree_depth, _arg(levels),
          _arg(parents)))
    return True
