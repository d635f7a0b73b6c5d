// Shortest distances by frontier Bellman-Ford rounds on the device (spbfs.gpu.relax): the
// vertices whose distance improved in a round (a bitmap) relax their out-edges in the next,
// an improvement taken by an atomic minimum on the distance's bits (non-negative doubles
// order as their unsigned bits, +inf above every number) and its vertex's bit set in the
// next round's bitmap.  The host launches rounds without waiting; a round whose previous
// round improved nothing returns at once, so the launches past the fixpoint cost little.
//
// Prepended: typedef idx_t (column ids), ptr_t (row offsets).
//
// ring[r % RELAX_RING] counts the vertices round r added to its next bitmap (a vertex once,
// however many of its in-edges improved it); round r zeroes the slot of round r + 1.  The
// caller sets the slot before round 0 to the number of sources.

#define RELAX_RING 64
#define RELAX_SERIAL 16  // a lane relaxes a row of at most this many entries alone

typedef unsigned long long u64;

// Relax edge u -> v at distance du + w: true when it lowered dist[v] and set v's bit first.
__device__ __forceinline__ bool relax(double* dist, unsigned* next, idx_t v, double nd)
{
    if (!(nd < dist[v])) return false;
    const u64 bits = (u64)__double_as_longlong(nd);
    const u64 old = atomicMin(reinterpret_cast<u64*>(dist + v), bits);
    if (old <= bits) return false;
    const unsigned bit = 1u << ((unsigned)v & 31u);
    return !(atomicOr(next + (v >> 5), bit) & bit);
}

// One round: a warp per 32-vertex word of `cur` (cleared as it is read, for the round after
// next); a set bit's vertex relaxes its row, by its lane alone when short, else by the whole
// warp, 32 entries a step, one such row after another.
extern "C" __global__ void __launch_bounds__(256)
relax_round(const ptr_t* __restrict__ indptr, const idx_t* __restrict__ indices,
            const double* __restrict__ data, double* dist, unsigned* cur, unsigned* next,
            u64* ring, long long round, long long nwords)
{
    const u64 before = ring[(round + RELAX_RING - 1) % RELAX_RING];
    if (blockIdx.x == 0 && threadIdx.x == 0) ring[(round + 1) % RELAX_RING] = 0;
    if (before == 0) return;  // past the fixpoint: this round's slot stays 0
    const int lane = threadIdx.x & 31;
    const long long warp0 = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
    unsigned added = 0;
    for (long long w = warp0; w < nwords; w += nwarps) {
        const unsigned word = cur[w];
        if (!word) continue;
        if (lane == 0) cur[w] = 0u;
        const bool mine = (word >> lane) & 1u;
        const idx_t u = (idx_t)(w * 32 + lane);
        ptr_t beg = 0, end = 0;
        double du = 0.0;
        if (mine) {
            beg = indptr[u];
            end = indptr[u + 1];
            du = dist[u];
            if (end - beg <= RELAX_SERIAL) {
                for (ptr_t p = beg; p < end; ++p) added += relax(dist, next, indices[p], du + data[p]);
                end = beg;
            }
        }
        unsigned long_rows = __ballot_sync(0xffffffffu, beg < end);
        while (long_rows) {
            const int leader = __ffs(long_rows) - 1;
            long_rows &= long_rows - 1;
            const ptr_t wb = __shfl_sync(0xffffffffu, beg, leader);
            const ptr_t we = __shfl_sync(0xffffffffu, end, leader);
            const double d = __shfl_sync(0xffffffffu, du, leader);
            for (ptr_t p = wb + lane; p < we; p += 32) added += relax(dist, next, indices[p], d + data[p]);
        }
    }
    // one add per warp of the vertices it added to the next bitmap
    for (int o = 16; o > 0; o >>= 1) added += __shfl_down_sync(0xffffffffu, added, o);
    if (lane == 0 && added) atomicAdd(ring + round % RELAX_RING, (u64)added);
}
