"""spbfs against the GAP benchmark suite's six kernels on GAP's own Kronecker graph, on the CPU.

GAP (the GAP benchmark suite, github.com/sbeamer/gapbs) is built from its public source
beside spbfs, never copied into it; see docs/benchmarks.md for the exact commands::

    git clone https://github.com/sbeamer/gapbs && make -C gapbs

This script makes GAP's graphs with GAP's converter (``-g S -k 16``, written once as
``kronS.sg``; with ``-w``, integer weights in [1, 255], as ``kronS.wsg`` for SSSP), reads
them into scipy CSR arrays, takes GAP's own sources (``bfs -l``), and times, interleaved so
that load on the machine hits each alike, per kernel (``--kernels``; where a GAP run makes
several trials, spbfs makes as many calls a round: each side's first follows the other's
work):

* ``bfs``: ``spbfs.bfs(A, s, return_parents=True)`` (a plain call) against GAP's ``bfs``,
  python-graphblas (masked ``vxm`` loop with ``any_secondi``, if installed) and
  ``scipy.sparse.csgraph.breadth_first_order``; every spbfs result checked against scipy;
* ``sssp``: ``spbfs.sssp(W, s)`` against GAP's ``sssp -d 2`` from the same sources (``-r``),
  checked against scipy's Dijkstra;
* ``pr``: ``spbfs.pagerank(A, tol=1e-4 / n)`` (NetworkX's rule: the L1 change below
  ``n * tol``, here 1e-4 as GAP's) against GAP's ``pr -t 1e-4`` (Gauss-Seidel: the
  iterations of both printed with the table, with the steps spbfs takes from the uniform
  start and NetworkX's own iteration takes, spbfs's L1 error against a converged answer,
  and spbfs's first call); with
  ``--pr-plain``, also over the plain pull (the step without its renumbered layout);
* ``cc``: ``spbfs.connected_components(A, directed=False)`` against GAP's ``cc``
  (Afforest), checked against scipy's labels;
* ``bc``: ``spbfs.betweenness_centrality(A, sources=[s])`` (one source) against GAP's
  ``bc -i 1`` from the same sources;
* ``tc``: ``spbfs.triangle_count(A)`` (the total) against GAP's ``tc``, the counts compared;
  spbfs's first call is printed twice: the process's (imports and kernel loads in it) and
  the first on a copy of the graph (its degree-ordered graph built, as GAP's every trial
  relabels).

Usage: python benchmarks/bench_gap.py --gap PATH [--scales 18 20] [--reps 3] [--threads 2]
[--kernels bfs sssp pr cc bc tc] [--pr-plain]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import time

import numpy as np
import scipy.sparse as sp
from scipy.sparse import csgraph

import spbfs


def read_sg(path):
    """GAP's serialised undirected graph (``.sg``) as a scipy CSR (int32 indices)."""
    with open(path, "rb") as f:
        directed = bool(np.fromfile(f, np.bool_, 1)[0])
        m = int(np.fromfile(f, np.int64, 1)[0])
        n = int(np.fromfile(f, np.int64, 1)[0])
        offsets = np.fromfile(f, np.int64, n + 1)
        neighbours = np.fromfile(f, np.int32, m)
    if directed:
        raise ValueError(f"{path} holds a directed graph; this benchmark reads GAP's -g graphs")
    index = np.int32 if m < 2**31 else np.int64
    return sp.csr_array((np.ones(m, bool), neighbours, offsets.astype(index)), shape=(n, n))


def read_wsg(path):
    """GAP's serialised weighted undirected graph (``.wsg``: int32 neighbour and weight
    pairs) as a scipy CSR of float64 weights."""
    with open(path, "rb") as f:
        directed = bool(np.fromfile(f, np.bool_, 1)[0])
        m = int(np.fromfile(f, np.int64, 1)[0])
        n = int(np.fromfile(f, np.int64, 1)[0])
        offsets = np.fromfile(f, np.int64, n + 1)
        pairs = np.fromfile(f, np.int32, 2 * m).reshape(m, 2)
    if directed:
        raise ValueError(f"{path} holds a directed graph; this benchmark reads GAP's -g graphs")
    index = np.int32 if m < 2**31 else np.int64
    return sp.csr_array((pairs[:, 1].astype(np.float64), pairs[:, 0], offsets.astype(index)),
                        shape=(n, n))


def gap_graph(gap, scale, weighted=False):
    path = os.path.join(gap, f"kron{scale}.{'wsg' if weighted else 'sg'}")
    if not os.path.exists(path):
        subprocess.run([os.path.join(gap, "converter"), "-g", str(scale), "-k", "16",
                        *(["-w"] if weighted else []), "-b", path],
                       check=True, capture_output=True)
    return path


def gap_run(gap, path, threads, extra=(), kernel="bfs", trials=16):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    return subprocess.run([os.path.join(gap, kernel), "-f", path, "-n", str(trials), *extra],
                          env=env, capture_output=True, text=True, check=True).stdout


def trial_times(out):
    """GAP's ``Trial Time`` lines, in seconds."""
    return [float(x) for x in re.findall(r"Trial Time:\s+([\d.]+)", out)]


def check(A, root, levels, parents):
    order, pred = csgraph.breadth_first_order(A, root, directed=True,
                                              return_predecessors=True)
    dist = csgraph.shortest_path(A, unweighted=True, indices=root)
    want = np.where(np.isinf(dist), -1, dist).astype(np.int64)
    assert np.array_equal(levels, want), f"levels differ from scipy's at root {root}"
    found = np.flatnonzero(levels > 0)
    p = parents[found]
    assert np.all(levels[p] == levels[found] - 1), f"a parent is not one level up ({root})"
    assert np.all(A[p, found] != 0), f"a parent is not an in-neighbour ({root})"
    assert parents[root] == root and np.all(parents[levels < 0] == -1)


def graphblas_bfs():
    try:
        import graphblas as gb
    except ImportError:
        return None
    gb.init("suitesparse", blocking=True)

    def run(G, root, n):
        levels = gb.Vector(gb.dtypes.INT32, n)
        parents = gb.Vector(gb.dtypes.INT64, n)
        q = gb.Vector(gb.dtypes.INT64, n)
        q[root] = root
        parents[root] = root
        depth = 0
        while q.nvals:
            levels(q.S) << depth
            q(~parents.S, replace=True) << q.vxm(G, gb.semiring.any_secondi)
            parents(q.S) << q
            depth += 1
        return levels, parents

    return lambda A: (lambda G, n: lambda r: run(G, r, n))(
        gb.io.from_scipy_sparse(A), A.shape[0])


def table(title, times, gap_name):
    """Print the median and minimum of each method, and its ratio to GAP's median."""
    gap_ms = 1e3 * np.median(times[gap_name])
    print(title)
    print(f"{'implementation':44s} {'median ms':>10s} {'min ms':>8s} {'/ GAP':>7s}")
    for name, ts in times.items():
        med = 1e3 * np.median(ts)
        print(f"{name:44s} {med:10.2f} {1e3 * np.min(ts):8.2f} {med / gap_ms:7.2f}")


def interleaved(methods, gap_runs, reps, trials=1):
    """``reps`` rounds of every method, ``trials`` calls each, then one GAP run each (its
    trial times): with ``trials`` the GAP run's own trial count, each side's first trial
    of a round follows the other's work and its next ones its own, alike."""
    times = {name: [] for name in methods}
    times.update({name: [] for name in gap_runs})
    for _ in range(reps):
        for name, fn in methods.items():
            for _ in range(trials):
                t = time.perf_counter()
                fn()
                times[name].append(time.perf_counter() - t)
        for name, run in gap_runs.items():
            times[name] += trial_times(run())
    return times


def kernel_bfs(args, scale, make_graphblas):
    path = gap_graph(args.gap, scale)
    A = read_sg(path)
    n = A.shape[0]
    roots = gap_roots(args, path)
    t0 = time.perf_counter()
    spbfs.bfs(A, roots[0], return_parents=True)
    first = time.perf_counter() - t0
    for r in roots[:4]:
        check(A, r, *spbfs.bfs(A, r, return_parents=True))
    methods = {"spbfs.bfs (plain call, parents)":
               lambda r, A=A: spbfs.bfs(A, r, return_parents=True),
               "scipy breadth_first_order": lambda r, A=A: csgraph.breadth_first_order(
                   A, r, directed=True, return_predecessors=True)}
    if make_graphblas is not None:
        methods["python-graphblas (any_secondi loop)"] = make_graphblas(A)
    times = {name: [] for name in methods}
    gap_name = f"GAP bfs (OMP {args.threads})"
    times[gap_name] = []
    for _ in range(args.reps):
        for name, fn in methods.items():
            for r in roots:
                t = time.perf_counter()
                fn(r)
                times[name].append(time.perf_counter() - t)
        times[gap_name] += trial_times(gap_run(args.gap, path, args.threads))
    table(f"\nbfs, scale {scale}: n = {n}, stored entries = {A.nnz}, 16 GAP sources x "
          f"{args.reps}; spbfs first call {1e3 * first:.0f} ms (compile or cache load)",
          times, gap_name)


def gap_roots(args, path):
    """GAP's own 16 sources (``bfs -l``)."""
    return [int(x) for x in re.findall(r"Source:\s+(\d+)",
                                       gap_run(args.gap, path, args.threads, ["-l"]))]


def kernel_sssp(args, scale):
    path = gap_graph(args.gap, scale, weighted=True)
    W = read_wsg(path)
    roots = gap_roots(args, gap_graph(args.gap, scale))[:4]
    for r in roots[:2]:
        want = csgraph.dijkstra(W, indices=r)
        assert np.allclose(spbfs.sssp(W, r), want), f"sssp differs from scipy at root {r}"
    gap_name = f"GAP sssp -d 2 (OMP {args.threads})"
    methods = {f"spbfs.sssp from {r}": (lambda r=r: spbfs.sssp(W, r)) for r in roots}
    gap_runs = {gap_name: lambda: "".join(
        gap_run(args.gap, path, args.threads, ["-r", str(r), "-d", "2"], "sssp", 1)
        for r in roots)}
    times = interleaved(methods, gap_runs, args.reps)
    spbfs_times = [t for name in methods for t in times[name]]
    table(f"\nsssp, scale {scale}: weights 1-255 (converter -w), {len(roots)} GAP sources x "
          f"{args.reps}", {"spbfs.sssp (plain call)": spbfs_times,
                           gap_name: times[gap_name]}, gap_name)


def kernel_pr(args, scale):
    path = gap_graph(args.gap, scale)
    A = read_sg(path)
    n = A.shape[0]
    t0 = time.perf_counter()
    spbfs.pagerank(A, tol=1e-4 / n)
    first = time.perf_counter() - t0
    log = gap_run(args.gap, path, args.threads, ["-i", "1000", "-t", "1e-4", "-l"], "pr", 1)
    gap_iters = len(re.findall(r"^\s*\d+\s+[\d.e+-]+\s*$", log, re.M))
    spbfs_iters = pagerank_iterations(A, 1e-4 / n)
    uniform_iters = pagerank_iterations(A, 1e-4 / n, nstart=np.ones(n))
    networkx_iters = pagerank_iterations(A, 1e-4 / n, dangling=np.ones(n))
    exact = spbfs.pagerank(A, tol=1e-13 / n, max_iter=1000)
    error = float(np.abs(spbfs.pagerank(A, tol=1e-4 / n) - exact).sum())
    uniform_error = float(np.abs(spbfs.pagerank(A, tol=1e-4 / n, nstart=np.ones(n))
                                 - exact).sum())
    gap_name = f"GAP pr -t 1e-4 (OMP {args.threads})"
    methods = {"spbfs.pagerank (tol 1e-4 / n)": lambda: spbfs.pagerank(A, tol=1e-4 / n)}
    if args.pr_plain:
        methods["spbfs.pagerank, plain pull"] = lambda: plain_pull(
            lambda: spbfs.pagerank(A, tol=1e-4 / n))
    times = interleaved(
        methods, {gap_name: lambda: gap_run(args.gap, path, args.threads,
                                             ["-i", "1000", "-t", "1e-4"], "pr", 3)},
        args.reps, trials=3)
    table(f"\npr, scale {scale}: L1 change < 1e-4; GAP (Gauss-Seidel) took {gap_iters} "
          f"iterations, spbfs's power iteration {spbfs_iters} (from the uniform start: "
          f"{uniform_iters}; NetworkX's own step: {networkx_iters}); spbfs's L1 error "
          f"{error:.2e} (from the uniform start: {uniform_error:.2e}); spbfs first call "
          f"{first * 1e3:.0f} ms (transpose, layout and start built)", times, gap_name)


def plain_pull(fn):
    """``fn()`` with the CPU's PageRank step kept off the renumbered layout of
    ``spbfs/cpu/renumber.py`` (the plain pull over the transpose, as before it)."""
    from spbfs.cpu import rank

    saved = rank.LAYOUT_ENTRIES
    rank.LAYOUT_ENTRIES = 1 << 62
    try:
        return fn()
    finally:
        rank.LAYOUT_ENTRIES = saved


def pagerank_iterations(A, tol, limit=100, **kwargs):
    """The power iterations ``spbfs.pagerank(A, tol=tol, **kwargs)`` runs: the fewest
    ``max_iter`` that converges, up to ``limit`` (``dangling`` given: NetworkX's own step)."""
    for k in range(1, limit + 1):
        try:
            spbfs.pagerank(A, tol=tol, max_iter=k, **kwargs)
        except spbfs.PowerIterationFailedConvergence:
            continue
        return k
    return None


def kernel_cc(args, scale):
    path = gap_graph(args.gap, scale)
    A = read_sg(path)
    k, labels = spbfs.connected_components(A, directed=False)
    k_ref, _ = csgraph.connected_components(A, directed=False)
    assert k == k_ref, (k, k_ref)
    gap_name = f"GAP cc (Afforest, OMP {args.threads})"
    times = interleaved(
        {"spbfs.connected_components": lambda: spbfs.connected_components(A, directed=False)},
        {gap_name: lambda: gap_run(args.gap, path, args.threads, kernel="cc", trials=3)},
        args.reps, trials=3)
    table(f"\ncc, scale {scale}: {k} components", times, gap_name)


def kernel_bc(args, scale):
    path = gap_graph(args.gap, scale)
    A = read_sg(path)
    roots = gap_roots(args, path)[:4]
    gap_name = f"GAP bc -i 1 (OMP {args.threads})"
    methods = {f"spbfs.betweenness_centrality from {r}": (
        lambda r=r: spbfs.betweenness_centrality(A, sources=[r], directed=False))
        for r in roots}
    gap_runs = {gap_name: lambda: "".join(
        gap_run(args.gap, path, args.threads, ["-r", str(r), "-i", "1"], "bc", 1)
        for r in roots)}
    times = interleaved(methods, gap_runs, args.reps)
    spbfs_times = [t for name in methods for t in times[name]]
    table(f"\nbc, scale {scale}: one source, {len(roots)} GAP sources x {args.reps}",
          {"spbfs.betweenness_centrality (1 source)": spbfs_times,
           gap_name: times[gap_name]}, gap_name)


def kernel_tc(args, scale):
    path = gap_graph(args.gap, scale)
    A = read_sg(path)
    out = gap_run(args.gap, path, args.threads, kernel="tc", trials=1)
    t0 = time.perf_counter()
    total = spbfs.triangle_count(A)  # the first call builds the degree-ordered graph
    first = time.perf_counter() - t0
    gap_total = re.findall(r"(\d+) triangles", out)
    assert not gap_total or int(gap_total[-1]) == total, (gap_total, total)
    fresh = A.copy()  # a graph not seen before, the code loaded: its ordered graph built
    t0 = time.perf_counter()
    assert spbfs.triangle_count(fresh) == total
    first_of_graph = time.perf_counter() - t0
    del fresh
    gap_name = f"GAP tc (OMP {args.threads})"
    times = interleaved({"spbfs.triangle_count": lambda: spbfs.triangle_count(A)},
                        {gap_name: lambda: gap_run(args.gap, path, args.threads, kernel="tc",
                                                   trials=1)}, args.reps)
    table(f"\ntc, scale {scale}: {total} triangles; spbfs's first call {1e3 * first:.0f} ms "
          f"in the process (its imports and kernel loads in it), {1e3 * first_of_graph:.0f} "
          f"ms on a copy of the graph (GAP relabels by degree in every trial; spbfs keeps "
          f"the ordered graph with the pattern)", times, gap_name)


KERNELS = ("bfs", "sssp", "pr", "cc", "bc", "tc")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gap", required=True, help="a gapbs directory with its kernels built")
    ap.add_argument("--scales", type=int, nargs="+", default=[18, 20])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2, help="GAP's OMP_NUM_THREADS")
    ap.add_argument("--kernels", nargs="+", choices=KERNELS, default=list(KERNELS))
    ap.add_argument("--pr-plain", action="store_true",
                    help="pr: also time spbfs.pagerank over the plain pull (no renumbered "
                         "layout), interleaved with the rest")
    args = ap.parse_args()
    print(f"spbfs threads: {spbfs.get_num_threads()}, GAP threads: {args.threads}")
    for scale in args.scales:
        for kernel in args.kernels:
            if kernel == "bfs":
                kernel_bfs(args, scale, graphblas_bfs())
            else:
                globals()[f"kernel_{kernel}"](args, scale)


if __name__ == "__main__":
    main()
