"""Shortest path lengths: BFS levels, and ``min_plus`` SSSP ordered as NetworkX's Dijkstra.

The distances come from :func:`spbfs.sssp` (a frontier Bellman-Ford over
``min_plus``).  float64 sums are NetworkX's float sums exactly: both take the
minimum over paths of the left-to-right sums, and rounding is monotone.
Integer weights give exact float64 distances below 2**53 (checked) and are
returned as ints, as NetworkX's Python arithmetic does.

NetworkX's Dijkstra returns its dict in pop order: by distance, ties by the
heap counter of the push that set the final distance.  That push came from
the earliest-popped *tight* in-neighbour ``u`` (``d[u] + w == d[v]``), at
``v``'s position in ``u``'s adjacency, so ties order by (pop rank of that
neighbour, adjacency position).  :func:`dijkstra_order` computes the ranks
group by group of equal distance (vectorised over every group whose tight
parents are ranked), with zero-weight edges inside a group ordered as the
FIFO they are in NetworkX's heap.
"""

from __future__ import annotations

from itertools import repeat

import numpy as np

from ..algorithms.sssp import sssp
from ..core.arrays import to_numpy
from ..cpu.firstparents import first_tight_parents
from ._registry import dispatched
from ._traversal import bfs_levels_ordered, bidirectional_hops

__all__ = ["dijkstra_order", "dijkstra_search"]

_INT64_MAX = np.iinfo(np.int64).max


# ------------------------------------------------------------------ unweighted


@dispatched(docs="The dict in NetworkX's order (BFS queue order).")
def single_source_shortest_path_length(G, source, cutoff=None):
    """NetworkX's ``single_source_shortest_path_length``: hop counts in BFS order.

    Examples
    --------
    >>> import networkx as nx
    >>> nx.single_source_shortest_path_length(nx.path_graph(4), 1, backend="spbfs")
    {1: 0, 0: 1, 2: 1, 3: 2}
    """
    import networkx as nx

    if source not in G:
        raise nx.NodeNotFound(f"Source {source} is not in G")
    if cutoff is None:
        cutoff = float("inf")
    lengths = {source: 0}
    for level, (children, _) in enumerate(
            bfs_levels_ordered(G, [G.index[source]], depth_limit=cutoff, whole=True), 1):
        lengths.update(zip(G.labels(children), repeat(level)))  # no dict per level
    return lengths


def _hops_to(G, source, target):
    """Length of a shortest ``source -> target`` path (two level searches towards each
    other, the level with fewer arcs first)."""
    import networkx as nx

    if source not in G:
        raise nx.NodeNotFound(f"Source {source} is not in G")
    if target not in G:
        raise nx.NodeNotFound(f"Target {target} is not in G")
    hops = 0 if source == target else bidirectional_hops(G, source, target)
    if hops < 0:
        raise nx.NetworkXNoPath(f"No path between {source} and {target}.")
    return hops


# -------------------------------------------------------------------- weighted


def _ranges(starts, counts):
    """Concatenated ``arange(s, s + c)`` and, per element, which range it came from."""
    counts = counts.astype(np.int64, copy=False)
    total = int(counts.sum())
    owner = np.repeat(np.arange(counts.size), counts)
    offset = np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts)
    return starts.astype(np.int64, copy=False)[owner] + offset, owner


def _run_positions(keys):
    """Position of each element within its run of equal consecutive ``keys``."""
    if not keys.size:
        return keys.astype(np.int64)
    start = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
    return np.arange(keys.size) - np.repeat(start, np.diff(np.append(start, keys.size)))


def dijkstra_order(indptr, indices, w, d, source, reached):
    """The vertices of ``reached`` in the order NetworkX's Dijkstra pops them.

    Parameters
    ----------
    indptr, indices : ndarray
        CSR rows in NetworkX's adjacency order.
    w : ndarray of float64 or int64
        Edge weights in CSR order (non-negative; ints that float64 holds exactly in sums).
    d : ndarray of float64
        Exact shortest distances from ``source`` (``inf`` unreached).
    source : int or 1-D array of int
        The source, or the sources in the order NetworkX pushes them (all at distance 0).
    reached : ndarray of bool
        The vertices NetworkX returns (within the cutoff); includes the sources.

    Returns
    -------
    ndarray of int64

    Examples
    --------
    Two vertices at distance 1: NetworkX pops them in the order ``source``'s
    adjacency lists them (here 2 before 1), then 3 (its parent 2 came first).

    >>> import numpy as np
    >>> indptr, indices = np.array([0, 2, 3, 4, 4]), np.array([2, 1, 3, 3])
    >>> d = np.array([0.0, 1.0, 1.0, 2.0])
    >>> dijkstra_order(indptr, indices, np.ones(4), d, 0, np.isfinite(d)).tolist()
    [0, 2, 1, 3]
    """
    n = d.size
    sources = np.atleast_1d(np.asarray(source, np.int64))
    is_source = np.zeros(n, bool)
    is_source[sources] = True
    verts = np.flatnonzero(reached)
    # no stable sort needed: the order inside a group of equal distances is decided below
    by_d = verts[np.argsort(d[verts])]
    ds = d[by_d]
    gstart = np.flatnonzero(np.concatenate(([True], ds[1:] != ds[:-1])))
    gsize = np.diff(np.append(gstart, by_d.size))
    # sources alone at distance 0 (no zero-weight edge from them): popped in push order
    alone = (sources.size > 1 and gsize[0] == sources.size
             and np.unique(sources).size == sources.size)
    if alone:
        by_d[:sources.size] = sources
    single = gsize == 1
    single[0] |= alone
    if single.all():
        return by_d
    ngroups = gstart.size
    group = np.full(n, -1, np.int64)
    group[by_d] = np.repeat(np.arange(ngroups), gsize)
    rank = np.full(n, -1, np.int64)
    rank[by_d[gstart[single]]] = gstart[single]
    if alone:
        rank[sources] = np.arange(sources.size)

    # tight edges into members of groups with ties (one pass over the arcs finds those
    # into the members; the rest is on them alone)
    tied = np.zeros(n, bool)
    tied[by_d[np.repeat(~single, gsize)]] = True
    entry = np.flatnonzero(tied[indices])
    indptr = indptr.astype(np.int64, copy=False)
    rows = np.searchsorted(indptr, entry, side="right") - 1
    cols = indices[entry].astype(np.int64)
    keep = reached[rows] & (rows != cols) & ~is_source[cols]
    keep[keep] = d[rows[keep]] + w[entry[keep]] == d[cols[keep]]
    tu, tv, tk = rows[keep], cols[keep], entry[keep] - indptr[rows[keep]]
    ext = d[tu] < d[tv]
    stride = int(np.diff(indptr).max()) + 1 if n else 1

    # group dependencies: a tie group waits for the tie groups its external parents are in
    dep = ext & ~single[group[tu]]
    dparent, dchild = group[tu[dep]], group[tv[dep]]
    pending = np.bincount(dchild, minlength=ngroups)
    order = np.argsort(dparent, kind="stable")
    dchild = dchild[order]
    dptr = np.zeros(ngroups + 1, np.int64)
    np.cumsum(np.bincount(dparent, minlength=ngroups), out=dptr[1:])

    # external tight edges by child; zero-weight (internal) tight edges by parent, row order
    order = np.argsort(tv[ext], kind="stable")
    eu, ev, ek = tu[ext][order], tv[ext][order], tk[ext][order]
    eptr = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(ev, minlength=n), out=eptr[1:])
    iu, iv, ik = tu[~ext], tv[~ext], tk[~ext]
    iptr = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(iu, minlength=n), out=iptr[1:])

    filled = np.zeros(ngroups, np.int64)
    ready = np.flatnonzero(~single & (pending == 0))
    while ready.size:
        pos, owner = _ranges(gstart[ready], gsize[ready])
        members, mgroup = by_d[pos], ready[owner]
        # seeds: members with a tight parent in an earlier group, keyed by its first push
        epos, eowner = _ranges(eptr[members], eptr[members + 1] - eptr[members])
        seedkey = np.full(members.size, _INT64_MAX, np.int64)
        np.minimum.at(seedkey, eowner, rank[eu[epos]] * stride + ek[epos])
        src = is_source[members]
        if src.any():  # the sources, in push order, before everything else at distance 0
            first = np.full(n, 0, np.int64)
            first[sources[::-1]] = np.arange(sources.size)[::-1] - sources.size
            seedkey[src] = first[members[src]]
        seed = seedkey < _INT64_MAX
        order = np.lexsort((seedkey[seed], mgroup[seed]))
        queue, qgroup = members[seed][order], mgroup[seed][order]
        qpos = _run_positions(qgroup)
        rank[queue] = gstart[qgroup] + qpos
        np.add.at(filled, qgroup, 1)
        # the rest: a FIFO over zero-weight tight edges inside each group
        while queue.size:
            ipos, iowner = _ranges(iptr[queue], iptr[queue + 1] - iptr[queue])
            child = iv[ipos]
            new = rank[child] < 0
            if not new.any():
                break
            child = child[new]
            key = qpos[iowner[new]] * stride + ik[ipos[new]]
            order = np.lexsort((key, child))
            child, key = child[order], key[order]
            first = np.concatenate(([True], child[1:] != child[:-1]))
            child, key = child[first], key[first]
            cgroup = group[child]
            order = np.lexsort((key, cgroup))
            child, cgroup = child[order], cgroup[order]
            qpos = filled[cgroup] + _run_positions(cgroup)
            rank[child] = gstart[cgroup] + qpos
            np.add.at(filled, cgroup, 1)
            queue = child
        # release the groups that waited on these
        dpos, _ = _ranges(dptr[ready], dptr[ready + 1] - dptr[ready])
        waiting = dchild[dpos]
        np.subtract.at(pending, waiting, 1)
        waiting = np.unique(waiting)
        ready = waiting[pending[waiting] == 0]
    if (rank[by_d] < 0).any():  # cannot happen for exact distances
        raise NotImplementedError("could not reproduce NetworkX's Dijkstra order")
    out = np.empty(by_d.size, np.int64)
    out[rank[by_d]] = by_d
    return out


def _distances(G, source, weight):
    """``(d, kind)``: float64 distances from row ``source`` and the weights' kind."""
    _, kind = G.weights(weight)
    return to_numpy(sssp(G.weighted_csr(weight), source)), kind


def dijkstra_search(G, rows, weight, cutoff=None, target=None, parents=True):
    """NetworkX's Dijkstra from ``rows`` (in push order) on an SpbfsGraph.

    Returns ``(order, dist, parent, kind)``: the rows NetworkX's dist dict holds in its
    order, float64 distances of all rows (``inf`` unreached), the row whose push gave each
    row its final distance (-1 for sources and unreached rows; None with ``parents=False``,
    for lengths alone) and the weights' kind ("int" or "float").  With ``target`` (a row)
    the search stops there, as NetworkX's.

    Examples
    --------
    >>> import numpy as np, networkx as nx
    >>> from spbfs.nx import convert_from_nx
    >>> G = convert_from_nx(nx.path_graph(3), edge_attrs={"weight": 1})
    >>> order, dist, parent, kind = dijkstra_search(G, np.array([0]), "weight")
    >>> order.tolist(), dist.tolist(), parent.tolist(), kind
    ([0, 1, 2], [0.0, 1.0, 2.0], [-1, 0, 1], 'int')
    """
    values, kind = G.weights(weight)
    M = G.weighted_csr(weight)
    rows = np.asarray(rows, np.int64)
    if (G._indptr[rows + 1] == G._indptr[rows]).all():  # no arcs out: the sources alone
        d = np.full(len(G), np.inf)
        d[rows] = 0.0
        dist = M.xp.asarray(d)
    else:
        dist = sssp(M, M.xp.asarray(rows), min_only=True)
        d = to_numpy(dist)
    reached = np.isfinite(d)
    if cutoff is not None:
        reached &= d <= cutoff
    if target is not None and reached[target]:
        reached &= d <= d[target]
    reached[rows] = True
    order = dijkstra_order(G._indptr, G._indices, values, d, rows, reached)
    if target is not None and reached[target]:
        order = order[:int(np.flatnonzero(order == target)[0]) + 1]
    if not parents:
        return order, d, None, kind
    if M.xp is np:  # one pass over the popped rows' entries, the threads splitting them
        parent = first_tight_parents(G._indptr, G._indices, values, d, order, rows)
    else:  # 1.5 ms on one H200 for the scale-17 graph, that pass 6.4 ms on its host
        parent = _device_parents(M, dist, order, rows)
    return order, d, parent, kind


def _device_parents(M, dist, order, sources):
    """Per row, the tight in-neighbour of smallest pop rank (-1 where there is none), from
    the weighted matrix ``M`` and the distances ``dist`` on its device; a host array."""
    xp, n = M.xp, M.n
    order = xp.asarray(order)
    rank = xp.full(n, n, np.int64)
    rank[order] = xp.arange(order.size)
    rows, cols, data = M.pattern.rows(), M.indices, M.data
    tight = xp.flatnonzero(dist[rows] + data == dist[cols])   # few: the rest on those
    r, c = rows[tight].astype(np.int64), cols[tight].astype(np.int64)
    is_source = xp.zeros(n, bool)
    is_source[xp.asarray(sources)] = True
    keep = (rank[r] < n) & (rank[c] < n) & (r != c) & ~is_source[c]
    # the first pop rank per column: sort (column, rank) keys, take each column's first
    key = xp.sort(c[keep] * n + rank[r[keep]])
    col = key // n
    first = xp.ones(key.size, bool)
    first[1:] = col[1:] != col[:-1]
    parent = xp.full(n, -1, np.int64)
    parent[col[first]] = order[key[first] % n]
    return to_numpy(parent)


def _lengths_dict(G, order, d, kind, first, keys=None):
    """NetworkX's Dijkstra dist dict: rows ``order`` with distances ``d`` (ints for int
    weights), the starting rows (``first``: row -> the node object as given; popped
    first) at int 0; ``keys``: the dict's keys where the caller has them."""
    dist = d[order]
    values = dist.astype(np.int64).tolist() if kind == "int" else dist.tolist()
    labels = G.labels(order) if keys is None else keys
    for i, row in enumerate(order[:len(first)].tolist()):
        labels[i], values[i] = first[row], 0
    return dict(zip(labels, values, strict=True))


def _dijkstra_lengths(G, source, weight, cutoff):
    """NetworkX's ``_dijkstra`` dist dict for one source on an SpbfsGraph."""
    s = G.index[source]
    order, d, _, kind = dijkstra_search(G, [s], weight, cutoff, parents=False)
    return _lengths_dict(G, order, d, kind, {s: source})


def _weight_is_name(arguments):
    if callable(arguments.get("weight")):
        return "a callable weight runs in NetworkX"
    return True


@dispatched(can_run=_weight_is_name, docs="Same values, types (int for int weights) and "
            "order as NetworkX for non-negative all-int or all-float weights; other "
            "weights and callables run in NetworkX.")
def single_source_dijkstra_path_length(G, source, cutoff=None, weight="weight"):
    """NetworkX's ``single_source_dijkstra_path_length``, in NetworkX's pop order.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.Graph([(0, 1, {"weight": 2}), (0, 2, {"weight": 1}), (2, 1, {"weight": 1})])
    >>> nx.single_source_dijkstra_path_length(G, 0, backend="spbfs")
    {0: 0, 2: 1, 1: 2}
    """
    import networkx as nx

    if source not in G:
        raise nx.NodeNotFound(f"Node {source} not found in graph")
    return _dijkstra_lengths(G, source, weight, cutoff)


def _length_to(G, source, target, weight, method):
    """NetworkX's ``dijkstra_path_length`` / ``bellman_ford_path_length``."""
    import networkx as nx

    dijkstra = method == "dijkstra"
    if source not in G:
        raise nx.NodeNotFound(f"Node {source} not found in graph" if dijkstra or source == target
                              else f"Source {source} not in G")
    if source == target:
        return 0
    s = G.index[source]
    d, kind = _distances(G, s, weight)
    t = G.index.get(target) if target in G else None
    if t is None or not np.isfinite(d[t]):
        word = "Node" if dijkstra else "node"
        raise nx.NetworkXNoPath(f"{word} {target} not reachable from {source}")
    return int(d[t]) if kind == "int" else float(d[t])


# ------------------------------------------------------------ shortest_path_length


def _spl_can_run(arguments):
    method, weight = arguments.get("method"), arguments.get("weight")
    if method not in ("dijkstra", "bellman-ford"):
        return f"method={method!r} runs in NetworkX (which rejects it)"
    if callable(weight):
        return "a callable weight runs in NetworkX"
    if (method == "bellman-ford" and weight is not None
            and (arguments.get("source") is None or arguments.get("target") is None)):
        return "Bellman-Ford's dict order is NetworkX's own: it runs there"
    return True


@dispatched(can_run=_spl_can_run, docs="Unweighted: BFS in NetworkX's order. Weighted: "
            "``min_plus`` SSSP for non-negative all-int or all-float weights (others run "
            "in NetworkX); ``method='bellman-ford'`` only for one source and target.")
def shortest_path_length(G, source=None, target=None, weight=None, method="dijkstra"):
    """NetworkX's ``shortest_path_length`` (all four source/target combinations).

    Examples
    --------
    >>> import networkx as nx
    >>> nx.shortest_path_length(nx.path_graph(4), 0, 3, backend="spbfs")
    3
    >>> nx.shortest_path_length(nx.path_graph(4), target=1, backend="spbfs")
    {1: 0, 0: 1, 2: 1, 3: 2}
    >>> dict(nx.shortest_path_length(nx.path_graph(4), weight="weight", backend="spbfs"))[3]
    {3: 0, 2: 1, 1: 2, 0: 3}
    """
    if method not in ("dijkstra", "bellman-ford"):
        raise ValueError(f"method not supported: {method}")
    if weight is None:
        if source is None and target is None:
            return ((v, single_source_shortest_path_length(G, v)) for v in G)
        if source is None:
            return single_source_shortest_path_length(G.reverse(), target)
        if target is None:
            return single_source_shortest_path_length(G, source)
        return _hops_to(G, source, target)
    if source is not None and target is not None:
        return _length_to(G, source, target, weight, method)
    G.weights(weight)  # unsupported weights fall back to NetworkX now, not mid-iteration
    if source is None and target is None:
        return ((v, single_source_dijkstra_path_length(G, v, weight=weight)) for v in G)
    if source is None:
        return single_source_dijkstra_path_length(G.reverse(), target, weight=weight)
    return single_source_dijkstra_path_length(G, source, weight=weight)
