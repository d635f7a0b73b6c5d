// spbfs GPU forest pruning: a search's outputs on the whole graph from its core's.
//
// Compiled by spbfs.gpu.kernels with this line prepended:
//   typedef <int|long long> idx_t;   vertex ids
// One grid-stride pass over every vertex g of the graph, each written once and coalesced
// (scattered 4-byte writes into the output cost a read-modify-write of their sector):
// where[g] is g's core id, -2 - its tree slot, or -1 (no edge).  A core vertex takes its
// core outputs, the level shifted by the source's depth in its tree and the parent (a core
// id) mapped to the graph's ids through core; tree slot s is reached when its attachment
// (core id attach_core[s]) is, tree_depth[s] levels below it, its parent tree_parent[s].
// Absent arrays are null (levels or parents not wanted).  A thread has FOREST_ILP vertices
// in flight, their loads issued stage by stage (where, then the core outputs, then the
// parent's id and the tree's data).  The pass is bound by its scattered reads (a parent's
// graph id, an attachment's output: a sector each): 2**26 vertices, a third in the core, on
// one H200, 0.55 ms with 2 in flight, 0.59 with 1, 0.75 with 4 and 1.30 with 8 (fewer
// resident threads), against 0.16 ms for a copy of where.

#define FOREST_ILP 2

extern "C" __global__ void
forest_outputs(long long n, const idx_t* __restrict__ where, const idx_t* __restrict__ core,
               const idx_t* __restrict__ core_levels, const idx_t* __restrict__ core_parents,
               long long shift, const idx_t* __restrict__ tree_parent,
               const idx_t* __restrict__ attach_core, const idx_t* __restrict__ tree_depth,
               idx_t* __restrict__ levels, idx_t* __restrict__ parents)
{
    const long long step = (long long)blockDim.x;
    const long long stride = (long long)gridDim.x * step * FOREST_ILP;
    for (long long base = (long long)blockIdx.x * step * FOREST_ILP + threadIdx.x; base < n;
         base += stride) {
        long long w[FOREST_ILP], at[FOREST_ILP];
        long long lev[FOREST_ILP], par[FOREST_ILP];
#pragma unroll
        for (int j = 0; j < FOREST_ILP; ++j) {
            const long long g = base + j * step;
            w[j] = g < n ? (long long)__ldg(where + g) : -1;
        }
#pragma unroll
        for (int j = 0; j < FOREST_ILP; ++j)  // the core slot whose outputs decide g's
            at[j] = w[j] >= 0 ? w[j] : w[j] <= -2 ? (long long)__ldg(attach_core + (-2 - w[j]))
                                                   : -1;
#pragma unroll
        for (int j = 0; j < FOREST_ILP; ++j) {
            lev[j] = at[j] >= 0 && core_levels ? (long long)core_levels[at[j]] : -1;
            par[j] = at[j] >= 0 && core_parents ? (long long)core_parents[at[j]] : -1;
        }
#pragma unroll
        for (int j = 0; j < FOREST_ILP; ++j) {
            const long long g = base + j * step;
            const bool reached = at[j] >= 0 && (core_levels ? lev[j] : par[j]) >= 0;
            long long l = -1, p = -1;
            if (reached && w[j] >= 0) {
                l = lev[j] + shift;
                if (parents)
                    p = (long long)__ldg(core + par[j]);
            } else if (reached) {
                const long long s = -2 - w[j];
                if (levels)
                    l = lev[j] + shift + (long long)__ldg(tree_depth + s);
                if (parents)
                    p = (long long)__ldg(tree_parent + s);
            }
            if (levels && g < n)
                levels[g] = (idx_t)l;
            if (parents && g < n)
                parents[g] = (idx_t)p;
        }
    }
}
