"""Strong components from a backend's depth-first search, where it has one.

Strong connectivity has no cheap product form: the generic algorithm
(:func:`spbfs.algorithms.components.connected_components`) runs forward-backward searches,
trims and a numbering of the condensation, each a pass over the arcs.  A backend with a
``strong_components`` primitive (the CPU: one kernel, each arc read once) answers the whole
question in one call.
"""

from __future__ import annotations

from ._backend import backend_for
from ._matrix import Matrix

__all__ = ["searched_strong_components"]


def searched_strong_components(A):
    """``(number of components, labels)`` of the directed graph ``A``, numbered by the rule
    of :func:`spbfs.algorithms.components.connected_components`, from the backend's search;
    None where the backend has none (then the caller runs the generic algorithm).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> A = sp.csr_array(np.array([[0, 1, 0, 0], [0, 0, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0]]))
    >>> searched_strong_components(A)
    (3, array([1, 0, 2, 2], dtype=int32))
    """
    M = Matrix.from_any(A, name="A")
    search = getattr(backend_for(M.xp), "strong_components", None)
    return search(M.indptr, M.indices) if search is not None else None
