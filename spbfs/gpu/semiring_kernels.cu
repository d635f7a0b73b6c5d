// spbfs generic semiring kernels: masked SpMSpV (push) and masked SpMV (pull).
//
// Compiled by spbfs.gpu.kernels with these lines prepended:
//   typedef ... x_t;  a_t;  T;        vector, matrix and output value types
//   typedef ... idx_t; ptr_t; xi_t;   column indices, row offsets, vector indices
//   #define IS_ANY 0|1                monoid "any": keep one value, plain writes
//   #define HAS_TERMINAL 0|1          pull stops once the sum equals `term`
//   #define SR_ADD(a, b) (...)        the monoid, from Monoid.c_expr
//   #define SR_MUL(x, a, i, j) (...)  the multiply, from BinaryOp.c_expr

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
// offs[k] <= e < offs[k + 1] (binary search in the prefix sum of frontier degrees).
extern "C" __global__ void
sr_push(const ptr_t* __restrict__ indptr, const idx_t* __restrict__ indices,
        const a_t* __restrict__ data, const xi_t* __restrict__ x_idx,
        const x_t* __restrict__ x_val, const long long* __restrict__ offs, long long nx,
        long long total, const bool* __restrict__ mask, int use_mask, int complement,
        T* y, bool* present)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += stride) {
        long long lo = 0, hi = nx;  // find the last k with offs[k] <= e
        while (hi - lo > 1) {
            const long long mid = (lo + hi) >> 1;
            if (offs[mid] <= e) lo = mid; else hi = mid;
        }
        const long long i = (long long)x_idx[lo];
        const long long p = (long long)indptr[i] + (e - offs[lo]);
        const long long j = (long long)indices[p];
        if (use_mask && (mask[j] == (bool)complement)) continue;
        const T val = sr_mul(x_val[lo], data[p], i, j);
#if IS_ANY
        y[j] = val;
#else
        atomic_combine(y + j, val);
#endif
        present[j] = true;
    }
}

// One thread per output j: reduce over row j of A.T (the in-edges of j) the entries whose
// source is present in x; stop at the first hit for "any", at the terminal value else.
extern "C" __global__ void
sr_pull(const ptr_t* __restrict__ tindptr, const idx_t* __restrict__ tindices,
        const a_t* __restrict__ tdata, const bool* __restrict__ x_present,
        const x_t* __restrict__ x_val, long long n, const bool* __restrict__ mask,
        int use_mask, int complement, T term, T* y, bool* present)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += stride) {
        if (use_mask && (mask[j] == (bool)complement)) continue;
        T acc = T();
        bool have = false;
        const long long end = (long long)tindptr[j + 1];
        for (long long p = (long long)tindptr[j]; p < end; ++p) {
            const long long i = (long long)tindices[p];
            if (!x_present[i]) continue;
            const T v = sr_mul(x_val[i], tdata[p], i, j);
#if IS_ANY
            acc = v;
            have = true;
            break;
#else
            acc = have ? sr_add(acc, v) : v;
            have = true;
#if HAS_TERMINAL
            if (acc == term) break;
#endif
#endif
        }
        (void)term;
        if (have) {
            y[j] = acc;
            present[j] = true;
        }
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
