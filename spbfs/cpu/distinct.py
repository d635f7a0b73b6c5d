"""Equal values found by hashing their bit patterns: for each item of an array, the position
of the first item with the same bits, in one pass over an open-addressed table
(``O(n)``, where ``numpy.unique``'s inverse sorts).

The NetworkX backend hands a result of many repeated floats back as one Python object per
distinct value (:func:`spbfs.nx._structure.shared_floats`): making a float for every item
costs more than computing it when the heap is large.  Bits, not values, are compared:
``0.0`` and ``-0.0`` stay two objects, as NetworkX makes them.
"""

from __future__ import annotations

import numpy as np

from ._jit import kernel

__all__ = ["first_equal"]

#: Fibonacci hashing's multiplier (2**64 over the golden ratio, odd).
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
U = np.uint64


@kernel
def _first_equal(bits, shift, table, first):  # pragma: no cover - compiled
    # table: 2**(64 - shift) slots of (position + 1), 0 for a free one; linear probing
    mask = U(table.size - 1)
    for k in range(bits.size):
        b = U(bits[k])
        slot = (b * _GOLDEN) >> U(shift)
        while True:
            held = table[slot]
            if held == 0:
                table[slot] = k + 1
                first[k] = k
                break
            if bits[held - 1] == bits[k]:
                first[k] = held - 1
                break
            slot = (slot + U(1)) & mask
    return 0


def first_equal(values):
    """For each item of ``values`` (float64 or int64, 1-D), the position of the first item
    with the same bit pattern.

    Examples
    --------
    >>> import numpy as np
    >>> first_equal(np.array([0.5, 1.0, 0.5, -0.0, 0.0, 1.0])).tolist()
    [0, 1, 0, 3, 4, 1]
    """
    values = np.ascontiguousarray(values)
    bits = values.view(np.int64)
    first = np.empty(bits.size, np.int64)
    if not bits.size:
        return first
    log = max(int(2 * bits.size - 1).bit_length(), 3)  # at most half full
    table = np.zeros(1 << log, np.int64)
    _first_equal(bits, 64 - log, table, first)
    return first
