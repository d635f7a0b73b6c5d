"""spbfs: breadth-first search and graph algorithms as sparse linear algebra over semirings.

The same calls run on the CPU (numba kernels and scipy) and, given cupyx inputs, on the GPU.

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
from .algorithms.centrality import betweenness_centrality, edge_betweenness_centrality
from .algorithms.centrality_spectral import eigenvector_centrality, hits, katz_centrality
from .algorithms.closeness import closeness_centrality, harmonic_centrality
from .algorithms.clustering import clustering, square_clustering, transitivity
from .algorithms.communities import label_propagation, louvain, modularity
from .algorithms.components import connected_components
from .algorithms.cores import core_number, k_truss
from .algorithms.dag import is_directed_acyclic_graph, topological_generations
from .algorithms.degree import degree_centrality, degrees, isolates
from .algorithms.link_prediction import (
    adamic_adar_index,
    common_neighbor_centrality,
    common_neighbors,
    jaccard_coefficient,
    resource_allocation_index,
)
from .algorithms.pagerank import PowerIterationFailedConvergence, pagerank
from .algorithms.reciprocity import overall_reciprocity, reciprocity
from .algorithms.sssp import sssp
from .algorithms.triangles import triangle_count, triangles
from .cpu.threads import get_num_threads, set_num_threads
from .semiring._cache import clear_cache

__all__ = ["PowerIterationFailedConvergence", "adamic_adar_index", "betweenness_centrality", "bfs",
           "clear_cache", "closeness_centrality", "clustering", "common_neighbor_centrality",
           "common_neighbors", "connected_components", "core_number", "degree_centrality",
           "degrees", "edge_betweenness_centrality", "eigenvector_centrality", "get_num_threads",
           "harmonic_centrality", "hits", "is_directed_acyclic_graph", "isolates",
           "jaccard_coefficient", "k_truss", "katz_centrality", "label_propagation", "louvain",
           "modularity", "overall_reciprocity", "pagerank", "prepare", "reciprocity",
           "resource_allocation_index", "semiring", "set_num_threads", "square_clustering", "sssp",
           "topological_generations", "transitivity", "triangle_count", "triangles"]
__version__ = "0.1.0"
