"""Cuts, volumes, expansions and boundaries of node sets.

The sets are Python containers, read on the host, and each function is one compiled pass
over their rows' entries in the host's arrays (:mod:`spbfs.cpu.nodesets`), with the GPU
configured too: copying the rows to the device cost more than the pass.  Node
neighbourhoods are marked in a byte per node; unweighted degrees are the pattern's row
counts.  The edges of a boundary are the set's rows' entries in NetworkX's order (the
set's iteration order, then each row's adjacency order); a cut's weights are added in
that order as they are found, and weighted degrees one row position at a time over all
rows together, so float totals equal NetworkX's left-to-right ``sum``.
"""

from __future__ import annotations

import sys
from itertools import filterfalse, repeat

import numpy as np

from ..core.arrays import to_numpy
from ..core.csr import expand
from ..cpu.nodesets import NEXT, boundary_entries, boundary_total, mark_neighbours
from ..cpu.pysum import python_sum, row_sums
from ._graph import row_methods
from ._recognition import int_items, no_multigraph, present_rows, raw_weights
from ._registry import dispatched

__all__ = ["rows_of_set", "set_rows"]


def rows_of_set(G, nodes):
    """NetworkX's ``{n for n in nodes if n in G}`` and its nodes' rows, in its order."""
    nset = set(G.present(nodes))
    return nset, np.fromiter(map(G.index.__getitem__, nset), np.int64, count=len(nset))


def set_rows(G, nodes, ordered=True):
    """The rows of NetworkX's ``{n for n in nodes if n in G}``, in that set's iteration
    order (any order where ``ordered`` is False).

    A set of distinct ints below its hash table's size holds each at the slot of its value
    (an int's hash is itself), so it iterates them in ascending order: then the rows come
    from a mask, with no set made.

    Examples
    --------
    >>> import networkx as nx
    >>> from spbfs.nx import convert_from_nx
    >>> set_rows(convert_from_nx(nx.path_graph(40)), [30, 2, 99, 2]).tolist()
    [2, 30]
    """
    items = int_items(G, nodes)
    if items is not None:
        mask = np.zeros(len(G), bool)
        mask[items[(items >= 0) & (items < len(G))]] = True
        rows = np.flatnonzero(mask)
        if not ordered or not rows.size or int(rows[-1]) < _set_slots(rows.size):
            return rows
    return rows_of_set(G, nodes)[1]


def _set_slots(k):
    """The hash table size of a set made by adding ``k`` distinct items one at a time
    (CPython's growth rule: a resize when the table is 3/5 full, to four times the items,
    or twice past 50,000), or 0 where :func:`_growth_checked` finds the rule differs from
    this Python's sets."""
    if not _growth_checked():
        return 0
    return _slots(k)


def _slots(k):
    mask = 7
    while True:
        used = -(-mask * 3 // 5)  # the fill that triggers the next resize
        if k < used:
            return mask + 1
        minused = used * 2 if used > 50000 else used * 4
        size = 8
        while size <= minused:
            size <<= 1
        mask = size - 1


_GROWTH = []


def _growth_checked():
    """Whether :func:`_slots` matches this Python's sets (their sizes in bytes), checked
    once."""
    if not _GROWTH:
        base = sys.getsizeof(set())
        per = sys.getsizeof(set(range(100))) - base
        ok = per > 0 and per % _slots(100) == 0
        if ok:
            per //= _slots(100)
            for k in (5, 7, 50, 1000, 20000, 60000):
                size = sys.getsizeof(set(range(k))) - base
                ok &= (size // per if size else 8) == _slots(k)
        _GROWTH.append(ok)
    return _GROWTH[0]


def _member(G, rows):
    out = np.zeros(len(G), bool)
    out[rows] = True
    return out


def _boundary_entries(G, rows, nset2):
    """The stored entries NetworkX's ``edge_boundary(G, nbunch1, nbunch2)`` yields, in its
    order, for ``nbunch1``'s rows ``rows`` (set order) and ``nbunch2``'s set (or None): one
    compiled pass over the host's arrays, with the GPU configured too (the sets are read on
    the host)."""
    member2 = None if nset2 is None else _member(G, set_rows(G, nset2, ordered=False))
    return boundary_entries(G._indptr, G._indices, rows, len(G), member2, not G.is_directed())


def _sum_in_order(values):
    """Python's ``sum`` of ``values`` (from the int 0, left to right) as a Python number."""
    if not values.size:
        return 0
    if values.dtype.kind == "f":
        return python_sum(values)
    return int(values.sum())


def _boundary_sum(G, rows, member2, w, start=0, correction=0.0, partial=False):
    """Python's ``sum`` of the weights ``w`` (None: 1 each) of the entries
    :func:`_boundary_entries` lists for ``rows`` and the second set's row mask ``member2``,
    continuing from ``start`` and its ``correction`` (``partial``: the state of a sum that
    goes on): one compiled pass, no array of the entries."""
    return boundary_total(G._indptr, G._indices, rows, len(G), member2, not G.is_directed(),
                          w, start, correction, partial)


def _cut(G, S, T, weight):
    """NetworkX's ``cut_size(G, S, T, weight)`` (``T`` None: the edges leaving ``S``)."""
    w = None if weight is None else raw_weights(G, weight)
    rows_s = set_rows(G, S)
    # T's rows in its order where they start the sum's second part (directed)
    rows_t = None if T is None else set_rows(G, T, ordered=G.is_directed())
    member_t = None if T is None else _member(G, rows_t)
    if not G.is_directed():
        return _boundary_sum(G, rows_s, member_t, w)
    # the edges from T to S continue the sum (and its correction), in T's order
    total, correction = _boundary_sum(G, rows_s, member_t, w, partial=True)
    return _boundary_sum(G, rows_t, _member(G, rows_s), w, total, correction)


def _row_sums_in_order(indptr, values, rows):
    """Each row's ``sum(values of its entries)`` left to right, for ``rows``, as Python adds
    them (:func:`spbfs.cpu.pysum.row_sums` for floats)."""
    starts = indptr[rows].astype(np.int64)
    counts = indptr[rows + 1].astype(np.int64) - starts
    if values.dtype.kind != "f":
        out = np.zeros(rows.size, values.dtype)
        at, owner = expand(indptr, rows)
        np.add.at(out, owner, values[at])
        return out
    return row_sums(values, starts, counts)


def _volume(G, S, weight):
    rows = present_rows(G, S)
    if weight is None:
        return _sum_in_order(_degrees(G)[rows])
    w = raw_weights(G, weight)
    if not (G._indptr[rows + 1] > G._indptr[rows]).any():
        return 0  # each degree NetworkX adds is the int 0 of a node without edges
    degree = _row_sums_in_order(G._indptr, w, rows)
    if not G.is_directed() and G.self_loop_count():
        degree = degree + _loops(G, w)[rows]  # NetworkX adds a loop's weight once more
    return _sum_in_order(degree)


def _degrees(G):
    """NetworkX's (out-)degrees, a self-loop counted twice undirected; kept with the
    graph."""
    def build():
        degree = to_numpy(G.csr(False).out_degree).astype(np.int64)
        if not G.is_directed() and G.self_loop_count():
            degree += _loops(G, np.ones(G.nnz, np.int64))
        return degree
    return G._once(("volume_degree",), build)


def _loops(G, w):
    out = np.zeros(len(G), w.dtype)
    rows = G.entry_rows()
    loop = np.flatnonzero(rows == G._indices)
    out[rows[loop]] = w[loop]
    return out


def _complement(G, S):
    return set(G.nodes) - set(S)


def _against_complement(G, S):
    """``cut_size(G, S, T)``, ``volume(G, T)`` and ``len(T)`` for NetworkX's default ``T =
    set(G) - set(S)``, unweighted (integer sums, so in any order): ``T`` as the rows
    outside ``S``, no set made."""
    rows_s = set_rows(G, S, ordered=False)  # counts: any order
    inside = _member(G, rows_s)
    rows_t = np.flatnonzero(~inside)
    cut = _boundary_sum(G, rows_s, ~inside, None)
    if G.is_directed():
        cut = _boundary_sum(G, rows_t, inside, None, cut)
    return cut, int(_degrees(G)[rows_t].sum()), int(rows_t.size)


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
    if T is None and weight is None:
        cut, volume_t, _ = _against_complement(G, S)
        return cut * (1 / _volume(G, S, None) + 1 / volume_t)
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
    if T is None and weight is None:
        cut, volume_t, _ = _against_complement(G, S)
        return cut / min(_volume(G, S, None), volume_t)
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
    if T is None and weight is None:
        cut, _, size_t = _against_complement(G, S)
        return cut / min(len(S), size_t)
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

    items = int_items(G, S)
    if items is not None and (not items.size or (int(items.min()) >= 0
                                                 and int(items.max()) < len(G))):
        return items
    index = G.index
    nodes = list(S)
    missing = next(filterfalse(index.__contains__, nodes), _NONE)
    if missing is not _NONE:
        raise nx.NetworkXError(f"The node {missing} is not in the graph.")
    return np.fromiter(map(index.__getitem__, nodes), np.int64, count=len(nodes))


_PASS = ("One compiled pass over the set's rows marking their neighbours, split over the "
         "host's threads, with the GPU configured too (the set is read there; the device's "
         "push took 17-21 ms on one H200 for half of a 1.2M-edge graph, the host's pass "
         "1 ms on the VM's two threads); a set of ints on a graph labelled by its rows read "
         "in one C loop.")


@dispatched(docs=_PASS)
def node_expansion(G, S):
    """NetworkX's ``node_expansion``: the size of ``S``'s neighbourhood over ``|S|``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.node_expansion(nx.path_graph(5), {1, 2}, backend="spbfs")
    2.0
    """
    rows = _rows_or_raise(G, S)
    return mark_neighbours(G._indptr, G._indices, rows, len(G), exclude=False)[1] / len(S)


def _node_boundary_rows(G, nbunch1, nbunch2, count=False):
    """The rows of ``node_boundary(G, nbunch1, nbunch2)`` (their number, with ``count``)."""
    # the sets' rows with repeats (a mark or a mask takes them): no mask made to drop them
    state, size = mark_neighbours(G._indptr, G._indices, present_rows(G, nbunch1), len(G))
    if nbunch2 is None and count:
        return size
    bdy = state == NEXT
    if nbunch2 is not None:
        bdy &= _member(G, present_rows(G, nbunch2))
    return int(np.count_nonzero(bdy)) if count else np.flatnonzero(bdy)


@dispatched(docs=_PASS)
def boundary_expansion(G, S):
    """NetworkX's ``boundary_expansion``: the size of ``S``'s node boundary over ``|S|``.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.boundary_expansion(nx.path_graph(5), {1, 2}, backend="spbfs")
    1.0
    """
    return _node_boundary_rows(G, S, None, count=True) / len(S)


@dispatched(docs=_PASS)
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
    rows = set_rows(G, nbunch1)
    nset2 = None if nbunch2 is None else set(nbunch2)
    at, owner = _boundary_entries(G, rows, nset2)
    u, v = G.labels(rows[owner]), G.labels(G._indices[at])
    if data is False:
        return (e for e in zip(u, v, strict=True))
    orig = G.networkx_graph()
    _, getitem = row_methods(orig)
    datas = list(map(getitem, map(orig._adj.__getitem__, u), v))
    if data is not True:
        datas = list(map(dict.get, datas, repeat(data), repeat(default)))
    return (e for e in zip(u, v, datas, strict=True))
