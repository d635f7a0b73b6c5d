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
beside its index (:func:`_lock_cache_files`): exclusive to save, shared to load.  A save
also writes a new signature's data file before the index that names it, not after, so a
process stopped in the middle leaves no index entry naming another version's code.
"""

from __future__ import annotations

import functools
import itertools
import warnings

import numba

__all__ = ["kernel"]


def _lock_cache_files():
    """Wrap numba's ``IndexDataCacheFile.save`` and ``load`` in an ``fcntl`` lock on
    ``<index>.lock`` (exclusive / shared), the save writing its data before its index;
    where the lock file cannot be opened, or numba or the platform lacks what this needs,
    they run unlocked as before."""
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

    def save_data_first(self, key, data):
        """numba's ``save`` with its two writes the other way round: a new entry's data
        file, then the index naming it.  numba writes the index first, so a process
        stopped between the two (a time limit, a kill, a full disk) leaves the index
        naming a data file that still holds the code of an older version of the source
        (numba numbers data files afresh when the source changes and overwrites them only
        as it goes): later loads ran that code for this signature (a segmentation fault in
        ``spbfs.cpu.permute``, wrong results elsewhere).  In this order a stop leaves an
        entry unnamed, compiled again by the next process."""
        overloads = self._load_index()
        name = overloads.get(key)
        if name is None:
            taken = set(overloads.values())
            name = next(n for n in map(self._data_name, itertools.count(1)) if n not in taken)
            self._save_data(name, data)
            overloads[key] = name
            self._save_index(overloads)
        else:
            self._save_data(name, data)

    IndexDataCacheFile.save = locked(save_data_first, fcntl.LOCK_EX)
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
