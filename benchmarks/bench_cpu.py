"""CPU BFS benchmark: spbfs vs scipy.sparse.csgraph vs python-graphblas (SuiteSparse).

Same Kronecker graph (Graph500 generator, edgefactor 16, undirected) and the same
roots for all three; prints a table of mean seconds per BFS and MTEPS (TEPS edge count =
input edge tuples in the traversed component, as the Graph500 specification).

Usage: python benchmarks/bench_cpu.py [--scales 18 20] [--roots 8]
"""

from __future__ import annotations

import argparse
import platform
import time
from functools import partial

import numpy as np
import scipy.sparse.csgraph as csgraph

import spbfs
from spbfs import graph500
from spbfs.graph500.generate import kronecker
from spbfs.graph500.harness import build_undirected, choose_roots


def graphblas_bfs(A_gb, source, parents):
    """BFS as masked vxm with any_pair (levels) or any_secondi (parents)."""
    import graphblas as gb

    n = A_gb.nrows
    levels = gb.Vector(gb.dtypes.INT64, n)
    q = gb.Vector(gb.dtypes.BOOL if not parents else gb.dtypes.INT64, n)
    q[source] = source if parents else True
    sr = gb.semiring.ss.any_secondi if parents else gb.semiring.any_pair
    pv = gb.Vector(gb.dtypes.INT64, n) if parents else None
    if parents:
        pv[source] = source
    level = 0
    while q.nvals:
        levels(q.S) << level
        q(~levels.S, replace=True) << q.vxm(A_gb, sr)
        if parents:
            pv(q.S) << q
        level += 1
    return levels, pv


def seconds_per_bfs(search, roots):
    """Mean wall time of ``search(root)`` over ``roots``, after one warm-up."""
    search(int(roots[0]))
    times = []
    for root in roots.tolist():
        t0 = time.perf_counter()
        search(root)
        times.append(time.perf_counter() - t0)
    return float(np.mean(times))


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scales", type=int, nargs="+", default=[18, 20])
    parser.add_argument("--roots", type=int, default=8)
    args = parser.parse_args()
    try:
        import graphblas as gb
    except ImportError:
        gb = None
    print(f"# {platform.node()} {platform.processor() or platform.machine()}, "
          f"numpy {np.__version__}, graphblas {gb.__version__ if gb else 'missing'}")
    print(f"{'scale':>5} {'impl':<26} {'s/BFS':>9} {'MTEPS':>9} {'vs scipy':>9}")
    for scale in args.scales:
        n = 1 << scale
        u, v = kronecker(scale, 16, seed=1)
        M = build_undirected(u, v, n)
        csr = M.to_scipy()
        roots = choose_roots(u, v, n, args.roots, seed=1)
        nedge = [graph500.traversed_edges(u, v, spbfs.bfs(M, int(r))) for r in roots]
        mean_edges = float(np.mean(nedge))
        runs = {
            "scipy breadth_first_order": partial(csgraph.breadth_first_order, csr, directed=True),
            "spbfs levels": partial(spbfs.bfs, M),
            "spbfs levels+parents": partial(spbfs.bfs, M, return_parents=True),
        }
        if gb is not None:
            A_gb = gb.io.from_scipy_sparse(csr)
            runs["graphblas levels"] = partial(graphblas_bfs, A_gb, parents=False)
            runs["graphblas levels+parents"] = partial(graphblas_bfs, A_gb, parents=True)
        base = None
        for name, search in runs.items():
            t = seconds_per_bfs(search, roots)
            base = base or t
            print(f"{scale:>5} {name:<26} {t:>9.4f} {mean_edges / t / 1e6:>9.1f} "
                  f"{base / t:>8.1f}x", flush=True)


if __name__ == "__main__":
    main()
