"""CPU backend of :func:`spbfs.semiring.packed_any_secondi`, with numpy.

Both directions find, per stored edge ``i -> j``, the word ``hits = x[i] & want[j]`` of
bits it can witness, then write ``out[s, j] = i`` for every bit ``s`` of the hit words
(:func:`write_bits`).  Several edges may
witness one bit; any of them is valid and one write wins.

* push: the frontier's out-edges, all at once.
* pull: each wanted column scans its in-edges in chunks growing fourfold (1, 4, 16,
  ...) and stops once its bits are covered, as the early-exit pull of
  :func:`spbfs.semiring._cpu.spmv`; one in-neighbour set in every row covers a column
  in the first round.
"""

from __future__ import annotations

import numpy as np

from ._cpu import PULL_CHUNK_GROWTH, _popcount, expand

#: Mean set bits per word from which :func:`write_bits` goes row by row.
DENSE_BITS = 8

def write_bits(out, cols, ids, words):
    """``out[s, cols[e]] = ids[e]`` for every bit ``s`` set in ``words[e]``.

    Words with many bits go one row ``s`` of ``out`` at a time (each scatter stays within
    a row); words with few bits one lowest set bit at a time (rounds: the most bits in a
    word), as the rows' passes would read every word 64 times for a bit or two.

    Examples
    --------
    >>> import numpy as np
    >>> out = np.full((3, 2), -1)
    >>> write_bits(out, np.array([1]), np.array([7]), np.array([0b101], np.uint64))
    >>> out.tolist()
    [[-1, 7], [-1, -1], [-1, 7]]
    """
    if not words.size:
        return
    ids = ids.astype(out.dtype, copy=False)
    if int(_popcount(words).sum()) >= DENSE_BITS * words.size:
        for s in range(out.shape[0]):
            on = np.flatnonzero(words & np.uint64(1 << s))
            out[s, cols[on]] = ids[on]
        return
    at, left = np.arange(words.size), words
    while at.size:
        low = left & (~left + np.uint64(1))
        out[np.frexp(low.astype(np.float64))[1] - 1, cols[at]] = ids[at]
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
    pos, owner = expand(indptr, x_idx)
    j = indices[pos]
    hits = x_val[owner] & want[j]
    if data is not None:
        hits &= data[pos]
    hit = np.flatnonzero(hits)
    write_bits(out, j[hit], x_idx[owner[hit]], hits[hit])


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
