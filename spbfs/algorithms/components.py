"""Connected components (weak and strong) written with semiring operations.

Weak components (and the components of an undirected graph) come from FastSV
(Zhang, Azad and Hu, 2020; LAGraph's ``LAGr_ConnectedComponents``): every vertex
holds a parent label, the minimum over the neighbours' grandparents is one
``vxm`` over ``min_first``, hooking a tree onto a smaller one is another
``vxm`` (over the parent matrix ``P[u, f[u]]``), and shortcutting is the gather
``f[f]``.  It ends when an iteration changes nothing; every label is then the
smallest vertex of its component.

Strong components come from forward and backward searches: trimming of vertices with no
in- or out-edge left (:func:`spbfs.semiring.peel`: a loop of ``vxm`` over ``plus_pair``,
one worklist kernel on the CPU), one forward-backward search from a high-degree pivot
with :func:`spbfs.bfs` (the giant component of most graphs), then forward-backward in
every remaining class at once (Fleischer, Hendrickson and Pinar): the vertices are
coloured by which searches reached them, every class takes a pseudo-random pivot (a
``vxm`` over ``max`` on the class membership matrix), and multi-source searches (``vxm``
over ``any_pair``) run on the edges inside classes. The strong component of each pivot
is what both searches reach; the rest of each class splits into three, so an expected
logarithmic number of phases ends it. Every loop is over search levels or phases, never
over vertices or edges; the searches of a graph whose longest path has L edges cost O(L)
levels. The numbering walks the condensation in topological order with the same peeling.
A backend with its own search for either kind (union-find for weak components on the CPU
and the GPU, a depth-first search for strong ones on the CPU) answers in one call instead
(:mod:`spbfs.semiring._searched`).
"""

from __future__ import annotations

import numpy as np

from ..core.arrays import index_dtype
from ..core.validation import check_choice
from ..semiring import (
    Matrix,
    Monoid,
    Semiring,
    Vector,
    any_pair,
    monoids,
    ops,
    peel,
    plus_pair,
    pointer_matrix,
    vxm,
)
from ..semiring._searched import searched_components
from ._shared import as_graph, by_masks
from .bfs import bfs

__all__ = ["connected_components"]

#: ``y[j] = max_i x[i]`` over the stored ``A[i, j]``.
max_first = Semiring(monoids.max, ops.first)
#: ``min_first`` whose monoid has no early-exit value: a pull scans each in-list in one
#: pass (labels never reach the dtype's minimum, so an early exit would never fire).
min_first_scan = Semiring(Monoid("min", np.minimum, monoids.min.identity, monoids.min.c_expr),
                          ops.first, name="min_first")


def connected_components(A, directed=True, connection="weak", return_labels=True, *,
                         strong_numbering="rule"):
    """Connected components, as ``scipy.sparse.csgraph.connected_components``.

    Parameters
    ----------
    A : scipy.sparse / cupyx.scipy.sparse matrix or array, 2-D array (or list), or Matrix
        ``A[i, j]`` stored (an explicit zero too) is an edge ``i -> j``; a BSR
        matrix's stored zeros (its blocks' padding) are not.  In a dense array zero,
        NaN and inf are not edges; in a masked array the unmasked entries are edges.
    directed : bool
        False: ``A`` is undirected (every edge usable both ways) and
        ``connection`` is ignored.
    connection : {"weak", "strong"}
        For a directed graph: weak components (of the graph with every edge
        made undirected) or strong ones (``u`` and ``v`` reach each other).
        Case-insensitive, as scipy.
    return_labels : bool
        Also return the label of every vertex.
    strong_numbering : {"rule", "finish", "finish-reversed"}
        How strong components are numbered: "rule" (below, on every backend), or, where
        the backend finds them with a depth-first search (the CPU), in the order it
        finishes them, each vertex's arcs taken in storage order ("finish": scipy's
        numbering from 1.18, Tarjan and Zwick's search) or last to first
        ("finish-reversed": scipy's up to 1.17, Pearce's); elsewhere by the rule.  The
        search's orders skip the rule's heights and ranking (a third of the search's time
        on a DAG).

    Returns
    -------
    n_components : int
    labels : ndarray of int32
        Label in ``[0, n_components)`` of every vertex (numpy for CPU input,
        cupy for GPU input; int64 only for graphs of ``2**31`` vertices or more).

        * Weak / undirected: exactly scipy's numbering: components in the order
          of their smallest vertex (vertex 0's component is 0, the component of
          the smallest vertex outside it is 1, ...).
        * Strong: scipy numbers components in the order its depth-first search
          (Pearce's algorithm in scipy <= 1.17; Tarjan-Zwick after) completes
          them, which no level-synchronous search reproduces.  spbfs keeps the
          two properties of that order that do not depend on the search: the
          labels are a reverse topological order of the condensation (a
          component's label is smaller than the label of every component that
          reaches it), and components come in blocks by the smallest vertex
          that reaches them, in increasing order, as scipy's depth-first search
          visits them.  Inside a block, components are ordered by the length of
          the longest path to a sink of the condensation, then by decreasing
          smallest vertex.  The partition into components is always scipy's;
          the labels equal scipy's whenever that order is forced (for example
          when the condensation is a chain or has no edges), and always with
          the search's orders on the CPU (``spbfs.csgraph`` picks the installed
          scipy's).

    Notes
    -----
    On a distributed graph strong components come from colour propagation (the labels by
    the documented rule); ordering the components gathers one key triple per component on
    every rank, ``O(components)`` memory per rank, which does not scale to graphs of
    billions of components.

    Raises
    ------
    ValueError
        If ``connection`` is not "weak" or "strong", or ``A`` is not square.
    TypeError
        If ``connection`` is not a string or ``A`` is not a graph.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs.algorithms.components import connected_components
    >>> A = sp.csr_array(np.array([[0, 1, 0, 0], [0, 0, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0]]))
    >>> connected_components(A)
    (2, array([0, 0, 1, 1], dtype=int32))
    >>> connected_components(A, connection="strong")
    (3, array([1, 0, 2, 2], dtype=int32))
    >>> connected_components(A, directed=False, return_labels=False)
    2
    >>> B = sp.csr_array(([1, 1, 1], [1, 2, 3], [0, 2, 2, 3, 3]))  # 0 -> 1, 0 -> 2 -> 3
    >>> connected_components(B, connection="strong")
    (4, array([3, 1, 2, 0], dtype=int32))
    >>> connected_components(B, connection="strong", strong_numbering="finish")
    (4, array([3, 0, 2, 1], dtype=int32))
    """
    if not isinstance(connection, str):
        raise TypeError(f"connection must be 'weak' or 'strong', got {connection!r}")
    connection = check_choice(connection.lower(), "connection", ("weak", "strong"))
    strong = bool(directed) and connection == "strong"
    strong_numbering = check_choice(strong_numbering, "strong_numbering",
                                    ("rule", "finish", "finish-reversed"))
    M = Matrix.from_any(as_graph(A), name="A")
    if M.nrows != M.ncols:
        raise ValueError(f"A must be square, got shape {M.shape}")
    if not directed:  # every edge both ways: a pattern found symmetric (checked once per
        M = M.symmetrized(values=False)  # pattern) lets a search read half of it
    searched = searched_components(M, strong, strong_numbering)
    if searched is not None:  # the backend's own search
        n_components, labels = searched
    elif strong and by_masks(M):
        n_components, labels = _strong_by_masks(M)
    else:
        if not strong:
            M = M.symmetrized(values=False)  # labels read the pattern only
        rep, numbering = _strong(M) if strong else (_weak(M), None)
        n_components, labels = _number(M, rep, strong, numbering)
    return (n_components, labels) if return_labels else n_components


# ----------------------------------------------------------------------------- weak: FastSV
def _weak(M):
    """The smallest vertex of each vertex's component, for the symmetric Matrix ``M``."""
    f = M.xp.arange(M.n, dtype=index_dtype(M.n))
    return _fastsv(M, f) if M.n else f


def _fastsv(M, f):
    """FastSV from labels ``f`` (every ``f[u] <= u``) until an iteration changes nothing.

    At that fixpoint ``f <= f[f]`` and ``f[u] <= u`` make every tree a star, and
    ``f[u] <= min over neighbours`` makes every edge's ends share a root: the smallest
    vertex of the component (a root is its own label and no larger than any member).

    Labels only fall, so each product carries only what can still change something: the
    neighbours' minimum is kept from round to round and updated with the grandparents that
    moved, and a vertex hooks only where its value is below ``f[f[u]]`` (anything else
    would leave the minimum there as it is).  On a distributed graph the later rounds then
    send a small part of the vertices instead of all of them."""
    xp, n = M.xp, M.n
    gf = f[f]
    moved = xp.ones(n, bool)                           # grandparents not yet sent
    nbmin = xp.full_like(f, np.iinfo(f.dtype).max)     # min over the neighbours of gf
    while True:
        y = vxm(Vector(n, "bitmap", present=moved, values=gf), M, min_first_scan)
        nbmin = xp.where(y.present, xp.minimum(nbmin, y.values), nbmin)
        mngf = xp.minimum(nbmin, gf)
        # stochastic hooking: f[f[u]] = min(f[f[u]], mngf[u]), a vxm over P[u, f[u]]
        P = pointer_matrix(f)
        h = vxm(Vector(n, "bitmap", present=mngf < gf, values=mngf), P, min_first_scan)
        f_new = xp.where(h.present, xp.minimum(f, h.values), f)
        # aggressive hooking and shortcutting
        f_new = xp.minimum(xp.minimum(f_new, mngf), gf)
        gf_new = f_new[f_new]
        moved = gf_new != gf
        changed = bool(((f_new != f) | moved).any())
        f, gf = f_new, gf_new
        if not changed:  # a fixpoint of every step
            return f


# ----------------------------------------------------------------------------- strong
#: Knuth's multiplicative hash: a bijection of [0, 2**32) that ranks pivots pseudo-randomly.
_HASH = 2654435761
_UNHASH = pow(_HASH, -1, 1 << 32)
_LOW32 = (1 << 32) - 1


def _strong(M):
    """A representative vertex of every vertex's strong component, and the numbering's
    ``(block, height)`` where the trim leaves nothing (every component one vertex: see
    :func:`_trim`), else None."""
    xp, n = M.xp, M.n
    idt = M.indices.dtype
    rep = xp.full(n, -1, dtype=idt)
    if n == 0:
        return rep, None
    MT = M.T
    active = xp.ones(n, bool)
    loops = _self_loops(M)
    degrees = [M.in_degree.astype(np.int64) - loops, M.out_degree.astype(np.int64) - loops]
    # 1. trim: vertices with no in- or no out-edge are components of their own
    numbering = _trim(M, MT, active, degrees, rep)
    if numbering is not None:
        return rep, numbering
    # 2. forward-backward from the vertex of largest in * out degree (the giant component)
    score = xp.where(active, degrees[0] * degrees[1], -1)
    pivot = int(xp.argmax(score))
    forward, backward = bfs(M, pivot) >= 0, bfs(MT, pivot) >= 0
    found = xp.flatnonzero(forward & backward).astype(idt)
    rep[found] = pivot
    active[found] = False
    colour = _split(xp, xp.zeros(n, np.int64), forward, backward, active)
    _peel(M, MT, active, degrees, rep, found)
    # 3. the rest: forward-backward in every colour class at once, pivots at random
    rows, trows = M.pattern.rows(), MT.pattern.rows()
    while bool(active.any()):
        pivots = _pivots(M, colour, active)
        forward = _reach(M, rows, colour, active, pivots)
        backward = _reach(MT, trows, colour, active, pivots)
        both = forward & backward
        found = xp.flatnonzero(both).astype(idt)
        owner = xp.full(n, -1, np.int64)
        owner[colour[pivots]] = pivots
        rep[found] = owner[colour[found]]
        active[found] = False
        colour = _split(xp, colour, forward, backward, active)
        _peel(M, MT, active, degrees, rep, found)
    return rep, None


def _split(xp, colour, forward, backward, active):
    """Refine the colour classes of the active vertices by (forward, backward) reach:
    every strong component lies inside one class of the result (compact ids, ranked
    through a table of the ``4 n`` possible keys: no sort)."""
    n = colour.size
    key = colour * 4 + forward.astype(np.int64) + 2 * backward.astype(np.int64)
    used = xp.zeros(4 * n, bool)
    used[key[active]] = True
    rank = xp.cumsum(used) - 1
    return xp.where(active, rank[key], 0)


def _pivots(M, colour, active):
    """One active vertex per colour class: the one of largest hash (a vxm over ``max`` on
    the membership matrix ``Q[v, colour[v]]``), so pivots split classes at random."""
    xp, n = M.xp, M.n
    members = xp.flatnonzero(active)
    h = (members.astype(np.uint64) * np.uint64(_HASH)) & np.uint64(_LOW32)
    k = members.size
    Q = Matrix(xp.arange(k + 1, dtype=np.int64), colour[members], xp.ones(k, bool), k,
               ncols=n, check=False)
    y = vxm(Vector(k, "bitmap", present=xp.ones(k, bool), values=h.astype(np.int64)), Q,
            max_first)
    best = y.values[y.present].astype(np.uint64)
    return ((best * np.uint64(_UNHASH)) & np.uint64(_LOW32)).astype(np.int64)


def _reach(M, rows, colour, active, sources):
    """Vertices reached from ``sources`` along edges inside one active colour class (a
    multi-source BFS of ``vxm`` over ``any_pair`` on those edges)."""
    xp, n = M.xp, M.n
    cols = M.indices
    c = xp.where(active, colour, -1)
    at_row = c[rows]
    keep = (at_row >= 0) & (at_row == c[cols])
    indptr = xp.zeros(n + 1, np.int64)
    xp.cumsum(xp.bincount(rows[keep], minlength=n), out=indptr[1:])
    K = Matrix(indptr, cols[keep], xp.ones(int(indptr[-1]), bool), n, check=False)
    reached = xp.zeros(n, bool)
    reached[sources] = True
    frontier = Vector(n, "sparse", indices=xp.sort(sources), values=xp.ones(sources.size, bool))
    while frontier.indices.size:
        frontier = vxm(frontier, K, any_pair, mask=reached, complement=True)
        reached[frontier.indices] = True
    return reached


def _self_loops(M):
    """Self-loop entries per vertex (int64)."""
    xp = M.xp
    rows = M.pattern.rows()
    on_diagonal = rows[rows == M.indices]
    return xp.bincount(on_diagonal, minlength=M.n).astype(np.int64)


def _trim(M, MT, active, degrees, rep):
    """The first trim as two peels: forward by in-degrees (``F``: no cycle reaches the
    vertex), the smallest vertex reaching each folded along, and backward by out-degrees
    (``B``: the vertex reaches no cycle), its round the longest path to a sink.  The
    vertices peeled by in- or out-degrees together are ``F | B`` (a vertex outside both
    lies between two cycles: it keeps an in- and an out-neighbour outside both), each a
    component of its own; no arc goes from ``B`` to the rest or from the rest to ``F``,
    so the counts left are the arcs inside the rest.  Where that is every vertex (a DAG)
    the peels' values are the numbering's ``(block, height)`` (each component is its own
    vertex), returned; else None.  The two peels are one, of the block-diagonal matrix
    ``[[M, 0], [0, M.T]]`` without lock step: a deep DAG peels in one launch on the GPU,
    its two longest paths side by side, not a launch or a barrier a level."""
    xp, n = M.xp, M.n
    counts = xp.concatenate(degrees)
    kept = xp.ones(2 * n, bool)
    block = xp.concatenate([xp.arange(n, dtype=np.int64)] * 2)
    ids, rounds = peel([(_side_by_side(M, MT), counts)], kept, values=block,
                       monoid=monoids.min, lockstep=False)
    degrees[0][...], degrees[1][...] = counts[:n], counts[n:]
    active &= kept[:n] & kept[n:]
    gone = xp.flatnonzero(~active).astype(rep.dtype)
    rep[gone] = gone
    if bool(active.any()):
        return None
    height = xp.zeros(2 * n, np.int64)
    height[ids] = rounds
    return block[:n], height[n:]


def _side_by_side(A, B):
    """The block-diagonal pattern ``[[A, 0], [0, B]]`` of two n x n matrices."""
    xp, n = A.xp, A.n
    idt = index_dtype(2 * n)
    a, b = int(A.indptr[-1]), int(B.indptr[-1])
    indptr = xp.empty(2 * n + 1, np.int64)
    indptr[:n + 1] = A.indptr
    indptr[n + 1:] = B.indptr[1:]
    indptr[n + 1:] += a           # in the output's dtypes: no int32 sum to overflow
    indices = xp.empty(a + b, idt)
    indices[:a] = A.indices[:a]
    indices[a:] = B.indices[:b]
    indices[a:] += n
    return Matrix(indptr, indices, xp.ones(a + b, bool), 2 * n, check=False)


def _peel(M, MT, active, degrees, rep, removed):
    """Trim after the ``removed`` vertices (a found component) leave: update the in/out
    degrees inside ``active``, then remove, as components of their own, the vertices left
    with no in- or out-edge, until none is (short cascades: in lock step)."""
    gone, _ = peel([(M, degrees[0]), (MT, degrees[1])], active, removed)
    rep[gone] = gone


# ----------------------------------------------------------------------------- numbering
def _number(M, rep, strong, numbering=None):
    """``(n_components, labels)`` from a representative per vertex, numbered as documented
    (``numbering``: the ``(block, height)`` of every vertex where each is a component of
    its own, found by the trim)."""
    xp, n = M.xp, M.n
    label_dtype = np.int32 if n <= np.iinfo(np.int32).max else np.int64
    if n == 0:
        return 0, xp.zeros(0, label_dtype)
    if numbering is not None:
        return n, _ranked(xp, *reversed(numbering), n, label_dtype)
    ids = xp.arange(n, dtype=rep.dtype)
    if not strong:  # rep is the smallest vertex of the component: number roots in order
        roots = rep == ids
        rank = xp.cumsum(roots) - 1
        return int(roots.sum()), rank[rep].astype(label_dtype)
    # compact ids by the smallest vertex of each component
    smallest = _group_min(M, rep, ids)[rep]        # smallest vertex of each one's component
    roots = smallest == ids
    rank = xp.cumsum(roots) - 1
    comp = rank[smallest]                          # 0..k-1, in order of smallest vertex
    k = int(roots.sum())
    minv = xp.flatnonzero(roots)                   # smallest vertex of component c
    C = _condensation(M, comp, k)
    label = _ranked(xp, _heights(C), _block_roots(C, minv), k, np.int64)
    return k, label[comp].astype(label_dtype)


def _ranked(xp, height, block, k, dtype):
    """Each of ``k`` components' label, components in increasing order of their smallest
    vertex: its rank by (block, height, decreasing smallest vertex), one stable sort of
    the reversed keys (``block`` a vertex and ``height`` below ``k``: the key fits in
    int64)."""
    key = block.astype(np.int64) * (int(height.max()) + 1) + height
    order = (k - 1) - xp.argsort(key[::-1], kind="stable")
    label = xp.empty(k, dtype)
    label[order] = xp.arange(k, dtype=dtype)
    return label


def _group_min(M, rep, ids):
    """``out[r]`` = the smallest vertex ``v`` with ``rep[v] == r``, for every
    representative ``r`` (a vxm over the membership matrix ``Q[v, rep[v]]``)."""
    xp, n = M.xp, M.n
    everywhere = xp.ones(n, bool)
    Q = Matrix(xp.arange(n + 1, dtype=index_dtype(n, n)), rep, everywhere, n, check=False)
    y = vxm(Vector(n, "bitmap", present=everywhere, values=ids), Q, min_first_scan)
    return xp.where(y.present, y.values, ids)


def _condensation(M, comp, k):
    """The condensation DAG (one vertex per component, duplicates kept, columns in no
    particular order) as a Matrix: the arcs between components, grouped by row (no sort
    when they already are, as when every component is one vertex)."""
    xp = M.xp
    rows = comp[M.pattern.rows()]
    cols = comp[M.indices]
    keep = rows != cols
    cu, cv = rows[keep], cols[keep]
    if cu.size > 1 and not bool((cu[1:] >= cu[:-1]).all()):
        order = xp.argsort(cu)
        cu, cv = cu[order], cv[order]
    idt = index_dtype(k, cu.size)
    indptr = xp.zeros(k + 1, idt)
    xp.cumsum(xp.bincount(cu, minlength=k), out=indptr[1:])
    return Matrix(indptr, cv.astype(idt), xp.ones(cu.size, bool), k, check=False)


def _block_roots(C, minv):
    """The smallest vertex reaching each component: ``minv`` folded with ``min`` along the
    arcs of the condensation in topological order (peeling by in-degrees)."""
    block = minv.astype(np.int64)
    peel([(C, C.in_degree.astype(np.int64))], C.xp.ones(C.n, bool), values=block,
         monoid=monoids.min, lockstep=False)
    return block


def _heights(C):
    """Length of the longest path from each component to a sink: its round when the
    condensation is peeled from the sinks (by out-degrees, through the transpose)."""
    xp = C.xp
    height = xp.zeros(C.n, np.int64)
    ids, rounds = peel([(C.T, C.out_degree.astype(np.int64))], xp.ones(C.n, bool),
                       lockstep=False)
    height[ids] = rounds
    return height


# ----------------------------------------------------------------------------- by masks
def _strong_by_masks(M):
    """Strong components and their documented numbering on a matrix whose vertex arrays
    take element-wise work only (a distributed graph's), by colour propagation (Orzan):
    every round trims the vertices with no active in- or out-neighbour, gives each active
    vertex the largest id reaching it inside the active part (``max_first`` products to a
    fixpoint), and searches backwards from each colour's own vertex inside its colour
    (``min_first`` products: a vertex joins when a reached successor has its colour); what
    that search reaches is the root's component.  Then the numbering rule of
    :func:`connected_components`: the smallest vertex reaching each component (a ``min``
    propagation forward), the longest path to a sink of the condensation (``max``
    propagation backwards over the arcs between components, plus one, and inside them,
    plus zero), and the components ordered by those keys: the keys of the components
    (three integers each) are gathered on every rank for that order."""
    xp, n = M.xp, M.n
    label_dtype = np.int32 if n <= np.iinfo(np.int32).max else np.int64
    if n == 0:
        return 0, xp.zeros(n, label_dtype)
    M = M.unit(np.int64)
    MT = M.T
    ids = xp.arange(n, dtype=np.int64)
    rep = xp.full(n, -1, np.int64)
    active = xp.ones(n, bool)
    ones = xp.ones(n, np.int64)
    while active.any():
        # trim: no active neighbour on one side: a component of its own
        live = Vector(n, "bitmap", present=active, values=ones)
        into = vxm(live, M, plus_pair, dtype=np.int64).to_dense(0)
        out = vxm(live, MT, plus_pair, dtype=np.int64).to_dense(0)
        alone = active & ((into == 0) | (out == 0))
        rep = xp.where(alone, ids, rep)
        active = active & ~alone
        if not active.any():
            break
        colour = xp.where(active, ids, -1)
        changed = active
        while changed.any():
            y = vxm(Vector(n, "bitmap", present=changed, values=colour), M, max_first,
                    mask=active)
            better = y.present & (y.to_dense(-1) > colour)
            colour = xp.where(better, y.to_dense(-1), colour)
            changed = better
        reached = active & (colour == ids)
        frontier = reached
        while frontier.any():
            y = vxm(Vector(n, "bitmap", present=frontier, values=colour), MT, min_first_scan,
                    mask=active & ~reached)
            frontier = y.present & (y.to_dense(-1) == colour)
            reached = reached | frontier
        rep = xp.where(reached, colour, rep)
        active = active & ~reached
    # the smallest vertex of each component, at every member
    low = vxm(Vector(n, "bitmap", present=xp.ones(n, bool), values=ids), pointer_matrix(rep),
              min_first_scan).to_dense(n)
    minv = low[rep]
    roots = minv == ids
    k = int(roots.sum())
    # the smallest vertex reaching each component
    block, changed = ids, xp.ones(n, bool)
    while changed.any():
        y = vxm(Vector(n, "bitmap", present=changed, values=block), M, min_first_scan)
        changed = y.present & (y.to_dense(n) < block)
        block = xp.where(changed, y.to_dense(n), block)
    # the longest path to a sink of the condensation
    across = M.select_ends(minv, np.not_equal).T
    inside = M.select_ends(minv, np.equal).T
    height, changed = xp.zeros(n, np.int64), xp.ones(n, bool)
    while changed.any():
        best = height
        for part, step in ((across, 1), (inside, 0)):
            if part.nnz:
                y = vxm(Vector(n, "bitmap", present=changed, values=height + step), part,
                        max_first)
                best = xp.maximum(best, y.to_dense(-1))
        changed = best > height
        height = best
    # the components in order of (block, height, decreasing smallest vertex): their keys
    # (one triple each) on every rank
    hq = getattr(xp, "base", xp)   # the module of arrays the same on every rank
    keys = xp.flatnonzero(roots)   # the components' smallest vertices, ascending
    order = hq.lexsort(hq.stack([-keys, height[keys], block[keys]]))
    label_of = hq.empty(k, np.int64)
    label_of[order] = hq.arange(k, dtype=np.int64)
    labels = xp.take(label_of, xp.searchsorted(keys, minv))
    return k, labels.astype(label_dtype)
