// spbfs segmented reduction for any monoid (the GPU side of spbfs.semiring's reduce,
// duplicate summing and SpGEMM/SpMM accumulation).
//
// Compiled by spbfs.gpu.kernels with these lines prepended:
//   typedef ... T;                    value type
//   #define SR_ADD(a, b) (...)        the monoid, from Monoid.c_expr

// out[s, c] = values[starts[s], c] (+) ... (+) values[starts[s + 1] - 1, c]; one thread per
// (segment, column), the segments of `width` columns stored row-major.
extern "C" __global__ void
segment_reduce(const T* __restrict__ values, const long long* __restrict__ starts,
               long long nseg, long long total, long long width, T* __restrict__ out)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < nseg * width;
         t += stride) {
        const long long s = t / width, c = t - s * width;
        const long long lo = starts[s], hi = s + 1 < nseg ? starts[s + 1] : total;
        T acc = values[lo * width + c];
        for (long long p = lo + 1; p < hi; ++p) {
            const T b = values[p * width + c];
            const T a = acc;
            acc = (T)(SR_ADD(a, b));
        }
        out[t] = acc;
    }
}
