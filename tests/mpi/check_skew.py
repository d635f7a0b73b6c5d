"""Skewed, uneven inputs and many graphs in one process; run as
``mpiexec -n P python -m mpi4py THIS MODE [DEVICE [PLANE]] [SCALE]``.

Modes: ``skew`` (a Kronecker graph whose edge list is cut at random points, so a rank may
get almost nothing, built with thresholds 0, 8, 128 and above every degree; three searches
with parents each, from the hub, a degree-1 vertex and an isolated vertex, against
spbfs.bfs and the Graph500 checks; each build's seconds printed), ``even`` (a uniform
random edge list in even slices, threshold 128, two searches), ``reuse`` (three graphs
built without a communicator share one: one NCCL set-up; phases timed), ``fresh`` (as
``skew``, each graph on a Communicator of its own).
Rank 0 prints ``OK <mode> P=<P>`` at the end.
"""

import sys
import time

import numpy as np
import scipy.sparse as sp
from world import world

import spbfs
from spbfs import dist, graph500
from spbfs.graph500 import generate


def host(a):
    return a.get() if hasattr(a, "get") else np.asarray(a)


def run(C, xp, rank, P, U, V, n, slices, thresholds, sources_of):
    A = sp.csr_array((np.ones(U.size), (U, V)), shape=(n, n))
    M = spbfs.prepare(A, directed=False)
    for th in thresholds:
        s0, s1 = slices
        C.barrier()
        t0 = time.perf_counter()
        G = dist.DistGraph.from_edges(xp.asarray(U[s0:s1]), xp.asarray(V[s0:s1]), n,
                                      threshold=th, comm=C)
        C.sync()
        built = C.allreduce(time.perf_counter() - t0, "max")
        times = []
        for s in sources_of(A):
            t0 = time.perf_counter()
            lv, pa = dist.bfs(G, s, return_parents=True)
            times.append(C.allreduce(time.perf_counter() - t0, "max"))
            lv, pa = G.gather(lv), G.gather(pa)
            if rank == 0:
                ref = host(spbfs.bfs(M, s))
                assert np.array_equal(lv, ref), (th, s)
                res = graph500.validate(U, V, s, pa, lv, raise_on_error=False)
                assert res.ok, (th, s, res.failures)
        if rank == 0:
            print(f"P={P} {C.device}/{C.data_plane} threshold={th} D={G.D}: build "
                  f"{built:.3f} s, searches " + " ".join(f"{t:.4f}" for t in times), flush=True)


def sources(A):
    deg = A.sum(axis=1) + A.sum(axis=0)
    one, zero = np.flatnonzero(deg == 1), np.flatnonzero(deg == 0)
    out = [int(np.argmax(deg))]
    out += [int(one[0])] if one.size else []
    return out + ([int(zero[0])] if zero.size else [])


def reuse(C, rank, P, scale, device):
    """Graphs built one after another without a communicator share one (one NCCL
    set-up); each build's phases and first search timed."""
    n = 1 << scale
    u, v = dist.kronecker(scale, 16, seed=1, comm=C)
    u, v = C.to_host(u), C.to_host(v)
    source = C.bcast(int(u[0]) if u.size else 0)
    comms = []
    for k in range(3):
        t0 = time.perf_counter()
        G = dist.DistGraph.from_edges(u, v, n, device=device, data_plane=C.data_plane)
        built = time.perf_counter() - t0
        t0 = time.perf_counter()
        lv = G.gather(dist.bfs(G, source, return_parents=True)[0])
        searched = time.perf_counter() - t0
        assert rank != 0 or lv[source] == 0
        comms.append(G.comm)
        if rank == 0:
            phases = " ".join(f"{k}={t:.3f}" for k, t in G.build_seconds.items())
            print(f"graph {k}: build {built:.3f} s ({phases}), first search {searched:.3f} s",
                  flush=True)
    assert comms[0] is comms[1] is comms[2], "each graph made its own communicator"


def main():
    comm, rank, P, mode, device, C, xp = world()
    scale = int(sys.argv[4]) if len(sys.argv) > 4 else 10
    n = 1 << scale
    if mode == "skew":
        U, V = generate.kronecker(scale, 16, seed=5)
        cuts = np.sort(np.random.default_rng(11).integers(0, U.size + 1, P - 1))
        bounds = np.concatenate([[0], cuts, [U.size]])
        slices = int(bounds[rank]), int(bounds[rank + 1])
        run(C, xp, rank, P, U, V, n, slices, (0, 8, 128, 10**9), sources)
    elif mode == "even":
        rng = np.random.default_rng(3)
        U, V = rng.integers(0, n, 16 * n), rng.integers(0, n, 16 * n)
        run(C, xp, rank, P, U, V, n, dist.slice_bounds(U.size, rank, P), (128,),
            lambda A: sources(A)[:2])
    elif mode == "fresh":   # a Communicator of its own per graph, made by the caller
        U, V = generate.kronecker(scale, 16, seed=5)
        cuts = np.sort(np.random.default_rng(11).integers(0, U.size + 1, P - 1))
        bounds = np.concatenate([[0], cuts, [U.size]])
        slices = int(bounds[rank]), int(bounds[rank + 1])
        for th in (0, 8, 128, 10**9):
            own = dist.Communicator(device=device, data_plane=C.data_plane)
            run(own, own.xp, rank, P, U, V, n, slices, (th,), sources)
    elif mode == "reuse":
        reuse(C, rank, P, scale, device)
    C.barrier()
    if rank == 0:
        print(f"OK {mode} P={P}")


if __name__ == "__main__":
    main()
