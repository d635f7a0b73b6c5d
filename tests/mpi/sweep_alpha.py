"""Median search time of the GPU level loop for a range of push -> pull factors, rank 0.

mpirun -n P python3 -m mpi4py tests/mpi/sweep_alpha.py SCALE ROOTS

For each factor (2 to 64) and each block (``dd``, ``nd``, ``dn``, then all three) the
other blocks keep the default :data:`spbfs.dist.bfs.ALPHA`; the same roots are searched.
"""

import os
import sys
import time

import numpy as np
from device_graph import kronecker_graph

from spbfs import dist
from spbfs.dist.bfs import ALPHA

BLOCKS = ("nd", "dn", "dd")
FACTORS = (2.0, 4.0, 8.0, 16.0, 32.0, 64.0)

scale, nroots = int(sys.argv[1]), int(sys.argv[2])
C, G, roots = kronecker_graph(scale, nroots, os.environ.get("SPBFS_DEVICE", "gpu"))
for a in FACTORS:
    for which in ("dd", "nd", "dn", "all"):
        alpha = {b: (a if which in (b, "all") else ALPHA[b]) for b in BLOCKS}
        times = []
        for r in roots:
            C.barrier()
            t0 = time.perf_counter()
            dist.bfs(G, int(r), return_parents=True, alpha=alpha)
            C.sync()
            times.append(C.allreduce(time.perf_counter() - t0, "max"))
        if C.rank == 0:
            print(f"alpha {which}={a:5.1f}: median {1e3 * np.median(times):7.2f} ms "
                  f"mean {1e3 * np.mean(times):7.2f} ms", flush=True)
