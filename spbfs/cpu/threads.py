"""How many threads a CPU call uses, and the pool that runs compiled kernels over ranges.

The CPU kernels release the GIL (``nogil``); a call splits its rows (or vertices) into
ranges and runs one kernel per range on a shared pool of Python threads
(:func:`run_ranges`), whose workers call a compiled kernel through its thunk without
taking the GIL (:func:`run_kernel`, :mod:`spbfs.cpu._thunks`).  numba's own
``parallel=True`` is not used: its default ``workqueue`` layer aborts the process when two
threads enter parallel code at once, and spbfs promises that concurrent calls are safe.

The count is :func:`get_num_threads`: :func:`set_num_threads`, else the environment
variable ``SPBFS_NUM_THREADS``, else the cores this process may run on divided by the MPI
ranks sharing its host (``OMPI_COMM_WORLD_LOCAL_SIZE``, ``MPI_LOCALNRANKS``), at least 1.
"""

from __future__ import annotations

import functools
import itertools
import os
import threading
from concurrent.futures import ThreadPoolExecutor

__all__ = ["get_num_threads", "run_kernel", "run_ranges", "set_num_threads", "split"]

_LOCAL_RANKS_VARS = ("OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "PMI_LOCAL_SIZE",
                     "SLURM_NTASKS_PER_NODE")
_chosen: int | None = None
_pool: ThreadPoolExecutor | None = None
_pool_size = 0
_spinning = None  # the SpinPool
_WORKER_NAME = "spbfs-cpu"  # the pools' threads' names start so
_lock = threading.Lock()
#: Ranges from which :func:`run_kernel` calls a kernel's thunk: below, the workers' few
#: turns at the GIL cost less than packing the arguments (about 40 us for a dozen).
COMPILED_FROM = 4


def _positive(value, name) -> int:
    try:
        n = int(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a positive integer, got {value!r}") from None
    if n < 1 or isinstance(value, bool):
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return n


@functools.cache
def default_num_threads() -> int:
    """The cores available to this process, shared among the MPI ranks on its host (read
    once).

    Examples
    --------
    >>> default_num_threads() >= 1
    True
    """
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (
        os.cpu_count() or 1)
    for var in _LOCAL_RANKS_VARS:
        value = os.environ.get(var, "")
        if value.isdigit() and int(value) > 0:
            return max(1, cores // int(value))
    return max(1, cores)


def get_num_threads() -> int:
    """Threads a CPU call uses (see the module's description).

    Examples
    --------
    >>> get_num_threads() >= 1
    True
    """
    if _chosen is not None:
        return _chosen
    env = os.environ.get("SPBFS_NUM_THREADS")
    if env:
        return _positive(env, "SPBFS_NUM_THREADS")
    return default_num_threads()


def set_num_threads(n: int | None) -> None:
    """Use ``n`` threads per CPU call from now on (``None``: back to the default).

    Examples
    --------
    >>> set_num_threads(1); get_num_threads()
    1
    >>> set_num_threads(None)
    """
    global _chosen
    _chosen = None if n is None else _positive(n, "n")


def split(total: int, parts: int, weights=None):
    """``parts`` contiguous ranges ``[lo, hi)`` covering ``0..total``, of equal size or, with
    cumulative ``weights`` (length ``total + 1``, e.g. a CSR's ``indptr``), of equal weight.

    Examples
    --------
    >>> split(10, 3)
    [(0, 3), (3, 6), (6, 10)]
    """
    parts = max(1, min(parts, total))
    if parts == 1:  # most calls: a few microseconds of numpy saved
        return [(0, total)] if total > 0 else [(0, 0)]
    if weights is None:
        bounds = [total * k // parts for k in range(parts + 1)]
    else:
        import numpy as np

        lo, hi = int(weights[0]), int(weights[-1])
        targets = [lo - (lo - hi) * k // parts for k in range(1, parts)]  # rounded up
        # in the weights' own dtype (they lie between its first and last): targets of
        # another type would make numpy cast the whole array first (4 ms for 4M int32)
        targets = np.asarray(targets, dtype=np.asarray(weights).dtype)
        bounds = [0, *np.searchsorted(weights, targets).tolist(), total]
        bounds = list(itertools.accumulate((min(b, total) for b in bounds), max))
    return [(a, b) for a, b in zip(bounds[:-1], bounds[1:], strict=True) if b > a] or [(0, 0)]


def _executor(size: int) -> ThreadPoolExecutor:
    global _pool, _pool_size
    with _lock:
        if _pool is None or _pool_size < size:
            _pool = ThreadPoolExecutor(max_workers=size, thread_name_prefix=_WORKER_NAME)
            _pool_size = size
        return _pool


def _spin_pool(size: int):
    global _spinning
    with _lock:
        if _spinning is None or _spinning.size < size:
            from ._spin import SpinPool  # numba: imported with the first kernel

            if _spinning is not None:
                _spinning.close()
            _spinning = SpinPool(size, _WORKER_NAME)
        return _spinning


def _forget_pools() -> None:  # a forked child has none of its parent's threads
    global _pool, _pool_size, _spinning
    _pool, _pool_size, _spinning = None, 0, None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pools)


def run_ranges(func, ranges):
    """``[func(*r) for r in ranges]`` (each ``r`` a range ``(lo, hi, ...)``), the ranges
    after the first on the pool (the caller's thread runs the first one), results in order.
    ``func`` should release the GIL.

    The pool's workers wait for ranges spinning (:class:`spbfs.cpu._spin.SpinPool`), one
    call at a time; a call made while another holds them (from another Python thread) runs
    on a pool of sleeping threads instead, and one made from inside a range runs its ranges
    one after another.

    Examples
    --------
    >>> run_ranges(lambda lo, hi: hi - lo, [(0, 3), (3, 10)])
    [3, 7]
    """
    if len(ranges) <= 1 or threading.current_thread().name.startswith(_WORKER_NAME):
        return [func(*r) for r in ranges]  # inside a range: waiting on the pool could stall
    results = _spin_pool(len(ranges) - 1).try_run(func, ranges)
    if results is not None:
        return results
    pool = _executor(len(ranges) - 1)
    futures = [pool.submit(func, *r) for r in ranges[1:]]
    first = func(*ranges[0])
    return [first, *(f.result() for f in futures)]


def run_kernel(kernel, ranges, *args):
    """``[kernel(*r, *args) for r in ranges]`` for a compiled ``kernel`` whose ranges ``r``
    are tuples of integers and whose ``args`` are numbers and C-contiguous arrays, results
    as integers (0 for none) after the first.

    As :func:`run_ranges`, but the pool's workers call the kernel through its thunk
    (:mod:`spbfs.cpu._thunks`) without taking the GIL, so a parallel call costs about what
    the kernels do (a Python call on each worker costs sixteen of them about 0.2 ms,
    queueing for the GIL).  Arguments a thunk cannot take run as :func:`run_ranges` does.

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs.cpu.bfs import _count_bits
    >>> bits = np.array([1, 3, 7, 15], np.uint64)
    >>> run_kernel(_count_bits, [(0, 2), (2, 4)], bits)
    [3, 7]
    """
    if len(ranges) <= 1 or threading.current_thread().name.startswith(_WORKER_NAME):
        return [kernel(*r, *args) for r in ranges]
    if len(ranges) >= COMPILED_FROM:
        from ._thunks import thunk  # numba: imported with the first kernel

        compiled = thunk(kernel, len(ranges[0]), args)
        if compiled is not None:
            results = _spin_pool(len(ranges) - 1).try_run_compiled(kernel, compiled, ranges,
                                                                   args)
            if results is not None:
                return results
    return run_ranges(lambda *r: kernel(*r, *args), ranges)
