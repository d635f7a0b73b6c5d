// spbfs.semiring.greedy_colors on the GPU: Jones and Plassmann's rounds, a warp a vertex.
// prepended: typedefs idx_t (column index), ptr_t (row pointer).
//
// A vertex is coloured once every neighbour before it (a smaller rank: coloured earlier in
// the sequential greedy order) is coloured: it then takes the smallest colour none of them
// holds, so the colours are the sequential greedy colouring's whatever the rounds' timing.
// A round reads the colours of this round's earlier writes where it sees them (a colour is
// written once, from -1 to its value: a read sees one or the other, and -1 only delays).

#define FULL_MASK 0xffffffffu
// The most 64-bit words of colour bits a warp keeps (colours below 64 * MAX_WORDS).
#define MAX_WORDS 64
#define WARPS 8

// rank[order[i]] = i
extern "C" __global__ void color_rank(const long long* __restrict__ order, long long n,
                                      long long* rank) {
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        rank[order[i]] = i;
}

// One round over the vertices of `list` (counts[round % 3] of them): a warp scans a vertex's
// neighbours before it from resume[v] (every one before that position is coloured) until
// one is not coloured yet (the vertex goes to `next`, counted in counts[(round + 1) % 3],
// and resumes there), else gathers their colours as bits (`words` words) and takes the
// lowest clear one (`overflow` set where all are set: the caller colours another way).
// counts[(round + 2) % 3], the last round's input, is set to 0 for the next round's output.
extern "C" __global__ void color_round(const ptr_t* __restrict__ ip, const idx_t* __restrict__ ix,
                                       const long long* __restrict__ rank, long long* colour,
                                       ptr_t* resume, const long long* __restrict__ list,
                                       long long* next, unsigned long long* counts, int round,
                                       int words, int* overflow) {
    __shared__ unsigned long long bits[WARPS][MAX_WORDS];
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const unsigned long long count = counts[round % 3];
    if (blockIdx.x == 0 && threadIdx.x == 0) counts[(round + 2) % 3] = 0;
    const long long warps = (long long)gridDim.x * WARPS;
    for (long long i = (long long)blockIdx.x * WARPS + warp; i < (long long)count; i += warps) {
        const long long v = list[i], rv = rank[v];
        const ptr_t end = ip[v + 1];
        ptr_t waiting_at = end;
        for (ptr_t p0 = resume[v]; p0 < end; p0 += 32) {
            const ptr_t p = p0 + lane;
            bool waits = false;
            if (p < end) {
                const long long u = (long long)ix[p];
                waits = u != v && rank[u] < rv && ((volatile long long*)colour)[u] < 0;
            }
            const unsigned mask = __ballot_sync(FULL_MASK, waits);
            if (mask) {
                waiting_at = p0 + __ffs(mask) - 1;
                break;
            }
        }
        if (waiting_at < end) {
            if (lane == 0) {
                resume[v] = waiting_at;
                next[atomicAdd(&counts[(round + 1) % 3], 1ULL)] = v;
            }
            continue;
        }
        for (int w = lane; w < words; w += 32) bits[warp][w] = 0;
        __syncwarp();
        for (ptr_t p = ip[v] + lane; p < end; p += 32) {
            const long long u = (long long)ix[p];
            if (u != v && rank[u] < rv) {   // coloured: read past the L1, as above
                const long long c = ((volatile long long*)colour)[u];
                if (c >= 0 && c < 64LL * words) atomicOr(&bits[warp][c >> 6], 1ULL << (c & 63));
            }
        }
        __syncwarp();
        // the lowest clear bit: the first word (in lane order, then lane + 32) with one
        const unsigned long long free0 = lane < words ? ~bits[warp][lane] : 0ULL;
        const unsigned long long free1 = lane + 32 < words ? ~bits[warp][lane + 32] : 0ULL;
        const unsigned m0 = __ballot_sync(FULL_MASK, free0 != 0);
        const unsigned m1 = __ballot_sync(FULL_MASK, free1 != 0);
        const int l0 = m0 ? __ffs(m0) - 1 : 0, l1 = m1 ? __ffs(m1) - 1 : 0;
        const unsigned long long word0 = __shfl_sync(FULL_MASK, free0, l0);
        const unsigned long long word1 = __shfl_sync(FULL_MASK, free1, l1);
        if (lane == 0) {
            if (m0)
                colour[v] = 64LL * l0 + __ffsll((long long)word0) - 1;
            else if (m1)
                colour[v] = 64LL * (32 + l1) + __ffsll((long long)word1) - 1;
            else
                *overflow = 1;
        }
        __syncwarp();
    }
}
