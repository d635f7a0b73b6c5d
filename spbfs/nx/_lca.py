"""Lowest common ancestors on directed acyclic graphs and trees, with NetworkX's choices.

``lowest_common_ancestor`` and ``all_pairs_lowest_common_ancestor``: NetworkX intersects the
two nodes' ancestor sets (each node with its ancestors, the set of a breadth-first search
over the reverse graph), starts at the first element of that intersection and walks down,
each step to the first successor (in adjacency order) that is a common ancestor, until none
is.  Here the ancestors are the queue order of one search over the reverse graph
(:func:`spbfs.semiring.queue_order`, NetworkX's predecessor order, so the Python sets are
built with the same insertion order and iterate alike).  For all pairs they are also rows
of bits, ordered by topological generation: the AND of two rows holds the common
ancestors, its highest bit a lowest one, and where that one is below every other common
ancestor it is the only lowest one, where every walk ends, NetworkX's too.  Only the pairs
with several lowest common ancestors need NetworkX's start, the first element of the
Python sets' intersection.  Where every node's bit row fits in ``COMPILED_BYTES``, one
compiled pass does it all (:mod:`spbfs.cpu.lca`): the pairs that share a source, the ANDs,
and the Python sets' tables simulated (:mod:`spbfs.cpu.pysets`) for the start, then the
walk; a range of first rows per call, the next range's call running on a second thread
while the items of one are made.  Otherwise the start comes from the Python sets
themselves (C loops) and the walks run on arrays, all pairs at once (once for each
distinct start and set of common ancestors), each round testing a few more successors of
every walk's current node.  Pairs without a common source (the sources' bits come first in
the rows) are left out before the rest of the rows is read.

``tree_all_pairs_lowest_common_ancestor``: NetworkX runs Tarjan's off-line algorithm along
a depth-first search; its answers are the tree's lowest common ancestors and its order is
the search's postorder.  Here the postorder comes from the preorder of
:func:`spbfs.csgraph.depth_first_order` (position, depth and subtree size, the last two by
pointer jumping), and the lowest common ancestors from a sparse table of range minima over
the preorder (the parent of the shallowest node between the two), all pairs at once.
"""

from __future__ import annotations

import operator
from collections import defaultdict, deque
from collections.abc import Mapping, Set
from itertools import chain, compress, repeat

import numpy as np

from ..algorithms.dag import topological_generations
from ..core.arrays import to_numpy
from ..core.csr import expand, popcount
from ..csgraph import depth_first_order
from ..semiring import queue_order
from ._recognition import no_multigraph
from ._registry import dispatched, gc_paused
from ._structure import is_directed_acyclic_graph

__all__ = []

#: Pairs whose walks run together (their arrays take about 100 bytes a pair).
PAIR_BLOCK = 1 << 18
#: Largest bit rows of ancestors (one row of ``n`` bits per node searched); above it,
#: sorted keys (every pair then intersects NetworkX's Python sets).
BIT_BYTES = 1 << 30
#: Largest bit rows of every node's ancestors for the compiled pass (:mod:`spbfs.cpu.lca`);
#: above it, rows for the pairs' nodes alone (:class:`_Ancestors`).
COMPILED_BYTES = 1 << 28
#: Pairs a compiled call reads (the next block's call runs while a block's items are made).
COMPILED_BLOCK = 1 << 16
#: Words of bit rows handled together (pairs times words a row).
BIT_PAIR_WORDS = 1 << 22
#: ``list`` with Python's cyclic garbage collector paused: a block's items are built at once
#: (the collections their allocations would trigger each walk every object alive).
_listed = gc_paused(list)
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
    """The ancestors (the node included) of some nodes, each found by one search over the
    reverse graph: membership for many pairs at once, and NetworkX's Python set of a node,
    built when asked for.

    Membership is a row of ``n`` bits per node, bit ``rank[x]`` for ancestor ``x`` (``rank``
    sorts the nodes by topological generation, so of two ancestors the lower one has the
    higher bit), or sorted keys ``row * n + ancestor`` where bit rows would take more than
    ``BIT_BYTES``."""

    def __init__(self, G, rows):
        self.R = G.reverse()
        self.M = self.R.matrix(self.R.on_gpu())
        self.n = n = len(G)
        self.words = (n + 63) // 64
        self.slot = np.full(n, -1, np.int64)
        self.orders = []
        self.sets = {}
        self.bits = self.keys = self.heads = None
        if rows.size * self.words * 8 <= BIT_BYTES:
            self.bits = np.zeros((0, self.words), np.uint64)
            self.counts = np.zeros(0, np.int64)
            generation = to_numpy(topological_generations(G.csr()))
            # the sources (generation 0) take the first bits: the words that hold them (all
            # words where one source is every node's ancestor: no pair to leave out)
            sources = int(np.count_nonzero(generation == 0))
            self.head = (sources + 63) // 64 if sources > 1 else self.words
            self.by_rank = np.argsort(generation, kind="stable")
            self.rank = np.empty(n, np.int64)
            self.rank[self.by_rank] = np.arange(n)
            self.add(rows)
        else:
            self.add(rows)
            self.keys = np.sort(np.concatenate([order + row * n for row, order in
                                                zip(rows.tolist(), self.orders,
                                                    strict=True)]))

    def add(self, rows):
        """Search from each of ``rows`` (new ones, without repeats)."""
        first = len(self.orders)
        self.slot[rows] = first + np.arange(rows.size)
        orders = [to_numpy(queue_order(self.M, row)[0]).astype(np.int64)
                  for row in rows.tolist()]
        self.orders += orders
        if self.bits is None:
            return
        counts = np.fromiter(map(len, orders), np.int64, count=len(orders))
        found = self.rank[np.concatenate(orders)] if orders else np.zeros(0, np.int64)
        word = np.repeat(np.arange(rows.size) * self.words, counts) + (found >> 6)
        bit = np.left_shift(np.uint64(1), (found & 63).astype(np.uint64))
        by_word = np.argsort(word, kind="stable")
        word, bit = word[by_word], bit[by_word]
        starts = np.flatnonzero(np.r_[True, word[1:] != word[:-1]]) if word.size else word
        block = np.zeros(rows.size * self.words, np.uint64)
        if word.size:
            block[word[starts]] = np.add.reduceat(bit, starts)  # distinct bits: OR = sum
        self.bits = np.vstack([self.bits, block.reshape(rows.size, self.words)])
        self.counts = np.r_[self.counts, counts]  # each row's ancestors, itself included

    def head_words(self):
        """The words of the sources' bits, each a contiguous column of every row."""
        if self.heads is None or self.heads.shape[1] != self.bits.shape[0]:
            self.heads = np.ascontiguousarray(self.bits[:, :self.head].T)
        return self.heads

    def ensure(self, rows):
        """Search from those of ``rows`` not searched yet."""
        rows = np.unique(rows)
        rows = rows[self.slot[rows] < 0]
        if rows.size:
            self.add(rows)

    def set_of(self, row):
        """NetworkX's ``nx.ancestors(G, node) | {node}``: the same Python set, its elements
        inserted in the same order."""
        found = self.sets.get(row)
        if found is None:
            order = self.orders[self.slot[row]]
            found = self.sets[row] = set(self.R.labels(order[1:]))
            found.add(self.R.labels(order[:1])[0])
        return found

    def has(self, rows, nodes):
        """Whether each ``nodes[i]`` is an ancestor of (or is) ``rows[i]``."""
        if self.bits is not None:
            at = self.rank[nodes]
            word = self.bits[self.slot[rows], at >> 6]
            return (word >> (at & 63).astype(np.uint64)) & np.uint64(1) != 0
        query = rows * self.n + nodes
        at = np.minimum(np.searchsorted(self.keys, query), self.keys.size - 1)
        return self.keys[at] == query

    def first_common(self, G, v, w):
        """NetworkX's start for each pair: ``next(iter(ancestors(v) & ancestors(w)))`` (the
        Python sets' intersection), -1 where it is empty."""
        deque(map(self.set_of, np.unique(np.r_[v, w]).tolist()), maxlen=0)  # built once
        common = map(operator.and_, map(self.sets.__getitem__, v.tolist()),
                     map(self.sets.__getitem__, w.tolist()))
        return _rows_of(G, list(map(next, map(iter, common), repeat(None))))


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


def _group_key(common, tag):
    """A hash of each row of ``common`` (uint64 words) with its ``tag`` (an int): odd
    random factors, sums modulo 2**64."""
    mix = np.random.default_rng(61).integers(1, 1 << 63, common.shape[1] + 1, np.uint64)
    mix |= np.uint64(1)
    with np.errstate(over="ignore"):
        return (common * mix[1:]).sum(axis=1, dtype=np.uint64) + tag.astype(np.uint64) * mix[0]


def _per_group(tag, common, compute):
    """``compute(at)`` (a value for each pair of the index array ``at``) once for each
    distinct ``tag`` and row of ``common`` (bits: the pair's common ancestors), its value
    given to the whole group.  Pairs are grouped by a hash of both, each checked equal to
    its group's first (a pair whose hash collided is computed on its own)."""
    _, first, inverse = np.unique(_group_key(common, tag), return_index=True,
                                  return_inverse=True)
    lead = first[inverse]
    same = (tag == tag[lead]) & (common == common[lead]).all(axis=1)
    done = np.union1d(first, np.flatnonzero(~same))
    out = np.empty(tag.size, np.int64)
    out[done] = compute(done)
    out[same] = out[lead[same]]
    return out


def _shared_lcas(G, anc, v, w, common):
    """NetworkX's pick for pairs with several lowest common ancestors: its start, then its
    walk.  The start is the first element of ``ancestors(v) & ancestors(w)``: Python's
    ``&`` goes through the smaller set (``w``'s where the sizes are equal) and adds each
    element the other holds to a new set, in that order, so pairs of one such set and one
    set of common ancestors get equal sets in equal order, and one intersection serves
    them all.  A walk depends on its start and the common ancestors alone."""
    sizes = anc.counts  # each set's size: the node and its ancestors
    through = np.where(sizes[anc.slot[w]] > sizes[anc.slot[v]], v, w)
    start = _per_group(through, common, lambda at: anc.first_common(G, v[at], w[at]))
    return _per_group(start, common, lambda at: _walks(G, anc, v[at], w[at], start[at]))


def _highest_bit(words):
    """The position of the highest set bit of each row of ``words`` (uint64), -1 in rows
    of none."""
    nonzero = words != 0
    last = words.shape[1] - 1 - np.argmax(nonzero[:, ::-1], axis=1)
    word = words[np.arange(words.shape[0]), last]
    bit = np.floor(np.log2(np.maximum(word, 1).astype(np.float64))).astype(np.int64)
    bit -= (word >> bit.astype(np.uint64)) == 0  # float64 rounded the word up past 2**bit
    return np.where(word != 0, last * 64 + bit, -1)  # (a row of none picks a zero word)


def _pair_block_lcas(G, anc, v, w):
    """The lowest common ancestor NetworkX picks for each pair ``(v[i], w[i])``, -1 where
    they have no common ancestor.

    With bit rows: pairs without a common source (the sources' bits come first) have no
    common ancestor.  The common ancestor of the highest bit (the latest generation) has no
    common ancestor below it, so it is a lowest one, ``m``; where every common ancestor is
    an ancestor of ``m`` (as many bits as ``m``'s row: ``m`` is the only lowest one), every
    walk ends there, NetworkX's too.  Only the other pairs intersect NetworkX's Python sets
    for its start and walk from there, each once per group of pairs that share the result
    (:func:`_shared_lcas`)."""
    if anc.bits is None:
        start = anc.first_common(G, v, w)
        found = start >= 0
        out = np.full(v.size, -1, np.int64)
        out[found] = _walks(G, anc, v[found], w[found], start[found])
        return out
    sv, sw = anc.slot[v], anc.slot[w]
    out = np.full(v.size, -1, np.int64)
    if anc.head < anc.words:  # a common ancestor means a common source: the first bits
        heads = anc.head_words()
        shared = heads[0][sv] & heads[0][sw]
        for word in heads[1:]:
            shared |= word[sv] & word[sw]
        meet = np.flatnonzero(shared)
        v, w, sv, sw = v[meet], w[meet], sv[meet], sw[meet]
    else:
        meet = slice(None)
    common = anc.bits[sv]
    common &= anc.bits[sw]
    lowest = _highest_bit(common)
    found = np.flatnonzero(lowest >= 0)
    lowest[found] = anc.by_rank[lowest[found]]
    anc.ensure(lowest[found])
    # m is the only lowest one where the common ancestors are m's ancestors alone (they
    # hold those): as many bits as m's row
    held = popcount(common).sum(axis=1, dtype=np.int64)
    several = found[held[found] != anc.counts[anc.slot[lowest[found]]]]
    if several.size:
        lowest[several] = _shared_lcas(G, anc, v[several], w[several], common[several])
    out[meet] = lowest
    return out


def _compiled(G):
    """The compiled ancestors of every node (:class:`spbfs.cpu.lca.Ancestors`), or None
    where their bit rows would take more than ``COMPILED_BYTES``."""
    from ..cpu.lca import Ancestors

    n = len(G)
    if n * ((n + 63) // 64) * 8 > COMPILED_BYTES:
        return None
    R = G.reverse()
    generation = to_numpy(topological_generations(G.csr()))
    if G._identity:  # an int i hashes to i
        hashes = np.arange(n, dtype=np.int64)
    else:
        hashes = np.fromiter(map(hash, G.nodes), np.int64, count=n)
    return Ancestors(G._indptr, G._indices, R._indptr, R._indices, generation, hashes)


def _pair_lcas(G, blocks, needed):
    """``((v, w), lca)`` of each pair of ``blocks`` that has a common ancestor, NetworkX's
    generator: an iterator computing a block of pairs at a time (the items pass through C
    iterators only, no Python frame each)."""
    return chain.from_iterable(_pair_blocks(G, blocks, needed))


def _pair_blocks(G, blocks, needed):
    """The items of :func:`_pair_lcas`, a list for each block."""
    state = {}

    @gc_paused  # (the sets of NetworkX's intersections too)
    def block(item):
        v, w, given = item
        if "compiled" not in state:  # (at the first pair, as NetworkX fills its cache)
            state["compiled"] = _compiled(G)
        compiled = state["compiled"]
        if compiled is not None:
            lca = compiled.pair_lcas(v, w)
        else:
            anc = state.get("anc")
            if anc is None:
                anc = state["anc"] = _Ancestors(G, needed)
            step = max(1, BIT_PAIR_WORDS // anc.words)
            lca = np.concatenate([_pair_block_lcas(G, anc, v[i:i + step], w[i:i + step])
                                  for i in range(0, v.size, step)])
        found = lca >= 0
        if given is None:
            keys = zip(G.labels(v[found]), G.labels(w[found]), strict=True)
        else:
            keys = zip(*(compress(side, found.tolist()) for side in given), strict=True)
        return list(zip(keys, G.labels(lca[found]), strict=True))

    return map(block, blocks)


def _all_pair_lcas(G):
    """NetworkX's generator without ``pairs``: the items of :func:`_range_blocks`."""
    return chain.from_iterable(_range_blocks(G))


def _range_blocks(G):
    """The items of all pairs, a list for each range of first rows (a generator: it starts
    at the first item, as NetworkX's).  The compiled pass
    (:class:`spbfs.cpu.lca.Ancestors`) computes a range's pairs while the items of the
    range before are made (on a second thread, where two are allowed); without it (bit
    rows too large), :func:`_pair_blocks`."""
    from concurrent.futures import ThreadPoolExecutor

    from ..cpu.threads import get_num_threads

    n = len(G)
    compiled = _compiled(G)
    if compiled is None:
        blocks = (_range_pairs(n, first, last) for first, last in _row_ranges(n))
        yield from _pair_blocks(G, blocks, np.arange(n))
        return
    items = gc_paused(_found_items)
    ranges = list(_row_ranges(n, COMPILED_BLOCK))
    if get_num_threads() < 2 or len(ranges) < 2:
        for first, last in ranges:
            yield items(G, *compiled.lcas(first, last))
        return
    with ThreadPoolExecutor(1, thread_name_prefix="spbfs-lca") as ahead:
        pending = ahead.submit(compiled.lcas, *ranges[0])
        for first, last in ranges[1:]:
            found = pending.result()
            pending = _started(ahead, compiled.lcas, first, last)
            yield items(G, *found)
        yield items(G, *pending.result())


def _started(pool, func, *args):
    """``pool.submit(func, *args)``, returned once the call has begun (then holding the GIL
    until it enters its compiled code: the caller's next C loop cannot keep it waiting)."""
    import threading

    begun = threading.Event()

    def call():
        begun.set()
        return func(*args)

    pending = pool.submit(call)
    begun.wait()
    return pending


def _found_items(G, v, w, lca):
    """``((v, w), lca)`` items of the rows ``v``, ``w``, ``lca``, as a list."""
    return list(zip(zip(G.labels(v), G.labels(w), strict=True), G.labels(lca),
                    strict=True))


def _row_ranges(n, block=PAIR_BLOCK):
    """The first rows of ``combinations_with_replacement`` in ranges of about ``block``
    pairs."""
    counts = n - np.arange(n, dtype=np.int64)
    ends = np.cumsum(counts)
    first = 0
    while first < n:
        done = ends[first - 1] if first else 0
        last = max(first + 1, int(np.searchsorted(ends, done + block, side="right")))
        yield first, last
        first = last


def _range_pairs(n, first, last):
    """The pairs ``(v, w)``, ``first <= v < last``, ``w >= v``, as rows."""
    counts = n - np.arange(first, last, dtype=np.int64)
    total = int(counts.sum())
    seg = np.cumsum(counts) - counts
    v = np.repeat(np.arange(first, last, dtype=np.int64), counts)
    w = np.repeat(np.arange(first, last, dtype=np.int64) - seg, counts) + np.arange(total)
    return v, w, None


@dispatched(can_run=_lca_can_run, docs="Each node's ancestors as rows of bits in "
            "topological order: a pair's common ancestors are an AND, its highest bit a "
            "lowest common ancestor, the answer when it is the only one; pairs with several "
            "take NetworkX's choice (the first element of its Python sets' intersection, "
            "CPython's set tables simulated from NetworkX's insertion order, then its walk "
            "down), all in one compiled pass where every node's bit row fits in 256 MB "
            "(else by the Python sets themselves, intersected by C loops); multigraphs run "
            "in NetworkX.")
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
        return _all_pair_lcas(G)
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
    depths, postorder positions and a sparse table of range minima over the preorder."""

    @classmethod
    def below(cls, G, root):
        """The tree below row ``root``, or None where a node below it has several
        predecessors (or one outside: then the search does not see them all) or an arc
        leads back to ``root`` (a cycle through it, where every node has one predecessor)."""
        order, pred = (to_numpy(a) for a in depth_first_order(G.matrix(False), root))
        order = order.astype(np.int64)
        indegree = np.bincount(G._indices.astype(np.int64), minlength=len(G))
        if (indegree[order[1:]] != 1).any():
            return None
        # each node below has its one predecessor among the nodes searched: any arc more
        # out of them leads to the root
        if int((G._indptr[order + 1] - G._indptr[order]).sum()) != order.size - 1:
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
        # range minima over the preorder of depth * k + parent (a sparse table): the
        # nodes of least depth in a range are siblings, children of one parent
        key = depth * k + parent
        table = [key]
        while 2 << (len(table) - 1) <= k:
            half = 1 << (len(table) - 1)
            table.append(np.minimum(table[-1][:-half], table[-1][half:]))
        self.k = k
        self.table = np.concatenate(table)
        self.level_start = np.r_[0, np.cumsum([t.size for t in table])[:-1]].astype(np.int64)
        self.floor_log = np.frexp(np.arange(k + 1))[1].astype(np.int64) - 1  # exact

    def lca(self, a, b):
        """The lowest common ancestor of each pair of tree nodes ``(a[i], b[i])``: for
        ``a < b`` in preorder, the parent of the shallowest node of ``a + 1 .. b`` (``a``
        itself where ``b`` is below it), by two lookups in the sparse table."""
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        first = lo + 1
        span = np.maximum(hi - lo, 1)  # the range first .. hi (empty where a == b)
        level = self.floor_log[span]
        start = self.level_start[level]
        width = np.left_shift(1, level)
        last = np.minimum(hi - width + 1, self.k - width)  # in range where a == b too
        first = np.minimum(first, self.k - width)
        least = np.minimum(self.table[start + first], self.table[start + last])
        return np.where(lo == hi, lo, least % self.k)

    def lca_finished(self, xs, rank, v, x):
        """:meth:`lca` of pairs ``(v[i], x[i])``, ``x[i] = xs[rank[i]]``, each ``v``
        finished before ``x`` (postorder): ``x`` where ``v`` is ``x`` or below it, else
        (``v`` before ``x`` in preorder) the parent of the shallowest node of
        ``v + 1 .. x``, read from the minima of every range ending at each of ``xs`` (one
        running minimum a row, over the preorder reversed: column ``k - 1 - j`` holds the
        range ``j .. x``)."""
        k = self.k
        keys = self.table[:k][::-1]
        ending = np.where(np.arange(k)[None, :] >= (k - 1 - xs)[:, None], keys[None, :],
                          np.iinfo(np.int64).max)
        np.minimum.accumulate(ending, axis=1, out=ending)
        at = rank * k + np.maximum(k - 2 - v, 0)  # the range v + 1 .. x
        return np.where(v < x, ending.ravel()[at] % k, x)


def _tree_all_pairs(G, tree):
    """NetworkX's output without ``pairs``: for each tree node ``x`` in postorder, every
    ``(v, x)`` with ``v`` finished by then, ``v`` in node order (an iterator computing a
    block of ``x`` at a time)."""
    k = tree.order.size
    by_node = np.argsort(tree.order, kind="stable")  # tree nodes in the graph's node order
    by_post = np.argsort(tree.post, kind="stable")
    post_by_node = tree.post[by_node]
    labels = G.node_objects()[tree.order]  # the tree nodes' labels, in the tree's order

    def block(first):
        xs = by_post[first:first + step]
        rank, col = np.nonzero(post_by_node[None, :] <= tree.post[xs][:, None])
        x, v = xs[rank], by_node[col]
        lca = labels[tree.lca_finished(xs, rank, v, x)].tolist()
        return _listed(zip(zip(labels[v].tolist(), labels[x].tolist(), strict=True), lca,
                           strict=True))

    step = max(1, PAIR_BLOCK // k)
    return chain.from_iterable(map(block, range(0, k, step)))


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
    return _listed(zip(keys, compress(chain.from_iterable(zip(lca, lca, strict=True)), found),
                       strict=True))


def _tree_lca_can_run(arguments):
    return no_multigraph(arguments)


@dispatched(can_run=_tree_lca_can_run, docs="NetworkX's answers and order (its Tarjan "
            "search's postorder) from one depth-first preorder "
            "(spbfs.csgraph.depth_first_order), depths and subtree sizes by pointer "
            "jumping, and a sparse table of range minima over the preorder for every pair "
            "at once (two lookups a pair); a ``root`` whose "
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

    Returns
    -------
    iterator of ``((u, v), lca)``
        In NetworkX's order (its depth-first postorder); as NetworkX's generator, it
        checks the arguments at its first item.

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
    # NetworkX's is a generator: its checks run at the first item; so do these
    return chain.from_iterable(map(_tree_lcas, (G,), (root,), (pairs,)))


def _tree_lcas(G, root, pairs):
    """The body of :func:`tree_all_pairs_lowest_common_ancestor`: its checks, then an
    iterator of its items."""
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
        return original(G.networkx_graph(), root, pairs)
    if pairs is None:
        return _tree_all_pairs(G, tree)
    return _tree_given_pairs(G, tree, pairs, partners)
