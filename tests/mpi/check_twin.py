"""Every public algorithm of spbfs on a DistGraph against the single-device call on the scipy
matrix of the same graph; run as ``mpiexec -n P python -m mpi4py THIS twin [DEVICE [PLANE]]``.

Graphs: a Kronecker graph of 2^8 vertices (many of degree 0; self-loops dropped), directed
and undirected, its edges all on rank 0 (the other ranks hold none), split at random cut
points or evenly, thresholds 0, 8, 128 and one above every degree; its arcs from the smaller
id (a DAG); and a graph of 1,024 vertices with 424 components (more than 256).  Integer results and
partitions must be equal (partitions up to label names), scores within floating tolerance,
community detection within 1 % of the single-device modularity.  ``SPBFS_TWIN_ONLY=a,b``
runs only the named checks.  Rank 0 prints ``OK twin P=<P>`` at the end.
"""

import itertools
import os
import time

import numpy as np
import scipy.sparse as sp
from world import world

import spbfs
from spbfs import dist, semiring
from spbfs.dist.arrays import DistArray
from spbfs.dist.matrix import DistMatrix
from spbfs.graph500 import generate

comm, rank, P = None, 0, 1           # set by main()
device, C, xp = "cpu", None, np
ONLY = [s for s in os.environ.get("SPBFS_TWIN_ONLY", "").split(",") if s]
TIMES = {}
#: not yet on a distributed graph
PENDING = set()


def host(a):
    return a.get() if hasattr(a, "get") else np.asarray(a)


def split(m, how, seed=0):
    """This rank's [start, stop) of m edges: balanced, random cut points, or all on rank 0."""
    if how == "balanced":
        return m * rank // P, m * (rank + 1) // P
    if how == "rank0":
        return (0, m) if rank == 0 else (m, m)
    cuts = np.sort(np.random.default_rng(seed).integers(0, m + 1, P - 1))
    bounds = np.concatenate([[0], cuts, [m]])
    return int(bounds[rank]), int(bounds[rank + 1])


def edges(scale=8, factor=4, seed=3):
    """A Kronecker edge list, each unordered pair once, no self-loops."""
    U, V = generate.kronecker(scale, factor, seed=seed)
    n = 1 << scale
    keep = U != V
    U, V = U[keep], V[keep]
    key = np.minimum(U, V) * n + np.maximum(U, V)
    _, first = np.unique(key, return_index=True)
    return U[first], V[first], n


def oracle(U, V, n, directed):
    if directed:
        return sp.csr_array((np.ones(U.size), (U, V)), shape=(n, n))
    return sp.csr_array((np.ones(2 * U.size), (np.r_[U, V], np.r_[V, U])), shape=(n, n))


def build(U, V, n, how, threshold, directed, seed=0):
    s0, s1 = split(U.size, how, seed)
    return dist.DistGraph.from_edges(xp.asarray(U[s0:s1]), xp.asarray(V[s0:s1]), n,
                                           threshold=threshold, directed=directed, comm=C)


def on_host(m):
    """A scipy matrix of a scipy or cupyx one."""
    return m.get() if hasattr(m, "get") else m


def whole(G, x):
    """A result of a call on G as a host value on rank 0 (None elsewhere)."""
    if isinstance(x, tuple):
        return tuple(whole(G, y) for y in x)
    if isinstance(x, DistArray):
        return G.gather(x)
    if isinstance(x, (dist.DistGraph, DistMatrix)):   # a distributed matrix: its entries on rank 0
        R = on_host(semiring.Matrix.from_any(x).row_block().to_scipy()).tocoo()
        parts = comm.gather((R.row * P + rank, R.col, R.data), root=0)
        if rank:
            return None
        r, c, v = (np.concatenate(p) for p in zip(*parts, strict=True))
        return sp.csr_array((v, (r, c)), shape=(G.n, G.n))
    if hasattr(x, "to_scipy"):
        return on_host(x.to_scipy())
    if isinstance(x, (float, int, bool, np.number, np.bool_)):
        return x
    return host(x)


def same_partition(a, b):
    """Equal partitions up to label names."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    pairs = np.unique(np.stack([a, b]), axis=1)
    return (np.unique(pairs[0]).size == pairs.shape[1]
            and np.unique(pairs[1]).size == pairs.shape[1])


def equal(got, ref, how):
    if how == "partition":
        return same_partition(got, ref)
    if isinstance(ref, tuple):
        return len(got) == len(ref) and all(equal(g, r, how) for g, r in zip(got, ref,
                                                                             strict=True))
    if sp.issparse(ref):
        d = (sp.csr_array(got) - sp.csr_array(ref))
        return d.nnz == 0 or np.allclose(d.data, 0, atol=1e-9)
    if how == "exact":
        return np.array_equal(np.asarray(got), np.asarray(ref), equal_nan=True)
    return np.allclose(np.asarray(got, float), np.asarray(ref, float), rtol=1e-9,
                       atol=1e-11, equal_nan=True)


def checks(U, V, n, directed):
    """``name -> (call(X), comparison)``."""
    rng = np.random.default_rng(5)
    u = rng.integers(0, n, 40)
    v = rng.integers(0, n, 40)
    v = np.where(u == v, (v + 1) % n, v)
    hub = int(np.bincount(np.r_[U, V], minlength=n).argmax())
    u[:3], v[:3] = hub, (hub + np.arange(1, 4)) % n
    out = {
        "isolates": (lambda X: spbfs.isolates(X), "exact"),
        "reciprocity": (lambda X: spbfs.reciprocity(X), "close"),
        "overall_reciprocity": (lambda X: spbfs.overall_reciprocity(X), "close"),
        "is_directed_acyclic_graph": (lambda X: spbfs.is_directed_acyclic_graph(X), "exact"),
        "topological_generations": (lambda X: spbfs.topological_generations(X), "exact"),
        "closeness_centrality": (lambda X: spbfs.closeness_centrality(X), "close"),
        "harmonic_centrality": (lambda X: spbfs.harmonic_centrality(X), "close"),
        "harmonic_sources": (lambda X: spbfs.harmonic_centrality(X, sources=u[:5]), "close"),
        "clustering": (lambda X: spbfs.clustering(X, directed=directed), "close"),
        "core_number": (lambda X: spbfs.core_number(X, directed=directed), "exact"),
        "strong_components": (lambda X: spbfs.connected_components(X, connection="strong"),
                              "exact"),
        "edge_betweenness_centrality": (
            lambda X: spbfs.edge_betweenness_centrality(X, directed=directed), "close"),
        "ewise_union": (lambda X: semiring.ewise_union(X, semiring.select(X, "triu"),
                                                       semiring.ops.minus, 3, 100), "close"),
    }
    if not directed:
        out.update({
            "common_neighbors": (lambda X: spbfs.common_neighbors(X, u, v), "close"),
            "jaccard_coefficient": (lambda X: spbfs.jaccard_coefficient(X, u, v), "close"),
            "adamic_adar_index": (lambda X: spbfs.adamic_adar_index(X, u, v), "close"),
            "resource_allocation_index": (
                lambda X: spbfs.resource_allocation_index(X, u, v), "close"),
            "common_neighbor_centrality": (
                lambda X: spbfs.common_neighbor_centrality(X, u, v), "close"),
            "triangles": (lambda X: spbfs.triangles(X), "exact"),
            "triangle_count": (lambda X: spbfs.triangle_count(X), "exact"),
            "transitivity": (lambda X: spbfs.transitivity(X), "close"),
            "square_clustering": (lambda X: spbfs.square_clustering(X), "close"),
            "k_truss": (lambda X: spbfs.k_truss(X, 3), "close"),
            "k_truss_4": (lambda X: spbfs.k_truss(X, 4), "close"),
            "label_propagation": (lambda X: spbfs.label_propagation(X), "partition"),
            "louvain": (lambda X: spbfs.louvain(X, seed=1), "modularity"),
            "modularity": (lambda X: spbfs.modularity(X, np.arange(n) % 7), "close"),
        })
    return {k: f for k, f in out.items() if (k in ONLY if ONLY else k not in PENDING)}


def compare(name, G, A, got, ref, how, where):
    if how == "strong":   # (count, labels): the count and the partition
        assert got[0] == ref[0], (name, where, got[0], ref[0])
        how, got, ref = "partition", got[1], ref[1]
    if how == "modularity":   # a partition as good as the single device's
        mg = spbfs.modularity(A, got)
        mr = spbfs.modularity(A, ref)
        assert mg >= mr - 0.01 * abs(mr), (name, where, mg, mr)
        return
    assert equal(got, ref, how), (name, where, got, ref)


def run(U, V, n, directed, configs):
    A = oracle(U, V, n, directed)
    calls = checks(U, V, n, directed)
    refs = {name: whole(None, call(A)) for name, (call, _) in calls.items()}
    for k, (how, th) in enumerate(configs):
        G = build(U, V, n, how, th, directed, seed=k)
        for name, (call, kind) in calls.items():
            t0 = time.perf_counter()
            got = whole(G, call(G))
            TIMES[name] = TIMES.get(name, 0.0) + time.perf_counter() - t0
            if rank == 0:
                compare(name, G, A, got, refs[name], kind, (directed, how, th))


def mode_twin():
    U, V, n = edges()
    configs = (("rank0", 0), ("random", 8), ("balanced", 128), ("random", 10**9))
    for directed in (False, True):
        run(U, V, n, directed, configs)
    # a directed acyclic graph (arcs from the smaller id), with vertices of degree 0
    lo, hi = np.minimum(U, V), np.maximum(U, V)
    run(lo, hi, n, True, (("random", 8), ("rank0", 10**9)))
    # more than 256 components (labels past a byte): 300 paths of three vertices, a
    # triangle closing every tenth, and 124 isolated vertices
    k = np.arange(300)
    U2 = np.concatenate([3 * k, 3 * k + 1, 3 * k[::10]])
    V2 = np.concatenate([3 * k + 1, 3 * k + 2, 3 * k[::10] + 2])
    for directed in (False, True):
        run(U2, V2, 1024, directed, (("random", 0), ("balanced", 10**9)))


#: what reads parallel weighted arcs, each as the single device reads duplicates: the
#: shortest paths (closeness and harmonic too: found summed by a fuzz) their lightest,
#: ``reduce`` their sum (the distributed one combined them with its own monoid)
PARALLEL_CALLS = {
    "strong": lambda X: spbfs.connected_components(X, connection="strong")[1],
    "sssp": lambda X: spbfs.sssp(X, 0),
    "closeness": lambda X: spbfs.closeness_centrality(X, weight=True),
    "harmonic": lambda X: spbfs.harmonic_centrality(X, weight=True),
    "reduce max": lambda X: semiring.reduce(X, semiring.monoids.max),
    "reduce min rows": lambda X: semiring.reduce(X, semiring.monoids.min, axis=1
                                                 ).to_dense(-1.0),
    "reduce max columns": lambda X: semiring.reduce(X, semiring.monoids.max, axis=0
                                                    ).to_dense(-1.0),
}


def mode_parallel():
    """Weighted parallel arcs on some ranks' rows only (found by a fuzz: the ranks without
    any kept their layout when the graph's arcs were summed, the others made a new one,
    whose ghosts are made collectively: strong components hung), against the single
    device: a ring of 40 with two chords, one of them twice (rows 0 and 12 only)."""
    n = 40
    k = np.arange(n)
    U, V = np.r_[k, 0, 6, 0], np.r_[(k + 1) % n, 12, 12, 12]
    W = np.arange(1, U.size + 1, dtype=float) % 5 + 1
    for directed in (False, True):
        r, c, w = (U, V, W) if directed else (np.r_[U, V], np.r_[V, U], np.r_[W, W])
        order = np.lexsort((c, r))   # a CSR keeping its repeated entries, as the graph does
        indptr = np.concatenate([[0], np.cumsum(np.bincount(r, minlength=n))])
        A = sp.csr_array((w[order], c[order], indptr), shape=(n, n))
        for how, th in (("balanced", 1), ("balanced", 100), ("rank0", 2), ("random", 0)):
            s0, s1 = split(U.size, how)
            G = dist.DistGraph.from_edges(xp.asarray(U[s0:s1]), xp.asarray(V[s0:s1]), n,
                                          weights=xp.asarray(W[s0:s1]), threshold=th,
                                          directed=directed, comm=C)
            for name, call in PARALLEL_CALLS.items():
                got = whole(G, call(G))
                if rank == 0:
                    compare(name, G, A, got, whole(None, call(A)),
                            "partition" if name == "strong" else "close",
                            (directed, how, th))
    # a negative parallel arc beside a positive one: refused, as on one device (the weight
    # check read reductions, which take parallel arcs summed)
    s0, s1 = split(3, "rank0")
    G4 = dist.DistGraph.from_edges(xp.asarray(np.array([0, 0, 1])[s0:s1]),
                                   xp.asarray(np.array([1, 1, 2])[s0:s1]), 3,
                                   weights=xp.asarray(np.array([-1.0, 3.0, 1.0])[s0:s1]),
                                   comm=C)
    for call in (lambda: spbfs.sssp(G4, 0),
                 lambda: spbfs.closeness_centrality(G4, weight=True)):
        try:
            call()
        except ValueError as e:
            assert "negative" in str(e), e
        else:
            raise AssertionError("a negative parallel arc was taken")
    # a valued mask: an edge of weight 0 masks its entry out (the distributed product read
    # every mask entry as its structure; found by the same fuzz)
    U3, V3, W3 = np.array([0, 1, 0]), np.array([1, 2, 2]), np.array([0.0, 1.0, 1.0])
    A3 = sp.csr_array((np.r_[W3, W3], (np.r_[U3, V3], np.r_[V3, U3])), shape=(3, 3))
    s0, s1 = split(U3.size, "rank0")
    G3 = dist.DistGraph.from_edges(xp.asarray(U3[s0:s1]), xp.asarray(V3[s0:s1]), 3,
                                   weights=xp.asarray(W3[s0:s1]), comm=C)
    calls = {"mxm": lambda X, s: semiring.mxm(X, X, semiring.plus_times, mask=X,
                                             structural=s),
             "ewise_add": lambda X, s: semiring.ewise_add(X, X, semiring.ops.plus, mask=X,
                                                          structural=s),
             "ewise_mult": lambda X, s: semiring.ewise_mult(X, X, semiring.ops.times,
                                                            mask=X, structural=s)}
    for (name, call), structural in itertools.product(calls.items(), (False, True)):
        got = whole(G3, call(G3, structural))
        if rank == 0:
            ref = call(A3, structural).to_scipy()
            stored = [sorted(zip(sp.coo_array(M).row.tolist(), sp.coo_array(M).col.tolist(),
                                 strict=True)) for M in (got, ref)]
            assert stored[0] == stored[1], (name, structural, stored)


def main():
    global comm, rank, P, device, C, xp
    comm, rank, P, mode, device, C, xp = world()
    t0 = time.perf_counter()
    globals()[f"mode_{mode}"]()
    C.barrier()
    if rank == 0:
        slow = sorted(TIMES.items(), key=lambda kv: -kv[1])[:6]
        print("slowest:", ", ".join(f"{k} {t:.1f} s" for k, t in slow),
              f"total {time.perf_counter() - t0:.1f} s")
        print(f"OK {mode} P={P}")


if __name__ == "__main__":
    main()
