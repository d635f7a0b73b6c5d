"""Forest pruning: a symmetric graph split into a core and the trees hanging off it, so that a
breadth-first search runs on the core alone and the trees get their levels and parents
without a search (cuGraph's Graph500 BFS and the Fugaku record runs prune this way).

Peeling removes, round after round, the vertices with at most one neighbour left (at most
:data:`ROUNDS` rounds: deeper trees keep their upper part in the core).  A removed vertex
``t`` has one neighbour left when it goes, its **tree parent**; every other neighbour of
``t`` went before it and hangs below it.  So each tree touches the rest of the graph at one
core vertex, its **attachment** ``a(t)``, through the chain of tree parents, ``depth(t)``
steps long, and a search from a core source reaches ``t`` one tree edge after another:

* ``level(t) = level(a(t)) + depth(t)`` and ``parent(t)`` = its tree parent, where ``a(t)``
  is reached;
* a source inside a tree searches from its attachment, ``depth(source)`` levels later, and
  the vertices of its own tree are set along the path between them.

The core is compacted (its own vertex ids, :func:`spbfs.semiring.extract_pattern`), and the
search's per-vertex work shrinks with it; but the whole graph's outputs are written after
it, the core's parents mapped back to the graph's ids there, so pruning pays from a share of
vertices in trees that each backend states (:func:`spbfs.semiring.pruning_share`).  A
Kronecker graph's core holds 36-53 % of the vertices (scale 18-26: 38-51 % have no edge,
20-25 % of the others lie in trees) and 99.1-99.2 % of the edges.

A graph whose degrees are skewed as its backend states (:func:`spbfs.semiring.hub_numbering`)
is pruned whatever its share of trees, its core numbered **hubs first**: by degree class
(``floor(log2 d)``), largest first, the graph's order within a class, each row's columns
sorted, so its hubs come first too.  The vertices a search reaches first and probes most
then share a few cache lines of every per-vertex array (the pull's probes of the frontier
find them there), and the graph's order within a class keeps the outputs' pass reading in
runs.  Kronecker graphs, median search, parents alone: on the CPU (2 threads, scale 20)
20.9 ms whole, 18.0 pruned in the graph's order, 13.0 numbered hubs first; on one H200
`spbfs graph500 --scale 26` 2.17 ms whole, 1.45 numbered hubs first (docs/gpu.md).
Everything here is written with :mod:`spbfs.semiring` operations and array operations; the
engine is the one :func:`spbfs.bfs` runs.

Examples
--------
>>> import numpy as np, scipy.sparse as sp
>>> from spbfs.algorithms._shared import prepare
>>> A = sp.csr_array(np.array([[0, 1, 1, 0], [1, 0, 1, 0], [1, 1, 0, 1], [0, 0, 1, 0]]))
>>> F = Forest(prepare(A))
>>> F.core.tolist(), F.tree.tolist(), F.tree_parent.tolist()
([0, 1, 2], [3], [2])
>>> from spbfs.algorithms.bfs import search
>>> search(F, 3, return_parents=True)[1].tolist()
[2, 2, 3, 3]
"""

from __future__ import annotations

import threading

import numpy as np

from ..core.arrays import array_module
from ..semiring import (
    Matrix,
    Semiring,
    extract_pattern,
    forest_outputs,
    hub_numbering,
    monoids,
    mxv,
    ops,
    peel,
    pruning_share,
)

__all__ = ["BUILD_AFTER", "HUB_SHARE", "ROUNDS", "Forest", "build", "forest_of",
           "numbers_hubs_first", "prunes", "search_whole"]

#: Peeling rounds at most: a tree deeper than this keeps its upper part in the core (a path
#: of a million vertices costs this many rounds, not half a million).
ROUNDS = 32
#: Searches of a pattern before its forest is built: building costs about as much as 20
#: searches of the whole graph (Kronecker scale 18-20 on the CPU), so a pattern searched
#: this often has spent what pruning costs (a ski rental: never twice the better choice).
BUILD_AFTER = 20

#: The hubs of :func:`numbers_hubs_first`: this share of the vertices, of largest degree.
HUB_SHARE = 1 / 64

_max_first = Semiring(monoids.max, ops.first)


class Forest:
    """A symmetric Matrix split into its core and the trees hanging off it.

    Parameters
    ----------
    M : Matrix
        Symmetric (each edge stored both ways); self-loops are allowed.
    max_rounds : int
        Peeling rounds at most (:data:`ROUNDS`).
    split : tuple, optional
        The peeling's result when the caller has it (:func:`build` checks the trees' share
        before the core is copied).
    hubs_first : bool, optional
        Number the core hubs first, by degree class (the module's docstring); None: as
        the backend states for ``M``'s degrees (:func:`numbers_hubs_first`).

    Attributes
    ----------
    n : int
        Vertices of ``M``.
    core : array of int
        The core's vertices in its numbering (a vertex ``i`` of :attr:`matrix` is
        ``core[i]``): sorted, or hubs first.
    matrix : Matrix
        The core's pattern in its own ids.
    tree, tree_parent, tree_attach, tree_depth : arrays
        Each tree vertex (sorted), its tree parent, its attachment (a core vertex) and its
        distance to it.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs.algorithms._shared import prepare
    >>> path = sp.csr_array(np.eye(5, k=1) + np.eye(5, k=-1))   # 0 - 1 - 2 - 3 - 4
    >>> F = Forest(prepare(path))
    >>> F.core.tolist(), F.tree_attach.tolist(), F.tree_depth.tolist()
    ([2], [2, 2, 2, 2], [2, 1, 1, 2])
    >>> F.start(0)
    (0, [0, 1, 2])
    """

    def __init__(self, M, max_rounds: int = ROUNDS, split=None, hubs_first=None):
        xp, n = M.xp, M.n
        self.xp, self.n, self.idt = xp, n, M.indices.dtype
        core_mask, hangs, best = split or _split(M, max_rounds)
        tree = xp.flatnonzero(hangs).astype(self.idt)
        parent = (best[tree] % n).astype(self.idt)
        attach, depth, self._up = _attachments(xp, n, tree, parent)
        self.tree, self.tree_parent = tree, parent
        self.tree_attach, self.tree_depth = attach.astype(self.idt), depth.astype(self.idt)
        self.core = xp.flatnonzero(core_mask).astype(self.idt)
        if numbers_hubs_first(M) if hubs_first is None else hubs_first:
            self.core = self.core[_by_degree_class(xp.diff(M.indptr)[self.core])]
        self.matrix = extract_pattern(M, self.core)
        # where each vertex is: its core id, -2 - its tree slot, or -1 (no edge); the
        # outputs are written from it, and the host keeps a copy for the searches' sources
        self.where = xp.full(n, -1, self.idt)
        self.where[self.core] = xp.arange(self.core.size, dtype=self.idt)
        self.where[self.tree] = -2 - xp.arange(self.tree.size, dtype=self.idt)
        self._attach_core = self.where[self.tree_attach]
        host = (lambda a: a) if xp is np else (lambda a: a.get())
        self._where, self._parent_h = host(self.where), host(self.tree_parent)
        search_whole(self.matrix)  # searches of the core itself are never pruned again

    @property
    def pruned(self) -> float:
        """The share of vertices a search leaves out (trees and vertices without an edge)."""
        return 1.0 - self.core.size / max(self.n, 1)

    @property
    def tree_share(self) -> float:
        """The trees' share of the vertices with an edge."""
        return self.tree.size / max(self.tree.size + self.core.size, 1)

    def path(self, source: int) -> list:
        """The vertices from ``source`` up its tree parents to its attachment (``[source]``
        for a core vertex)."""
        out = [int(source)]
        where = int(self._where[source])
        while where <= -2:
            out.append(int(self._parent_h[-2 - where]))
            where = int(self._where[out[-1]])
        return out

    def start(self, source: int):
        """Where a search from ``source`` (a vertex of the whole graph) starts on the core:
        ``(core id, path)``, the path from ``source`` up to its attachment (:meth:`path`);
        the core id is None for a vertex without an edge."""
        source = int(source)
        if self._where[source] == -1:
            return None, [source]
        path = self.path(source)
        return int(self._where[path[-1]]), path

    def outputs(self, path, core_levels, core_parents, return_parents, return_levels):
        """The whole graph's outputs of a search from ``path[0]``, from the core's (from
        ``path[-1]``'s core id, parents in core ids; both None for a source without an
        edge), as :func:`~spbfs.algorithms.bfs.search` returns them."""
        xp, n, idt = self.xp, self.n, self.idt
        levels = xp.empty(n, idt) if return_levels else None
        parents = xp.empty(n, idt) if return_parents else None
        if core_levels is None and core_parents is None:  # nothing but the source reached
            for out, mine in ((levels, 0), (parents, path[0])):
                if out is not None:
                    out.fill(-1)
                    out[path[0]] = mine
        else:
            forest_outputs(self.where, self.core, self.tree, core_levels, core_parents,
                           len(path) - 1, self.tree_parent, self._attach_core,
                           self.tree_depth, levels, parents)
            if len(path) > 1:
                self._source_tree(path, levels, parents)
        if not return_parents:
            return levels
        return (levels, parents) if return_levels else parents

    def _source_tree(self, path, levels, parents):
        """The tree of a source inside one: its path to the attachment reversed (each
        vertex's parent is the one before it), and its tree's levels through the vertex
        where a vertex's way up meets that path."""
        xp, shift = self.xp, len(path) - 1
        steps = xp.asarray(np.array(path, dtype=self.idt))
        if parents is not None:
            parents[steps[1:]] = steps[:-1]
            parents[steps[0]] = steps[0]
        if levels is None:
            return
        on_path = steps[::-1]  # the path's vertex at each depth (the attachment at 0)
        slot = xp.flatnonzero(self.tree_attach == path[-1])  # the source's tree
        depth = self.tree_depth[slot].astype(np.int64)
        meet = xp.zeros(slot.size, np.int64)  # depth where the way up meets the path
        open_ = xp.ones(slot.size, bool)
        start = slot
        for _ in range(int(depth.max()) if depth.size else 0):
            at = xp.maximum(slot, 0)
            up_depth = self.tree_depth[at].astype(np.int64)
            hit = open_ & (slot >= 0) & (up_depth <= shift)
            hit &= on_path[xp.minimum(up_depth, shift)] == self.tree[at]
            meet = xp.where(hit, up_depth, meet)
            open_ &= ~hit & (slot >= 0)
            slot = xp.where(open_, self._up[at], slot)
        levels[self.tree[start]] = (shift - 2 * meet + depth).astype(levels.dtype)


def _split(M, max_rounds):
    """Peeling ``M``: the core's mask, the trees' mask, and each vertex's neighbour of
    largest key ``round * n + id`` (the tree parent of a tree vertex, ``% n``)."""
    xp, n = M.xp, M.n
    degree = xp.diff(M.indptr).astype(np.int64)
    ids, rounds = peel([(M, degree - 1)], degree > 0, max_rounds=max_rounds)
    # Tree parent: the neighbour of largest (round, id), the core above every round; a
    # vertex whose neighbours all rank lower (one left of a pair peeled together, a star's
    # centre) is the root of a tree without a core and joins the core.
    key = (max_rounds + 1) * n + xp.arange(n, dtype=np.int64)
    key[ids] = rounds * n + ids
    removed = xp.zeros(n, bool)
    removed[ids] = True
    best = mxv(M, key, _max_first, mask=removed).to_dense(-1)
    hangs = removed & (best > key)
    return (degree > 0) & ~hangs, hangs, best


def _by_degree_class(degree):
    """The order that numbers vertices of these degrees (each at least 1) hubs first: by
    degree class (``floor(log2 d)``), largest first, in the given order within a class."""
    xp = array_module(degree)
    k = int(degree.size)
    exponent = xp.frexp(degree.astype(np.float64))[1].astype(np.int64)  # floor(log2 d) + 1
    return xp.argsort((64 - exponent) * k + xp.arange(k, dtype=np.int64))


def numbers_hubs_first(M) -> bool:
    """Whether a :class:`Forest` of ``M`` numbers its core hubs first: its backend states
    a skew of degrees (:func:`spbfs.semiring.hub_numbering`) and the :data:`HUB_SHARE` of
    its vertices of largest degree hold at least that share of its stored entries.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs.algorithms._shared import prepare
    >>> numbers_hubs_first(prepare(sp.csr_array(sp.eye(1 << 16, k=1)), directed=False))
    False
    """
    skew = hub_numbering(M)
    if skew is None or not M.n or not M.nnz:
        return False
    top = max(int(M.n * HUB_SHARE), 1)
    hubs = M.xp.partition(M.xp.diff(M.indptr), M.n - top)[M.n - top:]
    return int(hubs.sum()) >= skew * M.nnz


def _attachments(xp, n, tree, parent):
    """Each tree vertex's attachment and depth by pointer jumping, and its parent's slot
    (-1 where the parent is in the core)."""
    slot_of = xp.full(n, -1, np.int64)
    slot_of[tree] = xp.arange(tree.size, dtype=np.int64)
    up = slot_of[parent]
    jump, attach = up.copy(), parent.copy()
    depth = xp.ones(tree.size, np.int64)
    while True:
        more = xp.flatnonzero(jump >= 0)
        if not more.size:
            return attach, depth, up
        to = jump[more]
        attach[more], depth[more], jump[more] = attach[to], depth[more] + depth[to], jump[to]


class _Pruning:
    """A pattern's pruning state: its searches so far, and its forest once built (None:
    not yet; False: searched whole)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.searches = 0
        self.forest = None


_KEY = "forest"


def forest_of(M):
    """The :class:`Forest` ``M``'s searches run on, or None: built at the
    :data:`BUILD_AFTER`-th search of a pattern that :func:`prunes` (a few searches pay no
    set-up), kept with the pattern, and used when its trees hold the share of the vertices
    with an edge that its backend states (:func:`spbfs.semiring.pruning_share`).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from spbfs.algorithms._shared import prepare
    >>> forest_of(prepare(sp.random(8, 8, density=0.3, random_state=0), directed=False))
    """
    if not isinstance(M, Matrix) or not M.symmetric:
        return None
    # the pattern's state first: a pattern searched whole answers at once (each step of a
    # search's start is on its clock, 3-5x slower after other work emptied the host's caches)
    state = M.pattern.derived(_KEY, _Pruning)
    if state.forest is None and prunes(M):
        with state.lock:
            state.searches += 1
            if state.forest is None and state.searches >= BUILD_AFTER:
                state.forest = build(M) or False
    return state.forest or None


def search_whole(M):
    """Search ``M``'s pattern whole from now on: no forest is built or used for it (a
    core's own searches; a benchmark's baseline).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from spbfs.algorithms._shared import prepare
    >>> M = prepare(sp.csr_array(sp.eye(1 << 16, k=1)), directed=False)
    >>> search_whole(M)
    >>> all(forest_of(M) is None for _ in range(BUILD_AFTER + 1))
    True
    """
    M.pattern.derived(_KEY, _Pruning).forest = False


def prunes(M) -> bool:
    """Whether ``M``'s searches may run pruned: a symmetric Matrix (a distributed one
    searches its ranks' blocks), on a backend that states a share of trees to prune from
    (:func:`spbfs.semiring.pruning_share`).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from spbfs.algorithms._shared import prepare
    >>> A = sp.csr_array(sp.eye(1 << 16, k=1))
    >>> prunes(prepare(A, directed=False)), prunes(prepare(A))   # directed: not pruned
    (True, False)
    """
    return isinstance(M, Matrix) and bool(M.symmetric) and pruning_share(M) is not None


def build(M, max_rounds: int = ROUNDS):
    """``M``'s :class:`Forest` when its trees hold the share of the vertices with an edge
    that its backend prunes from (:func:`spbfs.semiring.pruning_share`), or its core is
    numbered hubs first (:func:`numbers_hubs_first`), and it fits in memory, else None.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs.algorithms._shared import prepare
    >>> n = 1 << 16                          # a star: vertex 0 and n - 1 leaves around it
    >>> star = sp.csr_array((np.ones(n - 1), (np.zeros(n - 1, int), np.arange(1, n))),
    ...                     shape=(n, n))
    >>> F = build(prepare(star, directed=False))
    >>> F.core.tolist(), F.tree.size
    ([0], 65535)
    >>> build(prepare(sp.csr_array(sp.eye(n)))) is None      # self-loops alone: no trees
    True
    """
    share = pruning_share(M)
    if share is None:
        return None
    try:
        split = _split(M, max_rounds)
        core, trees = (int(mask.sum()) for mask in split[:2])
        hubs_first = numbers_hubs_first(M)
        if trees < share * max(trees + core, 1) and not hubs_first:  # no copy, no maps
            return None
        return Forest(M, max_rounds, split, hubs_first)
    except MemoryError:
        return None
