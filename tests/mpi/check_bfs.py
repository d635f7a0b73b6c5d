"""Checks spbfs.dist against spbfs.bfs; run as ``mpiexec -n P python -m mpi4py THIS MODE``.

Optional arguments after the mode: device (cpu/gpu) and data plane (auto/mpi/nccl).
Modes: ``bfs`` (levels identical to spbfs.bfs, parents pass the Graph500 checks, for several
thresholds, sources, splits and options), ``tiny`` (fewer vertices than ranks),
``directed`` (one-way arcs: levels over the graph and its transpose),
``harness`` (the distributed Graph500 run), ``raise`` (an exception on one rank must end
the job), ``mismatch`` (inconsistent arguments give a clear error on every rank).
Rank 0 prints ``OK <mode>`` at the end.
"""


import numpy as np
import scipy.sparse as sp
from world import world

import spbfs
from spbfs import dist, graph500
from spbfs.graph500 import generate

comm, rank, P = None, 0, 1           # set by main()
device, C, xp = "cpu", None, np


def host(a):
    return a.get() if hasattr(a, "get") else np.asarray(a)


def split(m, how, seed=0):
    """This rank's [start, stop) of m edges: balanced, random cut points, or all on rank 0."""
    if how == "balanced":
        return dist.slice_bounds(m, rank, P)
    if how == "rank0":
        return (0, m) if rank == 0 else (m, m)
    cuts = np.sort(np.random.default_rng(seed).integers(0, m + 1, P - 1))
    bounds = np.concatenate([[0], cuts, [m]])
    return int(bounds[rank]), int(bounds[rank + 1])


def oracle(U, V, n):
    A = sp.csr_array((np.ones(U.size), (U, V)), shape=(n, n))
    return spbfs.prepare(A, directed=False)


def check(G, M, U, V, source, undirected=True, **opts):
    stats = {}
    lv, pa = dist.bfs(G, source, return_parents=True, stats=stats, **opts)
    lvl, par = G.gather(lv), G.gather(pa)
    nedge = G.traversed_edges(lv) if undirected else None
    lv2 = dist.bfs(G, source, return_parents=False, **opts)
    lvl2 = G.gather(lv2)
    if rank == 0:
        ref = host(spbfs.bfs(M, source))
        assert np.array_equal(lvl, ref), (source, opts, np.flatnonzero(lvl != ref)[:10])
        assert np.array_equal(lvl2, ref), (source, opts, "levels-only run differs")
        res = graph500.validate(U, V, source, par, lvl, raise_on_error=False)
        assert res.ok, (source, opts, res.failures)
        assert nedge is None or nedge == res.nedge, (nedge, res.nedge)
        assert stats["levels"] == int(ref.max()), (source, opts, stats["levels"], ref.max())
    fixed = opts.get("direction", "auto")
    if fixed != "auto":   # every level of every rank in the direction asked for
        assert set(stats["directions"]) <= {fixed}, (source, opts, stats["directions"])
    return stats


def sources_for(G, deg, n):
    """A delegate, a normal vertex with an edge and an isolated vertex (where they exist)."""
    isdel = np.zeros(n, bool)
    isdel[host(G.delegates)] = True
    out = []
    for cand in (np.flatnonzero(isdel), np.flatnonzero(~isdel & (deg > 0)),
                 np.flatnonzero(deg == 0)):
        if cand.size:
            out.append(int(cand[cand.size // 3]))
    return out


def mode_bfs():
    scale, ef = 9, 8
    n = 1 << scale
    U, V = generate.kronecker(scale, ef, seed=3)
    M = oracle(U, V, n)
    deg = np.bincount(U[U != V], minlength=n) + np.bincount(V[U != V], minlength=n)
    maxdeg = int(deg.max())
    runs = 0
    for th, how in ((0, "balanced"), (4, "random"), (16, "rank0"), (None, "random"),
                    (maxdeg, "balanced")):
        s0, s1 = split(U.size, how, seed=th or 7)
        G = dist.DistGraph.from_edges(xp.asarray(U[s0:s1]), xp.asarray(V[s0:s1]), n,
                                      threshold=th, comm=C, chunk=1000)
        rep = G.report()
        if th == maxdeg:
            assert G.D == 0, G.D
        if th == 0:
            assert G.D == int((deg > 0).sum()), (G.D, int((deg > 0).sum()))
        srcs = sources_for(G, deg, n)
        for s in srcs:
            st = check(G, M, U, V, s)
            runs += 1
        if rank == 0 and th == 0:
            print(f"levels of the last search: {st['levels']}, directions {st['directions']}")
        s = srcs[0]
        for opts in ({"direction": "push"}, {"direction": "pull"}, {"alpha": 1e-3},
                     {"alpha": 1e3, "beta": 1e-3}, {"beta": 1e3}):
            check(G, M, U, V, s, **opts)
            runs += 1
        if rank == 0 and th == 16:
            print(rep)
    # directed=True with a symmetric list, and symmetrize=True with a one-way list
    s0, s1 = split(U.size, "random", seed=11)
    Ud, Vd = np.concatenate([U[s0:s1], V[s0:s1]]), np.concatenate([V[s0:s1], U[s0:s1]])
    G = dist.DistGraph.from_edges(xp.asarray(Ud), xp.asarray(Vd), n, threshold=8,
                                  directed=True, comm=C)
    check(G, M, U, V, int(U[0]), undirected=False)
    G = dist.DistGraph.from_edges(xp.asarray(U[s0:s1]), xp.asarray(V[s0:s1]), n, threshold=8,
                                  directed=True, symmetrize=True, comm=C)
    check(G, M, U, V, int(V[5]))
    # a graph with long paths (many levels: past 256 and 512, where the ghost slots' levels
    # come back modulo 256) and no delegates on some ranks
    k = 700
    pu = np.arange(k - 1)
    pv = pu + 1
    hub_u = np.full(30, k)
    hub_v = np.arange(30) * 5
    U2, V2 = np.concatenate([pu, hub_u]), np.concatenate([pv, hub_v])
    n2 = k + 3
    M2 = oracle(U2, V2, n2)
    s0, s1 = split(U2.size, "random", seed=5)
    G = dist.DistGraph.from_edges(xp.asarray(U2[s0:s1]), xp.asarray(V2[s0:s1]), n2,
                                  threshold=3, comm=C)
    for s in (0, k, k - 1, k + 2):
        check(G, M2, U2, V2, s)
        check(G, M2, U2, V2, s, direction="pull")
    return runs


def mode_tiny():
    U, V = np.array([0, 1]), np.array([1, 2])
    n = 3
    M = oracle(U, V, n)
    for th in (0, 1, 5):
        s0, s1 = split(U.size, "rank0")
        G = dist.DistGraph.from_edges(xp.asarray(U[s0:s1]), xp.asarray(V[s0:s1]), n,
                                      threshold=th, comm=C)
        for s in range(n):
            check(G, M, U, V, s)
    # no edges at all
    G = dist.DistGraph.from_edges(xp.zeros(0, np.int64), xp.zeros(0, np.int64), 5, comm=C)
    lv = G.gather(dist.bfs(G, 4))
    if rank == 0:
        assert lv.tolist() == [-1, -1, -1, -1, 0], lv


def mode_directed():
    """A directed graph: each arc one way; levels equal spbfs.bfs on the directed matrix,
    over ``G`` and its transpose, pushing, pulling and by Beamer's rule."""
    U, V = generate.kronecker(9, 8, seed=4)
    n = 1 << 9
    A = sp.csr_array((np.ones(U.size), (U, V)), shape=(n, n))
    for th in (0, 6, None):
        s0, s1 = split(U.size, "random", seed=th or 1)
        G = dist.DistGraph.from_edges(xp.asarray(U[s0:s1]), xp.asarray(V[s0:s1]), n,
                                      threshold=th, directed=True, comm=C)
        for s in (int(U[0]), int(V[3])):
            for opts in ({}, {"direction": "push"}, {"direction": "pull"}):
                got = G.gather(dist.bfs(G, s, **opts))
                back = G.gather(dist.bfs(G.T, s, **opts))
                if rank == 0:
                    assert np.array_equal(got, host(spbfs.bfs(A, s))), (th, s, opts)
                    assert np.array_equal(back, host(spbfs.bfs(A.T.tocsr(), s))), (th, s)


def mode_harness():
    stats = dist.harness.run_graph500(8, edgefactor=8, roots=6, seed=2, threshold=8,
                                      device=device, comm=C)
    if rank == 0:
        assert stats["validation"] == "passed", stats
        assert stats["NBFS"] == 6
    # the roots are those of the single-process harness
    from spbfs.graph500.harness import choose_roots

    U, V = generate.kronecker(8, 8, seed=2)
    s0, s1 = split(U.size, "random", seed=3)
    G = dist.DistGraph.from_edges(xp.asarray(U[s0:s1]), xp.asarray(V[s0:s1]), 256, comm=C)
    for count in (5, 64, 1000):
        mine = dist.harness.choose_roots(G, count, seed=4)
        ref = choose_roots(U, V, 256, count, seed=4)
        assert np.array_equal(mine, ref), (count, mine, ref)


def mode_raise():
    U, V = generate.kronecker(8, 4, seed=1)
    G = dist.DistGraph.from_edges(xp.asarray(U), xp.asarray(V), 256, comm=C)
    if rank == P - 1:
        raise RuntimeError(f"deliberate failure on rank {rank}")
    dist.bfs(G, int(U[0]))
    comm.Barrier()


def mode_mismatch():
    dist.DistGraph.from_edges(xp.zeros(0, np.int64), xp.zeros(0, np.int64), 10 + rank, comm=C)


def main():
    global comm, rank, P, device, C, xp
    comm, rank, P, mode, device, C, xp = world()
    if mode == "harness":
        import spbfs.dist.harness  # noqa: F401
    globals()[f"mode_{mode}"]()
    comm.Barrier()
    if rank == 0:
        print(f"OK {mode} P={P}")


if __name__ == "__main__":
    main()
