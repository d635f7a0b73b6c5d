// The most frequent value over each row of a CSR matrix (spbfs.semiring.row_mode):
// value[r] = the value of x over row r's columns that occurs most often (the largest on a
// tie), count[r] its count, own_count[r] the count of own[r].  Rows masked out or without
// entries are left as the caller filled them.
//
// mode_rows: a warp per row of at most `heavy` entries.  Up to 32 entries, one match of the
// lanes' values counts them; longer rows count each entry's value against every tile of 32
// (quadratic in the row, cheap up to `heavy`).
// mode_heavy: a block per longer row, counting in a hash table of 2 slots per entry (the
// row's own region of `keys` / `counts`, cleared first), then one pass over the table.
//
// typedefs prepended: idx_t (column index), ptr_t (row pointer).

#define EMPTY_KEY ((long long)0x8000000000000000LL)
#define FULL_MASK 0xffffffffu

__device__ __forceinline__ bool beats(long long c1, long long v1, long long c2, long long v2) {
    return c1 > c2 || (c1 == c2 && v1 > v2);
}

// every lane ends with the warp's best (count, value) and the largest own count
__device__ __forceinline__ void warp_best(long long& count, long long& value, long long& mine) {
    for (int offset = 16; offset > 0; offset >>= 1) {
        long long c = __shfl_xor_sync(FULL_MASK, count, offset);
        long long v = __shfl_xor_sync(FULL_MASK, value, offset);
        long long m = __shfl_xor_sync(FULL_MASK, mine, offset);
        if (beats(c, v, count, value)) { count = c; value = v; }
        if (m > mine) mine = m;
    }
}

extern "C" __global__ void mode_rows(const ptr_t* __restrict__ ip, const idx_t* __restrict__ ix,
                                     const long long* __restrict__ x,
                                     const long long* __restrict__ own, int has_own,
                                     const bool* __restrict__ mask, int has_mask,
                                     long long nrows, long long heavy,
                                     long long* value, long long* count, long long* own_count) {
    long long r = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int lane = threadIdx.x & 31;
    if (r >= nrows || (has_mask && !mask[r])) return;   // whole warps leave together
    ptr_t lo = ip[r];
    long long d = (long long)(ip[r + 1] - lo);
    if (d == 0 || d > heavy) return;
    long long mine_value = has_own ? own[r] : EMPTY_KEY;
    long long best_count = 0, best_value = EMPTY_KEY, mine = 0;
    if (d <= 32) {
        long long v = lane < d ? x[ix[lo + lane]] : EMPTY_KEY;
        unsigned same = __match_any_sync(FULL_MASK, v);
        if (lane < d) {
            best_count = __popc(same);
            best_value = v;
            if (v == mine_value) mine = best_count;
        }
    } else {
        for (long long base = 0; base < d; base += 32) {
            long long k = base + lane;
            long long v = k < d ? x[ix[lo + k]] : EMPTY_KEY;
            long long c = 0;
            for (long long tile = 0; tile < d; tile += 32) {
                long long w = tile + lane < d ? x[ix[lo + tile + lane]] : EMPTY_KEY;
                for (int s = 0; s < 32; ++s) c += (__shfl_sync(FULL_MASK, w, s) == v);
            }
            if (k < d) {
                if (beats(c, v, best_count, best_value)) { best_count = c; best_value = v; }
                if (v == mine_value) mine = c;
            }
        }
    }
    warp_best(best_count, best_value, mine);
    if (lane == 0) {
        value[r] = best_value;
        count[r] = best_count;
        if (has_own) own_count[r] = mine;
    }
}

__device__ __forceinline__ unsigned long long slot_of(long long v, unsigned long long size) {
    return (((unsigned long long)v * 0x9E3779B97F4A7C15ULL) >> 29) % size;
}

extern "C" __global__ void mode_heavy(const ptr_t* __restrict__ ip, const idx_t* __restrict__ ix,
                                      const long long* __restrict__ x,
                                      const long long* __restrict__ own, int has_own,
                                      const bool* __restrict__ mask, int has_mask,
                                      long long nrows, long long heavy,
                                      long long* keys, int* counts,
                                      long long* value, long long* count, long long* own_count) {
    __shared__ long long rows[256];
    __shared__ int nheavy;
    __shared__ long long warp_count[8], warp_value[8], warp_mine[8];
    int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    for (long long base = (long long)blockIdx.x * blockDim.x; base < nrows;
         base += (long long)gridDim.x * blockDim.x) {
        if (tid == 0) nheavy = 0;
        __syncthreads();
        long long r = base + tid;
        if (r < nrows && (!has_mask || mask[r]) && (long long)(ip[r + 1] - ip[r]) > heavy)
            rows[atomicAdd(&nheavy, 1)] = r;
        __syncthreads();
        for (int h = 0; h < nheavy; ++h) {
            long long row = rows[h];
            ptr_t lo = ip[row];
            long long d = (long long)(ip[row + 1] - lo);
            unsigned long long size = 2ULL * d;
            long long* key = keys + 2 * (long long)(lo - ip[0]);
            int* cnt = counts + 2 * (long long)(lo - ip[0]);
            for (long long k = tid; k < (long long)size; k += blockDim.x) {
                key[k] = EMPTY_KEY;
                cnt[k] = 0;
            }
            __syncthreads();
            for (long long k = tid; k < d; k += blockDim.x) {
                long long v = x[ix[lo + k]];
                unsigned long long s = slot_of(v, size);
                while (true) {
                    long long seen = (long long)atomicCAS((unsigned long long*)(key + s),
                                                          (unsigned long long)EMPTY_KEY,
                                                          (unsigned long long)v);
                    if (seen == EMPTY_KEY || seen == v) {
                        atomicAdd(cnt + s, 1);
                        break;
                    }
                    s = s + 1 == size ? 0 : s + 1;
                }
            }
            __syncthreads();
            long long mine_value = has_own ? own[row] : EMPTY_KEY;
            long long best_count = 0, best_value = EMPTY_KEY, mine = 0;
            for (long long k = tid; k < (long long)size; k += blockDim.x) {
                long long v = __ldcg(key + k);   // past L1: the table was written by atomics
                if (v == EMPTY_KEY) continue;
                long long c = __ldcg(cnt + k);
                if (beats(c, v, best_count, best_value)) { best_count = c; best_value = v; }
                if (v == mine_value) mine = c;
            }
            warp_best(best_count, best_value, mine);
            if (lane == 0) {
                warp_count[warp] = best_count;
                warp_value[warp] = best_value;
                warp_mine[warp] = mine;
            }
            __syncthreads();
            if (warp == 0) {
                int warps = blockDim.x >> 5;
                best_count = lane < warps ? warp_count[lane] : 0;
                best_value = lane < warps ? warp_value[lane] : EMPTY_KEY;
                mine = lane < warps ? warp_mine[lane] : 0;
                warp_best(best_count, best_value, mine);
                if (lane == 0) {
                    value[row] = best_value;
                    count[row] = best_count;
                    if (has_own) own_count[row] = mine;
                }
            }
            __syncthreads();
        }
    }
}
