// spbfs GPU BFS kernels (direction-optimising, one level per launch).
//
// Compiled by spbfs.gpu.kernels through CuPy (NVRTC) with these lines prepended:
//   typedef <int|long long> idx_t;   vertex ids (matrix indices, levels, parents, queues)
//   typedef <int|long long> ptr_t;   edge offsets (indptr)
//   #define WITH_PARENTS 0|1         also write parents
//   #define WITH_LEVELS 0|1          write levels (0: parents only, a search whose caller
//                                    wants the tree alone; `levels` is then never touched)
//   #define DIRECTED 0|1             in-degrees come from tindptr (A.T), else from indptr
//   #define REMOTE 0|1               bfs_push expands into a remote target space (spbfs.dist):
//                                    the ghost slots of other ranks' vertices; a reached slot
//                                    sets its bit in `vis` (the level's outgoing words, one
//                                    word-aligned segment per owner); no claims, no levels
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
#ifndef WITH_LEVELS
#define WITH_LEVELS 1
#endif
#if REMOTE && !WITH_LEVELS
#error "the remote push reads the levels (bfs_push_rows)"
#endif

// A row of A.T for the pull: its first entry (-1 if empty) and its start relative to the
// start of its 32-row word (wbase), NO_OFFSET when that does not fit 32 bits (then the
// kernel reads tindptr).  With 32-bit ids, 8 bytes a row: half a 64-bit offset's sector
// traffic plus the first probe, in one load.
#define NO_OFFSET 0xffffffffu
struct __align__(2 * sizeof(idx_t)) Head {
    idx_t first;
    unsigned offset;
};

#define RING 64
#define CTA_THREADS 256
#define PUSH_BIG 1024  // hub chunk size (spbfs.gpu.bfs.BIG)
#define EXPAND_ILP 4  // edges a thread of a block-wide expansion has in flight
#ifndef PULL_SERIAL
#define PULL_SERIAL 4
#endif

// The device's level loop (spbfs.gpu.bfs.BitmapSearch.run, and a distributed rank's levels):
// state (int64): the last level run (its ring slot not yet read), the current bitmap and
// queue, whether the queue holds the frontier, whether the last level pulled, whether the
// outputs still need their -1 fill, the policy's frontier size, previous size, out-edges
// and unexplored edges (before reading that slot), done, a bit per level (level % 64)
// set when it pulled (a round's levels fit 64), and bfs_pull_step's count of finished
// blocks.
enum {
    LOOP_LEVEL, LOOP_CUR, LOOP_QIN, LOOP_QUEUED, LOOP_PULLING, LOOP_UNFILLED, LOOP_NF,
    LOOP_PREV_NF, LOOP_MF, LOOP_MU, LOOP_DONE, LOOP_PULLED, LOOP_BLOCKS_DONE, LOOP_FIELDS
};
#define DIRECTION_AUTO 0
#define DIRECTION_PULL 2

struct LoopState {
    long long level, nf, prev_nf, mf, mu, pulled;
    int cur, qin;
    bool queued, pulling, unfilled;
};

__device__ __forceinline__ LoopState load_state(const long long* s)
{
    return LoopState{s[LOOP_LEVEL], s[LOOP_NF], s[LOOP_PREV_NF], s[LOOP_MF], s[LOOP_MU],
                     s[LOOP_PULLED], (int)s[LOOP_CUR], (int)s[LOOP_QIN], s[LOOP_QUEUED] != 0,
                     s[LOOP_PULLING] != 0, s[LOOP_UNFILLED] != 0};
}

__device__ __forceinline__ void store_state(long long* s, const LoopState& q)
{
    s[LOOP_LEVEL] = q.level;
    s[LOOP_NF] = q.nf;
    s[LOOP_PREV_NF] = q.prev_nf;
    s[LOOP_MF] = q.mf;
    s[LOOP_MU] = q.mu;
    s[LOOP_PULLED] = q.pulled;
    s[LOOP_CUR] = q.cur;
    s[LOOP_QIN] = q.qin;
    s[LOOP_QUEUED] = q.queued;
    s[LOOP_PULLING] = q.pulling;
    s[LOOP_UNFILLED] = q.unfilled;
}

// A search's loop state before its first level (what BitmapSearch.run's host fill was): level
// 0, the first bitmap and queue current and the queue holding the source, the outputs' -1s
// still to write, a frontier of one, every edge unexplored.
__device__ __forceinline__ void fresh_state(long long* s, long long edges, bool pulling)
{
    store_state(s, LoopState{0, 1, 0, 0, edges, 0, 0, 0, true, pulling, true});
    s[LOOP_DONE] = 0;
    s[LOOP_BLOCKS_DONE] = 0;
}

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

// A load of a queue, bitmap or hub chunk that an earlier level wrote.  One level per launch
// (LOOP false), the data is read-only for the launch: the read-only cache (ld.global.nc),
// also where the kernel chose the buffer at run time (bfs_pull_step), so the compiler need
// not order these loads after the level's stores.  In bfs_levels (LOOP true), other blocks
// wrote it earlier in the same launch: a plain cached load, which the grid barrier's
// acquire orders after their writes.
template <bool LOOP, typename T>
__device__ __forceinline__ T load(const T* p)
{
    if (LOOP) return __ldca(p);
    return __ldg(p);
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

// The warp's sum and maximum of a 32-bit value (one instruction from sm_80 on).
__device__ __forceinline__ unsigned warp_add32(unsigned x)
{
#if __CUDA_ARCH__ >= 800
    return __reduce_add_sync(0xffffffffu, x);
#else
    for (int o = 16; o > 0; o >>= 1) x += __shfl_xor_sync(0xffffffffu, x, o);
    return x;
#endif
}

__device__ __forceinline__ unsigned warp_max32(unsigned x)
{
#if __CUDA_ARCH__ >= 800
    return __reduce_max_sync(0xffffffffu, x);
#else
    for (int o = 16; o > 0; o >>= 1) x = max(x, __shfl_xor_sync(0xffffffffu, x, o));
    return x;
#endif
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

// v's level, unless the search keeps none (WITH_LEVELS 0).
__device__ __forceinline__ void store_level(idx_t* __restrict__ levels, long long v, idx_t lev)
{
#if WITH_LEVELS
    levels[v] = lev;
#else
    (void)levels, (void)v, (void)lev;
#endif
}

// v not reached (yet): level and parent -1.
__device__ __forceinline__ void set_unreached(long long v, idx_t* __restrict__ levels,
                                              idx_t* __restrict__ parents)
{
    store_level(levels, v, (idx_t)-1);
#if WITH_PARENTS
    parents[v] = (idx_t)-1;
#else
    (void)parents;
#endif
}

// A vertex claimed by this thread: its level, parent u and degrees.
__device__ __forceinline__ void found(
    idx_t u, idx_t v, idx_t* __restrict__ levels, idx_t* __restrict__ parents,
    const ptr_t* __restrict__ indptr, const ptr_t* __restrict__ tindptr, idx_t level,
    u64& my_mf, u64& my_mu)
{
    store_level(levels, v, level);
#if WITH_PARENTS
    parents[v] = u;
#else
    (void)u;
#endif
    add_degrees(v, indptr, tindptr, my_mf, my_mu);
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
    found(u, v, levels, parents, indptr, tindptr, level, my_mf, my_mu);
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
        }
    }
}

// The position of this lane's entry in counter `o` (shared memory) when `ok`: one atomicAdd
// per owner among the lanes of the warp (all 32 lanes call it).
__device__ __forceinline__ unsigned warp_slot(unsigned* counters, int o, bool ok)
{
    const unsigned peers = __match_any_sync(0xffffffffu, ok ? o : -1);
    const int leader = __ffs(peers) - 1;
    unsigned base = 0;
    if (ok && (int)(threadIdx.x & 31) == leader) base = atomicAdd(counters + o, __popc(peers));
    return __shfl_sync(0xffffffffu, base, leader) + __popc(peers & lanemask_lt());
}

#if REMOTE
// A remote target (a ghost slot) reached: its bit in the level's outgoing words.  Slots
// are not culled against earlier levels: the words are sent whole whatever they hold, and
// the owner's claim skips visited vertices.
__device__ __forceinline__ void remote_visit(unsigned* out, idx_t v)
{
    const unsigned bit = 1u << ((unsigned)v & 31u);
    unsigned* w = out + (v >> 5);
    if (!(*((volatile unsigned*)w) & bit)) atomicOr(w, bit);
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
    // EXPAND_ILP edges a thread per step, each stage issued for all of them before the next
    // waits: the targets, their visited words, then the claims (a chunk is one step)
    for (ptr_t p0 = beg + tid; p0 < end; p0 += (ptr_t)EXPAND_ILP * CTA_THREADS) {
        idx_t v[EXPAND_ILP];
        unsigned bit[EXPAND_ILP], old[EXPAND_ILP];
#pragma unroll
        for (int k = 0; k < EXPAND_ILP; ++k) {
            const ptr_t p = p0 + (ptr_t)k * CTA_THREADS;
            v[k] = p < end ? indices[p] : (idx_t)-1;
            bit[k] = 1u << ((unsigned)v[k] & 31u);
        }
#pragma unroll
        for (int k = 0; k < EXPAND_ILP; ++k)
            old[k] = v[k] >= 0 ? *((volatile unsigned*)(vis + (v[k] >> 5))) : bit[k];
#pragma unroll
        for (int k = 0; k < EXPAND_ILP; ++k)
            if (!(old[k] & bit[k])) old[k] = atomicOr(vis + (v[k] >> 5), bit[k]);
#pragma unroll
        for (int k = 0; k < EXPAND_ILP; ++k) {
            if (!(old[k] & bit[k])) {
                found(u, v[k], levels, parents, indptr, tindptr, level, my_mf, my_mu);
                s_q[atomicAdd(s_n, 1u)] = v[k];
            }
        }
    }
    __syncthreads();
    const unsigned cnt = *s_n;
    if (tid == 0 && cnt) *s_base = atomicAdd(out_st, (u64)cnt);
    __syncthreads();
    for (unsigned k = tid; k < cnt; k += CTA_THREADS) q_out[*s_base + k] = s_q[k];
    __syncthreads();
}

#if REMOTE
// The whole block expands edges [beg, end) of a frontier vertex into the outgoing words.
__device__ __forceinline__ void block_expand_remote(ptr_t beg, ptr_t end,
                                                    const idx_t* __restrict__ indices,
                                                    unsigned* out)
{
    for (ptr_t p = beg + threadIdx.x; p < end; p += CTA_THREADS) remote_visit(out, indices[p]);
}
#endif

// Push (top-down) level: expand the frontier queue q_in.  Load balance after Merrill et al.: lists
// of >= `big` edges (hubs; `big` is PUSH_BIG, or CTA_THREADS for a frontier of few edges, whose
// lists would otherwise queue up in a few blocks) are cut into PUSH_BIG-edge chunks for
// bfs_push_big (the whole grid, a block per chunk), lists of >= CTA_THREADS edges are gathered by
// the whole block, lists of >= 32 by a warp, the rest by their own thread.  Grid-stride over the
// queue, whose length is read on the device (so the launch needs no host synchronisation).
template <bool LOOP>
__device__ __forceinline__ void push_level(const ptr_t* __restrict__ indptr,
                                           const idx_t* __restrict__ indices,
                                           const ptr_t* __restrict__ tindptr, unsigned* vis,
                                           const idx_t* __restrict__ q_in,
                                           idx_t* __restrict__ q_out, idx_t* __restrict__ levels,
                                           idx_t* __restrict__ parents, u64* ring, int level,
                                           idx_t* __restrict__ big_u, ptr_t* __restrict__ big_p,
                                           long long big, u64* remote_st, long long nrows,
                                           const long long* __restrict__ pmap)
{
    const int tid = threadIdx.x;
    const int lane = tid & 31;
    const u64* in_st = ring + 4 * ((level - 1) & (RING - 1));
#if REMOTE
    (void)levels;
    u64* out_st = remote_st;  // [-, -, -, hub chunks]
    // a frontier not queued (after a pull), or longer than the `nrows` rows with remote
    // entries: bfs_push_rows pushes it
    const long long nf = (long long)(*((volatile const u64*)in_st));
    if (q_in == nullptr || nf > nrows) return;
#else
    (void)remote_st; (void)nrows;
    u64* out_st = ring + 4 * (level & (RING - 1));
    if (blockIdx.x == 0 && tid < 4) ring[4 * ((level + 1) & (RING - 1)) + tid] = 0;
    const long long nf = (long long)(*((volatile const u64*)in_st));
    const idx_t lev = (idx_t)level;
#endif

    __shared__ int s_owner;
    __shared__ idx_t s_u;
    __shared__ ptr_t s_beg, s_end;
#if !REMOTE
    __shared__ idx_t s_q[PUSH_BIG];
    __shared__ unsigned s_n;
    __shared__ u64 s_base;
#endif
    if (tid == 0) s_owner = -1;
    __syncthreads();

#if !REMOTE
    u64 my_mf = 0, my_mu = 0;
#endif
    const long long stride = (long long)gridDim.x * CTA_THREADS;
    for (long long base = (long long)blockIdx.x * CTA_THREADS; base < nf; base += stride) {
        const long long i = base + tid;
        idx_t u = 0;
        ptr_t beg = 0, end = 0;
        long long nc = 0;  // hub: PUSH_BIG-edge chunks for bfs_push_big, from chunk k
        u64 k = 0;
        if (i < nf) {
            u = load<LOOP>(q_in + i);
            beg = indptr[u];
            end = indptr[u + 1];
            if ((long long)(end - beg) >= big) {
                nc = ((long long)(end - beg) + PUSH_BIG - 1) / PUSH_BIG;
                k = atomicAdd(out_st + 3, (u64)nc);
            }
        }
        // the warp writes each hub's chunk list together, a chunk per lane
        for (unsigned hubs = __ballot_sync(0xffffffffu, nc > 0); hubs; hubs &= hubs - 1) {
            const int src = __ffs(hubs) - 1;
            const idx_t hu = __shfl_sync(0xffffffffu, u, src);
            const ptr_t hb = __shfl_sync(0xffffffffu, beg, src);
            const long long hn = __shfl_sync(0xffffffffu, nc, src);
            const u64 hk = __shfl_sync(0xffffffffu, k, src);
            for (long long c = lane; c < hn; c += 32) {
                big_u[hk + c] = hu;
                big_p[hk + c] = hb + (ptr_t)(c * PUSH_BIG);
            }
        }
        if (nc) beg = end;
        if (end > beg) u = parent_id(u, pmap);  // from here on u is only the parent
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
#if REMOTE
            block_expand_remote(s_beg, s_end, indices, vis);
#else
            block_expand(s_u, s_beg, s_end, indices, vis, q_out, levels, parents, indptr,
                         tindptr, out_st, lev, my_mf, my_mu, s_q, &s_n, &s_base);
#endif
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
                remote_visit(vis, indices[p]);
#else
                push_visit(wu, indices[p], vis, q_out, levels, parents, indptr, tindptr,
                           out_st, lev, my_mf, my_mu);
#endif
        }
        // Short lists (under 32 edges): each lane walks its own, one dependent edge after
        // another, when the lanes' lists are about as long; when they are not (a small
        // frontier of mixed degrees), the warp takes them end to end, 32 edges a step, so
        // one long list does not leave the other lanes idle.  Lane j's edges are numbers
        // [excl, excl + count) of the warp's; an edge's lane is the last one whose excl
        // does not exceed it (a binary search over the lanes).
        const unsigned count = (unsigned)(end - beg);
        const unsigned total = warp_add32(count);
        const bool gather = (total + 31) / 32 < warp_max32(count);
        unsigned excl = 0;
        if (gather) {  // warp-uniform
            unsigned incl = count;
            for (int o = 1; o < 32; o <<= 1) {
                const unsigned y = __shfl_up_sync(0xffffffffu, incl, o);
                if (lane >= o) incl += y;
            }
            excl = incl - count;
        }
        for (ptr_t p = gather ? end : beg; p < end; ++p)
#if REMOTE
            remote_visit(vis, indices[p]);
#else
            push_visit(u, indices[p], vis, q_out, levels, parents, indptr, tindptr,
                       out_st, lev, my_mf, my_mu);
#endif
        for (unsigned e0 = 0; gather && e0 < total; e0 += 32) {
            const unsigned e = e0 + lane;
            int src = 0;
            for (int step = 16; step > 0; step >>= 1)
                if (__shfl_sync(0xffffffffu, excl, src + step) <= e) src += step;
            const idx_t su = __shfl_sync(0xffffffffu, u, src);
            const ptr_t sb = __shfl_sync(0xffffffffu, beg, src);
            const unsigned se = __shfl_sync(0xffffffffu, excl, src);
            if (e < total)
#if REMOTE
                remote_visit(vis, indices[sb + (ptr_t)(e - se)]);
#else
                push_visit(su, indices[sb + (ptr_t)(e - se)], vis, q_out, levels, parents,
                           indptr, tindptr, out_st, lev, my_mf, my_mu);
#endif
        }
    }
#if !REMOTE
    block_add3(out_st, 0, my_mf, my_mu);
#endif
}

extern "C" __global__ void __launch_bounds__(CTA_THREADS, 4)
bfs_push(const ptr_t* __restrict__ indptr, const idx_t* __restrict__ indices,
         const ptr_t* __restrict__ tindptr, unsigned* vis,
         const idx_t* __restrict__ q_in, idx_t* __restrict__ q_out,
         idx_t* __restrict__ levels, idx_t* __restrict__ parents,
         u64* ring, int level, idx_t* __restrict__ big_u, ptr_t* __restrict__ big_p,
         long long big, u64* remote_st, long long nrows, const long long* __restrict__ pmap)
{
    push_level<false>(indptr, indices, tindptr, vis, q_in, q_out, levels, parents, ring, level,
                      big_u, big_p, big, remote_st, nrows, pmap);
}

#if REMOTE
// The search's frontier as the loop state holds it: the level after it, and its queue (null
// when it is not queued: after a pull).
__device__ __forceinline__ int state_frontier(const long long* state, const idx_t* q0,
                                              const idx_t* q1, const idx_t** q_in)
{
    *q_in = state[LOOP_QUEUED] ? (state[LOOP_QIN] ? q1 : q0) : nullptr;
    return (int)state[LOOP_LEVEL] + 1;
}

// The remote push of the frontier from its queue (a distributed rank's level; the level
// and queue from the loop state), when queued and not longer than the `nrows` rows with
// remote entries (else bfs_push_rows).
extern "C" __global__ void __launch_bounds__(CTA_THREADS, 4)
bfs_push_remote(const ptr_t* __restrict__ indptr, const idx_t* __restrict__ indices,
                unsigned* out, const idx_t* q0, const idx_t* q1, const idx_t* __restrict__ levels,
                u64* ring, idx_t* __restrict__ big_u, ptr_t* __restrict__ big_p, long long big,
                u64* remote_st, long long nrows, const long long* __restrict__ state)
{
    const idx_t* q_in;
    const int level = state_frontier(state, q0, q1, &q_in);
    push_level<false>(indptr, indices, indptr, out, q_in, nullptr, (idx_t*)levels, nullptr,
                      ring, level, big_u, big_p, big, remote_st, nrows, nullptr);
}

// The remote push of a frontier not queued (after a pull) or longer than the `nrows` rows
// with remote entries (else bfs_push_remote's): one thread per row with entries (rows[i]),
// expanded when the row is in the frontier.  After a pull the frontier is the difference of
// the two bitmaps (the pull read the other one and wrote the state's current one, which the
// level's claims joined); a long queued frontier is the visited rows at the state's level
// (the visited bit first: an unvisited row's level may not be written yet, the first pull
// writing the -1s).  The bitmaps, a bit per vertex, mostly stay in L2; the levels do not.
extern "C" __global__ void __launch_bounds__(CTA_THREADS)
bfs_push_rows(const idx_t* __restrict__ rows, long long nrows, const ptr_t* __restrict__ indptr,
              const idx_t* __restrict__ indices, unsigned* out, const unsigned* vis0,
              const unsigned* vis1, const idx_t* q0, const idx_t* q1,
              const idx_t* __restrict__ levels, const u64* ring,
              const long long* __restrict__ state)
{
    const idx_t* q_in;
    const int level = state_frontier(state, q0, q1, &q_in);
    const u64* in_st = ring + 4 * ((level - 1) & (RING - 1));
    if (q_in != nullptr && (long long)(*((volatile const u64*)in_st)) <= nrows) return;
    const bool one = state[LOOP_CUR] != 0;
    const unsigned* vis = one ? vis1 : vis0;
    const unsigned* before = q_in == nullptr ? (one ? vis0 : vis1) : nullptr;
    const idx_t frontier = (idx_t)(level - 1);
    const long long stride = (long long)gridDim.x * CTA_THREADS;
    for (long long i = (long long)blockIdx.x * CTA_THREADS + threadIdx.x; i < nrows; i += stride) {
        const idx_t u = rows[i];
        const unsigned bit = 1u << ((unsigned)u & 31u);
        if (!(vis[u >> 5] & bit)) continue;
        if (before != nullptr ? (before[u >> 5] & bit) != 0u : levels[u] != frontier) continue;
        for (ptr_t p = indptr[u]; p < indptr[u + 1]; ++p) remote_visit(out, indices[p]);
    }
}

// Parents of the vertices claimed from other ranks' words (bfs_claim_mapped leaves them
// -1): for each row v (rows[i]) of the remote matrix with a level >= 1 and no parent, the
// first entry g whose level on its owner (glev: uint8 levels mod 256 when `wide` is 0,
// int32 else) is v's level - 1 gives the parent gid[g].  One thread per row with entries.
extern "C" __global__ void __launch_bounds__(CTA_THREADS)
bfs_remote_parents(const idx_t* __restrict__ rows, long long nrows,
                   const ptr_t* __restrict__ indptr, const idx_t* __restrict__ indices,
                   const void* __restrict__ glev, int wide, const idx_t* __restrict__ gid,
                   const idx_t* __restrict__ levels, idx_t* __restrict__ parents)
{
    const long long stride = (long long)gridDim.x * CTA_THREADS;
    for (long long i = (long long)blockIdx.x * CTA_THREADS + threadIdx.x; i < nrows;
         i += stride) {
        const idx_t v = rows[i];
        const idx_t lev = levels[v];
        if (lev < 1 || parents[v] != (idx_t)-1) continue;
        const int want = wide ? (int)(lev - 1) : (int)((lev - 1) & 255);
        for (ptr_t p = indptr[v]; p < indptr[v + 1]; ++p) {
            const idx_t g = indices[p];
            const int gl = wide ? ((const int*)glev)[g] : (int)((const unsigned char*)glev)[g];
            if (gl == want) {
                parents[v] = gid[g];
                break;
            }
        }
    }
}
#endif

// Push, second part: the hub chunks that bfs_push of the same level queued (count in ring
// slot [3]); one block per chunk of PUSH_BIG edges, grid-stride over the chunks.
template <bool LOOP>
__device__ __forceinline__ void push_big_level(const ptr_t* __restrict__ indptr,
                                               const idx_t* __restrict__ indices,
                                               const ptr_t* __restrict__ tindptr, unsigned* vis,
                                               const idx_t* __restrict__ big_u,
                                               const ptr_t* __restrict__ big_p,
                                               idx_t* __restrict__ q_out,
                                               idx_t* __restrict__ levels,
                                               idx_t* __restrict__ parents, u64* ring, int level,
                                               u64* remote_st, const long long* __restrict__ pmap)
{
#if REMOTE
    u64* out_st = remote_st;
    (void)ring; (void)levels; (void)level; (void)tindptr; (void)q_out; (void)parents;
    (void)pmap;
#else
    (void)remote_st;
    u64* out_st = ring + 4 * (level & (RING - 1));
    const idx_t lev = (idx_t)level;
    __shared__ idx_t s_q[PUSH_BIG];
    __shared__ unsigned s_n;
    __shared__ u64 s_base;
    u64 my_mf = 0, my_mu = 0;
#endif
    const long long nc = (long long)(*((volatile const u64*)(out_st + 3)));
    for (long long c = blockIdx.x; c < nc; c += gridDim.x) {
        const idx_t u = load<LOOP>(big_u + c);
        const ptr_t beg = load<LOOP>(big_p + c);
        const ptr_t e = indptr[u + 1];
        const ptr_t end = (e - beg > (ptr_t)PUSH_BIG) ? beg + (ptr_t)PUSH_BIG : e;
#if REMOTE
        block_expand_remote(beg, end, indices, vis);
#else
        block_expand(parent_id(u, pmap), beg, end, indices, vis, q_out, levels, parents,
                     indptr, tindptr, out_st, lev, my_mf, my_mu, s_q, &s_n, &s_base);
#endif
    }
#if !REMOTE
    block_add3(out_st, 0, my_mf, my_mu);
#endif
}

extern "C" __global__ void __launch_bounds__(CTA_THREADS, 4)
bfs_push_big(const ptr_t* __restrict__ indptr, const idx_t* __restrict__ indices,
             const ptr_t* __restrict__ tindptr, unsigned* vis,
             const idx_t* __restrict__ big_u, const ptr_t* __restrict__ big_p,
             idx_t* __restrict__ q_out, idx_t* __restrict__ levels,
             idx_t* __restrict__ parents, u64* ring, int level, u64* remote_st,
             const long long* __restrict__ pmap)
{
    push_big_level<false>(indptr, indices, tindptr, vis, big_u, big_p, q_out, levels, parents,
                          ring, level, remote_st, pmap);
}

// Pull (bottom-up) level: one warp per 32-vertex bitmap word, one lane per vertex.  An unvisited
// vertex with in-edges (its bit in `live`, see bfs_heads) scans its in-neighbours (row of A.T)
// against the visited bitmap of the previous levels (vis_cur, read-only here) and stops at the
// first hit, which is its parent.  The first in-neighbour and the row's start come from `heads`
// (bfs_heads: one coalesced load per warp instead of a scattered sector of tindices per lane and
// two 64-bit offsets); with the hub first in every row (csr_hub_first) that probe ends most
// scans.  The next PULL_SERIAL in-edges are scanned by the lane alone; longer remainders are
// scanned by the whole warp, 32 edges per step, one vertex after another.  The new bitmap word (old
// bits | found) goes to vis_next, so no atomics are needed and vertices found in this level never
// serve as parents in it.  A word whose live bits are all visited is copied without reading its
// rows.  With `fill` (the search's first pull, see bfs_reset), every vertex not visited before this
// level and not found in it gets -1.
template <bool LOOP>
__device__ __forceinline__ void pull_level(const ptr_t* __restrict__ tindptr,
                                           const idx_t* __restrict__ tindices,
                                           const ptr_t* __restrict__ indptr,
                                           const unsigned* __restrict__ live,
                                           const Head* __restrict__ heads,
                                           const ptr_t* __restrict__ wbase,
                                           const unsigned* __restrict__ vis_cur,
                                           unsigned* __restrict__ vis_next,
                                           idx_t* __restrict__ levels, idx_t* __restrict__ parents,
                                           u64* ring, int level, long long n, long long nwords,
                                           const long long* __restrict__ pmap, int fill)
{
    const int lane = threadIdx.x & 31;
    u64* out_st = ring + 4 * (level & (RING - 1));
    if (blockIdx.x == 0 && threadIdx.x < 4) ring[4 * ((level + 1) & (RING - 1)) + threadIdx.x] = 0;
    const idx_t lev = (idx_t)level;
    const long long warp0 = ((long long)blockIdx.x * CTA_THREADS + threadIdx.x) >> 5;
    const long long nwarps = ((long long)gridDim.x * CTA_THREADS) >> 5;
    u64 my_nf = 0, my_mf = 0, my_mu = 0;

    for (long long w = warp0; w < nwords; w += nwarps) {
        const unsigned word = load<LOOP>(vis_cur + w);
        const long long v = w * 32 + lane;
        const bool todo = ((live[w] & ~word) >> lane) & 1u;  // no live bit at v >= n
        const bool unset = fill && v < n && !((word >> lane) & 1u);
        if (!__any_sync(0xffffffffu, todo)) {
            if (lane == 0) vis_next[w] = word;
            if (unset) set_unreached(v, levels, parents);
            continue;
        }
        ptr_t beg = 0, end = 0, din = 0;
        idx_t par = -1;
        bool found = false;
        if (todo) {
            const Head h = heads[v];
            const ptr_t b0 = wbase[w];
            const ptr_t b = h.offset != NO_OFFSET ? b0 + (ptr_t)h.offset : tindptr[v];
            ptr_t e;
            if (lane == 31 || v + 1 == n) {
                e = wbase[w + 1];
            } else {
                const unsigned o = heads[v + 1].offset;
                e = o != NO_OFFSET ? b0 + (ptr_t)o : tindptr[v + 1];
            }
            din = e - b;
            if ((load<LOOP>(vis_cur + (h.first >> 5)) >> ((unsigned)h.first & 31u)) & 1u) {
                found = true;
                par = h.first;
            } else {
                beg = b + 1;
                end = e;
            }
            const ptr_t lim = (end - beg > PULL_SERIAL) ? beg + PULL_SERIAL : end;
            for (; !found && beg < lim; ++beg) {
                const idx_t u = tindices[beg];
                if ((load<LOOP>(vis_cur + (u >> 5)) >> ((unsigned)u & 31u)) & 1u) {
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
                    h = (load<LOOP>(vis_cur + (uu >> 5)) >> ((unsigned)uu & 31u)) & 1u;
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
            store_level(levels, v, lev);
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
        } else if (unset) {
            set_unreached(v, levels, parents);
        }
    }
    block_add3(out_st, my_nf, my_mf, my_mu);
}

extern "C" __global__ void __launch_bounds__(CTA_THREADS, 8)
bfs_pull(const ptr_t* __restrict__ tindptr, const idx_t* __restrict__ tindices,
         const ptr_t* __restrict__ indptr, const unsigned* __restrict__ live,
         const Head* __restrict__ heads, const ptr_t* __restrict__ wbase,
         const unsigned* __restrict__ vis_cur, unsigned* __restrict__ vis_next,
         idx_t* __restrict__ levels, idx_t* __restrict__ parents,
         u64* ring, int level, long long n, long long nwords, const long long* __restrict__ pmap,
         int fill)
{
    pull_level<false>(tindptr, tindices, indptr, live, heads, wbase, vis_cur, vis_next, levels,
                      parents, ring, level, n, nwords, pmap, fill);
}

// The pull's tables of a pattern, one thread per vertex: the heads (see Head; offsets of
// `limit` or more are NO_OFFSET: NO_OFFSET itself, or less to test the fallback), the word
// bases wbase[w] = tindptr[32 w] (the caller sets wbase[nwords] = tindptr[n]) and the live
// bitmap (bit v set when row v of A.T is not empty, so a pull can find v), a word per warp.
extern "C" __global__ void __launch_bounds__(CTA_THREADS)
bfs_heads(const ptr_t* __restrict__ tindptr, const idx_t* __restrict__ tindices, long long n,
          unsigned limit, Head* __restrict__ heads, ptr_t* __restrict__ wbase,
          unsigned* __restrict__ live)
{
    const int lane = threadIdx.x & 31;
    const long long stride = (long long)gridDim.x * CTA_THREADS;  // whole words per step
    for (long long v0 = (long long)blockIdx.x * CTA_THREADS + (threadIdx.x & ~31); v0 < n;
         v0 += stride) {
        const long long v = v0 + lane;
        bool nonempty = false;
        if (v < n) {
            const ptr_t beg = tindptr[v];
            const unsigned long long off = (unsigned long long)(beg - tindptr[v0]);
            nonempty = tindptr[v + 1] > beg;
            heads[v] = Head{nonempty ? tindices[beg] : (idx_t)-1,
                            off < limit ? (unsigned)off : NO_OFFSET};
            if (lane == 0) wbase[v0 >> 5] = beg;
        }
        const unsigned bits = __ballot_sync(0xffffffffu, nonempty);
        if (lane == 0) live[v0 >> 5] = bits;
    }
}

// After a pull level, when the next level pushes: the queue of the vertices found by the
// pull (bits set in vis_new but not in vis_old), one thread per bitmap word, positions from
// a warp prefix sum and one atomicAdd per warp on ring slot [3] of `level`.
template <bool LOOP>
__device__ __forceinline__ void compact_level(const unsigned* __restrict__ vis_new,
                                              const unsigned* __restrict__ vis_old,
                                              idx_t* __restrict__ q_out, u64* ring, int level,
                                              long long nwords)
{
    u64* st = ring + 4 * (level & (RING - 1));
    const int lane = threadIdx.x & 31;
    const long long stride = (long long)gridDim.x * CTA_THREADS;
    const long long first = (long long)blockIdx.x * CTA_THREADS + threadIdx.x;
    for (long long w0 = first - lane; w0 < nwords; w0 += stride) {
        const long long w = w0 + lane;
        unsigned x = (w < nwords) ? (load<LOOP>(vis_new + w) & ~load<LOOP>(vis_old + w)) : 0u;
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

extern "C" __global__ void __launch_bounds__(CTA_THREADS)
bfs_compact(const unsigned* __restrict__ vis_new, const unsigned* __restrict__ vis_old,
            idx_t* __restrict__ q_out, u64* ring, int level, long long nwords)
{
    compact_level<false>(vis_new, vis_old, q_out, ring, level, nwords);
}

// Level 0 (thread t0 of `stride`; bfs_reset's launch, or bfs_levels' first): the source's
// level 0 and parent, visited bitmap = {source}, queue = [source], ring zeroed except slot
// 0 = {1, out-degree, in-degree} of the source.  The other vertices' levels and parents
// are written once, when found or by the first pull (`fill`), or by bfs_unreached if they
// are read before any pull.
__device__ __forceinline__ void reset_search(const ptr_t* __restrict__ indptr,
                                             const ptr_t* __restrict__ tindptr, unsigned* vis,
                                             idx_t* q0, idx_t* levels, idx_t* parents,
                                             u64* ring, idx_t source, long long nwords,
                                             const long long* __restrict__ pmap, long long t0,
                                             long long stride)
{
    if (t0 == 0 && source >= 0) {
        store_level(levels, source, 0);
#if WITH_PARENTS
        parents[source] = parent_id(source, pmap);
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

extern "C" __global__ void
bfs_reset(const ptr_t* __restrict__ indptr, const ptr_t* __restrict__ tindptr,
          unsigned* vis, idx_t* q0, idx_t* levels, idx_t* parents, u64* ring, idx_t source,
          long long nwords, const long long* __restrict__ pmap)
{
    reset_search(indptr, tindptr, vis, q0, levels, parents, ring, source, nwords, pmap,
                 (long long)blockIdx.x * blockDim.x + threadIdx.x,
                 (long long)gridDim.x * blockDim.x);
}

// Every vertex not visited gets level and parent -1 (a search read before its first pull).
extern "C" __global__ void __launch_bounds__(CTA_THREADS)
bfs_unreached(const unsigned* __restrict__ vis, idx_t* __restrict__ levels,
              idx_t* __restrict__ parents, long long n)
{
    const long long stride = (long long)gridDim.x * CTA_THREADS;
    for (long long v = (long long)blockIdx.x * CTA_THREADS + threadIdx.x; v < n; v += stride)
        if (!((vis[v >> 5] >> ((unsigned)v & 31u)) & 1u)) set_unreached(v, levels, parents);
}

#if !REMOTE
// The level loop on the device (spbfs.gpu.bfs.BitmapSearch.run): the host launches, without
// waiting, rounds of bfs_levels (push levels) and bfs_pull_step (one pull level each); each
// launch reads the loop state, applies Beamer's rule to the ring slot of the last level as
// the host's loop does (spbfs.algorithms._level_loop), and runs its level(s) only when the
// rule picks its direction (else it exits at once); the host reads the state once per round.
//
// Read the last level's ring slot into the policy (level 0's is {1, the source's degrees}:
// no rule there, then prev_nf = 1, as the host's loop) and choose the next level's
// direction; false when the frontier is empty (the search is done).
__device__ __forceinline__ bool next_level(LoopState& q, const u64* ring, long long n,
                                           double alpha, double beta, int direction)
{
    const volatile u64* st = ring + 4 * (q.level & (RING - 1));
    q.mu -= (long long)st[2];
    q.prev_nf = q.nf;
    q.nf = (long long)st[0];
    q.mf = (long long)st[1];
    if (q.nf == 0) return false;
    if (direction == DIRECTION_AUTO && q.level > 0)
        q.pulling = q.pulling ? (double)q.nf >= (double)n / beta
                              : (double)q.mf > (double)q.mu / alpha && q.nf > q.prev_nf;
    return true;
}

// One pull level of the device's loop, when the rule picks a pull (else it exits): the
// bitmaps, level and fill from the state, which the last block to finish advances.
// `dist` > 0 (a distributed rank's level, in bfs_levels too): run no level beyond level
// `dist`, and an empty frontier does not end the search (bfs_dist_step).
extern "C" __global__ void __launch_bounds__(CTA_THREADS, 8)
bfs_pull_step(const ptr_t* __restrict__ tindptr, const idx_t* __restrict__ tindices,
              const ptr_t* __restrict__ indptr, const unsigned* __restrict__ live,
              const Head* __restrict__ heads, const ptr_t* __restrict__ wbase,
              unsigned* vis0, unsigned* vis1, idx_t* __restrict__ levels,
              idx_t* __restrict__ parents, u64* ring, long long n, long long nwords,
              const long long* __restrict__ pmap, long long* state, double alpha,
              double beta, int direction, int dist)
{
    __shared__ bool s_last;
    if (state[LOOP_DONE]) return;
    long long level0;
    int cur, fill;
    {
        LoopState q = load_state(state);
        if (dist && q.level >= dist) return;  // a distributed rank's level ran already
        if (!next_level(q, ring, n, alpha, beta, direction)) {
            // a distributed rank's empty frontier is not the end (bfs_dist_step)
            if (!dist && blockIdx.x == 0 && threadIdx.x == 0) state[LOOP_DONE] = 1;
            return;
        }
        if (!q.pulling) return;
        level0 = q.level;
        cur = q.cur;
        fill = q.unfilled;
    }
    const int level = (int)level0 + 1;
    pull_level<false>(tindptr, tindices, indptr, live, heads, wbase, cur ? vis1 : vis0,
                      cur ? vis0 : vis1, levels, parents, ring, level, n, nwords, pmap, fill);
    // the last block to finish moves the state on (every block has read it by then); it
    // reads the state again rather than keep it in registers through the pull
    __threadfence();
    if (threadIdx.x == 0)
        s_last = atomicAdd((unsigned long long*)(state + LOOP_BLOCKS_DONE), 1ull) ==
                 (unsigned long long)gridDim.x - 1;
    __syncthreads();
    if (s_last && threadIdx.x == 0) {
        LoopState q = load_state(state);
        next_level(q, ring, n, alpha, beta, direction);
        q.level = level;  // the policy reads this level's slot next
        q.cur = 1 - q.cur;
        q.queued = false;
        q.unfilled = false;
        q.pulled |= 1ll << (level & 63);
        store_state(state, q);
        state[LOOP_BLOCKS_DONE] = 0;
    }
}
#endif

#if LEVEL_LOOP
#include <cooperative_groups.h>

// The push levels of the device's loop (module compiled with LEVEL_LOOP, launched
// cooperatively with exactly the blocks the device holds at once): level after level while
// the rule picks a push, at most `max_levels`, each a compaction after a pull, a push and its
// hub chunks (the bodies of bfs_compact, bfs_push and bfs_push_big) separated by grid-wide
// barriers; it exits at once when the rule picks a pull.
extern "C" __global__ void __launch_bounds__(CTA_THREADS, LOOP_BLOCKS)
bfs_levels(const ptr_t* __restrict__ indptr, const idx_t* __restrict__ indices,
           const ptr_t* __restrict__ tindptr, unsigned* vis0, unsigned* vis1, idx_t* q0,
           idx_t* q1, idx_t* levels, idx_t* parents, u64* ring, idx_t* big_u, ptr_t* big_p,
           long long big_cap, int use_big, long long n, long long nwords,
           const long long* __restrict__ pmap, long long* state, double alpha, double beta,
           int direction, int max_levels, int sms, int dist, int reset, idx_t source)
{
    cooperative_groups::grid_group grid = cooperative_groups::this_grid();
    if (reset) {  // the search's first launch does bfs_reset's work and writes the loop's
        // fresh state: no launch and no copy from the host before the first level
        const long long t0 = (long long)blockIdx.x * CTA_THREADS + threadIdx.x;
        reset_search(indptr, tindptr, vis0, q0, levels, parents, ring, source, nwords, pmap, t0,
                     (long long)gridDim.x * CTA_THREADS);
        if (t0 == 0) fresh_state(state, (long long)indptr[n], direction == DIRECTION_PULL);
        grid.sync();
    }
    if (state[LOOP_DONE]) return;
    LoopState q = load_state(state), before = q;
    int steps = 0;
    bool more = true;
    while ((!dist || q.level < dist) && (more = next_level(q, ring, n, alpha, beta, direction)) &&
           !q.pulling && steps < max_levels) {
        ++steps;
        const int level = (int)q.level + 1;
        unsigned* vc = q.cur ? vis1 : vis0;
        idx_t* qi = q.qin ? q1 : q0;
        idx_t* qo = q.qin ? q0 : q1;
        if (!q.queued) {  // the last pull's finds (vc new, the other bitmap old) as the queue
            compact_level<true>(vc, q.cur ? vis0 : vis1, qi, ring, level - 1, nwords);
            q.queued = true;
            grid.sync();
        }
        // A frontier queued in fewer blocks than multiprocessors sends its lists of a
        // block's size or more to the grid-wide chunks too, when they fit
        // (BitmapSearch._spread).
        const long long spread = q.mf / CTA_THREADS + q.mf / PUSH_BIG + 1;
        const long long big = !use_big ? 0x7fffffffffffffffll
                              : (q.nf + CTA_THREADS - 1) / CTA_THREADS < sms && spread <= big_cap
                                    ? CTA_THREADS : PUSH_BIG;
        push_level<true>(indptr, indices, tindptr, vc, qi, qo, levels, parents, ring, level,
                         big_u, big_p, big, ring, 0, pmap);
        grid.sync();
        if (use_big && q.mf >= big) {
            push_big_level<true>(indptr, indices, tindptr, vc, big_u, big_p, qo, levels,
                                 parents, ring, level, ring, pmap);
            grid.sync();
        }
        q.level = level;
        q.qin = 1 - q.qin;
        q.pulled &= ~(1ll << (level & 63));  // the bit of level - 64 (an earlier round)
        before = q;  // the policy reads this level's slot next
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        if (!more && !dist) state[LOOP_DONE] = 1;
        if (steps) store_state(state, before);
    }
}
#endif

#if !REMOTE
// A distributed rank's levels (spbfs.dist.bfs through BitmapSearch.advance_auto): the loop
// state on the device throughout, so the host launches level after level without reading it.

// The search's current bitmap and queue, whether the queue holds the frontier, and the level,
// from the loop state.
struct Current {
    unsigned* vis;
    idx_t* queue;
    int queued;
    int level;
};

__device__ __forceinline__ Current current(const long long* state, unsigned* vis0,
                                           unsigned* vis1, idx_t* q0, idx_t* q1)
{
    return Current{state[LOOP_CUR] ? vis1 : vis0, state[LOOP_QIN] ? q1 : q0,
                   (int)(state[LOOP_QUEUED] != 0), (int)state[LOOP_LEVEL]};
}

// After the level's bfs_levels and bfs_pull_step: the words a rank contributes to the level's
// OR over the ranks, out[i] = the current bitmap's word word0 + i (the delegates), and in
// out[nw] (zeroed by the host) bit 0 if this rank found a vertex in the level (its ring slot,
// before the claims) or sent a bit (any word of `sent`), bit 1 if the last level's frontier
// had a vertex here (its slot, claims included: the search's depth).  Then (one thread) when
// neither kernel ran (an empty frontier on this rank), the state moves to level `expected`
// anyway, with an empty queue and zeroed ring slots, so that the vertices other ranks found
// join that level: a rank's empty frontier is not the end of the search.
extern "C" __global__ void __launch_bounds__(CTA_THREADS)
bfs_dist_words(unsigned* vis0, unsigned* vis1, long long* state, u64* ring, long long word0,
               long long nw, const unsigned* __restrict__ sent, long long nsent, unsigned* out,
               long long n, int expected, double alpha, double beta, int direction)
{
    const unsigned* vis = state[LOOP_CUR] ? vis1 : vis0;
    const long long stride = (long long)gridDim.x * CTA_THREADS;
    const long long t0 = (long long)blockIdx.x * CTA_THREADS + threadIdx.x;
    for (long long i = t0; i < nw; i += stride) out[i] = vis[word0 + i];
    bool any = false;
    for (long long i = t0; i < nsent; i += stride) any |= sent[i] != 0u;
    if (t0 == 0) {
        LoopState q = load_state(state);
        if (ring[4 * (q.level & (RING - 1))] != 0) any = true;  // 0 when nothing ran
        if (ring[4 * ((expected - 1) & (RING - 1))] != 0) atomicOr(out + nw, 2u);
        if (q.level < expected) {
            next_level(q, ring, n, alpha, beta, direction);  // reads the empty slot
            q.level = expected;
            q.queued = true;
            q.pulling = direction == 2;  // "pull" fixes it (spbfs.gpu.bfs._DIRECTIONS)
            // the level is recorded as the direction the rank would have taken: a fixed
            // "pull" stays a pull on a rank with nothing local to pull
            if (q.pulling)
                q.pulled |= 1ll << (expected & 63);
            else
                q.pulled &= ~(1ll << (expected & 63));
            u64* st = ring + 4 * (expected & (RING - 1));
            st[0] = st[1] = st[2] = st[3] = 0;
            u64* nx = ring + 4 * ((expected + 1) & (RING - 1));
            nx[0] = nx[1] = nx[2] = nx[3] = 0;
            store_state(state, q);
        }
    }
    if (__syncthreads_or(any) && threadIdx.x == 0) atomicOr(out + nw, 1u);
}

// Vertices found elsewhere in the state's level (the words other ranks' remote pushes set):
// bit b of word w stands for vertex ids[32 w + b] (-1: a padding bit); each such vertex is
// claimed if unvisited, with parent -1 (bfs_remote_parents finds it at the end), counted into
// the level's ring slot and, when the frontier is queued, appended to the queue.  One thread
// per word.
extern "C" __global__ void __launch_bounds__(CTA_THREADS)
bfs_claim_mapped(const unsigned* __restrict__ words, long long nw,
                 const idx_t* __restrict__ ids, unsigned* vis0, unsigned* vis1, idx_t* q0,
                 idx_t* q1, idx_t* __restrict__ levels, idx_t* __restrict__ parents,
                 const ptr_t* __restrict__ indptr, const ptr_t* __restrict__ tindptr, u64* ring,
                 const long long* __restrict__ state)
{
    const Current c = current(state, vis0, vis1, q0, q1);
    u64* out_st = ring + 4 * (c.level & (RING - 1));
    const idx_t lev = (idx_t)c.level;
    const long long stride = (long long)gridDim.x * CTA_THREADS;
    u64 my_nf = 0, my_mf = 0, my_mu = 0;
    for (long long w = (long long)blockIdx.x * CTA_THREADS + threadIdx.x; w < nw; w += stride) {
        for (unsigned x = words[w]; x; x &= x - 1) {
            const idx_t v = ids[32 * w + __ffs(x) - 1];
            if (v < 0) continue;
            if (c.queued)
                push_visit((idx_t)-1, v, c.vis, c.queue, levels, parents, indptr, tindptr,
                           out_st, lev, my_mf, my_mu);
            else if (claim((idx_t)-1, v, c.vis, levels, parents, indptr, tindptr, lev, my_mf,
                           my_mu))
                my_nf += 1;
        }
    }
    block_add3(out_st, my_nf, my_mf, my_mu);
}

// Bitmap words found elsewhere (the delegates' visited bits OR-reduced over the ranks), ORed
// into the current bitmap from word0: their new vertices get the state's level and parent -1
// (a rank that found one through its own edges holds its parent: spbfs.dist settles it by a
// max over the ranks), are counted into the ring slot and, when the frontier is queued,
// appended to the queue.  One thread per word, so plain stores suffice.
extern "C" __global__ void __launch_bounds__(CTA_THREADS)
bfs_claim_words(const unsigned* __restrict__ words, long long nw, long long word0,
                unsigned* vis0, unsigned* vis1, idx_t* q0, idx_t* q1,
                idx_t* __restrict__ levels, idx_t* __restrict__ parents,
                const ptr_t* __restrict__ indptr,
                const ptr_t* __restrict__ tindptr, u64* ring, const long long* __restrict__ state)
{
    const Current c = current(state, vis0, vis1, q0, q1);
    u64* out_st = ring + 4 * (c.level & (RING - 1));
    const long long stride = (long long)gridDim.x * CTA_THREADS;
    u64 my_nf = 0, my_mf = 0, my_mu = 0;
    for (long long w0 = (long long)blockIdx.x * CTA_THREADS; w0 < nw; w0 += stride) {
        const long long w = w0 + threadIdx.x;
        unsigned x = 0;
        if (w < nw) {
            const unsigned old = c.vis[word0 + w];
            x = words[w] & ~old;
            if (x) c.vis[word0 + w] = old | x;
        }
        const unsigned cnt = __popc(x);
        u64 base = 0;
        if (c.queued && cnt) base = atomicAdd(out_st, (u64)cnt);
        if (!c.queued) my_nf += cnt;
        while (x) {
            const idx_t v = (idx_t)((word0 + w) * 32 + __ffs(x) - 1);
            x &= x - 1;
            store_level(levels, v, (idx_t)c.level);
#if WITH_PARENTS
            parents[v] = (idx_t)-1;
#else
            (void)parents;
#endif
            add_degrees(v, indptr, tindptr, my_mf, my_mu);
            if (c.queued) c.queue[base++] = v;
        }
    }
    block_add3(out_st, my_nf, my_mf, my_mu);
}
#endif
