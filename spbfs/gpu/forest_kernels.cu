// spbfs GPU forest pruning: a search's outputs on the whole graph from its core's, after the
// caller's fill of -1.
//
// Compiled by spbfs.gpu.kernels with this line prepended:
//   typedef <int|long long> idx_t;   vertex ids
// One grid-stride pass over the core (core vertex core[i] takes its core outputs, levels
// shifted by the source's depth in its tree) and one over the trees (tree[s] is reached when
// its attachment, core id attach_core[s], is: tree_depth[s] levels below it, its parent
// tree_parent[s]).  Absent arrays are null (levels or parents not wanted).

extern "C" __global__ void
forest_outputs(const idx_t* __restrict__ core, long long ncore,
               const idx_t* __restrict__ core_levels, const idx_t* __restrict__ core_parents,
               long long shift, const idx_t* __restrict__ tree, long long ntree,
               const idx_t* __restrict__ tree_parent, const idx_t* __restrict__ attach_core,
               const idx_t* __restrict__ tree_depth, idx_t* __restrict__ levels,
               idx_t* __restrict__ parents)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    const long long t0 = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    for (long long i = t0; i < ncore; i += stride) {
        const long long v = (long long)core[i];
        if (levels) {
            const long long l = (long long)core_levels[i];
            levels[v] = (idx_t)(l >= 0 ? l + shift : -1);
        }
        if (parents)
            parents[v] = core_parents[i];
    }
    for (long long s = t0; s < ntree; s += stride) {
        const long long a = (long long)attach_core[s];
        const long long above = core_levels ? (long long)core_levels[a]
                                            : (long long)core_parents[a];
        if (above < 0)
            continue;
        const long long v = (long long)tree[s];
        if (levels)
            levels[v] = (idx_t)(above + shift + (long long)tree_depth[s]);
        if (parents)
            parents[v] = tree_parent[s];
    }
}
