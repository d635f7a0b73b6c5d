"""What the NCCL watchdog costs per search: GPU ranks, ``mpiexec -n P python -m mpi4py THIS
[SCALE [ROOTS [REPEATS]]]``.

Builds one Kronecker graph (edgefactor 16, default threshold) and searches the same roots
over two NCCL communicators of the same ranks, one with the watchdog (the default timeout)
and one without (``nccl_timeout=0``), alternating ``REPEATS`` times.  Rank 0 prints the
median search time of each and their ratio.
"""

import sys
import time

import numpy as np

from spbfs import dist


def main():
    scale = int(sys.argv[1]) if len(sys.argv) > 1 else 22
    roots = int(sys.argv[2]) if len(sys.argv) > 2 else 16
    repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    watched = dist.Communicator(device="gpu", data_plane="nccl")
    plain = dist.Communicator(device="gpu", data_plane="nccl", nccl_timeout=0)
    assert watched._watchdog is not None and plain._watchdog is None
    u, v = dist.kronecker(scale, 16, seed=1, comm=watched)
    G = dist.DistGraph.from_edges(u, v, 1 << scale, comm=watched)
    del u, v
    keys = dist.harness.choose_roots(G, roots, seed=1)
    graphs = {"watchdog": G, "no watchdog": G.with_comm(plain)}
    times = {name: [] for name in graphs}
    for H in graphs.values():                       # warm-up: kernels compiled, pools filled
        dist.bfs(H, int(keys[0]), return_parents=True)
    for _ in range(repeats):
        for name, H in graphs.items():
            for root in keys.tolist():
                watched.barrier()
                t0 = time.perf_counter()
                dist.bfs(H, root, return_parents=True)
                H.comm.sync()
                times[name].append(watched.allreduce(time.perf_counter() - t0, "max"))
    if watched.rank == 0:
        med = {name: float(np.median(t)) * 1e3 for name, t in times.items()}
        for name, t in times.items():
            print(f"{name:12s}: median {med[name]:.3f} ms, min {min(t) * 1e3:.3f} ms over "
                  f"{len(t)} searches (P={watched.size}, scale {scale})")
        print(f"ratio watchdog / no watchdog: {med['watchdog'] / med['no watchdog']:.4f}")


if __name__ == "__main__":
    import spbfs.dist.harness  # noqa: F401

    main()
