"""The one place a backend is chosen: the kernels for an array module.

The CPU backend is :mod:`spbfs.cpu.backend`; the GPU backend is :mod:`spbfs.gpu.backend`,
imported only when a cupy array arrives, so importing spbfs never needs a GPU.  Both define
the primitives listed in :mod:`spbfs.core.seam`, with the same signatures.
"""

from __future__ import annotations

import numpy as np


def backend_for(xp):
    """Kernel module for array module ``xp`` (numpy -> CPU, cupy -> GPU).

    Examples
    --------
    >>> import numpy as np
    >>> backend_for(np).__name__
    'spbfs.cpu.backend'
    """
    try:
        return _CHOSEN[xp]   # an import statement costs 0.5 us even when done
    except KeyError:
        pass
    if xp is np:
        from ..cpu import backend
    else:
        from ..gpu import backend
    _CHOSEN[xp] = backend
    return backend


#: The backend of each array module seen, by :func:`backend_for`.
_CHOSEN: dict = {}
