"""Isolates, reciprocity, DAG tests, topological generations and core numbers through
:mod:`spbfs.algorithms.degree`, :mod:`~spbfs.algorithms.reciprocity`,
:mod:`~spbfs.algorithms.dag` and :mod:`~spbfs.algorithms.cores`."""

from __future__ import annotations

from operator import methodcaller

import numpy as np

from ..algorithms.cores import core_number as _core_number
from ..algorithms.cores import k_truss as _k_truss
from ..algorithms.dag import is_directed_acyclic_graph as _is_directed_acyclic_graph
from ..algorithms.degree import isolates as _isolates
from ..algorithms.reciprocity import overall_reciprocity as _overall_reciprocity
from ..algorithms.reciprocity import reciprocity as _reciprocity
from ..core.arrays import to_numpy
from ..cpu.distinct import first_equal
from ..cpu.overlap import row_overlap
from ..cpu.toposort import generations, in_degrees
from ._cluster import select_nodes
from ._recognition import no_multigraph
from ._registry import dispatched
from ._subgraph import copy_keeping, subgraph_copy

__all__ = []


def _isolate_rows(G):
    """The rows without edges, from the host's pattern with the GPU configured too (a
    degree test per node: on one H200 the device's took 1.0 ms and its copy back, 37x
    NetworkX, for 131,072 nodes)."""
    return _isolates(G.csr(False))


@dispatched(docs="In node order, as NetworkX; degrees read from the host's pattern.")
def isolates(G):
    """NetworkX's ``isolates``: a generator of the nodes without edges.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.Graph([(0, 1)]); G.add_node(2)
    >>> list(nx.isolates(G, backend="spbfs"))
    [2]
    """
    return iter(G.labels(_isolate_rows(G)))  # an iterator, as NetworkX's generator


@dispatched(docs="Degrees read from the host's pattern.")
def number_of_isolates(G):
    """NetworkX's ``number_of_isolates``.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.Graph([(0, 1)]); G.add_node(2)
    >>> nx.number_of_isolates(G, backend="spbfs")
    1
    """
    return int(_isolate_rows(G).size)


def _reciprocity_can_run(arguments):
    if arguments["G"].is_multigraph():
        return no_multigraph(arguments)
    return (True if arguments["G"].is_directed() or arguments.get("nodes") is None else
            "an undirected graph's nodes run in NetworkX (its own answer: an error)")


@dispatched(can_run=_reciprocity_can_run,
            docs="Multigraphs run in NetworkX; a node without edges raises NetworkXError "
            "as in NetworkX. On the CPU each node's successors and predecessors are merged "
            "from the sorted pattern and its transpose in one compiled pass.")
def reciprocity(G, nodes=None):
    """NetworkX's ``reciprocity`` (directed graphs).

    Examples
    --------
    >>> import networkx as nx
    >>> nx.reciprocity(nx.DiGraph([(0, 1), (1, 0), (0, 2)]), backend="spbfs")
    0.6666666666666666
    >>> nx.reciprocity(nx.DiGraph([(0, 1), (1, 0), (0, 2)]), [0, 2], backend="spbfs")
    {0: 0.6666666666666666, 2: 0.0}
    """
    import networkx as nx

    if nodes is None:
        return overall_reciprocity(G)
    r = shared_floats(_reciprocity_values(G))  # None for the isolated nodes (NaN)
    out = select_nodes(G, nodes, r)
    if nodes in G and out is None:
        raise nx.NetworkXError("Not defined for isolated nodes.")
    return out


def shared_floats(values):
    """``values`` (float64) as a list of Python floats, one object per distinct value (NaN
    as None): a float made per value costs more than the value's computation when the heap
    is large, and reciprocities, ratios of small ints, repeat.

    Examples
    --------
    >>> r = shared_floats(np.array([0.5, np.nan, 0.5, 1.0]))
    >>> r, r[0] is r[2]
    ([0.5, None, 0.5, 1.0], True)
    """
    values = np.asarray(values, np.float64)
    first = first_equal(values)  # one hashing pass (numpy.unique's inverse sorts)
    heads = np.flatnonzero(first == np.arange(first.size))
    objects = np.empty(values.size, object)
    objects[heads] = [None if x != x else x for x in values[heads].tolist()]
    return objects[first].tolist()


def _reciprocity_values(G):
    """Each node's reciprocity (NaN without edges): on the CPU one merge of each row of the
    sorted pattern with the same row of its transpose (kept with the pattern), on the GPU
    ``P .* P.T``."""
    if G.on_gpu():
        return to_numpy(_reciprocity(G.csr()))
    M = G.csr(False)
    T, _ = M.pattern.transpose()
    both = row_overlap(M.indptr, M.indices, T.indptr, T.indices)
    total = np.diff(M.indptr).astype(np.int64) + np.diff(T.indptr)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, 2.0 * both / np.where(total > 0, total, 1), np.nan)


@dispatched(can_run=no_multigraph, docs="Counted from the pattern and its transpose; 0.0 for "
            "an undirected graph, as NetworkX. Multigraphs (whose parallel edges NetworkX "
            "counts) run in NetworkX.")
def overall_reciprocity(G):
    """NetworkX's ``overall_reciprocity`` (directed graphs).

    Examples
    --------
    >>> import networkx as nx
    >>> nx.overall_reciprocity(nx.DiGraph([(0, 1), (1, 0), (0, 2)]), backend="spbfs")
    0.6666666666666666
    """
    import networkx as nx

    if G.nnz == 0:
        raise nx.NetworkXError("Not defined for empty graphs")
    if not G.is_directed():  # NetworkX's count: edges less those of G.to_undirected()
        return 0.0
    return _overall_reciprocity(G.csr())


@dispatched(docs="Every node peeled by in-degrees (Kahn's algorithm: one compiled worklist "
            "pass on the CPU); undirected graphs give False, as NetworkX.")
def is_directed_acyclic_graph(G):
    """NetworkX's ``is_directed_acyclic_graph``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.is_directed_acyclic_graph(nx.DiGraph([(0, 1), (1, 2)]), backend="spbfs")
    True
    """
    if not G.is_directed():
        return False
    if not len(G):
        return True
    if G.self_loop_count():
        return False
    return _is_directed_acyclic_graph(G.csr())


@dispatched(docs="Each generation in NetworkX's order (the order in which the last in-edge "
            "of a node is removed), by one compiled pass of Kahn's algorithm over the host's "
            "arrays, also with the GPU configured: a generation's order depends on the last "
            "one's, and the device paid launches and a host read per generation (0.8x "
            "NetworkX for the 531 generations of a 1.2M-arc DAG on one H200).")
def topological_generations(G):
    """NetworkX's ``topological_generations``: lists of nodes, in NetworkX's order.

    Examples
    --------
    >>> import networkx as nx
    >>> list(nx.topological_generations(nx.DiGraph([(2, 1), (1, 0), (2, 0)]),
    ...                                 backend="spbfs"))
    [[2], [1], [0]]
    """
    import networkx as nx

    if not G.is_directed():
        raise nx.NetworkXError("Topological sort not defined on undirected graphs.")
    # one compiled pass in NetworkX's order (the stored order is adjacency order)
    counts = G._once(("in_degrees",), lambda: in_degrees(G._indices, len(G)))
    order, bounds = generations(G._indptr, G._indices, len(G), counts)
    nodes = G.node_objects()[order]  # each generation's list from the array: one list less
    yield from map(methodcaller("tolist"),
                   map(nodes.__getitem__, map(slice, bounds[:-1].tolist(), bounds[1:].tolist())))
    if order.size < len(G):
        raise nx.NetworkXUnfeasible("Graph contains a cycle or graph changed during "
                                    "iteration")


#: Core numbers peel level by level (197 levels on the scale-17 graph); a GPU pays
#: launches and host reads for each, so below this many stored entries they run on the
#: host copy even when the GPU is configured.  Measured on one H100 and its host with a
#: product per round (335 rounds; docs/benchmarks.md), host / GPU: 0.13-0.14 / 0.49-0.50 s
#: at 2.4M entries, 0.19-0.26 / 0.41-0.58 s at 4.9M, 0.53-0.65 / 0.59 s at 9.9M, 1.25-1.35
#: / 0.70 s at 20M; a symmetric pattern now peels once per level on a device, and in one
#: bucket pass on the host (:func:`spbfs.semiring.peel_levels`), not yet measured on a
#: device.
PEELING_GPU_MIN_ENTRIES = 8 << 20


@dispatched(docs="Peeling: an undirected graph's by ``spbfs.semiring.peel_levels`` (one "
            "bucket pass on the host, a worklist peel per core number on a GPU), a "
            "directed one's by one ``plus_times`` product per round. On a GPU only from 8M "
            "stored edges (smaller graphs run on the host copy).")
def core_number(G):
    """NetworkX's ``core_number``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.core_number(nx.complete_graph(3), backend="spbfs")
    {0: 2, 1: 2, 2: 2}
    """
    return G.node_dict(_core_numbers(G).tolist())


def _core_numbers(G):
    """The core number of each row, a host array (NetworkX's error for a self-loop)."""
    import networkx as nx

    M = G.csr(G.on_gpu(PEELING_GPU_MIN_ENTRIES))
    if M.nnz and bool((M.entry_rows == M.indices).any()):
        raise nx.NetworkXNotImplemented(
            "Input graph has self loops which is not permitted; Consider using "
            "G.remove_edges_from(nx.selfloop_edges(G)).")
    return to_numpy(_core_number(M, directed=G.is_directed())).astype(np.int64, copy=False)


def _core_subgraph(G, keep, k, core, offset=0):
    """NetworkX's ``_core_subgraph``: the subgraph of ``G`` on the nodes ``keep`` accepts
    (core numbers computed as an array, not read back from their dict, unless given)."""
    if core is None:
        numbers = _core_numbers(G)
        if k is None:  # max() of no core numbers raises as NetworkX's does
            k = (int(numbers.max()) if numbers.size else max(numbers.tolist())) + offset
        return subgraph_copy(G, np.flatnonzero(keep(numbers, k)))
    if k is None:
        k = max(core.values()) + offset
    chosen = keep(np.fromiter(core.values(), np.int64, count=len(core)), k)
    if list(core) == G.nodes:
        return subgraph_copy(G, np.flatnonzero(chosen))
    # a given core_number dict of other keys or order: NetworkX's own subgraph of its nodes
    nodes = [v for v, c in zip(core, chosen, strict=True) if c]
    return G.networkx_graph().subgraph(nodes).copy()


_SUBGRAPH = ("Core numbers by parallel peeling; the subgraph is built as NetworkX's "
             "``G.subgraph(nodes).copy()`` builds it (same order, attributes copied).")


@dispatched(docs=_SUBGRAPH)
def k_core(G, k=None, core_number=None):
    """NetworkX's ``k_core``: the subgraph of the nodes of core number ``>= k``.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.complete_graph(4); G.add_edge(3, 4)
    >>> sorted(nx.k_core(G, backend="spbfs"))
    [0, 1, 2, 3]
    """
    return _core_subgraph(G, lambda c, k: c >= k, k, core_number)


@dispatched(docs=_SUBGRAPH)
def k_shell(G, k=None, core_number=None):
    """NetworkX's ``k_shell``: the subgraph of the nodes of core number ``k``.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.complete_graph(4); G.add_edge(3, 4)
    >>> sorted(nx.k_shell(G, 1, backend="spbfs"))
    [4]
    """
    return _core_subgraph(G, lambda c, k: c == k, k, core_number)


@dispatched(docs=_SUBGRAPH)
def k_crust(G, k=None, core_number=None):
    """NetworkX's ``k_crust``: the subgraph of the nodes of core number ``<= k``.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.complete_graph(4); G.add_edge(3, 4)
    >>> sorted(nx.k_crust(G, backend="spbfs"))
    [4]
    """
    return _core_subgraph(G, lambda c, k: c <= k, k, core_number, offset=-1)


@dispatched(docs="Edge supports by masked ``plus_pair`` products, all weak edges dropped at "
            "once per round; the result is NetworkX's ``G.copy()`` less those edges and the "
            "isolated nodes (attributes kept).")
def k_truss(G, k):
    """NetworkX's ``k_truss`` (undirected graphs without self-loops).

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.complete_graph(4); G.add_edge(3, 4)
    >>> sorted(nx.k_truss(G, 3, backend="spbfs").edges)
    [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    """
    import networkx as nx

    M = G.csr()
    if M.nnz and bool((M.entry_rows == M.indices).any()):
        raise nx.NetworkXNotImplemented(
            "Input graph has self loops which is not permitted; Consider using "
            "G.remove_edges_from(nx.selfloop_edges(G)).")
    kept = _k_truss(M, k)
    n = len(G)
    # the kept pattern is canonical, so its keys ascend: each entry is looked up in them
    keys = to_numpy(kept.entry_rows).astype(np.int64) * n + to_numpy(kept.indices)
    rows = G.entry_rows()
    cols = G._indices.astype(np.int64)
    probe = rows * n + cols
    found = np.searchsorted(keys, probe)
    entries = np.zeros(probe.size, bool)
    if keys.size:
        entries = keys[np.minimum(found, keys.size - 1)] == probe
    nodes = np.flatnonzero(to_numpy(kept.out_degree) > 0)
    H = copy_keeping(G, entries, nodes)
    if H is None:  # a Graph subclass: NetworkX's own copy, less what k_truss dropped
        H = G.networkx_graph().copy()
        upper = ~entries & (cols > rows)
        H.remove_edges_from(zip(G.labels(rows[upper]), G.labels(cols[upper]), strict=True))
        H.remove_nodes_from(G.labels(np.flatnonzero(to_numpy(kept.out_degree) == 0)))
    return H
