// The any_secondi product of bit-packed Boolean matrices (spbfs.semiring.packed_any_secondi):
// for every wanted bit s of want[j], out[s * ss + j * sj] = some i with A[i, j] stored and
// bit s of x[i] set (and of the edge's word when EDGE_BITS).  ss, sj: the output's strides
// in elements.
// Prepended: typedefs idx_t, ptr_t, out_t; #define EDGE_BITS 0|1; frontier.cuh.

typedef unsigned long long word_t;

#define FULL_WARP 0xffffffffu

// out[s * ss + j * sj] = id for every bit s of bits.
__device__ __forceinline__ void write_bits(out_t* out, long long ss, long long sj, long long j,
                                           word_t bits, long long id)
{
    while (bits) {
        const int s = __ffsll((long long)bits) - 1;
        out[(long long)s * ss + j * sj] = (out_t)id;
        bits &= bits - 1;
    }
}

// Push: one thread per out-edge of x's rows (offs: prefix sum of their degrees).  want is a
// dense word per column, consumed: an edge claims its bits with one atomicAnd, so each
// wanted bit is written once.
extern "C" __global__ void
packed_push(const ptr_t* __restrict__ indptr, const idx_t* __restrict__ indices,
            const word_t* __restrict__ data, const long long* __restrict__ x_idx,
            const word_t* __restrict__ x_val, const long long* __restrict__ offs, long long nx,
            long long total, word_t* want, out_t* out, long long ss, long long sj)
{
    const long long step = (long long)gridDim.x * blockDim.x;
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += step) {
        const long long k = arc_row(offs, nx, e);
        const long long i = x_idx[k];
        const long long p = (long long)indptr[i] + (e - offs[k]);
        const long long j = (long long)indices[p];
        word_t h = x_val[k] & ((volatile word_t*)want)[j];
#if EDGE_BITS
        h &= data[p];
#endif
        if (!h) continue;
        const word_t got = atomicAnd(want + j, ~h) & h;
        write_bits(out, ss, sj, j, got, i);
    }
}

// Pull: one warp per tile of 32 consecutive columns (a lane per column); wanted bits are
// dense (want[j]: 0 for a column that wants none).  Each lane scans the first PULL_SERIAL
// in-edges of its column alone; the warp then finishes the columns with bits left, 32
// in-edges per step, each lane's hits losing the bits of the lanes before it (an exclusive
// prefix-OR over the warp).  Witnesses gather in a shared tile[s][lane], and the tile goes
// out row by row: the stores of a row are to 32 consecutive columns, which coalesce.
#define PULL_SERIAL 8
#define TILE_WARPS 2

extern "C" __global__ void __launch_bounds__(TILE_WARPS * 32)
packed_pull(const ptr_t* __restrict__ tindptr, const idx_t* __restrict__ tindices,
            const word_t* __restrict__ tdata, const word_t* __restrict__ x,
            const word_t* __restrict__ want, long long n, int k, out_t* out, long long ss,
            long long sj)
{
    __shared__ out_t tiles[TILE_WARPS][64][33];
    out_t (*tile)[33] = tiles[threadIdx.x >> 5];
    const int lane = threadIdx.x & 31;
    const long long ntiles = (n + 31) >> 5;
    for (long long t = (long long)blockIdx.x * TILE_WARPS + (threadIdx.x >> 5); t < ntiles;
         t += (long long)gridDim.x * TILE_WARPS) {
        const long long j = t * 32 + lane;
        const word_t w = j < n ? want[j] : 0;
        if (!__ballot_sync(FULL_WARP, w != 0)) continue;
        word_t left = w;
        long long p = 0, end = 0;
        if (w) {
            p = (long long)tindptr[j];
            end = (long long)tindptr[j + 1];
            const long long lim = end - p > PULL_SERIAL ? p + PULL_SERIAL : end;
            for (; p < lim && left; ++p) {
                const long long i = (long long)tindices[p];
                word_t g = x[i] & left;
#if EDGE_BITS
                g &= tdata[p];
#endif
                left &= ~g;
                for (; g; g &= g - 1) tile[__ffsll((long long)g) - 1][lane] = (out_t)i;
            }
        }
        for (unsigned rest = __ballot_sync(FULL_WARP, left != 0); rest; rest &= rest - 1) {
            const int o = __ffs(rest) - 1;  // the column the warp finishes
            word_t l = __shfl_sync(FULL_WARP, left, o);
            const long long stop = __shfl_sync(FULL_WARP, end, o);
            for (long long base = __shfl_sync(FULL_WARP, p, o); base < stop && l; base += 32) {
                const long long q = base + lane;
                long long i = 0;
                word_t h = 0;
                if (q < stop) {
                    i = (long long)tindices[q];
                    h = x[i] & l;
#if EDGE_BITS
                    h &= tdata[q];
#endif
                }
                word_t before = h;  // becomes the inclusive prefix-OR
#pragma unroll
                for (int d = 1; d < 32; d <<= 1) {
                    const word_t u = __shfl_up_sync(FULL_WARP, before, d);
                    if (lane >= d) before |= u;
                }
                word_t excl = __shfl_up_sync(FULL_WARP, before, 1);
                if (lane == 0) excl = 0;
                for (word_t g = h & ~excl; g; g &= g - 1)
                    tile[__ffsll((long long)g) - 1][o] = (out_t)i;
                l &= ~__shfl_sync(FULL_WARP, before, 31);
            }
            if (lane == o) left = l;
        }
        __syncwarp();
        const word_t covered = w & ~left;  // a bit without a witness is left as it was
        for (int s = 0; s < k; ++s)
            if ((covered >> s) & 1) out[(long long)s * ss + j * sj] = tile[s][lane];
        __syncwarp();
    }
}
