"""Cuts, volumes, expansions and boundaries of node sets.

Node neighbourhoods are one ``any_pair`` push of the set's rows (:func:`spbfs.semiring.vxm`);
unweighted degrees are the pattern's row counts.  The edges of a boundary are the set's
rows' entries in NetworkX's order (the set's iteration order, then each row's adjacency
order), kept by array tests; weighted sums add in that order, one row position at a time
over all rows together, so float totals equal NetworkX's left-to-right ``sum``.
"""

from __future__ import annotations

from itertools import filterfalse, repeat

import numpy as np

from ..core.arrays import to_numpy
from ..core.csr import expand
from ..semiring import Vector, any_pair, vxm
from ._recognition import no_multigraph, raw_weights, self_loops
from ._registry import dispatched

__all__ = ["neighbourhood", "rows_of_set"]


def rows_of_set(G, nodes):
    """NetworkX's ``{n for n in nodes if n in G}`` and its nodes' rows, in its order."""
    nset = set(G.present(nodes))
    return nset, np.fromiter(map(G.index.__getitem__, nset), np.int64, count=len(nset))


def neighbourhood(G, rows):
    """A bool per row: whether it is a successor of one of ``rows`` (one ``any_pair``
    push)."""
    M = G.csr()
    xp = M.xp
    seen = np.zeros(len(G), bool)
    if rows.size:
        ids = xp.asarray(np.unique(rows).astype(M.indices.dtype))
        x = Vector.sparse(ids, size=M.n, check=False)
        seen[to_numpy(vxm(x, M, any_pair).indices)] = True
    return seen


def _member(G, rows):
    out = np.zeros(len(G), bool)
    out[rows] = True
    return out


def _boundary_entries(G, rows, nset2):
    """The stored entries NetworkX's ``edge_boundary(G, nbunch1, nbunch2)`` yields, in its
    order, for ``nbunch1``'s rows ``rows`` (set order) and ``nbunch2``'s set (or None)."""
    at, owner = expand(G._indptr, rows)
    col = G._indices[at].astype(np.int64)
    in1 = np.full(len(G), -1, np.int64)
    in1[rows] = np.arange(rows.size)
    pos_v = in1[col]
    if nset2 is None:
        keep = pos_v < 0
    else:
        _, rows2 = rows_of_set(G, nset2)
        in2 = _member(G, rows2)
        keep = in2[col] | ((pos_v >= 0) & in2[rows[owner]])
        if not G.is_directed():  # G.edges(nbunch) gives an edge once, from its end seen first
            keep &= (pos_v < 0) | (pos_v >= owner)
    return at[keep], owner[keep]


def _sum_in_order(values):
    """Python's ``sum`` of ``values`` (from the int 0, left to right) as a Python number."""
    if not values.size:
        return 0
    if values.dtype.kind == "f":
        return float(np.cumsum(values)[-1])  # cumsum adds one at a time: Python's order
    return int(values.sum())


def _cut(G, S, T, weight):
    w = raw_weights(G, weight)
    _, rows = rows_of_set(G, S)
    at, _ = _boundary_entries(G, rows, T)
    parts = [w[at]]
    if G.is_directed():
        _, rows_t = rows_of_set(G, T)
        back, _ = _boundary_entries(G, rows_t, S)
        parts.append(w[back])
    return _sum_in_order(np.concatenate(parts))


def _row_sums_in_order(indptr, values, rows):
    """Each row's ``sum(values of its entries)`` left to right, for ``rows``: a row position
    at a time over all the rows together (a float sum in another order could differ)."""
    starts = indptr[rows].astype(np.int64)
    counts = indptr[rows + 1].astype(np.int64) - starts
    if values.dtype.kind != "f":
        out = np.zeros(rows.size, values.dtype)
        at, owner = expand(indptr, rows)
        np.add.at(out, owner, values[at])
        return out
    order = np.argsort(-counts, kind="stable")
    starts, counts = starts[order], counts[order]
    acc = np.zeros(rows.size, np.float64)
    longest = int(counts[0]) if counts.size else 0
    live = np.searchsorted(-counts, -np.arange(longest), side="left")  # rows longer than k
    for k in range(longest):  # over row positions, not rows or entries
        m = live[k]
        acc[:m] += values[starts[:m] + k]
    out = np.empty_like(acc)
    out[order] = acc
    return out


def _volume(G, S, weight):
    index = G.index
    rows = np.fromiter(map(index.__getitem__, G.present(S)), np.int64)
    if weight is None:
        degree = to_numpy(G.csr().out_degree).astype(np.int64)
        if not G.is_directed() and self_loops(G):
            degree += _loops(G, np.ones(G.nnz, np.int64))
        return _sum_in_order(degree[rows])
    w = raw_weights(G, weight)
    degree = _row_sums_in_order(G._indptr, w, rows)
    if not G.is_directed() and self_loops(G):
        degree = degree + _loops(G, w)[rows]  # NetworkX adds a loop's weight once more
    return _sum_in_order(degree)


def _loops(G, w):
    out = np.zeros(len(G), w.dtype)
    rows = G.entry_rows()
    loop = np.flatnonzero(rows == G._indices)
    out[rows[loop]] = w[loop]
    return out


def _complement(G, S):
    return set(G.nodes) - set(S)


def _cut_can_run(arguments):
    G = arguments["G"]
    if G.is_multigraph():
        return no_multigraph(arguments)
    if G.is_directed() and arguments.get("T") is None:
        return "a directed graph without T: NetworkX raises its own error"
    return True


_CUT = ("The set's boundary entries found by array tests in NetworkX's order, weights summed "
        "in that order; multigraphs run in NetworkX.")
_VOL = ("Degrees from the pattern's row counts, or weighted degrees summed row position by "
        "row position in NetworkX's order; multigraphs run in NetworkX.")


@dispatched(can_run=_cut_can_run, docs=_CUT)
def cut_size(G, S, T=None, weight=None):
    """NetworkX's ``cut_size``: the total weight of the edges between ``S`` and ``T``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.cut_size(nx.barbell_graph(3, 0), {0, 1, 2}, backend="spbfs")
    1
    """
    return _cut(G, S, T, weight)


@dispatched(can_run=no_multigraph, docs=_VOL)
def volume(G, S, weight=None):
    """NetworkX's ``volume``: the sum of the (out-)degrees of ``S``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.volume(nx.barbell_graph(3, 0), {0, 1, 2}, backend="spbfs")
    7
    """
    return _volume(G, S, weight)


def _cut_with_t(arguments):
    if arguments["G"].is_multigraph():
        return no_multigraph(arguments)
    return True


@dispatched(can_run=_cut_with_t, docs=_CUT + " " + _VOL)
def normalized_cut_size(G, S, T=None, weight=None):
    """NetworkX's ``normalized_cut_size``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.normalized_cut_size(nx.barbell_graph(3, 0), {0, 1, 2}, backend="spbfs")
    0.2857142857142857
    """
    if T is None:
        T = _complement(G, S)
    cut = _cut(G, S, T, weight)
    return cut * (1 / _volume(G, S, weight) + 1 / _volume(G, T, weight))


@dispatched(can_run=_cut_with_t, docs=_CUT + " " + _VOL)
def conductance(G, S, T=None, weight=None):
    """NetworkX's ``conductance``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.conductance(nx.barbell_graph(3, 0), {0, 1, 2}, backend="spbfs")
    0.14285714285714285
    """
    if T is None:
        T = _complement(G, S)
    cut = _cut(G, S, T, weight)
    return cut / min(_volume(G, S, weight), _volume(G, T, weight))


@dispatched(can_run=_cut_with_t, docs=_CUT)
def edge_expansion(G, S, T=None, weight=None):
    """NetworkX's ``edge_expansion``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.edge_expansion(nx.barbell_graph(3, 0), {0, 1, 2}, backend="spbfs")
    0.3333333333333333
    """
    if T is None:
        T = _complement(G, S)
    return _cut(G, S, T, weight) / min(len(S), len(T))


@dispatched(can_run=_cut_can_run, docs=_CUT)
def mixing_expansion(G, S, T=None, weight=None):
    """NetworkX's ``mixing_expansion``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.mixing_expansion(nx.barbell_graph(3, 0), {0, 1, 2}, backend="spbfs")
    0.07142857142857142
    """
    return _cut(G, S, T, weight) / (2 * G.number_of_edges())


_NONE = object()


def _rows_or_raise(G, S):
    import networkx as nx

    index = G.index
    nodes = list(S)
    missing = next(filterfalse(index.__contains__, nodes), _NONE)
    if missing is not _NONE:
        raise nx.NetworkXError(f"The node {missing} is not in the graph.")
    return np.fromiter(map(index.__getitem__, nodes), np.int64, count=len(nodes))


@dispatched(docs="One ``any_pair`` push of the set's rows.")
def node_expansion(G, S):
    """NetworkX's ``node_expansion``: the size of ``S``'s neighbourhood over ``|S|``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.node_expansion(nx.path_graph(5), {1, 2}, backend="spbfs")
    2.0
    """
    rows = _rows_or_raise(G, S)
    return int(np.count_nonzero(neighbourhood(G, rows))) / len(S)


def _node_boundary_rows(G, nbunch1, nbunch2):
    _, rows = rows_of_set(G, nbunch1)
    bdy = neighbourhood(G, rows)
    bdy[rows] = False
    if nbunch2 is not None:
        _, rows2 = rows_of_set(G, nbunch2)
        bdy &= _member(G, rows2)
    return np.flatnonzero(bdy)


@dispatched(docs="One ``any_pair`` push of the set's rows.")
def boundary_expansion(G, S):
    """NetworkX's ``boundary_expansion``: the size of ``S``'s node boundary over ``|S|``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.boundary_expansion(nx.path_graph(5), {1, 2}, backend="spbfs")
    1.0
    """
    return int(_node_boundary_rows(G, S, None).size) / len(S)


@dispatched(docs="One ``any_pair`` push of the set's rows, less the set.")
def node_boundary(G, nbunch1, nbunch2=None):
    """NetworkX's ``node_boundary``: the set of nodes outside ``nbunch1`` next to it.

    Examples
    --------
    >>> import networkx as nx
    >>> sorted(nx.node_boundary(nx.path_graph(5), {1, 2}, backend="spbfs"))
    [0, 3]
    """
    return set(G.labels(_node_boundary_rows(G, nbunch1, nbunch2)))


@dispatched(can_run=lambda a: no_multigraph(a) if not a.get("keys") else
            "keys=True (a multigraph's edge keys) runs in NetworkX",
            docs="The set's entries in NetworkX's order, kept by array tests; attribute "
                 "values read from the graph's own edge dicts. Multigraphs run in NetworkX.")
def edge_boundary(G, nbunch1, nbunch2=None, data=False, keys=False, default=None):
    """NetworkX's ``edge_boundary``: a generator of the edges leaving ``nbunch1`` (or
    joining it to ``nbunch2``).

    Examples
    --------
    >>> import networkx as nx
    >>> list(nx.edge_boundary(nx.path_graph(5), {1, 2}, backend="spbfs"))
    [(1, 0), (2, 3)]
    """
    _, rows = rows_of_set(G, nbunch1)
    nset2 = None if nbunch2 is None else set(nbunch2)
    at, owner = _boundary_entries(G, rows, nset2)
    u, v = G.labels(rows[owner]), G.labels(G._indices[at])
    if data is False:
        return (e for e in zip(u, v, strict=True))
    adj = G.networkx_graph()._adj
    datas = list(map(dict.__getitem__, map(adj.__getitem__, u), v))
    if data is not True:
        datas = list(map(dict.get, datas, repeat(data), repeat(default)))
    return (e for e in zip(u, v, datas, strict=True))
