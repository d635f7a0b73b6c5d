"""GPU memory checks: fail with a clear error before any allocation of graph size."""

from __future__ import annotations

__all__ = ["GPUMemoryError", "available_bytes", "check_fits", "out_of_memory"]

#: What every GPU memory error suggests.
WAY_OUT = ("run it with spbfs.dist over several GPUs, or on the CPU (pass a scipy.sparse "
           "matrix)")


class GPUMemoryError(MemoryError):
    """Raised when a GPU operation needs more device memory than is available.

    Parameters
    ----------
    what : str
        What was being built.
    needed, available : int
        Bytes needed and bytes available (free device memory plus memory
        cached free in CuPy's pool).
    detail : str, optional
        How ``needed`` splits (graph, search state...).

    Examples
    --------
    >>> err = GPUMemoryError("BFS workspace", 3 << 30, 1 << 30)
    >>> isinstance(err, MemoryError), err.needed
    (True, 3221225472)
    >>> print(err)  # doctest: +NORMALIZE_WHITESPACE
    BFS workspace needs 3.22 GB of GPU memory but only 1.07 GB is available; run it with
    spbfs.dist over several GPUs, or on the CPU (pass a scipy.sparse matrix)
    """

    def __init__(self, what: str, needed: int, available: int, detail: str = ""):
        self.what, self.needed, self.available = what, int(needed), int(available)
        detail = f" ({detail})" if detail else ""
        super().__init__(f"{what} needs {needed / 1e9:.2f} GB of GPU memory{detail} but only "
                         f"{available / 1e9:.2f} GB is available; {WAY_OUT}")


def available_bytes() -> int:
    """Free device memory plus what CuPy's default pool holds unused, in bytes.

    Examples
    --------
    >>> from spbfs.gpu.memory import available_bytes
    >>> available_bytes() > 0  # doctest: +SKIP
    True
    """
    import cupy

    free, _total = cupy.cuda.runtime.memGetInfo()
    pool = cupy.get_default_memory_pool()
    avail = int(free) + int(pool.free_bytes())
    limit = int(pool.get_limit())
    if limit:  # a pool limit (set_limit / CUPY_GPU_MEMORY_LIMIT) caps what CuPy may hold
        avail = min(avail, limit - int(pool.used_bytes()))
    return max(avail, 0)


def out_of_memory(what: str, exc: BaseException, needed: int = 0) -> GPUMemoryError:
    """A :class:`GPUMemoryError` for a CuPy allocation failure, after freeing CuPy's cached
    blocks so that the process stays usable (nothing of the failed call is kept).

    Examples
    --------
    >>> err = out_of_memory("preparing A", MemoryError("out of memory"))  # doctest: +SKIP
    >>> isinstance(err, MemoryError)                                       # doctest: +SKIP
    True
    """
    import cupy

    cupy.get_default_memory_pool().free_all_blocks()
    needed = needed or int(getattr(exc, "size", 0) or 0)
    return GPUMemoryError(what, needed, available_bytes(), f"CuPy: {exc}")


def check_fits(what: str, needed: int, margin: int = 64 << 20, detail: str = "") -> None:
    """Raise :class:`GPUMemoryError` unless ``needed`` (+ ``margin``) bytes are available.

    Examples
    --------
    >>> from spbfs.gpu.memory import check_fits
    >>> check_fits("a huge graph", 1 << 60)  # doctest: +SKIP
    Traceback (most recent call last):
        ...
    spbfs.gpu.memory.GPUMemoryError: a huge graph needs 1152921504.61 GB of GPU memory ...
    """
    avail = available_bytes()
    if needed + margin > avail:
        raise GPUMemoryError(what, needed + margin, avail, detail)
