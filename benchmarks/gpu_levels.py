"""One GPU's BFS at one Kronecker scale: 64 timed searches (no validation) and the
per-level host time of the first roots, for A/B runs of two checkouts.

Run from a checkout's root on the device (the graph and roots are those of
``bench_gpu.py``)::

    PYTHONPATH=. python3 benchmarks/gpu_levels.py --scale 26

It prints the median search time, the harmonic mean of TEPS (Graph500's edge count: half
the reached degree sum), the device memory held while searching per input edge and, per
traced root, ``direction:frontier->found:microseconds``
for each step of :func:`spbfs.algorithms.bfs.search` (``--stepped``: one level per step,
the host's loop, so each level has its own time).  The searches return the parents alone,
as Graph500's (``--levels``: the levels too, as before 2026-11-26).
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
    p.add_argument("--levels", action="store_true", help="return the levels too")
    p.add_argument("--stepped", action="store_true",
                   help="trace the roots with the host's level loop (a time per level)")
    args = p.parse_args(argv)

    import cupy

    from spbfs.algorithms.bfs import search
    from spbfs.gpu.bfs import BitmapSearch
    from spbfs.gpu.build import csr_from_edges
    from spbfs.semiring import Matrix

    def parents_of(root, **kw):
        out = search(M, root, return_parents=True, return_levels=args.levels, **kw)
        return out[1] if args.levels else out

    n = 1 << args.scale
    us, vs = generate(args.scale, args.edgefactor, args.seed)
    M = Matrix(*csr_from_edges(us, vs, n), n, symmetric=True, check=False)
    del us, vs
    cupy.get_default_memory_pool().free_all_blocks()
    roots = choose_roots(M, args.roots, args.seed).tolist()
    degree = M.out_degree
    parents_of(roots[0])  # kernels compiled, workspace made
    sync = cupy.cuda.Device().synchronize
    seconds, edges = [], []
    for root in roots:
        sync()
        t0 = time.perf_counter()
        parents = parents_of(root)
        sync()
        seconds.append(time.perf_counter() - t0)
        edges.append(int(degree[parents >= 0].sum()) // 2)
    held = cupy.get_default_memory_pool().used_bytes()  # graph, degrees, workspace, outputs
    teps = np.array(edges) / np.array(seconds)
    print(f"scale {args.scale}: median {np.median(seconds) * 1e3:.3f} ms, "
          f"hmean {teps.size / np.sum(1 / teps) / 1e9:.1f} GTEPS, "
          f"{held / (args.edgefactor * n):.2f} B held per input edge")
    BitmapSearch.device_loop = not args.stepped
    for root in roots[:args.traced]:
        trace = []
        parents_of(root, trace=trace)
        steps = " ".join(f"{d}:{nf}->{found}" + ("" if t is None else f":{t * 1e6:.0f}us")
                         for _, _, d, nf, found, t in trace)
        print(f"  root {root}: {steps}")


if __name__ == "__main__":
    main()
