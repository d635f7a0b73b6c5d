"""The distributed graph: degree separation, the edge distributor and four local CSR blocks."""

from __future__ import annotations

import copy
import time

import numpy as np

from ..semiring import Matrix, monoids
from . import _local, layout
from .arrays import DistRows
from .comm import Communicator, PhaseClock, device_conflict, shared_communicator
from .partition import BLOCKS, destination, local_count

__all__ = ["DistGraph"]

#: Default edges handled per construction round (bounds the memory of the exchange).
CHUNK_CPU = 1 << 22
CHUNK_GPU = 1 << 26
#: Largest n for which construction maps ids to delegate numbers with a dense table.
DENSE_MAP_MAX = 1 << 30


def auto_threshold(n: int, arcs: int) -> int:
    """Default degree threshold: twice the average degree, at least 1 (64 for Graph500).

    Examples
    --------
    >>> auto_threshold(1 << 10, 32 << 10)
    64
    """
    return max(1, int(round(2 * arcs / max(n, 1))))


def _check_edge_arrays(u, v, xp, error=None):
    """This rank's edge arrays on ``xp`` and what the collective argument check needs.

    Returns ``(u, v, error, facts)``: ``error`` is ``error`` if given, else this rank's first
    problem with ``u`` and ``v`` (an exception naming the argument, or None); ``facts`` is
    ``(min u, max u, min v, max v)`` as Python ints (None when empty or on error).  Two
    reductions per array and one small host read each: nothing of size ``n``.

    Examples
    --------
    >>> import numpy as np
    >>> _check_edge_arrays(np.array([0, 5]), np.array([2, 1]), np)[2:]
    (None, (0, 5, 1, 2))
    >>> _check_edge_arrays(np.array([0, 5]), np.array([2.0, 1.0]), np)[2]
    TypeError('v must be an integer array, got dtype float64')
    """
    if error is not None:
        return u, v, error, None
    arrays = []
    for name, a in (("u", u), ("v", v)):
        if xp is np and hasattr(a, "__cuda_array_interface__"):
            return u, v, ValueError(f"{name} is a GPU array but the graph is built on CPU "
                                    "ranks: pass numpy arrays, or device='gpu'"), None
        try:
            arrays.append(xp.asarray(a))
        except (TypeError, ValueError) as e:
            return u, v, TypeError(f"{name} must be an integer array ({e})"), None
    u, v = arrays
    if u.ndim != 1 or v.ndim != 1 or u.shape != v.shape:
        return u, v, ValueError(f"u and v must be 1-D of equal length, got shapes {u.shape} "
                                f"and {v.shape}"), None
    for name, a in (("u", u), ("v", v)):
        if a.dtype.kind not in "iu":
            return u, v, TypeError(f"{name} must be an integer array, got dtype {a.dtype}"), None
    if not u.size:
        return u, v, None, None
    facts = []
    for a in (u, v):
        lo_hi = xp.stack([a.min(), a.max()])
        facts += [int(x) for x in (lo_hi.get() if xp is not np else lo_hi).tolist()]
    return u, v, None, tuple(facts)


def _plain(x):
    """A numpy integer as a Python int (comparable and printable the same way on all ranks)."""
    return int(x) if isinstance(x, np.integer) else x


def _check_edge_range(everyone, n):
    """ValueError naming ``u`` or ``v``, a value and its rank, when an edge id lies outside
    ``[0, n)`` on some rank (``everyone``: the ``(m, rounds, facts)`` of every rank, so every
    rank raises the same error)."""
    for r, (_, _, facts) in enumerate(everyone):
        if facts is None:
            continue
        for name, lo, hi in (("u", facts[0], facts[1]), ("v", facts[2], facts[3])):
            bad = lo if lo < 0 else hi if hi >= n else None
            if bad is not None:
                raise ValueError(f"edge endpoints must lie in [0, {n}): {name} holds {bad} "
                                 f"(rank {r})")


def _check_weights(weights, u, xp, error):
    """``(weights on xp as float64 or None, error)``: this rank's first problem with
    ``weights`` (another length than ``u``, not numbers, NaN) unless ``error`` is set."""
    if weights is None or error is not None:
        return weights, error
    try:
        w = xp.asarray(weights)
    except (TypeError, ValueError) as e:
        return None, TypeError(f"weights must be an array of numbers ({e})")
    if w.ndim != 1 or w.shape != u.shape:
        return None, ValueError(f"weights must be 1-D with one value per edge (shape "
                                f"{u.shape}), got shape {w.shape}")
    if w.dtype.kind not in "biuf":
        return None, TypeError(f"weights must be numbers, got dtype {w.dtype}")
    w = w.astype(np.float64)
    if w.size and bool(xp.isnan(w).any()):
        return None, ValueError("weights must not be NaN")
    return w, None


def _choose_delegates(c, deg, threshold):
    """Global ids of the vertices of degree above ``threshold`` (``deg``: this rank's owned
    vertices), by decreasing degree then id; the same on every rank (one allgather)."""
    xp, P, rank = c.xp, c.size, c.rank
    sel = xp.flatnonzero(deg > threshold)
    mine = c.to_host(sel.astype(np.int64) * P + rank)
    parts = c.allgather((mine, c.to_host(deg[sel])))
    gids = np.concatenate([p[0] for p in parts])
    gdeg = np.concatenate([p[1] for p in parts])
    return xp.asarray(gids[np.lexsort((gids, -gdeg))].astype(np.int64))


def _delegate_numbers(delegates, n, ddt, xp):
    """A function mapping global ids to delegate numbers (-1 for normal vertices): a dense
    table up to :data:`DENSE_MAP_MAX` vertices, else a binary search."""
    D = int(delegates.size)
    if D and n <= DENSE_MAP_MAX:
        dmap = xp.full(n, -1, ddt)
        dmap[delegates] = xp.arange(D, dtype=ddt)
        return lambda x: dmap[x]
    dsorted = xp.sort(delegates)
    dperm = xp.argsort(delegates)

    def dnum(x):
        if D == 0:
            return xp.full(x.size, -1, np.int64)
        i = xp.minimum(xp.searchsorted(dsorted, x), D - 1)
        return xp.where(dsorted[i] == x, dperm[i], -1)

    return dnum


class DistGraph:
    """An undirected graph spread over the ranks of a communicator (delegate/normal design).

    Build one with :meth:`from_edges`.  Vertex ``v`` belongs to rank ``v % P`` (local id
    ``v // P``).  Vertices of degree above ``threshold`` are *delegates*: every rank knows
    them (global ids :attr:`delegates`, indexed by delegate number) and keeps
    their BFS state as a bitmap.  Construction sorts each rank's edges into four CSR blocks
    (their sizes stay in :attr:`block_edges`):

    ``nn``
        local normal -> normal (column: global id); the only edges whose endpoints live on
        different ranks, so the only ones that need point-to-point messages.
    ``nd``
        local normal -> delegate (column: delegate number).
    ``dn``
        delegate -> local normal (row: delegate number; column: local id).
    ``dd``
        delegate -> delegate.

    ``nd`` and ``dn`` on a rank are transposes of each other, as is ``dd`` of itself, so
    each of them can be traversed by pushing or by pulling.  The search runs on them as two
    matrices, :attr:`layout` (:mod:`spbfs.dist.layout`): ``local`` (every block but the
    ``nn`` edges to other ranks) and ``remote`` (those).

    Attributes
    ----------
    comm : Communicator
    n, n_local : int
        Vertices in the graph and owned by this rank.
    threshold : int
    delegates : array of int64
        Global id of each delegate by delegate number (identical on every rank).  Numbers
        go by decreasing degree (ties by id), so sorted delegate columns put hubs first and
        early-exit pulls stop sooner.
    degree : array of int64
        Degree of each owned vertex (input edges at it, self-loops excluded, duplicates
        counted): what the delegate choice uses.
    block_edges : dict
        Stored arcs of ``nn``, ``nd``, ``dn``, ``dd``.
    layout : spbfs.dist.layout.Layout
        The ``local`` and ``remote`` matrices the search runs on.
    input_edges : int
        Edges in the input list over all ranks.
    weighted, directed : bool
        Whether the graph has edge values and whether its arcs go one way only.

    Examples
    --------
    >>> import numpy as np
    >>> from spbfs import dist
    >>> u, v = np.array([0, 0, 0, 1, 2]), np.array([1, 2, 3, 2, 4])
    >>> G = dist.DistGraph.from_edges(u, v, 5, threshold=2)
    >>> G.delegates.tolist(), G.stats()["edges"]
    ([0, 2], {'nn': 0, 'nd': 4, 'dn': 4, 'dd': 2})
    """

    def __init__(self, comm, n, threshold, delegates, degree, blocks, input_edges, *,
                 directed=False):
        # the four blocks become the two matrices of the search (they are consumed)
        self.block_edges = {b: int(blocks[b][1].size) for b in BLOCKS}
        self.weighted = blocks["nn"][2] is not None
        #: dtype of the values the operations see (float64: the weights, or ones)
        self.value_dtype = np.dtype(np.float64)
        #: shared by the graphs derived from this one (same delegates, same vertex arrays)
        self.partition = object()
        self.directed = bool(directed)
        self._transpose = None if directed else self
        self.comm = comm
        self.xp = comm.xp
        self.P, self.rank = comm.size, comm.rank
        self.n = int(n)
        self.n_local = local_count(self.n, self.rank, self.P)
        self.threshold = int(threshold)
        self.delegates = delegates
        self.D = int(delegates.size)
        self.degree = degree
        self.layout = layout.build(blocks, self.n, self.n_local, self.D, self.P, self.rank,
                                   self.xp, symmetric=not directed)
        self.input_edges = int(input_edges)
        #: dtype of levels and parents: the search's vertex ids (int32 below 2**31 - 2)
        self.index_dtype = self.layout.local.indices.dtype
        xp = self.xp
        order = xp.argsort(delegates)
        self._dsorted = delegates[order]
        self._dnumber = order.astype(np.int64)
        mine = self._dsorted[self._dsorted % self.P == self.rank]
        #: local ids of the delegates this rank owns, and their delegate numbers
        self.owned_delegates = (mine // self.P).astype(np.int64)
        self.self_loops = xp.zeros(self.n_local, np.int64)
        self._cache = {}
        self._search_maps(delegates, mine)

    def _search_maps(self, delegates, mine):
        """Index maps of a search's parents and of its settling (``dist.bfs``): the
        search space's global ids (``parent_ids`` of :func:`spbfs.semiring.level_search`)
        and the slots of this rank's delegates in that space."""
        xp, P, n_pad = self.xp, self.P, self.layout.n_pad
        head = xp.asarray([n_pad, P, self.rank], np.int64)
        self.parent_ids = xp.concatenate([head, delegates.astype(np.int64)])
        self.delegates = self.parent_ids[3:]  # one copy of the list
        self.owned_delegate_numbers = self.delegate_number(mine)
        self.owned_delegate_slots = n_pad + self.owned_delegate_numbers

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_edges(cls, u, v, n, *, weights=None, threshold=None, comm=None, device=None,
                   data_plane="auto", directed=False, symmetrize=False, chunk=None,
                   like=None):
        """Build the distributed graph from this rank's slice of an edge list (collective).

        The slices may split the list anyhow (some may be empty); their union is the graph.

        Parameters
        ----------
        u, v : array of int
            This rank's edges ``u[i] -- v[i]`` (numpy or cupy; moved to ``device``).
        n : int
            Number of vertices (same on every rank).
        threshold : int, optional
            Vertices of degree above it become delegates.  0 makes every vertex with an
            edge a delegate; a value at or above the maximum degree makes none.  Default:
            twice the average degree (:func:`auto_threshold`).
        comm : Communicator or mpi4py.MPI.Comm, optional
            ``MPI.COMM_WORLD`` by default.
        device : {"cpu", "gpu", "auto"}, optional
            Where the graph lives when ``comm`` is not already a Communicator (default cpu).
        data_plane : {"auto", "mpi", "nccl"}
            See :class:`~spbfs.dist.Communicator`.
        weights : array of numbers, optional
            This rank's edge weights (same length as ``u``).  A weighted graph keeps every
            input edge, duplicates included, and reads parallel edges as a single-device
            matrix reads duplicates: the products ``vxm`` and ``mxv`` take each copy (a
            ``min_plus`` product its smallest weight), the other operations their sum
            (``Matrix.canonical``), and the shortest-path algorithms the smallest
            weight.  Without weights the graph is a pattern: duplicates are stored once.
        directed : bool
            False (default): each pair is an undirected edge, stored both ways (Graph500).
            True: each pair is an arc ``u -> v``; the graph keeps the arcs as given, and
            :attr:`T` (built on first use) holds the reversed ones.
        symmetrize : bool
            With ``directed=True``, add the reverse of every arc (the same as
            ``directed=False``).
        chunk : int, optional
            Edges per exchange round while building (memory bound).
        like : DistGraph, optional
            Keep this graph's delegates (and so its partition: the arrays of one are
            arrays of the other) instead of choosing them by degree.

        Returns
        -------
        DistGraph

        Raises
        ------
        ValueError, TypeError
            The same exception on every rank (one allgather decides, before anything of
            size ``n`` is allocated): ``n``, ``threshold``, ``directed`` or ``symmetrize``
            differ between ranks (``"n differs between ranks: [100, 99]"``); some rank's
            ``u`` / ``v`` are not 1-D integer arrays of equal length; an edge id lies
            outside ``[0, n)`` (the message names ``u`` or ``v``, the value and the rank);
            ``n`` or ``threshold`` is not a non-negative integer; ``weights`` of
            another length than ``u``, not numbers, or NaN.

        Examples
        --------
        >>> import numpy as np
        >>> from spbfs.dist import DistGraph
        >>> G = DistGraph.from_edges(np.array([0, 1]), np.array([1, 2]), 4, threshold=8)
        >>> G.n, G.n_local, G.D, G.stats()["edges"]["nn"]
        (4, 4, 0, 4)
        >>> D = DistGraph.from_edges(np.array([0]), np.array([1]), 2, directed=True)
        >>> D.stats()["edges"]["nn"], D.T.stats()["edges"]["nn"]
        (1, 1)
        >>> W = DistGraph.from_edges(np.array([0, 0]), np.array([1, 1]), 2,
        ...                          weights=np.array([2.0, 5.0]))
        >>> W.stats()["edges"]["nn"], W.weighted
        (4, True)
        >>> DistGraph.from_edges(np.array([0, 1]), np.array([1, -3]), 4)
        Traceback (most recent call last):
            ...
        ValueError: edge endpoints must lie in [0, 4): v holds -3 (rank 0)
        """
        clock = time.perf_counter()
        if isinstance(comm, Communicator):
            c, error = comm, device_conflict(comm, device)
        else:   # one per MPI communicator, device and plane: NCCL's set-up is paid once
            c, error = shared_communicator(comm, device=device or "cpu",
                                           data_plane=data_plane), None
        phases = PhaseClock(c, clock)
        phases("communicator")
        xp = c.xp
        P, rank = c.size, c.rank
        # ---- arguments: local checks, then one allgather decides for every rank
        u, v, error, facts = _check_edge_arrays(u, v, xp, error)
        weights, error = _check_weights(weights, u, xp, error)
        if error is None and (not isinstance(n, (int, np.integer)) or isinstance(n, bool)
                              or n < 0):
            error = TypeError(f"n must be a non-negative integer, got {n!r}")
        if error is None and threshold is not None and (
                not isinstance(threshold, (int, np.integer)) or isinstance(threshold, bool)
                or threshold < 0):
            error = ValueError(f"threshold must be a non-negative integer, got {threshold!r}")
        if chunk is None or chunk == 0:
            chunk = CHUNK_GPU if xp is not np else CHUNK_CPU
        if error is None and (not isinstance(chunk, (int, np.integer)) or chunk < 1):
            error = ValueError(f"chunk must be a positive integer, got {chunk!r}")
        chunk = int(chunk) if error is None else 1
        m_local = int(u.size) if error is None else 0
        everyone = c.agree({"n": _plain(n), "threshold": _plain(threshold),
                            "directed": bool(directed), "symmetrize": bool(symmetrize),
                            "weights given": weights is not None},
                           error=error, extra=(m_local, -(-m_local // chunk), facts))
        n = int(n)
        _check_edge_range(everyone, n)
        input_edges = sum(e[0] for e in everyone)
        rounds = max(e[1] for e in everyone)
        u = u.astype(np.int64, copy=False)
        v = v.astype(np.int64, copy=False)
        both_ways = (not directed) or symmetrize
        vdt = np.int32 if n < 2**31 else np.int64
        n_loc = local_count(n, rank, P)

        def arcs(i):
            """Round ``i``'s arcs (both ways for an undirected graph; a self-loop once) and
            their weights (None for a pattern)."""
            a, b = u[i * chunk:(i + 1) * chunk], v[i * chunk:(i + 1) * chunk]
            w = None if weights is None else weights[i * chunk:(i + 1) * chunk]
            if both_ways:
                back = a != b
                a, b = xp.concatenate([a, b[back]]), xp.concatenate([b, a[back]])
                w = None if w is None else xp.concatenate([w, w[back]])
            return a, b, w

        # 1. degrees, counted at the owners: edges at each vertex, self-loops excluded
        # (both endpoints of an arc of a directed graph count, so the delegates of a graph
        # and of its transpose are the same)
        deg = xp.zeros(n_loc, np.int64)
        arc_count = 0
        for i in range(rounds):
            a, b, _ = arcs(i)
            keep = a != b
            arc_count += int(keep.sum())
            ends = a[keep] if both_ways else xp.concatenate([a[keep], b[keep]])
            order, counts = _local.bin_by(ends % P, P)
            recv, _ = c.alltoallv((ends[order] // P).astype(vdt), counts)
            if recv.size:
                deg += xp.bincount(recv, minlength=n_loc)
            del a, b, keep, ends, order, recv
        # self-loops per owned vertex (for the TEPS edge count without the edge list)
        loops = u[u == v]
        order, counts = _local.bin_by(loops % P, P)
        recv, _ = c.alltoallv((loops[order] // P).astype(vdt), counts)
        self_loops = (xp.bincount(recv, minlength=n_loc) if recv.size
                      else xp.zeros(n_loc, np.int64))
        del loops, order, recv
        arcs_total = int(c.allreduce(arc_count))
        phases("degrees")
        if threshold is None:
            threshold = auto_threshold(n, arcs_total if both_ways else 2 * arcs_total)

        # 2. delegates: degree above the threshold, known everywhere, numbered by degree
        # (or those of the graph this one is derived from)
        delegates = like.delegates.copy() if like is not None else _choose_delegates(
            c, deg, threshold)
        D = int(delegates.size)
        ddt = np.int32 if max(D, n_loc) < 2**31 else np.int64
        dnum = _delegate_numbers(delegates, n, ddt, xp)
        phases("delegates")

        # 3. the edge distributor: the sender classifies, the receiver only appends
        parts = {b: ([], [], []) for b in BLOCKS}
        for i in range(rounds):
            a, b, w = arcs(i)
            na, nb = dnum(a), dnum(b)
            ad, bd = na >= 0, nb >= 0
            dest = destination(a, b, ad, bd, P)
            blk = (ad.astype(np.int8) * 2 + bd.astype(np.int8))
            row = xp.where(ad, na, a // P).astype(ddt)
            col = xp.where(bd, nb, xp.where(ad, b // P, b)).astype(vdt)
            del a, b, na, nb, ad, bd
            order, counts = _local.bin_by(dest, P)
            send = [row[order], col[order], blk[order]] + ([] if w is None else [w[order]])
            got, _ = c.alltoallv_many(send, counts)
            row, col, blk = got[:3]
            w = got[3] if w is not None else None
            del dest, order, send, got
            for k, name in enumerate(BLOCKS):
                sel = blk == k
                parts[name][0].append(row[sel])
                parts[name][1].append(col[sel] if name == "nn" else col[sel].astype(ddt))
                if w is not None:
                    parts[name][2].append(w[sel])
            del row, col, blk, w
        phases("distribute edges")
        shapes = {"nn": (n_loc, n), "nd": (n_loc, D), "dn": (D, n_loc), "dd": (D, D)}
        blocks = {}
        for name in BLOCKS:
            rows, cols, ws = parts.pop(name)
            nr, nc = shapes[name]
            idt = vdt if name == "nn" else ddt
            if weights is None:   # the pieces are released as the keys are built
                blocks[name] = _local.csr_unique(rows, cols, nr, nc, idt, xp) + (None,)
            else:
                rows = xp.concatenate(rows) if rows else xp.zeros(0, ddt)
                cols = xp.concatenate(cols) if cols else xp.zeros(0, ddt)
                ws = xp.concatenate(ws) if ws else xp.zeros(0, weights.dtype)
                blocks[name] = _local.csr_sorted(rows, cols, ws, nr, nc, idt)
            del rows, cols, ws
        phases("blocks")
        G = cls(c, n, threshold, delegates, deg, blocks, input_edges,
                directed=not both_ways)
        phases("layout")
        if G.P > 1:
            G.ghosts()
            phases("ghost slots")
        #: seconds of each phase of this rank's build (device work included)
        G.build_seconds = phases.seconds
        G.self_loops = self_loops
        if like is not None:
            G.partition = like.partition
        return G

    # ------------------------------------------------------------------ helpers
    def local_vertices(self):
        """Global ids of the vertices this rank owns (``rank, rank + P, ...``).

        Examples
        --------
        >>> import numpy as np
        >>> from spbfs.dist import DistGraph
        >>> DistGraph.from_edges(np.array([0]), np.array([1]), 3).local_vertices().tolist()
        [0, 1, 2]
        """
        return self.xp.arange(self.n_local, dtype=np.int64) * self.P + self.rank

    def global_of_local(self, ids):
        """Global ids of positions of this rank's local search space (owned normals at
        their local ids, delegate ``d`` at ``n_pad + d``).

        Examples
        --------
        >>> import numpy as np
        >>> from spbfs.dist import DistGraph
        >>> G = DistGraph.from_edges(np.array([0, 0, 0]), np.array([1, 2, 3]), 4,
        ...                          threshold=2)
        >>> G.global_of_local(np.array([1, G.layout.n_pad])).tolist()
        [1, 0]
        """
        xp, n_pad = self.xp, self.layout.n_pad
        ids = xp.asarray(ids, dtype=np.int64)
        d = xp.clip(ids - n_pad, 0, max(self.D - 1, 0))
        dele = self.delegates[d] if self.D else xp.zeros_like(ids)
        return xp.where(ids < n_pad, ids * self.P + self.rank, dele)

    def stored_arcs(self):
        """This rank's stored arcs as global ids: ``(u, v, weights or None)``.

        Examples
        --------
        >>> import numpy as np
        >>> from spbfs.dist import DistGraph
        >>> G = DistGraph.from_edges(np.array([0]), np.array([1]), 2, directed=True)
        >>> [a.tolist() if a is not None else a for a in G.stored_arcs()]
        [[0], [1], None]
        """
        xp = self.xp
        us, vs, ws = [], [], []
        for M, local_cols in ((self.layout.local, True), (self.layout.remote, False)):
            if M is None:
                continue
            rows = xp.repeat(xp.arange(M.nrows, dtype=np.int64),
                             xp.diff(M.indptr).astype(np.int64))
            us.append(self.global_of_local(rows))
            cols = M.indices.astype(np.int64)
            vs.append(self.global_of_local(cols) if local_cols else cols)
            if self.weighted:
                ws.append(M.data)
        w = xp.concatenate(ws) if self.weighted else None
        return xp.concatenate(us), xp.concatenate(vs), w

    @property
    def T(self):
        """The graph with every arc reversed (itself when undirected).

        Built on first use from the arcs stored here (collective then), with the same
        threshold (and so the same delegates), and kept.

        Examples
        --------
        >>> import numpy as np
        >>> from spbfs import dist
        >>> G = dist.DistGraph.from_edges(np.array([0, 1]), np.array([1, 2]), 3,
        ...                               directed=True)
        >>> G.gather(dist.bfs(G.T, 2)).tolist()
        [2, 1, 0]
        """
        if self._transpose is None:
            u, v, w = self.stored_arcs()
            T = DistGraph.from_edges(v, u, self.n, weights=w, threshold=self.threshold,
                                     comm=self.comm, directed=True, like=self)
            T._transpose = self
            T.value_dtype = self.value_dtype
            self._transpose = T
        return self._transpose

    def derived(self, key, build):
        """A value that depends on this graph alone (an algorithm's structural data), built
        by ``build()`` on first use and kept; every rank asks for it at the same point, so
        a collective ``build`` is safe.

        Examples
        --------
        >>> import numpy as np
        >>> from spbfs import dist
        >>> G = dist.DistGraph.from_edges(np.array([0]), np.array([1]), 2)
        >>> G.derived("twice", lambda: 2 * G.n), G.derived("twice", lambda: 0)
        (4, 4)
        """
        key = ("derived", key)
        if key not in self._cache:
            self._cache[key] = build()
        return self._cache[key]

    def undirected(self):
        """The graph with every arc made an undirected edge (itself when undirected; built
        on first use from the arcs stored here, collective then, and kept)."""
        if self._transpose is self:
            return self
        if "undirected" not in self._cache:
            u, v, w = self.stored_arcs()
            self._cache["undirected"] = DistGraph.from_edges(
                u, v, self.n, weights=w, threshold=self.threshold, comm=self.comm, like=self)
        return self._cache["undirected"]

    def valued_local(self):
        """The ``local`` matrix with its values stored (a graph built without weights keeps
        none for its searches: then ones, one byte per arc, made on first use and kept),
        as the operations' kernels read them."""
        L = self.layout.local
        if self.weighted:
            return L
        if "local" not in self._cache:
            self._cache["local"] = L.unit(self.value_dtype)
        return self._cache["local"]

    def with_unit_weights(self, dtype=np.float64):
        """The graph with parallel arcs merged and every weight 1 (of ``dtype``), for the
        operations (shares the partition and the stored arcs; made on first use, kept).

        Examples
        --------
        >>> import numpy as np
        >>> from spbfs import dist, semiring
        >>> G = dist.DistGraph.from_edges(np.array([0, 0]), np.array([1, 1]), 2,
        ...                               weights=np.array([2.0, 5.0]))
        >>> semiring.reduce(G.with_unit_weights(), semiring.monoids.plus)
        2.0
        """
        key = ("unit", np.dtype(dtype).str)
        if key not in self._cache:
            base = self.merged()
            G = copy.copy(base)
            G._cache = {key: G}
            G.weighted, G.value_dtype = False, np.dtype(dtype)
            G._transpose = None if base.directed else G
            self._cache[key] = G
        return self._cache[key]

    def merged(self, monoid=None):
        """The graph with parallel arcs merged into one holding their weights combined with
        ``monoid`` (default ``plus``: summed, as ``Matrix.canonical``; ``min`` for the
        shortest paths).  Itself without weights or parallel arcs; made on first use and
        kept.  Parallel arcs always lie on the same rank, so each rank merges its own;
        whether the graph changes is agreed over the ranks (collective then), since its
        new layout's ghosts are made collectively (a rank whose arcs were all single kept
        its layout, and with it its ghosts, while the others built theirs: a hang).

        Examples
        --------
        >>> import numpy as np
        >>> from spbfs import dist, semiring
        >>> G = dist.DistGraph.from_edges(np.array([0, 0]), np.array([1, 1]), 2,
        ...                               weights=np.array([2.0, 5.0]))
        >>> [semiring.reduce(G.merged(m), semiring.monoids.max)
        ...  for m in (None, semiring.monoids.min)]
        [7.0, 2.0]
        """
        if not self.weighted:
            return self
        monoid = monoid or monoids.plus
        key = ("merged", monoid)
        if key not in self._cache:
            lay = self.layout
            L = lay.local.canonical(monoid)
            R = None if lay.remote is None else lay.remote.canonical(monoid)
            same = L is lay.local and R is lay.remote
            if self.P > 1:
                same = not self.comm.allreduce(int(not same), "max")
            if same:
                self._cache[key] = self
            else:
                G = copy.copy(self)
                G._cache = {key: G}
                G.layout = layout.Layout(L, R, lay.n_pad, lay.d_words * 32)
                G._transpose = None if self.directed else G
                self._cache[key] = G
        return self._cache[key]

    def ghosts(self):
        """The :class:`~spbfs.dist.ghosts.Ghosts` of this rank's ``remote`` matrix (None on
        one rank): made once per layout (collective then) and kept with it."""
        lay = self.layout
        if lay.remote is None:
            return None
        if lay.ghosts is None:
            from . import ghosts

            lay.ghosts = ghosts.build(self)
        return lay.ghosts

    def remote_compact(self):
        """``(R, owner, target)``: the ``remote`` matrix with its columns numbered by the
        distinct targets, sorted by owner then local id, and each target's owner and local
        id there (what the distributed products send; kept).  The ghost slots without
        their padding (:meth:`ghosts`): the same order, no second sort of the targets."""
        if "remote" not in self._cache:
            xp, P = self.xp, self.P
            R, gh = self.layout.remote, self.ghosts()
            real = gh.column_ids >= 0
            rank_of = xp.cumsum(real) - 1   # a slot's number among the real ones
            compact = rank_of[gh.R.indices].astype(R.indices.dtype)
            ids = gh.column_ids[real].astype(np.int64)
            data = R.data if self.weighted else xp.ones(R.nnz, self.value_dtype)
            M = Matrix(R.indptr, compact, data, R.nrows, ncols=max(int(ids.size), 1),
                       check=False)
            self._cache["remote"] = (M, ids % P, (ids // P).astype(self.index_dtype))
        return self._cache["remote"]

    def __spbfs_algebra__(self):
        """The distributed operations (:mod:`spbfs.dist.algebra`)."""
        from . import algebra

        return algebra

    def __spbfs_matrix__(self):
        """This graph as a matrix of :mod:`spbfs.semiring` (:class:`DistMatrix`)."""
        from .matrix import DistMatrix

        if "matrix" not in self._cache:
            self._cache["matrix"] = DistMatrix(self)
        return self._cache["matrix"]

    def delegate_number(self, x):
        """Delegate number of each global id in ``x``, -1 for normal vertices.

        Examples
        --------
        >>> import numpy as np
        >>> from spbfs.dist import DistGraph
        >>> G = DistGraph.from_edges(np.array([0, 0, 0, 1]), np.array([1, 2, 3, 2]), 4,
        ...                          threshold=1)
        >>> G.delegates.tolist(), G.delegate_number(np.array([0, 1, 2, 3])).tolist()
        ([0, 1, 2], [0, 1, 2, -1])
        """
        xp = self.xp
        x = xp.asarray(x, dtype=np.int64).ravel()
        if self.D == 0:
            return xp.full(x.size, -1, np.int64)
        i = xp.minimum(xp.searchsorted(self._dsorted, x), self.D - 1)
        return xp.where(self._dsorted[i] == x, self._dnumber[i], -1)

    def delegate_of(self, v) -> int:
        """Delegate number of the one global id ``v``, -1 for a normal vertex: looked up in a
        host copy of the delegate list (made on first use), so a search's start costs no
        device work or host read.

        Examples
        --------
        >>> import numpy as np
        >>> from spbfs.dist import DistGraph
        >>> G = DistGraph.from_edges(np.array([0, 0, 1]), np.array([1, 2, 2]), 3, threshold=1)
        >>> [G.delegate_of(v) for v in range(3)] == G.delegate_number(np.arange(3)).tolist()
        True
        """
        if self.D == 0:
            return -1
        host = self._cache.get("delegates on the host")
        if host is None:
            to_host = self.comm.to_host
            host = self._cache["delegates on the host"] = (to_host(self._dsorted),
                                                           to_host(self._dnumber))
        ids, numbers = host
        i = min(int(np.searchsorted(ids, v)), self.D - 1)
        return int(numbers[i]) if ids[i] == v else -1

    def is_delegate(self, x):
        """Boolean array: which global ids in ``x`` are delegates (same on every rank).

        Examples
        --------
        >>> import numpy as np
        >>> from spbfs.dist import DistGraph
        >>> G = DistGraph.from_edges(np.array([0, 0]), np.array([1, 2]), 3, threshold=1)
        >>> G.is_delegate([0, 1]).tolist()
        [True, False]
        """
        return self.delegate_number(x) >= 0

    def with_comm(self, comm):
        """The same graph bound to another Communicator of the same ranks and device.

        Lets one graph be searched over two data planes (NCCL and host-staged MPI).

        Examples
        --------
        >>> import numpy as np
        >>> from spbfs.dist import Communicator, DistGraph
        >>> G = DistGraph.from_edges(np.array([0]), np.array([1]), 2)
        >>> G.with_comm(Communicator()).n
        2
        """
        if (comm.size, comm.rank, comm.device) != (self.P, self.rank, self.comm.device):
            raise ValueError("with_comm needs a communicator of the same ranks and device")
        out = copy.copy(self)
        out.comm = comm
        return out

    def traversed_edges(self, levels):
        """Graph500 TEPS edge count of a valid search of an undirected graph (collective).

        Input tuples with a reached endpoint, self-loops and duplicates counted: half the
        degrees of the reached vertices plus their self-loops, so no pass over the edge
        list is needed.  Assumes ``directed=False`` construction and a correct search.

        Examples
        --------
        >>> import numpy as np
        >>> from spbfs import dist
        >>> G = dist.DistGraph.from_edges(np.array([0, 1, 1, 3]), np.array([1, 2, 1, 4]), 5)
        >>> G.traversed_edges(dist.bfs(G, 0))
        3
        """
        r = getattr(levels, "local", levels) >= 0
        local = self.xp.stack([self.degree[r].sum(), self.self_loops[r].sum()])
        d, s = self.comm.allreduce(self.comm.to_host(local).astype(np.int64))
        return int(d) // 2 + int(s)

    def gather(self, local, root=0):
        """The full vertex array on ``root`` from each rank's owned part (collective).

        ``local`` holds one value per owned vertex, in local-id order (what
        :func:`spbfs.dist.bfs` returns), or is a :class:`~spbfs.dist.arrays.DistArray`.
        Returns a numpy array of length ``n`` on ``root`` (``(k, n)`` for
        :class:`~spbfs.dist.arrays.DistRows`), None elsewhere.

        Examples
        --------
        >>> import numpy as np
        >>> from spbfs import dist
        >>> G = dist.DistGraph.from_edges(np.array([0, 1]), np.array([1, 2]), 3)
        >>> G.gather(dist.bfs(G, 0)).tolist()
        [0, 1, 2]
        """
        rows = isinstance(local, DistRows)       # (k, n): the vertex axis last
        local = getattr(local, "local", local)   # a DistArray: this rank's part
        parts = self.comm.gather(self.comm.to_host(local), root=root)
        if parts is None:
            return None
        out = np.empty((self.n,) + (parts[0].shape[1:] if parts else ()),
                       parts[0].dtype if parts else np.int64)
        for r, part in enumerate(parts):
            out[r::self.P] = part
        return np.ascontiguousarray(out.T) if rows else out

    def fetch(self, ids, *arrays):
        """Values of owned-vertex arrays at arbitrary global ``ids`` (collective).

        Each ``arrays[k]`` holds one value per owned vertex (local-id order) on every rank;
        returns, for each, the values at ``ids`` (this rank's query, any length), fetched
        from the owners with two all-to-all-v exchanges.

        Examples
        --------
        >>> import numpy as np
        >>> from spbfs.dist import DistGraph
        >>> G = DistGraph.from_edges(np.array([0, 1]), np.array([1, 2]), 3)
        >>> [a.tolist() for a in G.fetch(np.array([2, 0]), G.degree)]
        [[1, 1]]
        """
        xp, P, c = self.xp, self.P, self.comm
        ids = xp.asarray(ids, dtype=np.int64)
        if P == 1:
            return [a[ids] for a in arrays]
        order, counts = _local.bin_by(ids % P, P)
        q, rc = c.alltoallv(ids[order] // P, counts)
        replies, _ = c.alltoallv_many([a[q] for a in arrays], rc)
        out = []
        for rep in replies:
            res = xp.empty(ids.size, rep.dtype)
            res[order] = rep
            out.append(res)
        return out

    # ------------------------------------------------------------------ reports
    def stats(self):
        """This rank's sizes: vertices, delegates, edges and bytes per block.

        Examples
        --------
        >>> import numpy as np
        >>> from spbfs.dist import DistGraph
        >>> s = DistGraph.from_edges(np.array([0, 1]), np.array([1, 2]), 3).stats()
        >>> s["n_local"], s["delegates"], s["edges"]["nn"], s["bytes"]["local"]
        (3, 0, 4, 148)
        """
        lay = self.layout
        nbytes = {"local": int(lay.local.indptr.nbytes + lay.local.indices.nbytes),
                  "remote": 0 if lay.remote is None else int(lay.remote.indptr.nbytes
                                                             + lay.remote.indices.nbytes)}
        return {
            "rank": self.rank,
            "n_local": self.n_local,
            "delegates": self.D,
            "owned_delegates": int(self.owned_delegates.size),
            "threshold": self.threshold,
            "edges": dict(self.block_edges),
            "bytes": nbytes,
            "graph_bytes": sum(nbytes.values()),
            "state_bytes": self._state_bytes(),
        }

    def _state_bytes(self):
        """Bytes of per-BFS state on this rank: two bitmaps, two queues, levels and parents
        over the local space; with other ranks, the ghost slots and a level's words out
        and in."""
        it = np.dtype(self.layout.local.indices.dtype).itemsize
        nl, gh = self.layout.local.n, self.ghosts()
        extra = 0 if gh is None else gh.nbytes + 4 * int(gh.send_words.sum()
                                                         + gh.recv_words.sum())
        return int(nl * 4 * it + nl // 4 + extra)

    def report(self, root=0):
        """Per-rank table (delegates, edges and bytes per block) as text on ``root``.

        Collective; returns None on the other ranks.

        Examples
        --------
        >>> import numpy as np
        >>> from spbfs.dist import DistGraph
        >>> G = DistGraph.from_edges(np.array([0, 1]), np.array([1, 2]), 3)
        >>> print(G.report().splitlines()[0])
        DistGraph: n=3, input edges=2, P=1, threshold=3, delegates=0
        """
        all_stats = self.comm.gather(self.stats(), root=root)
        if all_stats is None:
            return None
        head = (f"DistGraph: n={self.n}, input edges={self.input_edges}, P={self.P}, "
                f"threshold={self.threshold}, delegates={self.D}")
        cols = ("rank", "n_local", "own_del") + BLOCKS + ("graph_MB", "state_MB")
        lines = [head, " ".join(f"{h:>10}" for h in cols)]
        tot = dict.fromkeys(BLOCKS, 0)
        gbytes = 0
        for s in all_stats:
            row = [s["rank"], s["n_local"], s["owned_delegates"]]
            row += [s["edges"][b] for b in BLOCKS]
            lines.append(" ".join(f"{x:>10}" for x in row)
                         + f" {s['graph_bytes'] / 1e6:>10.3f} {s['state_bytes'] / 1e6:>10.3f}")
            for b in BLOCKS:
                tot[b] += s["edges"][b]
            gbytes += s["graph_bytes"]
        arcs = sum(tot.values())
        share = ", ".join(f"{b} {100 * tot[b] / max(arcs, 1):.1f}%" for b in BLOCKS)
        lines.append(f"stored arcs {arcs} ({share}); graph bytes per input edge "
                     f"{gbytes / max(self.input_edges, 1):.2f}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (f"DistGraph(n={self.n}, P={self.P}, rank={self.rank}, D={self.D}, "
                f"threshold={self.threshold}, device={self.comm.device!r})")
