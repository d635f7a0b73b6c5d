"""Per-level, per-phase time of the GPU level loop (spbfs.dist._gpu.PROFILE), rank 0.

mpirun -n P python3 -m mpi4py tests/mpi/profile_levels.py SCALE ROOTS
"""

import os
import sys

import numpy as np
from device_graph import kronecker_graph

from spbfs import dist
from spbfs.dist import _gpu

scale, nroots = int(sys.argv[1]), int(sys.argv[2])
C, G, roots = kronecker_graph(scale, nroots, os.environ.get("SPBFS_DEVICE", "gpu"))
_gpu.PROFILE["on"] = True
dirs = []
for r in roots:
    st = {}
    dist.bfs(G, int(r), return_parents=True, stats=st)
    dirs.append(st["directions"])
t = _gpu.PROFILE["t"]
if C.rank == 0:
    phases = sorted({k[1] for k in t}, key=lambda p: min(x for x in t if x[1] == p))
    levels = sorted({k[0] for k in t})
    print("ms per search  level: " + " ".join(f"{p:>10}" for p in phases))
    for lv in levels:
        print(f"{lv:>20}: " + " ".join(f"{1e3 * t.get((lv, p), 0) / nroots:10.3f}"
                                      for p in phases))
    print(f"{'total':>20}: " + " ".join(
        f"{1e3 * sum(t.get((lv, p), 0) for lv in levels) / nroots:10.3f}" for p in phases))
    print("directions of the first search:", dirs[0])
    print("sum ms", 1e3 * sum(t.values()) / nroots, "roots", np.asarray(roots)[:4])
