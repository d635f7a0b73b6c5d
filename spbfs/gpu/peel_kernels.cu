// spbfs GPU peeling: remove the active vertices whose count in either of two degree arrays
// falls to zero, round by round (Kahn's levels), with a worklist instead of a product a round.
//
// Compiled by spbfs.gpu.kernels with these lines prepended:
//   typedef <int|long long> idx_t;   column indices of both CSRs
//   typedef <int|long long> ptr_t;   row offsets of both CSRs
// The queue holds the removed vertices in round order; round r's are queue[lo, hi).  A
// warp takes a vertex u of round r: for each arc u -> v of the first CSR (then the second)
// with v still active, it folds vals[u] into vals[v] (mode 1 min, 2 max, first CSR only),
// then takes one from v's count; the thread whose subtraction leaves the count at zero
// clears v's active byte (a compare-and-swap on its word: a vertex at zero in both arrays
// is queued once) and appends v with round r + 1.
//
// peel_round does one round over the whole grid (the host reads the queue's end after
// it); peel_block runs round after round in one block of warps while a round holds at
// most `limit` vertices (a deep DAG's many small rounds then cost a barrier each, not a
// launch and a host read), and writes where it stopped.

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
drop_arcs(long long u, long long r1, int lane, int width, const ptr_t* __restrict__ ip,
          const idx_t* __restrict__ ix, long long* deg, unsigned char* active,
          long long* vals, int mode, long long* queue, long long* rounds, long long* tail)
{
    const long long end = (long long)ip[u + 1];
    for (long long p = (long long)ip[u] + lane; p < end; p += width) {
        const long long v = (long long)ix[p];
        if (!((volatile unsigned char*)active)[v])
            continue;
        if (mode) {
            if (mode == 1)
                atomicMin(vals + v, vals[u]);
            else
                atomicMax(vals + v, vals[u]);
            __threadfence();  // the fold lands before the count that frees v
        }
        const unsigned long long before =
            atomicAdd((unsigned long long*)(deg + v), (unsigned long long)-1LL);
        if (before == 1ULL && take_active(active, v)) {
            const long long at = (long long)atomicAdd((unsigned long long*)tail, 1ULL);
            queue[at] = v;
            rounds[at] = r1;
        }
    }
}

__device__ __forceinline__ void
drop_vertex(long long u, long long r1, int lane, int width,
            const ptr_t* __restrict__ ip0, const idx_t* __restrict__ ix0, long long* deg0,
            const ptr_t* __restrict__ ip1, const idx_t* __restrict__ ix1, long long* deg1,
            unsigned char* active, long long* vals, int mode, long long* queue,
            long long* rounds, long long* tail)
{
    drop_arcs(u, r1, lane, width, ip0, ix0, deg0, active, vals, mode, queue, rounds, tail);
    if (ip1)
        drop_arcs(u, r1, lane, width, ip1, ix1, deg1, active, vals, 0, queue, rounds, tail);
}

extern "C" __global__ void
peel_round(const ptr_t* __restrict__ ip0, const idx_t* __restrict__ ix0, long long* deg0,
           const ptr_t* __restrict__ ip1, const idx_t* __restrict__ ix1, long long* deg1,
           unsigned char* active, long long* vals, int mode, long long* queue,
           long long* rounds, long long* tail, long long lo, long long hi, long long r1)
{
    const int lane = threadIdx.x & 31;
    const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
    const long long w0 = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    for (long long i = lo + w0; i < hi; i += warps)
        drop_vertex(queue[i], r1, lane, 32, ip0, ix0, deg0, ip1, ix1, deg1, active, vals, mode,
                    queue, rounds, tail);
}

extern "C" __global__ void
peel_block(const ptr_t* __restrict__ ip0, const idx_t* __restrict__ ix0, long long* deg0,
           const ptr_t* __restrict__ ip1, const idx_t* __restrict__ ix1, long long* deg1,
           unsigned char* active, long long* vals, int mode, long long* queue,
           long long* rounds, long long* tail, long long lo, long long hi, long long r,
           long long cap, long long limit, long long* stopped)
{
    __shared__ long long s_lo, s_hi, s_r;
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const int warps = blockDim.x >> 5;
    if (threadIdx.x == 0) {
        s_lo = lo;
        s_hi = hi;
        s_r = r;
    }
    __syncthreads();
    while (true) {
        const long long a = s_lo, b = s_hi, rr = s_r;
        if (a >= b || b - a > limit || rr + 1 == cap)
            break;
        for (long long i = a + warp; i < b; i += warps)
            drop_vertex(queue[i], rr + 1, lane, 32, ip0, ix0, deg0, ip1, ix1, deg1, active,
                        vals, mode, queue, rounds, tail);
        __syncthreads();  // every append of this round is in the queue
        if (threadIdx.x == 0) {
            s_lo = b;
            s_hi = (long long)atomicAdd((unsigned long long*)tail, 0ULL);
            s_r = rr + 1;
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        stopped[0] = s_lo;
        stopped[1] = s_hi;
        stopped[2] = s_r;
    }
}
