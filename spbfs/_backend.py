"""The backend seam: pick the kernels for an array module.

The CPU backend is :mod:`spbfs.semiring._cpu`; the GPU backend is
:mod:`spbfs.gpu.backend`, imported only when a cupy array arrives, so
importing spbfs never needs a GPU.  Both expose the same functions with the
same signatures: ``spmspv``, ``spmv``, ``binary``, ``index_unary``,
``segment_reduce``, ``masked_dot``, ``spmm``, ``packed_push``, ``packed_pull``,
``unpack_bitplanes`` and ``bitmap_search``.
"""

from __future__ import annotations

import numpy as np


def backend_for(xp):
    """Kernel module for array module ``xp`` (numpy -> CPU, cupy -> GPU)."""
    if xp is np:
        from .semiring import _cpu

        return _cpu
    from .gpu import backend

    return backend
