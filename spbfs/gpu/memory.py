"""GPU memory checks: fail with a clear error before any allocation of graph size."""

from __future__ import annotations

__all__ = ["GPUMemoryError", "available_bytes", "check_fits"]


class GPUMemoryError(MemoryError):
    """Raised when a GPU operation needs more device memory than is available.

    Parameters
    ----------
    what : str
        What was being built.
    needed, available : int
        Bytes needed and bytes available (free device memory plus memory
        cached free in CuPy's pool).

    Examples
    --------
    >>> err = GPUMemoryError("BFS workspace", 3 << 30, 1 << 30)
    >>> isinstance(err, MemoryError), err.needed
    (True, 3221225472)
    >>> print(err)
    BFS workspace needs 3.22 GB of GPU memory but only 1.07 GB is available
    """

    def __init__(self, what: str, needed: int, available: int):
        self.what, self.needed, self.available = what, int(needed), int(available)
        super().__init__(f"{what} needs {needed / 1e9:.2f} GB of GPU memory but only "
                         f"{available / 1e9:.2f} GB is available")


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
    return int(free) + int(cupy.get_default_memory_pool().free_bytes())


def check_fits(what: str, needed: int, margin: int = 64 << 20) -> None:
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
        raise GPUMemoryError(what, needed + margin, avail)
