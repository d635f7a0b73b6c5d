"""GPU ranks: the BFS level loop with small CUDA kernels for the local blocks.

The generic loop in :mod:`spbfs.dist.bfs` runs on cupy too, but it expands edges and pulls
in rounds with many small array operations.  Here each block is one kernel launch:

``push_dense``
    one warp per frontier row; every edge target not yet visited gets a flag and a parent
    (targets are delegates or local normals, so the output is a dense flag array);
``pull_warp``
    one warp per unvisited delegate row, 32 edges at a time, stopping at the first visited
    neighbour (``__ballot_sync``): the early-exit pull for the long delegate rows; rows
    another block already found in this level are skipped;
``pull_thread``
    one thread per unvisited local normal (rows are short: at most ``threshold`` edges);
``push_nn``
    one warp per frontier row of the ``nn`` block; a bitmap over all vertices
    (``atomicOr``) culls targets already sent or visited and drops duplicates exactly, the
    survivors are appended to the send buffer (one ``atomicAdd`` per warp and round).

Kernels are compiled once per process (memoised), templated over the row-pointer type.
"""

from __future__ import annotations

import functools
import time
import warnings

import numpy as np

from .._validation import UNREACHED
from . import _local

_SOURCE = r"""
template <typename IP>
__global__ void spbfs_dist_push_dense(
        const IP* __restrict__ indptr, const int* __restrict__ indices,
        const long long* __restrict__ frontier, long long nf,
        const long long* __restrict__ row_gid, int use_row_gid, long long P, long long rank,
        const unsigned char* __restrict__ blocked,
        unsigned char* __restrict__ flag, long long* __restrict__ parent, int want_parent)
{
    long long w = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int lane = threadIdx.x & 31;
    if (w >= nf) return;
    long long r = frontier[w];
    long long lo = (long long)indptr[r], hi = (long long)indptr[r + 1];
    long long g = use_row_gid ? row_gid[r] : r * P + rank;
    for (long long e = lo + lane; e < hi; e += 32) {
        int t = indices[e];
        if (!blocked[t]) {
            flag[t] = 1;
            if (want_parent) parent[t] = g;
        }
    }
}

template <typename IP>
__global__ void spbfs_dist_pull_warp(
        const IP* __restrict__ indptr, const int* __restrict__ indices, long long nrows,
        const unsigned char* __restrict__ skip, const unsigned char* __restrict__ hit,
        const long long* __restrict__ col_gid, int use_col_gid, long long P, long long rank,
        unsigned char* __restrict__ flag, long long* __restrict__ parent, int want_parent)
{
    long long r = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int lane = threadIdx.x & 31;
    if (r >= nrows || skip[r] || flag[r]) return;   /* visited, or found by another block */
    long long lo = (long long)indptr[r], hi = (long long)indptr[r + 1];
    for (long long base = lo; base < hi; base += 32) {
        long long e = base + lane;
        int c = 0;
        int h = 0;
        if (e < hi) {
            c = indices[e];
            h = hit[c] != 0;
        }
        unsigned int m = __ballot_sync(0xffffffffu, h);
        if (m) {
            int src = __ffs(m) - 1;
            int cc = __shfl_sync(0xffffffffu, c, src);
            if (lane == 0) {
                flag[r] = 1;
                if (want_parent)
                    parent[r] = use_col_gid ? col_gid[cc] : (long long)cc * P + rank;
            }
            return;
        }
    }
}

template <typename IP>
__global__ void spbfs_dist_pull_thread(
        const IP* __restrict__ indptr, const int* __restrict__ indices, long long nrows,
        const unsigned char* __restrict__ skip, const unsigned char* __restrict__ hit,
        const long long* __restrict__ col_gid, int use_col_gid, long long P, long long rank,
        unsigned char* __restrict__ flag, long long* __restrict__ parent, int want_parent)
{
    long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= nrows || skip[r] || flag[r]) return;
    long long hi = (long long)indptr[r + 1];
    for (long long e = (long long)indptr[r]; e < hi; ++e) {
        int c = indices[e];
        if (hit[c]) {
            flag[r] = 1;
            if (want_parent)
                parent[r] = use_col_gid ? col_gid[c] : (long long)c * P + rank;
            return;
        }
    }
}

template <typename IP>
__global__ void spbfs_dist_push_nn(
        const IP* __restrict__ indptr, const int* __restrict__ indices,
        const long long* __restrict__ frontier, long long nf, long long P, long long rank,
        unsigned int* __restrict__ seen, int use_seen,
        int* __restrict__ out_t, long long* __restrict__ out_p, int want_parent,
        unsigned long long* __restrict__ counter)
{
    long long w = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int lane = threadIdx.x & 31;
    if (w >= nf) return;
    long long r = frontier[w];
    long long lo = (long long)indptr[r], hi = (long long)indptr[r + 1];
    long long g = r * P + rank;
    for (long long base = lo; base < hi; base += 32) {      /* warp-uniform trip count */
        long long e = base + lane;
        int t = 0;
        int take = 0;
        if (e < hi) {
            t = indices[e];
            take = 1;
            if (use_seen) {
                unsigned int bit = 1u << (t & 31);
                unsigned int old = atomicOr(&seen[t >> 5], bit);
                take = (old & bit) == 0;
            }
        }
        unsigned int m = __ballot_sync(0xffffffffu, take);
        if (m == 0) continue;
        unsigned long long start = 0;
        if (lane == 0) start = atomicAdd(counter, (unsigned long long)__popc(m));
        start = __shfl_sync(0xffffffffu, start, 0);
        if (take) {
            unsigned long long k = start + __popc(m & ((1u << lane) - 1u));
            out_t[k] = t;
            if (want_parent) out_p[k] = g;
        }
    }
}

__global__ void spbfs_dist_set_bits(const long long* __restrict__ ids, long long k,
                                    unsigned int* __restrict__ bits)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= k) return;
    long long t = ids[i];
    atomicOr(&bits[t >> 5], 1u << (t & 31));
}
"""

_TEMPLATED = ("spbfs_dist_push_dense", "spbfs_dist_pull_warp", "spbfs_dist_pull_thread",
              "spbfs_dist_push_nn")
_BLOCK = 256


@functools.cache
def _module():
    import cupy

    names = [f"{k}<{t}>" for k in _TEMPLATED for t in ("int", "long long")]
    names.append("spbfs_dist_set_bits")
    return cupy.RawModule(code=_SOURCE, options=("-std=c++17",), name_expressions=names)


def _kernel(name, indptr=None):
    if indptr is None:
        return _module().get_function(name)
    t = "int" if indptr.dtype == np.int32 else "long long"
    return _module().get_function(f"{name}<{t}>")


def _grid(threads):
    return (max(1, -(-int(threads) // _BLOCK)),)


def supported(G) -> bool:
    """Whether the kernels apply: a GPU graph with 32-bit column indices in every block, and
    the kernels compile (else a warning, once, and the generic loop runs)."""
    if G.comm.device != "gpu" or not all(G.blocks[b][1].dtype == np.int32 for b in G.blocks):
        return False
    return _compiles()


@functools.cache
def _compiles() -> bool:
    try:
        mod = _module()
        for k in _TEMPLATED:
            mod.get_function(f"{k}<int>")
        return True
    except Exception as e:  # noqa: BLE001 - any failure: fall back, loudly
        warnings.warn(f"spbfs.dist: GPU kernels unavailable ({e}); using array operations",
                      RuntimeWarning, stacklevel=3)
        return False


def _i64(x):
    return np.int64(x)


def _i32(x):
    return np.int32(x)


def bfs_kernels(G, source, sd, want_p, dirs, alphas, uniquify, cull, nonblocking):
    """The level loop on GPU ranks; returns ``(lvl, par, levels, directions)``.

    Same algorithm and outputs as the generic loop of :func:`spbfs.dist.bfs`.
    """
    c = G.comm
    xp = G.xp
    P, rank, D, n_loc, n = G.P, G.rank, G.D, G.n_local, G.n
    idt = G.index_dtype
    ldt = np.int32 if max(n_loc, 1) * P < 2**31 else np.int64
    deg = G._cache["deg"]
    blocks = G.blocks
    dglob = G.delegates
    dummy64 = xp.zeros(1, np.int64)
    P64, r64 = _i64(P), _i64(rank)
    wp = _i32(1 if want_p else 0)

    nvis = xp.zeros(n_loc, bool)
    nvis[G.owned_delegates] = True
    lvl = xp.full(n_loc, UNREACHED, idt)
    par = xp.full(n_loc, UNREACHED, np.int64) if want_p else dummy64
    dvis = xp.zeros(D, bool)
    dlvl = xp.full(D, UNREACHED, idt)
    no_parent = np.iinfo(np.int64).max
    dpar = xp.full(D, no_parent, np.int64) if want_p else None
    seen = xp.zeros((n + 31) // 32, np.uint32)
    flag_n = xp.zeros(n_loc, bool)
    pnew = xp.empty(max(n_loc, 1), np.int64) if want_p else dummy64
    found_d = xp.zeros(D, bool)
    cand = xp.empty(max(D, 1), np.int64) if want_p else dummy64
    counter = xp.zeros(1, np.uint64)

    empty = xp.zeros(0, np.int64)
    fn, fd = empty, empty
    if sd >= 0:
        dvis[sd] = True
        dlvl[sd] = 0
        if want_p:
            dpar[sd] = source
        fd = xp.asarray([sd], dtype=np.int64)
    elif source % P == rank:
        j = source // P
        nvis[j] = True
        lvl[j] = 0
        if want_p:
            par[j] = source
        fn = xp.asarray([j], dtype=np.int64)
    _kernel("spbfs_dist_set_bits")((1,), (_BLOCK,),
                                   (xp.asarray([source], np.int64), _i64(1), seen))

    def push_dense(name, frontier, use_gid, blocked, flag, parent):
        ip, ix = blocks[name]
        nf = int(frontier.size)
        if nf == 0:
            return
        _kernel("spbfs_dist_push_dense", ip)(
            _grid(nf * 32), (_BLOCK,),
            (ip, ix, frontier, _i64(nf), dglob if use_gid else dummy64,
             _i32(use_gid), P64, r64, blocked, flag, parent, wp))

    def pull(name, kind, nrows, skip, hit, use_gid, flag, parent):
        ip, ix = blocks[name]
        if nrows == 0:
            return
        threads = nrows * 32 if kind == "warp" else nrows
        _kernel(f"spbfs_dist_pull_{kind}", ip)(
            _grid(threads), (_BLOCK,),
            (ip, ix, _i64(nrows), skip, hit, dglob if use_gid else dummy64, _i32(use_gid),
             P64, r64, flag, parent, wp))

    unexplored = {
        "nd": int(deg["dn"].sum()) - (int(deg["dn"][sd]) if sd >= 0 else 0),
        "dn": int(deg["nd"].sum()) - (int(deg["nd"][fn].sum()) if fn.size else 0),
        "dd": int(deg["dd"].sum()) - (int(deg["dd"][sd]) if sd >= 0 else 0),
    }
    zero = xp.zeros((), np.int64)
    level_dirs = []
    level = 0
    while True:
        level += 1
        work = xp.stack([deg["nd"][fn].sum() if fn.size else zero,
                         deg["dn"][fd].sum() if fd.size else zero,
                         deg["dd"][fd].sum() if fd.size else zero,
                         deg["nn"][fn].sum() if fn.size else zero])
        w_nd, w_dn, w_dd, w_nn = (int(w) for w in c.to_host(work))
        work = {"nd": w_nd, "dn": w_dn, "dd": w_dd}
        if level > 1:   # the frontier's edges are explored now (level 1: done at the source)
            unexplored["dn"] -= w_nd
            unexplored["nd"] -= w_dn
            unexplored["dd"] -= w_dd
        chosen = {}
        for b in ("nd", "dn", "dd"):
            d = dirs[b]
            if d == "auto":
                d = "pull" if work[b] * alphas[b] > unexplored[b] else "push"
            chosen[b] = d
        level_dirs.append(chosen)

        # 1. delegate stream
        if D:
            found_d.fill(False)
            # dd first: it finds most delegates, and a pull skips rows already found
            if chosen["dd"] == "push":
                push_dense("dd", fd, 1, dvis, found_d, cand)
            else:
                pull("dd", "warp", D, dvis, dvis, 1, found_d, cand)
            if chosen["nd"] == "push":
                push_dense("nd", fn, 0, dvis, found_d, cand)
            else:
                pull("dn", "warp", D, dvis, nvis, 0, found_d, cand)
        pending = c.allreduce_or_start(found_d, blocking=not nonblocking)

        # 2. normal stream
        counts = np.zeros(P, np.int64)
        send = [xp.zeros(0, ldt)] + ([xp.zeros(0, np.int64)] if want_p else [])
        if fn.size and w_nn:
            ip, ix = blocks["nn"]
            out_t = xp.empty(w_nn, np.int32)
            out_p = xp.empty(w_nn, np.int64) if want_p else dummy64
            counter.fill(0)
            _kernel("spbfs_dist_push_nn", ip)(
                _grid(fn.size * 32), (_BLOCK,),
                (ip, ix, fn, _i64(fn.size), P64, r64, seen, _i32(1 if cull else 0),
                 out_t, out_p, wp, counter))
            k = int(c.to_host(counter)[0])
            t = out_t[:k].astype(np.int64)
            p = out_p[:k] if want_p else None
            if not cull and uniquify:
                if want_p:
                    t, p = _local.first_per_key(t, p, n)
                else:
                    t = _local.unique_keys(t, n)
            if t.size:
                order, counts = _local.bin_by(t % P, P)
                send = [(t[order] // P).astype(ldt)] + ([p[order]] if want_p else [])
        recv, _ = c.alltoallv_many(send, counts)
        j = recv[0].astype(np.int64)
        keep = ~nvis[j]
        j = j[keep]
        flag_n[j] = True
        if want_p:
            pnew[j] = recv[1][keep]
        if D:
            if chosen["dn"] == "push":
                push_dense("dn", fd, 1, nvis, flag_n, pnew)
            else:
                pull("nd", "thread", n_loc, nvis, dvis, 1, flag_n, pnew)
        new = xp.flatnonzero(flag_n)
        if new.size:
            flag_n[new] = False
            nvis[new] = True
            lvl[new] = level
            if want_p:
                par[new] = pnew[new]
            gids = new * P + rank
            _kernel("spbfs_dist_set_bits")(_grid(gids.size), (_BLOCK,),
                                           (gids, _i64(gids.size), seen))

        # 3. delegates
        reduced = pending.wait()
        new_d = xp.flatnonzero(reduced & ~dvis) if D else empty
        if new_d.size:
            dvis[new_d] = True
            dlvl[new_d] = level
            if want_p:
                mine = new_d[found_d[new_d]]
                dpar[mine] = cand[mine]
        total = int(c.allreduce(int(new.size))) + int(new_d.size)
        if total == 0:
            break
        fn, fd = new, new_d
    return lvl, (par if want_p else None), dlvl, dpar, level - 1, level_dirs


def timed_bfs(G, source, **kw):  # pragma: no cover - GPU only
    """Run one kernel BFS and return ``(elapsed_seconds, result)`` (benchmark helper)."""
    from .bfs import bfs

    G.comm.sync()
    t0 = time.perf_counter()
    out = bfs(G, source, **kw)
    G.comm.sync()
    return time.perf_counter() - t0, out
