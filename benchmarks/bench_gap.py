"""spbfs's plain BFS call against GAP's C++ BFS on GAP's own Kronecker graph, on the CPU.

GAP (the GAP benchmark suite, github.com/sbeamer/gapbs) is built from its public source
beside spbfs, never copied into it; see docs/benchmarks.md for the exact commands::

    git clone https://github.com/sbeamer/gapbs && make -C gapbs bfs converter

This script makes GAP's graph with GAP's converter (``-g S -k 16``, written once as
``kronS.sg`` in the GAP directory), reads that file into a scipy CSR, takes GAP's own 16
sources (``bfs -l``), and times, interleaved so that load on the machine hits each alike:

* ``spbfs.bfs(A, s, return_parents=True)`` (a plain call on the scipy CSR);
* python-graphblas (masked ``vxm`` loop with ``any_secondi``), if installed;
* ``scipy.sparse.csgraph.breadth_first_order(A, s, return_predecessors=True)``;
* GAP's ``bfs -n 16`` with ``OMP_NUM_THREADS`` threads (its "Trial Time" lines).

Every spbfs result is checked against scipy's levels and as a BFS tree.

Usage: python benchmarks/bench_gap.py --gap PATH [--scales 18 20] [--reps 3] [--threads 2]
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


def gap_graph(gap, scale):
    path = os.path.join(gap, f"kron{scale}.sg")
    if not os.path.exists(path):
        subprocess.run([os.path.join(gap, "converter"), "-g", str(scale), "-k", "16", "-b",
                        path], check=True, capture_output=True)
    return path


def gap_run(gap, path, threads, extra=()):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    return subprocess.run([os.path.join(gap, "bfs"), "-f", path, "-n", "16", *extra], env=env,
                          capture_output=True, text=True, check=True).stdout


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


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gap", required=True, help="a gapbs directory with bfs and converter built")
    ap.add_argument("--scales", type=int, nargs="+", default=[18, 20])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2, help="GAP's OMP_NUM_THREADS")
    args = ap.parse_args()
    make_graphblas = graphblas_bfs()
    print(f"spbfs threads: {spbfs.get_num_threads()}, GAP threads: {args.threads}")
    for scale in args.scales:
        path = gap_graph(args.gap, scale)
        A = read_sg(path)
        n = A.shape[0]
        roots = [int(x) for x in re.findall(r"Source:\s+(\d+)",
                                            gap_run(args.gap, path, args.threads, ["-l"]))]
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
        times[f"GAP bfs (OMP {args.threads})"] = []
        for _ in range(args.reps):
            for name, fn in methods.items():
                for r in roots:
                    t = time.perf_counter()
                    fn(r)
                    times[name].append(time.perf_counter() - t)
            out = gap_run(args.gap, path, args.threads)
            times[f"GAP bfs (OMP {args.threads})"] += [
                float(x) for x in re.findall(r"Trial Time:\s+([\d.]+)", out)]
        gap_ms = 1e3 * np.median(times[f"GAP bfs (OMP {args.threads})"])
        print(f"\nscale {scale}: n = {n}, stored entries = {A.nnz}, 16 GAP sources x "
              f"{args.reps}; spbfs first call {1e3 * first:.0f} ms (compile or cache load)")
        print(f"{'implementation':40s} {'median ms':>10s} {'min ms':>8s} {'/ GAP':>7s}")
        for name, ts in times.items():
            med = 1e3 * np.median(ts)
            print(f"{name:40s} {med:10.2f} {1e3 * np.min(ts):8.2f} {med / gap_ms:7.2f}")


if __name__ == "__main__":
    main()
