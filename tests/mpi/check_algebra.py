"""The distributed semiring operations and the algorithms on them, against the
single-process results; run as ``mpiexec -n P python -m mpi4py THIS MODE [DEVICE [PLANE]]``.

Modes: ``components`` (labels of a graph of about 1,000 components), ``ops`` (vxm / mxv over
named and user-defined semirings, masks and their complement, reduce, ewise_add /
ewise_union / ewise_mult, the pointer-matrix scatter, mxm with a dense block, select),
``algorithms``
(spbfs.bfs, sssp, pagerank, betweenness_centrality, katz, eigenvector, hits, degree
centrality and connected_components on a DistGraph against scipy-built matrices: Kronecker
and random graphs, directed and undirected, weighted, balanced, random and all-on-rank-0
slices, thresholds 0, small, default and above every degree).
Rank 0 prints ``OK <mode> P=<P>`` at the end.
"""

import numpy as np
import scipy.sparse as sp
from world import world

import spbfs
from spbfs import dist, semiring
from spbfs.algorithms.msbfs import bor_first
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


def graphs():
    """``(name, U, V, W, n)``: edge lists with weights, each unordered pair once (so the
    scipy oracles, which sum duplicates, agree with every definition of a duplicate)."""
    rng = np.random.default_rng(7)
    out = []
    for name, (U, V, n) in (("kronecker", (*generate.kronecker(9, 8, seed=3), 1 << 9)),
                            ("random", (rng.integers(0, 300, 900), rng.integers(0, 300, 900),
                                        300))):
        key = np.minimum(U, V) * n + np.maximum(U, V)
        _, first = np.unique(key, return_index=True)
        U, V = U[first], V[first]
        W = rng.integers(1, 9, U.size).astype(np.float64)
        out.append((name, U, V, W, n))
    return out


def oracle(U, V, W, n, directed):
    """The scipy matrix of the same graph (an undirected self-loop stored once)."""
    if directed:
        return sp.csr_array((W, (U, V)), shape=(n, n))
    back = U != V
    return sp.csr_array((np.r_[W, W[back]], (np.r_[U, V[back]], np.r_[V, U[back]])),
                        shape=(n, n))


def build(U, V, W, n, how, threshold, directed, weighted=True, seed=0):
    s0, s1 = split(U.size, how, seed)
    return dist.DistGraph.from_edges(xp.asarray(U[s0:s1]), xp.asarray(V[s0:s1]), n,
                                     weights=xp.asarray(W[s0:s1]) if weighted else None,
                                     threshold=threshold, directed=directed, comm=C)


def mode_algorithms():
    runs = 0
    for name, U, V, W, n in graphs():
        for directed in (False, True):
            A = oracle(U, V, W, n, directed)
            for k, (how, th) in enumerate((("balanced", None), ("random", 0), ("rank0", 4),
                                           ("random", 10**6))):
                G = build(U, V, W, n, how, th, directed, seed=k)
                sources = (int(U[0]), int(V[-1]))
                for s in sources:
                    lv, pa = spbfs.bfs(G, s, return_parents=True)
                    d = spbfs.sssp(G, s)
                    lv, pa, d = G.gather(lv), G.gather(pa), G.gather(d)
                    if rank == 0:
                        ref = host(spbfs.bfs(A, s))
                        assert np.array_equal(lv, ref), (name, directed, how, th, s)
                        reach = ref >= 0
                        assert pa[s] == s and np.all(ref[pa[reach & (ref > 0)]] ==
                                                      ref[reach & (ref > 0)] - 1)
                        assert np.allclose(d, host(spbfs.sssp(A, s))), (name, directed, s)
                many = [int(U[0]), int(V[-1]), int(U[0])]
                lv, pa = spbfs.bfs(G, many, return_parents=True)
                lv, pa = G.gather(lv), G.gather(pa)
                d = G.gather(spbfs.sssp(G, many))  # one search a source, rows stacked
                near = G.gather(spbfs.sssp(G, many, min_only=True))
                try:  # the tight-edge tree reads a pattern that a graph over ranks has not
                    spbfs.sssp(G, many[0], return_predecessors=True)
                    raise AssertionError("sssp's predecessors on a DistGraph did not raise")
                except ValueError as exc:
                    assert "distributed graph" in str(exc), exc
                if rank == 0:
                    assert lv.shape == (3, n) and np.array_equal(lv, host(spbfs.bfs(A, many)))
                    assert all(pa[i, s] == s for i, s in enumerate(many))
                    want = host(spbfs.sssp(A, many))
                    assert d.shape == (3, n) and np.allclose(d, want), (name, directed, how)
                    assert np.allclose(near, want.min(axis=0)), (name, directed, how)
                # levels only: 64 searches per bit-packed level loop (two groups, a repeat)
                many = np.random.default_rng(k).integers(0, n, 70).tolist() + [int(U[0])] * 2
                lv = G.gather(spbfs.bfs(G, many))
                if rank == 0:
                    assert np.array_equal(lv, host(spbfs.bfs(A, many))), (name, directed, how)
                for weight in (True, False):
                    pr = G.gather(spbfs.pagerank(G, weight=weight, tol=1e-10))
                    if rank == 0:
                        ref = host(spbfs.pagerank(A, weight=weight, tol=1e-10))
                        assert np.allclose(pr, ref, atol=1e-9), (name, directed, weight)
                some = np.array([int(U[0]), int(V[1]), int(U[0]), 5])
                bc = G.gather(spbfs.betweenness_centrality(G, directed=directed, sources=some,
                                                           batch=3))
                if rank == 0:
                    ref = host(spbfs.betweenness_centrality(A, directed=directed,
                                                            sources=some, batch=3))
                    assert np.allclose(bc, ref), (name, directed, how, th)
                def spectral_of(X, directed=directed):
                    out = [spbfs.katz_centrality(X, alpha=0.002, weight=True),
                           spbfs.degree_centrality(X, directed=directed)]
                    if not directed:   # converge on the undirected graphs
                        out += [spbfs.eigenvector_centrality(X, max_iter=1000),
                                *spbfs.hits(X, max_iter=1000)]
                    return out

                spectral = [G.gather(x) for x in spectral_of(G)]
                if rank == 0:
                    ref = [host(x) for x in spectral_of(A)]
                    for g, e in zip(spectral, ref, strict=True):
                        assert np.allclose(g, e, atol=1e-7), (name, directed, how, th)
                k_g, lab = spbfs.connected_components(G, directed=directed)
                lab = G.gather(lab)
                if rank == 0:
                    k_ref, lab_ref = spbfs.connected_components(A, directed=directed)
                    assert k_g == k_ref and np.array_equal(lab, host(lab_ref)), (name, k_g)
                runs += 1
    # an unweighted graph: unit weights for sssp, duplicates stored once
    name, U, V, W, n = graphs()[0]
    G = build(np.r_[U, U], np.r_[V, V], np.r_[W, W], n, "random", 8, False, weighted=False)
    d = G.gather(spbfs.sssp(G, int(U[0])))
    if rank == 0:
        A = oracle(U, V, np.ones(U.size), n, False)
        assert np.array_equal(d, host(spbfs.sssp(A, int(U[0]))))
    return runs


def mode_components():
    """Labels of a graph with about 1,000 components (most of them isolated vertices),
    every threshold, directed and undirected, weak and levels from many sources."""
    U, V = generate.kronecker(11, 2, seed=3)
    n = 1 << 11
    W = np.ones(U.size)
    for directed in (False, True):
        A = oracle(U, V, W, n, directed)
        k_ref, lab_ref = spbfs.connected_components(A, directed=directed)
        assert k_ref > 512
        for k, (how, th) in enumerate((("random", 0), ("rank0", 8), ("balanced", 128),
                                       ("random", 10**9))):
            G = build(U, V, W, n, how, th, directed, weighted=False, seed=k)
            k_g, lab = spbfs.connected_components(G, directed=directed)
            lab = G.gather(lab)
            if rank == 0:
                assert k_g == k_ref and np.array_equal(lab, host(lab_ref)), (directed, th)
                assert np.unique(lab).size == k_ref
            many = [int(U[0]), 1, int(V[3])]
            lv = G.gather(spbfs.bfs(G, many))
            if rank == 0:
                assert lv.shape == (3, n) and np.array_equal(lv, host(spbfs.bfs(A, many)))


def mode_ops():
    name, U, V, W, n = graphs()[1]
    A = oracle(U, V, W, n, True)
    custom = semiring.Semiring(semiring.monoids.max,
                               semiring.BinaryOp("twice_plus", lambda x, a, i, j, dt:
                                                 (2 * x + a).astype(dt), "(2 * x + a)", "xa",
                                                 lambda xd, ad: np.result_type(xd, ad)))
    band = semiring.Monoid("band", np.bitwise_and, lambda dt: np.iinfo(dt).max, "(a & b)",
                           lambda dt: 0)
    hwords = np.arange(n, dtype=np.uint64) * np.uint64(2654435761) + np.uint64(1 << 40)
    for th in (0, 5, None):
        G = build(U, V, W, n, "random", th, True, seed=3)
        M = semiring.Matrix.from_any(G)
        dx = M.xp
        ids = dx.arange(n)
        # bitwise monoids: the delegates' words OR-reduced over ranks (AND by De Morgan)
        for monoid in (bor_first.monoid, band):
            sr = semiring.Semiring(monoid, semiring.ops.first)
            y = semiring.vxm(dx.asarray(hwords), G, sr)
            gp, gv = G.gather(y.present), G.gather(y.values)
            if rank == 0:
                ref = semiring.vxm(hwords, A, sr).to_bitmap()
                assert np.array_equal(gp, host(ref.present)), (th, monoid.name)
                assert np.array_equal(gv[gp], host(ref.values)[gp]), (th, monoid.name)
        x_full = (ids % 7).astype(np.float64)
        x_sparse = semiring.Vector(n, "bitmap", present=ids % 5 == 0, values=x_full)
        mask = ids % 3 == 0
        hx = np.arange(n) % 7 * 1.0
        hpresent = np.arange(n) % 5 == 0
        hmask = np.arange(n) % 3 == 0
        sx = semiring.Vector.sparse(np.flatnonzero(hpresent), hx[hpresent], size=n)
        for sr in (semiring.plus_times, semiring.min_plus, semiring.max_plus, custom,
                   semiring.any_pair):
            for x, hxv in ((x_full, hx), (x_sparse, sx)):
                for m, comp in ((None, False), (mask, False), (mask, True)):
                    y = semiring.vxm(x, G, sr, mask=m, complement=comp)
                    z = semiring.mxv(G, x, sr, mask=m, complement=comp)
                    got = [(G.gather(v.present), G.gather(v.values)) for v in (y, z)]
                    if rank == 0:
                        hm = None if m is None else hmask
                        for (gp, gv), B in zip(got, (A, A.T.tocsr()), strict=True):
                            ref = semiring.vxm(hxv, B, sr, mask=hm,
                                               complement=comp).to_bitmap()
                            assert np.array_equal(gp, ref.present), (sr.name, th, comp)
                            assert np.allclose(gv[gp], ref.values[ref.present]), sr.name
        rows = G.gather(semiring.reduce(G, semiring.monoids.plus, axis=1).to_dense(0.0))
        cols = G.gather(semiring.reduce(G, semiring.monoids.min, axis=0).to_dense(-1.0))
        total = semiring.reduce(G, semiring.monoids.max)
        vmax = semiring.reduce(x_sparse, semiring.monoids.max)
        both = semiring.ewise_mult(x_sparse, semiring.Vector(n, "bitmap", present=mask,
                                                             values=ids), semiring.ops.plus)
        either = semiring.ewise_add(x_sparse, semiring.Vector(n, "bitmap", present=mask,
                                                              values=ids), semiring.ops.plus)
        filled = semiring.ewise_union(x_sparse, semiring.Vector(n, "bitmap", present=mask,
                                                                values=ids),
                                      semiring.ops.minus, 7, 1000)
        hooked = semiring.vxm(x_full, semiring.pointer_matrix(ids // 2), semiring.min_first)
        got = [G.gather(v.to_dense(-1)) for v in (both, either, hooked, filled)]
        B = dx.ones((n, 3))
        B[np.array([0, 1, 2, 7]), np.array([0, 1, 2, 2])] = 5.0
        dx.copyto(B, 3.0, where=B > 4.0)   # in place
        blocks = [G.gather(semiring.mxm(G, B, sr, mask=m, complement=comp))
                  for sr in (semiring.plus_times, semiring.min_plus)
                  for m, comp in ((None, False), (B > 1.0, True))]
        if rank == 0:
            assert np.allclose(rows, A.sum(axis=1))
            cref = semiring.reduce(A, semiring.monoids.min, axis=0).to_dense(-1.0)
            assert np.array_equal(cols, cref)
            assert total == A.data.max() and vmax == hx[hpresent].max()
            h = np.arange(n)
            assert np.array_equal(got[0], np.where(hpresent & hmask, hx + h, -1))
            assert np.array_equal(got[1], np.where(hpresent & hmask, hx + h,
                                                   np.where(hpresent, hx,
                                                            np.where(hmask, h, -1))))
            assert np.array_equal(got[3], np.where(hpresent & hmask, hx - h,
                                                   np.where(hpresent, hx - 1000,
                                                            np.where(hmask, 7 - h, -1))))
            exp = np.full(n, -1.0)
            np.minimum.at(exp, h // 2, hx)
            exp[np.setdiff1d(h, h // 2)] = -1
            exp[h // 2] = [hx[h // 2 == t].min() for t in h // 2]
            assert np.array_equal(got[2], exp)
            hB = np.ones((n, 3))
            hB[[0, 1, 2, 7], [0, 1, 2, 2]] = 3.0
            expect = [semiring.mxm(A, hB, sr, mask=m, complement=comp)
                      for sr in (semiring.plus_times, semiring.min_plus)
                      for m, comp in ((None, False), (hB > 1.0, True))]
            for g, e in zip(blocks, expect, strict=True):
                assert np.allclose(g, e), (th, np.abs(g - e).max())


def main():
    global comm, rank, P, device, C, xp
    comm, rank, P, mode, device, C, xp = world()
    globals()[f"mode_{mode}"]()
    C.barrier()
    if rank == 0:
        print(f"OK {mode} P={P}")


if __name__ == "__main__":
    main()
