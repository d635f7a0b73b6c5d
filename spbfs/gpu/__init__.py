"""GPU backend of spbfs: CUDA kernels compiled once through CuPy.

Nothing here imports CuPy at import time; the modules import it when a GPU
array arrives, so ``import spbfs.gpu`` works on a machine without CuPy.

* :mod:`spbfs.gpu.backend` -- ``spmspv`` (push) and ``spmv`` (pull) for any
  semiring, generated from its C expressions (the CPU backend's signatures).
* :mod:`spbfs.gpu.bfs` -- the bitmap level search (visited bitmap, load-balanced
  push with hub chunks, warp pull with early exit): the GPU backend's
  ``bitmap_search``, the engine of :func:`spbfs.bfs` for GPU input.
* :mod:`spbfs.gpu.build` -- undirected CSR from an edge list on the device
  (counting sort), :func:`~spbfs.gpu.build.csr_from_edges`.
* :mod:`spbfs.gpu.memory` -- :class:`~spbfs.gpu.memory.GPUMemoryError` and
  the free-memory check used before any allocation of graph size.

Examples
--------
>>> import cupy, cupyx.scipy.sparse as csp, spbfs          # doctest: +SKIP
>>> A = csp.random(1000, 1000, density=0.01, format="csr")  # doctest: +SKIP
>>> levels = spbfs.bfs(A, 0)                                # doctest: +SKIP
>>> type(levels).__module__                                 # doctest: +SKIP
'cupy'
"""

from .memory import GPUMemoryError

__all__ = ["GPUMemoryError"]
