// spbfs GPU forest pruning: a search's outputs on the whole graph from its core's.
//
// Compiled by spbfs.gpu.kernels with this line prepended:
//   typedef <int|long long> idx_t;   vertex ids
// where[v]: v's core id (>= 0), -2 - its tree slot, or -1 (no edge).  A core vertex copies
// its core outputs (levels shifted by the source's depth in its tree); a tree vertex is
// reached when its attachment is, one tree level per step below it, its parent its tree
// parent; the rest stay -1.  Absent arrays are null (levels or parents not wanted).

extern "C" __global__ void
forest_outputs(const idx_t* __restrict__ where, long long n,
               const idx_t* __restrict__ core_levels, const idx_t* __restrict__ core_parents,
               long long shift, const idx_t* __restrict__ tree_parent,
               const idx_t* __restrict__ attach_core, const idx_t* __restrict__ tree_depth,
               idx_t* __restrict__ levels, idx_t* __restrict__ parents)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) {
        const long long w = (long long)where[v];
        long long lev = -1, par = -1;
        if (w >= 0) {
            if (core_levels) {
                const long long l = (long long)core_levels[w];
                lev = l >= 0 ? l + shift : -1;
            }
            if (core_parents)
                par = (long long)core_parents[w];
        } else if (w <= -2) {
            const long long s = -2 - w, a = (long long)attach_core[s];
            const long long above = core_levels ? (long long)core_levels[a]
                                                : (long long)core_parents[a];
            if (above >= 0) {
                lev = core_levels ? above + shift + (long long)tree_depth[s] : -1;
                par = (long long)tree_parent[s];
            }
        }
        if (levels)
            levels[v] = (idx_t)lev;
        if (parents)
            parents[v] = (idx_t)par;
    }
}
