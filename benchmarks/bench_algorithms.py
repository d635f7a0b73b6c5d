"""PageRank, triangle counts, betweenness centrality, weak components, batched shortest paths
and multi-source BFS: spbfs vs NetworkX / scipy and python-graphblas (SuiteSparse:GraphBLAS)
on the same Graph500 Kronecker graph.

Graphs (edgefactor 16, seed 1, ``n = 2**scale``):

* PageRank: the directed edge list ``u -> v``, duplicates summed into weights, self-loops
  kept (a weighted digraph with dangling vertices).
* triangles, betweenness, components, multi-source BFS: the undirected graph (both
  directions stored, duplicates merged, self-loops dropped, values 1).
* shortest paths: the undirected graph with integer weights drawn in [1, 64] (the same
  weight both ways), from the betweenness sources.

Peers: ``networkx.pagerank`` (its scipy implementation; the graph is built before the
clock starts), the same power iteration written directly with scipy.sparse (NetworkX's
loop without its conversions), ``networkx.triangles``,
``networkx.betweenness_centrality_subset`` over the same sources; python-graphblas through
``graphblas_algorithms`` when it is installed, else LAGraph's methods written here with
python-graphblas (PageRank as NetworkX's iteration, triangles by the same two masked
products on the degree-ordered lower triangle, betweenness as ``LAGr_Betweenness``,
components as FastSV, shortest paths as a frontier Bellman-Ford of the k x n distance
matrix, the multi-source BFS as ``any_secondi`` products of a k x n frontier).
``scipy.sparse.csgraph.connected_components`` and ``dijkstra`` are the scipy peers
(``dijkstra`` from at most ``--dijkstra-sources`` of the sources, its time scaled to all).

Times are the best of ``--repeat`` runs after one warm-up (spbfs' first call on a matrix
also builds its cached pattern); NetworkX runs once.  Every result is checked against
spbfs' (L1 difference for PageRank, exact for triangles, max difference for betweenness and
distances, the same partition for components, equal levels for the BFS).

Usage::

    python benchmarks/bench_algorithms.py [--scale 16] [--sources 64] [--repeat 3]
        [--device cpu|gpu|auto] [--no-networkx] [--no-graphblas]
        [--only pagerank triangles betweenness components sssp msbfs]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import scipy.sparse as sp
from scipy.sparse import csgraph

from spbfs.algorithms.centrality import betweenness_centrality
from spbfs.algorithms.components import connected_components
from spbfs.algorithms.msbfs import bfs_many
from spbfs.algorithms.pagerank import pagerank
from spbfs.algorithms.sssp import sssp
from spbfs.algorithms.triangles import triangles
from spbfs.graph500.generate import kronecker
from spbfs.graph500.harness import resolve_device

ALPHA, TOL, MAX_ITER = 0.85, 1e-6, 100


# ----------------------------------------------------------------------------- graphs
def graphs(scale, seed=1):
    n = 1 << scale
    u, v = kronecker(scale, 16, seed=seed)
    directed = sp.coo_array((np.ones(u.size), (u, v)), shape=(n, n)).tocsr()
    directed.sum_duplicates()
    keep = u != v
    rows, cols = np.concatenate([u[keep], v[keep]]), np.concatenate([v[keep], u[keep]])
    undirected = sp.coo_array((np.ones(rows.size), (rows, cols)), shape=(n, n)).tocsr()
    undirected.sum_duplicates()
    undirected.data[:] = 1.0
    return directed, undirected


def weighted(U, seed=1):
    """``U`` with integer weights in [1, 64], the same both ways."""
    upper = sp.triu(U, 1, format="csr")
    upper.data = np.random.default_rng(seed).integers(1, 65, upper.nnz).astype(np.float64)
    return (upper + upper.T).tocsr()


def same_partition(a, b) -> bool:
    """Whether two label arrays group the vertices alike."""
    pairs = np.unique(np.stack([a, b]), axis=1).shape[1]
    return pairs == np.unique(a).size == np.unique(b).size


def on_device(A, device):
    if device == "cpu":
        return A
    import cupyx.scipy.sparse as csp

    A = sp.csr_matrix(A)
    A.indices, A.indptr = A.indices.astype(np.int32), A.indptr.astype(np.int32)
    return csp.csr_matrix(A)


def host(a):
    return a.get() if hasattr(a, "get") else np.asarray(a)


def best_of(fn, repeat, sync=lambda: None, warm=True):
    out = None
    if warm:
        out = fn()
        sync()
    times = []
    for _ in range(max(repeat, 1)):
        t0 = time.perf_counter()
        out = fn()
        sync()
        times.append(time.perf_counter() - t0)
    return min(times), out


# ----------------------------------------------------------------------------- scipy
def scipy_pagerank(A):
    """networkx's _pagerank_scipy loop on a prebuilt CSR (no graph conversion)."""
    n = A.shape[0]
    S = np.asarray(A.sum(axis=1)).ravel()
    nz = S != 0
    S[nz] = 1.0 / S[nz]
    P = sp.dia_array((S, 0), shape=A.shape).tocsr() @ A
    x = np.full(n, 1.0 / n)
    p = np.full(n, 1.0 / n)
    dangling = np.flatnonzero(~nz)
    for _ in range(MAX_ITER):
        last = x
        x = ALPHA * (x @ P + x[dangling].sum() * p) + (1 - ALPHA) * p
        if np.abs(x - last).sum() < n * TOL:
            return x
    raise RuntimeError("scipy pagerank did not converge")


# ----------------------------------------------------------------------------- graphblas
def gb_pagerank(gb, G):
    """NetworkX's iteration (uniform teleport and dangling) with python-graphblas."""
    n = G.nrows
    out = gb.select.valuegt(G.reduce_rowwise(gb.monoid.plus).new(), 0.0).new()
    inv = out.apply(gb.unary.minv).new()
    x = gb.Vector.from_scalar(1.0 / n, n)
    for _ in range(MAX_ITER):
        w = x.ewise_mult(inv, gb.binary.times).new()
        y = gb.semiring.plus_times(w @ G).new()
        lost = x.dup(mask=~out.S).reduce(gb.monoid.plus).get(0.0)
        new = gb.Vector.from_scalar((1 - ALPHA) / n + ALPHA * lost / n, n)
        new(gb.binary.plus) << y.apply(gb.binary.times, right=ALPHA)
        err = new.ewise_add(x, gb.binary.minus).new().apply(gb.unary.abs).reduce().get(0.0)
        x = new
        if err < n * TOL:
            return x.to_dense(0.0)
    raise RuntimeError("graphblas pagerank did not converge")


def gb_triangles(gb, G):
    """Per-vertex counts: rowsum + colsum of L .* (L L') plus colsum of L .* (L L), on the
    strict lower triangle of the degree-ordered pattern (as spbfs)."""
    n = G.nrows
    deg = G.reduce_rowwise(gb.agg.count).new().to_dense(0)
    perm = np.argsort(deg, kind="stable")
    P = G[perm, perm].new()
    L = gb.select.tril(P, -1).new()
    C1 = gb.semiring.plus_pair(L @ L.T).new(mask=L.S)
    C2 = gb.semiring.plus_pair(L @ L).new(mask=L.S)
    t = (C1.reduce_rowwise().new().to_dense(0) + C1.reduce_columnwise().new().to_dense(0)
         + C2.reduce_columnwise().new().to_dense(0))
    out = np.empty(n, np.int64)
    out[perm] = t
    return out


def gb_betweenness(gb, G, sources):
    """LAGraph's LAGr_Betweenness (batched Brandes) with python-graphblas: raw dependency
    sums over the sources (ordered pairs)."""
    n, k = G.nrows, len(sources)
    paths = gb.Matrix.from_coo(np.arange(k), sources, 1.0, nrows=k, ncols=n)
    frontier = gb.Matrix(float, k, n)
    frontier(~paths.S, replace=True) << gb.semiring.plus_first(paths @ G)
    levels = []
    while frontier.nvals:
        levels.append(frontier.apply(gb.unary.one).new(dtype=bool))
        paths(gb.binary.plus) << frontier
        frontier(~paths.S, replace=True) << gb.semiring.plus_first(frontier @ G)
    bcu = gb.Matrix.from_scalar(1.0, k, n)
    W = gb.Matrix(float, k, n)
    for d in range(len(levels) - 1, 0, -1):
        W(levels[d].S, replace=True) << bcu.ewise_mult(paths, gb.binary.truediv)
        W(levels[d - 1].S, replace=True) << gb.semiring.plus_first(W @ G.T)
        bcu(gb.binary.plus) << W.ewise_mult(paths, gb.binary.times)
    return bcu.reduce_columnwise(gb.monoid.plus).new().to_dense(0.0) - k


def gb_components(gb, G):
    """Weak components by FastSV (as LAGraph, and as spbfs): the smallest vertex id of each
    vertex's component."""
    n = G.nrows
    ids = np.arange(n)
    f = gb.Vector.from_coo(ids, ids, size=n)
    gf = f.dup()
    while True:
        mngf = gb.semiring.min_second(G @ gf).new()
        mngf(gb.binary.min) << gf
        P = gb.Matrix.from_coo(ids, f.to_dense(), True, nrows=n, ncols=n)
        f_new = f.dup()
        f_new(gb.binary.min) << gb.semiring.min_first(mngf @ P)
        f_new(gb.binary.min) << mngf
        f_new(gb.binary.min) << gf
        gf_new = f_new[f_new.to_dense()].new()
        if f_new.isequal(f) and gf_new.isequal(gf):
            return f_new.to_dense()
        f, gf = f_new, gf_new


def gb_sssp(gb, W, sources):
    """A frontier Bellman-Ford of the k x n distance matrix: each round relaxes the edges out
    of the entries that improved in the last one."""
    k, n = len(sources), W.nrows
    D = gb.Matrix.from_coo(np.arange(k), sources, 0.0, nrows=k, ncols=n)
    F = D.dup()
    while F.nvals:
        R = gb.semiring.min_plus(F @ W).new()
        F = gb.Matrix(float, k, n)
        F(~D.S) << R  # first reached
        better = R.ewise_mult(D, gb.binary.lt).new()
        F(better.V) << R  # shorter
        D(gb.binary.min) << F
    return D.to_dense(np.inf)


def gb_msbfs(gb, G, sources):
    """Levels and parents of k searches: ``F<!parents> = F any_secondi G`` per level."""
    k, n = len(sources), G.nrows
    parents = gb.Matrix.from_coo(np.arange(k), sources, sources, nrows=k, ncols=n)
    levels = gb.Matrix.from_coo(np.arange(k), sources, 0, nrows=k, ncols=n)
    frontier, depth = parents.dup(), 0
    while frontier.nvals:
        depth += 1
        frontier(~parents.S, replace=True) << gb.semiring.ss.any_secondi(frontier @ G)
        parents(frontier.S) << frontier
        levels(frontier.S) << depth
    return levels.to_dense(-1), parents.to_dense(-1)


# ----------------------------------------------------------------------------- main
ALGORITHMS = ("pagerank", "triangles", "betweenness", "components", "sssp", "msbfs")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scale", type=int, default=16)
    ap.add_argument("--sources", type=int, default=64,
                    help="sources of betweenness, shortest paths and the multi-source BFS")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--device", choices=("cpu", "gpu", "auto"), default="cpu")
    ap.add_argument("--no-networkx", action="store_true", help="skip NetworkX (slow)")
    ap.add_argument("--no-graphblas", action="store_true")
    ap.add_argument("--dijkstra-sources", type=int, default=4,
                    help="scipy's dijkstra runs from this many sources, scaled to all")
    ap.add_argument("--only", nargs="+", choices=ALGORITHMS, default=ALGORITHMS)
    args = ap.parse_args(argv)
    device = resolve_device(args.device)
    sync = lambda: None  # noqa: E731
    xp = np
    if device == "gpu":
        import cupy

        sync, xp = cupy.cuda.get_current_stream().synchronize, cupy

    D, U = graphs(args.scale)
    W = weighted(U)
    n = D.shape[0]
    rng = np.random.default_rng(1)
    deg = np.diff(U.indptr)
    sources = np.sort(rng.choice(np.flatnonzero(deg), size=min(args.sources,
                                                              int((deg > 0).sum())),
                                 replace=False))
    print(f"Kronecker scale {args.scale} (n = {n}), edgefactor 16; PageRank digraph "
          f"{D.nnz} edges, undirected graph {U.nnz // 2} edges; {sources.size} sources; "
          f"device {device}; {os.cpu_count()} CPU cores; best of {args.repeat}")
    rows = []

    def add(row):  # printed at once too: a slow peer leaves the rows before it on record
        rows.append(row)
        print("#", *row, flush=True)

    def run(alg, fn):
        t, out = best_of(fn, args.repeat, sync)
        add((alg, "spbfs", t, "reference"))
        return out

    def peer(alg, label, fn, compare, repeat=None, scale=1.0):
        t, out = best_of(fn, args.repeat if repeat is None else repeat, warm=repeat is None)
        add((alg, label, t * scale, compare(out)))

    Dd, Ud, Wd, src = (on_device(D, device), on_device(U, device), on_device(W, device),
                       xp.asarray(sources))
    gb = None if args.no_graphblas else _graphblas()
    gb_label = "python-graphblas (LAGraph method)"
    if gb is not None:
        GD, GU, GW = (gb.io.from_scipy_sparse(M) for M in (D, U, W))
    only = set(args.only)

    if "pagerank" in only:
        pr = host(run("pagerank", lambda: pagerank(Dd, ALPHA, tol=TOL, max_iter=MAX_ITER)))
        l1 = lambda x: f"L1 {np.abs(x - pr).sum():.1e}"  # noqa: E731
        peer("pagerank", "scipy loop", lambda: scipy_pagerank(D), l1)
        if gb is not None:
            peer("pagerank", gb_label, lambda: gb_pagerank(gb, GD), l1)
        if not args.no_networkx:
            import networkx as nx

            GN = nx.from_scipy_sparse_array(D, create_using=nx.DiGraph)
            peer("pagerank", "networkx", lambda: np.array(list(
                nx.pagerank(GN, ALPHA, tol=TOL, max_iter=MAX_ITER).values())), l1, repeat=1)
    if "triangles" in only:
        tri = host(run("triangles", lambda: triangles(Ud)))
        rows[-1] = (*rows[-1][:3], f"reference ({int(tri.sum()) // 3} triangles)")
        equal = lambda x: "equal" if np.array_equal(x, tri) else "DIFFERENT"  # noqa: E731
        if gb is not None:
            peer("triangles", gb_label, lambda: gb_triangles(gb, GU), equal)
        if not args.no_networkx:
            import networkx as nx

            GN = nx.from_scipy_sparse_array(U)
            peer("triangles", "networkx", lambda: np.array(
                [c for _, c in sorted(nx.triangles(GN).items())]), equal, repeat=1)
    if "betweenness" in only:
        bc = host(run("betweenness", lambda: betweenness_centrality(
            Ud, normalized=False, directed=False, sources=src, batch=sources.size)))
        if gb is not None:
            peer("betweenness", gb_label, lambda: gb_betweenness(gb, GU, sources) / 2,
                 lambda b: f"max diff {np.abs(b - bc).max():.1e}")
        if not args.no_networkx:
            import networkx as nx

            GN = nx.from_scipy_sparse_array(U)
            peer("betweenness", "networkx", lambda: np.array([
                c for _, c in sorted(nx.betweenness_centrality_subset(
                    GN, sources.tolist(), list(range(n)), normalized=False).items())]),
                 lambda b: f"max diff {np.abs(b - bc).max():.1e}", repeat=1)
    if "components" in only:
        labels = host(run("components", lambda: connected_components(Ud, directed=False)[1]))
        part = lambda x: "same" if same_partition(x, labels) else "DIFFERENT"  # noqa: E731
        peer("components", "scipy", lambda: csgraph.connected_components(U, directed=False)[1],
             part)
        if gb is not None:
            peer("components", gb_label, lambda: gb_components(gb, GU), part)
    if "sssp" in only:
        dist = host(run("sssp", lambda: sssp(Wd, src, directed=False)))
        diff = lambda d: f"max diff {_max_diff(d, dist[:d.shape[0]]):.1e}"  # noqa: E731
        few = sources[:max(1, min(args.dijkstra_sources, sources.size))]
        peer("sssp", f"scipy dijkstra ({few.size} sources, time x {sources.size / few.size:g})",
             lambda: csgraph.dijkstra(W, directed=False, indices=few), diff,
             repeat=1, scale=sources.size / few.size)
        if gb is not None:
            peer("sssp", gb_label, lambda: gb_sssp(gb, GW, sources), diff)
    if "msbfs" in only:
        levels = host(run("msbfs", lambda: bfs_many(Ud, src, return_parents=True)[0]))
        if gb is not None:
            peer("msbfs", gb_label, lambda: gb_msbfs(gb, GU, sources)[0],
                 lambda x: "equal levels" if np.array_equal(x, levels) else "DIFFERENT")

    base = {alg: t for alg, impl, t, _ in rows if impl == "spbfs"}
    print()
    print("| algorithm | implementation | seconds | spbfs speed-up | result vs spbfs |")
    print("|---|---|---:|---:|---|")
    for alg, impl, t, note in sorted(rows, key=lambda r: ALGORITHMS.index(r[0])):
        speedup = "" if impl == "spbfs" else f"{t / base[alg]:.2f}x"
        print(f"| {alg} | {impl} | {t:.4g} | {speedup} | {note} |")


def _graphblas():
    """python-graphblas, or None when it is not installed."""
    try:
        import graphblas
    except ImportError:
        return None
    return graphblas


def _max_diff(a, b) -> float:
    """Largest difference of two distance arrays (inf equal to inf)."""
    if not a.size:
        return 0.0
    with np.errstate(invalid="ignore"):  # inf - inf where both are unreached
        return float(np.abs(np.where(a == b, 0.0, a - b)).max())


if __name__ == "__main__":
    main()
