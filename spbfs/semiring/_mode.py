"""The most frequent (or heaviest) value over each row: ``row_mode``.

Per row ``i`` of a sparse ``A``, the values ``x[j]`` of its stored columns ``j`` form a
multiset; ``row_mode`` gives the value that occurs most often in it (the largest on a tie),
how often, and how often a given value ``own[i]`` occurs.  With ``weighted`` each entry adds
its value ``A[i, j]`` instead of 1, and a per-value ``cost`` scaled per row is taken off
each value's total before the best is chosen.  Label propagation takes a vertex's new label
from the counts; Louvain takes a vertex's best community from the weighted form
(``w(v, C) - gamma k_v Sigma_C / 2m``).  The generic path sorts the ``(row, value)`` pairs
of the entries and reads their runs; a backend with a ``row_mode`` primitive counts each
row in one pass (the CPU: one kernel; the GPU, for counts: a warp per row, a block and a
hash table per long row).
"""

from __future__ import annotations

import numpy as np

from ..core.arrays import array_module
from ..core.seam import optional_primitive
from ..core.validation import check_integer
from ._backend import backend_for
from ._extract import extract
from ._matrix import Matrix
from ._named import any_pair
from ._vector import Vector
from ._vxm import vxm

__all__ = ["mode_sweeps", "modularity_sweep", "row_mode"]


def row_mode(A, x, *, own=None, mask=None, null=-1, weighted=False, cost=None, scale=None):
    """The most frequent value of ``x`` over each row's stored columns (or the one of
    largest total weight, less a cost).

    Parameters
    ----------
    A : scipy/cupyx sparse matrix, 2-D array or Matrix
        ``m x n``; its pattern is read (duplicates count as often as stored), its values
        too with ``weighted``.
    x : 1-D integer array, length ``n``
        The value of each column (a label), above the dtype's smallest value.
    own : 1-D integer array, length ``m``, optional
        A value per row whose total is returned too (a vertex's own label).
    mask : 1-D bool array, length ``m``, optional
        Rows to compute; the others get ``null`` and totals of 0.
    null : int
        The value of a row without entries (or masked out).
    weighted : bool
        Each entry adds ``A[i, j]`` to its value's total (else 1).
    cost, scale : 1-D float arrays, optional
        Given together: value ``v``'s score in row ``i`` is its total less
        ``scale[i] * cost[v]`` (``cost`` has an entry for every value read; ``scale`` one
        per row).  Without them the score is the total.

    Returns
    -------
    value : array of int64, length ``m``
        The value of the highest score (the largest among those tied), ``null`` for empty
        rows.
    score : array
        ``value``'s score (0 for empty rows): int64 counts unless ``weighted`` or ``cost``,
        else float64.
    own_total : array, or None
        The total (no cost taken off) of ``own[i]`` in row ``i`` (None without ``own``).

    Raises
    ------
    ValueError, TypeError
        An argument of the wrong length, kind or device, ``cost`` without ``scale`` (or the
        reverse), or a value read outside ``cost``.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs import semiring
    >>> A = sp.csr_array(np.array([[1, 1, 1, 0], [0, 1, 0, 1], [0, 0, 0, 0]]))
    >>> x = np.array([7, 5, 7, 9])
    >>> value, count, own_count = semiring.row_mode(A, x, own=np.array([5, 5, 5]))
    >>> value.tolist(), count.tolist(), own_count.tolist()
    ([7, 9, -1], [2, 1, 0], [1, 1, 0])

    Weights, and a cost of 1.5 per unit of scale on value 2:

    >>> W = sp.csr_array(np.array([[2.0, 1.0, 1.0], [0.5, 3.0, 0.0]]))
    >>> value, score, _ = semiring.row_mode(W, np.array([1, 2, 2]), weighted=True,
    ...                                     cost=np.array([0.0, 0.0, 1.5]),
    ...                                     scale=np.array([1.0, 1.0]))
    >>> value.tolist(), score.tolist()
    ([1, 2], [2.0, 1.5])
    """
    M = Matrix.from_any(A, name="A")
    xp = M.xp
    x = _operand(x, M.ncols, "x", "iu", xp)
    own = None if own is None else _operand(own, M.nrows, "own", "iu", xp)
    mask = None if mask is None else _operand(mask, M.nrows, "mask", "b", xp)
    null = check_integer(null, "null")
    if (cost is None) != (scale is None):
        raise ValueError("cost and scale must be given together")
    if cost is not None:
        if getattr(cost, "ndim", None) != 1:
            raise ValueError("cost must be a 1-D array")
        cost = _operand(cost, cost.shape[0], "cost", "fiu", xp)
        scale = _operand(scale, M.nrows, "scale", "fiu", xp)
    counts = not weighted and cost is None
    value = xp.full(M.nrows, null, np.int64)
    score = xp.zeros(M.nrows, np.int64 if counts else np.float64)
    own_total = None if own is None else xp.zeros(M.nrows, score.dtype)
    if M.nnz:
        kernel = optional_primitive(backend_for(xp), "row_mode")
        data = M.data if weighted else None
        done = kernel is not None and kernel(M.indptr, M.indices, data, x, own, mask, cost,
                                             scale, value, score, own_total)
        if not done:
            _runs(M, x, own, mask, data, cost, scale, value, score, own_total)
    return value, score, own_total


def _operand(arr, size, name, kinds, xp):
    if array_module(arr) is not xp:
        raise TypeError(f"{name} must live on the same device as A")
    if arr.ndim != 1 or arr.shape[0] != size:
        raise ValueError(f"{name} must be a 1-D array of length {size}, got shape {arr.shape}")
    if arr.dtype.kind not in kinds:
        raise TypeError(f"{name} must be of kind {kinds!r}, got dtype {arr.dtype}")
    if kinds == "b":
        return arr
    return arr.astype(np.int64 if kinds == "iu" else np.float64, copy=False)


def _check_cost(low, high, cost):
    """ValueError unless the values read, ``low .. high``, all index ``cost``."""
    if low < 0 or high >= cost.shape[0]:
        raise ValueError("cost must have an entry for every value read: "
                         f"{low if low < 0 else high} is outside [0, {cost.shape[0]})")


def _runs(M, x, own, mask, data, cost, scale, value, score, own_total):
    """The generic path: the entries' ``(row, value)`` pairs sorted, their runs totalled,
    and per row the run of the largest ``(score, value)``."""
    xp = M.xp
    rows, vals = M.entry_rows.astype(np.int64), x[M.indices]
    weights = None if data is None else data.astype(np.float64)
    if mask is not None:
        keep = mask[rows]
        rows, vals = rows[keep], vals[keep]
        weights = None if weights is None else weights[keep]
    if not rows.size:
        return
    if cost is not None:
        _check_cost(int(vals.min()), int(vals.max()), cost)
    order = xp.lexsort(xp.stack([vals, rows]))
    rows, vals = rows[order], vals[order]
    starts = xp.concatenate([xp.ones(1, bool),
                             (rows[1:] != rows[:-1]) | (vals[1:] != vals[:-1])])
    run_of = xp.cumsum(starts) - 1
    run_rows, run_vals = rows[starts], vals[starts]
    totals = xp.bincount(run_of, weights=None if weights is None else weights[order],
                         minlength=int(run_rows.size)).astype(score.dtype, copy=False)
    if own_total is not None:
        mine = run_vals == own[run_rows]
        own_total[run_rows[mine]] = totals[mine]
    scores = totals if cost is None else totals - scale[run_rows] * cost[run_vals]
    best = xp.lexsort(xp.stack([run_vals, scores, run_rows]))  # the last run per row
    last = best[xp.flatnonzero(xp.concatenate([run_rows[best][1:] != run_rows[best][:-1],
                                               xp.ones(1, bool)]))]
    value[run_rows[last]] = run_vals[last]
    score[run_rows[last]] = scores[last]


def mode_sweeps(A, classes, x, *, max_sweeps=1000):
    """Semi-synchronous mode propagation: the values ``x`` moved one class of rows at a
    time, sweep after sweep, until a sweep moves none (label propagation's update).

    In each class (in the order given), every row ``i`` whose columns' values changed since
    it last chose (every row at first) takes the most frequent value of ``x`` over its
    stored columns, the largest among those tied, unless its own ``x[i]`` ties for the most
    frequent.  The rows of a class choose together from the values as they were before the
    class moved, which is choosing one by one when no row of a class is another's column
    (a colouring's classes; a row may be its own column).

    Parameters
    ----------
    A : scipy/cupyx sparse matrix, 2-D array or Matrix
        Square; its pattern is read (duplicates count as often as stored).
    classes : sequence of 1-D integer arrays, or of ``(rows, sub)`` pairs
        Each class's rows (each row in one class at most), in sweep order; rows in no
        class keep their values.  A pair adds ``A``'s rows ``rows`` (``extract(A, rows)``,
        kept by a caller across calls), which only a path that reads the classes' rows
        apart needs: it extracts those not given (the CPU and the GPU read ``A`` itself).
    x : 1-D integer array, length ``n``
        The starting values (not changed).
    max_sweeps : int
        Most sweeps over the classes.

    Returns
    -------
    values : array of int64
        The values after the last sweep.
    settled : bool
        Whether the values are final: no row of a class has had a column's value change
        since it last chose, so a further sweep would move none (False: ``max_sweeps``
        ran out first).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs import semiring
    >>> A = sp.csr_array(np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]]))   # a path 0 - 1 - 2
    >>> classes = [np.array([1]), np.array([0, 2])]
    >>> values, settled = semiring.mode_sweeps(A, classes, np.arange(3))
    >>> values.tolist(), settled
    ([2, 2, 2], True)
    """
    M = Matrix.from_any(A, name="A")
    xp, n = M.xp, M.nrows
    if M.ncols != n:
        raise ValueError(f"A must be square, got shape {M.shape}")
    x = _operand(x, n, "x", "iu", xp).copy()
    max_sweeps = check_integer(max_sweeps, "max_sweeps", minimum=0)
    rows, subs = _class_rows(classes, xp)
    kernel = optional_primitive(backend_for(xp), "mode_sweeps")
    if kernel is not None and M.nnz:
        settled = kernel(M.indptr, M.indices, *_class_order(rows, xp), x, max_sweeps)
        if settled is not None:
            return x, settled
    return _sweeps(M, rows, _class_subs(M, rows, subs), x, max_sweeps)


def _class_rows(classes, xp):
    """Each class's rows (checked) and its given ``sub`` (None where only rows came)."""
    rows, subs = [], []
    for c in classes:
        r, sub = c if isinstance(c, tuple) else (c, None)
        rows.append(_operand(r, int(r.shape[0]), "rows", "iu", xp))
        subs.append(sub)
    return rows, subs


def _class_subs(M, rows, subs):
    """The classes' rows of ``M`` for a generic path: those given, the others extracted."""
    return [extract(M, r.astype(M.indices.dtype)) if sub is None else sub
            for r, sub in zip(rows, subs, strict=True)]


def _class_order(rows, xp):
    """``(order, bounds)`` of a backend's class steps: the classes' rows one class after
    another, and where each class starts (then ``order.size``), int64."""
    order = xp.concatenate(rows) if rows else xp.zeros(0, np.int64)
    bounds = np.cumsum([0] + [int(r.shape[0]) for r in rows])
    return order, xp.asarray(bounds, np.int64)


def _sweeps(M, rows, subs, x, max_sweeps):
    """The generic path of :func:`mode_sweeps`: a ``row_mode`` per class, and the columns of
    the rows that moved found by a ``vxm``.  A row is marked when a column's value changes;
    ``todo`` (on the host) says which classes hold a marked row."""
    xp, n = M.xp, M.nrows
    class_of = xp.full(n, -1, np.int64)
    for c, r in enumerate(rows):
        class_of[r] = c
    marked = xp.ones(n, bool)
    todo = np.ones(len(rows), bool)
    for _ in range(max_sweeps):
        if not todo.any():
            return x, True
        for c in range(len(rows)):
            if not todo[c]:
                continue
            todo[c] = False
            r = rows[c]
            mine = x[r]
            largest, top, own = row_mode(subs[c], x, own=mine, mask=marked[r])
            change = own < top   # kept where it ties for the top
            marked[r] = False
            x[r] = xp.where(change, largest, mine)
            moved = r[change]   # its size: the one host read of a step that moves none
            if moved.size:
                told = vxm(Vector.sparse(moved, size=n, sort=False, check=False), M,
                           any_pair).to_sparse().indices
                marked[told] = True
                touched = class_of[told]
                todo[xp.unique(touched[touched >= 0]).tolist()] = True
    return x, not todo.any()


def modularity_sweep(A, classes, comm, k, sigma, factor):
    """One sweep of Louvain's local moves over colour classes, ``comm`` and ``sigma``
    changed in place: each row ``v`` of a class (in class order) scores every community
    ``C`` among its columns' by ``w(v, C) - factor k[v] sigma[C]`` (``w``: its entries'
    weights into ``C``; its own community scored with ``v`` still in it), and moves to the
    best (the largest id on a tie) where that beats staying, ``w(v, own) - factor k[v]
    (sigma[own] - k[v])``, by more than ``1e-12``.  A class's rows choose from the
    communities as they were before it moved (its rows should not be each other's
    columns).  Rows joining one community, or leaving one, together gain less than the sum
    of their gains (``factor k[u] k[v]`` less a pair), so a proposer moves only where it is
    the class's first proposer into its target and out of its own community, or where its
    margin over staying exceeds ``factor k[v]`` times the other proposers' ``k`` into its
    target plus out of its own: the class's moves together then raise the modularity, and
    its first proposer always moves.  ``sigma`` takes each mover's ``k`` off its old
    community and adds it to its new one.

    Parameters
    ----------
    A : scipy/cupyx sparse matrix, 2-D array or Matrix
        Square, symmetric non-negative weights without a diagonal.
    classes : sequence of 1-D integer arrays, or of ``(rows, sub)`` pairs
        As :func:`mode_sweeps`'s.
    comm : 1-D int64 array, length ``n``
        Each row's community (an id below ``sigma``'s length); changed in place.
    k : 1-D float64 array, length ``n``
        Each row's weighted degree (its diagonal counted twice, as Louvain's).
    sigma : 1-D float64 array
        Each community's total ``k``; changed in place.
    factor : float
        ``resolution / (total weight)``.

    Returns
    -------
    moved : int
        Rows that moved.
    gain : float
        Twice the weight the moves brought inside communities, less what they took out
        (the change of the weight inside communities).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from spbfs import semiring
    >>> A = sp.csr_array(np.array([[0, 1.0, 0], [1.0, 0, 1.0], [0, 1.0, 0]]))  # 0 - 1 - 2
    >>> classes = [np.array([1]), np.array([0, 2])]
    >>> comm, k = np.arange(3), np.array([1.0, 2.0, 1.0])
    >>> sigma = k.copy()
    >>> semiring.modularity_sweep(A, classes, comm, k, sigma, 1 / 4)
    (2, 4.0)
    >>> comm.tolist(), sigma.tolist()
    ([2, 2, 2], [0.0, 0.0, 4.0])
    """
    M = Matrix.from_any(A, name="A")
    xp, n = M.xp, M.nrows
    if M.ncols != n:
        raise ValueError(f"A must be square, got shape {M.shape}")
    for arr, name, kind, size in ((comm, "comm", "i", n), (k, "k", "f", n),
                                  (sigma, "sigma", "f", None)):
        if array_module(arr) is not xp:
            raise TypeError(f"{name} must live on the same device as A")
        if arr.ndim != 1 or (size is not None and arr.shape[0] != size):
            raise ValueError(f"{name} must be a 1-D array of length {size or 'any'}, got "
                             f"shape {arr.shape}")
        if arr.dtype != (np.int64 if kind == "i" else np.float64):
            raise TypeError(f"{name} must be {'int64' if kind == 'i' else 'float64'}, got "
                            f"{arr.dtype}")
    rows, subs = _class_rows(classes, xp)
    kernel = optional_primitive(backend_for(xp), "modularity_sweep")
    if kernel is not None and M.nnz:
        return kernel(M.indptr, M.indices, M.data.astype(np.float64, copy=False),
                      *_class_order(rows, xp), comm, k, sigma, float(factor))
    moved, gain = 0, 0.0
    for r, sub in zip(rows, _class_subs(M, rows, subs), strict=True):
        kv, own = k[r], comm[r]
        scale = factor * kv
        best_col, best, w_own = row_mode(sub, comm, own=own, weighted=True, cost=sigma,
                                         scale=scale)
        stay = w_own - scale * (sigma[own] - kv)  # v leaving its own
        go = xp.flatnonzero((best_col >= 0) & (best > stay + 1e-12) & (best_col != own))
        go = go[_claimed(best_col[go], own[go], kv[go], scale[go], (best - stay)[go],
                         sigma.size, xp)]
        if go.size:
            movers, to = r[go], best_col[go]
            gain += 2.0 * float((best[go] + scale[go] * sigma[to] - w_own[go]).sum())
            _scatter_add(sigma, comm[movers], -k[movers], xp)
            comm[movers] = to
            _scatter_add(sigma, to, k[movers], xp)
            moved += int(movers.size)
    return moved, gain


def _claimed(to, own, kv, scale, margin, size, xp):
    """Which of a class's proposers (in class order) move: the first into its target and
    out of its own community, or one whose ``margin`` covers ``scale`` times the other
    proposers' ``kv`` into its target and out of its own (:func:`modularity_sweep`)."""
    joining, leaving = xp.zeros(size), xp.zeros(size)
    _scatter_add(joining, to, kv, xp)
    _scatter_add(leaving, own, kv, xp)
    others = joining[to] + leaving[own] - 2 * kv   # rounded as the backends round it
    return (_first_of(to, xp) & _first_of(own, xp)) | (margin > scale * others)


def _first_of(keys, xp):
    """Whether each element is the first of its value in ``keys``."""
    first = xp.zeros(keys.size, bool)
    first[xp.unique(keys, return_index=True)[1]] = True
    return first


def _scatter_add(target, index, values, xp):
    target += xp.bincount(index, weights=values, minlength=target.size)[:target.size]
