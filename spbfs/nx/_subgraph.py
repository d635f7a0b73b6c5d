"""NetworkX graphs copied from part of the graph a :class:`~spbfs.nx.SpbfsGraph` was
converted from, as NetworkX's ``G.subgraph(nodes).copy()`` and ``G.copy()`` build them:
the same nodes, adjacency orders and attributes (one new attribute dict per edge, shared by
the two directions of an undirected edge and by a directed edge's successor and
predecessor entries). The rows and entries kept come from arrays, and the dicts are filled
by C loops (``map``, ``zip``, ``islice``), not by NetworkX's filtered views and
``add_edges_from``, which take seconds per million edges."""

from __future__ import annotations

from itertools import compress, islice, repeat

import numpy as np

from ..core.csr import expand
from ..cpu.subgraph import undirected_copy
from ._graph import row_datas, row_methods

__all__ = ["copy_keeping", "plain_graph", "subgraph_copy"]


def plain_graph(graph) -> bool:
    """A ``Graph`` or ``DiGraph`` itself, not a view of one: its dicts are plain dicts that
    can be filled directly (a subclass may make them otherwise).  A view's own ``subgraph``
    is made on the graph under it (its node order follows that graph's size and order),
    and an undirected view of a directed graph holds an edge's two arcs' dicts, which
    NetworkX's ``copy`` merges: views are copied by NetworkX itself.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.path_graph(3)
    >>> plain_graph(G), plain_graph(G.subgraph([0, 1]))
    (True, False)
    """
    import networkx as nx

    return type(graph) in (nx.Graph, nx.DiGraph) and not hasattr(graph, "_graph")


def subgraph_copy(G, rows):
    """NetworkX's ``subgraph(nodes).copy()`` of the graph ``G`` was converted from, for
    the nodes of ``rows`` (ascending).

    Examples
    --------
    >>> import numpy as np, networkx as nx
    >>> from spbfs.nx import convert_from_nx
    >>> H = subgraph_copy(convert_from_nx(nx.path_graph(4)), np.array([1, 2, 3]))
    >>> list(H.edges)
    [(1, 2), (2, 3)]
    """
    orig = G.networkx_graph()
    nodes = G.labels(rows)
    if not plain_graph(orig):
        return orig.subgraph(nodes).copy()
    if 2 * len(nodes) < len(G):
        # NetworkX's filtered views then list the nodes in the order of their set
        nodes = list(set(nodes))
        rows = np.fromiter(map(G.index.__getitem__, nodes), np.int64, count=len(nodes))
    return _build(G, orig, rows, nodes, None)


def copy_keeping(G, entries, rows):
    """NetworkX's ``copy()`` of the graph ``G`` was converted from, less the edges whose
    stored entries ``entries`` (bool per entry, the same for both entries of an undirected
    edge) drops and less the nodes not in ``rows`` (ascending; no kept edge may touch
    them), or None where that graph is not a plain ``Graph`` or ``DiGraph``.

    Examples
    --------
    >>> import numpy as np, networkx as nx
    >>> from spbfs.nx import convert_from_nx
    >>> G = convert_from_nx(nx.path_graph(3))
    >>> H = copy_keeping(G, np.array([True, True, False, False]), np.array([0, 1]))
    >>> list(H.edges)
    [(0, 1)]
    """
    orig = G.networkx_graph()
    if not plain_graph(orig):
        return None
    return _build(G, orig, np.asarray(rows, np.int64), G.labels(rows), entries)


def _nested(keys, labels, values, counts):
    """``{key: {label: value, ...}}`` taking each key's ``count`` pairs in turn."""
    pairs = zip(labels, values, strict=True)
    return dict(zip(keys, map(dict, map(islice, repeat(pairs), counts.tolist())), strict=True))


def _build(G, orig, rows, nodes, entries):
    """A new graph of ``orig``'s class on the rows ``rows`` (labels ``nodes``, in that order)
    and the entries between them that ``entries`` keeps (all where None), its dicts ordered
    and shared as NetworkX's ``copy`` leaves them."""
    if not orig.is_directed():  # one compiled pass (spbfs/cpu/subgraph.py)
        H = orig.__class__()
        H.graph.update(orig.graph)
        H._node = dict(zip(nodes, map(dict.copy, map(orig._node.__getitem__, nodes)),
                           strict=True))
        return _undirected(G, orig, H, np.asarray(rows, np.int64), nodes, entries)
    k = rows.size
    position = np.full(len(G), -1, np.int64)
    position[rows] = np.arange(k)
    # the stored entries of the kept rows, row after row in their order: NetworkX's copy
    # adds the edges (u, v) in this order, u in node order and v in u's adjacency order
    at, pu = expand(G._indptr, rows)
    col = G._indices[at].astype(np.int64)
    pv = position[col]
    keep = pv >= 0 if entries is None else (pv >= 0) & entries[at]
    kept = np.flatnonzero(keep)
    pu, pv, col = pu[keep], pv[keep], col[keep]
    counts = np.bincount(pu, minlength=k)

    every = G.entry_datas(orig, build=4 * at.size >= G.nnz)

    def datas_of(which):  # new copies of the data dicts of the kept entries ``which``
        if every is not None:
            taken = every[at[kept[which]]]
            return np.fromiter(map(dict.copy, taken), object, count=taken.size)
        if 2 * at.size <= 5 * kept.size:  # most of the rows' entries kept: read them all
            return _row_datas(orig, nodes, at.size, kept[which])
        return _edge_datas(G, orig, rows[pu[which]], col[which])

    H = orig.__class__()
    H.graph.update(orig.graph)
    H._node = dict(zip(nodes, map(dict.copy, map(orig._node.__getitem__, nodes)),
                       strict=True))
    datas = datas_of(slice(None))
    H._adj = H._succ = _nested(nodes, G.labels(col), datas.tolist(), counts)
    into = np.argsort(pv * k + pu)  # v's predecessors in the order their edges came
    H._pred = _nested(nodes, G.labels(rows[pu[into]]), datas[into].tolist(),
                      np.bincount(pv, minlength=k))
    return H


def _undirected(G, orig, H, rows, nodes, entries):
    """``H``'s adjacency as NetworkX's ``copy`` of the undirected subgraph on ``rows`` leaves
    it (:func:`spbfs.cpu.subgraph.undirected_copy`), one new copy of each edge's dict shared
    by its two slots."""
    made, nbr, edge, counts = undirected_copy(G._indptr, G._indices, rows, len(G), entries)
    size = int(np.count_nonzero(made))
    # the graph's entries' dicts, kept or read where the rows hold a quarter of them
    every = G.entry_datas(orig, build=4 * made.size >= G.nnz)
    if every is not None:
        copies = np.fromiter(map(dict.copy, every[expand(G._indptr, rows)[0][made]]), object,
                             count=size)
    elif made.size <= 5 * size:  # a fifth of the rows' entries made: read all their dicts
        copies = np.fromiter(map(dict.copy, compress(row_datas(orig, nodes), made.tolist())),
                             object, count=size)
    else:  # a few: looked up
        at, owner = expand(G._indptr, rows)
        at, owner = at[made], owner[made]
        copies = _edge_datas(G, orig, rows[owner], G._indices[at])
    # the slots' neighbours are the nodes' own label objects, their dicts taken by numpy
    labels = np.fromiter(nodes, object, count=len(nodes))
    H._adj = _nested(nodes, labels[nbr].tolist(), copies[edge].tolist(), counts)
    return H


def _row_datas(orig, nodes, total, which):
    """New copies of the attribute dicts of the entries ``which`` of the rows of ``nodes``
    (their ``total`` entries numbered row after row in the stored order, which is their
    adjacency dicts' order): every dict of those rows read by C loops over the adjacency
    dicts' values, then the wanted ones copied (no lookup per edge)."""
    every = np.fromiter(row_datas(orig, nodes), object, count=total)
    return np.fromiter(map(dict.copy, every[which]), object, count=len(which))


def _edge_datas(G, orig, tails, heads):
    """New copies of the attribute dicts of the edges ``tails[i] -> heads[i]`` (rows)."""
    _, getitem = row_methods(orig)
    found = map(getitem, map(orig._adj.__getitem__, G.labels(tails)), G.labels(heads))
    return np.fromiter(map(dict.copy, found), object, count=tails.size)
