// The queue order of spbfs.semiring.queue_order, one level at a time.  The arcs of the
// level's frontier are numbered in the queue's order (the frontier vertex's position, then
// the arc's storage position): e in [0, offs[nq]), offs the prefix sum of the frontier's
// degrees.  A vertex not seen yet takes the frontier vertex of its lowest-numbered arc as
// its parent, and the next level lists those vertices by that number.
// Prepended: typedefs idx_t (column ids) and ptr_t (row offsets), and frontier.cuh.

__device__ __forceinline__ long long arc_target(const ptr_t* indptr, const idx_t* indices,
                                                const long long* q, const long long* offs,
                                                long long i, long long e)
{
    return (long long)indices[indptr[q[i]] + (ptr_t)(e - offs[i])];
}

// key[v] = the lowest number of an arc into v, for v not seen yet (key: all ones before).
extern "C" __global__ void queue_claim(const ptr_t* indptr, const idx_t* indices,
                                       const long long* q, const long long* offs,
                                       long long nq, const bool* seen,
                                       unsigned long long* key)
{
    const long long total = offs[nq];
    for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < total;
         e += (long long)gridDim.x * blockDim.x) {
        long long v = arc_target(indptr, indices, q, offs, arc_row(offs, nq, e), e);
        if (!seen[v]) atomicMin(key + v, (unsigned long long)e);
    }
}

// first[e]: arc e is its target's lowest-numbered arc from the frontier.
extern "C" __global__ void queue_first(const ptr_t* indptr, const idx_t* indices,
                                       const long long* q, const long long* offs,
                                       long long nq, const bool* seen,
                                       const unsigned long long* key, bool* first)
{
    const long long total = offs[nq];
    for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < total;
         e += (long long)gridDim.x * blockDim.x) {
        long long v = arc_target(indptr, indices, q, offs, arc_row(offs, nq, e), e);
        first[e] = !seen[v] && key[v] == (unsigned long long)e;
    }
}

// The next level from its arcs (ascending numbers): level[k] their targets, found_by[k]
// the frontier vertex of each; each target seen and its key cleared for later levels.
extern "C" __global__ void queue_take(const ptr_t* indptr, const idx_t* indices,
                                      const long long* q, const long long* offs,
                                      long long nq, const long long* arcs, long long count,
                                      long long* level, long long* found_by, bool* seen,
                                      unsigned long long* key)
{
    for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < count;
         k += (long long)gridDim.x * blockDim.x) {
        long long e = arcs[k];
        long long i = arc_row(offs, nq, e);
        long long v = arc_target(indptr, indices, q, offs, i, e);
        level[k] = v;
        found_by[k] = q[i];
        seen[v] = true;
        key[v] = ~0ULL;
    }
}
