"""Small measures: ``generalized_degree``, ``s_metric``, ``mutual_weight``, the edges within
and between communities, the isomorphism pre-checks and ``is_simple_path``; ``ego_graph``
and ``generic_bfs_edges`` from the backend's BFS in NetworkX's order.

Degrees are the pattern's row counts, triangles per edge one masked ``plus_pair`` product
(:func:`spbfs.semiring.mxm`), node triangles :func:`spbfs.algorithms.triangles.triangles`,
edge lookups a search in the sorted keys of the pattern's entries.
"""

from __future__ import annotations

from collections import Counter
from itertools import islice, repeat

import numpy as np

from ..algorithms.degree import degrees as _degrees
from ..algorithms.triangles import triangles as _triangles
from ..core.arrays import to_numpy
from ..cpu.nodesets import block_edges
from ..cpu.pairs import path_arcs
from ..semiring import extract, mxm, plus_pair, select
from ._recognition import edge_position, no_multigraph, present_rows, raw_weights
from ._registry import dispatched, not_supported
from ._shortest import single_source_shortest_path_length
from ._subgraph import _build, plain_graph
from ._traversal import bfs_edges

__all__ = []


def _degree(G):
    return to_numpy(_degrees(G.csr(), directed=G.is_directed())).astype(np.int64)


@dispatched(can_run=no_multigraph, docs="Triangles per edge from one masked ``plus_pair`` "
            "product of the pattern without self-loops; each Counter's keys ascending "
            "(NetworkX's follow a set's order; Counters compare equal either way). "
            "Multigraphs run in NetworkX.")
def generalized_degree(G, nodes=None):
    """NetworkX's ``generalized_degree`` (undirected graphs).

    Examples
    --------
    >>> import networkx as nx
    >>> nx.generalized_degree(nx.complete_graph(3), 0, backend="spbfs")
    Counter({1: 2})
    """
    n = len(G)
    M = G.csr(False)
    P = (select(M, "offdiag") if M.nnz else M).unit(np.int64)
    index = G.index
    if nodes is None:
        return G.node_dict(_counters(P, P, n))
    if nodes in G:  # one node: its row alone
        return _counters(extract(P, [index[nodes]]), P, n)[0]
    nodes = G.present(nodes)  # NetworkX's nbunch_iter skips the others
    rows, at = np.unique(np.fromiter(map(index.__getitem__, nodes), np.int64,
                                     count=len(nodes)), return_inverse=True)
    counters = _counters(extract(P, rows), P, n)  # the nodes' rows alone: S P masked by S
    return dict(zip(nodes, map(counters.__getitem__, at.tolist()), strict=True))


def _counters(S, P, n):
    """The Counters of the rows of ``S`` (rows of ``P``, the pattern without self-loops):
    for each neighbour ``w`` its triangles with the row's node (``S P`` masked by ``S``),
    counted by value."""
    T = mxm(S, P, plus_pair, mask=S, structural=True)
    # every entry of S (each neighbour w != v) with its count, 0 where no triangle
    keys = to_numpy(S.entry_rows).astype(np.int64) * n + to_numpy(S.indices)
    counts = np.zeros(keys.size, np.int64)
    if T.nnz:
        tkeys = to_numpy(T.entry_rows).astype(np.int64) * n + to_numpy(T.indices)
        counts[np.searchsorted(keys, tkeys)] = to_numpy(T.data)
    rows = to_numpy(S.entry_rows).astype(np.int64)
    pairs, tally = np.unique(rows * (n + 1) + counts, return_counts=True)
    owner = pairs // (n + 1)
    per_row = np.bincount(owner, minlength=S.nrows)
    items = zip((pairs % (n + 1)).tolist(), tally.tolist(), strict=True)
    return list(map(Counter, map(dict, map(islice, repeat(items), per_row.tolist()))))


@dispatched(can_run=no_multigraph, docs="Degrees from the pattern's counts, one product per "
            "edge summed exactly; multigraphs run in NetworkX.")
def s_metric(G):
    """NetworkX's ``s_metric``: the sum of ``deg(u) deg(v)`` over the edges, as a float.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.s_metric(nx.path_graph(3), backend="spbfs")
    4.0
    """
    d = _degree(G)
    entries = G.edge_entries()
    prod = d[G.entry_rows()[entries]] * d[G._indices[entries]]
    if prod.size and int(prod.max()) * prod.size >= 2**63:
        return float(sum(prod.tolist()))
    return float(int(prod.sum()))


@dispatched(can_run=no_multigraph, docs="Two lookups in the converted rows; multigraphs "
            "run in NetworkX.")
def mutual_weight(G, u, v, weight=None):
    """NetworkX's ``mutual_weight``: the weights of ``u -> v`` and ``v -> u`` added.

    Examples
    --------
    >>> import networkx as nx
    >>> from networkx.algorithms.structuralholes import mutual_weight
    >>> mutual_weight(nx.DiGraph([(0, 1), (1, 0)]), 0, 1, backend="spbfs")
    2
    """
    total = 0
    for a, b in ((u, v), (v, u)):
        at = edge_position(G, a, b)
        if at >= 0:
            total = total + (1 if weight is None else raw_weights(G, weight)[at].item())
    return total


#: Containers whose items are distinct.
_DISTINCT = (set, frozenset, dict)


def _blocks(G, partition):
    """The block of each row (-1: in none); NotImplementedError where a node is in two
    blocks (NetworkX's own answer or error then)."""
    block = np.full(len(G), -1, np.int64)
    for i, part in enumerate(partition):  # over the blocks, not the nodes
        rows = present_rows(G, part)
        repeats = type(part) not in _DISTINCT and np.unique(rows).size != rows.size
        if repeats or (block[rows] >= 0).any():
            raise NotImplementedError("the blocks overlap: NetworkX answers that itself")
        block[rows] = i
    return block


def _edges_where(G, same, block):
    """Edges with both ends in blocks, in one block (``same``) or two: one compiled pass."""
    entries, loops = block_edges(G._indptr, G._indices, block, same)
    return entries if G.is_directed() else (entries + loops) // 2


@dispatched(can_run=no_multigraph, docs="Each edge's two blocks compared on arrays; "
            "multigraphs run in NetworkX.")
def intra_community_edges(G, partition):
    """NetworkX's ``intra_community_edges``.

    Examples
    --------
    >>> import networkx as nx
    >>> from networkx.algorithms.community import quality
    >>> quality.intra_community_edges(nx.barbell_graph(3, 0), [{0, 1, 2}, {3, 4, 5}],
    ...                               backend="spbfs")
    6
    """
    return _edges_where(G, True, _blocks(G, partition))


@dispatched(can_run=no_multigraph, docs="Each edge's two blocks compared on arrays; a "
            "partition that does not cover every node once, and multigraphs, run in "
            "NetworkX.")
def inter_community_edges(G, partition):
    """NetworkX's ``inter_community_edges``.

    Examples
    --------
    >>> import networkx as nx
    >>> from networkx.algorithms.community import quality
    >>> quality.inter_community_edges(nx.barbell_graph(3, 0), [{0, 1, 2}, {3, 4, 5}],
    ...                               backend="spbfs")
    1
    """
    block = _blocks(G, partition)
    if (block < 0).any():
        raise NotImplementedError("not a partition of G: NetworkX raises its own error")
    return _edges_where(G, False, block)


# NetworkX names these functions' graphs G1 and G2; the backend's can_run looks for G, so
# until it reads G1 too, NetworkX runs them itself (they are called directly in the tests)
def _iso_can_run(arguments):
    for g in (arguments["G1"], arguments["G2"]):
        if g.is_multigraph():
            return "multigraphs run in NetworkX"
    return True


@dispatched(can_run=_iso_can_run, docs="Degrees and triangles (masked ``plus_pair`` "
            "products) sorted and compared; multigraphs run in NetworkX.")
def fast_could_be_isomorphic(G1, G2):
    """NetworkX's ``fast_could_be_isomorphic``.

    Examples
    --------
    >>> import networkx as nx
    >>> from spbfs.nx import backend_interface, convert_from_nx
    >>> backend_interface.fast_could_be_isomorphic(convert_from_nx(nx.cycle_graph(4)),
    ...                                          convert_from_nx(nx.path_graph(4)))
    False
    """
    import networkx as nx

    if len(G1) != len(G2):
        return False
    parts = []
    for g in (G1, G2):
        if g.is_directed():
            raise nx.NetworkXNotImplemented("not implemented for directed type")
        t = to_numpy(_triangles(g.csr())).astype(np.int64) if len(g) else np.zeros(0, int)
        parts.append((_degree(g), t))
    stride = max(int(t.max(initial=0)) for _, t in parts) + 1  # sorts (degree, triangles)
    props = [np.sort(d * stride + t) for d, t in parts]
    return bool(np.array_equal(props[0], props[1]))


@dispatched(can_run=_iso_can_run, docs="The degrees' histograms compared (equal exactly when "
            "the sorted degree sequences are), from the host's pattern with the GPU "
            "configured too; multigraphs run in NetworkX.")
def faster_could_be_isomorphic(G1, G2):
    """NetworkX's ``faster_could_be_isomorphic``.

    Examples
    --------
    >>> import networkx as nx
    >>> from spbfs.nx import backend_interface, convert_from_nx
    >>> backend_interface.faster_could_be_isomorphic(convert_from_nx(nx.cycle_graph(4)),
    ...                                          convert_from_nx(nx.path_graph(4)))
    False
    """
    if len(G1) != len(G2):
        return False
    # a pass over n degrees each: the device's launches and copy back cost more than that
    counts = [np.bincount(_degrees(g.csr(False), directed=g.is_directed())) for g in (G1, G2)]
    return bool(np.array_equal(*counts))


@dispatched(docs="The path's nodes read by the label dict's own lookups, its consecutive "
            "pairs searched in the sorted pattern's rows by one compiled call.")
def is_simple_path(G, nodes):
    """NetworkX's ``is_simple_path``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.is_simple_path(nx.cycle_graph(4), [2, 3, 0], backend="spbfs")
    True
    """
    if len(nodes) == 0:
        return False
    if len(nodes) == 1:
        return nodes[0] in G
    try:  # the label dict's own lookups: an absent or unhashable node is no path
        rows = list(map(G.index.__getitem__, nodes))
    except (KeyError, TypeError):
        if not all(map(G.__contains__, nodes)):
            return False
        raise
    if len(set(rows)) != len(rows):
        return False
    arrays = G._derived.get(("sorted rows",))
    if arrays is None:  # the sorted pattern's host arrays, kept with the graph
        M = G.csr(False)
        arrays = G._derived[("sorted rows",)] = (M.indptr, M.indices)
    return path_arcs(*arrays, np.array(rows, np.int64))


@dispatched(can_run=not_supported(neighbors=None), docs="``bfs_edges``'s search (NetworkX's "
            "order); a ``neighbors`` callable runs in NetworkX.")
def generic_bfs_edges(G, source, neighbors=None, depth_limit=None):
    """NetworkX's ``generic_bfs_edges`` with ``neighbors=None`` (the successors).

    Examples
    --------
    >>> import networkx as nx
    >>> list(nx.generic_bfs_edges(nx.path_graph(4), 1, backend="spbfs"))
    [(1, 0), (1, 2), (2, 3)]
    """
    return bfs_edges(G, source, depth_limit=depth_limit)


def _ego_can_run(arguments):
    if arguments.get("distance") is not None:
        return "a distance (Dijkstra's ball) runs in NetworkX"
    if arguments.get("undirected"):
        return "undirected=True (a search of NetworkX's G.to_undirected()) runs in NetworkX"
    return True


@dispatched(can_run=_ego_can_run, docs="The ball by the backend's BFS (NetworkX's order); "
            "the subgraph built as NetworkX's ``G.subgraph(ball).copy()`` builds it. A "
            "``distance`` or ``undirected=True`` runs in NetworkX.")
def ego_graph(G, n, radius=1, center=True, undirected=False, distance=None):
    """NetworkX's ``ego_graph``: the subgraph of the nodes within ``radius`` hops of ``n``.

    Examples
    --------
    >>> import networkx as nx
    >>> list(nx.ego_graph(nx.path_graph(5), 2, backend="spbfs").edges)
    [(1, 2), (2, 3)]
    """
    ball = single_source_shortest_path_length(G, n, cutoff=radius)
    orig = G.networkx_graph()
    if not plain_graph(orig):
        H = orig.subgraph(ball).copy()
    else:
        index = G.index
        if 2 * len(ball) < len(G):  # NetworkX's view lists the set it made of the ball
            nodes = list(set(iter(ball)))  # one node at a time, as from its generator
            rows = np.fromiter(map(index.__getitem__, nodes), np.int64, count=len(nodes))
        else:  # and otherwise G's nodes that are in it
            rows = np.sort(np.fromiter(map(index.__getitem__, ball), np.int64,
                                       count=len(ball)))
            nodes = G.labels(rows)
        H = _build(G, orig, rows, nodes, None)
    if not center:
        H.remove_node(n)
    return H
