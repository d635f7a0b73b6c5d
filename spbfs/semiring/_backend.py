"""The one place a backend is chosen: the kernels for an array module.

The CPU backend is :mod:`spbfs.cpu.backend`; the GPU backend is :mod:`spbfs.gpu.backend`,
imported only when a cupy array arrives, so importing spbfs never needs a GPU.  Both define
the primitives listed in :mod:`spbfs.core.seam`, with the same signatures.
"""

from __future__ import annotations

import importlib

import numpy as np

#: The backend module of each array module seen (an import statement in the function cost
#: 3.5 us a call: every operation asks).
_BACKENDS: dict = {}


def backend_for(xp):
    """Kernel module for array module ``xp`` (numpy -> CPU, cupy -> GPU).

    Examples
    --------
    >>> import numpy as np
    >>> backend_for(np).__name__
    'spbfs.cpu.backend'
    """
    backend = _BACKENDS.get(xp)
    if backend is None:
        name = "spbfs.cpu.backend" if xp is np else "spbfs.gpu.backend"
        backend = _BACKENDS[xp] = importlib.import_module(name)
    return backend
