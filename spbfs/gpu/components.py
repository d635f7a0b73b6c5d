"""The GPU backend's weak components: a concurrent union-find over the arcs in one kernel
(``components_kernels.cu``), where the generic path
(:func:`spbfs.algorithms.components.connected_components`) runs FastSV, rounds of products
over the symmetrised pattern with a read of the device per round.

Every arc joins the trees of its two ends, a root always linked under a smaller one, so
each tree's root is its component's smallest vertex; a prefix count of the roots then
numbers the components by their smallest vertex (scipy's numbering, as the CPU's
:mod:`spbfs.cpu.weak`).  Arcs are read as stored: no symmetrised copy is made.
"""

from __future__ import annotations

import numpy as np

from . import kernels

__all__ = ["weak_components"]

_THREADS = 256


def weak_components(indptr, indices, symmetric=False):
    """``(number of components, labels)`` of the weak components of a CSR pattern on the
    GPU (an arc ``A[u, v]`` joins ``u`` and ``v`` either way; ``symmetric``: every arc is
    stored both ways, so half of them are read), numbered by their smallest vertex; labels
    int32 cupy (None for graphs of ``2**31`` vertices or more: the generic path runs).

    Examples
    --------
    >>> import cupy                                                  # doctest: +SKIP
    >>> weak_components(cupy.array([0, 1, 1, 1, 2]), cupy.array([1, 2]))  # doctest: +SKIP
    (2, array([0, 0, 1, 1], dtype=int32))
    """
    import cupy

    n = indptr.size - 1
    if n > np.iinfo(np.int32).max:
        return None
    if n == 0:
        return 0, cupy.empty(0, np.int32)
    mod = kernels.components_module(indices.dtype, indptr.dtype)
    flat = (kernels.blocks(n, threads=_THREADS),)
    parent = cupy.empty(n, np.int32)
    mod.get_function("uf_init")(flat, (_THREADS,), (parent, np.int64(n)))
    warps = (kernels.blocks(n * 32, threads=_THREADS),)
    mod.get_function("uf_hook")(warps, (_THREADS,), (indptr, indices, np.int64(n),
                                                       np.int32(bool(symmetric)), parent))
    mod.get_function("uf_flatten")(flat, (_THREADS,), (parent, np.int64(n)))
    rank = cupy.cumsum(parent == cupy.arange(n, dtype=np.int32), dtype=np.int32)
    labels = rank[parent]
    labels -= 1
    return int(rank[-1]), labels
