"""The CPU's affine pull (``pull_affine``): one pass over a transpose's in-lists that sums each
output in a register, scales it, adds the constant, and totals the step's L1 change, its sum
and its sum over the rows of zero scale, writing the next step's scaled vector as it goes.

It is :func:`spbfs.semiring.pull_affine` whole (PageRank's iteration: the pull of
:mod:`spbfs.cpu.pull` and five whole-array updates in one read of the matrix and the
vectors).  Rows are taken in chunks of ``2**shift``: the totals are summed per chunk and the
chunks' sums added in chunk order, so they do not depend on the number of threads; the
threads take whole chunks, one at a time from a shared counter (a thread slowed by other
work takes fewer).  A Gauss-Seidel sweep reads, for an entry ``i`` of row ``j``'s
in-list lying in ``j``'s own chunk before ``j``, the value written for ``i`` in this sweep,
and the value it is given otherwise: the same result on any number of threads (a sweep over
every row in order would need one thread).

An unweighted Jacobi step over a large skewed transpose reads the renumbered layout of
:mod:`spbfs.cpu.renumber` instead (built once per transpose, kept with its arrays): ``c``
copied in the sources' new order (the most read first); threads take blocks of rows in
which each row sums its hot entries (16-bit numbers into the copy's first 512 KiB, in two
registers taking every other entry), then the block's cold entries are added segment by
segment of 512 KiB of the copy, then the rows are scaled and totalled.  The sums are the
same up to rounding (the entries are added in another order), the same bytes on any
number of threads.
"""

from __future__ import annotations

import numpy as np

from . import renumber
from ._atomic import fetch_add
from ._jit import kernel
from .kept import KeptPool
from .threads import get_num_threads, run_kernel, split

__all__ = ["GS_SHIFT", "JACOBI_SHIFT", "LAYOUT_ENTRIES", "pull_affine"]

#: A Gauss-Seidel sweep's chunk: ``2**GS_SHIFT`` rows (GAP's pull takes 16,384 at a time).
GS_SHIFT = 14
#: A Jacobi step's chunk of rows, for its totals only.
JACOBI_SHIFT = 12
#: Entries from which a step is split over threads.
PARALLEL_ENTRIES = 1 << 16
#: Entries from which an unweighted Jacobi step reads the renumbered layout (with more
#: than ``2**renumber.HOT_BITS`` rows: fewer fit a core's cache whole).
LAYOUT_ENTRIES = 1 << 20
#: Blocks of rows a thread takes in a renumbered step, on average.
LAYOUT_BLOCKS = 2
#: The scaled vector in the sources' new order, kept between steps (a fresh one is paged in
#: again at every step).
_gathered = KeptPool(lambda size: np.empty(size), keep=2)
U = np.uintp  # positions and ids read as unsigned: numba's negative-index test skipped
ONE = np.uintp(1)


@kernel
def _affine(counter, chunks, shift, tptr, tidx, tdata, weighted, c_old, x, scale, alpha, const0,
            constv, out, c_new, gauss_seidel, sums):
    """The chunks this thread takes from ``counter`` (one at a time, until ``chunks``):
    ``out[j] = alpha * sum(c[i] (* A[i, j])) + const0 (+ constv[j])``, ``c_new[j] = out[j]
    * scale[j]``; ``sums[k]`` chunk ``k``'s ``(sum |out - x|, sum out, sum out where scale
    == 0)``."""
    n = U(out.size)
    has_v = constv.size > 0
    while True:
        k = U(fetch_add(counter, 0, 1))
        if k >= U(chunks):
            break
        b0 = k << U(shift)
        b1 = min(b0 + (ONE << U(shift)), n)
        change = 0.0
        total = 0.0
        zero = 0.0
        for j in range(b0, b1):
            s = 0.0
            p0 = U(tptr[j])
            p1 = U(tptr[j + ONE])
            if gauss_seidel:
                here = j - b0
                if weighted:
                    for p in range(p0, p1):
                        i = U(tidx[p])
                        v = c_new[i] if i - b0 < here else c_old[i]
                        s += v * tdata[p]
                else:
                    for p in range(p0, p1):
                        i = U(tidx[p])
                        s += c_new[i] if i - b0 < here else c_old[i]
            elif weighted:
                for p in range(p0, p1):
                    s += c_old[U(tidx[p])] * tdata[p]
            else:
                for p in range(p0, p1):
                    s += c_old[U(tidx[p])]
            y = alpha * s + const0
            if has_v:
                y = y + constv[j]
            change += abs(y - x[j])
            total += y
            w = scale[j]
            if w == 0.0:
                zero += y
            out[j] = y
            c_new[j] = y * w
        sums[k, 0] = change
        sums[k, 1] = total
        sums[k, 2] = zero
    return 0


@kernel
def _gather(r0, r1, c, order, c_new_order):
    """``c_new_order[k] = c[order[k]]`` for ``k`` in ``r0..r1``."""
    for k in range(U(r0), U(r1)):
        c_new_order[k] = c[U(order[k])]
    return 0


@kernel
def _affine_renumbered(counter, blocks, bounds, shift, bits, tptr, hptr, hot, cold_off,
                       cold_dst, cold_src, c, x, scale, alpha, const0, constv, out, c_new, sums):
    """:func:`_affine`'s Jacobi step (unweighted) over a :class:`renumber.Layout`, the
    blocks of chunks this thread takes from ``counter``: ``c`` is the vector in the sources'
    new order; each row of a block sums its hot entries in two registers (even and odd
    positions), then the block's cold entries are added segment by segment, then the rows
    are scaled and totalled chunk by chunk."""
    n = U(out.size)
    has_v = constv.size > 0
    segments = U(cold_off.shape[0])
    while True:
        b = U(fetch_add(counter, 0, 1))
        if b >= U(blocks):
            break
        k0 = U(bounds[b])
        k1 = U(bounds[b + ONE])
        r0 = k0 << U(shift)
        r1 = min(k1 << U(shift), n)
        h1 = U(hptr[r0])
        for j in range(r0, r1):
            h0 = h1
            h1 = U(hptr[j + ONE])
            s0 = 0.0
            s1 = 0.0
            p = h0
            while p + ONE < h1:
                s0 += c[U(hot[p])]
                s1 += c[U(hot[p + ONE])]
                p += U(2)
            if p < h1:
                s0 += c[U(hot[p])]
            out[j] = s0 + s1
        for s in range(segments):
            first = s << U(bits)
            for k in range(k0, k1):
                row = k << U(shift)
                for q in range(U(cold_off[s, k]), U(cold_off[s, k + ONE])):
                    out[row + U(cold_dst[q])] += c[first + U(cold_src[q])]
        for k in range(k0, k1):
            change = 0.0
            total = 0.0
            zero = 0.0
            for j in range(k << U(shift), min((k + ONE) << U(shift), n)):
                y = alpha * out[j] + const0
                if has_v:
                    y = y + constv[j]
                change += abs(y - x[j])
                total += y
                w = scale[j]
                if w == 0.0:
                    zero += y
                out[j] = y
                c_new[j] = y * w
            sums[k, 0] = change
            sums[k, 1] = total
            sums[k, 2] = zero
    return 0


def _blocks(tindptr, chunks, shift, n, threads):
    """The renumbered step's blocks of chunks: few, of about equal entries (a block reads
    each cold segment's part of ``c`` into the core's cache once, at random, and its rows'
    sums stream by), as their bounds in chunks."""
    blocks = split(chunks, LAYOUT_BLOCKS * threads,
                   tindptr[np.minimum(np.arange(chunks + 1) << shift, n)])
    return np.array([blocks[0][0], *(b for _, b in blocks)], np.int64)


def pull_affine(tindptr, tindices, tdata, scaled, x, scale, alpha, constant, out, out_scaled,
                gauss_seidel, derived=None):
    """``out = alpha * (scaled @ A) + constant`` and ``out_scaled = out * scale`` for a square
    ``A`` given by its transpose's CSR (``tdata`` None: every entry weighs 1, the ``first``
    multiply), all float64; returns ``(sum |out - x|, sum out, sum of out where scale is
    0)``.  ``constant`` is a float or an array of n.  ``gauss_seidel``: each row reads the
    values this sweep wrote for the earlier rows of its chunk (:data:`GS_SHIFT`).  An
    unweighted Jacobi step of at least :data:`LAYOUT_ENTRIES` entries reads the transpose's
    renumbered layout (:mod:`spbfs.cpu.renumber`, built on the first such call and kept in
    ``derived``, the transpose's pattern cache; built per call without it) where the graph
    is skewed enough for it.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([0.5, 0.5]); scale = np.array([1.0, 0.0])
    >>> out, out_scaled = np.empty(2), np.empty(2)
    >>> pull_affine(np.array([0, 0, 1]), np.array([0]), None, x * scale, x, scale, 0.5, 0.25,
    ...             out, out_scaled, False)
    (0.25, 0.75, 0.5)
    >>> out.tolist(), out_scaled.tolist()
    ([0.25, 0.5], [0.25, 0.0])
    """
    n = out.size
    shift = GS_SHIFT if gauss_seidel else JACOBI_SHIFT
    chunks = (n + (1 << shift) - 1) >> shift
    sums = np.zeros((max(chunks, 1), 3))
    if not chunks:
        return 0.0, 0.0, 0.0
    if np.ndim(constant):
        const0, constv = 0.0, np.ascontiguousarray(constant, np.float64)
    else:
        const0, constv = float(constant), np.zeros(0)
    weighted = tdata is not None
    data = tdata if weighted else np.zeros(1)
    nnz = int(tindptr[-1])
    threads = get_num_threads() if nnz + n >= PARALLEL_ENTRIES else 1
    counter = np.zeros(1, np.int64)
    workers = [()] * max(1, min(threads, chunks))  # each takes chunks from the counter
    found = (None if gauss_seidel or weighted or nnz < LAYOUT_ENTRIES
             or n <= 1 << renumber.HOT_BITS
             else renumber.layout(tindptr, tindices, n, shift=shift, derived=derived))
    if found is not None:
        c = _gathered.checkout(found.order.size)  # every entry written: no state
        run_kernel(_gather, split(found.order.size, threads), scaled, found.order, c)
        bounds = (_blocks(tindptr, chunks, shift, n, threads) if derived is None else
                  derived(("pull_affine blocks", shift, threads),
                          lambda: _blocks(tindptr, chunks, shift, n, threads)))
        count = bounds.size - 1
        run_kernel(_affine_renumbered, workers, counter, count, bounds, shift, found.bits,
                   tindptr, found.hptr, found.hot, found.cold_off, found.cold_dst,
                   found.cold_src, c, x, scale, float(alpha), const0, constv, out, out_scaled,
                   sums)
        _gathered.give_back(c, found.order.size)
    else:
        run_kernel(_affine, workers, counter, chunks, shift, tindptr, tindices, data,
                   weighted, scaled, x, scale, float(alpha), const0, constv, out, out_scaled,
                   bool(gauss_seidel), sums)
    change, total, zero = sums.sum(axis=0).tolist()  # chunk order: any number of threads
    return change, total, zero
