"""Direction-optimising BFS on one GPU (the bitmap fast path of ``any_pair``/``any_secondi``).

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
small device ring; the host reads the ring once per level (the one
synchronisation) to choose the direction by Beamer's rule (push -> pull when
the frontier's edges exceed ``unexplored / alpha`` and the frontier grows;
pull -> push when it has fewer than ``n / beta`` vertices).  On long, thin
searches (the frontier steady for 4 levels and far from the switch) the host
launches up to 32 push levels back to back and reads the ring once per
batch.  Buffers (two bitmaps, two queues, the hub chunk queue, the ring) live
in a :class:`Workspace` that a search checks out of a :class:`WorkspacePool`
and returns when it ends, so concurrent searches (threads, CUDA streams) never
share one and repeated searches reuse them; only the outputs are allocated per
search.

Examples
--------
>>> import cupyx.scipy.sparse as csp, spbfs                    # doctest: +SKIP
>>> A = csp.random(1000, 1000, density=0.01, format="csr")     # doctest: +SKIP
>>> levels, parents = spbfs.bfs(A, 0, return_parents=True)     # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import threading
import time

import numpy as np

from . import kernels
from .memory import GPUMemoryError, check_fits, out_of_memory

__all__ = ["Workspace", "WorkspacePool", "bfs", "workspaces"]

RING = 64  # ring slots (must match RING in bfs_kernels.cu)
_THREADS = 256
_MAX_BATCH = 32
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
    8652808
    """

    def __init__(self, n: int, idx_dtype):
        import cupy

        self.n = int(n)
        self.idx_dtype = np.dtype(idx_dtype)
        self.nwords = (self.n + 31) // 32
        self.vis = [cupy.zeros(self.nwords + 1, np.uint32) for _ in range(2)]
        self.queue = [cupy.empty(max(self.n, 1), self.idx_dtype) for _ in range(2)]
        self.ring = cupy.zeros(RING * 4, np.uint64)
        self._big = None
        mem = cupy.cuda.alloc_pinned_memory(RING * 4 * 8)
        self.host = np.frombuffer(mem, np.uint64, RING * 4)
        self._mem = mem

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
        return 2 * 4 * words + 2 * np.dtype(idx_dtype).itemsize * max(int(n), 1) + RING * 32

    def fetch(self, first: int, count: int):
        """Copy ring slots ``first .. first+count-1`` (mod RING) to the host; one sync."""
        import cupy

        stream = cupy.cuda.get_current_stream()
        lo = first % RING
        hi = lo + count
        spans = [(lo, min(hi, RING))] + ([(0, hi - RING)] if hi > RING else [])
        for a, b in spans:
            cupy.cuda.runtime.memcpyAsync(self.host.ctypes.data + a * 32, self.ring.data.ptr
                                          + a * 32, (b - a) * 32,
                                          cupy.cuda.runtime.memcpyDeviceToHost, stream.ptr)
        stream.synchronize()
        return self.host


class WorkspacePool:
    """Workspaces checked out by one search at a time (thread- and stream-safe).

    A search takes a free workspace of its ``(device, n, idx_dtype)`` or, if
    none is free, a new one after a memory check; it gives it back when it
    ends, its stream synchronised, so the next search (on any stream) finds
    no work in flight.  At most ``keep`` free workspaces are kept per size,
    and asking for another size frees those of the previous one.

    Examples
    --------
    >>> pool = WorkspacePool()                                   # doctest: +SKIP
    >>> with pool.checkout(1 << 20, np.int32) as ws:             # doctest: +SKIP
    ...     ws.n
    1048576
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

    def _give(self, key, ws):
        with self._lock:
            stack = self._free.setdefault(key, [])
            if len(stack) < self.keep:
                stack.append(ws)

    @contextlib.contextmanager
    def checkout(self, n: int, idx_dtype, extra_bytes: int = 0):
        """A workspace for one search; ``extra_bytes`` (its outputs) join the memory check."""
        import cupy

        key = (cupy.cuda.Device().id, int(n), np.dtype(idx_dtype).str)
        ws = self._take(key)
        need = extra_bytes + (0 if ws is not None else Workspace.nbytes(n, idx_dtype))
        check_fits(f"BFS on {n} vertices", need,
                   detail=f"outputs {extra_bytes / 1e9:.2f} GB, workspace "
                          f"{Workspace.nbytes(n, idx_dtype) / 1e9:.2f} GB")
        if ws is None:
            ws = Workspace(n, idx_dtype)
        try:
            yield ws
        finally:
            cupy.cuda.get_current_stream().synchronize()
            self._give(key, ws)


#: The process-wide pool used by :func:`bfs`.
workspaces = WorkspacePool()


def _blocks(work: int, cap: int) -> int:
    return int(max(1, min((work + _THREADS - 1) // _THREADS, cap)))


def bfs(M, source, *, return_parents=False, direction="auto", alpha=15.0, beta=18.0,
        trace=None):
    """Breadth-first search on a GPU :class:`~spbfs.semiring.Matrix` (already validated).

    Called by :func:`spbfs.bfs` for GPU input; same conventions as the CPU
    path: level and parent ``-1`` where unreachable, ``parents[source] ==
    source``, dtype ``M.indices.dtype``.

    Parameters
    ----------
    M : Matrix
        Square CSR on the GPU; ``M.T`` is used for pulls when not symmetric.
    source : int
    return_parents : bool
    direction : {"auto", "push", "pull"}
    alpha, beta : float
        Beamer's switching factors (see :func:`spbfs.bfs`).
    trace : list, optional
        Profiling: one tuple ``(first_level, last_level, "push"|"pull", frontier_in,
        found, seconds)`` is appended per synchronisation (host time of launch + sync).

    Returns
    -------
    levels : cupy.ndarray
    parents : cupy.ndarray, optional

    Raises
    ------
    spbfs.gpu.GPUMemoryError
        If the outputs and workspace do not fit in free device memory.

    Examples
    --------
    >>> import cupy, spbfs                                                 # doctest: +SKIP
    >>> from spbfs.gpu.build import csr_from_edges                         # doctest: +SKIP
    >>> M = csr_from_edges(cupy.array([0, 1]), cupy.array([1, 2]), 4)      # doctest: +SKIP
    >>> bfs(M, 0).tolist()                                                 # doctest: +SKIP
    [0, 1, 2, -1]
    """
    n = M.n
    idt = M.indices.dtype
    out_bytes = n * idt.itemsize * (2 if return_parents else 1)
    try:
        with workspaces.checkout(n, idt, out_bytes) as ws:
            return _search(M, int(source), ws, return_parents, direction, alpha, beta, trace)
    except MemoryError as exc:
        if isinstance(exc, GPUMemoryError):
            raise
        raise out_of_memory(f"BFS on {n} vertices", exc, out_bytes) from exc


def _search(M, source, ws, return_parents, direction, alpha, beta, trace):
    """The level loop of :func:`bfs` on a checked-out workspace."""
    import cupy

    n = M.n
    idt = M.indices.dtype
    directed = not M.symmetric
    need_t = directed and direction != "push"
    T = M.T if need_t else M
    indptr, indices = M.indptr, M.indices
    tindptr, tindices = T.indptr, T.indices
    if directed and not need_t:
        tindptr = indptr  # in-degrees only steer "auto"; a push-only search needs none
    ptr_dtype = np.promote_types(indptr.dtype, tindptr.dtype)
    if indptr.dtype != ptr_dtype:
        indptr = indptr.astype(ptr_dtype)
    if tindptr.dtype != ptr_dtype:
        tindptr = tindptr.astype(ptr_dtype)
    mod = kernels.bfs_module(idt, ptr_dtype, return_parents, directed)
    k_push = mod.get_function("bfs_push")
    k_pull = mod.get_function("bfs_pull")
    k_big = mod.get_function("bfs_push_big")
    k_compact = mod.get_function("bfs_compact")
    sms = kernels.sm_count()

    # Hubs (adjacency lists of >= BIG edges) are expanded by the whole grid in a second
    # launch per push level, when the graph has any.
    max_deg = M.max_out_degree
    use_big = max_deg >= BIG
    # a frontier's hubs have at most nnz / BIG + (number of hubs) <= 2 nnz / BIG + 1 chunks
    big_u, big_p = ws.big_queue(2 * (M.nnz // BIG) + 2 if use_big else 1, ptr_dtype)
    big = np.int64(BIG if use_big else np.iinfo(np.int64).max)

    levels = cupy.empty(n, dtype=idt)
    parents = cupy.empty(n, dtype=idt) if return_parents else levels
    cur = 0  # index of the current visited bitmap
    qin = 0  # index of the current frontier queue
    nwords = np.int64(ws.nwords)
    mod.get_function("bfs_reset")(
        (_blocks(max(n, 4 * RING), sms * 8),), (_THREADS,),
        (indptr, tindptr, ws.vis[cur], ws.queue[qin], levels, parents, ws.ring,
         idt.type(source), np.int64(n), nwords))
    # Level 0 is the source alone: its statistics (slot 0) are read with level 1's.
    nf, mf, mu = 1, max_deg, M.nnz
    fetched = 0  # first ring slot not yet read
    pulling = direction == "pull"
    level = 0
    prev_nf = 0
    steady = 0  # consecutive levels whose frontier size changed by less than 2x
    batch = 1
    queued = True  # whether ws.queue[qin] holds the current frontier
    while nf:
        t_start = time.perf_counter() if trace is not None else 0.0
        nf_in = nf
        if direction == "auto" and level > 0:
            if pulling:
                pulling = nf >= n / beta
            else:  # Beamer et al.: switch while the frontier grows
                pulling = mf > mu / alpha and nf > prev_nf
        if pulling:
            level += 1
            k_pull((_blocks(ws.nwords * 32, sms * 8),), (_THREADS,),
                   (tindptr, tindices, indptr, ws.vis[cur], ws.vis[1 - cur], levels, parents,
                    ws.ring, np.int32(level), np.int64(n), nwords))
            cur = 1 - cur
            batch = 1
            queued = False
        else:
            if not queued:  # the last level pulled: its finds, as a queue, from the bitmaps
                k_compact((_blocks(ws.nwords, sms * 8),), (_THREADS,),
                          (ws.vis[cur], ws.vis[1 - cur], ws.queue[qin], ws.ring,
                           np.int32(level), nwords))
                queued = True
            # Several push levels per synchronisation while the search is long and thin:
            # forced push, or a frontier steady for a while and far from the switch to pull.
            k = min(batch * 2, _MAX_BATCH)
            if direction == "auto":
                growth = max(nf / prev_nf, 1.0) if steady >= 4 else 2.0
                while k > 1 and (steady < 4 or mf * growth ** k >= mu / alpha):
                    k //= 2
            if k > 1:
                batch = k
                blocks = sms * 4
            else:
                batch = 1
                blocks = _blocks(nf, sms * 16)
            for _ in range(batch):
                level += 1
                k_push((blocks,), (_THREADS,),
                       (indptr, indices, tindptr, ws.vis[cur], ws.queue[qin], ws.queue[1 - qin],
                        levels, parents, ws.ring, np.int32(level), big_u, big_p, big))
                if use_big:
                    k_big((sms * 8,), (_THREADS,),
                          (indptr, indices, tindptr, ws.vis[cur], big_u, big_p,
                           ws.queue[1 - qin], levels, parents, ws.ring, np.int32(level)))
                qin = 1 - qin
        host = ws.fetch(fetched, level + 1 - fetched)
        if trace is not None:
            found = sum(int(host[4 * (lv % RING)]) for lv in range(max(fetched, 1), level + 1))
            trace.append((max(fetched, 1), level, "pull" if pulling else "push", nf_in, found,
                          time.perf_counter() - t_start))
        for lev in range(fetched, level + 1):
            slot = 4 * (lev % RING)
            mu -= int(host[slot + 2])
            if lev == 0:
                continue
            prev_nf = nf
            nf, mf = int(host[slot]), int(host[slot + 1])
            steady = steady + 1 if prev_nf < 2 * nf and nf < 2 * prev_nf else 0
            if nf == 0:
                break
        fetched = level + 1
    return (levels, parents) if return_parents else levels
