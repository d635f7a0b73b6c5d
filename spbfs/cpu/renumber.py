"""A transpose's in-lists with its sources renumbered by how often they are read (the
affine pull's layout, :func:`spbfs.cpu.rank.pull_affine`), built once per transpose and
kept while its arrays live.

An unweighted pull ``y[j] = sum of c[i]`` over ``j``'s in-list reads ``c`` at random: on a
skewed graph (GAP's Kronecker, scale 20: 8 MiB of ``c``) most reads miss the core's cache.
Numbered by their count of entries (most first, ties by id), the sources read most sit at
the front of ``c``'s copy ``c[order]``: the first ``2**HOT_BITS`` of them (512 KiB of
float64, a core's L2) take 81 % of the reads at Kronecker scale 20 and 95 % at 18, and
their numbers fit in 16 bits.  Each row keeps the entries of hot sources in their order
(``hot``, uint16 numbers): row ``j``'s are ``hot[hptr[j]:hptr[j + 1]]``.  The other
entries ("cold") are cut by their source's segment of ``2**HOT_BITS`` numbers and listed
segment by segment, each segment's by row (in each row's order), as pairs of 16-bit
offsets ``(cold_dst, cold_src)`` (the row less its chunk's first, the new number less its
segment's first; CSR segmenting, Cagra's cache blocking, for the cold sources alone):
``cold_off[s, k]`` is where segment ``s``'s entries of chunk ``k`` (rows ``k << shift`` on)
start.  A step adds a block of rows' cold entries segment by segment, each
segment's 512 KiB of ``c`` read from the core's cache; a row's sum is its hot entries', then
its cold ones' segment by segment, whatever the blocks (the same bytes on any number of
threads).

Memory: 2 bytes a hot entry, 4 a cold one, the row pointers (the transpose's dtype), 4
bytes a source read (``order``) and 8 a (segment, chunk) pair: 81 MB beside the
transpose's own 130 MB at GAP's Kronecker scale 20 (18 MB beside 31 MB at 18; with 8-byte
cold entries, 105 and 19 MB; PageRank's step at scale 22 on 16 threads took 4 % less); a
step adds one
float64 a source read (the copy of ``c``).  The build holds for a while at most the
entries' bytes again (the counts per thread, then the cold entries row by row) and 17
bytes a vertex.  A graph whose hot sources take less than
:data:`HOT_SHARE` of the entries (no skew: a mesh, a road map) gets no layout and keeps
the plain pull, where renumbering would only scatter its locality.

The layout is kept with the transpose's pattern (the seam's ``derived``: the pattern's
cache, built once under its lock, concurrent first callers waiting for the one build, kept
while the pattern lives); a caller without one builds it per call.  It reads the arrays when
built: they must not be changed in place afterwards, which a cached pattern's never are.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._jit import kernel
from .threads import get_num_threads, run_kernel, split

__all__ = ["HOT_BITS", "HOT_SHARE", "Layout", "layout"]

#: Sources renumbered below ``2**HOT_BITS`` are "hot": uint16 numbers.
HOT_BITS = 16
#: The least share of entries the hot sources must take for a layout to be built.
HOT_SHARE = 0.5
U = np.uintp
ONE = np.uintp(1)


class Layout(NamedTuple):
    """A transpose's in-lists split into hot and cold entries, sources renumbered.

    Examples
    --------
    >>> import numpy as np
    >>> L = layout(np.array([0, 2, 3]), np.array([0, 1, 1]), 2, hot_bits=0, share=0.0)
    >>> L.order.tolist(), L.hptr.tolist(), L.hot.tolist()
    ([1, 0], [0, 1, 2], [0, 0])
    >>> L.cold_off.tolist(), L.cold_dst.tolist(), L.cold_src.tolist()
    ([[0, 0], [0, 1]], [0], [0])
    >>> L.cold_rows().tolist(), L.cold_numbers().tolist()
    ([0], [1])
    """

    #: ``order[k]``: the source numbered ``k`` (uint32; the sources read, most read first)
    order: np.ndarray
    #: hot entries before each row (n + 1, the transpose's pointer dtype)
    hptr: np.ndarray
    #: hot entries' new numbers, row by row (uint16)
    hot: np.ndarray
    #: ``cold_off[s, k]``: the first cold entry of segment ``s`` in chunk ``k`` (int64, one
    #: column more than chunks: the segment's end)
    cold_off: np.ndarray
    #: each cold entry's row less its chunk's first (uint16: ``shift`` is at most 16)
    cold_dst: np.ndarray
    #: each cold entry's new number less its segment's first (uint16)
    cold_src: np.ndarray
    #: chunks of ``2**shift`` rows
    shift: int
    #: segments of ``2**bits`` numbers; the hot numbers are the first segment's
    bits: int

    @property
    def nbytes(self) -> int:
        """Bytes held by the layout."""
        return int(sum(a.nbytes for a in self[:-2]))

    def cold_rows(self) -> np.ndarray:
        """Each cold entry's row (int64), from its chunk and offset.

        Examples
        --------
        >>> L = layout(np.array([0, 1, 2]), np.array([1, 0]), 2, shift=0, hot_bits=0,
        ...            share=0.0)
        >>> L.cold_rows().tolist(), L.cold_numbers().tolist()
        ([0], [1])
        """
        segments, columns = self.cold_off.shape
        chunk = np.tile(np.arange(columns - 1, dtype=np.int64), segments)
        return np.repeat(chunk << self.shift, self._per_group()) + self.cold_dst

    def cold_numbers(self) -> np.ndarray:
        """Each cold entry's new number (int64), from its segment and offset."""
        segments, columns = self.cold_off.shape
        segment = np.repeat(np.arange(segments, dtype=np.int64), columns - 1)
        return np.repeat(segment << self.bits, self._per_group()) + self.cold_src

    def _per_group(self):
        """The cold entries of each (segment, chunk), segment by segment."""
        return np.diff(self.cold_off, axis=1).ravel()


@kernel
def _count(p0, p1, k, tidx, counts):
    """``counts[k, i]`` += the entries ``p0..p1`` of ``tidx`` equal to ``i`` (part ``k``'s
    row of ``counts``)."""
    mine = counts[k]
    for p in range(U(p0), U(p1)):
        mine[U(tidx[p])] += 1
    return 0


@kernel
def _renumber(counts, top, order, number):
    """``order``: the ids with a non-zero count, most counted first (ties by id; a counting
    sort over the counts ``1..top``); ``number[order[k]] = k``.  Returns how many there
    are."""
    first = np.zeros(top + 2, np.int64)  # first[top - c]: where count c's ids start
    for c in counts:
        if c > 0:
            first[top - c + 1] += 1
    for k in range(1, top + 2):
        first[k] += first[k - 1]
    for i in range(counts.size):
        c = counts[i]
        if c > 0:
            k = first[top - c]
            first[top - c] = k + 1
            order[k] = i
            number[i] = k
    return first[top]


@kernel
def _number(order, number):
    """``number[order[k]] = k``."""
    for k in range(order.size):
        number[U(order[k])] = k
    return 0


@kernel
def _count_hot(r0, r1, tptr, tidx, is_hot, per_row):
    """``per_row[j + 1]``: row ``j``'s entries whose source is hot (``is_hot``: one byte a
    vertex, read from the cache where ``number`` would not be)."""
    for j in range(U(r0), U(r1)):
        h = 0
        for p in range(U(tptr[j]), U(tptr[j + ONE])):
            h += is_hot[U(tidx[p])]
        per_row[j + ONE] = h
    return 0


@kernel
def _fill(r0, r1, tptr, tidx, number, hot, hptr, hot_ids, cold_ids):
    """Rows ``r0..r1``' entries, renumbered, into ``hot_ids`` and ``cold_ids`` (each row's
    in its order; ``cold_ids`` row by row, as ``hot_ids``)."""
    base = U(tptr[0])
    for j in range(U(r0), U(r1)):
        a = U(hptr[j])
        b = U(tptr[j]) - base - a
        for p in range(U(tptr[j]), U(tptr[j + ONE])):
            k = number[U(tidx[p])]
            if k < hot:
                hot_ids[a] = k
                a += ONE
            else:
                cold_ids[b] = k
                b += ONE
    return 0


@kernel
def _count_cold(k0, k1, shift, tptr, hptr, cold_ids, bits, counts):
    """``counts[s, k]``: chunk ``k``'s cold entries in segment ``s`` (``number >> bits``),
    for the chunks ``k0..k1``."""
    n = U(hptr.size - 1)
    base = U(tptr[0])
    for k in range(U(k0), U(k1)):
        r1 = min((k + ONE) << U(shift), n)
        for q in range(U(tptr[k << U(shift)]) - base - U(hptr[k << U(shift)]),
                       U(tptr[r1]) - base - U(hptr[r1])):
            counts[U(cold_ids[q]) >> U(bits), k] += 1
    return 0


@kernel
def _place_cold(k0, k1, shift, tptr, hptr, cold_ids, bits, cold_off, dst, src):
    """The chunks ``k0..k1``' cold entries into their segments' lists, by row: each as its
    row's offset in its chunk and its number's offset in its segment."""
    n = U(hptr.size - 1)
    base = U(tptr[0])
    low = (ONE << U(bits)) - ONE
    at = np.empty(cold_off.shape[0], np.int64)
    for k in range(U(k0), U(k1)):
        for s in range(at.size):
            at[s] = cold_off[s, k]
        b0 = k << U(shift)
        b1 = min(b0 + (ONE << U(shift)), n)
        for j in range(b0, b1):
            for q in range(U(tptr[j]) - base - U(hptr[j]),
                           U(tptr[j + ONE]) - base - U(hptr[j + ONE])):
                v = U(cold_ids[q])
                s = v >> U(bits)
                w = U(at[s])
                dst[w] = j - b0
                src[w] = v & low
                at[s] = w + ONE
    return 0


def _counts(tindices, p0, p1, n):
    """How often each id occurs in ``tindices[p0:p1]`` (int64), counted per part of the
    entries over threads, the parts' int32 counts taking at most as many bytes as the
    entries."""
    nnz = p1 - p0
    parts = split(nnz, min(get_num_threads(), max(1, nnz // (4 * n))) if nnz >= 1 << 20 else 1)
    per_part = np.zeros((len(parts), n), np.int32 if nnz < 1 << 31 else np.int64)
    run_kernel(_count, [(p0 + lo, p0 + hi, k) for k, (lo, hi) in enumerate(parts)], tindices,
               per_part)
    return per_part.sum(axis=0, dtype=np.int64)


def _build(tindptr, tindices, n, hot_bits, share, shift):
    """The layout of a transpose, or None where the hot sources take under ``share`` of
    its entries."""
    p0, p1 = int(tindptr[0]), int(tindptr[-1])
    counts = _counts(tindices, p0, p1, n)
    top = int(counts.max()) if n else 0
    order = np.empty(n, np.uint32)
    number = np.empty(n, np.uint32)
    if top <= n:  # a counting sort: its buckets take no more than the ids
        m = int(_renumber(counts, top, order, number))
    else:  # duplicates pile up on a source: a stable sort
        m = int(np.count_nonzero(counts))
        order[:m] = np.argsort(-counts, kind="stable")[:m]
        _number(order[:m], number)
    hot = 1 << hot_bits
    if p1 == p0 or int(counts[order[:min(hot, m)]].sum()) < share * (p1 - p0):
        return None
    ranges = split(n, get_num_threads(), tindptr)
    hptr = np.zeros(n + 1, tindptr.dtype)
    is_hot = np.zeros(n, np.uint8)
    is_hot[order[:min(hot, m)]] = 1
    run_kernel(_count_hot, ranges, tindptr, tindices, is_hot, hptr)
    np.cumsum(hptr, out=hptr)
    hot_ids = np.empty(int(hptr[-1]), np.uint16)
    cold_ids = np.empty(p1 - p0 - hot_ids.size, np.uint32)
    run_kernel(_fill, ranges, tindptr, tindices, number, hot, hptr, hot_ids, cold_ids)
    # the cold entries by segment, each segment's by row
    chunks = (n + (1 << shift) - 1) >> shift
    segments = ((m - 1) >> hot_bits) + 1
    counts = np.zeros((segments, chunks), np.int64)
    by_chunk = split(chunks, get_num_threads(),
                     tindptr[np.minimum(np.arange(chunks + 1) << shift, n)])
    run_kernel(_count_cold, by_chunk, shift, tindptr, hptr, cold_ids, hot_bits, counts)
    starts = np.zeros(segments * chunks + 1, np.int64)  # segment by segment, chunk by chunk
    np.cumsum(counts.ravel(), out=starts[1:])
    cold_off = np.empty((segments, chunks + 1), np.int64)
    cold_off[:, :chunks] = starts[:-1].reshape(segments, chunks)
    cold_off[:, chunks] = starts[chunks::chunks]
    dst = np.empty(cold_ids.size, np.uint16)
    src = np.empty(cold_ids.size, np.uint16)
    run_kernel(_place_cold, by_chunk, shift, tindptr, hptr, cold_ids, hot_bits, cold_off, dst,
               src)
    return Layout(order[:m].copy(), hptr, hot_ids, cold_off, dst, src, shift, hot_bits)


def layout(tindptr, tindices, n, *, shift=12, hot_bits=None, share=None, derived=None):
    """The renumbered layout of the transpose ``(tindptr, tindices)`` of ``n`` rows and
    columns, kept with its pattern through ``derived``; None where it does not pay (the hot
    sources take under ``share`` of the entries, or ``n`` is not below ``2**32``).

    Parameters
    ----------
    tindptr, tindices : 1-D integer arrays
        The transpose's CSR (checked: ids in ``0..n-1``); not to be changed in place after.
    n : int
        Rows and columns.
    shift : int
        The cold entries are found by chunks of ``2**shift`` rows (at most 16).
    hot_bits : int, optional
        Hot sources are numbered below ``2**hot_bits`` (at most 16); default
        :data:`HOT_BITS`.
    share : float, optional
        Default :data:`HOT_SHARE`.
    derived : callable, optional
        The transpose's pattern cache, ``derived(key, build)`` (:meth:`Pattern.derived
        <spbfs.semiring._pattern.Pattern.derived>`): the layout is built on the first call
        and kept there.  None: built for this call alone.

    Returns
    -------
    Layout or None

    Examples
    --------
    Vertex 2 is read by every row, vertices 0 and 1 once each:

    >>> import numpy as np
    >>> tptr, tidx = np.array([0, 2, 4, 5]), np.array([0, 2, 1, 2, 2])
    >>> L = layout(tptr, tidx, 3, hot_bits=1, share=0.5)
    >>> L.order.tolist(), L.hptr.tolist(), L.hot.tolist()
    ([2, 0, 1], [0, 2, 3, 4], [1, 0, 0, 0])
    >>> L.cold_rows().tolist(), L.cold_numbers().tolist()
    ([1], [2])
    >>> kept = {}
    >>> derived = lambda key, build: kept[key] if key in kept else kept.setdefault(key, build())
    >>> layout(tptr, tidx, 3, hot_bits=1, share=0.5, derived=derived) is layout(
    ...     tptr, tidx, 3, hot_bits=1, share=0.5, derived=derived)
    True
    """
    hot_bits = HOT_BITS if hot_bits is None else int(hot_bits)
    share = HOT_SHARE if share is None else float(share)
    if not 0 <= hot_bits <= 16:
        raise ValueError(f"hot_bits must lie in [0, 16], got {hot_bits}")
    n, shift = int(n), int(shift)
    if not 0 <= shift <= 16:
        raise ValueError(f"shift must lie in [0, 16], got {shift}")
    if n >= 1 << 32:
        return None
    if derived is None:
        return _build(tindptr, tindices, n, hot_bits, share, shift)
    # kept as a 1-tuple: "does not pay" (None) is kept too
    return derived(("renumbered", n, shift, hot_bits, share),
                   lambda: (_build(tindptr, tindices, n, hot_bits, share, shift),))[0]
