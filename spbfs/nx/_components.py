"""Connected components through :func:`spbfs.algorithms.components.connected_components`.

Each NetworkX function is one small wrapper.  Weak and undirected components
come out in NetworkX's order (by their first node in ``G``'s node order: spbfs
numbers them by smallest row).  Strong components too on the CPU: the order in which a
depth-first search taking each node's arcs in NetworkX's adjacency order finishes them
(NetworkX's Tarjan search); on the GPU the same sets in a reverse topological order of
the condensation, from :data:`STRONG_GPU_MIN_ENTRIES` stored arcs (smaller graphs take
the host's search with the GPU configured too).
"""

from __future__ import annotations

from ..algorithms.components import connected_components as _connected_components
from ._registry import dispatched, gc_paused

__all__ = []

#: Strong components run on the GPU from this many stored arcs; below, on the host copy
#: with the GPU configured too.  One H200 and its host (16 cores), the finish-ordered
#: labels of Kronecker digraphs (edgefactor 10), host / device: 11.7 / 15.5 ms at 1.24M
#: arcs, 53.3 / 12.4 at 5.1M, 507 / 25.8 at 20.5M (docs/benchmarks.md): the device's
#: rounds cost about 12 ms whatever the size, the host's search about 10 ns an arc.
STRONG_GPU_MIN_ENTRIES = 3 << 19


def _labels(G, strong):
    """Each row's component, numbered in the order NetworkX yields the components."""
    if strong and G.is_directed():
        # on the CPU, a search taking NetworkX's arc order finishes components in the order
        # of NetworkX's Tarjan search (the GPU numbers them by the rule either way)
        M = G.csr() if G.on_gpu(STRONG_GPU_MIN_ENTRIES) else G.matrix(False)
        return _connected_components(M, connection="strong", strong_numbering="finish")[1]
    return _connected_components(G.csr(), directed=G.is_directed())[1]


def _count(G, strong):
    if not len(G):
        return 0
    gpu = G.on_gpu(STRONG_GPU_MIN_ENTRIES if strong and G.is_directed() else 0)
    return int(_connected_components(G.csr(gpu), directed=G.is_directed(),
                                     connection="strong" if strong else "weak",
                                     return_labels=False, strong_numbering="finish"))


def _sets(G, strong):
    """An iterator over the components' node sets, made together with the collector paused
    (made one by one between yields, each allocation could start a collection that walks
    the caller's whole graph): a list's iterator, not a generator's frames (three levels of
    them took 36 ms for 49,282 components on the VM, a third of the call)."""
    return iter(gc_paused(_all_sets)(G, strong))


def _all_sets(G, strong):
    return G.node_sets(_labels(G, strong)) if len(G) else []


def _connected(G, strong):
    import networkx as nx

    if not len(G):
        raise nx.NetworkXPointlessConcept("Connectivity is undefined for the null graph.")
    if len(G) > 1 and G._indptr[1] == G._indptr[0]:  # NetworkX's answer at its first node,
        # often: a first node without arcs out is not strongly connected, nor connected
        # where it has no arcs in either (an undirected graph's; the transpose's row kept)
        if strong or not G.is_directed():
            return False
        R = G.reverse(ordered=False)
        if R._indptr[1] == R._indptr[0]:
            return False
    return _count(G, strong) == 1


def _undirected(arguments):
    return True if not arguments["G"].is_directed() else "G is directed"


def _directed(arguments):
    return True if arguments["G"].is_directed() else "G is undirected"


_SAME = "Same sets, in NetworkX's order."


@dispatched(can_run=_undirected, docs=_SAME)
def connected_components(G):
    """NetworkX's ``connected_components``: a generator of node sets.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.Graph([(3, 4), (1, 2)])
    >>> list(nx.connected_components(G, backend="spbfs"))
    [{3, 4}, {1, 2}]
    """
    return _sets(G, False)


@dispatched(can_run=_undirected, docs="Components of the pattern, counted (no sets built).")
def number_connected_components(G):
    """NetworkX's ``number_connected_components``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.number_connected_components(nx.Graph([(3, 4), (1, 2)]), backend="spbfs")
    2
    """
    return _count(G, False)


@dispatched(can_run=_undirected, docs="Components of the pattern, counted; the null graph raises "
            "NetworkXPointlessConcept, as NetworkX.")
def is_connected(G):
    """NetworkX's ``is_connected``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.is_connected(nx.path_graph(3), backend="spbfs")
    True
    """
    return _connected(G, False)


@dispatched(can_run=_directed, docs=_SAME)
def weakly_connected_components(G):
    """NetworkX's ``weakly_connected_components``: a generator of node sets.

    Examples
    --------
    >>> import networkx as nx
    >>> list(nx.weakly_connected_components(nx.DiGraph([(2, 1), (3, 4)]), backend="spbfs"))
    [{1, 2}, {3, 4}]
    """
    return _sets(G, False)


@dispatched(can_run=_directed, docs="Weak components of the arcs, counted (no sets built).")
def number_weakly_connected_components(G):
    """NetworkX's ``number_weakly_connected_components``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.number_weakly_connected_components(nx.DiGraph([(2, 1)]), backend="spbfs")
    1
    """
    return _count(G, False)


@dispatched(can_run=_directed, docs="Weak components of the arcs, counted; the null graph raises "
            "NetworkXPointlessConcept, as NetworkX.")
def is_weakly_connected(G):
    """NetworkX's ``is_weakly_connected``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.is_weakly_connected(nx.DiGraph([(2, 1), (3, 4)]), backend="spbfs")
    False
    """
    return _connected(G, False)


@dispatched(can_run=_directed, docs="Same sets, in NetworkX's order on the CPU (its Tarjan "
            "search's), and with the GPU configured below 1.5M stored arcs (the host's "
            "search); from there on the GPU, in a reverse topological order of the "
            "condensation.")
def strongly_connected_components(G):
    """NetworkX's ``strongly_connected_components``: a generator of node sets.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.DiGraph([(1, 2), (2, 1), (2, 3)])
    >>> sorted(map(sorted, nx.strongly_connected_components(G, backend="spbfs")))
    [[1, 2], [3]]
    """
    return _sets(G, True)


@dispatched(can_run=_directed, docs="Strong components, counted (no sets built).")
def number_strongly_connected_components(G):
    """NetworkX's ``number_strongly_connected_components``.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.DiGraph([(1, 2), (2, 1), (2, 3)])
    >>> nx.number_strongly_connected_components(G, backend="spbfs")
    2
    """
    return _count(G, True)


@dispatched(can_run=_directed, docs="Strong components, counted; the null graph raises "
            "NetworkXPointlessConcept, as NetworkX.")
def is_strongly_connected(G):
    """NetworkX's ``is_strongly_connected``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.is_strongly_connected(nx.cycle_graph(3, create_using=nx.DiGraph), backend="spbfs")
    True
    """
    return _connected(G, True)
