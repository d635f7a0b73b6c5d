"""The GPU backend's peeling (:func:`spbfs.semiring.peel` whole): a queue of removed vertices
on the device, a thread an arc of the round's vertices (a hub's row spread like any other);
rounds of many vertices or arcs run over the whole grid (a prefix sum of the degrees, a
launch per CSR and a read of the queue's end each), and runs of small rounds (a deep DAG's)
in one block that passes from round to round at a barrier.  Without lock step
(``lockstep=False``), one launch peels in any order: a warp takes the next queue slot,
waits for it to be written and subtracts the arcs of its item (a vertex's row, or a chunk
of a long one): a deep DAG costs the latency of its longest path, not a launch or a
barrier a round.  The kernels are in ``peel_kernels.cu``.
"""

from __future__ import annotations

import numpy as np

from . import kernels

__all__ = ["peel"]

#: A round of at most 1,024 vertices (``PEEL_BLOCK`` in the kernels) and this many arcs runs
#: in the one-block kernel; 0 sends every round to the grid.
BLOCK_ARCS = 1 << 16
_BLOCK_THREADS = 1024
_THREADS = 256
_MODES = {"min": 1, "max": 2}
#: Without lock step, rounds of more vertices than this run as in lock step (a round over
#: the grid: wide rounds would queue their appends on one counter), the rest in one launch
#: of ``peel_any``.  ``peel_any``'s counters lie ``_ANY_LINE`` words apart (``ANY_LINE``);
#: its blocks of ``ANY_THREADS``, ``ANY_BLOCKS`` a multiprocessor, a warp an item (blocks
#: of 128-512 threads within 5 % of each other on the scale-20 DAG on an H200).
ANY_FROM = 1 << 13
_ANY_LINE = 16
ANY_THREADS, ANY_BLOCKS = 256, 2
#: Arcs of a ``peel_any`` item ``vertex | chunk << 32`` (``ANY_CHUNK`` in the kernels: 32
#: lanes of 8): a hub's row spreads over a warp per chunk.
ANY_CHUNK = 256
#: A count no subtraction brings to zero: the one-CSR kernel's inactive vertices.
_OUT_OF_REACH = 1 << 62
#: Added to the rounds of the slots given to ``peel_any`` (``ANY_LAUNCHED``): no arc's
#: round raises them.
_ANY_LAUNCHED = 1 << 40


def peel(ip0, ix0, deg0, ip1, ix1, deg1, active, removed, values=None, monoid=None,
         max_rounds=-1, lockstep=True):
    """Subtract the arcs of ``removed`` (row ``u`` of the first CSR counts against ``deg0``,
    of the second against ``deg1``, for active targets only), then remove every active
    vertex left at zero, until none is; ``deg0``, ``deg1`` (int64) and ``active`` are
    updated in place.  With int64 ``values`` and a ``min``/``max`` ``monoid``, every arc
    ``u -> v`` of the first CSR to an active ``v`` also folds ``values[u]`` into
    ``values[v]``.  Returns ``(vertices removed here, their rounds)`` (``removed`` is round
    0), round after round; None where the kernels do not apply (another monoid or dtype,
    an ``active`` not aligned to 4 bytes): the generic path runs.  With ``max_rounds``
    (-1: none), the arcs of round ``max_rounds - 1`` are not subtracted.  ``lockstep``
    False (without ``max_rounds``): rounds of more than :data:`ANY_FROM` vertices as
    before, then :func:`_peel_any` (a vertex it removes has a round above every earlier
    one, so the rounds already counted against it change nothing).

    Examples
    --------
    >>> import cupy                                                     # doctest: +SKIP
    >>> ip, ix = cupy.array([0, 1, 2, 2]), cupy.array([1, 2])  # 0 -> 1 -> 2  # doctest: +SKIP
    >>> indeg = cupy.array([0, 1, 1]); active = cupy.array([False, True, True])  # doctest: +SKIP
    >>> ids, rounds = peel(ip, ix, indeg, ip[:1], ix[:0], indeg, active,
    ...                    cupy.array([0]))                            # doctest: +SKIP
    >>> ids.tolist(), rounds.tolist()                                   # doctest: +SKIP
    ([1, 2], [1, 2])
    """
    import cupy

    mode = 0
    if values is not None:
        mode = _MODES.get(getattr(monoid, "name", None), 0)
        if not mode or values.dtype != np.int64 or not values.flags.c_contiguous:
            return None
    if active.data.ptr % 4 or not active.flags.c_contiguous:
        return None
    second = ix1.size > 0
    if second and (ip1.dtype != ip0.dtype or ix1.dtype != ix0.dtype):
        ip1, ix1 = ip1.astype(ip0.dtype), ix1.astype(ix0.dtype)
    n, k = active.size, removed.size
    module = kernels.peel_module(ix0.dtype, ip0.dtype)
    null = np.uint64(0)
    folded = values if mode else null
    any_from = ANY_FROM if not lockstep and max_rounds == -1 and n < 1 << 32 else -1
    queue = cupy.empty(n + k, np.int64)
    queue[:k] = removed
    rounds = cupy.zeros(n + k, np.int64)
    tail = cupy.full(1, k, np.int64)
    stopped = cupy.empty(3, np.int64)
    pairs = [(ip0, ix0, deg0, mode)] + ([(ip1, ix1, deg1, 0)] if second else [])
    block_args = (ip0, ix0, deg0, ip1 if second else null, ix1 if second else null,
                  deg1 if second else null, active, folded, np.int32(mode), queue, rounds, tail)
    cap = int(max_rounds)
    lo, hi, r = 0, k, 0
    grid_next = BLOCK_ARCS <= 0
    while lo < hi and r + 1 != cap:
        if hi - lo <= any_from:
            arcs = ix0.size + (ix1.size if second else 0)
            return _peel_any(module, block_args[:9], n, arcs, queue, rounds, k, lo, hi)
        if hi - lo <= _BLOCK_THREADS and not grid_next:
            module.get_function("peel_block")(
                (1,), (_BLOCK_THREADS,),
                block_args + (np.int64(lo), np.int64(hi), np.int64(r), np.int64(cap),
                              np.int64(BLOCK_ARCS), stopped))
            was = (lo, hi, r)
            lo, hi, r = (int(x) for x in stopped.get())
            grid_next = (lo, hi, r) == was or BLOCK_ARCS <= 0  # too many arcs for a block
            continue
        items = queue[lo:hi]
        for ip, ix, deg, fold in pairs:
            offs, total = kernels.edge_offsets(ip, items)
            if total:
                module.get_function("peel_arcs")(
                    (kernels.blocks(total, threads=_THREADS),), (_THREADS,),
                    (ip, ix, deg, active, folded, np.int32(fold), queue, rounds, tail,
                     np.int64(lo), np.int64(hi - lo), offs, np.int64(total), np.int64(r + 1)))
        lo, hi, r = hi, int(tail.get()[0]), r + 1
        grid_next = BLOCK_ARCS <= 0
    end = int(tail.get()[0])
    return queue[k:end], rounds[k:end]


def _peel_any(module, graph_args, n, arcs, queue, rounds, k, lo, hi):
    """The rest of the peel of ``n`` vertices and ``arcs`` arcs in one launch of
    ``peel_any`` (``graph_args``: the CSRs, their counts, ``active``, the folded values and
    the mode, as ``peel_block`` takes them) from the queue's slots ``[lo, hi)`` (their
    rounds set), vertices removed as they reach zero, a warp a queue item (a chunk of
    :data:`ANY_CHUNK` arcs of a vertex's rows), over a grid that fills every
    multiprocessor (a warp waits only on a slot it has taken, written by a warp that took
    an earlier one and so is running: no wait holds up the warps it waits for).  With one
    CSR the kernel reads no target's active byte: it works on copies of the counts, the
    inactive ones out of reach, and of the values, copied back for the vertices active at
    the launch.  Returns ``(vertices, rounds)`` from slot ``k`` on."""
    import cupy

    ip0, ix0, deg0, ip1, ix1, deg1, active, folded, mode = graph_args
    checked = ix1.ndim > 0
    values = folded
    if not checked:
        launched = active.copy()
        deg0, counts = cupy.where(active, deg0, _OUT_OF_REACH), deg0
        if mode:
            folded = folded.copy()
    items = cupy.full(queue.size + arcs // ANY_CHUNK + 1, -1, np.int64)  # + later chunks
    items[:hi] = queue[:hi]
    steps = cupy.zeros(items.size, np.int64)
    steps[:hi] = rounds[:hi]
    reach = cupy.zeros(n, np.int64)
    reach[items[lo:hi]] = steps[lo:hi] + _ANY_LAUNCHED
    counters = cupy.zeros(5 * _ANY_LINE, np.int64)   # head, tail, done, finished, overflow
    counters[0], counters[_ANY_LINE], counters[2 * _ANY_LINE] = lo, hi, lo
    module.get_function("peel_any")(
        (kernels.sm_count() * ANY_BLOCKS,), (ANY_THREADS,),
        (ip0, ix0, deg0, ip1, ix1, deg1, active, folded, values, mode, reach, items, steps,
         counters, np.int64(items.size)))
    end, overflow = (int(x) for x in counters[_ANY_LINE::3 * _ANY_LINE].get())
    if overflow:
        raise ValueError("removed must hold distinct vertices (a vertex given twice)")
    items, steps = items[k:end], steps[k:end]
    vertex = items < (1 << 32)   # chunk 0: the vertex itself
    items, steps = items[vertex], steps[vertex]
    if not checked:
        active[items] = False
        counts[...] = cupy.where(launched, cupy.where(active, deg0, 0), counts)
        if mode:
            values[...] = cupy.where(launched, folded, values)
    return items, steps
