"""Components from a backend's own search, where it has one.

Neither kind of component has a cheap product form.  The generic algorithms
(:func:`spbfs.algorithms.components.connected_components`) run FastSV for weak components
(a few products over the symmetrised pattern per round) and, for strong ones,
forward-backward searches, trims and a numbering of the condensation, each a pass over the
arcs.  A backend with a ``weak_components`` or ``strong_components`` primitive (the CPU:
one kernel each, every arc read once; the GPU: ``weak_components``, a concurrent
union-find) answers the whole question in one call.
"""

from __future__ import annotations

from ..core.seam import optional_primitive
from ._backend import backend_for
from ._dispatch import distributed
from ._matrix import Matrix

__all__ = ["searched_components"]


def searched_components(A, strong: bool, strong_numbering: str = "rule"):
    """``(number of components, labels)`` of the directed graph ``A``, numbered by the rule
    of :func:`spbfs.algorithms.components.connected_components` (weak: an arc joins its
    ends either way; strong: ``strong_numbering`` as there), from the backend's search;
    None where the backend has none or ``A`` is spread over ranks (then the caller runs
    the generic algorithm).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> A = sp.csr_array(np.array([[0, 1, 0, 0], [0, 0, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0]]))
    >>> searched_components(A, strong=True)
    (3, array([1, 0, 2, 2], dtype=int32))
    >>> searched_components(A, strong=False)
    (2, array([0, 0, 1, 1], dtype=int32))
    """
    if distributed(A) is not None:  # a matrix over ranks: the generic algorithm's products
        return None
    M = Matrix.from_any(A, name="A")
    backend = backend_for(M.xp)
    if strong:
        search = optional_primitive(backend, "strong_components")
        return (search(M.indptr, M.indices, strong_numbering) if search is not None
                else None)
    search = optional_primitive(backend, "weak_components")
    return search(M.indptr, M.indices, M.symmetric) if search is not None else None
