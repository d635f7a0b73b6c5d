// spbfs GPU peeling: remove the active vertices whose count in either of two degree arrays
// falls to zero, round by round (Kahn's levels), with a worklist instead of a product a round.
//
// Compiled by spbfs.gpu.kernels with these lines prepended:
//   typedef <int|long long> idx_t;   column indices of both CSRs
//   typedef <int|long long> ptr_t;   row offsets of both CSRs
// The queue holds the removed vertices in round order; round r's are queue[lo, hi).  Work is
// spread by arcs, not by vertices (a hub's row over many threads): a thread takes an arc
// u -> v of a round-r vertex u, found by binary search in the prefix sum of the round's
// degrees.  With v still active it folds vals[u] into vals[v] (mode 1 min, 2 max, first
// CSR only), then takes one from v's count; the thread whose subtraction leaves the count at
// zero clears v's active byte (a compare-and-swap on its word: a vertex at zero in both
// arrays is queued once) and appends v with round r + 1.
//
// peel_arcs does one CSR's arcs of one round over the whole grid (the host makes the prefix
// sum and reads the queue's end after the round); peel_block runs round after round in one
// block of 1024 threads while a round holds at most 1024 vertices and `arc_limit` arcs (a
// deep DAG's many small rounds then cost barriers, not launches and host reads), and writes
// where it stopped.

#define PEEL_BLOCK 1024

__device__ __forceinline__ bool take_active(unsigned char* active, long long v)
{
    unsigned int* word = (unsigned int*)((size_t)(active + v) & ~(size_t)3);
    const unsigned int mask = 0xFFu << (((size_t)(active + v) & 3) * 8);
    unsigned int seen = *(volatile unsigned int*)word;
    while (seen & mask) {
        const unsigned int was = atomicCAS(word, seen, seen & ~mask);
        if (was == seen)
            return true;
        seen = was;
    }
    return false;
}

__device__ __forceinline__ void
drop_arc(long long u, long long v, long long r1, long long* deg, unsigned char* active,
         long long* vals, int mode, long long* queue, long long* rounds, long long* tail)
{
    if (!((volatile unsigned char*)active)[v])
        return;
    if (mode == 1)  // read in a later round: after a barrier or a launch
        atomicMin(vals + v, vals[u]);
    else if (mode == 2)
        atomicMax(vals + v, vals[u]);
    const unsigned long long before =
        atomicAdd((unsigned long long*)(deg + v), (unsigned long long)-1LL);
    if (before == 1ULL && take_active(active, v)) {
        const long long at = (long long)atomicAdd((unsigned long long*)tail, 1ULL);
        queue[at] = v;
        rounds[at] = r1;
    }
}

// The last j in [0, m) with offs[j] <= e: the item whose arcs hold e (an item without arcs
// shares its offset with the next one, so the last such j has arcs).
__device__ __forceinline__ long long
item_of(const long long* offs, long long m, long long e)
{
    long long a = 0, b = m - 1;
    while (a < b) {
        const long long mid = (a + b + 1) >> 1;
        if (offs[mid] <= e)
            a = mid;
        else
            b = mid - 1;
    }
    return a;
}

extern "C" __global__ void
peel_arcs(const ptr_t* __restrict__ ip, const idx_t* __restrict__ ix, long long* deg,
          unsigned char* active, long long* vals, int mode, long long* queue,
          long long* rounds, long long* tail, long long lo, long long m,
          const long long* __restrict__ offs, long long total, long long r1)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total;
         e += stride) {
        const long long j = item_of(offs, m, e);
        const long long u = queue[lo + j];
        const long long v = (long long)ix[(long long)ip[u] + (e - offs[j])];
        drop_arc(u, v, r1, deg, active, vals, mode, queue, rounds, tail);
    }
}

// Exclusive prefix sum over the block (PEEL_BLOCK threads, one value each); *total gets the
// sum.  warp_sums: 32 entries of shared memory.
__device__ __forceinline__ long long
block_scan(long long x, long long* warp_sums, long long* total)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    long long s = x;
    for (int d = 1; d < 32; d <<= 1) {
        const long long y = __shfl_up_sync(0xffffffffu, s, d);
        if (lane >= d)
            s += y;
    }
    if (lane == 31)
        warp_sums[warp] = s;
    __syncthreads();
    if (warp == 0) {
        long long w = warp_sums[lane];
        for (int d = 1; d < 32; d <<= 1) {
            const long long y = __shfl_up_sync(0xffffffffu, w, d);
            if (lane >= d)
                w += y;
        }
        warp_sums[lane] = w;
    }
    __syncthreads();
    const long long before = (warp ? warp_sums[warp - 1] : 0) + s - x;
    *total = warp_sums[31];
    __syncthreads();  // warp_sums free for the next scan
    return before;
}

__device__ __forceinline__ void
block_arcs(const ptr_t* __restrict__ ip, const idx_t* __restrict__ ix, long long* deg,
           unsigned char* active, long long* vals, int mode, long long* queue,
           long long* rounds, long long* tail, const long long* s_u, const long long* s_offs,
           long long m, long long total, long long r1)
{
    for (long long e = threadIdx.x; e < total; e += PEEL_BLOCK) {
        const long long j = item_of(s_offs, m, e);
        const long long u = s_u[j];
        const long long v = (long long)ix[(long long)ip[u] + (e - s_offs[j])];
        drop_arc(u, v, r1, deg, active, vals, mode, queue, rounds, tail);
    }
}

extern "C" __global__ void __launch_bounds__(PEEL_BLOCK)
peel_block(const ptr_t* __restrict__ ip0, const idx_t* __restrict__ ix0, long long* deg0,
           const ptr_t* __restrict__ ip1, const idx_t* __restrict__ ix1, long long* deg1,
           unsigned char* active, long long* vals, int mode, long long* queue,
           long long* rounds, long long* tail, long long lo, long long hi, long long r,
           long long cap, long long arc_limit, long long* stopped)
{
    __shared__ long long s_lo, s_hi, s_r;
    __shared__ long long warp_sums[32];
    __shared__ long long s_u[PEEL_BLOCK], s_offs0[PEEL_BLOCK], s_offs1[PEEL_BLOCK];
    const int t = threadIdx.x;
    if (t == 0) {
        s_lo = lo;
        s_hi = hi;
        s_r = r;
    }
    __syncthreads();
    while (true) {
        const long long a = s_lo, b = s_hi, rr = s_r, m = b - a;
        if (m <= 0 || m > PEEL_BLOCK || rr + 1 == cap)
            break;
        const long long u = t < m ? queue[a + t] : 0;
        const long long d0 = t < m ? (long long)ip0[u + 1] - (long long)ip0[u] : 0;
        const long long d1 = t < m && ip1 ? (long long)ip1[u + 1] - (long long)ip1[u] : 0;
        long long total0, total1;
        const long long o0 = block_scan(d0, warp_sums, &total0);
        const long long o1 = block_scan(d1, warp_sums, &total1);
        if (total0 + total1 > arc_limit)
            break;  // the grid takes this round
        s_u[t] = u;
        s_offs0[t] = o0;
        s_offs1[t] = o1;
        __syncthreads();
        block_arcs(ip0, ix0, deg0, active, vals, mode, queue, rounds, tail, s_u, s_offs0, m,
                   total0, rr + 1);
        if (ip1)
            block_arcs(ip1, ix1, deg1, active, vals, 0, queue, rounds, tail, s_u, s_offs1, m,
                       total1, rr + 1);
        __syncthreads();  // every append of this round is in the queue
        if (t == 0) {
            s_lo = b;
            s_hi = (long long)atomicAdd((unsigned long long*)tail, 0ULL);
            s_r = rr + 1;
        }
        __syncthreads();
    }
    if (t == 0) {
        stopped[0] = s_lo;
        stopped[1] = s_hi;
        stopped[2] = s_r;
    }
}

// ---------------------------------------------------------------------------- any order
// peel_any: every round in one launch, without rounds in lock step.  A warp takes the next
// queue position (a shared counter), waits until that slot is written and subtracts the
// arcs its item names: the item `u | c << 32` is chunk c of vertex u's rows, ANY_CHUNK arcs
// (a pass of the warp, ANY_BATCH arcs a lane).  A vertex is queued as its chunk 0 by the
// thread whose subtraction leaves a count at zero, so each follows the vertices that
// brought it there; the warp that takes a chunk 0 of a longer row queues its other chunks
// first, so a hub's row spreads over as many warps as it has chunks while a small row costs
// one warp, not a block.  A vertex's round is one more than the largest round among the
// vertices whose arcs counted against it (`reach`, an atomic maximum made visible before
// the count falls): Kahn's levels where every count is the number of arcs from removed
// vertices.  The warp that takes a chunk 0 reads the vertex's round from `reach` and writes
// it to the slot's `rounds` (the slots given at launch hold theirs in `reach` plus
// ANY_LAUNCHED, which no arc's round reaches, and take their fold values from `vals0`, the
// caller's, which the one-CSR path leaves as they are: an arc between two of them changes
// neither; a self-loop is never taken, so a long row's chunks read its round too), so the
// thread that queues a vertex only reserves the slot and stores the vertex, after a fence:
// the chain from one vertex's count at zero to the next's is as few dependent memory trips
// as it can be.  With one CSR the launcher puts the inactive vertices' counts out of reach
// and sets the active bytes afterwards, so no target's byte is read; with two, a target
// must be active, and the compare-and-swap on its byte queues a vertex at zero in both
// once.  A slot holds -1 until written.  A warp adds the items it has done to `done` when it
// first finds its slot unwritten (and before it ends); the one that leaves `done` equal to
// `tail` (nothing in work, so nothing can come) raises `finished`, which ends the warps still
// waiting.  Each counter sits on its own 128-byte line (ANY_LINE words apart): thousands of
// waiting warps read them, and a shared line would queue the workers' atomics behind the
// reads.

#define ANY_LINE 16
#define ANY_CHECK 16
#define ANY_SLEEP_MAX 128
#define ANY_BATCH 8
#define ANY_CHUNK (32 * ANY_BATCH)
#define ANY_VERTEX 0xFFFFFFFFLL
#define ANY_LAUNCHED (1LL << 40)

__device__ __forceinline__ void release_fence()
{
    asm volatile("fence.acq_rel.gpu;" ::: "memory");
}

// A warp's pass over arcs [first, end) of one CSR, ANY_BATCH arcs a lane: their folds and
// rounds sent together, one fence, then their counts' subtractions in flight together; the
// vertices the warp brings to zero take their queue slots with one atomic.  `checked`: two
// CSRs, the active bytes read and taken (above).
__device__ __forceinline__ void
warp_arcs_any(const idx_t* __restrict__ ix, long long u, long long first, long long end,
              long long r1, long long fold_value, long long* deg, unsigned char* active,
              long long* vals, int mode, long long* reach, long long* queue, long long* tail,
              bool checked)
{
    const int lane = threadIdx.x & 31;
    long long v[ANY_BATCH];
#pragma unroll
    for (int j = 0; j < ANY_BATCH; ++j) {
        const long long e = first + 32 * j + lane;
        v[j] = e < end ? (long long)ix[e] : -1;
        if (v[j] == u)  // a self-loop: u is out already (and its other chunks read reach[u])
            v[j] = -1;
    }
    if (checked)
#pragma unroll
        for (int j = 0; j < ANY_BATCH; ++j)
            if (v[j] >= 0 && !((volatile unsigned char*)active)[v[j]])
                v[j] = -1;
#pragma unroll
    for (int j = 0; j < ANY_BATCH; ++j) {
        if (v[j] < 0)
            continue;
        if (mode == 1)
            atomicMin(vals + v[j], fold_value);
        else if (mode == 2)
            atomicMax(vals + v[j], fold_value);
        atomicMax(reach + v[j], r1);
    }
    release_fence();  // the folds and the rounds before the counts
    unsigned long long before[ANY_BATCH];
#pragma unroll
    for (int j = 0; j < ANY_BATCH; ++j)
        before[j] = v[j] < 0 ? 0ULL
                             : atomicAdd((unsigned long long*)(deg + v[j]),
                                         (unsigned long long)-1LL);
    int zeros = 0;
#pragma unroll
    for (int j = 0; j < ANY_BATCH; ++j) {
        bool zero = before[j] == 1ULL;
        if (zero && checked)
            zero = take_active(active, v[j]);
        if (!zero)
            v[j] = -1;
        zeros += zero;
    }
    int below = zeros;  // the warp's zeros up to this lane, one atomic for all of them
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
        const int other = __shfl_up_sync(0xffffffffu, below, d);
        if (lane >= d)
            below += other;
    }
    const int total = __shfl_sync(0xffffffffu, below, 31);
    if (!total)
        return;
    long long at = 0;
    if (lane == 31)
        at = (long long)atomicAdd((unsigned long long*)tail, (unsigned long long)total);
    at = __shfl_sync(0xffffffffu, at, 31) + below - zeros;
    if (!zeros)
        return;
    release_fence();
#pragma unroll
    for (int j = 0; j < ANY_BATCH; ++j)
        if (v[j] >= 0)
            ((volatile long long*)queue)[at++] = v[j];
}

// Add a warp's done items to `done` (after its appends); the one that leaves it equal to
// `tail` raises `finished`.
__device__ __forceinline__ void
publish_done(long long* done, long long* tail, volatile long long* finished, long long mine)
{
    release_fence();
    const long long now = (long long)atomicAdd((unsigned long long*)done,
                                               (unsigned long long)mine) + mine;
    release_fence();  // tail read after the count
    if (now == ((volatile long long*)tail)[0])
        *finished = 1;  // nothing in work: no slot will be written again
}

extern "C" __global__ void
peel_any(const ptr_t* __restrict__ ip0, const idx_t* __restrict__ ix0, long long* deg0,
         const ptr_t* __restrict__ ip1, const idx_t* __restrict__ ix1, long long* deg1,
         unsigned char* active, long long* vals, const long long* vals0, int mode,
         long long* reach, long long* queue, long long* rounds, long long* counters,
         long long slots)
{
    // counters, ANY_LINE words apart: the next position to take, tail (slots reserved),
    // slots done, finished, overflow (a vertex given twice: more chunks than slots)
    long long* head = counters;
    long long* tail = counters + ANY_LINE;
    long long* done = counters + 2 * ANY_LINE;
    volatile long long* finished = counters + 3 * ANY_LINE;
    const int lane = threadIdx.x & 31;
    long long mine = 0;  // items done and not yet added to `done` (lane 0's)
    while (true) {
        long long item = -1, pos = 0;
        if (lane == 0) {
            pos = (long long)atomicAdd((unsigned long long*)head, 1ULL);
            unsigned int sleep = 32;
            for (int spins = 1; pos < slots; ++spins) {
                item = ((volatile long long*)queue)[pos];
                if (item >= 0)
                    break;
                if (mine) {
                    publish_done(done, tail, finished, mine);
                    mine = 0;
                }
                if (spins % ANY_CHECK == 0 && *finished)
                    break;
                __nanosleep(sleep);
                sleep = sleep < ANY_SLEEP_MAX ? 2 * sleep : sleep;
            }
            if (item < 0 && mine)
                publish_done(done, tail, finished, mine);
            release_fence();
        }
        item = __shfl_sync(0xffffffffu, item, 0);
        if (item < 0)
            return;
        pos = __shfl_sync(0xffffffffu, pos, 0);
        const long long u = item & ANY_VERTEX, c = item >> 32;
        const long long b0 = (long long)ip0[u], e0 = (long long)ip0[u + 1];
        const long long b1 = ip1 ? (long long)ip1[u] : 0, e1 = ip1 ? (long long)ip1[u + 1] : 0;
        const long long seen = __ldcg(reach + u);
        const bool launched = seen >= ANY_LAUNCHED;
        const long long r = launched ? seen - ANY_LAUNCHED : seen;
        const long long fold_value = mode ? __ldcg((launched ? vals0 : vals) + u) : 0;
        if (c == 0) {
            const long long longest = max(e0 - b0, e1 - b1);
            long long more = longest > ANY_CHUNK ? (longest - 1) / ANY_CHUNK : 0;
            long long at = 0;
            if (lane == 0) {
                rounds[pos] = r;
                if (more)
                    at = (long long)atomicAdd((unsigned long long*)tail,
                                              (unsigned long long)more);
                if (at + more > slots) {  // only a vertex given twice at launch: flagged
                    counters[4 * ANY_LINE] = 1;
                    mine += more;  // the slots are counted done, never written
                    more = 0;
                }
            }
            at = __shfl_sync(0xffffffffu, at, 0);
            more = __shfl_sync(0xffffffffu, more, 0);
            for (long long i = lane; i < more; i += 32)
                ((volatile long long*)queue)[at + i] = u | ((i + 1) << 32);
        }
        const long long first0 = b0 + c * ANY_CHUNK, first1 = b1 + c * ANY_CHUNK;
        if (first0 < e0)
            warp_arcs_any(ix0, u, first0, min(e0, first0 + ANY_CHUNK), r + 1, fold_value,
                          deg0, active, vals, mode, reach, queue, tail, ip1 != 0);
        if (first1 < e1)
            warp_arcs_any(ix1, u, first1, min(e1, first1 + ANY_CHUNK), r + 1, 0, deg1,
                          active, vals, 0, reach, queue, tail, true);
        __syncwarp();  // every lane's appends made before lane 0 counts the item done
        if (lane == 0)
            ++mine;
    }
}
