"""GPU ranks: the BFS level loop with small CUDA kernels for the local blocks.

The generic loop in :mod:`spbfs.dist.bfs` runs on cupy too, but it expands edges and pulls
in rounds with many small array operations.  Here each block is one kernel launch:

``pull_warp``
    one warp per unvisited delegate row, 32 edges at a time, stopping at the first visited
    neighbour (``__ballot_sync``): the early-exit pull for the long delegate rows; rows
    another block already found in this level are skipped;
``pull_thread``
    one thread per unvisited local normal (rows are short: at most ``threshold`` edges);
``push_edges``
    one thread per frontier edge (binary search in a scan of the frontier's degrees), so
    hub rows are spread over many threads: the push of the ``nd``, ``dn`` and ``dd`` blocks,
    whose targets are delegates or local normals (a dense flag array);
``push_nn``
    the ``nn`` push, one thread per frontier edge as well: a bitmap over all vertices
    (``atomicOr``) culls targets already sent or visited and drops duplicates exactly;
    survivors are appended with one ``atomicAdd`` per block and counted per owner;
``bin_owner``
    the survivors binned by owner into the all-to-all-v send buffers (local ids), one
    ``atomicAdd`` per block and owner (no sort);
``settle``
    end of a level: new vertices marked visited, levels / parents / cull bits set, the
    next frontier appended and its edges per block summed on the device (one readback);
``apply_recv``
    received ``nn`` targets that are not visited into the found flags.

Kernels are compiled once per process (memoised), templated over the row-pointer type.
"""

from __future__ import annotations

import functools
import os
import time
import warnings

import numpy as np

from .._validation import UNREACHED
from . import _local

_SOURCE = r"""
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

__device__ __forceinline__ long long spbfs_find_row(const long long* __restrict__ scan,
                                                    long long nf, long long k)
{
    long long lo = 0, hi = nf;                 /* last row whose first edge is <= k */
    while (hi - lo > 1) {
        long long mid = (lo + hi) >> 1;
        if (scan[mid] <= k) lo = mid; else hi = mid;
    }
    return lo;
}

/* The nn push, one thread per frontier edge (scan[i] = edges of frontier rows before row
   i).  Targets are global ids; a bitmap over all vertices (atomicOr) culls those already
   sent or visited and drops duplicates exactly.  Survivors are appended to out_t / out_p
   with one atomicAdd per block (block-wide compaction), and counted per owner (t % P) in
   shared memory, added to owner_count once per block (dynamic shared memory: P words). */
template <typename IP>
__global__ void spbfs_dist_push_nn(
        const IP* __restrict__ indptr, const int* __restrict__ indices,
        const long long* __restrict__ frontier, long long nf,
        const long long* __restrict__ scan, long long total, long long P, long long rank,
        unsigned int* __restrict__ seen, int use_seen,
        int* __restrict__ out_t, long long* __restrict__ out_p, int want_parent,
        unsigned long long* __restrict__ counter, unsigned long long* __restrict__ owner_count,
        int count_owners)
{
    extern __shared__ unsigned int s_owner[];
    __shared__ unsigned int s_warp[32];
    __shared__ unsigned long long s_base;
    int tid = threadIdx.x, lane = tid & 31, wid = tid >> 5, nw = blockDim.x >> 5;
    if (count_owners)
        for (long long i = tid; i < P; i += blockDim.x) s_owner[i] = 0;
    long long k = (long long)blockIdx.x * blockDim.x + tid;
    int t = 0, take = 0;
    long long r = 0;
    if (k < total) {
        long long i = spbfs_find_row(scan, nf, k);
        r = frontier[i];
        t = indices[(long long)indptr[r] + (k - scan[i])];
        take = 1;
        if (use_seen) {
            unsigned int bit = 1u << (t & 31);
            take = (atomicOr(&seen[t >> 5], bit) & bit) == 0;
        }
    }
    unsigned int m = __ballot_sync(0xffffffffu, take);
    if (lane == 0) s_warp[wid] = __popc(m);
    __syncthreads();
    if (tid == 0) {
        unsigned int tot = 0;
        for (int w = 0; w < nw; ++w) {
            unsigned int cw = s_warp[w];
            s_warp[w] = tot;
            tot += cw;
        }
        s_base = tot ? atomicAdd(counter, (unsigned long long)tot) : 0ull;
    }
    __syncthreads();
    if (take) {
        unsigned long long pos = s_base + s_warp[wid] + __popc(m & ((1u << lane) - 1u));
        out_t[pos] = t;
        if (want_parent) out_p[pos] = r * P + rank;
        if (count_owners) atomicAdd(&s_owner[t % P], 1u);
    }
    if (count_owners) {
        __syncthreads();
        for (long long i = tid; i < P; i += blockDim.x)
            if (s_owner[i]) atomicAdd(&owner_count[i], (unsigned long long)s_owner[i]);
    }
}

/* Bin the nn push's output by owner (t % P) into the send buffers, local ids t / P:
   cursor[o] starts at owner o's offset; each block reserves its range per owner with one
   atomicAdd (dynamic shared memory: P words of counts, then P 8-byte bases). */
template <typename LT>
__global__ void spbfs_dist_bin_owner(
        const int* __restrict__ t, const long long* __restrict__ p, long long k, long long P,
        unsigned long long* __restrict__ cursor, LT* __restrict__ send_t,
        long long* __restrict__ send_p, int want_parent)
{
    extern __shared__ unsigned long long s_base[];
    unsigned int* s_cnt = (unsigned int*)(s_base + P);
    int tid = threadIdx.x;
    for (long long i = tid; i < P; i += blockDim.x) s_cnt[i] = 0;
    __syncthreads();
    long long idx = (long long)blockIdx.x * blockDim.x + tid;
    int v = 0, o = -1;
    unsigned int at = 0;
    if (idx < k) {
        v = t[idx];
        o = (int)(v % P);
        at = atomicAdd(&s_cnt[o], 1u);
    }
    __syncthreads();
    for (long long i = tid; i < P; i += blockDim.x)
        if (s_cnt[i]) s_base[i] = atomicAdd(&cursor[i], (unsigned long long)s_cnt[i]);
    __syncthreads();
    if (o >= 0) {
        unsigned long long pos = s_base[o] + at;
        send_t[pos] = (LT)(v / P);
        if (want_parent) send_p[pos] = p[idx];
    }
}

template <typename IP>
__global__ void spbfs_dist_push_edges(
        const IP* __restrict__ indptr, const int* __restrict__ indices,
        const long long* __restrict__ frontier, long long nf,
        const long long* __restrict__ scan, long long total,
        const long long* __restrict__ row_gid, int use_row_gid, long long P, long long rank,
        const unsigned char* __restrict__ blocked,
        unsigned char* __restrict__ flag, long long* __restrict__ parent, int want_parent)
{
    /* one thread per frontier edge: scan[i] = edges of frontier rows before row i */
    long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= total) return;
    long long lo = spbfs_find_row(scan, nf, k);
    long long r = frontier[lo];
    int t = indices[(long long)indptr[r] + (k - scan[lo])];
    if (!blocked[t] && !flag[t]) {   /* read before write: hub targets are hit many times */
        flag[t] = 1;
        if (want_parent) parent[t] = use_row_gid ? row_gid[r] : r * P + rank;
    }
}

__device__ __forceinline__ long long spbfs_warp_sum(long long v)
{
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}

#define SPBFS_SETTLE_ITEMS 16

union spbfs_row16 {
    uint4 v;
    unsigned char b[16];
};

/* flags of rows i0 .. i0 + 15 (0 past n): one 16-byte load when whole (i0 is a multiple
   of 16 and the arrays are 256-byte aligned) */
__device__ __forceinline__ spbfs_row16 spbfs_load16(const unsigned char* a, long long i0,
                                                    long long n)
{
    spbfs_row16 r;
    if (i0 + 16 <= n) {
        r.v = *reinterpret_cast<const uint4*>(a + i0);
    } else {
#pragma unroll
        for (int j = 0; j < 16; ++j) r.b[j] = (i0 + j < n) ? a[i0 + j] : 0;
    }
    return r;
}

/* New vertices of a level: mark them visited, set level (and parent), append them to the
   next frontier and add their degrees in two blocks (the next level's work), counts in
   cnt[0] (vertices), cnt[1], cnt[2] (degree sums).  mode 0: local normals (flag = found,
   cleared; parent from pval; seen bits set at gid i * P + rank); mode 1: delegates
   (flag = reduced mask; parent from pval where mine[i]).  Each thread owns 16 consecutive
   rows, read with one 16-byte load (most rows are not new: one load, nothing else); a
   block reserves its output range with one atomicAdd, and a thread's seen bits go out
   with one atomicOr per word. */
__global__ void spbfs_dist_settle(
        long long nrows, int mode, unsigned char* __restrict__ flag,
        unsigned char* __restrict__ vis, int* __restrict__ lvl, int level,
        long long* __restrict__ par, const long long* __restrict__ pval,
        const unsigned char* __restrict__ mine, int want_parent,
        unsigned int* __restrict__ seen, long long P, long long rank,
        const long long* __restrict__ deg_a, const long long* __restrict__ deg_b,
        long long* __restrict__ out, unsigned long long* __restrict__ cnt)
{
    __shared__ long long s_cnt[32], s_da[32], s_db[32];
    __shared__ unsigned long long s_base;
    __shared__ long long s_tot;
    int tid = threadIdx.x, lane = tid & 31, wid = tid >> 5, nw = blockDim.x >> 5;
    long long i0 = ((long long)blockIdx.x * blockDim.x + tid) * SPBFS_SETTLE_ITEMS;
    unsigned int fresh = 0;                        /* bit j: row i0 + j is new */
    if (i0 < nrows) {
        spbfs_row16 f = spbfs_load16(flag, i0, nrows);
        if (f.v.x | f.v.y | f.v.z | f.v.w) {
            spbfs_row16 v;
            v.v = make_uint4(0u, 0u, 0u, 0u);
            if (mode == 1) v = spbfs_load16(vis, i0, nrows);
#pragma unroll
            for (int j = 0; j < 16; ++j)
                if (f.b[j] && !v.b[j]) fresh |= 1u << j;
        }
    }
    long long mine_n = __popc(fresh), da = 0, db = 0;
    for (unsigned int m = fresh; m; m &= m - 1) {
        long long i = i0 + __ffs(m) - 1;
        da += deg_a[i];
        db += deg_b[i];
    }
    long long incl = mine_n;                       /* inclusive scan over the warp */
    for (int o = 1; o < 32; o <<= 1) {
        long long x = __shfl_up_sync(0xffffffffu, incl, o);
        if (lane >= o) incl += x;
    }
    da = spbfs_warp_sum(da);
    db = spbfs_warp_sum(db);
    if (lane == 31) s_cnt[wid] = incl;
    if (lane == 0) { s_da[wid] = da; s_db[wid] = db; }
    __syncthreads();
    if (tid == 0) {
        long long tot = 0, ta = 0, tb = 0;
        for (int w = 0; w < nw; ++w) {
            long long cw = s_cnt[w];
            s_cnt[w] = tot;                         /* exclusive prefix per warp */
            tot += cw;
            ta += s_da[w];
            tb += s_db[w];
        }
        s_base = 0;
        if (tot) {
            s_base = atomicAdd(&cnt[0], (unsigned long long)tot);
            if (ta) atomicAdd(&cnt[1], (unsigned long long)ta);
            if (tb) atomicAdd(&cnt[2], (unsigned long long)tb);
        }
        s_tot = tot;
    }
    __syncthreads();
    if (s_tot == 0 || fresh == 0) return;
    unsigned long long off = s_base + s_cnt[wid] + (incl - mine_n);
    if (mode == 0) {                               /* found flags cleared for the next level */
        if (i0 + 16 <= nrows)
            *reinterpret_cast<uint4*>(flag + i0) = make_uint4(0u, 0u, 0u, 0u);
        else
            for (unsigned int m = fresh; m; m &= m - 1) flag[i0 + __ffs(m) - 1] = 0;
    }
    long long word = -1;
    unsigned int bits = 0;
    for (unsigned int m = fresh; m; m &= m - 1) {
        long long i = i0 + __ffs(m) - 1;
        out[off++] = i;
        vis[i] = 1;
        lvl[i] = level;
        if (want_parent && (mode == 0 || mine[i])) par[i] = pval[i];
        if (mode == 0) {
            long long g = i * P + rank;
            if ((g >> 5) != word) {
                if (bits) atomicOr(&seen[word], bits);
                word = g >> 5;
                bits = 0;
            }
            bits |= 1u << (g & 31);
        }
    }
    if (bits) atomicOr(&seen[word], bits);
}

__global__ void spbfs_dist_apply_recv(
        const long long* __restrict__ j, long long k, const unsigned char* __restrict__ vis,
        unsigned char* __restrict__ flag, long long* __restrict__ pnew,
        const long long* __restrict__ p, int want_parent)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= k) return;
    long long t = j[i];
    if (!vis[t]) {
        flag[t] = 1;
        if (want_parent) pnew[t] = p[i];
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

_TEMPLATED = ("spbfs_dist_pull_warp", "spbfs_dist_pull_thread", "spbfs_dist_push_nn",
              "spbfs_dist_push_edges", "spbfs_dist_bin_owner")
_PLAIN = ("spbfs_dist_set_bits", "spbfs_dist_settle", "spbfs_dist_apply_recv")
_BLOCK = 256
#: Above this many ranks the nn send buffer is binned with a sort, not the bin_owner kernel
#: (its per-block tables of P counts and bases must fit in shared memory).
_MAX_BIN_RANKS = 2048
_SETTLE_ITEMS = 16   # SPBFS_SETTLE_ITEMS


@functools.cache
def _module():
    import cupy

    names = [f"{k}<{t}>" for k in _TEMPLATED for t in ("int", "long long")]
    names.extend(_PLAIN)
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


def _misaligned(a):
    """Whether a device array's data is not 16-byte aligned (numpy stand-ins never are)."""
    return hasattr(a, "data") and hasattr(a.data, "ptr") and a.data.ptr % 16 != 0


def _i64(x):
    return np.int64(x)


def _i32(x):
    return np.int32(x)


#: Per-phase profile of the level loop: set ``PROFILE["on"] = True`` (or the environment
#: variable ``SPBFS_DIST_PROFILE=1``) and each phase is timed with a device synchronisation
#: around it (slower); seconds accumulate in ``PROFILE["t"][(level, phase)]``.
PROFILE = {"on": os.environ.get("SPBFS_DIST_PROFILE") == "1", "t": {}}


class _Phases:
    def __init__(self, c):
        self.c, self.on = c, PROFILE["on"]
        self.t0 = None

    def __call__(self, level, name):
        if not self.on:
            return
        self.c.sync()
        t = time.perf_counter()
        if self.t0 is not None:
            key = (level, self.name)
            PROFILE["t"][key] = PROFILE["t"].get(key, 0.0) + t - self.t0
        self.t0, self.name = t, name


def bfs_kernels(G, source, sd, want_p, dirs, alphas, uniquify, cull, nonblocking):
    """The level loop on GPU ranks; returns ``(lvl, par, levels, directions)``.

    Same algorithm and outputs as the generic loop of :func:`spbfs.dist.bfs`.  Host
    synchronisations per level: one 48-byte read of the level's counters (new normals,
    new delegates and the next frontier's edges per block, counted by the ``settle``
    kernel), plus, when the ``nn`` frontier is not empty, the ``nn`` push's send counts per
    owner (and on P > 1 the all-to-all-v); the delegate OR waits on the reduction.
    Frontier pushes run one thread per edge (load-balanced over hub rows).
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
    dummy8 = xp.zeros(1, bool)
    P64, r64 = _i64(P), _i64(rank)
    wp = _i32(1 if want_p else 0)

    nvis = xp.zeros(n_loc, bool)
    nvis[G.owned_delegates] = True
    lvl = xp.full(n_loc, UNREACHED, np.int32)
    par = xp.full(n_loc, UNREACHED, np.int64) if want_p else dummy64
    dvis = xp.zeros(D, bool)
    dlvl = xp.full(D, UNREACHED, np.int32)
    no_parent = np.iinfo(np.int64).max
    dpar = xp.full(D, no_parent, np.int64) if want_p else None
    seen = xp.zeros((n + 31) // 32, np.uint32)
    flag_n = xp.zeros(n_loc, bool)
    pnew = xp.empty(max(n_loc, 1), np.int64) if want_p else dummy64
    found_d = xp.zeros(D, bool)
    cand = xp.empty(max(D, 1), np.int64) if want_p else dummy64
    counter = xp.zeros(1, np.uint64)
    owner_count = xp.zeros(P, np.uint64)
    fn_buf = xp.empty(max(n_loc, 1), np.int64)   # next frontiers, written by settle
    fd_buf = xp.empty(max(D, 1), np.int64)
    cnt = xp.zeros(6, np.uint64)                  # [normals: n, nd, nn | delegates: n, dn, dd]
    zero1 = xp.zeros(1, np.int64)

    fn, fd = _local.seed_source(source, sd, P, rank, nvis, lvl, par if want_p else None,
                                dvis, dlvl, dpar, xp)
    _kernel("spbfs_dist_set_bits")((1,), (_BLOCK,),
                                   (xp.asarray([source], np.int64), _i64(1), seen))
    nfn, nfd = int(fn.size), int(fd.size)

    def edge_scan(name, frontier):
        """Edges of the frontier rows before each row (and in all) in block ``name``."""
        return xp.concatenate([zero1, xp.cumsum(deg[name][frontier])])

    def push_flags(name, frontier, nf, w, use_gid, blocked, flag, parent):
        if nf == 0 or w == 0:
            return
        ip, ix = blocks[name]
        scan = edge_scan(name, frontier)
        _kernel("spbfs_dist_push_edges", ip)(
            _grid(w), (_BLOCK,),
            (ip, ix, frontier, _i64(nf), scan, _i64(w), dglob if use_gid else dummy64,
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

    def settle(nrows, mode, flag, vis, lv, level, parent, pval, mine, deg_a, deg_b, out, ct):
        if nrows == 0:
            return
        if mode == 1 and _misaligned(flag):    # the kernel reads 16 flags per load
            flag = flag.copy()
        _kernel("spbfs_dist_settle")(
            _grid(-(-nrows // _SETTLE_ITEMS)), (_BLOCK,),
            (_i64(nrows), _i32(mode), flag, vis, lv, _i32(level), parent, pval, mine, wp,
             seen, P64, r64, deg_a, deg_b, out, ct))

    unexplored = {
        "nd": int(deg["dn"].sum()) - (int(deg["dn"][sd]) if sd >= 0 else 0),
        "dn": int(deg["nd"].sum()) - (int(deg["nd"][fn].sum()) if fn.size else 0),
        "dd": int(deg["dd"].sum()) - (int(deg["dd"][sd]) if sd >= 0 else 0),
    }
    zero = xp.zeros((), np.int64)
    work0 = xp.stack([deg["nd"][fn].sum() if fn.size else zero,
                      deg["dn"][fd].sum() if fd.size else zero,
                      deg["dd"][fd].sum() if fd.size else zero,
                      deg["nn"][fn].sum() if fn.size else zero])
    w_nd, w_dn, w_dd, w_nn = (int(w) for w in c.to_host(work0))
    level_dirs = []
    level = 0
    ph = _Phases(c)
    while True:
        level += 1
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
        ph(level, "dd")
        if D:
            found_d.fill(False)
            # dd first: it finds most delegates, and a pull skips rows already found
            if chosen["dd"] == "push":
                push_flags("dd", fd, nfd, w_dd, 1, dvis, found_d, cand)
            else:
                pull("dd", "warp", D, dvis, dvis, 1, found_d, cand)
            ph(level, "nd")
            if chosen["nd"] == "push":
                push_flags("nd", fn, nfn, w_nd, 0, dvis, found_d, cand)
            else:
                pull("dn", "warp", D, dvis, nvis, 0, found_d, cand)
        ph(level, "or_start")
        pending = c.allreduce_or_start(found_d, blocking=not nonblocking)

        # 2. normal stream
        ph(level, "nn_push")
        binned = P > 1 and (cull or not uniquify) and P <= _MAX_BIN_RANKS
        k, counts = 0, np.zeros(P, np.int64)
        if nfn and w_nn:
            ip, ix = blocks["nn"]
            out_t = xp.empty(w_nn, np.int32)
            out_p = xp.empty(w_nn, np.int64) if want_p else dummy64
            counter.fill(0)
            owner_count.fill(0)
            scan = edge_scan("nn", fn)
            _kernel("spbfs_dist_push_nn", ip)(
                _grid(w_nn), (_BLOCK,),
                (ip, ix, fn, _i64(nfn), scan, _i64(w_nn), P64, r64, seen,
                 _i32(1 if cull else 0), out_t, out_p, wp, counter, owner_count,
                 _i32(1 if binned else 0)),
                shared_mem=4 * P if binned else 0)
            if binned:
                counts = c.to_host(owner_count).astype(np.int64)
                k = int(counts.sum())
            else:
                k = int(c.to_host(counter)[0])
        ph(level, "nn_exchange")
        if P == 1 and cull:
            # the targets are local ids, culled and deduplicated by the push: no exchange
            if k:
                _kernel("spbfs_dist_apply_recv")(
                    _grid(k), (_BLOCK,),
                    (out_t[:k].astype(np.int64), _i64(k), nvis, flag_n, pnew,
                     out_p[:k] if want_p else dummy64, wp))
        else:
            send = [xp.zeros(0, ldt)] + ([xp.zeros(0, np.int64)] if want_p else [])
            if k and binned:
                send = [xp.empty(k, ldt)] + ([xp.empty(k, np.int64)] if want_p else [])
                cursor = xp.asarray(np.concatenate([[0], np.cumsum(counts[:-1])]).astype(np.uint64))
                _kernel("spbfs_dist_bin_owner", send[0])(
                    _grid(k), (_BLOCK,),
                    (out_t, out_p, _i64(k), P64, cursor, send[0],
                     send[1] if want_p else dummy64, wp),
                    shared_mem=12 * P)
            elif k:
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
            ph(level, "nn_alltoallv")
            recv, rc = c.alltoallv_many(send, counts)
            ph(level, "nn_apply")
            nrecv = int(rc.sum())
            if nrecv:
                _kernel("spbfs_dist_apply_recv")(
                    _grid(nrecv), (_BLOCK,),
                    (recv[0].astype(np.int64), _i64(nrecv), nvis, flag_n, pnew,
                     recv[1] if want_p else dummy64, wp))
        ph(level, "dn")
        if D:
            if chosen["dn"] == "push":
                push_flags("dn", fd, nfd, w_dn, 1, nvis, flag_n, pnew)
            else:
                pull("nd", "thread", n_loc, nvis, dvis, 1, flag_n, pnew)
        ph(level, "settle_n")
        cnt.fill(0)
        settle(n_loc, 0, flag_n, nvis, lvl, level, par, pnew, dummy8,
               deg["nd"], deg["nn"], fn_buf, cnt[0:3])

        # 3. delegates
        ph(level, "or_wait")
        reduced = pending.wait()
        ph(level, "settle_d")
        if D:
            settle(D, 1, reduced, dvis, dlvl, level, dpar if want_p else dummy64, cand,
                   found_d, deg["dn"], deg["dd"], fd_buf, cnt[3:6])
        ph(level, "readback")
        nfn, w_nd, w_nn, nfd, w_dn, w_dd = (int(x) for x in c.to_host(cnt))
        ph(level, "allreduce")
        # nfd is the same on every rank (delegate state is replicated): only a level that
        # found no delegate needs the global count of new normals to know whether to stop
        total = nfd if nfd else int(c.allreduce(nfn))
        ph(level, "end")
        if total == 0:
            break
        fn, fd = fn_buf[:nfn], fd_buf[:nfd]
    lvl = lvl.astype(idt, copy=False)
    dlvl = dlvl.astype(idt, copy=False)
    return lvl, (par if want_p else None), dlvl, dpar, level - 1, level_dirs


def timed_bfs(G, source, **kw):  # pragma: no cover - GPU only
    """Run one kernel BFS and return ``(elapsed_seconds, result)`` (benchmark helper)."""
    from .bfs import bfs

    G.comm.sync()
    t0 = time.perf_counter()
    out = bfs(G, source, **kw)
    G.comm.sync()
    return time.perf_counter() - t0, out
