// spbfs generic semiring kernels: masked SpMSpV (push) and masked SpMV (pull).
//
// Compiled by spbfs.gpu.kernels with these lines prepended:
//   typedef ... x_t;  a_t;  T;        vector, matrix and output value types
//   typedef ... idx_t; ptr_t; xi_t;   column indices, row offsets, vector indices
//   #define IS_ANY 0|1                monoid "any": keep one value, plain writes
//   #define HAS_TERMINAL 0|1          pull stops once the sum equals `term`
//   #define SR_ADD(a, b) (...)        the monoid, from Monoid.c_expr
//   #define SR_MUL(x, a, i, j) (...)  the multiply, from BinaryOp.c_expr
// and then frontier.cuh.

__device__ __forceinline__ T sr_add(T a, T b) { return (T)(SR_ADD(a, b)); }

__device__ __forceinline__ T sr_mul(x_t x, a_t a, long long i, long long j)
{
    (void)x; (void)a; (void)i; (void)j;
    return (T)(SR_MUL(x, a, i, j));
}

// y[j] = y[j] (+) val atomically, with a compare-and-swap loop on the aligned word that
// holds y[j] (64-bit for 8-byte T, 32-bit otherwise), so every monoid and dtype works.
__device__ __forceinline__ void atomic_combine(T* addr, T val)
{
    if constexpr (sizeof(T) == 8) {
        unsigned long long* p = (unsigned long long*)addr;
        unsigned long long old = *((volatile unsigned long long*)p), assumed;
        do {
            assumed = old;
            union { unsigned long long u; T t; } cur, nv;
            cur.u = assumed;
            nv.t = sr_add(cur.t, val);
            const unsigned long long nb = nv.u;
            if (nb == assumed) return;
            old = atomicCAS(p, assumed, nb);
        } while (old != assumed);
    } else {
        const unsigned long long ai = (unsigned long long)addr;
        unsigned int* p = (unsigned int*)(ai & ~3ull);
        const unsigned shift = (unsigned)(ai & 3ull) * 8u;
        unsigned mask = 0xffffffffu;
        if constexpr (sizeof(T) < 4) mask = ((1u << (8 * (sizeof(T) & 3))) - 1u) << shift;
        unsigned old = *((volatile unsigned*)p), assumed;
        do {
            assumed = old;
            union { unsigned u; T t; } cur, nv;
            cur.u = (assumed & mask) >> shift;
            nv.u = 0u;
            nv.t = sr_add(cur.t, val);
            const unsigned nb = nv.u;
            const unsigned nw = (assumed & ~mask) | ((nb << shift) & mask);
            if (nw == assumed) return;
            old = atomicCAS(p, assumed, nw);
        } while (old != assumed);
    }
}

// One thread per edge of the frontier's rows: edge e belongs to frontier entry k with
// offs[k] <= e < offs[k + 1] (arc_row, frontier.cuh).
extern "C" __global__ void
sr_push(const ptr_t* __restrict__ indptr, const idx_t* __restrict__ indices,
        const a_t* __restrict__ data, const xi_t* __restrict__ x_idx,
        const x_t* __restrict__ x_val, const long long* __restrict__ offs, long long nx,
        long long total, const bool* __restrict__ mask, int use_mask, int complement,
        T* y, bool* present)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += stride) {
        const long long k = arc_row(offs, nx, e);
        const long long i = (long long)x_idx[k];
        const long long p = (long long)indptr[i] + (e - offs[k]);
        const long long j = (long long)indices[p];
        if (use_mask && (mask[j] == (bool)complement)) continue;
        const T val = sr_mul(x_val[k], data[p], i, j);
#if IS_ANY
        y[j] = val;
#else
        atomic_combine(y + j, val);
#endif
        present[j] = true;
    }
}

#define FULL_WARP 0xffffffffu
#define PULL_SERIAL 8

// A value from lane `src` (any type of at most 8 bytes).
template <typename V>
__device__ __forceinline__ V shfl_value(V v, int src)
{
    union { unsigned long long u; V t; } b;
    b.u = 0ull;
    b.t = v;
    b.u = __shfl_sync(FULL_WARP, b.u, src);
    return b.t;
}

// The warp's partial sums (have, acc) combined into lane 0's; the other lanes are emptied
// (so a monoid that is not idempotent never counts a value twice).
__device__ __forceinline__ void warp_sum_to_lane0(bool& have, T& acc)
{
    const int lane = threadIdx.x & 31;
    for (int step = 1; step < 32; step <<= 1) {
        const T other = shfl_value(acc, (lane + step) & 31);
        const bool other_has = __shfl_sync(FULL_WARP, have, (lane + step) & 31);
        if ((lane & (2 * step - 1)) == 0 && other_has) {
            acc = have ? sr_add(acc, other) : other;
            have = true;
        }
    }
    if (lane != 0) have = false;
}

// Entry q of row j of A.T (nothing at or past `end`) added to (acc, have) when its source
// is present in x.
__device__ __forceinline__ void pull_entry(const idx_t* __restrict__ tindices,
                                           const a_t* __restrict__ tdata,
                                           const bool* __restrict__ x_present,
                                           const x_t* __restrict__ x_val, long long q,
                                           long long end, long long j, T& acc, bool& have)
{
    if (q >= end) return;
    const long long i = (long long)tindices[q];
    if (!x_present[i]) return;
    const T v = sr_mul(x_val[i], tdata[q], i, j);
    acc = have ? sr_add(acc, v) : v;
    have = true;
}

// Pull: y[j] = (+) over row j of A.T (the in-edges of j) of the entries whose source is
// present in x; the first hit for "any", stopping at the terminal value else.  One lane
// per output, 32 consecutive outputs per warp: each lane reduces the first PULL_SERIAL
// entries of its row alone, then the warp finishes the longer rows one after another, 32
// entries per step (a power-law graph's hubs no longer hold up their warp).
extern "C" __global__ void
sr_pull(const ptr_t* __restrict__ tindptr, const idx_t* __restrict__ tindices,
        const a_t* __restrict__ tdata, const bool* __restrict__ x_present,
        const x_t* __restrict__ x_val, long long n, const bool* __restrict__ mask,
        int use_mask, int complement, long long heavy, T term, T* y, bool* present)
{
    (void)term;
    const int lane = threadIdx.x & 31;
    const long long warp0 = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
    for (long long base = warp0 * 32; base < n; base += nwarps * 32) {
        const long long j = base + lane;
        bool todo = j < n && !(use_mask && (mask[j] == (bool)complement));
        T acc = T();
        bool have = false;
        long long p = 0, end = 0;
        if (todo) {
            p = (long long)tindptr[j];
            end = (long long)tindptr[j + 1];
            todo = end - p <= heavy;  // longer rows: sr_pull_heavy
        }
        if (todo) {
            const long long lim = end - p > PULL_SERIAL ? p + PULL_SERIAL : end;
            for (; p < lim; ++p) {
                const long long i = (long long)tindices[p];
                if (!x_present[i]) continue;
                const T v = sr_mul(x_val[i], tdata[p], i, j);
                acc = have ? sr_add(acc, v) : v;
                have = true;
#if IS_ANY
                break;
#elif HAS_TERMINAL
                if (acc == term) break;
#endif
            }
#if IS_ANY
            if (have) end = p;
#elif HAS_TERMINAL
            if (have && acc == term) end = p;
#endif
        }
        unsigned rest = __ballot_sync(FULL_WARP, todo && p < end);
        while (rest) {
            const int r = __ffs(rest) - 1;
            rest &= rest - 1;
            const long long rj = base + r;
            const long long rb = __shfl_sync(FULL_WARP, p, r);
            const long long re = __shfl_sync(FULL_WARP, end, r);
            T part = T();
            bool part_has = false;
            for (long long q0 = rb; q0 < re; q0 += 32) {
                pull_entry(tindices, tdata, x_present, x_val, q0 + lane, re, rj, part, part_has);
#if IS_ANY
                if (__any_sync(FULL_WARP, part_has)) break;
#elif HAS_TERMINAL
                warp_sum_to_lane0(part_has, part);
                if (__shfl_sync(FULL_WARP, part_has && part == term, 0)) break;
#endif
            }
#if IS_ANY
            const unsigned hits = __ballot_sync(FULL_WARP, part_has);
            if (hits) {
                part = shfl_value(part, __ffs(hits) - 1);
                part_has = true;
            }
#else
            warp_sum_to_lane0(part_has, part);
            part = shfl_value(part, 0);
            part_has = __shfl_sync(FULL_WARP, part_has, 0);
#endif
            if (lane == r && part_has) {
                acc = have ? sr_add(acc, part) : part;
                have = true;
            }
        }
        if (todo && have) {
            y[j] = acc;
            present[j] = true;
        }
    }
}

// The outputs the pull allows whose rows hold more than `heavy` entries, appended to
// `rows` in any order (`count` counts them; the caller sizes `rows` for the most there
// can be).
extern "C" __global__ void
sr_heavy_rows(const ptr_t* __restrict__ tindptr, long long n, long long heavy,
              const bool* __restrict__ mask, int use_mask, int complement,
              long long* __restrict__ rows, unsigned long long* __restrict__ count)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += stride) {
        if ((long long)tindptr[j + 1] - (long long)tindptr[j] <= heavy) continue;
        if (use_mask && (mask[j] == (bool)complement)) continue;
        rows[atomicAdd(count, 1ull)] = j;
    }
}

// The pull of the rows sr_heavy_rows listed: a block of PULL_HEAVY_WARPS warps per row,
// each thread taking every blockDim-th entry; the block stops early once some thread
// holds a value ("any") or the terminal (an absorbing value: the sum is then known), and
// its warps' sums are combined in a fixed order, so a result does not depend on timing.
#define PULL_HEAVY_WARPS 32
extern "C" __global__ void __launch_bounds__(PULL_HEAVY_WARPS * 32)
sr_pull_heavy(const ptr_t* __restrict__ tindptr, const idx_t* __restrict__ tindices,
              const a_t* __restrict__ tdata, const bool* __restrict__ x_present,
              const x_t* __restrict__ x_val, const long long* __restrict__ rows,
              const unsigned long long* __restrict__ count, T term, T* y, bool* present)
{
    (void)term;
    __shared__ T part[PULL_HEAVY_WARPS];
    __shared__ bool part_has[PULL_HEAVY_WARPS];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const long long nrows = (long long)*count;
    for (long long item = blockIdx.x; item < nrows; item += gridDim.x) {
        const long long j = rows[item];
        const long long lo = (long long)tindptr[j], hi = (long long)tindptr[j + 1];
        T acc = T();
        bool have = false;
        for (long long q0 = lo; q0 < hi; q0 += blockDim.x) {  // the same trips for all
            pull_entry(tindices, tdata, x_present, x_val, q0 + threadIdx.x, hi, j, acc, have);
#if IS_ANY
            if (__syncthreads_or(have)) break;
#elif HAS_TERMINAL
            if (__syncthreads_or(have && acc == term)) break;
#endif
        }
        warp_sum_to_lane0(have, acc);
        if (lane == 0) {
            part[warp] = acc;
            part_has[warp] = have;
        }
        __syncthreads();
        if (threadIdx.x == 0) {
            have = false;
            for (int w = 0; w < PULL_HEAVY_WARPS; ++w) {
                if (part_has[w]) {
                    acc = have ? sr_add(acc, part[w]) : part[w];
                    have = true;
                }
            }
            if (have) {
                y[j] = acc;
                present[j] = true;
            }
        }
        __syncthreads();
    }
}

// First position in [lo, hi) of sorted `idx` whose value is >= key: exponential steps
// from lo, then binary search (cheap when the answer is near, as in a merge).
__device__ __forceinline__ ptr_t gallop(const idx_t* __restrict__ idx, ptr_t lo, ptr_t hi,
                                        idx_t key)
{
    if (lo >= hi || idx[lo] >= key) return lo;
    ptr_t below = lo, step = 1, probe = lo + 1;  // idx[below] < key
    while (probe < hi && idx[probe] < key) {
        below = probe;
        step *= 2;
        probe = below + step;
    }
    ptr_t first = below + 1, last = probe < hi ? probe : hi;  // the answer is in [first, last]
    while (first < last) {
        const ptr_t mid = first + (last - first) / 2;
        if (idx[mid] < key) first = mid + 1; else last = mid;
    }
    return first;
}

// Masked SpGEMM as dot products: position p is row rows[p] of A against row cols[p] of B.T
// (both with sorted column indices), out[p] = (+)_k mul(A[i, k], B[k, j], k, j) over their
// common k, merged with galloping so a short list against a long one costs its length
// times a logarithm.  present[p] is whether any k matched.  x_vals / a_vals: 0 when the
// multiply does not read that operand (a one-element placeholder is passed).
extern "C" __global__ void
sr_masked_dot(const ptr_t* __restrict__ a_ptr, const idx_t* __restrict__ a_idx,
              const x_t* __restrict__ a_val, const ptr_t* __restrict__ b_ptr,
              const idx_t* __restrict__ b_idx, const a_t* __restrict__ b_val,
              const long long* __restrict__ rows, const long long* __restrict__ cols,
              long long npos, int x_vals, int a_vals, T term, T* __restrict__ out,
              bool* __restrict__ present)
{
    (void)term;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x; p < npos;
         p += stride) {
        const long long j = cols[p];
        ptr_t pa = a_ptr[rows[p]], ea = a_ptr[rows[p] + 1];
        ptr_t pb = b_ptr[j], eb = b_ptr[j + 1];
        bool found = false;
        T acc = T();
        while (pa < ea && pb < eb) {
            const idx_t ka = a_idx[pa], kb = b_idx[pb];
            if (ka < kb) {
                pa = gallop(a_idx, pa + 1, ea, kb);
            } else if (kb < ka) {
                pb = gallop(b_idx, pb + 1, eb, ka);
            } else {
                const T v = sr_mul(x_vals ? a_val[pa] : x_t(), a_vals ? b_val[pb] : a_t(),
                                   (long long)ka, j);
                acc = found ? sr_add(acc, v) : v;
                found = true;
#if IS_ANY
                break;
#endif
#if HAS_TERMINAL
                if (acc == term) break;
#endif
                ++pa;
                ++pb;
            }
        }
        present[p] = found;
        out[p] = acc;
    }
}

// SpMM: C[i, c] = (+)_k mul(A[i, k], B[k, c], k, c) for a dense row-major B (w columns), on
// the positions the dense mask allows (the identity elsewhere and where row i is empty).
// `have`/`acc` accumulate one lane's column over the edges [from, to) of row i taken 32 at
// a time, `step` apart: each lane loads one edge, the warp shares them by shuffles, so the
// row of B an edge selects is one coalesced load per 32 columns.  Returns early (at a
// chunk's end) once every allowed lane holds the first value ("any") or the terminal.
__device__ __forceinline__ void spmm_edges(const idx_t* __restrict__ indices,
                                           const x_t* __restrict__ data, int x_vals,
                                           const a_t* __restrict__ B, long long w, long long c,
                                           bool allowed, long long from, long long to,
                                           long long step, T term, T& acc, bool& have)
{
    (void)term;
    const int lane = threadIdx.x & 31;
    for (long long base = from; base < to; base += step) {
        long long k_l = 0;
        x_t x_l = x_t();
        if (base + lane < to) {
            k_l = (long long)indices[base + lane];
            if (x_vals) x_l = data[base + lane];
        }
        const int count = to - base < 32 ? (int)(to - base) : 32;
#pragma unroll 8
        for (int e = 0; e < count; ++e) {
            const long long k = __shfl_sync(FULL_WARP, k_l, e);
            const x_t x = shfl_value(x_l, e);
            if (allowed) {
                const T v = sr_mul(x, B[k * w + c], k, c);
                acc = have ? sr_add(acc, v) : v;
                have = true;
            }
        }
#if IS_ANY
        if (!__any_sync(FULL_WARP, allowed && !have)) break;
#elif HAS_TERMINAL
        if (!__any_sync(FULL_WARP, allowed && !(have && acc == term))) break;
#endif
    }
}

// One warp per (row, tile of 32 output columns), lane l on column tile * 32 + l; a tile the
// mask allows nowhere costs one ballot.  Rows of more than `heavy` entries are left to
// sr_spmm_heavy.  With `keep`, the positions the mask does not allow keep C's values.
extern "C" __global__ void
sr_spmm(const ptr_t* __restrict__ indptr, const idx_t* __restrict__ indices,
        const x_t* __restrict__ data, int x_vals, const a_t* __restrict__ B, long long m,
        long long w, const bool* __restrict__ mask, int use_mask, int complement, int keep,
        long long heavy, T identity, T term, T* __restrict__ C)
{
    const int lane = threadIdx.x & 31;
    const long long tiles = (w + 31) >> 5;
    const long long warp0 = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
    for (long long item = warp0; item < m * tiles; item += nwarps) {
        const long long i = item / tiles;
        const long long c = (item - i * tiles) * 32 + lane;
        const long long lo = (long long)indptr[i], hi = (long long)indptr[i + 1];
        if (hi - lo > heavy) continue;
        const long long at = i * w + c;
        const bool allowed = c < w && !(use_mask && (mask[at] == (bool)complement));
        T acc = identity;
        bool have = false;
        if (__any_sync(FULL_WARP, allowed))
            spmm_edges(indices, data, x_vals, B, w, c, allowed, lo, hi, 32, term, acc, have);
        if (c < w && (allowed || !keep)) C[at] = have ? acc : identity;
    }
}

// The rows of more than `heavy` entries (listed in `rows`): a block of SPMM_WARPS warps per
// (row, tile), the warps taking the row's chunks of 32 in turn; warp 0 combines the partials.
#define SPMM_WARPS 32
extern "C" __global__ void __launch_bounds__(SPMM_WARPS * 32)
sr_spmm_heavy(const ptr_t* __restrict__ indptr, const idx_t* __restrict__ indices,
              const x_t* __restrict__ data, int x_vals, const a_t* __restrict__ B,
              const long long* __restrict__ rows, long long nrows, long long w,
              const bool* __restrict__ mask, int use_mask, int complement, int keep,
              T identity, T term, T* __restrict__ C)
{
    __shared__ T part[SPMM_WARPS][32];
    __shared__ bool part_has[SPMM_WARPS][32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const long long tiles = (w + 31) >> 5;
    for (long long item = blockIdx.x; item < nrows * tiles; item += gridDim.x) {
        const long long i = rows[item / tiles];
        const long long c = (item % tiles) * 32 + lane;
        const long long at = i * w + c;
        const bool allowed = c < w && !(use_mask && (mask[at] == (bool)complement));
        T acc = identity;
        bool have = false;
        if (__any_sync(FULL_WARP, allowed))
            spmm_edges(indices, data, x_vals, B, w, c, allowed,
                       (long long)indptr[i] + 32 * warp, (long long)indptr[i + 1],
                       32 * SPMM_WARPS, term, acc, have);
        part[warp][lane] = acc;
        part_has[warp][lane] = have;
        __syncthreads();
        if (warp == 0) {
            for (int v = 1; v < SPMM_WARPS; ++v) {
                if (part_has[v][lane]) {
                    acc = have ? sr_add(acc, part[v][lane]) : part[v][lane];
                    have = true;
                }
            }
            if (c < w && (allowed || !keep)) C[at] = have ? acc : identity;
        }
        __syncthreads();
    }
}
