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
from .centrality import betweenness_centrality
from .components import connected_components
from .pagerank import PowerIterationFailedConvergence, pagerank
from .semiring._cache import clear_cache
from .sssp import sssp
from .triangles import triangles

__all__ = ["PowerIterationFailedConvergence", "betweenness_centrality", "bfs", "clear_cache",
           "connected_components", "pagerank", "prepare", "semiring", "sssp", "triangles"]
__version__ = "0.1.0"
