"""Every ``spbfs.csgraph`` drop-in against the ``scipy.sparse.csgraph`` function it replaces,
on the same Graph500 Kronecker graph (edgefactor 16, undirected: both directions stored,
duplicates merged, self-loops dropped; integer weights in [1, 64], the same both ways).

Each case runs scipy, then spbfs, on the same arguments; the best of ``--repeat`` runs
after one warm-up call each (spbfs' first call on a matrix also builds its cached form).
Results are checked equal (orders, predecessors, labels up to renaming, distances, flows,
matchings and permutations; spanning forests and full matchings by their total weight,
which equal weights leave free to differ in their edges; the GPU's maximum matching by its
size and its pairs).

With ``--device gpu`` spbfs is given the graphs as cupyx CSR matrices (float64: cupyx
holds no integers, so maximum_flow's capacities are floats holding integers) and timed on
the GPU (each call followed by a device synchronisation), scipy on the host as before; the
results are copied back to the host to be checked.

Usage: python benchmarks/bench_csgraph.py [--scales 14 16 18] [--repeat 3] [--skip WORD ...]
       [--device cpu|gpu]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import scipy.sparse as sp
from scipy.sparse import csgraph as scipy_csgraph

from spbfs import csgraph as spbfs_csgraph
from spbfs.graph500.generate import kronecker


def graph(scale, seed=1):
    u, v = kronecker(scale, 16, seed)
    keep = u != v
    u, v = u[keep], v[keep]
    n = 1 << scale
    A = sp.csr_array((np.ones(u.size), (u, v)), shape=(n, n))
    A = ((A + A.T) != 0).astype(np.float64).tocsr()
    A.data = np.random.default_rng(seed).integers(1, 65, A.nnz).astype(np.float64)
    A = sp.triu(A, 1).tocsr()
    A = (A + A.T).tocsr()
    A.indices, A.indptr = A.indices.astype(np.int32), A.indptr.astype(np.int32)  # scipy's yen
    return A


def best(fn, repeat, sync=lambda: None):
    fn()
    sync()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        sync()
        times.append(time.perf_counter() - t)
    return min(times), out


class Device:
    """Moves the benchmark's arguments to spbfs's device and its results back."""

    def __init__(self, name):
        self.name = name
        self._moved: dict = {}
        if name == "gpu":
            import cupy

            self.cupy = cupy
            self.sync = cupy.cuda.Device().synchronize
        else:
            self.sync = lambda: None

    def arg(self, a):
        """A scipy matrix as a cupyx CSR of float64 (cached per matrix); anything else as
        it is."""
        if self.name != "gpu" or not sp.issparse(a):
            return a
        key = id(a)
        if key not in self._moved:
            import cupyx.scipy.sparse as csp

            host = sp.csr_matrix(a, dtype=np.float64)
            host.indices = host.indices.astype(np.int32)
            host.indptr = host.indptr.astype(np.int32)
            self._moved[key] = (a, csp.csr_matrix(host))
        return self._moved[key][1]

    def result(self, out):
        """A device result on the host (scipy sparse results as csr/coo arrays)."""
        if self.name != "gpu":
            return out
        from scipy.sparse.csgraph._flow import MaximumFlowResult

        if isinstance(out, tuple):
            return tuple(self.result(o) for o in out)
        if isinstance(out, MaximumFlowResult):
            return MaximumFlowResult(out.flow_value, self.result(out.flow))
        if hasattr(out, "get"):
            host = out.get()
            if sp.issparse(host):
                return sp.coo_array(host) if host.format == "coo" else sp.csr_array(host)
            return host
        return out


def same_partition(a, b):
    (na, la), (nb, lb) = a, b
    return na == nb and len(set(zip(la.tolist(), lb.tolist(), strict=True))) == na


def close(a, b):
    if isinstance(a, tuple):
        return all(close(x, y) for x, y in zip(a, b, strict=True))
    return np.array_equal(a, b) or np.allclose(a, b, equal_nan=True)


def kronecker_digraph(scale, seed=1):
    """The Kronecker arcs as generated (``u -> v``), duplicates summed: a digraph with a
    giant strong component and many small ones."""
    u, v = kronecker(scale, 16, seed)
    n = 1 << scale
    A = sp.csr_array((np.ones(u.size), (u, v)), shape=(n, n))
    A.sum_duplicates()
    return A


def cases(A, roots, scale):
    directed = sp.triu(A, 1).tocsr()
    # the DAG's first vertex with an out-arc: a low id, so it reaches much of the DAG (a
    # random root of the undirected graph reaches a handful of vertices in it)
    dag_root = int(np.flatnonzero(np.diff(directed.indptr))[0])
    return [
        ("breadth_first_order undirected", "breadth_first_order", (A, roots[0]),
         {"directed": False}, close),
        ("breadth_first_order directed", "breadth_first_order", (directed, dag_root), {},
         close),
        ("breadth_first_tree", "breadth_first_tree", (A, roots[0]), {"directed": False},
         lambda a, b: (a != b).nnz == 0),
        ("connected_components weak", "connected_components", (A,),
         {"directed": True, "connection": "weak"}, same_partition),
        ("connected_components strong", "connected_components", (directed,),
         {"directed": True, "connection": "strong"}, same_partition),
        ("connected_components strong, Kronecker digraph", "connected_components",
         (kronecker_digraph(scale),), {"directed": True, "connection": "strong"},
         same_partition),
        ("shortest_path unweighted, 1 source", "shortest_path", (A,),
         {"unweighted": True, "indices": roots[0]}, close),
        ("dijkstra, 1 source", "dijkstra", (A,), {"indices": roots[0]}, close),
        ("dijkstra, 8 sources", "dijkstra", (A,), {"indices": roots[:8]}, close),
        ("dijkstra, 1 source, limit 40", "dijkstra", (A,),
         {"indices": roots[0], "limit": 40.0}, close),
        ("bellman_ford, 1 source", "bellman_ford", (A,), {"indices": roots[0]}, close),
        ("johnson, 1 source", "johnson", (directed,), {"indices": dag_root}, close),
        ("yen, K=4", "yen", (A, roots[0], roots[1], 4), {}, close),
        ("depth_first_order undirected", "depth_first_order", (A, roots[0]),
         {"directed": False}, close),
        ("depth_first_order directed", "depth_first_order", (directed, dag_root), {}, close),
        ("depth_first_tree", "depth_first_tree", (A, roots[0]), {"directed": False},
         lambda a, b: (a != b).nnz == 0),
        ("minimum_spanning_tree", "minimum_spanning_tree", (A,), {}, same_forest_weight),
        ("reverse_cuthill_mckee", "reverse_cuthill_mckee", (A,), {}, close),
        ("maximum_bipartite_matching", "maximum_bipartite_matching", (A,), {},
         same_matching_size(A)),
        ("structural_rank", "structural_rank", (A,), {}, close),
        ("min_weight_full_bipartite_matching", "min_weight_full_bipartite_matching",
         (with_diagonal(A),), {}, same_matching_cost(with_diagonal(A))),
        ("maximum_flow dinic", "maximum_flow", (capacities(A), roots[0], roots[1]),
         {"method": "dinic"}, same_flow),
        ("maximum_flow edmonds_karp", "maximum_flow", (capacities(A), roots[0], roots[1]),
         {"method": "edmonds_karp"}, same_flow),
        ("laplacian", "laplacian", (A,), {}, same_sparse),
        ("laplacian normed, out-degree", "laplacian", (A,),
         {"normed": True, "use_out_degree": True}, same_sparse),
    ]


def same_forest_weight(a, b):
    """Spanning forests of equal size and weight (equal weights may pick other edges)."""
    return a.nnz == b.nnz and np.isclose(a.sum(), b.sum())


def same_sparse(a, b):
    return abs(a.tocsr() - b.tocsr()).max() <= 1e-12


def same_flow(a, b):
    return a.flow_value == b.flow_value and (a.flow != b.flow).nnz == 0


def capacities(A):
    """A's weights as int32 capacities (maximum_flow wants integers), cached per matrix."""
    cache = _derived.setdefault(("cap", id(A)), None)
    if cache is None:
        cache = _derived[("cap", id(A))] = A.astype(np.int32)
    return cache


def with_diagonal(A):
    """A plus a weighted diagonal: a full matching exists (the diagonal), cached."""
    cache = _derived.get(("diag", id(A)))
    if cache is None:
        n = A.shape[0]
        diag = sp.diags_array(np.random.default_rng(3).integers(1, 65, n).astype(float))
        cache = _derived[("diag", id(A))] = (A + diag).tocsr()
    return cache


def same_matching_size(B):
    """A matching (the row of each column) of as many pairs as scipy's, each an entry of
    B, no row twice: the GPU's maximum matching may pair others than scipy's."""
    def same(a, b):
        cols = np.flatnonzero(b >= 0)
        rows = b[cols]
        return (cols.size == int((a >= 0).sum()) and np.unique(rows).size == rows.size
                and bool((B[rows, cols] != 0).all()))
    return same


def same_matching_cost(B):
    def same(a, b):
        return np.isclose(B[a[0], a[1]].sum(), B[b[0], b[1]].sum())
    return same


_derived: dict = {}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scales", type=int, nargs="+", default=[14, 16, 18])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--skip", nargs="+", default=[], metavar="WORD",
                    help="leave out the cases whose name holds a word (scipy's bellman_ford "
                         "and johnson take minutes from scale 16)")
    ap.add_argument("--only", nargs="+", default=[], metavar="WORD",
                    help="run only the cases whose name holds one of these words")
    ap.add_argument("--device", choices=["cpu", "gpu"], default="cpu",
                    help="where spbfs runs (gpu: cupyx inputs, timed with a device sync); "
                         "scipy always runs on the host")
    args = ap.parse_args()
    device = Device(args.device)
    where = "spbfs (GPU) ms" if args.device == "gpu" else "spbfs ms"
    print(f"| scale | case | scipy ms | {where} | spbfs / scipy | same result |")
    print("|---:|---|---:|---:|---:|---|")
    for scale in args.scales:
        A = graph(scale)
        degree = np.diff(A.indptr)
        roots = np.random.default_rng(2).choice(np.flatnonzero(degree > 0), 8, replace=False)
        roots = [int(r) for r in roots]
        for name, func, call_args, kwargs, same in cases(A, roots, scale):
            if any(word in name for word in args.skip) or (
                    args.only and not any(word in name for word in args.only)):
                continue
            t_scipy, want = best(lambda f=func, a=call_args, k=kwargs:
                                 getattr(scipy_csgraph, f)(*a, **k), args.repeat)
            moved = tuple(device.arg(a) for a in call_args)
            t_spbfs, got = best(lambda f=func, a=moved, k=kwargs:
                                getattr(spbfs_csgraph, f)(*a, **k), args.repeat, device.sync)
            got = device.result(got)
            print(f"| {scale} | {name} | {1e3 * t_scipy:.2f} | {1e3 * t_spbfs:.2f} | "
                  f"{t_spbfs / t_scipy:.2f}x | {'yes' if same(want, got) else 'NO'} |",
                  flush=True)


if __name__ == "__main__":
    main()
