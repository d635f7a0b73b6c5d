"""Lowest common ancestors on directed acyclic graphs and trees, with NetworkX's choices.

``lowest_common_ancestor`` and ``all_pairs_lowest_common_ancestor``: NetworkX intersects the
two nodes' ancestor sets (each node with its ancestors, the set of a breadth-first search
over the reverse graph), starts at the first element of that intersection and walks down,
each step to the first successor (in adjacency order) that is a common ancestor, until none
is.  Here the ancestors are the queue order of one search over the reverse graph
(:func:`spbfs.semiring.queue_order`, NetworkX's predecessor order, so the Python sets are
built with the same insertion order and iterate alike; they are intersected by C loops),
and the walks run on arrays, all pairs at once: each round tests a few more successors of
every walk's current node for membership in both ancestor lists (sorted keys), the first
common one becoming the next node.

``tree_all_pairs_lowest_common_ancestor``: NetworkX runs Tarjan's off-line algorithm along
a depth-first search; its answers are the tree's lowest common ancestors and its order is
the search's postorder.  Here the postorder comes from the preorder of
:func:`spbfs.csgraph.depth_first_order` (position, depth and subtree size, the last two by
pointer jumping), and the ancestors by binary lifting, all pairs at once.
"""

from __future__ import annotations

import operator
from collections import defaultdict, deque
from collections.abc import Mapping, Set
from itertools import chain, compress, repeat

import numpy as np

from ..core.arrays import to_numpy
from ..core.csr import expand
from ..csgraph import depth_first_order
from ..semiring import queue_order
from ._recognition import no_multigraph
from ._registry import dispatched
from ._structure import is_directed_acyclic_graph

__all__ = []

#: Pairs whose walks run together (their arrays take about 100 bytes a pair).
PAIR_BLOCK = 1 << 18
#: Successors a walk tests in its first round at a node (doubling in each later round
#: there, so a node of many successors costs at most about twice the ones NetworkX tests).
FIRST_CHUNK = 4


def _ancestor_set(R, row, node):
    """NetworkX's ``nx.ancestors(G, node)`` with ``node`` added: the same Python set, its
    elements inserted in the order of the reverse graph's breadth-first search."""
    order = to_numpy(queue_order(R.matrix(R.on_gpu()), row)[0])
    found = set(R.labels(order[1:]))
    found.add(node)
    return found


def _walk_down(G, common, start):
    """Where NetworkX's walk from ``start`` through the set ``common`` ends: each step to
    the first successor of the current node that is in ``common``."""
    n = len(G)
    index = G.index
    rows = np.fromiter(map(index.__getitem__, common), np.int64, count=len(common))
    member = np.zeros(n, bool)
    member[rows] = True
    indptr = G._indptr.astype(np.int64)
    counts = indptr[rows + 1] - indptr[rows]
    owner = np.repeat(rows, counts)  # each entry of the common rows, by row in order
    first = np.cumsum(counts) - counts
    entries = np.repeat(indptr[rows] - first, counts) + np.arange(int(counts.sum()))
    cols = G._indices[entries].astype(np.int64)
    keep = member[cols]
    nxt = np.arange(n)
    kept_rows, at = np.unique(owner[keep], return_index=True)  # rows ascending: the
    nxt[kept_rows] = cols[keep][at]  # first kept entry of each row (entries in row order)
    while True:  # pointer doubling: the chain's end, in O(log length) steps
        jumped = nxt[nxt]
        if np.array_equal(jumped, nxt):
            break
        nxt = jumped
    return G.labels(nxt[[index[start]]])[0]


def _lca_can_run(arguments):
    return no_multigraph(arguments)


@dispatched(can_run=_lca_can_run, docs="Ancestors by one breadth-first search (queue "
            "order) over the reverse graph per node; NetworkX's choice among several lowest "
            "common ancestors (its sets built in the same order, its walk on arrays); "
            "multigraphs run in NetworkX.")
def lowest_common_ancestor(G, node1, node2, default=None):
    """NetworkX's ``lowest_common_ancestor`` of a directed acyclic graph.

    Parameters
    ----------
    G : SpbfsGraph
        Directed and acyclic.
    node1, node2 : node
        Nodes of ``G``.
    default : object
        Returned when the two nodes have no common ancestor.

    Returns
    -------
    node or ``default``
        The lowest common ancestor NetworkX returns.

    Raises
    ------
    networkx.NetworkXError
        ``G`` has a cycle.
    networkx.NetworkXPointlessConcept
        ``G`` has no nodes.
    networkx.NodeNotFound
        A node is not in ``G``.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.DiGraph([(0, 1), (0, 2), (1, 3), (2, 4)])
    >>> nx.lowest_common_ancestor(G, 3, 4, backend="spbfs")
    0
    """
    import networkx as nx

    if not G.is_directed():
        raise nx.NetworkXNotImplemented("not implemented for undirected type")
    if not is_directed_acyclic_graph(G):
        raise nx.NetworkXError("LCA only defined on directed acyclic graphs.")
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("LCA meaningless on null graphs.")
    pair = (node1, node2)
    missing = {node for node in pair if node not in G}
    if missing:
        raise nx.NodeNotFound(f"Node(s) {missing} from pair {pair} not in G.")
    R = G.reverse()
    first = _ancestor_set(R, R.index[node1], node1)
    second = first if node2 == node1 else _ancestor_set(R, R.index[node2], node2)
    common = first & second
    if not common:
        return default
    return _walk_down(G, common, next(iter(common)))


def _check_dag(G):
    """NetworkX's checks, in its order: directed, acyclic, not empty."""
    import networkx as nx

    if not G.is_directed():
        raise nx.NetworkXNotImplemented("not implemented for undirected type")
    if not is_directed_acyclic_graph(G):
        raise nx.NetworkXError("LCA only defined on directed acyclic graphs.")
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("LCA meaningless on null graphs.")


def _rows_of(G, nodes):
    """The CSR rows of ``nodes`` (a list), -1 for those not in ``G``."""
    return np.fromiter(map(G.index.get, nodes, repeat(-1)), np.int64, count=len(nodes))


class _Ancestors:
    """The ancestors (the node included) of the nodes of ``rows``: NetworkX's Python sets
    (``sets[row]``, None for the others), and sorted keys ``row * n + ancestor`` that test
    membership for many pairs at once."""

    def __init__(self, G, rows):
        R = G.reverse()
        M = R.matrix(R.on_gpu())
        n = len(G)
        self.n = n
        self.sets = [None] * n
        keys = []
        for row, node in zip(rows.tolist(), G.labels(rows), strict=True):
            order = to_numpy(queue_order(M, row)[0])
            found = set(R.labels(order[1:]))  # nx.ancestors' set, built in its order
            found.add(node)
            self.sets[row] = found
            keys.append(order + row * n)
        self.keys = np.sort(np.concatenate(keys)) if keys else np.zeros(0, np.int64)

    def has(self, rows, nodes):
        """Whether each ``nodes[i]`` is an ancestor of (or is) ``rows[i]``."""
        query = rows * self.n + nodes
        at = np.minimum(np.searchsorted(self.keys, query), self.keys.size - 1)
        return self.keys[at] == query


def _walks(G, anc, v, w, start):
    """Where NetworkX's walks end: from ``start[i]``, each step to the first successor in
    adjacency order that is a common ancestor of ``v[i]`` and ``w[i]``, until none is.

    All walks advance together; a walk tests ``FIRST_CHUNK`` successors of its node in its
    first round there, twice as many in each next round."""
    indptr, indices = G._indptr.astype(np.int64), G._indices.astype(np.int64)
    cur = start.copy()
    pos, end = indptr[cur], indptr[cur + 1]
    width = np.full(cur.size, FIRST_CHUNK, np.int64)
    active = np.flatnonzero(pos < end)
    while active.size:
        counts = np.minimum(width[active], end[active] - pos[active])
        entries, owner = expand(indptr, cur[active], counts=counts, starts=pos[active])
        cand = indices[entries]
        ok = anc.has(v[active][owner], cand) & anc.has(w[active][owner], cand)
        hit, first = np.unique(owner[ok], return_index=True)  # the first hit of each walk
        moved = active[hit]
        cur[moved] = cand[ok][first]
        pos[moved], end[moved], width[moved] = indptr[cur[moved]], indptr[cur[moved] + 1], \
            FIRST_CHUNK
        missed = np.ones(active.size, bool)
        missed[hit] = False
        rest = active[missed]
        pos[rest] += counts[missed]
        width[rest] *= 2
        active = np.concatenate([moved, rest])
        active = active[pos[active] < end[active]]
    return cur


def _all_pairs_blocks(n):
    """NetworkX's ``combinations_with_replacement(G, 2)`` as rows ``(v, w)``, in blocks of
    about ``PAIR_BLOCK`` pairs."""
    counts = n - np.arange(n, dtype=np.int64)
    ends = np.cumsum(counts)
    first = 0
    while first < n:
        done = ends[first - 1] if first else 0
        last = max(first + 1, int(np.searchsorted(ends, done + PAIR_BLOCK, side="right")))
        rows = np.arange(first, last, dtype=np.int64)
        total = int(counts[first:last].sum())
        seg = np.cumsum(counts[first:last]) - counts[first:last]
        v = np.repeat(rows, counts[first:last])
        w = np.repeat(rows - seg, counts[first:last]) + np.arange(total)
        yield v, w, None
        first = last


def _pair_lcas(G, blocks, needed):
    """``((v, w), lca)`` of each pair of ``blocks`` that has a common ancestor (NetworkX's
    generator, a block of pairs at a time)."""
    anc = None
    for v, w, given in blocks:
        if anc is None:  # (at the first pair, as NetworkX fills its cache lazily)
            anc = _Ancestors(G, needed)
        sets = anc.sets
        common = map(operator.and_, map(sets.__getitem__, v.tolist()),
                     map(sets.__getitem__, w.tolist()))
        start = _rows_of(G, list(map(next, map(iter, common), repeat(None))))
        found = start >= 0
        lca = G.labels(_walks(G, anc, v[found], w[found], start[found]))
        if given is None:
            keys = zip(G.labels(v[found]), G.labels(w[found]), strict=True)
        else:
            keys = zip(*(compress(side, found.tolist()) for side in given), strict=True)
        yield from zip(keys, lca, strict=True)


@dispatched(can_run=_lca_can_run, docs="Each node's ancestors by one breadth-first search "
            "(queue order) over the reverse graph, as NetworkX's Python sets (intersected "
            "by C loops); every pair's walk down to NetworkX's choice among several lowest "
            "common ancestors runs on arrays, all pairs at once; multigraphs run in "
            "NetworkX.")
def all_pairs_lowest_common_ancestor(G, pairs=None):
    """NetworkX's ``all_pairs_lowest_common_ancestor`` of a directed acyclic graph.

    Parameters
    ----------
    G : SpbfsGraph
        Directed and acyclic.
    pairs : iterable of node pairs, optional
        Default: every pair ``(v, w)`` of ``combinations_with_replacement(G, 2)``.

    Returns
    -------
    generator of ``((v, w), lca)``
        The pairs that have a common ancestor, in NetworkX's order, each with the lowest
        common ancestor NetworkX picks.

    Raises
    ------
    networkx.NetworkXError
        ``G`` has a cycle.
    networkx.NetworkXPointlessConcept
        ``G`` has no nodes.
    networkx.NodeNotFound
        A node of ``pairs`` is not in ``G``.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.DiGraph([(0, 1), (0, 3), (1, 2)])
    >>> dict(nx.all_pairs_lowest_common_ancestor(G, pairs=[(1, 2), (2, 3)], backend="spbfs"))
    {(1, 2): 1, (2, 3): 0}
    """
    import networkx as nx

    _check_dag(G)
    if pairs is None:
        return _pair_lcas(G, _all_pairs_blocks(len(G)), np.arange(len(G)))
    keys = list(dict.fromkeys(pairs))
    firsts = list(map(operator.itemgetter(0), keys))
    seconds = list(map(operator.itemgetter(1), keys))
    v, w = _rows_of(G, firsts), _rows_of(G, seconds)
    bad = np.flatnonzero((v < 0) | (w < 0))
    if bad.size:
        pair = keys[bad[0]]
        raise nx.NodeNotFound(f"Node(s) {set(pair) - set(G.nodes)} from pair {pair} not in G.")
    blocks = ((v[i:i + PAIR_BLOCK], w[i:i + PAIR_BLOCK],
               (firsts[i:i + PAIR_BLOCK], seconds[i:i + PAIR_BLOCK]))
              for i in range(0, len(keys), PAIR_BLOCK))
    return _pair_lcas(G, blocks, np.unique(np.concatenate([v, w])))


def _tree_root(G):
    """NetworkX's root when none is given: the one node without predecessors, with its
    errors (several such nodes, a node of several predecessors, none) in its node order."""
    import networkx as nx

    indegree = np.bincount(G._indices.astype(np.int64), minlength=len(G))
    sources, joins = np.flatnonzero(indegree == 0), np.flatnonzero(indegree > 1)
    second = sources[1] if sources.size > 1 else len(G)
    join = joins[0] if joins.size else len(G)
    if second < join:
        raise nx.NetworkXError("No root specified and tree has multiple sources.")
    if join < len(G):
        raise nx.NetworkXError("Tree LCA only defined on trees; use DAG routine.")
    if not sources.size:
        raise nx.NetworkXError("Graph contains a cycle.")
    return int(sources[0])


def _jump_to_end(ptr):
    """Where each chain of ``ptr`` (a forest of pointers, roots pointing at themselves)
    ends, by pointer doubling."""
    while True:
        jumped = ptr[ptr]
        if np.array_equal(jumped, ptr):
            return ptr
        ptr = jumped


class _Tree:
    """The tree below a root in depth-first preorder (``order`` and ``pred`` from
    :func:`spbfs.csgraph.depth_first_order`; node ``i`` of the tree is row ``order[i]``):
    depths, postorder positions and a binary-lifting table of ancestors."""

    @classmethod
    def below(cls, G, root):
        """The tree below row ``root``, or None where a node below it has several
        predecessors (or one outside: then the search does not see them all)."""
        order, pred = (to_numpy(a) for a in depth_first_order(G.matrix(False), root))
        order = order.astype(np.int64)
        indegree = np.bincount(G._indices.astype(np.int64), minlength=len(G))
        if (indegree[order[1:]] != 1).any():
            return None
        return cls(G, order, pred)

    def __init__(self, G, order, pred):
        self.order = order
        k = order.size
        pre = np.full(len(G), -1, np.int64)
        pre[order] = np.arange(k)
        self.pre = pre
        parent = np.zeros(k, np.int64)
        parent[1:] = pre[pred[order[1:]]]
        indptr = G._indptr.astype(np.int64)
        # depth: the number of steps up to the root, by doubling (steps to the root are 0)
        up, depth = parent.copy(), (np.arange(k) > 0).astype(np.int64)
        while up.any():
            depth += depth[up] * (up > 0)
            up = up[up]
        self.depth = depth
        # the last node of each subtree in preorder: its last child's, down to a leaf
        last_entry = indptr[order + 1] - 1
        has_child = last_entry >= indptr[order]
        last_child = np.arange(k)
        last_child[has_child] = pre[G._indices[last_entry[has_child]].astype(np.int64)]
        size = _jump_to_end(last_child) - np.arange(k) + 1
        self.post = np.arange(k) - depth + size - 1
        levels = [parent]
        for _ in range(max(1, int(depth.max()).bit_length()) - 1):
            levels.append(levels[-1][levels[-1]])
        self.up = levels

    def lca(self, a, b):
        """The lowest common ancestor of each pair of tree nodes ``(a[i], b[i])``."""
        depth, up = self.depth, self.up
        deeper = depth[a] < depth[b]
        a, b = np.where(deeper, b, a), np.where(deeper, a, b)
        lift = depth[a] - depth[b]
        for k, table in enumerate(up):
            a = np.where((lift >> k) & 1, table[a], a)
        for table in reversed(up):
            ta, tb = table[a], table[b]
            move = ta != tb
            a, b = np.where(move, ta, a), np.where(move, tb, b)
        return np.where(a == b, a, up[0][a])


def _tree_all_pairs(G, tree):
    """NetworkX's output without ``pairs``: for each tree node ``x`` in postorder, every
    ``(v, x)`` with ``v`` finished by then, ``v`` in node order."""
    k = tree.order.size
    by_node = np.argsort(tree.order, kind="stable")  # tree nodes in the graph's node order
    by_post = np.argsort(tree.post, kind="stable")
    post_by_node = tree.post[by_node]
    step = max(1, PAIR_BLOCK // k)
    for first in range(0, k, step):
        xs = by_post[first:first + step]
        rank, col = np.nonzero(post_by_node[None, :] <= tree.post[xs][:, None])
        x, v = xs[rank], by_node[col]
        lca = G.labels(tree.order[tree.lca(v, x)])
        yield from zip(zip(G.labels(tree.order[v]), G.labels(tree.order[x]), strict=True),
                       lca, strict=True)


def _tree_given_pairs(G, tree, pairs, partners):
    """NetworkX's output for ``pairs``: for each tree node ``x`` in postorder, each ``v`` of
    ``partners[x]`` (a set, in its order) finished by then gives ``(x, v)`` and ``(v, x)``,
    each when ``pairs`` holds it."""
    nodes = list(partners)
    rows = _rows_of(G, nodes)
    in_tree = tree.pre[rows] >= 0
    xs = tree.pre[rows[in_tree]]
    keep = np.argsort(tree.post[xs], kind="stable")
    xs = xs[keep]
    groups = list(map(partners.__getitem__, compress(nodes, in_tree.tolist())))
    groups = [groups[i] for i in keep.tolist()]
    counts = np.fromiter(map(len, groups), np.int64, count=len(groups))
    others = list(chain.from_iterable(groups))
    x = np.repeat(xs, counts)
    v = tree.pre[_rows_of(G, others)]
    done = (v >= 0) & (tree.post[np.maximum(v, 0)] <= tree.post[x])
    x, v = x[done], v[done]
    others = list(compress(others, done.tolist()))
    x_labels = G.labels(tree.order[x])
    forward = list(zip(x_labels, others, strict=True))
    backward = list(zip(others, x_labels, strict=True))
    found = np.empty((x.size, 2), bool)
    found[:, 0] = np.fromiter(map(pairs.__contains__, forward), bool, count=x.size)
    found[:, 1] = np.fromiter(map(pairs.__contains__, backward), bool, count=x.size)
    lca = G.labels(tree.order[tree.lca(x, v)])
    found = found.ravel().tolist()  # (x, v) then (v, x), entry by entry
    keys = compress(chain.from_iterable(zip(forward, backward, strict=True)), found)
    yield from zip(keys, compress(chain.from_iterable(zip(lca, lca, strict=True)), found),
                   strict=True)


def _tree_lca_can_run(arguments):
    return no_multigraph(arguments)


@dispatched(can_run=_tree_lca_can_run, docs="NetworkX's answers and order (its Tarjan "
            "search's postorder) from one depth-first preorder "
            "(spbfs.csgraph.depth_first_order), depths and subtree sizes by pointer "
            "jumping, and binary lifting for every pair at once; a ``root`` whose "
            "descendants are not a tree (a node of several predecessors below it) runs "
            "NetworkX's own code; multigraphs run in NetworkX.")
def tree_all_pairs_lowest_common_ancestor(G, root=None, pairs=None):
    """NetworkX's ``tree_all_pairs_lowest_common_ancestor``: lowest common ancestors in a
    directed tree.

    Parameters
    ----------
    G : SpbfsGraph
        Directed; the nodes below ``root`` make a tree (edges from parents to children).
    root : node, optional
        Default: the one node without predecessors.
    pairs : iterable of node pairs, optional
        Default: every pair of nodes below ``root``.

    Yields
    ------
    ``((u, v), lca)``
        In NetworkX's order (its depth-first postorder).

    Raises
    ------
    networkx.NetworkXPointlessConcept
        ``G`` has no nodes.
    networkx.NodeNotFound
        A node of ``pairs`` is not in ``G``.
    networkx.NetworkXError
        Without ``root``: ``G`` has several nodes without predecessors, a node with
        several, or none.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.DiGraph([(1, 3), (2, 4), (1, 2)])
    >>> dict(nx.tree_all_pairs_lowest_common_ancestor(G, pairs=[(1, 4), (2, 3)],
    ...                                                backend="spbfs"))
    {(2, 3): 1, (1, 4): 1}
    """
    import networkx as nx

    if not G.is_directed():
        raise nx.NetworkXNotImplemented("not implemented for undirected type")
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("LCA meaningless on null graphs.")
    partners = None
    if pairs is not None:
        if not isinstance(pairs, Mapping | Set):
            pairs = set(pairs)
        keys = list(pairs)
        ends = list(chain.from_iterable(zip(map(operator.itemgetter(0), keys),
                                            map(operator.itemgetter(1), keys), strict=True)))
        missing = np.flatnonzero(_rows_of(G, ends) < 0)
        if missing.size:
            raise nx.NodeNotFound(f"The node {str(ends[missing[0]])} is not in the digraph.")
        partners = defaultdict(set)  # NetworkX's pair_dict, filled in its order
        swapped = chain.from_iterable(zip(ends[1::2], ends[0::2], strict=True))
        deque(map(set.add, map(partners.__getitem__, ends), swapped), maxlen=0)
    if root is None:
        row = _tree_root(G)
    elif root in G:
        row = G.index[root]
    else:
        row = None
    tree = None if row is None else _Tree.below(G, row)
    if tree is None:  # not a tree below root: NetworkX's own search
        original = nx.tree_all_pairs_lowest_common_ancestor.orig_func
        yield from original(G.networkx_graph(), root, pairs)
        return
    if pairs is None:
        yield from _tree_all_pairs(G, tree)
    else:
        yield from _tree_given_pairs(G, tree, pairs, partners)
