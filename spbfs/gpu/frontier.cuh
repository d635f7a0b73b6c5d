// The frontier's arcs numbered in order (the frontier entry, then the arc's storage
// position): e in [0, offs[n]), offs the prefix sum of the frontier entries' degrees.
// Prepended to the kernels that give a thread to each arc (semiring, packed and queue).

// The frontier entry of arc number e: the last i with offs[i] <= e.
__device__ __forceinline__ long long arc_row(const long long* offs, long long n, long long e)
{
    long long lo = 0, hi = n;  // offs[lo] <= e < offs[hi]
    while (hi - lo > 1) {
        const long long mid = (lo + hi) >> 1;
        if (offs[mid] <= e) lo = mid; else hi = mid;
    }
    return lo;
}
