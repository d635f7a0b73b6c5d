"""Array forms of a distributed search's remote hooks (:class:`~spbfs.core.seam.LevelSearch`'s
``push_out``, ``claim_mapped`` and ``remote_parents``) for engines without kernels of their
own for them: numpy or cupy, whichever holds the arrays."""

from __future__ import annotations

import numpy as np

from .arrays import array_module

__all__ = ["entries_of_rows", "mapped_ids", "remote_parents", "set_bits"]


def entries_of_rows(indptr, rows):
    """Positions of the stored entries of ``rows`` (row after row) and each one's row.

    Examples
    --------
    >>> import numpy as np
    >>> pos, row = entries_of_rows(np.array([0, 2, 2, 5]), np.array([2, 0]))
    >>> pos.tolist(), row.tolist()
    ([2, 3, 4, 0, 1], [2, 2, 2, 0, 0])
    """
    xp = array_module(indptr, rows)
    starts = indptr[rows].astype(np.int64)
    counts = indptr[rows + 1].astype(np.int64) - starts
    first = xp.cumsum(counts) - counts
    total = int(counts.sum()) if counts.size else 0
    pos = xp.arange(total, dtype=np.int64) + xp.repeat(starts - first, counts)
    return pos, xp.repeat(rows, counts)


def set_bits(out, columns) -> None:
    """``out`` (uint32 words) holds exactly the bits ``columns``.

    Examples
    --------
    >>> import numpy as np
    >>> out = np.zeros(2, np.uint32)
    >>> set_bits(out, np.array([0, 33, 3]))
    >>> out.tolist()
    [9, 2]
    """
    xp = array_module(out)
    bits = xp.zeros(32 * out.size, bool)
    bits[columns] = True
    out[:] = xp.packbits(bits, bitorder="little").view(np.uint32)


def mapped_ids(words, ids):
    """The ids the set bits of ``words`` stand for: bit ``b`` of word ``w`` is
    ``ids[32 w + b]`` (-1: none, left out).

    Examples
    --------
    >>> import numpy as np
    >>> mapped_ids(np.array([5], np.uint32), np.arange(32) - 2).tolist()
    [0]
    """
    xp = array_module(words, ids)
    bits = xp.unpackbits(xp.ascontiguousarray(words).view(np.uint8), bitorder="little")
    v = ids[xp.flatnonzero(bits)]
    return v[v >= 0]


def remote_parents(indptr, indices, levels, parents, column_levels, column_ids) -> None:
    """``parents[v]`` for each row ``v`` with level ``l >= 1`` and parent -1:
    ``column_ids[c]`` of the first entry ``c`` of the row with ``column_levels[c] == l - 1``
    (uint8 levels compare modulo 256, -1 as 255).

    Examples
    --------
    >>> import numpy as np
    >>> levels, parents = np.array([2, 1]), np.array([-1, 7])
    >>> remote_parents(np.array([0, 2, 3]), np.array([1, 0, 0]), levels, parents,
    ...                np.array([3, 1], np.uint8), np.array([40, 41]))
    >>> parents.tolist()
    [41, 7]
    """
    xp = array_module(levels, indptr)
    rows = min(indptr.size - 1, levels.size)
    need = xp.flatnonzero((levels[:rows] >= 1) & (parents[:rows] == -1))
    if not need.size:
        return
    pos, row = entries_of_rows(indptr, need)
    col = indices[pos]
    want = levels[row].astype(np.int64) - 1
    have = column_levels[col].astype(np.int64)
    if np.dtype(column_levels.dtype).itemsize == 1:
        want &= 255
    hit = xp.flatnonzero(have == want)
    found, first = xp.unique(row[hit], return_index=True)
    parents[found] = column_ids[col[hit[first]]]
