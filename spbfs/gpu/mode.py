"""The GPU backend's ``row_mode`` (:func:`spbfs.semiring.row_mode`): a warp per row of up
to ``HEAVY_ROW`` entries, a block and a hash table per longer row (``mode_kernels.cu``),
counting or totalling weights, less a cost per value or not, where the generic path sorts
every entry's ``(row, value)`` pair."""

from __future__ import annotations

import numpy as np

from . import kernels

__all__ = ["HEAVY_ROW", "row_mode"]

#: Rows longer than this are counted by a block in a hash table; shorter ones by a warp
#: comparing each entry's value with every other (32 per shuffle round).
HEAVY_ROW = 256

_THREADS = 256


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
            np.int64(nrows), np.int64(HEAVY_ROW))
    outs = (value, score, score[:1] if own_total is None else own_total)
    rows_per_block = _THREADS // 32
    mod.get_function("mode_rows")(((nrows + rows_per_block - 1) // rows_per_block,),
                                  (_THREADS,), args + outs)
    slots = 2 * int(indices.size)
    keys, totals = cupy.empty(slots, np.int64), cupy.empty(slots, np.float64)
    grid = kernels.blocks(nrows, cap=4 * kernels.sm_count(), threads=_THREADS)
    mod.get_function("mode_heavy")((grid,), (_THREADS,), args + (keys, totals) + outs)
    return True
