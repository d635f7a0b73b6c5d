// The most frequent (or heaviest) value over each row of a CSR matrix
// (spbfs.semiring.row_mode): each value of x over row r's columns totals its entries'
// weights (1 each without WEIGHTED), its score is that total less scale[r] * cost[v]
// (COSTED); value[r] = the value of the highest score (the largest on a tie), score[r] that
// score, own_total[r] the total of own[r].  Rows masked out or without entries are left as
// the caller filled them.
//
// mode_rows: a warp per row of at most `heavy` entries.  Up to 32 entries, one match of the
// lanes' values groups them; longer rows compare each entry's value with every tile of 32
// (quadratic in the row, cheap up to `heavy`).  Both add in the row's order.
// mode_heavy: a block (HEAVY_THREADS) per longer row, totalling in a hash table of 2 slots per
// entry (the row's own region of `keys` / `totals`, cleared first), then one pass over it.
//
// With ROW_LIST the kernels count rows list[0 .. nrows-1] of the matrix instead of its rows
// 0 .. nrows-1: mask, own and scale are read at the row, value, score and own_total written
// at its position in the list (spbfs.semiring.mode_sweeps' colour classes).
//
// prepended: typedefs idx_t (column index), ptr_t (row pointer), score_t (long long for
// counts, double otherwise); WEIGHTED, COSTED and ROW_LIST (0 or 1).

#define EMPTY_KEY ((long long)0x8000000000000000LL)
#if ROW_LIST
#define ROW_AT(i) (list[i])
#else
#define ROW_AT(i) (i)
#endif
#define FULL_MASK 0xffffffffu
#define NEG_INF (-__longlong_as_double(0x7ff0000000000000LL))   // NVRTC has no math.h

// the inputs both kernels read, in their order
#define MODE_INPUTS                                                                       \
    const ptr_t* __restrict__ ip, const idx_t* __restrict__ ix,                           \
    const double* __restrict__ data, const long long* __restrict__ x,                     \
    const long long* __restrict__ own, int has_own, const bool* __restrict__ mask,        \
    int has_mask, const double* __restrict__ cost, const double* __restrict__ scale,      \
    long long nrows, long long heavy, const long long* __restrict__ list

__device__ __forceinline__ bool beats(double s1, long long v1, double s2, long long v2) {
    return s1 > s2 || (s1 == s2 && v1 > v2);
}

__device__ __forceinline__ double weight_of(const double* data, ptr_t p) {
#if WEIGHTED
    return data[p];
#else
    return 1.0;
#endif
}

__device__ __forceinline__ double score_of(double total, long long v, const double* cost,
                                           const double* scale, long long r) {
#if COSTED   // rounded as the host rounds it (no fused multiply-add): the same ties broken
    return __dsub_rn(total, __dmul_rn(scale[r], cost[v]));
#else
    return total;
#endif
}

// a value's total taken into the running best, and into the own value's total
__device__ __forceinline__ void consider(double total, long long v, const double* cost,
                                         const double* scale, long long r, long long mine_value,
                                         double& best_score, long long& best_value,
                                         double& mine, int& has) {
    double sc = score_of(total, v, cost, scale, r);
    if (beats(sc, v, best_score, best_value)) { best_score = sc; best_value = v; }
    if (v == mine_value) { mine = total; has = 1; }
}

// every lane ends with the warp's best (score, value), and with the own value's total
// where a lane holds it (`has`; every lane that holds it holds the same total)
__device__ __forceinline__ void warp_best(double& score, long long& value, double& mine,
                                          int& has) {
    for (int offset = 16; offset > 0; offset >>= 1) {
        double s = __shfl_xor_sync(FULL_MASK, score, offset);
        long long v = __shfl_xor_sync(FULL_MASK, value, offset);
        double m = __shfl_xor_sync(FULL_MASK, mine, offset);
        int h = __shfl_xor_sync(FULL_MASK, has, offset);
        if (beats(s, v, score, value)) { score = s; value = v; }
        if (h && !has) { mine = m; has = 1; }
    }
}

extern "C" __global__ void mode_rows(MODE_INPUTS,
                                     long long* value, score_t* score, score_t* own_total) {
    long long i = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int lane = threadIdx.x & 31;
    if (i >= nrows) return;
    long long r = ROW_AT(i);
    if (has_mask && !mask[r]) return;   // whole warps leave together
    ptr_t lo = ip[r];
    long long d = (long long)(ip[r + 1] - lo);
    if (d == 0 || d > heavy) return;
    long long mine_value = has_own ? own[r] : EMPTY_KEY;
    double best_score = NEG_INF, mine = 0.0;
    long long best_value = EMPTY_KEY;
    int has = 0;
    if (d <= 32) {
        long long v = lane < d ? x[ix[lo + lane]] : EMPTY_KEY;
        double w = lane < d ? weight_of(data, lo + lane) : 0.0;
        unsigned same = __match_any_sync(FULL_MASK, v);
        double total = 0.0;
        for (int s = 0; s < 32; ++s) {
            double ws = __shfl_sync(FULL_MASK, w, s);
            if ((same >> s) & 1u) total += ws;
        }
        if (lane < d)
            consider(total, v, cost, scale, r, mine_value, best_score, best_value, mine, has);
    } else {
        for (long long base = 0; base < d; base += 32) {
            long long k = base + lane;
            long long v = k < d ? x[ix[lo + k]] : EMPTY_KEY;
            double total = 0.0;
            for (long long tile = 0; tile < d; tile += 32) {
                bool in = tile + lane < d;
                long long u = in ? x[ix[lo + tile + lane]] : EMPTY_KEY;
                double w = in ? weight_of(data, lo + tile + lane) : 0.0;
                for (int s = 0; s < 32; ++s) {
                    long long us = __shfl_sync(FULL_MASK, u, s);
                    double ws = __shfl_sync(FULL_MASK, w, s);
                    if (us == v) total += ws;
                }
            }
            if (k < d)
                consider(total, v, cost, scale, r, mine_value, best_score, best_value, mine,
                         has);
        }
    }
    warp_best(best_score, best_value, mine, has);
    if (lane == 0) {
        value[i] = best_value;
        score[i] = (score_t)best_score;
        if (has_own) own_total[i] = (score_t)mine;
    }
}

__device__ __forceinline__ unsigned long long slot_of(long long v, unsigned long long size) {
    return (((unsigned long long)v * 0x9E3779B97F4A7C15ULL) >> 29) % size;
}

// mode_heavy's block: a long row's entries and table slots taken 1,024 at a time (its
// atomics and table reads wait on memory: more threads keep more of them in flight)
#define HEAVY_THREADS 1024
#define HEAVY_WARPS (HEAVY_THREADS / 32)

extern "C" __global__ void __launch_bounds__(HEAVY_THREADS)
mode_heavy(MODE_INPUTS, long long* keys, double* totals,
           long long* value, score_t* score, score_t* own_total) {
    __shared__ long long rows[HEAVY_THREADS], spots[HEAVY_THREADS];
    __shared__ int nheavy;
    __shared__ double warp_score[HEAVY_WARPS], warp_mine[HEAVY_WARPS];
    __shared__ long long warp_value[HEAVY_WARPS];
    __shared__ int warp_has[HEAVY_WARPS];
    int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    for (long long base = (long long)blockIdx.x * blockDim.x; base < nrows;
         base += (long long)gridDim.x * blockDim.x) {
        if (tid == 0) nheavy = 0;
        __syncthreads();
        long long i = base + tid;
        long long r = i < nrows ? ROW_AT(i) : 0;
        if (i < nrows && (!has_mask || mask[r]) && (long long)(ip[r + 1] - ip[r]) > heavy) {
            int at = atomicAdd(&nheavy, 1);
            rows[at] = r;
            spots[at] = i;
        }
        __syncthreads();
        for (int h = 0; h < nheavy; ++h) {
            long long row = rows[h], spot = spots[h];
            ptr_t lo = ip[row];
            long long d = (long long)(ip[row + 1] - lo);
            unsigned long long size = 2ULL * d;
            long long* key = keys + 2 * (long long)(lo - ip[0]);
            double* tot = totals + 2 * (long long)(lo - ip[0]);
            for (long long k = tid; k < (long long)size; k += blockDim.x) {
                key[k] = EMPTY_KEY;
                tot[k] = 0.0;
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
                        atomicAdd(tot + s, weight_of(data, lo + k));
                        break;
                    }
                    s = s + 1 == size ? 0 : s + 1;
                }
            }
            __syncthreads();
            long long mine_value = has_own ? own[row] : EMPTY_KEY;
            double best_score = NEG_INF, mine = 0.0;
            long long best_value = EMPTY_KEY;
            int has = 0;
            for (long long k = tid; k < (long long)size; k += blockDim.x) {
                long long v = __ldcg(key + k);   // past L1: the table was written by atomics
                if (v == EMPTY_KEY) continue;
                consider(__ldcg(tot + k), v, cost, scale, row, mine_value, best_score,
                         best_value, mine, has);
            }
            warp_best(best_score, best_value, mine, has);
            if (lane == 0) {
                warp_score[warp] = best_score;
                warp_value[warp] = best_value;
                warp_mine[warp] = mine;
                warp_has[warp] = has;
            }
            __syncthreads();
            if (warp == 0) {
                int warps = blockDim.x >> 5;
                best_score = lane < warps ? warp_score[lane] : NEG_INF;
                best_value = lane < warps ? warp_value[lane] : EMPTY_KEY;
                mine = lane < warps ? warp_mine[lane] : 0.0;
                has = lane < warps ? warp_has[lane] : 0;
                warp_best(best_score, best_value, mine, has);
                if (lane == 0) {
                    value[spot] = best_value;
                    score[spot] = (score_t)best_score;
                    if (has_own) own_total[spot] = (score_t)mine;
                }
            }
            __syncthreads();
        }
    }
}

// spbfs.semiring.mode_sweeps' class step after the count (ROW_LIST): row list[i], if marked,
// is unmarked and takes value[i] where its own value's count is below the top; moved[i] says
// whether it did.  (The count wrote value, score and own_total of the marked rows with
// entries; the others' are stale and not read.)
extern "C" __global__ void sweep_take(const ptr_t* __restrict__ ip,
                                      const long long* __restrict__ list, long long nrows,
                                      bool* marked, const long long* __restrict__ value,
                                      const score_t* __restrict__ score,
                                      const score_t* __restrict__ own_total, long long* x,
                                      bool* moved) {
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < nrows;
         i += (long long)gridDim.x * blockDim.x) {
        long long r = list[i];
        bool move = marked[r] && ip[r + 1] > ip[r] && own_total[i] < score[i];
        marked[r] = false;
        moved[i] = move;
        if (move) x[r] = value[i];
    }
}

// then the columns of every row that moved are marked (a warp a row)
extern "C" __global__ void sweep_mark(const ptr_t* __restrict__ ip, const idx_t* __restrict__ ix,
                                      const long long* __restrict__ list, long long nrows,
                                      const bool* __restrict__ moved, bool* marked) {
    long long i = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int lane = threadIdx.x & 31;
    if (i >= nrows || !moved[i]) return;
    long long r = list[i];
    for (ptr_t p = ip[r] + lane; p < ip[r + 1]; p += 32) marked[ix[p]] = true;
}

// spbfs.semiring.modularity_sweep's class step after the weighted, costed count (ROW_LIST;
// value: the best community, score: its w(v, C) - scale[v] sigma[C], own_total: w(v, own)):
// row list[i] proposes the best where it beats staying by more than 1e-12 (target[i], else
// -1; owns[i] its own community, gains[i] its gain read from sigma as the class found it,
// margins[i] how far it beats staying), and claims its k into the target and out of its
// own (claims: into, then out of, each of `size` communities; firsts: the first proposer of
// each, the same way).
extern "C" __global__ void louvain_take(const ptr_t* __restrict__ ip,
                                        const long long* __restrict__ list, long long nrows,
                                        const long long* __restrict__ comm,
                                        const double* __restrict__ k,
                                        const double* __restrict__ scale,
                                        const double* __restrict__ sigma,
                                        const long long* __restrict__ value,
                                        const score_t* __restrict__ score,
                                        const score_t* __restrict__ own_total,
                                        long long* target, long long* owns, double* gains,
                                        double* margins, double* claims,
                                        unsigned long long* firsts, long long size) {
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < nrows;
         i += (long long)gridDim.x * blockDim.x) {
        long long r = list[i];
        target[i] = -1;
        if (ip[r + 1] == ip[r]) continue;
        long long own = comm[r], best = value[i];
        // rounded as the host rounds them (no fused multiply-add)
        double stay = __dsub_rn(own_total[i], __dmul_rn(scale[r], sigma[own] - k[r]));
        if ((double)score[i] > stay + 1e-12 && best != own) {
            target[i] = best;
            owns[i] = own;
            gains[i] = __dsub_rn(__dadd_rn((double)score[i], __dmul_rn(scale[r], sigma[best])),
                                 own_total[i]);
            margins[i] = __dsub_rn((double)score[i], stay);
            atomicAdd(claims + best, k[r]);
            atomicAdd(claims + size + own, k[r]);
            atomicMin(firsts + best, (unsigned long long)i);
            atomicMin(firsts + size + own, (unsigned long long)i);
        }
    }
}

// then the proposers that move (the first into their target and out of their own, or a
// margin above scale times the other proposers' claims on both) move: sigma and the sweep's
// totals (moved, gain) by atomics
extern "C" __global__ void louvain_move(const long long* __restrict__ list, long long nrows,
                                        const long long* __restrict__ target,
                                        const long long* __restrict__ owns,
                                        const double* __restrict__ gains,
                                        const double* __restrict__ margins,
                                        const double* __restrict__ claims,
                                        const unsigned long long* __restrict__ firsts,
                                        long long size, const double* __restrict__ k,
                                        const double* __restrict__ scale, long long* comm,
                                        double* sigma, unsigned long long* moved,
                                        double* gain) {
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < nrows;
         i += (long long)gridDim.x * blockDim.x) {
        long long to = target[i];
        if (to < 0) continue;
        long long r = list[i], own = owns[i];
        bool first = firsts[to] == (unsigned long long)i &&
                     firsts[size + own] == (unsigned long long)i;
        double others = __dsub_rn(__dadd_rn(claims[to], claims[size + own]), 2.0 * k[r]);
        if (!first && !(margins[i] > __dmul_rn(scale[r], others))) continue;
        atomicAdd(sigma + own, -k[r]);
        atomicAdd(sigma + to, k[r]);
        comm[r] = to;
        atomicAdd(moved, 1ULL);
        atomicAdd(gain, 2.0 * gains[i]);
    }
}

// then the proposers' claims are cleared for the next class
extern "C" __global__ void louvain_clear(long long nrows, const long long* __restrict__ target,
                                         const long long* __restrict__ owns, double* claims,
                                         unsigned long long* firsts, long long size) {
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < nrows;
         i += (long long)gridDim.x * blockDim.x) {
        long long to = target[i];
        if (to < 0) continue;
        claims[to] = claims[size + owns[i]] = 0.0;
        firsts[to] = firsts[size + owns[i]] = ~0ULL;
    }
}
