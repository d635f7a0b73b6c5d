"""The one way CPU kernels are compiled: numba's ``njit`` with ``nogil=True`` (Python threads
run kernels side by side) and ``cache=True`` (compiled once per machine, on first call, then
loaded from disk) where a cache directory is writable.

numba looks for a writable ``__pycache__`` beside the source, then ``NUMBA_CACHE_DIR``, then
the user's cache directory; on a read-only install with none of them it refuses
``cache=True`` at decoration, and :func:`kernel` then compiles without a cache, so such an
install still imports and runs (each process compiles its kernels on first use).
"""

from __future__ import annotations

import warnings

import numba

__all__ = ["kernel"]


def kernel(func=None, **options):
    """``numba.njit(nogil=True, cache=True, **options)``, without the cache when no cache
    directory is writable.

    Examples
    --------
    >>> @kernel
    ... def twice(x):
    ...     return 2 * x
    >>> twice(21)
    42
    """
    if func is None:
        return lambda f: kernel(f, **options)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", numba.NumbaWarning)
            return numba.njit(nogil=True, cache=True, **options)(func)
    except RuntimeError as exc:  # "cannot cache function ...: no locator available"
        if "cache" not in str(exc):
            raise
        return numba.njit(nogil=True, cache=False, **options)(func)
