"""The set-up shared by the device scripts: a distributed Kronecker graph and its roots.

The scripts take the device from ``SPBFS_DEVICE`` (default ``gpu``; ``cpu`` for a dry run)."""

from spbfs import dist
from spbfs.dist.harness import choose_roots


def kronecker_graph(scale, nroots, device="gpu"):
    """``(comm, G, roots)`` for a Graph500 graph (edgefactor 16, seed 1) over all ranks,
    construction temporaries released and one untimed search run (compile, fill pools)."""
    C = dist.Communicator(device=device)
    u, v = dist.kronecker(scale, 16, seed=1, comm=C)
    G = dist.DistGraph.from_edges(u, v, 2**scale, comm=C)
    del u, v
    if C.device == "gpu":
        C.xp.get_default_memory_pool().free_all_blocks()
    roots = choose_roots(G, nroots, 1)
    dist.bfs(G, int(roots[0]), return_parents=True)
    return C, G, roots
