"""Distributed direction-optimising BFS on a :class:`~spbfs.dist.DistGraph`.

Each rank searches its local vertex space (its normal vertices, then every delegate) with
the single-device level search, :func:`spbfs.semiring.level_search` on the rank's
``local`` matrix (:mod:`spbfs.dist.layout`): on GPU ranks the bitmap kernels of
:func:`spbfs.bfs`, on CPU ranks the masked ``vxm`` of :mod:`spbfs.semiring`.  One level, on
every rank:

1. the frontier is pushed through the ``remote`` matrix (``nn`` edges to other ranks'
   normals): targets already sent in this search are culled by a bitmap, the rest grouped
   by owner (``LevelSearch.push_out``); one host read gives their counts per owner with the
   frontier's sizes, and one allgather exchanges the counts and tells whether any rank
   still has a frontier;
2. the all-to-all-v of the targets starts (NCCL: on a side stream) while the local level
   runs, pushing or pulling by Beamer's rule on this rank's own sizes
   (:func:`spbfs.algorithms.bfs.beamer_pull`);
3. the delegates' visited bits (whole bitmap words) are OR-reduced over the ranks and the
   received targets and new delegates join the level (``claim``, ``claim_words``).

Parents are stored as global ids by the search itself (``parent_ids`` of
:func:`~spbfs.semiring.level_search`, built per graph as ``G.parent_ids``), so those of normals
travel with the targets as they are; a delegate's parent is settled at the end by one
sparse exchange: each rank sends the delegates it found itself, with their parents, to
their owners.
"""

from __future__ import annotations

import functools
import os
import time

import numpy as np

from ..core.validation import UNREACHED, check_choice, check_positive, check_source
from ..algorithms._shared import ALPHA, BETA, beamer_pull
from ..semiring import any_pair, any_secondi, level_search

__all__ = ["ALPHA", "BETA", "bfs"]

#: ``SPBFS_DIST_PROFILE=1``: synchronise after every phase of a level and report the
#: seconds per phase in ``stats["phases"]`` (slower; what bench_dist's split reports).
PROFILE = os.environ.get("SPBFS_DIST_PROFILE") == "1"


def bfs(G, source, *, return_parents=False, direction="auto", alpha=ALPHA, beta=BETA,
        stats=None):
    """Breadth-first search from ``source`` over a distributed graph (collective).

    Parameters
    ----------
    G : DistGraph
    source : int
        Global id of the start vertex; the same on every rank.
    return_parents : bool
        Also return the BFS tree (Graph500 parents).
    direction : {"auto", "push", "pull"}
        Direction of each rank's local level (the ``remote`` edges always push).
        ``"auto"``: each rank by Beamer's rule on its own sizes.
    alpha, beta : float
        Beamer's factors, as :func:`spbfs.bfs`.
    stats : dict, optional
        Filled with this rank's ``levels``, ``time``, ``comm_time``, ``compute_time``,
        ``bytes_sent``, the per-level ``directions`` and, with :data:`PROFILE`, the seconds
        per ``phases``.

    Returns
    -------
    levels : array
        Level of each vertex this rank owns (local-id order); -1 where unreachable.
    parents : array, optional
        Parent (global id) of each owned vertex; the source is its own parent, -1 where
        unreachable.  :meth:`DistGraph.gather` assembles the full arrays on one rank.

    Raises
    ------
    ValueError, TypeError
        The same exception on every rank (one allgather decides before the search): an
        invalid argument on some rank (the lowest such rank's message), or ``source``,
        ``return_parents``, ``direction``, ``alpha``, ``beta`` or the graph differing
        between ranks
        (``"source differs between ranks: [3, 3, 4]"``).

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs import dist
    >>> u, v = np.array([0, 0, 0, 1, 4]), np.array([1, 2, 3, 2, 5])
    >>> G = dist.DistGraph.from_edges(u, v, 6, threshold=2)
    >>> levels, parents = dist.bfs(G, 1, return_parents=True)
    >>> G.gather(levels).tolist(), G.gather(parents).tolist()
    ([1, 0, 1, 2, -1, -1], [1, 1, 1, 0, -1, -1])
    """
    c = G.comm
    error = None
    try:
        check_choice(direction, "direction", ("auto", "push", "pull"))
        alpha = check_positive(alpha, "alpha")
        beta = check_positive(beta, "beta")
        source = check_source(source, G.n)
    except (TypeError, ValueError) as e:
        error = e
    # one allgather: the same error on every rank, or arguments that agree between ranks
    c.agree({"graph (n, delegates)": (G.n, G.D), "source": source,
             "return_parents": bool(return_parents), "direction": direction,
             "alpha": alpha, "beta": beta}, error=error)
    want_p = bool(return_parents)
    comm0, bytes0 = c.comm_time, c.bytes_sent
    c.sync()
    t0 = time.perf_counter()
    phases = {}
    sd = int(G.delegate_number([source])[0])
    levels, parents, depth, dirs = _search(G, source, sd, want_p, direction, alpha, beta,
                                           phases)
    c.sync()
    elapsed = time.perf_counter() - t0
    if stats is not None:
        comm_t = c.comm_time - comm0
        stats.update(levels=depth, time=elapsed, comm_time=comm_t,
                     compute_time=elapsed - comm_t, bytes_sent=c.bytes_sent - bytes0,
                     directions=dirs, source_is_delegate=sd >= 0,
                     phases=phases)
    return (levels, parents) if want_p else levels


class _Phases:
    """Seconds per phase when :data:`PROFILE` is on (a device sync at each mark)."""

    def __init__(self, c, out):
        self.c, self.out, self.t = c, out, time.perf_counter() if PROFILE else 0.0

    def __call__(self, name):
        if PROFILE:
            self.c.sync()
            t = time.perf_counter()
            self.out[name] = self.out.get(name, 0.0) + t - self.t
            self.t = t


def _search(G, source, sd, want_p, direction, alpha, beta, phases):
    """The level loop from ``source`` (delegate number ``sd``, -1 for a normal vertex);
    returns the owned vertices' levels and parents, the depth and each level's direction."""
    c, lay = G.comm, G.layout
    P, rank, L, R = G.P, G.rank, G.layout.local, G.layout.remote
    if sd >= 0:
        start = lay.n_pad + sd
    else:
        start = source // P if source % P == rank else None
    dword0, dwords = lay.n_pad // 32, lay.d_words if P > 1 else 0
    mark = _Phases(c, phases)
    dirs = []
    semiring = any_secondi if want_p else any_pair
    with level_search(L, start, semiring, values=want_p,
                      transpose=G.directed and direction != "push",
                      parent_ids=G.parent_ids if want_p else None) as s:
        nf = mf = prev_nf = 0
        mu = L.nnz
        pulling = direction == "pull"
        level = 0

        def advance():
            # the local level, by Beamer's rule on this rank's sizes
            nonlocal level, pulling
            level += 1
            if direction == "auto" and level > 1:
                pulling = beamer_pull(pulling, nf, prev_nf, mf, mu, L.n, alpha, beta)
            dirs.append("pull" if pulling else "push")
            s.advance(pulling)

        while True:
            if R is not None:
                s.push_out(R, P)
                mark("remote push")
            with c.watch("level exchange (all-to-all-v, delegate OR)"):   # the level's host wait
                for found, out_edges, in_edges in s.sizes():
                    mu -= in_edges
                    prev_nf, nf, mf = nf, found, out_edges
            mark("frontier sizes")
            send = None
            if R is not None:
                targets, rows, counts, starts = s.sent()   # rows: the parents' global ids
                send = [targets, rows] if want_p else [targets]
            ready = c.ready()   # the send buffers: the exchange waits for nothing later
            # a frontier here means another level: the local level starts before the count
            # exchange, which it hides (an empty one waits: the search may be over)
            if nf:
                advance()
                mark("local level")
            rc, active = c.exchange_counts(counts if send else np.zeros(P, np.int64), nf)
            mark("exchange counts")
            if active == 0:
                break
            if not nf:
                advance()
            exchange = (c.alltoallv_start(send, counts, rc, after=ready, starts=starts)
                        if send else None)
            mark("alltoallv start")
            merged = c.or_words_start(s.visited_words(dword0, dwords)) if dwords else None
            if exchange is not None:
                recv = exchange.wait()
                mark("alltoallv")
                s.claim(recv[0], recv[1] if want_p else None)
                mark("claim")
            if merged is not None:
                words = merged.wait()
                mark("delegate OR")
                s.claim_words(dword0, words)
                mark("claim")
        out = _owned(G, s.levels, s.parents if want_p else None, mark)
    return (*out, level - 1 if level else 0, dirs)


@functools.cache
def _kernels():
    """GPU ranks: the settling steps as single elementwise kernels."""
    import cupy

    def kernel(name, ins, outs, body):
        return cupy.ElementwiseKernel(ins, outs, body, "spbfs_dist_" + name)

    return {
        # owned delegate o at slot s: its level, and its parent if found here (else -1)
        "owned": kernel("owned_delegates", "int64 o, int64 s, bool wp",
                        "raw I levels, raw I parents",
                        "levels[o] = levels[s]; if (wp) parents[o] = parents[s];"),
        "found": kernel("found_here", "I s, raw I parents", "int32 f", "f = parents[s] != -1;"),
        # the delegates found here, as (local id at the owner, parent) pairs at pos - 1
        "pack": kernel("pack_found", "I s, I id, int32 pos, raw I parents", "raw I send",
                       "const I q = parents[s];"
                       "if (q != -1) { send[2 * (pos - 1)] = id; send[2 * (pos - 1) + 1] = q; }"),
        "unpack": kernel("unpack_pairs", "raw I pairs", "raw I par",
                         "par[pairs[2 * i]] = pairs[2 * i + 1];"),
    }


def _owned(G, levels, parents, mark):
    """Levels and parents (global ids already: ``G.parent_ids``) of this rank's vertices,
    in place in the search's arrays: owned delegates from their slots, their parents from
    the ranks that found them (one sparse exchange of the delegates each rank found, under
    way while the owned delegates are copied)."""
    xp, n_loc = G.xp, G.n_local
    own, slots = G.owned_delegates, G.owned_delegate_slots
    lvl = levels[:n_loc]
    par = parents[:n_loc] if parents is not None else None
    received = sending = None
    if par is not None and G.P > 1:
        received, sending = _send_found_delegates(G, parents)
    if xp is np:
        lvl[own] = levels[slots]
        if par is not None:
            par[own] = parents[slots]
    elif own.size:
        _kernels()["owned"](own, slots, par is not None, levels,
                            parents if par is not None else levels)
    mark("settle owned")
    if received is not None:
        pairs = received.wait()[0]
        del sending   # the send buffer lived until the exchange was done
        if xp is np:
            par[pairs[0::2]] = pairs[1::2]
        elif pairs.size:
            _kernels()["unpack"](pairs, par, size=pairs.size // 2)
        mark("settle delegate parents")
    return lvl, par


def _send_found_delegates(G, parents):
    """Start sending the parents of the other ranks' delegates found here to their owners
    (grouped by owner at construction) as (local id, parent) pairs: the exchange, whose
    ``wait()`` gives the pairs received, and the send buffer."""
    xp, c = G.xp, G.comm
    slots, ids, ends = (G.foreign_delegate_slots, G.foreign_delegate_ids,
                        G.foreign_delegate_ends)
    if xp is np:
        f = np.flatnonzero(parents[slots] != UNREACHED)
        send = np.empty(2 * f.size, parents.dtype)
        send[0::2], send[1::2] = ids[f], parents[slots[f]]
        cum = np.searchsorted(f, ends)
    else:
        k = _kernels()
        pos = xp.zeros(slots.size + 1, np.int32)
        xp.cumsum(k["found"](slots, parents), out=pos[1:])
        cum = c.to_host(pos[ends])
        send = xp.empty(2 * int(cum[-1]), parents.dtype)
        k["pack"](slots, ids, pos[1:], parents, send)
    counts = 2 * np.diff(cum, prepend=0)
    rc, _ = c.exchange_counts(counts, 0)
    return c.alltoallv_start([send], counts, rc), send


class DistSearch:
    """:func:`spbfs.semiring.level_search` on a distributed matrix.

    Over several ranks it drives its own levels (each rank picks push or pull for its
    blocks, as :func:`bfs`): :meth:`run` searches, then ``levels`` and ``parents`` are
    DistArrays of the owned vertices.  On one rank the whole graph is the rank's local
    matrix, so it is the single-device engine on it (``advance`` and ``sizes`` as
    :class:`~spbfs.semiring.LevelSearch`, driven by :func:`spbfs.bfs`'s policy), the
    delegates' results moved to their vertices at the end.

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs import dist, semiring
    >>> G = dist.DistGraph.from_edges(np.array([0, 1]), np.array([1, 2]), 3)
    >>> with semiring.level_search(G, 0, semiring.any_pair) as s:
    ...     s.run()
    ...     G.gather(s.levels).tolist()
    [0, 1, 2]
    """

    def __init__(self, G, source, values):
        self.G, self.source, self.values = G, source, values
        self._levels = self._parents = None
        self.drives_itself = G.P > 1
        self._inner = None
        if not self.drives_itself:
            sd = int(G.delegate_number([source])[0])
            start = G.layout.n_pad + sd if sd >= 0 else source
            semiring = any_secondi if values else any_pair
            self._inner = level_search(G.layout.local, start, semiring, values=values,
                                       transpose=G.directed,
                                       parent_ids=G.parent_ids if values else None)

    def run(self, direction="auto", alpha=ALPHA, beta=BETA):
        """Search every level (collective)."""
        from .arrays import DistArray

        out = bfs(self.G, self.source, return_parents=self.values, direction=direction,
                  alpha=alpha, beta=beta)
        levels, parents = out if self.values else (out, None)
        self._levels = DistArray(self.G, levels)
        self._parents = None if parents is None else DistArray(self.G, parents)

    # the single-device engine's protocol, on one rank
    def advance(self, pulling, count=1):
        self._inner.advance(pulling, count)

    def sizes(self):
        return self._inner.sizes()

    def _settle(self):
        from .arrays import DistArray

        if self._levels is None and self._inner is not None:
            e = self._inner
            levels, parents = _owned(self.G, e.levels, e.parents if self.values else None,
                                     lambda name: None)
            self._levels = DistArray(self.G, levels)
            self._parents = None if parents is None else DistArray(self.G, parents)

    @property
    def levels(self):
        self._settle()
        return self._levels

    @property
    def parents(self):
        self._settle()
        return self._parents

    def __enter__(self):
        if self._inner is not None:
            self._inner.__enter__()
        return self

    def __exit__(self, *exc):
        if self._inner is not None:
            return self._inner.__exit__(*exc)
        return False
