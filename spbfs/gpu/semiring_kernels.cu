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
