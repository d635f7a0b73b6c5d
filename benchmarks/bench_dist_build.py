"""Peak memory of ``spbfs.dist.DistGraph.from_edges`` on one rank (P = 1): the bytes held
at the worst moment of the construction, above the input edge list.

On the GPU the pool's used bytes are read after every allocation (a counting allocator in
front of CuPy's pool); on the CPU ``tracemalloc`` gives the peak (NumPy reports its arrays to
it). One rank holds what a rank of a P-rank job at ``scale + log2(P)`` holds (2^scale * 16
input edges), so scale 26 here is a rank of the 4-GPU scale-28 run.

Usage: python benchmarks/bench_dist_build.py [--scale 20] [--device cpu|gpu]
"""

from __future__ import annotations

import argparse
import time

from spbfs import dist


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=int, default=20)
    ap.add_argument("--edgefactor", type=int, default=16)
    ap.add_argument("--device", choices=("cpu", "gpu"), default="cpu")
    args = ap.parse_args(argv)
    if args.device == "gpu":
        import cupy

        xp, pool, peak = cupy, cupy.get_default_memory_pool(), [0]

        def counting(size):
            block = pool.malloc(size)
            peak[0] = max(peak[0], pool.used_bytes())
            return block

        u, v = dist.kronecker(args.scale, args.edgefactor, 1, xp=xp)
        cupy.cuda.set_allocator(counting)
        base = peak[0] = pool.used_bytes()

        def held():
            return pool.used_bytes(), peak[0]

        def sync():
            cupy.cuda.Device().synchronize()
    else:
        import tracemalloc

        import numpy as np

        u, v = dist.kronecker(args.scale, args.edgefactor, 1, xp=np)
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
        held, sync = tracemalloc.get_traced_memory, (lambda: None)
    t0 = time.perf_counter()
    G = dist.DistGraph.from_edges(u, v, 1 << args.scale, device=args.device)
    sync()
    seconds = time.perf_counter() - t0
    now, top = held()
    m = u.size
    print(f"scale {args.scale} ({args.device}, {m} input edges, {G.D} delegates): "
          f"peak above the input {(top - base) / 1e9:.2f} GB ({(top - base) / m:.1f} B/edge), "
          f"graph held {(now - base) / 1e9:.2f} GB, {seconds:.2f} s")


if __name__ == "__main__":
    main()
