"""Time per phase of a distributed search (spbfs.dist.bfs.PROFILE), summed over levels, rank 0.

mpirun -n P python3 -m mpi4py tests/mpi/profile_levels.py SCALE ROOTS
"""

import importlib
import os
import sys

import numpy as np
from device_graph import kronecker_graph

from spbfs import dist

importlib.import_module("spbfs.dist.bfs").PROFILE = True
scale, nroots = int(sys.argv[1]), int(sys.argv[2])
C, G, roots = kronecker_graph(scale, nroots, os.environ.get("SPBFS_DEVICE", "gpu"))
total, dirs = {}, []
for r in roots:
    st = {}
    dist.bfs(G, int(r), return_parents=True, stats=st)
    dirs.append(st["directions"])
    for k, x in st["phases"].items():
        total[k] = total.get(k, 0.0) + x / len(roots)
if C.rank == 0:
    for k, x in total.items():
        print(f"{k:>16}: {1e3 * x:8.3f} ms per search")
    print("directions of the first search:", dirs[0])
    print("roots", np.asarray(roots)[:4])
