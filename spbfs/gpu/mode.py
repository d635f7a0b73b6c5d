"""The GPU backend's ``row_mode`` (:func:`spbfs.semiring.row_mode`): a warp per row of up
to ``HEAVY_ROW`` entries, a block and a hash table per longer row (``mode_kernels.cu``),
where the generic path sorts every entry's ``(row, value)`` pair."""

from __future__ import annotations

import numpy as np

from . import kernels

__all__ = ["HEAVY_ROW", "row_mode"]

#: Rows longer than this are counted by a block in a hash table; shorter ones by a warp
#: comparing each entry's value with every other (32 per shuffle round).
HEAVY_ROW = 256

_THREADS = 256


def row_mode(indptr, indices, x, own, mask, value, count, own_count):
    """:func:`spbfs.semiring.row_mode` on cupy CSR arrays (``x``, ``own``: int64; ``mask``:
    bool or None), into ``value`` / ``count`` / ``own_count``; returns True (done).

    Examples
    --------
    >>> import cupy                                                          # doctest: +SKIP
    >>> value, count = cupy.full(2, -1), cupy.zeros(2, cupy.int64)           # doctest: +SKIP
    >>> row_mode(cupy.array([0, 3, 3]), cupy.array([0, 1, 2]), cupy.array([4, 6, 4]), None,
    ...          None, value, count, None)                                   # doctest: +SKIP
    True
    >>> value.tolist(), count.tolist()                                       # doctest: +SKIP
    ([4, -1], [2, 0])
    """
    import cupy

    nrows = int(indptr.size) - 1
    mod = kernels.mode_module(indices.dtype, indptr.dtype)
    dummy = value[:1]
    args = (indptr, indices, x, dummy if own is None else own, np.int32(own is not None),
            cupy.zeros(1, bool) if mask is None else mask, np.int32(mask is not None),
            np.int64(nrows), np.int64(HEAVY_ROW))
    outs = (value, count, dummy if own_count is None else own_count)
    rows_per_block = _THREADS // 32
    mod.get_function("mode_rows")(((nrows + rows_per_block - 1) // rows_per_block,),
                                  (_THREADS,), args + outs)
    slots = 2 * int(indices.size)
    keys, counts = cupy.empty(slots, np.int64), cupy.empty(slots, np.int32)
    grid = kernels.blocks(nrows, cap=4 * kernels.sm_count(), threads=_THREADS)
    mod.get_function("mode_heavy")((grid,), (_THREADS,), args + (keys, counts) + outs)
    return True
