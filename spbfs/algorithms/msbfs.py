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

Parents are found per level for the newly found (search, vertex) pairs by one
:func:`~spbfs.semiring.packed_any_secondi` product: the ``any_secondi`` product of the
same packed words (the frontier's after a push, the visited words after a pull: any
in-neighbour ``u`` that search ``s`` had reached before the level is a parent of ``v``
in ``s``), masked by the new words, written straight into the ``(k, n)`` output.

Levels are assembled without a scatter per (source, vertex) pair: each level ORs its
new words into bit-planes of the level number (bit ``b`` of the level of ``(s, v)`` is
bit ``s`` of ``plane_b[v]``), and the ``(k, n)`` output is written once at the end by
:func:`~spbfs.semiring.unpack_bitplanes`.

:data:`bor_band` (``y[j] = OR_i (x[i] & A[i, j])``) runs 64 searches on 64
different subgraphs of one matrix whose ``uint64`` values say which searches
may use an edge: :func:`spbfs.sssp` builds its shortest-path trees with it.
"""

from __future__ import annotations

import numpy as np

from ..core.arrays import index_dtype, to_numpy
from ..core.validation import UNREACHED, check_choice, check_positive, check_sources
from ..semiring import (
    BinaryOp,
    Monoid,
    Semiring,
    Vector,
    mxm,
    ops,
    packed_any_secondi,
    unpack_bitplanes,
    vxm,
)
from ._level_loop import search
from ._shared import BETA, beamer_pull, prepare

__all__ = ["ALPHA", "BETA", "PACKED_ALPHA", "WORD", "band", "bfs_many", "bor", "bor_band",
           "bor_first", "bor_second", "one_by_one", "packed_levels"]

#: Sources packed into one visited word per vertex (one multi-source search).
WORD = 64
#: A local graph's searches of fewer sources than this run one by one (the single-source
#: engine), more as bit-packed groups.  2-core VM, Kronecker scale 17, sources found in
#: the graph, packed / one by one ms: 2 sources 10.0 / 3.0, 4: 15.4 / 5.8, 8: 17.6 /
#: 13.7, 16: 18.6 / 27.6, 64: 70.6 / 152.9 (scale 14: 8 sources 2.3 / 2.2).
PACKED_FROM = 8
_ALL = (1 << WORD) - 1
#: push -> pull when the frontier's edges exceed the unexplored edges / PACKED_ALPHA.
#: Smaller than single-source BFS's :data:`~spbfs.algorithms._shared.BEAMER_ALPHA` (15): a
#: push over words must combine (OR) its products by target, which costs more per edge
#: than the any-monoid push of one search.  ``ALPHA`` is its public name here.
PACKED_ALPHA = ALPHA = 4.0

#: Searches of several groups run as one wide search (every group's words of a vertex side
#: by side, a level one SpMM of the whole block) on a graph of at most this many stored
#: entries plus vertices: a level then reads every entry, but no frontier list, direction
#: or host read but the level's end, where each group's own level loop pays a few semiring
#: calls a level, one group after another (global efficiency's 1,024 sources on a
#: 1,024-node Kronecker graph, the VM: 2 ms against 24-30 ms for its 16 groups).
WIDE_ENTRIES = 1 << 16
#: ... and at most this many words in a block (vertices times groups).
WIDE_WORDS = 1 << 22

#: Bitwise OR over unsigned words; all-ones absorbs (a pull may stop there).
bor = Monoid("bor", np.bitwise_or, lambda dt: 0, "(a | b)", lambda dt: np.iinfo(dt).max)
#: ``y[j] = OR_i x[i]`` over the stored ``A[i, j]``: one BFS level of 64 searches.
bor_first = Semiring(bor, ops.first)
#: The same with the words on the right: ``Y = A.T bor_second X`` over a block of words.
bor_second = Semiring(bor, ops.second)
#: Bitwise AND of the vector word and the matrix value.
band = BinaryOp("band", lambda x, a, i, j, dt: (x & a).astype(dt, copy=False), "(x & a)", "xa",
                lambda xd, ad: np.dtype(np.uint64))
#: ``y[j] = OR_i (x[i] & A[i, j])``: 64 searches on 64 subgraphs, the stored ``uint64``
#: value of an edge saying in which of them it lies (see :func:`spbfs.sssp`).
bor_band = Semiring(bor, band)


def bfs_many(A, sources, *, return_parents=False, directed=True, direction="auto",
             alpha=PACKED_ALPHA, beta=BETA):
    """Breadth-first search from every vertex of ``sources`` at once.

    The searches run together, 64 to a group: each vertex keeps one ``uint64``
    word per group whose bit ``s`` records that search ``s`` has reached it,
    and a level of the whole group is one sparse product with the
    :data:`bor_first` semiring (the bitwise OR of the in-neighbours' words),
    masked by the vertices that every search of the group has reached;
    ``new = y & ~visited`` are the vertices each search finds at that level.
    Parents, when asked for, are found per level for the new (search, vertex)
    pairs by the ``any_secondi`` product of the same words
    (:func:`spbfs.semiring.packed_any_secondi`): any in-neighbour that search
    ``s`` had reached before the level is a valid parent for ``s`` (it lies one
    level up).  Fewer than :data:`PACKED_FROM` distinct sources run as
    single-source searches (:func:`spbfs.bfs`'s engine) one after another
    instead, which costs less than a level over every vertex's word.
    ``spbfs.bfs(A, sources)`` with a 1-D array of sources comes here.

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
        CPU input, cupy for GPU input, a :class:`~spbfs.dist.arrays.DistRows` of shape
        ``(k, n)`` for a distributed graph (``G.gather`` gives the ``(k, n)`` array).
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
    >>> from spbfs.algorithms.msbfs import bfs_many
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
    M = prepare(A, directed, values=False)
    xp, n = M.xp, M.n
    if getattr(M, "drives_searches", False):   # a distributed graph's own policy
        out = M.search_many(sources, return_parents=return_parents, direction=direction,
                            alpha=alpha, beta=beta)
        return tuple(part.T for part in out) if return_parents else out.T   # (k, n) rows
    src = check_sources(sources, n, xp)
    idt = index_dtype(n)  # levels and vertex ids: int32 unless n needs more
    k = int(src.size)
    uniq, inverse = np.unique(to_numpy(src), return_inverse=True)
    repeated = uniq.size < k
    rows = xp.asarray(uniq) if repeated else src
    if uniq.size < PACKED_FROM:  # a few sources: single-source searches, one by one
        out = one_by_one(M, to_numpy(rows), return_parents, direction, alpha, beta, axis=0)
        levels, parents = out if return_parents else (out, None)
        levels = levels.astype(idt, copy=False)  # an int64-indexed matrix's search: int64
        parents = parents.astype(idt, copy=False) if return_parents else None
    else:
        levels = xp.empty((int(rows.size), n), dtype=idt)
        parents = xp.empty((int(rows.size), n), dtype=idt) if return_parents else None
        words = -(-int(rows.size) // WORD)
        if (not return_parents and direction == "auto" and words > 1
                and M.nnz + n <= WIDE_ENTRIES and n * words <= WIDE_WORDS):
            _wide_levels(M, rows, levels)
        else:
            for g in range(0, int(rows.size), WORD):  # a multi-source search per 64 sources
                part = slice(g, g + WORD)
                state = packed_search(M, rows[part], parents[part] if return_parents else None,
                                      direction, alpha, beta)
                _fill_levels(state, levels[part])
    if repeated:
        take = xp.asarray(inverse.reshape(-1))
        levels = levels[take]
        parents = parents[take] if return_parents else None
    return (levels, parents) if return_parents else levels


def one_by_one(M, src, return_parents, direction, alpha, beta, axis=1):
    """The single-source searches from ``src`` (host ids), one after another: blocks of
    shape ``(n, k)``, column ``i`` for ``src[i]`` (``axis=0``: ``(k, n)``, row ``i``).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs.algorithms._shared import prepare
    >>> M = prepare(sp.csr_array(np.array([[0, 1, 0], [0, 0, 1], [0, 0, 0]])), True)
    >>> one_by_one(M, np.array([0, 1]), False, "auto", 15.0, 18.0).tolist()
    [[0, -1], [1, 0], [2, 1]]
    """
    levels, parents = [], []
    for s in src.tolist():
        out = search(M, s, return_parents=return_parents, direction=direction, alpha=alpha,
                     beta=beta)
        lv, par = out if return_parents else (out, None)
        levels.append(lv)
        parents.append(par)
    xp = M.xp
    if not levels:
        empty = xp.zeros((M.n, 0) if axis else (0, M.n), index_dtype(M.n))
        return (empty, empty) if return_parents else empty
    out = xp.stack(levels, axis=axis)
    return (out, xp.stack(parents, axis=axis)) if return_parents else out


def packed_levels(M, src):
    """The ``(n, k)`` levels of up to 64 searches from ``src`` (host ids) on a matrix whose
    vertex arrays allow element-wise work only (a distributed graph's): every level is one
    :data:`bor_first` product of the whole frontier's words, masked by the vertices every
    search has reached, the product choosing push or pull itself.  (The visited words, as
    :func:`bfs_many` pulls them for the early exit, were slower: 2 x H100, scale 26, 64
    sources: 0.391 s against 0.273 s, each level then sending every visited vertex's remote
    words.)

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs import dist, semiring
    >>> G = dist.DistGraph.from_edges(np.array([0, 1]), np.array([1, 2]), 3)
    >>> G.gather(packed_levels(semiring.Matrix.from_any(G), np.array([0, 2]))).tolist()
    [[0, 2], [1, 1], [2, 0]]
    """
    xp, n, k = M.xp, M.n, int(src.size)
    full, pad, zero = np.uint64(_ALL), np.uint64(_ALL ^ ((1 << k) - 1)), np.uint64(0)
    start = {}
    for s, v in enumerate(src.tolist()):   # the group's sources: at most 64
        start[v] = start.get(v, 0) | 1 << s
    visited = xp.zeros(n, np.uint64)
    for v, word in start.items():
        visited[v] = np.uint64(word)
    levels = _Planes(n, xp)
    frontier = visited
    for level in range(1, n + 1):
        seen = visited | pad
        y = vxm(Vector(n, "bitmap", present=frontier != zero, values=frontier), M, bor_first,
                mask=seen == full, complement=True)
        frontier = xp.where(y.present, y.values & ~seen, zero)
        if not frontier.any():
            break
        levels.add(None, frontier, level)
        visited = visited | frontier
    out = xp.zeros((n, k), index_dtype(n))
    unpack_bitplanes(levels.planes, visited, out)
    return out


class _Planes:
    """Small per-(source, vertex) codes stored as bit-planes: bit ``b`` of the code of
    ``(s, v)`` is bit ``s`` of ``planes[b][v]`` (a code is 0 until set); ``n`` the shape
    of a plane (``(n, words)`` for a wide search)."""

    def __init__(self, n, xp):
        self.n, self.xp = n, xp
        self.planes = []

    def add(self, vertices, words, code):
        """Set the code of the bits ``words`` of ``vertices`` (distinct; None: ``words``
        has one word per vertex) to the int ``code``; those codes must still be 0."""
        for b in range(code.bit_length()):
            while len(self.planes) <= b:
                self.planes.append(self.xp.zeros(self.n, np.uint64))
            if code >> b & 1 and vertices is None:
                self.planes[b] = self.planes[b] | words
            elif code >> b & 1:
                self.planes[b][vertices] |= words


class _State:
    """What one group's search leaves for the output."""

    def __init__(self, n, xp):
        self.levels = _Planes(n, xp)  # the level of each (source, vertex)
        self.visited = None



def _degrees(indptr, rows):
    """Stored entries of each of ``rows`` in a CSR, on the device."""
    return indptr[rows + 1] - indptr[rows]


def packed_search(M, src, parents, direction, alpha, beta, masked=False):
    """One bit-packed search of up to 64 distinct sources; ``parents``: None, or the
    ``(k, n)`` array its BFS trees are written to.  ``masked``: the values of ``M`` are
    ``uint64`` words, bit ``s`` saying that search ``s`` may use the edge.

    A level reads sizes to the host twice: the frontier's edges with the unexplored
    edges (for Beamer's rule, in one transfer), and the count of new vertices."""
    xp, n = M.xp, M.n
    semiring = bor_band if masked else bor_first
    k = int(src.size)
    state = _State(n, xp)
    pad = xp.uint64(_ALL ^ ((1 << k) - 1))  # the unused bits of a word count as visited
    full = xp.uint64(_ALL)
    zero = xp.uint64(0)
    bits = xp.left_shift(xp.uint64(1), xp.arange(k, dtype=xp.uint64))
    visited = xp.zeros(n, xp.uint64)
    visited[src] = bits
    if parents is not None:
        _fill_unreached(parents)
        parents[xp.arange(k), src] = src
    done = xp.zeros(n, bool)  # every search of the group has reached the vertex
    done[src] = (bits | pad) == full
    order = xp.argsort(src)
    frontier = Vector(n, "sparse", indices=src[order], values=bits[order])
    indptr, T = M.indptr, M.T
    # edges into vertices some search has not reached (a device scalar)
    unexplored = M.nnz - (_degrees(T.indptr, src) * done[src]).sum()
    pulling = direction == "pull"
    prev_nf = 0
    for level in range(1, n + 1):
        nf = int(frontier.indices.size)
        if not nf:
            break
        if direction == "auto":
            mf, left = (int(v) for v in to_numpy(xp.stack(
                [_degrees(indptr, frontier.indices).sum(), unexplored])))
            pulling = beamer_pull(pulling, nf, prev_nf, mf, left, n, alpha, beta)
        prev_nf = nf
        if pulling:
            seen_all = visited | pad
            x = Vector(n, "bitmap", present=visited != 0, values=seen_all)
            y = vxm(x, M, semiring, mask=done, complement=True, direction="pull")
            fresh = xp.where(y.present, y.values & ~seen_all, zero)
            idx = xp.flatnonzero(fresh)
            words, seen = fresh[idx], seen_all[idx]
        else:
            x = frontier
            y = vxm(x, M, semiring, mask=done, complement=True, direction="push")
            seen = visited[y.indices] | pad
            words = y.values & ~seen
            keep = xp.flatnonzero(words)
            idx, words, seen = y.indices[keep], words[keep], seen[keep]
        if not idx.size:
            break
        state.levels.add(idx, words, level)
        if parents is not None:  # any in-neighbour reached before the level, per bit
            packed_any_secondi(x, M, Vector(n, "sparse", indices=idx, values=words), parents,
                               edge_bits=masked)
        seen |= words
        visited[idx] = seen & ~pad
        now_full = seen == full
        done[idx] = now_full  # these vertices were not done: the product's mask
        unexplored = unexplored - (_degrees(T.indptr, idx) * now_full).sum()
        frontier = Vector(n, "sparse", indices=idx, values=words)
    state.visited = visited
    return state


def _wide_levels(M, src, out):
    """The ``(k, n)`` levels ``out`` of the distinct sources ``src``, every group of 64 at
    once: a vertex holds a word per group side by side (an ``(n, words)`` block), and a
    level is one SpMM ``A.T bor_second frontier`` of the whole block, its new bits those
    not visited; each group's levels are unpacked from its column of the planes."""
    xp, n, k = M.xp, M.n, int(src.size)
    words = -(-k // WORD)
    at = xp.arange(k)
    visited = xp.zeros((n, words), np.uint64)
    visited[src, at // WORD] = xp.left_shift(xp.uint64(1), (at % WORD).astype(np.uint64))
    frontier = visited.copy()
    levels = _Planes((n, words), xp)
    T = M.T
    for level in range(1, n + 1):
        frontier = mxm(T, frontier, bor_second)
        frontier &= ~visited
        if not frontier.any():
            break
        levels.add(None, frontier, level)
        visited |= frontier
    for w in range(words):
        unpack_bitplanes([xp.ascontiguousarray(p[:, w]) for p in levels.planes],
                         xp.ascontiguousarray(visited[:, w]), out[w * WORD:(w + 1) * WORD])


# ----------------------------------------------------------------------------- output
def _fill_unreached(out):
    """``out[...] = -1``, through 8-byte words where the rows allow (all ones either way:
    half the stores of a 4-byte fill)."""
    if UNREACHED == -1 and out.dtype.itemsize == 4 and out.flags.c_contiguous and out.size % 2 == 0:
        out.reshape(-1).view(np.int64).fill(-1)
    else:
        out.fill(UNREACHED)


def _fill_levels(state, out):
    """``out[s, v]``: the level of ``v`` in search ``s`` (-1 unreached), from the planes."""
    unpack_bitplanes(state.levels.planes, state.visited, out)
