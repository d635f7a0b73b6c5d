"""CPU backend of :func:`spbfs.semiring.packed_any_secondi`: numba kernels.

Both directions find, per stored edge ``i -> j``, the word ``hits = x[i] & want[j]`` of
bits it can witness, then write ``out[s, j] = i`` for every bit ``s`` of the hit word.
Several edges may witness one bit; any of them is valid and one write wins (threads
writing the same place write valid ids: whichever lands is a witness).

* push: the frontier's out-edges, over ranges of the frontier of equal edge counts.
* pull: each wanted column scans its in-edges and stops once its bits are covered
  (clearing them from its wanted word), over ranges of the wanted columns.

:func:`unpack_bitplanes` (the dense form of codes stored as bit-planes) is a compiled
pass over the columns that goes 8 rows of the output at a time by table look-ups that
spread 8 bits of a plane into the 8 byte lanes of a ``uint64`` (wider lanes for codes of
more than 7 bits).
"""

from __future__ import annotations

import functools

import numpy as np

from ._jit import kernel
from .threads import get_num_threads, run_kernel, split

#: Edges (or wanted columns) from which a call is split over threads.
PARALLEL_WORK = 1 << 15

_DEBRUIJN = np.uint64(0x03F79D71B4CB0A89)
#: bit index of the lowest set bit ``low`` of a word: ``_LOW_BIT[(low * _DEBRUIJN) >> 58]``
_LOW_BIT = np.zeros(64, np.int64)
for _b in range(64):
    _LOW_BIT[((1 << _b) * 0x03F79D71B4CB0A89 % (1 << 64)) >> 58] = _b


@kernel
def _write(out, j, src, hits, table):
    """``out[s, j] = src`` for every bit ``s`` of ``hits``."""
    while hits:
        low = hits & (~hits + np.uint64(1))
        out[table[(low * _DEBRUIJN) >> np.uint64(58)], j] = src
        hits ^= low


@kernel
def _push(lo, hi, indptr, indices, data, has_data, x_idx, x_val, want, out, table):
    for t in range(lo, hi):
        i = x_idx[t]
        xw = x_val[t]
        for p in range(np.uint64(indptr[i]), np.uint64(indptr[i + 1])):  # unsigned reads
            j = indices[p]
            hits = xw & want[np.uint64(j)]
            if has_data:
                hits &= data[p]
            if hits:
                _write(out, j, i, hits, table)


@kernel
def _pull(lo, hi, tindptr, tindices, tdata, has_data, x_words, want_idx, want_val, out,
          table):
    for w in range(lo, hi):
        j = want_idx[w]
        left = want_val[w]
        for p in range(np.uint64(tindptr[j]), np.uint64(tindptr[j + 1])):  # unsigned reads
            src = tindices[p]
            hits = x_words[np.uint64(src)] & left
            if has_data:
                hits &= tdata[p]
            if hits:
                _write(out, j, src, hits, table)
                left &= ~hits
                if not left:
                    break


_NO_DATA = np.zeros(1, np.uint64)


def packed_push(indptr, indices, data, x_idx, x_val, want_idx, want_val, out):
    """Push: witnesses from the out-edges of the sparse ``x``'s rows.

    Examples
    --------
    >>> import numpy as np
    >>> out = np.full((2, 2), -1)
    >>> packed_push(np.array([0, 1, 1]), np.array([1]), None, np.array([0]),
    ...             np.array([3], np.uint64), np.array([1]), np.array([2], np.uint64), out)
    >>> out.tolist()
    [[-1, -1], [-1, 0]]
    """
    want = np.zeros(out.shape[1], np.uint64)
    want[want_idx] = want_val
    work = np.empty(x_idx.size + 1, np.int64)
    work[0] = 0
    np.cumsum(np.take(indptr, x_idx + 1) - np.take(indptr, x_idx), out=work[1:])
    threads = get_num_threads() if work[-1] >= PARALLEL_WORK else 1
    has = data is not None
    data = data if has else _NO_DATA
    run_kernel(_push, split(x_idx.size, threads, work), indptr, indices, data, has, x_idx, x_val,
               want, out, _LOW_BIT)


def packed_pull(tindptr, tindices, tdata, x_words, want_idx, want_val, out):
    """Pull: each wanted column scans its in-edges (rows of the transpose ``T``) until
    its wanted bits are covered.

    Examples
    --------
    >>> import numpy as np
    >>> out = np.full((2, 2), -1)
    >>> packed_pull(np.array([0, 0, 1]), np.array([0]), None, np.array([3, 0], np.uint64),
    ...             np.array([1]), np.array([2], np.uint64), out)
    >>> out.tolist()
    [[-1, -1], [-1, 0]]
    """
    threads = get_num_threads() if want_idx.size >= PARALLEL_WORK else 1
    has = tdata is not None
    tdata = tdata if has else _NO_DATA
    run_kernel(_pull, split(want_idx.size, threads), tindptr, tindices, tdata, has, x_words,
               want_idx, want_val, out, _LOW_BIT)


#: Bits of a packed word.
_WORD_BITS = 64


@functools.cache
def _lane_tables(lanes, depth):
    """``shifted[b, x]``: bit ``i`` of ``x`` moved to bit ``b`` of lane ``i`` of a uint64
    split in ``lanes`` lanes, for the ``depth`` bits of a code; ``lane_ones[x]``: ``x``'s
    lanes all ones (made once: read-only)."""
    width = _WORD_BITS // lanes
    x = np.arange(1 << lanes, dtype=np.uint64)[:, None]
    i = np.arange(lanes, dtype=np.uint64)[None, :]
    on = (x >> i) & np.uint64(1)
    spread = np.bitwise_or.reduce(on << (i * np.uint64(width)), axis=1)
    lane = np.uint64((1 << width) - 1) if width < _WORD_BITS else np.uint64(2**64 - 1)
    shifted = np.array([spread << np.uint64(b) for b in range(depth)], np.uint64).reshape(
        depth, spread.size)
    lane_ones = spread * lane
    shifted.flags.writeable = lane_ones.flags.writeable = False
    return shifted, lane_ones


@kernel
def _unpack(lo, hi, planes, present, out, shifted, lane_ones, lanes):  # pragma: no cover
    k, depth = out.shape[0], planes.shape[0]
    width = _WORD_BITS // lanes
    field = np.uint64((1 << lanes) - 1)
    lane_mask = np.uint64(2**64 - 1) if width == _WORD_BITS else np.uint64((1 << width) - 1)
    for v in range(lo, hi):
        absent = ~present[v]
        for first in range(0, k, lanes):
            at = np.uint64(first)
            code = lane_ones[(absent >> at) & field]
            for b in range(depth):
                code |= shifted[b, (planes[b, v] >> at) & field]
            for i in range(min(lanes, k - first)):
                lane = (code >> np.uint64(i * width)) & lane_mask
                # all ones: absent (a code has fewer bits than its lane)
                out[first + i, v] = -1 if lane == lane_mask else np.int64(lane)
    return 0


def _unpack_columns(planes, present, out):
    """:func:`unpack_bitplanes` of every column from the ``(depth, n)`` array ``planes``:
    the codes of ``lanes`` rows at a time built in the lanes of one ``uint64`` per column by
    table look-ups, over ranges of the columns."""
    k, n = out.shape
    depth = planes.shape[0]  # code bits
    lanes = 8 if depth <= 7 else 4 if depth <= 15 else 2 if depth <= 31 else 1
    shifted, lane_ones = _lane_tables(lanes, depth)
    target = out if out.flags.c_contiguous else np.empty((k, n), out.dtype)
    threads = get_num_threads() if k * n >= PARALLEL_WORK else 1
    run_kernel(_unpack, split(n, threads), np.ascontiguousarray(planes),
               np.ascontiguousarray(present), target, shifted, lane_ones, lanes)
    if target is not out:
        out[...] = target


#: The share of the columns holding codes under which :func:`unpack_bitplanes` fills
#: ``out`` with -1 and unpacks those columns alone.
SPARSE_COLUMNS = 0.5


def unpack_bitplanes(planes, present, out):
    """``out[s, v]``: the code whose bit ``b`` is bit ``s`` of ``planes[b][v]``, or -1
    where bit ``s`` of ``present[v]`` is clear (checked by
    :func:`spbfs.semiring.unpack_bitplanes`).

    A compiled pass over the columns builds the codes of 8 rows at a time in the byte
    lanes of a ``uint64`` (2-, 4- and 8-byte lanes for codes of more than 7 bits) by table
    look-ups, the absent ones all ones.  Where under :data:`SPARSE_COLUMNS` of the columns
    hold a code (searches that each reach a few vertices, as local efficiency's of small
    subgraphs), ``out`` is filled with -1 and those columns alone are unpacked.

    Examples
    --------
    >>> import numpy as np
    >>> out = np.empty((2, 3), np.int32)
    >>> unpack_bitplanes([np.array([1, 2, 0], np.uint64)], np.array([3, 2, 0], np.uint64), out)
    >>> out.tolist()
    [[1, -1, -1], [0, 1, -1]]
    """
    n = out.shape[1]
    stacked = np.empty((len(planes), n), np.uint64)  # (depth, n): the kernel's planes
    for b, plane in enumerate(planes):
        stacked[b] = plane
    if np.count_nonzero(present) < SPARSE_COLUMNS * n:
        out.fill(-1)
        held = np.flatnonzero(present)
        if held.size:
            codes = np.empty((out.shape[0], held.size), out.dtype)
            _unpack_columns(stacked[:, held], present[held], codes)
            out[:, held] = codes
        return
    _unpack_columns(stacked, present, out)
