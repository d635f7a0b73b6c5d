"""Multi-source breadth-first search: 64 searches per bit-packed level loop.

Each vertex holds one ``uint64`` word per group of (up to) 64 sources: bit ``s``
of ``visited[v]`` says that search ``s`` has reached ``v``.  One level of all
the searches of a group is then ONE sparse product over ``n`` words with the
:data:`bor_first` semiring (monoid :data:`bor`: bitwise OR over ``uint64``,
identity 0, terminal all-ones; multiply: ``first``), ``y[j] = OR of x[i] over
the stored A[i, j]``, followed by ``new = y & ~visited``:

* push (small frontier): ``vxm(frontier, A, bor_first)`` with the frontier's
  words as a sparse vector;
* pull (large frontier): ``vxm(visited, A, bor_first)`` with the *visited*
  words as a bitmap vector.  For a search ``s`` that has not reached ``j``,
  every in-neighbour of ``j`` that search ``s`` has reached lies in its last
  frontier (else ``j`` would be reached already), so ``y & ~visited`` is
  exactly the new bits; and reading ``visited`` lets the pull stop at the
  first in-neighbours whose words OR to all-ones (the monoid's terminal
  value: typically one vertex that every search has reached), as
  single-source BFS stops at the first visited in-neighbour.

Both are masked by the complement of the vertices every search of the group
has reached (``mask=done, complement=True``).  The direction follows Beamer's
rule on the group's words.  The user-defined semiring carries C expressions,
so the same calls run on the GPU backend.

Parents are derived per level for the newly found (search, vertex) pairs: any
in-neighbour ``u`` that search ``s`` had reached before the level is a parent
of ``v`` in ``s``.  After a pull, each new vertex scans its in-edges in growing
chunks until its new bits are covered (one reached by every search covers them
all at once); after a push, the frontier's out-edges into new vertices are
grouped by target.  Either way a bit goes to the first edge that has it (a
segmented exclusive prefix-OR), and each vertex gets a few records
``(parent, bits)``.

Results are assembled without a scatter per (source, vertex) pair: each level
ORs its new words into bit-slices of the level number (bit ``b`` of the level
of ``(s, v)`` is bit ``s`` of ``slice_b[v]``), and the ``(k, n)`` output is
built at the end, 8 sources at a time, by table look-ups that spread 8 bits of
a slice into the 8 byte lanes of a ``uint64`` (wider lanes for searches deeper
than 126 levels).  Parents use the same slices for the number of the record
that covers ``(s, v)``, followed by one gather.

:data:`bor_band` (``y[j] = OR_i (x[i] & A[i, j])``) runs 64 searches on 64
different subgraphs of one matrix whose ``uint64`` values say which searches
may use an edge: :func:`spbfs.sssp` builds its shortest-path trees with it.
"""

from __future__ import annotations

import numpy as np

from ._array import array_module, to_numpy
from ._validation import UNREACHED, check_choice, check_positive
from .bfs import BETA, beamer_pull, prepare
from .semiring import BinaryOp, Monoid, Semiring, Vector, ops, vxm
from .semiring._cpu import expand
from .semiring._matrix import index_dtype
from .semiring._search import degree_sum

__all__ = ["ALPHA", "BETA", "WORD", "band", "bfs_many", "bor", "bor_band", "bor_first"]

#: Sources packed into one visited word per vertex (one multi-source search).
WORD = 64
_ALL = (1 << WORD) - 1
#: push -> pull when the frontier's edges exceed the unexplored edges / ALPHA.  Smaller
#: than single-source BFS's 15: a push over words must combine (OR) its products by
#: target, which costs more per edge than the any-monoid push of one search.
ALPHA = 4.0

#: Bitwise OR over unsigned words; all-ones absorbs (a pull may stop there).
bor = Monoid("bor", np.bitwise_or, lambda dt: 0, "(a | b)", lambda dt: np.iinfo(dt).max)
#: ``y[j] = OR_i x[i]`` over the stored ``A[i, j]``: one BFS level of 64 searches.
bor_first = Semiring(bor, ops.first)
#: Bitwise AND of the vector word and the matrix value.
band = BinaryOp("band", lambda x, a, i, j, dt: (x & a).astype(dt, copy=False), "(x & a)", "xa",
                lambda xd, ad: np.dtype(np.uint64))
#: ``y[j] = OR_i (x[i] & A[i, j])``: 64 searches on 64 subgraphs, the stored ``uint64``
#: value of an edge saying in which of them it lies (see :func:`spbfs.sssp`).
bor_band = Semiring(bor, band)


def bfs_many(A, sources, *, return_parents=False, directed=True, direction="auto",
             alpha=ALPHA, beta=BETA):
    """Breadth-first search from every vertex of ``sources`` at once.

    The searches run together, 64 to a group: each vertex keeps one ``uint64``
    word per group whose bit ``s`` records that search ``s`` has reached it,
    and a level of the whole group is one sparse product with the
    :data:`bor_first` semiring (the bitwise OR of the in-neighbours' words),
    masked by the vertices that every search of the group has reached;
    ``new = y & ~visited`` are the vertices each search finds at that level.
    Parents, when asked for, are derived per level for the new (search,
    vertex) pairs from the edges into the new vertices: any in-neighbour that
    search ``s`` had reached before the level is a valid parent for ``s`` (it
    lies one level up), each bit goes to the first such edge, and one
    in-neighbour reached by every search serves them all (see
    :mod:`spbfs.msbfs`).  ``spbfs.bfs(A, sources)`` with a 1-D array of
    sources comes here.

    Parameters
    ----------
    A : scipy.sparse / cupyx.scipy.sparse matrix or array, 2-D array, or Matrix
        ``A[i, j]`` stored (even an explicit zero) is an edge ``i -> j``.
    sources : 1-D array-like of int
        The ``k`` start vertices; repeats are allowed (their rows are equal); an
        empty array gives results of shape ``(0, n)``.
    return_parents : bool
        Also return one BFS tree per source.
    directed : bool
        False makes every edge usable in both directions.
    direction : {"auto", "push", "pull"}
        ``"auto"`` switches per level by Beamer's rule; the others force one.
    alpha, beta : float
        Beamer's switching factors on the group's words: push -> pull when the
        frontier's edges exceed the unexplored edges / ``alpha``; pull -> push
        when fewer than ``n / beta`` vertices were found at the last level.

    Returns
    -------
    levels : ndarray, shape (k, n)
        ``levels[s, v]``: hops from ``sources[s]`` to ``v``; -1 where
        unreachable.  int32 unless the graph needs int64 indices.  numpy for
        CPU input, cupy for GPU input.
    parents : ndarray, shape (k, n), optional
        ``parents[s, sources[s]] == sources[s]``; -1 where unreachable.

    Raises
    ------
    ValueError
        If ``sources`` is not 1-D or has a vertex outside ``[0, n)``.
    TypeError
        If ``sources`` does not hold integers.

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from spbfs.msbfs import bfs_many
    >>> A = sp.csr_array(np.array([[0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0], [1, 0, 0, 0]]))
    >>> bfs_many(A, [0, 3])
    array([[ 0,  1,  2, -1],
           [ 1,  2,  3,  0]], dtype=int32)
    >>> levels, parents = bfs_many(A, [2, 0], return_parents=True, directed=False)
    >>> levels.tolist(), parents.tolist()
    ([[2, 1, 0, 3], [0, 1, 2, 1]], [[1, 2, 2, 0], [0, 0, 1, 0]])
    """
    check_choice(direction, "direction", ("auto", "push", "pull"))
    alpha = check_positive(alpha, "alpha")
    beta = check_positive(beta, "beta")
    M = prepare(A, directed)
    xp, n = M.xp, M.n
    src = check_sources(sources, n, xp)
    idt = index_dtype(n)  # levels and vertex ids: int32 unless n needs more
    k = int(src.size)
    uniq, inverse = np.unique(to_numpy(src), return_inverse=True)
    repeated = uniq.size < k
    rows = xp.asarray(uniq) if repeated else src
    levels = xp.empty((int(rows.size), n), dtype=idt)
    parents = xp.empty((int(rows.size), n), dtype=idt) if return_parents else None
    for g in range(0, int(rows.size), WORD):  # one multi-source search per 64 sources
        part = slice(g, g + WORD)
        state = _search(M, rows[part], return_parents, direction, alpha, beta)
        _fill_levels(state, levels[part])
        if return_parents:
            _fill_parents(state, parents[part])
    if repeated:
        take = xp.asarray(inverse.reshape(-1))
        levels = levels[take]
        parents = parents[take] if return_parents else None
    return (levels, parents) if return_parents else levels


def check_sources(sources, n, xp, name="sources"):
    """``sources`` as a 1-D int64 array of ``xp`` with entries in ``[0, n)``, or an
    exception naming the argument ``name``.

    Examples
    --------
    >>> import numpy as np
    >>> check_sources([3, 0], 4, np).tolist()
    [3, 0]
    >>> check_sources([[0]], 4, np)
    Traceback (most recent call last):
        ...
    ValueError: sources must be a 1-D array of vertex ids, got a 2-D array
    >>> check_sources([1, 4], 4, np)
    Traceback (most recent call last):
        ...
    ValueError: sources must lie in [0, 4), got 4
    """
    if not (hasattr(sources, "ndim") or isinstance(sources, (list, tuple, range))):
        raise TypeError(f"{name} must be a 1-D array of vertex ids, got {sources!r}")
    arr = xp.asarray(sources) if array_module(sources) is xp else xp.asarray(
        to_numpy(sources) if hasattr(sources, "ndim") else np.asarray(sources))
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array of vertex ids, got a {arr.ndim}-D array")
    if arr.size == 0:
        return xp.zeros(0, np.int64)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"{name} must hold integer vertex ids, got dtype {arr.dtype}")
    arr = arr.astype(np.int64, copy=False)
    lo, hi = (int(v) for v in to_numpy(xp.stack([arr.min(), arr.max()])))
    if lo < 0 or hi >= n:
        raise ValueError(f"{name} must lie in [0, {n}), got {lo if lo < 0 else hi}")
    return arr


class _Slices:
    """Small per-(source, vertex) codes stored as bit-slices: bit ``b`` of the code of
    ``(s, v)`` is bit ``s`` of ``words[b][v]`` (a code is 0 until set)."""

    def __init__(self, n, xp):
        self.n, self.xp = n, xp
        self.words = []

    def add(self, vertices, words, code):
        """Set the code of the bits ``words`` of ``vertices`` (distinct) to ``code`` (an
        int, or one per vertex); those codes must still be 0."""
        xp = self.xp
        top = code if isinstance(code, int) else int(code.max()) if code.size else 0
        for b in range(top.bit_length()):
            while len(self.words) <= b:
                self.words.append(xp.zeros(self.n, xp.uint64))
            if isinstance(code, int):
                if code >> b & 1:
                    self.words[b][vertices] |= words
            else:
                on = ((code >> b) & 1).astype(bool)
                self.words[b][vertices[on]] |= words[on]

    def add_runs(self, vertices, words, code, ends):
        """Like :meth:`add` for entries in runs (``ends``: the last entry of each run,
        ``vertices`` one per run), the words of a run being disjoint."""
        xp = self.xp
        top = int(code.max()) if code.size else 0
        zero = xp.uint64(0)
        for b in range(top.bit_length()):
            while len(self.words) <= b:
                self.words.append(xp.zeros(self.n, xp.uint64))
            running = xp.cumsum(xp.where(((code >> b) & 1).astype(bool), words, zero),
                                dtype=xp.uint64)
            total = running[ends]
            total[1:] -= running[ends[:-1]]
            self.words[b][vertices] |= total


class _Records:
    """Parent records: vertex ``v``'s ``j``-th record (``j`` = 1, 2, ...) names the parent of
    ``v`` for the searches of the record's bits; the slices hold ``j`` per (source, vertex)
    (0: unreached)."""

    def __init__(self, n, xp):
        self.xp = xp
        self.count = xp.zeros(n, np.int64)
        self.parts = []
        self.slices = _Slices(n, xp)

    def add(self, vertices, parents, words, rank=None):
        """Records sorted by vertex; ``rank`` numbers the records of one vertex 0, 1, ...
        (None: the vertices are distinct)."""
        xp = self.xp
        if not vertices.size:
            return
        if rank is None:
            local = self.count[vertices] + 1
            self.count[vertices] = local
            self.parts.append((vertices, parents, local))
            self.slices.add(vertices, words, local)
            return
        local = self.count[vertices] + 1 + rank
        last = xp.ones(rank.size, bool)
        last[:-1] = rank[1:] == 0
        self.count[vertices[last]] = local[last]
        self.parts.append((vertices, parents, local))
        if int(rank.max()) == 0:
            self.slices.add(vertices, words, local)
            return
        # A vertex's records hold disjoint bits, so their OR is their sum: per slice, the
        # sum over each vertex's run of records is a difference of a running sum (exact
        # modulo 2**64), and the vertices are then distinct.
        ends = xp.flatnonzero(last)
        self.slices.add_runs(vertices[ends], words, local, ends)


class _State:
    """What one group's search leaves for the output."""

    def __init__(self, k, n, xp, idt):
        self.k, self.n, self.xp, self.idt = k, n, xp, idt
        self.levels = _Slices(n, xp)  # the level of each (source, vertex)
        self.depth = 0
        self.visited = None
        self.records = None


def _search(M, src, return_parents, direction, alpha, beta, masked=False):
    """One bit-packed search of up to 64 distinct sources.  ``masked``: the values of ``M``
    are ``uint64`` words, bit ``s`` saying that search ``s`` may use the edge."""
    xp, n = M.xp, M.n
    semiring = bor_band if masked else bor_first
    k = int(src.size)
    state = _State(k, n, xp, index_dtype(n))
    pad = xp.uint64(_ALL ^ ((1 << k) - 1))  # the unused bits of a word count as visited
    full = xp.uint64(_ALL)
    bits = xp.left_shift(xp.uint64(1), xp.arange(k, dtype=xp.uint64))
    visited = xp.zeros(n, xp.uint64)
    visited[src] = bits
    if return_parents:
        state.records = _Records(n, xp)
        state.records.add(src, src, bits)
    done = xp.zeros(n, bool)  # every search of the group has reached the vertex
    done[src] = (bits | pad) == full
    order = xp.argsort(src)
    frontier = Vector(n, "sparse", indices=src[order], values=bits[order])
    indptr, T = M.indptr, M.T
    unexplored = M.nnz - degree_sum(T.indptr, src[done[src]])
    pulling = direction == "pull"
    level, prev_nf = 0, 0
    while frontier.indices.size:
        level += 1
        nf = int(frontier.indices.size)
        if direction == "auto":
            pulling = beamer_pull(pulling, nf, prev_nf, degree_sum(indptr, frontier.indices),
                                  unexplored, n, alpha, beta)
        prev_nf = nf
        if pulling:
            x = Vector(n, "bitmap", present=visited != 0, values=visited | pad)
            y = vxm(x, M, semiring, mask=done, complement=True, direction="pull")
            idx = xp.flatnonzero(y.present)
            words = y.values[idx]
        else:
            y = vxm(frontier, M, semiring, mask=done, complement=True, direction="push")
            idx, words = y.indices, y.values
        words = words & ~(visited[idx] | pad)
        keep = words != 0
        idx, words = idx[keep], words[keep]
        if not idx.size:
            break
        state.depth = level
        state.levels.add(idx, words, level)
        if return_parents and not pulling:  # from the frontier's out-edges, sorted
            state.records.add(*_parents_push(M, frontier, idx, words, masked))
        elif return_parents:  # from the new vertices' in-edges, chunk by chunk
            for at, by, got, rank in _parents(T, visited, idx, words, masked):
                state.records.add(idx[at], by, got, rank)
        visited[idx] |= words
        now_full = idx[(visited[idx] | pad) == full]
        done[now_full] = True
        unexplored -= degree_sum(T.indptr, now_full)
        frontier = Vector(n, "sparse", indices=idx, values=words)
    state.visited = visited
    return state


def _parents_push(M, frontier, idx, words, masked=False):
    """Parent records of a pushed level: the frontier's out-edges ``u -> v`` whose new
    bits meet (``frontier[u] & new[v]``, and the edge's word when ``masked``), grouped by
    ``v`` (one sort), each bit to the first edge of its group that has it.  Returns
    ``(v, u, bits, rank)`` as :meth:`_Records.add` takes them."""
    xp, n = M.xp, M.n
    new = xp.zeros(n, xp.uint64)
    new[idx] = words
    pos, owner = expand(M.indptr, frontier.indices)
    v = M.indices[pos]
    hits = frontier.values[owner] & new[v]
    if masked:
        hits &= M.data[pos]
    hit = xp.flatnonzero(hits)
    v, owner, hits = v[hit], owner[hit], hits[hit]
    order = xp.argsort(v)
    v, u, hits = v[order], frontier.indices[owner[order]], hits[order]
    keep, got, rank, _, _ = _first_cover(v, hits, xp)
    return v[keep], u[keep], got, rank


def _first_cover(keys, hits, xp):
    """For runs of equal (sorted) ``keys``: each bit of a run goes to the first entry that
    has it.  Returns the entries that get bits, their bits, their rank in the run, and the
    last entry of every run with the union of the run's bits."""
    start = _run_flags(keys, xp)
    before = _exclusive_or_scan(hits, start, xp)
    got = hits & ~before
    keep = xp.flatnonzero(got != 0)
    kstart = _run_flags(keys[keep], xp)
    first = xp.flatnonzero(kstart)
    rank = xp.arange(keep.size) - first[xp.cumsum(kstart) - 1]
    end = xp.ones(keys.size, bool)
    end[:-1] = start[1:]
    end = xp.flatnonzero(end)
    return keep, got[keep], rank, end, before[end] | hits[end]


def _parents(T, visited, idx, words, masked=False):
    """Parents for the new ``(search, vertex)`` pairs of a level, as chunks of records
    ``(at, by, got, rank)``: position in ``idx`` (ascending), parent vertex, the bits it
    is the parent for (disjoint per vertex; their union is ``words``), and the number of
    the record among those of its vertex in the chunk.

    ``visited``: the words before the level; ``T``: the transpose (row ``v`` lists the
    in-neighbours of ``v``).  An in-neighbour ``u`` with bit ``s`` in ``visited[u]`` (and
    in the edge's word when ``masked``) is a parent of ``v`` in search ``s``: it lies one
    level up, else ``v`` would have been found before.  Each vertex scans its
    in-edges in chunks that grow fourfold (1, 4, 16, ...) until its bits are covered;
    within a chunk each bit goes to the first edge that has it (an exclusive
    prefix-OR per vertex).  One in-neighbour that every search had reached covers all.
    """
    xp = array_module(words)
    tindptr, tindices = T.indptr, T.indices
    lo = tindptr[idx].astype(np.int64)
    hi = tindptr[idx + 1].astype(np.int64)
    left = words.copy()
    chunk = 1
    active = xp.arange(idx.size)
    while active.size:
        take = xp.minimum(hi[active] - lo[active], chunk)
        pos, owner = expand(tindptr, active, counts=take, starts=lo[active])
        src = tindices[pos]
        hits = visited[src] & left[active][owner]
        if masked:
            hits &= T.data[pos]
        hit = xp.flatnonzero(hits)
        owner, src, hits = owner[hit], src[hit], hits[hit]
        if owner.size:
            keep, got, rank, end, covered = _first_cover(owner, hits, xp)
            yield active[owner[keep]], src[keep], got, rank
            left[active[owner[end]]] &= ~covered
        lo[active] += take
        chunk *= 4
        active = active[(left[active] != 0) & (lo[active] < hi[active])]


def _run_flags(sorted_keys, xp):
    """True where a run of equal keys starts."""
    first = xp.ones(sorted_keys.shape, bool)
    if sorted_keys.size > 1:
        first[1:] = sorted_keys[1:] != sorted_keys[:-1]
    return first


def _exclusive_or_scan(values, start, xp):
    """Per run (``start`` marks where runs begin): the OR of the values before each one in
    its run.  A Hillis-Steele scan, log2 of the longest run steps; step ``d`` concerns the
    entries at least ``d`` into their run, taken by index once they are few."""
    starts = xp.flatnonzero(start)
    offset = xp.arange(values.size) - starts[xp.cumsum(start) - 1]  # position in the run
    inclusive = values.copy()
    zero = xp.uint64(0)
    at = None
    d = 1
    while True:
        if at is None:
            deep = offset[d:] >= d
            count = int(deep.sum())
            if count * 4 < values.size:
                at = xp.flatnonzero(deep) + d
        else:
            at = at[offset[at] >= d]
            count = at.size
        if not count:
            break
        if at is None:
            inclusive[d:] |= xp.where(deep, inclusive[:-d], zero)  # old values on the right
        else:
            inclusive[at] |= inclusive[at - d]
        d *= 2
    before = xp.zeros_like(values)
    before[1:] = xp.where(start[1:], zero, inclusive[:-1])
    return before


# ----------------------------------------------------------------------------- output
def _lane_tables(lanes, xp):
    """``spread[x]``: bit ``i`` of ``x`` moved to the lowest bit of lane ``i`` of a uint64
    split in ``lanes`` lanes; ``lane_ones``: the same with the whole lane set."""
    width = WORD // lanes
    x = np.arange(1 << lanes, dtype=np.uint64)[:, None]
    i = np.arange(lanes, dtype=np.uint64)[None, :]
    on = (x >> i) & np.uint64(1)
    spread = np.bitwise_or.reduce(on << (i * np.uint64(width)), axis=1)
    lane = np.uint64((1 << width) - 1) if width < WORD else np.uint64(_ALL)
    return xp.asarray(spread), xp.asarray(spread * lane)


def _field(word, first, lanes):
    """Bits ``first .. first + lanes - 1`` of every word, as table indices."""
    if lanes == 8:  # a byte: a strided view, no arithmetic
        return word.view(np.uint8).reshape(-1, 8)[:, first // 8]
    return (word >> word.dtype.type(first)) & word.dtype.type((1 << lanes) - 1)


def _lane_codes(slices, k, lanes, reached):
    """Yield ``(first source, codes)``: a ``(n, rows)`` view of signed lanes holding the
    code of ``(first + row, v)`` in ``slices``; -1 where the bit of ``reached`` (words, or
    None) is clear."""
    xp, n = slices.xp, slices.n
    spread, lane_ones = _lane_tables(lanes, xp)
    shifted = [spread << xp.uint64(b) for b in range(len(slices.words))]
    lane_dtype = np.dtype(f"<i{WORD // lanes // 8}")
    for first in range(0, k, lanes):
        if reached is not None:  # lanes of unreached pairs: all ones
            code = lane_ones[_field(~reached, first, lanes)]
        else:
            code = xp.zeros(n, xp.uint64)
        for table, word in zip(shifted, slices.words, strict=True):
            code |= table[_field(word, first, lanes)]
        rows = min(lanes, k - first)
        yield first, code.view(lane_dtype).reshape(n, lanes)[:, :rows]


def _fill_levels(state, out):
    """``out[s, v]``: the level of ``v`` in search ``s`` (-1 unreached), from the slices."""
    depth = state.depth
    lanes = 8 if depth < 127 else 4 if depth < 32767 else 2
    for first, codes in _lane_codes(state.levels, state.k, lanes, state.visited):
        out[first:first + codes.shape[1]] = codes.T


def _fill_parents(state, out):
    """``out[s, v]``: the parent of ``v`` in search ``s`` (-1 unreached): the record index
    of each (source, vertex) from the slices, then one gather.

    Vertex ``v`` owns the table slots ``offset[v] .. offset[v] + count[v]``: slot 0 is the
    unreached sentinel, slot ``j`` its ``j``-th record's parent.  A vertex has at most 64
    records (each covers a new bit), so the record index fits a byte lane.
    """
    xp, n, idt = state.xp, state.n, state.idt
    rec = state.records
    size = n + int(rec.count.sum())
    sdt = np.dtype(np.intp)  # the index type of a gather: no conversion on the way
    offset = xp.zeros(n, sdt)
    if n > 1:
        xp.cumsum((rec.count[:-1] + 1).astype(sdt), out=offset[1:])
    table = xp.full(size, UNREACHED, idt)
    for v, u, local in rec.parts:
        table[offset[v] + local.astype(sdt)] = u.astype(idt, copy=False)
    slot = xp.empty((8, n), sdt)
    for first, codes in _lane_codes(rec.slices, state.k, 8, None):
        rows = codes.shape[1]
        s = slot[:rows]
        s[...] = codes.T
        s += offset
        _take(table, s, out[first:first + rows])


def _take(table, index, out):
    """``out[...] = table[index]`` for in-range ``index``."""
    try:  # numpy: "clip" skips the per-element bounds check and the buffering of "raise"
        table.take(index, out=out, mode="clip")
    except TypeError:  # cupy's take has no mode
        table.take(index, out=out)


