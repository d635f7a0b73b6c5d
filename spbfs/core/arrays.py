"""Array-module helpers: which library (numpy or cupy) holds an array."""

from __future__ import annotations

import numpy as np


def is_cupy(obj) -> bool:
    """True when ``obj`` is a cupy array or a cupyx.scipy.sparse matrix."""
    module = type(obj).__module__
    return module.startswith("cupy") and module[4:5] in ("", ".", "x")


def array_module(*objs):
    """Return ``cupy`` if any of ``objs`` lives on the GPU, else ``numpy``.

    Examples
    --------
    >>> import numpy as np
    >>> array_module(np.arange(3)).__name__
    'numpy'
    """
    for o in objs:
        namespace = getattr(o, "__spbfs_namespace__", None)   # a distributed array
        if namespace is not None:
            return namespace()
    if any(is_cupy(o) for o in objs if o is not None):
        import cupy

        return cupy
    return np


def to_numpy(arr):
    """Copy ``arr`` to the host if it is a cupy array (no copy for numpy)."""
    return arr.get() if is_cupy(arr) else np.asarray(arr)
