"""NetworkX's Floyd-Warshall triple loop, in its order, over the threads.

``floyd_warshall_predecessor_and_distance`` loops ``for w: for u: for v:`` and sets
``dist[u][v] = dist[u][w] + dist[w][v]`` (and ``pred[u][v] = pred[w][v]``) where that is
strictly smaller.  :func:`floyd_warshall_rows` runs the same loop on ``n x n`` arrays: the
same sums in the same order, so the distances are NetworkX's to the last bit and each
predecessor is the one its loop keeps among equally short paths.  With no weight below
zero, pivot ``w`` changes neither row ``w`` nor column ``w`` (``dist[w][w]`` is 0), so the
rows of one pivot are independent: each pivot is one round whose rows the threads claim a
few at a time (:func:`spbfs.cpu._spin.enter_round`), where a barrier per pivot through
Python would cost more than the loop.  The pivot at which each pair is first reached is
kept too: it orders the keys of NetworkX's predecessor dicts.
"""

from __future__ import annotations

import numpy as np

from ._atomic import fetch_add
from ._jit import kernel
from ._spin import (
    ROUND_ACTIVE,
    ROUND_DONE,
    ROUND_SEQ,
    _store,
    close_round,
    enter_round,
    round_reads,
)
from .threads import get_num_threads, run_kernel

__all__ = ["floyd_warshall_rows"]

#: Cells updated (``n ** 3``) from which the pivots' rows are split over the threads.
PARALLEL_CELLS = 1 << 21
#: Cells a claim takes at least (whole rows): a claim is an atomic add on one cache line
#: that every thread takes turns at.  On one H200's host, the 200-node graph of
#: ``bench_nx.py`` (ms, threads 1 / 4 / 8 / 16): one row a claim 3.5 / 4.3 / 3.0 / 2.7,
#: 1,024 cells 3.4 / 3.6 / 2.9 / 2.4, 4,096 cells 3.3 / 3.5 / 3.0 / 3.0: each pivot's round
#: costs about 10 us there, which bounds a graph this small.
CLAIM_CELLS = 1 << 10
#: The control block (int64): the round's state and the helpers inside it
#: (:data:`spbfs.cpu._spin.ROUND_SEQ`, ``ROUND_ACTIVE``), the rows claimed, each on its own
#: cache line; then the round's pivot and the rows a claim takes.
CLAIMED, P_PIVOT, P_CHUNK, CONTROL = 16, 24, 25, 32


@kernel
def _pivot_rows(w, lo, hi, dist, pred, reached, stamp):  # pragma: no cover - compiled
    """Pivot ``w`` on rows ``lo .. hi - 1``; a pair first reached gets ``stamp + v``.  An
    empty ``pred`` leaves the predecessors: the distances alone, a loop the compiler
    vectorises (a select of the strictly smaller sum, the same values)."""
    n = dist.shape[0]
    tracked = pred.shape[0] > 0
    dw = dist[w]
    for u in range(lo, hi):
        duw = dist[u, w]
        if duw == np.inf:  # nothing is shorter than inf + x
            continue
        du = dist[u]
        if not tracked:
            for v in range(n):
                d = duw + dw[v]
                old = du[v]
                du[v] = d if d < old else old
            continue
        pw = pred[w]
        pu = pred[u]
        ru = reached[u]
        for v in range(n):
            d = duw + dw[v]
            if du[v] > d:
                du[v] = d
                pu[v] = pw[v]
                if ru[v] < 0:
                    ru[v] = stamp + v


@kernel
def _claims(w, claimed, chunk, dist, pred, reached, base):  # pragma: no cover - compiled
    """Rows of pivot ``w`` taken ``chunk`` at a time by ``fetch_add`` on ``claimed[0]``
    until none is left."""
    n = dist.shape[0]
    while True:
        lo = fetch_add(claimed, 0, chunk)
        if lo >= n:
            return
        _pivot_rows(w, lo, min(lo + chunk, n), dist, pred, reached, base + w * n)


@kernel
def _rounds(part, ctl, reads, dist, pred, reached, base):  # pragma: no cover - compiled
    """Every pivot in one parallel call: range 0 leads, one round per pivot (the pivot
    published as the round opens, the round closed once its rows are done and the helpers
    inside it have left); the others help while they are there."""
    claimed = ctl[CLAIMED:CLAIMED + 1]
    chunk = ctl[P_CHUNK]
    if part != 0:
        last = 0
        while True:
            seq = enter_round(ctl, last, reads)
            if seq == ROUND_DONE:
                return 0
            _claims(ctl[P_PIVOT], claimed, chunk, dist, pred, reached, base)
            fetch_add(ctl, ROUND_ACTIVE, -1)
            last = seq
    seq = 0
    for w in range(dist.shape[0]):
        claimed[0] = 0  # no helper is inside a round: the last one's were waited for
        ctl[P_PIVOT] = w
        seq += 2
        _store(ctl, ROUND_SEQ, seq)  # open: the pivot is seen with it
        _claims(w, claimed, chunk, dist, pred, reached, base)
        close_round(ctl, reads)
    _store(ctl, ROUND_SEQ, ROUND_DONE)
    return 1


def floyd_warshall_rows(dist, pred, reached, base=0):
    """NetworkX's Floyd-Warshall loop on ``dist``, ``pred`` and ``reached``, in place.

    Parameters
    ----------
    dist : numpy.ndarray
        float64, ``n x n``, C-contiguous: the edge weights (the smallest of parallel
        edges), 0 on the diagonal, ``inf`` elsewhere.  No entry may be negative: a pivot
        then changes its own row, which the rounds do not allow for.
    pred : numpy.ndarray
        int64, ``n x n``: ``u`` at each edge ``(u, v)``, -1 elsewhere; or ``0 x 0`` for the
        distances alone (``reached`` is then not read).
    reached : numpy.ndarray
        int64, ``n x n``: where a pair without an edge is first reached, ``base + w * n +
        v`` is written (pivot ``w``); other entries are left as they are (-1 marks a pair
        not reached yet).
    base : int
        Added to each such position.

    Examples
    --------
    The path 0 - 1 - 2 with weights 1 and 2:

    >>> import numpy as np
    >>> inf = np.inf
    >>> dist = np.array([[0, 1, inf], [1, 0, 2], [inf, 2, 0]])
    >>> pred = np.array([[-1, 0, -1], [1, -1, 1], [-1, 2, -1]])
    >>> reached = np.full((3, 3), -1)
    >>> floyd_warshall_rows(dist, pred, reached)
    >>> dist.tolist(), pred[0].tolist(), reached[0].tolist()
    ([[0.0, 1.0, 3.0], [1.0, 0.0, 2.0], [3.0, 2.0, 0.0]], [-1, 0, 1], [-1, -1, 5])
    """
    n = dist.shape[0]
    if not n:
        return
    parts = max(1, min(get_num_threads(), n)) if n ** 3 >= PARALLEL_CELLS else 1
    ctl = np.zeros(CONTROL, np.int64)
    ctl[P_CHUNK] = max(1, n // (4 * parts), -(-CLAIM_CELLS // n))
    run_kernel(_rounds, [(t,) for t in range(parts)], ctl, round_reads(), dist, pred,
               reached, int(base))
