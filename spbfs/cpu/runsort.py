"""Stable in-place sorts of a run of integer keys with values moved alongside
(``sort_run``): by insertion for short runs, else a least-significant-digit radix sort
(no comparison sort, whose numba implementation is slow to compile).  The rows of a
renumbered CSR (:mod:`spbfs.cpu.permute`) and Cuthill-McKee's groups by degree
(:mod:`spbfs.cpu.ordering`) are sorted by it.
"""

from __future__ import annotations

from ._jit import kernel

__all__ = ["INSERTION", "MIN_RADIX_BITS", "RADIX_BITS", "sort_run"]

#: Runs up to this long are sorted by insertion; longer ones by digits.
INSERTION = 16
#: Bits of a digit of the radix sort at most (its counters: ``counts``' length less one).
RADIX_BITS = 11
#: Bits of a digit at least: a shorter run takes digits of about its length's bits, so that
#: clearing and summing the counters does not outweigh placing its keys.
MIN_RADIX_BITS = 4


@kernel(inline="always")
def _insertion_sort(keys, values, lo, hi):  # pragma: no cover - compiled
    """``keys[lo:hi]`` sorted in place by insertion (short runs), ``values[lo:hi]`` moved
    with them unless ``values`` is empty."""
    paired = values.size > 0
    for a in range(lo + 1, hi):
        key = keys[a]
        b = a
        while b > lo and keys[b - 1] > key:
            b -= 1
        for c in range(a, b, -1):
            keys[c] = keys[c - 1]
        keys[b] = key
        if paired:
            value = values[a]
            for c in range(a, b, -1):
                values[c] = values[c - 1]
            values[b] = value


@kernel(inline="always")
def _radix_sort(keys, values, lo, hi, bound, spare, spare_values, counts):  # pragma: no cover
    """``keys[lo:hi]`` (non-negative, below ``bound``) sorted in place and stably, least
    significant digit first (of about the run's length's bits, from :data:`MIN_RADIX_BITS`
    to :data:`RADIX_BITS`), ``values[lo:hi]`` moved with them unless
    ``values`` is empty, through ``spare`` and ``spare_values`` (at least ``hi - lo`` long)
    and ``counts`` (``2**RADIX_BITS + 1``): a pass per digit of ``bound - 1``, no comparison
    sort (whose numba implementation took two of the five seconds a fresh kernel cache
    spent compiling the triangle count's first call)."""
    m = hi - lo
    paired = values.size > 0
    bits = RADIX_BITS  # a digit's counters about as many as the keys: fewer to clear
    while bits > MIN_RADIX_BITS and (1 << (bits - 1)) >= m:
        bits -= 1
    digits = 1 << bits
    mask = digits - 1
    shift = 0
    in_keys = True
    while shift == 0 or (bound - 1) >> shift > 0:
        for d in range(digits + 1):
            counts[d] = 0
        for a in range(m):
            v = keys[lo + a] if in_keys else spare[a]
            counts[((v >> shift) & mask) + 1] += 1
        for d in range(digits):
            counts[d + 1] += counts[d]
        for a in range(m):
            v = keys[lo + a] if in_keys else spare[a]
            d = (v >> shift) & mask
            at = counts[d]
            counts[d] = at + 1
            if in_keys:
                spare[at] = v
                if paired:
                    spare_values[at] = values[lo + a]
            else:
                keys[lo + at] = v
                if paired:
                    values[lo + at] = spare_values[a]
        in_keys = not in_keys
        shift += bits
    if not in_keys:
        for a in range(m):
            keys[lo + a] = spare[a]
            if paired:
                values[lo + a] = spare_values[a]


@kernel(inline="always")
def sort_run(keys, values, lo, hi, bound, spare, spare_values, counts):  # pragma: no cover
    """The run ``keys[lo:hi]`` (non-negative, below ``bound``) sorted in place and stably
    with its ``values`` (unless empty): by insertion up to :data:`INSERTION` of them, else
    by digits through ``spare``, ``spare_values`` (at least ``hi - lo`` long) and ``counts``
    (``2**RADIX_BITS + 1``).

    Examples
    --------
    >>> import numpy as np
    >>> keys, values = np.array([3, 1, 2, 1]), np.array([10, 11, 12, 13])
    >>> sort_run(keys, values, 0, 4, 4, np.empty(4, np.int64), np.empty(4, np.int64),
    ...          np.empty((1 << RADIX_BITS) + 1, np.int64))
    >>> keys.tolist(), values.tolist()
    ([1, 1, 2, 3], [11, 13, 12, 10])
    """
    if hi - lo <= INSERTION:
        _insertion_sort(keys, values, lo, hi)
    else:
        _radix_sort(keys, values, lo, hi, bound, spare, spare_values, counts)
