// spbfs GPU CSR construction by counting sort (undirected: each edge stored both ways).
//
// Compiled by spbfs.gpu.kernels with these lines prepended:
//   typedef <int|long long|...> e_t;   endpoint dtype of the edge list
//   typedef <int|long long> idx_t;      column indices of the CSR
//   typedef <int|long long> ptr_t;      row offsets of the CSR
// Pass 1 counts degrees (cnt), the host turns them into indptr with a prefix sum and
// zeroes cnt, pass 2 scatters each endpoint to indptr[row] + atomicAdd(cnt[row], 1).
// A self-loop (u, u) is stored twice, like any other edge.

extern "C" __global__ void
csr_count(const e_t* __restrict__ u, const e_t* __restrict__ v, long long m,
          unsigned int* __restrict__ cnt)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < m; e += stride) {
        const long long a = (long long)u[e], b = (long long)v[e];
        if (a == b) {
            atomicAdd(cnt + a, 2u);
        } else {
            atomicAdd(cnt + a, 1u);
            atomicAdd(cnt + b, 1u);
        }
    }
}

extern "C" __global__ void
csr_scatter(const e_t* __restrict__ u, const e_t* __restrict__ v, long long m,
            const ptr_t* __restrict__ indptr, unsigned int* __restrict__ cnt,
            idx_t* __restrict__ indices)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < m; e += stride) {
        const long long a = (long long)u[e], b = (long long)v[e];
        const ptr_t pa = indptr[a] + (ptr_t)atomicAdd(cnt + a, 1u);
        indices[pa] = (idx_t)b;
        const ptr_t pb = indptr[b] + (ptr_t)atomicAdd(cnt + b, 1u);
        indices[pb] = (idx_t)a;
    }
}

// min and max of an endpoint array (range check without temporaries): out[0] = min, out[1] = max.
extern "C" __global__ void
edge_minmax(const e_t* __restrict__ u, long long m, long long* out)
{
    long long lo = 0x7fffffffffffffffLL, hi = -0x7fffffffffffffffLL - 1;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < m; e += stride) {
        const long long a = (long long)u[e];
        lo = a < lo ? a : lo;
        hi = a > hi ? a : hi;
    }
    for (int o = 16; o > 0; o >>= 1) {
        const long long l2 = __shfl_xor_sync(0xffffffffu, lo, o);
        const long long h2 = __shfl_xor_sync(0xffffffffu, hi, o);
        lo = l2 < lo ? l2 : lo;
        hi = h2 > hi ? h2 : hi;
    }
    if ((threadIdx.x & 31) == 0) {
        atomicMin(out, lo);
        atomicMax(out + 1, hi);
    }
}

// Hub first: in every row, the ``k`` neighbours of largest degree move to the row's first
// places, largest first (one warp per row, ``k`` selection passes; ties keep the earlier
// one).  A pull scans a vertex's in-neighbours from the row's start and stops at the first
// visited one; hubs are visited early, so the first probes usually end the scan.  Column
// order inside a row is unspecified for the counting-sort build, so this changes no contract.
extern "C" __global__ void
csr_hub_first(const ptr_t* __restrict__ indptr, idx_t* __restrict__ indices, long long n,
              long long k)
{
    const int lane = threadIdx.x & 31;
    const long long warp0 = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
    for (long long r = warp0; r < n; r += nwarps) {
        const long long row = (long long)indptr[r], end = (long long)indptr[r + 1];
        for (long long beg = row; beg < end - 1 && beg < row + k; ++beg) {
            long long best = end, best_deg = -1;
            for (long long p = beg + lane; p < end; p += 32) {
                const long long c = (long long)indices[p];
                const long long d = (long long)(indptr[c + 1] - indptr[c]);
                if (d > best_deg) {
                    best_deg = d;
                    best = p;
                }
            }
            for (int o = 16; o > 0; o >>= 1) {
                const long long d2 = __shfl_xor_sync(0xffffffffu, best_deg, o);
                const long long p2 = __shfl_xor_sync(0xffffffffu, best, o);
                if (d2 > best_deg || (d2 == best_deg && p2 < best)) {
                    best_deg = d2;
                    best = p2;
                }
            }
            if (lane == 0 && best > beg && best < end) {
                const idx_t first = indices[beg];
                indices[beg] = indices[best];
                indices[best] = first;
            }
            __syncwarp();
        }
    }
}

// The pattern of A[keep][:, keep] (keep distinct, any order; index_of[v] its position in keep
// or -1): one warp per kept row.  Pass 1 writes each row's kept entries to counts[i + 1];
// the host's prefix sum makes the new row offsets; pass 2 copies the kept entries in their
// stored order (a row's hubs stay first), renumbered.
extern "C" __global__ void
csr_induced_count(const ptr_t* __restrict__ indptr, const idx_t* __restrict__ indices,
                  const idx_t* __restrict__ keep, long long nkeep,
                  const idx_t* __restrict__ index_of, ptr_t* __restrict__ counts)
{
    const int lane = threadIdx.x & 31;
    const long long warp0 = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
    for (long long i = warp0; i < nkeep; i += nwarps) {
        const long long r = (long long)keep[i];
        long long kept = 0;
        for (long long p = (long long)indptr[r] + lane; p < (long long)indptr[r + 1]; p += 32)
            kept += index_of[indices[p]] >= 0;
        for (int o = 16; o > 0; o >>= 1)
            kept += __shfl_xor_sync(0xffffffffu, kept, o);
        if (lane == 0)
            counts[i + 1] = (ptr_t)kept;
    }
}

extern "C" __global__ void
csr_induced_fill(const ptr_t* __restrict__ indptr, const idx_t* __restrict__ indices,
                 const idx_t* __restrict__ keep, long long nkeep,
                 const idx_t* __restrict__ index_of, const ptr_t* __restrict__ out_ptr,
                 idx_t* __restrict__ out_ind)
{
    const int lane = threadIdx.x & 31;
    const unsigned below = (1u << lane) - 1u;
    const long long warp0 = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
    for (long long i = warp0; i < nkeep; i += nwarps) {
        const long long r = (long long)keep[i];
        const long long beg = (long long)indptr[r], end = (long long)indptr[r + 1];
        long long at = (long long)out_ptr[i];
        for (long long p0 = beg; p0 < end; p0 += 32) {
            const long long p = p0 + lane;
            const idx_t c = p < end ? index_of[indices[p]] : (idx_t)-1;
            const unsigned kept = __ballot_sync(0xffffffffu, c >= 0);
            if (c >= 0)
                out_ind[at + __popc(kept & below)] = c;
            at += __popc(kept);
        }
    }
}
