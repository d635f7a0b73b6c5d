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
from .algorithms import centrality, components, msbfs  # noqa: F401  (modules, as before)
from .algorithms.bfs import bfs, prepare
from .algorithms.centrality import betweenness_centrality
from .algorithms.clustering import clustering, square_clustering, transitivity
from .algorithms.components import connected_components
from .algorithms.pagerank import PowerIterationFailedConvergence, pagerank
from .algorithms.sssp import sssp
from .algorithms.triangles import triangles
from .semiring._cache import clear_cache

__all__ = ["PowerIterationFailedConvergence", "betweenness_centrality", "bfs", "clear_cache",
           "clustering", "connected_components", "pagerank", "prepare", "semiring",
           "square_clustering", "sssp", "transitivity", "triangles"]
__version__ = "0.1.0"
