"""The CPU backend's ``row_mode`` (:func:`spbfs.semiring.row_mode`): one pass over each
row totalling its values in a dense array over their range, then one over the values it
met (rows of many entries split over the threads, each with its own arrays), where the
generic path sorts every entry's ``(row, value)`` pair together (and still does for a
range of values too wide for a dense array)."""

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
from .kept import KeptPool
from .products import KEPT_SCRATCH_ENTRIES, _scratch
from .quotient import tally_labels
from .threads import get_num_threads, run_kernel, run_ranges, split

__all__ = ["mode_sweeps", "modularity_sweep", "row_mode"]

#: The widest range of values totalled in a dense array (one slot per value); wider
#: ranges take the generic path.
DENSE_RANGE = 1 << 24
#: The fewest entries a thread's part of the rows holds: about 1 ms of counting, against
#: the 0.2-0.3 ms that waking sixteen workers for a Python call costs (Louvain's many
#: small classes on 16 threads took 1.31-1.54 s with parts of 2**14 entries, against
#: 1.07-1.18 s on the VM's two).
PART_ENTRIES = 1 << 17
#: A modularity sweep over this many stored entries or more runs its classes in one
#: parallel call: range 0 leads, opening a round for each class of at least
#: :data:`ROUND_ENTRIES` entries, in which every thread present scores rows
#: :data:`SWEEP_CHUNK` at a time; it scores a smaller class alone, and moves each class's
#: movers itself.
SWEEP_PARALLEL_ENTRIES = 1 << 16
ROUND_ENTRIES = 1 << 12
SWEEP_CHUNK = 32
#: A sweep's control block (int64): the round's state and the helpers inside it
#: (:data:`spbfs.cpu._spin.ROUND_SEQ`, ``ROUND_ACTIVE``), the rows claimed, each on its own
#: cache line; then the round's rows (and phase) as the leader publishes them, and the
#: call's :data:`ROUND_ENTRIES` and :data:`SWEEP_CHUNK` (read when called: a test sets them).
CLAIMED, P_LO, P_HI, P_PHASE, P_ROUND, P_CHUNK, SWEEP_CONTROL = 16, 24, 25, 26, 27, 28, 32


@kernel
def _value_range(ip, ix, x, mask):
    """The smallest and largest value the rows ``mask`` keeps read (an empty ``mask``:
    every row), ``low > high`` where none."""
    low, high = x.dtype.type(0), x.dtype.type(-1)
    for r in range(ip.size - 1):
        if ip[r + 1] == ip[r] or (mask.size and not mask[r]):
            continue
        for p in range(ip[r], ip[r + 1]):
            v = x[ix[p]]
            if high < low:
                low, high = v, v
            low, high = min(low, v), max(high, v)
    return low, high


@kernel
def _dense_totals(lo, hi, ip, ix, data, x, own, mask, cost, scale, low, seen, base, tally,
                  met, value, score, own_total):
    """Rows ``lo..hi``: row ``r`` adds each entry's weight (``data``; 1 where empty) to
    ``tally[v - low]``, reset where ``seen[v - low]`` is not its stamp ``base + r`` (every
    entry of ``seen`` below ``base``: stale), listing the slots it meets in ``met``; then
    scores them (less ``scale[r] * cost[v]`` where ``cost`` is not empty).  Returns 1 (and
    stops) at a value outside ``low .. low + seen.size - 1``, else 0."""
    span = seen.size
    for r in range(lo, hi):
        if ip[r + 1] == ip[r] or (mask.size and not mask[r]):
            continue
        stamp = base + r
        nmet = 0
        for p in range(ip[r], ip[r + 1]):
            slot = x[ix[p]] - low
            if slot < 0 or slot >= span:
                return 1
            if seen[slot] != stamp:
                seen[slot] = stamp
                tally[slot] = 0.0
                met[nmet] = slot
                nmet += 1
            tally[slot] += data[p] if data.size else 1.0
        best, top = low + met[0], -np.inf
        for k in range(nmet):
            v = low + met[k]
            s = tally[met[k]] - (scale[r] * cost[v] if cost.size else 0.0)
            if s > top or (s == top and v > best):
                best, top = v, s
        value[r] = best
        score[r] = top
        if own.size:
            slot = own[r] - low
            own_total[r] = tally[slot] if 0 <= slot < span and seen[slot] == stamp else 0.0
    return 0


U = np.uintp
ONE = U(1)
#: ``seen``'s mark of a community no row has scored yet (ids are read unsigned).
NO_ROW = np.iinfo(np.uintp).max
_NONE_INT = np.empty(0, np.int64)
_NONE_FLOAT = np.empty(0, np.float64)
_NONE_BOOL = np.empty(0, bool)


def row_mode(indptr, indices, data, x, own, mask, cost, scale, value, score, own_total):
    """:func:`spbfs.semiring.row_mode` on CSR arrays (``data``: the weights or None; ``x``,
    ``own``: int64; ``mask``: bool or None; ``cost``, ``scale``: float64 or None), into
    ``value`` / ``score`` / ``own_total``.  Returns False (the generic path) where a value
    read falls outside ``cost`` or the values span too wide a range to total densely; True
    when done.

    Examples
    --------
    >>> import numpy as np
    >>> value, count = np.full(2, -1), np.zeros(2, np.int64)
    >>> row_mode(np.array([0, 3, 3]), np.array([0, 1, 2]), None, np.array([4, 6, 4]), None,
    ...          None, None, None, value, count, None)
    True
    >>> value.tolist(), count.tolist()
    ([4, -1], [2, 0])
    """
    own = _NONE_INT if own is None else own
    mask = _NONE_BOOL if mask is None else mask
    nrows = indptr.size - 1
    if cost is not None and cost.size <= DENSE_RANGE:
        low, span = 0, int(cost.size)  # the values index ``cost``: checked as they are read
    else:
        low, high = _value_range(indptr, indices, x, mask)
        if high < low:  # every row empty or masked out
            return True
        low, span = int(low), int(high) - int(low) + 1
        if span > DENSE_RANGE or (cost is not None and (low < 0 or high >= cost.size)):
            return False
    # parts of at least PART_ENTRIES entries, whose scratch arrays (one slot per value each)
    # stay within the kept ones
    parts = min(get_num_threads(), int(indices.size) // PART_ENTRIES,
                KEPT_SCRATCH_ENTRIES // span)
    ranges = split(nrows, max(parts, 1), weights=indptr)
    widest = min(int(np.diff(indptr).max()), span) if nrows else 0
    totals = score if score.dtype == np.float64 else np.zeros(score.size)
    own_totals = own_total if own_total is None or own_total.dtype == np.float64 else (
        np.zeros(own_total.size))
    work = _scratch(span, np.float64, len(ranges), nrows, False)
    data = _NONE_FLOAT if data is None else np.asarray(data, np.float64)
    cost = _NONE_FLOAT if cost is None else cost
    scale = _NONE_FLOAT if scale is None else scale
    out = _NONE_FLOAT if own_totals is None else own_totals
    bad = run_ranges(lambda lo, hi, seen, tally, base: _dense_totals(
        lo, hi, indptr, indices, data, x, own, mask, cost, scale, np.int64(low), seen[:span],
        base, tally[:span], np.empty(widest, np.int64), value, totals, out),
        [(lo, hi, *part) for (lo, hi), part in zip(ranges, work, strict=True)])
    if any(bad):
        return False
    if totals is not score:
        score[:] = totals
        if own_total is not None:
            own_total[:] = own_totals
    return True


@kernel
def _choose(lo, hi, ip, ix, order, x, marked, count, met, chosen):
    """Rows ``order[lo:hi]`` of a class: a marked row is unmarked and, where its own value
    does not tie for its columns' most frequent one, ``chosen[k]`` is the most frequent
    (the largest among those tied); else -1.  ``count`` (zero, one slot per value) is left
    zero."""
    for k in range(lo, hi):
        chosen[k] = -1
        r = U(order[k])  # ids read unsigned: no negative-index test a read
        if not marked[r]:
            continue
        marked[r] = False
        p0, p1 = U(ip[r]), U(ip[r + ONE])
        if p1 == p0:
            continue
        nmet = 0
        for p in range(p0, p1):
            v = U(x[U(ix[p])])
            if count[v] == 0:
                met[nmet] = v
                nmet += 1
            count[v] += 1
        best, top = U(met[0]), 0
        for m in range(nmet):
            v = U(met[m])
            if count[v] > top or (count[v] == top and v > best):
                best, top = v, count[v]
        own = count[U(x[r])]
        for m in range(nmet):
            count[U(met[m])] = 0
        if own < top:  # kept where it ties for the top
            chosen[k] = best
    return 0


@kernel
def _move(lo, hi, ip, ix, order, x, chosen, marked, class_of, todo):
    """Rows ``order[lo:hi]`` with a ``chosen`` value take it and mark their columns (and
    the columns' classes as to do).  Threads mark the same flags alike."""
    for k in range(lo, hi):
        if chosen[k] < 0:
            continue
        r = U(order[k])
        x[r] = chosen[k]
        for p in range(U(ip[r]), U(ip[r + ONE])):
            j = U(ix[p])
            marked[j] = True
            c = class_of[j]
            if c >= 0:
                todo[U(c)] = True
    return 0


def _control():
    """A sweep call's control block (:data:`SWEEP_CONTROL`), its round size and chunk set."""
    ctl = np.zeros(SWEEP_CONTROL, np.int64)
    ctl[P_ROUND], ctl[P_CHUNK] = ROUND_ENTRIES, SWEEP_CHUNK
    return ctl


@kernel
def _mode_claims(part, phase, lo, hi, claimed, chunk, ip, ix, order, x, marked, counts, mets,
                 chosen, class_of, todo):  # pragma: no cover - compiled
    """Rows of ``order[lo:hi]`` taken ``chunk`` at a time by ``fetch_add`` on
    ``claimed[0]`` until none is left: each chunk chooses (``phase`` 0, :func:`_choose`,
    row ``part`` of the scratch arrays) or moves (``phase`` 1, :func:`_move`)."""
    while True:
        q0 = lo + fetch_add(claimed, 0, chunk)
        if q0 >= hi:
            return 0
        q1 = min(q0 + chunk, hi)
        if phase == 0:
            _choose(q0, q1, ip, ix, order, x, marked, counts[part], mets[part], chosen)
        else:
            _move(q0, q1, ip, ix, order, x, chosen, marked, class_of, todo)


@kernel
def _mode_rounds(part, ctl, reads, ip, ix, order, bounds, reach, x, marked, counts, mets,
                 chosen, class_of, todo, max_sweeps):  # pragma: no cover - compiled
    """:func:`mode_sweeps`' sweeps in one parallel call.  Range 0 leads: class by class of
    every sweep (those marked to do), a class of :data:`ROUND_ENTRIES` entries or more
    chooses in one round and moves in another (its rows published with the phase; the
    threads present take chunks), a smaller one chooses and moves alone.  The others help
    (:func:`spbfs.cpu._spin.enter_round`).  Returns 1 when settled (the leader's range)."""
    claimed = ctl[CLAIMED:CLAIMED + 1]
    if part != 0:
        last = 0
        while True:
            seq = enter_round(ctl, last, reads)
            if seq == ROUND_DONE:
                return 0
            _mode_claims(part, ctl[P_PHASE], ctl[P_LO], ctl[P_HI], claimed, ctl[P_CHUNK], ip,
                         ix, order, x, marked, counts, mets, chosen, class_of, todo)
            fetch_add(ctl, ROUND_ACTIVE, -1)
            last = seq
    seq = 0
    settled = 0
    for sweep in range(max_sweeps + 1):
        settled = 1
        for c in range(todo.size):
            if todo[c]:
                settled = 0
                break
        if settled or sweep == max_sweeps:
            break
        for c in range(todo.size):
            if not todo[c]:
                continue
            todo[c] = False
            lo, hi = bounds[c], bounds[c + 1]
            if reach[hi] - reach[lo] < ctl[P_ROUND]:
                _choose(lo, hi, ip, ix, order, x, marked, counts[0], mets[0], chosen)
                _move(lo, hi, ip, ix, order, x, chosen, marked, class_of, todo)
                continue
            for phase in range(2):
                claimed[0] = 0  # no helper is inside a round: the last one's were waited for
                ctl[P_LO] = lo
                ctl[P_HI] = hi
                ctl[P_PHASE] = phase
                seq += 2
                _store(ctl, ROUND_SEQ, seq)  # open: the published rows are seen with it
                _mode_claims(part, phase, lo, hi, claimed, ctl[P_CHUNK], ip, ix, order, x,
                             marked, counts, mets, chosen, class_of, todo)
                close_round(ctl, reads)
    _store(ctl, ROUND_SEQ, ROUND_DONE)
    return settled


def mode_sweeps(indptr, indices, order, bounds, x, max_sweeps):
    """:func:`spbfs.semiring.mode_sweeps` on CSR arrays (``x``: int64, updated in place;
    ``order``: the classes' rows one class after another, ``bounds``: where each class
    starts, then ``order.size``): every sweep in one call (:func:`_mode_rounds`), parallel
    from :data:`SWEEP_PARALLEL_ENTRIES` entries, a class's rows choosing (then moving)
    together, values counted in a dense int32 array per thread (a count is at most a
    row's length).  Returns True when settled, False when ``max_sweeps`` ran out, None
    (``x`` untouched: the generic path) at a value outside ``0 .. n-1``.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.arange(3)   # a path 0 - 1 - 2, classes {1} then {0, 2}
    >>> mode_sweeps(np.array([0, 1, 3, 4]), np.array([1, 0, 2, 1]), np.array([1, 0, 2]),
    ...             np.array([0, 1, 3]), x, 10), x.tolist()
    (True, [2, 2, 2])
    """
    n = x.size
    if n and (int(x.min()) < 0 or int(x.max()) >= n):
        return None
    wide = x
    # values below 2**31 in 4 bytes: half the cache lines that the counting reads at random
    x = x.astype(np.int32) if n < 2**31 else x
    bounds = np.asarray(bounds, np.int64)
    classes = bounds.size - 1
    class_of = np.full(n, -1, np.int32 if classes < 2**31 else np.int64)
    class_of[order] = np.repeat(np.arange(classes, dtype=class_of.dtype), np.diff(bounds))
    degree = np.diff(indptr)[order]
    reach = np.zeros(order.size + 1, np.int64)  # entries of order[:k]
    np.cumsum(degree, out=reach[1:])
    parts = max(1, min(get_num_threads(), KEPT_SCRATCH_ENTRIES // max(n, 1)))
    if indices.size < SWEEP_PARALLEL_ENTRIES:
        parts = 1
    widest = max(int(degree.max()) if degree.size else 0, 1)
    ctl = _control()
    settled = run_kernel(_mode_rounds, [(t,) for t in range(parts)], ctl, round_reads(),
                         indptr, indices, order, bounds, reach, x, np.ones(n, bool),
                         np.zeros((parts, n), np.int32), np.empty((parts, widest), x.dtype),
                         np.empty(order.size, x.dtype), class_of, np.ones(classes, bool),
                         int(max_sweeps))[0]
    wide[:] = x
    return bool(settled)


@kernel
def _score(lo, hi, part, ip, ix, w, order, comm, k, sigma, factor, seen, tally, met,
           moves):  # pragma: no cover - compiled
    """Rows ``order[lo:hi]`` of one class score the communities of their columns (``tally``
    per community, ``seen`` its row stamp, row ``part`` of each scratch array): a row that
    gains by moving proposes its best community (:func:`_proposals`), else its target is
    -1.  Reads ``comm`` and ``sigma`` only, so parts of a class score side by side.  Ids
    are read unsigned (:func:`spbfs.cpu.quotient.tally_labels`)."""
    target, owns, gains, margins = moves
    seen, tally, met = seen[part], tally[part], met[part]
    for q in range(lo, hi):
        target[q] = -1
        r = U(order[q])
        p0, p1 = U(ip[r]), U(ip[r + ONE])
        if p1 == p0:
            continue
        nmet = tally_labels(p0, p1, ix, comm, w, r, seen, tally, met, 0)
        scale = factor * k[r]
        best, top = U(met[0]), -np.inf
        for m in range(nmet):
            cid = U(met[m])
            s = tally[cid] - scale * sigma[cid]
            if s > top or (s == top and cid > best):
                best, top = cid, s
        own = U(comm[r])
        w_own = tally[own] if seen[own] == r else 0.0
        stay = w_own - scale * (sigma[own] - k[r])
        if top > stay + 1e-12 and best != own:
            target[q], owns[q] = best, own
            gains[q] = top + scale * sigma[best] - w_own
            margins[q] = top - stay
        for m in range(nmet):  # stamps of this row: a later row is another
            seen[U(met[m])] = NO_ROW
    return 0


@kernel
def _apply(lo, hi, order, comm, k, sigma, factor, moves, claims,
           firsts):  # pragma: no cover - compiled
    """The proposals of rows ``order[lo:hi]`` (``moves``, :func:`_proposals`) that move
    (:func:`spbfs.semiring.modularity_sweep`'s rule: the class's first proposer into its
    target and out of its own community, or a margin that covers the others' claims on
    both), moved in row order.  ``claims`` (the ``k`` proposed into and out of each
    community) and ``firsts`` (each one's first proposer) are all 0 and -1 again on
    return.  Returns ``(moved, gain)``."""
    target, owns, gains, margins = moves
    for q in range(lo, hi):
        if target[q] < 0:
            continue
        to, own, kr = U(target[q]), U(owns[q]), k[U(order[q])]
        claims[0, to] += kr
        claims[1, own] += kr
        if firsts[0, to] < 0:
            firsts[0, to] = q
        if firsts[1, own] < 0:
            firsts[1, own] = q
    moved, gain = 0, 0.0
    for q in range(lo, hi):
        if target[q] < 0:
            continue
        r, to, own = U(order[q]), U(target[q]), U(owns[q])
        first = firsts[0, to] == q and firsts[1, own] == q
        if first or margins[q] > factor * k[r] * (claims[0, to] + claims[1, own] - 2 * k[r]):
            gain += 2.0 * gains[q]
            sigma[own] -= k[r]
            comm[r] = to
            sigma[to] += k[r]
            moved += 1
    for q in range(lo, hi):
        if target[q] >= 0:
            claims[0, U(target[q])] = claims[1, U(owns[q])] = 0.0
            firsts[0, U(target[q])] = firsts[1, U(owns[q])] = -1
    return moved, gain


@kernel
def _score_claims(part, lo, hi, claimed, chunk, ip, ix, w, order, comm, k, sigma, factor,
                  seen, tally, met, moves):  # pragma: no cover - compiled
    """Rows of ``order[lo:hi]`` scored (:func:`_score`) ``chunk`` at a time, each chunk
    taken by ``fetch_add`` on ``claimed[0]``, until none is left."""
    while True:
        q0 = lo + fetch_add(claimed, 0, chunk)
        if q0 >= hi:
            return 0
        _score(q0, min(q0 + chunk, hi), part, ip, ix, w, order, comm, k, sigma, factor,
               seen, tally, met, moves)


@kernel
def _sweep_rounds(part, ctl, reads, ip, ix, w, order, bounds, comm, k, sigma, factor, seen,
                  tally, met, target, owns, gains, margins, claims, firsts,
                  gain):  # pragma: no cover - compiled
    """A sweep's classes in one parallel call: range 0 leads (:func:`_sweep_lead`), the
    others help (:func:`_sweep_help`).  Returns the rows moved (the leader's range)."""
    claimed = ctl[CLAIMED:CLAIMED + 1]
    moves = (target, owns, gains, margins)
    if part == 0:
        return _sweep_lead(part, ctl, claimed, reads, ip, ix, w, order, bounds, comm, k,
                           sigma, factor, seen, tally, met, moves, claims, firsts, gain)
    return _sweep_help(part, ctl, claimed, reads, ip, ix, w, order, comm, k, sigma, factor,
                       seen, tally, met, moves)


@kernel
def _sweep_lead(part, ctl, claimed, reads, ip, ix, w, order, bounds, comm, k, sigma, factor,
                seen, tally, met, moves, claims, firsts, gain):  # pragma: no cover - compiled
    """The leading range: class by class, a class of :data:`ROUND_ENTRIES` entries or more
    published (a round opened), its share scored, the round closed and the helpers inside
    it waited for (:func:`spbfs.cpu._spin.close_round`); a smaller class scored alone;
    then the class's proposers moved in row order (:func:`_apply`).  ``gain[0]`` is the
    sweep's gain and the rounds are over (``ROUND_DONE``) as it returns the rows moved."""
    moved, total = 0, 0.0
    seq = 0
    for c in range(bounds.size - 1):
        lo, hi = bounds[c], bounds[c + 1]
        entries = 0
        for q in range(lo, hi):
            r = U(order[q])
            entries += ip[r + ONE] - ip[r]
        if entries < ctl[P_ROUND]:
            _score(lo, hi, part, ip, ix, w, order, comm, k, sigma, factor, seen, tally, met,
                   moves)
        else:
            claimed[0] = 0  # no helper is inside a round: the last one's were waited for
            ctl[P_LO] = lo
            ctl[P_HI] = hi
            seq += 2
            _store(ctl, ROUND_SEQ, seq)  # open: the published class is seen with it
            _score_claims(part, lo, hi, claimed, ctl[P_CHUNK], ip, ix, w, order, comm, k,
                          sigma, factor, seen, tally, met, moves)
            close_round(ctl, reads)
        m, g = _apply(lo, hi, order, comm, k, sigma, factor, moves, claims, firsts)
        moved += m
        total += g
    gain[0] = total
    _store(ctl, ROUND_SEQ, ROUND_DONE)
    return moved


@kernel
def _sweep_help(part, ctl, claimed, reads, ip, ix, w, order, comm, k, sigma, factor, seen,
                tally, met, moves):  # pragma: no cover - compiled
    """A helping range: it joins each open round it sees
    (:func:`spbfs.cpu._spin.enter_round`), scores chunks of its class and leaves, until the
    rounds are over.  A helper that starts late, or never, only scores less: the leader
    waits for none but those inside a round."""
    last = 0
    while True:
        seq = enter_round(ctl, last, reads)
        if seq == ROUND_DONE:
            return 0
        _score_claims(part, ctl[P_LO], ctl[P_HI], claimed, ctl[P_CHUNK], ip, ix, w, order,
                      comm, k, sigma, factor, seen, tally, met, moves)
        fetch_add(ctl, ROUND_ACTIVE, -1)
        last = seq


#: Each thread's scratch of a threaded sweep (a stamp and a total per community, and the
#: communities a row meets), kept between sweeps: made anew, the stamps' fill cost about
#: what a sweep of a small level does.
_sweep_scratch = KeptPool(lambda parts, size, widest: (
    np.full((parts, size), NO_ROW, np.uintp), np.zeros((parts, size)),
    np.empty((parts, widest), np.int64)), keep=2)
#: The leader's claims on each community, kept as :func:`_apply` leaves them (0 and -1).
_claim_scratch = KeptPool(lambda size: (np.zeros((2, size)), np.full((2, size), -1, np.int64)),
                          keep=2)


def modularity_sweep(indptr, indices, data, order, bounds, comm, k, sigma, factor):
    """:func:`spbfs.semiring.modularity_sweep` on CSR arrays (``order``: the classes' rows
    one class after another, ``bounds``: where each starts, then ``order.size``; ``comm``,
    ``sigma`` changed in place).  Returns ``(moved, gain)``.

    The whole sweep is one call (:func:`_sweep_rounds`), parallel from
    :data:`SWEEP_PARALLEL_ENTRIES` entries, each thread with its own scratch arrays.
    Scoring reads nothing a thread writes and the movers move in row order, so the result
    is the same to the last bit on any number of threads.

    Examples
    --------
    >>> import numpy as np
    >>> comm, k = np.arange(3), np.array([1.0, 2.0, 1.0])   # a path 0 - 1 - 2
    >>> sigma = k.copy()
    >>> modularity_sweep(np.array([0, 1, 3, 4]), np.array([1, 0, 2, 1]), np.ones(4),
    ...                  np.array([1, 0, 2]), np.array([0, 1, 3]), comm, k, sigma, 0.25)
    (2, 4.0)
    """
    n, size = comm.size, sigma.size
    bounds = np.asarray(bounds, np.int64)
    widest = max(int(np.diff(indptr).max()) if n else 0, 1)
    moves = (np.empty(order.size, np.int64), np.empty(order.size, np.int64),
             np.empty(order.size), np.empty(order.size))   # target, owns, gains, margins
    args = (indptr, indices, data, order, bounds, comm, k, sigma, float(factor))
    parts = max(1, min(get_num_threads(), KEPT_SCRATCH_ENTRIES // max(size, 1)))
    if indices.size < SWEEP_PARALLEL_ENTRIES:
        parts = 1
    scratch, claims = _sweep_scratch.checkout(parts, size, widest), _claim_scratch.checkout(size)
    out = np.zeros(1)
    moved = run_kernel(_sweep_rounds, [(t,) for t in range(parts)], _control(), round_reads(),
                       *args, *scratch, *moves, *claims, out)[0]
    _sweep_scratch.give_back(scratch, parts, size, widest)
    _claim_scratch.give_back(claims, size)
    return int(moved), float(out[0])
