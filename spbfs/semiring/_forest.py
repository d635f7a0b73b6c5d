"""A pruned search's outputs on the whole graph: ``forest_outputs``; and from which share of
trees a backend's searches run pruned, ``pruning_share``, and from which skew of degrees they
run on a core numbered hubs first, ``hub_numbering``."""

from __future__ import annotations

from ..core.arrays import array_module
from ..core.seam import optional_primitive
from ._backend import backend_for
from ._matrix import Matrix

__all__ = ["forest_outputs", "hub_numbering", "pruning_share"]


def forest_outputs(where, core, tree, core_levels, core_parents, shift, tree_parent,
                   attach_core, tree_depth, levels=None, parents=None):
    """Write a whole graph's ``levels`` and ``parents`` (either may be None) from a search
    of its core (:class:`spbfs.algorithms.forest.Forest`).

    ``where[g]`` is vertex ``g``'s core id, ``-2 - s`` for tree slot ``s``, or -1 (no
    edge); ``core`` and ``tree`` list the same split (vertex ``core[i]`` has core id ``i``,
    ``tree[s]`` is tree slot ``s``): a backend reads the form its passes need.  A core
    vertex takes the core's outputs at its core id: its level plus ``shift``, its parent
    (a core id) mapped to the graph's ids through ``core``.  Tree slot ``s`` is reached
    when its attachment (core id ``attach_core[s]``) is, ``tree_depth[s]`` levels below
    it, with parent ``tree_parent[s]``.  Every other vertex gets -1.  ``levels`` needs
    ``core_levels``, ``parents`` needs ``core_parents``.

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs import semiring
    >>> levels = np.empty(4, np.int64)         # core 0 and 3, vertex 1 below 0, 2 alone
    >>> semiring.forest_outputs(np.array([0, -2, -1, 1]), np.array([0, 3]), np.array([1]),
    ...                         np.array([0, -1]), None, 0, np.array([0]), np.array([0]),
    ...                         np.array([1]), levels=levels)
    >>> levels.tolist()
    [0, 1, -1, -1]
    """
    xp = array_module(where)
    kernel = optional_primitive(backend_for(xp), "forest_outputs")
    if kernel is not None and kernel(where, core, tree, core_levels, core_parents, shift,
                                     tree_parent, attach_core, tree_depth, levels, parents):
        return
    in_core = xp.flatnonzero(where >= 0)
    in_tree = xp.flatnonzero(where <= -2)
    at, slot = where[in_core], -2 - where[in_tree]
    above = (core_levels if levels is not None else core_parents)[attach_core[slot]]
    reached = above >= 0
    if levels is not None:
        levels.fill(-1)
        mine = core_levels[at]
        levels[in_core] = xp.where(mine >= 0, mine + shift, -1)
        levels[in_tree[reached]] = above[reached] + shift + tree_depth[slot[reached]]
    if parents is not None:
        parents.fill(-1)
        mine = core_parents[at]
        parents[in_core] = xp.where(mine >= 0, core[xp.maximum(mine, 0)], -1)
        parents[in_tree[reached]] = tree_parent[slot[reached]]


def pruning_share(A):
    """The trees' share of ``A``'s vertices with an edge from which its searches run on its
    core with its trees set after (:mod:`spbfs.algorithms.forest`), by the backend's
    measurements for its size; None where the backend states none (never).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> pruning_share(sp.csr_array(sp.eye(3))), pruning_share(sp.csr_array(sp.eye(1 << 16)))
    (None, 0.1)
    """
    M = Matrix.from_any(A)
    hint = optional_primitive(backend_for(M.xp), "pruning_share")
    return None if hint is None else hint(M.n)


def hub_numbering(A):
    """The share of a symmetric ``A``'s stored entries in the rows of its ``n / 64``
    vertices of largest degree from which its searches run on its core numbered hubs first,
    by degree class (:class:`spbfs.algorithms.forest.Forest`), whatever its trees' share,
    by the backend's measurements; None where the backend states none (never).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> hub_numbering(sp.csr_array(sp.eye(3))), hub_numbering(sp.csr_array(sp.eye(1 << 16)))
    (None, 0.25)
    """
    M = Matrix.from_any(A)
    hint = optional_primitive(backend_for(M.xp), "hub_numbering")
    return None if hint is None else hint(M.n)

