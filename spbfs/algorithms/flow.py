"""Maximum flow by array operations (numpy or cupy): scipy's residual graph and both of its
methods, with scipy's augmenting paths, hence scipy's flows.

The residual graph (:func:`residual_arrays`) holds every arc of ``A`` and its reverse, rows
sorted, an arc of ``A`` keeping its capacity and an added reverse holding zero, as
:func:`spbfs.cpu.flow.residual_graph` builds it on the CPU.  On it:

* :func:`edmonds_karp_arrays`: each augmenting path from one queue search over the arcs
  with residual capacity (:func:`spbfs.semiring.queue_order`), the path scipy's
  breadth-first search finds.
* :func:`dinic_arrays`: breadth-first levels (:func:`spbfs.semiring.level_search`) up to
  the sink's, then the blocking flow path by path.  scipy's depth-first search with kept
  row positions finds, each time, the first path in arc order through the vertices that
  still reach the sink along the levels (no arc of the level graph gains capacity within
  a phase, so a dead end stays one); here those vertices are found level by level from the
  sink's down, each one's first arc to one of them by a prefix sum over its arcs, and the
  path is followed from the source.

Every loop is over phases, paths and levels, never over vertices or arcs.
"""

from __future__ import annotations

import numpy as np

from ..core.arrays import index_dtype, to_numpy
from ..semiring import Matrix, any_pair, level_search, queue_order

__all__ = ["dinic_arrays", "edmonds_karp_arrays", "residual_arrays"]


def residual_arrays(xp, n, rows, cols, cap):
    """The residual graph of a flow network by array operations.

    Every arc of ``A`` and its reverse, rows sorted, an arc of ``A`` keeping its capacity
    and an added reverse holding zero (:func:`spbfs.cpu.flow.residual_graph`'s graph,
    scipy's ``_add_reverse_edges``).

    Parameters
    ----------
    xp : module
        numpy or cupy, the module of the arrays.
    n : int
        Vertex count.
    rows, cols, cap : int64 arrays
        ``A``'s arcs ``rows[i] -> cols[i]`` and their capacities.

    Returns
    -------
    indptr, indices, capacity, reverse, keys : int64 arrays, or None
        The residual graph in CSR form, ``reverse[e]`` the position of arc ``e``'s reverse,
        ``keys = row * n + column`` (sorted); None when ``A`` repeats an entry.

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs.algorithms.flow import residual_arrays
    >>> ip, ix, cap, rev, keys = residual_arrays(np, 3, np.array([0, 1]), np.array([1, 2]),
    ...                                          np.array([5, 3]))
    >>> ip.tolist(), ix.tolist(), cap.tolist(), rev.tolist()
    ([0, 1, 3, 4], [1, 0, 2, 1], [5, 0, 3, 0], [1, 0, 3, 2])
    """
    forward = rows * n + cols
    if forward.size > 1 and bool((xp.diff(xp.sort(forward)) == 0).any()):
        return None
    m = int(forward.size)
    keys = xp.concatenate([forward, cols * n + rows])
    value = xp.concatenate([cap, xp.zeros(m, np.int64)])
    added = xp.concatenate([xp.zeros(m, np.int64), xp.ones(m, np.int64)])
    order = xp.lexsort(xp.stack([added, keys]))    # by key, A's own arc first
    keys, value = keys[order], value[order]
    first = xp.ones(keys.size, dtype=bool)
    first[1:] = keys[1:] != keys[:-1]
    keys, value = keys[first], value[first]
    tail, head = keys // max(n, 1), keys % max(n, 1)
    indptr = xp.zeros(n + 1, np.int64)
    if n:
        xp.cumsum(xp.bincount(tail, minlength=n), out=indptr[1:])
    reverse = xp.searchsorted(keys, head * n + tail)
    return indptr, head, value, reverse, keys


def _positive(xp, n, tail, cols, residual):
    """The arcs with residual capacity, as a Boolean :class:`~spbfs.semiring.Matrix`
    (int32 indices where they fit)."""
    keep = residual > 0
    idt = index_dtype(n, int(cols.size))
    ip = xp.zeros(n + 1, np.int64)
    xp.cumsum(xp.bincount(tail[keep], minlength=n), out=ip[1:])
    heads = cols[keep].astype(idt)
    return Matrix(ip.astype(idt), heads, xp.ones(heads.size, dtype=bool), n, check=False)


def edmonds_karp_arrays(xp, n, indptr, cols, cap, reverse, keys, source, sink):
    """Edmonds-Karp on the residual graph's arrays (:func:`residual_arrays`).

    Each round one queue search from the source over the arcs with residual capacity
    (:func:`spbfs.semiring.queue_order`: scipy's parents, each vertex reached by the first
    such arc in queue order), the path to the sink read on the host, its arcs found by
    their keys and given the bottleneck.

    Parameters
    ----------
    xp, n
        As :func:`residual_arrays` takes them.
    indptr, cols, cap, reverse, keys : int64 arrays
        The residual graph, as :func:`residual_arrays` returns it.
    source, sink : int
        Distinct vertices.

    Returns
    -------
    flow : int64 array
        The flow on every arc of the residual graph (antisymmetric: an arc's reverse holds
        its negative); scipy's ``maximum_flow(method="edmonds_karp")`` flow.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs.algorithms.flow import edmonds_karp_arrays, residual_arrays
    >>> rows, cols = np.array([0, 0, 1, 2]), np.array([1, 2, 3, 3])
    >>> residual = residual_arrays(np, 4, rows, cols, np.array([4, 2, 3, 5]))
    >>> flow = edmonds_karp_arrays(np, 4, *residual, 0, 3)
    >>> sp.csr_array((flow, residual[1], residual[0])).toarray()
    array([[ 0,  3,  2,  0],
           [-3,  0,  0,  3],
           [-2,  0,  0,  2],
           [ 0, -3, -2,  0]])
    """
    residual = cap.copy()
    tail = keys // max(n, 1)
    while True:
        R = _positive(xp, n, tail, cols, residual)
        _, parent = queue_order(R, source)
        parent = to_numpy(parent)
        if parent[sink] < 0:
            break
        heads, tails = [], []
        v = sink
        while v != source:
            heads.append(v)
            v = int(parent[v])
            tails.append(v)
        path = xp.searchsorted(keys, xp.asarray(np.asarray(tails, np.int64) * n
                                                + np.asarray(heads, np.int64)))
        push = residual[path].min()
        residual[path] -= push
        residual[reverse[path]] += push
    return cap - residual


def dinic_arrays(xp, n, indptr, cols, cap, reverse, keys, source, sink, *, trace=None,
                 max_steps=None):
    """Dinic's method on the residual graph's arrays (:func:`residual_arrays`), with
    scipy's augmenting paths.

    Each phase labels the vertices with their breadth-first levels over the arcs with
    residual capacity (:func:`spbfs.semiring.level_search`), up to the sink's level ``L``,
    and keeps the arcs of the level graph: residual capacity, one level up, and from level
    ``L - 1`` only into the sink.  Then, path after path: a vertex is alive when one of its
    level-graph arcs with residual capacity leads to an alive vertex (the sink is), found
    level by level from ``L - 1`` down (a prefix sum over each level's arcs, grouped by
    tail, gives each vertex's count of such arcs and its first one); the path follows each
    vertex's first such arc from the source and gets the bottleneck.  That is the path
    scipy's depth-first search finds: it keeps each vertex's position in its row, and an
    arc it passes (saturated, or leading to a dead end) never serves again in the phase,
    because no level-graph arc gains capacity within it (a path's reverse arcs go one level
    down).  The phase ends when the source is dead; arcs of dead vertices are dropped from
    the list now and then, so later paths cost what is still alive.

    Parameters
    ----------
    xp, n, indptr, cols, cap, reverse, keys, source, sink
        As :func:`edmonds_karp_arrays` takes them.
    trace : dict, optional
        Filled with counts: ``phases``, ``paths``, ``compactions``.
    max_steps : int, optional
        Stop, between two paths, before the paths' lengths would sum to more than this
        (each path costs array operations a level: many paths, or a deep graph, are
        cheaper for a sequential kernel).  Dinic's method continued from the flow so far
        (a new phase's levels) finds the paths this call would have found next, so a
        caller finishes the flow elsewhere with the same result.

    Returns
    -------
    flow : int64 array
        The flow on every arc of the residual graph (antisymmetric: an arc's reverse holds
        its negative); scipy's ``maximum_flow(method="dinic")`` flow when ``done``.
    done : bool
        False where ``max_steps`` stopped the call before the flow was maximum.

    Examples
    --------
    Two phases: the paths 0-1-3 and 0-2-3 along levels 0, 1, 2, then 0-1-2-3.

    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs.algorithms.flow import dinic_arrays, residual_arrays
    >>> rows, cols = np.array([0, 0, 1, 1, 2]), np.array([1, 2, 2, 3, 3])
    >>> residual = residual_arrays(np, 4, rows, cols, np.array([3, 2, 2, 2, 3]))
    >>> trace = {}
    >>> flow, done = dinic_arrays(np, 4, *residual, 0, 3, trace=trace)
    >>> sp.csr_array((flow, residual[1], residual[0])).toarray()
    array([[ 0,  3,  2,  0],
           [-3,  0,  1,  2],
           [-2, -1,  0,  3],
           [ 0, -2, -3,  0]])
    >>> done, trace["phases"], trace["paths"]
    (True, 2, 3)
    """
    counts = {"phases": 0, "paths": 0, "compactions": 0}
    budget = [np.inf if max_steps is None else int(max_steps)]
    residual = cap.copy()
    tail = keys // max(n, 1)
    done = True
    while done:
        found = _levels(xp, n, tail, cols, residual, source, sink)
        if found is None:
            break
        counts["phases"] += 1
        done = _blocking_flow(xp, n, tail, cols, residual, reverse, *found, source, sink,
                              counts, budget)
    if trace is not None:
        trace.update(counts)
    return cap - residual, done


#: The levels a phase's search advances between two reads once it is past its first
#: :data:`LEVELS_ONE_BY_ONE`: doubling up to this many (levels past the sink's are searched
#: for nothing but ignored, and a deep graph is read once a batch, not once a level).
LEVEL_BATCH = 32
LEVELS_ONE_BY_ONE = 8


def _levels(xp, n, tail, cols, residual, source, sink):
    """Breadth-first levels from the source over the arcs with residual capacity, and the
    sink's level ``L`` (levels above it may be labelled too: the level graph leaves them
    out); None when the sink is out of reach."""
    R = _positive(xp, n, tail, cols, residual)
    with level_search(R, source, any_pair, transpose=False) as search:
        search.sizes()
        step, done = 1, 0
        while True:
            search.advance(False, step)
            done += step
            found = search.sizes()
            top = int(search.levels[sink])
            if top >= 0:
                return search.levels, top
            if not found[-1][0]:
                return None
            if done >= LEVELS_ONE_BY_ONE:
                step = min(2 * step, LEVEL_BATCH)


#: Paths between two compactions of a phase's arc list, once the first ones (after paths
#: 1, 2, 4, ...) have dropped what died early: a compaction costs about as many array
#: operations as one path, so it runs every few dozen paths.
COMPACT_EVERY = 32


class _LevelArcs:
    """The arcs of a phase's level graph still in play and their residual capacities.

    Ordered by their tail's level from ``L - 1`` down (``depth`` 0, 1, ...), then by
    position, so grouped by tail (a run a tail), with each level's bounds in the list and
    in the runs.  ``buffer[i + 1]`` counts the usable arcs (residual capacity, alive head)
    up to arc ``i``, level after level: a run's count is the difference of two reads, its
    first usable arc a ``searchsorted``.  The capacities live in ``room`` while the list
    does (no reverse of a level arc is one: it goes one level down), and go back into the
    residual graph with the reverses' gains by :meth:`flush`.
    """

    def __init__(self, xp, arcs, heads, tails, depth, room, first, succ):
        self.arcs, self.tails, self.depth = arcs, tails, depth
        # one more head, read for a run with no usable arc (its tail is dead)
        self.heads = xp.concatenate([heads, xp.zeros(1, heads.dtype)])
        self.room, self.start = room, room.copy()
        self.live = room > 0
        size = int(arcs.size)
        starts = xp.ones(size, dtype=bool)
        starts[1:] = tails[1:] != tails[:-1]
        self.run_first = xp.flatnonzero(starts)
        self.run_tails = tails[self.run_first]
        self.run_end = xp.empty_like(self.run_first)
        self.run_end[:-1] = self.run_first[1:]
        self.run_end[-1:] = size
        top = int(depth[-1]) + 1 if size else 0
        marks = xp.arange(top + 1, dtype=depth.dtype)
        bounds = to_numpy(xp.concatenate([xp.searchsorted(depth, marks),
                                          xp.searchsorted(depth[self.run_first], marks)]))
        self.levels = [(int(bounds[k]), int(bounds[k + 1]), int(bounds[top + 1 + k]),
                        int(bounds[top + 2 + k])) for k in range(top)]
        self.buffer = xp.zeros(size + 1, np.int64)
        # a tail on the level below the sink's (depth 0) has one arc: into the sink
        below = self.below = self.levels[0][1] if top else 0
        first[tails[:below]] = xp.arange(below)
        succ[tails[:below]] = heads[:below]
        self.upper_runs = slice(self.levels[1][2] if top > 1 else int(self.run_first.size),
                                None)

    def sweep(self, xp, alive, first, succ):
        """``alive`` from the sink's level down, and for each alive tail above the level
        below the sink's its first usable arc (``first``, an index into the list) and that
        arc's head (``succ``)."""
        below = self.below
        alive[self.tails[:below]] = self.live[:below]
        buffer = self.buffer
        for a, b, c, d in self.levels[1:]:
            sums = buffer[a + 1:b + 1]
            xp.cumsum(self.live[a:b] & alive[self.heads[a:b]], dtype=np.int64, out=sums)
            sums += buffer[a]
            alive[self.run_tails[c:d]] = buffer[self.run_end[c:d]] > buffer[self.run_first[c:d]]
        runs = self.upper_runs
        tails = self.run_tails[runs]
        chosen = xp.searchsorted(buffer[1:], buffer[self.run_first[runs]], side="right")
        first[tails] = chosen
        succ[tails] = self.heads[chosen]

    def push(self, xp, path):
        """The bottleneck along ``path`` (indices into the list)."""
        room = self.room[path]
        room -= room.min()
        self.room[path] = room
        self.live[path] = room > 0

    def flush(self, residual, reverse):
        """The capacities back into the residual graph, the reverses gaining what went."""
        residual[self.arcs] = self.room
        residual[reverse[self.arcs]] += self.start - self.room

    def kept(self, xp, alive, first, succ):
        """The list without the arcs that can no longer serve (saturated, or a dead end
        at either side); the capacities must have been flushed."""
        keep = xp.flatnonzero(self.live & alive[self.heads[:-1]] & alive[self.tails])
        alive[self.run_tails] = False     # the next sweep sets those of the tails kept
        return _LevelArcs(xp, self.arcs[keep], self.heads[keep], self.tails[keep],
                          self.depth[keep], self.room[keep], first, succ)


def _blocking_flow(xp, n, tail, cols, residual, reverse, levels, top, source, sink, counts,
                   budget):
    """Augment along the phase's level graph until the source is dead (True), or until
    the next path would take the paths' lengths past ``budget[0]`` (False; the budget
    is spent by each path's length)."""
    rise = levels[tail]
    above = levels[cols]
    arcs = xp.flatnonzero((residual > 0) & (rise >= 0) & (above == rise + 1)
                          & ((above < top) | (cols == sink)))
    depth = (top - 1) - rise[arcs]
    order = xp.lexsort(xp.stack([arcs, depth]))
    arcs = arcs[order]
    alive = xp.zeros(n, dtype=bool)
    alive[sink] = True
    first = xp.zeros(n, np.int64)
    succ = xp.zeros(n, np.int64)
    state = (alive, first, succ)
    start = xp.asarray(source, dtype=np.int64)
    level_arcs = _LevelArcs(xp, arcs, cols[arcs], tail[arcs], depth[order], residual[arcs],
                            first, succ)
    level_arcs.sweep(xp, *state)
    paths, due, finished = 0, 1, True
    while bool(alive[source]):
        if budget[0] < top:
            finished = False
            break
        budget[0] -= top
        # the path's tails by the heads chosen, its arcs their first usable arcs
        steps = [start]
        for _ in range(top - 1):
            steps.append(succ[steps[-1]])
        level_arcs.push(xp, first[xp.stack(steps)])
        paths += 1
        if paths == due:     # after paths 1, 2, 4, ..., then every COMPACT_EVERY
            level_arcs.flush(residual, reverse)
            level_arcs = level_arcs.kept(xp, *state)
            counts["compactions"] += 1
            due += min(due, COMPACT_EVERY)
        level_arcs.sweep(xp, *state)
    level_arcs.flush(residual, reverse)
    counts["paths"] += paths
    return finished
