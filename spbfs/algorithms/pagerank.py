"""PageRank as a ``plus_times`` power iteration, with NetworkX's conventions.

One iteration is one :func:`spbfs.semiring.pull_affine` step over ``plus_times``: the
product ``y = x @ P`` with ``P = D^-1 A`` the out-weight-normalised adjacency matrix,
computed as ``(x / d) @ A`` so ``A`` is never rescaled, scaled and shifted, its L1 change
and dangling rank totalled in the same pass (on the CPU one kernel; elsewhere a ``vxm`` and
whole-array updates).  Unweighted (``weight=False``, boolean values, or one device's weights
all exactly 1) the step is over ``plus_first``: the out-weights are the out-degrees and no
value is read, the same sums:

``x <- alpha * (x @ P + (sum of x over dangling vertices) * dangling) + (1 - alpha) * p``

exactly as ``networkx.pagerank`` (its scipy implementation): ``A[i, j]`` is the weight of
the edge ``i -> j``; vertices whose out-weight is zero (no out-edge, or only zero-weight
ones) are dangling and hand their rank to ``dangling`` (default: the personalization
vector, which defaults to uniform); the iteration stops when the L1 change is below
``n * tol`` and fails after ``max_iter`` iterations.  Where no edge enters a dangling vertex
and ``dangling`` is the personalization, the step is the same system's normalised one,
which settles those vertices' rank at once (:func:`_step_terms`).  An undirected graph's
default ranks may start from its degrees instead of the uniform vector, where that converges
faster (:func:`_undirected_start`; the same rule).
"""

from __future__ import annotations

import math

import numpy as np

from ..core.validation import check_integer, check_number
from ..semiring import (
    Semiring,
    Vector,
    monoids,
    ops,
    plus_times,
    pointer_matrix,
    pull_affine,
    reduce,
    vxm,
)
from ._shared import by_masks, is_undirected, prepare
from .components import connected_components

__all__ = ["PowerIterationFailedConvergence", "pagerank"]


class PowerIterationFailedConvergence(RuntimeError):
    """The power iteration did not converge within ``max_iter`` iterations (as
    ``networkx.PowerIterationFailedConvergence``).

    Attributes
    ----------
    num_iterations : int
        The iteration limit that was reached.

    Examples
    --------
    >>> err = PowerIterationFailedConvergence(5)
    >>> err.num_iterations, str(err)
    (5, 'power iteration failed to converge within 5 iterations')
    """

    def __init__(self, num_iterations):
        self.num_iterations = int(num_iterations)
        super().__init__(f"power iteration failed to converge within {num_iterations} "
                         "iterations")


#: ``y[j] = sum_i x[i]`` over the stored entries ``A[i, j]``: the unweighted product.
_PLUS_FIRST = Semiring(monoids.plus, ops.first)
#: An undirected graph's iteration starts from the degree start (:func:`_undirected_start`)
#: where its first step changes the ranks by less than this share of the uniform start's.
DEGREE_START_SHARE = 0.05
#: Starts kept with a pattern (two vectors of n each), one per alpha.
KEPT_STARTS = 4

def pagerank(A, alpha=0.85, personalization=None, max_iter=100, tol=1e-6, weight=True,
             dangling=None, nstart=None):
    """PageRank of every vertex, as ``networkx.pagerank``.

    Parameters
    ----------
    A : scipy.sparse / cupyx.scipy.sparse matrix or array, 2-D array, or Matrix
        ``A[i, j]`` stored is an edge ``i -> j`` of weight ``A[i, j]`` (an explicit zero is
        an edge of weight zero); duplicates are one edge holding their sum.  In a dense
        array zero, NaN and inf are not edges.  Self-loops count as edges, as in NetworkX.
    alpha : float
        Damping factor in ``[0, 1]``.
    personalization : 1-D array of n floats, optional
        Restart distribution (non-negative, not all zero; normalised to sum 1).  Default
        uniform.
    max_iter : int
        Most power iterations; more raise :class:`PowerIterationFailedConvergence`.
    tol : float
        The iteration stops when the L1 change of the ranks is below ``n * tol``.
    weight : bool
        True: the stored values are the weights.  False (or None, as NetworkX's
        ``weight=None``): every stored edge has weight 1 (duplicates count once).
    dangling : 1-D array of n floats, optional
        Where the rank of dangling vertices (zero out-weight) goes (non-negative, not all
        zero; normalised to sum 1).  Default: ``personalization`` (uniform without one).
    nstart : 1-D array of n floats, optional
        Starting ranks (non-negative, not all zero; normalised to sum 1).  Default uniform;
        on an undirected graph (unweighted, or weighted and known symmetric) with the
        default ``personalization`` and ``dangling``, the degree (strength) start where the
        first call finds it converging faster (kept with the graph; see the guide's
        PageRank section).
    Returns
    -------
    ndarray of float64
        The ranks (summing to 1); numpy for CPU input, cupy for GPU input.

    Raises
    ------
    ValueError
        ``A`` not square, or with negative, NaN or infinite weights; ``alpha`` outside
        ``[0, 1]``; ``max_iter`` or ``tol`` negative; ``personalization`` / ``dangling`` /
        ``nstart`` of the wrong shape, negative, not finite or summing to zero.
    TypeError
        An argument of the wrong type.
    PowerIterationFailedConvergence
        No convergence within ``max_iter`` iterations (a ``RuntimeError``).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs.algorithms.pagerank import pagerank
    >>> A = sp.csr_array(np.array([[0, 1.0, 1.0], [0, 0, 1.0], [1.0, 0, 0]]))
    >>> pagerank(A).round(4)
    array([0.3878, 0.2148, 0.3974])
    >>> pagerank(A, personalization=np.array([1.0, 0, 0])).round(4)
    array([0.4522, 0.1922, 0.3556])
    """
    alpha = check_number(alpha, "alpha")
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"alpha must lie in [0, 1], got {alpha!r}")
    tol = check_number(tol, "tol")
    if not tol >= 0:
        raise ValueError(f"tol must be non-negative, got {tol!r}")
    max_iter = check_integer(max_iter, "max_iter", 0)
    if weight is None:
        weight = False
    if not isinstance(weight, (bool, np.bool_)):
        raise TypeError(f"weight must be True or False, got {weight!r}")

    M = prepare(A).canonical()  # square, duplicates summed
    xp, n = M.xp, M.n
    if M.dtype.kind not in "biuf":
        raise TypeError(f"A must have numeric weights, got {M.dtype}")
    if M.dtype == np.bool_ and bool(M.data.all()):
        weight = False  # every stored edge weighs 1 either way (a stored False weighs 0)
    if weight:
        # float64 weights are used as they are, so the transpose cached on M keeps its values
        M = M.astype(np.float64)
        if _all_ones(M):  # the unweighted product gives the same sums, reading no values
            weight = False
    p = _distribution(personalization, n, "personalization", xp)
    d = p if dangling is None else _distribution(dangling, n, "dangling", xp)
    start = None if nstart is None else _distribution(nstart, n, "nstart", xp)
    if n == 0:
        return xp.zeros(0, np.float64)

    if weight:
        out_weight = reduce(M, monoids.plus, axis=1).to_dense(0.0)
        _check_weights(M, out_weight)
        semiring = plus_times
        inv, dangling_count = _inverse(out_weight, xp)
        receiving = None  # asked below only where it decides the step
    else:  # every stored edge weighs 1: the out-weights are the out-degrees, so the
        # inverses depend on the pattern alone and are kept with it for the next call
        def build():
            inv, count = _inverse(M.out_degree.astype(np.float64), xp)
            return inv, count, _dangling_receive(M, inv, xp)

        inv, dangling_count, receiving = _keeper(M).derived("pagerank inverse out-degrees",
                                                            build)
        semiring = _PLUS_FIRST  # sums of the vector's entries: no edge values read
    # the default restart and dangling distributions are one uniform vector: their part of
    # the update is then one number added to every rank
    uniform = personalization is None and dangling is None
    # dangling vertices that no edge reaches, whose rank goes where the restart goes: the
    # ranks are then the linear system's y = alpha * y @ P + (1 - alpha) * p normalised,
    # and its iteration is run on them (see _step_terms)
    rescaled = dangling is None and alpha < 1.0 and dangling_count > 0 and not (
        _dangling_receive(M, inv, xp) if receiving is None else receiving)

    def advance(state, out=None):
        """One step from ``state`` (``(x, x * inv, rank on dangling vertices, sum of the
        system's iterate whose normalised form x is)``): one pull_affine, x @ P scaled plus
        the restart (and dangling) ranks, with the L1 change and the new dangling rank in
        the same pass; the next state and the change."""
        x, scaled, lost, total = state
        gain, weight_of_p, weight_of_d, total = _step_terms(alpha, lost, total, rescaled)
        if uniform:
            constant = (weight_of_p + weight_of_d) / n
        elif weight_of_d:
            constant = xp.add(xp.multiply(d, weight_of_d), xp.multiply(p, weight_of_p))
        else:
            constant = xp.multiply(p, weight_of_p)
        step = pull_affine(x, M, semiring, scale=inv, alpha=alpha * gain, constant=constant,
                           scaled=scaled, out=out)
        return (step.y, step.scaled, step.zero_scale_total, total), step.change

    done, change, kept = 0, math.inf, None
    # weighted: where the values are known symmetric (not checked here, as a pattern is)
    # on one device, so a distributed graph's ranks are its single-device twin's
    if start is None and uniform and 0.0 < alpha < 1.0 and (
            M.symmetric and not by_masks(M) if weight else is_undirected(M)):
        done, state, change, shared = _undirected_start(M, alpha, inv, advance,
                                                        out_weight if weight else None)
        kept = state if shared else None  # kept with the pattern: never written
    elif start is None:  # uniform: the dangling rank is their count over n
        state = (xp.full(n, 1.0 / n), xp.multiply(inv, 1.0 / n), dangling_count / n, 1.0)
    else:
        state = (start, xp.multiply(start, inv), float(xp.where(inv == 0, start, 0.0).sum()),
                 1.0)
    # each step writes into two pairs of work vectors, taken in turn
    spare = (xp.empty(n), xp.empty(n))
    for _ in range(done, max_iter):
        if change < n * tol:
            return state[0]
        previous = state
        state, change = advance(state, spare)
        spare = (xp.empty(n), xp.empty(n)) if previous is kept else previous[:2]
    if done <= max_iter and change < n * tol:
        return state[0]
    raise PowerIterationFailedConvergence(max_iter)


def _keeper(M):
    """What keeps values derived from ``M``'s pattern: the pattern, or the distributed
    matrix (whose graph keeps them)."""
    return getattr(M, "pattern", None) or M


def _undirected_start(M, alpha, inv, advance, strength=None):
    """``(steps taken, state, last change, whether the state is kept with the pattern)``
    to start the iteration of an undirected graph's default ranks from (``strength``:
    each vertex's total weight, None where unweighted).

    Both starts give each component the share of the rank it ends with (a step keeps
    it) and each isolated vertex its final rank.  The uniform start gives every other
    vertex the same rank.  The degree start gives it ``(1 - alpha) + alpha * d[v] *
    size / volume`` (over n) of its component, ``d`` the degrees (the strengths when
    weighted): the restart's share plus the rank a walk without restart settles at,
    which a power-law graph's ranks lie close to (GAP's Kronecker graphs: 6 steps against
    8).  On a graph that mixes slowly (a grid, a ring of few shortcuts) that guess lies
    far from its ranks along the slow directions and takes more steps than the uniform
    one.  So the first call on a pattern takes a step from each and keeps the degree
    start, for this ``alpha``, where its step changed the ranks by less than
    :data:`DEGREE_START_SHARE` of the uniform start's (a graph whose walks mix fast), and
    continues from the step it keeps; later calls start from the choice, an unweighted
    graph from the start itself, a weighted one from the start its weights then give."""
    xp, n = M.xp, M.n
    keeper = _keeper(M)
    starts = keeper.derived("pagerank undirected starts", dict)
    key = (alpha, strength is None)
    kept = starts.get(key)  # unweighted: the start itself; weighted: the choice (a bool)
    if kept is not None and strength is None:
        return 0, kept, math.inf, True
    isolated = inv == 0  # an undirected graph's dangling vertices have no edge (of weight)
    restart = (1.0 - alpha) / n

    def state(y):
        total = float(y.sum())
        x = xp.multiply(y, 1.0 / total)
        return x, xp.multiply(x, inv), float(xp.where(isolated, x, 0.0).sum()), total

    uniform = state(xp.where(isolated, restart, 1.0 / n))
    if kept is False:
        return 0, uniform, math.inf, False
    degree = state(xp.where(isolated, restart, (1.0 - alpha + alpha * _walk_limits(
        M, keeper, M.out_degree.astype(np.float64) if strength is None else strength)) / n))
    if kept:
        return 0, degree, math.inf, False
    after_uniform, change_uniform = advance(uniform)
    after_degree, change_degree = advance(degree)
    for other in list(starts)[:max(0, len(starts) + 1 - KEPT_STARTS)]:  # room for this one
        starts.pop(other, None)
    chosen = change_degree < DEGREE_START_SHARE * change_uniform
    starts[key] = (degree if chosen else uniform) if strength is None else chosen
    return (1, after_degree, change_degree, False) if chosen else (
        1, after_uniform, change_uniform, False)


def _walk_limits(M, keeper, degree):
    """``degree[v] * size / volume`` of ``v``'s component (0 where ``degree[v]`` is 0),
    ``degree`` the degrees or strengths of the symmetric ``M``, ``volume`` their total over
    the component: where a random walk on the component settles, its total the
    component's size.  The components are kept with the pattern (``keeper``)."""
    xp, n = M.xp, M.n
    labels, through, size = keeper.derived("pagerank components",
                                           lambda: _components(M, xp, n))
    volume = vxm(Vector(n, "bitmap", present=xp.ones(n, bool), values=degree), through,
                 _PLUS_FIRST).to_dense(0.0)
    share = xp.where(volume > 0, size / xp.where(volume > 0, volume, 1.0), 0.0)
    return degree * share[labels]


def _components(M, xp, n):
    """``(labels, pointer matrix sending each vertex to its label, each label's size)``
    of the weak components of the symmetric ``M``."""
    _, labels = connected_components(M, directed=False)
    through = pointer_matrix(labels)
    size = vxm(Vector(n, "bitmap", present=xp.ones(n, bool), values=xp.ones(n)), through,
               _PLUS_FIRST).to_dense(0.0)
    return labels, through, size


def _step_terms(alpha, lost, total, rescaled):
    """One step's ``(gain, weight of p, weight of d, next total)``: the next ranks are
    ``alpha * gain * x @ P + weight_of_p * p + weight_of_d * d``, for ranks ``x`` with
    ``lost`` of them on dangling vertices.

    NetworkX's step hands the lost rank to ``d`` (gain 1).  When ``d`` is ``p`` the ranks
    are also the normalised solution of ``y = alpha * y @ P + (1 - alpha) * p``, whose
    iteration loses the dangling rank instead of handing it on; ``x`` is ``y / total``, and
    the step maps it to the next ``y`` normalised (its sum ``alpha * total * (1 - lost) +
    1 - alpha`` is known before the step).  Where no edge enters a dangling vertex (the
    isolated vertices of a symmetric graph) it reaches NetworkX's fixed point in fewer
    steps: in NetworkX's step the rank those vertices hand on comes back to them a step
    later, a loop that decays by ``alpha`` times their share of the rank a step (GAP's
    Kronecker graphs: 8 steps against 9, 10 and 11 at scales 18, 20 and 22).  Where edges
    enter dangling vertices it loses their rank and takes more steps than NetworkX's, so
    NetworkX's step is taken there.  Without dangling rank the two steps are one.

    >>> _step_terms(0.5, 0.5, 1.0, False)
    (1.0, 0.5, 0.25, 1.0)
    >>> _step_terms(0.5, 0.5, 1.0, True)  # y's sum goes from 1 to 0.75
    (1.3333333333333333, 0.6666666666666666, 0.0, 0.75)
    """
    if not rescaled:
        return 1.0, 1.0 - alpha, alpha * lost, total
    following = alpha * total * (1.0 - lost) + (1.0 - alpha)
    return total / following, (1.0 - alpha) / following, 0.0, following


def _inverse(out_weight, xp):
    """``1 / out_weight`` with 0 where it is 0 (the dangling vertices), and how many those
    are; kept with the pattern when unweighted, so never written after."""
    is_dangling = out_weight == 0
    inv = xp.where(is_dangling, 0.0, 1.0 / xp.where(is_dangling, 1.0, out_weight))
    return inv, int(is_dangling.sum())


def _dangling_receive(M, inv, xp):
    """Whether an edge enters some dangling vertex (``inv`` 0)."""
    return bool(xp.where(inv == 0, M.in_degree, 0).sum() > 0)


def _all_ones(M):
    """Whether every stored weight of ``M`` is exactly 1 (one device's: a few first, then
    all; a distributed graph's: its smallest and largest, once per graph): then each
    out-weight is the out-degree and each product term the rank itself, bit for bit."""
    if not M.nnz:
        return False
    if by_masks(M):
        return M.derived("pagerank unit weights", lambda: float(
            reduce(M, monoids.min)) == float(reduce(M, monoids.max)) == 1.0)
    data = M.data
    if not bool((data[:64] == 1.0).all()):
        return False
    return bool((data == 1.0).all())


def _check_weights(M, out_weight):
    """ValueError unless every weight of ``M`` is finite and non-negative (``out_weight``:
    its row sums, whose total is the sum of every weight)."""
    if not M.nnz:
        return
    if float(reduce(M, monoids.min)) < 0:
        raise ValueError("A has negative weights; pagerank needs non-negative weights")
    if not math.isfinite(float(out_weight.sum())):  # NaN or inf somewhere
        raise ValueError("A has NaN or infinite weights; pagerank needs finite weights")


def _distribution(v, n, name, xp):
    """A checked non-negative vector of ``n`` floats normalised to sum 1 (uniform if None)."""
    if v is None:
        return xp.full(n, 1.0 / n) if n else xp.zeros(0, np.float64)
    if isinstance(v, dict):
        raise TypeError(f"{name} must be a 1-D array of {n} values (vertex i at position i), "
                        "not a dict")
    arr = xp.asarray(v)
    if arr.ndim != 1 or arr.shape[0] != n:
        raise ValueError(f"{name} must be a 1-D array of {n} values, got shape {arr.shape}")
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold numbers, got dtype {arr.dtype}")
    arr = arr.astype(np.float64)
    if not bool(xp.isfinite(arr).all()):
        raise ValueError(f"{name} must be finite")
    if n and float(arr.min()) < 0:
        raise ValueError(f"{name} must be non-negative")
    total = float(arr.sum())
    if n and total == 0:
        raise ValueError(f"{name} must not be all zero")
    return arr / total if n else arr
