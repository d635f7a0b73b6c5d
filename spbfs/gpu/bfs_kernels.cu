// spbfs GPU BFS kernels (direction-optimising, one level per launch).
//
// Compiled by spbfs.gpu.kernels through CuPy (NVRTC) with these lines prepended:
//   typedef <int|long long> idx_t;   vertex ids (matrix indices, levels, parents, queues)
//   typedef <int|long long> ptr_t;   edge offsets (indptr)
//   #define WITH_PARENTS 0|1         also write parents
//   #define DIRECTED 0|1             in-degrees come from tindptr (A.T), else from indptr
//   #define REMOTE 0|1               bfs_push expands into a remote target space (spbfs.dist):
//                                    claims on a bitmap over the global ids (targets already
//                                    sent), claimed targets and their frontier row appended
//                                    to (q_out, parents) position by position, no levels
//   #define PARENT_MAP 0|1           parents store parent_id(u, pmap) for a parent u, not u
//                                    (spbfs.dist: the global id of a local-space vertex)
//
// Per-level statistics live in a device ring of RING slots of 4 u64:
//   slot[level % RING] = {vertices found at `level` (= next frontier size),
//                          sum of their out-degrees, sum of their in-degrees, unused}.
// The kernel of level L reads its frontier size from slot L-1, adds into slot L and
// zeroes slot L+1 for the next launch, so the host needs no memset between levels and
// may launch several push levels before reading the ring once.

typedef unsigned long long u64;

#ifndef REMOTE
#define REMOTE 0
#endif
#ifndef PARENT_MAP
#define PARENT_MAP 0
#endif

#define RING 64
#define CTA_THREADS 256
#define PUSH_BIG 1024  // hub chunk size (spbfs.gpu.bfs.BIG)
#ifndef PULL_SERIAL
#define PULL_SERIAL 4
#endif

// The id stored as the parent of u's children: u, or with PARENT_MAP, for
// pmap = [split, stride, offset, table...]: u * stride + offset below split, else
// table[u - split].
__device__ __forceinline__ idx_t parent_id(idx_t u, const long long* __restrict__ pmap)
{
#if PARENT_MAP
    const long long split = pmap[0];
    return (idx_t)((long long)u < split ? (long long)u * pmap[1] + pmap[2]
                                        : pmap[3 + ((long long)u - split)]);
#else
    (void)pmap;
    return u;
#endif
}

__device__ __forceinline__ unsigned lanemask_lt()
{
    unsigned m;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m));
    return m;
}

__device__ __forceinline__ u64 warp_sum(u64 x)
{
    for (int o = 16; o > 0; o >>= 1) x += __shfl_xor_sync(0xffffffffu, x, o);
    return x;
}

// Add three per-thread counters into st[0..2]: warp sums, then one atomic per block each.
__device__ __forceinline__ void block_add3(u64* st, u64 a, u64 b, u64 c)
{
    __shared__ u64 s_acc[3];
    if (threadIdx.x < 3) s_acc[threadIdx.x] = 0;
    __syncthreads();
    a = warp_sum(a);
    b = warp_sum(b);
    c = warp_sum(c);
    if ((threadIdx.x & 31) == 0 && (a | b | c)) {
        atomicAdd(s_acc, a);
        atomicAdd(s_acc + 1, b);
        atomicAdd(s_acc + 2, c);
    }
    __syncthreads();
    if (threadIdx.x < 3 && s_acc[threadIdx.x]) atomicAdd(st + threadIdx.x, s_acc[threadIdx.x]);
}

// A new vertex's out-degree into my_mf and in-degree into my_mu (the next level's sizes).
__device__ __forceinline__ void add_degrees(
    idx_t v, const ptr_t* __restrict__ indptr, const ptr_t* __restrict__ tindptr,
    u64& my_mf, u64& my_mu)
{
    const ptr_t d = indptr[v + 1] - indptr[v];
    my_mf += (u64)d;
#if DIRECTED
    my_mu += (u64)(tindptr[v + 1] - tindptr[v]);
#else
    (void)tindptr;
    my_mu += (u64)d;
#endif
}

// Claim v (push): the thread whose atomicOr flips v's visited bit owns v and writes its
// level and parent; returns whether this thread claimed v.
__device__ __forceinline__ bool claim(
    idx_t u, idx_t v, unsigned* vis, idx_t* __restrict__ levels, idx_t* __restrict__ parents,
    const ptr_t* __restrict__ indptr, const ptr_t* __restrict__ tindptr, idx_t level,
    u64& my_mf, u64& my_mu)
{
    const unsigned bit = 1u << ((unsigned)v & 31u);
    unsigned* w = vis + (v >> 5);
    if (*((volatile unsigned*)w) & bit) return false;
    if (atomicOr(w, bit) & bit) return false;
#if REMOTE  // only the claim: the caller records the target and its row by position
    (void)u; (void)levels; (void)parents; (void)indptr; (void)tindptr; (void)level;
    (void)my_mf; (void)my_mu;
#else
    levels[v] = level;
#if WITH_PARENTS
    parents[v] = u;
#else
    (void)u;
#endif
    add_degrees(v, indptr, tindptr, my_mf, my_mu);
#endif
    return true;
}

// Claim v and append it to the queue with one atomicAdd per group of claiming lanes
// (used where the warp's lanes may diverge).
__device__ __forceinline__ void push_visit(
    idx_t u, idx_t v, unsigned* vis, idx_t* __restrict__ q_out,
    idx_t* __restrict__ levels, idx_t* __restrict__ parents,
    const ptr_t* __restrict__ indptr, const ptr_t* __restrict__ tindptr,
    u64* out_st, idx_t level, u64& my_mf, u64& my_mu)
{
    const bool claimed = claim(u, v, vis, levels, parents, indptr, tindptr, level, my_mf, my_mu);
    const unsigned act = __activemask();
    const unsigned cm = __ballot_sync(act, claimed);
    if (cm) {
        const int lane = threadIdx.x & 31;
        const int leader = __ffs(cm) - 1;
        u64 base = 0;
        if (lane == leader) base = atomicAdd(out_st, (u64)__popc(cm));
        base = __shfl_sync(act, base, leader);
        if (claimed) {
            const u64 at = base + __popc(cm & lanemask_lt());
            q_out[at] = v;
#if REMOTE && WITH_PARENTS
            parents[at] = u;  // the frontier row, by position
#endif
        }
    }
}

#if REMOTE
// Remote targets are claimed one at a time from short rows: they are staged in shared
// memory (REMOTE_STAGE of them per block and pass) and appended with one atomicAdd per
// block, not one per warp on the single counter.
#define REMOTE_STAGE 2048
__device__ __forceinline__ void remote_visit(
    idx_t u, idx_t v, unsigned* seen, idx_t* __restrict__ q_out, idx_t* __restrict__ rows,
    u64* out_st, idx_t* s_v, idx_t* s_u, unsigned* s_k)
{
    const unsigned bit = 1u << ((unsigned)v & 31u);
    unsigned* w = seen + (v >> 5);
    if (*((volatile unsigned*)w) & bit) return;
    if (atomicOr(w, bit) & bit) return;
    const unsigned k = atomicAdd(s_k, 1u);
    if (k < REMOTE_STAGE) {
        s_v[k] = v;
        s_u[k] = u;
        return;
    }
    const u64 at = atomicAdd(out_st, (u64)1);  // the stage is full
    q_out[at] = v;
#if WITH_PARENTS
    rows[at] = u;
#else
    (void)rows;
#endif
}

// Every thread of the block: the staged targets out with one atomicAdd.
__device__ __forceinline__ void remote_flush(
    idx_t* __restrict__ q_out, idx_t* __restrict__ rows, u64* out_st, const idx_t* s_v,
    const idx_t* s_u, unsigned* s_k, u64* s_base)
{
    __syncthreads();
    const unsigned cnt = min(*s_k, (unsigned)REMOTE_STAGE);
    if (threadIdx.x == 0 && cnt) *s_base = atomicAdd(out_st, (u64)cnt);
    __syncthreads();
    for (unsigned k = threadIdx.x; k < cnt; k += CTA_THREADS) {
        q_out[*s_base + k] = s_v[k];
#if WITH_PARENTS
        rows[*s_base + k] = s_u[k];
#endif
    }
    __syncthreads();
    if (threadIdx.x == 0) *s_k = 0;
    __syncthreads();
}
#endif

// The whole block expands edges [beg, end) (< PUSH_BIG of them) of u; claimed vertices are
// staged in shared memory and appended to the queue with one atomicAdd per block.
// Must be called by every thread of the block with the same arguments.
__device__ __forceinline__ void block_expand(
    idx_t u, ptr_t beg, ptr_t end, const idx_t* __restrict__ indices, unsigned* vis,
    idx_t* __restrict__ q_out, idx_t* __restrict__ levels, idx_t* __restrict__ parents,
    const ptr_t* __restrict__ indptr, const ptr_t* __restrict__ tindptr, u64* out_st,
    idx_t level, u64& my_mf, u64& my_mu, idx_t* s_q, unsigned* s_n, u64* s_base)
{
    const int tid = threadIdx.x;
    if (tid == 0) *s_n = 0;
    __syncthreads();
    for (ptr_t p = beg + tid; p < end; p += CTA_THREADS) {
        const idx_t v = indices[p];
        if (claim(u, v, vis, levels, parents, indptr, tindptr, level, my_mf, my_mu))
            s_q[atomicAdd(s_n, 1u)] = v;
    }
    __syncthreads();
    const unsigned cnt = *s_n;
    if (tid == 0 && cnt) *s_base = atomicAdd(out_st, (u64)cnt);
    __syncthreads();
    for (unsigned k = tid; k < cnt; k += CTA_THREADS) {
        q_out[*s_base + k] = s_q[k];
#if REMOTE && WITH_PARENTS
        parents[*s_base + k] = u;
#endif
    }
    __syncthreads();
}

// Push (top-down) level: expand the frontier queue q_in.  Load balance after Merrill et
// al.: lists of >= `big` edges (hubs) are cut into PUSH_BIG-edge chunks for bfs_push_big
// (the whole grid), lists of >= CTA_THREADS edges are gathered by the whole block, lists
// of >= 32 by a warp, the rest by their own thread.  Grid-stride over the queue, whose
// length is read on the device (so the launch needs no host synchronisation).
extern "C" __global__ void __launch_bounds__(CTA_THREADS, 4)
bfs_push(const ptr_t* __restrict__ indptr, const idx_t* __restrict__ indices,
         const ptr_t* __restrict__ tindptr, unsigned* vis,
         const idx_t* __restrict__ q_in, idx_t* __restrict__ q_out,
         idx_t* __restrict__ levels, idx_t* __restrict__ parents,
         u64* ring, int level, idx_t* __restrict__ big_u, ptr_t* __restrict__ big_p,
         long long big, u64* remote_st, const idx_t* __restrict__ rows, long long nrows,
         const long long* __restrict__ pmap)
{
    const int tid = threadIdx.x;
    const int lane = tid & 31;
    const u64* in_st = ring + 4 * ((level - 1) & (RING - 1));
    const idx_t lev = (idx_t)level;
#if REMOTE
    u64* out_st = remote_st;  // [targets, -, -, hub chunks]
    // A frontier longer than the list of rows that have edges (`rows`), or not queued
    // (q_in null, after a pull): scan those rows and keep the ones in the frontier (their
    // level is the frontier's) instead.
    const long long nq = (long long)(*((volatile const u64*)in_st));
    const bool by_rows = q_in == nullptr || nq > nrows;
    const long long nf = by_rows ? nrows : nq;
    if (by_rows) q_in = rows;
#else
    (void)remote_st; (void)rows; (void)nrows;
    u64* out_st = ring + 4 * (level & (RING - 1));
    if (blockIdx.x == 0 && tid < 4) ring[4 * ((level + 1) & (RING - 1)) + tid] = 0;
    const long long nf = (long long)(*((volatile const u64*)in_st));
#endif

    __shared__ int s_owner;
    __shared__ idx_t s_u;
    __shared__ ptr_t s_beg, s_end;
    __shared__ idx_t s_q[PUSH_BIG];
    __shared__ unsigned s_n;
    __shared__ u64 s_base;
#if REMOTE
    __shared__ idx_t s_v[REMOTE_STAGE], s_r[REMOTE_STAGE];
    __shared__ unsigned s_k;
    if (tid == 0) s_k = 0;
#endif
    if (tid == 0) s_owner = -1;
    __syncthreads();

    u64 my_mf = 0, my_mu = 0;
    const long long stride = (long long)gridDim.x * CTA_THREADS;
    for (long long base = (long long)blockIdx.x * CTA_THREADS; base < nf; base += stride) {
        const long long i = base + tid;
        idx_t u = 0;
        ptr_t beg = 0, end = 0;
        if (i < nf) {
            u = q_in[i];
#if REMOTE
            if (!by_rows || levels[u] == lev - 1) {
                beg = indptr[u];
                end = indptr[u + 1];
            }
#else
            beg = indptr[u];
            end = indptr[u + 1];
#endif
            if ((long long)(end - beg) >= big) {  // hub: PUSH_BIG-edge chunks for bfs_push_big
                const long long nc = ((long long)(end - beg) + PUSH_BIG - 1) / PUSH_BIG;
                const u64 k = atomicAdd(out_st + 3, (u64)nc);
                for (long long c = 0; c < nc; ++c) {
                    big_u[k + c] = u;
                    big_p[k + c] = beg + (ptr_t)(c * PUSH_BIG);
                }
                beg = end;
            }
            if (end > beg) u = parent_id(u, pmap);  // from here on u is only the parent
        }
        // CTA-wide gathering of long lists.
        while (true) {
            if (end - beg >= CTA_THREADS) s_owner = tid;
            __syncthreads();
            const int owner = s_owner;
            __syncthreads();
            if (owner < 0) break;
            if (tid == owner) {
                s_u = u;
                s_beg = beg;
                s_end = end;
                beg = end;
                s_owner = -1;
            }
            __syncthreads();
            block_expand(s_u, s_beg, s_end, indices, vis, q_out, levels, parents, indptr,
                         tindptr, out_st, lev, my_mf, my_mu, s_q, &s_n, &s_base);
        }
        // Warp-wide gathering of medium lists.
        while (true) {
            const unsigned b = __ballot_sync(0xffffffffu, end - beg >= 32);
            if (!b) break;
            const int leader = __ffs(b) - 1;
            const idx_t wu = __shfl_sync(0xffffffffu, u, leader);
            const ptr_t wb = __shfl_sync(0xffffffffu, beg, leader);
            const ptr_t we = __shfl_sync(0xffffffffu, end, leader);
            if (lane == leader) beg = end;
            for (ptr_t p = wb + lane; p < we; p += 32)
#if REMOTE
                remote_visit(wu, indices[p], vis, q_out, parents, out_st, s_v, s_r, &s_k);
#else
                push_visit(wu, indices[p], vis, q_out, levels, parents, indptr, tindptr,
                           out_st, lev, my_mf, my_mu);
#endif
        }
        // Short lists: each thread its own.
        for (ptr_t p = beg; p < end; ++p)
#if REMOTE
            remote_visit(u, indices[p], vis, q_out, parents, out_st, s_v, s_r, &s_k);
        __syncthreads();  // every thread reads the same stage count
        if (s_k >= REMOTE_STAGE / 2) remote_flush(q_out, parents, out_st, s_v, s_r, &s_k, &s_base);
#else
            push_visit(u, indices[p], vis, q_out, levels, parents, indptr, tindptr,
                       out_st, lev, my_mf, my_mu);
#endif
    }
#if REMOTE
    remote_flush(q_out, parents, out_st, s_v, s_r, &s_k, &s_base);
#endif
    block_add3(out_st, 0, my_mf, my_mu);
}

// Push, second part: the hub chunks that bfs_push of the same level queued (count in ring
// slot [3]); one block per chunk of PUSH_BIG edges, grid-stride over the chunks.
extern "C" __global__ void __launch_bounds__(CTA_THREADS, 4)
bfs_push_big(const ptr_t* __restrict__ indptr, const idx_t* __restrict__ indices,
             const ptr_t* __restrict__ tindptr, unsigned* vis,
             const idx_t* __restrict__ big_u, const ptr_t* __restrict__ big_p,
             idx_t* __restrict__ q_out, idx_t* __restrict__ levels,
             idx_t* __restrict__ parents, u64* ring, int level, u64* remote_st,
             const long long* __restrict__ pmap)
{
#if REMOTE
    u64* out_st = remote_st;
    (void)ring;
#else
    (void)remote_st;
    u64* out_st = ring + 4 * (level & (RING - 1));
#endif
    const long long nc = (long long)(*((volatile const u64*)(out_st + 3)));
    const idx_t lev = (idx_t)level;
    __shared__ idx_t s_q[PUSH_BIG];
    __shared__ unsigned s_n;
    __shared__ u64 s_base;
    u64 my_mf = 0, my_mu = 0;
    for (long long c = blockIdx.x; c < nc; c += gridDim.x) {
        const idx_t u = big_u[c];
        const ptr_t beg = big_p[c];
        const ptr_t e = indptr[u + 1];
        const ptr_t end = (e - beg > (ptr_t)PUSH_BIG) ? beg + (ptr_t)PUSH_BIG : e;
        block_expand(parent_id(u, pmap), beg, end, indices, vis, q_out, levels, parents,
                     indptr, tindptr, out_st, lev, my_mf, my_mu, s_q, &s_n, &s_base);
    }
    block_add3(out_st, 0, my_mf, my_mu);
}

// Pull (bottom-up) level: one warp per 32-vertex bitmap word, one lane per vertex.  An
// unvisited vertex scans its in-neighbours (row of A.T) against the visited bitmap of the
// previous levels (vis_cur, read-only here) and stops at the first hit, which is its
// parent.  The first PULL_SERIAL in-edges are scanned by the lane alone; longer remainders
// are scanned by the whole warp, 32 edges per step, one vertex after another.  The new
// bitmap word (old bits | found) goes to vis_next, so no atomics are needed and vertices
// found in this level never serve as parents in it.
extern "C" __global__ void __launch_bounds__(CTA_THREADS, 4)
bfs_pull(const ptr_t* __restrict__ tindptr, const idx_t* __restrict__ tindices,
         const ptr_t* __restrict__ indptr,
         const unsigned* __restrict__ vis_cur, unsigned* __restrict__ vis_next,
         idx_t* __restrict__ levels, idx_t* __restrict__ parents,
         u64* ring, int level, long long n, long long nwords, const long long* __restrict__ pmap)
{
    const int lane = threadIdx.x & 31;
    u64* out_st = ring + 4 * (level & (RING - 1));
    if (blockIdx.x == 0 && threadIdx.x < 4) ring[4 * ((level + 1) & (RING - 1)) + threadIdx.x] = 0;
    const idx_t lev = (idx_t)level;
    const long long warp0 = ((long long)blockIdx.x * CTA_THREADS + threadIdx.x) >> 5;
    const long long nwarps = ((long long)gridDim.x * CTA_THREADS) >> 5;
    u64 my_nf = 0, my_mf = 0, my_mu = 0;

    for (long long w = warp0; w < nwords; w += nwarps) {
        const unsigned word = vis_cur[w];
        const long long v = w * 32 + lane;
        const bool todo = v < n && !((word >> lane) & 1u);
        if (!__any_sync(0xffffffffu, todo)) {
            if (lane == 0) vis_next[w] = word;
            continue;
        }
        ptr_t beg = 0, end = 0, din = 0;
        idx_t par = -1;
        bool found = false;
        if (todo) {
            beg = tindptr[v];
            end = tindptr[v + 1];
            din = end - beg;
            const ptr_t lim = (end - beg > PULL_SERIAL) ? beg + PULL_SERIAL : end;
            for (; beg < lim; ++beg) {
                const idx_t u = tindices[beg];
                if ((vis_cur[u >> 5] >> ((unsigned)u & 31u)) & 1u) {
                    found = true;
                    par = u;
                    break;
                }
            }
            if (found) end = beg;
        }
        unsigned b = __ballot_sync(0xffffffffu, beg < end);
        while (b) {
            const int leader = __ffs(b) - 1;
            b &= b - 1;
            const ptr_t wb = __shfl_sync(0xffffffffu, beg, leader);
            const ptr_t we = __shfl_sync(0xffffffffu, end, leader);
            idx_t hit = -1;
            for (ptr_t p = wb; p < we; p += 32) {
                const ptr_t q = p + lane;
                idx_t uu = 0;
                bool h = false;
                if (q < we) {
                    uu = tindices[q];
                    h = (vis_cur[uu >> 5] >> ((unsigned)uu & 31u)) & 1u;
                }
                const unsigned hb = __ballot_sync(0xffffffffu, h);
                if (hb) {
                    hit = __shfl_sync(0xffffffffu, uu, __ffs(hb) - 1);
                    break;
                }
            }
            if (lane == leader && hit >= 0) {
                found = true;
                par = hit;
            }
        }
        (void)par;
        const unsigned fb = __ballot_sync(0xffffffffu, found);
        if (lane == 0) vis_next[w] = word | fb;
        if (found) {
            levels[v] = lev;
#if WITH_PARENTS
            parents[v] = parent_id(par, pmap);
#else
            (void)pmap;
#endif
            my_nf += 1;
#if DIRECTED
            my_mf += (u64)(indptr[v + 1] - indptr[v]);
#else
            my_mf += (u64)din;
#endif
            my_mu += (u64)din;
        }
    }
    block_add3(out_st, my_nf, my_mf, my_mu);
}

// After a pull level, when the next level pushes: the queue of the vertices found by the
// pull (bits set in vis_new but not in vis_old), one thread per bitmap word, positions from
// a warp prefix sum and one atomicAdd per warp on ring slot [3] of `level`.
extern "C" __global__ void __launch_bounds__(CTA_THREADS)
bfs_compact(const unsigned* __restrict__ vis_new, const unsigned* __restrict__ vis_old,
            idx_t* __restrict__ q_out, u64* ring, int level, long long nwords)
{
    u64* st = ring + 4 * (level & (RING - 1));
    const int lane = threadIdx.x & 31;
    const long long stride = (long long)gridDim.x * CTA_THREADS;
    const long long first = (long long)blockIdx.x * CTA_THREADS + threadIdx.x;
    for (long long w0 = first - lane; w0 < nwords; w0 += stride) {
        const long long w = w0 + lane;
        unsigned x = (w < nwords) ? (vis_new[w] & ~vis_old[w]) : 0u;
        const unsigned c = __popc(x);
        unsigned incl = c;
        for (int o = 1; o < 32; o <<= 1) {
            const unsigned y = __shfl_up_sync(0xffffffffu, incl, o);
            if (lane >= o) incl += y;
        }
        const unsigned total = __shfl_sync(0xffffffffu, incl, 31);
        if (!total) continue;
        u64 base = 0;
        if (lane == 31) base = atomicAdd(st + 3, (u64)total);
        base = __shfl_sync(0xffffffffu, base, 31) + (incl - c);
        while (x) {
            const int b = __ffs(x) - 1;
            x &= x - 1;
            q_out[base++] = (idx_t)(w * 32 + b);
        }
    }
}

// Level 0 in one launch: levels/parents = -1 except the source, visited bitmap = {source},
// queue = [source], ring zeroed except slot 0 = {1, out-degree, in-degree} of the source.
extern "C" __global__ void
bfs_reset(const ptr_t* __restrict__ indptr, const ptr_t* __restrict__ tindptr,
          unsigned* vis, idx_t* q0, idx_t* levels, idx_t* parents, u64* ring, idx_t source,
          long long n, long long nwords, const long long* __restrict__ pmap)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    const long long t0 = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    for (long long i = t0; i < n; i += stride) {
        levels[i] = (i == (long long)source) ? (idx_t)0 : (idx_t)-1;
#if WITH_PARENTS
        parents[i] = (i == (long long)source) ? parent_id(source, pmap) : (idx_t)-1;
#else
        (void)pmap;
#endif
    }
    const long long sw = (long long)(source >> 5);
    for (long long w = t0; w < nwords; w += stride)
        vis[w] = (w == sw) ? (1u << ((unsigned)source & 31u)) : 0u;
    if (t0 < 4 * RING) {  // a negative source: no vertex at level 0 (spbfs.dist ranks)
        u64 x = 0;
        if (source >= 0) {
            if (t0 == 0) x = 1;
            if (t0 == 1) x = (u64)(indptr[source + 1] - indptr[source]);
            if (t0 == 2) x = (u64)(tindptr[source + 1] - tindptr[source]);
        }
        ring[t0] = x;
    }
    if (t0 == 0 && source >= 0) q0[0] = source;
}

// Vertices found elsewhere at `level` (spbfs.dist: targets received from other ranks):
// ids[i] is claimed if unvisited, with parent vals[i] (vals may be null), counted into the
// level's ring slot and, after a push (`queue` set), appended to the next queue q_out;
// after a pull bfs_compact finds them in the bitmap.
extern "C" __global__ void __launch_bounds__(CTA_THREADS)
bfs_claim_list(const idx_t* __restrict__ ids, const idx_t* __restrict__ vals, long long k,
               unsigned* vis, idx_t* __restrict__ q_out, idx_t* __restrict__ levels,
               idx_t* __restrict__ parents, const ptr_t* __restrict__ indptr,
               const ptr_t* __restrict__ tindptr, u64* ring, int level, int queue)
{
    u64* out_st = ring + 4 * (level & (RING - 1));
    const idx_t lev = (idx_t)level;
    const long long stride = (long long)gridDim.x * CTA_THREADS;
    u64 my_nf = 0, my_mf = 0, my_mu = 0;
    for (long long i0 = (long long)blockIdx.x * CTA_THREADS; i0 < k; i0 += stride) {
        const long long i = i0 + threadIdx.x;
        if (i >= k) continue;
        const idx_t v = ids[i];
        const idx_t u = vals ? vals[i] : (idx_t)-1;
        if (queue)
            push_visit(u, v, vis, q_out, levels, parents, indptr, tindptr, out_st, lev,
                       my_mf, my_mu);
        else if (claim(u, v, vis, levels, parents, indptr, tindptr, lev, my_mf, my_mu))
            my_nf += 1;
    }
    block_add3(out_st, my_nf, my_mf, my_mu);
}

// Bitmap words found elsewhere (spbfs.dist: the delegates' visited bits OR-reduced over the
// ranks), ORed into vis[word0 ..]: their new vertices get `level` (parents untouched),
// are counted into the ring slot and, after a push (`queue` set), appended to q_out.
// One thread per word, so plain stores suffice.
extern "C" __global__ void __launch_bounds__(CTA_THREADS)
bfs_claim_words(const unsigned* __restrict__ words, long long nw, long long word0,
                unsigned* vis, idx_t* __restrict__ q_out, idx_t* __restrict__ levels,
                const ptr_t* __restrict__ indptr, const ptr_t* __restrict__ tindptr,
                u64* ring, int level, int queue)
{
    u64* out_st = ring + 4 * (level & (RING - 1));
    const long long stride = (long long)gridDim.x * CTA_THREADS;
    u64 my_nf = 0, my_mf = 0, my_mu = 0;
    for (long long w0 = (long long)blockIdx.x * CTA_THREADS; w0 < nw; w0 += stride) {
        const long long w = w0 + threadIdx.x;
        unsigned x = 0;
        if (w < nw) {
            const unsigned old = vis[word0 + w];
            x = words[w] & ~old;
            if (x) vis[word0 + w] = old | x;
        }
        const unsigned c = __popc(x);
        u64 base = 0;
        if (queue && c) base = atomicAdd(out_st, (u64)c);
        if (!queue) my_nf += c;
        while (x) {
            const idx_t v = (idx_t)((word0 + w) * 32 + __ffs(x) - 1);
            x &= x - 1;
            levels[v] = (idx_t)level;
            add_degrees(v, indptr, tindptr, my_mf, my_mu);
            if (queue) q_out[base++] = v;
        }
    }
    block_add3(out_st, my_nf, my_mf, my_mu);
}

// spbfs.dist: the remote push's targets (count in st[0]) counted by owner (t % P): per-block
// counts in shared memory (P words), one atomicAdd per block and owner.
extern "C" __global__ void __launch_bounds__(CTA_THREADS)
bfs_owner_count(const idx_t* __restrict__ t, const u64* __restrict__ st, long long P,
                unsigned long long* __restrict__ owner_count)
{
    extern __shared__ unsigned s_cnt[];
    for (long long o = threadIdx.x; o < P; o += CTA_THREADS) s_cnt[o] = 0;
    __syncthreads();
    const long long k = (long long)st[0];
    const long long stride = (long long)gridDim.x * CTA_THREADS;
    for (long long i = (long long)blockIdx.x * CTA_THREADS + threadIdx.x; i < k; i += stride)
        atomicAdd(&s_cnt[(long long)t[i] % P], 1u);
    __syncthreads();
    for (long long o = threadIdx.x; o < P; o += CTA_THREADS)
        if (s_cnt[o]) atomicAdd(&owner_count[o], (unsigned long long)s_cnt[o]);
}

// ... and written grouped by owner into the send buffers as the owner's local ids (t / P),
// with their frontier rows (p may be null): owner o's part starts at the sum of the counts
// of the owners before it; each block reserves its range per owner with one atomicAdd on
// cursor[o] (zeroed before).  Shared memory: P counts, then P 8-byte bases.
extern "C" __global__ void __launch_bounds__(CTA_THREADS)
bfs_owner_scatter(const idx_t* __restrict__ t, const idx_t* __restrict__ p,
                  const u64* __restrict__ st, long long P,
                  const unsigned long long* __restrict__ owner_count,
                  unsigned long long* __restrict__ cursor, idx_t* __restrict__ send_t,
                  idx_t* __restrict__ send_p)
{
    extern __shared__ unsigned long long s_base[];
    unsigned* s_cnt = (unsigned*)(s_base + P);
    const long long k = (long long)st[0];
    const long long stride = (long long)gridDim.x * CTA_THREADS;
    for (long long i0 = (long long)blockIdx.x * CTA_THREADS; i0 < k; i0 += stride) {
        for (long long o = threadIdx.x; o < P; o += CTA_THREADS) s_cnt[o] = 0;
        __syncthreads();
        const long long i = i0 + threadIdx.x;
        long long o = -1;
        unsigned at = 0;
        idx_t v = 0;
        if (i < k) {
            v = t[i];
            o = (long long)v % P;
            at = atomicAdd(&s_cnt[o], 1u);
        }
        __syncthreads();
        for (long long q = threadIdx.x; q < P; q += CTA_THREADS) {
            if (!s_cnt[q]) continue;
            unsigned long long off = 0;
            for (long long r = 0; r < q; ++r) off += owner_count[r];
            s_base[q] = off + atomicAdd(&cursor[q], (unsigned long long)s_cnt[q]);
        }
        __syncthreads();
        if (o >= 0) {
            const unsigned long long pos = s_base[o] + at;
            send_t[pos] = (idx_t)((long long)v / P);
            if (p) send_p[pos] = p[i];
        }
        __syncthreads();
    }
}
