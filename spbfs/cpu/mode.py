"""The CPU backend's ``row_mode`` (:func:`spbfs.semiring.row_mode`): one pass over each
row counting its values in a dense array over their range (or, for a very wide range,
sorting a copy of the row), where the generic path sorts every entry's ``(row, value)``
pair together."""

from __future__ import annotations

import numpy as np

from ._jit import kernel
from .products import _scratch

__all__ = ["row_mode"]


#: The widest range of values counted in a dense array (one slot per value); wider
#: ranges sort each row instead.
DENSE_RANGE = 1 << 24


@kernel
def _value_range(ip, ix, x, mask):
    """The smallest and largest value the rows ``mask`` keeps read (an empty ``mask``:
    every row), ``low > high`` where none, and the longest such row."""
    low, high, widest = x.dtype.type(0), x.dtype.type(-1), 0
    for r in range(ip.size - 1):
        if ip[r + 1] == ip[r] or (mask.size and not mask[r]):
            continue
        widest = max(widest, ip[r + 1] - ip[r])
        for p in range(ip[r], ip[r + 1]):
            v = x[ix[p]]
            if high < low:
                low, high = v, v
            low, high = min(low, v), max(high, v)
    return low, high, widest


@kernel
def _dense_counts(ip, ix, x, own, mask, low, seen, base, tally, value, count, own_count):
    """Row ``r`` counts value ``v`` in ``tally[v - low]``, reset where ``seen[v - low]``
    is not its stamp ``base + r`` (every entry of ``seen`` below ``base``: stale)."""
    span = seen.size
    for r in range(ip.size - 1):
        if ip[r + 1] == ip[r] or (mask.size and not mask[r]):
            continue
        stamp = base + r
        best, top = x[ix[ip[r]]], 0
        for p in range(ip[r], ip[r + 1]):
            v = x[ix[p]]
            slot = v - low
            if seen[slot] != stamp:
                seen[slot] = stamp
                tally[slot] = 0
            tally[slot] += 1
            c = tally[slot]
            if c > top or (c == top and v > best):
                best, top = v, c
        value[r] = best
        count[r] = top
        if own.size:
            slot = own[r] - low
            own_count[r] = tally[slot] if 0 <= slot < span and seen[slot] == stamp else 0


@kernel
def _sorted_counts(ip, ix, x, own, mask, widest, value, count, own_count):
    buf = np.empty(widest, x.dtype)
    for r in range(ip.size - 1):
        lo, hi = ip[r], ip[r + 1]
        if hi == lo or (mask.size and not mask[r]):
            continue
        d = hi - lo
        for k in range(d):
            buf[k] = x[ix[lo + k]]
        b = buf[:d]
        b.sort()
        best, top, mine, run = b[0], 0, 0, 0
        for k in range(d):
            run += 1
            if k == d - 1 or b[k + 1] != b[k]:
                if run >= top:  # ascending values: the largest of a tie comes last
                    best, top = b[k], run
                if own.size and b[k] == own[r]:
                    mine = run
                run = 0
        value[r] = best
        count[r] = top
        if own.size:
            own_count[r] = mine


_NONE_INT = np.empty(0, np.int64)
_NONE_BOOL = np.empty(0, bool)


def row_mode(indptr, indices, x, own, mask, value, count, own_count):
    """:func:`spbfs.semiring.row_mode` on CSR arrays (``x``, ``own``: int64; ``mask``:
    bool or None), into ``value`` / ``count`` / ``own_count``; returns True (done).

    Examples
    --------
    >>> import numpy as np
    >>> value, count = np.full(2, -1), np.zeros(2, np.int64)
    >>> row_mode(np.array([0, 3, 3]), np.array([0, 1, 2]), np.array([4, 6, 4]), None, None,
    ...          value, count, None)
    True
    >>> value.tolist(), count.tolist()
    ([4, -1], [2, 0])
    """
    own = _NONE_INT if own is None else own
    mask = _NONE_BOOL if mask is None else mask
    own_count = _NONE_INT if own_count is None else own_count
    low, high, widest = _value_range(indptr, indices, x, mask)
    if high < low:  # every row empty or masked out
        return True
    if int(high) - int(low) < DENSE_RANGE:
        span = int(high) - int(low) + 1
        (seen, tally, base), = _scratch(span, np.int64, 1, indptr.size - 1, False)
        _dense_counts(indptr, indices, x, own, mask, low, seen[:span], base, tally[:span],
                      value, count, own_count)
    else:
        _sorted_counts(indptr, indices, x, own, mask, widest, value, count, own_count)
    return True
