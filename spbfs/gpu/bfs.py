"""The GPU backend's level search: the bitmap fast path of masked ``vxm`` for ``any_pair`` /
``any_secondi`` (:func:`spbfs.semiring.level_search`), the engine of :func:`spbfs.bfs`.

One level is one or two kernel launches:

* push (top-down, ``bfs_push``): the frontier queue is expanded with Merrill et
  al.'s CTA/warp/thread gathering; adjacency lists of at least :data:`BIG`
  edges (hubs) are cut into BIG-edge chunks that ``bfs_push_big`` spreads over
  the whole grid.  A neighbour is claimed by ``atomicOr`` on the visited
  bitmap, so it enters the next queue exactly once; block-wide expansions
  stage their claims in shared memory (one queue atomic per block).
* pull (bottom-up, ``bfs_pull``): one warp per 32-vertex bitmap word; each
  unvisited vertex scans its in-neighbours against the visited bitmap (in L2)
  and stops at the first hit, which is its parent.  The new bitmap word is
  written to a second bitmap (no atomics); no queue is built, and when the
  next level pushes, ``bfs_compact`` turns the two bitmaps' difference into
  the queue.

Each kernel adds the next frontier's size and its out/in-degree sums into a
small device ring.  :func:`spbfs.bfs` calls :meth:`BitmapSearch.run`: the level loop on
the device, in rounds of launches the host makes without waiting (``bfs_levels``, the push
levels in one cooperative launch with grid-wide barriers; ``bfs_pull_step``, a pull level
each), every launch applying Beamer's rule to the ring and running only when the rule picks
its direction; the host reads the loop's state once per round.  The distributed engine
steps a search itself with :meth:`~BitmapSearch.advance` and :meth:`~BitmapSearch.sizes`
(one synchronisation per call).  Buffers (two bitmaps, two
queues, the hub chunk queue, the ring) live in a :class:`Workspace` that a search
checks out of a :class:`WorkspacePool` and returns when it ends, so concurrent
searches (threads, CUDA streams) never share one and repeated searches reuse
them; only the outputs are allocated per search.

Examples
--------
>>> import cupyx.scipy.sparse as csp, spbfs                    # doctest: +SKIP
>>> A = csp.random(1000, 1000, density=0.01, format="csr")     # doctest: +SKIP
>>> levels, parents = spbfs.bfs(A, 0, return_parents=True)     # doctest: +SKIP
"""

from __future__ import annotations

import functools
import threading
import time
import types
import weakref

import numpy as np

from ..core.seam import LevelSearch
from ..core.seam import bitmap_searchable as supports
from . import kernels
from .memory import GPUMemoryError, check_fits, out_of_memory

__all__ = ["BitmapSearch", "Workspace", "WorkspacePool", "supports", "workspaces"]

RING = 64  # ring slots (must match RING in bfs_kernels.cu)
#: The device loop's state (LOOP_* in bfs_kernels.cu): level, current bitmap and queue,
#: queued, pulling, unfilled, the policy's frontier size, previous size, out-edges and
#: unexplored edges, done, pulled levels, finished blocks.
LOOP_FIELDS = 13
_LEVEL, _CUR, _QIN, _QUEUED, _PULLING, _UNFILLED, _DONE, _PULLED = 0, 1, 2, 3, 4, 5, 10, 11
#: Launches of bfs_pull_step per round (Kronecker graphs pull 2-3 levels in a row).
LOOP_PULLS = 3
#: Push levels per launch of bfs_levels at most: a round's levels fit the ring, which a
#: trace reads.
LOOP_LEVELS = (RING - LOOP_PULLS - 2) // 2
#: Blocks of bfs_levels per multiprocessor (its register budget: 4 lets the push keep 64).
LOOP_BLOCKS = 4
_DIRECTIONS = {"auto": 0, "push": 1, "pull": 2}
_THREADS = 256
_NULL = np.uint64(0)  # a null pointer argument
_NO_OWNERS = np.int64(0)  # the owners and part size of a local (not remote) push
#: Row starts at or beyond this many entries into their 32-row word are read from the row
#: offsets instead of the pull's heads (NO_OFFSET in bfs_kernels.cu; tests lower it).
HEAD_OFFSET_LIMIT = 0xFFFFFFFF
#: The parameters of ``bfs_levels`` and of ``bfs_pull_step`` (bfs_kernels.cu), in order.
_LEVELS_PARAMS = ("indptr", "indices", "tindptr", "vis0", "vis1", "q0", "q1", "levels",
                  "parents", "ring", "big_u", "big_p", "big_cap", "use_big", "n", "nwords",
                  "pmap", "state", "alpha", "beta", "direction", "max_levels", "sms", "dist",
                  "reset", "source")
_PULL_PARAMS = ("tindptr", "tindices", "indptr", "live", "heads", "wbase", "vis0", "vis1",
                "levels", "parents", "ring", "n", "nwords", "pmap", "state", "alpha", "beta",
                "direction", "dist")
_LEVELS_AT = {name: i for i, name in enumerate(_LEVELS_PARAMS)}
_PULL_AT = {name: i for i, name in enumerate(_PULL_PARAMS)}
#: Adjacency lists of at least BIG edges are cut into BIG-edge chunks expanded by the whole
#: grid (bfs_push_big); must equal PUSH_BIG in bfs_kernels.cu.
BIG = 1024


class Workspace:
    """Reusable device buffers of a BFS on ``n`` vertices with index dtype ``idx_dtype``.

    Two visited bitmaps (pull writes the next one), two frontier queues, the
    statistics ring, and a pinned host copy of the ring.

    Examples
    --------
    >>> import numpy as np
    >>> Workspace.nbytes(1 << 20, np.int32)
    8652912
    """

    def __init__(self, n: int, idx_dtype):
        import cupy

        self.n = int(n)
        self.idx_dtype = np.dtype(idx_dtype)
        self.nwords = (self.n + 31) // 32
        self.vis = [cupy.zeros(self.nwords + 1, np.uint32) for _ in range(2)]
        self.queue = [cupy.empty(max(self.n, 1), self.idx_dtype) for _ in range(2)]
        self.ring = cupy.zeros(RING * 4, np.uint64)
        self.state = cupy.zeros(LOOP_FIELDS, np.int64)
        self._big = None
        mem = cupy.cuda.alloc_pinned_memory(RING * 4 * 8)
        self.host = np.frombuffer(mem, np.uint64, RING * 4)
        state_mem = cupy.cuda.alloc_pinned_memory(LOOP_FIELDS * 8)
        self.state_host = np.frombuffer(state_mem, np.int64, LOOP_FIELDS)
        self._mem = (mem, state_mem)

    def big_queue(self, size: int, ptr_dtype):
        """Room for ``size`` hub chunks (vertex, first edge) of a push level."""
        import cupy

        if self._big is None or self._big[0].size < size or self._big[1].dtype != ptr_dtype:
            self._big = (cupy.empty(int(size), self.idx_dtype), cupy.empty(int(size), ptr_dtype))
        return self._big

    @staticmethod
    def nbytes(n: int, idx_dtype) -> int:
        """Device bytes of a workspace for ``n`` vertices."""
        words = (int(n) + 31) // 32 + 1
        return (2 * 4 * words + 2 * np.dtype(idx_dtype).itemsize * max(int(n), 1) + RING * 32
                + LOOP_FIELDS * 8)

    def fetch(self, first: int, count: int):
        """Copy ring slots ``first .. first+count-1`` (mod RING) to the host; one sync."""
        import cupy

        stream = cupy.cuda.get_current_stream()
        lo = first % RING
        hi = lo + count
        spans = [(lo, min(hi, RING))] + ([(0, hi - RING)] if hi > RING else [])
        copies = [(self.host.ctypes.data + a * 32, self.ring.data.ptr + a * 32, (b - a) * 32)
                  for a, b in spans if b > a]
        for dst, src, nbytes in copies:
            cupy.cuda.runtime.memcpyAsync(dst, src, nbytes, cupy.cuda.runtime.memcpyDeviceToHost,
                                          stream.ptr)
        stream.synchronize()
        return self.host

    def copy_state(self, to_device: bool):
        """The loop state between :attr:`state` and :attr:`state_host` (pinned); reading it
        back synchronises."""
        import cupy

        rt = cupy.cuda.runtime
        stream = cupy.cuda.get_current_stream()
        host, dev = self.state_host.ctypes.data, self.state.data.ptr
        nbytes = LOOP_FIELDS * 8
        if to_device:
            rt.memcpyAsync(dev, host, nbytes, rt.memcpyHostToDevice, stream.ptr)
        else:
            rt.memcpyAsync(host, dev, nbytes, rt.memcpyDeviceToHost, stream.ptr)
            stream.synchronize()
        return self.state_host


class WorkspacePool:
    """Workspaces checked out by one search at a time (thread- and stream-safe).

    A search takes a free workspace of its ``(device, n, idx_dtype)`` or, if
    none is free, a new one after a memory check (of it and the search's
    outputs); it gives it back when it
    ends, its stream synchronised, so the next search (on any stream) finds
    no work in flight.  At most ``keep`` free workspaces are kept per size,
    and asking for another size frees those of the previous one.

    Examples
    --------
    >>> pool = WorkspacePool()                                   # doctest: +SKIP
    >>> ws = pool.checkout(1 << 20, np.int32)                    # doctest: +SKIP
    >>> ws.n                                                     # doctest: +SKIP
    1048576
    >>> pool.give_back(ws)                                       # doctest: +SKIP
    """

    def __init__(self, keep: int = 8):
        self.keep = int(keep)
        self._lock = threading.Lock()
        self._free: dict = {}

    def _take(self, key):
        with self._lock:
            for other in [k for k in self._free if k != key]:
                del self._free[other]  # a new size: free the old buffers
            stack = self._free.get(key)
            return stack.pop() if stack else None

    def checkout(self, n: int, idx_dtype, extra_bytes: int = 0) -> Workspace:
        """A workspace for one search, until :meth:`give_back`; ``extra_bytes`` (its
        outputs) join the memory check made when a new workspace is needed.  Plain calls,
        not a context manager: a search's start is on its clock, and on a host whose caches
        a validation just emptied each step of it costs 3-5x its warm time."""
        import cupy

        key = (cupy.cuda.runtime.getDevice(), int(n), np.dtype(idx_dtype).str)
        ws = self._take(key)
        if ws is None:  # a reused one skips the device query (80-100 us in the lent VM);
            # failing to allocate the outputs still ends in a GPUMemoryError (BitmapSearch)
            nbytes = Workspace.nbytes(n, idx_dtype)
            check_fits(f"BFS on {n} vertices", extra_bytes + nbytes,
                       detail=f"outputs {extra_bytes / 1e9:.2f} GB, workspace "
                              f"{nbytes / 1e9:.2f} GB")
            ws = Workspace(n, idx_dtype)
            ws.pool_key = key
        return ws

    def give_back(self, ws: Workspace) -> None:
        """Return ``ws`` once its stream's work is done (the next search, on any stream,
        finds none in flight)."""
        import cupy

        cupy.cuda.get_current_stream().synchronize()
        with self._lock:
            stack = self._free.setdefault(ws.pool_key, [])
            if len(stack) < self.keep:
                stack.append(ws)


#: The process-wide pool used by :func:`bfs`.
workspaces = WorkspacePool()


def _blocks(work: int, cap: int) -> int:
    return kernels.blocks(work, cap, _THREADS)


class _Kit:
    """The compiled BFS kernels of one type combination on one device (``kit.pull`` is
    ``bfs_pull``), each fetched from the module once, and the one-wave grids of the
    grid-stride kernels: looked up once per process (:func:`kit`), not per search."""

    def __init__(self, device, idt, ptr_dtype, values, directed, remote, mapped, levels):
        self.types = (idt, ptr_dtype, values, directed, remote, mapped)
        self.levels = levels
        self.module = kernels.bfs_module(*self.types, levels=levels)
        self.sms = kernels.sm_count()
        self.cooperative = kernels.cooperative_launch(device)
        self._waves = {}

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        func = self.module.get_function("bfs_" + name)
        setattr(self, name, func)
        return func

    def wave(self, name: str) -> int:
        """Blocks of one wave of kernel ``name``: a multiple of what a multiprocessor holds
        at once, so a grid-stride launch runs in one wave."""
        blocks = self._waves.get(name)
        if blocks is None:
            blocks = self._waves[name] = self.sms * kernels.resident_blocks(
                getattr(self, name), _THREADS)
        return blocks

    @functools.cached_property
    def loop(self):
        """``(bfs_levels, its grid)``: the level loop, launched cooperatively with the
        blocks the device holds at once."""
        func = kernels.bfs_module(*self.types, loop_blocks=LOOP_BLOCKS,
                                  levels=self.levels).get_function("bfs_levels")
        return func, self.sms * kernels.resident_blocks(func, _THREADS)


@functools.cache
def _kit(device: int, idt: str, ptr: str, values: bool, directed: bool, remote: bool,
         mapped: bool, levels: bool) -> _Kit:
    return _Kit(device, np.dtype(idt), np.dtype(ptr), values, directed, remote, mapped, levels)


def kit(idt, ptr_dtype, values, directed, remote=False, mapped=False, levels=True) -> _Kit:
    """The :class:`_Kit` for these types on the current device (``levels`` False: kernels
    that write parents alone)."""
    import cupy

    return _kit(cupy.cuda.runtime.getDevice(), np.dtype(idt).str, np.dtype(ptr_dtype).str,
                bool(values), bool(directed), bool(remote), bool(mapped), bool(levels))


class _Plan:
    """What every search on one pattern needs besides its workspace and outputs, built by
    the first one and kept with the pattern (one lookup per search instead of a dozen
    steps: the host's start is on the clock of every search): the row offsets of the
    matrix and of the one the pull reads, in one dtype; the kernels; the pull's tables;
    the hub settings."""

    def __init__(self, M, values, directed, transpose, mapped, nwords, levels):
        T = M.T if directed and transpose else M
        self.ptr_dtype = np.promote_types(M.indptr.dtype, T.indptr.dtype)
        # in-degrees count the unexplored edges; a push-only search on a directed graph has
        # no transpose and counts out-degrees instead (the count only steers "auto")
        self.indptr, self.indices = M.indptr.astype(self.ptr_dtype, copy=False), M.indices
        self.tindptr, self.tindices = T.indptr.astype(self.ptr_dtype, copy=False), T.indices
        self.k = kit(M.indices.dtype, self.ptr_dtype, values, directed, mapped=mapped,
                     levels=levels)
        self.heads, self.wbase, self.live = T.pattern.derived(
            ("gpu_heads", self.ptr_dtype.str), lambda: self._heads(M.n, nwords))
        # Hubs (adjacency lists of >= BIG edges) are expanded by the whole grid in a second
        # launch per push level, when the graph has any.  A frontier's hubs have at most
        # nnz / BIG + (number of hubs) <= 2 nnz / BIG + 1 chunks.
        self.use_big = M.max_out_degree >= BIG
        self.big_slots = 2 * (M.nnz // BIG) + 2 if self.use_big else 1
        self.big = np.int64(BIG if self.use_big else np.iinfo(np.int64).max)
        # run()'s launches of bfs_levels and bfs_pull_step with their arguments packed, per
        # workspace (a search holds its workspace alone; they go when it does)
        self.launches = weakref.WeakKeyDictionary()

    def _heads(self, n, nwords):
        """The pull's tables of a pattern (bfs_heads), kept with it: the heads (each row's
        first in-neighbour and 32-bit start within its word: 2 ids per vertex), the word
        bases (an offset per word) and the live bitmap (the vertices with in-edges: a bit
        per vertex)."""
        import cupy

        heads = cupy.empty(2 * max(n, 1), self.tindices.dtype)
        wbase = cupy.empty(nwords + 1, self.tindptr.dtype)
        wbase[-1:] = self.tindptr[-1:]
        live = cupy.empty(max(nwords, 1), np.uint32)
        self.k.heads((_blocks(n, self.k.sms * 8),), (_THREADS,),
                     (self.tindptr, self.tindices, np.int64(n), np.uint32(HEAD_OFFSET_LIMIT),
                      heads, wbase, live))
        return heads, wbase, live


class BitmapSearch(LevelSearch):
    """:class:`~spbfs.semiring.LevelSearch` on one GPU with the bitmap kernels.

    Made by :func:`spbfs.semiring.level_search` for GPU input (see :func:`supports`); it
    checks a :class:`Workspace` out of :data:`workspaces` and gives it back on ``close``.

    Raises
    ------
    spbfs.gpu.GPUMemoryError
        If the outputs and workspace do not fit in free device memory.

    Examples
    --------
    >>> import cupy                                                        # doctest: +SKIP
    >>> from spbfs import semiring                                         # doctest: +SKIP
    >>> from spbfs.graph500.harness import build_undirected               # doctest: +SKIP
    >>> M = build_undirected(cupy.array([0, 1]), cupy.array([1, 2]), 4)    # doctest: +SKIP
    >>> with semiring.level_search(M, 0, semiring.any_pair) as s:          # doctest: +SKIP
    ...     s.advance(False, 2)
    ...     type(s).__name__, s.sizes(), s.levels.tolist()
    ('BitmapSearch', [(1, 1, 1), (1, 2, 2), (1, 1, 1)], [0, 1, 2, -1])
    """

    #: A pull costs less against a push here than on the CPUs Beamer measured: with his 15,
    #: a Kronecker search whose root has few neighbours pushed its third level (millions of
    #: edges, ~3x the pull's time).  Measured on an H100 in docs/gpu.md.
    alpha = 40.0
    #: Whether :func:`spbfs.bfs` calls :meth:`run` (the level loop on the device) instead of
    #: stepping the search with :meth:`advance` and :meth:`sizes` (as the distributed engine
    #: does); devices without cooperative launches are always stepped.
    device_loop = True

    @property
    def drives_itself(self) -> bool:
        return self.device_loop and self.k.cooperative

    def __init__(self, M, source, values, transpose, parent_ids=None, levels=True):
        n, idt = M.n, M.indices.dtype
        self.mapped = parent_ids is not None
        self.pmap = parent_ids if self.mapped else _NULL
        self.keeps_levels = bool(levels) or not values  # without parents, levels are all
        out_bytes = n * idt.itemsize * (int(bool(values)) + int(self.keeps_levels))
        self._held = False
        try:
            self.ws = workspaces.checkout(n, idt, out_bytes)
            self._held = True
            self._start(M, int(source), values, transpose)
        except MemoryError as exc:
            self.close()
            if isinstance(exc, GPUMemoryError):
                raise
            raise out_of_memory(f"BFS on {n} vertices", exc, out_bytes) from exc
        except BaseException:
            self.close()
            raise

    def close(self):
        if self._held:
            self._held = False
            workspaces.give_back(self.ws)

    def _start(self, M, source, values, transpose):
        import cupy

        ws, n, idt = self.ws, M.n, M.indices.dtype
        directed = not M.symmetric
        key = ("gpu_search", ws.pool_key[0], bool(values), directed,  # the current device
               bool(transpose), self.mapped, self.keeps_levels)
        plan = M.pattern.derived(key, lambda: _Plan(M, values, directed, transpose,
                                                    self.mapped, ws.nwords, self.keeps_levels))
        self.plan = plan
        self.indptr, self.indices = plan.indptr, plan.indices
        self.tindptr, self.tindices = plan.tindptr, plan.tindices
        self.k, self.sms = plan.k, plan.k.sms
        self.heads, self.wbase, self.live = plan.heads, plan.wbase, plan.live
        self.use_big, self.big = plan.use_big, plan.big
        self.big_u, self.big_p = ws.big_queue(plan.big_slots, plan.ptr_dtype)
        self._remote = self._dist = None
        # written where found, and elsewhere by the first pull or, if read before, _fill;
        # a search for parents alone hands the kernels its parents as their (unwritten)
        # levels argument
        self._parents = cupy.empty(n, dtype=idt) if values else None
        self._levels = cupy.empty(n, dtype=idt) if self.keeps_levels else self._parents
        self._unfilled = True
        self.cur = 0  # index of the current visited bitmap
        self.qin = 0  # index of the current frontier queue
        self.queued = True  # whether ws.queue[qin] holds the current frontier
        self.nwords = np.int64(ws.nwords)
        self.n, self.nnz = n, int(M.nnz)
        # bfs_reset runs before the first kernel that needs it (_ensure_reset), or inside
        # run()'s first launch: a launch fewer before the search's first level
        self.source, self._reset_pending = idt.type(source), True
        self.level = 0
        self.fetched = 0  # first ring slot not yet read
        self.frontier = 1  # last frontier size read (sizes the grid of a single push)
        self.frontier_edges = None  # and its out-edges (None: not read yet)

    def _ensure_reset(self):
        """The search's start (``bfs_reset``), if no launch has made it yet."""
        if self._reset_pending:
            self._reset_pending = False
            ws = self.ws
            self.k.reset(
                (_blocks(max(self.n, 4 * RING), self.sms * 8),), (_THREADS,),
                (self.indptr, self.tindptr, ws.vis[self.cur], ws.queue[self.qin], self._levels,
                 self._parents_arg(), ws.ring, self.source, self.nwords, self.pmap))

    @property
    def levels(self):
        """Levels so far, ``-1`` where not reached (see :class:`LevelSearch`); None in a
        search for parents alone."""
        self._fill()
        return self._levels if self.keeps_levels else None

    @property
    def parents(self):
        """Parents so far, ``-1`` where not reached; None without values."""
        self._fill()
        return self._parents

    def _fill(self):
        """The unreached vertices' -1, when the outputs are read before the first pull."""
        if self._dist is not None:
            self._leave_device_levels()
        self._ensure_reset()
        if self._unfilled:
            self._unfilled = False
            self.k.unreached(
                (_blocks(self.n, self.sms * 8),), (_THREADS,),
                (self.ws.vis[self.cur], self._levels, self._parents_arg(), np.int64(self.n)))

    def _parents_arg(self):
        return self._parents if self._parents is not None else self._levels

    def advance(self, pulling: bool, count: int = 1) -> None:
        self._ensure_reset()
        ws = self.ws
        parents = self._parents_arg()
        if pulling:
            if count != 1:
                raise ValueError("a pull advances one level")
            self.level += 1
            self.k.pull((_blocks(ws.nwords * 32, self.k.wave("pull")),), (_THREADS,),
                        (self.tindptr, self.tindices, self.indptr, self.live, self.heads,
                         self.wbase, ws.vis[self.cur], ws.vis[1 - self.cur], self._levels,
                         parents, ws.ring, np.int32(self.level), np.int64(self.n), self.nwords,
                         self.pmap, np.int32(self._unfilled)))
            self._unfilled = False
            self.cur = 1 - self.cur
            self.queued = False
            return
        self._ensure_queue()
        wave = self.k.wave("push")
        blocks = wave if count > 1 else _blocks(self.frontier, 4 * wave)
        big = self._spread(blocks) if count == 1 else self.big
        for _ in range(count):
            self.level += 1
            self.k.push((blocks,), (_THREADS,),
                        (self.indptr, self.indices, self.tindptr, ws.vis[self.cur],
                         ws.queue[self.qin], ws.queue[1 - self.qin], self._levels, parents,
                         ws.ring, np.int32(self.level), self.big_u, self.big_p, big,
                         ws.ring, np.int64(0), self.pmap, _NO_OWNERS, _NO_OWNERS))
            if self.use_big and (count > 1 or self.frontier_edges is None
                                 or self.frontier_edges >= big):  # else no list has chunks
                self.k.push_big((self.k.wave("push_big"),), (_THREADS,),
                           (self.indptr, self.indices, self.tindptr, ws.vis[self.cur],
                            self.big_u, self.big_p, ws.queue[1 - self.qin], self._levels,
                            parents, ws.ring, np.int32(self.level), ws.ring, self.pmap,
                            _NO_OWNERS, _NO_OWNERS))
            self.qin = 1 - self.qin

    def run(self, direction, alpha, beta, trace=None) -> None:
        """The whole search from its source with the level loop on the device: rounds of
        launches the host makes without waiting, ``bfs_levels`` (push levels, cooperative),
        :data:`LOOP_PULLS` ``bfs_pull_step`` (a pull level each) and ``bfs_levels`` again;
        each launch applies :func:`~spbfs.algorithms._shared.beamer_pull`'s rule on the
        device and runs only when it picks its direction (``direction`` "auto"; "push" or
        "pull" fix it; ``alpha`` None: :attr:`alpha`).  The host reads the loop's state
        once per round.  The first launch makes the search's start and writes the loop's
        first state (unless an earlier call launched ``bfs_reset``), and the launches'
        arguments are packed once per pattern and workspace: the host's part before the
        first level is a few driver calls (it is on the clock of every search).

        ``trace`` (a list) gets ``(level, level, "push" | "pull", frontier_in, found,
        seconds)`` per level, ``seconds`` the host time of its round on the round's last
        level and None on the others.
        """
        if self.level:
            raise RuntimeError("run() searches from the source: levels were advanced")
        ws, k = self.ws, self.k
        alpha = self.alpha if alpha is None else alpha
        fresh, self._reset_pending = self._reset_pending, False
        if not fresh:  # bfs_reset ran: the host writes the loop's first state
            ws.state_host[:] = (0, self.cur, self.qin, self.queued, direction == "pull",
                                self._unfilled, 1, 0, 0, self.nnz, 0, 0, 0)
            ws.copy_state(to_device=True)
        levels, pulls = self._round_launches(direction, alpha, beta)
        levels.set(_LEVELS_AT["reset"], np.int32(fresh))
        blocks, pull_grid = k.loop[1], k.wave("pull_step")
        first = 0
        while True:
            t_start = time.perf_counter()
            levels(blocks, _THREADS)
            if fresh:
                fresh = False
                levels.set(_LEVELS_AT["reset"], np.int32(0))
            for _ in range(LOOP_PULLS):
                pulls(pull_grid, _THREADS)
            levels(blocks, _THREADS)
            state = ws.copy_state(to_device=False)
            if trace is not None:
                self._trace(trace, first, int(state[_LEVEL]), int(state[_PULLED]),
                            time.perf_counter() - t_start)
            if state[_DONE]:
                break
            first = int(state[_LEVEL])
        self.level, self.cur, self.qin = (int(state[i]) for i in (_LEVEL, _CUR, _QIN))
        self.queued, self._unfilled = bool(state[_QUEUED]), bool(state[_UNFILLED])
        self.fetched = self.level + 1

    def _round_launches(self, direction, alpha, beta):
        """:meth:`run`'s launches of ``bfs_levels`` and ``bfs_pull_step``
        (:class:`~spbfs.gpu.kernels.PackedLaunch`), packed by the first search of this
        pattern on this workspace and kept with the pattern's plan; each search sets its
        own outputs, source and policy."""
        launches = self.plan.launches.get(self.ws)
        if launches is None:
            loop_args, pull_args = self._loop_args(direction, alpha, beta, LOOP_LEVELS, dist=0)
            launches = (kernels.PackedLaunch(self.k.loop[0], loop_args, cooperative=True),
                        kernels.PackedLaunch(self.k.pull_step, pull_args))
            self.plan.launches[self.ws] = launches
        levels, pulls = launches
        for name, value in self._search_args(direction, alpha, beta).items():
            levels.set(_LEVELS_AT[name], value)
            if name in _PULL_AT:
                pulls.set(_PULL_AT[name], value)
        return launches

    def _search_args(self, direction, alpha, beta):
        """The loop kernels' arguments that are this search's own: its outputs, source and
        policy, and the hub chunk queue (its workspace makes it anew for a pattern that
        needs a larger one); the others are its plan's and its workspace's."""
        return {"levels": self._levels, "parents": self._parents_arg(), "pmap": self.pmap,
                "alpha": np.float64(alpha), "beta": np.float64(beta),
                "direction": np.int32(_DIRECTIONS[direction]), "source": self.source,
                "big_u": self.big_u, "big_p": self.big_p, "big_cap": np.int64(self.big_u.size)}

    def _loop_args(self, direction, alpha, beta, max_levels, dist):
        """The arguments of ``bfs_levels`` (without a reset) and ``bfs_pull_step``
        (``dist``: the one level a distributed rank's launches may run, 0 for none)."""
        ws = self.ws
        values = self._search_args(direction, alpha, beta)
        values.update(
            indptr=self.indptr, indices=self.indices, tindptr=self.tindptr,
            tindices=self.tindices, vis0=ws.vis[0], vis1=ws.vis[1], q0=ws.queue[0],
            q1=ws.queue[1], ring=ws.ring, use_big=np.int32(self.use_big), n=np.int64(self.n),
            nwords=self.nwords, state=ws.state, live=self.live, heads=self.heads,
            wbase=self.wbase, max_levels=np.int32(max_levels), sms=np.int32(self.sms),
            dist=np.int32(dist), reset=np.int32(0))
        return (tuple(values[name] for name in _LEVELS_PARAMS),
                tuple(values[name] for name in _PULL_PARAMS))

    # -- a distributed rank's levels: the loop state stays on the device from the first
    # push_out or advance_auto until the outputs are read, so the host never waits per level
    def _device_levels(self):
        """Enter the device-held state (once): the search started, the host's fields copied
        to ``ws.state`` (the outputs' -1s still to write: the first pull writes them, or
        :meth:`_fill` when the outputs are read)."""
        if self._dist is None:
            self._ensure_reset()
            ws = self.ws
            ws.state_host[:] = (self.level, self.cur, self.qin, self.queued, False,
                                self._unfilled, 1, 0, 0, self.nnz, 0, 0, 0)
            ws.copy_state(to_device=True)
            self._dist = types.SimpleNamespace(level=self.level, args=None, pulled=0)
        return self._dist

    def _leave_device_levels(self):
        """The device-held state back to the host's fields (one synchronisation)."""
        d, self._dist = self._dist, None
        state = self.ws.copy_state(to_device=False)
        self.level, self.cur, self.qin = (int(state[i]) for i in (_LEVEL, _CUR, _QIN))
        self.queued, self._unfilled = bool(state[_QUEUED]), bool(state[_UNFILLED])
        self.fetched = self.level + 1
        d.pulled = int(state[_PULLED])
        self._directions = ["pull" if d.pulled >> (lev % 64) & 1 else "push"
                            for lev in range(1, d.level + 1)]

    @property
    def directions(self) -> list:
        if self._dist is not None:
            self._leave_device_levels()
        return list(getattr(self, "_directions", []))

    def advance_auto(self, direction: str, alpha: float, beta: float) -> None:
        if not self.k.cooperative:
            raise RuntimeError("a distributed search on the GPU needs cooperative launches, "
                               "which this device does not offer")
        d, k = self._device_levels(), self.k
        if d.args is None:
            loop_args, pull_args = self._loop_args(direction, alpha, beta, 1, dist=0)
            d.args = (loop_args, pull_args, (np.float64(alpha), np.float64(beta),
                                             np.int32(_DIRECTIONS[direction])))
            if direction == "pull":   # the state was entered pushing; "pull" fixes it
                self.ws.state[_PULLING:_PULLING + 1] = 1
        loop_args, pull_args, policy = d.args
        loop, blocks = k.loop
        d.level += 1
        last = np.int32(d.level)   # the one level these launches may run
        loop((blocks,), (_THREADS,), loop_args[:-3] + (last,) + loop_args[-2:])
        k.pull_step((k.wave("pull_step"),), (_THREADS,), pull_args[:-1] + (last,))
        # bfs_dist_words (level_words) moves the state to this level if neither ran

    def level_words(self, out, word0: int, count: int, sent=None) -> None:
        import cupy

        ws, d = self.ws, self._device_levels()
        if d.args is None:
            raise RuntimeError("level_words follows advance_auto")
        cupy.cuda.runtime.memsetAsync(out.data.ptr + 4 * count, 0, 4,
                                      cupy.cuda.get_current_stream().ptr)
        nsent = 0 if sent is None else int(sent.size)
        self.k.dist_words((_blocks(max(count, nsent), self.sms * 8),), (_THREADS,),
                          (ws.vis[0], ws.vis[1], ws.state, ws.ring, np.int64(word0),
                           np.int64(count), sent if sent is not None else _NULL,
                           np.int64(nsent), out, np.int64(self.n), np.int32(d.level),
                           *d.args[2]))

    def _trace(self, trace, first, last, pulled, seconds):
        """A round's levels ``first + 1 .. last`` from the ring, for :meth:`run`."""
        host = self.ws.fetch(first, last + 1 - first)
        found = [int(host[4 * (lev % RING)]) for lev in range(first, last + 1)]
        for lev in range(first + 1, last + 1):
            way = "pull" if pulled >> (lev % 64) & 1 else "push"
            trace.append((lev, lev, way, found[lev - 1 - first], found[lev - first],
                          seconds if lev == last else None))

    def _spread(self, blocks):
        """The hub threshold of a single push: a frontier queued in fewer blocks than the
        device has multiprocessors would expand its lists of a block's size or more one
        after another in those blocks, so they go to the grid-wide chunks too, when their
        chunks (at most one per _THREADS edges plus one per BIG) fit the chunk queue."""
        edges = self.frontier_edges
        if (not self.use_big or edges is None or blocks >= self.sms
                or edges // _THREADS + edges // BIG + 1 > self.big_u.size):
            return self.big
        return np.int64(_THREADS)

    def _ensure_queue(self):
        """After a pull, the current level's finds as a queue (from the two bitmaps)."""
        if not self.queued:
            ws = self.ws
            self.k.compact((_blocks(ws.nwords, self.sms * 8),), (_THREADS,),
                           (ws.vis[self.cur], ws.vis[1 - self.cur], ws.queue[self.qin],
                            ws.ring, np.int32(self.level), self.nwords))
            self.queued = True

    def _current_args(self):
        """Both bitmaps and queues and the loop state: the device picks the current ones."""
        ws = self.ws
        return (ws.vis[0], ws.vis[1], ws.queue[0], ws.queue[1])

    def claim_mapped(self, words, ids) -> None:
        self._device_levels()
        nw = int(words.size)
        if nw:
            self.k.claim_mapped(
                (_blocks(nw, self.sms * 8),), (_THREADS,),
                (words, np.int64(nw), ids, *self._current_args(), self._levels,
                 self._parents_arg(), self.indptr, self.tindptr, self.ws.ring, self.ws.state))

    def visited_words(self, word0: int, count: int):
        self._ensure_reset()
        return self.ws.vis[self.cur][word0:word0 + count]

    def claim_words(self, word0: int, words) -> None:
        self._device_levels()
        nw = int(words.size)
        if nw:
            self.k.claim_words(
                (_blocks(nw, self.sms * 8),), (_THREADS,),
                (words, np.int64(nw), np.int64(word0), *self._current_args(), self._levels,
                 self._parents_arg(), self.indptr, self.tindptr, self.ws.ring, self.ws.state))

    def push_out(self, R, out) -> None:
        import cupy

        if self._levels is None or not self.keeps_levels:
            raise RuntimeError("push_out reads the levels: start the search with levels=True")
        self._device_levels()
        if self._remote is None:
            self._remote = self._remote_setup(R, self._levels.dtype)
        r, ws, grid = self._remote, self.ws, self.sms * 8
        stream = cupy.cuda.get_current_stream().ptr
        cupy.cuda.runtime.memsetAsync(r.counters.data.ptr, 0, r.counters.nbytes, stream)
        cupy.cuda.runtime.memsetAsync(out.data.ptr, 0, out.nbytes, stream)
        # Full grids (the frontier's size is on the device): a frontier queued and not
        # longer than R's nonempty rows is pushed from its queue, else by those rows (the
        # ones in it); each kernel checks which on the device.
        q0, q1 = ws.queue
        r.k.push_rows((grid,), (_THREADS,),
                      (r.rows, r.nrows, R.indptr, R.indices, out, ws.vis[0], ws.vis[1], q0, q1,
                       self._levels, ws.ring, ws.state))
        r.k.push_remote((grid,), (_THREADS,),
                        (R.indptr, R.indices, out, q0, q1, self._levels, ws.ring, r.big_u,
                         r.big_p, r.big, r.counters, r.nrows, ws.state))
        if r.use_big:
            r.k.push_big((grid,), (_THREADS,),
                         (R.indptr, R.indices, R.indptr, out, r.big_u, r.big_p, _NULL,
                          self._levels, _NULL, ws.ring, np.int32(0), r.counters, self.pmap))

    def _remote_setup(self, R, idt):
        """What every :meth:`push_out` of this search launches with: the remote kernels
        (compiled for R's row-offset dtype: no copy), the hub chunk queue if R has hubs."""
        import cupy

        r = types.SimpleNamespace(
            k=kit(idt, R.indptr.dtype, False, False, remote=True),
            counters=cupy.zeros(4, np.uint64), use_big=R.max_out_degree >= BIG,
            big_u=self.big_u, big_p=self.big_p, big=np.int64(np.iinfo(np.int64).max),
            rows=R.nonempty_rows, nrows=np.int64(R.nonempty_rows.size))
        if r.use_big:
            size = 2 * (R.nnz // BIG) + 2
            r.big_u, r.big_p = cupy.empty(size, idt), cupy.empty(size, R.indptr.dtype)
            r.big = np.int64(BIG)
        return r

    def remote_parents(self, R, column_levels, column_ids) -> None:
        import cupy

        wide = np.dtype(column_levels.dtype).itemsize > 1
        if wide:
            column_levels = column_levels.astype(np.int32, copy=False)
        k = kit(self._levels.dtype, R.indptr.dtype, False, False, remote=True)
        rows = R.nonempty_rows
        k.remote_parents((_blocks(rows.size, self.sms * 8),), (_THREADS,),
                         (rows, np.int64(rows.size), R.indptr, R.indices, column_levels,
                          np.int32(wide), cupy.asarray(column_ids, self._levels.dtype),
                          self.levels, self._parents))

    def sizes(self) -> list:
        self._ensure_reset()
        count = self.level + 1 - self.fetched
        if count <= 0:
            return []
        host = self.ws.fetch(self.fetched, count)
        out = []
        for lev in range(self.fetched, self.level + 1):
            slot = 4 * (lev % RING)
            out.append((int(host[slot]), int(host[slot + 1]), int(host[slot + 2])))
        self.fetched = self.level + 1
        if out:
            self.frontier, self.frontier_edges = out[-1][0], out[-1][1]
        return out
