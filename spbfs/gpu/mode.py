"""The GPU backend's ``row_mode`` (:func:`spbfs.semiring.row_mode`): a warp per row of up
to ``HEAVY_ROW`` entries, a block and a hash table per longer row (``mode_kernels.cu``),
counting or totalling weights, less a cost per value or not, where the generic path sorts
every entry's ``(row, value)`` pair."""

from __future__ import annotations

import numpy as np

from . import kernels

__all__ = ["HEAVY_ROW", "mode_sweeps", "modularity_sweep", "row_mode"]

#: Rows longer than this are counted by a block in a hash table; shorter ones by a warp
#: comparing each entry's value with every other (32 per shuffle round).
HEAVY_ROW = 256

_THREADS = 256
#: ``mode_heavy``'s block (the kernels' ``HEAVY_THREADS``).
_HEAVY_THREADS = 1024


def row_mode(indptr, indices, data, x, own, mask, cost, scale, value, score, own_total):
    """:func:`spbfs.semiring.row_mode` on cupy CSR arrays (``data``: the weights or None;
    ``x``, ``own``: int64; ``mask``: bool or None; ``cost``, ``scale``: float64 or None),
    into ``value`` / ``score`` / ``own_total``; returns True (done), or False where a value
    of ``x`` falls outside ``cost`` (the generic path then tells whether one read does).

    Examples
    --------
    >>> import cupy                                                          # doctest: +SKIP
    >>> value, count = cupy.full(2, -1), cupy.zeros(2, cupy.int64)           # doctest: +SKIP
    >>> row_mode(cupy.array([0, 3, 3]), cupy.array([0, 1, 2]), None, cupy.array([4, 6, 4]),
    ...          None, None, None, None, value, count, None)                 # doctest: +SKIP
    True
    >>> value.tolist(), count.tolist()                                       # doctest: +SKIP
    ([4, -1], [2, 0])
    """
    import cupy

    if cost is not None and bool(((x < 0) | (x >= cost.size)).any()):
        return False
    nrows = int(indptr.size) - 1
    mod = kernels.mode_module(indices.dtype, indptr.dtype, score.dtype, data is not None,
                              cost is not None)
    none = cupy.zeros(1, np.float64)
    args = (indptr, indices, none if data is None else data.astype(np.float64, copy=False), x,
            value[:1] if own is None else own, np.int32(own is not None),
            cupy.zeros(1, bool) if mask is None else mask, np.int32(mask is not None),
            none if cost is None else cost, none if scale is None else scale,
            np.int64(nrows), np.int64(HEAVY_ROW), value[:1])
    outs = (value, score, score[:1] if own_total is None else own_total)
    slots = 2 * int(indices.size)
    _count(mod, nrows, args, outs, cupy.empty(slots, np.int64), cupy.empty(slots, np.float64))
    return True


def _count(mod, nrows, args, outs, keys, totals):
    """``mode_rows`` (a warp a row) and ``mode_heavy`` (a block of ``_HEAVY_THREADS`` a long
    row) over ``nrows`` rows."""
    rows_per_block = _THREADS // 32
    mod.get_function("mode_rows")(((nrows + rows_per_block - 1) // rows_per_block,),
                                  (_THREADS,), args + outs)
    grid = kernels.blocks(nrows, cap=kernels.sm_count(), threads=_HEAVY_THREADS)
    mod.get_function("mode_heavy")((grid,), (_HEAVY_THREADS,), args + (keys, totals) + outs)


def mode_sweeps(indptr, indices, order, bounds, x, max_sweeps):
    """:func:`spbfs.semiring.mode_sweeps` on cupy CSR arrays (``x``: int64, updated in
    place; ``order``: the classes' rows one class after another, ``bounds``: where each
    starts, then ``order.size``): each class counted by ``row_mode``'s kernels over its row
    list, then ``sweep_take`` and ``sweep_mark``, with no host read inside a sweep (every
    class is launched; a class without marked rows costs its launches) and one between
    sweeps (whether a row of a class is marked).  Returns True when settled, False when
    ``max_sweeps`` ran out.

    Examples
    --------
    >>> import cupy                                                          # doctest: +SKIP
    >>> x = cupy.arange(3)   # a path 0 - 1 - 2, classes {1} then {0, 2}     # doctest: +SKIP
    >>> mode_sweeps(cupy.array([0, 1, 3, 4]), cupy.array([1, 0, 2, 1]),
    ...             cupy.array([1, 0, 2]), cupy.array([0, 1, 3]), x, 10)    # doctest: +SKIP
    True
    >>> x.tolist()                                                           # doctest: +SKIP
    [2, 2, 2]
    """
    import cupy

    n, size = int(x.size), int(order.size)
    order = order.astype(np.int64, copy=False)
    bounds = cupy.asnumpy(bounds).tolist()
    mod = kernels.mode_module(indices.dtype, indptr.dtype, np.int64, False, False, True)
    marked = cupy.ones(n, bool)
    in_class = cupy.zeros(n, bool)
    in_class[order] = True
    value, score, own_total = (cupy.empty(max(size, 1), np.int64) for _ in range(3))
    moved = cupy.empty(max(size, 1), bool)
    slots = 2 * int(indices.size)
    keys, totals = cupy.empty(slots, np.int64), cupy.empty(slots, np.float64)
    none = cupy.zeros(1, np.float64)
    take, mark = mod.get_function("sweep_take"), mod.get_function("sweep_mark")
    rows_per_block = _THREADS // 32
    for _ in range(max_sweeps):
        if not bool((marked & in_class).any()):
            return True
        for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
            rows = order[lo:hi]
            count = np.int64(hi - lo)
            if not count:
                continue
            args = (indptr, indices, none, x, x, np.int32(1), marked, np.int32(1), none, none,
                    count, np.int64(HEAVY_ROW), rows)
            outs = (value[lo:hi], score[lo:hi], own_total[lo:hi])
            _count(mod, hi - lo, args, outs, keys, totals)
            take((kernels.blocks(hi - lo, threads=_THREADS),), (_THREADS,),
                 (indptr, rows, count, marked, *outs, x, moved[lo:hi]))
            mark((((hi - lo) + rows_per_block - 1) // rows_per_block,), (_THREADS,),
                 (indptr, indices, rows, count, moved[lo:hi], marked))
    return not bool((marked & in_class).any())


def modularity_sweep(indptr, indices, data, order, bounds, comm, k, sigma, factor):
    """:func:`spbfs.semiring.modularity_sweep` on cupy CSR arrays (``comm``, ``sigma``
    changed in place): each class counted by ``row_mode``'s weighted, costed kernels over
    its row list, then ``louvain_take`` (the proposals and their claims),
    ``louvain_move`` and ``louvain_clear`` (``sigma``, the claims and the totals by
    atomics: the last bits of ``sigma`` and ``gain`` depend on the order the adds land
    in), five launches a class and one host read for the sweep.  Returns ``(moved,
    gain)``.

    Examples
    --------
    >>> import cupy                                                          # doctest: +SKIP
    >>> comm, k = cupy.arange(3), cupy.array([1.0, 2.0, 1.0])               # doctest: +SKIP
    >>> sigma = k.copy()                                                     # doctest: +SKIP
    >>> modularity_sweep(cupy.array([0, 1, 3, 4]), cupy.array([1, 0, 2, 1]), cupy.ones(4),
    ...                  cupy.array([1, 0, 2]), cupy.array([0, 1, 3]), comm, k, sigma,
    ...                  0.25)                                               # doctest: +SKIP
    (2, 4.0)
    """
    import cupy

    size, communities = int(order.size), int(sigma.size)
    order = order.astype(np.int64, copy=False)
    bounds = cupy.asnumpy(bounds).tolist()
    mod = kernels.mode_module(indices.dtype, indptr.dtype, np.float64, True, True, True)
    scale = float(factor) * k
    value, score, own_total, gains, margins = (cupy.empty(max(size, 1), t) for t in (
        np.int64, np.float64, np.float64, np.float64, np.float64))
    target, owns = cupy.empty(max(size, 1), np.int64), cupy.empty(max(size, 1), np.int64)
    claims = cupy.zeros(2 * communities, np.float64)
    firsts = cupy.full(2 * communities, np.iinfo(np.uint64).max, np.uint64)
    moved, gain = cupy.zeros(1, np.uint64), cupy.zeros(1, np.float64)
    slots = 2 * int(indices.size)
    keys, totals = cupy.empty(slots, np.int64), cupy.empty(slots, np.float64)
    take, move, clear = (mod.get_function(f"louvain_{step}") for step in ("take", "move",
                                                                           "clear"))
    unmasked = cupy.zeros(1, bool)
    span = np.int64(communities)
    for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
        if hi == lo:
            continue
        rows, count = order[lo:hi], np.int64(hi - lo)
        args = (indptr, indices, data, comm, comm, np.int32(1), unmasked, np.int32(0), sigma,
                scale, count, np.int64(HEAVY_ROW), rows)
        outs = (value[lo:hi], score[lo:hi], own_total[lo:hi])
        _count(mod, hi - lo, args, outs, keys, totals)
        grid = (kernels.blocks(hi - lo, threads=_THREADS),)
        proposals = (target[lo:hi], owns[lo:hi], gains[lo:hi], margins[lo:hi])
        take(grid, (_THREADS,), (indptr, rows, count, comm, k, scale, sigma, *outs,
                                 *proposals, claims, firsts, span))
        move(grid, (_THREADS,), (rows, count, *proposals, claims, firsts, span, k, scale, comm,
                                 sigma, moved, gain))
        clear(grid, (_THREADS,), (count, target[lo:hi], owns[lo:hi], claims, firsts, span))
    return int(moved.get()[0]), float(gain.get()[0])
