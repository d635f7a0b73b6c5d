"""Distributed direction-optimising BFS on a :class:`~spbfs.dist.DistGraph`.

Each rank searches its local vertex space (its normal vertices, then every delegate) with
the single-device level search, :func:`spbfs.semiring.level_search` on the rank's
``local`` matrix (:mod:`spbfs.dist.layout`): on GPU ranks the bitmap kernels of
:func:`spbfs.bfs`, on CPU ranks the compiled CPU kernels.  Every exchange has a size known
when the graph is built, and each rank's engine picks its own directions
(``LevelSearch.advance_auto``: on the GPU by Beamer's rule on the device), so the host
enqueues level after level without reading anything per level.  One level, on every rank:

1. the frontier is pushed through the ``remote`` matrix, whose columns are ghost slots
   (:mod:`spbfs.dist.ghosts`): the level's outgoing words hold a bit per slot reached, one
   word-aligned piece per owner (``push_out``);
2. the all-to-all of the pieces starts (NCCL: on a side stream) while the local level runs,
   pushing or pulling by Beamer's rule on this rank's own sizes (``advance_auto``);
3. the delegates' visited bits (whole bitmap words) and a flag (this rank found a vertex in
   the level or sent a bit) are OR-reduced over the ranks (``level_words``); the received
   pieces' vertices (``claim_mapped``: each bit stands for a local id) and the new
   delegates (``claim_words``) join the level;
4. the flag's copy to the host starts, and the host reads the last level's: when it is 0 no
   rank found or sent anything then, this level found nothing, and the search is over (the
   same level on every rank).  That read waits only if the device is more than a level
   behind the host.

Parents are stored as global ids by the search itself (``parent_ids`` of
:func:`~spbfs.semiring.level_search`, built per graph as ``G.parent_ids``).  A vertex found
through another rank's bit has none yet: at the end, the reverse exchange of the same pieces
gives each rank its slots' levels on their owners (uint8, modulo 256, on an undirected
graph, whose neighbours' levels differ by at most one), and the vertex takes the first slot
of its remote row one level up (``remote_parents``; on a directed graph the in-arcs, from
``G.T``).  A delegate's parent is settled by one element-wise max over the ranks of the
delegates' parents (-1 where a rank did not find the delegate through its own edges).
"""

from __future__ import annotations

import functools
import itertools
import os
import time

import numpy as np

from ..algorithms._shared import ALPHA, BETA
from ..core.seam import engine_flag
from ..core.validation import check_choice, check_positive, check_source
from ..semiring import any_pair, any_secondi, level_search
from .comm import PhaseClock

__all__ = ["ALPHA", "BETA", "bfs"]

#: ``SPBFS_DIST_PROFILE=1``: synchronise after every phase of a level and report the
#: seconds per phase in ``stats["phases"]`` (slower; what bench_dist's split reports);
#: ``host``: the host's seconds per phase, without synchronising (launches and host waits);
#: ``levels`` (GPU ranks): the device's seconds per phase and per level (``level 1``, ...,
#: ``finish``), from CUDA events between the phases, read at the end: no synchronisation
#: in between, so the device's idle time waiting for the host counts too.
PROFILE = {"1": True, "host": "host", "levels": "levels"}.get(
    os.environ.get("SPBFS_DIST_PROFILE"), False)


def _no_mark(name):
    """A level's phase mark when :data:`PROFILE` is off."""


def bfs(G, source, *, return_parents=False, direction="auto", alpha=None, beta=BETA,
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
        Beamer's factors, as :func:`spbfs.bfs`; ``alpha=None`` takes each rank's engine's
        (:attr:`spbfs.semiring.LevelSearch.alpha`: 40 on GPU ranks, whose pull costs less
        against a push, Beamer's 15 on CPU ranks).
    stats : dict, optional
        Filled with this rank's ``levels``, ``time``, ``comm_time``, ``compute_time``,
        ``bytes_sent``, ``host_waits`` (the times the host waited for the device or the
        peers: :attr:`Communicator.host_waits`; on the NCCL plane the exchanges are
        enqueued without host waits, so ``comm_time`` is 0), the per-level ``directions``
        and, with :data:`PROFILE`, the seconds per ``phases``.

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
    waits0 = c.host_waits
    error = None
    try:
        check_choice(direction, "direction", ("auto", "push", "pull"))
        alpha = None if alpha is None else check_positive(alpha, "alpha")
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
    sd = G.delegate_of(source)
    levels, parents, depth, dirs = _search(G, source, sd, want_p, direction, alpha, beta,
                                           phases)
    with c.watch("the search's end (parents' exchanges)"):
        c.sync()
    elapsed = time.perf_counter() - t0
    if stats is not None:
        comm_t = c.comm_time - comm0
        stats.update(levels=depth, time=elapsed, comm_time=comm_t,
                     compute_time=elapsed - comm_t, bytes_sent=c.bytes_sent - bytes0,
                     directions=dirs, source_is_delegate=sd >= 0,
                     phases=phases, host_waits=c.host_waits - waits0)
    return (levels, parents) if want_p else levels


def _search(G, source, sd, want_p, direction, alpha, beta, phases):
    """The level loop from ``source`` (delegate number ``sd``, -1 for a normal vertex);
    returns the owned vertices' levels and parents, the depth and each level's direction."""
    c, lay, xp = G.comm, G.layout, G.xp
    P, rank, L = G.P, G.rank, G.layout.local
    gh = G.ghosts()
    if sd >= 0:
        start = lay.n_pad + sd
    else:
        start = source // P if source % P == rank else None
    dword0, dwords = lay.n_pad // 32, lay.d_words if P > 1 else 0
    clock = _LevelClock(phases) if PROFILE == "levels" and xp is not np else None
    mark = (PhaseClock(c, seconds=phases, sync=PROFILE != "host")
            if PROFILE in (True, "host") else _no_mark if clock is None else clock.mark)
    semiring = any_secondi if want_p else any_pair
    # the level's buffers, the same sizes at every level
    shared = xp.empty(dwords + 1, np.uint32)   # the delegates' words, then a flag
    if gh is not None:
        out_words = xp.empty(gh.R.ncols // 32, np.uint32)
        in_words = xp.empty(int(gh.recv_words.sum()), np.uint32)
        gathered = xp.empty((P, dwords + 1), np.uint32)
    with level_search(L, start, semiring, values=want_p,
                      transpose=G.directed and direction != "push",
                      parent_ids=G.parent_ids if want_p else None) as s:
        alpha = s.alpha if alpha is None else alpha
        if gh is None and engine_flag(s, "drives_itself"):
            # one rank: the whole search is local, in the engine's own loop
            depth, dirs = _run_alone(s, direction, alpha, beta)
            return (*_owned(G, s.levels, s.parents if want_p else None, mark), depth, dirs)
        flags = []   # each level's flag, OR-ed over the ranks, on its way to the host
        mark("set-up")
        while True:
            if clock is not None:
                clock.level = f"level {len(flags) + 1}"
            if gh is not None:
                s.push_out(gh.R, out_words)
                mark("remote push")
            exchange = (gh.exchange(c, out_words, after=c.ready(), recv=in_words)
                        if gh is not None else None)
            mark("all-to-all start")
            s.advance_auto(direction, alpha, beta)
            mark("local level")
            # the delegates' visited bits, and whether this rank found or sent anything
            s.level_words(shared, dword0, dwords, out_words if gh is not None else None)
            merged = shared
            if exchange is not None:
                pending = c.or_words_start(shared, gathered)
                s.claim_mapped(exchange.wait()[0], gh.in_ids)
                mark("claim")
                merged = pending.wait()
                mark("delegate OR")
                if dwords:
                    s.claim_words(dword0, merged[:dwords])
                    mark("claim")
            flags.append(c.read_later(merged[dwords:], "level exchange (all-to-all, "
                                                         "delegate OR)"))
            mark("level end")
            # The last level's flags, read while this one runs: bit 0 clear when no rank
            # found or sent anything then, so this level found nothing and the search is
            # over.  Every rank reads the same flags at the same level: they stop together.
            if len(flags) > 1 and not flags[-2].wait()[0] & 1:
                break
        if clock is not None:
            clock.level = "finish"
        # bit 1 of flags[k] (the search's level k + 1): level k had a vertex on some rank
        depth = max((k for k, f in enumerate(flags) if f.wait()[0] & 2), default=0)
        levels = s.levels
        if want_p and gh is not None:
            _remote_parents(G, s)
            mark("remote parents")
        dirs = s.directions[:depth + 1]
        out = _owned(G, levels, s.parents if want_p else None, mark)
        if clock is not None:
            clock.read()
    return (*out, depth, dirs)


class _LevelClock:
    """Device seconds from each mark to the one before (CUDA events on the current
    stream, read at the end), added to the mark's phase and to :attr:`level` at the mark
    (:data:`PROFILE` ``levels``)."""

    def __init__(self, seconds):
        import cupy

        self.cupy, self.seconds, self.level = cupy, seconds, None
        self.events = [(None, None, cupy.cuda.get_current_stream().record())]

    def mark(self, name):
        self.events.append((name, self.level, self.cupy.cuda.get_current_stream().record()))

    def read(self):
        self.events[-1][2].synchronize()
        for (_, _, a), (name, level, b) in itertools.pairwise(self.events):
            dt = self.cupy.cuda.get_elapsed_time(a, b) / 1e3
            for key in (name, level) if level is not None else (name,):
                self.seconds[key] = self.seconds.get(key, 0.0) + dt


def _run_alone(s, direction, alpha, beta):
    """The engine's own level loop (:meth:`~spbfs.core.seam.LevelSearch.run`, on the GPU
    the single device's loop): the depth and each level's direction, from its trace."""
    trace = []
    s.run(direction, alpha, beta, trace=trace)
    depth = max((entry[0] for entry in trace if entry[4]), default=0)
    return depth, [entry[2] for entry in trace][:depth + 1]


def _remote_parents(G, s):
    """Parents of the vertices found through other ranks' words (-1 until here): the
    levels of the ghost slots on their owners (one all-to-all of the pieces, uint8 levels
    modulo 256 on an undirected graph, where a neighbour's level is within one of a
    vertex's; int32 on a directed one), then a scan of each such vertex's remote row, of
    its in-arcs on a directed graph (``G.T``'s)."""
    H = G.T if G.directed else G
    gh = H.ghosts()
    dtype = np.dtype(np.int32 if G.directed else np.uint8)
    s.remote_parents(gh.R, gh.levels_on_owners(G.comm, s.levels, dtype), gh.column_ids)


@functools.cache
def _owned_kernel():
    """GPU ranks: owned delegate ``o`` at slot ``s`` gets its level (and parent: ``dpar``,
    indexed by delegate number ``d``) in one elementwise kernel."""
    import cupy

    return cupy.ElementwiseKernel(
        "int64 o, int64 s, int64 d, bool wp, raw I dpar", "raw I levels, raw I parents",
        "levels[o] = levels[s]; if (wp) parents[o] = dpar[d];", "spbfs_dist_owned_delegates")


def _owned(G, levels, parents, mark):
    """Levels and parents (global ids already: ``G.parent_ids``) of this rank's vertices,
    in place in the search's arrays.  Every rank holds every delegate's level; a delegate's
    parent is known to the ranks that found it through their own edges (-1 on the others),
    so one element-wise max over the ranks gives each delegate a parent."""
    xp, n_loc, n_pad, D = G.xp, G.n_local, G.layout.n_pad, G.D
    own, slots, numbers = (G.owned_delegates, G.owned_delegate_slots,
                           G.owned_delegate_numbers)
    lvl = levels[:n_loc]
    par = parents[:n_loc] if parents is not None else None
    dpar = None
    if par is not None:
        dpar = parents[n_pad:n_pad + D]
        if G.P > 1:
            dpar = G.comm.allreduce_array(dpar, "max", wait=False)   # bfs's end waits
        mark("settle delegate parents")
    if xp is np:
        lvl[own] = levels[slots]
        if par is not None:
            par[own] = dpar[numbers]
    elif own.size:
        _owned_kernel()(own, slots, numbers, par is not None,
                        dpar if dpar is not None else levels, levels,
                        parents if par is not None else levels)
    mark("settle owned")
    return lvl, par


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
            sd = G.delegate_of(source)
            start = G.layout.n_pad + sd if sd >= 0 else source
            semiring = any_secondi if values else any_pair
            self._inner = level_search(G.layout.local, start, semiring, values=values,
                                       transpose=G.directed,
                                       parent_ids=G.parent_ids if values else None)

    @property
    def alpha(self):
        """Beamer's push -> pull factor: the single-device engine's on one rank; None over
        several ranks (:func:`bfs` then takes each rank's engine's)."""
        return self._inner.alpha if self._inner is not None else None

    def run(self, direction="auto", alpha=None, beta=BETA):
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
