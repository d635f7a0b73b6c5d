// The dense form of a k x n matrix of small codes stored as bit-planes
// (spbfs.semiring.unpack_bitplanes): out[s * ss + v * sj] is the integer whose bit b is bit s
// of planes[b * n + v] where bit s of present[v] is set, and -1 elsewhere.  A thread per
// column v keeps the column's plane words in registers and writes its k codes, one row
// after another: the stores of a warp go to 32 consecutive columns of a row (coalesced).
// Prepended: typedef out_t.

typedef unsigned long long word_t;

#define REG_PLANES 8

extern "C" __global__ void
unpack_bitplanes(const word_t* __restrict__ planes, int nplanes,
                 const word_t* __restrict__ present, long long n, int k,
                 out_t* __restrict__ out, long long ss, long long sj)
{
    const long long step = (long long)gridDim.x * blockDim.x;
    for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += step) {
        word_t reg[REG_PLANES];
#pragma unroll
        for (int b = 0; b < REG_PLANES; ++b) reg[b] = b < nplanes ? planes[b * n + v] : 0;
        word_t here = present[v];
        for (int s = 0; s < k; ++s) {
            out_t code = -1;
            if (here & 1) {
                code = 0;
#pragma unroll
                for (int b = 0; b < REG_PLANES; ++b) code |= (out_t)((reg[b] >> s) & 1) << b;
                for (int b = REG_PLANES; b < nplanes; ++b)
                    code |= (out_t)((planes[b * n + v] >> s) & 1) << b;
            }
            out[s * ss + v * sj] = code;
            here >>= 1;
        }
    }
}
