"""PageRank, triangle counts and betweenness centrality: spbfs vs NetworkX / scipy and
python-graphblas (SuiteSparse:GraphBLAS) on the same Graph500 Kronecker graph.

Graphs (edgefactor 16, seed 1, ``n = 2**scale``):

* PageRank: the directed edge list ``u -> v``, duplicates summed into weights, self-loops
  kept (a weighted digraph with dangling vertices).
* triangles, betweenness: the undirected graph (both directions stored, duplicates merged,
  self-loops dropped, values 1).

Peers: ``networkx.pagerank`` (its scipy implementation; the graph is built before the
clock starts), the same power iteration written directly with scipy.sparse (NetworkX's
loop without its conversions), ``networkx.triangles``,
``networkx.betweenness_centrality_subset`` over the same sources; python-graphblas through
``graphblas_algorithms`` when it is installed, else LAGraph's methods written here with
python-graphblas (PageRank as NetworkX's iteration, triangles by the same two masked
products on the degree-ordered lower triangle, betweenness as ``LAGr_Betweenness``).

Times are the best of ``--repeat`` runs after one warm-up (spbfs' first call on a matrix
also builds its cached pattern); NetworkX runs once.  Every result is checked against
spbfs' (L1 difference for PageRank, exact for triangles, max difference for betweenness).

Usage::

    python benchmarks/bench_algorithms.py [--scale 16] [--sources 64] [--repeat 3]
        [--device cpu|gpu|auto] [--no-networkx] [--no-graphblas]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import scipy.sparse as sp

from spbfs.centrality import betweenness_centrality
from spbfs.generate import kronecker
from spbfs.harness import resolve_device
from spbfs.pagerank import pagerank
from spbfs.triangles import triangles

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


# ----------------------------------------------------------------------------- main
def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scale", type=int, default=16)
    ap.add_argument("--sources", type=int, default=64, help="betweenness sources (batch)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--device", choices=("cpu", "gpu", "auto"), default="cpu")
    ap.add_argument("--no-networkx", action="store_true", help="skip NetworkX (slow)")
    ap.add_argument("--no-graphblas", action="store_true")
    args = ap.parse_args(argv)
    device = resolve_device(args.device)
    sync = lambda: None  # noqa: E731
    if device == "gpu":
        import cupy

        sync = cupy.cuda.get_current_stream().synchronize

    D, U = graphs(args.scale)
    n = D.shape[0]
    rng = np.random.default_rng(1)
    deg = np.diff(U.indptr)
    sources = np.sort(rng.choice(np.flatnonzero(deg), size=min(args.sources,
                                                              int((deg > 0).sum())),
                                 replace=False))
    print(f"Kronecker scale {args.scale} (n = {n}), edgefactor 16; PageRank digraph "
          f"{D.nnz} edges, undirected graph {U.nnz // 2} edges; betweenness from "
          f"{sources.size} sources; device {device}; {os.cpu_count()} CPU cores; "
          f"best of {args.repeat}")
    rows = []

    def add(row):  # printed at once too: a slow peer leaves the rows before it on record
        rows.append(row)
        print("#", *row, flush=True)

    Dd, Ud = on_device(D, device), on_device(U, device)

    # spbfs
    t, pr = best_of(lambda: pagerank(Dd, ALPHA, tol=TOL, max_iter=MAX_ITER), args.repeat, sync)
    pr = host(pr)
    add(("pagerank", "spbfs", t, "reference"))
    t, tri = best_of(lambda: triangles(Ud), args.repeat, sync)
    tri = host(tri)
    add(("triangles", "spbfs", t, f"reference ({int(tri.sum()) // 3} triangles)"))
    src_dev = sources
    if device == "gpu":
        import cupy

        src_dev = cupy.asarray(sources)
    t, bc = best_of(lambda: betweenness_centrality(Ud, normalized=False, directed=False,
                                                   sources=src_dev, batch=sources.size),
                    args.repeat, sync)
    bc = host(bc)
    add(("betweenness", "spbfs", t, "reference"))

    # scipy
    t, x = best_of(lambda: scipy_pagerank(D), args.repeat)
    add(("pagerank", "scipy loop", t, f"L1 {np.abs(x - pr).sum():.1e}"))

    # python-graphblas
    if not args.no_graphblas:
        try:
            import graphblas as gb
        except ImportError:
            gb = None
        if gb is not None:
            try:
                import graphblas_algorithms as ga
            except ImportError:
                ga = None
            GD, GU = gb.io.from_scipy_sparse(D), gb.io.from_scipy_sparse(U)
            label = "graphblas-algorithms" if ga else "python-graphblas (LAGraph method)"
            if ga is not None:
                gD, gU = ga.DiGraph(GD), ga.Graph(GU)
                t, r = best_of(lambda: ga.pagerank(gD), args.repeat)
                x = np.array([r[i] for i in range(n)])
                t2, r2 = best_of(lambda: ga.triangles(gU), args.repeat)
                tr = np.array([r2[i] for i in range(n)])
            else:
                t, x = best_of(lambda: gb_pagerank(gb, GD), args.repeat)
                t2, tr = best_of(lambda: gb_triangles(gb, GU), args.repeat)
            add(("pagerank", label, t, f"L1 {np.abs(x - pr).sum():.1e}"))
            add(("triangles", label, t2, "equal" if np.array_equal(tr, tri)
                         else "DIFFERENT"))
            t, b = best_of(lambda: gb_betweenness(gb, GU, sources), args.repeat)
            add(("betweenness", "python-graphblas (LAGraph method)", t,
                         f"max diff {np.abs(b / 2 - bc).max():.1e}"))

    # networkx
    if not args.no_networkx:
        import networkx as nx

        GD = nx.from_scipy_sparse_array(D, create_using=nx.DiGraph)
        GU = nx.from_scipy_sparse_array(U)
        t, r = best_of(lambda: nx.pagerank(GD, ALPHA, tol=TOL, max_iter=MAX_ITER), 1,
                       warm=False)
        x = np.array([r[i] for i in range(n)])
        add(("pagerank", "networkx", t, f"L1 {np.abs(x - pr).sum():.1e}"))
        t, r = best_of(lambda: nx.triangles(GU), 1, warm=False)
        tr = np.array([r[i] for i in range(n)])
        add(("triangles", "networkx", t, "equal" if np.array_equal(tr, tri)
                     else "DIFFERENT"))
        t, r = best_of(lambda: nx.betweenness_centrality_subset(
            GU, sources.tolist(), list(range(n)), normalized=False), 1, warm=False)
        b = np.array([r[i] for i in range(n)])
        add(("betweenness", "networkx", t, f"max diff {np.abs(b - bc).max():.1e}"))

    base = {alg: t for alg, impl, t, _ in rows if impl == "spbfs"}
    print()
    print("| algorithm | implementation | seconds | spbfs speed-up | result vs spbfs |")
    print("|---|---|---:|---:|---|")
    order = {"pagerank": 0, "triangles": 1, "betweenness": 2}
    for alg, impl, t, note in sorted(rows, key=lambda r: order[r[0]]):
        speedup = "" if impl == "spbfs" else f"{t / base[alg]:.2f}x"
        print(f"| {alg} | {impl} | {t:.4g} | {speedup} | {note} |")


if __name__ == "__main__":
    main()
