"""Array-module helpers: which library (numpy or cupy) holds an array, whether a GPU is there,
and the index dtype that fits a size."""

from __future__ import annotations

import numpy as np

__all__ = ["INT32_MAX", "array_module", "gpu_available", "index_dtype", "is_cupy",
           "require_gpu", "stable_order", "to_numpy"]

#: The largest int32: sizes up to it are indexed with int32 (:func:`index_dtype`).
INT32_MAX = np.iinfo(np.int32).max


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


def index_dtype(n: int, nnz: int = 0) -> np.dtype:
    """int32 when ``n`` and ``nnz`` fit, else int64 (never overflow silently).

    The one home of this rule: vertex ids, row pointers and positions take the dtype it
    gives for their largest value.

    Examples
    --------
    >>> index_dtype(10), index_dtype(2**31 + 5)
    (dtype('int32'), dtype('int64'))
    """
    return np.dtype(np.int32 if max(n, nnz) <= INT32_MAX else np.int64)


def stable_order(keys, bound):
    """The positions that sort the non-negative integers ``keys`` (all below ``bound``),
    equal keys in their order: numpy's stable sort of 16-bit keys is a radix sort, so keys
    below ``2**16`` are sorted as such (4-7 times faster than as int64 for 131,072 keys).

    Examples
    --------
    >>> import numpy as np
    >>> stable_order(np.array([2, 0, 2, 1]), 3).tolist()
    [1, 3, 0, 2]
    """
    xp = array_module(keys)
    if bound <= 1 << 16:
        keys = keys.astype(np.uint16)
    return xp.argsort(keys, kind="stable")


def gpu_available() -> bool:
    """True when CuPy imports and sees a CUDA device (False on any failure: no CuPy, no
    driver, no device).

    Examples
    --------
    >>> isinstance(gpu_available(), bool)
    True
    """
    try:
        import cupy

        return bool(cupy.cuda.is_available())
    except Exception:  # noqa: BLE001 - ImportError or a CUDA driver error: no usable GPU
        return False


def require_gpu(setting: str) -> None:
    """Raise ``RuntimeError: {setting} but CuPy sees no CUDA GPU`` unless a GPU is there: the
    one wording of an explicit request for the GPU (``setting``: what asked, e.g.
    ``"device='gpu'"``) on a machine without one.

    Examples
    --------
    >>> try:
    ...     require_gpu("device='gpu'")
    ... except RuntimeError as e:
    ...     str(e) == "device='gpu' but CuPy sees no CUDA GPU"
    ... else:
    ...     gpu_available()
    True
    """
    if not gpu_available():
        raise RuntimeError(f"{setting} but CuPy sees no CUDA GPU")
