"""The ``spbfs`` NetworkX backend: NetworkX functions run as semiring algorithms.

Installed with spbfs (entry points ``networkx.backends`` and
``networkx.backend_info``).  Dispatched: BFS traversals, the shortest-path family
(unweighted, Dijkstra, Bellman-Ford for non-negative weights, Floyd-Warshall),
components, PageRank and HITS, betweenness, degree / eigenvector / Katz /
closeness / harmonic centrality, triangles and clustering, cores, DAG
generations, reciprocity, isolates and link prediction; the full list is
:data:`FUNCTIONS`, the caveats are in each entry's docs (``backend_info``).

Call a NetworkX function with ``backend="spbfs"``, pass a
:class:`SpbfsGraph`, or list ``"spbfs"`` in ``nx.config.backend_priority``
to dispatch automatically.  Results equal
NetworkX's in value, type and order; arguments whose results would differ
(``sort_neighbors``, callable weights, negative or mixed-type weights, ...)
run in NetworkX itself.  ``nx.config.backends.spbfs.device`` chooses
``"cpu"``, ``"gpu"`` or ``"auto"``.

Examples
--------
>>> import networkx as nx
>>> G = nx.Graph([("a", "b"), ("a", "c"), ("c", "d")])
>>> list(nx.bfs_edges(G, "a", backend="spbfs"))
[('a', 'b'), ('a', 'c'), ('c', 'd')]
>>> nx.single_source_shortest_path_length(nx.Graph(G), "d", backend="spbfs")
{'d': 0, 'c': 1, 'a': 2, 'b': 3}
"""

# networkx first: its import ends by calling our get_info (spbfs.nx._info), which must not
# find this package half-imported with its settings module in the middle of loading
import networkx  # noqa: F401, I001

from ._config import SpbfsConfig
from ._graph import SpbfsGraph, convert_from_nx, convert_to_nx
from ._info import get_info
from ._interface import KNOWN_DIFFERENCES, BackendInterface, backend_interface
from ._registry import FUNCTIONS

# more dispatched functions: their decorators fill the registry
__all__ = [
    "FUNCTIONS", "KNOWN_DIFFERENCES", "BackendInterface", "SpbfsConfig", "SpbfsGraph",
    "backend_interface", "convert_from_nx", "convert_to_nx", "get_info",
]
