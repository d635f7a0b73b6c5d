"""Community detection: semi-synchronous label propagation and parallel Louvain.

Both update one colour class of the graph at a time (vertices of a class are never
neighbours, so they can move together without undoing each other's move).  The colouring is
the greedy one in an order of priorities (:func:`spbfs.semiring.greedy_colors`).

* Label propagation (NetworkX's rules and colouring, so NetworkX's result): a vertex takes
  the label most frequent among its neighbours (``row_mode`` over its class's rows of the
  pattern), keeps its own label on a tie that includes it, else takes the largest.  It
  stops when every vertex holds one of its most frequent labels; a sweep looks only at
  the vertices a neighbour's change marked.
* Louvain: with ``B`` the symmetric weight matrix (self-loops doubled, so row sums are the
  weighted degrees ``k`` and ``sum(B) = 2m``), a vertex ``v`` of a class moves to the
  neighbouring community ``C`` maximising ``w(v, C) - resolution * k_v * Sigma_C / 2m``
  (a weighted ``row_mode`` of the class's rows with ``Sigma`` as the cost) when that
  beats staying, and when its gain survives the class's other moves into its community
  and out of its own (:func:`spbfs.semiring.modularity_sweep`).  When no move helps, the
  communities become the vertices of ``P.T @ B @ P`` (two products) and the next level
  starts; it stops when a level raises the modularity by no more than ``threshold``.
"""

from __future__ import annotations

import math
import numbers
from itertools import pairwise

import numpy as np

from ..core.arrays import array_module, stable_order
from ..core.validation import check_number
from ..semiring import (
    Vector,
    ewise_add,
    greedy_colors,
    mode_sweeps,
    modularity_sweep,
    monoids,
    mxm,
    ops,
    plus_times,
    pointer_matrix,
    quotient,
    reduce,
    select,
    vxm,
)
from ._shared import by_masks, check_undirected, prepare
from .degree import degrees

__all__ = ["color_classes", "doubled_loops", "label_propagation", "largest_first", "louvain",
           "louvain_doubled", "modularity", "quotient_modularity"]


def _rng(seed):
    if seed is None or isinstance(seed, numbers.Integral):
        if seed is not None and seed < 0:
            raise ValueError(f"seed must be non-negative, got {seed}")
        return np.random.default_rng(seed)
    if isinstance(seed, np.random.Generator):
        return seed
    raise TypeError(f"seed must be None, an int or a numpy Generator, got {seed!r}")


def color_classes(A, seed=None, priority=None):
    """A proper colouring of an undirected graph, as lists of vertices per colour.

    The sequential greedy colouring in priority order (:func:`spbfs.semiring.greedy_colors`:
    each vertex takes the smallest colour none of its neighbours before it holds), so every
    colour is the lexicographically first maximal independent set of the vertices not
    coloured before; ``networkx.greedy_color``'s ``largest_first`` is :func:`largest_first`.

    Parameters
    ----------
    A : scipy.sparse / cupyx.scipy.sparse matrix or array, 2-D array, or Matrix
        Symmetric pattern; values and self-loops are ignored.
    seed : int or numpy Generator, optional
        The random priorities.
    priority : 1-D array of n distinct numbers, optional
        Instead of random ones.

    Returns
    -------
    list of ndarray of int64
        Colour classes (independent sets), together all vertices.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs.algorithms.communities import color_classes
    >>> A = sp.csr_array(np.array([[0, 1, 1], [1, 0, 1], [1, 1, 0]]))
    >>> sorted(len(c) for c in color_classes(A, seed=1))
    [1, 1, 1]
    """
    M = prepare(A)
    xp, n = M.xp, M.n
    if priority is None:
        priority = _rng(seed).permutation(n)
    colour = greedy_colors(M, xp.asarray(priority))
    counts = xp.bincount(colour)
    order = stable_order(colour, counts.size)  # by colour, then vertex id
    ends = xp.cumsum(counts).tolist() if n else []
    return [order[lo:hi] for lo, hi in pairwise([0, *ends])]


def largest_first(A):
    """Priorities of ``networkx.greedy_color``'s ``largest_first`` strategy: by degree
    (self-loops twice), ties by vertex id.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs.algorithms.communities import largest_first
    >>> largest_first(sp.csr_array(np.array([[0, 1, 1], [1, 0, 0], [1, 0, 0]])))
    array([3, 2, 1])
    """
    deg = degrees(A, directed=False)
    xp = array_module(deg)
    n = int(deg.shape[0])
    order = xp.lexsort(xp.stack([xp.arange(n), -deg]))
    priority = xp.empty(n, np.int64)
    priority[order] = xp.arange(n, 0, -1)
    return priority


def label_propagation(A, max_sweeps=1000):
    """Labels of NetworkX's semi-synchronous label propagation: its colouring (greedy,
    largest first), update and stopping rules, initial labels the vertex ids; one colour
    class updates at once (its vertices are not neighbours, so this is NetworkX's result).

    Parameters
    ----------
    A : scipy.sparse / cupyx.scipy.sparse matrix or array, 2-D array, or Matrix
        An undirected graph (symmetric pattern, checked; values ignored; a self-loop makes
        a vertex its own neighbour, as in NetworkX).
    max_sweeps : int
        Most passes over the colour classes (NetworkX has no limit; a ``RuntimeError`` here).

    Returns
    -------
    ndarray of int64
        ``label[v]``: the community's label (a vertex id).

    Raises
    ------
    ValueError
        ``A`` not square or its pattern not symmetric.

    Notes
    -----
    On a distributed graph this is a fallback that does not scale: every rank gathers the
    whole graph (:meth:`~spbfs.dist.matrix.DistMatrix.whole`) and runs the single-device
    method on it (the same answer on every rank, cut to a vertex array).  Its colour
    classes move one after another with ``row_mode`` over arbitrary communities, which the
    distributed operations do not offer yet.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs.algorithms.communities import label_propagation
    >>> A = sp.csr_array(np.kron(np.eye(2), np.ones((3, 3)) - np.eye(3)))
    >>> label_propagation(A)
    array([2, 2, 2, 5, 5, 5])
    """
    M = prepare(A).canonical()
    xp, n = M.xp, M.n
    if by_masks(M):   # the documented fallback: the whole graph on every rank
        return xp.asarray(label_propagation(M.whole(), max_sweeps))
    P = check_undirected(M).unit(np.float64)
    label = xp.arange(n, dtype=np.int64)
    if _ids_complete(P):
        return label
    # the colouring depends on the pattern alone: built once
    classes = P.pattern.derived("label propagation classes", lambda: _class_rows(P))
    # A vertex's choice depends on its own and its neighbours' labels only, and after it
    # chooses it holds one of its most frequent labels: it can change again only once a
    # neighbour's label changes.  So each sweep looks at the vertices whose neighbours
    # moved (all at first), and it changes nothing (NetworkX's stop) once none did.
    label, settled = mode_sweeps(P, classes, label, max_sweeps=max_sweeps)
    if settled:
        return label
    raise RuntimeError(f"label propagation did not settle in {max_sweeps} sweeps")


def _class_rows(P):
    """The colour classes of NetworkX's label propagation colouring (greedy, largest
    first), each as its rows."""
    return [rows for rows in color_classes(P, priority=largest_first(P)) if rows.size]


def _ids_complete(P):
    """Whether the starting labels (the vertex ids) are already NetworkX's answer: each
    vertex with neighbours holds one of its most frequent labels.  Its neighbours' labels
    are distinct, each counted once, and its own is among them only through a self-loop;
    so: every vertex with neighbours has a self-loop."""
    return select(P, "diag").nnz == int((P.out_degree > 0).sum())


def doubled_loops(A):
    """Symmetric float64 weights with the diagonal doubled (row sums = weighted degree);
    ValueError unless ``A``'s weights are finite, non-negative and symmetric.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> doubled_loops(sp.csr_array(np.array([[1.0, 2.0], [2.0, 0]]))).data.tolist()
    [2.0, 2.0, 2.0]
    """
    M = prepare(A).canonical()
    xp = M.xp
    if by_masks(M):   # no entry arrays: the diagonal selected and added once more
        M = M.astype(np.float64)
        if M.nnz and not (reduce(M, monoids.min) >= 0
                          and np.isfinite(reduce(M, monoids.max))):
            raise ValueError("A must have finite non-negative weights")
        check_undirected(M, values=True)
        loops = select(M, "diag")
        return ewise_add(M, loops, ops.plus) if loops.nnz else M
    w = M.data.astype(np.float64)
    if M.nnz and (not bool(xp.isfinite(w).all()) or float(w.min()) < 0):
        raise ValueError("A must have finite non-negative weights")
    check_undirected(M, values=True)
    w[xp.flatnonzero(M.entry_rows == M.indices)] *= 2.0   # w is a copy
    return M.with_values(w)


def modularity(A, labels, resolution=1.0):
    """Modularity of a partition of an undirected weighted graph, as
    ``networkx.community.modularity`` (self-loops count twice in the degrees).

    Parameters
    ----------
    A : scipy.sparse / cupyx.scipy.sparse matrix or array, 2-D array, or Matrix
        Symmetric weights (an undirected graph; checked, to rounding), finite and
        non-negative.
    labels : 1-D array of int
        Community of every vertex.
    resolution : float

    Returns
    -------
    float
        NaN for a graph without edges (or only edges of weight 0).

    Raises
    ------
    ValueError
        ``A`` not square, not symmetric, or with negative, NaN or infinite weights.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs.algorithms.communities import modularity
    >>> A = sp.csr_array(np.kron(np.eye(2), np.ones((3, 3)) - np.eye(3)))
    >>> round(modularity(A, np.array([0, 0, 0, 1, 1, 1])), 4)
    0.5
    """
    _check_resolution(resolution)
    B = doubled_loops(A)
    xp = B.xp
    labels = _community_labels(labels, B.n, xp)
    if by_masks(B):
        return _modularity_by_masks(B, labels, resolution)
    total = float(B.data.sum())
    if total == 0:
        return float("nan")
    k = _row_sums(B)
    c = int(labels.max()) + 1 if labels.size else 0
    inside = float(B.data[labels[B.entry_rows] == labels[B.indices]].sum())
    sigma = xp.bincount(labels, weights=k, minlength=c)
    return _score(inside, sigma, resolution, total)


def _check_resolution(resolution):
    if not math.isfinite(check_number(resolution, "resolution")):
        raise ValueError(f"resolution must be finite, got {resolution}")


def _community_labels(labels, n, xp):
    """``labels`` checked (``n`` integers) as int64, numbered ``0 ..`` when they lie outside
    ``[0, n)`` (any integers name communities; a distributed graph's must lie inside)."""
    arr = xp.asarray(labels)
    if arr.ndim != 1 or arr.shape[0] != n:
        raise ValueError(f"labels must hold one community per vertex ({n}), got shape "
                         f"{arr.shape}")
    if arr.size and arr.dtype.kind not in "iu":
        raise TypeError(f"labels must be integers, got dtype {arr.dtype}")
    arr = arr.astype(np.int64, copy=False)
    if (not getattr(xp, "distributed", False) and arr.size
            and (int(arr.min()) < 0 or int(arr.max()) >= n)):
        arr = xp.unique(arr, return_inverse=True)[1].reshape(-1).astype(np.int64)
    return arr


def _modularity_by_masks(B, labels, resolution):
    """:func:`modularity` on a distributed graph: the weight inside communities from the
    entries whose ends share a label (:meth:`~spbfs.dist.matrix.DistMatrix.select_ends`),
    each community's degree by a product through the pointer matrix ``P[v, label[v]]``
    (labels must lie in ``[0, n)``)."""
    xp, n = B.xp, B.n
    total = float(reduce(B, monoids.plus)) if B.nnz else 0.0
    if total == 0:
        return float("nan")
    if n and (labels.min() < 0 or labels.max() >= n):
        raise ValueError(f"on a distributed graph labels must lie in [0, {n})")
    inside = B.select_ends(labels, np.equal)
    inside = float(reduce(inside, monoids.plus)) if inside.nnz else 0.0
    k = _row_sums(B)
    sigma = vxm(Vector(n, "bitmap", present=xp.ones(n, bool), values=k), pointer_matrix(labels),
                plus_times).to_dense(0.0)
    return _score(inside, sigma, resolution, total)


def _row_sums(B):
    return mxm(B, B.xp.ones((B.ncols, 1)), plus_times)[:, 0]


def louvain(A, resolution=1.0, threshold=1e-7, max_level=None, seed=None, max_sweeps=50):
    """Communities by Louvain's method, moving a colour class at a time.

    Parameters
    ----------
    A : scipy.sparse / cupyx.scipy.sparse matrix or array, 2-D array, or Matrix
        Symmetric non-negative weights (an undirected graph, checked, to rounding; a stored
        zero is an edge of weight 0).
    resolution : float
        NetworkX's resolution ``gamma``.
    threshold : float
        A level must raise the modularity by more than this to continue; so must a sweep
        of a level's moves, and by more than :data:`SETTLED` of what the level has gained
        so far (a sweep that lowers it, which only rounding can do, is undone and the
        level's moves end).
    max_level : int, optional
        Most levels.
    seed : int or numpy Generator, optional
        For the colourings.
    max_sweeps : int
        Most passes over the colour classes per level.

    Returns
    -------
    ndarray of int64
        Community of every vertex (``0 .. c-1``).

    Raises
    ------
    ValueError
        ``A`` not square, not symmetric, with negative, NaN or infinite weights, or
        ``max_level`` not positive.

    Notes
    -----
    On a distributed graph this is a fallback that does not scale: every rank gathers the
    whole graph (:meth:`~spbfs.dist.matrix.DistMatrix.whole`) and runs the single-device
    method on it, ``seed=None`` meaning 0 so that every rank draws the same colourings
    (the same answer on every rank, cut to a vertex array).  Its colour
    classes move one after another with ``row_mode`` over arbitrary communities, which the
    distributed operations do not offer yet.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs.algorithms.communities import louvain
    >>> A = sp.csr_array(np.kron(np.eye(2), np.ones((3, 3)) - np.eye(3)))
    >>> louvain(A, seed=1)
    array([0, 0, 0, 1, 1, 1])
    """
    if max_level is not None and max_level <= 0:
        raise ValueError("max_level argument must be a positive integer or None")
    _check_resolution(resolution)
    M = prepare(A)
    if by_masks(M):   # the documented fallback: the whole graph on every rank, one seed
        whole = M.canonical().whole()
        return M.xp.asarray(louvain(whole, resolution, threshold, max_level,
                                    0 if seed is None else seed, max_sweeps))
    return louvain_doubled(doubled_loops(M), resolution, threshold, max_level, seed,
                           max_sweeps)


def louvain_doubled(B, resolution=1.0, threshold=1e-7, max_level=None, seed=None,
                    max_sweeps=1000):
    """:func:`louvain` of a graph given as its checked weights with the diagonal doubled
    (:func:`doubled_loops`), so that callers running levels on graphs they build
    themselves (Leiden's aggregates: the :func:`spbfs.semiring.quotient` of such a matrix
    is one) check nothing twice.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs.algorithms.communities import doubled_loops, louvain_doubled
    >>> A = sp.csr_array(np.kron(np.eye(2), np.ones((3, 3)) - np.eye(3)))
    >>> louvain_doubled(doubled_loops(A), seed=1)
    array([0, 0, 0, 1, 1, 1])
    """
    rng = _rng(seed)
    xp, n = B.xp, B.n
    final = xp.arange(n, dtype=np.int64)
    total = float(B.data.sum()) if B.nnz else 0.0
    if total == 0:
        return final
    B, total = _moderate(B, total)
    mod = None
    level = 0
    while True:
        k = _row_sums(B)  # each vertex's degree, read by the moves too
        if mod is None:  # the singletons'
            mod = quotient_modularity(B, resolution, total, k)
        comm, new_mod = _local_moves(B, k, resolution, total, rng, max_sweeps, threshold,
                                     mod)
        uniq, comm = xp.unique(comm, return_inverse=True)
        comm = comm.ravel().astype(np.int64)
        final = comm[final]  # NetworkX keeps the last level, however small its gain
        if int(uniq.size) == B.n or new_mod - mod <= threshold:
            return final
        mod = new_mod
        level += 1
        if max_level is not None and level >= max_level:
            return final
        B = quotient(B, comm, int(uniq.size))


def quotient_modularity(Q, resolution, total, k=None):
    """Modularity of a partition from its quotient ``Q`` of a doubled-loop matrix
    (:func:`spbfs.semiring.quotient`: the weight inside each community on its diagonal,
    its total degree as its row's sum, or ``k`` where given); ``total`` is the sum of
    ``Q``.  A matrix is its own quotient by the partition into singletons.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs.semiring import Matrix
    >>> quotient_modularity(Matrix.from_any(sp.csr_array(np.array([[2.0]]))), 1.0, 2.0)
    0.0
    """
    k = _row_sums(Q) if k is None else k
    return _score(float(reduce(select(Q, "diag"), monoids.plus)), k, resolution, total)


def _moderate(B, total):
    """``(B, total)`` scaled by a power of two bringing the largest weight near 1 when it
    lies outside ``[2**-20, 2**40]``: modularity and the moves are scale-free, but the
    moves' margin (``1e-12``, in weight units) swallowed every gain of tiny weights, and
    products of huge degrees overflowed.  A power of two scales exactly, so a graph inside
    that range is left as it is."""
    top = float(B.data.max())
    if 2.0 ** -20 <= top <= 2.0 ** 40:
        return B, total
    data = B.xp.ldexp(B.data, -math.frexp(top)[1])   # no 2**1074 of subnormal weights
    return B.with_values(data), float(data.sum())


def _score(inside, sigma, resolution, total):
    """Modularity from the weight inside communities and each community's total degree
    (the degrees' shares squared: huge weights do not overflow)."""
    share = sigma / total
    return inside / total - resolution * float((share * share).sum())


#: A level's sweeps end once one raises the modularity by no more than this share of what
#: the level has raised it so far: a tail of small gains costs sweeps that add little (on
#: a scale-17 Kronecker graph the second level's last 9 of 25 sweeps added 0.05 % of the
#: modularity).
SETTLED = 1e-3


def _local_moves(B, k, resolution, total, rng, max_sweeps, threshold, mod):
    """Louvain's first phase on ``B`` from its vertices as communities (modularity ``mod``):
    colour class by colour class, each vertex to its best neighbouring community.  It stops
    when a sweep raises the modularity by no more than ``threshold`` or than
    :data:`SETTLED` of the level's gain so far.  A class's moves together raise the
    modularity (:func:`spbfs.semiring.modularity_sweep` keeps a move only where the
    class's other moves leave it a gain), so a sweep lowers it only by rounding, and such
    a sweep is undone.  The weight inside communities is kept from the moves themselves
    (the movers of a class are not neighbours: each adds twice its weight to its new
    community and takes off twice that to its old one), so a sweep's modularity costs no
    pass over the entries.  ``k``: the row sums of ``B``.  Returns the communities and their
    modularity."""
    xp, n = B.xp, B.n
    comm = xp.arange(n, dtype=np.int64)
    sigma = k.copy()  # total degree of each community (indexed by community id < n)
    inside = mod * total + resolution * float((sigma * sigma).sum()) / total
    start = mod
    off = select(B, "offdiag")
    classes = [rows for rows in color_classes(off, rng) if rows.size]
    for _ in range(max_sweeps):
        before = comm.copy(), sigma.copy(), inside
        moved, gained = modularity_sweep(off, classes, comm, k, sigma, resolution / total)
        inside += gained
        if not moved:
            break
        new_mod = _score(inside, sigma, resolution, total)
        if new_mod < mod:
            comm, sigma, inside = before
            break
        gain, mod = new_mod - mod, new_mod
        if gain <= max(threshold, SETTLED * (mod - start)):
            break
    return comm, mod


