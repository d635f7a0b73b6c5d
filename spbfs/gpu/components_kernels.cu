// spbfs GPU weak components: a concurrent union-find over the arcs.
//
// Compiled by spbfs.gpu.kernels with these lines prepended:
//   typedef <int|long long> idx_t;   column indices of the CSR
//   typedef <int|long long> ptr_t;   row offsets of the CSR
// parent[] holds int vertex ids (fewer than 2**31 vertices).  A link only ever points a
// root at a smaller root (one atomicCAS that fails if the root was linked meanwhile), so
// parents decrease along every path and the root of a tree is its smallest vertex.  The
// linking finds halve their paths with plain stores: they only write vertices that are no
// longer roots, and only ever an ancestor, so they never race with a link.

__device__ __forceinline__ int uf_parent(const int* parent, int v)
{
    return *((volatile const int*)(parent + v));
}

__device__ __forceinline__ int uf_root(int* parent, int v)
{
    for (;;) {
        const int p = uf_parent(parent, v);
        if (p == v) return v;
        const int g = uf_parent(parent, p);
        if (g == p) return p;
        parent[v] = g;
        v = g;
    }
}

__device__ __forceinline__ void uf_union(int* parent, int a, int b)
{
    a = uf_root(parent, a);
    b = uf_root(parent, b);
    while (a != b) {
        if (a < b) {  // link the larger root under the smaller
            const int t = a;
            a = b;
            b = t;
        }
        const int was = atomicCAS(parent + a, a, b);
        if (was == a) return;
        a = uf_root(parent, was);  // a was linked meanwhile: go on from its tree's root
        b = uf_root(parent, b);
    }
}

extern "C" __global__ void
uf_init(int* __restrict__ parent, long long n)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride)
        parent[v] = (int)v;
}

// One warp per row, its lanes over the row's arcs: every arc u -> v joins u and v (only
// the arcs with v < u when the pattern is symmetric: the reverse arcs stand for the rest).
extern "C" __global__ void
uf_hook(const ptr_t* __restrict__ indptr, const idx_t* __restrict__ indices, long long n,
        int symmetric, int* parent)
{
    const int lane = threadIdx.x & 31;
    const long long warp0 = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
    for (long long u = warp0; u < n; u += nwarps) {
        const ptr_t end = indptr[u + 1];
        for (ptr_t p = indptr[u] + lane; p < end; p += 32) {
            const long long v = (long long)indices[p];
            if (symmetric && v >= u) continue;
            uf_union(parent, (int)u, (int)v);
        }
    }
}

// After every link: each vertex points at its root (the smallest vertex of its component).
// The walk only reads: a halving store here could put back a non-root parent over another
// thread's final one.
extern "C" __global__ void
uf_flatten(int* parent, long long n)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) {
        int r = (int)v, p;
        while ((p = uf_parent(parent, r)) != r) r = p;
        parent[v] = r;
    }
}
