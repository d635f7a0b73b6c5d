"""CSR helpers on numpy or cupy arrays, shared by the operations and the backends: the
edge positions of a set of rows, cache-sized row chunks, and the entries a flag array keeps."""

from __future__ import annotations

import numpy as np

from .arrays import array_module, to_numpy

__all__ = ["count_before", "csr_keep", "expand", "popcount", "row_chunks", "swar_popcount"]


def expand(indptr, rows, counts=None, starts=None):
    """Edge positions of ``rows`` of a CSR and, per edge, the index into ``rows``.

    ``starts``/``counts`` restrict each row to ``counts`` edges from position
    ``starts`` (defaults: the whole row).  Returns ``(pos, owner)`` with
    ``pos`` int64 positions into ``indices``/``data`` and ``owner`` the index
    (into ``rows``) each edge came from; both ordered row by row.

    Examples
    --------
    >>> import numpy as np
    >>> pos, owner = expand(np.array([0, 2, 2, 5]), np.array([2, 0]))
    >>> pos.tolist(), owner.tolist()
    ([2, 3, 4, 0, 1], [0, 0, 0, 1, 1])
    """
    xp = array_module(indptr)
    if starts is None:
        starts = indptr[rows]
    if counts is None:
        counts = indptr[rows + 1] - starts
    counts = counts.astype(np.int64, copy=False)
    total = int(counts.sum())
    ends = xp.cumsum(counts)
    seg = ends - counts
    if xp is np:
        pos = np.repeat(starts.astype(np.int64) - seg, counts)
        owner = np.repeat(np.arange(rows.size, dtype=np.int64), counts)
    else:  # cupy.repeat takes no array of counts: find each edge's row by binary search
        owner = xp.searchsorted(ends, xp.arange(total, dtype=np.int64), side="right")
        pos = (starts.astype(np.int64) - seg)[owner]
    pos += xp.arange(total, dtype=np.int64)
    return pos, owner


def row_chunks(indptr, rows, size):
    """Slices of ``rows`` (of a CSR, numpy or cupy) that hold about ``size`` stored
    entries each, in order (a row of more than ``size`` entries fills a chunk alone).

    Examples
    --------
    >>> import numpy as np
    >>> row_chunks(np.array([0, 3, 4, 9, 10]), np.array([0, 1, 2, 3]), 4)
    [slice(0, 2, None), slice(2, 3, None), slice(3, 4, None)]
    """
    xp = array_module(indptr)
    ends = xp.cumsum(indptr[rows + 1] - indptr[rows])
    total = int(ends[-1]) if ends.size else 0
    cuts = to_numpy(xp.searchsorted(ends, xp.arange(size, total, size), side="left")) + 1
    bounds = [0] + np.unique(cuts[cuts < rows.size]).tolist() + [int(rows.size)]
    return [slice(a, b) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]


def csr_keep(indptr, indices, keep):
    """Row pointers and column indices of the CSR entries that ``keep`` (bool per entry)
    selects, in their order (numpy or cupy).

    Examples
    --------
    >>> import numpy as np
    >>> indptr, indices = csr_keep(np.array([0, 2, 3]), np.array([0, 2, 1]),
    ...                            np.array([False, True, True]))
    >>> indptr.tolist(), indices.tolist()
    ([0, 1, 2], [2, 1])
    """
    xp = array_module(indptr)
    if xp is np:
        return count_before(keep, indptr), indices[keep]
    kept = xp.flatnonzero(keep)
    return xp.searchsorted(kept, indptr.astype(kept.dtype)), indices[keep]


_M1, _M2, _M4, _H01 = (np.uint64(m) for m in (0x5555555555555555, 0x3333333333333333,
                                              0x0F0F0F0F0F0F0F0F, 0x0101010101010101))


def swar_popcount(words):
    """Set bits of each uint64 by SWAR arithmetic (numpy before 2.0 has no popcount).

    Examples
    --------
    >>> import numpy as np
    >>> swar_popcount(np.array([0, 1, 2**64 - 1, 0b1011], np.uint64)).tolist()
    [0, 1, 64, 3]
    """
    words = words - ((words >> np.uint64(1)) & _M1)
    words = (words & _M2) + ((words >> np.uint64(2)) & _M2)
    words = (words + (words >> np.uint64(4))) & _M4
    return (words * _H01) >> np.uint64(56)


popcount = getattr(np, "bitwise_count", swar_popcount)


def count_before(flags, bounds):
    """How many of ``flags`` (bool) are True before each position in ``bounds`` (ints):
    the flags packed 64 to a word, a running count per word, and the bits of the word a
    position falls in (a per-row count of a CSR's flagged entries, with ``bounds`` its
    row pointers, in two passes over ``flags / 64`` words).

    Examples
    --------
    >>> import numpy as np
    >>> count_before(np.array([True, False, True, True]), np.array([0, 1, 3, 4])).tolist()
    [0, 1, 2, 3]
    """
    nwords = flags.size // 64 + 1
    packed = np.zeros(nwords * 8, np.uint8)
    packed[:(flags.size + 7) // 8] = np.packbits(flags, bitorder="little")
    words = packed.view("<u8")
    running = np.zeros(nwords + 1, np.int64)
    np.cumsum(popcount(words), out=running[1:])
    word = bounds >> 6
    below = (np.uint64(1) << (bounds & 63).astype(np.uint64)) - np.uint64(1)
    return running[word] + popcount(words[word] & below).astype(np.int64)
