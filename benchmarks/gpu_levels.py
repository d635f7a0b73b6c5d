"""One GPU's BFS at one Kronecker scale: 64 timed searches (no validation) and the
per-level host time of the first roots, for A/B runs of two checkouts.

Run from a checkout's root on the device (the graph and roots are those of
``bench_gpu.py``)::

    PYTHONPATH=. python3 benchmarks/gpu_levels.py --scale 26

It prints the median search time, the harmonic mean of TEPS (Graph500's edge count: half
the reached degree sum), the device memory held while searching per input edge and, per
traced root, ``direction:frontier->found:microseconds``
for each step of :func:`spbfs.algorithms.bfs.search`.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from bench_gpu import choose_roots, generate


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scale", type=int, default=26)
    p.add_argument("--edgefactor", type=int, default=16)
    p.add_argument("--roots", type=int, default=64)
    p.add_argument("--traced", type=int, default=2, help="roots whose levels are printed")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)

    import cupy

    from spbfs.algorithms.bfs import search
    from spbfs.gpu.build import csr_from_edges
    from spbfs.semiring import Matrix

    n = 1 << args.scale
    us, vs = generate(args.scale, args.edgefactor, args.seed)
    M = Matrix(*csr_from_edges(us, vs, n), n, symmetric=True, check=False)
    del us, vs
    cupy.get_default_memory_pool().free_all_blocks()
    roots = choose_roots(M, args.roots, args.seed).tolist()
    degree = M.out_degree
    search(M, roots[0], return_parents=True)  # kernels compiled, workspace made
    sync = cupy.cuda.Device().synchronize
    seconds, edges = [], []
    for root in roots:
        sync()
        t0 = time.perf_counter()
        levels, _ = search(M, root, return_parents=True)
        sync()
        seconds.append(time.perf_counter() - t0)
        edges.append(int(degree[levels >= 0].sum()) // 2)
    held = cupy.get_default_memory_pool().used_bytes()  # graph, degrees, workspace, outputs
    teps = np.array(edges) / np.array(seconds)
    print(f"scale {args.scale}: median {np.median(seconds) * 1e3:.3f} ms, "
          f"hmean {teps.size / np.sum(1 / teps) / 1e9:.1f} GTEPS, "
          f"{held / (args.edgefactor * n):.2f} B held per input edge")
    for root in roots[:args.traced]:
        trace = []
        search(M, root, return_parents=True, trace=trace)
        steps = " ".join(f"{d}:{nf}->{found}" + ("" if t is None else f":{t * 1e6:.0f}us")
                         for _, _, d, nf, found, t in trace)
        print(f"  root {root}: {steps}")


if __name__ == "__main__":
    main()
