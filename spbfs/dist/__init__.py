"""spbfs.dist: BFS over MPI ranks with the delegate/normal design (CPU ranks or GPU ranks).

Vertices of degree above a threshold are *delegates*, known to every rank and kept as a
bitmap reduced with a global OR; the others are *normal* and owned round robin
(``v % P``).  Edges are split into four local CSR blocks (``nn``, ``nd``, ``dn``, ``dd``)
so that only normal-to-normal edges need point-to-point messages.  See ``docs/dist.md``.

Run under MPI, e.g. ``mpiexec -n 4 python -m mpi4py script.py``; a single process is a
world of one.  Importing this package needs neither a GPU nor CuPy, and does not start MPI.

Examples
--------
>>> import numpy as np
>>> from spbfs import dist
>>> u, v = dist.kronecker(8, edgefactor=4, seed=2)       # this rank's slice
>>> G = dist.DistGraph.from_edges(u, v, 2**8, threshold=16)
>>> levels = dist.bfs(G, int(u[0]))
>>> full = G.gather(levels)
>>> int(full[int(u[0])]), full.shape
(0, (256,))
"""

from .bfs import ALPHA, bfs
from .comm import Communicator
from .generate import kronecker, slice_bounds
from .graph import DistGraph

__all__ = ["ALPHA", "Communicator", "DistGraph", "bfs", "kronecker", "slice_bounds"]
