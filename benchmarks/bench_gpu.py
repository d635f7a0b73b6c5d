"""GPU benchmarks: Graph500 BFS (GTEPS) vs a cupyx baseline, a 2D grid, and sssp vs scipy.

Run on a machine with a CUDA GPU and CuPy::

    PYTHONPATH=. python3 benchmarks/bench_gpu.py --scales 20 22 24 --roots 64

Prints one table per section; ``--json FILE`` also writes every number.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np


def _sync():
    import cupy

    cupy.cuda.get_current_stream().synchronize()


def _hmean(x):
    x = np.asarray(x, dtype=np.float64)
    return float(x.size / np.sum(1.0 / x))


def generate(scale, edgefactor, seed, chunk=1 << 26):
    """Kronecker edge list on the GPU in chunks, each cast to int32 (n fits)."""
    import cupy

    from spbfs.graph500.generate import kronecker

    m = edgefactor << scale
    us, vs = [], []
    for s in range(0, m, chunk):
        u, v = kronecker(scale, edgefactor, seed, start=s, stop=min(s + chunk, m), xp=cupy)
        us.append(u.astype(np.int32))
        vs.append(v.astype(np.int32))
        del u, v
    return us, vs


def choose_roots(M, count, seed):
    """Random distinct vertices with an edge that is not a self-loop (Graph500 rule)."""
    import cupy

    cand = cupy.flatnonzero(M.out_degree > 0).get()
    rng = np.random.default_rng(seed)
    picked = []
    for k in rng.permutation(cand.size).tolist():  # loop over roots, not vertices
        r = int(cand[k])
        row = M.indices[int(M.indptr[r]):int(M.indptr[r + 1])]
        if bool((row != r).any()):
            picked.append(r)
            if len(picked) == count:
                break
    return np.array(picked)


def cupyx_bfs(A, root, AT=None):
    """Level-synchronous BFS with cupyx alone: y = A.T @ x through cuSPARSE, visited mask.

    ``AT``: ``A.T`` already in CSR (built once outside the timing), else ``A.T`` per call.
    """
    import cupy

    n = A.shape[0]
    levels = cupy.full(n, -1, np.int32)
    visited = cupy.zeros(n, bool)
    x = cupy.zeros(n, np.float32)
    x[root] = 1
    visited[root] = True
    levels[root] = 0
    AT = A.T if AT is None else AT
    level = 0
    while True:
        level += 1
        y = AT @ x
        new = (y > 0) & ~visited
        if not bool(new.any()):
            break
        visited |= new
        levels[new] = level
        x = new.astype(np.float32)
    return levels


def bench_graph500(scale, args, out):
    import cupy
    import cupyx.scipy.sparse as csp

    from spbfs.algorithms.bfs import search
    from spbfs.gpu.build import csr_from_edges
    from spbfs.semiring import Matrix

    pool = cupy.get_default_memory_pool()
    n = 1 << scale
    m = args.edgefactor << scale
    _sync()
    t0 = time.perf_counter()
    us, vs = generate(scale, args.edgefactor, args.seed)
    _sync()
    t_gen = time.perf_counter() - t0
    t0 = time.perf_counter()
    M = Matrix(*csr_from_edges(us, vs, n), n, symmetric=True, check=False)
    _sync()
    t_csr = time.perf_counter() - t0
    csr_bytes = M.indptr.nbytes + M.indices.nbytes
    validate = scale <= args.validate_max_scale
    if validate:
        u64 = cupy.concatenate(us).astype(np.int64)
        v64 = cupy.concatenate(vs).astype(np.int64)
    del us, vs
    pool.free_all_blocks()
    roots = choose_roots(M, args.roots, args.seed)
    deg = M.out_degree
    search(M, int(roots[0]), return_parents=True)  # compile + workspace
    _sync()
    times, nedges = [], []
    nvalid = 0
    for k, root in enumerate(roots.tolist()):
        _sync()
        t0 = time.perf_counter()
        levels, parents = search(M, root, return_parents=True, alpha=args.alpha,
                                   beta=args.beta)
        _sync()
        times.append(time.perf_counter() - t0)
        # Graph500 edge count: input tuples in the component = half the reached degree sum
        # (each tuple is stored twice, a self-loop twice in its own row).
        nedges.append(int(deg[levels >= 0].sum()) // 2)
        if validate and k < args.validate_roots:
            from spbfs import graph500

            res = graph500.validate(u64, v64, root, parents, levels)
            assert res.nedge == nedges[-1], (res.nedge, nedges[-1])
            nvalid += 1
    resident = pool.used_bytes()  # graph + workspace + last outputs (+ validation edges)
    teps = np.array(nedges) / np.array(times)
    row = {"scale": scale, "n": n, "m": m, "gen_s": t_gen, "csr_s": t_csr,
           "csr_bytes_per_edge": csr_bytes / m, "resident_bytes_per_edge": resident / m,
           "gteps_hmean": _hmean(teps) / 1e9, "gteps_max": float(teps.max()) / 1e9,
           "bfs_ms_median": float(np.median(times)) * 1e3, "roots": len(roots),
           "validated": nvalid}
    if validate:
        del u64, v64
    # per-level profile of one root
    trace = []
    search(M, int(roots[0]), return_parents=True, trace=trace)
    row["trace"] = trace
    # cupyx baseline on the same graph and roots (needs 32-bit offsets for cuSPARSE)
    if args.baseline_roots and M.nnz <= np.iinfo(np.int32).max:
        A = csp.csr_matrix((cupy.ones(M.nnz, np.float32), M.indices,
                            M.indptr.astype(np.int32)), shape=(n, n))
        AT = A.T.tocsr()
        bt, bn = [], []
        for root in roots[: args.baseline_roots].tolist():
            cupyx_bfs(A, root, AT)
            _sync()
            t0 = time.perf_counter()
            lev_b = cupyx_bfs(A, root, AT)
            _sync()
            bt.append(time.perf_counter() - t0)
            lev = search(M, root)
            assert bool((lev_b == lev).all()), "cupyx baseline disagrees"
            bn.append(int(deg[lev >= 0].sum()) // 2)
        row["baseline_gteps_hmean"] = _hmean(np.array(bn) / np.array(bt)) / 1e9
        row["baseline_roots"] = len(bt)
        del A, AT
    del M, deg
    pool.free_all_blocks()
    out.append(row)
    return row


def bench_grid(side, args):
    import cupy

    from spbfs.algorithms.bfs import search
    from spbfs.gpu.build import csr_from_edges
    from spbfs.semiring import Matrix

    idx = cupy.arange(side * side, dtype=np.int32).reshape(side, side)
    u = cupy.concatenate([idx[:, :-1].ravel(), idx[:-1, :].ravel()])
    v = cupy.concatenate([idx[:, 1:].ravel(), idx[1:, :].ravel()])
    M = Matrix(*csr_from_edges(u, v, side * side), side * side, symmetric=True,
               check=False)
    del u, v, idx
    rows = []
    for direction in ("auto", "push"):
        for source in (0, side * (side // 2) + side // 2):
            search(M, source, direction=direction)
            _sync()
            t0 = time.perf_counter()
            lev = search(M, source, direction=direction, return_parents=True)[0]
            _sync()
            t = time.perf_counter() - t0
            depth = int(lev.max())
            trace = []
            search(M, source, direction=direction, return_parents=True, trace=trace)
            rows.append({"side": side, "n": side * side, "direction": direction,
                         "source": source, "levels": depth, "ms": t * 1e3,
                         "us_per_level": t / depth * 1e6, "syncs": len(trace)})
    del M
    cupy.get_default_memory_pool().free_all_blocks()
    return rows


def bench_sssp(scale, args):
    import cupy
    import scipy.sparse as sp
    from scipy.sparse import csgraph

    import spbfs
    from spbfs.gpu.build import csr_from_edges
    from spbfs.semiring import Matrix

    n = 1 << scale
    us, vs = generate(scale, args.edgefactor, args.seed)
    G = Matrix(*csr_from_edges(us, vs, n), n, symmetric=True, check=False)
    del us, vs
    w = cupy.random.default_rng(args.seed).uniform(0.01, 1.0, G.nnz)
    M = Matrix(G.indptr, G.indices, w, n)
    # scipy reference on the host: the same CSR with duplicates reduced by min
    indptr, indices, wh = G.indptr.get(), G.indices.get(), w.get()
    rows = np.repeat(np.arange(n), np.diff(indptr))
    order = np.lexsort((wh, indices, rows))
    r, c, ww = rows[order], indices[order], wh[order]
    first = np.r_[True, (r[1:] != r[:-1]) | (c[1:] != c[:-1])]
    H = sp.csr_array((ww[first], (r[first], c[first])), shape=(n, n))
    deg = np.diff(indptr)
    source = int(np.argmax(deg))
    spbfs.sssp(M, int(np.flatnonzero(deg)[0]))  # compile
    _sync()
    t0 = time.perf_counter()
    dist = spbfs.sssp(M, source)
    _sync()
    t_gpu = time.perf_counter() - t0
    t0 = time.perf_counter()
    ref = csgraph.dijkstra(H, directed=True, indices=source)
    t_cpu = time.perf_counter() - t0
    np.testing.assert_allclose(dist.get(), ref, rtol=1e-9)
    return {"scale": scale, "nnz": int(G.nnz), "gpu_s": t_gpu, "scipy_dijkstra_s": t_cpu,
            "speedup": t_cpu / t_gpu}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scales", type=int, nargs="*", default=[20, 22, 24])
    p.add_argument("--edgefactor", type=int, default=16)
    p.add_argument("--roots", type=int, default=64)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--alpha", type=float, default=15.0)
    p.add_argument("--beta", type=float, default=18.0)
    p.add_argument("--baseline-roots", type=int, default=8)
    p.add_argument("--validate-roots", type=int, default=2)
    p.add_argument("--validate-max-scale", type=int, default=22)
    p.add_argument("--grid", type=int, default=2048, help="side of the 2D grid (0: skip)")
    p.add_argument("--sssp-scale", type=int, default=18, help="0: skip")
    p.add_argument("--profile", action="store_true", help="print the per-level trace")
    p.add_argument("--json", default=None)
    args = p.parse_args(argv)

    import cupy

    props = cupy.cuda.runtime.getDeviceProperties(0)
    name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    print(f"# device: {name}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print(f"# command: {' '.join(sys.argv)}")
    results = {"device": name, "graph500": [], "grid": [], "sssp": None}
    for scale in args.scales:
        try:
            row = bench_graph500(scale, args, results["graph500"])
        except MemoryError as exc:  # GPUMemoryError or cupy's OutOfMemoryError
            print(f"scale {scale}: does not fit: {exc}")
            cupy.get_default_memory_pool().free_all_blocks()
            break
        base = row.get("baseline_gteps_hmean")
        print(f"scale {scale}: {row['gteps_hmean']:.1f} GTEPS (hmean of {row['roots']}), "
              f"baseline {base if base is None else round(base, 2)} GTEPS, "
              f"gen {row['gen_s']:.2f}s csr {row['csr_s']:.2f}s, "
              f"{row['csr_bytes_per_edge']:.1f} B/edge CSR, {row['resident_bytes_per_edge']:.1f} "
              f"B/edge resident, median BFS {row['bfs_ms_median']:.2f} ms, "
              f"validated {row['validated']}", flush=True)
        if args.profile:
            for first, last, d, nf, found, sec in row["trace"]:
                print(f"   level {first}-{last} {d}: in {nf} found {found} {sec * 1e6:.0f} us")
    if args.grid:
        results["grid"] = bench_grid(args.grid, args)
        for r in results["grid"]:
            print(f"grid {r['side']}x{r['side']} {r['direction']} src {r['source']}: "
                  f"{r['levels']} levels, {r['ms']:.1f} ms, {r['us_per_level']:.1f} us/level, "
                  f"{r['syncs']} syncs", flush=True)
    if args.sssp_scale:
        s = results["sssp"] = bench_sssp(args.sssp_scale, args)
        print(f"sssp scale {s['scale']} ({s['nnz']} entries): GPU {s['gpu_s'] * 1e3:.1f} ms, "
              f"scipy dijkstra {s['scipy_dijkstra_s'] * 1e3:.1f} ms, x{s['speedup']:.1f}")
    print("\n| scale | GTEPS (hmean) | cupyx GTEPS | speedup | gen s | CSR s | B/edge CSR |"
          " B/edge resident |")
    print("|---|---|---|---|---|---|---|---|")
    for r in results["graph500"]:
        b = r.get("baseline_gteps_hmean")
        sp_ = f"{r['gteps_hmean'] / b:.0f}x" if b else "-"
        bs = f"{b:.2f}" if b else "-"
        print(f"| {r['scale']} | {r['gteps_hmean']:.1f} | {bs} | {sp_} | {r['gen_s']:.2f} | "
              f"{r['csr_s']:.2f} | {r['csr_bytes_per_edge']:.1f} | "
              f"{r['resident_bytes_per_edge']:.1f} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1, default=float)


if __name__ == "__main__":
    main()
