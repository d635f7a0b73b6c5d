"""CPU backend of :func:`spbfs.semiring.packed_any_secondi`, with numpy.

Both directions find, per stored edge ``i -> j``, the word ``hits = x[i] & want[j]`` of
bits it can witness, then write ``out[s, j] = i`` for every bit ``s`` of the hit words
(:func:`write_bits`).  Several edges may
witness one bit; any of them is valid and one write wins.

* push: the frontier's out-edges, all at once.
* pull: each wanted column scans its in-edges in chunks growing fourfold (1, 4, 16,
  ...) and stops once its bits are covered, as the early-exit pull of
  :func:`spbfs.cpu.products.spmv`; one in-neighbour set in every row covers a column
  in the first round.

:func:`unpack_bitplanes` (the dense form of codes stored as bit-planes) goes 8 rows of
the output at a time by table look-ups that spread 8 bits of a plane into the 8 byte
lanes of a ``uint64`` (wider lanes for codes of more than 7 bits).
"""

from __future__ import annotations

import numpy as np

from ..core.csr import expand, popcount, row_chunks
from .products import PULL_BLOCK, PULL_CHUNK_GROWTH

#: Words per chunk of :func:`write_bits`: a chunk's arrays stay in cache (and its
#: temporaries reuse memory rather than fault in fresh pages).
WRITE_CHUNK = 1 << 14


def write_bits(out, cols, ids, words):
    """``out[s, cols[e]] = ids[e]`` for every bit ``s`` set in ``words[e]``.

    The words go in chunks of :data:`WRITE_CHUNK`, each one round per bit: every word
    with bits left gives its lowest set bit (rounds: the most bits in a word of the
    chunk).  Unpacking the words to bytes, or a pass per bit position, measured slower:
    the cost is the scattered writes.

    Examples
    --------
    >>> import numpy as np
    >>> out = np.full((3, 2), -1)
    >>> write_bits(out, np.array([1]), np.array([7]), np.array([0b101], np.uint64))
    >>> out.tolist()
    [[-1, 7], [-1, -1], [-1, 7]]
    """
    ids = ids.astype(out.dtype, copy=False)
    for lo in range(0, words.size, WRITE_CHUNK):
        hi = lo + WRITE_CHUNK
        at = lo + np.flatnonzero(words[lo:hi])
        left = words[at]
        while at.size:
            low = left & (~left + np.uint64(1))
            out[popcount(low - np.uint64(1)).astype(np.intp), cols[at]] = ids[at]
            left = left ^ low
            more = np.flatnonzero(left)
            at, left = at[more], left[more]


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
    for rows in row_chunks(indptr, x_idx, WRITE_CHUNK):  # the frontier's rows, in chunks
        pos, owner = expand(indptr, x_idx[rows])
        j = indices[pos]
        hits = x_val[rows][owner] & want[j]
        if data is not None:
            hits &= data[pos]
        hit = np.flatnonzero(hits)
        write_bits(out, j[hit], x_idx[rows][owner[hit]], hits[hit])


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
    for first in range(0, want_idx.size, PULL_BLOCK):  # blocks of columns: arrays in cache
        block = slice(first, first + PULL_BLOCK)
        _pull_block(tindptr, tindices, tdata, x_words, want_idx[block], want_val[block], out)


def _pull_block(tindptr, tindices, tdata, x_words, want_idx, want_val, out):
    left = want_val.copy()
    lo = tindptr[want_idx].astype(np.int64)
    hi = tindptr[want_idx + 1].astype(np.int64)
    active = np.flatnonzero(hi > lo)
    chunk = 1
    while active.size:
        take = np.minimum(hi[active] - lo[active], chunk)
        if chunk == 1:  # one in-edge each: no expansion
            pos, owner = lo[active], np.arange(active.size)
        else:
            pos, owner = expand(tindptr, active, counts=take, starts=lo[active])
        src = tindices[pos]
        hits = x_words[src] & left[active[owner]]
        if tdata is not None:
            hits &= tdata[pos]
        hit = np.flatnonzero(hits)
        if hit.size:
            owner, hits = owner[hit], hits[hit]
            write_bits(out, want_idx[active[owner]], src[hit], hits)
            starts = np.flatnonzero(np.concatenate(([True], owner[1:] != owner[:-1])))
            left[active[owner[starts]]] &= ~np.bitwise_or.reduceat(hits, starts)
        lo[active] += take
        chunk *= PULL_CHUNK_GROWTH
        active = active[(left[active] != 0) & (lo[active] < hi[active])]


#: Bits of a packed word.
_WORD_BITS = 64


def _lane_tables(lanes):
    """``spread[x]``: bit ``i`` of ``x`` moved to the lowest bit of lane ``i`` of a uint64
    split in ``lanes`` lanes; ``lane_ones``: the same with the whole lane set."""
    width = _WORD_BITS // lanes
    x = np.arange(1 << lanes, dtype=np.uint64)[:, None]
    i = np.arange(lanes, dtype=np.uint64)[None, :]
    on = (x >> i) & np.uint64(1)
    spread = np.bitwise_or.reduce(on << (i * np.uint64(width)), axis=1)
    lane = np.uint64((1 << width) - 1) if width < _WORD_BITS else np.uint64(2**64 - 1)
    return spread, spread * lane


def _field(word, first, lanes):
    """Bits ``first .. first + lanes - 1`` of every word, as table indices."""
    if lanes == 8:  # a byte: a strided view, no arithmetic
        return word.view(np.uint8).reshape(-1, 8)[:, first // 8]
    return (word >> word.dtype.type(first)) & word.dtype.type((1 << lanes) - 1)


def unpack_bitplanes(planes, present, out):
    """``out[s, v]``: the code whose bit ``b`` is bit ``s`` of ``planes[b][v]``, or -1
    where bit ``s`` of ``present[v]`` is clear (checked by
    :func:`spbfs.semiring.unpack_bitplanes`).

    Each pass builds the codes of ``lanes`` rows in the lanes of one ``uint64`` per
    column (bytes for codes of up to 7 bits, then 2-, 4- and 8-byte lanes), the absent ones all
    ones, and copies the lanes' transpose into ``out``.

    Examples
    --------
    >>> import numpy as np
    >>> out = np.empty((2, 3), np.int32)
    >>> unpack_bitplanes([np.array([1, 2, 0], np.uint64)], np.array([3, 2, 0], np.uint64), out)
    >>> out.tolist()
    [[1, -1, -1], [0, 1, -1]]
    """
    k, n = out.shape
    depth = len(planes)  # code bits
    lanes = 8 if depth <= 7 else 4 if depth <= 15 else 2 if depth <= 31 else 1
    spread, lane_ones = _lane_tables(lanes)
    shifted = [spread << np.uint64(b) for b in range(len(planes))]
    lane_dtype = np.dtype(f"<i{_WORD_BITS // lanes // 8}")
    absent = ~present
    for first in range(0, k, lanes):
        code = lane_ones[_field(absent, first, lanes)]  # absent codes: all ones
        for table, plane in zip(shifted, planes, strict=True):
            code |= table[_field(plane, first, lanes)]
        rows = min(lanes, k - first)
        out[first:first + rows] = code.view(lane_dtype).reshape(n, lanes)[:, :rows].T
