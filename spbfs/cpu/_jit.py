"""The one way CPU kernels are compiled: numba's ``njit`` with ``nogil=True`` (Python threads
run kernels side by side) and ``cache=True`` (compiled once per machine, on first call, then
loaded from disk) where a cache directory is writable.

numba looks for a writable ``__pycache__`` beside the source, then ``NUMBA_CACHE_DIR``, then
the user's cache directory; on a read-only install with none of them it refuses
``cache=True`` at decoration, and :func:`kernel` then compiles without a cache, so such an
install still imports and runs (each process compiles its kernels on first use).

numba's cache file of a function is an index (signature -> data file) and one data file per
signature; a process saving a new signature reads the index, picks the first free data
file name, writes the index and then the data, with no lock.  Two processes compiling two
signatures of one function at once (MPI ranks on one host, test runs side by side) can
leave the index pointing a signature at the other's code, which a later process loads and
runs: a wrong result or a segmentation fault (six processes each compiling one signature
of a cached function, 15 times from an empty cache: 4 caches left so).  So on POSIX systems
importing this module makes numba's saves and loads of a cache file take a lock on a file
beside its index (:func:`_lock_cache_files`): exclusive to save, shared to load.
"""

from __future__ import annotations

import functools
import warnings

import numba

__all__ = ["kernel"]


def _lock_cache_files():
    """Wrap numba's ``IndexDataCacheFile.save`` and ``load`` in an ``fcntl`` lock on
    ``<index>.lock`` (exclusive / shared); where the lock file cannot be opened, or numba
    or the platform lacks what this needs, they run unlocked as before."""
    try:
        import fcntl

        from numba.core.caching import IndexDataCacheFile
    except ImportError:
        return
    if getattr(IndexDataCacheFile, "_spbfs_locked", False):
        return

    def locked(method, mode):
        @functools.wraps(method)
        def run(self, *args, **kwargs):
            path = getattr(self, "_index_path", None)
            try:
                handle = open(f"{path}.lock", "a") if path else None
            except OSError:
                handle = None
            if handle is None:
                return method(self, *args, **kwargs)
            with handle:  # closing it releases the lock
                fcntl.flock(handle, mode)
                return method(self, *args, **kwargs)
        return run

    IndexDataCacheFile.save = locked(IndexDataCacheFile.save, fcntl.LOCK_EX)
    IndexDataCacheFile.load = locked(IndexDataCacheFile.load, fcntl.LOCK_SH)
    IndexDataCacheFile._spbfs_locked = True


_lock_cache_files()


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
