"""A pruned search's outputs on the whole graph: ``forest_outputs``."""

from __future__ import annotations

from ..core.arrays import array_module
from ..core.seam import optional_primitive
from ._backend import backend_for
from ._matrix import Matrix

__all__ = ["forest_outputs", "prunes_forests"]


def forest_outputs(where, core_levels, core_parents, shift, tree_parent, attach_core,
                   tree_depth, levels=None, parents=None):
    """Fill a whole graph's ``levels`` and ``parents`` (either may be None) from a search of
    its core (:class:`spbfs.algorithms.forest.Forest`).

    ``where[v]`` is ``v``'s core id, ``-2 - s`` for the tree vertex of slot ``s``, or -1 for
    a vertex without an edge.  A core vertex takes its core outputs, its level plus
    ``shift``; a tree vertex is reached when its attachment (core id ``attach_core[s]``)
    is, ``tree_depth[s]`` levels below it, with parent ``tree_parent[s]``; the rest get -1.
    ``levels`` needs ``core_levels``, ``parents`` needs ``core_parents``.

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs import semiring
    >>> where = np.array([0, -2, -1, 1])        # core, tree (slot 0), no edge, core
    >>> levels = np.empty(4, np.int64)
    >>> semiring.forest_outputs(where, np.array([0, -1]), None, 0, np.array([0]),
    ...                         np.array([0]), np.array([1]), levels=levels)
    >>> levels.tolist()
    [0, 1, -1, -1]
    """
    xp = array_module(where)
    kernel = optional_primitive(backend_for(xp), "forest_outputs")
    if kernel is not None and kernel(where, core_levels, core_parents, shift, tree_parent,
                                     attach_core, tree_depth, levels, parents):
        return
    core, tree = xp.flatnonzero(where >= 0), xp.flatnonzero(where <= -2)
    ids, slots = where[core], -2 - where[tree]
    above = (core_levels if levels is not None else core_parents)[attach_core[slots]]
    reached = above >= 0
    for out in (levels, parents):
        if out is not None:
            out.fill(-1)
    if levels is not None:
        levels[core] = xp.where(core_levels[ids] >= 0, core_levels[ids] + shift, -1)
        levels[tree[reached]] = above[reached] + shift + tree_depth[slots[reached]]
    if parents is not None:
        parents[core] = core_parents[ids]
        parents[tree[reached]] = tree_parent[slots[reached]]


def prunes_forests(A) -> bool:
    """Whether searches of ``A`` (symmetric) run on its core with its trees set after
    (:mod:`spbfs.algorithms.forest`): the backend's estimate for its size.  False where the
    backend states none, and on the GPU until its pruned search is measured faster.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> prunes_forests(sp.csr_array(sp.eye(3))), prunes_forests(sp.csr_array(sp.eye(1 << 16)))
    (False, True)
    """
    M = Matrix.from_any(A)
    hint = optional_primitive(backend_for(M.xp), "prunes_forests")
    return bool(hint is not None and hint(M.n))
