"""spbfs: breadth-first search and graph algorithms as sparse linear algebra over semirings.

The same calls run on the CPU (numpy/scipy) and, given cupyx inputs, on the GPU.

Examples
--------
>>> import numpy as np, scipy.sparse as sp
>>> import spbfs
>>> A = sp.csr_array(np.array([[0, 1, 0], [0, 0, 1], [0, 0, 0]]))
>>> spbfs.bfs(A, 0).tolist()
[0, 1, 2]
"""

from . import semiring
from .bfs import bfs, prepare
from .semiring._cache import clear_cache
from .sssp import sssp

__all__ = ["bfs", "clear_cache", "prepare", "semiring", "sssp"]
__version__ = "0.1.0"
